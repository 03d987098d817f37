"""A mistyped knob stops the run before anything is built or started, naming where it was set
and the knob it most likely meant; known knobs run as before.

Each case runs bench.yml on a two-host inventory of this machine (both hosts local), with the
typo in extra vars, in a group_vars file or in one host's host_vars file.
"""
import json
import os
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT, processes_mentioning

BIN = os.path.dirname(sys.executable)


def inventory(tmp_path, group_vars=None, host_vars=None):
    base = tmp_path / "inventory"
    (base / "group_vars").mkdir(parents=True)
    (base / "host_vars").mkdir()
    local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
    (base / "hosts.yml").write_text(json.dumps({"all": {"hosts": {"lab-01": local, "lab-02": local}}}))
    # YAML as users write it (Ansible records the line of each value it reads from YAML).
    (base / "group_vars" / "all.yml").write_text(yaml.safe_dump(group_vars or {}))
    (base / "host_vars" / "lab-02.yml").write_text(yaml.safe_dump(host_vars or {}))
    return base


def bench(inventory_dir, extravars, *options):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_FORCE_COLOR="0", PATH=BIN + os.pathsep + os.environ.get("PATH", ""))
    return subprocess.run([os.path.join(BIN, "ansible-playbook"), "bench.yml", "-i", str(inventory_dir / "hosts.yml"),
                           "-e", json.dumps(extravars), *options],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=False, timeout=900)


def isolated(tmp_path, bench_vars, *set_in_inventory):
    """The test's extra vars, but for the knobs a case sets in its inventory (extra vars would override them)."""
    kept = {name: value for name, value in bench_vars.items() if name not in set_in_inventory}
    return dict(kept, bench_cache_dir=str(tmp_path / "cache"))


def assert_nothing_was_made(tmp_path, extravars):
    for key in ("bench_workspace", "bench_cache_dir", "bench_results_dir"):
        assert not os.path.exists(extravars[key]), key
    assert processes_mentioning(extravars["bench_workspace"]) == []


# Each place a knob is set, once; the first in a real run, the others in check mode (the check runs first either way).
CASES = [
    ("extra vars", False, {"bench_job": 5}, {}, {},
     ["lab-01: bench_job, set in extra vars (-e), is not a variable of this toolkit: did you mean bench_jobs?",
      "lab-02: bench_job, set in extra vars (-e), is not a variable of this toolkit: did you mean bench_jobs?"]),
    ("group_vars", True, {}, {"golang_goprxy": "https://goproxy.cn,direct"}, {},
     ["lab-01: golang_goprxy, set in group_vars/all.yml line 1, is not a variable of this toolkit: "
      "did you mean golang_goproxy?"]),
    ("host_vars", True, {}, {}, {"bench_node": 500},
     ["lab-02: bench_node, set in host_vars/lab-02.yml line 1, is not a variable of this toolkit: "
      "did you mean bench_nodes?"]),
]


@pytest.mark.parametrize("check_mode,extra,group_vars,host_vars,expected", [case[1:] for case in CASES],
                         ids=[case[0] for case in CASES])
def test_a_mistyped_knob_stops_the_run_with_a_suggestion(tmp_path, bench_vars, check_mode, extra, group_vars,
                                                         host_vars, expected):
    extravars = dict(isolated(tmp_path, bench_vars), **extra)
    result = bench(inventory(tmp_path, group_vars, host_vars), extravars, *(["--check"] if check_mode else []))
    assert result.returncode != 0
    text = " ".join(result.stdout.split())
    for line in expected:
        assert line in text, result.stdout[-3000:]
    # The whole run stops there, on every host, also where the typo is not (a fleet runs one benchmark).
    assert "TASK [golang" not in result.stdout and "TASK [Prepare" not in result.stdout, result.stdout[-3000:]
    assert_nothing_was_made(tmp_path, extravars)


def test_known_knobs_and_names_let_through_on_purpose_run_as_before(tmp_path, bench_vars):
    extravars = dict(isolated(tmp_path, bench_vars, "bench_nodes"), bench_jobs=5, bench_unchecked_vars=["docker_users"])
    group_vars = {"golang_goproxy": "", "docker_users": ["alice"]}
    result = bench(inventory(tmp_path, group_vars, {"bench_nodes": 5}), extravars, "--check")
    assert "is not a variable of this toolkit" not in result.stdout, result.stdout[-3000:]
    assert result.returncode == 0, result.stdout[-3000:]
    assert "create 5 fake nodes and 5 jobs" in result.stdout
