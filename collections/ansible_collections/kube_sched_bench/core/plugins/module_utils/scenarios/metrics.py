# -*- coding: utf-8 -*-
"""What a scenario measures, from per-job and per-pod records (findings: findings.py).

Times are integer microseconds since the epoch, as in module_utils/metrics/audit.py. The records:

- a job: a job of ``sched_scenarios.expand`` (name, tenant, priority, gang, pods_per_job, pod_millicores,
  pod_memory_bytes, pod_duration, arrival_s) with ``created_us`` and ``admitted_us`` (None where the
  scheduler has no admission step, or never admitted it);
- a pod: ``job``, ``pod``, ``node``, ``created_us``, ``bound_us`` (None: never bound) and ``ended_us``
  (when it was evicted or deleted during the run; None otherwise).

A bound pod holds its requests until it ends or until its job's pod_duration has passed (kwok then
completes it), whichever comes first. A bound pod that ended before its duration was preempted (one that
ended unbound was not), and the time it had run is work lost. Definitions: docs/metrics.md#scenario_metrics (what
each is for: docs/scenarios.md). No I/O here.
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import node_pools
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.audit import US, latency_summary
from ansible_collections.kube_sched_bench.core.plugins.module_utils.objects.builders import node_index

# The milestones of a job after its creation, in order (admitted: None where there is no admission step).
STAGES = ("admitted", "first_pod_created", "first_bound", "all_bound")


def _ms(us):
    return round(us / 1000.0, 3)


def _duration_us(job):
    return int(round(job["pod_duration"] * US))


def release_us(pod, job):
    """When a bound pod gives its requests back: evicted or deleted, or done after its duration."""
    done = pod["bound_us"] + _duration_us(job)
    return done if pod.get("ended_us") is None else min(done, pod["ended_us"])


def preempted(pod, job):
    """A pod that was bound and then evicted or deleted before it had run its duration."""
    return (pod.get("bound_us") is not None and pod.get("ended_us") is not None
            and pod["ended_us"] < pod["bound_us"] + _duration_us(job))


def pods_of(pods):
    out = {}
    for pod in pods:
        out.setdefault(pod["job"], []).append(pod)
    return out


def span(jobs, pods):
    """(start, end): the first job's creation and the last event of any record."""
    created = [job["created_us"] for job in jobs if job.get("created_us") is not None]
    times = created + [pod[key] for pod in pods for key in ("created_us", "bound_us", "ended_us")
                       if pod.get(key) is not None]
    if not times:
        return None, None
    return (min(created) if created else min(times)), max(times)


def milestones(job, pods):
    """When a job reached each stage (None: never). all_bound is the pods_per_job-th binding among its pods that
    were not preempted, so a preempted pod counts only through its replacement."""
    kept = sorted(pod["bound_us"] for pod in pods if pod.get("bound_us") is not None and not preempted(pod, job))
    need = job["pods_per_job"]
    return {"created": job.get("created_us"), "admitted": job.get("admitted_us"),
            "first_pod_created": min((pod["created_us"] for pod in pods), default=None),
            "first_bound": min((pod["bound_us"] for pod in pods if pod.get("bound_us") is not None), default=None),
            "all_bound": kept[need - 1] if len(kept) >= need else None}


def breakdown(jobs, pods):
    """(rows, summary): per job, each stage's time since the job's creation in ms (None: not reached or no such
    stage); the summary has each stage's percentiles over the jobs that reached it."""
    grouped = pods_of(pods)
    rows = []
    for job in jobs:
        reached = milestones(job, grouped.get(job["name"], []))
        row = {"job": job["name"], "tenant": job["tenant"], "priority": job["priority"], "gang": job["gang"]}
        for stage in STAGES:
            known = reached["created"] is not None and reached[stage] is not None
            row[stage + "_ms"] = _ms(reached[stage] - reached["created"]) if known else None
        rows.append(row)
    summary = {stage + "_ms": latency_summary([row[stage + "_ms"] for row in rows if row[stage + "_ms"] is not None])
               for stage in STAGES}
    summary.update(jobs=len(rows), jobs_all_bound=sum(row["all_bound_ms"] is not None for row in rows),
                   jobs_not_all_bound=[row["job"] for row in rows if row["all_bound_ms"] is None])
    return rows, summary


