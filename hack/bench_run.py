"""One bench.yml run from the project's own tools (make bench-loadgen, make bench-matrix)."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCAL = os.path.join(ROOT, "inventories", "local")


def bench(extra_vars, inventory=LOCAL, more_args=(), **run_kwargs):
    """ansible-playbook bench.yml with ``extra_vars`` (one JSON object, so lists stay lists), the project's
    ansible.cfg and this Python's Ansible; subprocess.run's result."""
    command = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), os.path.join(ROOT, "bench.yml"),
               "-i", inventory, "-e", json.dumps(extra_vars), *more_args]
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))
    return subprocess.run(command, env=env, check=False, cwd=ROOT, **run_kwargs)
