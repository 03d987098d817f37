# -*- coding: utf-8 -*-
"""Host calibration: the arithmetic of the fixed probes and the share of a host's ceilings.

Each host measures, once per run and before any scheduler is deployed, how fast
the load generator can create suspended Jobs on its fresh cluster (the API
create ceiling), how fast it can bind pods that exist (the binding ceiling: the
bindings this host takes) and how fast one core runs a fixed piece of Python
(the CPU probe). Both run in a few timed rounds; a probe is reported as the median of
its rounds with their min, max and relative spread. library/bench_calibrate.py
runs them; the load test gives each scheduler's throughput as a share of the
ceiling. No I/O here.
"""
from __future__ import annotations

import hashlib
import json
import time
from concurrent.futures import ThreadPoolExecutor

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.rules import DIRECT
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.stats import median

# The probes are the same on every host, so that hosts compare: change them and earlier runs no longer do.
API_ROUNDS, API_ROUND_S = 3, 1.0
CPU_ROUNDS, CPU_ROUND_S = 3, 1.0
# The binding probe: rounds of this many pods that exist, each bound by a pods/binding request of the load generator
# (its concurrency, its rate limit), timed from the first request to the last answer: how fast this host's API
# server takes bindings with nothing else running.
BIND_ROUNDS, BIND_ROUND_PODS = 3, 400
CPU_PASS_ITERATIONS = 20000
CPU_PASS = "%d steps of a linear congruential generator, each stored in a dict of 1024 slots" % CPU_PASS_ITERATIONS


def cpu_pass():
    """One pass of the CPU probe: integer arithmetic and dict stores in the interpreter, one core; its checksum."""
    value, slots = 1, {}
    for index in range(CPU_PASS_ITERATIONS):
        value = (value * 1103515245 + 12345) & 0x7FFFFFFF
        slots[value & 1023] = index
    return value ^ sum(slots.values())


def timed_round(work, seconds, workers=1, clock=time.perf_counter):
    """(calls, elapsed s): ``workers`` threads each call ``work`` until ``seconds`` have passed.

    Elapsed runs until the last call returned, so the calls still under way at the deadline count in full.
    One worker runs in the calling thread. An exception of ``work`` stops the round and is raised.
    """
    start = clock()
    deadline = start + seconds

    def worker(_index=0):
        calls = 0
        while clock() < deadline:
            work()
            calls += 1
        return calls

    if workers == 1:
        calls = worker()
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            calls = sum(pool.map(worker, range(workers)))
    return calls, clock() - start


def rate(calls, seconds):
    """Calls per second of one round, to two decimals."""
    return round(calls / seconds, 2) if seconds > 0 else 0.0


def summarize_rounds(rates):
    """The median of the rounds' rates, their min and max, and the spread: (max - min) / median in per cent."""
    middle = median(rates)
    low, high = min(rates), max(rates)
    return {"median": round(middle, 2), "min": low, "max": high,
            "spread_pct": round((high - low) / middle * 100.0, 1) if middle else None}


def pods_per_create(work):
    """Pods one create request of the load test brings: a Job's pods, or one with bench_pod_creation direct (the
    load test creates every pod with a request of its own)."""
    return 1 if work["pod_creation"] == DIRECT else int(work["pods_per_job"])


def ceiling_pods_per_s(jobs_per_s, pods_per_create):
    """The create ceiling in pods: every create the load generator makes (a Job here) brings ``pods_per_create``."""
    return round(jobs_per_s * pods_per_create, 1)


def share_of_ceiling(throughput_pods_per_s, ceiling):
    """A scheduler's mean throughput as a share of its host's create ceiling (pods/s), or None without either."""
    if throughput_pods_per_s is None or not ceiling or ceiling <= 0:
        return None
    return round(throughput_pods_per_s / ceiling, 4)


# The create probe's object where the API server drops spec.managedBy (before Kubernetes 1.32, or with the JobManagedBy
# feature gate off): the job controller then syncs each Job and writes its status while the probe creates.
JOBS_SYNCED = "Job (suspended; spec.managedBy dropped by the API server, so the job controller synced each one)"


