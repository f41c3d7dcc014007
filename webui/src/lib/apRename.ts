// Renaming an AP. The configuration names an AP by its id in its STAs' `ap` and in every pair
// ('ap/sta'): the topology's conflicting pairs, the slice map's slices and the policies' pair
// lists. The controller refuses a document naming an AP it does not have (API.md: the whole
// document is validated), so a rename changes all of them in the same edit.
import type { AccessPoint, Topology } from '../api/types'

/** The renames made since the version the editor loaded: that version's AP id -> the id now. */
export type ApRenames = Record<string, string>

export const hasRenames = (renames: ApRenames): boolean => Object.keys(renames).length > 0

export function renamePair(pair: string, renames: ApRenames): string {
  const cut = pair.indexOf('/')
  const ap = cut < 0 ? '' : pair.slice(0, cut)
  return cut > 0 && Object.hasOwn(renames, ap) ? renames[ap] + pair.slice(cut) : pair
}

/** Renames, in place, what in `topo` names the APs: its STAs' AP and its conflicting pairs. */
export function renameReferences(topo: Topology, renames: ApRenames): void {
  for (const s of topo.stas) if (Object.hasOwn(renames, s.ap)) s.ap = renames[s.ap]
  topo.conflicts = topo.conflicts.map(([a, b]) => [renamePair(a, renames), renamePair(b, renames)])
}

/** Renames, in place, the APs of `topo` and what names them; all at once, so a swap is one. */
export function renameAps(topo: Topology, renames: ApRenames): void {
  for (const a of topo.aps) if (Object.hasOwn(renames, a.id)) a.id = renames[a.id]
  renameReferences(topo, renames)
}

/** A copy of `value` (a slice map, the policies) with the pairs of every `pairs` list renamed:
 *  that is what the schema calls each list of pairs. */
export function renamePairLists<T>(value: T, renames: ApRenames): T {
  const walk = (v: unknown, key: string): unknown => {
    if (Array.isArray(v)) return v.map((x) => (key === 'pairs' && typeof x === 'string' ? renamePair(x, renames) : walk(x, '')))
    if (v === null || typeof v !== 'object') return v
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]))
  }
  return walk(value, '') as T
}

/** `renames` after the AP now called `from` is renamed `to`; `loaded` are the loaded version's AP
 *  ids. A row added since the load (an id not loaded, or loaded but renamed away) renames none. */
export function recordRename(renames: ApRenames, loaded: string[], from: string, to: string): ApRenames {
  const out = { ...renames }
  const origin = Object.keys(out).find((k) => out[k] === from) ?? (loaded.includes(from) && !Object.hasOwn(out, from) ? from : undefined)
  if (origin === undefined) return out
  if (origin === to) delete out[origin]
  else out[origin] = to
  return out
}

/** Why AP `i` may not be renamed `to` (ids name the AP everywhere, so they are unique), or null. */
export function apIdProblem(aps: AccessPoint[], i: number, to: string): string | null {
  if (to === '') return 'An AP needs an id: its stations and pairs name it.'
  const other = aps.findIndex((a, j) => j !== i && a.id === to)
  return other < 0 ? null : `${to} is already the id of AP ${other + 1}: each AP needs its own id.`
}
