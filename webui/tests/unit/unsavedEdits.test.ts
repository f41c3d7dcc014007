import { flushPromises, mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { defineComponent, h, type Component } from 'vue'
import { createMemoryHistory, createRouter, RouterView } from 'vue-router'
import type { ApplianceStatus, Topology } from '../../src/api/types'
import App from '../../src/App.vue'
import { policySections } from '../../src/lib/policySchema'
import { useAppliances } from '../../src/stores/appliances'
import { routes } from '../../src/router'
import { useSession } from '../../src/stores/session'
import PoliciesView from '../../src/views/PoliciesView.vue'
import SliceMapsView from '../../src/views/SliceMapsView.vue'
import TopologyView from '../../src/views/TopologyView.vue'
import { json, oneStaTopology } from './responses'

const topology: Topology = oneStaTopology()
const status = (id: string): ApplianceStatus => ({
  id, head: 2, desired: 2, active: 2, pending: false, rejected: null, alive: true,
  heartbeat: { ts_ns: null, pid: 7, version: 2, backend: 'dpdk' }, heartbeat_age_s: 0.1, last_frame: null,
  fabric: { mode: 'steered', reason: '', since_ns: null, version: 2, switches: 1, dp_pid: 7, bridge: 'br0', ts_ns: null },
})
const policies = Object.fromEntries(policySections().map((s) => [s.key, {}]))

function stubApi(): void {
  vi.stubGlobal('fetch', vi.fn(async (u: string) => {
    if (u === '/api/v1/appliances') return json(200, [status('lab'), status('lab2')])
    if (u.startsWith('/api/v1/appliances/')) return json(200, status('lab'))
    if (u.startsWith('/api/v1/topology?')) return json(200, { appliance_id: 'lab', version: 2, topology })
    if (u.startsWith('/api/v1/slice-maps?')) return json(200, { appliance_id: 'lab', version: 2, frame_ms: 20, slice_map: { slices: [{ duration_ms: 20, pairs: ['ap1/sta1'] }] } })
    if (u.startsWith('/api/v1/policies?')) return json(200, { appliance_id: 'lab', version: 2, policies })
    if (u.startsWith('/api/v1/versions?')) return json(200, { total: 0, items: [] })
    return json(404, {})
  }))
}

const Other = defineComponent({ render: () => h('p', 'elsewhere') })

/** `root` (a page, or App) at /editor in a memory router, with /elsewhere to leave to. */
async function mountAt(editor: Component, root: Component = defineComponent({ render: () => h(RouterView) })) {
  const pages = routes.filter((r) => r.component).map((r) => ({ path: r.path, component: Other })) // App's navigation
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/editor', component: editor }, { path: '/elsewhere', component: Other }, ...pages] })
  await router.push('/editor')
  const w = mount(root, { global: { plugins: [router] } })
  await flushPromises()
  return { w, router }
}

let confirm: ReturnType<typeof vi.fn>
beforeEach(() => {
  setActivePinia(createPinia())
  useAppliances().select('lab')
  useSession().adopt({ username: 'op', role: 'operator', via: 'session', csrf_token: 'c' })
  stubApi()
  confirm = vi.fn(() => false)
  vi.stubGlobal('confirm', confirm)
})
afterEach(() => {
  useAppliances().stop()
  vi.unstubAllGlobals()
})

describe('unsaved edits', () => {
  it('asks before leaving the slice-map editor with unsaved edits, and stays when refused', async () => {
    const { w, router } = await mountAt(SliceMapsView)
    await router.push('/elsewhere') // nothing edited: no question
    expect(confirm).not.toHaveBeenCalled()
    await router.push('/editor')
    await flushPromises()
    await w.findAll('button').find((b) => b.text() === 'Add slice')!.trigger('click')
    await router.push('/elsewhere')
    expect(confirm).toHaveBeenCalledTimes(1)
    expect(router.currentRoute.value.path).toBe('/editor')
    confirm.mockReturnValue(true)
    await router.push('/elsewhere')
    expect(router.currentRoute.value.path).toBe('/elsewhere')
    w.unmount()
  })

  it('asks before the policies page is left with an edited value', async () => {
    const { w, router } = await mountAt(PoliciesView)
    await w.get('input[type=number]').setValue('3')
    await router.push('/elsewhere')
    expect(confirm).toHaveBeenCalledTimes(1)
    expect(router.currentRoute.value.path).toBe('/editor')
    w.unmount()
  })

  it('has the browser ask before the tab is closed or reloaded while the topology has unsaved edits', async () => {
    const { w } = await mountAt(TopologyView)
    const unload = () => {
      const ev = new Event('beforeunload', { cancelable: true })
      window.dispatchEvent(ev)
      return ev.defaultPrevented
    }
    expect(unload()).toBe(false)
    await w.get('[aria-label="AP 1 name"]').setValue('renamed')
    expect(unload()).toBe(true)
    w.unmount()
    expect(unload()).toBe(false)
  })

  it('asks before the appliance picker switches away from unsaved edits, and keeps the appliance when refused', async () => {
    const { w } = await mountAt(TopologyView, App)
    await w.get('[aria-label="AP 1 name"]').setValue('renamed')
    const picker = w.get('.picker select')
    await picker.setValue('lab2')
    expect(confirm).toHaveBeenCalledTimes(1)
    expect(useAppliances().selected).toBe('lab')
    expect((picker.element as HTMLSelectElement).value).toBe('lab')
    expect((w.get('[aria-label="AP 1 name"]').element as HTMLInputElement).value).toBe('renamed')
    confirm.mockReturnValue(true)
    await picker.setValue('lab2')
    expect(useAppliances().selected).toBe('lab2')
    w.unmount()
  })

  it('keeps the session when logging out is refused for unsaved edits', async () => {
    const { w, router } = await mountAt(SliceMapsView, App)
    await w.findAll('button').find((b) => b.text() === 'Add slice')!.trigger('click')
    await w.findAll('button').find((b) => b.text() === 'Log out')!.trigger('click')
    await flushPromises()
    expect(confirm).toHaveBeenCalledTimes(1)
    expect(router.currentRoute.value.path).toBe('/editor')
    expect(useSession().me).not.toBeNull()
    w.unmount()
  })
})
