"""The fleet scenario's checks of the run's output hold whatever colour settings the run had.

A real ansible-playbook run, with colour forced as molecule forces it, produces the output the
checks read: a host that does not answer (ssh to a closed port), a host whose benchmark failed,
two that are done, and the toolkit's own recap play (playbooks/verdict.yml). The fleet scenario's
own check tasks (molecule/fleet/tasks/check-log.yml) then run on that output.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent
BROKEN_TASK = "Report a Go toolchain that could not be fetched"


def inventory(path):
    local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable,
             "bench_run_schedulers": ["default"]}
    hosts = {
        "sched-bench-fleet-1": local,
        "sched-bench-fleet-2": local,
        "sched-bench-fleet-broken": dict(local, bench_host_failure={"task": BROKEN_TASK, "msg": "Go 1.24.13 is not available"}),
        "sched-bench-fleet-gone": {"ansible_connection": "ssh", "ansible_host": "127.0.0.1", "ansible_port": 9,
                                   "bench_run_schedulers": ["default"]},
    }
    path.write_text(json.dumps({"all": {"hosts": hosts}}))
    return path


def ansible_playbook(*args, env):
    return subprocess.run([str(BIN / "ansible-playbook"), *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=False, timeout=600)


@pytest.fixture(scope="module")
def coloured_log(tmp_path_factory):
    base = tmp_path_factory.mktemp("fleet-log")
    run = base / "run.yml"
    run.write_text(
        "- name: Reach every host\n  hosts: all\n  gather_facts: false\n  tasks:\n"
        "    - name: Ping\n      ansible.builtin.ping:\n"
        "- name: Recap\n  ansible.builtin.import_playbook: %s\n" % (ROOT / "playbooks" / "verdict.yml"))
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_FORCE_COLOR="1",
               ANSIBLE_CALLBACK_RESULT_FORMAT="json", ANSIBLE_NOCOLOR="0")
    env.pop("NO_COLOR", None)
    result = ansible_playbook(str(run), "-i", str(inventory(base / "hosts.json")), env=env)
    assert result.returncode in (2, 4), result.stdout[-3000:] + result.stderr[-2000:]
    log = result.stdout + "\n" + result.stderr
    (base / "bench.log").write_text(log)
    return base / "bench.log"


CHECK_PLAYBOOK = """
- name: Check the log
  hosts: localhost
  connection: local
  gather_facts: false
  vars:
    fleet_log_raw: "{{ lookup('ansible.builtin.file', fleet_log_path) }}"
  tasks:
    - name: Run the fleet scenario's checks
      ansible.builtin.include_tasks: %s
""" % (ROOT / "molecule" / "fleet" / "tasks" / "check-log.yml")


def check(tmp_path, log_path):
    playbook = tmp_path / "check.yml"
    playbook.write_text(CHECK_PLAYBOOK)
    extra = {"fleet_log_path": str(log_path), "fleet_broken_host": "sched-bench-fleet-broken",
             "fleet_broken_task": BROKEN_TASK}
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0")
    return ansible_playbook(str(playbook), "-i", "localhost,", "-e", json.dumps(extra), env=env)


def test_the_captured_log_is_coloured(coloured_log):
    text = coloured_log.read_text()
    assert "\x1b[" in text
    # The very shape that broke the plain regex: a colour code between the host name and the colon.
    assert "sched-bench-fleet-gone\x1b[0m" in text


def test_the_fleet_checks_pass_on_a_coloured_log(tmp_path, coloured_log):
    result = check(tmp_path, coloured_log)
    assert result.returncode == 0, result.stdout[-3000:]


def test_the_fleet_checks_still_fail_when_a_host_is_missing_from_the_recap(tmp_path, coloured_log):
    lines = [line for line in coloured_log.read_text().splitlines() if "sched-bench-fleet-2" not in line]
    trimmed = tmp_path / "trimmed.log"
    trimmed.write_text("\n".join(lines))
    result = check(tmp_path, trimmed)
    assert result.returncode != 0
    assert "does not show each host's outcome" in result.stdout
