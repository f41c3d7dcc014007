import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { makeRouter } from '../../src/router'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import { json } from './responses'

beforeEach(() => setActivePinia(createPinia()))
afterEach(() => vi.unstubAllGlobals())

describe('router', () => {
  it('goes to the login page, keeping the page in ?next=, when the API answers 401 after login', async () => {
    let expired = false
    vi.stubGlobal('fetch', vi.fn(async (u: string) => {
      if (expired) return json(401, { status: 401, detail: 'session expired', field: 'cookie.adwiser_session', errors: [] })
      if (u.endsWith('/auth/me')) return json(200, { username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
      return json(200, [])
    }))
    const router = makeRouter()
    await router.push('/history')
    expect(router.currentRoute.value.fullPath).toBe('/history')
    expect(useSession().me?.username).toBe('op')
    expired = true
    await useAppliances().refresh() // the poll meets the expired session
    await vi.waitFor(() => expect(router.currentRoute.value.name).toBe('login'))
    expect(router.currentRoute.value.query).toEqual({ next: '/history' })
  })
})
