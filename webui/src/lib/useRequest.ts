// The state every editing page shares: a request in flight, the API error it
// returned (kept whole, so each field can show its own messages) and a notice.
import { ref } from 'vue'
import { ApiError, fieldWithin } from '../api/client'

export function useRequest() {
  const busy = ref(false)
  const error = ref<ApiError | null>(null)
  const notice = ref('')

  async function run<T>(fn: () => Promise<T>): Promise<T | undefined> {
    busy.value = true
    error.value = null
    notice.value = ''
    try {
      return await fn()
    } catch (e) {
      error.value = e instanceof ApiError ? e : new ApiError(0, String(e), null, [])
      return undefined
    } finally {
      busy.value = false
    }
  }

  const msgs = (field: string): string[] => error.value?.messagesFor(field) ?? []

  /** Messages that belong to none of `shown` (the fields a form shows its messages beside),
   *  for a general error line: a refusal naming another field (a path, a header) or none. */
  const otherMsgs = (...shown: string[]): string[] => {
    const e = error.value
    if (!e) return []
    const all = e.errors.length ? e.errors : [{ field: e.field ?? '', message: e.message, type: '' }]
    return all.filter((x) => !shown.some((f) => fieldWithin(x.field, f))).map((x) => x.message)
  }

  return { busy, error, notice, run, msgs, otherMsgs }
}
