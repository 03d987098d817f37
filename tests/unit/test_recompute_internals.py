"""A stored run carries the evidence of its "why" (docs/metrics.md): internals, component_cost and api_requests
recomputed from its files alone (tests/recompute_internals.py, written from the document, not from module_utils)
equal the summary's, and a figure changed by hand is caught.

The run: the seed's burst at 60 pods (20 jobs of 3 pods on 10 fake nodes), every scheduler on the binary runtime of
this machine (recorded 2026-12-05 with bench_fetch_audit_log); its scrapes, /proc samples and audit log are kept under
fixtures/why/ (the audit log cut to the lines of the window)."""
import copy
import json
import os

import pytest
import recompute_internals
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.internals import CONTROL_PLANE
from result_checks import summary_problems

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "why")
SCHEDULERS = sorted(os.listdir(FIXTURES))


def load(scheduler):
    directory = os.path.join(FIXTURES, scheduler)
    with open(os.path.join(directory, "summary.json"), encoding="utf-8") as handle:
        return directory, json.load(handle)


def specs(scheduler):
    return dict(schedulers.get(scheduler)["internals"], **CONTROL_PLANE)


def test_the_stored_run_has_every_scheduler():
    assert SCHEDULERS == sorted(schedulers.NAMES)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_the_why_of_a_real_run_is_recomputed_from_its_files(scheduler):
    directory, summary = load(scheduler)
    assert summary_problems(summary) == []
    assert summary["internals"]["unread"] == {}
    assert recompute_internals.internals_differences(directory, summary, specs(scheduler)) == []
    assert recompute_internals.cost_differences(directory, summary) == []
    assert recompute_internals.requests_differences(os.path.join(directory, "audit.log.gz"), summary) == []


def test_a_figure_changed_by_hand_is_caught():
    directory, summary = load("default")
    changed = copy.deepcopy(summary)
    histogram = changed["internals"]["processes"]["kube-scheduler"]["attempt_duration"]
    histogram["p90_ms"] = (histogram["p90_ms"] or 0) + 0.5
    changed["component_cost"]["components"][0]["cpu_seconds"] += 0.01
    changed["api_requests"]["by_component"][0]["requests"] += 1
    changed["api_requests"]["inflight_peak"] += 1
    assert len(recompute_internals.internals_differences(directory, changed, specs("default"))) == 1
    assert len(recompute_internals.cost_differences(directory, changed)) == 1
    assert len(recompute_internals.requests_differences(os.path.join(directory, "audit.log.gz"), changed)) == 2
