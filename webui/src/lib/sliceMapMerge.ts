// The user's unsaved slice-map edits re-applied on top of a newer version (lib/threeWay.ts).
// Units: each slice's duration and, per pair, the slices it is in; a slice's pairs are a set
// (SPEC §3.1), so their order within a slice is no unit. Slices are matched by position, so
// when either side added or removed slices the whole frame is one unit.
import type { Slice } from '../api/types'
import { type Conflict, merge3 } from './threeWay'

export interface SliceMapMerge {
  slices: Slice[]
  conflicts: Conflict[]
}

const copy = (slices: Slice[]): Slice[] => slices.map((s) => ({ duration_ms: s.duration_ms, pairs: [...s.pairs] }))
const slotsOf = (slices: Slice[], pair: string): number[] => slices.flatMap((s, i) => (s.pairs.includes(pair) ? [i] : []))
const frameText = (slices: Slice[]): string => slices.map((s) => `${s.duration_ms} ms [${s.pairs.join(', ')}]`).join(' · ') || 'no slices'
const slotsText = (slots: number[]): string => (slots.length ? `slice ${slots.map((i) => i + 1).join(', ')}` : 'no slice')

export function mergeSliceMaps(base: Slice[], mine: Slice[], theirs: Slice[]): SliceMapMerge {
  const whole = merge3(base, mine, theirs)
  if (!whole.conflict) return { slices: copy(whole.value), conflicts: [] }
  if (mine.length !== base.length || theirs.length !== base.length)
    return { slices: copy(mine), conflicts: [{ what: 'the slices of the frame (slices added or removed)', theirs: frameText(theirs) }] }

  const conflicts: Conflict[] = []
  const durations = base.map((b, i) => {
    const d = merge3(b.duration_ms, mine[i].duration_ms, theirs[i].duration_ms)
    if (d.conflict) conflicts.push({ what: `slice ${i + 1} duration`, theirs: `${theirs[i].duration_ms} ms` })
    return d.value
  })
  const pairs = [...new Set([...base, ...mine, ...theirs].flatMap((s) => s.pairs))]
  const slots = new Map<string, number[]>()
  for (const p of pairs) {
    const s = merge3(slotsOf(base, p), slotsOf(mine, p), slotsOf(theirs, p))
    if (s.conflict) conflicts.push({ what: `the slices of pair ${p}`, theirs: slotsText(slotsOf(theirs, p)) })
    slots.set(p, s.value)
  }
  // The user's order first, then the pairs the newer version put in that slice.
  const slices = durations.map((duration_ms, i) => ({
    duration_ms,
    pairs: [...new Set([...mine[i].pairs, ...theirs[i].pairs])].filter((p) => slots.get(p)!.includes(i)),
  }))
  return { slices, conflicts }
}
