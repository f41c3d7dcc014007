import { describe, expect, it } from 'vitest'
import type { AccessPoint, Slice, Station, Topology } from '../../src/api/types'
import { mergePolicies } from '../../src/lib/policyMerge'
import { mergeSliceMaps } from '../../src/lib/sliceMapMerge'
import { mergeTopologies } from '../../src/lib/topologyMerge'

const s = (duration_ms: number, ...pairs: string[]): Slice => ({ duration_ms, pairs })

describe('re-applying slice-map edits on a newer version', () => {
  it('takes a pair the user moved and a pair the newer version moved, each where its side put it', () => {
    const base = [s(20, 'a/1', 'a/2'), s(20, 'b/1', 'b/2')]
    const mine = [s(20, 'a/2'), s(20, 'b/1', 'b/2', 'a/1')]
    const theirs = [s(20, 'a/1', 'a/2', 'b/2'), s(20, 'b/1')]
    expect(mergeSliceMaps(base, mine, theirs)).toEqual({ slices: [s(20, 'a/2', 'b/2'), s(20, 'b/1', 'a/1')], conflicts: [] })
  })

  it('keeps the user\'s placement of a pair both sides moved, naming where the newer version put it', () => {
    const base = [s(20, 'a/1'), s(20, 'b/1'), s(20, 'c/1')]
    const r = mergeSliceMaps(base, [s(20), s(20, 'b/1', 'a/1'), s(20, 'c/1')], [s(20), s(20, 'b/1'), s(20, 'c/1', 'a/1')])
    expect(r.slices).toEqual([s(20), s(20, 'b/1', 'a/1'), s(20, 'c/1')])
    expect(r.conflicts).toEqual([{ what: 'the slices of pair a/1', theirs: 'slice 3' }])
  })

  it('takes the newer frame as is when the user changed nothing, even with slices added', () => {
    const base = [s(20, 'a/1')]
    expect(mergeSliceMaps(base, [s(20, 'a/1')], [s(20, 'a/1'), s(5, 'a/1')])).toEqual({ slices: [s(20, 'a/1'), s(5, 'a/1')], conflicts: [] })
  })
})

describe('re-applying policy edits on a newer version', () => {
  const path = 'policies.aggregation_target.overrides'
  const edits = (a: number, overrides: string) => ({ policies: { ts_abr_qd: { a_pkts_per_ms: a }, aggregation_target: { overrides: [] } }, jsonText: { [path]: overrides } })

  it('takes a JSON field the user retyped to what the newer version holds as the same change, not a conflict', () => {
    const r = mergePolicies(edits(1, '[]'), edits(1, '[{"pair":"a/1"}]'), edits(2, '[\n {\n  "pair": "a/1"\n }\n]'))
    expect(r.conflicts).toEqual([])
    expect(r.edits.policies.ts_abr_qd.a_pkts_per_ms).toBe(2)
  })

  it('keeps the user\'s text of a JSON field both changed differently, naming the newer text', () => {
    const r = mergePolicies(edits(1, '[]'), edits(1, '[{"pair": "a/1"'), edits(1, '[{"pair":"b/1"}]'))
    expect(r.edits.jsonText[path]).toBe('[{"pair": "a/1"')
    expect(r.conflicts).toEqual([{ what: path, theirs: '[{"pair":"b/1"}]' }])
  })
})

describe('re-applying topology edits on a newer version', () => {
  const ap = (id: string, channel = 36, name = id.toUpperCase()): AccessPoint => ({ id, name, channel, port: `p-${id}`, vlan: null })
  const sta = (id: string, apId = 'ap1', mac = '02:00:00:00:00:01'): Station => ({ id, mac, ips: [], ap: apId })
  const topo = (aps: AccessPoint[], stas: Station[], conflicts: [string, string][] = []): Topology => ({ aps, stas, conflicts })

  it('matches APs and STAs by id, not position: a row the newer version inserted shifts none of the user\'s edits', () => {
    const base = topo([ap('ap1'), ap('ap2')], [sta('sta1'), sta('sta2', 'ap2')])
    const mine = topo([ap('ap1', 36, 'Lobby'), ap('ap2')], [sta('sta1'), sta('sta2', 'ap2', '02:00:00:00:00:22')])
    const theirs = topo([ap('ap0'), ap('ap1'), ap('ap2', 40)], [sta('sta0', 'ap0'), sta('sta1'), sta('sta2', 'ap2')])
    expect(mergeTopologies(base, mine, theirs)).toEqual({
      topology: topo([ap('ap1', 36, 'Lobby'), ap('ap2', 40), ap('ap0')], [sta('sta1'), sta('sta2', 'ap2', '02:00:00:00:00:22'), sta('sta0', 'ap0')]),
      conflicts: [],
      renames: { aps: {}, stas: {} },
    })
  })

  it('keeps the user\'s value of a field both changed differently, naming the AP or STA, the field and the newer value', () => {
    const base = topo([ap('ap1'), ap('ap2')], [sta('sta1')])
    const r = mergeTopologies(base, topo([ap('ap1', 44), ap('ap2')], [sta('sta1', 'ap2')]), topo([ap('ap1', 40, 'Hall'), ap('ap2')], [sta('sta1', 'ap1', '02:00:00:00:00:09')]))
    expect(r.topology).toEqual(topo([ap('ap1', 44, 'Hall'), ap('ap2')], [{ ...sta('sta1', 'ap2'), mac: '02:00:00:00:00:09' }]))
    expect(r.conflicts).toEqual([{ what: 'AP ap1 channel', theirs: '40' }])
  })

  it('settles a row removed on one side and changed on the other the user\'s way, and names it', () => {
    const base = topo([ap('ap1')], [sta('sta1'), sta('sta2'), sta('sta3')])
    const mine = topo([ap('ap1')], [sta('sta1'), sta('sta3', 'ap1', '02:00:00:00:00:33')]) // removed sta2, changed sta3
    const theirs = topo([ap('ap1')], [sta('sta1'), sta('sta2', 'ap1', '02:00:00:00:00:22')]) // changed sta2, removed sta3
    const r = mergeTopologies(base, mine, theirs)
    expect(r.topology.stas).toEqual([sta('sta1'), sta('sta3', 'ap1', '02:00:00:00:00:33')])
    expect(r.conflicts).toEqual([
      { what: 'STA sta3', theirs: 'it removed' },
      { what: 'STA sta2 (you removed it)', theirs: JSON.stringify(sta('sta2', 'ap1', '02:00:00:00:00:22')) },
    ])
  })

  it('keeps rows the user has not given an id yet, and merges conflicting pairs as a set whatever their order', () => {
    const base = topo([ap('ap1')], [sta('s1'), sta('s2'), sta('s3')], [['ap1/s1', 'ap1/s2']])
    const mine = topo([ap('ap1'), ap(''), ap('')], [sta('s1'), sta('s2'), sta('s3')], [['ap1/s2', 'ap1/s1'], ['ap1/s1', 'ap1/s3']])
    const theirs = topo([ap('ap1', 40)], [sta('s1'), sta('s2'), sta('s3')], [['ap1/s2', 'ap1/s3']])
    expect(mergeTopologies(base, mine, theirs)).toEqual({
      topology: topo([ap('ap1', 40), ap(''), ap('')], [sta('s1'), sta('s2'), sta('s3')], [['ap1/s1', 'ap1/s3'], ['ap1/s2', 'ap1/s3']]),
      conflicts: [],
      renames: { aps: {}, stas: {} },
    })
  })
})
