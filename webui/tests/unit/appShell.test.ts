import { flushPromises, mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { defineComponent, h } from 'vue'
import { createMemoryHistory, createRouter } from 'vue-router'
import type { ApplianceStatus } from '../../src/api/types'
import App from '../../src/App.vue'
import { routes } from '../../src/router'
import { useAppliances } from '../../src/stores/appliances'
import { useSession } from '../../src/stores/session'
import { json } from './responses'

const lab: ApplianceStatus = {
  id: 'lab', head: 2, desired: 2, active: 2, pending: false, rejected: null, alive: true,
  heartbeat: { ts_ns: null, pid: 7, version: 2, backend: 'dpdk' }, heartbeat_age_s: 0.1, last_frame: null,
}
const Page = defineComponent({ render: () => h('p', 'a page') })

beforeEach(() => {
  setActivePinia(createPinia())
  vi.useFakeTimers()
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
})
afterEach(() => {
  useAppliances().stop()
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

describe('App shell', () => {
  it('says the status is not current while the controller answers the poll with 503 (its store down), and stops saying it once it answers', async () => {
    let down = false
    vi.stubGlobal('fetch', vi.fn(async () => (down
      ? json(503, { status: 503, detail: 'store unavailable: Connection refused', field: 'redis', errors: [] })
      : json(200, [lab]))))
    const router = createRouter({ history: createMemoryHistory(), routes: routes.map((r) => ({ path: r.path, component: Page })) })
    await router.push('/appliances')
    const w = mount(App, { global: { plugins: [router] } })
    await flushPromises()
    expect(w.find('[data-testid=offline]').exists()).toBe(false)
    down = true
    await vi.advanceTimersByTimeAsync(3000) // the next poll
    expect(w.get('[data-testid=offline]').text()).toContain('store unavailable: Connection refused')
    down = false
    await vi.advanceTimersByTimeAsync(3000)
    expect(w.find('[data-testid=offline]').exists()).toBe(false)
    w.unmount()
  })
})
