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

DP_BUILD += $(DP_TEST_CONFIG)
DP_TEST  += dp-test-unit

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

dp-test: dp-test-unit dp-test-e2e

# The lab document as JSON (until the controller's `render` is everywhere, PyYAML converts it).
DP_LAB_JSON := $(BUILD)/dp/lab-2ap-2sta.json
$(DP_LAB_JSON): ../configs/lab-2ap-2sta.yaml
	@mkdir -p $(@D)
	py=$(PY); [ -x "$$py" ] || py=python3; \
	$$py -c 'import json,sys,yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2],"w"), indent=1)' $< $@

dp-test-unit: $(DP_TEST_CONFIG) $(DP_LAB_JSON)
	ADW_LAB_JSON=$(DP_LAB_JSON) ADW_SCHEMA=../configs/schema/adwiser-config.schema.json $(DP_TEST_CONFIG)

dp-test-e2e: $(DP_BIN)
	PY=$(PY) dp/tests/test_e2e_dpdk.sh $(BUILD)
