"""The playbook-level variable checks (filter_plugins/bench_checks.py)."""
import os

import bench_checks
import pytest

GOOD = dict(
    bench_runtime="binary", bench_schedulers=["default"], bench_repeats=1, bench_nodes=20, bench_node_cpu="32",
    bench_node_memory="256Gi", bench_node_pods=110, bench_jobs=50, bench_pods_per_job=3, bench_pod_cpu="1",
    bench_pod_memory="200Mi", bench_pod_duration=30, bench_wait_for="bound", bench_timeout=300,
    bench_submit_concurrency=16, bench_client_qps=1000, bench_client_burst=1000, bench_scheduler_api_qps=1000,
    bench_scheduler_api_burst=1000, bench_scheduler_gogc="", bench_scheduler_gomemlimit="",
    bench_controller_manager_api_qps=1000, bench_controller_manager_api_burst=1000, bench_run_id="",
    bench_port_range_start=20000, bench_port_range_end=32000, bench_throttle=0, bench_queue_quota="cluster",
    bench_pod_creation="job-controller", bench_scenario="burst", bench_scenario_scale=1)


def problems(**changes):
    values = dict(GOOD)
    values.update(changes)
    return bench_checks.bench_problems(values)


def test_defaults_are_fine():
    assert problems() == []


@pytest.mark.parametrize("value", [True, False, "false", "True", "yes", "0"])
def test_calibrate_takes_a_switch_as_yaml_or_the_command_line_gives_it(value):
    assert problems(bench_calibrate=value) == []


def test_scenario_is_burst_a_shipped_name_or_a_file_and_a_bad_one_is_named(tmp_path):
    assert problems(bench_scenario="fair-share") == [] and bench_checks.scenario_of("burst") is None
    assert bench_checks.scenario_of("gang")["tenants"] == {"default": 1.0}
    assert problems(bench_scenario="gangs") == [
        "bench_scenario='gangs' is not allowed: use one of ai-training, burst, fair-share, gang, mixed, priority, steady, trace, "
        "or the path of a scenario file"]
    bad = tmp_path / "bad.yml"
    bad.write_text("description: [unclosed\n")
    assert problems(bench_scenario=str(bad)) == [
        "bench_scenario=%s: %s line 2 column 1: does not parse as YAML: expected ',' or ']', but got '<stream end>'"
        % (bad, bad)]


def test_scenario_scale_is_a_positive_number_the_scenario_can_take():
    assert problems(bench_scenario="gang", bench_scenario_scale=0.125) == []
    assert bench_checks.scenario_of("gang", 0.125)["cluster"]["nodes"] == 2
    for bad in (0, -1, "tenth", True):
        assert problems(bench_scenario="gang", bench_scenario_scale=bad) == [
            "bench_scenario_scale=%r is not allowed: use a number greater than 0" % (bad,)]
    assert problems(bench_scenario="gang", bench_scenario_scale=0.05)[0].startswith(
        "bench_scenario_scale=0.05 is not allowed with scenario gang: it leaves 1 fake nodes")
    assert problems(bench_scenario_scale=2) == [
        "bench_scenario_scale=2 is not allowed with bench_scenario=burst: the burst's size is that of the bench_* "
        "knobs (bench_nodes, bench_jobs, ...)"]
    with pytest.raises(ValueError, match="bench_scenario_scale=0.05"):
        bench_checks.scenario_of("gang", 0.05)


def test_queue_quota_takes_a_name_or_cpu_and_memory():
    assert problems(bench_queue_quota="seed") == []
    assert problems(bench_queue_quota={"cpu": 500, "memory": "500Gi"}) == []


def test_direct_pods_are_accepted_for_every_scheduler_but_kueue():
    assert problems(bench_pod_creation="direct",
                    bench_schedulers=["default", "volcano", "yunikorn", "coscheduling"]) == []
    assert problems(bench_pod_creation="direct", bench_schedulers=["default", "kueue"]) == [
        "bench_pod_creation=direct is not supported by kueue: Kueue admits only the kinds of workload it is "
        "configured to manage, and its plain-pod integration is off in its default configuration, so bare pods "
        "would bypass it; use job-controller"]
    assert problems(bench_pod_creation="job-controller", bench_schedulers=["kueue"]) == []


