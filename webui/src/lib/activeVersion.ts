// What a status's `active` says to an operator: 0 is no stored version but the
// dataplane's --config file (an operator's SIGHUP, or no version applied yet).
export function activeVersion(active: number | null | undefined): string {
  if (active === 0) return '0 (its --config file)'
  return active == null ? '–' : String(active)
}
