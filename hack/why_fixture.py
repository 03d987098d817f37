#!/usr/bin/env python3
"""Store a real result directory as a fixture of tests/unit/test_recompute_internals.py: its summary.json,
component-samples.json and other result files, its env.json without the machine's module proxy, each
metrics-*.prom.gz cut to the metric families its process's views read, and its audit.log.gz (fetched with
bench_fetch_audit_log) cut to the lines of the window. What is cut is what the figures do not read, so the fixture
recomputes the same figures in a fraction of the size.

Usage: hack/why_fixture.py <result dir> <fixture dir>
"""
import gzip
import json
import os
import re
import shutil
import sys

from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.audit import parse_time_us
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.internals import CONTROL_PLANE

SCRAPE = re.compile(r"^metrics-(.+)-(before|after)\.prom\.gz$")
STAGE_TIME = re.compile(r'"stageTimestamp":"([^"]+)"')


def without_proxies(document):
    """env.json with the module proxies the machine used (its goproxy) left out: the repository names no registry."""
    if isinstance(document, dict):
        return {key: ("(the recording machine's)" if key == "goproxy" else without_proxies(value))
                for key, value in document.items()}
    if isinstance(document, list):
        return [without_proxies(value) for value in document]
    return document


def read_families(views):
    return {view["metric"] for view in views} | {view["metric"] + suffix for view in views
                                                 for suffix in ("_bucket", "_sum", "_count")}


def cut_scrape(source, target, families):
    with gzip.open(source, "rt", encoding="utf-8") as handle, gzip.open(target, "wt", encoding="utf-8") as out:
        for line in handle:
            name = re.split(r"[{ ]", line, maxsplit=1)[0]
            if not line.startswith("#") and name in families:
                out.write(line)


def cut_audit(source, target, start, end):
    with gzip.open(source, "rt", encoding="utf-8") as handle, gzip.open(target, "wt", encoding="utf-8") as out:
        for line in handle:
            found = STAGE_TIME.findall(line)
            if found and start <= parse_time_us(found[-1]) <= end:
                out.write(line)


def main(source, target):
    with open(os.path.join(source, "summary.json"), encoding="utf-8") as handle:
        summary = json.load(handle)
    specs = dict(schedulers.get(summary["scheduler"])["internals"], **CONTROL_PLANE)
    os.makedirs(target, exist_ok=True)
    for name in ("summary.json", "component-samples.json", "pods.csv.gz", "jobs.csv.gz", "timeline.csv", "scenario.json"):
        shutil.copy2(os.path.join(source, name), os.path.join(target, name))
    with open(os.path.join(source, "env.json"), encoding="utf-8") as handle:
        env = json.load(handle)
    with open(os.path.join(target, "env.json"), "w", encoding="utf-8") as out:
        json.dump(without_proxies(env), out, indent=4, sort_keys=True)
        out.write("\n")
    for name in os.listdir(source):
        match = SCRAPE.match(name)
        if match:
            cut_scrape(os.path.join(source, name), os.path.join(target, name), read_families(specs[match.group(1)]))
    requests = summary["api_requests"]
    cut_audit(os.path.join(source, "audit.log.gz"), os.path.join(target, "audit.log.gz"),
              parse_time_us(requests["from"]), parse_time_us(requests["to"]))


if __name__ == "__main__":
    main(*sys.argv[1:3])
