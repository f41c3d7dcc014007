// The user's unsaved policy edits re-applied on top of a newer version (lib/threeWay.ts).
// Units: each policy field. A JSON field is edited as text, so its unit is the text, and a
// text that parses to the newer version's value is the same change.
import type { Policies } from '../api/types'
import { type Conflict, merge3 } from './threeWay'

/** What the policies page edits: the values, and the text of its JSON fields by field path. */
export interface PolicyEdits {
  policies: Policies
  jsonText: Record<string, string>
}

export interface PolicyMerge {
  edits: PolicyEdits
  conflicts: Conflict[]
}

function normalText(t: string | undefined): string | undefined {
  try {
    return t === undefined ? t : JSON.stringify(JSON.parse(t))
  } catch {
    return t
  }
}
const sameText = (a: string | undefined, b: string | undefined): boolean => normalText(a) === normalText(b)
const keysOf = (...objs: (object | undefined)[]): string[] => [...new Set(objs.flatMap((o) => Object.keys(o ?? {})))]

export function mergePolicies(base: PolicyEdits, mine: PolicyEdits, theirs: PolicyEdits): PolicyMerge {
  const conflicts: Conflict[] = []
  const policies: Policies = {}
  const jsonText: Record<string, string> = {}
  for (const section of keysOf(base.policies, mine.policies, theirs.policies)) {
    const [b, m, t] = [base.policies[section], mine.policies[section], theirs.policies[section]]
    policies[section] = {}
    for (const key of keysOf(b, m, t)) {
      const path = `policies.${section}.${key}`
      if (path in mine.jsonText || path in theirs.jsonText) {
        const text = merge3(base.jsonText[path], mine.jsonText[path], theirs.jsonText[path], sameText)
        if (text.conflict) conflicts.push({ what: path, theirs: theirs.jsonText[path] ?? '(none)' })
        if (text.value !== undefined) jsonText[path] = text.value
        policies[section][key] = t?.[key] // saving reads JSON fields from their text
        continue
      }
      const value = merge3(b?.[key], m?.[key], t?.[key])
      if (value.conflict) conflicts.push({ what: path, theirs: JSON.stringify(t?.[key] ?? null) })
      if (value.value !== undefined) policies[section][key] = value.value
    }
  }
  return { edits: { policies, jsonText }, conflicts }
}
