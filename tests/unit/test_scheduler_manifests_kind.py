"""Release manifests adapted for the kind runtime (plugin_utils/releases/manifests.py)."""
import copy

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from test_scheduler_manifests import manifests

# The shape of the upstream releases: a webhook Service selecting the controller that mounts
# the certificate Secret, a sidecar, an init job, plus objects without images.
RELEASE = """
apiVersion: v1
kind: Namespace
metadata: {name: kueue-system}
---
apiVersion: v1
kind: Service
metadata: {name: kueue-webhook-service, namespace: kueue-system}
spec:
  selector: {control-plane: controller-manager}
  ports: [{port: 443, targetPort: 9443}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: kueue-controller-manager, namespace: kueue-system}
spec:
  selector: {matchLabels: {control-plane: controller-manager}}
  template:
    metadata:
      annotations: {kubectl.kubernetes.io/default-container: manager}
      labels: {control-plane: controller-manager, app.kubernetes.io/name: kueue}
    spec:
      initContainers:
        - {name: wait, image: busybox:1.36}
      containers:
        - name: kube-rbac-proxy
          image: registry.k8s.io/kubebuilder/kube-rbac-proxy:v0.16.0
        - name: manager
          image: registry.k8s.io/kueue/kueue:v0.10.1
          resources:
            limits: {cpu: 500m, memory: 512Mi}
            requests: {cpu: 500m, memory: 512Mi}
      volumes:
        - name: cert
          secret: {secretName: kueue-webhook-server-cert}
        - name: config
          configMap: {name: kueue-manager-config}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: volcano-scheduler, namespace: volcano-system}
spec:
  selector: {matchLabels: {app: volcano-scheduler}}
  template:
    metadata: {labels: {app: volcano-scheduler}}
    spec:
      containers:
        - {name: volcano-scheduler, image: docker.io/volcanosh/vc-scheduler:v1.10.0}
      volumes:
        - name: other
          secret: {secretName: not-a-webhook-cert}
---
apiVersion: batch/v1
kind: Job
metadata: {name: volcano-admission-init, namespace: volcano-system}
spec:
  template:
    spec:
      containers:
        - {name: main, image: docker.io/volcanosh/vc-webhook-manager:v1.10.0}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cleanup, namespace: volcano-system}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers:
            - {name: main, image: docker.io/volcanosh/vc-webhook-manager:v1.10.0}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: kueue-mutating-webhook-configuration}
webhooks:
  - name: mjob.kb.io
    clientConfig:
      service: {name: kueue-webhook-service, namespace: kueue-system, path: /mutate-batch-v1-job}
  - name: mpod.kb.io
    clientConfig:
      service: {name: kueue-webhook-service, namespace: kueue-system, path: /mutate--v1-pod}
  - name: external
    clientConfig: {url: "https://example.invalid/validate"}
"""


def docs():
    return [doc for doc in yaml.safe_load_all(RELEASE) if doc]


def deployment(result, name):
    return next(doc for doc in result if doc["kind"] == "Deployment" and doc["metadata"]["name"] == name)


def container(doc, name):
    return next(c for c in doc["spec"]["template"]["spec"]["containers"] if c["name"] == name)


# --- URL templates ---------------------------------------------------------------------------------

TEMPLATES = {"kueue": "https://github.com/kubernetes-sigs/kueue/releases/download/{version}/manifests.yaml"}


def test_the_version_goes_into_the_template():
    assert manifests.release_manifest_url(TEMPLATES, "kueue", "v0.10.1") == \
        "https://github.com/kubernetes-sigs/kueue/releases/download/v0.10.1/manifests.yaml"
    mirror = {"kueue": "http://127.0.0.1:8080/kueue/{version}/manifests.yaml"}
    assert manifests.release_manifest_url(mirror, "kueue", "v0.10.1") == "http://127.0.0.1:8080/kueue/v0.10.1/manifests.yaml"


