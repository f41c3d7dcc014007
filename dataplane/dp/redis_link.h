/*
 * The dataplane's side of the Redis contract (controller/REDIS.md), run in
 * its own thread so the packet loop never waits on Redis:
 *   - subscribes to adwiser:appliance:<id>:config and reads ...:desired at
 *     start and after every reconnect; fetches HGET adwiser:version:<n> doc,
 *     parses and validates it (config_json), and hands the result to the
 *     loop (redis_link_take_config), which swaps it in at a frame boundary
 *     and then calls redis_link_ack, or redis_link_reject with the error;
 *   - a SIGHUP reload of --config is the operator's override
 *     (redis_link_file_runs): `active` and the heartbeat say 0, and `desired`
 *     is not applied again until a config message names a version;
 *   - heartbeat: SET ...:heartbeat {"ts_ns","pid","started_ns","version","backend"} PX 3000
 *     every 200 ms (started_ns: when redis_link_start ran, one value per
 *     dataplane instance, so a restart that reuses the pid is told apart);
 *   - telemetry: XADD ...:tm:frame / ...:tm:pair MAXLEN ~ 20000;
 *   - pacing (SPEC §3.7): subscribes to adwiser:appliance:<id>:pacing and reads
 *     HGETALL of the hash of that name at start, after every reconnect and on
 *     every message; a table checked whole waits for the loop
 *     (redis_link_take_pacing), a malformed one is refused with
 *     SET ...:pacing_rejected {"error"} and the rates in force stay.
 * Redis being down never stops the dataplane: it reconnects every second,
 * and telemetry beyond a bounded backlog, or while disconnected, is dropped
 * (counted, returned by redis_link_stop, as are the frames with a record
 * Redis refused and those sent on a connection that broke before Redis
 * answered them). Nor does a
 * Redis that stops answering: commands time out after 1 s and reconnect, so
 * redis_link_stop returns within a few seconds. Nor does a Redis that refuses writes (-OOM under maxmemory with
 * noeviction): the refusal is logged, and `active` and `rejected` are written once it takes them. Error texts are written with
 * any byte that is not UTF-8 replaced by '?'.
 */
#ifndef ADW_DP_REDIS_LINK_H
#define ADW_DP_REDIS_LINK_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "adwiser/config.h"
#include "pacing_table.h"

struct redis_link;

/* addr: "unix:/path/to.sock" or "host:port".  Refuses a malformed address; connects in the background, logging in
 * with $ADWISER_REDIS_PASSWORD if set (read here, once). A connection Redis refuses (a wrong or missing password) is
 * logged, once until the refusal changes, and tried again every second. */
struct redis_link *redis_link_start(const char *addr, const char *appliance_id, const char *backend, char *err,
                                    size_t errlen);

/* A validated configuration fetched from Redis (caller owns it, free()), or NULL; *version its number. */
struct adw_config *redis_link_take_config(struct redis_link *l, uint64_t *version);

/* Version n runs now: SET active, PUBLISH ack. An ack and a reject given before the thread writes either are
 * both written. */
void redis_link_ack(struct redis_link *l, uint64_t version);

/* The --config file runs now, reloaded by an operator's SIGHUP: SET active 0, PUBLISH ack 0, heartbeat version 0.
 * One slot with redis_link_ack: the later of the two is written. Reading `desired` (after a reconnect) no longer
 * applies it; a version published on the config channel is fetched and applied, even the one that ran before the
 * reload. Once a version is acknowledged again, reconnects read `desired` as before. */
void redis_link_file_runs(struct redis_link *l);

/* Version n refused: SET rejected {"version","error","apply_seq"}, apply_seq that of the apply n was fetched for. */
void redis_link_reject(struct redis_link *l, uint64_t version, const char *error);

/* Queues a frame record and its pair records for the streams; takes ownership of both. */
void redis_link_publish_frame(struct redis_link *l, json_t *frame, json_t *pairs);

/* The pacing hash as last read (caller owns it, pacing_table_free), or NULL if unchanged since the last take. */
struct pacing_table *redis_link_take_pacing(struct redis_link *l);

/* Frames of telemetry not known to be in the streams. */
struct redis_link_tm_losses {
    uint64_t lost;          /* never sent (Redis lagged: the backlog was full; or was not connected), or a record of
                               the frame refused by Redis (an error reply: out of memory, a key of another type) */
    uint64_t unconfirmed;   /* sent, but the connection broke before Redis answered every record of the frame: stored
                               or not, nobody knows (a restart, a timeout, CLIENT KILL mid-send) */
};

/* Stops the thread; returns what of the telemetry it was given did not reach Redis for certain. */
struct redis_link_tm_losses redis_link_stop(struct redis_link *l);

#endif
