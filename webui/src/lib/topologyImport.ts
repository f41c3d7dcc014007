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
// import does not drop them.
// Only the shape and the CSV number columns' ranges are checked here (each problem
// names its line and column); the controller validates the whole document on save,
// as for every other edit.
import Papa from 'papaparse'
import { parse as parseYaml } from 'yaml'
import type { AccessPoint, Station, Topology } from '../api/types'
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

function asTopology(v: unknown): Topology {
  const o = (v ?? {}) as Record<string, unknown>
  const t = (o.topology ?? o) as Record<string, unknown>
  const problems: string[] = []
  if (!Array.isArray(t.aps)) problems.push('topology.aps: missing or not a list')
  if (!Array.isArray(t.stas)) problems.push('topology.stas: missing or not a list')
  if (t.conflicts !== undefined && !Array.isArray(t.conflicts)) problems.push('topology.conflicts: not a list')
  if (problems.length) throw new ImportError(problems)
  return {
    aps: (t.aps as AccessPoint[]).map((a) => ({ ...entry(a), id: String(a.id ?? ''), name: String(a.name ?? ''), channel: Number(a.channel), port: String(a.port ?? ''), vlan: a.vlan ?? null })),
    stas: (t.stas as Station[]).map((s) => ({ ...entry(s), id: String(s.id ?? ''), mac: String(s.mac ?? ''), ips: Array.isArray(s.ips) ? s.ips.map(String) : [], ap: String(s.ap ?? '') })),
    conflicts: ((t.conflicts as [string, string][] | undefined) ?? []).map((c) => [String(c[0]), String(c[1])] as [string, string]),
  }
}

export function parseYamlTopology(text: string): Topology {
  let doc: unknown
  try {
    doc = parseYaml(text)
  } catch (e) {
    throw new ImportError([`YAML: ${(e as Error).message}`])
  }
  return asTopology(doc)
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
  const res = Papa.parse<Record<string, string>>(text.trim(), { header: true, skipEmptyLines: true, transformHeader: (h) => h.trim().toLowerCase() })
  const problems = res.errors.map((e) => `CSV line ${(e.row ?? 0) + 2}: ${e.message}`)
  const fields = res.meta.fields ?? []
  if (!fields.includes('kind')) problems.push('CSV: the header needs a "kind" column (ap, sta or conflict)')
  const topo: Topology = { aps: [], stas: [], conflicts: [] }
  res.data.forEach((row, i) => {
    const line = i + 2
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
