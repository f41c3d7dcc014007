// Unsaved edits in an editor page (slice maps, topology, policies): the user is
// asked before they are lost, when the route changes, when the tab is closed or
// reloaded (beforeunload) and when the appliance picker switches (App.vue asks
// confirmDiscard(), since the page is remounted without a route change).
import { onBeforeUnmount, onMounted } from 'vue'
import { onBeforeRouteLeave } from 'vue-router'

export const DISCARD_QUESTION = 'This page has unsaved edits. Leave it and lose them?'

const editors = new Set<() => boolean>()

/** True when an editor page shown has edits not saved as a version. */
export function hasUnsavedEdits(): boolean {
  return [...editors].some((dirty) => dirty())
}

/** True when nothing unsaved would be lost, or the user agrees to lose it. */
export function confirmDiscard(): boolean {
  return !hasUnsavedEdits() || window.confirm(DISCARD_QUESTION)
}

function beforeUnload(ev: BeforeUnloadEvent): void {
  if (!hasUnsavedEdits()) return
  ev.preventDefault()
  ev.returnValue = '' // older browsers ask only when returnValue is set
}

/** Register an editor page; `dirty` says whether it holds unsaved edits. */
export function useUnsavedEdits(dirty: () => boolean): void {
  onMounted(() => {
    if (!editors.size) window.addEventListener('beforeunload', beforeUnload)
    editors.add(dirty)
  })
  onBeforeUnmount(() => {
    editors.delete(dirty)
    if (!editors.size) window.removeEventListener('beforeunload', beforeUnload)
  })
  onBeforeRouteLeave(() => !dirty() || window.confirm(DISCARD_QUESTION))
}