def test_strings_from_the_command_line_are_accepted():
    assert problems(bench_jobs="50", bench_timeout="12.5", bench_scheduler_gogc="200",
                    bench_scheduler_gomemlimit="2GiB", bench_run_id="nightly-2026.11", bench_busy_threshold="12.5") == []
    assert problems(bench_busy_threshold=0) == problems(bench_busy_threshold=100) == []
    assert problems(bench_keep_runs=0) == problems(bench_keep_runs="3") == []


@pytest.mark.parametrize("changes,needle", [
    ({"bench_runtime": "minikube"}, "bench_runtime='minikube' is not allowed"),
    ({"bench_schedulers": ["default", "kube-batch"]}, "bench_schedulers contains 'kube-batch'"),
    ({"bench_schedulers": "default"}, "use a non-empty list"),
    ({"bench_schedulers": []}, "use a non-empty list"),
    ({"bench_schedulers": ["default", "default"]}, "lists a scheduler twice"),
    ({"bench_runtime": "external", "bench_schedulers": ["default", "kueue"]},
     "bench_schedulers contains 'kueue', which the external runtime cannot run: use default"),
    ({"bench_nodes": 0}, "bench_nodes=0 is not allowed"),
    ({"bench_jobs": "-3"}, "bench_jobs='-3' is not allowed"),
    ({"bench_pods_per_job": 1.5}, "bench_pods_per_job=1.5 is not allowed"),
    ({"bench_timeout": 0}, "bench_timeout=0 is not allowed"),
    ({"bench_pod_duration": -1}, "bench_pod_duration=-1 is not allowed"),
    ({"bench_pod_cpu": "64"}, "a pod must fit a fake node"),
    ({"bench_node_memory": "lots"}, "bench_node_memory='lots' is not allowed"),
    ({"bench_run_id": "../x"}, "bench_run_id='../x' is not allowed"),
    ({"bench_run_id": "a/b"}, "bench_run_id='a/b' is not allowed"),
    ({"bench_run_id": "x..y"}, "bench_run_id='x..y' is not allowed"),
    ({"bench_port_range_start": 30000, "bench_port_range_end": 20000}, "bench_port_range_start=30000"),
    ({"bench_port_range_end": 70000}, "use 1024 <= start <= end <= 65535"),
    ({"bench_scheduler_gogc": "fast"}, "bench_scheduler_gogc='fast' is not allowed"),
    ({"bench_scheduler_gomemlimit": "2 gigs"}, "bench_scheduler_gomemlimit='2 gigs' is not allowed"),
    ({"bench_wait_for": "running"}, "bench_wait_for='running' is not allowed"),
    ({"bench_pod_creation": "controller"},
     "bench_pod_creation='controller' is not allowed: use one of job-controller, direct"),
    ({"bench_throttle": -1}, "bench_throttle=-1 is not allowed"),
    ({"bench_scheduler_cpu_limit": -2}, "bench_scheduler_cpu_limit=-2 is not allowed"),
    ({"bench_scheduler_cpu_profile_seconds": "a bit"}, "bench_scheduler_cpu_profile_seconds='a bit' is not allowed"),
    ({"bench_throttle": "some"}, "bench_throttle='some' is not allowed"),
    ({"bench_keep_runs": -1},
     "bench_keep_runs=-1 is not allowed: use a whole number of runs, 0 (none once fetched) or more"),
    ({"bench_keep_runs": 1.5}, "bench_keep_runs=1.5 is not allowed"),
    ({"bench_keep_runs": "all"}, "bench_keep_runs='all' is not allowed"),
    ({"bench_keep_runs": True}, "bench_keep_runs=True is not allowed"),
    ({"bench_busy_threshold": 150}, "bench_busy_threshold=150 is not allowed: use a percentage from 0 to 100"),
    ({"bench_busy_threshold": "-1"}, "bench_busy_threshold='-1' is not allowed: use a percentage from 0 to 100"),
    ({"bench_gate_busy": "skip"}, "bench_gate_busy='skip' is not allowed: use one of judge, refuse"),
    ({"bench_calibrate": "sometimes"}, "bench_calibrate='sometimes' is not allowed: use true or false"),
    ({"bench_calibrate": 2}, "bench_calibrate=2 is not allowed: use true or false"),
    ({"bench_queue_quota": "all"}, "bench_queue_quota='all' is not allowed: use seed, cluster, or {cpu: <quantity>"),
    ({"bench_queue_quota": {"cpu": "500"}}, "bench_queue_quota={'cpu': '500'} is not allowed"),
    ({"bench_queue_quota": {"cpu": "0", "memory": "1Gi"}}, "is not allowed: use seed, cluster"),
    ({"bench_queue_quota": {"cpu": "2", "memory": "100Gi"}},
     "the queues would hold 2 CPU and 100Gi memory, less than one job of 3 pods of 1 CPU and 200Mi memory"),
    ({"bench_pods_per_job": 2000, "bench_nodes": 100, "bench_queue_quota": "seed"},
     "bench_queue_quota=seed is not allowed: the queues would hold 1000 CPU"),
])
def test_each_bad_value_is_named(changes, needle):
    found = problems(**changes)
    assert found, "expected a problem for %r" % (changes,)
    assert needle in found[0]


