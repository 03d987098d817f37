# The two commands a user needs: `make bench` and `make test`.
VENV        ?= .venv
PYTHON      ?= python3
ARGS        ?=
INVENTORY   ?= inventories/local
PYTEST_ARGS ?=

export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: setup bench quick bench-scale test test-fast test-unit test-e2e test-molecule test-kind bench-kind lint docker base-image kind-images scheduler-images bench-loadgen bench-observer bench-matrix fetch teardown history report knobs role-readmes clean chromium prometheus

## setup: create .venv with the pinned Python packages (fast when done)
setup: $(VENV)/.installed $(VENV)/.collection

$(VENV)/.installed: requirements.txt requirements.yml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
	$(VENV)/bin/python hack/check-collections.py requirements.yml
	touch $@

# The project's collection (kube_sched_bench.core) importable from the venv's Python, as an editable install would:
# the tests and hack/ import it as Ansible does.
$(VENV)/.collection: $(VENV)/.installed
	echo "$(CURDIR)/collections" > "$$($(VENV)/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/kube_sched_bench.pth"
	touch $@

## bench: benchmark this machine (INVENTORY, inventories/local: the seed's workload, for the schedulers it lists);
## extra options in ARGS, e.g. ARGS='-e bench_jobs=100'
bench: setup
	ansible-playbook bench.yml -i $(INVENTORY) $(ARGS)

## quick: a quick look: the default scheduler alone on a small workload (20 fake nodes, 50 jobs x 3 pods)
quick: setup
	ansible-playbook bench.yml -i $(INVENTORY) -e bench_nodes=20 -e bench_jobs=50 -e bench_timeout=300 \
		-e '{"bench_schedulers": ["default"]}' $(ARGS)

## bench-scale: ten times the seed on this machine: 1,000 fake nodes, 10,000 jobs x 3 pods, default scheduler
bench-scale: setup
	ansible-playbook bench.yml -i $(INVENTORY) -e bench_nodes=1000 -e bench_jobs=10000 -e bench_timeout=3600 \
		-e '{"bench_schedulers": ["default"]}' $(ARGS)

## fetch: bring back what an interrupted run measured on this machine and report it: make fetch RUN=<run_id>
fetch: setup
	ansible-playbook playbooks/fetch.yml -i $(INVENTORY) -e bench_run_id=$(RUN) $(ARGS)

## history: results/history.sqlite, index.html and index.csv over every run under results/ (another directory:
## ARGS='-e bench_results_dir=<dir>')
history: setup
	ansible-playbook playbooks/history.yml $(ARGS)

## teardown: stop any benchmark cluster left on this machine (or on INVENTORY's hosts)
teardown: setup
	ansible-playbook playbooks/teardown.yml -i $(INVENTORY) $(ARGS)

## test: everything: lint, unit tests, end-to-end runs on the binary runtime, molecule scenarios
## (tests/e2e beside the rest, two pytest sessions: hack/test.sh)
test: setup docker base-image chromium prometheus
	VENV=$(VENV) hack/test.sh $(PYTEST_ARGS)

## test-fast: the contributor's inner loop: unit tests, ruff and yamllint (pytest -m "not slow"), about a minute
test-fast: setup
	$(VENV)/bin/python -m pytest tests/unit tests/lint -m "not slow" $(PYTEST_ARGS)

test-unit: setup chromium
	$(VENV)/bin/python -m pytest tests/unit $(PYTEST_ARGS)

test-e2e: setup chromium prometheus
	$(VENV)/bin/python -m pytest tests/e2e --ignore=tests/e2e/test_kind.py $(PYTEST_ARGS)

test-molecule: setup docker base-image
	$(VENV)/bin/python -m pytest tests/molecule $(PYTEST_ARGS)

## docker: install and start a Docker engine if none runs (molecule needs one)
docker:
	hack/docker-up.sh

## chromium: install Debian's Chromium if it is missing (the tests look at the report and history pages in it)
chromium:
	hack/chromium.sh

## prometheus: install Debian's prometheus if it is missing, its daemon not started (the tests check metrics.prom
## with promtool and query it back from a Prometheus they start themselves)
prometheus:
	hack/prometheus.sh

## base-image: build the local Debian systemd images the molecule scenarios run on (the SSH lab's with sshd, one trixie)
base-image: docker
	hack/base-image.sh
	hack/base-image.sh nopython
	hack/base-image.sh ssh
	hack/base-image.sh ssh-trixie
	hack/base-image.sh ssh-nopython

## kind-images: test machines only: privileged containers for kind (runc-capfilter) and kind's node images
## kindest/node:<version> of every version set (modern, legacy-kernel), built offline from source (cached; not part
## of `make test`)
KIND_IMAGES_VERSIONS = $(shell $(VENV)/bin/python tests/infra/kind-images/kindimg.py node-versions)
kind-images: setup docker
	tests/infra/kind-docker.sh
	for version in $(KIND_IMAGES_VERSIONS); do tests/infra/kind-images.sh $$version || exit 1; done

## scheduler-images: test machines only: the images of the releases test-kind deploys, built from source with
## the names their release manifests give them (tests/infra/scheduler-images.sh), and the local registry's image
## (cached by tag)
scheduler-images: setup docker kind-images
	tests/infra/scheduler-images.sh
	hack/registry-image.sh

## test-kind: test machines only: bench.yml on the kind runtime (the schedulers of scheduler-images; two of them
## on the old-kernel set too) after building its images (cached); `make test` and `make test-e2e`
## leave tests/e2e/test_kind.py out
test-kind: base-image kind-images scheduler-images
	$(VENV)/bin/python -m pytest tests/e2e/test_kind.py $(PYTEST_ARGS)

## bench-kind: test machines only: the seed's workload (the default burst) on the kind runtime for the default
## scheduler and those of scheduler-images, with the images of test-kind (results/ and a report, as `make bench`)
bench-kind: kind-images scheduler-images
	$(VENV)/bin/python tests/infra/bench_kind.py $(ARGS)

## bench-loadgen: how fast the load generator creates a run's pods with 1 and 2 processes while the scheduler runs,
## against the calibrated create ceiling (ARGS='--processes 1,2,4')
bench-loadgen: setup
	$(VENV)/bin/python hack/bench_loadgen.py $(ARGS)

## bench-observer: what the measuring costs: the seed's workload as a held backlog under each audit policy (full,
## light, off) for the local inventory's schedulers, side by side (ARGS='--policies light,off --schedulers default')
bench-observer: setup
	$(VENV)/bin/python hack/bench_observer.py $(ARGS)

## bench-matrix: the upstream matrix (four shapes, with and without gang) for the chosen schedulers, one bench.yml
## run per shape, and the table scheduler x shape (ARGS='--schedulers default,<another> --scale 0.1')
bench-matrix: setup
	$(VENV)/bin/python hack/bench_matrix.py $(ARGS)

## knobs: rewrite the files that list the knobs (defaults, argument specs, docs tables) from module_utils/knobs/table.py
knobs: setup
	$(VENV)/bin/python hack/knobs.py

## role-readmes: rewrite every role README's variable table from its defaults and argument specs (roles/bench's: knobs)
role-readmes: setup
	$(VENV)/bin/python hack/role_readme.py $(filter-out roles/bench,$(patsubst %/,%,$(wildcard roles/*/)))

clean:
	rm -rf $(VENV) .pytest_cache
