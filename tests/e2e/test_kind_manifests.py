"""The kind runtime's scheduler manifests, checked against a real API server.

The kind path itself cannot run here (kind nodes cannot start on these
machines), so this test checks what it would apply: playbooks/manifests.yml
fetches each scheduler's release manifest through scheduler_release_manifest_urls,
rewrites the images to the local registry and sets the controllers' CPU, exactly
as roles/scheduler/tasks/release-manifest.yml does on the kind path; the objects
are then applied by the role's own kind-apply.yml in check mode, which
kubernetes.core.k8s turns into a server-side dry run (dryRun=All) against a
binary-runtime cluster's API server.

GitHub is not reachable, so the release manifests are built the way upstream
builds them, from the Go module sources, and served from 127.0.0.1 laid out like
the upstream URLs (tests/infra/release_mirror.py, shared with test_kind.py): the test passes URL
templates pointing at that server, which is the mirror-replacement path a user takes.
"""
import json
import re
import time

import pytest
import yaml
from conftest import failure_text, mirror_vars, processes_mentioning, run_playbook
from infra.release_mirror import UPSTREAM_PATHS, VERSIONS, build_release_manifests, free_port, serve, templates
from kubernetes import config as k8s_config
from kubernetes import dynamic
from kubernetes.dynamic.exceptions import NotFoundError

# The schedulers that ship Helm charts: YuniKorn's from a chart repository (the mirror's, served
# on 127.0.0.1 like the manifests), coscheduling's from the chart inside its Go module.
CHARTS = {"yunikorn": "yunikorn", "coscheduling": "scheduler-plugins"}  # scheduler -> namespace
# A port range of its own, below the kernel's ephemeral ports and apart from conftest's random
# ranges (21000-29999) and test_schedulers' (30000-31999): the cluster takes 20000-20089,
# the manifest server one of 20090-20099.
CLUSTER_PORTS = (20000, 20089)
SERVER_PORTS = range(20090, 20100)
CPU_LIMIT = "1500m"
REGISTRY = "localhost:5001"
FIELD_MANAGER = "kube-sched-bench"
WORKLOADS = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob")


def documents(path):
    with open(path, encoding="utf-8") as handle:
        return [doc for doc in yaml.load_all(handle, Loader=yaml.CSafeLoader) if doc]


def pod_spec(doc):
    spec = doc["spec"]
    if doc["kind"] == "CronJob":
        spec = spec["jobTemplate"]["spec"]
    return spec["template"]["spec"]


def client(kubeconfig):
    return dynamic.DynamicClient(k8s_config.new_client_from_config(config_file=kubeconfig))


def create_for_real(kubeconfig, docs):
    """Create the Namespaces and CRDs of the release for real: a dry run of a namespaced object
    fails when its namespace does not exist, and a custom resource needs its CRD."""
    api = client(kubeconfig)
    for doc in docs:
        if doc["kind"] in ("Namespace", "CustomResourceDefinition"):
            api.resources.get(api_version=doc["apiVersion"], kind=doc["kind"]).create(body=doc)


def stored(kubeconfig, docs):
    """kind namespace/name of each of ``docs`` the API server has."""
    api, found = client(kubeconfig), []
    for doc in docs:
        meta = doc["metadata"]
        resource = api.resources.get(api_version=doc["apiVersion"], kind=doc["kind"])
        try:
            resource.get(name=meta["name"], namespace=meta.get("namespace") if resource.namespaced else None)
        except NotFoundError:
            continue
        found.append("%s %s/%s" % (doc["kind"], meta.get("namespace", ""), meta["name"]))
    return found


def audit_writes(audit_log):
    """The completed write requests of the audit log (verb, resource, namespace, name, URI, code)."""
    writes = []
    with open(audit_log, encoding="utf-8") as handle:
        for line in handle:
            event = json.loads(line)
            if event.get("stage") != "ResponseComplete" or event.get("verb") not in ("create", "update", "patch"):
                continue
            ref = event.get("objectRef") or {}
            writes.append((event["verb"], ref.get("resource"), ref.get("namespace", ""), ref.get("name"),
                           event.get("requestURI", ""), (event.get("responseStatus") or {}).get("code", 0)))
    return writes


def audit_ref(doc):
    """How the audit log names the object of ``doc``: (resource, namespace, name)."""
    meta = doc["metadata"]
    namespace = meta["name"] if doc["kind"] == "Namespace" else meta.get("namespace", "")
    return doc["kind"].lower() + "s", namespace, meta["name"]


