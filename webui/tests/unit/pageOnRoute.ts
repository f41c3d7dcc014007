// A page mounted as the router shows it: at its own route in a memory router (an editor's leave guard needs
// one), beside `others` it may link or navigate to, with what it loads on mounting answered.
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils'
import { defineComponent, h, type Component } from 'vue'
import { createMemoryHistory, createRouter, RouterView, type RouteRecordRaw } from 'vue-router'

export async function mountOnRoute(page: Component, path: string, others: RouteRecordRaw[] = []): Promise<VueWrapper> {
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path, component: page }, ...others] })
  await router.push(path)
  const w = mount(defineComponent({ render: () => h(RouterView) }), { global: { plugins: [router] } })
  await flushPromises()
  return w
}
