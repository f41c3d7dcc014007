// Renaming a STA, or moving it to another AP, in the topology editor: both change the pair it
// makes ('ap/sta'), so everything that names that pair (the conflicting pairs, the slice map's
// slices, the policies' pair lists) follows it in the same edit and the controller's
// cross-reference check passes. A moved STA keeps its slices, policies and conflicts.
import { flushPromises } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mountPage, type Page, save, saveStaleAndReapply, setField, signIn, stubApi, topology, withSta3OnAp1 } from './topologyEditorPage'

beforeEach(signIn)
afterEach(() => vi.unstubAllGlobals())

const renameSta = (w: Page, n: number, id: string) => setField(w, `STA ${n} id`, id)
const moveSta = (w: Page, n: number, ap: string) => setField(w, `STA ${n} AP`, ap)
const slicePairs = (d: { slice_map: { slices: { pairs: string[] }[] } }) => d.slice_map.slices.map((s) => s.pairs)

describe('renaming a STA in the topology editor', () => {
  it('renames its pair in the conflicting pairs and in the slice map\'s and policies\' pairs of the document saved', async () => {
    const sent = stubApi()
    const w = await mountPage()
    await renameSta(w, 1, 'sta5')
    await save(w)
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /api/v1/versions'])
    const { doc: saved, base_version } = sent[0].body
    expect(base_version).toBe(4)
    expect(saved!.topology.stas.map((s) => `${s.ap}/${s.id}`)).toEqual(['ap1/sta5', 'ap2/sta2'])
    expect(saved!.topology.conflicts).toEqual([['ap1/sta5', 'ap2/sta2']])
    expect(slicePairs(saved!)).toEqual([['ap1/sta5'], ['ap2/sta2']])
    expect(saved!.policies).toEqual({ dynamic_slicing: { enabled: true, pairs: ['ap1/sta5'] }, aggregation_target: { pairs: ['ap2/sta2'], overrides: [{ pairs: ['ap1/sta5'], n_max_mpdus: 32 }] } })
  })
})

describe('moving a STA to another AP in the topology editor', () => {
  it('moves its pair with it: its slices, its policies and its conflicts name the new pair in the document saved', async () => {
    const sent = stubApi()
    const w = await mountPage()
    await moveSta(w, 1, 'ap2')
    await save(w)
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /api/v1/versions'])
    const saved = sent[0].body.doc!
    expect(saved.topology.stas.map((s) => `${s.ap}/${s.id}`)).toEqual(['ap2/sta1', 'ap2/sta2'])
    expect(saved.topology.conflicts).toEqual([['ap2/sta1', 'ap2/sta2']])
    expect(slicePairs(saved)).toEqual([['ap2/sta1'], ['ap2/sta2']])
    expect(saved.policies).toEqual({ dynamic_slicing: { enabled: true, pairs: ['ap2/sta1'] }, aggregation_target: { pairs: ['ap2/sta2'], overrides: [{ pairs: ['ap2/sta1'], n_max_mpdus: 32 }] } })
  })

  it('follows a STA renamed, moved and then its new AP renamed as one pair rename, and one moved back as a plain topology edit', async () => {
    const sent = stubApi()
    const w = await mountPage()
    await renameSta(w, 1, 'sta5')
    await moveSta(w, 1, 'ap2')
    await setField(w, 'AP 2 id', 'ap7')
    await save(w)
    const saved = sent[0].body.doc!
    expect(saved.topology.conflicts).toEqual([['ap7/sta5', 'ap7/sta2']])
    expect(slicePairs(saved)).toEqual([['ap7/sta5'], ['ap7/sta2']])
    await moveSta(w, 1, 'ap2')
    await moveSta(w, 1, 'ap1') // version 5 as loaded again has sta1 on ap1: moved back, nothing to follow
    await save(w)
    expect(sent[1].method).toBe('PUT')
    expect(sent[1].body.topology).toEqual(topology())
  })

  it('moves the pairs of a STA that an imported file puts on another AP, as a move in the table does', async () => {
    const sent = stubApi()
    const w = await mountPage()
    const moved = topology()
    moved.stas[0].ap = 'ap2'
    moved.conflicts = [['ap2/sta1', 'ap2/sta2']]
    const input = w.get('#topo-import')
    Object.defineProperty(input.element, 'files', { value: [new File([JSON.stringify(moved)], 'site.json')] })
    await input.trigger('change')
    await flushPromises()
    await save(w)
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /api/v1/versions'])
    expect(slicePairs(sent[0].body.doc!)).toEqual([['ap2/sta1'], ['ap2/sta2']])
  })
})

describe('re-applying a STA rename and move on the version someone saved meanwhile', () => {
  it('renames and moves the STA there: the conflict they added on its pair follows it, and it is saved on that version', async () => {
    const sent = stubApi(undefined, (d) => withSta3OnAp1(d, [['ap1/sta1', 'ap1/sta3']]))
    const w = await mountPage()
    await renameSta(w, 1, 'sta5')
    await moveSta(w, 1, 'ap2')
    await saveStaleAndReapply(w)
    expect(w.find('[data-testid=reapply-conflicts]').exists()).toBe(false)
    await save(w)
    const { doc: saved, base_version } = sent[1].body
    expect(base_version).toBe(5)
    expect(saved!.topology.stas.map((s) => `${s.ap}/${s.id}`)).toEqual(['ap2/sta5', 'ap2/sta2', 'ap1/sta3'])
    expect(saved!.topology.conflicts).toEqual([['ap2/sta5', 'ap2/sta2'], ['ap2/sta5', 'ap1/sta3']])
    expect(slicePairs(saved!)).toEqual([['ap2/sta5'], ['ap2/sta2'], ['ap1/sta3']])
  })
})
