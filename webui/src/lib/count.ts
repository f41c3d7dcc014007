// "1 slice", "2 slices": a count and its noun, in the singular for one. `plural` for
// nouns that do not take an s ("switch" -> "switches").
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`
}
