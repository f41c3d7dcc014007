# ADWISER appliance — top-level entry points.
#
# Each component folder has a Makefile of its own with the targets `build` and
# `test` (and any it adds); this file installs what they need (`deps`) and
# forwards to them, so a component can be built and tested on its own with
# `make -C <folder> test`.

SHELL      := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
ROOT       := $(abspath .)
VENV       := $(ROOT)/.venv
PY         := $(VENV)/bin/python
export VENV PY

# Components in dependency order; a folder joins the build once it has a Makefile.
COMPONENTS := $(foreach d,dataplane testbed controller webui ansible,$(if $(wildcard $(d)/Makefile),$(d)))
PY_REQS    := $(wildcard */requirements.txt)

.PHONY: all deps deps-apt deps-python deps-npm build test demo sim experiment report \
        bench bench-controller fuzz schema run-controller clean

all: build

include webui/node.mk

# ---------------------------------------------------------------- deps
# Idempotent: installs only what is missing (Debian packages from deps.apt,
# the Python virtualenv from every */requirements.txt, npm packages of webui/).
deps: deps-apt deps-python deps-npm

deps-apt:
	@missing=$$(grep -v '^\s*#' deps.apt | grep -v '^\s*$$' | while read -r p; do \
	    dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q 'install ok installed' || echo "$$p"; done); \
	if [ -n "$$missing" ]; then \
	    echo "deps: installing Debian packages:" $$missing; \
	    apt-get update -qq; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

deps-python: $(VENV)/.deps-stamp

$(VENV)/.deps-stamp: $(PY_REQS) | deps-apt
	@test -x $(PY) || python3 -m venv $(VENV)
	@$(PY) -m pip install -q --upgrade pip
	@for r in $(PY_REQS); do $(PY) -m pip install -q -r $$r; done
	@touch $@

deps-npm: deps-node | deps-apt
	@if [ -f webui/package.json ]; then $(MAKE) -C webui deps; fi

# ---------------------------------------------------------------- build / test
build: deps
	@for d in $(COMPONENTS); do $(MAKE) -C $$d build; done

test: deps
	@for d in $(COMPONENTS); do echo "==== test: $$d"; $(MAKE) -C $$d test; done

# ---------------------------------------------------------------- forwarded targets
sim: deps
	$(MAKE) -C dataplane sim

fuzz: deps
	$(MAKE) -C dataplane fuzz

bench: deps
	$(MAKE) -C dataplane bench

schema: deps
	$(MAKE) -C controller schema

run-controller: deps
	$(MAKE) -C controller run

bench-controller: deps
	$(MAKE) -C controller bench

# The sliced scenarios run dataplane/build/adwiser-dp: built first, so a change to the
# dataplane is in the next experiment (the testbed's own build covers the emulator).
experiment: deps
	$(MAKE) -C dataplane build
	$(MAKE) -C testbed experiment SCENARIO="$(SCENARIO)" DURATION="$(DURATION)"

report: deps
	$(MAKE) -C testbed report

# The main job: the whole appliance on the emulated 2AP-2STA testbed (Redis, the
# controller serving the dashboard, adwiser-dp on DPDK, the WLAN emulator, downlink
# TCP) until Ctrl-C or for DURATION seconds, then the results table; everything is
# torn down on exit (testbed/runner/appliance_demo.py).
demo: deps
	$(MAKE) -C dataplane build
	$(MAKE) -C testbed build
	$(MAKE) -C webui build
	cd testbed && $(PY) -m runner.appliance_demo $(if $(DURATION),--duration $(DURATION)) $(if $(FABRIC),--fabric $(FABRIC))

clean:
	@for d in $(COMPONENTS); do $(MAKE) -C $$d clean || true; done
