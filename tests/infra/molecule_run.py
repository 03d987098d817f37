"""`molecule test -s <scenario>` from the repository's root, for tests/molecule/test_molecule.py's lanes and
tests/e2e/test_kind.py's kind_cluster scenario."""
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def molecule_test(scenario, log_path):
    """`molecule test -s <scenario>`, its output in ``log_path``; (return code, seconds)."""
    # Molecule's own colour settings, as when a user runs `molecule test -s <scenario>`: the
    # scenarios must not depend on them (the fleet scenario reads the output of an inner run).
    env = dict(os.environ)
    env["PATH"] = str(pathlib.Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    started = time.monotonic()
    with open(log_path, "w", encoding="utf-8") as log:
        result = subprocess.run([sys.executable, "-m", "molecule", "test", "-s", scenario], cwd=ROOT, env=env,
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, check=False)
    return result.returncode, time.monotonic() - started
