// A user whose role an admin lowered to viewer while they edit: the controller refuses their save
// (403 naming `role`), and the page learns the role and shows the document read-only.
import { flushPromises } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { policySections } from '../../src/lib/policySchema'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import PoliciesView from '../../src/views/PoliciesView.vue'
import { mountOnRoute } from './pageOnRoute'
import { json, oneStaTopology } from './responses'

const policies = () => ({ ...Object.fromEntries(policySections().map((s) => [s.key, {}])), ts_abr_qd: { a_pkts_per_ms: 1 } })

beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
  vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
    if (init.method === 'PUT') return json(403, { status: 403, detail: "role 'viewer' may not do this; it needs 'operator'", field: 'role', errors: [] })
    if (u === '/api/v1/auth/me') return json(200, { username: 'op', role: 'viewer', via: 'session', csrf_token: 'c' })
    if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: 4, topology: oneStaTopology() })
    return json(200, { appliance_id: 'lab', version: 4, policies: policies() })
  }))
})
afterEach(() => vi.unstubAllGlobals())

describe('a save refused for the role', () => {
  it('shows the page read-only, as to a viewer, keeping what was typed', async () => {
    const w = await mountOnRoute(PoliciesView, '/policies')
    const a = () => w.get('input[name="ts_abr_qd.a_pkts_per_ms"]')
    await a().setValue('3')
    await w.get('form').trigger('submit')
    await flushPromises()
    expect(useSession().me?.role).toBe('viewer')
    expect(w.find('.readonly-note').exists()).toBe(true)
    expect(a().attributes('disabled')).toBeDefined()
    expect((a().element as HTMLInputElement).value).toBe('3')
    expect(w.get('[data-testid=server-error]').text()).toContain('403')
  })
})