@pytest.mark.parametrize("templates,name,expected", [
    (TEMPLATES, "yunikorn", "scheduler_release_manifest_urls has no entry for yunikorn"),
    (None, "kueue", "scheduler_release_manifest_urls has no entry for kueue: add a URL template of its release "
                    "manifest (entries: none)"),
    ({"kueue": "github.com/x/{version}/m.yaml"}, "kueue",
     "scheduler_release_manifest_urls.kueue='github.com/x/{version}/m.yaml' is not allowed: use an http(s):// or file://"),
    ({"kueue": "https://h/{tag}/m.yaml"}, "kueue", "with {version} where the version goes"),
    ({"kueue": "https://h/ {version}"}, "kueue", "is not allowed"),
])
def test_a_bad_template_is_one_sentence_naming_the_variable(templates, name, expected):
    problem = manifests.release_url_problem(templates, name, "v1.0.0")
    assert expected in problem and "\n" not in problem
    with pytest.raises(AnsibleFilterError, match="scheduler_release_manifest_urls"):
        manifests.release_manifest_url(templates, name, "v1.0.0")
    assert manifests.release_url_problem(TEMPLATES, "kueue", "v1.0.0") == ""


# --- CPU -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("request_,limit,expected", [
    ("500m", "2", ""),
    ("500m", "", ""),
    ("500m", None, ""),
    ("0.5", "500m", ""),
    ("lots", "2", "scheduler_controller_cpu_request='lots' is not allowed"),
    ("500m", "2 cores", "scheduler_controller_cpu_limit='2 cores' is not allowed"),
    ("500m", "100m", "scheduler_controller_cpu_limit=100m is not allowed: it is below scheduler_controller_cpu_request=500m"),
])
def test_cpu_request_and_limit_are_checked(request_, limit, expected):
    problem = manifests.cpu_problem(request_, limit)
    assert (expected in problem) if expected else problem == ""


def test_the_main_container_gets_the_cpu_and_sidecars_keep_theirs():
    result = manifests.controller_cpu(docs(), "500m", "1500m")
    manager = deployment(result, "kueue-controller-manager")
    assert container(manager, "manager")["resources"] == {
        "limits": {"cpu": "1500m", "memory": "512Mi"}, "requests": {"cpu": "500m", "memory": "512Mi"}}
    assert "resources" not in container(manager, "kube-rbac-proxy")
    # Without the default-container annotation, the first container is the controller's.
    assert container(deployment(result, "volcano-scheduler"), "volcano-scheduler")["resources"] == {
        "requests": {"cpu": "500m"}, "limits": {"cpu": "1500m"}}
    # Jobs are not controllers.
    assert "resources" not in next(doc for doc in result if doc["kind"] == "Job")["spec"]["template"]["spec"]["containers"][0]


def test_an_empty_limit_removes_the_upstream_cpu_limit():
    result = manifests.controller_cpu(docs(), "500m", "")
    assert container(deployment(result, "kueue-controller-manager"), "manager")["resources"]["limits"] == {"memory": "512Mi"}
    assert container(deployment(result, "volcano-scheduler"), "volcano-scheduler")["resources"] == {"requests": {"cpu": "500m"}}


def test_controller_cpu_refuses_a_bad_quantity_and_leaves_the_input_alone():
    original = docs()
    manifests.controller_cpu(original, "250m", "1")
    assert original == docs()
    with pytest.raises(AnsibleFilterError, match="scheduler_controller_cpu_request"):
        manifests.controller_cpu(docs(), "half", "1")


# --- images ----------------------------------------------------------------------------------------

def test_images_are_listed_once_in_order_init_containers_first():
    assert manifests.release_images(docs()) == [
        "busybox:1.36",
        "registry.k8s.io/kubebuilder/kube-rbac-proxy:v0.16.0",
        "registry.k8s.io/kueue/kueue:v0.10.1",
        "docker.io/volcanosh/vc-scheduler:v1.10.0",
        "docker.io/volcanosh/vc-webhook-manager:v1.10.0",
    ]


