// The appliances the controller manages, and the one the pages are showing.
// Polled every few seconds; a poll that gets no answer or a server error marks
// the controller unreachable (shown in the banner) and keeps retrying.
import { defineStore } from 'pinia'
import { ref } from 'vue'
import { api, ApiError } from '../api/client'
import { newerAnswers } from '../lib/newerAnswers'
import type { ApplianceStatus } from '../api/types'

export const useAppliances = defineStore('appliances', () => {
  const list = ref<ApplianceStatus[]>([])
  const selected = ref<string>(localStorage.getItem('adwiser.appliance') ?? '')
  const reachable = ref(true)
  const lastError = ref<string>('')
  let timer: ReturnType<typeof setInterval> | null = null

  function select(id: string): void {
    selected.value = id
    localStorage.setItem('adwiser.appliance', id)
  }

  // Polls may overlap (a slow controller; the Appliances page also refreshes on mount).
  const answers = newerAnswers()

  async function refresh(): Promise<void> {
    const mine = answers.ask()
    try {
      const l = await api.get<ApplianceStatus[]>('/appliances')
      if (!answers.fresh(mine)) return
      list.value = l
      reachable.value = true
      lastError.value = ''
      if (!list.value.some((a) => a.id === selected.value) && list.value.length) select(list.value[0].id)
    } catch (e) {
      if (!answers.fresh(mine)) return
      // No answer (0), or the controller's or a proxy's own failure (5xx: 503 while its Redis is
      // down): either way the list shown is no longer current. A 401 is the session's (login page).
      if (e instanceof ApiError && (e.status === 0 || e.status >= 500)) reachable.value = false
      lastError.value = (e as Error).message
    }
  }

  function start(periodMs = 3000): void {
    stop()
    void refresh()
    timer = setInterval(() => void refresh(), periodMs)
  }

  function stop(): void {
    if (timer) clearInterval(timer)
    timer = null
  }

  return { list, selected, reachable, lastError, select, refresh, start, stop }
})
