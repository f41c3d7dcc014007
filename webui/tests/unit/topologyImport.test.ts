import { describe, expect, it } from 'vitest'
import { ImportError, parseCsvTopology, parseTopologyFile, parseYamlTopology } from '../../src/lib/topologyImport'

const csv = `kind,id,name,channel,port,vlan,mac,ips,ap,a,b
ap,ap1,AP1 (lab),36,ap1,,,,,,
ap,ap2,AP2 (lab),36,ap2,12,,,,,
sta,sta1,,,,,02:ad:00:00:01:01,198.18.0.11 198.18.0.21,ap1,,
sta,sta2,,,,,02:ad:00:00:02:01,198.18.0.12,ap2,,
conflict,,,,,,,,,ap1/sta1,ap2/sta2
`

describe('topology import', () => {
  it('reads APs, STAs and conflicts from CSV rows by kind', () => {
    const t = parseCsvTopology(csv)
    expect(t.aps).toEqual([
      { id: 'ap1', name: 'AP1 (lab)', channel: 36, port: 'ap1', vlan: null },
      { id: 'ap2', name: 'AP2 (lab)', channel: 36, port: 'ap2', vlan: 12 },
    ])
    expect(t.stas[0]).toEqual({ id: 'sta1', mac: '02:ad:00:00:01:01', ips: ['198.18.0.11', '198.18.0.21'], ap: 'ap1' })
    expect(t.conflicts).toEqual([['ap1/sta1', 'ap2/sta2']])
  })

  it('names the line and column of a bad CSV row and keeps nothing', () => {
    const bad = 'kind,id,channel,port\nap,ap1,thirty-six,ap1\nrouter,r1,,\n'
    expect(() => parseCsvTopology(bad)).toThrow(ImportError)
    try {
      parseCsvTopology(bad)
    } catch (e) {
      expect((e as ImportError).problems).toEqual([
        'CSV line 2: channel "thirty-six" is not a whole number',
        'CSV line 3: kind "router" is not ap, sta or conflict',
      ])
    }
  })

  it('takes the topology of a whole YAML configuration document', () => {
    const yaml = `schema_version: 1
appliance_id: lab
topology:
  aps: [{id: ap1, channel: 36, port: ap1}]
  stas: [{id: sta1, mac: "02:ad:00:00:01:01", ips: ["198.18.0.11"], ap: ap1}]
slice_map: {slices: [{duration_ms: 20, pairs: [ap1/sta1]}]}
`
    const t = parseTopologyFile('lab.yaml', yaml)
    expect(t.aps[0]).toEqual({ id: 'ap1', name: '', channel: 36, port: 'ap1', vlan: null })
    expect(t.conflicts).toEqual([])
  })

  it('refuses YAML without a list of APs', () => {
    expect(() => parseYamlTopology('stas: []')).toThrow('topology.aps: missing or not a list')
  })

  it('detects CSV by its header when the file name does not say', () => {
    expect(parseTopologyFile('upload', csv).aps).toHaveLength(2)
  })

  it('keeps the fields the import does not show (AP A-MPDU ceilings, STA PHY rate) from YAML', () => {
    const t = parseYamlTopology(`topology:
  aps: [{id: ap1, name: A, channel: 36, port: p1, vlan: null, ampdu_ceiling_mpdus: 40, ampdu_ceiling_us: 3000}]
  stas: [{id: sta1, mac: "02:00:00:00:00:01", ips: [], ap: ap1, phy_rate_mbps: 390}]
  conflicts: []
`)
    expect(t.aps).toEqual([{ id: 'ap1', name: 'A', channel: 36, port: 'p1', vlan: null, ampdu_ceiling_mpdus: 40, ampdu_ceiling_us: 3000 }])
    expect(t.stas).toEqual([{ id: 'sta1', mac: '02:00:00:00:00:01', ips: [], ap: 'ap1', phy_rate_mbps: 390 }])
  })

  it('reads the AP A-MPDU ceilings and the STA PHY rate from CSV columns, an empty cell leaving them unset', () => {
    const t = parseCsvTopology(`kind,id,name,channel,port,vlan,ampdu_ceiling_mpdus,ampdu_ceiling_us,mac,ips,ap,phy_rate_mbps,a,b
ap,ap1,A,36,p1,,40,3000,,,,,,
ap,ap2,B,36,p2,,,,,,,,,
sta,sta1,,,,,,,02:00:00:00:00:01,,ap1,390.5,,
sta,sta2,,,,,,,02:00:00:00:00:02,,ap2,,,
`)
    expect(t.aps).toStrictEqual([
      { id: 'ap1', name: 'A', channel: 36, port: 'p1', vlan: null, ampdu_ceiling_mpdus: 40, ampdu_ceiling_us: 3000 },
      { id: 'ap2', name: 'B', channel: 36, port: 'p2', vlan: null },
    ])
    expect(t.stas).toStrictEqual([
      { id: 'sta1', mac: '02:00:00:00:00:01', ips: [], ap: 'ap1', phy_rate_mbps: 390.5 },
      { id: 'sta2', mac: '02:00:00:00:00:02', ips: [], ap: 'ap2' },
    ])
  })

  it('names the line and column of a CSV ceiling or PHY rate that is no number or out of the controller\'s range', () => {
    const bad = `kind,id,channel,port,ampdu_ceiling_mpdus,ampdu_ceiling_us,mac,ap,phy_rate_mbps
ap,ap1,36,p1,forty,50,,,
ap,ap2,36,p2,257,0x10,,,
sta,sta1,,,,,02:00:00:00:00:01,ap1,0
sta,sta2,,,,,02:00:00:00:00:02,ap1,10001
`
    expect(() => parseCsvTopology(bad)).toThrow(ImportError)
    try {
      parseCsvTopology(bad)
    } catch (e) {
      expect((e as ImportError).problems).toEqual([
        'CSV line 2: ampdu_ceiling_mpdus "forty" is not a number',
        'CSV line 2: ampdu_ceiling_us "50" must be at least 100',
        'CSV line 3: ampdu_ceiling_mpdus "257" must be at most 256',
        'CSV line 3: ampdu_ceiling_us "0x10" is not a number',
        'CSV line 4: phy_rate_mbps "0" must be at least 1',
        'CSV line 5: phy_rate_mbps "10001" must be at most 10000',
      ])
    }
  })

  it('refuses a CSV channel or VLAN in hex or binary rather than reading it as another number', () => {
    const bad = 'kind,id,channel,port,vlan\nap,ap1,0x24,p1,0x10\nap,ap2,36,p2,0b1\n'
    expect(() => parseCsvTopology(bad)).toThrow(ImportError)
    try {
      parseCsvTopology(bad)
    } catch (e) {
      expect((e as ImportError).problems).toEqual([
        'CSV line 2: channel "0x24" is not a whole number',
        'CSV line 2: vlan "0x10" is not a whole number',
        'CSV line 3: vlan "0b1" is not a whole number',
      ])
    }
  })

  it('keeps a YAML id, port, AP or pair written like a number (036, 0x1F, 1e3) as written, not as that number', () => {
    const t = parseYamlTopology(`aps: [{id: 036, name: 0010, channel: 36, port: 0x1F}]
stas: [{id: 1e3, mac: "02:00:00:00:00:01", ips: [10.0.0.1], ap: 036}]
conflicts: [[036/1e3, 036/1e3]]
`)
    expect(t.aps).toEqual([{ id: '036', name: '0010', channel: 36, port: '0x1F', vlan: null }])
    expect(t.stas).toEqual([{ id: '1e3', mac: '02:00:00:00:00:01', ips: ['10.0.0.1'], ap: '036' }])
  })

  it('keeps a YAML 1.1 document\'s id, name or port that 1.1 reads as a number or a boolean (036, yes, on) as written', () => {
    const t = parseYamlTopology(`%YAML 1.1
---
aps: [{id: 036, name: yes, channel: 36, port: on}]
stas: []
`)
    expect(t.aps).toEqual([{ id: '036', name: 'yes', channel: 36, port: 'on', vlan: null }])
  })

  it('names the line of a bad CSV row as the file numbers it, blank lines and a quoted line break counted', () => {
    const bad = '\r\n\r\nkind,id,name,channel,port\r\nap,ap1,"two\r\nlines",36,p1\r\n\r\nap,ap2,B,xx,p2\r\n'
    try {
      parseCsvTopology(bad)
      expect.unreachable()
    } catch (e) {
      expect((e as ImportError).problems).toEqual(['CSV line 7: channel "xx" is not a whole number'])
    }
  })

  it('refuses a CSV header naming a column twice, in any case (one of its two cells would be lost)', () => {
    expect(() => parseCsvTopology('kind,id,channel,port,vlan,VLAN\nap,ap1,36,p1,,12\n')).toThrow('CSV line 1: column "vlan" is named twice')
  })
  it('refuses a YAML channel or VLAN that is quoted, missing, or written so YAML 1.1 reads another number, naming the field', () => {
    const bad = `aps:
  - {id: ap1, channel: "36", port: p1}
  - {id: ap2, channel: 036, port: p2, vlan: 0x10}
  - {id: ap3, port: p3, vlan: "12"}
  - {id: ap4, channel: 36, port: p4, vlan: 12}
stas: []
`
    try {
      parseYamlTopology(bad)
      expect.unreachable('a quoted channel was taken as a number')
    } catch (e) {
      expect((e as ImportError).problems).toEqual([
        'topology.aps[0].channel: "36" is not a whole number written in decimal',
        'topology.aps[1].channel: 036 is not a whole number written in decimal',
        'topology.aps[1].vlan: 0x10 is not a whole number written in decimal',
        'topology.aps[2].channel: missing',
        'topology.aps[2].vlan: "12" is not a whole number written in decimal',
      ])
    }
  })
})
