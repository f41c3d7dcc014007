import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import type { AggregationStatus, FabricStatus } from '../../src/api/types'
import AggregationLoops from '../../src/components/AggregationLoops.vue'
import FabricState from '../../src/components/FabricState.vue'

// What the runner writes to adwiser:appliance:<id>:aggregation (controller/REDIS.md).
const status: AggregationStatus = {
  appliance_id: 'lab',
  version: 3,
  enabled: true,
  ts: 120.5,
  delta_s: 0.5,
  classifier: 'bottleneck-v1',
  aps: {
    ap1: {
      k: 42, nu: 12.5, c_hat_us: 310, c_check_us: 305, t_bar_ms: 5, n_bar: 64, ampdu_ceiling_us: 1450, held: false,
      pairs: {
        'ap1/sta1': {
          state: 'tracking', phy_rate_mbps: 390, rate_source: 'telemetry', mu_n: 11.8, mu_source: 'agg_est', frames_in_slot: 25,
          n_target: 12.5, z: 3000, x_pps: 8000, pace_bps: 96e6, delivered_bps: 95e6, bottleneck: 'wlan', p_backhaul: 0.08,
          loss: 0.002, agg_ratio: 0.98, n_bar: 15.8, received_pps: 7900, ap_queue_grew: false,
          ack_delay_ms: 4.31, ack_delay_floor_ms: 0.3, ack_queue_ms: 4.01,
        },
      },
    },
    ap2: {
      k: 42, nu: 1, c_hat_us: 280, c_check_us: null, t_bar_ms: 5, n_bar: 64, held: true,
      pairs: {
        'ap2/sta2': {
          state: 'held', phy_rate_mbps: 173, rate_source: 'topology', mu_n: 2.1, frames_in_slot: 10, n_target: 4,
          z: 500, x_pps: 1500, pace_bps: 18e6, delivered_bps: 18e6, received_pps: 1200, ap_queue_grew: true,
          bottleneck: 'backhaul', p_backhaul: 0.93, loss: 0.04,
        },
      },
    },
  },
}