def gang_progress(job, pods, end_us):
    """(full_us, partial_us, partial_pod_us) of one gang job up to ``end_us``: when it first held all its pods at
    once (None: never), how long before that it held some but not all, and those pods' time (pod-microseconds)."""
    need = job["pods_per_job"]
    events = [(end_us, 0)]
    for pod in pods:
        if pod.get("bound_us") is not None and pod["bound_us"] <= end_us:
            events += [(pod["bound_us"], 1), (release_us(pod, job), -1)]
    held, last, partial_us, partial_pod_us = 0, None, 0, 0
    for when, change in sorted(event for event in events if event[0] <= end_us):  # releases first at one time
        if last is not None and 0 < held < need:
            partial_us += when - last
            partial_pod_us += held * (when - last)
        held, last = held + change, when
        if held >= need:
            return when, partial_us, partial_pod_us
    return None, partial_us, partial_pod_us


def gang_metrics(jobs, pods, end_us, stuck_partial_s=None):
    """Time to full gang, partial-gang exposure and the jobs stuck partial longer than ``stuck_partial_s``."""
    grouped = pods_of(pods)
    full_ms, exposure, partial, stuck = [], 0, 0, []
    gangs = [job for job in jobs if job["gang"]]
    for job in gangs:
        full_us, partial_us, partial_pod_us = gang_progress(job, grouped.get(job["name"], []), end_us)
        if full_us is not None and job.get("created_us") is not None:
            full_ms.append(_ms(full_us - job["created_us"]))
        exposure += partial_pod_us
        partial += partial_us > 0
        if stuck_partial_s is not None and partial_us > stuck_partial_s * US:
            stuck.append(job["name"])
    return {"gang_jobs": len(gangs), "full_gangs": len(full_ms), "time_to_full_gang_ms": latency_summary(full_ms),
            "partial_gang_jobs": partial, "partial_gang_pod_s": round(exposure / US, 3),
            "stuck_partial_s": stuck_partial_s, "stuck_partial_jobs": stuck}


def pool_of(found, node):
    """The pool of ``node`` among the cluster's pools ``found``: the one pool, or the one its number falls in (the
    nodes are numbered across the pools in order: objects/builders.py fake_nodes)."""
    if len(found) == 1:
        return found[0]
    index = node_index(node)
    for pool in found:
        if index < pool["count"]:
            return pool
        index -= pool["count"]
    return found[-1]


def _fitting_gang(at_us, jobs, pods, cluster, full):
    """The first gang job waiting at ``at_us`` (created, holding no pod, never full before) whose pods would all fit
    the nodes' free room then (node by node, GPUs counted), or None."""
    by_name = {job["name"]: job for job in jobs}
    used, held = {}, set()
    for pod in pods:
        job = by_name.get(pod["job"])
        if job is None or pod.get("bound_us") is None or not pod["bound_us"] <= at_us < release_us(pod, job):
            continue
        load = used.setdefault(pod["node"], [0, 0, 0, 0])
        load[0] += job["pod_millicores"]
        load[1] += job["pod_memory_bytes"]
        load[2] += 1
        load[3] += job.get("pod_gpu", 0)
        held.add(job["name"])
    found = node_pools.pools(cluster)
    unused = {pool["name"]: pool["count"] for pool in found}
    for node in used:
        unused[pool_of(found, node)["name"]] -= 1
    for job in jobs:
        waiting = (job["gang"] and job.get("created_us") is not None and job["created_us"] <= at_us
                   and job["name"] not in held and (full.get(job["name"]) is None or full[job["name"]] > at_us))
        if not waiting:
            continue
        size = (job["pod_millicores"], job["pod_memory_bytes"], job.get("pod_gpu", 0))
        room = (sum(max(0, unused[pool["name"]]) * node_pools.pod_room(pool, *size) for pool in found)
                + sum(node_pools.pod_room(pool_of(found, node), *size, used=load) for node, load in used.items()))
        if room >= job["pods_per_job"]:
            return job["name"]
    return None


