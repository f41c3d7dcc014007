// The state every editing page shares: a request in flight, the API error it
// returned (kept whole, so each field can show its own messages) and a notice.
import { computed, ref, shallowRef } from 'vue'
import { ApiError, fieldWithin } from '../api/client'
import { stillRefused } from './stillRefused'

/** `fields`, when given, returns what the page's fields hold, shaped as the request body (field
 *  paths as the API names them): a refusal's message for a field is then shown only while that
 *  field still holds the value refused. */
export function useRequest(fields?: () => unknown) {
  const busy = ref(false)
  const refusal = shallowRef<ApiError | null>(null)
  const notice = ref('')
  let sent: unknown = null // the fields as they were when the refused request went

  const error = computed(() => (refusal.value && fields ? stillRefused(refusal.value, sent, fields()) : refusal.value))

  async function run<T>(fn: () => Promise<T>): Promise<T | undefined> {
    busy.value = true
    refusal.value = null
    notice.value = ''
    sent = fields ? JSON.parse(JSON.stringify(fields() ?? null)) : null
    try {
      return await fn()
    } catch (e) {
      refusal.value = e instanceof ApiError ? e : new ApiError(0, String(e), null, [])
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
