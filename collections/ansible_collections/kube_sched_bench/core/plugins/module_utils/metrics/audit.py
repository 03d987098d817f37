# -*- coding: utf-8 -*-
"""Pure functions that turn API server audit events into scheduling metrics.

Nothing here talks to a cluster or touches the file system except
``audit_log_files`` and ``read_audit_events``, which only read. Everything is
unit-tested in tests/unit/test_sched_metrics.py.

Times are integers in microseconds since the epoch (UTC), as the audit log
records them. Every figure is defined in docs/metrics.md.
"""
from __future__ import annotations

import datetime
import json
import math
import os
import re

from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers as descriptors
from ansible_collections.kube_sched_bench.core.plugins.module_utils.objects.builders import JOB_LABEL, RELEASE_MARKER

US = 1_000_000

# A job's admission, as the audit log shows it (jobs.csv's "admitted"): a Job's unsuspension (an update of the Job
# itself, not of its status, with spec.suspend false: how queue controllers admit Jobs), or a scheduler's group
# object reaching an admitted phase (the descriptors' admitted_phase: group, resource, phases).
PHASE_ADMISSIONS = tuple(descriptor["admitted_phase"] for descriptor in descriptors.DESCRIPTORS.values()
                         if descriptor.get("admitted_phase"))
# The labels that name a pod's job, besides the job controller's and ours (the descriptors' job_name_label).
JOB_NAME_LABELS = ("job-name",) + tuple(descriptor["job_name_label"] for descriptor in descriptors.DESCRIPTORS.values()
                                        if descriptor.get("job_name_label"))

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)

# The API server's lumberjack rotation keeps backups as <stem>-<UTC time>.<ext>,
# for example audit-2026-11-29T21-00-00.123.log next to audit.log.
_BACKUP_TIME = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}"


def parse_time_us(text):
    """Parse an RFC 3339 timestamp ("2026-11-29T21:00:00.123456Z") to epoch microseconds."""
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    moment = datetime.datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    delta = moment - _EPOCH
    return (delta.days * 86400 + delta.seconds) * US + delta.microseconds


def format_time_us(value):
    """Format epoch microseconds as RFC 3339 with microseconds, in UTC."""
    moment = _EPOCH + datetime.timedelta(microseconds=value)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def audit_log_files(path):
    """Return the audit log and its rotated backups, oldest first.

    Backups carry their rotation time in the name, so name order is time order;
    the live file holds the newest events and comes last.
    """
    directory = os.path.dirname(path) or "."
    base = os.path.basename(path)
    stem, ext = os.path.splitext(base)
    pattern = re.compile(re.escape(stem) + "-" + _BACKUP_TIME + re.escape(ext) + "$")
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    backups = sorted(name for name in names if pattern.match(name))
    files = [os.path.join(directory, name) for name in backups]
    if base in names:
        files.append(path)
    return files


def files_size(paths):
    """Bytes of the given files together (a file gone meanwhile counts 0)."""
    total = 0
    for path in paths:
        try:
            total += os.path.getsize(path)
        except OSError:
            pass
    return total


def _may_matter(line):
    """Whether an audit line may count for AuditTimes.add: a cheap test before parsing it."""
    if '"verb":"create"' in line or '"verb":"delete"' in line:
        return True
    if '"verb":"update"' not in line and '"verb":"patch"' not in line:
        return False
    if '"resource":"jobs"' in line:
        return '"suspend":false' in line
    return any('"resource":"%s"' % rule["resource"] in line and any('"phase":"%s"' % phase in line for phase in rule["phases"])
               for rule in PHASE_ADMISSIONS)


