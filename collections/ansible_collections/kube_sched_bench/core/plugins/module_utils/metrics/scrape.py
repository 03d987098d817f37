# -*- coding: utf-8 -*-
"""Scrapes of the metrics endpoints around a load test: read over loopback with the target's credentials, kept
raw and compressed beside the results (metrics-<process>-<before|after>.prom.gz: the results are one flat
directory), and parsed for metrics/internals.py.

A target is {"process": name, "url": ..., "ca": CA bundle (empty: plain http), "client_cert", "client_key"},
as the scheduler role (scheduler_deployed.metrics) and the runtime (bench_cluster.metrics) describe them, or
{"process": "kube-apiserver", "path": "/metrics"}: read through the load test's own API client (its kubeconfig's
credentials), as on kind and external clusters.
"""
from __future__ import annotations

import gzip
import os
import ssl
import time
import urllib.request

from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import write_atomically
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import exposition

TIMEOUT_S = 20.0
# Each endpoint may take this long; a slow one is recorded as an error and the test goes on.
_ACCEPT = "text/plain;version=0.0.4"


def _context(target):
    if not target.get("url", "").startswith("https:"):
        return None
    context = ssl.create_default_context(cafile=target.get("ca") or None)
    if target.get("client_cert"):
        context.load_cert_chain(target["client_cert"], target.get("client_key") or None)
    return context


def fetch(target, timeout=TIMEOUT_S, api_get=None):
    """(text, None) of the target's endpoint, or (None, why not) in one sentence. ``api_get(path, timeout)``
    reads a path of the API server with the load test's client, for a target without a URL."""
    if not target.get("url"):
        try:
            return api_get(target.get("path") or "/metrics", timeout), None
        except Exception as exc:  # noqa: BLE001 - recorded, the test goes on
            return None, "the API server's %s: %s" % (target.get("path") or "/metrics", exc)
    request = urllib.request.Request(target["url"], headers={"Accept": _ACCEPT})
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=_context(target)) as response:  # noqa: S310
            return response.read().decode("utf-8", errors="replace"), None
    except Exception as exc:  # noqa: BLE001 - any failure of one endpoint is recorded, the test goes on
        return None, "%s: %s" % (target["url"], exc)


def file_name(process, moment):
    return "metrics-%s-%s.prom.gz" % (process, moment)


def scrape_all(targets, output_dir, moment, clock=time.monotonic, api_get=None, timeout=TIMEOUT_S):
    """Scrape every target now; keep each raw text compressed in ``output_dir``; return
    {process: {"scrape": parsed, "error": None or why not, "bytes": compressed size, "seconds": time taken}}."""
    os.makedirs(output_dir, exist_ok=True)
    found = {}
    for target in targets:
        started = clock()
        text, error = fetch(target, timeout=timeout, api_get=api_get)
        entry = {"scrape": {}, "error": error, "bytes": 0}
        if text is not None:
            data = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
            write_atomically(os.path.join(output_dir, file_name(target["process"], moment)), data)
            entry.update(scrape=exposition.parse(text), bytes=len(data))
        entry["seconds"] = round(clock() - started, 3)
        found[target["process"]] = entry
    return found

