// What the specs' stand-in controllers answer with: a JSON Response, and the smallest topology
// (one AP, one STA) the editors load.
import type { Topology } from '../../src/api/types'

export const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })

export const oneStaTopology = (): Topology => ({
  aps: [{ id: 'ap1', name: 'A', channel: 36, port: 'p1', vlan: null }],
  stas: [{ id: 'sta1', mac: '02:00:00:00:00:01', ips: [], ap: 'ap1' }],
  conflicts: [],
})
