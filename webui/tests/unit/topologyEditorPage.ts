// The topology editor as the rename specs drive it: the page mounted on its route, and a stand-in
// controller holding the two-AP lab document (ap1/sta1 and ap2/sta2 conflict, one slice each,
// both named by the policies) at version 4, recording each write.
import { flushPromises } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { vi } from 'vitest'
import type { ConfigDoc, Topology } from '../../src/api/types'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import TopologyView from '../../src/views/TopologyView.vue'
import { mountOnRoute } from './pageOnRoute'
import { json } from './responses'

export const topology = (): Topology => ({
  aps: [{ id: 'ap1', name: 'A', channel: 36, port: 'p1', vlan: null }, { id: 'ap2', name: 'B', channel: 36, port: 'p2', vlan: null }],
  stas: [{ id: 'sta1', mac: '02:00:00:00:00:01', ips: [], ap: 'ap1' }, { id: 'sta2', mac: '02:00:00:00:00:02', ips: [], ap: 'ap2' }],
  conflicts: [['ap1/sta1', 'ap2/sta2']],
})
export const doc = (): ConfigDoc => ({
  schema_version: 1,
  appliance_id: 'lab',
  topology: topology(),
  slice_map: { slices: [{ duration_ms: 20, pairs: ['ap1/sta1'] }, { duration_ms: 20, pairs: ['ap2/sta2'] }] },
  policies: { dynamic_slicing: { enabled: true, pairs: ['ap1/sta1'] }, aggregation_target: { pairs: ['ap2/sta2'], overrides: [{ pairs: ['ap1/sta1'], n_max_mpdus: 32 }] } },
})

export interface Sent {
  method: string
  url: string
  body: { topology?: Topology; doc?: ConfigDoc; base_version?: number }
}

/** The controller at version 4; `refuse`, when given, answers every write; with `newer`, someone
 *  saves version 5 (`newer` of version 4's document) before the first write, refused as stale. */
export function stubApi(refuse?: Response, newer?: (d: ConfigDoc) => ConfigDoc): Sent[] {
  const sent: Sent[] = []
  let head = 4
  const docOf = (n: number) => (n === 5 && newer ? newer(doc()) : doc())
  vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
    if (init.method !== 'GET') {
      sent.push({ method: String(init.method), url: u, body: JSON.parse(String(init.body)) })
      if (newer && head === 4) {
        head = 5
        return json(409, { status: 409, detail: 'base_version 4 is stale: the latest version is 5; reload and edit again', field: 'base_version', errors: [] })
      }
      return refuse ?? json(201, { version: head + 1, appliance_id: 'lab', author: 'op', created_at: '', comment: '', parent: head })
    }
    if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: head, topology: docOf(head).topology })
    const n = Number(u.match(/^\/api\/v1\/versions\/(\d+)$/)?.[1])
    if (n === 4 || n === head) return json(200, { version: n, appliance_id: 'lab', author: 'op', created_at: '', comment: '', parent: n - 1, doc: docOf(n) })
    return json(404, {})
  }))
  return sent
}

/** An operator's session on appliance 'lab'; call before each test. */
export function signIn(): void {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
}

export const mountPage = () => mountOnRoute(TopologyView, '/topology')
export type Page = Awaited<ReturnType<typeof mountPage>>

/** Types `value` into the field labelled `label`, then leaves it ('change'). */
export async function setField(w: Page, label: string, value: string) {
  await w.get(`[aria-label="${label}"]`).setValue(value)
}
export async function save(w: Page) {
  await w.findAll('button').find((b) => b.text() === 'Save topology')!.trigger('click')
  await flushPromises()
}

/** Version 5 as someone else saved it meanwhile: `d` with sta3 on ap1 in a slice of its own, and `conflicts` added. */
export function withSta3OnAp1(d: ConfigDoc, conflicts: [string, string][] = []): ConfigDoc {
  return {
    ...d,
    topology: { ...d.topology, stas: [...d.topology.stas, { id: 'sta3', mac: '02:00:00:00:00:03', ips: [], ap: 'ap1' }], conflicts: [...d.topology.conflicts, ...conflicts] },
    slice_map: { slices: [...d.slice_map.slices, { duration_ms: 10, pairs: ['ap1/sta3'] }] },
  }
}

/** Saves, is refused because a newer version exists (stubApi's `newer`), and re-applies the edits on it. */
export async function saveStaleAndReapply(w: Page) {
  await save(w)
  await w.get('[data-testid=reapply]').trigger('click')
  await flushPromises()
}
