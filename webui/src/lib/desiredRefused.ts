// The desired version the dataplane refused: it keeps running its active one. The controller reports a refusal
// only while it answers the latest apply (API.md, apply_seq), so after an apply of it again this is false (pending)
// until the dataplane answers that apply.
import type { ApplianceStatus } from '../api/types'

export function desiredRefused(st: ApplianceStatus | null | undefined): boolean {
  return !!st && st.pending && st.rejected !== null && st.rejected.version === st.desired
}