@pytest.mark.parametrize("value,ok", [
    ("", True), ("https://goproxy.cn,direct", True), ("https://a.example|https://b.example", True), ("off", True),
    ("file:///srv/mirror/go,https://goproxy.cn,direct", True), ("https://a.example|file:///m|direct", True),
    ("goproxy.cn", False), ("https://goproxy.cn,mirror", False), ("ftp://x", False),
    ("file://srv/mirror", False), ("file://", False)])
def test_goproxy_problem(value, ok):
    problem = bench_checks.goproxy_problem(value)
    assert (problem == "") is ok
    if not ok:
        assert problem.startswith("golang_goproxy=%s is not allowed" % value) and "\n" not in problem


def test_a_relative_file_url_is_named_as_such():
    assert "needs an absolute path" in bench_checks.goproxy_problem("file://../shared/mirror/go,direct")


def test_goproxy_file_paths_are_the_mirror_directories():
    assert bench_checks.goproxy_file_paths("file:///a/go,https://x.example|file:///b,direct") == ["/a/go", "/b"]
    assert bench_checks.goproxy_file_paths("") == []


@pytest.mark.parametrize("value,ok", [
    ("", True), ("github.com/apache/yunikorn-*,volcano.sh/volcano,sigs.k8s.io/scheduler-plugins", True),
    ("*.corp.example", True), ("a b", False), ("x,,y", False), ("https://x", False)])
def test_module_patterns_problem(value, ok):
    problem = bench_checks.module_patterns_problem(value)
    assert (problem == "") is ok, problem
    if not ok:
        assert problem.startswith("golang_gonosumdb=")


def fake_roles(tmp_path):
    """Two roles with argument specs, as roles/*/meta/argument_specs.yml."""
    for role, options in {"bench": ["bench_jobs", "bench_nodes"], "golang": ["golang_goproxy"]}.items():
        meta = tmp_path / role / "meta"
        meta.mkdir(parents=True)
        (meta / "argument_specs.yml").write_text(
            "argument_specs:\n  main:\n    options:\n" + "".join("      %s: {type: str}\n" % o for o in options))
    return str(tmp_path)


def test_unknown_knobs_names_each_typo_with_the_closest_knob(tmp_path):
    roles = fake_roles(tmp_path)
    found = bench_checks.unknown_knobs({"bench_job": 5, "golang_goprxy": "x", "bench_nodes": 3}, roles)
    assert found == [
        "bench_job is not a variable of this toolkit: did you mean bench_jobs? (a name set on purpose for something "
        "else goes in bench_unchecked_vars)",
        "golang_goprxy is not a variable of this toolkit: did you mean golang_goproxy? (a name set on purpose for "
        "something else goes in bench_unchecked_vars)"]


def test_unknown_knobs_leaves_other_prefixes_and_listed_names_alone(tmp_path):
    roles = fake_roles(tmp_path)
    variables = {"ansible_host": "x", "inventory_hostname": "h", "docker_users": ["a"], "my_var": 1, "golang_extra": 1}
    assert bench_checks.unknown_knobs(variables, roles, ["golang_extra"]) == []
    assert "no knob has a similar name" in bench_checks.unknown_knobs({"bench_zzz": 1}, roles)[0]


