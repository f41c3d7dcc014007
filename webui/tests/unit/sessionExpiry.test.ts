// A session that ends (401) while the slice-map editor holds unsaved edits.
import { flushPromises, mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ApplianceStatus, Topology } from '../../src/api/types'
import App from '../../src/App.vue'
import { makeRouter } from '../../src/router'
import { useAppliances } from '../../src/stores/appliances'
import { json, oneStaTopology } from './responses'

const topology: Topology = oneStaTopology()
const lab: ApplianceStatus = {
  id: 'lab', head: 4, desired: 4, active: 4, pending: false, rejected: null, alive: true,
  heartbeat: { ts_ns: null, pid: 7, version: 4, backend: 'dpdk' }, heartbeat_age_s: 0.1, last_frame: null,
}
const me = (csrf: string) => ({ username: 'op', role: 'operator', via: 'session', csrf_token: csrf })

// The controller: the session's first write finds it expired (401); a login makes a new
// session whose CSRF token the next write must carry.
function stubApi() {
  const puts: { body: { slice_map: { slices: { duration_ms: number }[] }; base_version: number }; csrf: string }[] = []
  let session = 'c1'
  vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
    const csrf = (init.headers as Record<string, string>)['X-CSRF-Token']
    if (u === '/api/v1/auth/me') return json(200, me(session))
    if (u === '/api/v1/auth/login') {
      session = 'c2'
      return json(200, me(session))
    }
    if (init.method === 'PUT') {
      puts.push({ body: JSON.parse(String(init.body)), csrf })
      if (puts.length === 1) return json(401, { status: 401, detail: 'session expired', field: 'cookie.adwiser_session', errors: [] })
      return json(201, { version: 5, appliance_id: 'lab', author: 'op', created_at: '', comment: '', parent: 4 })
    }
    if (u === '/api/v1/appliances') return json(200, [lab])
    if (u === '/api/v1/appliances/lab') return json(200, lab)
    if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: 4, topology })
    if (u.startsWith('/api/v1/slice-maps?')) return json(200, { appliance_id: 'lab', version: 4, frame_ms: 20, slice_map: { slices: [{ duration_ms: 20, pairs: ['ap1/sta1'] }] } })
    if (u.startsWith('/api/v1/versions?')) return json(200, { total: 0, items: [] })
    return json(404, {})
  }))
  return puts
}

let confirm: ReturnType<typeof vi.fn>
beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  confirm = vi.fn(() => false)
  vi.stubGlobal('confirm', confirm)
})
afterEach(() => {
  useAppliances().stop()
  vi.unstubAllGlobals()
})

describe('a session ending mid-edit', () => {
  it('keeps the slice-map editor with its unsaved edits, asks for the password in place, and saves the edits after the new login', async () => {
    const puts = stubApi()
    const router = makeRouter()
    await router.push('/slice-maps')
    const w = mount(App, { global: { plugins: [router] } })
    await vi.waitFor(() => expect(w.find('#dur-0').exists()).toBe(true))
    await w.get('#dur-0').setValue('35')
    await w.get('[data-testid=save]').trigger('click')
    await flushPromises()
    expect(puts).toHaveLength(1)
    expect(router.currentRoute.value.path).toBe('/slice-maps')
    expect(confirm).not.toHaveBeenCalled() // nobody is asked to throw the edits away
    expect((w.get('#dur-0').element as HTMLInputElement).value).toBe('35')
    expect(w.find('[data-testid=readonly]').exists()).toBe(false) // no "logged in as a viewer": nobody is

    await w.get('#relogin-username').setValue('op')
    await w.get('#relogin-password').setValue('pw')
    await w.get('[data-testid=relogin] form').trigger('submit')
    await flushPromises()
    expect(w.find('[data-testid=relogin]').exists()).toBe(false)
    expect((w.get('#dur-0').element as HTMLInputElement).value).toBe('35')
    await w.get('[data-testid=save]').trigger('click')
    await flushPromises()
    expect(puts[1]).toMatchObject({ csrf: 'c2', body: { base_version: 4, slice_map: { slices: [{ duration_ms: 35 }] } } })
    expect(w.get('[data-testid=notice]').text()).toContain('Saved as version 5')
    w.unmount()
  })
})
