// Removing an AP in the topology editor: its STAs go with it (a STA names its AP, and the
// controller refuses one naming none), and so, through the STA removal, their pairs leave the
// conflicts, the slice map and the policies; the notes under the save button say so first.
import { flushPromises } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mountPage, type Page, save, signIn, stubApi } from './topologyEditorPage'

beforeEach(signIn)
afterEach(() => vi.unstubAllGlobals())

const removeAp = async (w: Page, id: string) => {
  await w.get(`[aria-label="Remove AP ${id}"]`).trigger('click')
  await flushPromises()
}
const notes = (w: Page) => w.findAll('[data-testid=removal-notes] li').map((li) => li.text())

describe('removing an AP in the topology editor', () => {
  it('removes its STAs and takes their pairs out of the conflicts, the slice map and the policies of the document saved', async () => {
    const sent = stubApi()
    const w = await mountPage()
    await removeAp(w, 'ap1')
    expect(w.find('[aria-label="Remove STA sta1"]').exists()).toBe(false)
    expect(w.text()).toContain('No conflicts')
    await save(w)
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /api/v1/versions'])
    const saved = sent[0].body.doc!
    expect(saved.topology).toEqual({ aps: [expect.objectContaining({ id: 'ap2' })], stas: [expect.objectContaining({ id: 'sta2', ap: 'ap2' })], conflicts: [] })
    expect(saved.slice_map.slices.map((s) => s.pairs)).toEqual([['ap2/sta2']])
    expect(saved.policies).toEqual({ dynamic_slicing: { enabled: false, pairs: [] }, aggregation_target: { pairs: ['ap2/sta2'], overrides: [] } })
  })

  it('says under the save button, before the save, which STAs go with the AP and what else that changes', async () => {
    stubApi()
    const w = await mountPage()
    await removeAp(w, 'ap1')
    expect(notes(w)).toEqual([
      'Removing ap1 also removes its STA sta1.',
      'Removing sta1 also takes ap1/sta1 out of its conflict with ap2/sta2, slice 1, the dynamic-slicing policy and aggregation override 1.',
      'Slice 1 is left with no pair, so it is removed too (a slice needs one): the frame gets 20 ms shorter.',
      'The dynamic-slicing policy is left with no pair, so it is turned off (an empty list would let every pair take idle slices).',
      'Aggregation override 1 is left with no pair, so it is removed too.',
    ])
  })

  it('keeps a STA moved to another AP before its AP is removed', async () => {
    const sent = stubApi()
    const w = await mountPage()
    await w.get('[aria-label="STA 1 AP"]').setValue('ap2')
    await removeAp(w, 'ap1')
    expect(notes(w)).toEqual([])
    await save(w)
    const saved = sent[0].body.doc!
    expect(saved.topology.stas.map((s) => `${s.ap}/${s.id}`)).toEqual(['ap2/sta1', 'ap2/sta2'])
    expect(saved.slice_map.slices.map((s) => s.pairs)).toEqual([['ap2/sta1'], ['ap2/sta2']])
  })
})
