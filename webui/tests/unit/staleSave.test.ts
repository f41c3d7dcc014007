// A save refused with 409 (someone saved a version since the editor loaded its own) in the
// slice-map, policy and topology editors: the user reloads the latest version with their edits
// re-applied.
import { flushPromises } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Component } from 'vue'
import type { ApplianceStatus, Policies, Slice, Topology } from '../../src/api/types'
import { policySections } from '../../src/lib/policySchema'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import PoliciesView from '../../src/views/PoliciesView.vue'
import SliceMapsView from '../../src/views/SliceMapsView.vue'
import TopologyView from '../../src/views/TopologyView.vue'
import { mountOnRoute } from './pageOnRoute'
import { json } from './responses'

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

interface Doc {
  slices: Slice[]
  policies: Policies
  topology?: Topology // `topology` when not given
}

/** The controller: version 150 when the page loads, 151 (`newer`) once someone else has saved;
 *  the first PUT is refused as stale, later ones stored as 152. */
function stubApi(newer: Doc, old: Doc) {
  const puts: { base_version: number; slice_map?: { slices: Slice[] }; policies?: Policies; topology?: Topology }[] = []
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
    if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: head, topology: cur.topology ?? topology })
    if (u.startsWith('/api/v1/slice-maps?')) return json(200, { appliance_id: 'lab', version: head, frame_ms: 50, slice_map: { slices: cur.slices } })
    if (u.startsWith('/api/v1/policies?')) return json(200, { appliance_id: 'lab', version: head, policies: cur.policies })
    if (u === '/api/v1/appliances/lab') return json(200, { ...status, head })
    if (u.startsWith('/api/v1/versions?')) return json(200, { total: 0, items: [] })
    return json(404, {})
  }))
  return puts
}

const mountPage = (page: Component) => mountOnRoute(page, '/editor')
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

  const saveTopology = (w: Awaited<ReturnType<typeof mountPage>>) => w.findAll('button').find((b) => b.text() === 'Save topology')!.trigger('click')
  const withAp1 = (channel: number, name = 'A'): Topology => ({ ...topology, aps: [{ ...topology.aps[0], channel, name }] })

  it('reloads the latest topology with the user\'s edit re-applied on top, matching APs and STAs by id, and saves both on the newer version', async () => {
    const newer: Topology = { ...withAp1(40), stas: [topology.stas[1], { id: 'sta3', mac: '02:00:00:00:00:03', ips: [], ap: 'ap1' }] } // sta1 removed
    const puts = stubApi({ slices: frame(20, 30), policies: policies(1, 8), topology: newer }, { slices: frame(20, 30), policies: policies(1, 8) })
    const w = await mountPage(TopologyView)
    await w.get('[aria-label="AP 1 name"]').setValue('Lobby')
    await w.get('[aria-label="STA 2 MAC"]').setValue('02:00:00:00:00:22')
    await saveTopology(w)
    await flushPromises()
    expect(w.get('[data-testid=server-error]').text()).toContain('409')
    await click(w, '[data-testid=reapply]')
    expect(w.text()).toContain('Version 151 of appliance lab')
    expect(value(w, '[aria-label="AP 1 name"]')).toBe('Lobby')
    expect(value(w, '[aria-label="AP 1 channel"]')).toBe('40')
    expect([value(w, '[aria-label="STA 1 id"]'), value(w, '[aria-label="STA 1 MAC"]')]).toEqual(['sta2', '02:00:00:00:00:22'])
    expect(value(w, '[aria-label="STA 2 id"]')).toBe('sta3')
    expect(w.find('[data-testid=server-error]').exists()).toBe(false)
    expect(w.find('[data-testid=reapply-conflicts]').exists()).toBe(false)
    expect(w.get('[data-testid=notice]').text()).toContain('re-applied your edits')
    await saveTopology(w)
    await flushPromises()
    expect(puts[1]).toMatchObject({
      base_version: 151,
      topology: { aps: [{ id: 'ap1', name: 'Lobby', channel: 40 }], stas: [{ id: 'sta2', mac: '02:00:00:00:00:22' }, { id: 'sta3' }] },
    })
    expect(w.get('[data-testid=notice]').text()).toContain('Saved as version 152')
  })

  it('keeps the user\'s AP field where the newer version changed it too, and names the AP, field and newer value', async () => {
    const puts = stubApi({ slices: frame(20, 30), policies: policies(1, 8), topology: withAp1(40, 'Hall') }, { slices: frame(20, 30), policies: policies(1, 8) })
    const w = await mountPage(TopologyView)
    await w.get('[aria-label="AP 1 channel"]').setValue('44')
    await saveTopology(w)
    await flushPromises()
    await click(w, '[data-testid=reapply]')
    expect(value(w, '[aria-label="AP 1 channel"]')).toBe('44')
    expect(value(w, '[aria-label="AP 1 name"]')).toBe('Hall')
    expect(w.get('[data-testid=reapply-conflicts]').text()).toContain('AP ap1 channel: yours kept; version 151 has 40')
    await saveTopology(w)
    await flushPromises()
    expect(puts[1]).toMatchObject({ base_version: 151, topology: { aps: [{ id: 'ap1', name: 'Hall', channel: 44 }] } })
  })
})
