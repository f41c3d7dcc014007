// The login form (login page, and the shell's re-login): every refusal is shown, beside the
// user name or password when it names one, else on the form's own error line.
import { flushPromises, mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import LoginForm from '../../src/components/LoginForm.vue'
import { json } from './responses'

beforeEach(() => setActivePinia(createPinia()))
afterEach(() => vi.unstubAllGlobals())

async function submitAnswered(answer: Response) {
  vi.stubGlobal('fetch', vi.fn(async () => answer))
  const w = mount(LoginForm)
  await w.get('#login-username').setValue('op')
  await w.get('#login-password').setValue('secret-password')
  await w.get('form').trigger('submit')
  await flushPromises()
  return w
}

it('shows a refusal that names a field the form has no input for (503 naming the store)', async () => {
  const w = await submitAnswered(json(503, { status: 503, detail: 'store unavailable: Connection refused', field: 'redis', errors: [] }))
  expect(w.text()).toContain('store unavailable: Connection refused')
  expect(w.emitted('done')).toBeUndefined()
})

it('shows a refusal naming the user name beside it, once', async () => {
  const detail = 'too many failed logins: try again in 42 s'
  const w = await submitAnswered(json(429, { status: 429, detail, field: 'username', errors: [{ field: 'username', message: detail, type: 'http_429' }] }))
  expect(w.get('.field-errors').text()).toBe(detail)
  expect(w.text().split(detail)).toHaveLength(2)
})
