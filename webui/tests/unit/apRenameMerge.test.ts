import { describe, expect, it } from 'vitest'
import type { AccessPoint, Station, Topology } from '../../src/api/types'
import { mergeTopologies } from '../../src/lib/topologyMerge'

const ap = (id: string, channel = 36): AccessPoint => ({ id, name: 'A', channel, port: 'p', vlan: null })
const sta = (id: string, apId: string): Station => ({ id, mac: `02:00:00:00:00:0${id.slice(-1)}`, ips: [], ap: apId })
const topo = (aps: AccessPoint[], stas: Station[], conflicts: [string, string][] = []): Topology => ({ aps, stas, conflicts })

describe('re-applying an AP rename on a newer version', () => {
  it('renames the AP there too: an STA the newer version put on it follows it, and its change to the AP is kept', () => {
    const base = topo([ap('ap1'), ap('ap2')], [sta('sta1', 'ap1')])
    const mine = topo([ap('ap9'), ap('ap2')], [sta('sta1', 'ap9')])
    const theirs = topo([ap('ap1', 40), ap('ap2')], [sta('sta1', 'ap1'), sta('sta2', 'ap1')], [['ap1/sta1', 'ap1/sta2']])
    expect(mergeTopologies(base, mine, theirs, { aps: { ap1: 'ap9' }, stas: {} })).toEqual({
      topology: topo([ap('ap9', 40), ap('ap2')], [sta('sta1', 'ap9'), sta('sta2', 'ap9')], [['ap9/sta1', 'ap9/sta2']]),
      conflicts: [],
      renames: { aps: { ap1: 'ap9' }, stas: {} },
    })
  })

  it('takes a swap of two ids as one rename of both, whichever the newer version changed', () => {
    const base = topo([ap('ap1'), ap('ap2')], [sta('sta1', 'ap1')])
    const mine = topo([ap('ap2'), ap('ap1')], [sta('sta1', 'ap2')])
    const theirs = topo([ap('ap1', 40), ap('ap2')], [sta('sta1', 'ap1')])
    const r = mergeTopologies(base, mine, theirs, { aps: { ap1: 'ap2', ap2: 'ap1' }, stas: {} })
    expect(r.topology).toEqual(topo([ap('ap2', 40), ap('ap1')], [sta('sta1', 'ap2')]))
    expect(r.conflicts).toEqual([])
  })

  it('names a rename the newer version has no AP for, and keeps the user\'s AP', () => {
    const base = topo([ap('ap1'), ap('ap2')], [])
    const r = mergeTopologies(base, topo([ap('ap9'), ap('ap2')], []), topo([ap('ap2')], []), { aps: { ap1: 'ap9' }, stas: {} })
    expect(r.topology.aps).toEqual([ap('ap9'), ap('ap2')])
    expect(r.conflicts).toEqual([{ what: 'AP ap1 (you renamed it ap9)', theirs: 'no AP ap1' }])
    expect(r.renames).toEqual({ aps: {}, stas: {} })
  })

  it('names a rename to an id the newer version gave another AP, and keeps the user\'s values for it', () => {
    const base = topo([ap('ap1')], [])
    const r = mergeTopologies(base, topo([ap('ap9')], []), topo([ap('ap1'), ap('ap9', 40)], []), { aps: { ap1: 'ap9' }, stas: {} })
    expect(r.topology.aps).toEqual([ap('ap9')])
    expect(r.conflicts).toEqual([{ what: 'AP ap1 (you renamed it ap9)', theirs: 'another AP ap9' }, { what: 'AP ap9 channel', theirs: '40' }])
    expect(r.renames).toEqual({ aps: {}, stas: {} })
  })
})
