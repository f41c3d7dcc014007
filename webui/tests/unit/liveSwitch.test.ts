// The Live page re-mounts on every appliance change (RouterView :key): the old page stops the
// live store, the new one starts it on the new appliance, while the old start (or a reconnect)
// may still be waiting for its history. What that late history and the superseded start do.
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { useLive } from '../../src/stores/live'
import { type FakeSocket, stubSockets } from './fakeSocket'

const sockets: FakeSocket[] = []
// Releases the history requests of one appliance that were held back ("slow"), by appliance id.
const held: Record<string, (() => void)[]> = {}
let slow = new Set<string>()

beforeEach(() => {
  setActivePinia(createPinia())
  stubSockets(sockets)
  for (const k of Object.keys(held)) delete held[k]
  slow = new Set()
  const nowS = Math.floor(Date.now() / 1000)
  vi.stubGlobal('fetch', (url: string) => {
    const aid = url.split('/telemetry/')[1].split('/')[0]
    const entries = url.includes('/pairs') ? [{ id: `${nowS}-0`, ts_ns: nowS * 1e9, pair: `${aid}/sta`, tput_mbps: 1 }] : []
    const res = new Response(JSON.stringify({ entries, last_id: null }), { status: 200 })
    if (!slow.has(aid)) return Promise.resolve(res)
    return new Promise((resolve) => (held[aid] ??= []).push(() => resolve(res)))
  })
})

afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

const liveUrl = (id: string) => `/api/v1/telemetry/${id}/live`

it('a start superseded while its history loads neither merges that history nor opens a socket', async () => {
  const live = useLive()
  slow.add('A')
  const a = live.start('A') // Live page mounted on A; A's history is slow
  live.stop() // the user picks B: the page unmounts ...
  await live.start('B') // ... and mounts again on B
  for (const release of held.A) release() // A's history arrives after B's start
  await a

  expect(sockets.map((s) => new URL(s.url).pathname)).toEqual([liveUrl('B')])
  expect([...live.pairs.keys()]).toEqual(['B/sta'])
  expect(live.appliance).toBe('B')
  live.stop()
  expect(sockets.every((s) => s.closed)).toBe(true)
})

it('a reconnect superseded while its history loads neither merges that history nor opens a socket', async () => {
  vi.useFakeTimers()
  const live = useLive()
  await live.start('A')
  expect(sockets).toHaveLength(1)
  slow.add('A')
  sockets[0].closed = true // A's feed drops: a reconnect is due after a back-off
  sockets[0].onclose!({ code: 1006 })
  await vi.advanceTimersByTimeAsync(5000) // the reconnect starts and waits for A's history
  expect(held.A?.length).toBeGreaterThan(0)
  live.stop()
  await live.start('B')
  for (const release of held.A) release()
  await vi.runAllTimersAsync()

  expect(sockets.map((s) => new URL(s.url).pathname)).toEqual([liveUrl('A'), liveUrl('B')])
  expect([...live.pairs.keys()]).toEqual(['B/sta'])
  live.stop()
  expect(sockets.every((s) => s.closed)).toBe(true)
})

it('a start on another appliance shows neither the last telemetry time nor the feed error of the one before', async () => {
  const live = useLive()
  await live.start('A')
  sockets[0].onopen!()
  sockets[0].onmessage!({ data: JSON.stringify({ type: 'telemetry', appliance_id: 'A', frames: [], pairs: [] }) })
  expect(live.lastUpdate).toBeGreaterThan(0)
  sockets[0].onmessage!({ data: JSON.stringify({ type: 'error', status: 503, detail: 'store unavailable: Connection refused' }) })
  live.stop()

  await live.start('B') // B's socket is opened but has not answered yet
  expect(live.lastUpdate).toBe(0) // "last telemetry: none yet", not A's
  expect(live.error).toBe('')
  live.stop()
})
