"""Bad input stops the run with one line naming the variable, before anything changes."""
import os
import subprocess
import sys

import pytest
from conftest import ROOT, failure_text, processes_mentioning, run_playbook

CASES = [
    ("unknown scheduler", {"bench_schedulers": ["default", "kube-batch"]},
     "bench_schedulers contains 'kube-batch', which is not allowed"),
    ("unknown runtime", {"bench_runtime": "minikube"}, "bench_runtime"),
    ("scheduler the runtime cannot run",
     {"bench_runtime": "external", "bench_external_kubeconfig": "/nonexistent", "bench_schedulers": ["volcano"]},
     "bench_schedulers contains 'volcano', which the external runtime cannot run: use default"),
    ("external without a kubeconfig", {"bench_runtime": "external"},
     "bench_external_kubeconfig= is not allowed: with bench_runtime=external it must be the path of a kubeconfig"),
    ("external kubeconfig that does not exist",
     {"bench_runtime": "external", "bench_external_kubeconfig": "/nonexistent/kubeconfig"},
     "bench_external_kubeconfig=/nonexistent/kubeconfig is not allowed"),
    ("unknown scenario", {"bench_scenario": "gangs"},
     "bench_scenario='gangs' is not allowed: use one of burst, fair-share, gang, mixed, priority, steady, trace, or "
     "the path of a scenario file"),
    ("scale too small for a gang", {"bench_scenario": "gang", "bench_scenario_scale": 0.05},
     "bench_scenario_scale=0.05 is not allowed with scenario gang: it leaves 1 fake nodes"),
    ("zero jobs", {"bench_jobs": 0}, "bench_jobs=0 is not allowed: use a whole number of at least 1"),
    ("negative nodes", {"bench_nodes": -2}, "bench_nodes=-2 is not allowed"),
    ("zero timeout", {"bench_timeout": 0}, "bench_timeout=0 is not allowed"),
    ("pod larger than a node", {"bench_pod_cpu": "64"}, "a pod must fit a fake node"),
    ("unknown pod creation", {"bench_pod_creation": "pods"},
     "bench_pod_creation='pods' is not allowed: use one of job-controller, direct"),
    ("direct pods with kueue", {"bench_schedulers": ["default", "kueue"], "bench_pod_creation": "direct"},
     "bench_pod_creation=direct is not supported by kueue: Kueue admits only the kinds of workload it is configured"),
    ("malformed version pin", {"bench_version_pins": {"kind": "latest"}},
     "bench_version_pins={'kind': 'latest'} is not allowed: version pin kind='latest' is malformed"),
    ("unknown version pin", {"bench_version_pins": {"kernel": "v1.0.0"}},
     "bench_version_pins={'kernel': 'v1.0.0'} is not allowed: unknown version pin kernel"),
    ("version pins not a mapping", {"bench_version_pins": "kind=v0.27.0"},
     "bench_version_pins='kind=v0.27.0' is not allowed: use a mapping"),
    ("listen address open to the network without the opt-in", {"bench_listen_address": "0.0.0.0"},
     "bench_listen_address=0.0.0.0 is not allowed: it is not a loopback address"),
    ("listen address not an IP address", {"bench_listen_address": "lab-01"},
     "bench_listen_address='lab-01' is not allowed: use an IP address"),
    ("kind too new for the kernel",
     {"bench_kernel_release": "3.10.0-1160.el7.x86_64", "bench_version_pins": {"kind": "v0.27.0"}},
     "kind v0.27.0 cannot run on kernel 3.10.0-1160.el7.x86_64"),
    ("GOPROXY not a URL", {"golang_goproxy": "goproxy.cn"}, "golang_goproxy=goproxy.cn is not allowed"),
    ("GOPROXY mirror with a relative path", {"golang_goproxy": "file://shared/mirror/go,direct"},
     "golang_goproxy=file://shared/mirror/go,direct is not allowed: a file:// entry needs an absolute path"),
    ("GOPROXY mirror that does not exist", {"golang_goproxy": "file:///nonexistent/mirror,direct"},
     "golang_goproxy=file:///nonexistent/mirror,direct is not allowed: /nonexistent/mirror is not a directory"),
    ("GONOSUMDB not module patterns", {"golang_gonosumdb": "volcano.sh/volcano sigs.k8s.io"},
     "golang_gonosumdb=volcano.sh/volcano sigs.k8s.io is not allowed"),
    ("run id with a path", {"bench_run_id": "../../etc"}, "bench_run_id='../../etc' is not allowed"),
    ("run id with a slash", {"bench_run_id": "a/b"}, "bench_run_id='a/b' is not allowed"),
    ("port range too small", {"bench_port_range_start": 40100, "bench_port_range_end": 40103},
     "port range 40100-40103 on 127.0.0.1 has fewer than 5 free ports"),
    ("bad GOGC", {"bench_scheduler_gogc": "fast"}, "bench_scheduler_gogc='fast' is not allowed"),
    ("calibrate not a switch", {"bench_calibrate": "sometimes"},
     "bench_calibrate='sometimes' is not allowed: use true or false"),
    ("gate with an unknown scheduler", {"bench_gate": {"kube-batch": {"makespan_s": "<= 60"}}},
     "bench_gate names the scheduler 'kube-batch', which is not allowed: use \"*\" or one of default"),
    ("gate with an unknown figure", {"bench_gate": {"default": {"latency_p99": "<= 800"}}},
     "bench_gate.default names the figure 'latency_p99', which is not allowed: use one of pods_bound"),
    ("gate with a malformed threshold", {"bench_gate": {"*": {"latency_p99_ms": "< 800"}}},
     "bench_gate.*.latency_p99_ms='< 800' is not allowed: use '>= N', '<= N' or 'worse_by <= N%'"),
    ("relative gate without compare_to", {"bench_gate": {"*": {"makespan_s": "worse_by <= 10%"}}},
     "bench_gate.*.makespan_s='worse_by <= 10%' is not allowed without an earlier run to compare with"),
    ("compare_to that does not exist", {"bench_report_compare_to": "no-such-run"},
     "bench_report_compare_to=no-such-run is not allowed: it is neither a directory nor a run id in"),
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


@pytest.mark.parametrize("scenario,trace,expected", [
    ("description: [unclosed\n", TRACE, "{path}: {path} line 2 column 1: does not parse as YAML"),
    (SCENARIO, TRACE + "2,0,1,1Gi,5,default,0\n",
     "{path}: {dir}/jobs.csv line 3: row 2, column pods_per_job='0' is not allowed: use a whole number of at least 1"),
], ids=["not YAML", "bad trace row"])
def test_bad_scenario_file_fails_first_with_one_line(tmp_path, bench_vars, scenario, trace, expected):
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


@pytest.mark.parametrize("layout", ["file", "under-a-file"])
def test_results_dir_that_cannot_hold_results_is_named(tmp_path, bench_vars, layout):
    """Found bad only when used (the results are fetched minutes later): checked first, naming the variable."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the results directory should be\n")
    results = blocker if layout == "file" else blocker / "results"
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
    from sched_rules import WORKLOAD
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
    from version_matrix import VERSION_SETS
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
