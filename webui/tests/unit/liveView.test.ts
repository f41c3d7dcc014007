import { flushPromises, mount } from '@vue/test-utils'
import { describe, expect, it, vi } from 'vitest'
import type { ApplianceStatus, PairEntry } from '../../src/api/types'
import { WINDOW_S } from '../../src/stores/live'
import LiveView from '../../src/views/LiveView.vue'
import type { FakeSocket } from './fakeSocket'
import { liveViewWithEmptyHistory } from './liveViewSetup'

const status: ApplianceStatus = {
  id: 'lab', head: 3, desired: 3, active: 3, pending: false, rejected: null, alive: true,
  heartbeat: { ts_ns: null, pid: 7, version: 3, backend: 'dpdk' }, heartbeat_age_s: 0.1, last_frame: null,
  fabric: { mode: 'steered', reason: '', since_ns: null, version: 3, switches: 1, dp_pid: 7, bridge: 'br0', ts_ns: null },
}
const sockets: FakeSocket[] = []

liveViewWithEmptyHistory(sockets)

const statusMessage = (s: ApplianceStatus) => ({ data: JSON.stringify({ type: 'status', status: s }) })

describe('LiveView', () => {
  it('does not show the dataplane as up while its feed reconnects, only once a fresh status arrives', async () => {
    const w = mount(LiveView, { global: { stubs: { TimeChart: true, FrameTimeline: true } } })
    await flushPromises()
    sockets[0].onopen!()
    sockets[0].onmessage!(statusMessage(status))
    await flushPromises()
    expect(w.get('[data-testid=dataplane]').text()).toBe('dataplane up')

    sockets[0].onclose!({ code: 1006 }) // the controller went away
    await flushPromises()
    expect(w.get('[data-testid=feed-state]').text()).toContain('retrying')
    expect(w.get('[data-testid=dataplane]').text()).not.toContain('up')
    expect(w.get('[data-testid=dataplane]').text()).toContain('stale')

    await vi.advanceTimersByTimeAsync(5000) // the back-off ends: history, then a new socket
    expect(sockets).toHaveLength(2)
    sockets[1].onopen!()
    await flushPromises()
    expect(w.get('[data-testid=dataplane]').text()).toContain('stale') // open, but nothing fresh yet
    sockets[1].onmessage!(statusMessage({ ...status, alive: false }))
    await flushPromises()
    expect(w.get('[data-testid=dataplane]').text()).toBe('dataplane down')
    w.unmount()
  })

  it('says the dataplane runs its --config file when the active version is 0, not version 0', async () => {
    const w = mount(LiveView, { global: { stubs: { TimeChart: true, FrameTimeline: true } } })
    await flushPromises()
    sockets[0].onopen!()
    sockets[0].onmessage!(statusMessage({ ...status, active: 0 }))
    await flushPromises()
    expect(w.get('[data-testid=active-version]').text()).toBe('active version 0 (its --config file)')
    w.unmount()
  })

  it('marks the active and pending versions stale while the feed reconnects, as the dataplane badge', async () => {
    const w = mount(LiveView, { global: { stubs: { TimeChart: true, FrameTimeline: true } } })
    await flushPromises()
    sockets[0].onopen!()
    sockets[0].onmessage!(statusMessage({ ...status, desired: 4, pending: true }))
    await flushPromises()
    expect(w.get('[data-testid=active-version]').text()).toBe('active version 3')
    expect(w.get('[data-testid=pending]').text()).toBe('pending 4')

    sockets[0].onclose!({ code: 1006 })
    await flushPromises()
    // the last versions seen, which say nothing of what runs now
    expect(w.get('[data-testid=active-version]').text()).toContain('stale')
    expect(w.get('[data-testid=pending]').text()).toContain('stale')

    await vi.advanceTimersByTimeAsync(5000)
    sockets[1].onopen!()
    await flushPromises()
    expect(w.get('[data-testid=active-version]').text()).toContain('stale') // open, but nothing fresh yet
    sockets[1].onmessage!(statusMessage({ ...status, active: 4, desired: 5, pending: true }))
    await flushPromises()
    expect(w.get('[data-testid=active-version]').text()).toBe('active version 4')
    expect(w.get('[data-testid=pending]').text()).toBe('pending 5')
    w.unmount()
  })

  it('takes a pair that stopped reporting a whole window ago off the table and the charts', async () => {
    const w = mount(LiveView, { global: { stubs: { TimeChart: true, FrameTimeline: true } } })
    await flushPromises()
    const t0 = 1_700_000_000_000
    const pair = (ms: number, name: string): PairEntry => ({
      id: `${ms}-0`, ts_ns: ms * 1e6, frame: ms, pair: name, mode: 'sliced', s_ms: 20, r_pkts: 40, v_ms: 18,
      released_pkts: 40, released_bytes: 60000, queue_pkts: 3, limit_pkts: 256, drops_tail: 0, drops_other: 0,
      tput_mbps: 30, reassigned: 0,
    })
    const telemetry = (pairs: PairEntry[]) => ({ data: JSON.stringify({ type: 'telemetry', frames: [], pairs }) })
    sockets[0].onmessage!(telemetry([pair(t0, 'ap1/sta1'), pair(t0, 'ap2/sta2')]))
    await flushPromises()
    expect(w.findAll('[data-testid=pair-table] tbody tr[data-pair]').map((r) => r.attributes('data-pair'))).toEqual(['ap1/sta1', 'ap2/sta2'])
    // ap2/sta2 is taken out of the configuration: from then on only ap1/sta1 reports.
    for (let s = 10; s <= WINDOW_S + 10; s += 10) sockets[0].onmessage!(telemetry([pair(t0 + s * 1000, 'ap1/sta1')]))
    await flushPromises()
    expect(w.findAll('[data-testid=pair-table] tbody tr[data-pair]').map((r) => r.attributes('data-pair'))).toEqual(['ap1/sta1'])
    expect(w.findAll('h3').map((h) => h.text())).toEqual(['ap1/sta1'])
    w.unmount()
  })

  // The version badges follow the status's `rejected` (API.md): a refusal of the desired version shows as refused,
  // not pending; applied again, it is pending until the dataplane answers that apply (the status drops the old
  // refusal), and refused again once the dataplane refuses it.
  it('shows a refused version as refused, applied again as pending, and refused again once the dataplane answers', async () => {
    const refusal = (seq: number) => ({ version: 4, error: 'topology.aps[0].port: not the port in use', apply_seq: seq })
    const w = mount(LiveView, { global: { stubs: { TimeChart: true, FrameTimeline: true } } })
    await flushPromises()
    sockets[0].onopen!()
    const send = async (s: ApplianceStatus) => {
      sockets[0].onmessage!(statusMessage(s))
      await flushPromises()
    }

    await send({ ...status, head: 4, desired: 4, pending: true, rejected: refusal(1) })
    expect(w.find('[data-testid=pending]').exists()).toBe(false)
    expect(w.get('[data-testid=refused]').text()).toContain('refused 4')

    await send({ ...status, head: 4, desired: 4, pending: true, rejected: null }) // applied again: not answered yet
    expect(w.find('[data-testid=refused]').exists()).toBe(false)
    expect(w.get('[data-testid=pending]').text()).toBe('pending 4')

    await send({ ...status, head: 4, desired: 4, pending: true, rejected: refusal(2) })
    expect(w.find('[data-testid=pending]').exists()).toBe(false)
    expect(w.get('[data-testid=refused]').text()).toContain('refused 4')
    w.unmount()
  })
})
