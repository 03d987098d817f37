"""Where a run's time goes: phase rules, per-host arithmetic, the table (plugin_utils/report/phases.py)."""
import os
import sys

import pytest
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import phases as clock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("origins, phase", [
    (["/x/roles/bench/tasks/validate.yml"], clock.INPUT_CHECKS),
    (["gather_facts", "/x/playbooks/benchmark.yml"], clock.INPUT_CHECKS),
    (["/x/playbooks/python.yml"], clock.INPUT_CHECKS),
    (["/x/roles/golang/tasks/main.yml"], clock.BUILDS),
    (["/x/roles/binary_components/tasks/build-kubernetes.yml"], clock.BUILDS),
    # The scheduler's build is a build, the rest of the role its deployment.
    (["/x/roles/scheduler/tasks/build.yml", "/x/roles/scheduler/tasks/main.yml"], clock.BUILDS),
    (["/x/roles/scheduler_components/tasks/build.yml", "/x/roles/scheduler/tasks/volcano/binary.yml"], clock.BUILDS),
    (["/x/roles/scheduler/tasks/default/binary.yml"], clock.SCHEDULER_DEPLOY),
    (["/x/roles/binary_cluster/tasks/pki.yml"], clock.CLUSTER_START),
    (["/x/roles/kind_cluster/tasks/up.yml", "/x/playbooks/tasks/runtimes/kind/start.yml"], clock.CLUSTER_START),
    # A runtime's prepare (kind's: Docker, kind, the local registry) is a build.
    (["tasks/runtimes/kind/prepare.yml", "/x/playbooks/benchmark.yml"], clock.BUILDS),
    (["/x/roles/binary_cluster/tasks/down.yml"], clock.TEARDOWN),
    # Stopping the cluster before the fetch is part of its teardown.
    (["/x/roles/binary_cluster/tasks/stop.yml", "/x/playbooks/tasks/run-scheduler.yml"], clock.TEARDOWN),
    (["/x/roles/kind_cluster/tasks/down.yml", "/x/playbooks/tasks/runtimes/kind/teardown.yml"], clock.TEARDOWN),
    (["/x/roles/loadtest/tasks/calibrate.yml"], clock.CALIBRATION),
    (["/x/roles/loadtest/tasks/main.yml"], clock.LOAD_TEST),
    (["/x/roles/loadtest/tasks/fetch.yml"], clock.FETCH),
    (["/x/playbooks/report.yml"], clock.REPORT),
    (["/x/playbooks/verdict.yml"], clock.REPORT),
    # Innermost first: the Python check inside the load test's role is an input check.
    (["/x/roles/python_env/tasks/main.yml", "/x/roles/loadtest/tasks/main.yml"], clock.INPUT_CHECKS),
    # An include is classified by what it loads, before its own file.
    (["roles/loadtest/tasks/fetch.yml", "/x/playbooks/tasks/run-scheduler.yml"], clock.FETCH),
    (["/x/playbooks/tasks/run-scheduler.yml"], clock.OTHER),
    ([], clock.OTHER),
])
def test_phase_of_a_task_comes_from_the_one_table(origins, phase):
    assert clock.phase_of(origins) == phase


def test_every_phase_of_the_rules_is_a_row_of_the_table():
    assert {phase for phase, _ in clock.PHASE_RULES} | {clock.OTHER, clock.WAITING} == set(clock.PHASES)


def test_one_host_gaps_go_to_the_next_task_and_the_tail_to_the_last():
    # Wall 0..20. Tasks: 1-4 input checks, 5-15 load test, 16-18 teardown.
    # Gaps: 0-1 -> input checks, 4-5 -> load test, 15-16 -> teardown, 18-20 -> teardown (last task).
    seconds = clock.host_phase_seconds({"h": [(1, 4, clock.INPUT_CHECKS), (5, 15, clock.LOAD_TEST),
                                              (16, 18, clock.TEARDOWN)]}, 0, 20)["h"]
    assert seconds[clock.INPUT_CHECKS] == pytest.approx(4)
    assert seconds[clock.LOAD_TEST] == pytest.approx(11)
    assert seconds[clock.TEARDOWN] == pytest.approx(5)
    assert seconds[clock.WAITING] == 0
    assert sum(seconds.values()) == pytest.approx(20)


def test_overlapping_tasks_of_one_host_give_the_time_to_the_later_one():
    # 0-10 load test, 4-6 fetch started inside it: fetch 2 s, load test 8 s.
    segments = clock.owned_segments([(0, 10, clock.LOAD_TEST), (4, 6, clock.FETCH)], 0, 10)
    assert segments == [(0, 4, clock.LOAD_TEST), (4, 6, clock.FETCH), (6, 10, clock.LOAD_TEST)]


