// Overlapping polls (a slow controller, a poll every few seconds): each request takes a ticket,
// and the answer to an older one arriving after a newer one's has been shown is dropped, per key,
// so a view never goes back to older state.
export interface NewerAnswers {
  /** A ticket for the request about to be sent. */
  ask(): number
  /** True if the answer to `ticket` may be shown for `key` (and records it as shown). */
  fresh(ticket: number, key?: string): boolean
}

export function newerAnswers(): NewerAnswers {
  let asked = 0
  const shown = new Map<string, number>()
  return {
    ask: () => ++asked,
    fresh(ticket, key = '') {
      if (ticket < (shown.get(key) ?? 0)) return false
      shown.set(key, ticket)
      return true
    },
  }
}
