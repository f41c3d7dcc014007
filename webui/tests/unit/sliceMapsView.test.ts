import { flushPromises } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ApplianceStatus, Topology, VersionInfo } from '../../src/api/types'
import { hasUnsavedEdits } from '../../src/lib/unsavedEdits'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import { json, oneStaTopology } from './responses'
import { mountSliceMapsPage } from './sliceMapsPage'

const topology: Topology = oneStaTopology()
const status: ApplianceStatus = {
  id: 'lab', head: 150, desired: 150, active: 150, pending: false, rejected: null, alive: true,
  heartbeat: { ts_ns: null, pid: 7, version: 150, backend: 'dpdk' }, heartbeat_age_s: 0.1, last_frame: null,
  fabric: { mode: 'steered', reason: '', since_ns: null, version: 150, switches: 1, dp_pid: 7, bridge: 'br0', ts_ns: null },
}
const version = (n: number): VersionInfo => ({ version: n, appliance_id: 'lab', author: 'op', created_at: '', comment: '', parent: n > 1 ? n - 1 : null })

// 150 versions (v150 newest), served a page at a time; every POST and every GET recorded. With `refusal`
// the dataplane refuses what is applied (not acknowledged within wait_ms, `rejected` set).
function stubApi(st: ApplianceStatus = status, refusal?: string): { posts: string[]; gets: string[] } {
  const posts: string[] = []
  const gets: string[] = []
  vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
    if (init.method !== 'POST') gets.push(u)
    const q = new URL(u, 'http://x').searchParams
    if (init.method === 'POST') {
      posts.push(u.split('?')[0])
      const n = u.includes('/apply') ? Number(u.split('/')[4]) : 151 // a rollback stores a copy as 151
      if (refusal) return json(200, { appliance_id: 'lab', version: n, previous: st.desired, acknowledged: false, ack_ms: null,
        status: { ...st, desired: n, pending: true, rejected: { version: n, error: refusal } } })
      return json(200, { appliance_id: 'lab', version: n, previous: st.desired, acknowledged: true, ack_ms: 3, status: { ...st, desired: n, active: n } })
    }
    if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: 150, topology })
    if (u.startsWith('/api/v1/slice-maps?')) return json(200, { appliance_id: 'lab', version: 150, frame_ms: 20, slice_map: { slices: [{ duration_ms: 20, pairs: ['ap1/sta1'] }] } })
    if (u === '/api/v1/appliances/lab') return json(200, st)
    if (u.startsWith('/api/v1/versions?')) {
      const offset = Number(q.get('offset') ?? 0)
      const limit = Number(q.get('limit') ?? 50)
      const all = Array.from({ length: 150 }, (_, i) => version(150 - i))
      return json(200, { total: 150, items: all.slice(offset, offset + limit) })
    }
    if (u.startsWith('/api/v1/versions/0/') || u.includes('against=0')) return json(404, { status: 404, detail: 'version 0 does not exist', field: 'against' })
    return json(404, {})
  }))
  return { posts, gets }
}

beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
})
afterEach(() => vi.unstubAllGlobals())

