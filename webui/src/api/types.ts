// Shapes of the controller's /api/v1 documents (controller/adwiser_controller: models.py,
// store.py, telemetry.py, api/*.py). Units follow the configuration schema.

export type Role = 'viewer' | 'operator' | 'admin'

export interface Me {
  username: string
  role: Role
  via: string
  csrf_token: string | null
}

export interface AccessPoint {
  id: string
  name: string
  channel: number
  port: string
  vlan: number | null
  /** Measured aggregation ceilings (not edited here; null or absent = not measured). */
  ampdu_ceiling_mpdus?: number | null
  ampdu_ceiling_us?: number | null
}

export interface Station {
  id: string
  mac: string
  ips: string[]
  ap: string
  /** Configured PHY rate (not edited here; null or absent = from telemetry). */
  phy_rate_mbps?: number | null
}

export interface Topology {
  aps: AccessPoint[]
  stas: Station[]
  conflicts: [string, string][]
}

export interface Slice {
  duration_ms: number // length of the slice, ms
  pairs: string[] // 'ap/sta'
}

export interface SliceMap {
  slices: Slice[]
}

export type Policies = Record<string, Record<string, unknown>>

export interface ConfigDoc {
  schema_version: number
  appliance_id: string
  topology: Topology
  slice_map: SliceMap
  policies: Policies
}

export interface VersionInfo {
  version: number
  appliance_id: string
  author: string
  created_at: string
  comment: string
  parent: number | null
}

export interface Version extends VersionInfo {
  doc: ConfigDoc
}

export interface DiffChange {
  path: string
  op: 'added' | 'removed' | 'changed'
  old: unknown
  new: unknown
}

export interface DiffResult {
  from_version: number
  to_version: number
  changes: DiffChange[]
  unified: string
}

export interface FrameEntry {
  id: string
  ts_ns: number // dataplane clock, ns since the Unix epoch
  frame: number
  version: number
  frame_ms: number
  utility: number | null // sum of ln(theta_i), theta in Mbit/s
  utility_bound: number | null
  reassignments: number
  // skipped: the slice was over when the dataplane's loop came to it and released no batch (REDIS.md)
  slices: { duration_ms: number; pairs: string[]; given_to: string[]; given_by?: string[]; early_ms?: number; skipped?: boolean }[] | null
}

export interface PairEntry {
  id: string
  ts_ns: number
  frame: number
  pair: string
  mode: string
  s_ms: number | null // slice length S, ms
  r_pkts: number | null // batch r(k), packets
  v_ms: number | null // drain time V(k) of the last batch, ms
  released_pkts: number
  released_bytes: number
  queue_pkts: number
  limit_pkts: number
  drops_tail: number
  drops_other: number
  tput_mbps: number | null
  reassigned: number
}

/** A version refused, and why (controller telemetry.py, Rejection). */
export interface Rejection {
  version: number | null
  error: string
}

export interface ApplianceStatus {
  id: string
  head: number | null
  desired: number | null
  active: number | null
  pending: boolean
  rejected: (Rejection & { apply_seq: number | null }) | null // apply_seq: the apply the refusal answers
  alive: boolean
  heartbeat: { ts_ns: number | null; pid: number | null; version: number | null; backend: string | null } | null
  heartbeat_age_s: number | null
  last_frame: FrameEntry | null
  fabric?: FabricStatus | null // absent from controllers older than issue 10's status
}

/** What the fabric manager could not do in Open vSwitch, since the first poll of that run of failures. */
export interface OvsFailure {
  error: string
  since_ns: number | null
}

/** The fabric manager's state (controller/API.md, FabricStatus): Open vSwitch fail-open. */
export interface FabricStatus {
  mode: 'steered' | 'bypass' | 'unknown'
  reason: string
  since_ns: number | null // when this mode began, ns since the Unix epoch
  version: number | null
  topology_possibly_stale?: boolean // the dataplane runs its --config file; absent from older managers
  refused?: Rejection | null // an active version the manager refused (the flows keep `version`); absent from older managers
  ovs_error?: OvsFailure | null // the manager runs but cannot program OVS (`mode` is its last table); absent from older managers
  switches: number | null
  dp_pid: number | null
  bridge: string | null
  ts_ns: number | null
}

/** One pair's aggregation-target loop (000 §VI; controller api/aggregation.py, PairLoop). */
export interface PairLoop {
  state: string // tracking | held | no_rate
  phy_rate_mbps: number | null
  rate_source: string
  rate_age_s?: number | null // age of the measured rate in phy_rate, s; null: none, or entered by hand; negative: its time is ahead of Redis's clock (stale)
  rate_stale?: boolean // the measured rate is older than the loop's limit (not used if the topology has one)
  mu_n: number | null // measured MPDUs per A-MPDU over the last slot
  mu_source?: string
  frames_in_slot: number
  n_target: number | null
  z: number | null
  x_pps: number | null // rate x_i, packets/s
  pace_bps: number | null // pacing rate handed to the dataplane, bit/s
  delivered_bps?: number | null
  received_pps?: number | null // MPDUs per second the STA received over the last slot
  ap_queue_grew?: boolean | null // more released than the STA received: the AP's queue grew (no c-check from the slot)
  bottleneck: string | null // wlan | backhaul | unknown
  p_backhaul: number | null
  loss: number | null
  agg_ratio?: number | null
  n_bar?: number | null // this pair's N̄ for the step (the AP's, an override's, or from the AP's airtime ceiling)
  ack_delay_ms?: number | null // mean release-to-ACK delay of the paced segments timed over the last slot, ms
  ack_delay_floor_ms?: number | null // its least over the last 20 slots, ms
  ack_queue_ms?: number | null // ack_delay_ms - ack_delay_floor_ms, ms: the AP's queue and the STA's ACK path
}

export interface ApLoop {
  k: number
  nu: number
  c_hat_us: number // estimated per-round overhead c (eq. 40), µs
  c_check_us: number | null
  t_bar_ms: number
  n_bar: number
  ampdu_ceiling_mpdus?: number | null
  ampdu_ceiling_us?: number | null // the AP's A-MPDU airtime ceiling: each pair then has its own n_bar
  held: boolean
  pairs: Record<string, PairLoop>
}

export interface AggregationStatus {
  appliance_id: string
  version: number | null // 0: the dataplane runs its --config file
  enabled: boolean
  paused?: string | null // why nothing is paced while the dataplane runs its --config file; absent from older runners
  ts: number
  delta_s: number | null
  classifier: string | null
  aps: Record<string, ApLoop>
}

export interface ApplyResult {
  appliance_id: string
  version: number
  previous: number | null
  acknowledged: boolean
  ack_ms: number | null
  /** null (answered 202) when the store went away after the apply was made: applied, its acknowledgement unknown */
  status: ApplianceStatus | null
}

export interface AuditEntry {
  id: string
  at: string
  username: string
  role: string
  client: string
  action: string
  target: string
  outcome: string
  detail: Record<string, unknown>
}

export interface FieldError {
  field: string
  message: string
  type: string
}

export interface Problem {
  type: string
  title: string
  status: number
  detail: string
  instance: string
  field: string | null
  errors: FieldError[]
}
