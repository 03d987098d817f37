"""summary.json's placement and pods.csv's topology columns (docs/metrics.md#placement) on a hand-made run: 4 nodes of
4 GPUs in 2 racks, one gang of two 4-GPU pods and two single-GPU jobs; the figures worked out by hand below, the
written files recomputed by tests/recompute.py, a planted wrong column found, and a run without GPUs or topology."""
import gzip
import json

import recompute
import summary_samples
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import results as sched_load
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import placement, records
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import spec as sched_scenarios
from result_checks import csv_problems, summary_problems
from test_documented_rounding import DOC, json_problems

S, T0 = summary_samples.S, summary_samples.T0
SCENARIO = """\
description: two racks of GPU nodes, a gang of whole nodes and single-GPU jobs
cluster:
  pools:
    - {name: gpu, count: 4, cpu: "16", memory: 64Gi, pods: 8, resources: {nvidia.com/gpu: 4}}
  topology:
    levels: [{name: rack, count: 2}]
phases:
  - name: all
    groups:
      - {name: gang, gang: true, jobs: 1, pods_per_job: 2, pod_gpu: 4, pod_cpu: "2", pod_memory: 8Gi, pod_duration: 10,
         arrival: {kind: at_once}}
      - {name: single, jobs: 2, pods_per_job: 1, pod_gpu: 1, pod_cpu: "1", pod_memory: 1Gi, pod_duration: 10,
         arrival: {kind: at_once}}
"""


def pod(job, index, node, bound_s):
    return {"job": job, "pod": "%s-%d" % (job, index), "node": "kwok-node-%d" % node, "created_us": T0,
            "bound_us": T0 + int(bound_s * S), "ended_us": None, "completed_us": None}


def gpu_run(tmp_path):
    """Everything created at 0; single-00000 bound on node 0 at 0.1 s, single-00001 on node 1 at 0.2 s, the gang's
    pods on nodes 2 and 3 (rack 2) at 1 s and 2 s; nothing ends before the window's end (2 s)."""
    path = tmp_path / "gpu.yml"
    path.write_text(SCENARIO)
    scenario, problems = sched_scenarios.load(str(path))
    assert not problems, problems
    jobs = sched_scenarios.expand(scenario)
    pods = [pod("single-00000", 0, 0, 0.1), pod("single-00001", 0, 1, 0.2), pod("gang-00000", 0, 2, 1.0),
            pod("gang-00000", 1, 3, 2.0)]
    created = {job["name"]: T0 for job in jobs}
    return summary_samples._build(scenario, jobs, pods, created, dict(summary_samples.WORK)) + (scenario,)


def test_the_gpu_and_topology_figures_are_the_hand_worked_ones(tmp_path):
    summary = gpu_run(tmp_path)[0]
    figures = summary["placement"]
    # GPUs held: 1 over [0.1, 0.2), 2 over [0.2, 1), 6 over [1, 2), 10 at 2 s, of 16.
    # Stranded: from 0.2 s only 4-GPU pods wait, and nodes 0 and 1 keep 3 free GPUs each that fit none: 6 over 1.8 s.
    assert figures["gpu"] == {"total": 16, "allocated_share_mean": round(7.7 / 32, 4), "allocated_share_peak": 0.625,
                                "pending_s": 2.0, "stranded_share": round(6 * 1.8 / (16 * 2.0), 4)}
    assert figures["locality"] == {"jobs": 1, "levels": [{"level": "rack", "one_group_share": 1.0, "groups_p50": 1,
                                                            "groups_max": 1}]}
    assert [(size["pods"], size["jobs"], size["jobs_all_bound"], size["all_bound_ms"]["p50"])
            for size in figures["by_pods"]] == [(1, 2, 2, 100.0), (2, 1, 1, 2000.0)]
    assert figures["head_of_line"] == {"largest_gpus": 8, "largest_jobs": 1, "single_jobs": 2,
                                         "largest_wait_p50_ms": 2000.0, "single_wait_p50_ms": 100.0, "ratio": 20.0}
    assert summary_problems(summary) == []
    assert json_problems(figures, DOC["summary.json"], ["placement"]) == []
    assert isinstance(figures["locality"]["levels"][0]["groups_p50"], int)