describe('SliceMapsView', () => {
  it('pages the rollback choices back to versions older than the first page and rolls back to one', async () => {
    const { posts } = stubApi()
    const w = await mountSliceMapsPage()
    const choices = () => w.findAll('#rollback option').map((o) => o.attributes('value')).filter((v) => v !== undefined && v !== 'null' && v !== '')
    expect(choices()).toHaveLength(100)
    await w.get('[data-testid=versions-older]').trigger('click')
    await flushPromises()
    expect(choices()).toEqual(Array.from({ length: 50 }, (_, i) => String(50 - i)))
    await w.get('#rollback').setValue('3')
    await w.findAll('button').find((b) => b.text() === 'Roll back')!.trigger('click')
    await flushPromises()
    expect(posts).toEqual(['/api/v1/versions/3/rollback'])
    await w.get('[data-testid=versions-newer]').trigger('click')
    await flushPromises()
    expect(choices()[0]).toBe('150')
  })

  it('says the dataplane runs its --config file instead of asking for a diff against version 0', async () => {
    // active 0 (REDIS.md): an operator's SIGHUP made the dataplane run its own file; there is no version 0, and
    // "Diff against active" asked for one and showed the controller's 404 as a refusal.
    const { gets } = stubApi({ ...status, active: 0, pending: true, heartbeat: { ...status.heartbeat!, version: 0 } })
    const w = await mountSliceMapsPage()
    await w.findAll('button').find((b) => b.text() === 'Diff against active')!.trigger('click')
    await flushPromises()
    expect(gets.filter((u) => u.includes('/diff'))).toEqual([])
    expect(w.find('[data-testid=server-error]').exists()).toBe(false)
    expect(w.get('[data-testid=notice]').text()).toContain('--config file')
  })

  it('keeps the unsaved edits of the map when the loaded version is applied', async () => {
    stubApi({ ...status, desired: 149, active: 149 }) // version 150 saved, not applied yet
    const w = await mountSliceMapsPage()
    await w.get('#dur-0').setValue('35')
    await w.get('[data-testid=apply]').trigger('click')
    await flushPromises()
    expect(w.get('[data-testid=notice]').text()).toContain('applied')
    expect((w.get('#dur-0').element as HTMLInputElement).value).toBe('35')
    expect(w.get('[data-testid=frame-ms]').text()).toBe('35 ms')
  })

  it('draws the frame being edited with the same length as the toolbar while a duration field is empty', async () => {
    stubApi()
    const w = await mountSliceMapsPage()
    const addSlice = w.findAll('button').find((b) => b.text() === 'Add slice')!
    await addSlice.trigger('click')
    await addSlice.trigger('click')
    await w.get('#dur-1').setValue('') // cleared to type a new length
    expect(w.get('[data-testid=frame-ms]').text()).toBe('40 ms')
    expect(w.get('[data-testid=frame-timeline] figcaption').text()).toBe('Frame being edited: 40 ms, 3 slices')
  })

  it('says the dataplane refused the version applied, with its reason, instead of calling it pending', async () => {
    stubApi({ ...status, desired: 149, active: 149 }, 'slice 1: port p1 is not up')
    const w = await mountSliceMapsPage()
    await w.get('[data-testid=apply]').trigger('click')
    await flushPromises()
    expect(w.text()).not.toContain('has not acknowledged it yet')
    expect(w.text()).not.toContain('pending 150')
    expect(w.get('[data-testid=refused-badge]').text()).toBe('refused 150')
    expect(w.get('[data-testid=refusal]').text()).toContain('slice 1: port p1 is not up')
    expect(w.get('[data-testid=refusal]').text()).toContain('keeps running version 149')
  })

  it('adds a pair from the keyboard as dragging it from the palette does: to that slice, keeping it in its other slices', async () => {
    stubApi()
    const w = await mountSliceMapsPage()
    const addSlice = w.findAll('button').find((b) => b.text() === 'Add slice')!
    await addSlice.trigger('click')
    await addSlice.trigger('click')
    const pairsOf = (si: number) => w.findAll(`.slice[data-slice="${si}"] .chip`).map((c) => c.attributes('data-pair'))

    const select = w.get('.slice[data-slice="1"] select')
    await select.setValue('ap1/sta1')
    expect([pairsOf(0), pairsOf(1)]).toEqual([['ap1/sta1'], ['ap1/sta1']])

    const data: Record<string, string> = {}
    const dataTransfer = { setData: (k: string, v: string) => (data[k] = v), getData: (k: string) => data[k] ?? '' }
    await w.get('.palette .chip[data-pair="ap1/sta1"]').trigger('dragstart', { dataTransfer })
    await w.get('.slice[data-slice="2"]').trigger('drop', { dataTransfer })
    expect([pairsOf(0), pairsOf(1), pairsOf(2)]).toEqual([['ap1/sta1'], ['ap1/sta1'], ['ap1/sta1']])
    expect(select.attributes('aria-label')).toBe('Add a pair to slice 2 (it stays in its other slices)')
  })

  it('asks before a roll back replaces unsaved edits of the map, and neither rolls back nor drops them when refused', async () => {
    const { posts } = stubApi()
    const confirm = vi.fn(() => false)
    vi.stubGlobal('confirm', confirm)
    const w = await mountSliceMapsPage()
    await w.get('#dur-0').setValue('35')
    await w.get('#rollback').setValue('148')
    await w.findAll('button').find((b) => b.text() === 'Roll back')!.trigger('click')
    await flushPromises()
    expect(confirm).toHaveBeenCalledTimes(1)
    expect(posts).toEqual([])
    expect((w.get('#dur-0').element as HTMLInputElement).value).toBe('35')
  })

  it('keeps an edit made while the save was on its way, as an unsaved edit on the version saved', async () => {
    let stored = { version: 150, slices: [{ duration_ms: 20, pairs: ['ap1/sta1'] }] }
    let answerPut: () => void = () => {}
    vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
      if (init.method === 'PUT') {
        const body = JSON.parse(String(init.body)) as { slice_map: { slices: typeof stored.slices } }
        await new Promise<void>((resolve) => (answerPut = resolve))
        stored = { version: 151, slices: body.slice_map.slices }
        return json(201, version(151))
      }
      if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: stored.version, topology })
      if (u.startsWith('/api/v1/slice-maps?')) return json(200, { appliance_id: 'lab', version: stored.version, frame_ms: 20, slice_map: { slices: stored.slices } })
      if (u === '/api/v1/appliances/lab') return json(200, status)
      if (u.startsWith('/api/v1/versions?')) return json(200, { total: 1, items: [version(stored.version)] })
      return json(404, {})
    }))
    const w = await mountSliceMapsPage()
    await w.get('#dur-0').setValue('25')
    await w.get('[data-testid=save]').trigger('click')
    await flushPromises()
    await w.get('#dur-0').setValue('30') // typed while the controller stores the save
    answerPut()
    await flushPromises()
    expect(w.get('[data-testid=notice]').text()).toContain('Saved as version 151')
    expect(stored.slices).toEqual([{ duration_ms: 25, pairs: ['ap1/sta1'] }])
    expect(w.get('[data-testid=base-version]').text()).toBe('151')
    expect((w.get('#dur-0').element as HTMLInputElement).value).toBe('30')
    expect(hasUnsavedEdits()).toBe(true)
  })
})
