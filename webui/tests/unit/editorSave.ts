// Saving on an editor page (topology, policies, slice map) mounted at /editor beside the slice-map page, where
// the notice after a save links to: the page once the save and the reload after it are answered.
import { flushPromises, type VueWrapper } from '@vue/test-utils'
import type { Component } from 'vue'
import SliceMapsView from '../../src/views/SliceMapsView.vue'
import { mountOnRoute } from './pageOnRoute'

/** `button` is the page's save button's text; a submit button submits the page's form. */
export async function saveOnEditor(page: Component, button: string): Promise<VueWrapper> {
  const w = await mountOnRoute(page, '/editor', [{ path: '/slice-maps', component: SliceMapsView }])
  const save = w.findAll('button').find((b) => b.text() === button)!
  await (save.attributes('type') === 'submit' ? w.get('form').trigger('submit') : save.trigger('click'))
  await flushPromises()
  return w
}