def api_result(rounds, pods_per_create, duration_s, managed_by_kept=True):
    """calibration.api_create of env.json from the rounds' (jobs created, seconds); ``managed_by_kept``: whether the
    Jobs kept spec.managedBy (no controller touched them)."""
    rates = [rate(calls, seconds) for calls, seconds in rounds]
    jobs = summarize_rounds(rates)
    return {"object": "Job (suspended)" if managed_by_kept else JOBS_SYNCED, "round_s": API_ROUND_S,
            "rounds_jobs_per_s": rates, "jobs_per_s": jobs,
            "jobs_created": sum(calls for calls, _ in rounds),
            "ceiling_pods_per_s": ceiling_pods_per_s(jobs["median"], pods_per_create),
            "duration_s": round(duration_s, 2)}


def binding_result(rounds, duration_s):
    """calibration.api_binding of env.json from the rounds' (pods bound, seconds)."""
    rates = [rate(calls, seconds) for calls, seconds in rounds]
    pods = summarize_rounds(rates)
    return {"object": "pods/binding of a pod that exists", "round_pods": BIND_ROUND_PODS, "rounds_pods_per_s": rates,
            "pods_per_s": pods, "pods_bound": sum(calls for calls, _ in rounds),
            "ceiling_pods_per_s": round(pods["median"], 1), "duration_s": round(duration_s, 2)}


def timed_batch(work, items, workers, clock=time.perf_counter):
    """(len(items), seconds) of ``work(item)`` for every item, ``workers`` at a time."""
    start = clock()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(work, items))
    return len(items), clock() - start


def cpu_result(rounds, python_version, duration_s):
    """calibration.cpu of env.json from the rounds' (passes, seconds)."""
    rates = [rate(calls, seconds) for calls, seconds in rounds]
    return {"pass": CPU_PASS, "round_s": CPU_ROUND_S, "rounds_passes_per_s": rates,
            "passes_per_s": summarize_rounds(rates), "python": python_version, "duration_s": round(duration_s, 2)}


# Reuse: a calibration stays good for bench_calibration_max_age hours, as long as everything the probes depend on
# (its basis) is the same. The basis is compared whole, so a field added to it makes every kept calibration stale.
GENERATOR_FIELDS = ("submit_concurrency", "submit_processes", "client_qps", "client_burst")


def basis(server_version, python_version, host, job, work, fingerprint):
    """What a calibration's figures depend on: the probes themselves, the API server's version, the Python, the
    host (kernel, machine, CPUs), the probed Job as sent, the load generator's settings and what the play adds
    (``fingerprint``: the runtime). Plain JSON values (as read back from a file), compared whole."""
    return json.loads(json.dumps({
        "probes": {"api": [API_ROUNDS, API_ROUND_S], "cpu": [CPU_ROUNDS, CPU_ROUND_S, CPU_PASS],
                   "binding": [BIND_ROUNDS, BIND_ROUND_PODS]},
        "server_version": server_version, "python": python_version, "host": dict(host), "job": job,
        "generator": {field: work[field] for field in GENERATOR_FIELDS},
        "pods_per_create": pods_per_create(work), "fingerprint": dict(fingerprint or {})}, sort_keys=True))


def basis_key(calibration_basis):
    """A short name for a basis: the file a calibration of that basis is kept in."""
    text = json.dumps(calibration_basis, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def measured(probes, run, taken_at):
    """env.json's calibration of a run that measured it: the probes, when (UTC, ISO 8601) and by which run."""
    return dict(probes, measured_at=iso_utc(taken_at), measured_by_run=run, reused=False)


def kept_record(calibration, calibration_basis, taken_at):
    """What is kept on the host for later runs: the calibration, its basis and its time (epoch seconds)."""
    return {"basis": calibration_basis, "taken_at": taken_at, "calibration": calibration}


def reusable(record, calibration_basis, now, max_age_h):
    """The kept ``record``'s calibration marked reused, or (None, why not): a record of the same basis measured at
    most ``max_age_h`` hours before ``now`` (epoch seconds) is good; 0 hours reuses nothing."""
    if max_age_h <= 0:
        return None, "bench_calibration_max_age is 0"
    if not isinstance(record, dict) or not isinstance(record.get("calibration"), dict):
        return None, "none kept"
    if record.get("basis") != calibration_basis:
        return None, "the kept one has another basis"
    taken_at = record.get("taken_at")
    if not isinstance(taken_at, (int, float)) or taken_at > now:
        return None, "the kept one has no valid time"
    age_h = (now - taken_at) / 3600.0
    if age_h > max_age_h:
        return None, "the kept one is %.1f h old, more than %d h" % (age_h, max_age_h)
    return dict(record["calibration"], reused=True, age_h=round(age_h, 2)), None


def iso_utc(epoch_s):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch_s))
