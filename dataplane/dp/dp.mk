# dp/dp.mk — adwiser-dp (the I/O backends around the scheduling core), its
# tests, `make bench` and `make fuzz`.  Included by dataplane/Makefile; paths
# are relative to dataplane/.  Uses CORE_LIB, CORE_LIB_SAN, CORE_INCLUDE,
# CFLAGS_COMMON and SAN_FLAGS from there.

PY          ?= $(abspath ../.venv/bin/python)
DP_PKGS     := libdpdk jansson libnetfilter_queue hiredis
DP_CFLAGS   := $(CFLAGS_COMMON) -D_GNU_SOURCE $(CORE_INCLUDE) -Idp $(shell pkg-config --cflags $(DP_PKGS))
DP_LIBS     := $(shell pkg-config --libs $(DP_PKGS)) -lpthread -lm
DP_HEADERS  := $(wildcard dp/*.h include/adwiser/*.h)

# The executable.
DP_SRCS     := $(wildcard dp/*.c)
DP_OBJS     := $(patsubst dp/%.c,$(BUILD)/dp/%.o,$(DP_SRCS))
DP_BIN      := $(BUILD)/adwiser-dp

# The configuration loader alone (no DPDK), for its unit tests under ASan+UBSan.
DP_LOADER_SRCS := dp/config_json.c dp/json_walk.c
DP_TEST_CONFIG := $(BUILD)/san/dp/test_config_json
# The loops' pure parts (options, idle back-off, lateness histogram, TSC clock, VLAN demultiplexing, NFQUEUE poll
# timeout, input port, ids the kernel skipped, socket reads).
DP_PARTS_SRCS := dp/dp_options.c dp/idle_backoff.c dp/slice_lateness.c dp/tsc_clock.c dp/vlan_demux.c dp/nfq_wait.c dp/nfq_port.c \
    dp/nfq_fail_open.c dp/nfq_read.c
DP_TEST_PARTS := $(BUILD)/san/dp/test_dp_parts

# The executable needs the core's scheduler (core/sched.c); until it is in the tree only the loader is built.
DP_CORE_HAS_SCHED := $(wildcard core/sched.c)
DP_BUILD += $(DP_TEST_CONFIG) $(DP_TEST_PARTS) $(if $(DP_CORE_HAS_SCHED),$(DP_BIN) $(BUILD)/gen_sta_mix)
DP_TEST  += dp-test-unit $(if $(DP_CORE_HAS_SCHED),fuzz-replay dp-test-e2e)

.PHONY: dp-test dp-test-unit dp-test-e2e

$(BUILD)/dp/%.o: dp/%.c $(DP_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(DP_CFLAGS) -O2 -c $< -o $@

$(DP_BIN): $(DP_OBJS) $(CORE_LIB)
	$(CC) -o $@ $(DP_OBJS) $(CORE_LIB) $(DP_LIBS)

$(DP_TEST_CONFIG): dp/tests/test_config_json.c $(DP_LOADER_SRCS) $(DP_HEADERS) $(CORE_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -D_GNU_SOURCE $(SAN_FLAGS) $(CORE_INCLUDE) -Idp $< $(DP_LOADER_SRCS) $(CORE_LIB_SAN) \
	    $(shell pkg-config --cflags --libs jansson) -lcmocka -lm -o $@

dp-test: dp-test-unit fuzz-replay dp-test-e2e

# The lab document as JSON (until the controller's `render` is everywhere, PyYAML converts it).
DP_LAB_JSON := $(BUILD)/dp/lab-2ap-2sta.json
$(DP_LAB_JSON): ../configs/lab-2ap-2sta.yaml
	@mkdir -p $(@D)
	py=$(PY); [ -x "$$py" ] || py=python3; \
	$$py -c 'import json,sys,yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2],"w"), indent=1)' $< $@

# The aggregation-target readers: pacing table and ACK-burst model file (jansson only).
DP_PACING_SRCS := dp/pacing_table.c dp/ack_model_json.c dp/json_walk.c
DP_TEST_PACING := $(BUILD)/san/dp/test_dp_pacing
DP_BUILD += $(DP_TEST_PACING)

$(DP_TEST_PACING): dp/tests/test_dp_pacing.c $(DP_PACING_SRCS) $(DP_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -D_GNU_SOURCE $(SAN_FLAGS) $(CORE_INCLUDE) -Idp $< $(DP_PACING_SRCS) \
	    $(shell pkg-config --cflags --libs jansson) -lcmocka -lm -o $@

# The Redis thread against a real redis-server (one per test, dp/tests/redis_fixture.c).
DP_REDIS_SRCS := dp/redis_link.c dp/redis_addr.c dp/config_json.c dp/json_walk.c dp/pacing_table.c
DP_TEST_REDIS := $(BUILD)/san/dp/test_redis_link_thread
# A redis-server per test (dp/tests/redis_fixture.h), for the tests that need Redis.
DP_REDIS_FIXTURE := dp/tests/redis_fixture.c dp/tests/redis_fixture.h
DP_BUILD += $(DP_TEST_REDIS)

$(DP_TEST_REDIS): dp/tests/test_redis_link_thread.c $(DP_REDIS_FIXTURE) $(DP_REDIS_SRCS) $(DP_HEADERS) $(CORE_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -D_GNU_SOURCE $(SAN_FLAGS) $(CORE_INCLUDE) -Idp $< dp/tests/redis_fixture.c $(DP_REDIS_SRCS) \
	    $(CORE_LIB_SAN) \
	    $(shell pkg-config --cflags --libs jansson hiredis) -lcmocka -lpthread -lm -o $@

$(DP_TEST_PARTS): dp/tests/test_dp_parts.c $(DP_PARTS_SRCS) $(DP_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -D_GNU_SOURCE $(SAN_FLAGS) -Idp $< $(DP_PARTS_SRCS) -lcmocka -o $@

# The engine both backends share (reloads, frame telemetry), driven by the test's clock without a backend.
DP_ENGINE_SRCS := dp/dp_engine.c dp/frame_telemetry.c dp/telemetry_jsonl.c dp/config_json.c dp/json_walk.c \
    dp/dp_topology.c dp/pacing_table.c dp/ack_model_json.c dp/run_stats.c dp/slice_lateness.c dp/redis_link.c \
    dp/redis_addr.c dp/sta_ip_map.c
DP_TEST_ENGINE := $(BUILD)/san/dp/test_dp_engine
DP_BUILD += $(if $(DP_CORE_HAS_SCHED),$(DP_TEST_ENGINE))

$(DP_TEST_ENGINE): dp/tests/test_dp_engine.c $(DP_REDIS_FIXTURE) $(DP_ENGINE_SRCS) $(DP_HEADERS) $(CORE_LIB_SAN) \
		tests/frame_builder.c tests/frame_builder.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -D_GNU_SOURCE $(SAN_FLAGS) $(CORE_INCLUDE) -Idp -Itests $< dp/tests/redis_fixture.c \
	    tests/frame_builder.c $(DP_ENGINE_SRCS) \
	    $(CORE_LIB_SAN) \
	    $(shell pkg-config --cflags --libs jansson hiredis) -lcmocka -lpthread -lm -o $@

# The NFQUEUE backend's verdicts for the core's decisions, with a recorder in place of the kernel queue.
DP_TEST_NFQ_VERDICTS := $(BUILD)/san/dp/test_nfq_verdicts
DP_BUILD += $(if $(DP_CORE_HAS_SCHED),$(DP_TEST_NFQ_VERDICTS))

# The engine on the lab document for the backends' tests (dp/tests/lab_engine.h).
DP_LAB_ENGINE := dp/tests/lab_engine.c dp/tests/lab_engine.h

$(DP_TEST_NFQ_VERDICTS): dp/tests/test_nfq_verdicts.c tests/frame_builder.c $(DP_LAB_ENGINE) dp/nfq_verdicts.c dp/nfq_retry.c \
    $(DP_ENGINE_SRCS) $(DP_HEADERS) $(CORE_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -D_GNU_SOURCE $(SAN_FLAGS) $(CORE_INCLUDE) -Idp -Itests $< tests/frame_builder.c \
	    dp/tests/lab_engine.c dp/nfq_verdicts.c dp/nfq_retry.c $(DP_ENGINE_SRCS) $(CORE_LIB_SAN) \
	    $(shell pkg-config --cflags --libs jansson hiredis) -lcmocka -lpthread -lm -o $@

# The DPDK loop on net_ring ports the test creates (no hugepages, no PCI, its own --file-prefix). Not under ASan:
# the EAL maps its memory itself.
DP_DPDK_LOOP_SRCS := dp/dpdk_loop.c dp/dpdk_tx_backlog.c dp/dpdk_ports.c dp/vlan_demux.c dp/idle_backoff.c dp/tsc_clock.c $(DP_ENGINE_SRCS)
DP_TEST_DPDK_LOOP := $(BUILD)/dp/test_dpdk_loop
DP_BUILD += $(if $(DP_CORE_HAS_SCHED),$(DP_TEST_DPDK_LOOP))

$(DP_TEST_DPDK_LOOP): dp/tests/test_dpdk_loop.c tests/frame_builder.c $(DP_LAB_ENGINE) $(DP_DPDK_LOOP_SRCS) \
    $(DP_HEADERS) $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(DP_CFLAGS) -O1 -Itests -Icore $< tests/frame_builder.c dp/tests/lab_engine.c $(DP_DPDK_LOOP_SRCS) $(CORE_LIB) $(DP_LIBS) \
	    -lrte_net_ring -lcmocka -o $@

# The NFQUEUE backend's IPv4 -> STA MAC map, alone and as the engine rebuilds it on a reload.
DP_TEST_STA_IP_MAP := $(BUILD)/san/dp/test_sta_ip_map
DP_BUILD += $(if $(DP_CORE_HAS_SCHED),$(DP_TEST_STA_IP_MAP))

$(DP_TEST_STA_IP_MAP): dp/tests/test_sta_ip_map.c tests/frame_builder.c $(DP_LAB_ENGINE) $(DP_ENGINE_SRCS) $(DP_HEADERS) \
    $(CORE_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -D_GNU_SOURCE $(SAN_FLAGS) $(CORE_INCLUDE) -Idp -Itests $< tests/frame_builder.c \
	    dp/tests/lab_engine.c $(DP_ENGINE_SRCS) \
	    $(CORE_LIB_SAN) $(shell pkg-config --cflags --libs jansson hiredis) -lcmocka -lpthread -lm -o $@

dp-test-unit: $(DP_TEST_CONFIG) $(DP_TEST_PARTS) $(DP_TEST_PACING) $(DP_TEST_REDIS) $(DP_LAB_JSON) \
    $(if $(DP_CORE_HAS_SCHED),$(DP_TEST_ENGINE) $(DP_TEST_NFQ_VERDICTS) $(DP_TEST_STA_IP_MAP) $(DP_TEST_DPDK_LOOP) $(DP_BIN) $(BUILD)/gen_sta_mix)
	ADW_LAB_JSON=$(DP_LAB_JSON) ADW_SCHEMA=../configs/schema/adwiser-config.schema.json $(DP_TEST_CONFIG)
	$(DP_TEST_PARTS)
	ADW_CONFIGS=../configs $(DP_TEST_PACING)
	ADW_LAB_JSON=$(DP_LAB_JSON) $(DP_TEST_REDIS)
	$(if $(DP_CORE_HAS_SCHED),ADW_LAB_JSON=$(DP_LAB_JSON) $(DP_TEST_ENGINE))
	$(if $(DP_CORE_HAS_SCHED),ADW_LAB_JSON=$(DP_LAB_JSON) $(DP_TEST_NFQ_VERDICTS))
	$(if $(DP_CORE_HAS_SCHED),ADW_LAB_JSON=$(DP_LAB_JSON) $(DP_TEST_STA_IP_MAP))
	$(if $(DP_CORE_HAS_SCHED),ADW_LAB_JSON=$(DP_LAB_JSON) timeout 60 $(DP_TEST_DPDK_LOOP))
	$(if $(DP_CORE_HAS_SCHED),PY=$(PY) dp/tests/test_check_config.sh $(BUILD) $(DP_LAB_JSON))
	$(if $(DP_CORE_HAS_SCHED),dp/tests/test_gen_sta_mix_args.sh $(BUILD))

# Root only (network namespaces); each script cleans up after itself.
dp-test-e2e: $(DP_BIN)
	PY=$(PY) dp/tests/test_e2e_dpdk.sh $(BUILD)
	PY=$(PY) dp/tests/test_e2e_nfqueue.sh $(BUILD)
	PY=$(PY) dp/tests/test_e2e_vlan_trunk.sh $(BUILD)
	PY=$(PY) dp/tests/test_campus_ports.sh $(BUILD)
	PY=$(PY) dp/tests/test_release_leaves_before_passed_traffic.sh $(BUILD)
	PY=$(PY) dp/tests/test_redis_link.sh $(BUILD)
	PY=$(PY) dp/tests/test_e2e_pacing.sh $(BUILD)
	dp/tests/test_lab_pids.sh

# ---------------------------------------------------------------- bench
$(BUILD)/gen_sta_mix: bench/gen_sta_mix.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -D_GNU_SOURCE -O2 $< $(shell pkg-config --cflags --libs jansson libpcap) -o $@

# ns per IPv4 -> STA MAC lookup, the scan the NFQUEUE backend did per packet against its map (dp/README.md).
$(BUILD)/bench_sta_ip_lookup: bench/sta_ip_lookup.c dp/sta_ip_map.c dp/sta_ip_map.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -D_GNU_SOURCE -O2 $(CORE_INCLUDE) -Idp $< dp/sta_ip_map.c -o $@

.PHONY: bench bench-sta-ip
bench-sta-ip: $(BUILD)/bench_sta_ip_lookup
	$<

bench: $(DP_BIN) $(BUILD)/gen_sta_mix
	PY=$(PY) bench/run_bench.sh $(BUILD) $(BENCH_SECONDS)

# ---------------------------------------------------------------- fuzz
# libFuzzer over the core's parse + classify, through adw_sched_enqueue_burst; and over the readers of untrusted
# text (configuration document, pacing file and Redis hash, ACK model file).  The code under test is compiled into
# the targets by clang with coverage (fuzzer) and ASan+UBSan instrumentation.  Each target runs FUZZ_TIME seconds.
FUZZ_CC     := clang
FUZZ_BIN    := $(BUILD)/fuzz/fuzz_enqueue
FUZZ_LOADERS_BIN := $(BUILD)/fuzz/fuzz_loaders
FUZZ_FLAGS  := -std=c17 -D_DEFAULT_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_TIME   ?= 60
FUZZ_LOADERS_SRCS := $(DP_LOADER_SRCS) dp/pacing_table.c dp/ack_model_json.c sim/lab_config.c

$(FUZZ_BIN): fuzz/fuzz_enqueue.c $(wildcard core/*.c core/*.h include/adwiser/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Wall -Wextra -Werror $(CORE_INCLUDE) -Icore fuzz/fuzz_enqueue.c $(wildcard core/*.c) \
	    -lm -o $@

$(FUZZ_LOADERS_BIN): fuzz/fuzz_loaders.c $(FUZZ_LOADERS_SRCS) $(DP_HEADERS) sim/lab_config.h \
    $(wildcard core/*.c core/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -D_GNU_SOURCE -Wall -Wextra -Werror $(CORE_INCLUDE) -Icore -Idp -Isim fuzz/fuzz_loaders.c \
	    $(FUZZ_LOADERS_SRCS) $(wildcard core/*.c) $(shell pkg-config --cflags --libs jansson) -lm -o $@

.PHONY: fuzz fuzz-replay
fuzz: $(FUZZ_BIN) $(FUZZ_LOADERS_BIN)
	@mkdir -p $(BUILD)/fuzz/corpus $(BUILD)/fuzz/corpus_loaders
	$(FUZZ_BIN) -max_total_time=$(FUZZ_TIME) -print_final_stats=1 $(BUILD)/fuzz/corpus fuzz/corpus
	$(FUZZ_LOADERS_BIN) -max_total_time=$(FUZZ_TIME) -print_final_stats=1 $(BUILD)/fuzz/corpus_loaders \
	    fuzz/corpus_loaders

# Every input of the committed corpora once (malformed frames must be counted and passed, malformed documents
# refused with a message; never a crash).
fuzz-replay: $(FUZZ_BIN) $(FUZZ_LOADERS_BIN)
	$(FUZZ_BIN) -runs=0 fuzz/corpus/*
	$(FUZZ_LOADERS_BIN) -runs=0 fuzz/corpus_loaders/*
-include agent/agent.mk
