"""The regression gate (plugin_utils/report/gate.py): parsing, and checks against run directories."""
import os

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import stats as sched_stats
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import gate as gate_module
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import run as run_data
from report_fixtures import env, summary, write_result

GOOD = {
    "*": {"latency_p99_ms": "<= 800", "makespan_s": "worse_by <= 10% significant"},
    "default": {"throughput_pods_per_s": [">= 20", "worse_by<=5%"], "makespan_s": "<= 60"},
}


def test_a_good_gate_parses_and_a_schedulers_own_figure_replaces_the_one_of_every_scheduler():
    gate, problems = gate_module.parse_gate(GOOD)
    assert problems == []
    assert gate.relative and gate.significant
    assert gate.named_schedulers == ["default"]
    default = gate.thresholds("default")
    assert list(default) == ["makespan_s", "throughput_pods_per_s", "latency_p99_ms"]
    assert [threshold.text for threshold in default["makespan_s"]] == ["<= 60"]
    assert [threshold.text for threshold in default["throughput_pods_per_s"]] == [">= 20", "worse_by<=5%"]
    kueue = gate.thresholds("kueue")
    assert [threshold.text for threshold in kueue["makespan_s"]] == ["worse_by <= 10% significant"]


@pytest.mark.parametrize("text, relative, operator, limit, significant", [
    (">= 20", False, ">=", 20.0, False),
    ("<=800", False, "<=", 800.0, False),
    ("<= 0.001", False, "<=", 0.001, False),
    ("  >=   1e3 ", False, ">=", 1000.0, False),
    ("worse_by <= 10%", True, None, 10.0, False),
    ("worse_by <= 2.5 % significant", True, None, 2.5, True),
])
def test_thresholds_that_parse(text, relative, operator, limit, significant):
    threshold = gate_module.parse_threshold(text)
    assert (threshold.relative, threshold.operator, threshold.limit, threshold.significant) == (
        relative, operator, limit, significant)


@pytest.mark.parametrize("text", ["> 20", "< 800", "20", 20, "<= ", "<= fast", "== 3", "worse_by <= 10",
                                  "worse_by < 10%", "worse_by <= -5%", "worse_by <= 10% significantly",
                                  "better_by >= 10%", None, {"le": 3}])
def test_malformed_thresholds_are_refused(text):
    with pytest.raises(ValueError, match="use '>= N', '<= N' or 'worse_by <= N%'"):
        gate_module.parse_threshold(text)


@pytest.mark.parametrize("value, expected", [
    ({"kube-batch": {"makespan_s": "<= 5"}},
     "bench_gate names the scheduler 'kube-batch', which is not allowed: use \"*\" or one of default, kueue, "
     "volcano, yunikorn, coscheduling"),
    ({"default": {"p99": "<= 5"}},
     "bench_gate.default names the figure 'p99', which is not allowed: use one of pods_bound, makespan_s, "),
    ({"*": {"latency_p99_ms": "< 800"}},
     "bench_gate.*.latency_p99_ms='< 800' is not allowed: use '>= N', '<= N' or 'worse_by <= N%' (optionally "
     "followed by ' significant')"),
    ({"*": {"latency_p99_ms": 800}}, "bench_gate.*.latency_p99_ms=800 is not allowed"),
    ({"*": {"latency_p99_ms": []}}, "bench_gate.*.latency_p99_ms=[] is not allowed"),
    ({"default": ["<= 5"]}, "bench_gate.default=['<= 5'] is not allowed: use a mapping of figure to threshold"),
    ({"default": {}}, "bench_gate.default={} is not allowed"),
    (["default"], "bench_gate=['default'] is not allowed: use a mapping of scheduler"),
    ("not json", "bench_gate='not json' is not allowed: use a mapping of scheduler"),
])
def test_bad_gates_are_named_in_one_sentence(value, expected):
    _, problems = gate_module.parse_gate(value)
    assert problems and problems[0].startswith(expected), problems
    assert "\n" not in problems[0]


def test_the_command_lines_json_text_is_a_gate():
    gate, problems = gate_module.parse_gate('{"default": {"latency_p99_ms": "<= 0.001"}}')
    assert problems == [] and gate.thresholds("default")["latency_p99_ms"][0].limit == 0.001
    assert gate_module.parse_gate("")[0].rules == {} and gate_module.parse_gate(None)[1] == []


def test_a_relative_threshold_needs_an_earlier_run():
    _, problems = gate_module.parse_gate({"*": {"makespan_s": "worse_by <= 10%"}}, compared=False)
    assert problems == ["bench_gate.*.makespan_s='worse_by <= 10%' is not allowed without an earlier run to compare "
                        "with: set bench_report_compare_to, or use '>= N' or '<= N'"]
    _, problems = gate_module.parse_gate({"*": {"makespan_s": "worse_by <= 10%"}}, "gate", False, "compare_to")
    assert problems[0].startswith("gate.*.makespan_s=") and problems[0].endswith("set compare_to, or use '>= N' or "
                                                                                 "'<= N'")


