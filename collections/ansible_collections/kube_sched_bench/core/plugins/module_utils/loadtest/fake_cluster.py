# -*- coding: utf-8 -*-
"""The load test's cluster around its jobs: the API server's check, the fresh namespace and its objects, the fake
nodes, the scenario's cluster objects, and their clean-up (``ClusterSetUp``, a part of load.LoadTest).

``LoadTestError`` is the failure with a sentence for the user that every step of the load test raises.
"""
from __future__ import annotations

import time

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.rules import queue_quota
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import scenario_objects, workloads
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.client import (
    drain,
    error_text,
    is_status,
    list_pages,
    namespace_exists,
    read_json,
)
from kubernetes import client as k8s_client


class LoadTestError(Exception):
    """A failure with a sentence for the user."""


class ClusterSetUp:
    """The set-up and clean-up of load.LoadTest: its attributes are the load test's (p, workload, core, custom,
    limiter, progress, target, scenario, jobs and what was created)."""

    # -- cluster checks --------------------------------------------------
    def probe(self):
        """Check the API server answers; return its version string."""
        try:
            version = read_json(k8s_client.VersionApi(self.client).get_code(
                _preload_content=False, _request_timeout=15))
        except Exception as exc:  # noqa: BLE001 - any failure to connect is reported the same way
            raise LoadTestError("the API server in kubeconfig %s does not answer: %s"
                                % (self.p["kubeconfig"], error_text(exc))) from exc
        return version.get("gitVersion", "unknown")

    def namespace_exists(self):
        return namespace_exists(self.core, self.p["namespace"])

    # -- set-up ----------------------------------------------------------
    def create_namespace(self):
        name = self.p["namespace"]
        if self.namespace_exists():
            raise LoadTestError("namespace %s already exists: a load test needs a fresh namespace "
                                "(delete it, or set another namespace)" % name)
        labels = {workloads.ROLE_LABEL: "load"}
        if self.p["run_label"]:
            labels[workloads.RUN_LABEL] = self.p["run_label"]
        drain(self.core.create_namespace({"metadata": {"name": name, "labels": labels}}, _preload_content=False))
        self.created_namespace = True
        # Pods are only admitted once the namespace's default service account exists.
        deadline = time.monotonic() + min(self.workload["timeout"], 120)
        while time.monotonic() < deadline:
            try:
                drain(self.core.read_namespaced_service_account("default", name, _preload_content=False))
                return
            except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
                if not is_status(exc, 404):
                    raise
            time.sleep(0.2)
        raise LoadTestError("the default service account of namespace %s did not appear: "
                            "is kube-controller-manager running?" % name)

    def create_namespace_objects(self):
        """Create the objects of O(namespace_objects) in the test's namespace."""
        namespace = self.p["namespace"]
        plurals = {}
        for obj in self.p["namespace_objects"]:
            api_version, kind = obj.get("apiVersion", ""), obj.get("kind", "")
            name = (obj.get("metadata") or {}).get("name", "?")
            if api_version.count("/") != 1:
                raise LoadTestError("namespace object %s %s: only objects of API groups (apiVersion group/version) "
                                    "can be created, got apiVersion %r" % (kind, name, api_version))
            group, version = api_version.split("/")
            if api_version not in plurals:
                try:
                    plurals[api_version] = workloads.plurals(read_json(self.custom.get_api_resources(
                        group, version, _preload_content=False, _request_timeout=30)))
                except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
                    raise LoadTestError("API %s is not served (are its CRDs applied?): %s"
                                        % (api_version, error_text(exc))) from exc
            if kind not in plurals[api_version]:
                raise LoadTestError("API %s has no namespaced kind %s" % (api_version, kind))
            body = dict(obj, metadata=dict(obj.get("metadata") or {}, namespace=namespace))
            try:
                drain(self.custom.create_namespaced_custom_object(
                    group, version, namespace, plurals[api_version][kind], body, _preload_content=False))
            except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
                raise LoadTestError("could not create %s %s in namespace %s: %s"
                                    % (kind, name, namespace, error_text(exc))) from exc

    def create_nodes(self, pool):
        def create(node):
            name, body = node
            self.limiter.acquire()
            try:
                drain(self.core.create_node(body, _preload_content=False))
                return name, None
            except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
                return name, exc

        for name, exc in pool.map(create, workloads.fake_nodes(self.p["node_name_prefix"], self.target, self.workload)):
            if exc is None:
                self.created_nodes.append(name)
            elif is_status(exc, 409):
                raise LoadTestError("node %s already exists: remove fake nodes of an earlier run first "
                                    "(label %s=%s)" % (name, workloads.ROLE_LABEL, workloads.FAKE_NODE_ROLE))
            else:
                raise LoadTestError("could not create fake node %s: %s" % (name, error_text(exc)))

    def wait_nodes_ready(self, deadline):
        wanted = set(self.created_nodes)
        ready = 0
        while time.monotonic() < deadline:
            nodes = list_pages(self.core.list_node, label_selector="%s=%s" % (workloads.ROLE_LABEL, workloads.FAKE_NODE_ROLE))
            next(nodes)
            ready = sum(
                1 for node in nodes
                if node["metadata"]["name"] in wanted and any(
                    c.get("type") == "Ready" and c.get("status") == "True"
                    for c in (node.get("status") or {}).get("conditions") or []))
            self.progress.update(count=ready)
            if ready == len(wanted):
                return
            time.sleep(0.25)
        raise LoadTestError("only %d of %d fake nodes became Ready within the timeout: is kwok running "
                            "and managing nodes annotated %s=fake?" % (ready, len(wanted),
                                                                      workloads.KWOK_NODE_ANNOTATION))

    def create_scenario_objects(self, deadline):
        """The scenario's cluster objects (sched_workloads.cluster_objects: PriorityClasses, queues), before its jobs."""
        capability = queue_quota(self.workload["queue_quota"], self.workload)
        objects = workloads.cluster_objects(self.scenario, self.jobs, self.target, capability)
        try:
            self.cluster_created = scenario_objects.create(self.custom, objects, self.limiter.acquire)
        except RuntimeError as exc:
            self.cluster_created = getattr(exc, "created", [])
            raise LoadTestError(str(exc)) from exc
        problem = scenario_objects.wait_open(self.custom, self.cluster_created, deadline)
        if problem:
            raise LoadTestError(problem)

    # -- clean-up --------------------------------------------------------
    def cleanup(self, wait_s=120):
        """Delete what this test created; return a sentence about anything left."""
        problems = scenario_objects.delete(self.custom, self.cluster_created)
        if self.created_namespace:
            try:
                drain(self.core.delete_namespace(self.p["namespace"], propagation_policy="Background",
                                                 _preload_content=False))
            except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
                if not is_status(exc, 404):
                    problems.append("namespace %s: %s" % (self.p["namespace"], error_text(exc)))
        for name in self.created_nodes:
            try:
                drain(self.core.delete_node(name, _preload_content=False))
            except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
                if not is_status(exc, 404):
                    problems.append("node %s: %s" % (name, error_text(exc)))
        if self.created_namespace and not problems:
            deadline = time.monotonic() + wait_s
            while time.monotonic() < deadline and self.namespace_exists():
                time.sleep(0.5)
            if self.namespace_exists():
                problems.append("namespace %s still terminating after %ds" % (self.p["namespace"], wait_s))
        return "; ".join(problems) or None
