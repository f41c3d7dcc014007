// Checks of a slice map against its topology that the editor runs before saving,
// mirroring the controller's whole-document validation (models.py): every pair
// named must be a managed pair (STA associated with that AP), conflicting pairs
// (hidden terminals, 004 §2) must never share a slice, and every managed pair
// must be in some slice. Field paths are the API's, so the same display code
// shows local and server errors (dotted with [index], as models.dotted writes them).
import type { SliceMap, Topology } from '../api/types'

export interface Problem {
  field: string
  message: string
}

export function managedPairs(topo: Topology): string[] {
  return topo.stas.map((s) => `${s.ap}/${s.id}`)
}

export function conflictSet(topo: Topology): Set<string> {
  const out = new Set<string>()
  for (const [a, b] of topo.conflicts) {
    out.add(`${a}|${b}`)
    out.add(`${b}|${a}`)
  }
  return out
}

export function frameMs(map: SliceMap): number {
  return map.slices.reduce((t, s) => t + (Number.isFinite(s.duration_ms) ? s.duration_ms : 0), 0)
}

/** Pairs of one slice that conflict with another pair of the same slice. */
export function conflictingInSlice(pairs: string[], conflicts: Set<string>): Set<string> {
  const bad = new Set<string>()
  for (let i = 0; i < pairs.length; i++)
    for (let j = i + 1; j < pairs.length; j++)
      if (conflicts.has(`${pairs[i]}|${pairs[j]}`)) {
        bad.add(pairs[i])
        bad.add(pairs[j])
      }
  return bad
}

export function checkSliceMap(map: SliceMap, topo: Topology): Problem[] {
  const problems: Problem[] = []
  const managed = new Set(managedPairs(topo))
  const conflicts = conflictSet(topo)
  const covered = new Set<string>()
  if (map.slices.length === 0) problems.push({ field: 'slice_map.slices', message: 'a frame needs at least one slice' })
  map.slices.forEach((sl, si) => {
    const base = `slice_map.slices[${si}]`
    if (!Number.isInteger(sl.duration_ms) || sl.duration_ms < 1 || sl.duration_ms > 500)
      problems.push({ field: `${base}.duration_ms`, message: 'slice duration must be a whole number of ms, 1-500' })
    if (sl.pairs.length === 0) problems.push({ field: `${base}.pairs`, message: 'a slice needs at least one pair' })
    const seen: string[] = []
    sl.pairs.forEach((p, pi) => {
      const f = `${base}.pairs[${pi}]`
      if (!managed.has(p)) problems.push({ field: f, message: `${p} is not a managed pair of the topology` })
      else if (seen.includes(p)) problems.push({ field: f, message: `pair ${p} listed twice in this slice` })
      else {
        for (const o of seen)
          if (conflicts.has(`${p}|${o}`)) problems.push({ field: f, message: `pair ${p} conflicts with ${o} in the same slice` })
        seen.push(p)
        covered.add(p)
      }
    })
  })
  if (frameMs(map) > 1000) problems.push({ field: 'slice_map.slices', message: `frame is ${frameMs(map)} ms; at most 1000 ms` })
  for (const p of managed) if (!covered.has(p)) problems.push({ field: 'slice_map', message: `managed pair ${p} is in no slice` })
  return problems
}
