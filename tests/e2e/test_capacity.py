"""bench_queue_quota=cluster gives a batch scheduler the whole cluster (issue 18): its queue object carries the
fake nodes' allocatable, and the summary records that capacity, the makespan bound it allows and the efficiency."""
import json
import os

from conftest import kept_run
from kubernetes import client, config


def test_cluster_quota_gives_kueue_the_whole_cluster_and_the_summary_its_bound(tmp_path, bench_vars):
    # 5 nodes of 2 CPU: 10 CPUs. 8 jobs of 2 one-CPU pods: Kueue admits 5 whole jobs at once, so 2 waves of 5 s.
    with kept_run(tmp_path, bench_vars, "quota", bench_schedulers=["kueue"], bench_queue_quota="cluster",
                  bench_node_cpu="2", bench_jobs=8, bench_pods_per_job=2, bench_pod_duration=5) as kept:
        api = client.CustomObjectsApi(config.new_client_from_config(os.path.join(kept.cluster, "admin.kubeconfig")))
        queue = api.get_cluster_custom_object("kueue.x-k8s.io", "v1beta1", "clusterqueues", "cluster-queue")
        quotas = {resource["name"]: resource["nominalQuota"]
                  for group in queue["spec"]["resourceGroups"] for flavor in group["flavors"]
                  for resource in flavor["resources"]}
        assert quotas == {"cpu": "10", "memory": "1280Gi"}, queue["spec"]

    out = os.path.join(bench_vars["bench_results_dir"], bench_vars["bench_run_id"], "localhost", "kueue")
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as handle:
        summary = json.load(handle)
    with open(os.path.join(out, "env.json"), encoding="utf-8") as handle:
        env = json.load(handle)
    assert summary["complete"] is True and summary["pods_bound"] == 16, summary.get("reason")
    assert summary["workload"]["queue_quota"] == env["workload"]["queue_quota"] == "cluster"
    assert env["queue_quota"] == {"cpu": "10", "memory": "1280Gi"}
    assert summary["capacity"] == {"cpu": 10.0, "memory": "1280Gi", "memory_bytes": 1280 * 2 ** 30, "pods": 550,
                                   "limited_by": "queue quota (cluster)"}
    assert summary["makespan_bound"] == {"unit": "job", "at_once": 5, "waves": 2, "seconds": 5.0}
    # The second wave waits for the first to finish, so no run beats the bound.
    assert summary["makespan_s"] >= 5.0
    assert summary["efficiency"] == round(5.0 / summary["makespan_s"], 3)
    assert 0 < summary["efficiency"] <= 1
