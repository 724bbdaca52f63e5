# The two commands of the README: `make run` and `make test`.
# Everything else here is for developers and CI.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PACKS := $(wildcard resource_packs/*/pyproject.toml) $(wildcard client_plugins/*/pyproject.toml) $(wildcard hook_packs/*/pyproject.toml)
PACK_DIRS := $(patsubst %/pyproject.toml,%,$(PACKS))
STAMP := $(VENV)/.installed

.PHONY: venv run cloud test test-faults conformance lint mypy genconfig genpolicy releasenotes clean

$(STAMP): pyproject.toml api/pyproject.toml test-requirements.txt $(PACKS)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e . -e api $(addprefix -e ,$(PACK_DIRS)) -r test-requirements.txt
	# mysqlclient (a C extension) builds only where libmariadb-dev is;
	# without it, its pool tests are skipped
	$(BIN)/pip install -q mysqlclient >/dev/null 2>&1 || echo "mysqlclient not built (no libmariadb-dev): its tests are skipped"
	touch $(STAMP)

venv: $(STAMP)

# keel-heat-all on the embedded default: SQLite in ./state, in-process
# messaging, no Keystone, 127.0.0.1:8004 (native) and :8000 (CFN).
run: $(STAMP)
	$(BIN)/keel-heat-all

# A small OpenStack (Keystone, Placement, Nova, Glance, Neutron, Cinder,
# Swift; fake hypervisor and volume back end) on loopback, plus keel-heat
# (engine, native and CFN APIs) registered in its Keystone; prints an
# openrc and runs until Ctrl-C (README, "A cloud on one machine").
cloud: $(STAMP)
	$(BIN)/python -W ignore -m keel_heat_core.testing.openstack.heat --state-dir build/cloud

# The tests marked `cloud` start one such cloud for the whole run when
# they are collected (shared by the xdist workers), or use the one
# KEEL_HEAT_TEST_CLOUD=<state dir> names.
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -p no:cacheprovider $(PYTEST_ARGS)

# heat-tempest-plugin and gophercloud against a deployed keel-heat
# (docs/design/conformance.md); fails below conformance/level.json.
conformance: $(STAMP)
	$(BIN)/python -m conformance --workdir build/conformance --level

# The fault-injection suite repeated (issue #6): `make test` runs each
# scenario once at full size; CI runs this after it, every scenario five
# times on smaller stacks (docs/design/resume.md).
KEEL_FAULT_REPEAT ?= 5
KEEL_FAULT_RESOURCES ?= 40
test-faults: $(STAMP)
	KEEL_FAULT_REPEAT=$(KEEL_FAULT_REPEAT) KEEL_FAULT_RESOURCES=$(KEEL_FAULT_RESOURCES) \
		$(BIN)/python -m pytest tests/faults -n 2 -p no:cacheprovider $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/python tools/check_module_size.py
	# no code or doc names a document outside the repository
	$(BIN)/python tools/check_outside_refs.py
	# every distribution's release notes: the core's and API's, each pack's
	$(BIN)/reno -q lint
	for d in $(PACK_DIRS); do \
		$(BIN)/reno -q --rel-notes-dir $$d/releasenotes lint || exit 1; \
	done

mypy: $(STAMP)
	$(BIN)/mypy

genconfig: $(STAMP)
	$(BIN)/oslo-config-generator --config-file etc/oslo-config-generator/keel-heat.conf

genpolicy: $(STAMP)
	$(BIN)/oslopolicy-sample-generator --config-file etc/oslopolicy/keel-heat-policy-generator.conf

releasenotes: $(STAMP)
	$(BIN)/reno lint
	$(BIN)/reno report --output build/releasenotes.rst

clean:
	rm -rf $(VENV) .tox build dist
