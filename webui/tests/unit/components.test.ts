import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import type { Topology } from '../../src/api/types'
import ConflictGraph from '../../src/components/ConflictGraph.vue'
import FieldErrors from '../../src/components/FieldErrors.vue'
import FrameTimeline from '../../src/components/FrameTimeline.vue'

const lab: Topology = {
  aps: [
    { id: 'ap1', name: 'AP1', channel: 36, port: 'ap1', vlan: null },
    { id: 'ap2', name: 'AP2', channel: 6, port: 'ap2', vlan: null },
  ],
  stas: [
    { id: 'sta1', mac: '02:ad:00:00:01:01', ips: ['198.18.0.11'], ap: 'ap1' },
    { id: 'sta2', mac: '02:ad:00:00:02:01', ips: ['198.18.0.12'], ap: 'ap2' },
  ],
  conflicts: [['ap1/sta1', 'ap2/sta2']],
}

describe('FrameTimeline', () => {
  it('draws slices in proportion to their durations, with their pairs and what was given away', () => {
    const w = mount(FrameTimeline, {
      props: { slices: [{ duration_ms: 30, pairs: ['ap1/sta1'], given_to: ['ap2/sta2'] }, { duration_ms: 10, pairs: ['ap2/sta2'] }] },
    })
    expect(w.find('figcaption').text()).toBe('Current frame: 40 ms, 2 slices')
    const items = w.findAll('li')
    expect(items.map((li) => (li.element as HTMLElement).style.flexGrow)).toEqual(['30', '10'])
    expect(items[0].classes()).toContain('given')
    expect(items[0].text()).toContain('given to ap2/sta2')
    expect(items[1].classes()).not.toContain('given')
  })

  it('names the pair of a slice that gave its share away, beside the pair that still sent in it', () => {
    const w = mount(FrameTimeline, {
      props: { slices: [{ duration_ms: 20, pairs: ['ap2/sta2', 'ap3/sta3'], given_to: ['ap1/sta1'], given_by: ['ap2/sta2'] }] },
    })
    expect(w.get('.to').text()).toBe('given to ap1/sta1 by ap2/sta2')
  })

  it('marks a slice the dataplane skipped (over when its loop came to it, no batch), and only that one', () => {
    const w = mount(FrameTimeline, {
      props: { slices: [{ duration_ms: 20, pairs: ['ap1/sta1'], given_to: [], skipped: false }, { duration_ms: 20, pairs: ['ap2/sta2'], given_to: [], skipped: true }] },
    })
    const items = w.findAll('li')
    expect(items[1].classes()).toContain('skipped')
    expect(items[1].get('.skip-note').text()).toBe("skipped: the dataplane's loop came late")
    expect(items[0].classes()).not.toContain('skipped')
    expect(items[0].find('.skip-note').exists()).toBe(false)
  })
})

describe('FrameTimeline of a frame with no time in it', () => {
  it('says 0 ms for a frame without slices or durations, not 1 ms', () => {
    expect(mount(FrameTimeline, { props: { slices: [] } }).get('figcaption').text()).toBe('Current frame: 0 ms, 0 slices')
    // the editor's duration field while it is emptied
    const emptied = [{ duration_ms: '' as unknown as number, pairs: ['ap1/sta1'] }]
    expect(mount(FrameTimeline, { props: { slices: emptied } }).get('figcaption').text()).toBe('Current frame: 0 ms, 1 slice')
  })
})

describe('ConflictGraph', () => {
  it('draws one node per pair and one edge per conflict, coloured by band', () => {
    const w = mount(ConflictGraph, { props: { topology: lab } })
    expect(w.findAll('g.node')).toHaveLength(2)
    expect(w.findAll('line.conflict')).toHaveLength(1)
    expect(w.findAll('circle').map((c) => c.attributes('fill'))).toEqual(['#dbe8f6', '#fde3c4'])
    expect(w.find('svg').attributes('aria-label')).toBe('Conflict graph: 2 pairs, 1 conflict')
    expect(w.find('figcaption').text()).toMatch(/^2 pairs, 1 conflict \(red lines/)
  })

  it('names conflicts that refer to pairs not in the topology', () => {
    const w = mount(ConflictGraph, { props: { topology: { ...lab, conflicts: [['ap1/sta1', 'ap9/sta9']] } } })
    expect(w.findAll('line.conflict')).toHaveLength(0)
    expect(w.find('.error').text()).toContain('ap1/sta1 – ap9/sta9')
  })
})

describe('FieldErrors', () => {
  it('lists the messages as an alert and renders nothing without messages', () => {
    expect(mount(FieldErrors, { props: { messages: [] } }).find('ul').exists()).toBe(false)
    const w = mount(FieldErrors, { props: { messages: ['must be at most 20'] } })
    expect(w.find('ul').attributes('role')).toBe('alert')
    expect(w.text()).toBe('must be at most 20')
  })
})
