// Saving a topology edit that renames pairs (an AP or a STA renamed, a STA moved to another AP) or
// removes them (a STA removed). A topology-only save (PUT /topology) keeps the slice map and
// policies as stored, still naming the old pairs, so the controller would refuse it; the edit is
// saved instead as the whole document it was made on, with those pairs renamed or taken out too
// (POST /versions with the same base_version check, API.md).
import { api, ApiError } from '../api/client'
import type { Topology, Version, VersionInfo } from '../api/types'
import { removePairs } from './pairRemoval'
import { type PairRenames, renamePairLists } from './renames'

/** The pairs an edit changes, named as in the version it was made on. */
export interface PairEdits {
  renamed: PairRenames
  removed: string[]
}

export const changesPairs = (e: PairEdits): boolean => Object.keys(e.renamed).length > 0 || e.removed.length > 0

const outOfDoc = (field: string): string => (field.startsWith('doc.') ? field.slice(4) : field)

/** The refusal with its fields named as in a topology edit ('topology.aps[0].id', not
 *  'doc.topology.aps[0].id'), so each message is shown beside its field. */
function asTopologyEdit(e: ApiError): ApiError {
  return new ApiError(e.status, e.message, e.field && outOfDoc(e.field), e.errors.map((x) => ({ ...x, field: outOfDoc(x.field) })))
}

/** Saves `topology` with the pairs of version `base` edited as `pairs` says. The removed pairs go
 *  first: a pair renamed may take the name of one removed. */
export async function saveRenamed(topology: Topology, pairs: PairEdits, comment: string, base: number): Promise<VersionInfo> {
  const { doc } = await api.get<Version>(`/versions/${base}`)
  const kept = removePairs(doc, pairs.removed)
  const whole = { ...doc, topology, slice_map: renamePairLists(kept.slice_map, pairs.renamed), policies: renamePairLists(kept.policies, pairs.renamed) }
  try {
    return await api.post<VersionInfo>('/versions', { doc: whole, comment, base_version: base })
  } catch (e) {
    throw e instanceof ApiError ? asTopologyEdit(e) : e
  }
}
