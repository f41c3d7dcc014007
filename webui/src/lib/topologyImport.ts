// Import of a topology from a file the operator already has:
// - YAML (or JSON): a whole configuration document (its `topology` is taken, the
//   shape of configs/*.yaml) or a bare topology {aps, stas, conflicts};
// - CSV with a header row and a `kind` column; per kind the columns used are
//     ap:       id, name, channel, port, vlan, ampdu_ceiling_mpdus, ampdu_ceiling_us
//     sta:      id, mac, ips (separated by spaces or ';'), ap, phy_rate_mbps
//     conflict: a, b (two pairs 'ap/sta')
//   (the AP's measured A-MPDU ceilings in MPDUs and in µs, the STA's PHY rate in
//   Mbit/s: optional, an empty cell or a missing column leaves them unset).
// From YAML every other field of an AP or STA is kept as it is, so saving the
// import does not drop them; an id, name, port, MAC, address or pair YAML would read
// as a number or boolean (036, 0x1F, 1e3; yes under YAML 1.1) is kept as written.
// Only the shape, the CSV number columns' ranges and how a YAML channel or VLAN is
// written are checked here (each problem names its line and column, or its field);
// the controller validates the whole document on save, as for every other edit.
import { parse as parseYaml } from 'yaml'
import type { AccessPoint, Station, Topology } from '../api/types'
import { csvRecords } from './csvLines'
import { decimal } from './decimal'
import { checkValue, modelField } from './policySchema'

export class ImportError extends Error {
  readonly problems: string[]
  constructor(problems: string[]) {
    super(problems.join('; '))
    this.problems = problems
  }
}

/** The fields of an AP or STA as read (the controller checks them on save). */
const entry = (x: unknown): Record<string, unknown> => (x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : {})

/** The topology part of a document: its `topology`, or the document itself. */
function topologyOf(v: unknown): Record<string, unknown> {
  const o = (v ?? {}) as Record<string, unknown>
  return (o.topology ?? o) as Record<string, unknown>
}

/** A string field as the file writes it. YAML reads an unquoted 036, 0x1F or 1e3 as a number
 *  (and YAML 1.1 also yes/on as true), whose String() is another text ('36', '31', '1000',
 *  'true'): such a value is taken from `written`, the same document read with every scalar a
 *  string. An absent or null value stays ''. */
function asWritten(v: unknown, written: unknown): string {
  if (typeof v === 'string') return v
  if (v === null || v === undefined) return ''
  return typeof written === 'string' ? written : String(v)
}

/** Element `i` of `list`, or undefined. */
const at = (list: unknown, i: number): unknown => (Array.isArray(list) ? list[i] : undefined)
const field = (x: unknown, key: string): unknown => entry(x)[key]

/** An AP's channel or VLAN as the controller takes it: a whole number written in decimal digits, or (`optional`)
 *  absent or null. Anything else is a problem naming the field: a quoted "36" (the controller's strict models
 *  refuse a string, as its CLI does), a boolean, or 036, 0x24, 1e1, which YAML 1.2 (this import) and YAML 1.1 (the
 *  controller's CLI, ansible) read as different numbers (036: 36 here, 30 there). */
function wholeNumber(v: unknown, written: unknown, where: string, optional: boolean, problems: string[]): number | null {
  if (optional && (v === null || v === undefined)) return null
  if (typeof v === 'number' && Number.isInteger(v) && typeof written === 'string' && /^(0|[1-9][0-9]*)$/.test(written)) return v
  const shown = typeof written === 'string' && typeof v === 'number' ? written : JSON.stringify(v)
  problems.push(`${where}: ${shown === undefined ? 'missing' : `${shown} is not a whole number written in decimal`}`)
  return NaN
}

function asTopology(v: unknown, written: unknown): Topology {
  const t = topologyOf(v)
  const w = topologyOf(written)
  const problems: string[] = []
  if (!Array.isArray(t.aps)) problems.push('topology.aps: missing or not a list')
  if (!Array.isArray(t.stas)) problems.push('topology.stas: missing or not a list')
  if (t.conflicts !== undefined && !Array.isArray(t.conflicts)) problems.push('topology.conflicts: not a list')
  if (problems.length) throw new ImportError(problems)
  const str = (list: string, i: number, x: unknown, key: string): string => asWritten(field(x, key), field(at(w[list], i), key))
  const num = (i: number, x: unknown, key: string, optional: boolean): number | null =>
    wholeNumber(field(x, key), field(at(w.aps, i), key), `topology.aps[${i}].${key}`, optional, problems)
  const topo: Topology = {
    aps: (t.aps as AccessPoint[]).map((a, i) => ({
      ...entry(a), id: str('aps', i, a, 'id'), name: str('aps', i, a, 'name'), channel: num(i, a, 'channel', false) as number,
      port: str('aps', i, a, 'port'), vlan: num(i, a, 'vlan', true),
    })),
    stas: (t.stas as Station[]).map((s, i) => {
      const ips = field(at(w.stas, i), 'ips')
      return {
        ...entry(s), id: str('stas', i, s, 'id'), mac: str('stas', i, s, 'mac'),
        ips: Array.isArray(s.ips) ? s.ips.map((ip, j) => asWritten(ip, at(ips, j))) : [], ap: str('stas', i, s, 'ap'),
      }
    }),
    conflicts: ((t.conflicts as [string, string][] | undefined) ?? []).map((c, i) => {
      const wc = at(w.conflicts, i)
      return [asWritten(c[0], at(wc, 0)), asWritten(c[1], at(wc, 1))] as [string, string]
    }),
  }
  if (problems.length) throw new ImportError(problems)
  return topo
}

