# -*- coding: utf-8 -*-
"""Why a scheduler is as fast as it is: the load test's look at the components around the load (``Observer``, a
part of load.LoadTest). Just before the first job is created, and once the last pod is bound, it scrapes every
metrics endpoint (metrics/scrape.py) and samples /proc; from the two it writes summary.json's ``internals``
(metrics/internals.py), ``component_cost`` (metrics/components.py) and, from the audit log between the two,
``api_requests`` (metrics/requests.py). docs/metrics.md defines them.

The scrapes are outside the window the figures cover: the one before ends before the window opens, the one after
starts once it is closed.
"""
from __future__ import annotations

import json
import os
import time

from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers as descriptors
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import write_atomically
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.pid_file import pid_files_in
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import audit as audit_files
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import (
    components,
    cost,
    internals,
    requests,
    scrape,
)
from kubernetes.client.rest import ApiException

BEFORE, AFTER = "before", "after"
SAMPLES_FILE = "component-samples.json"
# Seconds each endpoint may take for the scrape after a failed or stopped load test (host.guard.LOADTEST_GRACE_S).
FAILED_RUN_TIMEOUT_S = 2.0
# Seconds the look after the load waits once the last pod is bound, before its sample and scrapes: a scheduler counts a
# placement once its binding has returned, which on a busy host can come after the load test saw the pod bound (the
# window, window_s, includes the wait).
SETTLE_S = 1.0
# Seconds a metrics token lives (the API server's least): one is asked for at each scrape.
TOKEN_S = 600


class Observer:
    """The observations of load.LoadTest: ``observed`` {moment: {"time_us", "sample", "scrapes"}}."""

    def observing(self):
        return bool(self.p.get("internals", True))

    def observe(self, moment, timeout=scrape.TIMEOUT_S):
        """Scrape and sample now (BEFORE: scrapes first; AFTER: the sample first), unless already done."""
        if not self.observing() or moment in self.observed:
            return
        record = {}
        if moment == AFTER:
            if timeout != FAILED_RUN_TIMEOUT_S:
                time.sleep(SETTLE_S)
            record.update(time_us=int(time.time() * 1_000_000), sample=self.host_load_sample())
        record["scrapes"] = scrape.scrape_all(self.p.get("metrics_targets") or [], self.p["output_dir"], moment,
                                              api_get=self.api_get, timeout=timeout, token_for=self.metrics_token)
        if moment == BEFORE:
            record.update(time_us=int(time.time() * 1_000_000), sample=self.host_load_sample())
        self.observed[moment] = record

    def api_get(self, path, timeout):
        return api_get_text(self.client, path, timeout)

    def metrics_token(self, service_account):
        """A token of ``service_account`` (namespace/name) for the metrics endpoints inside a kind node (its
        TokenRequest is outside the window, as the scrapes are)."""
        namespace, name = service_account.split("/")
        request = {"spec": {"audiences": [], "expirationSeconds": TOKEN_S}}
        return self.core.create_namespaced_service_account_token(name, namespace, request).status.token

    def observations(self, bound_pods):
        """summary.json's internals, component_cost and api_requests (each None when not observed)."""
        found = {"internals": None, "component_cost": None, "api_requests": None}
        if not self.observing() or BEFORE not in self.observed:
            return found
        # Not yet taken: the load test failed or was stopped, and has its host guard's grace to write its results
        # (a short scrape, and no reading of the whole audit log).
        ended_well = AFTER in self.observed
        self.observe(AFTER, timeout=FAILED_RUN_TIMEOUT_S)
        before, after = self.observed[BEFORE], self.observed[AFTER]
        window_s = (after["time_us"] - before["time_us"]) / 1e6
        specs = dict(descriptors.get(self.p["scheduler"]).get("internals") or {})
        specs.update(internals.CONTROL_PLANE)
        found["internals"] = internals.summarize(before["scrapes"], after["scrapes"], specs, window_s)
        # A held backlog: the scheduler was stopped (or its queues closed) for this part of the window.
        found["internals"]["held_s"] = round(self.held_s, 3)
        if before["sample"] is not None and after["sample"] is not None:
            found["component_cost"] = self._component_cost(before["sample"], after["sample"], bound_pods)
        if self.p.get("audit_log") and ended_well:
            files = audit_files.audit_log_files(self.p["audit_log"])
            if files:
                found["api_requests"] = requests.count_requests(files, before["time_us"], after["time_us"], bound_pods,
                                                                self.p.get("scheduler_processes") or [])
        return found

    def _component_cost(self, start, end, bound_pods):
        own_dir = [self.p["own_pid_dir"]] if self.p.get("own_pid_dir") else []
        pid_files = pid_files_in(own_dir)
        roles = components.roles(pid_files, self.p.get("scheduler_pid_files") or [], self.p.get("own_pids") or [],
                                 end.processes, os.getpid(), self.p.get("scheduler_processes") or [])
        peaks, loadgen_peak = components.peak_rss_kb(roles), cost.own_peak_kb()
        # The evidence beside the figures (docs/metrics.md: recomputed from the result files).
        record = components.samples_record(start, end, roles, peaks, loadgen_peak)
        write_atomically(os.path.join(self.p["output_dir"], SAMPLES_FILE),
                         json.dumps(record, indent=1, sort_keys=True) + "\n")
        return components.summarize(start, end, roles, peaks, bound_pods, loadgen_peak_kb=loadgen_peak)


def api_get_text(client, path, timeout):
    """The text of an API server path (its /metrics on kind and external clusters), read with the load test's own
    client and credentials (the kubernetes client's param_serialize and call_api); ApiException when not 2xx."""
    request = client.param_serialize("GET", path, header_params={"Accept": "text/plain"}, auth_settings=["BearerToken"])
    response = client.call_api(*request, _request_timeout=timeout)
    try:
        data = response.read()
        if not 200 <= response.status <= 299:
            raise ApiException(http_resp=response)
        return data.decode("utf-8", errors="replace")
    finally:
        response.response.release_conn()