def test_spans_are_cut_to_the_wall_time():
    assert clock.owned_segments([(-5, 3, clock.BUILDS), (8, 30, clock.REPORT)], 0, 10) == [
        (0, 3, clock.BUILDS), (8, 10, clock.REPORT)]


def test_a_host_waiting_for_another_host_waits_and_only_the_controller_time_goes_to_its_next_task():
    # Host a: builds 0-2, then nothing until its load test 10-12. Host b: builds 0-8.
    # a's gap 2-10: 2-8 while b builds is waiting (6 s), 8-10 goes to a's next task, the load test.
    seconds = clock.host_phase_seconds({"a": [(0, 2, clock.BUILDS), (10, 12, clock.LOAD_TEST)],
                                        "b": [(0, 8, clock.BUILDS), (10, 12, clock.LOAD_TEST)]}, 0, 12)
    assert seconds["a"][clock.WAITING] == pytest.approx(6)
    assert seconds["a"][clock.BUILDS] == pytest.approx(2)
    assert seconds["a"][clock.LOAD_TEST] == pytest.approx(4)
    assert seconds["b"][clock.WAITING] == 0
    assert seconds["b"][clock.BUILDS] == pytest.approx(8)
    assert seconds["b"][clock.LOAD_TEST] == pytest.approx(4)


def test_a_host_without_tasks_is_all_other_or_waiting():
    seconds = clock.host_phase_seconds({"a": [], "b": [(2, 5, clock.REPORT)]}, 0, 10)
    assert seconds["a"][clock.WAITING] == pytest.approx(3)
    assert seconds["a"][clock.OTHER] == pytest.approx(7)


def test_summarize_gives_shares_and_the_time_outside_the_load_test():
    document = clock.summarize({"h": [(0, 2, clock.INPUT_CHECKS), (2, 8, clock.LOAD_TEST)]}, 0, 8, "r1")
    assert document["run_id"] == "r1"
    assert document["wall_s"] == 8
    assert document["hosts"]["h"]["phases_s"] == {clock.INPUT_CHECKS: 2, clock.LOAD_TEST: 6}
    assert document["hosts"]["h"]["outside_load_test_s"] == 2
    assert document["hosts"]["h"]["outside_load_test_share"] == 0.25


def test_the_table_has_a_row_per_phase_that_took_time_and_a_column_per_host():
    document = clock.summarize({"a": [(0, 1, clock.BUILDS), (1, 4, clock.LOAD_TEST)],
                                "b": [(0, 4, clock.LOAD_TEST)]}, 0, 4)
    headers, rows = clock.table_rows(document)
    assert headers == ["phase", "a", "b"]
    assert rows == [
        [clock.BUILDS, "1.0 s  25.0 %", "0.0 s   0.0 %"],
        [clock.LOAD_TEST, "3.0 s  75.0 %", "4.0 s 100.0 %"],
        [clock.OUTSIDE_LOAD_TEST, "1.0 s  25.0 %", "0.0 s   0.0 %"],
    ]
    lines = clock.table_lines(document)
    assert lines[0].startswith("Where the time went (wall time 4.0 s")
    assert lines[1].split() == ["phase", "a", "b"]
    assert len(lines) == 5


def test_the_callback_finds_a_task_origins_through_its_includes():
    sys.path.insert(0, os.path.join(ROOT, "callback_plugins"))
    import bench_phases

    class Item:
        def __init__(self, path, parent=None, action=None, args=None, role_name=None, tasks_from=None):
            self._path, self._parent, self.action, self.args = path, parent, action, args or {}
            self._role_name = role_name
            self._from_files = {"tasks": tasks_from} if tasks_from else {}

        def get_path(self):
            return self._path

    include = Item("/p/playbooks/tasks/run-scheduler.yml:120", action="ansible.builtin.include_role",
                   role_name="loadtest", tasks_from="fetch")
    task = Item("/p/roles/loadtest/tasks/fetch.yml:3", parent=Item("/p/roles/loadtest/tasks/fetch.yml:1", include))
    assert bench_phases.task_origins(include) == ["roles/loadtest/tasks/fetch.yml", "/p/playbooks/tasks/run-scheduler.yml"]
    assert bench_phases.task_origins(task) == ["/p/roles/loadtest/tasks/fetch.yml", "roles/loadtest/tasks/fetch.yml",
                                               "/p/playbooks/tasks/run-scheduler.yml"]
    kind = Item("/p/playbooks/benchmark.yml:60", action="ansible.builtin.include_tasks",
                args={"_raw_params": "tasks/runtimes/kind/prepare.yml"})
    assert bench_phases.task_origins(kind)[0] == "tasks/runtimes/kind/prepare.yml"
    assert clock.phase_of(bench_phases.task_origins(kind)) == clock.BUILDS