def stalls(jobs, pods, cluster, start_us, end_us, stall_s):
    """Spans of at least ``stall_s`` without a binding while a whole waiting gang would fit the free room.

    Within a span without bindings the free room and the waiting gangs only grow, so checking ``stall_s`` before
    the span's end decides it. Each stall: from_s and to_s (since the start) and the gang that fit.
    """
    grouped = pods_of(pods)
    full = {job["name"]: gang_progress(job, grouped.get(job["name"], []), end_us)[0] for job in jobs if job["gang"]}
    edges = [start_us] + sorted(pod["bound_us"] for pod in pods
                                if pod.get("bound_us") is not None and start_us <= pod["bound_us"] <= end_us) + [end_us]
    found = []
    for begin, finish in zip(edges, edges[1:]):
        if finish - begin >= stall_s * US:
            job = _fitting_gang(finish - int(stall_s * US), jobs, pods, cluster, full)
            if job:
                found.append({"from_s": round((begin - start_us) / US, 3), "to_s": round((finish - start_us) / US, 3),
                              "job": job})
    return {"stall_s": stall_s, "stalled": bool(found), "stalls": found}


def weighted_targets(total, weights, demands):
    """Weighted max-min shares of ``total`` (water-filling): a tenant gets total x weight / sum of weights, but never
    more than it asks for; what it leaves goes to the others by weight."""
    out = {name: 0.0 for name in weights}
    active, left = set(weights), float(total)
    while active:
        weight_sum = sum(weights[name] for name in active)
        capped = [name for name in active if demands[name] <= left * weights[name] / weight_sum]
        if not capped:
            for name in active:
                out[name] = left * weights[name] / weight_sum
            break
        for name in capped:
            out[name] = float(demands[name])
            left -= demands[name]
            active.discard(name)
    return out


def _cpu_events(jobs, pods, tenants):
    """(time, tenant, allocated change, demand change) in millicores."""
    by_name = {job["name"]: job for job in jobs}
    events = [(job["created_us"], job["tenant"], 0, job["pods_per_job"] * job["pod_millicores"])
              for job in jobs if job["tenant"] in tenants and job.get("created_us") is not None]
    for pod in pods:
        job = by_name.get(pod["job"])
        if job is None or job["tenant"] not in tenants or pod.get("bound_us") is None:
            continue
        cpu, release = job["pod_millicores"], release_us(pod, job)
        events.append((pod["bound_us"], job["tenant"], cpu, 0))
        events.append((release, job["tenant"], -cpu, 0 if preempted(pod, job) else -cpu))
    return sorted(events)


def fair_share(jobs, pods, weights, start_us, end_us):
    """Each tenant's share of the allocated CPU against its target over [start, end].

    At each moment the target is the weighted max-min division of the allocated CPU among the tenants that ask for
    some (``weighted_targets``, capped by what each asks: CPU of its created jobs' pods not yet done). The fairness
    error is the time-average of the mean absolute deviation of share from target over those tenants (0: perfect);
    Jain's index is time-averaged over their share/target ratios (1: perfect). Moments with nothing allocated are
    left out. ``series`` has each second's average shares and targets.
    """
    allocated, demand = dict.fromkeys(weights, 0), dict.fromkeys(weights, 0)
    events = _cpu_events(jobs, pods, weights)
    points = sorted({start_us, end_us} | {event[0] for event in events if start_us <= event[0] <= end_us})
    sums = {"covered": 0, "error": 0.0, "jain": 0.0, "share": dict.fromkeys(weights, 0.0),
            "target": dict.fromkeys(weights, 0.0)}
    seconds = {}
    applied = 0
    for at, following in zip(points, points[1:]):
        while applied < len(events) and events[applied][0] <= at:
            _, tenant, allocated_change, demand_change = events[applied]
            allocated[tenant] += allocated_change
            demand[tenant] += demand_change
            applied += 1
        total = sum(allocated.values())
        asking = {name: weights[name] for name in weights if max(demand[name], allocated[name]) > 0}
        if total <= 0 or following <= at:
            continue
        targets = weighted_targets(total, asking, {name: max(demand[name], allocated[name]) for name in asking})
        shares = {name: allocated[name] / total for name in weights}
        target_shares = {name: targets.get(name, 0.0) / total for name in weights}
        ratios = [shares[name] / target_shares[name] for name in asking if target_shares[name] > 0]
        length = following - at
        sums["covered"] += length
        sums["error"] += length * sum(abs(shares[name] - target_shares[name]) for name in asking) / len(asking)
        sums["jain"] += length * sum(ratios) ** 2 / (len(ratios) * sum(ratio * ratio for ratio in ratios))
        for name in weights:
            sums["share"][name] += length * shares[name]
            sums["target"][name] += length * target_shares[name]
        _add_to_seconds(seconds, at - start_us, following - start_us, shares, target_shares)
    covered = sums["covered"]
    return {
        "covered_s": round(covered / US, 3),
        "fairness_error": round(sums["error"] / covered, 4) if covered else None,
        "jain_index": round(sums["jain"] / covered, 4) if covered else None,
        "tenants": {name: {"weight": weights[name],
                           "share": round(sums["share"][name] / covered, 4) if covered else None,
                           "target": round(sums["target"][name] / covered, 4) if covered else None}
                    for name in weights},
        "series": [{"second": second, "shares": {name: round(value / part[0], 4) for name, value in part[1].items()},
                    "targets": {name: round(value / part[0], 4) for name, value in part[2].items()}}
                   for second, part in sorted(seconds.items())],
    }


