import { describe, expect, it } from 'vitest'
import type { AccessPoint, Station, Topology } from '../../src/api/types'
import { mergeTopologies } from '../../src/lib/topologyMerge'

const ap = (id: string): AccessPoint => ({ id, name: 'A', channel: 36, port: 'p', vlan: null })
const sta = (id: string, apId: string, mac = `02:00:00:00:00:0${id.slice(-1)}`): Station => ({ id, mac, ips: [], ap: apId })
const topo = (stas: Station[], conflicts: [string, string][] = []): Topology => ({ aps: [ap('ap1'), ap('ap2'), ap('ap3')], stas, conflicts })
const staRenames = (stas: Record<string, string>) => ({ aps: {}, stas })

describe('re-applying a STA rename on a newer version', () => {
  it('renames the STA there too: its change to the STA is kept, and a conflict it added on the STA\'s pair follows', () => {
    const base = topo([sta('sta1', 'ap1'), sta('sta2', 'ap2')])
    const mine = topo([sta('sta5', 'ap1', '02:00:00:00:00:01'), sta('sta2', 'ap2')])
    const theirs = topo([sta('sta1', 'ap1', '02:00:00:00:00:99'), sta('sta2', 'ap2')], [['ap1/sta1', 'ap2/sta2']])
    expect(mergeTopologies(base, mine, theirs, staRenames({ sta1: 'sta5' }))).toEqual({
      topology: topo([sta('sta5', 'ap1', '02:00:00:00:00:99'), sta('sta2', 'ap2')], [['ap1/sta5', 'ap2/sta2']]),
      conflicts: [],
      renames: staRenames({ sta1: 'sta5' }),
    })
  })

  it('names a rename the newer version has no STA for, or gave the new id to another STA, and keeps the user\'s STA', () => {
    const base = topo([sta('sta1', 'ap1')])
    const gone = mergeTopologies(base, topo([sta('sta5', 'ap1', '02:00:00:00:00:01')]), topo([]), staRenames({ sta1: 'sta5' }))
    expect(gone.topology.stas).toEqual([sta('sta5', 'ap1', '02:00:00:00:00:01')])
    expect(gone.conflicts).toEqual([{ what: 'STA sta1 (you renamed it sta5)', theirs: 'no STA sta1' }])
    const taken = mergeTopologies(base, topo([sta('sta5', 'ap1', '02:00:00:00:00:01')]), topo([sta('sta1', 'ap1'), sta('sta5', 'ap2')]), staRenames({ sta1: 'sta5' }))
    expect(taken.conflicts[0]).toEqual({ what: 'STA sta1 (you renamed it sta5)', theirs: 'another STA sta5' })
    expect(taken.renames).toEqual(staRenames({}))
  })
})

describe('re-applying a STA moved to another AP on a newer version', () => {
  it('names the conflicts the newer version added on the STA\'s old pair after its new AP', () => {
    const base = topo([sta('sta1', 'ap1'), sta('sta2', 'ap2')])
    const mine = topo([sta('sta1', 'ap2'), sta('sta2', 'ap2')])
    const theirs = topo([sta('sta1', 'ap1'), sta('sta2', 'ap2'), sta('sta3', 'ap3')], [['ap1/sta1', 'ap3/sta3']])
    expect(mergeTopologies(base, mine, theirs).topology).toEqual(topo([sta('sta1', 'ap2'), sta('sta2', 'ap2'), sta('sta3', 'ap3')], [['ap2/sta1', 'ap3/sta3']]))
  })

  it('keeps the user\'s AP for a STA both moved, naming the newer one, and its conflicts once, after the user\'s AP', () => {
    const base = topo([sta('sta1', 'ap1'), sta('sta2', 'ap2')], [['ap1/sta1', 'ap2/sta2']])
    const mine = topo([sta('sta1', 'ap2'), sta('sta2', 'ap2')], [['ap2/sta1', 'ap2/sta2']])
    const theirs = topo([sta('sta1', 'ap3'), sta('sta2', 'ap2')], [['ap3/sta1', 'ap2/sta2']])
    const r = mergeTopologies(base, mine, theirs)
    expect(r.topology).toEqual(mine)
    expect(r.conflicts).toEqual([{ what: 'STA sta1 ap', theirs: '"ap3"' }])
  })
})
