// Fetch wrapper for the controller's REST API: session cookie + CSRF header on
// writes, RFC 7807 problem documents turned into ApiError (keeping the field
// names so forms can show each message beside its field), and network failures
// reported as status 0 so the UI can show a lost connection.
import type { FieldError, Problem } from './types'

export class ApiError extends Error {
  readonly status: number
  readonly field: string | null
  readonly errors: FieldError[]

  constructor(status: number, detail: string, field: string | null, errors: FieldError[]) {
    super(detail)
    this.status = status
    this.field = field
    this.errors = errors
  }

  /** Messages for a field path and everything below it ("slice_map.slices[1]" matches "slice_map.slices[1].pairs[0]"). */
  messagesFor(prefix: string): string[] {
    const all = this.errors.length ? this.errors : this.field ? [{ field: this.field, message: this.message, type: '' }] : []
    return all.filter((e) => fieldWithin(e.field, prefix)).map((e) => e.message)
  }
}

/** True when `field` is `prefix` or lies below it (`a.b`, `a[0]`). */
export function fieldWithin(field: string, prefix: string): boolean {
  return field === prefix || field.startsWith(prefix + '.') || field.startsWith(prefix + '[')
}

let csrfToken: string | null = null

export function setCsrfToken(token: string | null): void {
  csrfToken = token
}

let onUnauthorized: (() => void) | null = null

/** Called on every 401 but the login's own: the session or token is gone (API.md:
 *  send the user to the login page). The session store installs it. */
export function setUnauthorizedHandler(fn: (() => void) | null): void {
  onUnauthorized = fn
}

let onRoleRefused: (() => void) | null = null

/** Called on every 403 naming `role` (API.md): the user's role is lower than the page was shown for,
 *  e.g. an admin made them a viewer meanwhile. The session store installs it, to read the role again. */
export function setRoleRefusedHandler(fn: (() => void) | null): void {
  onRoleRefused = fn
}

export type Query = Record<string, string | number | undefined>

function url(path: string, query?: Query): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') q.set(k, String(v))
  const qs = q.toString()
  return `/api/v1${path}${qs ? '?' + qs : ''}`
}

export async function request<T>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken
  let res: Response
  try {
    res = await fetch(url(path, query), {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch (e) {
    throw new ApiError(0, `cannot reach the controller (${(e as Error).message})`, null, [])
  }
  if (res.status === 204) return undefined as T
  const text = await res.text()
  let data: unknown = null
  try {
    data = text ? JSON.parse(text) : null
  } catch {
    data = null
  }
  if (!res.ok) {
    if (res.status === 401 && path !== '/auth/login') onUnauthorized?.()
    const p = (data ?? {}) as Partial<Problem>
    if (res.status === 403 && p.field === 'role') onRoleRefused?.()
    throw new ApiError(res.status, p.detail || `${res.status} ${res.statusText}`, p.field ?? null, p.errors ?? [])
  }
  return data as T
}

export const api = {
  get: <T>(path: string, query?: Query) => request<T>('GET', path, undefined, query),
  post: <T>(path: string, body?: unknown, query?: Query) => request<T>('POST', path, body, query),
  put: <T>(path: string, body?: unknown, query?: Query) => request<T>('PUT', path, body, query),
  patch: <T>(path: string, body?: unknown, query?: Query) => request<T>('PATCH', path, body, query),
  delete: <T = void>(path: string, query?: Query) => request<T>('DELETE', path, undefined, query),
}
