// Re-applying a STA removal on a version someone saved meanwhile: the removal stands, and what the
// newer version added on the removed pair (a conflict, a slice, a policy) is taken out with it and
// named for review (lib/topologyMerge.ts, lib/pairRemoval.ts).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { AccessPoint, Station, Topology } from '../../src/api/types'
import { mergeTopologies } from '../../src/lib/topologyMerge'
import { mountPage, save, saveStaleAndReapply, signIn, stubApi, withSta3OnAp1 } from './topologyEditorPage'

const ap = (id: string): AccessPoint => ({ id, name: 'A', channel: 36, port: 'p', vlan: null })
const sta = (id: string, apId: string): Station => ({ id, mac: `02:00:00:00:00:0${id.slice(-1)}`, ips: [], ap: apId })
const topo = (stas: Station[], conflicts: [string, string][] = []): Topology => ({ aps: [ap('ap1'), ap('ap2')], stas, conflicts })

describe('re-applying a STA removal on a newer version', () => {
  it('drops a conflict the newer version added on the removed STA\'s pair, and names it', () => {
    const base = topo([sta('sta1', 'ap1'), sta('sta2', 'ap2')], [['ap1/sta1', 'ap2/sta2']])
    const mine = topo([sta('sta2', 'ap2')])
    const theirs = topo([sta('sta1', 'ap1'), sta('sta2', 'ap2'), sta('sta3', 'ap1')], [['ap1/sta1', 'ap2/sta2'], ['ap1/sta1', 'ap1/sta3'], ['ap2/sta2', 'ap1/sta3']])
    const r = mergeTopologies(base, mine, theirs)
    expect(r.topology).toEqual(topo([sta('sta2', 'ap2'), sta('sta3', 'ap1')], [['ap2/sta2', 'ap1/sta3']]))
    expect(r.conflicts).toEqual([{ what: 'conflict ap1/sta1 – ap1/sta3 on ap1/sta1, which you removed', theirs: 'it (dropped with ap1/sta1)' }])
  })

  it('drops a conflict the user added on a STA the newer version removed, and names it', () => {
    const base = topo([sta('sta1', 'ap1'), sta('sta2', 'ap2')])
    const mine = topo([sta('sta1', 'ap1'), sta('sta2', 'ap2')], [['ap1/sta1', 'ap2/sta2']])
    const r = mergeTopologies(base, mine, topo([sta('sta2', 'ap2')]))
    expect(r.topology).toEqual(topo([sta('sta2', 'ap2')]))
    expect(r.conflicts).toEqual([{ what: 'conflict ap1/sta1 – ap2/sta2 on ap1/sta1, which the newer version removed', theirs: 'it (dropped with ap1/sta1)' }])
  })
})

describe('re-applying a STA removal in the topology editor', () => {
  beforeEach(signIn)
  afterEach(() => vi.unstubAllGlobals())

  it('names where the newer version put the removed pair, and saves that version without it', async () => {
    const sent = stubApi(undefined, (d) => {
      const v5 = withSta3OnAp1(d, [['ap1/sta1', 'ap1/sta3']])
      return { ...v5, policies: { ...d.policies, aggregation_target: { ...d.policies.aggregation_target, pairs: ['ap2/sta2', 'ap1/sta1'] } } }
    })
    const w = await mountPage()
    await w.get('[aria-label="Remove STA sta1"]').trigger('click')
    await saveStaleAndReapply(w)
    expect(w.findAll('[data-testid=reapply-conflicts] li').map((li) => li.text())).toEqual([
      'conflict ap1/sta1 – ap1/sta3 on ap1/sta1, which you removed: yours kept; version 5 has it (dropped with ap1/sta1)',
      'ap1/sta1 (you removed sta1: taken out of the aggregation-target policy too): yours kept; version 5 has it in the aggregation-target policy',
    ])
    await save(w)
    const { doc: saved, base_version } = sent[1].body
    expect(base_version).toBe(5)
    expect(saved!.topology).toEqual({ ...saved!.topology, stas: saved!.topology.stas.filter((s) => s.id !== 'sta1'), conflicts: [] })
    expect(saved!.slice_map.slices.map((s) => s.pairs)).toEqual([['ap2/sta2'], ['ap1/sta3']])
    expect(saved!.policies.aggregation_target).toEqual({ pairs: ['ap2/sta2'], overrides: [] })
  })
})