describe('AggregationLoops', () => {
  it('shows per AP nu and c-hat, and per pair N_target, mu_N, x and the bottleneck', () => {
    const w = mount(AggregationLoops, { props: { status, advancedAgoS: 1 } })
    expect(w.find('[data-testid=aggregation-empty]').exists()).toBe(false)
    const ap1 = w.get('[data-testid=aggregation-ap-ap1]')
    expect(ap1.get('caption').text()).toContain('ĉ = 310 µs')
    expect(ap1.get('caption').text()).toContain('ν = 12.50')
    expect(ap1.attributes('tabindex')).toBe('0') // scrollable region reachable from the keyboard
    const p1 = w.get('[data-testid="aggregation-pair-ap1/sta1"]')
    expect(p1.get('[data-testid=n-target]').text()).toBe('12.5')
    expect(p1.get('[data-testid=n-bar]').text()).toBe('(N̄ 15.8)') // its own, from the AP's airtime ceiling
    expect(ap1.get('caption').text()).toContain('1450 µs A-MPDU ceiling')
    expect(w.get('[data-testid=aggregation-ap-ap2] caption').text()).toContain('N̄ = 64')
    expect(p1.get('[data-testid=mu-n]').text()).toContain('11.8')
    expect(p1.get('[data-testid=pace]').text()).toContain('96.0 Mbit/s')
    expect(p1.get('[data-testid=bottleneck]').text()).toContain('WLAN')
    const p2 = w.get('[data-testid="aggregation-pair-ap2/sta2"]')
    expect(p2.get('[data-testid=bottleneck]').text()).toContain('backhaul (rate held)')
    expect(p1.get('[data-testid=delivered]').text()).toContain('STA received 7900 MPDUs/s')
    expect(p1.get('[data-testid=ack-delay]').text()).toBe('4.31 ms (4.01 ms over the floor)')
    expect(w.get('[data-testid="aggregation-pair-ap2/sta2"] [data-testid=ack-delay]').text()).toBe('–')
    expect(p1.get('[data-testid=delivered]').text()).not.toContain('AP queue grew')
    expect(p2.get('[data-testid=delivered]').text()).toContain('AP queue grew')
    expect(w.get('[data-testid=aggregation-ap-ap2] caption').text()).toContain('held: backhaul bottleneck')
    expect(w.get('[data-testid=aggregation-age]').text()).toBe('updated 1 s ago.')
  })

  it('separates a badge from the words beside it by a space, as a screen reader reads them', () => {
    const w = mount(AggregationLoops, { props: { status, advancedAgoS: 1 } })
    const summary = w.get('[data-testid=aggregation-summary]').element.textContent!.replace(/\s+/g, ' ').trim()
    expect(summary).toMatch(/^running policy of v\d+, Δ = 0\.50 s, classifier bottleneck-v1\. updated 1 s ago\.$/)
    const caption = w.get('[data-testid=aggregation-ap-ap2] caption').element.textContent!.replace(/\s+/g, ' ')
    expect(caption).toContain('N̄ = 64 held: backhaul bottleneck')
  })

  it('separates the AP-queue-grew badge from the STA rate before it by a space', () => {
    const w = mount(AggregationLoops, { props: { status, advancedAgoS: 1 } })
    const cell = w.get('[data-testid="aggregation-pair-ap2/sta2"] [data-testid=delivered]').element.textContent!
    expect(cell.replace(/\s+/g, ' ').trim()).toBe('18.0 Mbit/s (STA received 1200 MPDUs/s) AP queue grew')
  })

  it('counts one A-MPDU of the slot as one frame, not one frames', () => {
    const one = structuredClone(status)
    one.aps.ap2.pairs['ap2/sta2'].frames_in_slot = 1
    const w = mount(AggregationLoops, { props: { status: one, advancedAgoS: 1 } })
    expect(w.get('[data-testid="aggregation-pair-ap2/sta2"] [data-testid=mu-n]').text()).toBe('2.1 (agg_est, 1 frame)')
    expect(w.get('[data-testid="aggregation-pair-ap1/sta1"] [data-testid=mu-n]').text()).toBe('11.8 (agg_est, 25 frames)')
  })

  it('says when the PHY rate a pair uses is a stale measurement, not a current one', () => {
    // rate_stale: the measured rate is older than the loop's limit; without a topology rate the loop keeps it as the last known.
    const stale = structuredClone(status)
    Object.assign(stale.aps.ap1.pairs['ap1/sta1'], { rate_stale: true, rate_age_s: 62 })
    Object.assign(stale.aps.ap2.pairs['ap2/sta2'], { rate_stale: true, rate_age_s: -3600 })
    const phyRate = (w: ReturnType<typeof mount>, pair: string) => w.get(`[data-testid="aggregation-pair-${pair}"] td:last-child`).text()
    const w = mount(AggregationLoops, { props: { status: stale, advancedAgoS: 1 } })
    expect(phyRate(w, 'ap1/sta1')).toBe('390 Mbit/s (telemetry) stale: last known (62 s old)')
    expect(phyRate(w, 'ap2/sta2')).toBe('173 Mbit/s (topology) measured rate stale (its time is ahead of the clock)')
    expect(phyRate(mount(AggregationLoops, { props: { status, advancedAgoS: 1 } }), 'ap1/sta1')).toBe('390 Mbit/s (telemetry)')
  })

  it('shows an empty state naming the runner when no loop has written a status', () => {
    const w = mount(AggregationLoops, { props: { status: null, advancedAgoS: null } })
    expect(w.get('[data-testid=aggregation-empty]').text()).toContain('aggregation-loop')
    expect(w.find('table').exists()).toBe(false)
  })

  it('says the policy is off when the loops are disabled, and flags a loop that stopped stepping', () => {
    const w = mount(AggregationLoops, { props: { status: { ...status, enabled: false, aps: {} }, advancedAgoS: 30 } })
    expect(w.get('[data-testid=aggregation-no-aps]').text()).toContain('disabled')
    expect(w.get('[data-testid=aggregation-age]').text()).toContain('Stale')
  })

  it('says the loops are paused, and why, while the dataplane runs its --config file', () => {
    const paused = 'the dataplane runs its --config file (active 0), not a controller version: no pacing until a version is applied'
    const w = mount(AggregationLoops, {
      props: { status: { ...status, version: 0, enabled: false, paused, delta_s: null, classifier: null, aps: {} }, advancedAgoS: 0 },
    })
    expect(w.get('[data-testid=aggregation-summary]').text()).toContain('paused')
    expect(w.get('[data-testid=aggregation-summary]').text()).not.toContain('v0')
    expect(w.get('[data-testid=aggregation-no-aps]').text()).toBe(`Paused: ${paused}.`)
  })
})

