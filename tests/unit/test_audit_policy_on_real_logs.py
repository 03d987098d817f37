"""The lighter audit policy (module_utils/metrics/audit_policies.py AUDIT_POLICY) gives the same figures as the policy the
stored runs were logged under: each real audit log of tests/unit/fixtures/why/ (every write of pods, bindings and
jobs logged with request and response, managed fields included) is cut to what AUDIT_POLICY would have logged
(tests/infra/audit_levels.py), and the load test's readers get the same pods, jobs and API requests from both."""
import gzip
import json
import os

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import audit, audit_policies, requests
from infra.audit_levels import under

WHY = os.path.join(os.path.dirname(__file__), "fixtures", "why")
SCHEDULERS = sorted(os.listdir(WHY))


def write_both(source, tmp_path):
    """(the stored log, the same log as AUDIT_POLICY would have written it) as plain files."""
    full, light = tmp_path / "full.log", tmp_path / "light.log"
    with gzip.open(source, "rt", encoding="utf-8") as handle, open(full, "w", encoding="utf-8") as out_full, \
            open(light, "w", encoding="utf-8") as out_light:
        for line in handle:
            out_full.write(line)
            cut = under(audit_policies.AUDIT_POLICY, json.loads(line))
            if cut is not None:
                out_light.write(json.dumps(cut, separators=(",", ":")) + "\n")
    return str(full), str(light)


def times(path):
    collected = audit.AuditTimes("sched-bench")
    for event in audit.read_audit_events([path], "sched-bench"):
        collected.add(event)
    return (collected.records(), collected.job_created, collected.job_admitted, collected.released_us)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_the_lighter_policy_keeps_every_figure_of_a_real_run(tmp_path, scheduler):
    directory = os.path.join(WHY, scheduler)
    with open(os.path.join(directory, "summary.json"), encoding="utf-8") as handle:
        summary = json.load(handle)
    full, light = write_both(os.path.join(directory, "audit.log.gz"), tmp_path)
    assert times(light) == times(full)
    assert times(full)[0], "the stored log times no pod: nothing was compared"
    window = summary["api_requests"]
    args = (audit.parse_time_us(window["from"]), audit.parse_time_us(window["to"]), summary["pods_bound"])
    programs = [entry["component"] for entry in window["by_component"] if entry.get("role") == "scheduler"]
    assert requests.count_requests([light], *args, programs) == requests.count_requests([full], *args, programs)
    # Every request is still there (api_requests counts them), each lighter or as light as before.
    with open(full, encoding="utf-8") as a, open(light, encoding="utf-8") as b:
        full_lines, light_lines = a.readlines(), b.readlines()
    assert len(light_lines) == len(full_lines)
    assert all(len(cut) <= len(whole) for cut, whole in zip(light_lines, full_lines))
    assert sum(map(len, light_lines)) < sum(map(len, full_lines))
