// The controller's live feed skips ahead when it is far behind its stream, or when entries after
// its cursor were trimmed (controller/API.md, `skipped`): the Live page must say so, since its
// charts then hold a hole, and a reconnect must not ask again for what was skipped.
import { flushPromises, mount } from '@vue/test-utils'
import { expect, it, vi } from 'vitest'
import LiveView from '../../src/views/LiveView.vue'
import type { FakeSocket } from './fakeSocket'
import { liveViewWithEmptyHistory } from './liveViewSetup'

const sockets: FakeSocket[] = []

liveViewWithEmptyHistory(sockets)

const skipped = (stream: string, entries: number | null) => ({
  data: JSON.stringify({ type: 'skipped', stream, from: '1000-0', to: '61000-49', entries }),
})

it('says how many entries the feed skipped to keep up', async () => {
  const w = mount(LiveView, { global: { stubs: { TimeChart: true, FrameTimeline: true } } })
  await flushPromises()
  sockets[0].onopen!()
  expect(w.find('[data-testid=skipped]').exists()).toBe(false)
  sockets[0].onmessage!(skipped('pairs', 12000))
  await flushPromises()
  expect(w.get('[data-testid=skipped]').text()).toContain('skipped 12000 pair entries to keep up')
  w.unmount()
})

it('says the feed skipped entries when it cannot tell how many', async () => {
  const w = mount(LiveView, { global: { stubs: { TimeChart: true, FrameTimeline: true } } })
  await flushPromises()
  sockets[0].onopen!()
  sockets[0].onmessage!(skipped('frames', null))
  await flushPromises()
  expect(w.get('[data-testid=skipped]').text()).toContain('skipped frame entries to keep up')
  w.unmount()
})

it('reconnects after what was skipped, not before it', async () => {
  const w = mount(LiveView, { global: { stubs: { TimeChart: true, FrameTimeline: true } } })
  await flushPromises()
  sockets[0].onopen!()
  sockets[0].onmessage!(skipped('pairs', 12000))
  sockets[0].onclose!({ code: 1006 })
  await vi.advanceTimersByTimeAsync(5000)
  expect(sockets).toHaveLength(2)
  expect(new URL(sockets[1].url).searchParams.get('pairs_after')).toBe('61000-49')
  w.unmount()
})
