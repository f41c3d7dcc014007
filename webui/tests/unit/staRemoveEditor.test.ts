// Removing a STA in the topology editor: its pair ('ap/sta') leaves everything that names it (the
// conflicting pairs, the slice map's slices, the policies' pair lists and overrides), the slices
// and overrides it leaves empty go with it, and the page says so under the save button before the
// save (lib/pairRemoval.ts).
import { flushPromises } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ConfigDoc } from '../../src/api/types'
import { mountPage, type Page, save, setField, signIn, stubApi } from './topologyEditorPage'

beforeEach(signIn)
afterEach(() => vi.unstubAllGlobals())

const removeSta = async (w: Page, id: string) => {
  await w.get(`[aria-label="Remove STA ${id}"]`).trigger('click')
  await flushPromises()
}
const notes = (w: Page) => w.findAll('[data-testid=removal-notes] li').map((li) => li.text())
const slicePairs = (d: ConfigDoc) => d.slice_map.slices.map((s) => s.pairs)

describe('removing a STA in the topology editor', () => {
  it('takes its pair out of the conflicts, the slice map and the policies of the document saved, with the slice it leaves empty', async () => {
    const sent = stubApi()
    const w = await mountPage()
    await removeSta(w, 'sta1')
    expect(w.text()).toContain('No conflicts')
    await save(w)
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /api/v1/versions'])
    const { doc: saved, base_version } = sent[0].body
    expect(base_version).toBe(4)
    expect(saved!.topology.stas.map((s) => s.id)).toEqual(['sta2'])
    expect(saved!.topology.conflicts).toEqual([])
    expect(slicePairs(saved!)).toEqual([['ap2/sta2']])
    // Dynamic slicing listed only sta1's pair: an empty list would give idle slices to every pair.
    expect(saved!.policies).toEqual({ dynamic_slicing: { enabled: false, pairs: [] }, aggregation_target: { pairs: ['ap2/sta2'], overrides: [] } })
  })

  it('says under the save button, before the save, what else the removal changes', async () => {
    stubApi()
    const w = await mountPage()
    expect(w.find('[data-testid=removal-notes]').exists()).toBe(false)
    await removeSta(w, 'sta1')
    expect(notes(w)).toEqual([
      'Removing sta1 also takes ap1/sta1 out of its conflict with ap2/sta2, slice 1, the dynamic-slicing policy and aggregation override 1.',
      'Slice 1 is left with no pair, so it is removed too (a slice needs one): the frame gets 20 ms shorter.',
      'The dynamic-slicing policy is left with no pair, so it is turned off (an empty list would let every pair take idle slices).',
      'Aggregation override 1 is left with no pair, so it is removed too.',
    ])
  })

  it('takes out the pairs of an AP\'s STAs removed with it, and a STA renamed into a removed one\'s id keeps only its own pairs', async () => {
    const sent = stubApi()
    const w = await mountPage()
    await removeSta(w, 'sta1')
    await w.get('[aria-label="Remove AP ap1"]').trigger('click')
    await setField(w, 'STA 1 id', 'sta1') // sta2 takes the id sta1 left
    await save(w)
    const saved = sent[0].body.doc!
    expect(saved.topology.stas.map((s) => `${s.ap}/${s.id}`)).toEqual(['ap2/sta1'])
    expect(slicePairs(saved)).toEqual([['ap2/sta1']])
    expect(saved.policies.aggregation_target).toEqual({ pairs: ['ap2/sta1'], overrides: [] })
  })
})
