// The notice after saving topology or policies sends the user to where a version is applied.
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Topology } from '../../src/api/types'
import { policySections } from '../../src/lib/policySchema'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import PoliciesView from '../../src/views/PoliciesView.vue'
import TopologyView from '../../src/views/TopologyView.vue'
import { saveOnEditor } from './editorSave'
import { json, oneStaTopology } from './responses'

const topology: Topology = oneStaTopology()
const policies = Object.fromEntries(policySections().map((s) => [s.key, {}]))

beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
  vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
    if (init.method === 'PUT') return json(201, { version: 5, appliance_id: 'lab', author: 'op', created_at: '', comment: '', parent: 4 })
    if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: 4, topology })
    if (u.startsWith('/api/v1/policies?')) return json(200, { appliance_id: 'lab', version: 4, policies })
    return json(404, {})
  }))
})
afterEach(() => vi.unstubAllGlobals())


describe('the notice after a save', () => {
  for (const [name, page, button] of [['policies', PoliciesView, 'Save policies'], ['topology', TopologyView, 'Save topology']] as const) {
    it(`links the ${name} page's saved version to the slice-map page, whose "Apply version" button applies it, not to Appliances`, async () => {
      const notice = (await saveOnEditor(page, button)).get('[data-testid=notice]')
      expect(notice.text()).toContain('Saved as version 5')
      expect(notice.text()).toContain('“Apply version 5”')
      expect(notice.text()).not.toContain('Appliances')
      expect(notice.get('a').attributes('href')).toBe('/slice-maps')
      expect(notice.get('a').text()).toBe('Slice maps page')
    })
  }
})
