// The topology editor reloads the saved version once a save is done: an edit typed while the save
// was on its way would be replaced by it without a word, so the table is locked until then.
import { flushPromises } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { json } from './responses'
import { mountPage, signIn, topology } from './topologyEditorPage'

beforeEach(signIn)
afterEach(() => vi.unstubAllGlobals())

describe('topology save', () => {
  it('locks every field, row button and the comment while the save is on its way, and unlocks them after', async () => {
    let release: (r: Response) => void = () => {}
    vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
      if (init.method === 'PUT') return new Promise<Response>((resolve) => (release = resolve))
      if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: 4, topology: topology() })
      return json(404, {})
    }))
    const w = await mountPage()
    await w.get('[aria-label="AP 2 name"]').setValue('B2')
    await w.findAll('button').find((b) => b.text() === 'Save topology')!.trigger('click')
    await flushPromises()
    const locked = () => ['[aria-label="AP 2 name"]', '[aria-label="STA 1 MAC"]', '[aria-label="Conflict 1 first pair"]',
      '[aria-label="Remove AP ap1"]', '#topo-comment', '#topo-import']
      .map((sel) => w.get(sel).attributes('disabled') !== undefined)
    expect(locked()).toEqual([true, true, true, true, true, true])
    expect(w.findAll('button').find((b) => b.text() === 'Add STA')!.attributes('disabled')).toBeDefined()
    release(json(201, { version: 5, appliance_id: 'lab', author: 'op', created_at: '', comment: '', parent: 4 }))
    await flushPromises()
    expect(locked()).toEqual([false, false, false, false, false, false])
    w.unmount()
  })
})
