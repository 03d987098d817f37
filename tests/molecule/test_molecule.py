"""Run every molecule scenario under molecule/ (converge, idempotence, verify).

Needs a running Docker engine and the base image: `make docker base-image`.
"""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENARIOS = sorted(path.parent.name for path in (ROOT / "molecule").glob("*/molecule.yml"))
TAIL_LINES = 80


def test_every_scenario_is_collected():
    assert {"docker", "golang", "kind", "registry", "kind_cluster", "fleet", "python_bootstrap"} <= set(SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scenario(scenario):
    # Molecule's own colour settings, as when a user runs `molecule test -s <scenario>`: the
    # scenarios must not depend on them (the fleet scenario reads the output of an inner run).
    env = dict(os.environ)
    env["PATH"] = str(pathlib.Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    result = subprocess.run(
        [sys.executable, "-m", "molecule", "test", "-s", scenario],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    tail = "\n".join(result.stdout.splitlines()[-TAIL_LINES:])
    assert result.returncode == 0, "molecule test -s %s failed (rc=%d); last lines:\n%s" % (
        scenario, result.returncode, tail)
