import { flushPromises, mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { AggregationStatus, ApplianceStatus } from '../../src/api/types'
import AppliancesView from '../../src/views/AppliancesView.vue'
import { useAppliances } from '../../src/stores/appliances'
import { json } from './responses'

const lab: ApplianceStatus = {
  id: 'lab', head: 2, desired: 2, active: 2, pending: false, rejected: null, alive: true,
  heartbeat: { ts_ns: null, pid: 7, version: 2, backend: 'dpdk' }, heartbeat_age_s: 0.1, last_frame: null,
  fabric: { mode: 'steered', reason: 'dataplane healthy (pid 7)', since_ns: null, version: 2, switches: 1, dp_pid: 7, bridge: 'br0', ts_ns: null },
}
const loops = (ts: number): AggregationStatus => ({
  appliance_id: 'lab', version: 2, enabled: true, ts, delta_s: 0.5, classifier: null,
  aps: { ap1: { k: ts, nu: 8, c_hat_us: 300, c_check_us: null, t_bar_ms: 5, n_bar: 64, held: false, pairs: {
    'ap1/sta1': { state: 'tracking', phy_rate_mbps: 390, rate_source: 'telemetry', mu_n: 7.5, frames_in_slot: 20, n_target: 8,
      z: 1, x_pps: 1000, pace_bps: 12e6, bottleneck: 'wlan', p_backhaul: 0.1, loss: 0 } } } },
})


beforeEach(() => {
  setActivePinia(createPinia())
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

describe('AppliancesView', () => {
  it('shows the empty state while the aggregation status is 404, then the loops once the runner writes them', async () => {
    let agg: AggregationStatus | null = null
    vi.stubGlobal('fetch', vi.fn(async (u: string) => {
      if (u.endsWith('/appliances')) return json(200, [lab])
      if (u.endsWith('/appliances/lab/aggregation'))
        return agg ? json(200, agg) : json(404, { status: 404, detail: 'no aggregation-target loop has run', field: 'aggregation' })
      return json(404, {})
    }))
    const w = mount(AppliancesView)
    await flushPromises()
    expect(w.get('[data-testid=fabric-mode]').text()).toContain('steered')
    expect(w.find('[data-testid=aggregation-empty]').exists()).toBe(true)
    agg = loops(10)
    await vi.advanceTimersByTimeAsync(2000) // the next poll
    expect(w.find('[data-testid=aggregation-empty]').exists()).toBe(false)
    expect(w.get('[data-testid="aggregation-pair-ap1/sta1"] [data-testid=n-target]').text()).toBe('8.0')
    // The runner stops rewriting the status: after 10 s without a change it is flagged stale.
    await vi.advanceTimersByTimeAsync(12000)
    expect(w.get('[data-testid=aggregation-age]').text()).toContain('Stale')
    agg = loops(11)
    await vi.advanceTimersByTimeAsync(2000)
    expect(w.get('[data-testid=aggregation-age]').text()).not.toContain('Stale')
    w.unmount()
  })

  it('separates the dataplane badge from the heartbeat beside it by a space', async () => {
    vi.stubGlobal('fetch', vi.fn(async (u: string) => (u.endsWith('/appliances') ? json(200, [lab]) : json(404, {}))))
    const w = mount(AppliancesView)
    await flushPromises()
    const cell = w.get('[data-testid=dataplane]').element.textContent!.replace(/\s+/g, ' ').trim()
    expect(cell).toBe('up dpdk pid 7, heartbeat 0.1 s old')
    w.unmount()
  })

  it('does not date a status it has only read once: a runner that stopped before the page opened is not shown fresh', async () => {
    // The status's ts is the runner's monotonic clock: the first one read says nothing about when it was written.
    vi.stubGlobal('fetch', vi.fn(async (u: string) => {
      if (u.endsWith('/appliances')) return json(200, [lab])
      if (u.endsWith('/appliances/lab/aggregation')) return json(200, loops(10))
      return json(404, {})
    }))
    const w = mount(AppliancesView)
    await flushPromises()
    expect(w.get('[data-testid=aggregation-age]').text()).toBe('Not yet seen updating.')
    await vi.advanceTimersByTimeAsync(12000)
    expect(w.get('[data-testid=aggregation-age]').text()).toBe('Stale: not updated in the 12 s this page has watched it.')
    w.unmount()
  })

  it('calls a desired version the dataplane refused refused, not pending, and pending again once it is applied again', async () => {
    // The status reports a refusal only while it answers the latest apply (apply_seq): after a re-apply it is null
    // until the dataplane answers, and the version is pending meanwhile.
    let status: ApplianceStatus = { ...lab, head: 3, desired: 3, pending: true,
      rejected: { version: 3, error: 'topology.stas[0].mac: not a MAC address', apply_seq: 4 } }
    vi.stubGlobal('fetch', vi.fn(async (u: string) => (u.endsWith('/appliances') ? json(200, [status]) : json(404, {}))))
    const w = mount(AppliancesView)
    await flushPromises()
    const state = () => w.get('[data-testid=appliance-lab] [data-testid=state]').text()
    expect(state()).toBe('refused: v3, the dataplane runs v2')
    status = { ...status, rejected: null }
    await useAppliances().refresh() // the app's appliances poll
    await flushPromises()
    expect(state()).toBe('pending: v3 not acknowledged')
    w.unmount()
  })

  it('does not call a dataplane running its --config file in sync when no version was applied', async () => {
    // active 0 (REDIS.md): an operator's SIGHUP made the dataplane run its own file. With nothing applied
    // (desired null) the API says not pending, and any active other than null was shown 'in sync'.
    const fileOnly: ApplianceStatus = { ...lab, desired: null, active: 0, heartbeat: { ...lab.heartbeat!, version: 0 } }
    vi.stubGlobal('fetch', vi.fn(async (u: string) => (u.endsWith('/appliances') ? json(200, [fileOnly]) : json(404, {}))))
    const w = mount(AppliancesView)
    await flushPromises()
    const row = w.get('[data-testid=appliance-lab]').text()
    expect(row).not.toContain('in sync')
    expect(row).toContain('never applied')
    w.unmount()
  })

  it('says a dataplane running its --config file over an applied version runs the file, not that the version is unacknowledged', async () => {
    // active 0 with desired 2: the operator's SIGHUP replaced version 2; it only runs again when applied again (REDIS.md).
    const overridden: ApplianceStatus = { ...lab, active: 0, pending: true, heartbeat: { ...lab.heartbeat!, version: 0 } }
    vi.stubGlobal('fetch', vi.fn(async (u: string) => (u.endsWith('/appliances') ? json(200, [overridden]) : json(404, {}))))
    const w = mount(AppliancesView)
    await flushPromises()
    expect(w.get('[data-testid=appliance-lab] [data-testid=active]').text()).toBe('0 (its --config file)')
    const row = w.get('[data-testid=appliance-lab]').text()
    expect(row).toContain("replaced by the dataplane's --config file")
    expect(row).not.toContain('not acknowledged')
    w.unmount()
  })

  it('calls a version refused while the dataplane runs its --config file refused, not replaced by the file', async () => {
    // After a SIGHUP (active 0) the operator applied v3 and the dataplane refused it: applying it again would not help.
    const status: ApplianceStatus = { ...lab, head: 3, desired: 3, active: 0, pending: true, heartbeat: { ...lab.heartbeat!, version: 0 },
      rejected: { version: 3, error: 'topology.stas[0].mac: not a MAC address', apply_seq: 5 } }
    vi.stubGlobal('fetch', vi.fn(async (u: string) => (u.endsWith('/appliances') ? json(200, [status]) : json(404, {}))))
    const w = mount(AppliancesView)
    await flushPromises()
    expect(w.get('[data-testid=appliance-lab] [data-testid=state]').text()).toBe('refused: v3, the dataplane runs its --config file')
    w.unmount()
  })

  it('keeps the last status and says so when the aggregation status cannot be read', async () => {
    let fail = false
    vi.stubGlobal('fetch', vi.fn(async (u: string) => {
      if (u.endsWith('/appliances')) return json(200, [lab])
      return fail ? json(500, { detail: 'redis down' }) : json(200, loops(3))
    }))
    const w = mount(AppliancesView)
    await flushPromises()
    fail = true
    await vi.advanceTimersByTimeAsync(2000)
    expect(w.get('[data-testid=aggregation] [role=alert]').text()).toContain('redis down')
    expect(w.find('[data-testid="aggregation-pair-ap1/sta1"]').exists()).toBe(true)
    w.unmount()
  })

  it('keeps the newer loop status when a slow poll is answered after the next one', async () => {
    const answers: ((r: Response) => void)[] = []
    vi.stubGlobal('fetch', vi.fn((u: string) => {
      if (u.endsWith('/appliances')) return Promise.resolve(json(200, [lab]))
      return new Promise<Response>((resolve) => answers.push(resolve))
    }))
    const w = mount(AppliancesView)
    await flushPromises()
    await vi.advanceTimersByTimeAsync(2000) // the next poll is due while the first is unanswered
    expect(answers).toHaveLength(2)
    answers[1](json(200, loops(11)))
    await flushPromises()
    answers[0](json(200, loops(10)))
    await vi.advanceTimersByTimeAsync(1000) // the page clock redraws
    expect(w.get('[data-testid=aggregation-ap-ap1] caption').text()).toContain('step 11')
    w.unmount()
  })

  it('shows the loops as soon as the first poll is answered, not at the next tick of the page clock', async () => {
    vi.stubGlobal('fetch', vi.fn(async (u: string) => json(200, u.endsWith('/appliances') ? [lab] : loops(4))))
    const w = mount(AppliancesView)
    await flushPromises()
    expect(w.find('[data-testid=aggregation-empty]').exists()).toBe(false)
    expect(w.get('[data-testid=aggregation-ap-ap1] caption').text()).toContain('step 4')
    w.unmount()
  })
})
