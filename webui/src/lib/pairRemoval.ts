// Removing a STA (an AP's STAs too, when the AP goes): its pair ('ap/sta') leaves what names it,
// the slice map's slices and the policies' pair lists and overrides, or the controller refuses
// the document (API.md: an unknown STA in a pair). What the pair leaves empty follows the
// controller's rules (controller/adwiser_controller/models.py):
//  - a slice needs at least one pair, so a slice left with none is removed (the frame gets
//    shorter by its duration); the slice map keeps the other STAs' slices, which cover them;
//  - an aggregation override needs at least one pair, so one left with none is removed;
//  - dynamic slicing's empty list means "every pair", so a list left empty by the removal turns
//    the policy off: the pairs that stay were not allowed idle slices and still are not;
//  - aggregation_target's empty list means "none", the same as listing only removed pairs.
// The operator is told all of it before saving (`removalNotes`), a slice map change included.
import type { Policies, SliceMap, Topology } from '../api/types'
import { matchSlices } from './sliceIdentity'
import type { Conflict } from './threeWay'

/** The parts of the document, besides the topology, that name pairs. */
export interface PairUsers {
  slice_map: SliceMap
  policies: Policies
}

const pairsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [])
const overridesOf = (p: Policies): { pairs?: unknown }[] => (Array.isArray(p.aggregation_target?.overrides) ? (p.aggregation_target.overrides as { pairs?: unknown }[]) : [])
const staOf = (pair: string): string => pair.slice(pair.indexOf('/') + 1)
export const listText = (xs: string[]): string => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`)
const allIn = (pairs: string[], gone: Set<string>): boolean => pairs.length > 0 && pairs.every((p) => gone.has(p))

/** The slices of `doc` that name `pair`, by index. */
const slicesWith = (doc: PairUsers, pair: string): number[] => doc.slice_map.slices.flatMap((s, i) => (s.pairs.includes(pair) ? [i] : []))

/** Where the policies name `pair`, as the operator reads it ('the dynamic-slicing policy'). */
function policyPlacesOf(doc: PairUsers, pair: string): string[] {
  const out: string[] = []
  if (pairsOf(doc.policies.dynamic_slicing?.pairs).includes(pair)) out.push('the dynamic-slicing policy')
  if (pairsOf(doc.policies.aggregation_target?.pairs).includes(pair)) out.push('the aggregation-target policy')
  overridesOf(doc.policies).forEach((o, i) => pairsOf(o.pairs).includes(pair) && out.push(`aggregation override ${i + 1}`))
  return out
}

/** Where the slice map and policies name `pair`, as the operator reads it ('slice 1'). */
export function placesOf(doc: PairUsers, pair: string): string[] {
  return [...slicesWith(doc, pair).map((i) => `slice ${i + 1}`), ...policyPlacesOf(doc, pair)]
}

/** A copy of `doc` with the `removed` pairs taken out, and what they leave empty as the header says. */
export function removePairs(doc: PairUsers, removed: string[]): PairUsers {
  const gone = new Set(removed)
  if (!gone.size) return doc
  const keep = (v: unknown): string[] => pairsOf(v).filter((p) => !gone.has(p))
  const slices = doc.slice_map.slices.filter((s) => !allIn(s.pairs, gone)).map((s) => ({ ...s, pairs: keep(s.pairs) }))
  const policies = { ...doc.policies }
  const ds = doc.policies.dynamic_slicing
  if (ds && Array.isArray(ds.pairs)) policies.dynamic_slicing = { ...ds, pairs: keep(ds.pairs), ...(allIn(pairsOf(ds.pairs), gone) ? { enabled: false } : {}) }
  const at = doc.policies.aggregation_target
  if (at) {
    const overrides = overridesOf(doc.policies).filter((o) => !allIn(pairsOf(o.pairs), gone)).map((o) => ({ ...o, pairs: keep(o.pairs) }))
    policies.aggregation_target = { ...at, ...(Array.isArray(at.pairs) ? { pairs: keep(at.pairs) } : {}), ...(Array.isArray(at.overrides) ? { overrides } : {}) }
  }
  return { slice_map: { ...doc.slice_map, slices }, policies }
}

/** Which of the `removed` pairs (named as loaded) went with their AP, one sentence for each of
 *  the `removedAps` that had some: removing an AP removes its STAs (a STA names its AP). */
export function apRemovalNotes(removedAps: string[], removed: string[]): string[] {
  return removedAps.flatMap((ap) => {
    const stas = removed.filter((p) => p.slice(0, p.indexOf('/')) === ap).map(staOf)
    return stas.length ? [`Removing ${ap} also removes its STA${stas.length > 1 ? 's' : ''} ${listText(stas)}.`] : []
  })
}

/** What removing the `removed` pairs of `topology` (the version loaded) changes besides their
 *  rows, one sentence each: where each pair is taken out of, then what that leaves empty. */
export function removalNotes(topology: Topology, doc: PairUsers, removed: string[]): string[] {
  const gone = new Set(removed)
  const out: string[] = []
  for (const pair of removed) {
    const conflicts = topology.conflicts.flatMap(([a, b]) => (a === pair ? [b] : b === pair ? [a] : [])).filter((p) => !gone.has(p))
    const places = [...conflicts.map((p) => `its conflict with ${p}`), ...placesOf(doc, pair)]
    if (places.length) out.push(`Removing ${staOf(pair)} also takes ${pair} out of ${listText(places)}.`)
  }
  doc.slice_map.slices.forEach((s, i) => {
    if (allIn(s.pairs, gone)) out.push(`Slice ${i + 1} is left with no pair, so it is removed too (a slice needs one): the frame gets ${s.duration_ms} ms shorter.`)
  })
  const ds = doc.policies.dynamic_slicing
  if (ds?.enabled === true && allIn(pairsOf(ds.pairs), gone))
    out.push('The dynamic-slicing policy is left with no pair, so it is turned off (an empty list would let every pair take idle slices).')
  overridesOf(doc.policies).forEach((o, i) => {
    if (allIn(pairsOf(o.pairs), gone)) out.push(`Aggregation override ${i + 1} is left with no pair, so it is removed too.`)
  })
  return out
}

/** Where the newer version names a removed pair that the base version did not: what it did with
 *  a pair the user removed meanwhile. The removal stands (as for a row the user removed and the
 *  newer version changed), so each is listed as a conflict. Slices are told apart by what they
 *  are, not their place (lib/sliceIdentity.ts): one the newer version inserted before a slice
 *  naming the pair does not make that slice new; each is named by its place in the newer frame. */
export function newReferences(base: PairUsers, newer: PairUsers, removed: string[]): Conflict[] {
  const was = matchSlices(base.slice_map.slices, newer.slice_map.slices)
  return removed.flatMap((pair) => {
    const [slicesBefore, policiesBefore] = [new Set(slicesWith(base, pair)), new Set(policyPlacesOf(base, pair))]
    const slices = slicesWith(newer, pair).filter((j) => was[j] === null || !slicesBefore.has(was[j]!))
    return [...slices.map((j) => `slice ${j + 1}`), ...policyPlacesOf(newer, pair).filter((p) => !policiesBefore.has(p))].map((p) => ({
      what: `${pair} (you removed ${staOf(pair)}: taken out of ${p} too)`,
      theirs: `it in ${p}`,
    }))
  })
}
