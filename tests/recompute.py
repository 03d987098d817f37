"""A second opinion: the figures of a result directory recomputed from its files alone (pods.csv, jobs.csv,
scenario.json), by the definitions of docs/metrics.md, without the toolkit's code.

Written from the document, not from module_utils: it evaluates every quantity afresh on each stretch between two
events instead of updating running totals, and rounds only where the document says."""
import csv
import datetime
import gzip
import io
import json
import math
import os

US = 1_000_000
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def micros(text):
    """RFC 3339 in UTC with microseconds -> integer microseconds since the epoch; None for an empty cell."""
    if not text:
        return None
    moment = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    delta = moment - EPOCH
    return (delta.days * 86400 + delta.seconds) * US + delta.microseconds


def rows(directory, name):
    path = os.path.join(directory, name + ".gz")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return list(csv.DictReader(io.StringIO(handle.read())))


def load(directory):
    """(jobs, pods, scenario) of a result directory, with times in microseconds."""
    with open(os.path.join(directory, "scenario.json"), encoding="utf-8") as handle:
        scenario = json.load(handle)
    jobs = {}
    for row in rows(directory, "jobs.csv"):
        jobs[row["job"]] = {"name": row["job"], "tenant": row["tenant"], "priority": int(row["priority"]),
                            "gang": row["gang"] == "true", "pods": int(row["pods"]),
                            "cpu": int(row["pod_millicores"]), "memory": int(row["pod_memory_bytes"]),
                            "duration_us": int(round(float(row["pod_duration"]) * US)),
                            "arrival_s": float(row["arrival_s"]), "created": micros(row["created"])}
    pods = []
    for row in rows(directory, "pods.csv"):
        deleted = micros(row["ended"]) if row["how_ended"] in ("preempted", "deleted") else None
        pods.append({"name": row["pod"], "job": row["job"], "node": row["node"], "created": micros(row["created"]),
                     "bound": micros(row["bound"]), "deleted": deleted, "how_ended": row["how_ended"]})
    return jobs, pods, scenario


def nearest_rank(values, q):
    ordered = sorted(values)
    return ordered[max(1, math.ceil(round(q * len(ordered), 9))) - 1]


def latency(values):
    if not values:
        return {key: None for key in ("p50", "p90", "p99", "max", "mean")}
    out = {"p%d" % (q * 100): round(nearest_rank(values, q), 3) for q in (0.5, 0.9, 0.99)}
    out.update(max=round(max(values), 3), mean=round(sum(values) / len(values), 3))
    return out


def hold(pod, job):
    """[from, to) during which a bound pod holds its requests, or None."""
    if pod["bound"] is None:
        return None
    end = pod["bound"] + job["duration_us"]
    if pod["deleted"] is not None:
        end = min(end, pod["deleted"])
    return pod["bound"], end


def is_preempted(pod, job):
    return pod["bound"] is not None and pod["deleted"] is not None and pod["deleted"] < pod["bound"] + job["duration_us"]


def window(jobs, pods):
    created = [job["created"] for job in jobs.values() if job["created"] is not None]
    events = created + [t for pod in pods for t in (pod["created"], pod["bound"], pod["deleted"]) if t is not None]
    return (min(created) if created else min(events)), max(events)


def all_bound(job, pods):
    kept = sorted(pod["bound"] for pod in pods if pod["job"] == job["name"] and pod["bound"] is not None
                  and not is_preempted(pod, job))
    return kept[job["pods"] - 1] if len(kept) >= job["pods"] else None


def held_at(job, pods, moment):
    """Pods of ``job`` holding at ``moment`` (a stretch starting there)."""
    count = 0
    for pod in pods:
        span = hold(pod, job) if pod["job"] == job["name"] else None
        if span and span[0] <= moment < span[1]:
            count += 1
    return count


def top_level(jobs, pods):
    """makespan_s, throughput, peak and latency_ms."""
    start = min([job["created"] for job in jobs.values() if job["created"] is not None]
                + [pod["created"] for pod in pods])
    bound = sorted(pod["bound"] for pod in pods if pod["bound"] is not None)
    makespan = (bound[-1] - start) / US
    throughput = round(len(bound) / makespan, 3)
    most = max(sum(1 for other in bound if t - US < other <= t) for t in bound)
    return {"makespan_s": round(makespan, 6), "throughput_pods_per_s": throughput,
            "peak_throughput_pods_per_s": round(max(float(most), throughput), 3),
            "latency_ms": latency([(pod["bound"] - pod["created"]) / 1000.0 for pod in pods if pod["bound"] is not None])}


def gang(jobs, pods, end, stuck_partial_s):
    full_ms, partial_jobs, partial_pod_us, stuck = [], 0, 0, []
    gangs = [job for job in jobs.values() if job["gang"]]
    for job in gangs:
        mine = [pod for pod in pods if pod["job"] == job["name"]]
        moments = sorted({t for pod in mine for t in (hold(pod, job) or ()) if t <= end} | {end})
        partial_us, full = 0, None
        for begin, finish in zip(moments, moments[1:] + [None]):
            count = held_at(job, mine, begin)
            if count >= job["pods"]:
                full = begin
                break
            if finish is not None and 0 < count:
                partial_us += finish - begin
                partial_pod_us += count * (finish - begin)
        if full is not None and job["created"] is not None:
            full_ms.append(round((full - job["created"]) / 1000.0, 3))
        partial_jobs += partial_us > 0
        if stuck_partial_s is not None and partial_us > stuck_partial_s * US:
            stuck.append(job["name"])
    return {"gang_jobs": len(gangs), "full_gangs": len(full_ms), "time_to_full_gang_ms": latency(full_ms),
            "partial_gang_jobs": partial_jobs, "partial_gang_pod_s": round(partial_pod_us / US, 3),
            "stuck_partial_jobs": stuck}


