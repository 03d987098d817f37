#!/usr/bin/env python3
"""How fast does the load generator submit jobs? (make bench-loadgen)

Starts a binary-runtime cluster (control plane + kwok, no scheduler) with
playbooks/cluster.yml, then creates jobs with the same code the sched_loadtest
module uses (raw bodies, a thread pool, the client-side rate limiter), once
sequentially and once concurrently, and prints jobs/s and pods/s. The
controller manager keeps creating the jobs' pods meanwhile, as in a real run.
The cluster is stopped at the end, also on failure.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import ansible.module_utils
from kubernetes import client as k8s_client

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The project's module_utils as a module gets them from Ansible, as ansible.module_utils.<name>: the way they
# import each other.
ansible.module_utils.__path__.append(os.path.join(ROOT, "module_utils"))

from ansible.module_utils.sched_client import RateLimiter, api_client, apis, create_workload, drain  # noqa: E402 - needs the path
from ansible.module_utils.sched_rules import JOB_CONTROLLER  # noqa: E402 - needs the path
from ansible.module_utils.sched_workloads import Target, workload  # noqa: E402 - needs the path


def playbook(workspace, state, port):
    command = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"),
               os.path.join(ROOT, "playbooks", "cluster.yml"), "-i", os.path.join(ROOT, "inventories", "local"),
               "-e", "bench_cluster_state=%s" % state, "-e", "bench_workspace=%s" % workspace,
               "-e", "bench_port_range_start=%d" % port, "-e", "bench_port_range_end=%d" % (port + 99)]
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit("playbooks/cluster.yml (%s) failed:\n%s" % (state, result.stdout[-4000:]))


def work(jobs, pods_per_job):
    return dict(jobs=jobs, pods_per_job=pods_per_job, pod_cpu="1", pod_memory="200Mi", pod_duration=30.0,
                pod_creation=JOB_CONTROLLER)


def make_namespace(core, name):
    drain(core.create_namespace({"metadata": {"name": name}}, _preload_content=False))
    for _ in range(600):
        try:
            drain(core.read_namespaced_service_account("default", name, _preload_content=False))
            return
        except Exception:  # noqa: BLE001 - not there yet
            time.sleep(0.1)
    sys.exit("namespace %s got no default service account" % name)


def submit(client, namespace, jobs, pods_per_job, concurrency, qps, burst):
    client_apis = apis(client)
    limiter = RateLimiter(qps, burst)
    target, w = Target("default", namespace, "loadgen"), work(jobs, pods_per_job)
    bodies = [workload(index, target, w) for index in range(jobs)]

    def create(objects):
        create_workload(client_apis, namespace, objects, limiter.acquire)

    start, cpu_start = time.monotonic(), time.process_time()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        list(pool.map(create, bodies))
    return time.monotonic() - start, time.process_time() - cpu_start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--pods-per-job", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--qps", type=float, default=1000)
    parser.add_argument("--burst", type=int, default=1000)
    parser.add_argument("--port", type=int, default=31000, help="first of 100 local ports for the cluster")
    args = parser.parse_args()

    workspace = tempfile.mkdtemp(prefix="sched-bench-loadgen-")
    print("starting a binary-runtime cluster (control plane + kwok, no scheduler) in %s" % workspace, flush=True)
    playbook(workspace, "present", args.port)
    try:
        client = api_client(os.path.join(workspace, "clusters", "bench", "admin.kubeconfig"), None,
                            args.concurrency + 2)
        core = k8s_client.CoreV1Api(client)
        rows = []
        for label, concurrency in (("sequential", 1), ("concurrent", args.concurrency)):
            namespace = "loadgen-%s" % label
            make_namespace(core, namespace)
            seconds, cpu = submit(client, namespace, args.jobs, args.pods_per_job, concurrency, args.qps, args.burst)
            rows.append((label, concurrency, args.jobs, seconds, cpu))
        print()
        print("%-11s %11s %6s %9s %8s %8s %14s" % ("submission", "concurrency", "jobs", "seconds", "jobs/s", "pods/s",
                                                  "client CPU ms/job"))
        for label, concurrency, jobs, seconds, cpu in rows:
            print("%-11s %11d %6d %9.2f %8.1f %8.1f %14.2f" % (label, concurrency, jobs, seconds, jobs / seconds,
                                                              jobs * args.pods_per_job / seconds, cpu * 1000 / jobs))
        print("(client limit %g QPS, burst %d; pods/s = jobs/s x %d pods per job)"
              % (args.qps, args.burst, args.pods_per_job))
    finally:
        playbook(workspace, "absent", args.port)
        subprocess.run(["rm", "-rf", workspace], check=False)


if __name__ == "__main__":
    main()
