"""The kind runtime's e2e run on a test machine: the images it needs built beforehand (`make kind-images
scheduler-images`), where its registry keeps its blobs, the schedulers it runs and their CPU request, and the
check that the images are there. Shared by tests/e2e/test_kind.py, tests/infra/bench_kind.py (`make bench-kind`,
the same images, registry and schedulers at the seed's size) and tests/infra/kind_warm.py (.ci/run)."""
import subprocess

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.versions.matrix import VERSION_SETS

from infra.release_mirror import CACHE, VERSIONS

REGISTRY_IMAGE = "sched-bench/registry:debian"
# test_kind runs the modern set and the old-kernel one (kind v0.19.0 on its own node image).
NODE_IMAGES = sorted({pins["node_image"] for pins in VERSION_SETS.values()})
KUEUE_IMAGE = "registry.k8s.io/kueue/kueue:" + VERSIONS["kueue"]
VOLCANO_IMAGES = ["docker.io/volcanosh/vc-%s:%s" % (component, VERSIONS["volcano"])
                  for component in ("scheduler", "controller-manager", "webhook-manager")]
YUNIKORN_IMAGES = ["docker.io/apache/yunikorn:%s-%s" % (component, VERSION_SETS["modern"]["yunikorn"].lstrip("v"))
                   for component in ("scheduler", "admission")]
COSCHEDULING_IMAGES = ["registry.k8s.io/scheduler-plugins/%s:%s" % (component, VERSION_SETS["modern"]["coscheduling"])
                       for component in ("kube-scheduler", "controller")]
SCHEDULERS = ["default", "kueue", "volcano", "yunikorn", "coscheduling"]
# Release manifests served like their upstream URLs; YuniKorn's chart comes from the mirror's chart repository and
# coscheduling's from its Go module (CHART_REPOSITORIES).
RELEASES = ("kueue", "volcano")
# The registry's blobs outlive the run (the node image alone is 1.8 GB to push): the product keeps them
# in registry_data_dir, and a run finds there what an earlier one pushed.
REGISTRY_DATA = CACHE / "kind-e2e-registry"
# kind's node is this machine: 2 CPUs, of which its control plane requests 950m. Volcano's three controllers
# at the default 500m each do not fit (its scheduler stays Pending, "Insufficient cpu"); at 250m they do.
KIND_CPU = {"scheduler_controller_cpu_request": "250m"}


def chart_repositories(base):
    """scheduler_chart_repository_urls for a release server at ``base`` (release_mirror.serve, charts built)."""
    return {"yunikorn": base + "/charts", "coscheduling": ""}


def docker(*args):
    return subprocess.run(["docker", *args], capture_output=True, text=True, check=False, timeout=120)


def not_ready():
    """Why the kind run cannot start yet (no Docker engine, images not built), or None: test_kind.py's
    precondition and .ci/run's check (tests/infra/kind_warm.py)."""
    if docker("info").returncode != 0:
        return "no Docker engine answers"
    missing = [image for image in (*NODE_IMAGES, KUEUE_IMAGE, REGISTRY_IMAGE, *VOLCANO_IMAGES, *YUNIKORN_IMAGES,
                                   *COSCHEDULING_IMAGES)
               if docker("image", "inspect", image).returncode]
    return "images not built: %s" % ", ".join(missing) if missing else None