ABSOLUTE = gate_module.parse_threshold("<= 800")
AT_LEAST = gate_module.parse_threshold(">= 20")
RELATIVE = gate_module.parse_threshold("worse_by <= 10%")
SIGNIFICANT = gate_module.parse_threshold("worse_by <= 10% significant")
WORSE = sched_stats.Verdict("worse", 0.0286, "Mann-Whitney U, two-sided, exact")
NOT_SIGNIFICANT = sched_stats.Verdict("no significant difference", 0.34, "Mann-Whitney U, two-sided, exact")
NO_VERDICT = sched_stats.Verdict("no verdict possible", reason="1 vs 1 repeats")


@pytest.mark.parametrize("threshold, value, higher_is_better, previous, verdict, passed, why", [
    (ABSOLUTE, 800.0, False, None, None, True, ""),
    (ABSOLUTE, 800.5, False, None, None, False, ""),
    (AT_LEAST, 19.9, True, None, None, False, ""),
    (AT_LEAST, None, True, None, None, False, "no value"),
    # Lower is better: 10 % more is still allowed, 12 % is not.
    (RELATIVE, 110.0, False, 100.0, None, True, "worse by 10%"),
    (RELATIVE, 112.0, False, 100.0, None, False, "worse by 12%"),
    (RELATIVE, 80.0, True, 100.0, None, False, "worse by 20%"),
    (RELATIVE, 120.0, True, 100.0, None, True, "better by 20%"),
    (RELATIVE, 5.0, True, None, None, False, "no value in the earlier run"),
    (SIGNIFICANT, 112.0, False, 100.0, WORSE, False,
     "worse by 12%, significant: worse (p = 0.029, Mann-Whitney U, two-sided, exact)"),
    (SIGNIFICANT, 112.0, False, 100.0, NOT_SIGNIFICANT, True,
     "worse by 12%, not significantly: no significant difference (p = 0.34, Mann-Whitney U, two-sided, exact)"),
    (SIGNIFICANT, 112.0, False, 100.0, NO_VERDICT, False, "worse by 12%, and no verdict possible: 1 vs 1 repeats"),
    (SIGNIFICANT, 105.0, False, 100.0, NO_VERDICT, True, "worse by 5%"),
])
def test_check_verdicts(threshold, value, higher_is_better, previous, verdict, passed, why):
    assert gate_module.check(threshold, value, higher_is_better, previous, verdict) == (passed, why)


def write_run(run_dir, makespans, p99s=None, scheduler="default", host="h"):
    p99s = p99s or [30.0] * len(makespans)
    directory = os.path.join(str(run_dir), host, scheduler)
    for index, (makespan, p99) in enumerate(zip(makespans, p99s)):
        path = directory if index == 0 else os.path.join(directory, "repeat-%d" % (index + 1))
        write_result(path, summary(scheduler, makespan_s=makespan,
                                   latency={"p50": 10.0, "p90": 20.0, "p99": p99, "max": 40.0}),
                     (150,), env(host, scheduler))
    return run_data.load_run(str(run_dir))


def evaluate(value, run, previous=None):
    gate, problems = gate_module.parse_gate(value, compared=previous is not None)
    assert problems == []
    return gate_module.evaluate(gate, run, previous)


def test_absolute_thresholds_on_the_median_of_the_repeats(tmp_path):
    run = write_run(tmp_path / "r", [1.0, 1.2, 1.1], [30.0, 900.0, 31.0])
    checks = evaluate({"*": {"latency_p99_ms": "<= 800", "makespan_s": "<= 1"}}, run)
    assert [(check.figure, check.value, check.passed) for check in checks] == [
        ("makespan_s", 1.1, False), ("latency_p99_ms", 31.0, True)]
    assert checks[0].line() == "gate missed: host h, scheduler default, makespan_s = 1.1, threshold <= 1"


def test_relative_threshold_with_and_without_significance(tmp_path):
    previous = write_run(tmp_path / "r1", [1.0, 1.01, 1.02, 1.03])
    slower = write_run(tmp_path / "r2", [1.2, 1.21, 1.22, 1.23])
    checks = evaluate({"*": {"makespan_s": ["worse_by <= 10%", "worse_by <= 10% significant",
                                            "worse_by <= 25% significant"]}}, slower, previous)
    assert [check.passed for check in checks] == [False, False, True]
    assert checks[1].line() == (
        "gate missed: host h, scheduler default, makespan_s = 1.215 (earlier 1.015), threshold worse_by <= 10% "
        "significant: worse by 19.7%, significant: worse (p = 0.029, Mann-Whitney U, two-sided, exact)")

    noisy = write_run(tmp_path / "r3", [0.9, 1.3, 0.95, 1.25])
    checks = evaluate({"*": {"makespan_s": ["worse_by <= 5%", "worse_by <= 5% significant"]}}, noisy, previous)
    assert [check.passed for check in checks] == [False, True]
    assert "not significantly: no significant difference (p = " in checks[1].why


