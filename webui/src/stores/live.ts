// Live telemetry of one appliance: the controller's WebSocket feed
// (/api/v1/telemetry/<id>/live, entries as the dataplane writes them, REDIS.md)
// folded into per-pair and per-frame windowed series for the Live page. History
// of the last minutes is read over REST when the feed (re)connects, and the socket
// then starts just after the last id of each stream the store holds (API.md:
// frames_after, pairs_after), so what was written in between is not lost, with the count of
// entries the stream had been given up to that id when the history read returned one
// (frames_added, pairs_added), so the feed can tell that id trimmed meanwhile from entries lost. A dropped
// socket is shown and retried with a capped back-off; one the controller refused
// (closed 44xx) is not, since the same socket would be refused again. The feed shows the
// present: when it is far behind its stream, or entries after its cursor were trimmed, the
// controller skips ahead and says so (`skipped`, API.md); the page shows it (`skipped`), since
// the charts then hold a hole, and a reconnect goes on after what was skipped.
import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import { api } from '../api/client'
import type { ApplianceStatus, FrameEntry, PairEntry } from '../api/types'
import { WindowedSeries } from '../lib/series'
import { laterStreamId, repeatsStreamId } from '../lib/streamId'

export const WINDOW_S = 300 // minutes of history on the charts: 5
export const PAIR_SERIES = ['tput_mbps', 's_ms', 'v_ms', 'r_pkts', 'queue_pkts', 'limit_pkts', 'drops'] as const
// History read when the feed (re)connects: the whole window back from each stream's newest
// entry, at most 12 pages of 2000 entries a stream (the API's page limit). That is 5 minutes of 25 frames/s
// for the frame stream, but of the pair stream (an entry per pair per frame) only for up to 3 pairs: with
// more, the read stops 24000 entries into the window and the socket goes on from there (pairs_after), so
// the rest of the window comes over the socket and nothing is skipped.
const HISTORY_PAGE = 2000
const HISTORY_MAX_PAGES = 12
export const FRAME_SERIES = ['utility', 'utility_bound', 'reassignments'] as const

interface History<T> {
  entries: T[]
  upTo: string // the stream is read up to this id: the socket continues after it
  added: number | null // the history's `entries_added` for `upTo` (API.md), null when it gave none
}

/** Where the next socket starts in one stream: after `id` ('' = not known: at the stream's end),
 *  and the entries the stream had been given up to `id` (null = not known). */
interface StartPoint {
  id: string
  added: number | null
}
const NO_START: StartPoint = { id: '', added: null }

/** `p` moved on to `id` when that is later, with `added` as its count: a count belongs to its id alone. */
function movedTo(p: StartPoint, id: string | null | undefined, added: number | null = null): StartPoint {
  const next = laterStreamId(id, p.id)
  if (next !== p.id) return { id: next, added }
  return id === p.id && added !== null ? { id: next, added } : p
}

export type FeedState = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'failed'

export interface LiveMessage {
  type: 'status' | 'telemetry' | 'skipped' | 'error'
  status?: ApplianceStatus
  frames?: FrameEntry[]
  pairs?: PairEntry[]
  detail?: string
  stream?: 'frames' | 'pairs' // skipped: the stream, the ids it skipped after and up to, how many (null: not known)
  from?: string
  to?: string
  entries?: number | null
}

/** The feed's last skip: `entries` null when the controller could not tell how many. */
export interface SkipNotice {
  stream: 'frames' | 'pairs'
  entries: number | null
  at: number // browser time, ms
}

