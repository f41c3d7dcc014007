// The user's unsaved topology edits re-applied on top of a newer version (lib/threeWay.ts).
// Units: each field of each AP and of each STA, rows matched by id, not by position (either
// side may have added or removed rows). The user's AP and STA renames (the editor's record, loaded
// id -> id now) are made on the base and newer versions first, so a renamed AP or STA is matched
// as itself and what the newer version says of it or puts on it follows the new id; a rename the
// newer version cannot take (no row of the old id, or another of the new one) is a conflict, and
// the user's row stays as one they added. A STA moved to another AP is a change of its `ap`. A row
// one side removed and the other changed is a conflict settled the user's way: their removal
// stands, or their row stays. Conflicting pairs are a set of unordered pairs, each present or not,
// so they merge without conflict; a pair is its STA, so each side's are first named after the
// merged STAs' APs, and a STA one side moved takes the pairs the other side named with it. A
// conflicting pair one side added on a STA the other removed names no pair the controller knows:
// the removal stands (as for a row), so the pair is dropped and named as a conflict. An AP the
// merge removes takes the STAs either side has on it (a STA names its AP, and the controller
// refuses one naming none), as removing it in the editor does; the AP is named as a conflict
// with the STAs it takes (the user did not see them go), and their pairs go as a removed STA's.
import type { AccessPoint, Station, Topology } from '../api/types'
import { listText } from './pairRemoval'
import { followStas, type IdRenames, noRenames, renameIds, type Renames } from './renames'
import { type Conflict, merge3 } from './threeWay'

export interface TopologyMerge {
  topology: Topology
  conflicts: Conflict[]
  renames: Renames // the renames made on the newer version: the merged topology's against it
}

interface Keyed<T> {
  row: T
  label: string
}

/** Rows by their key: the id, and for an id repeated (rows the user has not filled in yet,
 *  or a duplicate the controller will refuse) its occurrence, so none is dropped. */
