import { describe, expect, it } from 'vitest'
import type { Slice } from '../../src/api/types'
import { mergePolicies } from '../../src/lib/policyMerge'
import { mergeSliceMaps } from '../../src/lib/sliceMapMerge'

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

  it('keeps the user\'s whole frame when slices were added on one side and changed on the other, showing the newer frame', () => {
    const base = [s(20, 'a/1'), s(20, 'b/1')]
    const mine = [s(20, 'a/1'), s(20, 'b/1'), s(10, 'b/1')]
    const r = mergeSliceMaps(base, mine, [s(20, 'a/1'), s(30, 'b/1')])
    expect(r.slices).toEqual(mine)
    expect(r.conflicts).toEqual([{ what: 'the slices of the frame (slices added or removed)', theirs: '20 ms [a/1] · 30 ms [b/1]' }])
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
