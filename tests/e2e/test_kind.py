"""bench.yml on the kind runtime, end to end on this machine: Docker, the local registry, a kind
cluster with the seed's audit policy, kwok beside it, the five schedulers (the default scheduler, Kueue, Volcano,
YuniKorn and coscheduling), the load test timed from the audit log, the results fetched, and a teardown that
leaves nothing. The same on the old-kernel version set (kind v0.19.0, node image v1.27.1) for the default scheduler
and Kueue, as on a CentOS 7 host. The molecule scenario kind_cluster (a real cluster from the kind_cluster role on a
systemd host) runs here too, as it needs the node image.

Nothing can be pulled here, so the images are built beforehand from source (`make test-kind`:
`make kind-images` for kind's node image, tests/infra/scheduler-images.sh for the batch schedulers',
hack/registry-image.sh for the registry's): without them it fails, saying so (tests/infra/kind_ready.py names the
images). `make test` leaves this file out (hack/test.sh): it runs only through `make test-kind`, which builds the
images first. dockerd must run kind's privileged nodes (tests/infra/kind-docker.sh, also part of `make kind-images`).
The product mirrors each image into its registry as it would an image pulled through
registry_image_prefix ("pull unless present"). Kueue's release manifest is built from its Go module,
Volcano's taken from its module at the tag, and both served on 127.0.0.1 like the upstream URLs
(tests/infra/release_mirror.py), with YuniKorn's chart repository from the mirror; coscheduling's chart comes
from its Go module.
"""
import contextlib
import os
import pathlib
import signal
import time

import pytest
import recompute_internals
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers as sched_descriptors
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.calibration import JOBS_SYNCED
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.internals import CONTROL_PLANE, NO_ENDPOINT
from conftest import (
    audit_bindings,
    audit_events,
    failure_text,
    mirror_vars,
    node_health_writes,
    processes_mentioning,
    read_rows,
    result_files,
    run_playbook,
    scheduler_results,
)
from infra.kind_ready import (
    COSCHEDULING_IMAGES,
    KIND_CPU,
    KUEUE_IMAGE,
    REGISTRY_DATA,
    REGISTRY_IMAGE,
    RELEASES,
    SCHEDULERS,
    VOLCANO_IMAGES,
    YUNIKORN_IMAGES,
    chart_repositories,
    docker,
    not_ready,
)
from infra.molecule_run import molecule_test
from infra.release_mirror import build_release_manifests, serve, templates

PODS = 5
# Whose metrics a kind run reads (beside the API server's through the load test's own client, the others' from inside
# the node), and the schedulers whose own are read there too.
CONTROL_PLANE_SCRAPED = ["kube-apiserver", "etcd", "kube-controller-manager"]
READ_INSIDE_THE_NODE = {"default": ["kube-scheduler"], "kueue": ["kube-scheduler", "kueue"]}
# The manifest server's ports, apart from test_kind_manifests' (20090-20099) and conftest's random ranges.
SERVER_PORTS = range(20190, 20200)
KIND_LABEL = "io.x-k8s.kind.cluster"


@pytest.fixture(scope="module", autouse=True)
def built_images():
    """Docker answers and the images the run needs are there: `make test-kind` starts the one and builds the others."""
    reason = not_ready()
    assert reason is None, "%s: run `make test-kind`, which starts Docker and builds the images" % reason


def kueue_admissions(audit_log):
    """Names of the Jobs Kueue's controller wrote to (it unsuspends a Job to admit it), from a gzipped audit log."""
    names = set()
    for event in audit_events(audit_log, "kueue-system", succeeded=True):
        ref = event.get("objectRef") or {}
        if (ref.get("resource") == "jobs" and event.get("verb") in ("update", "patch")
                and event.get("user", {}).get("username", "").startswith("system:serviceaccount:kueue-system:")):
            names.add(ref["name"])
    return names


