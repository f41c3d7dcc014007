// The slice-map page's "Apply version N" applies the version it loaded. Once someone has saved a newer
// version (and applied it), applying N runs the older one in its place: the user is asked first.
import { flushPromises } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import { json, oneStaTopology } from './responses'
import { mountSliceMapsPage } from './sliceMapsPage'

const status = { id: 'lab', head: 4, desired: 4, active: 4, pending: false, rejected: null, alive: true, heartbeat: null, heartbeat_age_s: null, last_frame: null, fabric: null }
let posts: string[] = []
let confirm: ReturnType<typeof vi.fn>

beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
  posts = []
  confirm = vi.fn(() => false)
  vi.stubGlobal('confirm', confirm)
  vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
    if (init.method === 'POST') {
      posts.push(u.split('?')[0])
      return json(200, { appliance_id: 'lab', version: 3, previous: 5, acknowledged: true, ack_ms: 3, status: { ...status, head: 5 } })
    }
    if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: 3, topology: oneStaTopology() })
    if (u.startsWith('/api/v1/slice-maps?')) return json(200, { appliance_id: 'lab', version: 3, frame_ms: 20, slice_map: { slices: [{ duration_ms: 20, pairs: ['ap1/sta1'] }] } })
    if (u.startsWith('/api/v1/appliances/lab')) return json(200, { ...status, head: 3, desired: 3, active: 3 })
    if (u.startsWith('/api/v1/versions?')) return json(200, { total: 0, items: [] })
    return json(404, {})
  }))
})
afterEach(() => vi.unstubAllGlobals())

describe('applying the version loaded once a newer one exists', () => {
  it('asks first, naming the newer version, and applies nothing when the user declines', async () => {
    const w = await mountSliceMapsPage()
    // Version 3 loaded; the appliances' poll brings version 5, saved and applied by someone else since.
    useAppliances().list = [{ ...status, head: 5, desired: 5, active: 5 }]
    await flushPromises()
    await w.get('[data-testid=apply]').trigger('click')
    await flushPromises()
    expect(confirm).toHaveBeenCalledOnce()
    expect(String(confirm.mock.calls[0][0])).toContain('Version 5 has been saved')
    expect(posts).toEqual([])
    confirm.mockReturnValue(true)
    await w.get('[data-testid=apply]').trigger('click')
    await flushPromises()
    expect(posts).toEqual(['/api/v1/versions/3/apply'])
  })

  it('applies the latest version without asking', async () => {
    const w = await mountSliceMapsPage()
    useAppliances().list = [{ ...status, head: 3, desired: 2, active: 2 }]
    await flushPromises()
    await w.get('[data-testid=apply]').trigger('click')
    await flushPromises()
    expect(confirm).not.toHaveBeenCalled()
    expect(posts).toEqual(['/api/v1/versions/3/apply'])
  })
})
