// A socket the controller refuses is closed with 4000 + the HTTP status (API.md): connecting
// again with the same URL is refused again, so the live store stops with the controller's reason.
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { useLive } from '../../src/stores/live'
import { type FakeSocket, stubSockets } from './fakeSocket'

const sockets: FakeSocket[] = []
const detail = 'query.pairs: Input should be a valid boolean, unable to interpret input'

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  setActivePinia(createPinia())
  stubSockets(sockets)
  vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ entries: [], last_id: null }), { status: 200 }))
})

afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

it('a 4422 close after the error message fails the feed with its detail and opens no other socket', async () => {
  const live = useLive()
  await live.start('lab')
  sockets[0].onopen!()
  sockets[0].onmessage!({ data: JSON.stringify({ type: 'error', status: 422, detail, field: 'query.pairs' }) })
  sockets[0].onclose!({ code: 4422, reason: detail })
  await vi.advanceTimersByTimeAsync(60_000)
  expect(live.state).toBe('failed')
  expect(live.error).toBe(detail)
  expect(sockets).toHaveLength(1)
})

it('a refusal closed without an error message shows the close reason', async () => {
  const live = useLive()
  await live.start('lab')
  sockets[0].onopen!()
  sockets[0].onclose!({ code: 4422, reason: detail })
  await vi.advanceTimersByTimeAsync(60_000)
  expect(live.state).toBe('failed')
  expect(live.error).toBe(detail)
  expect(sockets).toHaveLength(1)
})
