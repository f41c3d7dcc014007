// The live store against a fake controller: REST history served from in-memory streams whose ids
// are `<Redis ms>-<seq>` on the controller's clock (which need not be the browser's), and the
// WebSocket feed driven by hand (fakeSocket.ts).
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import type { FrameEntry, PairEntry } from '../../src/api/types'
import { useLive, WINDOW_S } from '../../src/stores/live'
import { type FakeSocket, stubSockets } from './fakeSocket'

const sockets: FakeSocket[] = []
let frameStream: FrameEntry[] = []
let pairStream: PairEntry[] = []

const idMs = (id: string): number => Number(id.split('-')[0])
const pair = (ms: number, name: string): PairEntry => ({
  id: `${ms}-0`, ts_ns: ms * 1e6, frame: ms, pair: name, mode: 'sliced', s_ms: 20, r_pkts: 40, v_ms: 18,
  released_pkts: 40, released_bytes: 60000, queue_pkts: 3, limit_pkts: 256, drops_tail: 0, drops_other: 0,
  tput_mbps: 30, reassigned: 0,
})
const frame = (ms: number): FrameEntry => ({
  id: `${ms}-0`, ts_ns: ms * 1e6, frame: ms, version: 1, frame_ms: 40, utility: 3, utility_bound: null,
  reassignments: 0, slices: null,
})

// GET .../frames|pairs?count=N[&after=id] as telemetry.history() answers it: without `after` the
// newest `count` entries, with it the first `count` entries after that id; `entries_added` (the
// entries the stream was ever given, none trimmed here: its length) when the page reached its end.
function answer(url: string): Response {
  const u = new URL(url, 'http://controller')
  const stream: { id: string }[] = u.pathname.endsWith('/frames') ? frameStream : pairStream
  const count = Number(u.searchParams.get('count') ?? 100)
  const after = u.searchParams.get('after')
  const entries = after === null ? stream.slice(-count) : stream.filter((e) => idMs(e.id) > idMs(after)).slice(0, count)
  const lastId = entries.length ? entries[entries.length - 1].id : after
  const atEnd = stream.length > 0 && lastId === stream[stream.length - 1].id
  return new Response(JSON.stringify({ entries, last_id: lastId, entries_added: atEnd ? stream.length : null }),
    { status: 200 })
}

beforeEach(() => {
  setActivePinia(createPinia())
  stubSockets(sockets)
  frameStream = []
  pairStream = []
  vi.stubGlobal('fetch', async (url: string) => answer(url))
})
afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

/** One frame and one ap1/sta1 pair entry a second for `n` seconds from t0, in the controller's streams. */
function secondsOfHistory(t0: number, n: number): void {
  for (let k = 0; k < n; k++) {
    frameStream.push(frame(t0 + k * 1000))
    pairStream.push(pair(t0 + k * 1000, 'ap1/sta1'))
  }
}

it('a reconnect does not add the points it already had again', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  const t0 = Date.now() - 60_000
  secondsOfHistory(t0, 10)
  const live = useLive()
  await live.start('lab')
  expect(live.pairs.get('ap1/sta1')!.length).toBe(10)
  // One more frame over the socket, then the socket drops and the store reconnects:
  // its history now holds the frame the socket brought too.
  const f = frame(t0 + 10_000)
  const p = pair(t0 + 10_000, 'ap1/sta1')
  frameStream.push(f)
  pairStream.push(p)
  sockets[0].onmessage!({ data: JSON.stringify({ type: 'telemetry', frames: [f], pairs: [p] }) })
  sockets[0].onclose!({ code: 1006 })
  await vi.advanceTimersByTimeAsync(5000)
  expect(sockets).toHaveLength(2)

  expect(live.pairs.get('ap1/sta1')!.length).toBe(11)
  expect(live.frames.length).toBe(11)
  expect(live.pairs.get('ap1/sta1')!.data()[0]).toEqual([...new Set(live.pairs.get('ap1/sta1')!.data()[0])])
  live.stop()
})

it('reads the last minutes of history when the browser clock is ahead of the controller', async () => {
  // The controller (and its Redis, which numbers the stream ids) runs 10 minutes behind the browser.
  const controllerNow = Date.now() - 10 * 60_000
  for (let k = 0; k < 60; k++) {
    frameStream.push(frame(controllerNow - (60 - k) * 1000))
    pairStream.push(pair(controllerNow - (60 - k) * 1000, 'ap1/sta1'))
  }
  const live = useLive()
  await live.start('lab')
  expect(live.pairs.get('ap1/sta1')?.length).toBe(60)
  expect(live.frames.length).toBe(60)
  live.stop()
})

it('opens the feed with the count of entries its history read up to, so a trimmed start id is no loss', async () => {
  const t0 = Date.now() - 60_000
  for (let k = 0; k < 10; k++) frameStream.push(frame(t0 + k * 1000))
  for (let k = 0; k < 12; k++) pairStream.push(pair(t0 + k * 1000, 'ap1/sta1'))
  const live = useLive()
  await live.start('lab')
  const q = new URL(sockets[0].url).searchParams
  expect([q.get('frames_after'), q.get('frames_added')]).toEqual([frameStream[9].id, '10'])
  expect([q.get('pairs_after'), q.get('pairs_added')]).toEqual([pairStream[11].id, '12'])
  live.stop()
})

it('sends no count with a start id its history read did not return it for', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  const t0 = Date.now() - 60_000
  secondsOfHistory(t0, 10)
  const live = useLive()
  await live.start('lab')
  // The socket brings newer entries, then drops, and the history read of the reconnect fails:
  // the next socket starts after what the socket brought, whose count the store never read.
  const f = frame(t0 + 10_000)
  const p = pair(t0 + 10_000, 'ap1/sta1')
  sockets[0].onmessage!({ data: JSON.stringify({ type: 'telemetry', frames: [f], pairs: [p] }) })
  vi.stubGlobal('fetch', async () => new Response('{}', { status: 503 }))
  sockets[0].onclose!({ code: 1006 })
  await vi.advanceTimersByTimeAsync(5000)
  expect(sockets).toHaveLength(2)
  const q = new URL(sockets[1].url).searchParams
  expect([q.get('frames_after'), q.get('frames_added')]).toEqual([f.id, null])
  expect([q.get('pairs_after'), q.get('pairs_added')]).toEqual([p.id, null])
  live.stop()
})
