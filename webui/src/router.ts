// Pages and the login guard: every page but /login needs a session; a session the
// API ends (401) sends the user to /login too, with ?next= the page they were on,
// unless that page holds unsaved edits.
import { watch } from 'vue'
import { createRouter, createWebHashHistory } from 'vue-router'
import { hasUnsavedEdits } from './lib/unsavedEdits'
import { useSession } from './stores/session'

export const routes = [
  { path: '/', redirect: '/live' },
  { path: '/login', name: 'login', component: () => import('./views/LoginView.vue'), meta: { title: 'Log in', public: true } },
  { path: '/live', name: 'live', component: () => import('./views/LiveView.vue'), meta: { title: 'Live' } },
  { path: '/slice-maps', name: 'slice-maps', component: () => import('./views/SliceMapsView.vue'), meta: { title: 'Slice maps' } },
  { path: '/topology', name: 'topology', component: () => import('./views/TopologyView.vue'), meta: { title: 'Topology' } },
  { path: '/policies', name: 'policies', component: () => import('./views/PoliciesView.vue'), meta: { title: 'Policies' } },
  { path: '/appliances', name: 'appliances', component: () => import('./views/AppliancesView.vue'), meta: { title: 'Appliances' } },
  { path: '/history', name: 'history', component: () => import('./views/HistoryView.vue'), meta: { title: 'History' } },
  { path: '/access', name: 'access', component: () => import('./views/AccessView.vue'), meta: { title: 'Access' } },
]

export function makeRouter() {
  const router = createRouter({ history: createWebHashHistory(), routes })
  router.beforeEach(async (to) => {
    const session = useSession()
    if (!session.checked) await session.restore().catch(() => null)
    if (!to.meta.public && !session.me) return { name: 'login', query: { next: to.fullPath } }
    return true
  })
  const session = useSession()
  // A page holding unsaved edits stays, with them, and the shell asks for the password in
  // place (App.vue): the login page would unmount it and lose them.
  watch(() => session.expired, (gone) => {
    const here = router.currentRoute.value
    if (gone && !here.meta.public && !hasUnsavedEdits()) void router.push({ name: 'login', query: { next: here.fullPath } })
  })
  router.afterEach((to) => {
    document.title = `${String(to.meta.title ?? '')} · ADWISER`
  })
  return router
}
