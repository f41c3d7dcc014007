// The Live page reads history over REST, then opens the feed: an entry the dataplane writes in
// between must still reach the charts, once. The fake controller answers REST from in-memory
// streams and starts each socket as api/live.py does: just after `frames_after` / `pairs_after`
// when the URL carries them, else at the stream's end when the socket starts.
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import type { FrameEntry, PairEntry } from '../../src/api/types'
import { useLive } from '../../src/stores/live'
import { repeatsStreamId } from '../../src/lib/streamId'
import { type FakeSocket, stubSockets } from './fakeSocket'

const sockets: FakeSocket[] = []
let frameStream: FrameEntry[] = []
let pairStream: PairEntry[] = []
// Written into a stream right after its history's last page was answered.
let gap: { frame: FrameEntry; pair: PairEntry } | null = null

const pair = (ms: number): PairEntry => ({
  id: `${ms}-0`, ts_ns: ms * 1e6, frame: ms, pair: 'ap1/sta1', mode: 'sliced', s_ms: 20, r_pkts: 40, v_ms: 18,
  released_pkts: 40, released_bytes: 60000, queue_pkts: 3, limit_pkts: 256, drops_tail: 0, drops_other: 0,
  tput_mbps: 30, reassigned: 0,
})
const frame = (ms: number): FrameEntry => ({
  id: `${ms}-0`, ts_ns: ms * 1e6, frame: ms, version: 1, frame_ms: 40, utility: 3, utility_bound: null,
  reassignments: 0, slices: null,
})
const after = <T extends { id: string }>(stream: T[], id: string): T[] =>
  stream.filter((e) => !repeatsStreamId(e.id, id))

function answer(url: string): Response {
  const u = new URL(url, 'http://controller')
  const frames = u.pathname.endsWith('/frames')
  const stream: { id: string }[] = frames ? frameStream : pairStream
  const count = Number(u.searchParams.get('count') ?? 100)
  const from = u.searchParams.get('after')
  const entries = from === null ? stream.slice(-count) : after(stream, from).slice(0, count)
  const body = JSON.stringify({ entries, last_id: entries.length ? entries[entries.length - 1].id : from })
  if (gap && from !== null && entries.length < count) {
    if (frames) frameStream.push(gap.frame)
    else pairStream.push(gap.pair)
  }
  return new Response(body, { status: 200 })
}

/** Where the controller starts this socket's feed of one stream. */
function feedStart(sock: FakeSocket, param: string, stream: { id: string }[]): string {
  return new URL(sock.url).searchParams.get(param) || (stream.length ? stream[stream.length - 1].id : '0-0')
}

beforeEach(() => {
  setActivePinia(createPinia())
  stubSockets(sockets)
  frameStream = []
  pairStream = []
  gap = null
  vi.stubGlobal('fetch', async (url: string) => answer(url))
})
afterEach(() => vi.unstubAllGlobals())

it('an entry written between the history read and the socket start is drawn, once', async () => {
  const t0 = Date.now() - 60_000
  for (let k = 0; k < 10; k++) {
    frameStream.push(frame(t0 + k * 1000))
    pairStream.push(pair(t0 + k * 1000))
  }
  gap = { frame: frame(t0 + 10_000), pair: pair(t0 + 10_000) }
  const live = useLive()
  await live.start('lab')
  expect(sockets).toHaveLength(1)
  const sock = sockets[0]
  const framesFrom = feedStart(sock, 'frames_after', frameStream)
  const pairsFrom = feedStart(sock, 'pairs_after', pairStream)
  frameStream.push(frame(t0 + 11_000)) // written once the feed runs
  pairStream.push(pair(t0 + 11_000))
  sock.onmessage!({ data: JSON.stringify({ type: 'telemetry', frames: after(frameStream, framesFrom),
    pairs: after(pairStream, pairsFrom) }) })

  const times = Array.from({ length: 12 }, (_, k) => frame(t0 + k * 1000).ts_ns / 1e9)
  expect(live.frames.data()[0]).toEqual(times)
  expect(live.pairs.get('ap1/sta1')!.data()[0]).toEqual(times)
  live.stop()
})
