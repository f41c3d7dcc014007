// When the live feed skips entries (controller/API.md `skipped`), the Live page's charts must not
// draw a line across the hole as if the skipped time had been seen; a field that is no number
// (utility_bound null, s_ms of an unsliced pair) still does not break the line.
import { mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import type { FrameEntry, PairEntry } from '../../src/api/types'
import TimeChart from '../../src/components/TimeChart.vue'
import { useLive } from '../../src/stores/live'

const built = vi.hoisted(() => [] as { opts: { series: { spanGaps?: boolean }[] }; data: (number | null | undefined)[][] }[])
vi.mock('uplot', () => ({
  default: class {
    constructor(opts: never, data: never) {
      built.push({ opts, data })
    }
    setData(): void {}
    setSize(): void {}
    destroy(): void {}
  },
}))

const pair = (ts_s: number): PairEntry => ({
  id: `${ts_s}-0`, ts_ns: ts_s * 1e9, frame: ts_s, pair: 'ap1/sta1', mode: 'sliced', s_ms: 20, r_pkts: 40, v_ms: 18,
  released_pkts: 40, released_bytes: 60000, queue_pkts: 3, limit_pkts: 256, drops_tail: 0, drops_other: 0,
  tput_mbps: 30, reassigned: 0,
})
const frame = (ts_s: number, utility: number | null): FrameEntry => ({
  id: `${ts_s}-0`, ts_ns: ts_s * 1e9, frame: ts_s, version: 1, frame_ms: 40, utility, utility_bound: null,
  reassignments: 0, slices: null,
})

/** The runs of x a uPlot line joins: a null breaks it unless the series spans gaps; undefined
 *  (no value in this row) never does. */
function drawnRuns(xs: (number | null | undefined)[], ys: (number | null | undefined)[], spanGaps?: boolean): number[][] {
  const runs: number[][] = []
  let run: number[] = []
  xs.forEach((x, i) => {
    if (ys[i] === null && !spanGaps) {
      if (run.length) runs.push(run)
      run = []
    } else if (ys[i] != null) run.push(x as number)
  })
  if (run.length) runs.push(run)
  return runs
}

function chartRuns(data: () => (number | null | undefined)[][]): number[][] {
  built.length = 0
  const w = mount(TimeChart, { props: { title: 't', series: [{ label: 'a', color: '#000' }], data, tick: 0, yLabel: 'y' } })
  const { opts, data: d } = built[0]
  w.unmount()
  return drawnRuns(d[0], d[1], opts.series[1].spanGaps)
}

beforeEach(() => {
  setActivePinia(createPinia())
  vi.stubGlobal('ResizeObserver', class { observe(): void {} disconnect(): void {} })
})
afterEach(() => vi.unstubAllGlobals())

it('breaks the lines of a stream where the feed skipped its entries, and only there', () => {
  const live = useLive()
  live.ingest({ type: 'telemetry', frames: [frame(100, 7), frame(101, null), frame(102, 7)], pairs: [pair(100), pair(101)] })
  live.ingest({ type: 'skipped', stream: 'frames', from: '102-0', to: '160-0', entries: 1450 })
  live.ingest({ type: 'telemetry', frames: [frame(160, 7), frame(161, 7)], pairs: [pair(102)] })

  const frames = live.frames
  expect(chartRuns(() => [frames.data()[0], frames.data()[1]])).toEqual([[100, 102], [160, 161]])
  const sta1 = live.pairs.get('ap1/sta1')!
  expect(chartRuns(() => [sta1.data()[0], sta1.data()[1]])).toEqual([[100, 101, 102]])

  live.ingest({ type: 'skipped', stream: 'pairs', from: '102-0', to: '170-0', entries: null })
  live.ingest({ type: 'telemetry', pairs: [pair(170)] })
  expect(chartRuns(() => [sta1.data()[0], sta1.data()[1]])).toEqual([[100, 101, 102], [170]])
  expect(sta1.last('tput_mbps')).toBe(30)
  expect(frames.last('utility_bound')).toBeNull()
})
