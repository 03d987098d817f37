# -*- coding: utf-8 -*-
"""Where the load test reads the Go profiles (pprof) of the scheduler and of kube-apiserver
(``bench_scheduler_cpu_profile_seconds``, roles/loadtest/tasks/profiles.yml).

The scheduler's address comes from its deployment's record (``scheduler_deployed.pprof``, set by
roles/scheduler/tasks/<scheduler>/<runtime>.yml: the URL of its CPU profile, a CA and a client certificate when it
asks for them); the API server's from the cluster record: a runtime whose record names the API server (``server``)
and a directory of certificates (``pki``) with the cluster CA and the admin client certificate (system:masters, which
may read /debug/pprof) gets its profiles; any other says why not."""
from __future__ import annotations

CPU_PATH = "/profile"


def admin_access(cluster):
    """(the API server's https address, {"ca", "client_cert", "client_key"}: the cluster CA and the admin client
    certificate, system:masters) of a cluster record that names both (``server``, ``pki``); else (None, None)."""
    cluster = cluster or {}
    server, pki = str(cluster.get("server") or ""), str(cluster.get("pki") or "")
    if not (server.startswith("https://") and pki):
        return None, None
    return server.rstrip("/"), {"ca": pki + "/ca.crt", "client_cert": pki + "/admin.crt", "client_key": pki + "/admin.key"}


def scheduler_endpoint(deployed, runtime):
    """{"url": <the scheduler's /debug/pprof>, "ca", "client_cert", "client_key"} from the deployment's record,
    or {"skipped": why}."""
    record = (deployed or {}).get("pprof") or {}
    url = str(record.get("url") or "")
    if not url:
        return {"skipped": "the scheduler's deployment on the %s runtime records no pprof address" % runtime}
    if url.endswith(CPU_PATH):
        url = url[:-len(CPU_PATH)]
    return {"url": url, "ca": record.get("ca") or "", "client_cert": record.get("client_cert") or "",
            "client_key": record.get("client_key") or ""}


def apiserver_endpoint(cluster):
    """The API server's /debug/pprof with the cluster CA and the admin client certificate, or {"skipped": why}."""
    server, admin = admin_access(cluster)
    if admin is None:
        return {"skipped": "the %s runtime's cluster record names no API server address with client certificate "
                           "files (server and pki)" % ((cluster or {}).get("runtime") or "unknown")}
    return dict(admin, url=server + "/debug/pprof")


def pprof_endpoints(cluster, deployed):
    """Component (scheduler, apiserver) -> its pprof endpoint or why it has none, for the load test's profiles."""
    runtime = (cluster or {}).get("runtime") or "unknown"
    return {"scheduler": scheduler_endpoint(deployed, runtime), "apiserver": apiserver_endpoint(cluster)}
