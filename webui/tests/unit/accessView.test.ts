import { flushPromises, mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useSession } from '../../src/stores/session'
import AccessView from '../../src/views/AccessView.vue'

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })

beforeEach(() => setActivePinia(createPinia()))
afterEach(() => vi.unstubAllGlobals())

describe('AccessView', () => {
  it('creates a token that expires: the days field (a number input) is sent as expires_in_s', async () => {
    const posts: unknown[] = []
    vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
      if (u.endsWith('/auth/tokens') && init.method === 'POST') {
        posts.push(JSON.parse(String(init.body)))
        return json(201, { token: 'adw_x_y', info: { id: 'x', name: 'ansible', username: 'op', role: 'operator', created_at: '', expires_at: null } })
      }
      return json(200, [])
    }))
    useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
    const errors: unknown[] = []
    const w = mount(AccessView, { global: { config: { errorHandler: (e) => void errors.push(e) } } })
    await flushPromises()
    await w.get('#tok-name').setValue('ansible')
    await w.get('#tok-days').setValue('30')
    await w.get('form[aria-label="New API token"]').trigger('submit')
    await flushPromises()
    expect(errors).toEqual([])
    expect(posts).toEqual([{ name: 'ansible', role: 'operator', expires_in_s: 30 * 86400 }])
    expect(w.get('[data-testid=token-secret]').text()).toContain('adw_x_y')
  })
})