def _add_to_seconds(seconds, begin, finish, shares, targets):
    """Spread one constant stretch [begin, finish) (microseconds since the start) over the whole seconds it covers."""
    while begin < finish:
        second = begin // US
        piece = min(finish, (second + 1) * US) - begin
        entry = seconds.setdefault(second, [0, dict.fromkeys(shares, 0.0), dict.fromkeys(shares, 0.0)])
        entry[0] += piece
        for name in shares:
            entry[1][name] += piece * shares[name]
            entry[2][name] += piece * targets[name]
        begin += piece


def tenant_latency(rows):
    """Per tenant, the percentiles of creation -> all pods bound (ms) of its jobs, from ``breakdown``'s rows."""
    out = {}
    for row in rows:
        out.setdefault(row["tenant"], [])
        if row["all_bound_ms"] is not None:
            out[row["tenant"]].append(row["all_bound_ms"])
    return {tenant: latency_summary(values) for tenant, values in out.items()}


def priority_metrics(jobs, pods):
    """The highest priority's jobs' creation -> all pods bound, the pods preempted and the work they lost.

    None when every job has the same priority. Preempted: bound, then evicted or deleted before its duration, at
    any priority; work lost: the pod-seconds those pods had run.
    """
    levels = sorted({job["priority"] for job in jobs})
    if len(levels) < 2:
        return None
    grouped, by_name = pods_of(pods), {job["name"]: job for job in jobs}
    high = [job for job in jobs if job["priority"] == levels[-1]]
    waits, unbound = [], []
    for job in high:
        reached = milestones(job, grouped.get(job["name"], []))
        if reached["all_bound"] is None or reached["created"] is None:
            unbound.append(job["name"])
        else:
            waits.append(_ms(reached["all_bound"] - reached["created"]))
    victims = sorted((pod for pod in pods if pod["job"] in by_name and preempted(pod, by_name[pod["job"]])),
                     key=lambda pod: pod["pod"])
    return {"high_priority": levels[-1], "high_priority_jobs": len(high), "high_priority_wait_ms": latency_summary(waits),
            "high_priority_unbound_jobs": unbound, "pods_preempted": len(victims),
            "preempted_pods": [pod["pod"] for pod in victims],
            "work_lost_pod_s": round(sum(pod["ended_us"] - pod["bound_us"] for pod in victims) / US, 3)}