describe('FabricState', () => {
  const now = Date.UTC(2026, 10, 23, 12, 0, 30)
  const fabric: FabricStatus = {
    mode: 'bypass', reason: 'heartbeat stale', since_ns: Date.UTC(2026, 10, 23, 12, 0, 0) * 1e6, version: 3,
    switches: 2, dp_pid: 4242, bridge: 'br-adw', ts_ns: now * 1e6,
  }

  it('shows bypass with its reason and since when', () => {
    const w = mount(FabricState, { props: { fabric, nowMs: now } })
    expect(w.get('[data-testid=fabric-mode]').text()).toContain('bypass (fail-open)')
    expect(w.get('[data-testid=fabric-mode]').classes()).toContain('bad')
    expect(w.get('[data-testid=fabric-reason]').text()).toBe('heartbeat stale')
    expect(w.get('[data-testid=fabric-since]').text()).toBe('2026-11-23 12:00:00 UTC (30 s ago)')
  })

  it('flags the topology the flows follow as possibly stale while the dataplane runs its --config file', () => {
    const w = mount(FabricState, { props: { fabric: { ...fabric, mode: 'steered', topology_possibly_stale: true }, nowMs: now } })
    expect(w.get('[data-testid=fabric-stale]').text()).toContain('possibly stale')
    expect(w.get('[data-testid=fabric-stale]').text()).toContain('--config file')
    expect(mount(FabricState, { props: { fabric, nowMs: now } }).find('[data-testid=fabric-stale]').exists()).toBe(false)
  })

  it('names the active version the manager refused and why, beside the version the flows still follow', () => {
    const refused = { version: 5, error: 'topology.aps[1].port: port ap9 is not on bridge br-adw' }
    const w = mount(FabricState, { props: { fabric: { ...fabric, mode: 'steered', refused }, nowMs: now } })
    const text = w.get('[data-testid=fabric-refused]').text()
    expect(text).toContain('v5')
    expect(text).toContain('topology.aps[1].port: port ap9 is not on bridge br-adw')
    expect(text).toContain('v3') // what the flows keep following
    expect(mount(FabricState, { props: { fabric: { ...fabric, refused: null }, nowMs: now } }).find('[data-testid=fabric-refused]').exists()).toBe(false)
    expect(mount(FabricState, { props: { fabric, nowMs: now } }).find('[data-testid=fabric-refused]').exists()).toBe(false)
  })

  it('says the manager runs but cannot program Open vSwitch, and since when', () => {
    const ovs_error = { error: 'flow table rewrite failed: ovs-ofctl: br-adw.mgmt: failed to connect to socket', since_ns: Date.UTC(2026, 10, 23, 12, 0, 20) * 1e6 }
    const w = mount(FabricState, { props: { fabric: { ...fabric, mode: 'steered', ovs_error }, nowMs: now } })
    const text = w.get('[data-testid=fabric-ovs-error]').text()
    expect(text).toContain('cannot program Open vSwitch')
    expect(text).toContain('flow table rewrite failed: ovs-ofctl: br-adw.mgmt: failed to connect to socket')
    expect(text).toContain('2026-11-23 12:00:20 UTC (10 s ago)')
    expect(w.get('[data-testid=fabric-mode]').classes()).toContain('warn') // steered is not known to be in force
    expect(mount(FabricState, { props: { fabric: { ...fabric, ovs_error: null }, nowMs: now } }).find('[data-testid=fabric-ovs-error]').exists()).toBe(false)
    expect(mount(FabricState, { props: { fabric, nowMs: now } }).find('[data-testid=fabric-ovs-error]').exists()).toBe(false)
  })

  it('counts one mode switch as one switch, not one switches', () => {
    const one = mount(FabricState, { props: { fabric: { ...fabric, switches: 1 }, nowMs: now } }).get('[data-testid=fabric]').text()
    expect(one).toContain('· 1 mode switch')
    expect(one).not.toContain('1 mode switches')
    expect(mount(FabricState, { props: { fabric, nowMs: now } }).get('[data-testid=fabric]').text()).toContain('· 2 mode switches')
  })

  it('shows steered as healthy and an empty state without a manager', () => {
    const w = mount(FabricState, { props: { fabric: { ...fabric, mode: 'steered' }, nowMs: now } })
    expect(w.get('[data-testid=fabric-mode]').classes()).toContain('ok')
    const empty = mount(FabricState, { props: { fabric: null, nowMs: now } })
    expect(empty.get('[data-testid=fabric-empty]').text()).toContain('No fabric status')
  })
})
