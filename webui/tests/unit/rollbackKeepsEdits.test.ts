// A rollback waits up to 2 s for the dataplane's answer while the slice-map editor stays editable: what
// the user changes meanwhile is kept, re-applied on the rolled-back version, as after a save.
import { flushPromises } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { hasUnsavedEdits } from '../../src/lib/unsavedEdits'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import { json, oneStaTopology } from './responses'
import { mountSliceMapsPage } from './sliceMapsPage'

const status = { id: 'lab', head: 4, desired: 4, active: 4, pending: false, rejected: null, alive: true, heartbeat: null, heartbeat_age_s: null, last_frame: null, fabric: null }

let answerRollback: () => void = () => {}
beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
  let head = 4
  vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
    if (init.method === 'POST' && u.startsWith('/api/v1/versions/3/rollback')) {
      await new Promise<void>((done) => (answerRollback = done))
      head = 5 // version 3's map (one slice of 10 ms and one of 40 ms) copied as version 5
      return json(200, { appliance_id: 'lab', version: 5, previous: 4, acknowledged: true, ack_ms: 3, status: { ...status, head: 5, desired: 5, active: 5 } })
    }
    if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: head, topology: oneStaTopology() })
    if (u.startsWith('/api/v1/slice-maps?')) {
      const slices = head === 4 ? [{ duration_ms: 20, pairs: ['ap1/sta1'] }] : [{ duration_ms: 10, pairs: ['ap1/sta1'] }, { duration_ms: 40, pairs: ['ap1/sta1'] }]
      return json(200, { appliance_id: 'lab', version: head, frame_ms: 50, slice_map: { slices } })
    }
    if (u.startsWith('/api/v1/appliances/lab')) return json(200, { ...status, head, desired: head, active: head })
    if (u.startsWith('/api/v1/versions?')) {
      const items = [4, 3, 2, 1].map((n) => ({ version: n, appliance_id: 'lab', author: 'op', created_at: '', comment: '', parent: n > 1 ? n - 1 : null }))
      return json(200, { total: 4, items })
    }
    return json(404, {})
  }))
})
afterEach(() => vi.unstubAllGlobals())

describe('a rollback on its way', () => {
  it('keeps a slice added while it waits, re-applied on the rolled-back version as an unsaved edit', async () => {
    const w = await mountSliceMapsPage()
    await w.get('#rollback').setValue('3')
    await w.findAll('button').find((b) => b.text() === 'Roll back')!.trigger('click')
    await flushPromises()
    await w.findAll('button').find((b) => b.text() === 'Add slice')!.trigger('click') // typed while the rollback waits
    answerRollback()
    await flushPromises()
    expect(w.get('[data-testid=base-version]').text()).toBe('5')
    expect(w.findAll('input[type=number]').map((i) => (i.element as HTMLInputElement).value)).toEqual(['10', '20', '40']) // the new slice after the one it followed
    expect(hasUnsavedEdits()).toBe(true)
    expect(w.get('[data-testid=notice]').text()).toContain('Rolled back: version 5 (a copy of 3)')
    w.unmount()
  })
})