def test_every_default_of_every_role_is_a_known_knob():
    """The argument specs are the one list of knobs: a default they lack would be refused as a typo."""
    import glob

    import yaml
    roles = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "roles")
    defaults = {}
    for path in glob.glob(os.path.join(roles, "*", "defaults", "main.yml")):
        with open(path, encoding="utf-8") as handle:
            defaults.update(yaml.safe_load(handle) or {})
    assert bench_checks.unknown_knobs(defaults, roles) == []


def test_runtime_schedulers_match_the_scheduler_roles_task_files():
    """Every runtime-scheduler pair the checks accept has its deploy tasks, and no task file is left out."""
    import glob

    from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import rules as sched_rules
    from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import knob_checks
    tasks = os.path.join(os.path.dirname(__file__), "..", "..", "roles", "scheduler", "tasks")
    # roles/scheduler/tasks/<scheduler>/<runtime>.yml
    present = {tuple(os.path.relpath(path, tasks)[:-4].split(os.sep)) for path in glob.glob(os.path.join(tasks, "*", "*.yml"))}
    accepted = {(name, runtime) for runtime, names in knob_checks.RUNTIME_SCHEDULERS.items() for name in names}
    deployable = {(name, runtime) for name, runtime in present
                  if runtime in sched_rules.RUNTIMES and name in knob_checks.SCHEDULERS}
    assert accepted == deployable


def test_workload_names_are_bench_variables_with_defaults():

    import yaml
    defaults = os.path.join(os.path.dirname(__file__), "..", "..", "roles", "bench", "defaults", "main.yml")
    with open(defaults, encoding="utf-8") as handle:
        names = set(yaml.safe_load(handle))
    assert set(bench_checks.bench_variables("workload")) <= names
    assert set(bench_checks.bench_variables("checked")) - names == set()


@pytest.mark.parametrize("changes,needle", [
    ({"bench_listen_address": "0.0.0.0"}, "bench_listen_address=0.0.0.0 is not allowed: it is not a loopback address"),
    ({"bench_listen_address": "10.1.2.3", "bench_allow_remote_access": "false"},
     "set bench_allow_remote_access: true"),
    ({"bench_listen_address": "lab-01"}, "bench_listen_address='lab-01' is not allowed: use an IP address"),
    ({"bench_allow_remote_access": "maybe"}, "bench_allow_remote_access='maybe' is not allowed: use true or false"),
    ({"bench_version_pins": {"kind": "latest"}},
     "bench_version_pins={'kind': 'latest'} is not allowed: version pin kind='latest' is malformed"),
    ({"bench_version_pins": {"kernel": "v1.0.0"}}, "bench_version_pins={'kernel': 'v1.0.0'} is not allowed: unknown"),
    ({"bench_version_pins": "kind=v0.27.0"}, "bench_version_pins='kind=v0.27.0' is not allowed: use a mapping"),
])
def test_listen_address_and_pins_are_named(changes, needle):
    found = problems(**changes)
    assert found and needle in found[0], found


@pytest.mark.parametrize("address,allow", [("127.0.0.1", False), ("127.0.0.2", False), ("::1", False),
                                           ("0.0.0.0", True), ("10.1.2.3", "true"), ("192.168.0.5", "yes")])
def test_loopback_or_the_opt_in_is_accepted(address, allow):
    assert problems(bench_listen_address=address, bench_allow_remote_access=allow) == []


def test_good_pins_are_accepted():
    assert problems(bench_version_pins={"kind": "v0.19.0", "go": "1.23.10", "etcd": ""}) == []


def test_results_dir_that_exists_or_can_be_created_is_fine(tmp_path):
    assert bench_checks.results_dir_problem(str(tmp_path)) == ""
    assert bench_checks.results_dir_problem(str(tmp_path / "a" / "b")) == ""


def test_results_dir_that_is_a_file_is_named(tmp_path):
    (tmp_path / "f").write_text("x")
    assert bench_checks.results_dir_problem(str(tmp_path / "f")) == (
        "bench_results_dir=%s is not allowed: it is a file, not a directory; use a directory for the results"
        % (tmp_path / "f"))
    problem = bench_checks.results_dir_problem(str(tmp_path / "f" / "sub"))
    assert problem.startswith("bench_results_dir=%s is not allowed: it cannot be created, %s is a file"
                              % (tmp_path / "f" / "sub", tmp_path / "f")), problem


