// The state every editing page shares: a request in flight, the API error it
// returned (kept whole, so each field can show its own messages) and a notice.
import { ref } from 'vue'
import { ApiError } from '../api/client'

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

  return { busy, error, notice, run, msgs }
}
