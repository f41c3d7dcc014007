// Re-applying an AP removal on a version someone saved meanwhile (or an edit on an AP the newer
// version removed): the removal stands, so a STA either side has on that AP goes with it, as a
// removed STA's pair goes, and the AP is named for review with the STAs the user did not see go
// (lib/topologyMerge.ts); a STA naming an AP the controller does not have refuses the save.
import { mount } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { AccessPoint, Station, Topology } from '../../src/api/types'
import ReapplyConflicts from '../../src/components/ReapplyConflicts.vue'
import { mergeTopologies } from '../../src/lib/topologyMerge'
import { mountPage, save, saveStaleAndReapply, signIn, stubApi, withSta3OnAp1 } from './topologyEditorPage'

const ap = (id: string): AccessPoint => ({ id, name: 'A', channel: 36, port: 'p', vlan: null })
const sta = (id: string, apId: string): Station => ({ id, mac: `02:00:00:00:00:0${id.slice(-1)}`, ips: [], ap: apId })
const topo = (aps: string[], stas: Station[], conflicts: [string, string][] = []): Topology => ({ aps: aps.map(ap), stas, conflicts })

describe('re-applying an AP removal on a newer version', () => {
  it('removes a STA the newer version added on the AP the user removed, with its conflicts, and names the AP', () => {
    const base = topo(['ap1', 'ap2'], [sta('sta1', 'ap1'), sta('sta2', 'ap2')], [['ap1/sta1', 'ap2/sta2']])
    const mine = topo(['ap2'], [sta('sta2', 'ap2')])
    const theirs = topo(['ap1', 'ap2'], [sta('sta1', 'ap1'), sta('sta2', 'ap2'), sta('sta3', 'ap1')], [['ap1/sta1', 'ap2/sta2'], ['ap2/sta2', 'ap1/sta3']])
    const r = mergeTopologies(base, mine, theirs)
    expect(r.topology).toEqual(topo(['ap2'], [sta('sta2', 'ap2')]))
    expect(r.conflicts).toEqual([
      { what: 'AP ap1 (you removed it: its STA sta3 goes with it)', theirs: 'STA sta3 on it' },
      { what: 'conflict ap2/sta2 – ap1/sta3 on ap1/sta3, which you removed', theirs: 'it (dropped with ap1/sta3)' },
    ])
  })

  it('removes a STA the user added on an AP the newer version removed, and names the AP', () => {
    const base = topo(['ap1', 'ap2'], [sta('sta1', 'ap1')])
    const mine = topo(['ap1', 'ap2'], [sta('sta1', 'ap1'), sta('sta4', 'ap2')], [['ap1/sta1', 'ap2/sta4']])
    const r = mergeTopologies(base, mine, topo(['ap1'], [sta('sta1', 'ap1')]))
    expect(r.topology).toEqual(topo(['ap1'], [sta('sta1', 'ap1')]))
    expect(r.conflicts).toEqual([
      { what: 'AP ap2 (the newer version removed it: your STA sta4 goes with it)', theirs: 'it removed', theirsKept: true },
      { what: 'conflict ap1/sta1 – ap2/sta4 on ap2/sta4, which the newer version removed', theirs: 'it (dropped with ap2/sta4)' },
    ])
  })

  it('names a STA the user edited on an AP the newer version removed once, as going with the AP, not as kept', () => {
    const base = topo(['ap1', 'ap2'], [sta('sta1', 'ap1'), sta('sta2', 'ap2')])
    const mine = topo(['ap1', 'ap2'], [sta('sta1', 'ap1'), { ...sta('sta2', 'ap2'), mac: '02:00:00:00:00:22' }])
    const r = mergeTopologies(base, mine, topo(['ap1'], [sta('sta1', 'ap1')]))
    expect(r.topology).toEqual(topo(['ap1'], [sta('sta1', 'ap1')]))
    expect(r.conflicts).toEqual([
      { what: 'AP ap2 (the newer version removed it: your STA sta2 goes with it)', theirs: 'it removed', theirsKept: true },
    ])
  })

  it('keeps the STAs of an AP the merge keeps, a duplicate of a removed one included', () => {
    const base = topo(['ap1', 'ap2', 'ap2'], [sta('sta1', 'ap1')])
    const mine = topo(['ap1', 'ap2'], [sta('sta1', 'ap1'), sta('sta2', 'ap2')])
    const r = mergeTopologies(base, mine, topo(['ap1', 'ap2', 'ap2'], [sta('sta1', 'ap1'), sta('sta3', 'ap2')]))
    expect(r.topology.aps.map((a) => a.id)).toEqual(['ap1', 'ap2'])
    expect(r.topology.stas.map((s) => `${s.ap}/${s.id}`)).toEqual(['ap1/sta1', 'ap2/sta2', 'ap2/sta3'])
    expect(r.conflicts).toEqual([])
  })
})

describe('re-applying an AP removal in the topology editor', () => {
  beforeEach(signIn)
  afterEach(() => vi.unstubAllGlobals())

  it('names the STA the newer version added on the removed AP and where it put it, and saves that version without them', async () => {
    const sent = stubApi(undefined, (d) => withSta3OnAp1(d))
    const w = await mountPage()
    await w.get('[aria-label="Remove AP ap1"]').trigger('click')
    await saveStaleAndReapply(w)
    expect(w.findAll('[data-testid=reapply-conflicts] li').map((li) => li.text())).toEqual([
      'AP ap1 (you removed it: its STA sta3 goes with it): yours kept; version 5 has STA sta3 on it',
      'ap1/sta3 (you removed sta3: taken out of slice 3 too): yours kept; version 5 has it in slice 3',
    ])
    await save(w)
    const { doc: saved, base_version } = sent[1].body
    expect(base_version).toBe(5)
    expect(saved!.topology).toEqual({ aps: [expect.objectContaining({ id: 'ap2' })], stas: [expect.objectContaining({ id: 'sta2', ap: 'ap2' })], conflicts: [] })
    expect(saved!.slice_map.slices.map((s) => s.pairs)).toEqual([['ap2/sta2']])
  })
})

describe('the list of conflicts to review', () => {
  it("says the newer version's side was kept for a removal the merge followed, and the user's for the rest", () => {
    const w = mount(ReapplyConflicts, { props: { version: 5, conflicts: [
      { what: 'AP ap2 (the newer version removed it: your STA sta2 goes with it)', theirs: 'it removed', theirsKept: true },
      { what: 'AP ap1 channel', theirs: '40' },
    ] } })
    expect(w.findAll('li').map((li) => li.text())).toEqual([
      "AP ap2 (the newer version removed it: your STA sta2 goes with it): version 5's kept (it has it removed)",
      'AP ap1 channel: yours kept; version 5 has 40',
    ])
  })
})