def test_every_workload_image_is_rewritten_to_the_local_registry():
    original = docs()
    result = manifests.rewrite_images(original, "localhost:5001")
    assert original == docs()
    assert manifests.release_images(result) == [
        "localhost:5001/library/busybox:1.36",
        "localhost:5001/registry.k8s.io/kubebuilder/kube-rbac-proxy:v0.16.0",
        "localhost:5001/registry.k8s.io/kueue/kueue:v0.10.1",
        "localhost:5001/volcanosh/vc-scheduler:v1.10.0",
        "localhost:5001/volcanosh/vc-webhook-manager:v1.10.0",
    ]
    cron = next(doc for doc in result if doc["kind"] == "CronJob")
    assert cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["image"] == \
        "localhost:5001/volcanosh/vc-webhook-manager:v1.10.0"
    # Objects without pods are untouched.
    assert [doc for doc in result if doc["kind"] in ("Namespace", "Service", "MutatingWebhookConfiguration")] == \
        [doc for doc in docs() if doc["kind"] in ("Namespace", "Service", "MutatingWebhookConfiguration")]


def test_the_rewrite_is_image_rewrite_s_own():
    from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.releases.images import image_rewrite
    for image in manifests.release_images(docs()):
        assert manifests.rewrite_images([{"kind": "Job", "spec": {"template": {"spec": {"containers": [
            {"name": "c", "image": image}]}}}}], "127.0.0.1:5005")[0]["spec"]["template"]["spec"]["containers"][0][
            "image"] == image_rewrite(image, "local", registry="127.0.0.1:5005")


def test_a_bad_registry_is_refused():
    with pytest.raises(AnsibleFilterError, match="local registry"):
        manifests.rewrite_images(docs(), "http://localhost:5001")


# --- readiness targets -----------------------------------------------------------------------------

def test_readiness_targets_follow_the_webhook_services_to_their_certificates():
    assert manifests.readiness_targets(docs()) == {
        "secrets": [{"namespace": "kueue-system", "name": "kueue-webhook-server-cert"}],
        "deployments": [
            {"namespace": "kueue-system", "name": "kueue-controller-manager", "selector": "control-plane=controller-manager"},
            {"namespace": "volcano-system", "name": "volcano-scheduler", "selector": "app=volcano-scheduler"},
        ],
        "services": [{"namespace": "kueue-system", "name": "kueue-webhook-service"}],
    }


def test_a_service_in_another_namespace_does_not_select_a_deployment():
    moved = docs()
    for doc in moved:
        if doc["kind"] == "Service":
            doc["metadata"]["namespace"] = "elsewhere"
    for doc in moved:
        if doc["kind"] == "MutatingWebhookConfiguration":
            for hook in doc["webhooks"][:2]:
                hook["clientConfig"]["service"]["namespace"] = "elsewhere"
    assert manifests.webhook_cert_secrets(moved) == []
    assert manifests.webhook_services(moved) == [{"namespace": "elsewhere", "name": "kueue-webhook-service"}]


# --- the whole adaptation ----------------------------------------------------------------------------

def test_kind_release_adapts_and_describes_a_release():
    release = manifests.kind_release(RELEASE, "localhost:5001", "500m", "2")
    assert release["problem"] == ""
    applied = list(yaml.safe_load_all(release["text"]))
    assert len(applied) == len(docs())
    assert manifests.release_images(applied) == release["local_images"]
    assert release["images"] == manifests.release_images(docs())
    assert all(image.startswith("localhost:5001/") for image in release["local_images"])
    assert container(deployment(applied, "kueue-controller-manager"), "manager")["resources"]["limits"]["cpu"] == "2"
    assert release["targets"] == manifests.readiness_targets(docs())
    assert release["kinds"] == {"Namespace": 1, "Service": 1, "Deployment": 2, "Job": 1, "CronJob": 1,
                                "MutatingWebhookConfiguration": 1}
    assert "text" not in manifests.kind_release(RELEASE, "localhost:5001", "500m", "2", with_text=False)


