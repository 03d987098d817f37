"""Run every molecule scenario under molecule/ (converge, idempotence, verify), but kind_cluster (KIND_SCENARIOS).

Needs a running Docker engine and the base image: `make docker base-image`.

The scenarios share nothing (their own containers, names, ports and molecule directories), and most of their
time is spent waiting on apt, systemd and container starts, so they run in lanes side by side: the scenarios of
one lane one after another, the lanes at once. The two that run bench.yml inside containers (CPU) share a lane,
and so do the two that build Go inside containers, as a fresh machine builds their caches once. The lanes start
when collection ends (tests/conftest.py), so that they run while the session's other tests do.
"""
import pathlib
import threading

import pytest
from infra.molecule_run import molecule_test

ROOT = pathlib.Path(__file__).resolve().parents[2]
# kind_cluster creates a real kind cluster from the node image `make kind-images` builds: tests/e2e/test_kind.py
# (`make test-kind`) runs it.
KIND_SCENARIOS = ["kind_cluster"]
SCENARIOS = sorted(path.parent.name for path in (ROOT / "molecule").glob("*/molecule.yml")
                   if path.parent.name not in KIND_SCENARIOS)
# lab (the SSH lab: bench.yml three times over SSH) follows the two that mostly wait on apt, so that the two lanes
# that run bench.yml in containers overlap as little as they can.
LANES = [["fleet", "python_bootstrap"], ["docker", "registry", "lab"], ["golang", "kind"]]
TAIL_LINES = 80


def test_every_scenario_is_collected_and_in_a_lane():
    assert {"docker", "golang", "kind", "registry", "fleet", "python_bootstrap", "lab"} <= set(SCENARIOS)
    assert all((ROOT / "molecule" / name / "molecule.yml").exists() for name in KIND_SCENARIOS)
    assert sorted(name for lane in LANES for name in lane) == SCENARIOS


class Lanes:
    """The selected scenarios, started lane by lane in threads; ``result`` waits for one of them."""

    def __init__(self, selected, log_dir):
        self.done = {name: threading.Event() for name in selected}
        self.results = {}
        self.log_dir = log_dir
        self.threads = [threading.Thread(target=self._run, args=([n for n in lane if n in selected],), daemon=True)
                        for lane in LANES]
        for thread in self.threads:
            thread.start()

    def _run(self, names):
        for name in names:
            log_path = self.log_dir / (name + ".log")
            try:
                self.results[name] = molecule_test(name, log_path) + (log_path,)
            finally:
                self.done[name].set()

    def result(self, name):
        self.done[name].wait()
        return self.results.get(name, (None, 0.0, self.log_dir / (name + ".log")))


def start_lanes(session, log_dir):
    """The lanes of the scenarios the session selected (called as soon as collection ends, so that they run
    while the tests before them do); None when it selected none."""
    selected = {item.callspec.params["scenario"] for item in session.items
                if getattr(item, "originalname", "") == "test_scenario" and hasattr(item, "callspec")
                and item.path.name == "test_molecule.py"}
    return Lanes(selected, log_dir) if selected else None


@pytest.fixture(scope="module")
def lanes(request, tmp_path_factory):
    started = getattr(request.config, "_molecule_lanes", None)
    return started or start_lanes(request.session, tmp_path_factory.mktemp("molecule"))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scenario(lanes, scenario):
    returncode, seconds, log_path = lanes.result(scenario)
    print("molecule test -s %s: %.0f s (log %s)" % (scenario, seconds, log_path))
    lines = log_path.read_text(encoding="utf-8", errors="replace").splitlines() if log_path.exists() else []
    assert returncode == 0, "molecule test -s %s failed (rc=%s); last lines:\n%s" % (
        scenario, returncode, "\n".join(lines[-TAIL_LINES:]))
