// Which slice of one version of a frame is which slice of another. A slice has no id in the
// configuration (controller/adwiser_controller/models.py: a duration and its pairs), so its
// identity is told from the two frames, as a diff tells lines: slices the same in both (duration
// and set of pairs) are the same slice wherever they now stand, matched in order (a longest
// common subsequence); between two matched, slices with the same pairs (only the duration
// changed), then slices sharing a pair, then what is left in order (a slice edited in place).
// A slice inserted or removed thus shifts the identity of none other.
import type { Slice } from '../api/types'

type Same = (a: Slice, b: Slice) => boolean

const pairSet = (s: Slice): string => JSON.stringify([...new Set(s.pairs)].sort())
/** The same slice, unchanged: a slice's pairs are a set (SPEC §3.1). */
export const sameSlice: Same = (a, b) => a.duration_ms === b.duration_ms && pairSet(a) === pairSet(b)
const LEVELS: Same[] = [sameSlice, (a, b) => pairSet(a) === pairSet(b), (a, b) => a.pairs.some((p) => b.pairs.includes(p)), () => true]

/** The matched [i, j] of a longest common subsequence of a[a0..a1) and b[b0..b1) under `same`, in order. */
function lcs(a: Slice[], a0: number, a1: number, b: Slice[], b0: number, b1: number, same: Same): [number, number][] {
  const n = b1 - b0 + 1
  const len = new Array<number>((a1 - a0 + 1) * n).fill(0) // len[(i - a0) * n + (j - b0)]: of a[i..a1), b[j..b1)
  const at = (i: number, j: number): number => len[(i - a0) * n + (j - b0)]
  for (let i = a1 - 1; i >= a0; i--)
    for (let j = b1 - 1; j >= b0; j--) len[(i - a0) * n + (j - b0)] = same(a[i], b[j]) ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1))
  const out: [number, number][] = []
  for (let [i, j] = [a0, b0]; i < a1 && j < b1; ) {
    if (same(a[i], b[j]) && at(i, j) === at(i + 1, j + 1) + 1) out.push([i++, j++])
    else if (at(i + 1, j) >= at(i, j + 1)) i++
    else j++
  }
  return out
}

/** For each slice of `other`, the index of the slice of `base` it is, or null for one added. */
export function matchSlices(base: Slice[], other: Slice[]): (number | null)[] {
  const out: (number | null)[] = other.map(() => null)
  const within = (b0: number, b1: number, o0: number, o1: number, level: number): void => {
    if (level === LEVELS.length || b0 === b1 || o0 === o1) return
    let [b, o] = [b0, o0]
    for (const [i, j] of [...lcs(base, b0, b1, other, o0, o1, LEVELS[level]), [b1, o1]]) {
      within(b, i, o, j, level + 1)
      if (i < b1) out[j] = i
      ;[b, o] = [i + 1, j + 1]
    }
  }
  within(0, base.length, 0, other.length, 0)
  return out
}
