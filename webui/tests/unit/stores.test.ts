import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { FrameEntry, PairEntry } from '../../src/api/types'
import { WindowedSeries } from '../../src/lib/series'
import { useAppliances } from '../../src/stores/appliances'
import { useLive, WINDOW_S } from '../../src/stores/live'
import { useSession } from '../../src/stores/session'

const pair = (ts_s: number, name: string, over: Partial<PairEntry> = {}): PairEntry => ({
  id: `${ts_s}-0`, ts_ns: ts_s * 1e9, frame: ts_s, pair: name, mode: 'sliced', s_ms: 20, r_pkts: 40, v_ms: 18.5,
  released_pkts: 40, released_bytes: 60000, queue_pkts: 12, limit_pkts: 256, drops_tail: 2, drops_other: 1,
  tput_mbps: 30, reassigned: 0, ...over,
})
const frame = (ts_s: number, over: Partial<FrameEntry> = {}): FrameEntry => ({
  id: `${ts_s}-0`, ts_ns: ts_s * 1e9, frame: ts_s, version: 3, frame_ms: 40, utility: 7.1, utility_bound: null,
  reassignments: 0, slices: [{ duration_ms: 20, pairs: ['ap1/sta1'], given_to: [] }], ...over,
})

beforeEach(() => setActivePinia(createPinia()))

describe('live store', () => {
  it('folds telemetry into one series per pair, drops as tail + other, and keeps the latest entry', () => {
    const live = useLive()
    live.ingest({ type: 'telemetry', frames: [frame(100)], pairs: [pair(100, 'ap1/sta1'), pair(100, 'ap2/sta2', { tput_mbps: 41 })] })
    live.ingest({ type: 'telemetry', frames: [frame(101)], pairs: [pair(101, 'ap1/sta1', { v_ms: 20.1 })] })
    expect([...live.pairs.keys()].sort()).toEqual(['ap1/sta1', 'ap2/sta2'])
    const s = live.pairs.get('ap1/sta1')!
    expect(s.length).toBe(2)
    expect(s.last('v_ms')).toBe(20.1)
    expect(s.last('drops')).toBe(3)
    expect(live.latestPair.get('ap2/sta2')!.tput_mbps).toBe(41)
    expect(live.lastFrame!.frame).toBe(101)
    expect(live.frames.last('utility_bound')).toBeNull()
  })

  it('takes the status message and reports a feed error without losing data', () => {
    const live = useLive()
    live.ingest({ type: 'telemetry', pairs: [pair(5, 'ap1/sta1')] })
    const before = live.tick
    live.ingest({ type: 'error', detail: 'no such appliance' })
    expect(live.error).toBe('no such appliance')
    expect(live.tick).toBe(before + 1)
    expect(live.pairs.get('ap1/sta1')!.length).toBe(1)
  })
})

describe('windowed series', () => {
  it('keeps only the last window of history and ignores samples that go back in time', () => {
    const w = new WindowedSeries(['x'], WINDOW_S)
    for (let t = 0; t <= 2 * WINDOW_S; t += 10) w.push(t, [t])
    expect(w.data()[0][0]).toBe(WINDOW_S)
    w.push(5, [999])
    expect(w.last('x')).toBe(2 * WINDOW_S)
  })
})

describe('session store', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('lets operators and admins edit, viewers only read', () => {
    const s = useSession()
    expect(s.canEdit).toBe(false)
    s.adopt({ username: 'v', role: 'viewer', via: 'session', csrf_token: 'x' })
    expect(s.canEdit).toBe(false)
    expect(s.isAdmin).toBe(false)
    s.adopt({ username: 'o', role: 'operator', via: 'session', csrf_token: 'x' })
    expect(s.canEdit).toBe(true)
    expect(s.isAdmin).toBe(false)
    s.adopt({ username: 'a', role: 'admin', via: 'session', csrf_token: 'x' })
    expect(s.isAdmin).toBe(true)
  })

  it('ends the session on a 401 after login (expired session), without reporting the controller unreachable', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response(
      JSON.stringify({ status: 401, detail: 'session expired', field: 'cookie.adwiser_session', errors: [] }),
      { status: 401, headers: { 'Content-Type': 'application/problem+json' } })))
    const s = useSession()
    s.adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
    const a = useAppliances()
    await a.refresh()
    expect(s.me).toBeNull()
    expect(s.expired).toBe(true)
    expect(a.reachable).toBe(true) // no "connection lost" banner: the login page is shown instead
  })
})

