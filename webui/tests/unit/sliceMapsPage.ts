// The slice-map editor mounted on its route (its leave guard needs one), its first load answered.
import type { VueWrapper } from '@vue/test-utils'
import SliceMapsView from '../../src/views/SliceMapsView.vue'
import { mountOnRoute } from './pageOnRoute'

export const mountSliceMapsPage = (): Promise<VueWrapper> => mountOnRoute(SliceMapsView, '/slice-maps')
