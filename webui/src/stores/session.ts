// Who is logged in and what they may do. The role decides editability:
// viewers read only; operators and admins edit, apply and roll back (the
// controller enforces the same rule; the UI just does not offer what would be refused).
import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import { api, ApiError, setCsrfToken, setRoleRefusedHandler, setUnauthorizedHandler } from '../api/client'
import type { Me } from '../api/types'

export const useSession = defineStore('session', () => {
  const me = ref<Me | null>(null)
  const checked = ref(false)
  /** True once the API refused the logged-in user with 401 (session expired, user
   *  disabled, token revoked); the router then goes to the login page. */
  const expired = ref(false)

  const canEdit = computed(() => me.value !== null && me.value.role !== 'viewer')
  const isAdmin = computed(() => me.value?.role === 'admin')

  function adopt(m: Me | null): void {
    me.value = m
    setCsrfToken(m?.csrf_token ?? null)
    if (m) expired.value = false
  }

  /** A 401 from the API: the controller no longer knows this session, so it ends here too. */
  function expire(): void {
    if (!me.value) return
    adopt(null)
    expired.value = true
  }
  setUnauthorizedHandler(expire)
  // A request refused for the role: the role is read again, so the pages stop offering what it may not do
  // (a viewer's pages are read-only) and keep what was typed, shown read-only.
  setRoleRefusedHandler(() => void restore().catch(() => null))

  /** Resume an existing session cookie (page reload); null when not logged in. */
  async function restore(): Promise<Me | null> {
    try {
      adopt(await api.get<Me>('/auth/me'))
    } catch (e) {
      if (!(e instanceof ApiError) || (e.status !== 401 && e.status !== 403)) throw e
      adopt(null)
    } finally {
      checked.value = true
    }
    return me.value
  }

  async function login(username: string, password: string): Promise<Me> {
    const m = await api.post<Me>('/auth/login', { username, password })
    adopt(m)
    checked.value = true
    return m
  }

  async function logout(): Promise<void> {
    try {
      await api.post('/auth/logout')
    } finally {
      adopt(null)
    }
  }

  return { me, checked, expired, canEdit, isAdmin, restore, login, logout, adopt }
})