def test_kind_release_leaves_out_the_named_containers_and_their_images():
    release = manifests.kind_release(RELEASE, "localhost:5001", "500m", "2", left_out={"kube-rbac-proxy": "why", "wait": "why"})
    applied = list(yaml.safe_load_all(release["text"]))
    kueue = deployment(applied, "kueue-controller-manager")["spec"]["template"]["spec"]
    assert [c["name"] for c in kueue["containers"]] == ["manager"] and kueue["initContainers"] == []
    assert release["containers_left_out"] == ["Deployment kueue-system/kueue-controller-manager: wait",
                                              "Deployment kueue-system/kueue-controller-manager: kube-rbac-proxy"]
    assert "registry.k8s.io/kubebuilder/kube-rbac-proxy:v0.16.0" not in release["images"]
    assert "busybox:1.36" not in release["images"] and "registry.k8s.io/kueue/kueue:v0.10.1" in release["images"]
    assert manifests.kind_release(RELEASE, "localhost:5001", "500m", "2")["containers_left_out"] == []


@pytest.mark.parametrize("text,expected", [
    ("<html><body>Not Found</body></html>", "it has no Deployment"),
    ("kind: [unclosed", "it is not YAML"),
    ("", "it has no Deployment"),
])
def test_kind_release_says_why_a_download_is_not_a_release(text, expected):
    assert expected in manifests.kind_release(text, "localhost:5001", "500m")["problem"]


# --- readiness -------------------------------------------------------------------------------------