@pytest.mark.parametrize("changes,expected", [
    ({"bench_gate": {"kube-batch": {"makespan_s": "<= 60"}}},
     "bench_gate names the scheduler 'kube-batch', which is not allowed: use \"*\" or one of default"),
    ({"bench_gate": {"*": {"p99": "<= 800"}}}, "bench_gate.* names the figure 'p99', which is not allowed: use one of"),
    ({"bench_gate": {"default": {"latency_p99_ms": "below 800"}}},
     "bench_gate.default.latency_p99_ms='below 800' is not allowed: use '>= N', '<= N' or 'worse_by <= N%'"),
    ({"bench_gate": {"default": {"makespan_s": "worse_by <= 10%"}}},
     "bench_gate.default.makespan_s='worse_by <= 10%' is not allowed without an earlier run to compare with: set "
     "bench_report_compare_to"),
    ({"bench_gate": {"kueue": {"makespan_s": "<= 60"}}},
     "bench_gate names the scheduler 'kueue', which is not allowed: bench_schedulers=['default'] does not run it"),
    ({"bench_gate": "latency_p99_ms <= 800"}, "bench_gate='latency_p99_ms <= 800' is not allowed: use a mapping"),
])
def test_a_bad_gate_is_one_line_naming_bench_gate(changes, expected):
    found = problems(**changes)
    assert found and found[0].startswith(expected), found


def test_a_significant_gate_needs_repeats_that_can_reach_significance(tmp_path):
    (tmp_path / "r1").mkdir()
    gate = {"*": {"makespan_s": "worse_by <= 10% significant"}}
    found = problems(bench_gate=gate, bench_report_compare_to="r1", bench_results_dir=str(tmp_path), bench_repeats=3)
    assert found == ["bench_gate.*.makespan_s='worse_by <= 10% significant' is not allowed with bench_repeats=3: a "
                     "rank test on 3 vs 3 repeats cannot reach p <= 0.05; use bench_repeats=4 or more, or drop "
                     "'significant'"]
    assert problems(bench_gate=gate, bench_report_compare_to="r1", bench_results_dir=str(tmp_path),
                    bench_repeats="4") == []


def test_compare_to_must_be_an_earlier_run(tmp_path):
    (tmp_path / "results" / "20261130T000000Z").mkdir(parents=True)
    results = str(tmp_path / "results")
    assert problems(bench_report_compare_to="20261130T000000Z", bench_results_dir=results) == []
    assert problems(bench_report_compare_to=str(tmp_path / "results" / "20261130T000000Z")) == []
    assert problems(bench_report_compare_to="nope", bench_results_dir=results) == [
        "bench_report_compare_to=nope is not allowed: it is neither a directory nor a run id in %s; give an earlier "
        "run's id or directory" % results]
    # Without bench_results_dir, run ids are looked up in the project's results/.
    assert bench_checks.PROJECT_DIR + "/results;" in problems(bench_report_compare_to="nope-no-such-run")[0]


def test_a_good_gate_with_compare_to_passes(tmp_path):
    (tmp_path / "r1").mkdir()
    gate = {"*": {"latency_p99_ms": "<= 800"}, "default": {"throughput_pods_per_s": [">= 20", "worse_by <= 5%"]}}
    assert problems(bench_gate=gate, bench_report_compare_to="r1", bench_results_dir=str(tmp_path)) == []
    # As the command line gives it (-e bench_gate='{...}'): JSON text.
    assert problems(bench_gate='{"default": {"latency_p99_ms": "<= 0.001"}}') == []


def test_host_workload_counts_a_burst_and_an_expanded_scenario_and_names_their_knobs():
    burst = {"nodes": 100, "jobs": 1000, "pods_per_job": 3}
    assert bench_checks.host_workload(burst) == {
        "nodes": 100, "pods": 3000, "knobs": "bench_jobs, bench_pods_per_job or bench_nodes"}
    gang = bench_checks.scenario_of("gang", 2)
    size = bench_checks.host_workload(dict(burst, **gang["cluster"]), gang)
    # scenarios/gang.yml: 12 jobs of 8 pods, 8 of 12 and 4 of 16 (256 pods) on 16 nodes, twice over.
    assert size == {"nodes": 32, "pods": 512, "knobs": "bench_scenario_scale (bench_scenario=gang)"}
