// A stand-in for the browser's WebSocket in the live store's tests: each socket the store
// opens is pushed onto `sockets`, and the test drives it by calling its handlers.
import { vi } from 'vitest'

export interface FakeSocket {
  url: string
  closed: boolean
  onopen: (() => void) | null
  onmessage: ((ev: { data: string }) => void) | null
  onclose: ((ev: { code: number; reason?: string }) => void) | null
  close(): void
}

/** Replaces the global WebSocket (undo with vi.unstubAllGlobals) and empties `sockets`. */
export function stubSockets(sockets: FakeSocket[]): void {
  sockets.length = 0
  vi.stubGlobal('WebSocket', class {
    url: string
    closed = false
    onopen = null
    onmessage = null
    onclose = null
    constructor(url: string) {
      this.url = url
      sockets.push(this as unknown as FakeSocket)
    }
    close() {
      this.closed = true
    }
  })
}
