// Changing one's own password on the Access page (PUT /auth/me/password): each refusal beside the
// field it names, the wait of a 429 said, and after the change what else it did to the account.
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useSession } from '../../src/stores/session'
import AccessView from '../../src/views/AccessView.vue'
import { json } from './responses'

const token = { id: 'x', name: 'ansible', username: 'op', role: 'operator', created_at: '2025-01-01T00:00:00Z', expires_at: null }

/** A controller answering the password change with `answer`; every PUT recorded with its headers. */
function stubController(answer: () => Response | Promise<Response>) {
  const puts: { url: string; body: unknown; headers: Record<string, string> }[] = []
  let changed = false
  vi.stubGlobal('fetch', vi.fn(async (u: string, init: RequestInit) => {
    if (init.method === 'PUT') {
      puts.push({ url: u, body: JSON.parse(String(init.body)), headers: init.headers as Record<string, string> })
      const res = await answer()
      changed = res.status === 204
      return res
    }
    if (u.endsWith('/auth/tokens')) return json(200, changed ? [] : [token]) // the change revoked the user's tokens
    return json(200, [])
  }))
  return puts
}

async function mountAndChange(current: string, next: string, again = next): Promise<VueWrapper> {
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
  const w = mount(AccessView)
  await flushPromises()
  await w.get('#pw-current').setValue(current)
  await w.get('#pw-new').setValue(next)
  await w.get('#pw-again').setValue(again)
  await w.get('form[aria-label="Change my password"]').trigger('submit')
  await flushPromises()
  return w
}

/** The messages shown beside the input `id`. */
const besides = (w: VueWrapper, id: string): string => w.get(id).element.parentElement!.querySelector('.field-errors')?.textContent ?? ''

beforeEach(() => setActivePinia(createPinia()))
afterEach(() => vi.unstubAllGlobals())

describe('changing my password', () => {
  it('sends the change with the CSRF header, says other sessions ended and tokens were revoked, and lists the tokens as they are now', async () => {
    const puts = stubController(() => new Response(null, { status: 204 }))
    const w = await mountAndChange('first password', 'second password')
    expect(puts).toHaveLength(1)
    expect(puts[0].url).toBe('/api/v1/auth/me/password')
    expect(puts[0].body).toEqual({ current_password: 'first password', new_password: 'second password' })
    expect(puts[0].headers['X-CSRF-Token']).toBe('c')
    const notice = w.get('[data-testid=password-notice]').text()
    expect(notice).toContain('Password changed')
    expect(notice).toContain('other sessions were ended')
    expect(notice).toContain('API tokens were revoked')
    expect(w.find('[aria-label="Revoke token ansible"]').exists()).toBe(false)
    for (const id of ['#pw-current', '#pw-new', '#pw-again']) expect((w.get(id).element as HTMLInputElement).value).toBe('')
  })

  it('shows a wrong current password (403 naming current_password) beside that field', async () => {
    stubController(() => json(403, { status: 403, detail: 'current password is wrong', field: 'current_password', errors: [] }))
    const w = await mountAndChange('not it at all', 'second password')
    expect(besides(w, '#pw-current')).toBe('current password is wrong')
    expect(w.get('#pw-current').attributes('aria-invalid')).toBe('true')
    expect(besides(w, '#pw-new')).toBe('')
    expect(w.find('[data-testid=password-notice]').exists()).toBe(false)
    expect(w.find('[data-testid=password-error]').exists()).toBe(false)
  })

  it('shows a new password the policy refuses (422 naming new_password) beside that field', async () => {
    const detail = 'String should have at least 10 characters'
    stubController(() => json(422, { status: 422, detail: `new_password: ${detail}`, field: 'new_password', errors: [{ field: 'new_password', message: detail, type: 'string_too_short' }] }))
    const w = await mountAndChange('first password', 'short', 'short')
    expect(besides(w, '#pw-new')).toBe(detail)
    expect(w.get('#pw-new').attributes('aria-invalid')).toBe('true')
    expect(besides(w, '#pw-current')).toBe('')
  })

  it('says how long to wait after too many wrong current passwords (429 naming current_password, Retry-After)', async () => {
    stubController(() => new Response(JSON.stringify({ status: 429, detail: 'too many wrong passwords: try again in 42 s', field: 'current_password', errors: [] }),
      { status: 429, headers: { 'Content-Type': 'application/problem+json', 'Retry-After': '42' } }))
    const w = await mountAndChange('first password', 'second password')
    expect(besides(w, '#pw-current')).toContain('try again in 42 s')
    expect(w.find('[data-testid=password-notice]').exists()).toBe(false)
  })

  it('sends nothing when the new password and its repetition differ, and says so beside the repetition', async () => {
    const puts = stubController(() => new Response(null, { status: 204 }))
    const w = await mountAndChange('first password', 'second password', 'second passwrod')
    expect(puts).toEqual([])
    expect(besides(w, '#pw-again')).toContain('not the same')
  })

  it('drops the notice of an earlier change when a later one is not sent', async () => {
    stubController(() => new Response(null, { status: 204 }))
    const w = await mountAndChange('first password', 'second password')
    expect(w.find('[data-testid=password-notice]').exists()).toBe(true)
    await w.get('#pw-current').setValue('second password')
    await w.get('#pw-new').setValue('third password')
    await w.get('#pw-again').setValue('third passwrod')
    await w.get('form[aria-label="Change my password"]').trigger('submit')
    await flushPromises()
    expect(w.find('[data-testid=password-notice]').exists()).toBe(false)
    expect(besides(w, '#pw-again')).toContain('not the same')
  })

  it('disables the submit while the change is on its way', async () => {
    let release = () => {}
    stubController(() => new Promise<Response>((resolve) => (release = () => resolve(new Response(null, { status: 204 })))))
    useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
    const w = mount(AccessView)
    await flushPromises()
    const form = w.get('form[aria-label="Change my password"]')
    await w.get('#pw-current').setValue('first password')
    await w.get('#pw-new').setValue('second password')
    await w.get('#pw-again').setValue('second password')
    await form.trigger('submit')
    expect(form.get('button[type=submit]').attributes('disabled')).toBeDefined()
    release()
    await flushPromises()
    expect(form.get('button[type=submit]').attributes('disabled')).toBeUndefined()
  })
})
