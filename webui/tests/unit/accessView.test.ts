import { flushPromises, mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useSession } from '../../src/stores/session'
import AccessView from '../../src/views/AccessView.vue'
import { json } from './responses'

beforeEach(() => setActivePinia(createPinia()))
afterEach(() => vi.unstubAllGlobals())

/** A controller with no tokens that answers a token creation with adw_x_y; returns the bodies the page POSTed. */
function stubTokenController(): unknown[] {
  const posts: unknown[] = []
  vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
    if (u.endsWith('/auth/tokens') && init.method === 'POST') {
      posts.push(JSON.parse(String(init.body)))
      return json(201, { token: 'adw_x_y', info: { id: 'x', name: 'ansible', username: 'op', role: 'operator', created_at: '', expires_at: null } })
    }
    return json(200, [])
  }))
  return posts
}

describe('AccessView', () => {
  it('creates a token that expires: the days field (a number input) is sent as expires_in_s', async () => {
    const posts = stubTokenController()
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

  it('does not create a token that never expires when the days field holds no number (past the double range, or input the browser could not read)', async () => {
    const posts = stubTokenController()
    useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
    const w = mount(AccessView)
    await flushPromises()
    await w.get('#tok-name').setValue('ansible')
    const days = w.get('#tok-days')
    const create = async () => {
      await w.get('form[aria-label="New API token"]').trigger('submit')
      await flushPromises()
    }
    await days.setValue('1e400')
    await create()
    // A browser gives a number input's value as '' when what was typed is no number ('1,5' in
    // an English locale), and says so in validity.badInput.
    await days.setValue('')
    Object.defineProperty(days.element, 'validity', { value: { badInput: true, valid: false } })
    await create()
    expect(posts).toEqual([])
    expect(w.find('[data-testid=token-secret]').exists()).toBe(false)
    expect(days.element.parentElement!.querySelector('.field-errors')?.textContent).toContain('not a number of days')
  })

  it('shows a refused token revoke (404 naming token_id, no input of the form) in the token section', async () => {
    vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
      if (init.method === 'DELETE') return json(404, { status: 404, detail: "no token 'x' of yours", field: 'token_id', errors: [] })
      if (u.endsWith('/auth/tokens'))
        return json(200, [{ id: 'x', name: 'ansible', username: 'op', role: 'operator', created_at: '2025-01-01T00:00:00Z', expires_at: null }])
      return json(200, [])
    }))
    useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
    const w = mount(AccessView)
    await flushPromises()
    await w.get('[aria-label="Revoke token ansible"]').trigger('click')
    await flushPromises()
    expect(w.get('[data-testid=token-error]').text()).toContain("no token 'x' of yours")
    expect(w.text()).not.toContain('revoked')
  })

  it('shows a refused new user (403 naming header.X-CSRF-Token) in the form\'s general error line', async () => {
    vi.stubGlobal('fetch', vi.fn(async (_u: string, init: RequestInit) => {
      if (init.method === 'POST') return json(403, { status: 403, detail: 'missing CSRF token', field: 'header.X-CSRF-Token', errors: [] })
      return json(200, [])
    }))
    useSession().adopt({ username: 'op', role: 'admin', via: 'session', csrf_token: 'c' })
    const w = mount(AccessView)
    await flushPromises()
    await w.get('#user-name').setValue('bob')
    await w.get('#user-password').setValue('0123456789ab')
    await w.get('form[aria-label="New user"]').trigger('submit')
    await flushPromises()
    expect(w.get('[data-testid=user-error]').text()).toBe('missing CSRF token')
  })

  it('shows a new-user refusal naming one of its fields beside it, and a lost connection in the general line', async () => {
    let down = false
    vi.stubGlobal('fetch', vi.fn(async (_u: string, init: RequestInit) => {
      if (init.method === 'POST') {
        if (down) throw new TypeError('Failed to fetch')
        return json(409, { status: 409, detail: "user 'bob' exists", field: 'username', errors: [] })
      }
      return json(200, [])
    }))
    useSession().adopt({ username: 'op', role: 'admin', via: 'session', csrf_token: 'c' })
    const w = mount(AccessView)
    await flushPromises()
    await w.get('#user-name').setValue('bob')
    await w.get('#user-password').setValue('0123456789ab')
    const form = w.get('form[aria-label="New user"]')
    await form.trigger('submit')
    await flushPromises()
    expect(form.get('.field-errors').text()).toBe("user 'bob' exists")
    expect(w.find('[data-testid=user-error]').exists()).toBe(false)
    down = true
    await form.trigger('submit')
    await flushPromises()
    expect(form.find('.field-errors').exists()).toBe(false)
    expect(w.get('[data-testid=user-error]').text()).toContain('cannot reach the controller (Failed to fetch)')
  })

  /** The Access view of an admin, with root the only admin and every PATCH refused 409 with `detail`. */
  async function mountWithLastAdminRefused(detail: string) {
    vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
      if (init.method === 'PATCH') return json(409, { status: 409, detail, field: 'username', errors: [] })
      if (u.endsWith('/auth/users')) return json(200, [{ username: 'root', role: 'admin', created_at: '', disabled: false }])
      return json(200, [])
    }))
    useSession().adopt({ username: 'other', role: 'admin', via: 'session', csrf_token: 'c' })
    const w = mount(AccessView)
    await flushPromises()
    return w
  }

  it('shows the stored state in the disabled checkbox after a refused change (409 last admin)', async () => {
    const w = await mountWithLastAdminRefused('this is the last active admin')
    const box = w.get('[data-user=root] input[type=checkbox]')
    await box.setValue(true)
    await flushPromises()
    expect(w.get('[data-testid=user-row-error]').text()).toContain('last active admin')
    expect((box.element as HTMLInputElement).checked).toBe(false)
  })

  it('says which user a refused change was for (the refusal names field username, its message maybe not the user)', async () => {
    vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
      if (init.method === 'PATCH') return json(409, { status: 409, detail: 'this is the last active admin', field: 'username', errors: [] })
      if (u.endsWith('/auth/users')) return json(200, ['root', 'ops'].map((username) => ({ username, role: 'admin', created_at: '', disabled: false })))
      return json(200, [])
    }))
    useSession().adopt({ username: 'other', role: 'admin', via: 'session', csrf_token: 'c' })
    const w = mount(AccessView)
    await flushPromises()
    await w.get('[data-user=ops] select').setValue('viewer')
    await flushPromises()
    const line = w.get('[data-testid=user-row-error]')
    expect(line.text()).toBe('Refused for ops (409): this is the last active admin')
    // the refused row's controls point at it, the other row's do not
    expect(w.get('[data-user=ops] select').attributes('aria-describedby')).toBe(line.attributes('id'))
    expect(w.get('[data-user=root] select').attributes('aria-describedby')).toBeUndefined()
  })

  it("names each user's disabled checkbox after its user, as the role selector beside it is", async () => {
    const w = await mountWithLastAdminRefused('unused')
    const box = w.get('[data-user=root] input[type=checkbox]')
    // Its accessible name: aria-label, else the text of the label around it.
    const name = box.attributes('aria-label') ?? box.element.closest('label')!.textContent!.trim()
    expect(name).toContain('root')
    expect(name).toContain('disabled') // the words the label shows, for voice control
  })

  it('shows the stored role in the role selector after a refused change (409 last admin), with the refusal', async () => {
    const w = await mountWithLastAdminRefused("'root' is the last active admin")
    const select = w.get('[data-user=root] select')
    await select.setValue('viewer')
    await flushPromises()
    expect(w.get('[data-testid=user-row-error]').text()).toBe("Refused for root (409): 'root' is the last active admin")
    expect((select.element as HTMLSelectElement).value).toBe('admin')
  })

  it('takes an admin who gave themself a lower role at their word: the shell and the page show the new role, no users', async () => {
    let role = 'admin'
    vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
      if (u.endsWith('/auth/users/root') && init.method === 'PATCH') {
        role = JSON.parse(String(init.body)).role
        return json(200, { username: 'root', role, created_at: '2025-01-01T00:00:00Z', disabled: false })
      }
      if (u.endsWith('/auth/me')) return json(200, { username: 'root', role, via: 'session', csrf_token: 'c' })
      if (u.endsWith('/auth/users')) {
        if (role !== 'admin') return json(403, { status: 403, detail: 'this needs the admin role', field: 'role', errors: [] })
        return json(200, [{ username: 'root', role, created_at: '2025-01-01T00:00:00Z', disabled: false },
          { username: 'other', role: 'admin', created_at: '2025-01-01T00:00:00Z', disabled: false }])
      }
      return json(200, [])
    }))
    const session = useSession()
    session.adopt({ username: 'root', role: 'admin', via: 'session', csrf_token: 'c' })
    const w = mount(AccessView)
    await flushPromises()
    await w.get('[data-user=root] select').setValue('operator')
    await flushPromises()
    expect(session.me?.role).toBe('operator')
    expect(w.find('[data-testid=users]').exists()).toBe(false)
    expect(w.text()).toContain('you can edit, apply and roll back configurations.')
    expect(w.find('[role=alert]').exists()).toBe(false) // no 403 from reading the users as an admin no more
  })
  it('does not bring a revoked token back when the reload after the first revoke answers after the second one', async () => {
    const tok = (id: string) => ({ id, name: id, username: 'op', role: 'operator', created_at: '', expires_at: null })
    let live = [tok('a'), tok('b')]
    const gets: (() => void)[] = []
    vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
      if (init.method === 'DELETE') {
        live = live.filter((t) => !u.endsWith(`/${t.id}`))
        return new Response(null, { status: 204 })
      }
      const answer = json(200, live.map((t) => ({ ...t })))
      if (gets.length === 0 && live.length === 2) { gets.push(() => {}); return answer } // the page's first load
      return new Promise<Response>((resolve) => gets.push(() => resolve(answer)))     // held until released
    }))
    useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
    const w = mount(AccessView)
    await flushPromises()
    await w.get('[aria-label="Revoke token a"]').trigger('click')
    await flushPromises()
    await w.get('[aria-label="Revoke token b"]').trigger('click')
    await flushPromises()
    gets[2]() // the reload after revoking b: no token left
    await flushPromises()
    gets[1]() // the reload after revoking a, answered last: b still listed then
    await flushPromises()
    expect(w.findAll('[aria-label^="Revoke token"]').length).toBe(0)
  })
  it('sends one revoke for a token clicked twice while its revoke is on its way, and calls it revoked, not refused', async () => {
    const deletes: string[] = []
    let release = () => {}
    vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
      if (init.method === 'DELETE') {
        deletes.push(u)
        if (deletes.length > 1) return json(404, { status: 404, detail: "no token 'x' of yours", field: 'token_id', errors: [] })
        return new Promise<Response>((resolve) => (release = () => resolve(new Response(null, { status: 204 }))))
      }
      if (u.endsWith('/auth/tokens') && !deletes.length)
        return json(200, [{ id: 'x', name: 'ansible', username: 'op', role: 'operator', created_at: '2025-01-01T00:00:00Z', expires_at: null }])
      return json(200, [])
    }))
    useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
    const w = mount(AccessView)
    await flushPromises()
    const button = w.get('[aria-label="Revoke token ansible"]')
    await button.trigger('click')
    await button.trigger('click')
    release()
    await flushPromises()
    expect(deletes).toHaveLength(1)
    expect(w.find('[data-testid=token-error]').exists()).toBe(false)
    expect(w.text()).toContain('Token ansible revoked.')
  })
})