def ready_pod(status="True", deleting=False):
    pod = {"metadata": {"name": "p"}, "status": {"conditions": [{"type": "Ready", "status": status}]}}
    if deleting:
        pod["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return pod


@pytest.mark.parametrize("check,resources,expected", [
    ("secret", [{"data": {"tls.crt": "Y2VydA==", "tls.key": "a2V5"}}], True),
    ("secret", [{"metadata": {"name": "kueue-webhook-server-cert"}}], False),  # upstream's empty Secret
    ("secret", [], False),
    ("pods", [ready_pod()], True),
    ("pods", [ready_pod(), ready_pod("False")], False),
    ("pods", [ready_pod(), ready_pod("False", deleting=True)], True),
    ("pods", [], False),
    ("endpoints", [{"endpoints": [{"addresses": ["10.0.0.5"], "conditions": {"ready": True}}]}], True),
    ("endpoints", [{"endpoints": [{"addresses": ["10.0.0.5"], "conditions": {"ready": False}}]}], False),
    ("endpoints", [{"endpoints": None}], False),
    ("endpoints", None, False),
])
def test_readiness_checks(check, resources, expected):
    assert manifests.is_ready(resources, check) is expected


def test_not_ready_names_the_targets_that_failed():
    results = [
        {"item": {"namespace": "kueue-system", "name": "kueue-controller-manager"}, "resources": [ready_pod()]},
        {"item": {"namespace": "volcano-system", "name": "volcano-scheduler"}, "resources": [ready_pod("False")]},
        {"item": {"namespace": "volcano-system", "name": "volcano-admission"}},
    ]
    assert manifests.not_ready(results, "pods") == ["volcano-system/volcano-scheduler", "volcano-system/volcano-admission"]
    assert manifests.not_ready([], "pods") == []
    with pytest.raises(AnsibleFilterError, match="readiness check 'ready'"):
        manifests.not_ready(copy.deepcopy(results), "ready")


def test_not_ready_says_why_a_pod_is_not_ready():
    # As kind's API server listed Volcano's scheduler on a 2-CPU node, three controllers requesting 500m each.
    unschedulable = {"metadata": {"name": "volcano-scheduler-54465d56cd-8p4x5"}, "status": {"phase": "Pending", "conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
         "message": "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu."}]}}
    pulling = {"metadata": {"name": "kueue-controller-manager-1"}, "status": {"conditions": [
        {"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "False"}],
        "containerStatuses": [{"name": "manager", "state": {"waiting": {"reason": "ImagePullBackOff"}}}]}}
    results = [
        {"item": {"namespace": "volcano-system", "name": "volcano-scheduler"}, "resources": [unschedulable]},
        {"item": {"namespace": "kueue-system", "name": "kueue-controller-manager"}, "resources": [ready_pod(), pulling]},
        {"item": {"namespace": "volcano-system", "name": "volcano-admission"}, "resources": [ready_pod("False")]},
    ]
    assert manifests.not_ready(results, "pods") == [
        "volcano-system/volcano-scheduler (unschedulable: 0/1 nodes are available: 1 Insufficient cpu. preemption: "
        "0/1 nodes are available: 1 Insufficient cpu. (each release controller requests scheduler_controller_cpu_request))",
        "kueue-system/kueue-controller-manager (container manager ImagePullBackOff)",
        "volcano-system/volcano-admission",
    ]


def test_a_chart_release_puts_its_namespaced_objects_in_the_release_namespace():
    rendered = "\n".join([
        "---", "# Source: c/templates/cm.yaml", "apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: conf",
        "---", "apiVersion: rbac.authorization.k8s.io/v1", "kind: ClusterRole", "metadata:", "  name: reader",
        "---", "apiVersion: apps/v1", "kind: Deployment", "metadata:", "  name: other", "  namespace: elsewhere",
        "---", "# Source: c/templates/empty.yaml", ""])
    docs = list(yaml.safe_load_all(manifests.chart_release(rendered, "sched")))
    assert docs[0] == {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "sched"}}
    assert [(d["kind"], d["metadata"].get("namespace")) for d in docs[1:]] == [
        ("ConfigMap", "sched"), ("ClusterRole", None), ("Deployment", "elsewhere")]


def test_a_chart_release_puts_the_crds_first_and_adds_those_it_lacks_once():
    rendered = "\n".join([
        "---", "apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: conf",
        "---", "apiVersion: apiextensions.k8s.io/v1", "kind: CustomResourceDefinition", "metadata:", "  name: a.x.io"])
    crds = [{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": name}}
            for name in ("a.x.io", "b.x.io")] + [{"kind": "ConfigMap", "metadata": {"name": "not-a-crd"}}]
    docs = list(yaml.safe_load_all(manifests.chart_release(rendered, "sched", crds=crds)))
    assert [(d["kind"], d["metadata"]["name"]) for d in docs] == [
        ("Namespace", "sched"), ("CustomResourceDefinition", "a.x.io"), ("CustomResourceDefinition", "b.x.io"),
        ("ConfigMap", "conf")]


def test_a_chart_that_renders_no_yaml_is_named():
    with pytest.raises(AnsibleFilterError, match="the rendered chart is not YAML"):
        manifests.chart_release("a: [", "sched")


# --- the fairness knobs ------------------------------------------------------------------------------

KNOBS_RELEASE = """
apiVersion: v1
kind: ConfigMap
metadata: {name: kueue-manager-config, namespace: kueue-system}
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta1
    kind: Configuration
    clientConnection:
      qps: 50
      burst: 100
  other.txt: "not: [yaml"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: unrelated, namespace: kueue-system}
data:
  settings.yaml: "clientConnection: 3"
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: volcano-controllers, namespace: volcano-system}
spec:
  template:
    spec:
      containers:
        - name: volcano-controllers
          image: docker.io/volcanosh/vc-controller-manager:v1.11.0
          args: [--logtostderr, --kube-api-qps=50, --kube-api-burst=100]
          env:
            - {name: GOGC, value: "100"}
            - {name: TZ, value: UTC}
"""


def test_the_knobs_go_where_a_release_has_a_place_for_them():
    env = {"GOGC": "200", "GOMEMLIMIT": "", "GOMAXPROCS": "2"}
    result, applied = manifests.controller_knobs(docs() + list(yaml.safe_load_all(KNOBS_RELEASE)), env, "1000", 1500)
    # The controller's own container gets the Go environment, the sidecar and the Jobs do not.
    kueue = deployment(result, "kueue-controller-manager")
    assert container(kueue, "manager")["env"] == [{"name": "GOGC", "value": "200"}, {"name": "GOMAXPROCS", "value": "2"}]
    assert "env" not in container(kueue, "kube-rbac-proxy")
    assert all("env" not in c for doc in result if doc["kind"] in ("Job", "CronJob")
               for c in manifests.pod_spec(doc)["containers"])
    # A value the release set is replaced, the rest of its environment kept; its rate flags are replaced.
    volcano = container(deployment(result, "volcano-controllers"), "volcano-controllers")
    assert volcano["env"] == [{"name": "TZ", "value": "UTC"}, {"name": "GOGC", "value": "200"},
                              {"name": "GOMAXPROCS", "value": "2"}]
    assert volcano["args"] == ["--logtostderr", "--kube-api-qps=1000", "--kube-api-burst=1500"]
    # No rate flag is added where the release passes none.
    assert "args" not in container(deployment(result, "volcano-scheduler"), "volcano-scheduler")
    # Kueue's configuration file takes the rate; files without clientConnection, or not YAML, stay as they were.
    config = next(doc for doc in result if doc["metadata"]["name"] == "kueue-manager-config")["data"]
    assert yaml.safe_load(config["controller_manager_config.yaml"])["clientConnection"] == {"qps": 1000, "burst": 1500}
    assert config["other.txt"] == "not: [yaml"
    assert next(doc for doc in result if doc["metadata"]["name"] == "unrelated")["data"] == {"settings.yaml": "clientConnection: 3"}
    assert applied == [
        "Deployment kueue-system/kueue-controller-manager: env GOGC=200, GOMAXPROCS=2",
        "Deployment volcano-system/volcano-scheduler: env GOGC=200, GOMAXPROCS=2",
        "Deployment volcano-system/volcano-controllers: env GOGC=200, GOMAXPROCS=2; "
        "volcano-controllers --kube-api-qps=1000; volcano-controllers --kube-api-burst=1500",
        "ConfigMap kueue-system/kueue-manager-config: controller_manager_config.yaml clientConnection qps=1000, burst=1500",
    ]


def test_without_go_knobs_no_environment_is_added_and_the_input_is_left_alone():
    original = docs()
    result, applied = manifests.controller_knobs(original, {"GOGC": ""}, 1000, 1000)
    assert all("env" not in c for doc in result if doc["kind"] == "Deployment"
               for c in doc["spec"]["template"]["spec"]["containers"])
    assert applied == [] and original == docs()


def test_kind_release_applies_the_knobs_and_says_where():
    knobs = {"env": {"GOGC": "50"}, "qps": 300, "burst": 600}
    release = manifests.kind_release(RELEASE + "---" + KNOBS_RELEASE, "localhost:5001", "500m", "2", knobs=knobs)
    applied = list(yaml.safe_load_all(release["text"]))
    assert container(deployment(applied, "kueue-controller-manager"), "manager")["env"] == [{"name": "GOGC", "value": "50"}]
    assert "ConfigMap kueue-system/kueue-manager-config: controller_manager_config.yaml clientConnection qps=300, " \
           "burst=600" in release["knobs_applied"]
    assert manifests.kind_release(RELEASE, "localhost:5001", "500m", "2")["knobs_applied"] == []
