# -*- coding: utf-8 -*-
"""Which metrics endpoints the load test scrapes around the load (its ``metrics_targets``, module_utils/metrics/
scrape.py): the scheduler's processes', which its deployment records (``scheduler_deployed.metrics``, set by
roles/scheduler/tasks/<scheduler>/<runtime>.yml), and the control plane's, from the cluster record.

A cluster record with the API server's address (``server``), the certificates' directory (``pki``) and the
components' ports (``ports``: the binary runtime's) gives kube-apiserver, etcd and kube-controller-manager, each
read with a client certificate (the admin's, system:masters; etcd's own client certificate for etcd). A kind
cluster's record (``control_plane_node``, ``node_metrics``, ``metrics_reader``: roles/kind_cluster) gives the API
server through the load test's own client and etcd and kube-controller-manager from inside the node (node targets,
metrics/scrape.py). Any other record gives the API server alone, through the load test's own client."""
from __future__ import annotations

from urllib.parse import urlsplit

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster.pprof import admin_access


def node_target(cluster, process, url=None):
    """The target of ``process`` inside a kind cluster's first node: at ``url`` (a scheduler's own endpoint there) or
    else where kubeadm serves its metrics (``node_metrics``), read with the client certificate given for it (paths
    inside the node) or else with a token of the metrics reader."""
    endpoint = {"url": url} if url else cluster["node_metrics"][process]
    target = dict(endpoint, process=process, node=cluster["control_plane_node"])
    if not target.get("client_cert"):
        target["service_account"] = cluster["metrics_reader"]
    return target


def control_plane_targets(cluster):
    """The control plane's targets from a cluster record."""
    api_server = {"process": "kube-apiserver", "path": "/metrics"}
    if cluster.get("control_plane_node"):
        return [api_server] + [node_target(cluster, process) for process in ("etcd", "kube-controller-manager")]
    server, admin = admin_access(cluster)
    if admin is None:
        return [api_server]
    pki, ports = cluster["pki"], cluster.get("ports") or {}
    targets = [dict(admin, process="kube-apiserver", url=server + "/metrics")]
    host = urlsplit(server).hostname
    if ports.get("etcd_client"):
        targets.append({"process": "etcd", "url": "https://%s:%s/metrics" % (host, ports["etcd_client"]),
                        "ca": pki + "/etcd-ca.crt", "client_cert": pki + "/apiserver-etcd-client.crt",
                        "client_key": pki + "/apiserver-etcd-client.key"})
    if ports.get("controller_manager"):
        # It serves on loopback only (roles/binary_cluster/templates/components.yaml.j2).
        targets.append(dict(admin, process="kube-controller-manager",
                            url="https://127.0.0.1:%s/metrics" % ports["controller_manager"]))
    return targets


def metrics_targets(cluster, deployed):
    """The scheduler's targets, then the control plane's."""
    return list((deployed or {}).get("metrics") or []) + control_plane_targets(cluster)
