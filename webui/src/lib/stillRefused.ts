// A refusal is about the values the form sent. Once the user changes a field it
// named, its message no longer describes what the field holds, so it is dropped
// (the page's own checks, if any, speak for the field until the controller
// answers again); a field changed back to the refused value shows it again.
import { ApiError } from '../api/client'

const ABSENT = Symbol('absent')

/** The value at an API field path ('topology.aps[0].vlan') in `doc`, or at the deepest part of
 *  that path `doc` has (a missing key, or a path into a value sent as a string); ABSENT when
 *  `doc` has not even its first part (a query parameter, a header, base_version). */
function valueAt(doc: unknown, field: string): unknown {
  const keys = field.split(/[.[\]]+/).filter(Boolean)
  let v: unknown = doc
  for (const [i, k] of keys.entries()) {
    if (v === null || typeof v !== 'object' || !(k in v)) return i === 0 ? ABSENT : v
    v = (v as Record<string, unknown>)[k]
  }
  return v
}

const same = (a: unknown, b: unknown): boolean => a === b || JSON.stringify(a) === JSON.stringify(b)

/** `refusal` less its messages for fields whose value in `now` differs from `sent`; null when
 *  it named fields and every one has changed since. */
export function stillRefused(refusal: ApiError, sent: unknown, now: unknown): ApiError | null {
  const named = refusal.errors.length ? refusal.errors : refusal.field ? [{ field: refusal.field, message: refusal.message, type: '' }] : []
  if (!named.length) return refusal
  const kept = named.filter((e) => same(valueAt(sent, e.field), valueAt(now, e.field)))
  if (kept.length === named.length) return refusal
  if (!kept.length) return null
  return new ApiError(refusal.status, refusal.message, refusal.field, kept)
}
