"""The upstream matrix (issue 31, plugin_utils/report/matrix.py): its eight scenarios at a scale are valid scenario
files of the stated shapes, and the table scheduler x shape is made from the runs' summaries."""
import pytest
import yaml
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import spec as sched_scenarios
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report import matrix


@pytest.mark.parametrize(("scale", "expected"), [
    (1, [("10000x1", 10000, 1), ("500x20", 500, 20), ("20x500", 20, 500), ("1x10000", 1, 10000)]),
    (0.1, [("10000x1", 1000, 1), ("500x20", 50, 20), ("20x500", 2, 500), ("1x10000", 1, 1000)]),
    (0.01, [("10000x1", 100, 1), ("500x20", 5, 20), ("20x500", 1, 100), ("1x10000", 1, 100)]),
])
def test_each_shape_keeps_its_pods_and_its_shape_at_a_scale(scale, expected):
    assert matrix.sizes(scale) == expected
    assert {jobs * pods for _, jobs, pods in matrix.sizes(scale)} == {round(matrix.FULL_PODS * scale)}


def test_the_eight_scenarios_load_as_scenario_files_with_every_pod_fitting_at_once(tmp_path):
    documents = matrix.scenarios(0.1)
    assert sorted(documents) == sorted("matrix-%s%s" % (label, gang) for label in ("10000x1", "500x20", "20x500",
                                                                                     "1x10000")
                                       for gang in ("", "-gang"))
    for name, document in documents.items():
        path = tmp_path / (name + ".yml")
        path.write_text(yaml.safe_dump(document, sort_keys=False))
        scenario, problems = sched_scenarios.load(str(path))
        assert problems == [], (name, problems)
        assert scenario["name"] == name and scenario["cluster"]["nodes"] == 100
        (group,) = scenario["phases"][0]["groups"]
        assert group["gang"] is name.endswith("-gang")
        jobs = sched_scenarios.expand(scenario)
        assert sum(job["pods_per_job"] for job in jobs) == 1000
        assert {job["arrival_s"] for job in jobs} == {0.0}
        # Every pod fits at once, by CPU and by pod slots.
        cluster, pod = document["cluster"], document["phases"][0]["groups"][0]
        assert cluster["nodes"] * int(cluster["node_cpu"]) >= 1000 * int(pod["pod_cpu"])
        assert cluster["nodes"] * cluster["node_pods"] >= 1000


def summary(scenario, scheduler, makespan, complete=True, gang_p50=None):
    return {"scenario": scenario, "scheduler": scheduler, "jobs_submitted": 2, "workload": {"pods_per_job": 500},
            "complete": complete, "makespan_s": makespan, "throughput_pods_per_s": 1000 / makespan,
            "share_of_binding_ceiling": 0.2, "latency_ms": {"p50": 120.0, "p99": 900.5},
            "scenario_metrics": {"gang": {"time_to_full_gang_ms": {"p50": gang_p50, "p99": gang_p50}}},
            "throughput_limited_by": {"stage": "scheduling"}, "reason": None if complete else "timed out"}


def test_the_table_has_one_line_per_scheduler_and_shape_in_the_matrix_order():
    rows = [matrix.row("lab-01", "volcano", "m-2g", summary("matrix-20x500-gang", "volcano", 8.0, gang_p50=7000.0)),
            matrix.row("lab-01", "volcano", "m-1", summary("matrix-10000x1", "volcano", 20.0)),
            matrix.row("lab-01", "default", "m-2", summary("matrix-20x500", "default", 4.0, complete=False))]
    assert [(r["scheduler"], r["shape"], r["gang"]) for r in matrix.order(rows)] == [
        ("default", "20x500", False), ("volcano", "10000x1", False), ("volcano", "20x500", True)]
    text = matrix.markdown(rows, 0.1)
    lines = text.splitlines()
    assert lines[0].startswith("Matrix at scale 0.1 (1000 pods on 100 fake nodes per shape)")
    assert lines[4] == "| lab-01 | default | 20x500 (2 x 500) | no | 4.0 (incomplete) | 250.0 | 0.200 | 120 / 900 |  | " \
                       "scheduling |"
    assert lines[6].endswith("| yes | 8.0 | 125.0 | 0.200 | 120 / 900 | 7000 / 7000 | scheduling |")
    # Without gang, no time to full gang is shown even if the summary had one.
    assert rows[1]["full_gang_p50_ms"] is None