def render(tmp_path, base, out, label, **extra):
    extravars = dict({"scheduler_release_manifest_urls": templates(base), "manifests_dir": str(out),
                      "scheduler_chart_repository_urls": {"yunikorn": base + "/charts", "coscheduling": ""},
                      "scheduler_controller_cpu_limit": CPU_LIMIT}, **mirror_vars(), **extra)
    return run_playbook(tmp_path, "playbooks/manifests.yml", extravars, label=label)


def test_kind_manifests_pass_a_server_side_dry_run(tmp_path):
    started = time.monotonic()
    work = tmp_path / "work"
    work.mkdir()
    served = build_release_manifests(tmp_path / "mirror", work)
    # The same Volcano release with one object the API server refuses (a client-side dry run would pass it).
    broken = documents(served["volcano"])
    next(doc for doc in broken if doc["kind"] == "Deployment" and doc["metadata"]["name"] == "volcano-scheduler")[
        "spec"]["replicas"] = -1
    broken_path = tmp_path / "mirror" / "broken" / UPSTREAM_PATHS["volcano"].format(version=VERSIONS["volcano"])
    broken_path.parent.mkdir(parents=True)
    broken_path.write_text(yaml.dump_all(broken, Dumper=yaml.CSafeDumper), encoding="utf-8")

    workspace = tmp_path / "ws"
    cluster_vars = {"bench_workspace": str(workspace), "bench_run_id": "kind-manifests",
                    "bench_results_dir": str(tmp_path / "results"),
                    "bench_port_range_start": CLUSTER_PORTS[0], "bench_port_range_end": CLUSTER_PORTS[1]}
    server, base = serve(tmp_path / "mirror", SERVER_PORTS)
    try:
        # Render only: no cluster, no Docker.
        out = tmp_path / "manifests"
        rendered_run = render(tmp_path, base, out, "render")
        assert rendered_run.rc == 0, failure_text(rendered_run)
        rendered = {name: documents(out / (name + "-kind.yaml")) for name in list(VERSIONS) + list(CHARTS)}
        for name, docs in rendered.items():
            if name in CHARTS:
                # The chart's namespace first (helm install --create-namespace), then what the chart renders.
                assert docs[0] == {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": CHARTS[name]}}
                assert {doc["kind"] for doc in docs} >= {"Deployment", "ConfigMap", "ServiceAccount"}, name
            else:
                # Every upstream object is there; only images and the controllers' CPU changed.
                assert len(docs) == len(documents(served[name])), name
            workloads = [doc for doc in docs if doc["kind"] in WORKLOADS]
            assert workloads, name
            images = [c["image"] for doc in workloads
                      for c in pod_spec(doc).get("initContainers", []) + pod_spec(doc)["containers"]]
            assert images and all(image.startswith(REGISTRY + "/") for image in images), (name, images)
            for doc in (doc for doc in docs if doc["kind"] == "Deployment"):
                containers = pod_spec(doc)["containers"]
                default = (doc["spec"]["template"]["metadata"].get("annotations") or {}).get(
                    "kubectl.kubernetes.io/default-container", containers[0]["name"])
                main = next(c for c in containers if c["name"] == default)
                assert main["resources"]["requests"]["cpu"] == "500m", doc["metadata"]["name"]
                assert main["resources"]["limits"]["cpu"] == CPU_LIMIT, doc["metadata"]["name"]
        # The charts get the same scheduler settings as the binary runtime.
        yunikorn_defaults = next(doc for doc in rendered["yunikorn"] if doc["kind"] == "ConfigMap"
                                 and doc["metadata"]["name"] == "yunikorn-defaults")["data"]
        assert "name: sandbox" in yunikorn_defaults["queues.yaml"] and yunikorn_defaults["kubernetes.qps"] == "1000"
        # YuniKorn's web UI is left out (its descriptor's release.without_containers), its scheduler stays.
        yunikorn_scheduler = next(doc for doc in rendered["yunikorn"] if doc["kind"] == "Deployment"
                                  and doc["metadata"]["name"] == "yunikorn-scheduler")
        assert [c["name"] for c in pod_spec(yunikorn_scheduler)["containers"]] == ["yunikorn-scheduler-k8s"]
        cosched_config = next(doc for doc in rendered["coscheduling"] if doc["kind"] == "ConfigMap")
        assert "Coscheduling" in yaml.dump(cosched_config) and "CapacityScheduling" not in yaml.dump(cosched_config)
        # Kueue's sidecar keeps what upstream gave it.
        kueue_manager = next(doc for doc in rendered["kueue"] if doc["kind"] == "Deployment")
        proxy = next(c for c in pod_spec(kueue_manager)["containers"] if c["name"] == "kube-rbac-proxy")
        assert "cpu" not in proxy.get("resources", {}).get("requests", {})

        up = run_playbook(tmp_path, "playbooks/cluster.yml", cluster_vars, label="cluster")
        assert up.rc == 0, failure_text(up)
        cluster = workspace / "clusters" / "bench"
        kubeconfig = str(cluster / "admin.kubeconfig")
        for docs in rendered.values():
            create_for_real(kubeconfig, docs)
        objects = [doc for docs in rendered.values() for doc in docs]
        dry_run_objects = [doc for doc in objects if doc["kind"] not in ("Namespace", "CustomResourceDefinition")]
        assert stored(kubeconfig, dry_run_objects) == []

        checked = render(tmp_path, base, out, "dry-run", manifests_check_kubeconfig=kubeconfig)
        assert checked.rc == 0, failure_text(checked)

        # Every object reached the API server as a server-side apply with dryRun=All and was accepted,
        # and the role's field manager never wrote anything for real.
        expected = {audit_ref(doc) for doc in objects}
        for _ in range(20):  # the audit log is written in batches
            ours = [write for write in audit_writes(cluster / "audit" / "audit.log")
                    if re.search(r"[?&]fieldManager=%s(&|$)" % FIELD_MANAGER, write[4])]
            accepted = {write[1:4] for write in ours if 200 <= write[5] < 300}
            if expected <= accepted:
                break
            time.sleep(0.5)
        assert sorted(expected - accepted) == []
        assert [write for write in ours if not re.search(r"[?&]dryRun=All(&|$)", write[4])] == []
        assert stored(kubeconfig, dry_run_objects) == []

        # The dry run is the API server's: an object it refuses fails the run, naming the object.
        refused = render(tmp_path, base + "/broken", tmp_path / "broken-out", "refused",
                         manifests_schedulers=["volcano"], manifests_check_kubeconfig=kubeconfig)
        assert refused.rc != 0
        assert "volcano-scheduler" in failure_text(refused) and "replicas" in failure_text(refused)
        assert stored(kubeconfig, dry_run_objects) == []
    finally:
        server.kill()
        server.wait()
        down = run_playbook(tmp_path, "playbooks/teardown.yml", cluster_vars, label="down")
    assert down.rc == 0, failure_text(down)
    time.sleep(0.5)
    assert processes_mentioning(str(workspace)) == []
    assert processes_mentioning(str(tmp_path / "mirror")) == []
    print("test wall time: %.0f s" % (time.monotonic() - started))


@pytest.mark.parametrize("template,expected", [
    ("http://127.0.0.1:{port}/kubernetes-sigs/kueue/releases/download/{{version}}/manifests.yaml",
     "scheduler_release_manifest_urls.kueue: cannot fetch http://127.0.0.1:{port}/kubernetes-sigs/kueue/releases/"
     "download/v0.10.1/manifests.yaml (Request failed: <urlopen error [Errno 111] Connection refused>)"),
    ("github.com/kubernetes-sigs/kueue/releases/download/{{version}}/manifests.yaml",
     "scheduler_release_manifest_urls.kueue='github.com/kubernetes-sigs/kueue/releases/download/{{version}}/"
     "manifests.yaml' is not allowed: use an http(s):// or file:// URL"),
], ids=["unreachable", "not a URL"])
def test_a_bad_manifest_url_fails_with_one_line_naming_the_variable(tmp_path, template, expected):
    port = free_port(SERVER_PORTS)
    urls = dict(templates("http://127.0.0.1:%d" % port), kueue=template.format(port=port))
    out = tmp_path / "manifests"
    runner = run_playbook(tmp_path, "playbooks/manifests.yml",
                          {"scheduler_release_manifest_urls": urls, "manifests_dir": str(out)}, label="bad-url")
    assert runner.rc != 0
    failures = [line for line in failure_text(runner).splitlines() if line.strip()]
    assert len(failures) == 1 and expected.format(port=port) in failures[0], failures
    # Nothing was fetched or written.
    assert not out.exists() or list(out.iterdir()) == []
