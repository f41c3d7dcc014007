// Saving a topology edit that renames pairs (an AP or a STA renamed, a STA moved to another AP).
// A topology-only save (PUT /topology) keeps the slice map and policies as stored, still naming
// the old pairs, so the controller would refuse it; the edit is saved instead as the whole
// document it was made on, with those pairs renamed too (POST /versions with the same
// base_version check, API.md).
import { api, ApiError } from '../api/client'
import type { Topology, Version, VersionInfo } from '../api/types'
import { type PairRenames, renamePairLists } from './renames'

const outOfDoc = (field: string): string => (field.startsWith('doc.') ? field.slice(4) : field)

/** The refusal with its fields named as in a topology edit ('topology.aps[0].id', not
 *  'doc.topology.aps[0].id'), so each message is shown beside its field. */
function asTopologyEdit(e: ApiError): ApiError {
  return new ApiError(e.status, e.message, e.field && outOfDoc(e.field), e.errors.map((x) => ({ ...x, field: outOfDoc(x.field) })))
}

/** Saves `topology` with the pairs of version `base` renamed as `pairs` says. */
export async function saveRenamed(topology: Topology, pairs: PairRenames, comment: string, base: number): Promise<VersionInfo> {
  const { doc } = await api.get<Version>(`/versions/${base}`)
  const whole = { ...doc, topology, slice_map: renamePairLists(doc.slice_map, pairs), policies: renamePairLists(doc.policies, pairs) }
  try {
    return await api.post<VersionInfo>('/versions', { doc: whole, comment, base_version: base })
  } catch (e) {
    throw e instanceof ApiError ? asTopologyEdit(e) : e
  }
}
