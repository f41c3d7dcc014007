// Re-applying a user's unsaved edits on top of a version someone saved meanwhile (a save
// refused with 409, base_version stale): three-way, unit by unit, against the version the
// user started from. A unit only one side changed takes that side; a unit both changed the
// same way takes it once; a unit both changed differently is a conflict, and the user's
// value is kept so it is never lost silently: the page names it for them to review.

/** Values are compared as JSON: they are what the API sends and receives. */
export const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

export interface Merged<T> {
  value: T
  conflict: boolean
}

export function merge3<T>(base: T, mine: T, theirs: T, same: (a: T, b: T) => boolean = sameJson): Merged<T> {
  if (same(mine, base)) return { value: theirs, conflict: false }
  if (same(theirs, base) || same(mine, theirs)) return { value: mine, conflict: false }
  return { value: mine, conflict: true }
}

/** One unit both sides changed differently: what it is and what the newer version holds; the user's
 *  side is kept unless `theirsKept` (a removal by the newer version that the merge had to follow). */
export interface Conflict {
  what: string
  theirs: string
  theirsKept?: boolean
}