def test_significance_with_too_few_repeats_is_a_miss(tmp_path):
    previous = write_run(tmp_path / "r1", [1.0])
    run = write_run(tmp_path / "r2", [1.5])
    (check,) = evaluate({"default": {"makespan_s": "worse_by <= 10% significant"}}, run, previous)
    assert not check.passed
    assert check.why == ("worse by 50%, and no verdict possible: 1 vs 1 repeats: a two-sided rank test cannot reach "
                         "p <= 0.05 (smallest p 1)")


def test_a_scheduler_without_numbers_misses_every_check(tmp_path):
    write_result(str(tmp_path / "r" / "h" / "default"), summary(), (150,), env("h"))
    write_result(str(tmp_path / "r" / "h" / "kueue"),
                 summary("kueue", pods_bound=60, complete=False, reason="timed out after 300s"), (60,))
    run = run_data.load_run(str(tmp_path / "r"))
    checks = evaluate({"*": {"throughput_pods_per_s": ">= 20"}, "volcano": {"makespan_s": "<= 10"}}, run)
    assert [(check.scheduler, check.figure, check.passed, check.why) for check in checks] == [
        ("default", "throughput_pods_per_s", True, ""),
        ("kueue", "throughput_pods_per_s", False, "no value: incomplete: timed out after 300s"),
        # A scheduler named in the gate has the thresholds of "*" too.
        ("volcano", "makespan_s", False, "not in run r"),
        ("volcano", "throughput_pods_per_s", False, "not in run r")]
    assert checks[1].line() == ("gate missed: host h, scheduler kueue, throughput_pods_per_s = n/a, threshold >= 20: "
                                "no value: incomplete: timed out after 300s")


def busy_load(percent, busy, threshold=25.0):
    return {"cpus": 2, "window_s": 5.0, "other_cpu_percent": percent, "own_cpu_percent": 30.0,
            "loadavg_before": 0.4, "loadavg_after": 2.5, "busy": busy, "threshold_percent": threshold,
            "top_other": [{"pid": 9, "name": "yes", "cpu_percent": percent - 1}], "own_processes": 7}


def write_loaded_run(run_dir, loads, scheduler="default", host="h", makespan=1.0):
    directory = os.path.join(str(run_dir), host, scheduler)
    for index, load in enumerate(loads):
        doc = summary(scheduler, makespan_s=makespan)
        doc["host_load"] = load
        write_result(directory if index == 0 else os.path.join(directory, "repeat-%d" % (index + 1)), doc, (150,),
                     env(host, scheduler))


def test_refuse_leaves_a_result_measured_on_a_busy_host_unjudged(tmp_path):
    # kueue was busy in one of its three repeats; default was quiet.
    write_loaded_run(tmp_path / "r", [busy_load(10.0, False)] * 3)
    write_loaded_run(tmp_path / "r", [busy_load(10.0, False), busy_load(61.0, True), busy_load(30.0, True, 35.0)],
                     "kueue")
    run = run_data.load_run(str(tmp_path / "r"))
    gate, _ = gate_module.parse_gate({"*": {"makespan_s": "<= 0.5"}})

    (refusal,) = gate_module.refusals(gate, run, busy="refuse")
    assert refusal.line() == (
        "gate refused: host h, scheduler kueue was measured on a busy host in run r, other processes used 61 % of "
        "the host's 2 CPUs (over the 25 % threshold; the busiest: yes 60 %), load average 0.4 before and 2.5 after; "
        "busy in 2 of 3 repeats, the figures are the busiest one's; not judged (bench_gate_busy=refuse)")
    assert refusal.as_dict()["other_cpu_percent"] == 61.0
    checks = gate_module.evaluate(gate, run, refused=[refusal])
    assert [(check.scheduler, check.passed) for check in checks] == [("default", False)]
    # judge (the default): the busy result is checked as any other.
    assert gate_module.refusals(gate, run) == []
    assert [check.scheduler for check in gate_module.evaluate(gate, run)] == ["default", "kueue"]


def test_refuse_a_comparison_with_an_earlier_run_measured_on_a_busy_host(tmp_path):
    write_loaded_run(tmp_path / "r1", [busy_load(80.0, True)])
    write_loaded_run(tmp_path / "r2", [busy_load(5.0, False)])
    previous, run = run_data.load_run(str(tmp_path / "r1")), run_data.load_run(str(tmp_path / "r2"))
    relative, _ = gate_module.parse_gate({"*": {"makespan_s": "worse_by <= 10%"}})
    (refusal,) = gate_module.refusals(relative, run, previous, "refuse")
    assert (refusal.run, refusal.other_cpu_percent) == ("r1", 80.0)
    # An absolute threshold does not look at the earlier run.
    absolute, _ = gate_module.parse_gate({"*": {"makespan_s": "<= 10"}})
    assert gate_module.refusals(absolute, run, previous, "refuse") == []


def test_a_run_without_host_load_is_never_refused(tmp_path):
    write_loaded_run(tmp_path / "r", [None])
    gate, _ = gate_module.parse_gate({"*": {"makespan_s": "<= 10"}})
    assert gate_module.refusals(gate, run_data.load_run(str(tmp_path / "r")), busy="refuse") == []
