// A refusal naming an access point's field the table has no column for (the A-MPDU ceilings a CSV or
// YAML import sets): it is shown in that AP's row, naming the field, as a station's is in its row.
import { flushPromises } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Topology } from '../../src/api/types'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import TopologyView from '../../src/views/TopologyView.vue'
import { mountOnRoute } from './pageOnRoute'
import { json } from './responses'

const topology: Topology = {
  aps: [{ id: 'ap1', name: 'A', channel: 36, port: 'p1', vlan: null }, { id: 'ap2', name: 'B', channel: 36, port: 'p2', vlan: null, ampdu_ceiling_mpdus: 70 }],
  stas: [{ id: 'sta1', mac: '02:00:00:00:00:01', ips: [], ap: 'ap1' }],
  conflicts: [],
}
const shared = "AP 'ap2' has the port and VLAN of AP 'ap1' (port 'p1', untagged); APs on one port need each its own vlan, at most one untagged"
const ceiling = 'aggregation ceiling 70 MPDUs is above policies.aggregation_target.n_max_mpdus (64), the most one A-MPDU holds'

beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
  vi.stubGlobal('fetch', vi.fn(async (_u: string, init: RequestInit) => {
    if (init.method === 'PUT') return json(422, {
      status: 422, detail: `topology.aps[1].ampdu_ceiling_mpdus: ${ceiling}`, field: 'topology.aps[1].ampdu_ceiling_mpdus',
      errors: [{ field: 'topology.aps[1].ampdu_ceiling_mpdus', message: ceiling, type: 'config_inconsistent' }, { field: 'topology.aps[1].vlan', message: shared, type: 'config_inconsistent' }],
    })
    return json(200, { appliance_id: 'lab', version: 4, topology })
  }))
})
afterEach(() => vi.unstubAllGlobals())

describe('a refused AP field without a column', () => {
  it("is shown in its AP's row, naming the field, and a column's refusal only beside its field", async () => {
    const w = await mountOnRoute(TopologyView, '/topology')
    await w.findAll('button').find((b) => b.text() === 'Save topology')!.trigger('click')
    await flushPromises()
    const rows = w.findAll('table[aria-labelledby=aps-h] tbody tr')
    expect(rows[1].text()).toContain(`ampdu_ceiling_mpdus: ${ceiling}`)
    expect(rows[0].text()).not.toContain(ceiling)
    // Each message once: a column's beside its field, not again under the table.
    expect(w.text().split(ceiling)).toHaveLength(2)
    expect(w.text().split(shared)).toHaveLength(2)
  })
})