describe('live store history', () => {
  it('reads the whole window back from the newest entry in pages, continuing after the last stream id of each full page', async () => {
    const calls: string[] = []
    const nowS = Math.floor(Date.now() / 1000)
    const newestMs = Date.now() - 42_000 // the controller's clock, 42 s behind the browser's
    const firstPageEnd = `${newestMs - 60_000}-7` // the stream id the first full page of pairs ends at
    const page = (n: number, from: number, kind: 'pairs' | 'frames') =>
      Array.from({ length: n }, (_, i) => (kind === 'pairs' ? pair(nowS - 200 + (from + i) / 100, 'ap1/sta1') : frame(nowS - 200 + (from + i) / 100)))
    vi.stubGlobal('fetch', async (url: string) => {
      calls.push(url)
      const u = new URL(url, 'http://x')
      const kind = u.pathname.endsWith('/pairs') ? 'pairs' : 'frames'
      if (u.searchParams.get('after') === null) { // the newest entry, which the window is counted back from
        const newest = { ...(kind === 'pairs' ? pair(nowS, 'ap1/sta1') : frame(nowS)), id: `${newestMs}-3` }
        return new Response(JSON.stringify({ entries: [newest], last_id: newest.id }), { status: 200 })
      }
      const first = u.searchParams.get('after') !== firstPageEnd
      const entries = kind === 'frames' ? page(3, 0, kind) : first ? page(2000, 0, kind) : page(7, 2000, kind)
      const body = { entries, last_id: first && kind === 'pairs' ? firstPageEnd : `${newestMs}-3` }
      return new Response(JSON.stringify(body), { status: 200 })
    })
    try {
      const live = useLive()
      await live.loadHistory('lab')
      const pairCalls = calls.filter((c) => c.includes('/pairs') && c.includes('after='))
      expect(pairCalls).toHaveLength(2)
      const after0 = Number(new URL(pairCalls[0], 'http://x').searchParams.get('after')!.split('-')[0])
      expect(after0).toBe(newestMs - WINDOW_S * 1000)
      expect(new URL(pairCalls[1], 'http://x').searchParams.get('after')).toBe(firstPageEnd)
      expect(live.pairs.get('ap1/sta1')!.length).toBe(2007)
      expect(live.frames.length).toBe(3)
    } finally {
      vi.unstubAllGlobals()
    }
  })
})

describe('appliances store', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('keeps the newer status when an older poll is answered (or fails) after it', async () => {
    const answers: ((r: Response) => void)[] = []
    vi.stubGlobal('fetch', vi.fn(() => new Promise<Response>((resolve) => answers.push(resolve))))
    const st = (desired: number) => ({ id: 'lab', head: desired, desired, active: desired - 1, pending: true, rejected: null,
      alive: true, heartbeat: null, heartbeat_age_s: null, last_frame: null })
    const a = useAppliances()
    const older = a.refresh()
    const newer = a.refresh()
    answers[1](new Response(JSON.stringify([st(8)]), { status: 200 }))
    await newer
    answers[0](new Response(JSON.stringify([st(7)]), { status: 200 }))
    await older
    expect(a.list[0].desired).toBe(8)
    // Nor does an older poll's failure, answered late, mark a controller that answered since.
    const lost = a.refresh()
    const back = a.refresh()
    answers[3](new Response(JSON.stringify([st(9)]), { status: 200 }))
    await back
    answers[2](new Response(JSON.stringify({ status: 503, detail: 'store unavailable' }), { status: 503 }))
    await lost
    expect(a.list[0].desired).toBe(9)
    expect(a.lastError).toBe('')
  })
})
