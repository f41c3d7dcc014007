# agent/agent.mk — adwiser-sta-agent, the STA-side aggregation agent (SPEC §3.7, 001 §4), and its tests.
# Included by dp/dp.mk (it shares the dataplane's ACK-model reader and --redis handling); paths are relative
# to dataplane/.

AGENT_SRCS     := agent/sta_agent.c agent/agent_options.c agent/tm_sta_writer.c agent/frame_boundary.c \
                  agent/sta_periods.c dp/ack_model_json.c dp/json_walk.c dp/redis_addr.c
AGENT_HEADERS  := $(wildcard agent/*.h) dp/ack_model_json.h dp/json_walk.h dp/redis_addr.h include/adwiser/ack_model.h
AGENT_BIN      := $(BUILD)/adwiser-sta-agent
AGENT_TEST     := $(BUILD)/san/agent/test_frame_boundary
AGENT_TEST_PERIODS := $(BUILD)/san/agent/test_sta_periods
AGENT_TEST_OPTIONS := $(BUILD)/san/agent/test_agent_options
AGENT_TEST_WRITER  := $(BUILD)/san/agent/test_tm_sta_writer

DP_BUILD += $(AGENT_BIN) $(AGENT_TEST) $(AGENT_TEST_PERIODS) $(AGENT_TEST_OPTIONS) $(AGENT_TEST_WRITER)
DP_TEST  += agent-test

$(AGENT_BIN): $(AGENT_SRCS) $(AGENT_HEADERS) $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -D_GNU_SOURCE -O2 $(CORE_INCLUDE) -Idp -Iagent $(AGENT_SRCS) $(CORE_LIB) \
	    $(shell pkg-config --cflags --libs jansson hiredis) -lm -o $@

$(AGENT_TEST): agent/tests/test_frame_boundary.c agent/frame_boundary.c $(AGENT_HEADERS) $(CORE_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(SAN_FLAGS) $(CORE_INCLUDE) -Iagent $< agent/frame_boundary.c $(CORE_LIB_SAN) \
	    -lcmocka -lm -o $@

$(AGENT_TEST_PERIODS): agent/tests/test_sta_periods.c agent/sta_periods.c agent/frame_boundary.c $(AGENT_HEADERS) \
                       $(CORE_LIB_SAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(SAN_FLAGS) $(CORE_INCLUDE) -Iagent $< agent/sta_periods.c agent/frame_boundary.c \
	    $(CORE_LIB_SAN) -lcmocka -lm -o $@

$(AGENT_TEST_OPTIONS): agent/tests/test_agent_options.c agent/agent_options.c dp/redis_addr.c $(AGENT_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(SAN_FLAGS) -Idp -Iagent $< agent/agent_options.c dp/redis_addr.c \
	    $(shell pkg-config --cflags --libs hiredis) -lcmocka -o $@

# The reports to Redis against a real redis-server per test (dp/tests/redis_fixture.h).
$(AGENT_TEST_WRITER): agent/tests/test_tm_sta_writer.c agent/tm_sta_writer.c dp/redis_addr.c $(DP_REDIS_FIXTURE) \
                      $(AGENT_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -D_GNU_SOURCE $(SAN_FLAGS) -Idp -Idp/tests -Iagent $< agent/tm_sta_writer.c dp/redis_addr.c \
	    dp/tests/redis_fixture.c $(shell pkg-config --cflags --libs hiredis) -lcmocka -o $@

.PHONY: agent-test
agent-test: $(AGENT_TEST) $(AGENT_TEST_PERIODS) $(AGENT_TEST_OPTIONS) $(AGENT_TEST_WRITER) $(AGENT_BIN)
	$(AGENT_TEST)
	$(AGENT_TEST_PERIODS)
	$(AGENT_TEST_OPTIONS)
	$(AGENT_TEST_WRITER)
	PY=$(PY) agent/tests/test_sta_agent.sh $(BUILD)
