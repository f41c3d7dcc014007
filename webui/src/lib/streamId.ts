// Redis stream ids (`<ms>-<seq>`, each part up to 2^64-1) compared as numbers: ids of one
// stream strictly increase, so an entry whose id is not after the last one folded in was
// seen already (the history read again on reconnect overlaps what the socket brought).

function parts(id: string | undefined): [bigint, bigint] | null {
  const m = /^(\d+)-(\d+)$/.exec(id ?? '')
  return m ? [BigInt(m[1]), BigInt(m[2])] : null
}

/** True when `id` is at or before `last`, i.e. an entry already seen. An id that does not
 *  parse is never taken for a repeat (dropping live data on a malformed id would be worse). */
export function repeatsStreamId(id: string | undefined, last: string | undefined): boolean {
  const x = parts(id)
  const y = parts(last)
  if (!x || !y) return false
  return x[0] < y[0] || (x[0] === y[0] && x[1] <= y[1])
}

/** The later of two ids; one that does not parse (or is missing) is passed over, so a
 *  malformed id never becomes the point a live feed starts after (it would be refused). */
export function laterStreamId(id: string | null | undefined, than: string): string {
  return id && parts(id) && !repeatsStreamId(id, than) ? id : than
}