# Fairness knobs other than their defaults, to find in the pods kind runs (issue 15: kind and binary comparable).
KNOBS = {"bench_scheduler_gogc": 150, "bench_scheduler_api_qps": 800, "bench_scheduler_api_burst": 900,
         "bench_controller_manager_api_qps": 700, "bench_controller_manager_api_burst": 750}


def created_pods(audit_log, namespace):
    """name -> the pod as created, of the pods of ``namespace`` in an audit log (pods are logged with their objects)."""
    pods = {}
    for event in audit_events(audit_log, '"pods"', succeeded=True):
        ref = event.get("objectRef") or {}
        if (event.get("verb") == "create" and ref.get("resource") == "pods" and not ref.get("subresource")
                and ref.get("namespace") == namespace and event.get("responseObject")):
            pods[event["responseObject"]["metadata"]["name"]] = event["responseObject"]
    return pods


def binders(audit_log, namespace):
    """The users that bound pods of ``namespace`` (created pods/binding), from a gzipped audit log."""
    return {event["user"]["username"] for event in audit_events(audit_log, '"binding"', succeeded=True)
            if event.get("verb") == "create"
            and (event.get("objectRef") or {}).get("subresource") == "binding"
            and event["objectRef"].get("namespace") == namespace}


def go_env_of(pod, container_name):
    container = next(c for c in pod["spec"]["containers"] if c["name"] == container_name)
    return {entry["name"]: entry.get("value") for entry in container.get("env") or [] if entry["name"].startswith("GO")}


def volumes():
    return set(docker("volume", "ls", "-q").stdout.split())


def ours_left(workspace, volumes_before):
    """What the run could leave behind: kind's node containers and their /var volumes, the registry, the kind
    network, processes."""
    return {
        "kind containers": docker("ps", "-aq", "--filter", "label=" + KIND_LABEL).stdout.split(),
        "registry container": docker("ps", "-aq", "--filter", "name=^kind-registry$").stdout.split(),
        "kind network": [name for name in docker("network", "ls", "--format", "{{.Name}}").stdout.split()
                         if name == "kind"],
        "volumes": sorted(volumes() - volumes_before),
        "processes": processes_mentioning(str(workspace)),
    }


NOTHING_LEFT = {"kind containers": [], "registry container": [], "kind network": [], "volumes": [], "processes": []}


def local_images(images):
    """Where the product mirrors ``images`` in its local registry: Docker Hub's keep their path without the host."""
    return sorted("localhost:5001/" + image.removeprefix("docker.io/") for image in images)


def bench_on_kind(tmp_path, bench_vars, label, releases, **extra):
    """bench.yml on the kind runtime with a small load, the release manifests of ``releases`` served like their
    upstream URLs (and the charts' repository); returns the runner."""
    work = tmp_path / "work"
    work.mkdir()
    build_release_manifests(tmp_path / "mirror", work, names=releases)
    REGISTRY_DATA.mkdir(parents=True, exist_ok=True)
    extravars = dict(bench_vars, bench_runtime="kind", bench_nodes=5, bench_jobs=PODS, bench_pods_per_job=1,
                     bench_pod_duration=1, bench_timeout=300, registry_image=REGISTRY_IMAGE,
                     registry_data_dir=str(REGISTRY_DATA), **KIND_CPU, **mirror_vars(), **extra)
    server, base = serve(tmp_path / "mirror", SERVER_PORTS)
    try:
        extravars["scheduler_release_manifest_urls"] = templates(base)
        extravars["scheduler_chart_repository_urls"] = chart_repositories(base)
        return run_playbook(tmp_path, "bench.yml", extravars, label=label)
    finally:
        server.kill()
        server.wait()


def internals_specs(scheduler):
    return dict(sched_descriptors.get(scheduler)["internals"], **CONTROL_PLANE)


