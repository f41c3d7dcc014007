// Re-applying edits on a newer version tells slices apart by what they are, not where they are:
// a slice has no id (controller models.py: a duration and its pairs), so one inserted or removed
// before another must not make the later ones look edited (lib/sliceIdentity.ts).
import { describe, expect, it } from 'vitest'
import type { Slice } from '../../src/api/types'
import { newReferences, type PairUsers } from '../../src/lib/pairRemoval'
import { mergeSliceMaps } from '../../src/lib/sliceMapMerge'

const s = (duration_ms: number, ...pairs: string[]): Slice => ({ duration_ms, pairs })
const doc = (...slices: Slice[]): PairUsers => ({ slice_map: { slices }, policies: {} })

describe('re-applying slice-map edits on a newer version that inserted or removed slices', () => {
  it('takes a slice the newer version inserted before the one the user edited, without a conflict', () => {
    const base = [s(20, 'a/1'), s(20, 'b/1')]
    const r = mergeSliceMaps(base, [s(20, 'a/1'), s(30, 'b/1')], [s(10, 'c/1'), s(20, 'a/1'), s(20, 'b/1')])
    expect(r).toEqual({ slices: [s(10, 'c/1'), s(20, 'a/1'), s(30, 'b/1')], conflicts: [] })
  })

  it('puts the user\'s duration on the slice they edited when the newer version inserted one and removed another', () => {
    const base = [s(20, 'a/1'), s(20, 'b/1'), s(20, 'c/1')]
    const r = mergeSliceMaps(base, [s(25, 'a/1'), s(20, 'b/1'), s(20, 'c/1')], [s(10, 'x/1', 'c/1'), s(20, 'a/1'), s(20, 'b/1')])
    expect(r).toEqual({ slices: [s(10, 'x/1', 'c/1'), s(25, 'a/1'), s(20, 'b/1')], conflicts: [] })
  })

  it('takes slices added on one side and a slice changed on the other together', () => {
    const base = [s(20, 'a/1'), s(20, 'b/1')]
    const r = mergeSliceMaps(base, [s(20, 'a/1'), s(20, 'b/1'), s(10, 'b/1')], [s(20, 'a/1'), s(30, 'b/1')])
    expect(r).toEqual({ slices: [s(20, 'a/1'), s(30, 'b/1'), s(10, 'b/1')], conflicts: [] })
  })

  it('keeps a slice the user changed and the newer version removed, and names it', () => {
    const base = [s(20, 'a/1'), s(20, 'b/1', 'c/1')]
    const r = mergeSliceMaps(base, [s(20, 'a/1'), s(30, 'b/1', 'c/1')], [s(20, 'a/1', 'b/1', 'c/1')])
    expect(r.slices).toEqual([s(20, 'a/1', 'b/1', 'c/1'), s(30, 'b/1', 'c/1')])
    expect(r.conflicts).toEqual([{ what: 'slice 2', theirs: 'it removed' }])
  })

  it('keeps the user\'s removal of a slice the newer version changed, and names it', () => {
    const r = mergeSliceMaps([s(20, 'a/1'), s(20, 'b/1')], [s(20, 'b/1')], [s(30, 'a/1'), s(20, 'b/1', 'c/1')])
    expect(r.slices).toEqual([s(20, 'b/1', 'c/1')])
    expect(r.conflicts).toEqual([{ what: 'the slice 20 ms [a/1] (you removed it)', theirs: '30 ms [a/1]' }])
  })

  it('still names a duration both sides changed differently, by the slice\'s place in the merged frame', () => {
    const base = [s(20, 'a/1'), s(20, 'b/1')]
    const r = mergeSliceMaps(base, [s(20, 'a/1'), s(30, 'b/1')], [s(5, 'c/1'), s(20, 'a/1'), s(40, 'b/1')])
    expect(r.slices).toEqual([s(5, 'c/1'), s(20, 'a/1'), s(30, 'b/1')])
    expect(r.conflicts).toEqual([{ what: 'slice 3 duration', theirs: '40 ms' }])
  })
})

describe('naming where the newer version put a removed pair', () => {
  it('does not name a slice the pair was already in when the newer version inserted a slice before it', () => {
    const base = doc(s(20, 'ap1/sta1'), s(20, 'ap2/sta2'))
    expect(newReferences(base, doc(s(10, 'ap1/sta3'), s(20, 'ap1/sta1'), s(20, 'ap2/sta2')), ['ap1/sta1'])).toEqual([])
  })

  it('names a slice the newer version newly put the pair in, by its place in the newer frame', () => {
    const base = doc(s(20, 'ap1/sta1'), s(20, 'ap2/sta2'))
    expect(newReferences(base, doc(s(10, 'ap1/sta3'), s(20, 'ap1/sta1'), s(20, 'ap2/sta2', 'ap1/sta1')), ['ap1/sta1'])).toEqual([
      { what: 'ap1/sta1 (you removed sta1: taken out of slice 3 too)', theirs: 'it in slice 3' },
    ])
  })
})