def steady_metrics(jobs, pods, start_us, warmup_s):
    """Pod latency and rates in the steady window: from ``warmup_s`` after the start to the last job's arrival.

    Latency: pods created in the window (bound - created, ms). Offered: pods of the jobs the scenario makes arrive in
    the window, per second; bound: pods bound in the window, per second. The window is half-open, [from, to).
    """
    to_s = max((job["arrival_s"] for job in jobs), default=0.0)
    begin, finish = start_us + int(round(warmup_s * US)), start_us + int(round(to_s * US))
    out = {"window": {"from_s": warmup_s, "to_s": to_s, "warmup_s": warmup_s}, "latency_ms": latency_summary([]),
           "pods_unbound": None, "offered_pods_per_s": None, "bound_pods_per_s": None}
    if finish <= begin:
        return out
    length_s = (finish - begin) / US
    created = [pod for pod in pods if begin <= pod["created_us"] < finish]
    out.update(
        latency_ms=latency_summary([(pod["bound_us"] - pod["created_us"]) / 1000.0 for pod in created
                                    if pod.get("bound_us") is not None]),
        pods_unbound=sum(pod.get("bound_us") is None for pod in created),
        offered_pods_per_s=round(sum(job["pods_per_job"] for job in jobs if warmup_s <= job["arrival_s"] < to_s)
                                 / length_s, 3),
        bound_pods_per_s=round(sum(pod.get("bound_us") is not None and begin <= pod["bound_us"] < finish
                                   for pod in pods) / length_s, 3))
    return out


def utilization(jobs, pods, cluster, start_us, end_us):
    """Peak allocated shares of the cluster's CPU and memory, and the time-averaged CPU share over [start, end]."""
    sums = node_pools.totals(cluster)
    cpu_total, memory_total = sums["millicores"], sums["memory_bytes"]
    by_name = {job["name"]: job for job in jobs}
    events = []
    for pod in pods:
        job = by_name.get(pod["job"])
        if job is not None and pod.get("bound_us") is not None:
            events.append((pod["bound_us"], job["pod_millicores"], job["pod_memory_bytes"]))
            events.append((release_us(pod, job), -job["pod_millicores"], -job["pod_memory_bytes"]))
    events.sort()  # releases first at one time
    cpu = memory = applied = 0
    while applied < len(events) and events[applied][0] <= start_us:  # the state at the start
        cpu, memory, applied = cpu + events[applied][1], memory + events[applied][2], applied + 1
    peak_cpu, peak_memory, cpu_time, last = cpu, memory, 0, start_us
    for when, cpu_change, memory_change in events[applied:]:
        if when > end_us:
            break
        cpu_time, last = cpu_time + cpu * (when - last), when
        cpu, memory = cpu + cpu_change, memory + memory_change
        peak_cpu, peak_memory = max(peak_cpu, cpu), max(peak_memory, memory)
    cpu_time += cpu * (end_us - last)
    return {"peak_cpu_share": round(peak_cpu / cpu_total, 4), "peak_memory_share": round(peak_memory / memory_total, 4),
            "mean_cpu_share": round(cpu_time / cpu_total / (end_us - start_us), 4) if end_us > start_us else None}


def scenario_metrics(scenario, jobs, pods, start_us=None, end_us=None):
    """(metrics, breakdown rows) of one run of a scenario; the window defaults to ``span``.

    Sections: breakdown and utilization always; gang with gang jobs (and stalls with the stall_s threshold);
    fair_share with two tenants or more; priority with two priorities or more; steady with warmup_s.
    """
    first, last = span(jobs, pods)
    start_us = first if start_us is None else start_us
    end_us = last if end_us is None else end_us
    rows, summary = breakdown(jobs, pods)
    out = {"window": {"start_us": start_us, "end_us": end_us}, "breakdown": summary}
    if start_us is None:
        return out, rows
    thresholds = scenario["thresholds"]
    out["utilization"] = utilization(jobs, pods, scenario["cluster"], start_us, end_us)
    if any(job["gang"] for job in jobs):
        out["gang"] = gang_metrics(jobs, pods, end_us, thresholds.get("stuck_partial_s"))
        if thresholds.get("stall_s"):
            out["gang"].update(stalls(jobs, pods, scenario["cluster"], start_us, end_us, thresholds["stall_s"]))
    if len(scenario["tenants"]) > 1:
        out["fair_share"] = fair_share(jobs, pods, scenario["tenants"], start_us, end_us)
        latency = tenant_latency(rows)
        for tenant, figures in out["fair_share"]["tenants"].items():
            figures["job_latency_ms"] = latency.get(tenant, latency_summary([]))
    priority = priority_metrics(jobs, pods)
    if priority:
        out["priority"] = priority
    if scenario.get("warmup_s") is not None:
        out["steady"] = steady_metrics(jobs, pods, start_us, scenario["warmup_s"])
    return out, rows

