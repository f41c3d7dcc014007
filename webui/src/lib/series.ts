// Time series kept for the live charts: columns of numbers (uPlot's aligned-data
// layout, x = seconds since the epoch) bounded to a time window, so a dashboard
// left open for hours uses constant memory. Values follow uPlot's convention: undefined
// is a field that was no number (the line goes on across it), null a gap (the line breaks).

export class WindowedSeries {
  readonly names: string[]
  readonly windowS: number // length of history kept, seconds
  private cols: (number | null | undefined)[][]
  // Entries were skipped since the last sample: the next one is drawn after a gap, not joined to it.
  private gapPending = false

  constructor(names: string[], windowS: number) {
    this.names = names
    this.windowS = windowS
    this.cols = [[], ...names.map(() => [])]
  }

  get length(): number {
    return this.cols[0].length
  }

  /** Append one sample; samples older than windowS before it are dropped. Out-of-order samples are ignored. */
  push(t: number, values: (number | null | undefined)[]): void {
    const xs = this.cols[0] as number[]
    if (xs.length && t < xs[xs.length - 1]) return
    if (this.gapPending && xs.length) {
      // Halfway between the samples either side of the hole: the feed cannot tell when it was.
      xs.push((xs[xs.length - 1] + t) / 2)
      this.names.forEach((_, i) => this.cols[i + 1].push(null))
    }
    this.gapPending = false
    xs.push(t)
    this.names.forEach((_, i) => this.cols[i + 1].push(values[i] ?? undefined))
    const cutoff = t - this.windowS
    let drop = 0
    while (drop < xs.length && xs[drop] < cutoff) drop++
    if (drop) for (const c of this.cols) c.splice(0, drop)
  }

  /** Entries of this series were not seen after the newest sample: the line breaks before the next. */
  gap(): void {
    this.gapPending = true
  }

  /** Time of the newest sample, or null while empty. */
  get lastTime(): number | null {
    const xs = this.cols[0] as number[]
    return xs.length ? xs[xs.length - 1] : null
  }

  /** The newest sample's value, or null while empty or when it was no number. */
  last(name: string): number | null {
    const i = this.names.indexOf(name)
    const c = this.cols[i + 1]
    return c && c.length ? c[c.length - 1] ?? null : null
  }

  /** Columns for uPlot.setData (copies, so a chart never sees a half-updated array). */
  data(): (number | null | undefined)[][] {
    return this.cols.map((c) => c.slice())
  }
}
