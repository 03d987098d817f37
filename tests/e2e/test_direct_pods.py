"""bench_pod_creation=direct (issue 14): the load test creates each job's pods itself, for the default scheduler
and Volcano, and they are timed and recorded as the pods of Jobs are. The audit log shows that no Job was made
and no pod had an owner, and Volcano's controller made no PodGroup of its own; the kept cluster shows the pods
as they ended.

The pods are created by two load generator processes (bench_submit_processes=2, issue 31): the audit log shows
each process's User-Agent on the pods of every other job.

The same run has a YuniKorn between them that exits at start (a bad entry in yunikorn-configs): that scheduler
fails alone, with the tail of its log, and the schedulers before and after it keep their results."""
import os
from collections import Counter

from conftest import audit_events, failure_text, kept_run, mirror_vars, read_rows, scheduler_results
from kubernetes import client, config

NODES, JOBS, PODS_PER_JOB, PROCESSES = 10, 20, 3, 2
SCHEDULERS = ["default", "volcano"]
BROKEN = "yunikorn"
NAMESPACE = "sched-bench"


def creations(audit_gz):
    """(resource, name, response metadata, user agent) of every successful create in the test's namespace."""
    found = []
    for event in audit_events(audit_gz, NAMESPACE, succeeded=True):
        ref = event.get("objectRef") or {}
        if event.get("verb") != "create" or ref.get("namespace") != NAMESPACE or ref.get("subresource"):
            continue
        meta = (event.get("responseObject") or {}).get("metadata") or {}
        found.append((ref.get("resource"), ref.get("name") or meta.get("name"), meta, event.get("userAgent")))
    return found


def test_direct_pods_are_bound_timed_and_recorded_without_a_job(tmp_path, bench_vars):
    # Pods run 2 s and the run waits until they completed: kwok finishes pods without a Job owner too.
    # The last scheduler's cluster is kept: Volcano's.
    with kept_run(tmp_path, bench_vars, "direct", failing=[BROKEN], bench_schedulers=["default", BROKEN, "volcano"],
                  bench_pod_creation="direct", bench_nodes=NODES, bench_jobs=JOBS, bench_pods_per_job=PODS_PER_JOB,
                  bench_pod_duration=2, bench_wait_for="completed", bench_fetch_audit_log=True,
                  bench_submit_processes=PROCESSES,
                  scheduler_yunikorn_configs={"kubernetes.qps": "lots"}, **mirror_vars()) as kept:
        text = failure_text(kept.runner)
        assert "yunikorn-scheduler exited with code" in text, text
        # The tail of its log, in the task's message, says why.
        assert "lots" in text.split("yunikorn-scheduler exited with code", 1)[1], text
        api = config.new_client_from_config(os.path.join(kept.cluster, "admin.kubeconfig"))
        pods = client.CoreV1Api(api).list_namespaced_pod(NAMESPACE).items
        groups = client.CustomObjectsApi(api).list_namespaced_custom_object(
            "scheduling.volcano.sh", "v1beta1", NAMESPACE, "podgroups")["items"]
        assert client.BatchV1Api(api).list_namespaced_job(NAMESPACE).items == []
        assert len(pods) == JOBS * PODS_PER_JOB
        assert [pod.metadata.name for pod in pods if pod.metadata.owner_references] == []
        assert {pod.status.phase for pod in pods} == {"Succeeded"}
        assert {pod.spec.scheduler_name for pod in pods} == {"volcano"}
        assert sorted(group["metadata"]["name"] for group in groups) == ["job-%05d" % i for i in range(JOBS)]

    for scheduler in SCHEDULERS:
        out, summary, env = scheduler_results(bench_vars, scheduler)
        assert summary["complete"] is True, (scheduler, summary.get("reason"))
        assert summary["pods_bound"] == summary["pods_completed"] == JOBS * PODS_PER_JOB, scheduler
        assert summary["jobs_submitted"] == JOBS
        assert summary["timing_source"] == "audit"
        assert summary["workload"]["pod_creation"] == env["workload"]["pod_creation"] == "direct"
        stage = summary["throughput_limited_by"]
        assert stage["stage"] not in ("pod creation", "admission"), stage
        print("%s direct: makespan %.2f s, %.1f pods/s, limited by %s" % (
            scheduler, summary["makespan_s"], summary["throughput_pods_per_s"], stage["stage"]))

        rows = read_rows(out, "pods.csv")
        assert Counter(row["job"] for row in rows) == {"job-%05d" % i: PODS_PER_JOB for i in range(JOBS)}
        assert all(row["pod"].startswith(row["job"] + "-") and row["bound"] for row in rows)

        made = creations(os.path.join(out, "audit.log.gz"))
        assert Counter(entry[0] for entry in made if entry[0] in ("jobs", "pods", "podgroups")) == (
            {"pods": JOBS * PODS_PER_JOB, **({"podgroups": JOBS} if scheduler == "volcano" else {})}), scheduler
        assert [name for resource, name, meta, _ in made if resource == "pods" and meta.get("ownerReferences")] == []
        # Every other job's pods by each process, as the jobs were dealt.
        assert summary["workload"]["submit_processes"] == PROCESSES
        by_agent = {(int(name.split("-")[1]) % PROCESSES, agent) for resource, name, _, agent in made
                    if resource == "pods"}
        assert by_agent == {(index, "sched-bench-loadgen/%d" % (index + 1)) for index in range(PROCESSES)}, by_agent
        # The pods' creation started the makespan: no Job was created before them.
        first_pod = min(row["created"] for row in rows)
        assert summary["start"] == first_pod
