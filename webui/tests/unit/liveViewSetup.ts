// What the Live page's tests share: before each, fake timers, a fresh store with appliance "lab" selected, the
// sockets the page opens collected in `sockets`, and a controller whose history of every stream is empty.
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, vi } from 'vitest'
import { useAppliances } from '../../src/stores/appliances'
import { type FakeSocket, stubSockets } from './fakeSocket'

export function liveViewWithEmptyHistory(sockets: FakeSocket[]): void {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
    setActivePinia(createPinia())
    useAppliances().select('lab')
    stubSockets(sockets)
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ entries: [], last_id: null }), { status: 200 }))
  })
  afterEach(() => {
    vi.useRealTimers()
    vi.unstubAllGlobals()
  })
}
