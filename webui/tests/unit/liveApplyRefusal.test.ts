// The Live page's version badges follow the status's `rejected` (API.md): a refusal of the desired
// version shows as refused, not pending; applied again, it is pending until the dataplane answers
// that apply (the status drops the old refusal), and refused again once the dataplane refuses it.
import { flushPromises, mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import type { ApplianceStatus } from '../../src/api/types'
import { useAppliances } from '../../src/stores/appliances'
import LiveView from '../../src/views/LiveView.vue'
import { type FakeSocket, stubSockets } from './fakeSocket'

const running: ApplianceStatus = {
  id: 'lab', head: 4, desired: 3, active: 3, pending: false, rejected: null, alive: true,
  heartbeat: { ts_ns: null, pid: 7, version: 3, backend: 'dpdk' }, heartbeat_age_s: 0.1, last_frame: null, fabric: null,
}
const sockets: FakeSocket[] = []

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

const refusal = (seq: number) => ({ version: 4, error: 'topology.aps[0].port: not the port in use', apply_seq: seq })

it('shows a refused version as refused, applied again as pending, and refused again once the dataplane answers', async () => {
  const w = mount(LiveView, { global: { stubs: { TimeChart: true, FrameTimeline: true } } })
  await flushPromises()
  sockets[0].onopen!()
  const send = async (s: ApplianceStatus) => {
    sockets[0].onmessage!({ data: JSON.stringify({ type: 'status', status: s }) })
    await flushPromises()
  }

  await send({ ...running, desired: 4, pending: true, rejected: refusal(1) })
  expect(w.find('[data-testid=pending]').exists()).toBe(false)
  expect(w.get('[data-testid=refused]').text()).toContain('refused 4')

  await send({ ...running, desired: 4, pending: true, rejected: null }) // applied again: not answered yet
  expect(w.find('[data-testid=refused]').exists()).toBe(false)
  expect(w.get('[data-testid=pending]').text()).toBe('pending 4')

  await send({ ...running, desired: 4, pending: true, rejected: refusal(2) })
  expect(w.find('[data-testid=pending]').exists()).toBe(false)
  expect(w.get('[data-testid=refused]').text()).toContain('refused 4')
  w.unmount()
})