def teardown_kind(tmp_path, bench_vars, label, **extra):
    """playbooks/teardown.yml on the kind runtime for every run of ``bench_vars``' workspace; returns the runner."""
    down = dict(bench_vars, bench_runtime="kind", **extra)
    down.pop("bench_run_id")
    return run_playbook(tmp_path, "playbooks/teardown.yml", down, label=label)


@contextlib.contextmanager
def kind_run_cleaned(tmp_path, bench_vars, **extra):
    """Around a kind run of ``bench_vars``: no kind cluster before it (another's would share the kind network, and the
    checks of what is left could not hold), and whatever it left torn down afterwards (``extra``: the run's variables
    that the teardown needs too). Yields a function that tells what is left (ours_left)."""
    assert docker("ps", "-aq", "--filter", "label=" + KIND_LABEL).stdout.split() == [], "a kind cluster already runs"
    volumes_before = volumes()
    workspace = pathlib.Path(bench_vars["bench_workspace"])

    def left():
        return ours_left(workspace, volumes_before)
    try:
        yield left
    finally:
        if any(left().values()):
            teardown_kind(tmp_path, bench_vars, "cleanup", **extra)


def test_five_schedulers_on_kind(tmp_path, bench_vars):
    started = time.monotonic()
    with kind_run_cleaned(tmp_path, bench_vars) as left:
        runner = bench_on_kind(tmp_path, bench_vars, "kind", RELEASES, bench_schedulers=SCHEDULERS, **KNOBS)
        assert runner.rc == 0, failure_text(runner)
        for scheduler in SCHEDULERS:
            out, summary, env = scheduler_results(bench_vars, scheduler)
            # The API server's metrics through the load test's client, the rest of the control plane's and those of
            # kube-scheduler and Kueue from inside the node.
            scraped = CONTROL_PLANE_SCRAPED + READ_INSIDE_THE_NODE.get(scheduler, [])
            assert sorted(os.listdir(out)) == result_files(scraped), scheduler
            assert env["runtime"] == "kind" and env["outcome"] == {"status": "ok"}, scheduler
            assert env["fake_nodes"]["node_status_writes"] == ["bench-node-ready", "bench-node-heartbeat"], \
                env["fake_nodes"]
            assert (summary["pods_created"], summary["pods_bound"], summary["complete"]) == (PODS, PODS, True), scheduler
            assert summary["timing_source"] == "audit", scheduler
            rows = read_rows(out, "pods.csv")
            assert len(rows) == PODS and all(row["node"].startswith("kwok-node-") for row in rows), rows
            # The kind API server's own audit log (kept on the host) has each pod's creation and binding.
            created, bound = audit_bindings(env["audit_log"]["on_host"])
            for row in rows:
                assert (row["created"], row["bound"]) == (created[row["pod"]], bound[row["pod"]]), (scheduler, row)
            assert node_health_writes(env["audit_log"]["on_host"]) == [], scheduler
            # Why it was as fast as it was, as far as the host sees into kind: the API server's metrics (through its
            # own client), every component's CPU from /proc (the node's processes by command name), the requests.
            internals = summary["internals"]
            assert sorted(internals["processes"]) == sorted(scraped), internals
            assert all(reason == NO_ENDPOINT for reason in internals["unread"].values()), internals
            assert internals["processes"]["kube-apiserver"]["requests_by_verb"].get("POST", 0) >= PODS, internals
            assert internals["processes"]["etcd"], internals
            if scheduler in READ_INSIDE_THE_NODE:
                # kind's kube-scheduler placed every pod of the load (Kueue's once admitted).
                assert internals["unread"] == {}, internals
                assert internals["processes"]["kube-scheduler"]["attempts"].get("scheduled", 0) >= PODS, internals
            # Every figure read agrees with the two scrapes kept beside the results.
            assert recompute_internals.internals_differences(out, summary, internals_specs(scheduler)) == []
            found = {row["component"] for row in summary["component_cost"]["components"]}
            assert {"kube-apiserver", "etcd", "kube-controller-manager", "kwok", "load generator"} <= found, found
            assert summary["api_requests"]["by_role"]["load generator"]["requests"] >= PODS, scheduler  # a job per pod
            # kind's kube-scheduler ran with the run's client rate and GOGC (its mirror pod, as kubelet created it).
            system_pods = created_pods(env["audit_log"]["on_host"], "kube-system")
            scheduler_pod = [pod for name, pod in system_pods.items() if name.startswith("kube-scheduler-")]
            assert len(scheduler_pod) == 1, scheduler
            command = scheduler_pod[0]["spec"]["containers"][0]["command"]
            assert {"--kube-api-qps=800", "--kube-api-burst=900"} <= set(command), command
            assert go_env_of(scheduler_pod[0], "kube-scheduler") == {"GOGC": "150"}, scheduler
            # kube-controller-manager, which creates the Jobs' pods, with the run's client rate (kind's own is 20/s).
            manager_pod = [pod for name, pod in system_pods.items() if name.startswith("kube-controller-manager-")]
            command = manager_pod[0]["spec"]["containers"][0]["command"]
            assert {"--kube-api-qps=700", "--kube-api-burst=750"} <= set(command), command
        # Kueue's manager ran with them too: GOGC in its pod, the client rate in its configuration.
        kueue_env = scheduler_results(bench_vars, "kueue")[2]
        managers = [pod for name, pod in created_pods(kueue_env["audit_log"]["on_host"], "kueue-system").items()
                    if name.startswith("kueue-controller-manager-")]
        assert managers and all(go_env_of(pod, "manager") == {"GOGC": "150"} for pod in managers), managers
        kueue_deployed = kueue_env["versions"]["scheduler"]
        assert ("ConfigMap kueue-system/kueue-manager-config: controller_manager_config.yaml clientConnection "
                "qps=800, burst=900") in kueue_deployed["knobs_applied"], kueue_deployed
        # Kueue admitted every Job (its controller unsuspended it), with images from the local registry; its own
        # metrics count the admissions.
        assert len(kueue_admissions(kueue_env["audit_log"]["on_host"])) == PODS
        kueue_internals = scheduler_results(bench_vars, "kueue")[1]["internals"]["processes"]["kueue"]
        assert kueue_internals["admission_attempts"].get("success", 0) >= PODS, kueue_internals
        deployed = [event["event_data"]["res"]["ansible_facts"]["scheduler_deployed"] for event in runner.events
                    if event.get("event") == "runner_on_ok"
                    and "scheduler_deployed" in (event["event_data"].get("res", {}).get("ansible_facts") or {})]
        kueue = [record for record in deployed if record.get("name") == "kueue" and record.get("images")][-1]
        assert all(image.startswith("localhost:5001/") for image in kueue["images"]), kueue
        assert "localhost:5001/%s" % KUEUE_IMAGE in kueue["images"], kueue
        # Volcano bound every pod of the load itself (kind's kube-scheduler bound the system pods; Volcano's
        # admission Job wrote the webhook certificate first: readiness waits for it), its scheduler with the run's
        # client rate and GOGC, its images from the local registry.
        _, volcano_summary, volcano_env = scheduler_results(bench_vars, "volcano")
        assert binders(volcano_env["audit_log"]["on_host"], volcano_summary["namespace"]) == {
            "system:serviceaccount:volcano-system:volcano-scheduler"}, volcano_env["audit_log"]
        vc_schedulers = [pod for name, pod in created_pods(volcano_env["audit_log"]["on_host"], "volcano-system").items()
                         if name.startswith("volcano-scheduler-")]
        assert vc_schedulers, "no volcano-scheduler pod in the audit log"
        for pod in vc_schedulers:
            args = pod["spec"]["containers"][0]["args"]
            assert {"--kube-api-qps=800", "--kube-api-burst=900"} <= set(args), args
            assert go_env_of(pod, "volcano-scheduler") == {"GOGC": "150"}, pod["spec"]["containers"][0]
        volcano = [record for record in deployed if record.get("name") == "volcano" and record.get("images")][-1]
        assert sorted(volcano["images"]) == local_images(VOLCANO_IMAGES), volcano
        # YuniKorn and coscheduling (their charts) bound every pod of the load themselves, each from its own
        # service account, their schedulers with the run's GOGC, their images from the local registry; YuniKorn's
        # web UI left out (its descriptor's release.without_containers).
        own = {"yunikorn": ("yunikorn", "yunikorn-admin", "yunikorn-scheduler", "yunikorn-scheduler-k8s", YUNIKORN_IMAGES),
               "coscheduling": ("scheduler-plugins", "scheduler-plugins-scheduler", "scheduler-plugins-scheduler",
                                "scheduler-plugins-scheduler", COSCHEDULING_IMAGES)}
        for name, (namespace, account, pod_prefix, container, images) in own.items():
            _, summary, env = scheduler_results(bench_vars, name)
            assert binders(env["audit_log"]["on_host"], summary["namespace"]) == {
                "system:serviceaccount:%s:%s" % (namespace, account)}, name
            pods = [pod for pod_name, pod in created_pods(env["audit_log"]["on_host"], namespace).items()
                    if pod_name.startswith(pod_prefix + "-")]
            assert pods and all(go_env_of(pod, container).get("GOGC") == "150" for pod in pods), (name, pods)
            record = [record for record in deployed if record.get("name") == name and record.get("images")][-1]
            assert sorted(record["images"]) == local_images(images), record
        yunikorn = [record for record in deployed if record.get("name") == "yunikorn" and record.get("images")][-1]
        assert yunikorn["containers_left_out"] == ["Deployment yunikorn/yunikorn-scheduler: yunikorn-scheduler-web"]
        # Nothing of the run is left: no node, its volume, registry, network or process.
        assert left() == NOTHING_LEFT
        # A second teardown finds nothing and fails on nothing.
        again = teardown_kind(tmp_path, bench_vars, "down")
        assert again.rc == 0, failure_text(again)
    print("test wall time: %.0f s" % (time.monotonic() - started))


