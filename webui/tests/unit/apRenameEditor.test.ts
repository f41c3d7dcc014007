// Renaming an AP in the topology editor: everything in the configuration that names the AP
// (its STAs, the conflicting pairs, the slice map's and the policies' pairs) follows it in the
// same edit, so the controller's cross-reference check passes.
import { flushPromises, mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { defineComponent, h } from 'vue'
import { createMemoryHistory, createRouter, RouterView } from 'vue-router'
import type { ConfigDoc, Topology } from '../../src/api/types'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import TopologyView from '../../src/views/TopologyView.vue'
import { json } from './responses'

const topology = (): Topology => ({
  aps: [{ id: 'ap1', name: 'A', channel: 36, port: 'p1', vlan: null }, { id: 'ap2', name: 'B', channel: 36, port: 'p2', vlan: null }],
  stas: [{ id: 'sta1', mac: '02:00:00:00:00:01', ips: [], ap: 'ap1' }, { id: 'sta2', mac: '02:00:00:00:00:02', ips: [], ap: 'ap2' }],
  conflicts: [['ap1/sta1', 'ap2/sta2']],
})
const doc = (): ConfigDoc => ({
  schema_version: 1,
  appliance_id: 'lab',
  topology: topology(),
  slice_map: { slices: [{ duration_ms: 20, pairs: ['ap1/sta1'] }, { duration_ms: 20, pairs: ['ap2/sta2'] }] },
  policies: { dynamic_slicing: { enabled: true, pairs: ['ap1/sta1'] }, aggregation_target: { pairs: ['ap2/sta2'], overrides: [{ pairs: ['ap1/sta1'], n_max_mpdus: 32 }] } },
})

interface Sent {
  method: string
  url: string
  body: { topology?: Topology; doc?: ConfigDoc; base_version?: number }
}

/** The controller at version 4; `refuse`, when given, answers every write; with `newer`, someone
 *  saves version 5 (`newer` of version 4's document) before the first write, refused as stale. */
function stubApi(refuse?: Response, newer?: (d: ConfigDoc) => ConfigDoc): Sent[] {
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

beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
})
afterEach(() => vi.unstubAllGlobals())

async function mountPage() {
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/topology', component: TopologyView }] })
  await router.push('/topology') // the page's leave guard needs its route
  const w = mount(defineComponent({ render: () => h(RouterView) }), { global: { plugins: [router] } })
  await flushPromises()
  return w
}
type Page = Awaited<ReturnType<typeof mountPage>>
async function renameAp(w: Page, n: number, id: string) {
  await w.get(`[aria-label="AP ${n} id"]`).setValue(id) // typed, then 'change' as the field is left
}
async function save(w: Page) {
  await w.findAll('button').find((b) => b.text() === 'Save topology')!.trigger('click')
  await flushPromises()
}

describe('renaming an AP in the topology editor', () => {
  it('renames its STAs, its conflicting pairs and the slice map\'s and policies\' pairs in the document saved', async () => {
    const sent = stubApi()
    const w = await mountPage()
    await renameAp(w, 1, 'ap9')
    await save(w)
    const body = sent[0].body
    const savedTopology = body.doc?.topology ?? body.topology!
    expect(savedTopology.stas.map((s) => s.ap)).toEqual(['ap9', 'ap2'])
    expect(savedTopology.aps.map((a) => a.id)).toEqual(['ap9', 'ap2'])
    expect(savedTopology.conflicts).toEqual([['ap9/sta1', 'ap2/sta2']])
    // The slice map and policies name the AP too: a topology-only save would be refused for them.
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /api/v1/versions'])
    const saved = body.doc
    expect(body.base_version).toBe(4)
    expect(saved!.slice_map.slices.map((s) => s.pairs)).toEqual([['ap9/sta1'], ['ap2/sta2']])
    expect(saved!.policies).toEqual({ dynamic_slicing: { enabled: true, pairs: ['ap9/sta1'] }, aggregation_target: { pairs: ['ap2/sta2'], overrides: [{ pairs: ['ap9/sta1'], n_max_mpdus: 32 }] } })
  })

  it('saves an AP renamed twice as one rename, and one renamed back as a plain topology edit', async () => {
    const sent = stubApi()
    const w = await mountPage()
    await renameAp(w, 1, 'ap5')
    await renameAp(w, 1, 'ap9')
    await save(w)
    expect(sent[0].body.doc!.slice_map.slices[0].pairs).toEqual(['ap9/sta1'])
    await renameAp(w, 1, 'ap3')
    await renameAp(w, 1, 'ap1') // version 5 as loaded again is ap1: renamed back, a plain topology edit
    await save(w)
    expect(sent[1].method).toBe('PUT')
    expect(sent[1].body.topology!.stas[0].ap).toBe('ap1')
  })

  it('refuses a rename to an id another AP has, beside the field, and leaves the AP and its references as they were', async () => {
    const sent = stubApi()
    const w = await mountPage()
    await renameAp(w, 1, 'ap2')
    const input = w.get('[aria-label="AP 1 id"]')
    expect((input.element as HTMLInputElement).value).toBe('ap1')
    expect(input.element.parentElement!.textContent).toContain('ap2 is already the id of AP 2')
    await save(w)
    expect(sent[0].method).toBe('PUT')
    expect(sent[0].body.topology).toEqual(topology())
  })

  it('shows the controller\'s refusal of the whole document beside the topology field it names', async () => {
    const message = 'String should have at most 64 characters'
    stubApi(json(422, { status: 422, detail: `doc.topology.aps[0].name: ${message}`, field: 'doc.topology.aps[0].name', errors: [{ field: 'doc.topology.aps[0].name', message, type: 'string_too_long' }] }))
    const w = await mountPage()
    await renameAp(w, 1, 'ap9')
    await save(w)
    expect(w.get('[aria-label="AP 1 name"]').element.parentElement!.textContent).toContain(message)
    expect(w.get('[data-testid=server-error]').text()).toContain('see the fields marked above')
  })

  it('re-applies a rename on the version someone saved meanwhile: the STA they put on the AP follows it, and it is saved on that version', async () => {
    const sent = stubApi(undefined, (d) => ({
      ...d,
      topology: { ...d.topology, stas: [...d.topology.stas, { id: 'sta3', mac: '02:00:00:00:00:03', ips: [], ap: 'ap1' }] },
      slice_map: { slices: [...d.slice_map.slices, { duration_ms: 10, pairs: ['ap1/sta3'] }] },
    }))
    const w = await mountPage()
    await renameAp(w, 1, 'ap9')
    await save(w)
    await w.get('[data-testid=reapply]').trigger('click')
    await flushPromises()
    expect(w.find('[data-testid=reapply-conflicts]').exists()).toBe(false)
    await save(w)
    const { doc: saved, base_version } = sent[1].body
    expect(base_version).toBe(5)
    expect(saved!.topology.stas.map((s) => `${s.ap}/${s.id}`)).toEqual(['ap9/sta1', 'ap2/sta2', 'ap9/sta3'])
    expect(saved!.slice_map.slices.map((s) => s.pairs)).toEqual([['ap9/sta1'], ['ap2/sta2'], ['ap9/sta3']])
  })
})
