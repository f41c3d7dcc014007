// The appliance's latest version on a page that edits one part of it (topology, policies) with useRequest:
// loaded when the page opens, shown again in place of the edits once a save is stored, and whether a save
// was refused because someone saved a version since this one was loaded.
import { computed, ref, type Ref } from 'vue'
import type { ApiError } from '../api/client'
import type { Conflict } from './threeWay'

/** What the page's useRequest gives: its runner and the refusal it keeps. */
interface Request {
  run: <T>(fn: () => Promise<T>) => Promise<T | undefined>
  error: Readonly<Ref<ApiError | null>>
}

/** `fetchLatest` reads the latest version; `show` puts it on the page as the version being edited. */
export function useLatestVersion<L>(fetchLatest: () => Promise<L>, show: (l: L) => void, req: Request) {
  const loadError = ref('')
  // What the user had edited that a newer version also changed, after re-applying their edits on it.
  const reapplyConflicts = ref<Conflict[]>([])

  async function load(): Promise<void> {
    reapplyConflicts.value = []
    try {
      show(await fetchLatest())
    } catch (e) {
      loadError.value = (e as Error).message
    }
  }

  // A save refused because someone saved a version since this one was loaded (409 naming base_version).
  const stale = computed(() => req.error.value?.status === 409 && req.error.value.field === 'base_version')

  /** The version just saved, in place of the edits. A reload that fails (503) keeps the page as it is, with the
   *  error that says why, beside the notice that it was saved: load() put the error in place of the whole page. */
  async function showSaved(): Promise<void> {
    const latest = await req.run(fetchLatest)
    if (!latest) return
    reapplyConflicts.value = []
    show(latest)
  }

  return { loadError, reapplyConflicts, load, stale, showSaved }
}