# CentOS 7's kernel: no cgroup namespaces, so the run takes the old-kernel version set (kind v0.19.0, node image
# v1.27.1, Go 1.23.10) on this machine, whose own kernel has them.
OLD_KERNEL = "3.10.0-1160.el7.x86_64"
DAEMON_JSON = pathlib.Path("/etc/docker/daemon.json")


@pytest.fixture
def daemon_json_restored():
    """The old-kernel set writes default-cgroupns-mode host into the engine's daemon.json: this machine's file is put
    back afterwards and dockerd reloaded, as the docker role reloads an engine started by hand."""
    before = DAEMON_JSON.read_bytes() if DAEMON_JSON.exists() else None
    yield
    if before is None:
        DAEMON_JSON.unlink(missing_ok=True)
    elif DAEMON_JSON.read_bytes() != before:
        DAEMON_JSON.write_bytes(before)
    os.kill(int(pathlib.Path("/var/run/docker.pid").read_text(encoding="utf-8")), signal.SIGHUP)


def test_old_kernel_set_on_kind(tmp_path, bench_vars, daemon_json_restored):
    """bench.yml as on a CentOS 7 host: kind v0.19.0 built with Go 1.23.10 starts its v1.27.1 node in the host's cgroup
    namespace, with the audit log; the default scheduler and Kueue bind every pod, timed from it."""
    started = time.monotonic()
    with kind_run_cleaned(tmp_path, bench_vars, bench_kernel_release=OLD_KERNEL) as left:
        runner = bench_on_kind(tmp_path, bench_vars, "kind-old-kernel", ("kueue",),
                               bench_schedulers=["default", "kueue"], bench_kernel_release=OLD_KERNEL,
                               bench_calibrate=True)
        assert runner.rc == 0, failure_text(runner)
        assert DAEMON_JSON.exists() and '"default-cgroupns-mode": "host"' in DAEMON_JSON.read_text(encoding="utf-8")
        for scheduler in ("default", "kueue"):
            out, summary, env = scheduler_results(bench_vars, scheduler)
            assert env["versions"]["set"] == "legacy-kernel" and env["system"]["cgroupns"] is False, env["versions"]
            pins = env["versions"]["pins"]
            assert (pins["kind"], pins["node_image"], pins["go"], pins["cgroupns_private"]) == (
                "v0.19.0", "kindest/node:v1.27.1", "1.23.10", False), pins
            assert env["versions"]["go"]["version"] == "1.23.10", env["versions"]["go"]
            assert (summary["pods_created"], summary["pods_bound"], summary["complete"]) == (PODS, PODS, True), scheduler
            assert summary["timing_source"] == "audit", scheduler
            # kubeadm 1.27's control plane and kube-scheduler read inside the node, as on the modern set.
            assert summary["internals"]["unread"] == {}, summary["internals"]
            rows = read_rows(out, "pods.csv")
            created, bound = audit_bindings(env["audit_log"]["on_host"])
            for row in rows:
                assert (row["created"], row["bound"]) == (created[row["pod"]], bound[row["pod"]]), (scheduler, row)
            # The control plane is the node image's v1.27.1, its kube-controller-manager without the syncs flag
            # that 1.27 does not have (its client rate still raised).
            system_pods = created_pods(env["audit_log"]["on_host"], "kube-system")
            images = {pod["spec"]["containers"][0]["image"] for name, pod in system_pods.items()
                      if name.startswith(("kube-apiserver-", "kube-controller-manager-"))}
            assert images == {"registry.k8s.io/kube-apiserver:v1.27.1",
                              "registry.k8s.io/kube-controller-manager:v1.27.1"}, images
            manager = [pod for name, pod in system_pods.items() if name.startswith("kube-controller-manager-")][0]
            command = manager["spec"]["containers"][0]["command"]
            assert "--kube-api-qps=1000" in command and not any("job-syncs" in arg for arg in command), command
        kueue_env = scheduler_results(bench_vars, "kueue")[2]
        assert len(kueue_admissions(kueue_env["audit_log"]["on_host"])) == PODS
        # Kubernetes 1.27 drops the calibration Jobs' spec.managedBy: the record and a warning say so.
        assert kueue_env["calibration"]["api_create"]["object"] == JOBS_SYNCED, kueue_env["calibration"]
        output = " ".join(pathlib.Path(runner.config.artifact_dir, "stdout").read_text(encoding="utf-8").split())
        assert "dropped the probe Jobs' spec.managedBy" in output, "no warning about spec.managedBy"
        assert left() == NOTHING_LEFT
    print("test wall time: %.0f s" % (time.monotonic() - started))


def test_molecule_kind_cluster(tmp_path):
    """`molecule test -s kind_cluster`: the roles create a Ready one-node cluster whose API server writes the audit
    log on the host, through the machine's engine (molecule/kind_cluster/molecule.yml); its cleanup leaves nothing."""
    log_path = tmp_path / "kind_cluster.log"
    volumes_before = volumes()
    returncode, seconds = molecule_test("kind_cluster", log_path)
    print("molecule test -s kind_cluster: %.0f s (log %s)" % (seconds, log_path))
    text = log_path.read_text(encoding="utf-8", errors="replace")
    assert returncode == 0, "molecule test -s kind_cluster failed; last lines:\n" + "\n".join(text.splitlines()[-80:])
    # The verify play ran its checks (a scenario that skipped them would pass too).
    assert "TASK [Check that the one node is Ready" in text
    assert "TASK [Check that it recorded the pod's creation" in text
    assert ours_left(tmp_path, volumes_before) == NOTHING_LEFT
