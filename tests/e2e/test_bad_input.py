"""Bad input stops the run with one line naming the variable, before anything changes."""
import os
import subprocess
import sys

import pytest
from conftest import ROOT, failure_text, processes_mentioning, run_playbook

# One end-to-end case per family of checks, for the wiring (the play runs the rule before anything changes); every
# other message of the same rules is a unit test of the rule itself (tests/unit/test_bench_checks.py,
# test_version_matrix.py, test_scenarios.py, test_sched_workloads.py).
CASES = [
    # a knob: bench_problems over the bench_* variables
    ("zero jobs", {"bench_jobs": 0}, "bench_jobs=0 is not allowed: use a whole number of at least 1"),
    # the knob that bounds what hosts keep (issue 57): refused before any host's workspace is touched
    ("runs to keep that is no count", {"bench_keep_runs": "all"},
     "bench_keep_runs='all' is not allowed: use a whole number of runs, 0 (none once fetched) or more"),
    # a scenario: the same check loads and checks the scenario
    ("unknown scenario", {"bench_scenario": "gangs"},
     "bench_scenario='gangs' is not allowed: use one of ai-training, burst, fair-share, gang, mixed, priority, steady, trace, or "
     "the path of a scenario file"),
    # a pin against the host's kernel: the version matrix
    ("kind too new for the kernel",
     {"bench_kernel_release": "3.10.0-1160.el7.x86_64", "bench_version_pins": {"kind": "v0.27.0"}},
     "kind v0.27.0 cannot run on kernel 3.10.0-1160.el7.x86_64"),
    # a path on the host: the external cluster's kubeconfig
    ("external kubeconfig that does not exist",
     {"bench_runtime": "external", "bench_external_kubeconfig": "/nonexistent/kubeconfig"},
     "bench_external_kubeconfig=/nonexistent/kubeconfig is not allowed"),
    # the golang role's own checks
    ("GOPROXY mirror that does not exist", {"golang_goproxy": "file:///nonexistent/mirror,direct"},
     "golang_goproxy=file:///nonexistent/mirror,direct is not allowed: /nonexistent/mirror is not a directory"),
    # a module run by the checks: the port range
    ("port range too small", {"bench_port_range_start": 40100, "bench_port_range_end": 40103},
     "port range 40100-40103 on 127.0.0.1 has fewer than 5 free ports"),
    # the host's size, from the expanded workload (a scenario's jobs), on the binary runtime too
    ("scenario too big for the host's memory", {"bench_scenario": "gang", "bench_scenario_scale": 400},
     "(needs 32564); lower bench_scenario_scale (bench_scenario=gang) or use a bigger host"),
    # the gate, checked against the run's schedulers
    ("gate with an unknown figure", {"bench_gate": {"default": {"latency_p99": "<= 800"}}},
     "bench_gate.default names the figure 'latency_p99', which is not allowed: use one of pods_bound"),
]