def read_audit_events(paths, namespace):
    """Yield parsed audit events of one namespace from the given files, in file order.

    Only creations, deletions and admissions count (AuditTimes.add): cheap substring tests skip other
    verbs and other namespaces before JSON parsing, which is most of a large log (kwok's status
    updates, the controllers' patches). Lines that are not JSON (one cut short by a
    crash, say) are skipped. One line at a time: the log is never held whole.
    """
    needle = '"namespace":"%s"' % namespace
    for path in paths:
        with open(path, "r", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if needle not in line or not _may_matter(line):
                    continue
                try:
                    yield json.loads(line)
                except ValueError:
                    continue


class AuditTimes:
    """Collects, per pod, when it was created, first bound and first deleted, and per job when it was created
    and first admitted, from audit events."""

    def __init__(self, namespace):
        self.namespace = namespace
        self.pod_created = {}     # pod name -> us
        self.pod_job = {}         # pod name -> owning job name
        self.pod_bound = {}       # pod name -> us (first successful binding)
        self.pod_node = {}        # pod name -> node name
        self.job_created = {}     # job name -> us
        self.pod_ended = {}       # pod name -> us (first deletion: preempted, evicted or removed with its job)
        self.job_admitted = {}    # job name -> us (first admission: a Job's unsuspension or PHASE_ADMISSIONS)
        self.placeholders = set()  # placeholder pods (a scheduler's stand-ins, no job's): left out
        self.released_us = None   # the creation of the release marker of a held backlog (sched_hold)
        self.events_seen = 0

    def add(self, event):
        """Take one audit event (a dict) into account."""
        if event.get("stage") != "ResponseComplete" or event.get("verb") not in ("create", "delete", "update", "patch"):
            return
        ref = event.get("objectRef") or {}
        if ref.get("namespace") != self.namespace:
            return
        code = (event.get("responseStatus") or {}).get("code", 0)
        if not 200 <= code < 300:
            return
        self.events_seen += 1
        when = parse_time_us(event["stageTimestamp"])
        resource = ref.get("resource")
        subresource = ref.get("subresource", "")
        if resource == "pods" and ref.get("name") in self.placeholders:
            return
        if event["verb"] in ("update", "patch"):
            self._admission(ref, event.get("requestObject") or {}, when)
        elif event["verb"] == "delete":
            if resource == "pods" and not subresource and ref.get("name"):
                self.pod_ended.setdefault(ref["name"], when)
        elif resource == "pods" and subresource == "binding":
            name = ref.get("name")
            if name and name not in self.pod_bound:
                self.pod_bound[name] = when
                target = ((event.get("requestObject") or {}).get("target") or {})
                self.pod_node[name] = target.get("name", "")
        elif resource == "pods" and not subresource:
            meta = (event.get("responseObject") or {}).get("metadata") or {}
            name = meta.get("name") or ref.get("name")
            if name and descriptors.is_placeholder(meta):
                self.placeholders.add(name)
            elif name:
                self.pod_created.setdefault(name, when)
                self.pod_job.setdefault(name, job_of(meta))
        elif resource == "configmaps" and ref.get("name") == RELEASE_MARKER:
            self.released_us = self.released_us or when
        elif resource == "jobs" and not subresource:
            meta = (event.get("responseObject") or {}).get("metadata") or {}
            name = meta.get("name") or ref.get("name")
            if name:
                # When the API server received it: the job controller acts on the commit's watch event, so a
                # pod's create can complete before the Job's own response does.
                received = event.get("requestReceivedTimestamp")
                self.job_created.setdefault(name, parse_time_us(received) if received else when)

    def _admission(self, ref, sent, when):
        """An update or patch that admits a job: of a Job, the one that sets spec.suspend false; of a scheduler's
        group object (PHASE_ADMISSIONS; its job is its owner; one the load test made has the job's name), the first
        that puts it in an admitted phase."""
        resource = ref.get("resource")
        if resource == "jobs" and not ref.get("subresource"):
            if (sent.get("spec") or {}).get("suspend") is False and ref.get("name"):
                self.job_admitted.setdefault(ref["name"], when)
        else:
            for rule in PHASE_ADMISSIONS:
                if (resource == rule["resource"] and ref.get("apiGroup") == rule["group"]
                        and (sent.get("status") or {}).get("phase") in rule["phases"]):
                    job = job_of(sent.get("metadata") or {}) or ref.get("name")
                    if job:
                        self.job_admitted.setdefault(job, when)

    def records(self):
        """Return one record per created pod, sorted by creation time."""
        rows = []
        for pod, created in self.pod_created.items():
            bound = self.pod_bound.get(pod)
            rows.append({
                "job": self.pod_job.get(pod, ""),
                "pod": pod,
                "node": self.pod_node.get(pod, ""),
                "created_us": created,
                "bound_us": bound,
                "ended_us": self.pod_ended.get(pod),
            })
        rows.sort(key=lambda row: (row["created_us"], row["pod"]))
        return rows


def from_release(records, job_created, job_admitted, release_us):
    """A held backlog's times as its scheduler saw them (docs/metrics.md#a-held-backlog): every pod creation and job
    creation or admission before the release reads as the release, so that every figure is timed from it.

    Returns (records, job_created, job_admitted, backlog, job_held): copies, the records with ``held_created_us`` (the
    true creation of a pod created before the release, else None: pods.csv's held_created), the summary's
    ``backlog``: the release, how many pods and jobs were created before it and when, and how many pods were bound
    before it (a hold that did not hold), and job name -> true creation of the jobs created before it."""
    held_pods = [row["created_us"] for row in records if row["created_us"] < release_us]
    held_jobs = [when for when in job_created.values() if when < release_us]
    early = sum(1 for row in records if row["bound_us"] is not None and row["bound_us"] < release_us)
    held = held_pods + held_jobs
    backlog = {
        "release": format_time_us(release_us),
        "pods_held": len(held_pods),
        "jobs_held": len(held_jobs),
        "created_from": format_time_us(min(held)) if held else None,
        "created_until": format_time_us(max(held)) if held else None,
        "bound_before_release": early,
    }
    records = [dict(row, created_us=max(row["created_us"], release_us),
                    held_created_us=row["created_us"] if row["created_us"] < release_us else None) for row in records]
    job_held = {job: when for job, when in job_created.items() if when < release_us}
    job_created = {job: max(when, release_us) for job, when in job_created.items()}
    if job_admitted is not None:
        job_admitted = {job: max(when, release_us) for job, when in job_admitted.items()}
    return records, job_created, job_admitted, backlog, job_held


def job_of(meta):
    """Name of the job of a pod, from its metadata: the Job (batch or a scheduler's own kind) owning it, a label
    that names it (JOB_NAME_LABELS), or for a pod the load test created itself (bench_pod_creation=direct) its
    JOB_LABEL."""
    for owner in meta.get("ownerReferences") or []:
        if owner.get("kind") == "Job":
            return owner.get("name", "")
    labels = meta.get("labels") or {}
    for label in JOB_NAME_LABELS + (JOB_LABEL,):
        if labels.get(label):
            return labels[label]
    return ""


def percentile(values, fraction):
    """Nearest-rank percentile of a list: the smallest value that at least ``fraction`` of the values do not exceed,
    the value at rank ceil(fraction x n) of the sorted list (the first for fraction 0). Always a value some pod or
    job had (docs/metrics.md#percentiles). ``fraction`` is between 0 and 1. Returns None for an empty list.
    """
    if not values:
        return None
    if not 0 <= fraction <= 1:
        raise ValueError("fraction must be between 0 and 1, got %r" % fraction)
    ordered = sorted(values)
    rank = max(1, math.ceil(round(fraction * len(ordered), 9)))
    return float(ordered[rank - 1])


def latency_summary(latencies_ms):
    """p50/p90/p99 (``percentile``), max and mean of latencies in milliseconds, rounded to microseconds."""
    if not latencies_ms:
        return {"p50": None, "p90": None, "p99": None, "max": None, "mean": None}

    def rounded(value):
        return round(value, 3)

    return {
        "p50": rounded(percentile(latencies_ms, 0.50)),
        "p90": rounded(percentile(latencies_ms, 0.90)),
        "p99": rounded(percentile(latencies_ms, 0.99)),
        "max": rounded(max(latencies_ms)),
        "mean": rounded(sum(latencies_ms) / len(latencies_ms)),
    }


def timeline(records, start_us):
    """Pods created and bound in each whole second after ``start_us`` (docs/metrics.md#timelinecsv).

    Returns rows ``{second, created, created_total, bound, bound_total, backlog}``
    from second 0 to the last second with an event; empty seconds are included so
    that a chart shows stalls. ``backlog`` is the pods created but not yet bound at
    the end of that second.
    """
    created = {}
    bound = {}
    last = -1
    for row in records:
        second = max(0, (row["created_us"] - start_us) // US)
        created[second] = created.get(second, 0) + 1
        last = max(last, second)
        if row["bound_us"] is not None:
            second = max(0, (row["bound_us"] - start_us) // US)
            bound[second] = bound.get(second, 0) + 1
            last = max(last, second)
    rows = []
    created_total = 0
    bound_total = 0
    for second in range(0, last + 1):
        created_total += created.get(second, 0)
        bound_total += bound.get(second, 0)
        rows.append({
            "second": second,
            "created": created.get(second, 0),
            "created_total": created_total,
            "bound": bound.get(second, 0),
            "bound_total": bound_total,
            "backlog": created_total - bound_total,
        })
    return rows


# Which stage set the pace: a capacity bound that takes this share of the makespan was the limit; a scheduler
# whose backlog averaged less than this many seconds of its own throughput kept up with pod creation.
CAPACITY_SHARE = 0.5
SUBMISSION_SHARE = 0.5
# The host's CPUs this busy (all processes, per cent of all CPUs) during a run limited by submission: the cores
# that the API server, the scheduler and the load generator share set the pace, not the load generator alone.
SATURATED_CPU_PERCENT = 90.0
KEPT_UP_SECONDS = 1.0


# Who makes a job's pods appear, so which stage set the pace when the scheduler kept up with them: the stage and
# how the pods appeared.
POD_MAKERS = {
    "job controller": ("pod creation", "the job controller created the pods"),
    "admission": ("admission", "pods were created only once the scheduler admitted their job"),
    "load test": ("submission", "the load test created the pods itself (bench_pod_creation=direct), so submitting was "
                  "creating them"),
    # bench_arrival=backlog with every pod there at the release: nothing but the scheduler could pace the bindings.
    "held backlog": ("scheduling", "every pod existed at the release of the held backlog"),
}


def limiting_stage(rows, makespan_s, submit_window_s, bound_s, pods_made_by="job controller"):
    """The stage that bounded the throughput (capacity, submission, pod creation, admission or scheduling).

    ``rows`` is the timeline, ``bound_s`` the makespan bound of the scheduler's capacity
    (module_utils/cluster/capacity.py); ``pods_made_by`` a key of POD_MAKERS (sched_capacity.pods_made_by): a
    scheduler that kept up with the pods as they appeared was paced by what made them appear. Returns {"stage",
    "evidence", "backlog_max", "backlog_mean", "created_per_s", "bound_per_s"}; the stage is None without a
    makespan.
    """
    result = {"stage": None, "evidence": "nothing was bound", "backlog_max": None, "backlog_mean": None,
              "created_per_s": None, "bound_per_s": None}
    if not rows or not makespan_s:
        return result
    created = [row for row in rows if row["created"]]
    creating_s = (created[-1]["second"] - created[0]["second"] + 1) if created else 0
    created_per_s = rows[-1]["created_total"] / creating_s if creating_s else None
    bound_per_s = rows[-1]["bound_total"] / makespan_s
    backlogs = [row["backlog"] for row in rows]
    backlog_mean = sum(backlogs) / len(backlogs)
    result.update(backlog_max=max(backlogs), backlog_mean=round(backlog_mean, 3),
                  created_per_s=round(created_per_s, 3) if created_per_s else None, bound_per_s=round(bound_per_s, 3))
    rates = ("pods were created at %s/s and bound at %.1f/s; the backlog of created but unbound pods peaked at %d "
             "and averaged %.1f" % ("%.1f" % created_per_s if created_per_s else "n/a", bound_per_s, max(backlogs),
                                    backlog_mean))
    if bound_s and bound_s >= CAPACITY_SHARE * makespan_s:
        result.update(stage="capacity", evidence="the capacity alone makes %.0f s of the %.1f s makespan necessary; %s"
                      % (bound_s, makespan_s, rates))
    elif submit_window_s and submit_window_s >= SUBMISSION_SHARE * makespan_s:
        result.update(stage="submission", evidence="submitting the jobs took %.1f s of the %.1f s makespan; %s"
                      % (submit_window_s, makespan_s, rates))
    elif pods_made_by == "held backlog":
        result.update(stage="scheduling", evidence="%s, so only the scheduler set the pace: %s"
                      % (POD_MAKERS[pods_made_by][1], rates))
    elif backlog_mean <= KEPT_UP_SECONDS * bound_per_s:
        stage, how = POD_MAKERS[pods_made_by]
        result.update(stage=stage, evidence="%s and the scheduler bound them about as fast as they appeared: %s "
                      "(less than %g s of its throughput)" % (how, rates, KEPT_UP_SECONDS))
    else:
        result.update(stage="scheduling", evidence="pods waited for the scheduler: %s" % rates)
    return result


def peak_throughput(bound_us, throughput):
    """The most bindings in any one-second window (t - 1 s, t] that ends at a binding (sliding, so it does not
    depend on where seconds begin), or ``throughput`` (the mean) when that is higher, as in a run shorter than one
    second (docs/metrics.md#peak-throughput). None without a binding."""
    if not bound_us:
        return None
    ordered = sorted(bound_us)
    most, first = 0, 0
    for last, when in enumerate(ordered):
        while ordered[first] <= when - US:
            first += 1
        most = max(most, last - first + 1)
    return round(max(float(most), throughput or 0.0), 3)


def summarize(records, job_created_us, expected_pods, submit_window_s, jobs_submitted):
    """Compute the summary metrics from per-pod records.

    ``job_created_us`` is a list of job creation times (may be empty: then the
    first pod creation marks the start). ``submit_window_s`` is how long the
    client took to submit all jobs.
    """
    bound = [row for row in records if row["bound_us"] is not None]
    latencies = [(row["bound_us"] - row["created_us"]) / 1000.0 for row in bound]
    starts = list(job_created_us) + [row["created_us"] for row in records]
    start_us = min(starts) if starts else None
    end_us = max(row["bound_us"] for row in bound) if bound else None
    makespan_s = (end_us - start_us) / US if bound and start_us is not None else None
    rows = timeline(records, start_us) if start_us is not None else []
    throughput = None
    if makespan_s:
        throughput = round(len(bound) / makespan_s, 3)
    submit_rate = None
    if submit_window_s and submit_window_s > 0:
        submit_rate = round(jobs_submitted / submit_window_s, 3)
    return {
        "pods_expected": expected_pods,
        "pods_created": len(records),
        "pods_bound": len(bound),
        "makespan_s": round(makespan_s, 6) if makespan_s is not None else None,
        "throughput_pods_per_s": throughput,
        "peak_throughput_pods_per_s": peak_throughput([row["bound_us"] for row in bound], throughput),
        "latency_ms": latency_summary(latencies),
        "jobs_submitted": jobs_submitted,
        "submit_rate_jobs_per_s": submit_rate,
        "start": format_time_us(start_us) if start_us is not None else None,
        "end": format_time_us(end_us) if end_us is not None else None,
    }, rows


# The columns of pods.csv, one row per pod (pod_rows).
POD_FIELDS = ["job", "pod", "node", "created", "bound", "latency_ms"]


def pod_rows(records):
    """Rows for pods.csv: job, pod, node, created, bound, latency_ms."""
    out = []
    for row in records:
        bound = row["bound_us"]
        out.append({
            "job": row["job"],
            "pod": row["pod"],
            "node": row["node"],
            "created": format_time_us(row["created_us"]),
            "bound": format_time_us(bound) if bound is not None else "",
            "latency_ms": "%.3f" % ((bound - row["created_us"]) / 1000.0) if bound is not None else "",
        })
    return out


def with_host_cpu(stage, host_load):
    """``stage`` (limiting_stage's result), its evidence completed when submission limited a run on a host whose
    CPUs were saturated (``host_load``: sched_host_load.summarize's, or None)."""
    if stage.get("stage") != "submission" or not host_load or host_load.get("own_cpu_percent") is None:
        return stage
    busy = host_load["own_cpu_percent"] + host_load["other_cpu_percent"]
    if busy < SATURATED_CPU_PERCENT:
        return stage
    return dict(stage, evidence="%s; the host's CPUs were %.0f %% busy (the benchmark's own processes %.0f %%), so the "
                "cores shared by the API server, the scheduler and the load generator set the pace, not the load "
                "generator alone (more bench_submit_processes cannot help on this host)"
                % (stage["evidence"], busy, host_load["own_cpu_percent"]))
