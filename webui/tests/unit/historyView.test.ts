import { flushPromises, mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { AuditEntry, VersionInfo } from '../../src/api/types'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import HistoryView from '../../src/views/HistoryView.vue'
import { json } from './responses'

// 250 versions of appliance lab (v250 newest) and 230 audit entries (id `${n}-0`, newest first).
const version = (n: number): VersionInfo => ({ version: n, appliance_id: 'lab', author: 'op', created_at: '2025-01-01T00:00:00Z', comment: `c${n}`, parent: n > 1 ? n - 1 : null })
const entry = (n: number): AuditEntry => ({ id: `${n}-0`, at: '2025-01-01T00:00:00Z', username: 'op', role: 'operator', client: '127.0.0.1', action: `act${n}`, target: 'lab', outcome: 'ok', detail: {} })

function stubApi(): string[] {
  const urls: string[] = []
  vi.stubGlobal('fetch', vi.fn(async (u: string) => {
    urls.push(u)
    const q = new URL(u, 'http://x').searchParams
    if (u.startsWith('/api/v1/versions?')) {
      const offset = Number(q.get('offset') ?? 0)
      const limit = Number(q.get('limit') ?? 50)
      const all = Array.from({ length: 250 }, (_, i) => version(250 - i))
      return json(200, { total: 250, items: all.slice(offset, offset + limit) })
    }
    const diff = u.match(/\/versions\/(\d+)\/diff/)
    if (diff) return json(200, { from_version: Number(diff[1]) - 1, to_version: Number(diff[1]), changes: [], unified: '' })
    if (u.startsWith('/api/v1/audit?')) {
      const before = q.get('before')
      const top = before ? Number(before.split('-')[0]) - 1 : 230
      const count = Number(q.get('count') ?? 100)
      return json(200, Array.from({ length: Math.max(0, Math.min(count, top)) }, (_, i) => entry(top - i)))
    }
    return json(404, {})
  }))
  return urls
}

beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
})
afterEach(() => vi.unstubAllGlobals())

describe('HistoryView', () => {
  it('pages back to versions older than the first page, and they can be diffed', async () => {
    const urls = stubApi()
    const w = mount(HistoryView)
    await flushPromises()
    const rows = () => w.findAll('[data-testid=versions] tbody th').map((t) => t.text())
    expect(rows()).toHaveLength(200)
    expect(rows()[0]).toBe('v250')
    await w.get('[data-testid=versions-older]').trigger('click')
    await flushPromises()
    expect(rows()).toEqual(Array.from({ length: 50 }, (_, i) => `v${50 - i}`))
    expect(w.get('[data-testid=versions-older]').attributes('disabled')).toBeDefined()
    const v2 = w.findAll('[data-testid=versions] tbody tr').find((r) => r.get('th').text() === 'v2')!
    await v2.get('button').trigger('click')
    await flushPromises()
    expect(urls).toContain('/api/v1/versions/2/diff')
    expect(w.text()).toContain('Version 2 against version 1')
    await w.get('[data-testid=versions-newer]').trigger('click')
    await flushPromises()
    expect(rows()[0]).toBe('v250')
  })

  it('pages the audit log back with before = the last id shown, and forward again', async () => {
    const urls = stubApi()
    const w = mount(HistoryView)
    await flushPromises()
    const actions = () => w.findAll('[data-testid=audit] tbody tr').map((r) => r.findAll('td')[2].text())
    expect(actions()).toHaveLength(200)
    expect(actions()[199]).toBe('act31')
    await w.get('[data-testid=audit-older]').trigger('click')
    await flushPromises()
    expect(urls.at(-1)).toBe('/api/v1/audit?count=200&before=31-0')
    expect(actions()).toEqual(Array.from({ length: 30 }, (_, i) => `act${30 - i}`))
    await w.get('[data-testid=audit-newer]').trigger('click')
    await flushPromises()
    expect(actions()[0]).toBe('act230')
  })

  it('says so when the audit log has no entries to show', async () => {
    vi.stubGlobal('fetch', vi.fn(async (u: string) =>
      u.startsWith('/api/v1/versions?') ? json(200, { total: 0, items: [] }) : json(200, [])))
    const w = mount(HistoryView)
    await flushPromises()
    const rows = w.findAll('[data-testid=audit] tbody tr')
    expect(rows).toHaveLength(1)
    expect(rows[0].text()).toBe('No audit entries.')
    expect(rows[0].get('td').attributes('colspan')).toBe('7')
  })

  it('shows the page asked for last when an earlier page is answered after it', async () => {
    const pending: { offset: number; answer: (r: Response) => void }[] = []
    vi.stubGlobal('fetch', vi.fn((u: string) => {
      if (!u.startsWith('/api/v1/versions?')) return Promise.resolve(json(200, []))
      const offset = Number(new URL(u, 'http://x').searchParams.get('offset'))
      return new Promise<Response>((answer) => pending.push({ offset, answer }))
    }))
    // 1000 versions, v1000 newest: a page of 200 from `offset`.
    const page = (offset: number) => json(200, { total: 1000, items: Array.from({ length: 200 }, (_, i) => version(1000 - offset - i)) })
    const w = mount(HistoryView)
    await flushPromises()
    pending[0].answer(page(0))
    await flushPromises()
    await w.get('[data-testid=versions-older]').trigger('click') // page 2 (offset 200)
    await w.get('[data-testid=versions-older]').trigger('click') // page 3 (offset 400), before page 2 is answered
    const [second, third] = pending.slice(1)
    third.answer(page(third.offset))
    await flushPromises()
    second.answer(page(second.offset))
    await flushPromises()
    expect(w.text()).toContain('showing 401–600')
    expect(w.findAll('[data-testid=versions] tbody th')[0].text()).toBe('v600')
  })
})