export function parseYamlTopology(text: string): Topology {
  let doc: unknown, written: unknown
  try {
    doc = parseYaml(text)
    written = parseYaml(text, { schema: 'failsafe' }) // every scalar as the file writes it
  } catch (e) {
    throw new ImportError([`YAML: ${(e as Error).message}`])
  }
  return asTopology(doc, written)
}

/** The optional number columns of CSV rows, checked against the configuration
 *  schema's range here so a bad cell is named by its line (the controller's refusal
 *  on save names only the entry's index); the Topology page lists them from here. */
export const CSV_NUMBER_COLUMNS = [
  { kind: 'ap', what: "the AP's measured A-MPDU ceiling in MPDUs", field: modelField('AccessPoint', 'ampdu_ceiling_mpdus') },
  { kind: 'ap', what: "the AP's measured A-MPDU ceiling in µs of airtime", field: modelField('AccessPoint', 'ampdu_ceiling_us') },
  { kind: 'sta', what: "the STA's mean PHY rate in Mbit/s", field: modelField('Station', 'phy_rate_mbps') },
] as const

export function parseCsvTopology(text: string): Topology {
  const [head, ...records] = csvRecords(text)
  const problems = (head?.errors ?? []).map((e) => `CSV line ${head.line}: ${e}`)
  const fields = (head?.cells ?? []).map((h) => h.trim().toLowerCase())
  if (!fields.includes('kind')) problems.push('CSV: the header needs a "kind" column (ap, sta or conflict)')
  // A row could hold only one of two cells named alike ('vlan', 'VLAN'): the other would be lost.
  for (const [i, f] of fields.entries()) if (f && fields.indexOf(f) < i) problems.push(`CSV line ${head.line}: column "${f}" is named twice`)
  const topo: Topology = { aps: [], stas: [], conflicts: [] }
  records.forEach(({ cells, line, errors }) => {
    for (const e of errors) problems.push(`CSV line ${line}: ${e}`)
    if (cells.length !== fields.length) problems.push(`CSV line ${line}: ${cells.length} fields, the header has ${fields.length}`)
    const row: Record<string, string> = Object.fromEntries(fields.map((f, i) => [f, cells[i] ?? '']))
    const need = (col: string): string => {
      const v = (row[col] ?? '').trim()
      if (!v) problems.push(`CSV line ${line}: column "${col}" is empty`)
      return v
    }
    /** The set number cells of this row's kind, as fields to add to its entry. */
    const numbers = (kind: 'ap' | 'sta'): Record<string, number> => {
      const out: Record<string, number> = {}
      for (const { field: f } of CSV_NUMBER_COLUMNS.filter((c) => c.kind === kind)) {
        const text = (row[f.key] ?? '').trim()
        if (!text) continue
        const n = decimal(text) // a cell must be a decimal number: Number() also takes '0x10'
        const problem = n === null ? 'is not a number' : checkValue(f, n)
        if (problem) problems.push(`CSV line ${line}: ${f.key} "${text}" ${problem}`)
        else out[f.key] = n!
      }
      return out
    }
    const kind = (row.kind ?? '').trim().toLowerCase()
    if (kind === 'ap') {
      const channel = decimal(need('channel')) ?? NaN
      if (!Number.isInteger(channel)) problems.push(`CSV line ${line}: channel "${row.channel}" is not a whole number`)
      const vlanText = (row.vlan ?? '').trim()
      const vlan = vlanText ? decimal(vlanText) : null
      if (vlanText && !Number.isInteger(vlan)) problems.push(`CSV line ${line}: vlan "${vlanText}" is not a whole number`)
      topo.aps.push({ id: need('id'), name: (row.name ?? '').trim(), channel, port: need('port'), vlan, ...numbers('ap') })
    } else if (kind === 'sta') {
      const ips = (row.ips ?? '').split(/[\s;]+/).filter(Boolean)
      topo.stas.push({ id: need('id'), mac: need('mac'), ips, ap: need('ap'), ...numbers('sta') })
    } else if (kind === 'conflict') {
      topo.conflicts.push([need('a'), need('b')])
    } else if (fields.includes('kind')) {
      problems.push(`CSV line ${line}: kind "${row.kind ?? ''}" is not ap, sta or conflict`)
    }
  })
  if (problems.length) throw new ImportError(problems)
  return topo
}

/** By file name, else by content: a first line starting with "kind," is CSV. */
export function parseTopologyFile(name: string, text: string): Topology {
  const lower = name.toLowerCase()
  if (lower.endsWith('.csv') || (!/\.(ya?ml|json)$/.test(lower) && /^\s*kind\s*,/i.test(text))) return parseCsvTopology(text)
  return parseYamlTopology(text)
}
