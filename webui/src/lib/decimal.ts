// Number() reads more than decimals: '0x10' is 16, '0b1' 1, '0o17' 15, and 'Infinity' is no
// value JSON can carry. A number the operator types or a file holds is taken only when it is
// written in decimal, so anything else reaches the controller as written and is refused beside
// its field, instead of being saved as another number.
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i

/** The finite number `text` writes in decimal (blanks around it ignored), or null when it writes none. */
export function decimal(text: string): number | null {
  const t = text.trim()
  if (!DECIMAL.test(t)) return null
  const n = Number(t)
  return Number.isFinite(n) ? n : null
}
