// A save refused with 409 (someone saved a version since the editor loaded its own) in the
// slice-map and policy editors: the user reloads the latest version with their edits re-applied.
import { flushPromises, mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { defineComponent, h, type Component } from 'vue'
import { createMemoryHistory, createRouter, RouterView } from 'vue-router'
import type { ApplianceStatus, Policies, Slice, Topology } from '../../src/api/types'
import { policySections } from '../../src/lib/policySchema'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import PoliciesView from '../../src/views/PoliciesView.vue'
import SliceMapsView from '../../src/views/SliceMapsView.vue'

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })

const topology: Topology = {
  aps: [{ id: 'ap1', name: 'A', channel: 36, port: 'p1', vlan: null }],
  stas: [
    { id: 'sta1', mac: '02:00:00:00:00:01', ips: [], ap: 'ap1' },
    { id: 'sta2', mac: '02:00:00:00:00:02', ips: [], ap: 'ap1' },
  ],
  conflicts: [],
}
const status: ApplianceStatus = {
  id: 'lab', head: 150, desired: 150, active: 150, pending: false, rejected: null, alive: true,
  heartbeat: { ts_ns: null, pid: 7, version: 150, backend: 'dpdk' }, heartbeat_age_s: 0.1, last_frame: null,
}
const stale = { status: 409, detail: 'base_version 150 is stale: the latest version is 151; reload and edit again', field: 'base_version', errors: [] }
const frame = (d1: number, d2: number): Slice[] => [{ duration_ms: d1, pairs: ['ap1/sta1'] }, { duration_ms: d2, pairs: ['ap1/sta2'] }]
const policies = (a: number, rInit: number): Policies => ({
  ...Object.fromEntries(policySections().map((s) => [s.key, {}])),
  ts_abr_qd: { a_pkts_per_ms: a, r_init_pkts: rInit },
})

/** The controller: version 150 when the page loads, 151 (`newer`) once someone else has saved;
 *  the first PUT is refused as stale, later ones stored as 152. */
function stubApi(newer: { slices: Slice[]; policies: Policies }, old: { slices: Slice[]; policies: Policies }) {
  const puts: { base_version: number; slice_map?: { slices: Slice[] }; policies?: Policies }[] = []
  let head = 150
  vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
    if (init.method === 'PUT') {
      puts.push(JSON.parse(String(init.body)))
      if (puts.length === 1) {
        head = 151
        return json(409, stale)
      }
      return json(201, { version: 152, appliance_id: 'lab', author: 'op', created_at: '', comment: '', parent: 151 })
    }
    const cur = head === 150 ? old : newer
    if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: head, topology })
    if (u.startsWith('/api/v1/slice-maps?')) return json(200, { appliance_id: 'lab', version: head, frame_ms: 50, slice_map: { slices: cur.slices } })
    if (u.startsWith('/api/v1/policies?')) return json(200, { appliance_id: 'lab', version: head, policies: cur.policies })
    if (u === '/api/v1/appliances/lab') return json(200, { ...status, head })
    if (u.startsWith('/api/v1/versions?')) return json(200, { total: 0, items: [] })
    return json(404, {})
  }))
  return puts
}

async function mountPage(page: Component) {
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/editor', component: page }] })
  await router.push('/editor') // the page's leave guard needs its route
  const w = mount(defineComponent({ render: () => h(RouterView) }), { global: { plugins: [router] } })
  await flushPromises()
  return w
}
const click = async (w: Awaited<ReturnType<typeof mountPage>>, sel: string) => {
  await w.get(sel).trigger('click')
  await flushPromises()
}
const value = (w: Awaited<ReturnType<typeof mountPage>>, sel: string) => (w.get(sel).element as HTMLInputElement).value

beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
})
afterEach(() => vi.unstubAllGlobals())

describe('a save refused as stale (409)', () => {
  it('reloads the latest slice map with the user\'s edit re-applied on top, and saves both on the newer version', async () => {
    const puts = stubApi({ slices: frame(20, 40), policies: policies(1, 8) }, { slices: frame(20, 30), policies: policies(1, 8) })
    const w = await mountPage(SliceMapsView)
    await w.get('#dur-0').setValue('35')
    await click(w, '[data-testid=save]')
    expect(w.get('[data-testid=server-error]').text()).toContain('409')
    expect(value(w, '#dur-0')).toBe('35') // refused, not lost
    await click(w, '[data-testid=reapply]')
    expect(w.get('[data-testid=base-version]').text()).toBe('151')
    expect([value(w, '#dur-0'), value(w, '#dur-1')]).toEqual(['35', '40'])
    expect(w.find('[data-testid=server-error]').exists()).toBe(false)
    expect(w.find('[data-testid=reapply-conflicts]').exists()).toBe(false)
    expect(w.get('[data-testid=notice]').text()).toContain('re-applied your edits')
    await click(w, '[data-testid=save]')
    expect(puts[1]).toMatchObject({ base_version: 151, slice_map: { slices: frame(35, 40) } })
    expect(w.get('[data-testid=notice]').text()).toContain('Saved as version 152')
  })

  it('keeps the user\'s slice duration where the newer version changed it too, and names it with the newer value', async () => {
    const puts = stubApi({ slices: frame(25, 30), policies: policies(1, 8) }, { slices: frame(20, 30), policies: policies(1, 8) })
    const w = await mountPage(SliceMapsView)
    await w.get('#dur-0').setValue('35')
    await click(w, '[data-testid=save]')
    await click(w, '[data-testid=reapply]')
    expect(value(w, '#dur-0')).toBe('35')
    expect(w.get('[data-testid=reapply-conflicts]').text()).toContain('slice 1 duration: yours kept; version 151 has 25 ms')
    await click(w, '[data-testid=save]')
    expect(puts[1]).toMatchObject({ base_version: 151, slice_map: { slices: frame(35, 30) } })
  })

  it('reloads the latest policies with the user\'s edit re-applied on top, and names a field both changed', async () => {
    const puts = stubApi({ slices: frame(20, 30), policies: policies(3, 16) }, { slices: frame(20, 30), policies: policies(1, 8) })
    const w = await mountPage(PoliciesView)
    await w.get('#pol-ts_abr_qd-a_pkts_per_ms').setValue('2') // version 151 makes it 3
    await w.find('form').trigger('submit')
    await flushPromises()
    expect(w.get('[data-testid=server-error]').text()).toContain('409')
    await click(w, '[data-testid=reapply]')
    expect(value(w, '#pol-ts_abr_qd-a_pkts_per_ms')).toBe('2')
    expect(value(w, '#pol-ts_abr_qd-r_init_pkts')).toBe('16') // only version 151 changed it
    expect(w.get('[data-testid=reapply-conflicts]').text()).toContain('policies.ts_abr_qd.a_pkts_per_ms: yours kept; version 151 has 3')
    await w.find('form').trigger('submit')
    await flushPromises()
    expect(puts[1]).toMatchObject({ base_version: 151, policies: { ts_abr_qd: { a_pkts_per_ms: 2, r_init_pkts: 16 } } })
  })
})
