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
  aps: [{ id: 'ap1', name: 'A', channel: 36, port: 'p1', vlan: null }],
  stas: [{ id: 'sta1', mac: '02:00:00:00:00:01', ips: [], ap: 'ap1', phy_rate_mbps: -5 }],
  conflicts: [],
}

beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
})
afterEach(() => vi.unstubAllGlobals())

/** A controller holding version 4 (the topology with a valid STA) that answers a save with version 5; returns the
 *  documents the page PUT. */
function stubSavingController(): { topology: Topology }[] {
  const puts: { topology: Topology }[] = []
  vi.stubGlobal('fetch', vi.fn(async (_u: string, init: RequestInit) => {
    if (init.method === 'PUT') {
      puts.push(JSON.parse(String(init.body)))
      return json(201, { version: 5, appliance_id: 'lab', author: 'op', created_at: '', comment: '', parent: 4 })
    }
    return json(200, { appliance_id: 'lab', version: 4, topology: { ...topology, stas: [{ ...topology.stas[0], phy_rate_mbps: null }] } })
  }))
  return puts
}

const mountPage = () => mountOnRoute(TopologyView, '/topology')

describe('TopologyView', () => {
  it('shows a refusal naming a station field the table has no column for (phy_rate_mbps) in the row of that station', async () => {
    const message = 'Input should be greater than 0'
    vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
      if (init.method === 'PUT') return json(422, {
        status: 422, detail: `topology.stas[0].phy_rate_mbps: ${message}`, field: 'topology.stas[0].phy_rate_mbps',
        errors: [{ field: 'topology.stas[0].phy_rate_mbps', message, type: 'greater_than' }],
      })
      return json(200, { appliance_id: 'lab', version: 4, topology })
    }))
    const w = await mountPage()
    await w.findAll('button').find((b) => b.text() === 'Save topology')!.trigger('click')
    await flushPromises()
    expect(w.get('[data-testid=server-error]').text()).toContain('422')
    expect(w.get('table[aria-labelledby=stas-h] tbody tr').text()).toContain(`phy_rate_mbps: ${message}`)
  })

  it('does not save a mistyped VLAN as untagged: it is sent as typed, for the controller to refuse', async () => {
    const puts = stubSavingController()
    const w = await mountPage()
    const vlan = w.get('[aria-label="AP 1 VLAN (empty = untagged)"]')
    await vlan.setValue('12a')
    expect((vlan.element as HTMLInputElement).value).toBe('12a')
    await w.findAll('button').find((b) => b.text() === 'Save topology')!.trigger('click')
    await flushPromises()
    expect(puts[0].topology.aps[0].vlan).toBe('12a')
  })

  it('sends a VLAN typed in hex or binary as typed, not as the decimal number Number() reads in it', async () => {
    const puts = stubSavingController()
    const w = await mountPage()
    const vlan = w.get('[aria-label="AP 1 VLAN (empty = untagged)"]')
    const save = w.findAll('button').find((b) => b.text() === 'Save topology')!
    for (const typed of ['0x10', '0b1', '0o17', ' 20 ', '1e1']) {
      await vlan.setValue(typed)
      await save.trigger('click')
      await flushPromises()
    }
    expect(puts.map((p) => p.topology.aps[0].vlan)).toEqual(['0x10', '0b1', '0o17', 20, 10])
  })

  it("drops the controller's refusal beside a field once that field is edited, and shows it again when saved still wrong", async () => {
    const refusal = 'Input should be a valid integer, unable to parse string as an integer'
    vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
      if (init.method === 'PUT') return json(422, {
        status: 422, detail: `topology.aps[0].vlan: ${refusal}`, field: 'topology.aps[0].vlan',
        errors: [{ field: 'topology.aps[0].vlan', message: refusal, type: 'int_parsing' }],
      })
      return json(200, { appliance_id: 'lab', version: 4, topology })
    }))
    const w = await mountPage()
    const save = () => w.findAll('button').find((b) => b.text() === 'Save topology')!.trigger('click')
    const vlanCell = () => w.get('[aria-label="AP 1 VLAN (empty = untagged)"]').element.parentElement!.textContent
    const vlan = w.get('[aria-label="AP 1 VLAN (empty = untagged)"]')
    await vlan.setValue('12a')
    await save()
    await flushPromises()
    expect(vlanCell()).toContain(refusal)
    await w.get('[aria-label="AP 1 name"]').setValue('B') // another field: the VLAN's refusal still holds
    expect(vlanCell()).toContain(refusal)
    await vlan.setValue('12')
    expect(vlanCell()).not.toContain(refusal)
    expect(w.find('[data-testid=server-error]').exists()).toBe(false)
    await vlan.setValue('12b')
    await save()
    await flushPromises()
    expect(vlanCell()).toContain(refusal)
  })

  it('counts what an imported file holds in the singular for one: 1 AP, 1 conflict', async () => {
    stubSavingController()
    const w = await mountPage()
    const file: Topology = {
      aps: [{ id: 'ap1', name: 'A', channel: 36, port: 'p1', vlan: null }],
      stas: [{ id: 'sta1', mac: '02:00:00:00:00:01', ips: [], ap: 'ap1' }, { id: 'sta2', mac: '02:00:00:00:00:02', ips: [], ap: 'ap1' }],
      conflicts: [['ap1/sta1', 'ap1/sta2']],
    }
    const input = w.get('#topo-import')
    Object.defineProperty(input.element, 'files', { value: [new File([JSON.stringify(file)], 'site.json')] })
    await input.trigger('change')
    await flushPromises()
    expect(w.get('[data-testid=notice]').text()).toBe('Imported site.json: 1 AP, 2 STAs, 1 conflict. Review and save.')
  })
})
