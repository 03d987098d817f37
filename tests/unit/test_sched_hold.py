"""bench_arrival=backlog (issue 31): which schedulers can be held and how (module_utils/loadtest/hold.py), the input
checks of the play and of the module, and a real process held and released by signals."""
import subprocess
import time

import bench_checks
import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.guard import process_state, stop_group
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import hold
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import workloads as w
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import spec as sched_scenarios
from test_bench_checks import GOOD
from test_sched_workloads import WORK


def play_problems(**changes):
    return bench_checks.bench_problems(dict(GOOD, **dict({"bench_arrival": "backlog"}, **changes)))


def test_backlog_is_accepted_on_the_binary_runtime_with_the_burst():
    assert play_problems() == []
    assert play_problems(bench_scenario="gang", bench_scenario_scale=0.125) == []


@pytest.mark.parametrize("runtime", ["kind", "external"])
def test_backlog_elsewhere_than_the_binary_runtime_is_refused_in_one_line(runtime):
    assert play_problems(bench_runtime=runtime) == [
        "bench_arrival=backlog is not supported on the %s runtime: only binary holds a scheduler until the release "
        "(its processes are the toolkit's own there); use open-loop" % runtime]


def test_a_scenario_whose_jobs_arrive_over_time_cannot_be_a_backlog():
    found = play_problems(bench_scenario="steady", bench_scenario_scale=0.125)
    assert len(found) == 1
    assert found[0].startswith("bench_arrival=backlog is not allowed with scenario steady: 149 of its 150 jobs arrive "
                               "after the start"), found


def test_an_unknown_arrival_is_named_with_what_is_allowed():
    assert play_problems(bench_arrival="trickle") == [
        "bench_arrival='trickle' is not allowed: use one of open-loop, backlog"]


def module_params(**work):
    return dict(scheduler="default", namespace="sched-bench", run_label="r1", workload=dict(WORK, arrival="backlog", **work))


def test_the_module_holds_what_the_descriptor_names_and_refuses_without_its_pid_file():
    assert w.validate(module_params()) is None
    assert hold.hold_problem("default", ["/run/c1/kube-scheduler.pid"]) is None
    assert hold.hold_problem("kueue", ["/run/c1/kueue.pid", "/run/c1/kube-scheduler.pid"]) is None
    assert hold.hold_problem("default", []) == (
        "workload.arrival=backlog: scheduler default cannot be held: scheduler_pid_files has no pid file of "
        "kube-scheduler (a backlog needs the binary runtime, where the scheduler runs as the toolkit's own processes)")
    # Volcano is held by its scheduler alone, not by the controller that makes its pods.
    assert "no pid file of vc-scheduler" in hold.hold_problem("volcano", ["/run/c1/vc-controller-manager.pid"])


def test_every_descriptor_says_how_it_is_held():
    for name, descriptor in schedulers.DESCRIPTORS.items():
        spec = descriptor["hold"]
        assert bool(spec.get("processes")) != bool(spec.get("stop_policy")), name
        for key in ("stop_policy", "backlog"):
            if spec.get(key):
                assert len(hold.resource(spec[key])) == 3, (name, key)


def test_the_backlog_is_the_pods_unless_they_appear_only_after_admission():
    assert hold.backlog_resource("default", "job-controller") is None
    assert hold.backlog_resource("kueue", "job-controller") == ("kueue.x-k8s.io", "v1beta1", "workloads")
    assert hold.backlog_resource("volcano", "job-controller") == ("scheduling.volcano.sh", "v1beta1", "podgroups")
    # Pods the load test creates itself exist before the release whatever the scheduler.
    assert hold.backlog_resource("volcano", "direct") is None


def test_held_pid_files_are_picked_by_name():
    files = ["/r/vc-scheduler.pid", "/r/vc-controller-manager.pid", "/r/vc-webhook-manager.pid"]
    assert hold.held_pid_files("volcano", files) == ["/r/vc-scheduler.pid"]
    assert hold.held_pid_files("kueue", ["/r/kueue.pid", "/r/kube-scheduler.pid"]) == []


@pytest.fixture
def sleeper(tmp_path):
    process = subprocess.Popen(["sleep", "60"], start_new_session=True)
    path = tmp_path / "kube-scheduler.pid"
    path.write_text("%d\n" % process.pid)
    yield process, str(path)
    process.kill()
    process.wait()


def test_a_held_process_is_stopped_until_the_release(sleeper):
    process, path = sleeper
    held = hold.Hold("default", [path], custom=None)
    held.engage(time.monotonic() + 10)
    assert process_state(process.pid) == "T"
    assert held.release() == []
    deadline = time.monotonic() + 5
    while process_state(process.pid) == "T" and time.monotonic() < deadline:
        time.sleep(0.01)
    assert process_state(process.pid) in ("S", "R")
    # A second release (the load test's finally after its own) changes nothing.
    assert held.release() == []


def test_a_hold_on_a_process_that_is_gone_fails_with_its_pid_file(tmp_path):
    path = tmp_path / "kube-scheduler.pid"
    path.write_text("999999999\n")
    with pytest.raises(hold.HoldError, match="its process .*kube-scheduler.pid. is not running"):
        hold.Hold("default", [str(path)], custom=None).engage(time.monotonic() + 1)


def test_a_held_process_stops_on_sigterm_without_waiting_for_the_sigkill(sleeper):
    process, path = sleeper
    hold.Hold("default", [path], custom=None).engage(time.monotonic() + 10)
    began = time.monotonic()
    assert stop_group([process.pid], 30) == []
    # Without the SIGCONT after the SIGTERM, a stopped process would end only at the SIGKILL, 30 s later.
    assert time.monotonic() - began < 10
    process.wait(5)


class Queues:
    """Kueue's ClusterQueues as the custom-objects API shows them: Active until their stopPolicy is Hold."""

    def __init__(self, *names):
        self.policy = {name: "None" for name in names}
        self.calls = []

    def list_cluster_custom_object(self, group, version, plural):
        return {"items": [{"metadata": {"name": name}} for name in self.policy]}

    def get_cluster_custom_object(self, group, version, plural, name):
        active = "True" if self.policy[name] == "None" else "False"
        return {"status": {"conditions": [{"type": "Active", "status": active}]}}

    def patch_cluster_custom_object(self, group, version, plural, name, body, _content_type=None):
        self.calls.append((plural, name, body, _content_type))
        self.policy[name] = body["spec"]["stopPolicy"]


def test_kueue_is_held_by_its_cluster_queues_stop_policy():
    queues = Queues("cluster-queue", "tenant-a")
    held = hold.Hold("kueue", ["/r/kueue.pid", "/r/kube-scheduler.pid"], queues)
    held.engage(time.monotonic() + 5)
    assert queues.policy == {"cluster-queue": "Hold", "tenant-a": "Hold"}
    assert held.release() == []
    assert queues.policy == {"cluster-queue": "None", "tenant-a": "None"}
    assert {call[3] for call in queues.calls} == {"application/merge-patch+json"}


def test_the_module_refuses_a_scenario_whose_jobs_arrive_over_time():
    steady, _ = sched_scenarios.scaled(sched_scenarios.load("steady")[0], 0.125)
    gang, _ = sched_scenarios.scaled(sched_scenarios.load("gang")[0], 0.125)
    assert w.validate(dict(module_params(), scenario=steady)).startswith(
        "workload.arrival=backlog is not allowed with scenario steady: 149 of its 150 jobs")
    assert w.validate(dict(module_params(), scenario=gang)) is None
