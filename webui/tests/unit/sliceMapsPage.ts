// The slice-map editor mounted on its route (its leave guard needs one), its first load answered.
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils'
import { defineComponent, h } from 'vue'
import { createMemoryHistory, createRouter, RouterView } from 'vue-router'
import SliceMapsView from '../../src/views/SliceMapsView.vue'

export async function mountSliceMapsPage(): Promise<VueWrapper> {
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/slice-maps', component: SliceMapsView }] })
  await router.push('/slice-maps')
  const w = mount(defineComponent({ render: () => h(RouterView) }), { global: { plugins: [router] } })
  await flushPromises()
  return w
}