export const useLive = defineStore('live', () => {
  const appliance = ref('')
  const state = ref<FeedState>('idle')
  const error = ref('')
  const status = shallowRef<ApplianceStatus | null>(null)
  // True once the socket in use has brought a status (it sends one on connect): while the feed
  // reconnects, `status` is the last one seen and says nothing about the dataplane now.
  const statusFresh = ref(false)
  const pairs = shallowRef<Map<string, WindowedSeries>>(new Map())
  const latestPair = shallowRef<Map<string, PairEntry>>(new Map())
  const frames = shallowRef(new WindowedSeries([...FRAME_SERIES], WINDOW_S))
  const lastFrame = shallowRef<FrameEntry | null>(null)
  const tick = ref(0) // bumped on every change, so charts redraw once per batch
  const lastUpdate = ref(0) // browser time of the last telemetry message, ms
  const skipped = shallowRef<SkipNotice | null>(null)
  // Stream id of the last entry folded in, per pair (tm:pair) and of tm:frame: the history read on
  // reconnect starts minutes back, so it repeats entries the store holds already.
  let lastPairIds = new Map<string, string>()
  let lastFrameId = ''
  // Newest stream id the store holds each stream up to (history read or socket message), where
  // the next socket starts: one opened at the stream's end instead skipped whatever the
  // dataplane wrote between the history read and the socket's start, and the chart drew a
  // line across the hole. NO_START = not known (no history read yet): the socket starts at the end.
  let framesFrom = NO_START
  let pairsFrom = NO_START
  let ws: WebSocket | null = null
  let retryTimer: ReturnType<typeof setTimeout> | null = null
  let retries = 0
  let wanted = false
  // Bumped by stop(): a start or reconnect begun before it is superseded, so after each await it
  // checks it is still current before touching the store or opening a socket (the Live page
  // re-mounts on every appliance change, and a slow history may arrive after the next start).
  let generation = 0

  function seriesOf(pair: string): WindowedSeries {
    let s = pairs.value.get(pair)
    if (!s) {
      s = new WindowedSeries([...PAIR_SERIES], WINDOW_S)
      const m = new Map(pairs.value)
      m.set(pair, s)
      pairs.value = m
    }
    return s
  }

  function addPairs(entries: PairEntry[]): void {
    if (!entries.length) return
    const latest = new Map(latestPair.value)
    for (const e of entries) {
      if (repeatsStreamId(e.id, lastPairIds.get(e.pair))) continue
      lastPairIds.set(e.pair, e.id)
      const t = e.ts_ns / 1e9
      seriesOf(e.pair).push(t, [e.tput_mbps, e.s_ms, e.v_ms, e.r_pkts, e.queue_pkts, e.limit_pkts,
        (e.drops_tail ?? 0) + (e.drops_other ?? 0)])
      latest.set(e.pair, e)
    }
    latestPair.value = latest
    dropSilentPairs()
  }

  // A pair taken out of the configuration stops reporting, but its series only trims itself when it
  // gets a sample: without this its last five minutes stayed on the page for good, as if current.
  // Dropped once its newest sample is a whole window older than the newest of any pair.
  function dropSilentPairs(): void {
    let newest = -Infinity
    for (const s of pairs.value.values()) newest = Math.max(newest, s.lastTime ?? -Infinity)
    const silent = [...pairs.value].filter(([, s]) => (s.lastTime ?? -Infinity) < newest - WINDOW_S).map(([p]) => p)
    if (!silent.length) return
    const kept = new Map(pairs.value)
    const latest = new Map(latestPair.value)
    for (const p of silent) {
      kept.delete(p)
      latest.delete(p)
      lastPairIds.delete(p)
    }
    pairs.value = kept
    latestPair.value = latest
  }

  function addFrames(entries: FrameEntry[]): void {
    const fresh = entries.filter((f) => !repeatsStreamId(f.id, lastFrameId))
    for (const f of fresh) frames.value.push(f.ts_ns / 1e9, [f.utility, f.utility_bound, f.reassignments])
    if (fresh.length) {
      lastFrameId = fresh[fresh.length - 1].id
      lastFrame.value = fresh[fresh.length - 1]
    }
  }

  /** Fold one WebSocket message in (exported for tests). */
  function ingest(msg: LiveMessage): void {
    if (msg.type === 'status' && msg.status) {
      status.value = msg.status
      statusFresh.value = true
      if (!lastFrame.value && msg.status.last_frame) lastFrame.value = msg.status.last_frame
    } else if (msg.type === 'telemetry') {
      addFrames(msg.frames ?? [])
      addPairs(msg.pairs ?? [])
      framesFrom = movedTo(framesFrom, msg.frames?.at(-1)?.id)
      pairsFrom = movedTo(pairsFrom, msg.pairs?.at(-1)?.id)
      lastUpdate.value = Date.now()
    } else if (msg.type === 'skipped' && (msg.stream === 'frames' || msg.stream === 'pairs')) {
      skipped.value = { stream: msg.stream, entries: msg.entries ?? null, at: Date.now() }
      // Break each line of that stream at the hole, so no chart joins across time it never saw.
      if (msg.stream === 'frames') frames.value.gap()
      else for (const s of pairs.value.values()) s.gap()
      // A reconnect must not ask for the skipped entries again: the feed would only skip them anew.
      if (msg.stream === 'frames') framesFrom = movedTo(framesFrom, msg.to)
      else pairsFrom = movedTo(pairsFrom, msg.to)
    } else if (msg.type === 'error') {
      error.value = msg.detail ?? 'error from the live feed'
    }
    tick.value++
  }

  /** Entries of one stream from `sinceMs` on, in pages of the API's maximum, and the id the
   *  read covers the stream up to. Stream ids are `<Redis ms>-<seq>` (XADD *), so the window's
   *  start is an id to continue after. */
  async function since<T extends { id: string }>(path: string, sinceMs: number): Promise<History<T>> {
    const gen = generation
    const out: T[] = []
    let after = `${Math.max(0, Math.floor(sinceMs))}-0`
    let added: number | null = null
    for (let i = 0; i < HISTORY_MAX_PAGES; i++) {
      const r = await api.get<{ entries: T[]; last_id: string | null; entries_added?: number | null }>(
        path, { count: HISTORY_PAGE, after })
      if (gen !== generation) break // stopped meanwhile: the rest is not wanted
      out.push(...r.entries)
      after = laterStreamId(r.last_id ?? r.entries.at(-1)?.id, after)
      added = after === r.last_id ? r.entries_added ?? null : null
      if (r.entries.length < HISTORY_PAGE || !r.last_id) break
    }
    return { entries: out, upTo: after, added }
  }

  /** The last WINDOW_S seconds of one stream, counted back from its newest entry: the ids are
   *  stamped by the controller's Redis, whose clock may be minutes off the browser's (a window
   *  counted from the browser's clock then holds nothing, or only part of the window). */
  async function recent<T extends { id: string }>(path: string): Promise<History<T>> {
    const gen = generation
    const newest = await api.get<{ entries: T[] }>(path, { count: 1 })
    // An empty stream: everything it will hold is new, so the socket starts at its beginning.
    if (gen !== generation || !newest.entries.length) return { entries: [], upTo: '0-0', added: null }
    const newestMs = Number(newest.entries[0].id.split('-')[0])
    return since<T>(path, (Number.isFinite(newestMs) ? newestMs : Date.now()) - WINDOW_S * 1000)
  }

  async function loadHistory(id: string): Promise<void> {
    const gen = generation
    const [f, p] = await Promise.all([
      recent<FrameEntry>(`/telemetry/${encodeURIComponent(id)}/frames`),
      recent<PairEntry>(`/telemetry/${encodeURIComponent(id)}/pairs`),
    ])
    if (gen !== generation) return // stopped meanwhile: the store may be another appliance's by now
    addFrames(f.entries)
    addPairs(p.entries)
    framesFrom = movedTo(framesFrom, f.upTo, f.added)
    pairsFrom = movedTo(pairsFrom, p.upTo, p.added)
    tick.value++
  }

  function reset(): void {
    pairs.value = new Map()
    latestPair.value = new Map()
    frames.value = new WindowedSeries([...FRAME_SERIES], WINDOW_S)
    lastFrame.value = null
    lastPairIds = new Map()
    lastFrameId = ''
    framesFrom = NO_START
    pairsFrom = NO_START
    status.value = null
    statusFresh.value = false
    // The appliance shown before's: its feed's last message and error say nothing about this one.
    lastUpdate.value = 0
    skipped.value = null
    error.value = ''
  }

  function open(): void {
    if (!wanted) return
    const proto = location.protocol === 'https:' ? 'wss' : 'ws'
    state.value = retries ? 'reconnecting' : 'connecting'
    statusFresh.value = false
    const prev = ws
    ws = null
    prev?.close() // never more than one socket: the one in `ws`, which stop() closes
    const from = new URLSearchParams()
    for (const [name, p] of [['frames', framesFrom], ['pairs', pairsFrom]] as const) {
      if (!p.id) continue
      from.set(`${name}_after`, p.id)
      if (p.added !== null) from.set(`${name}_added`, String(p.added))
    }
    const query = String(from) ? `?${from}` : ''
    const sock = new WebSocket(`${proto}://${location.host}/api/v1/telemetry/${encodeURIComponent(appliance.value)}/live${query}`)
    ws = sock
    sock.onopen = () => {
      if (ws !== sock) return
      retries = 0
      error.value = ''
      state.value = 'open'
    }
    sock.onmessage = (ev) => {
      if (ws !== sock) return // a socket closed by stop() or replaced feeds nothing
      try {
        ingest(JSON.parse(String(ev.data)) as LiveMessage)
      } catch {
        error.value = 'unreadable message on the live feed'
      }
    }
    sock.onclose = (ev) => {
      if (ws !== sock) return
      ws = null
      statusFresh.value = false
      if (!wanted) return
      // 4000 + the HTTP status of a refusal (API.md: 4401 login, 4403 origin, 4404 appliance, 4422
      // query): its error message, or else the close reason, says why.
      if (ev.code >= 4400 && ev.code < 4500) {
        state.value = 'failed'
        if (!error.value) error.value = ev.reason || `live feed refused (close ${ev.code})`
        return
      }
      retries++
      state.value = 'reconnecting'
      if (!error.value) error.value = 'live feed disconnected'
      const delay = Math.min(5000, 500 * 2 ** Math.min(retries, 4))
      retryTimer = setTimeout(() => void reconnect(), delay)
    }
  }

  async function reconnect(): Promise<void> {
    retryTimer = null
    const gen = generation
    try {
      await loadHistory(appliance.value)
    } catch (e) {
      if (gen === generation) error.value = (e as Error).message
    }
    if (gen !== generation) return
    open()
  }

  async function start(id: string): Promise<void> {
    stop()
    reset()
    appliance.value = id
    wanted = true
    retries = 0
    const gen = generation
    try {
      await loadHistory(id)
    } catch (e) {
      if (gen === generation) error.value = (e as Error).message
    }
    if (gen !== generation) return // stopped or started again meanwhile: that start opens the socket
    open()
  }

  function stop(): void {
    generation++
    wanted = false
    if (retryTimer) clearTimeout(retryTimer)
    retryTimer = null
    const s = ws
    ws = null
    s?.close()
    state.value = 'idle'
    statusFresh.value = false
  }

  return { appliance, state, error, status, statusFresh, pairs, latestPair, frames, lastFrame, tick, lastUpdate, skipped, ingest, loadHistory, start, stop }
})