function keyed<T>(rows: T[], idOf: (r: T) => string): Map<string, Keyed<T>> {
  const seen = new Map<string, number>()
  const out = new Map<string, Keyed<T>>()
  for (const row of rows) {
    const id = idOf(row)
    const n = (seen.get(id) ?? 0) + 1
    seen.set(id, n)
    out.set(JSON.stringify([id, n]), { row, label: `${id || '(no id)'}${n > 1 ? ` #${n}` : ''}` })
  }
  return out
}

const valueText = (v: unknown): string => (v === undefined ? '(unset)' : JSON.stringify(v))
const keysOf = (...rows: (object | undefined)[]): string[] => [...new Set(rows.flatMap((r) => Object.keys(r ?? {})))]

function mergeFields<T extends object>(what: string, base: T | undefined, mine: T, theirs: T, conflicts: Conflict[]): T {
  const b = base as Record<string, unknown> | undefined
  const [m, t] = [mine, theirs] as Record<string, unknown>[]
  const row: Record<string, unknown> = {}
  for (const key of keysOf(m, t, b)) {
    const f = merge3(b?.[key], m[key], t[key])
    if (f.conflict) conflicts.push({ what: `${what} ${key}`, theirs: valueText(t[key]) })
    if (f.value !== undefined) row[key] = f.value
  }
  return row as T
}

/** The user's rows in their order, then the rows only the newer version has. */
function mergeRows<T extends { id: string }>(kind: string, base: T[], mine: T[], theirs: T[], conflicts: Conflict[]): T[] {
  const [b, m, t] = [base, mine, theirs].map((rows) => keyed(rows, (r) => r.id))
  const out: T[] = []
  for (const key of new Set([...m.keys(), ...t.keys()])) {
    const [br, mr, tr] = [b.get(key)?.row, m.get(key)?.row, t.get(key)?.row]
    const label = `${kind} ${(m.get(key) ?? t.get(key))!.label}`
    const whole = merge3(br, mr, tr)
    if (!whole.conflict) {
      if (whole.value !== undefined) out.push(whole.value)
    } else if (mr === undefined) {
      conflicts.push({ what: `${label} (you removed it)`, theirs: valueText(tr) })
    } else if (tr === undefined) {
      conflicts.push({ what: label, theirs: 'it removed' })
      out.push(mr)
    } else {
      out.push(mergeFields(label, br, mr, tr, conflicts))
    }
  }
  return out
}

const pairKey = (c: [string, string]): string => JSON.stringify([...c].sort())

function mergeConflictPairs(base: [string, string][], mine: [string, string][], theirs: [string, string][]): [string, string][] {
  const [b, m, t] = [base, mine, theirs].map((cs) => keyed(cs, pairKey))
  return [...new Set([...m.keys(), ...t.keys()])].flatMap((k) => (merge3(b.has(k), m.has(k), t.has(k)).value ? [(m.get(k) ?? t.get(k))!.row] : []))
}

/** `conflicts` without those naming a pair none of the merged `stas` makes, each named in `out`;
 *  `mine` (the user's STAs) tells who removed it. */
function withoutRemoved(conflicts: [string, string][], stas: Station[], mine: Station[], out: Conflict[]): [string, string][] {
  const made = new Set(stas.map((s) => `${s.ap}/${s.id}`))
  const userHas = new Set(mine.map((s) => s.id))
  return conflicts.filter(([a, b]) => {
    const gone = [a, b].filter((p) => !made.has(p))
    if (!gone.length) return true
    const who = gone.some((p) => !userHas.has(p.slice(p.indexOf('/') + 1))) ? 'you' : 'the newer version'
    out.push({ what: `conflict ${a} – ${b} on ${gone.join(' and ')}, which ${who} removed`, theirs: `it (dropped with ${gone.join(' and ')})` })
    return false
  })
}

/** `stas` (merged) without those on an AP that `sides` (base, the user's, the newer version's)
 *  have and the merged `aps` do not (an id another merged AP still has is kept); each such AP
 *  taking some is named in `out`, and who removed it told by `mine` (the user's topology). */
function withoutRemovedAps(stas: Station[], aps: AccessPoint[], sides: Topology[], mine: Topology, out: Conflict[]): Station[] {
  const kept = new Set(aps.map((a) => a.id))
  const gone = new Set(sides.flatMap((x) => x.aps.map((a) => a.id)).filter((id) => !kept.has(id)))
  for (const ap of gone) {
    const taken = stas.filter((s) => s.ap === ap).map((s) => s.id)
    if (!taken.length) continue
    const them = `${taken.length > 1 ? 'STAs' : 'STA'} ${listText(taken)}`
    const go = taken.length > 1 ? 'go' : 'goes'
    if (mine.aps.some((a) => a.id === ap)) out.push({ what: `AP ${ap} (the newer version removed it: your ${them} ${go} with it)`, theirs: 'it removed', theirsKept: true })
    else out.push({ what: `AP ${ap} (you removed it: its ${them} ${go} with it)`, theirs: `${them} on it` })
    // A row conflict of a STA that goes with its AP ("STA sta2: yours kept; version N has it removed") would
    // say the opposite of what the save does: the AP's line above says it instead.
    for (const id of taken) {
      for (let i = out.length - 1; i >= 0; i--) if (out[i].what === `STA ${id}` || out[i].what.startsWith(`STA ${id} `)) out.splice(i, 1)
    }
  }
  return stas.filter((s) => !gone.has(s.ap))
}

/** The renames of one kind the newer version can take (`rows`: its APs or its STAs): it has the
 *  old id and not the new one (unless that one is renamed away too, as in a swap); each other one
 *  is named in `conflicts`. */
function takenRenames(kind: string, renames: IdRenames, rows: { id: string }[], conflicts: Conflict[]): IdRenames {
  const ids = new Set(rows.map((r) => r.id))
  let taken = Object.fromEntries(Object.entries(renames).filter(([old]) => ids.has(old)))
  for (let n = -1; n !== Object.keys(taken).length; ) {
    n = Object.keys(taken).length
    taken = Object.fromEntries(Object.entries(taken).filter(([, to]) => !ids.has(to) || Object.hasOwn(taken, to)))
  }
  for (const [old, to] of Object.entries(renames))
    if (!Object.hasOwn(taken, old)) conflicts.push({ what: `${kind} ${old} (you renamed it ${to})`, theirs: ids.has(old) ? `another ${kind} ${to}` : `no ${kind} ${old}` })
  return taken
}

export function mergeTopologies(base: Topology, mine: Topology, theirs: Topology, renames: Renames = noRenames()): TopologyMerge {
  // Plain copies: the page's topology is a reactive proxy, and the result becomes the page's.
  const [b, m, t] = [base, mine, theirs].map((x) => JSON.parse(JSON.stringify(x)) as Topology)
  const conflicts: Conflict[] = []
  const taken = { aps: takenRenames('AP', renames.aps, t.aps, conflicts), stas: takenRenames('STA', renames.stas, t.stas, conflicts) }
  renameIds(b, taken)
  renameIds(t, taken)
  const whole = merge3(b, m, t)
  if (!whole.conflict) return { topology: whole.value, conflicts, renames: taken }
  const aps = mergeRows<AccessPoint>('AP', b.aps, m.aps, t.aps, conflicts)
  const stas = withoutRemovedAps(mergeRows<Station>('STA', b.stas, m.stas, t.stas, conflicts), aps, [b, m, t], m, conflicts)
  const [bc, mc, tc] = [b, m, t].map((x) => followStas(x.conflicts, stas))
  const pairs = withoutRemoved(mergeConflictPairs(bc, mc, tc), stas, m.stas, conflicts)
  return { topology: { aps, stas, conflicts: pairs }, conflicts, renames: taken }
}