def test_a_job_spread_over_both_racks_is_not_local():
    cluster = {"pools": [{"name": "gpu", "count": 4, "cpu": "16", "memory": "64Gi", "pods": 8,
                          "resources": {"nvidia.com/gpu": 4}, "labels": {}}],
               "topology": {"levels": [{"name": "rack", "count": 2}]}}
    job = {"name": "gang-00000", "pods_per_job": 2, "created_us": T0, "pod_duration": 10}
    spread = [pod("gang-00000", 0, 1, 1.0), pod("gang-00000", 1, 2, 2.0)]
    assert placement.locality(cluster, [job], spread)["levels"] == [
        {"level": "rack", "one_group_share": 0.0, "groups_p50": 2, "groups_max": 2}]
    assert placement.locality(cluster, [job], spread[:1]) is None  # not all bound
    assert placement.locality(dict(cluster, topology=None), [job], spread) is None


def write(tmp_path, summary, timeline, jobs, pods, scenario):
    out = tmp_path / "result"
    rows = records.scenario_pod_rows(pods, jobs, scenario["cluster"])
    sched_load.write_files(str(out), summary, sched_load._csv_text(records.pod_fields(scenario["cluster"]), rows), timeline,
                           {"jobs.csv": sched_load._csv_text(records.JOB_FIELDS, records.job_rows(jobs, pods)),
                            "scenario.json": json.dumps(dict(scenario, events=summary_samples.EVENTS))})
    return out, rows


def test_pods_csv_has_each_pods_rack_and_the_files_recompute_the_figures(tmp_path):
    summary, timeline, jobs, pods, scenario = gpu_run(tmp_path)
    out, rows = write(tmp_path, summary, timeline, jobs, pods, scenario)
    assert [(row["node"], row["rack"]) for row in rows] == [
        ("kwok-node-0", "rack-1"), ("kwok-node-1", "rack-1"), ("kwok-node-2", "rack-2"), ("kwok-node-3", "rack-2")]
    text = (out / "pods.csv.gz").read_bytes()
    header = gzip.decompress(text).decode().splitlines()[0]
    assert header.startswith("job,pod,node,rack,created,")
    assert csv_problems(gzip.decompress(text).decode(), "pods.csv") == []
    assert csv_problems(header.replace("node,rack,created", "node,created,rack") + "\n", "pods.csv")[0].startswith(
        "pods.csv: the header ")
    written = json.loads((out / "summary.json").read_text())
    assert recompute.differences(str(out), written) == []
    written["placement"]["gpu"]["stranded_share"] = 0.5
    assert recompute.differences(str(out), written) == ["placement.gpu.stranded_share: recomputed 0.3375, summary 0.5"]


def test_a_wrong_rack_in_pods_csv_is_a_difference(tmp_path):
    summary, timeline, jobs, pods, scenario = gpu_run(tmp_path)
    moved = [dict(record, node="kwok-node-2") if record["pod"] == "single-00000-0" else record for record in pods]
    out, _ = write(tmp_path, summary, timeline, jobs, pods, scenario)
    rows = records.scenario_pod_rows(moved, jobs, scenario["cluster"])
    rows[0]["node"] = "kwok-node-0"  # the node kept, its rack from another
    sched_load.write_files(str(out), summary, sched_load._csv_text(records.pod_fields(scenario["cluster"]), rows), timeline,
                           {})
    found = recompute.differences(str(out), json.loads((out / "summary.json").read_text()))
    assert found == ["pods.csv: 1 pods whose topology columns are not their node's groups, first single-00000-0"]


def test_without_gpus_or_topology_those_figures_are_null(tmp_path):
    summary = summary_samples.scenario_run(tmp_path)[0]
    assert summary["placement"]["gpu"] is None and summary["placement"]["locality"] is None
    assert summary["placement"]["head_of_line"] is None
    assert [size["pods"] for size in summary["placement"]["by_pods"]] == [2, 4]
    assert "rack" not in records.pod_fields(summary_samples.scenario_run(tmp_path)[4]["cluster"])
