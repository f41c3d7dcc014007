// Renaming an AP in the topology editor: everything in the configuration that names the AP
// (its STAs, the conflicting pairs, the slice map's and the policies' pairs) follows it in the
// same edit, so the controller's cross-reference check passes.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { json } from './responses'
import { mountPage, type Page, save, saveStaleAndReapply, setField, signIn, stubApi, topology, withSta3OnAp1 } from './topologyEditorPage'

beforeEach(signIn)
afterEach(() => vi.unstubAllGlobals())

const renameAp = (w: Page, n: number, id: string) => setField(w, `AP ${n} id`, id)

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
    const sent = stubApi(undefined, (d) => withSta3OnAp1(d))
    const w = await mountPage()
    await renameAp(w, 1, 'ap9')
    await saveStaleAndReapply(w)
    expect(w.find('[data-testid=reapply-conflicts]').exists()).toBe(false)
    await save(w)
    const { doc: saved, base_version } = sent[1].body
    expect(base_version).toBe(5)
    expect(saved!.topology.stas.map((s) => `${s.ap}/${s.id}`)).toEqual(['ap9/sta1', 'ap2/sta2', 'ap9/sta3'])
    expect(saved!.slice_map.slices.map((s) => s.pairs)).toEqual([['ap9/sta1'], ['ap2/sta2'], ['ap9/sta3']])
  })
})
