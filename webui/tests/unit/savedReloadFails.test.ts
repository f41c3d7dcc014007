// A save the controller stored, then a reload it cannot answer (503, its store gone meanwhile): the
// page keeps the editor and says the version was saved, with why it could not be shown.
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { policySections } from '../../src/lib/policySchema'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import PoliciesView from '../../src/views/PoliciesView.vue'
import SliceMapsView from '../../src/views/SliceMapsView.vue'
import TopologyView from '../../src/views/TopologyView.vue'
import { saveOnEditor } from './editorSave'
import { json, oneStaTopology } from './responses'

const policies = Object.fromEntries(policySections().map((s) => [s.key, {}]))
const down = 'store unavailable: Connection refused'

beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
  let saved = false
  vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
    if (init.method === 'PUT') {
      saved = true
      return json(201, { version: 5, appliance_id: 'lab', author: 'op', created_at: '', comment: '', parent: 4 })
    }
    if (saved) return json(503, { status: 503, detail: down, field: 'redis', errors: [] })
    if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: 4, topology: oneStaTopology() })
    if (u.startsWith('/api/v1/policies?')) return json(200, { appliance_id: 'lab', version: 4, policies })
    if (u.startsWith('/api/v1/slice-maps?')) return json(200, { appliance_id: 'lab', version: 4, frame_ms: 20, slice_map: { slices: [{ duration_ms: 20, pairs: ['ap1/sta1'] }] } })
    if (u.startsWith('/api/v1/appliances/lab')) return json(200, { id: 'lab', head: 4, desired: 4, active: 4, pending: false, rejected: null, alive: true, heartbeat: null, heartbeat_age_s: null, last_frame: null, fabric: null })
    if (u.startsWith('/api/v1/versions?')) return json(200, { total: 0, items: [] })
    return json(404, {})
  }))
})
afterEach(() => vi.unstubAllGlobals())


describe('a save stored, then a reload answered 503', () => {
  for (const [name, page, button] of [['policies', PoliciesView, 'Save policies'], ['topology', TopologyView, 'Save topology'], ['slice-map', SliceMapsView, 'Save as new version']] as const) {
    it(`keeps the ${name} editor and says the version was saved, beside why it could not be reloaded`, async () => {
      const w = await saveOnEditor(page, button)
      expect(w.get('[data-testid=notice]').text()).toContain('Saved as version 5')
      expect(w.get('[data-testid=server-error]').text()).toContain(down)
      expect(w.findAll('button').some((b) => b.text() === button)).toBe(true)
    })
  }
})