@pytest.mark.parametrize("extra,expected", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_bad_input_fails_first_with_one_line(tmp_path, bench_vars, extra, expected):
    cache = tmp_path / "cache"
    extravars = dict(bench_vars, bench_cache_dir=str(cache))
    extravars.pop("bench_run_id")
    extravars.update(extra)
    runner = run_playbook(tmp_path, "bench.yml", extravars, label="bad")
    assert runner.rc != 0
    failures = [line for line in failure_text(runner).splitlines() if line.strip()]
    assert failures and expected in failures[0], failures
    # Nothing was created anywhere: no workspace, cache, results or process.
    for path in (bench_vars["bench_workspace"], str(cache), bench_vars["bench_results_dir"]):
        assert not os.path.exists(path), path
    assert processes_mentioning(bench_vars["bench_workspace"]) == []


SCENARIO = """\
description: one job from a trace
cluster: {nodes: 1, node_cpu: "4", node_memory: 8Gi, node_pods: 10}
phases:
  - name: replay
    groups:
      - {name: t, arrival: {kind: trace, file: jobs.csv}}
"""
TRACE = "arrival_s,pods_per_job,pod_cpu,pod_memory,pod_duration,tenant,priority\n0,1,1,1Gi,5,default,0\n"


# A scenario file and the trace beside it (a file that does not parse: tests/unit/test_scenarios.py).
def test_bad_scenario_file_fails_first_with_one_line(tmp_path, bench_vars):
    scenario, trace = SCENARIO, TRACE + "2,0,1,1Gi,5,default,0\n"
    expected = ("{path}: {dir}/jobs.csv line 3: row 2, column pods_per_job='0' is not allowed: use a whole number of "
                "at least 1")
    path = tmp_path / "scenario.yml"
    path.write_text(scenario)
    (tmp_path / "jobs.csv").write_text(trace)
    cache = tmp_path / "cache"
    extravars = dict(bench_vars, bench_cache_dir=str(cache), bench_scenario=str(path))
    runner = run_playbook(tmp_path, "bench.yml", extravars, label="scenario")
    assert runner.rc != 0
    failures = [line for line in failure_text(runner).splitlines() if line.strip()]
    assert failures and "bench_scenario=" + expected.format(path=path, dir=tmp_path) in failures[0], failures
    for where in (bench_vars["bench_workspace"], str(cache), bench_vars["bench_results_dir"]):
        assert not os.path.exists(where), where
    assert processes_mentioning(bench_vars["bench_workspace"]) == []


def test_results_dir_that_cannot_hold_results_is_named(tmp_path, bench_vars):
    """Found bad only when used (the results are fetched minutes later): checked first, naming the variable (a
    directory under a file: tests/unit/test_bench_checks.py)."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the results directory should be\n")
    results = blocker
    extravars = dict(bench_vars, bench_results_dir=str(results), bench_cache_dir=str(tmp_path / "cache"))
    runner = run_playbook(tmp_path, "bench.yml", extravars, label="results")
    assert runner.rc != 0
    failures = [line for line in failure_text(runner).splitlines() if line.strip()]
    assert failures and "bench_results_dir=%s is not allowed" % results in failures[0], failures
    assert "is a file, not a directory" in failures[0], failures
    for path in (bench_vars["bench_workspace"], str(tmp_path / "cache")):
        assert not os.path.exists(path), path
    assert blocker.read_text() == "a file where the results directory should be\n"
    assert processes_mentioning(bench_vars["bench_workspace"]) == []


def test_load_test_module_rejects_a_missing_kubeconfig(tmp_path):
    import json

    import yaml
    from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.rules import WORKLOAD
    with open(os.path.join(ROOT, "roles", "bench", "defaults", "main.yml"), encoding="utf-8") as handle:
        defaults = yaml.safe_load(handle)
    out = tmp_path / "out"
    args = {"kubeconfig": str(tmp_path / "missing.kubeconfig"), "output_dir": str(out),
            "workload": {name: defaults["bench_" + name] for name in WORKLOAD}}
    result = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "ansible"), "localhost", "-i",
         os.path.join(ROOT, "inventories", "local"), "-m", "sched_loadtest", "-a", json.dumps(args)],
        cwd=ROOT, env=dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg")),
        capture_output=True, text=True, check=False)
    assert result.returncode != 0
    assert "kubeconfig %s does not exist or is not readable" % (tmp_path / "missing.kubeconfig") in result.stdout
    assert not out.exists()


def fetch_pinned_go():
    """Put the pinned Go toolchain into the project's module cache, through the host's own GOPROXY,
    as a first run would; on a machine with no cache the next test would otherwise stop at Go."""
    from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.versions.matrix import VERSION_SETS
    cache = os.path.join(os.path.expanduser("~"), ".cache", "kube-sched-bench", "go")
    env = dict(os.environ, GOTOOLCHAIN="go" + VERSION_SETS["modern"]["go"], GOMODCACHE=os.path.join(cache, "mod"),
               GOPATH=os.path.join(cache, "path"), GOCACHE=os.path.join(cache, "build"), GOFLAGS="-modcacherw")
    result = subprocess.run(["go", "env", "GOVERSION"], env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_unreachable_proxy_names_the_module_and_the_proxy(tmp_path, bench_vars):
    fetch_pinned_go()
    # A Kubernetes pin that is not built yet, through a proxy nobody answers on.
    extravars = dict(bench_vars, golang_goproxy="http://127.0.0.1:9",
                     bench_version_pins={"kubernetes": "v1.32.3"})
    runner = run_playbook(tmp_path, "bench.yml", extravars, label="proxy")
    assert runner.rc != 0
    text = failure_text(runner)
    assert "k8s.io/kubernetes@v1.32.3" in text, text
    assert "GOPROXY=http://127.0.0.1:9" in text, text
    assert processes_mentioning(bench_vars["bench_workspace"]) == []
