import { describe, expect, it } from 'vitest'
import { checkSliceMap, conflictingInSlice, conflictSet, frameMs } from '../../src/lib/sliceMap'
import type { Topology } from '../../src/api/types'

const lab: Topology = {
  aps: [
    { id: 'ap1', name: 'AP1', channel: 36, port: 'ap1', vlan: null },
    { id: 'ap2', name: 'AP2', channel: 36, port: 'ap2', vlan: null },
  ],
  stas: [
    { id: 'sta1', mac: '02:ad:00:00:01:01', ips: ['198.18.0.11'], ap: 'ap1' },
    { id: 'sta2', mac: '02:ad:00:00:02:01', ips: ['198.18.0.12'], ap: 'ap2' },
  ],
  conflicts: [['ap1/sta1', 'ap2/sta2']],
}

describe('slice map checks', () => {
  it('accepts the lab map that alternates the conflicting pairs', () => {
    const map = { slices: [{ duration_ms: 20, pairs: ['ap1/sta1'] }, { duration_ms: 20, pairs: ['ap2/sta2'] }] }
    expect(checkSliceMap(map, lab)).toEqual([])
    expect(frameMs(map)).toBe(40)
  })

  it('flags conflicting pairs put in one slice on the second pair field', () => {
    const map = { slices: [{ duration_ms: 20, pairs: ['ap1/sta1', 'ap2/sta2'] }] }
    const problems = checkSliceMap(map, lab)
    expect(problems).toEqual([
      { field: 'slice_map.slices[0].pairs[1]', message: 'pair ap2/sta2 conflicts with ap1/sta1 in the same slice' },
    ])
    expect([...conflictingInSlice(map.slices[0].pairs, conflictSet(lab))].sort()).toEqual(['ap1/sta1', 'ap2/sta2'])
  })

  it('reports a managed pair missing from every slice and a bad duration', () => {
    const map = { slices: [{ duration_ms: 0, pairs: ['ap1/sta1'] }] }
    const fields = checkSliceMap(map, lab).map((p) => p.field)
    expect(fields).toContain('slice_map.slices[0].duration_ms')
    expect(fields).toContain('slice_map')
  })

  it('refuses a pair whose STA is not associated with that AP', () => {
    const map = { slices: [{ duration_ms: 20, pairs: ['ap2/sta1', 'ap1/sta1'] }, { duration_ms: 20, pairs: ['ap2/sta2'] }] }
    expect(checkSliceMap(map, lab)[0].field).toBe('slice_map.slices[0].pairs[0]')
  })
})
