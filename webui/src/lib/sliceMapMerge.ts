// The user's unsaved slice-map edits re-applied on top of a newer version (lib/threeWay.ts).
// Slices are matched by what they are, not by their place in the frame (lib/sliceIdentity.ts),
// so a slice one side inserted or removed leaves the others as they were. Units: each slice's
// presence (a slice one side removed and the other changed is a conflict settled the user's way:
// their removal stands, or their slice stays as they have it), each slice's duration and, per pair, the slices it
// is in; a slice's pairs are a set (SPEC §3.1), so their order within a slice is no unit. Slices
// added on both sides are all taken (one added the same on both, in the same place, once), each
// after the slice it follows on its side.
import type { Slice } from '../api/types'
import { matchSlices, sameSlice } from './sliceIdentity'
import { type Conflict, merge3 } from './threeWay'

export interface SliceMapMerge {
  slices: Slice[]
  conflicts: Conflict[]
}

/** One side's frame, each slice by its key: 'b<i>' for slice i of the base, else one of its own. */
interface Side {
  slices: Slice[]
  keys: string[]
  after: number[] // per slice, the base slice it follows on this side (-1: none)
}

const copy = (slices: Slice[]): Slice[] => slices.map((s) => ({ duration_ms: s.duration_ms, pairs: [...s.pairs] }))
const frameText = (slices: Slice[]): string => slices.map((s) => `${s.duration_ms} ms [${s.pairs.join(', ')}]`).join(' · ') || 'no slices'
const slotsText = (slots: number[]): string => (slots.length ? `slice ${slots.map((i) => i + 1).join(', ')}` : 'no slice')

function sideOf(base: Slice[], slices: Slice[], own: string): Side {
  const is = matchSlices(base, slices)
  let last = -1
  const after = is.map((i) => (i === null ? last : (last = i)))
  return { slices, keys: is.map((i, j) => (i === null ? `${own}${j}` : `b${i}`)), after }
}

/** `theirs` with each slice it added that `mine` added the same, after the same base slice, keyed as mine's. */
function sharedAdditions(mine: Side, theirs: Side): Side {
  const used = new Set<string>()
  const keys = theirs.keys.map((k, j) => {
    if (k.startsWith('b')) return k
    const m = mine.keys.findIndex((mk, i) => !mk.startsWith('b') && !used.has(mk) && mine.after[i] === theirs.after[j] && sameSlice(mine.slices[i], theirs.slices[j]))
    if (m < 0) return k
    used.add(mine.keys[m])
    return mine.keys[m]
  })
  return { ...theirs, keys }
}

const slotsOf = (side: Side, pair: string): string[] => side.keys.filter((_, j) => side.slices[j].pairs.includes(pair)).sort()
const sliceOf = (side: Side, key: string): Slice | undefined => side.slices[side.keys.indexOf(key)]

export function mergeSliceMaps(base: Slice[], mine: Slice[], theirs: Slice[]): SliceMapMerge {
  const whole = merge3(base, mine, theirs)
  if (!whole.conflict) return { slices: copy(whole.value), conflicts: [] }

  const conflicts: Conflict[] = []
  const b: Side = { slices: base, keys: base.map((_, i) => `b${i}`), after: base.map((_, i) => i) }
  const m = sideOf(base, mine, 'm')
  const t = sharedAdditions(m, sideOf(base, theirs, 't'))
  // The merged frame, as keys: each base slice that stays, then the slices either side added after it.
  const added = (side: Side, after: number): string[] => side.keys.filter((k, j) => !k.startsWith('b') && side.after[j] === after)
  const order: string[] = []
  const removedByYou: [Slice, Slice][] = [] // as the base and the newer version have it
  const removedByThem: string[] = []
  for (let i = -1; i < base.length; i++) {
    const [bs, ms, ts] = i < 0 ? [] : [base[i], sliceOf(m, `b${i}`), sliceOf(t, `b${i}`)]
    if (bs) {
      if (ms && ts) order.push(`b${i}`)
      else if (!ms && ts && !sameSlice(ts, bs)) removedByYou.push([bs, ts])
      else if (ms && !ts && !sameSlice(ms, bs)) (order.push(`b${i}`), removedByThem.push(`b${i}`))
    }
    order.push(...new Set([...added(m, i), ...added(t, i)]))
  }
  const place = (key: string): string => `slice ${order.indexOf(key) + 1}`
  for (const key of removedByThem) conflicts.push({ what: place(key), theirs: 'it removed' })
  for (const [bs, ts] of removedByYou) conflicts.push({ what: `the slice ${frameText([bs])} (you removed it)`, theirs: frameText([ts]) })

  const durations = order.map((key) => {
    const [bs, ms, ts] = [sliceOf(b, key), sliceOf(m, key), sliceOf(t, key)]
    if (!bs || !ms || !ts) return (ms ?? ts)!.duration_ms
    const d = merge3(bs.duration_ms, ms.duration_ms, ts.duration_ms)
    if (d.conflict) conflicts.push({ what: `${place(key)} duration`, theirs: `${ts.duration_ms} ms` })
    return d.value
  })
  const pairs = [...new Set([...base, ...mine, ...theirs].flatMap((s) => s.pairs))]
  const slots = new Map<string, string[]>()
  for (const p of pairs) {
    const s = merge3(slotsOf(b, p), slotsOf(m, p), slotsOf(t, p))
    if (s.conflict) conflicts.push({ what: `the slices of pair ${p}`, theirs: slotsText(theirs.flatMap((x, j) => (x.pairs.includes(p) ? [j] : []))) })
    slots.set(p, s.value)
  }
  // The user's order first, then the pairs the newer version put in that slice; a slice kept
  // against the newer version's removal stays as the user has it (its pairs may be elsewhere too).
  const slices = order.map((key, i) => ({
    duration_ms: durations[i],
    pairs: removedByThem.includes(key)
      ? [...sliceOf(m, key)!.pairs]
      : [...new Set([...(sliceOf(m, key)?.pairs ?? []), ...(sliceOf(t, key)?.pairs ?? [])])].filter((p) => slots.get(p)!.includes(key)),
  }))
  return { slices, conflicts }
}
