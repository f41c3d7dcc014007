// Renaming an AP or a STA, and moving a STA to another AP. The configuration names an AP by its
// id in its STAs' `ap`, and a STA by the pair it makes with its AP ('ap/sta'): in the topology's
// conflicting pairs, the slice map's slices and the policies' pair lists. The controller refuses a
// document naming an AP, a STA or a pair it does not have (API.md: the whole document is
// validated), so a rename or a move changes all of them in the same edit.
//
// A pair is its STA: STA ids are unique, and the controller insists that a pair names its STA's
// AP. So a STA moved to another AP takes its pair's slices, policies and conflicts with it, as a
// renamed one does: the station keeps its airtime and its class of service, the slice map stays
// a cover of every pair, and no conflict is dropped (a conflict that no longer holds only costs
// spatial reuse, one dropped that still holds lets hidden terminals share a slice; the operator
// sees the moved pair's conflicts in the table and removes those that no longer hold).
import type { Station, Topology } from '../api/types'

/** Renames of one kind made since the version the editor loaded: that version's id -> the id now. */
export type IdRenames = Record<string, string>

/** The AP and STA renames made since the load. A move needs no record: it is the STA's `ap`. */
export interface Renames {
  aps: IdRenames
  stas: IdRenames
}

export const noRenames = (): Renames => ({ aps: {}, stas: {} })

/** A pair's name ('ap/sta') -> its name now. */
export type PairRenames = Record<string, string>

const renamed = (id: string, renames: IdRenames): string => (Object.hasOwn(renames, id) ? renames[id] : id)

/** `pair` with its AP and its STA renamed. */
export function renamePair(pair: string, renames: Partial<Renames>): string {
  const cut = pair.indexOf('/')
  if (cut <= 0) return pair
  return `${renamed(pair.slice(0, cut), renames.aps ?? {})}/${renamed(pair.slice(cut + 1), renames.stas ?? {})}`
}

/** The one STA of each id (an id repeated names no STA of its own). */
function staById(stas: Station[]): Map<string, Station> {
  const out = new Map<string, Station | null>()
  for (const s of stas) out.set(s.id, out.has(s.id) ? null : s)
  return new Map([...out].filter((e): e is [string, Station] => e[1] !== null))
}

/** `pair` named after its STA's AP in `stas` (the STA moved); as it is when no STA has its id. */
function followSta(pair: string, byId: Map<string, Station>): string {
  const cut = pair.indexOf('/')
  const sta = cut > 0 ? byId.get(pair.slice(cut + 1)) : undefined
  return sta ? `${sta.ap}/${sta.id}` : pair
}

/** `conflicts` with each pair named after its STA's AP in `stas`. */
export function followStas(conflicts: [string, string][], stas: Station[]): [string, string][] {
  const byId = staById(stas)
  return conflicts.map(([a, b]) => [followSta(a, byId), followSta(b, byId)])
}

/** Renames, in place, what in `topo` names the APs and STAs: its STAs' AP and its conflicting pairs. */
export function renameReferences(topo: Topology, renames: Partial<Renames>): void {
  const aps = renames.aps ?? {}
  for (const s of topo.stas) s.ap = renamed(s.ap, aps)
  topo.conflicts = topo.conflicts.map(([a, b]) => [renamePair(a, renames), renamePair(b, renames)])
}

/** Renames, in place, the APs and STAs of `topo` and what names them; all at once, so a swap is one. */
export function renameIds(topo: Topology, renames: Renames): void {
  for (const a of topo.aps) a.id = renamed(a.id, renames.aps)
  for (const s of topo.stas) s.id = renamed(s.id, renames.stas)
  renameReferences(topo, renames)
}

/** The id each row of `loaded` (the APs or STAs of the version the edit was made on) has now, as
 *  `renames` says, or null when its id now names another loaded row renamed into it: the id check
 *  allows that only once this one is gone. */
function idsNow<T extends { id: string }>(loaded: T[], renames: IdRenames): [T, string | null][] {
  const takenOver = new Set(Object.values(renames))
  return loaded.map((r) => [r, Object.hasOwn(renames, r.id) ? renames[r.id] : takenOver.has(r.id) ? null : r.id])
}

/** The pairs of `loaded` whose name `now` changed: each loaded STA found in `now` by its id now,
 *  and named after its AP there. A STA removed, or whose id is repeated, renames no pair. */
export function pairRenames(loaded: Topology, now: Topology, staRenames: IdRenames): PairRenames {
  const byId = staById(now.stas)
  const out: PairRenames = {}
  for (const [s, id] of idsNow(loaded.stas, staRenames)) {
    const [was, to] = [`${s.ap}/${s.id}`, id === null ? undefined : byId.get(id)]
    if (to && `${to.ap}/${to.id}` !== was) out[was] = `${to.ap}/${to.id}`
  }
  return out
}

/** The pairs of `loaded` whose STA `now` has no more: they leave the slice map and the policies
 *  (lib/pairRemoval.ts). A repeated id is not a removal: the controller refuses it beside the rows. */
export function removedPairs(loaded: Topology, now: Topology, staRenames: IdRenames): string[] {
  const ids = new Set(now.stas.map((s) => s.id))
  return idsNow(loaded.stas, staRenames).flatMap(([s, id]) => (id !== null && ids.has(id) ? [] : [`${s.ap}/${s.id}`]))
}

/** The APs of `loaded` that `now` has no more, by their loaded id. */
export function removedAps(loaded: Topology, now: Topology, apRenames: IdRenames): string[] {
  const ids = new Set(now.aps.map((a) => a.id))
  return idsNow(loaded.aps, apRenames).flatMap(([a, id]) => (id !== null && ids.has(id) ? [] : [a.id]))
}

/** A copy of `value` (a slice map, the policies) with the pairs of every `pairs` list renamed:
 *  that is what the schema calls each list of pairs. */
export function renamePairLists<T>(value: T, pairs: PairRenames): T {
  const walk = (v: unknown, key: string): unknown => {
    if (Array.isArray(v)) return v.map((x) => (key === 'pairs' && typeof x === 'string' ? renamed(x, pairs) : walk(x, '')))
    if (v === null || typeof v !== 'object') return v
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]))
  }
  return walk(value, '') as T
}

/** `renames` after the AP or STA now called `from` is renamed `to`; `loaded` are the loaded
 *  version's ids of that kind. A row added since the load (an id not loaded, or loaded but renamed
 *  away) renames none. */
export function recordRename(renames: IdRenames, loaded: string[], from: string, to: string): IdRenames {
  const out = { ...renames }
  const origin = Object.keys(out).find((k) => out[k] === from) ?? (loaded.includes(from) && !Object.hasOwn(out, from) ? from : undefined)
  if (origin === undefined) return out
  if (origin === to) delete out[origin]
  else out[origin] = to
  return out
}

/** Why row `i` of `ids` (the APs' or the STAs') may not be renamed `to` (ids name the AP or STA
 *  everywhere, so they are unique), or null. */
export function idProblem(kind: 'AP' | 'STA', ids: string[], i: number, to: string): string | null {
  if (to === '') return kind === 'AP' ? 'An AP needs an id: its stations and pairs name it.' : 'A STA needs an id: its pair names it.'
  const other = ids.findIndex((id, j) => j !== i && id === to)
  return other < 0 ? null : `${to} is already the id of ${kind} ${other + 1}: each ${kind} needs its own id.`
}
