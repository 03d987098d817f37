# -*- coding: utf-8 -*-
"""Scrapes of the metrics endpoints around a load test: read over loopback with the target's credentials, kept
raw and compressed beside the results (metrics-<process>-<before|after>.prom.gz: the results are one flat
directory), and parsed for metrics/internals.py.

A target is {"process": name, "url": ..., "ca": CA bundle (empty: plain http), "client_cert", "client_key"},
as the scheduler role (scheduler_deployed.metrics) and the runtime (bench_cluster.metrics) describe them, or
{"process": "kube-apiserver", "path": "/metrics"}: read through the load test's own API client (its kubeconfig's
credentials), as on kind and external clusters, or {"process", "url", "node": a kind node's container, and
"service_account": "namespace/name" or "ca", "client_cert", "client_key" inside the node}: read from inside the node
(docker exec, curl), where the endpoint listens (the node's loopback, a Service), with a short-lived token of that
account or that certificate (plugin_utils/cluster/metrics_targets.py, roles/scheduler/tasks/kind-metrics.yml).
"""
from __future__ import annotations

import gzip
import os
import ssl
import subprocess
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


def target_problem(target):
    """Why a target cannot be scraped as given (one sentence), or None."""
    process, account = target.get("process"), target.get("service_account")
    if target.get("node") and not target.get("url"):
        return "%s: a target inside a node needs its url" % process
    if account and not target.get("node"):
        return "%s: service_account goes with node (a token for an endpoint inside a node)" % process
    if target.get("node") and not (account or target.get("client_cert")):
        return "%s: a target inside a node needs service_account or client_cert (nothing is read anonymously)" % process
    if account and len([part for part in account.split("/") if part]) != 2:
        return "%s: service_account=%r is not allowed: namespace/name" % (process, account)
    return None


def in_node_argv(target, timeout):
    """docker exec's command line for a node target: curl reads the token's header from its standard input, so that
    the token is in no command line. A target with a CA (etcd's) is verified against it; the others serve certificates
    they made themselves (kind's kube-scheduler and kube-controller-manager, kube-rbac-proxy), which nothing could
    verify: --insecure, over the node's own network, with a token that may read /metrics only."""
    argv = ["docker", "exec", "--interactive", target["node"], "curl", "--silent", "--show-error", "--fail",
            "--max-time", "%g" % timeout, "--header", "Accept: " + _ACCEPT]
    argv += ["--cacert", target["ca"]] if target.get("ca") else ["--insecure"]
    if target.get("client_cert"):
        argv += ["--cert", target["client_cert"], "--key", target.get("client_key") or target["client_cert"]]
    if target.get("service_account"):
        argv += ["--header", "@-"]
    return argv + [target["url"]]


def fetch_in_node(target, timeout, token_for):
    """The text of a node target's endpoint; RuntimeError with curl's or docker's message."""
    header = "Authorization: Bearer %s\n" % token_for(target["service_account"]) if target.get("service_account") else ""
    result = subprocess.run(in_node_argv(target, timeout), input=header, capture_output=True, text=True,
                            timeout=timeout + 10, check=False)
    if result.returncode != 0:
        raise RuntimeError("exit %d: %s" % (result.returncode, " ".join(result.stderr.split()) or "no message"))
    return result.stdout


def fetch(target, timeout=TIMEOUT_S, api_get=None, token_for=None):
    """(text, None) of the target's endpoint, or (None, why not) in one sentence. ``api_get(path, timeout)``
    reads a path of the API server with the load test's client, for a target without a URL; ``token_for(account)``
    gives a token of a node target's service account."""
    if target.get("node"):
        try:
            return fetch_in_node(target, timeout, token_for), None
        except Exception as exc:  # noqa: BLE001 - recorded, the test goes on
            return None, "%s inside the node %s: %s" % (target["url"], target["node"], exc)
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


def scrape_all(targets, output_dir, moment, clock=time.monotonic, api_get=None, timeout=TIMEOUT_S, token_for=None):
    """Scrape every target now; keep each raw text compressed in ``output_dir``; return
    {process: {"scrape": parsed, "error": None or why not, "bytes": compressed size, "seconds": time taken}}.
    A service account's token is asked for once per call (``token_for``)."""
    os.makedirs(output_dir, exist_ok=True)
    found, tokens = {}, {}

    def token(account):
        if account not in tokens:
            tokens[account] = token_for(account)
        return tokens[account]
    for target in targets:
        started = clock()
        text, error = fetch(target, timeout=timeout, api_get=api_get, token_for=token)
        entry = {"scrape": {}, "error": error, "bytes": 0}
        if text is not None:
            data = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
            write_atomically(os.path.join(output_dir, file_name(target["process"], moment)), data)
            entry.update(scrape=exposition.parse(text), bytes=len(data))
        entry["seconds"] = round(clock() - started, 3)
        found[target["process"]] = entry
    return found

