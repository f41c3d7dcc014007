// A rollback the controller made, then a reload it cannot answer (503, its store gone meanwhile): the
// slice-map page keeps the editor and says what was rolled back, with why the result could not be shown.
import { flushPromises } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import { json, oneStaTopology } from './responses'
import { mountSliceMapsPage } from './sliceMapsPage'

const down = 'store unavailable: Connection refused'
const status = { id: 'lab', head: 4, desired: 4, active: 4, pending: false, rejected: null, alive: true, heartbeat: null, heartbeat_age_s: null, last_frame: null, fabric: null }

beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
  let rolledBack = false
  vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
    if (init.method === 'POST' && u.startsWith('/api/v1/versions/3/rollback')) {
      rolledBack = true
      return json(200, { appliance_id: 'lab', version: 5, previous: 4, acknowledged: true, ack_ms: 3, status: { ...status, head: 5, desired: 5, active: 5 } })
    }
    if (rolledBack) return json(503, { status: 503, detail: down, field: 'redis', errors: [] })
    if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: 4, topology: oneStaTopology() })
    if (u.startsWith('/api/v1/slice-maps?')) return json(200, { appliance_id: 'lab', version: 4, frame_ms: 20, slice_map: { slices: [{ duration_ms: 20, pairs: ['ap1/sta1'] }] } })
    if (u.startsWith('/api/v1/appliances/lab')) return json(200, status)
    if (u.startsWith('/api/v1/versions?')) {
      const items = [4, 3, 2, 1].map((n) => ({ version: n, appliance_id: 'lab', author: 'op', created_at: '', comment: '', parent: n > 1 ? n - 1 : null }))
      return json(200, { total: 4, items })
    }
    return json(404, {})
  }))
})
afterEach(() => vi.unstubAllGlobals())

describe('a rollback made, then a reload answered 503', () => {
  it('keeps the slice-map editor and says what was rolled back, beside why it could not be reloaded', async () => {
    const w = await mountSliceMapsPage()
    await w.get('#rollback').setValue('3')
    await w.findAll('button').find((b) => b.text() === 'Roll back')!.trigger('click')
    await flushPromises()
    expect(w.get('[data-testid=notice]').text()).toContain('Rolled back: version 5 (a copy of 3) applied and acknowledged')
    expect(w.get('[data-testid=server-error]').text()).toContain(down)
    expect(w.findAll('button').some((b) => b.text() === 'Save as new version')).toBe(true)
    // the status the rollback answered with, though the reload could not bring it
    expect(w.get('[data-testid=active-version]').text()).toBe('5')
  })
})