def water_fill(total, weights, demands):
    targets, left, open_ = {}, float(total), dict(weights)
    while open_:
        weight_sum = sum(open_.values())
        capped = {name for name in open_ if demands[name] <= left * open_[name] / weight_sum}
        if not capped:
            targets.update({name: left * weight / weight_sum for name, weight in open_.items()})
            break
        for name in capped:
            targets[name] = float(demands[name])
            left -= demands[name]
            del open_[name]
    return targets


def fair_share(jobs, pods, weights, start, end):
    def allocated(tenant, moment):
        return sum(job["cpu"] for pod in pods for job in [jobs[pod["job"]]]
                   if job["tenant"] == tenant and hold(pod, job) and hold(pod, job)[0] <= moment < hold(pod, job)[1])

    def demand(tenant, moment):
        asked = sum(job["pods"] * job["cpu"] for job in jobs.values()
                    if job["tenant"] == tenant and job["created"] is not None and job["created"] <= moment)
        done = sum(job["cpu"] for pod in pods for job in [jobs[pod["job"]]]
                   if job["tenant"] == tenant and hold(pod, job) and not is_preempted(pod, job)
                   and hold(pod, job)[1] <= moment)
        return asked - done

    times = {start, end} | {job["created"] for job in jobs.values() if job["created"] is not None}
    times |= {t for pod in pods for t in (hold(pod, jobs[pod["job"]]) or ())}
    moments = sorted(t for t in times if start <= t <= end)
    covered, error, jain = 0, 0.0, 0.0
    share_sum, target_sum = dict.fromkeys(weights, 0.0), dict.fromkeys(weights, 0.0)
    for begin, finish in zip(moments, moments[1:]):
        held = {tenant: allocated(tenant, begin) for tenant in weights}
        total = sum(held.values())
        if total <= 0:
            continue
        asks = {tenant: max(demand(tenant, begin), held[tenant]) for tenant in weights}
        asking = {tenant: weights[tenant] for tenant in weights if asks[tenant] > 0}
        targets = water_fill(total, asking, asks)
        share = {tenant: held[tenant] / total for tenant in weights}
        target = {tenant: targets.get(tenant, 0.0) / total for tenant in weights}
        length = finish - begin
        covered += length
        error += length * sum(abs(share[t] - target[t]) for t in asking) / len(asking)
        ratios = [share[t] / target[t] for t in asking if target[t] > 0]
        jain += length * sum(ratios) ** 2 / (len(ratios) * sum(x * x for x in ratios))
        for tenant in weights:
            share_sum[tenant] += length * share[tenant]
            target_sum[tenant] += length * target[tenant]
    return {"covered_s": round(covered / US, 3), "fairness_error": round(error / covered, 4),
            "jain_index": round(jain / covered, 4),
            "tenants": {t: {"share": round(share_sum[t] / covered, 4), "target": round(target_sum[t] / covered, 4)}
                        for t in weights}}


def priority(jobs, pods):
    top = max(job["priority"] for job in jobs.values())
    high = [job for job in jobs.values() if job["priority"] == top]
    waits = [(all_bound(job, pods) - job["created"]) / 1000.0 for job in high if all_bound(job, pods) is not None]
    victims = sorted(pod["name"] for pod in pods if is_preempted(pod, jobs[pod["job"]]))
    lost = sum(pod["deleted"] - pod["bound"] for pod in pods if pod["name"] in victims)
    return {"high_priority": top, "high_priority_jobs": len(high), "high_priority_wait_ms": latency(
        [round(wait, 3) for wait in waits]),
        "high_priority_unbound_jobs": [job["name"] for job in high if all_bound(job, pods) is None],
        "pods_preempted": len(victims), "preempted_pods": victims, "work_lost_pod_s": round(lost / US, 3)}


def recompute(directory):
    """The figures the document defines that this run's scenario has: top level, window, gang, fair_share,
    priority."""
    jobs, pods, scenario = load(directory)
    start, end = window(jobs, pods)
    out = dict(top_level(jobs, pods), window={"start_us": start, "end_us": end})
    weights = {name: float(weight) for name, weight in scenario["tenants"].items()}
    if any(job["gang"] for job in jobs.values()):
        out["gang"] = gang(jobs, pods, end, scenario["thresholds"].get("stuck_partial_s"))
    if len(weights) > 1:
        out["fair_share"] = fair_share(jobs, pods, weights, start, end)
    if len({job["priority"] for job in jobs.values()}) > 1:
        out["priority"] = priority(jobs, pods)
    return out


def differences(directory, summary):
    """Where the recomputed figures differ from ``summary`` (by more than the last rounded digit): one line each."""
    found = []

    def compare(path, ours, theirs):
        if isinstance(ours, dict):
            for key, value in ours.items():
                compare(path + "." + key, value, (theirs or {}).get(key) if isinstance(theirs, dict) else None)
        elif isinstance(ours, float) and isinstance(theirs, (int, float)) and not isinstance(theirs, bool):
            if not math.isclose(ours, theirs, rel_tol=1e-6, abs_tol=2e-4):
                found.append("%s: recomputed %r, summary %r" % (path, ours, theirs))
        elif ours != theirs:
            found.append("%s: recomputed %r, summary %r" % (path, ours, theirs))

    ours = recompute(directory)
    metrics = summary["scenario_metrics"]
    for key in ("makespan_s", "throughput_pods_per_s", "peak_throughput_pods_per_s", "latency_ms"):
        compare(key, ours[key], summary[key])
    for key in ("window", "gang", "fair_share", "priority"):
        if key in ours or key in metrics:
            compare("scenario_metrics." + key, ours.get(key), metrics.get(key))
    return found
