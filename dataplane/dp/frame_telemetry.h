/*
 * Per-frame and per-pair telemetry (SPEC §4, controller/REDIS.md): every
 * finished frame the core reports becomes one "frame" record and one "pair"
 * record per pair, with the field names of the Redis streams
 * adwiser:appliance:<id>:tm:frame / tm:pair, written to the --telemetry file
 * (JSON lines, with "type": "frame" | "pair") and handed to Redis.
 * utility is Σ ln θ_i over pairs with traffic, θ_i the pair's EWMA downlink
 * throughput in Mbit/s (004 §2 / SPEC §6); utility_bound needs the isolated
 * rates β_i, which only the testbed measures, so it is null here.
 */
#ifndef ADW_DP_FRAME_TELEMETRY_H
#define ADW_DP_FRAME_TELEMETRY_H

struct dp_engine;

/* Drains every finished frame from the core into the sinks. */
void frame_telemetry_poll(struct dp_engine *e);

#endif
