// Form fields for the policies, read from the one configuration schema
// (configs/schema/adwiser-config.schema.json, generated from the controller's
// pydantic models): each field's type, range and help text come from there, so
// the form and the API can never disagree about what is allowed.
import schema from '@configs/schema/adwiser-config.schema.json'

type JsonSchema = {
  type?: string
  title?: string
  description?: string
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  items?: JsonSchema
  anyOf?: JsonSchema[]
  $ref?: string
  properties?: Record<string, JsonSchema>
  required?: string[]
  pattern?: string
}

export type FieldKind = 'number' | 'integer' | 'boolean' | 'pairs' | 'integers' | 'json'

export interface PolicyField {
  section: string
  key: string
  path: string // 'policies.<section>.<key>', as the API names it
  label: string
  help: string
  kind: FieldKind
  nullable: boolean
  min?: number
  max?: number
  exclusiveMin?: boolean
  exclusiveMax?: boolean
  itemMin?: number
  itemMax?: number
}

export interface PolicySection {
  key: string
  title: string
  help: string
  fields: PolicyField[]
}

const defs = (schema as { $defs: Record<string, JsonSchema> }).$defs

function resolve(s: JsonSchema): JsonSchema {
  return s.$ref ? defs[s.$ref.split('/').pop()!] : s
}

function fieldOf(section: string, key: string, raw: JsonSchema, path = `policies.${section}.${key}`): PolicyField {
  const nonNull = raw.anyOf ? raw.anyOf.find((a) => a.type !== 'null') ?? {} : raw
  const nullable = !!raw.anyOf?.some((a) => a.type === 'null')
  const base = {
    section, key, path,
    label: key, help: raw.description ?? nonNull.description ?? '', nullable,
  }
  const range = (s: JsonSchema) => ({
    min: s.minimum ?? s.exclusiveMinimum, max: s.maximum ?? s.exclusiveMaximum,
    exclusiveMin: s.exclusiveMinimum !== undefined, exclusiveMax: s.exclusiveMaximum !== undefined,
  })
  if (nonNull.type === 'boolean') return { ...base, kind: 'boolean' }
  if (nonNull.type === 'integer') return { ...base, kind: 'integer', ...range(nonNull) }
  if (nonNull.type === 'number') return { ...base, kind: 'number', ...range(nonNull) }
  if (nonNull.type === 'array' && nonNull.items) {
    const it = resolve(nonNull.items)
    if (it.type === 'string' && it.pattern?.includes('/')) return { ...base, kind: 'pairs' }
    if (it.type === 'integer') return { ...base, kind: 'integers', itemMin: it.minimum, itemMax: it.maximum }
  }
  return { ...base, kind: 'json' }
}

/** A field of another model of the schema ('AccessPoint', 'Station'), so a value read
 *  elsewhere (a topology import) is checked against the same range as the API's. */
export function modelField(model: string, key: string): PolicyField {
  const raw = defs[model]?.properties?.[key]
  if (!raw) throw new Error(`the configuration schema has no field ${model}.${key}`)
  return fieldOf(model, key, raw, `${model}.${key}`)
}

// Operator-facing names; a section the schema adds later shows under its key.
const TITLES: Record<string, string> = {
  ts_abr_qd: 'Time-slice batches (TS-ABR-QD)',
  dynamic_slicing: 'Dynamic slicing',
  realtime: 'Real-time traffic',
  queue_sizing: 'Queue sizing (A*)',
  aggregation_target: 'Aggregation target',
}
const ORDER = Object.keys(TITLES)
const rank = (k: string): number => (ORDER.includes(k) ? ORDER.indexOf(k) : ORDER.length)

export function policySections(): PolicySection[] {
  const pol = defs.Policies
  return Object.entries(pol.properties ?? {}).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b)).map(([key, ref]) => {
    const d = resolve(ref)
    return {
      key,
      title: TITLES[key] ?? key,
      help: d.description ?? '',
      fields: Object.entries(d.properties ?? {}).map(([k, s]) => fieldOf(key, k, s)),
    }
  })
}

export function rangeText(f: PolicyField): string {
  if (f.kind === 'integers') return f.itemMin !== undefined ? `each ${f.itemMin}–${f.itemMax}` : ''
  if (f.min === undefined && f.max === undefined) return ''
  const lo = f.min === undefined ? '(−∞' : `${f.exclusiveMin ? '(' : '['}${f.min}`
  const hi = f.max === undefined ? '∞)' : `${f.max}${f.exclusiveMax ? ')' : ']'}`
  return `range ${lo}, ${hi}${f.kind === 'integer' ? ', whole numbers' : ''}`
}

/** The problem with a value before it is sent (null if none); the controller checks again. */
export function checkValue(f: PolicyField, v: unknown): string | null {
  if (v === null || v === undefined || v === '') return f.nullable ? null : 'a value is required'
  if (f.kind === 'number' || f.kind === 'integer') {
    const n = Number(v)
    if (!Number.isFinite(n)) return 'not a number'
    if (f.kind === 'integer' && !Number.isInteger(n)) return 'must be a whole number'
    if (f.min !== undefined && (f.exclusiveMin ? n <= f.min : n < f.min)) return `must be ${f.exclusiveMin ? 'greater than' : 'at least'} ${f.min}`
    if (f.max !== undefined && (f.exclusiveMax ? n >= f.max : n > f.max)) return `must be ${f.exclusiveMax ? 'less than' : 'at most'} ${f.max}`
  }
  if (f.kind === 'integers' && Array.isArray(v)) {
    for (const x of v)
      if (!Number.isInteger(x) || (f.itemMin !== undefined && x < f.itemMin) || (f.itemMax !== undefined && x > f.itemMax))
        return `${x} is not a whole number in ${f.itemMin}–${f.itemMax}`
  }
  return null
}
