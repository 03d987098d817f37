# -*- coding: utf-8 -*-
"""Filters that adapt a scheduler's upstream manifests to the binary and kind runtimes.

Binary runtime: upstream registers its admission webhooks with an in-cluster Service; on the
binary runtime the webhook server is a local process, so each webhook gets a
URL on the loopback address and the CA that signed the server's certificate.

Kind runtime: the release manifest is applied as it is, except that every
image comes from the local registry (image_rewrite's "local" spelling) and the
controllers' CPU request and limit and the fairness knobs (GOGC, GOMEMLIMIT, the API client's
rate) are the benchmark's; readiness_targets
names what must be ready before the init objects are created.

Pure functions: unit-tested in tests/unit/test_scheduler_manifests.py.
"""
from __future__ import annotations

import copy
import json
import re
from urllib.parse import urlsplit

import yaml
from ansible.errors import AnsibleFilterError
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.rules import parse_quantity as _parse_quantity
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster.cycle import release_cycle_knobs
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.releases.images import image_rewrite as _image_rewrite

try:
    _LOADER, _DUMPER = yaml.CSafeLoader, yaml.CSafeDumper
except AttributeError:  # PyYAML without libyaml
    _LOADER, _DUMPER = yaml.SafeLoader, yaml.SafeDumper

WEBHOOK_KINDS = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
# The kinds a chart may render that live outside namespaces (helm install asks the API server; a
# render without a cluster cannot, and these are the ones schedulers' charts use).
CLUSTER_SCOPED_KINDS = frozenset(WEBHOOK_KINDS + (
    "Namespace", "Node", "PersistentVolume", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition",
    "PriorityClass", "StorageClass", "APIService", "CSIDriver", "RuntimeClass", "IngressClass",
    "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"))


def manifests_of_kind(docs, kinds):
    """The documents of a multi-document YAML whose kind is in ``kinds`` (empty documents dropped)."""
    if isinstance(kinds, str):
        kinds = [kinds]
    return [doc for doc in docs or [] if isinstance(doc, dict) and doc.get("kind") in kinds]


def documents_of_kind(text, kinds):
    """The documents of a multi-document YAML text whose top-level kind is in ``kinds``, parsed.

    Only those documents are parsed: a release manifest is mostly CRDs, and
    parsing all of it to pick a few objects costs seconds.
    """
    if isinstance(kinds, str):
        kinds = [kinds]
    wanted = re.compile(r"^kind:\s*[\"']?(%s)[\"']?\s*$" % "|".join(re.escape(kind) for kind in kinds), re.MULTILINE)
    docs = []
    for chunk in re.split(r"^---[^\n]*$", str(text), flags=re.MULTILINE):
        if wanted.search(chunk):
            doc = yaml.load(chunk, Loader=_LOADER)  # noqa: S506 - a safe loader
            if isinstance(doc, dict) and doc.get("kind") in kinds:
                docs.append(doc)
    return docs


def local_webhooks(docs, base_url, ca_bundle, name_prefix=""):
    """Webhook configurations of ``docs`` pointed at ``base_url`` + each webhook's service path.

    ``ca_bundle`` is the base64 PEM of the CA that signed the local server's
    certificate. Configuration names get ``name_prefix`` unless they have it.
    The documents given are not changed.
    """
    base_url = str(base_url).rstrip("/")
    if not base_url.startswith("https://"):
        raise AnsibleFilterError("webhooks need an https:// URL, got %r" % (base_url,))
    result = []
    for doc in manifests_of_kind(docs, WEBHOOK_KINDS):
        doc = copy.deepcopy(doc)
        meta = doc.setdefault("metadata", {})
        name = meta.get("name", "")
        if name_prefix and not name.startswith(name_prefix):
            meta["name"] = name_prefix + name
        for key in ("namespace", "resourceVersion", "uid", "creationTimestamp", "annotations"):
            meta.pop(key, None)
        for hook in doc.get("webhooks") or []:
            config = hook.get("clientConfig") or {}
            if "service" in config:
                path = config["service"].get("path") or "/"
            elif "url" in config:
                path = urlsplit(config["url"]).path or "/"
            else:
                raise AnsibleFilterError("webhook %s of %s has neither a service nor a URL" % (hook.get("name"), name))
            hook["clientConfig"] = {"url": base_url + path, "caBundle": ca_bundle}
        result.append(doc)
    return result


def established_crds(resources):
    """Names of the CustomResourceDefinitions (as listed by the API) whose Established condition is True."""
    return [
        crd["metadata"]["name"] for crd in resources or []
        if any(condition.get("type") == "Established" and condition.get("status") == "True"
               for condition in (crd.get("status") or {}).get("conditions") or [])
    ]


# --- The kind runtime: upstream release manifests, adapted and checked -------------------------------------

WORKLOAD_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob")
CONTROLLER_KINDS = ("Deployment", "StatefulSet", "DaemonSet")
URL_SCHEMES = ("http://", "https://", "file://")
DEFAULT_CONTAINER = "kubectl.kubernetes.io/default-container"
CERT_KEY = "tls.crt"


def release_manifest_url(templates, name, version):
    """The release manifest URL of ``name`` at ``version`` from the template dict (``{version}`` replaced)."""
    templates = templates if isinstance(templates, dict) else {}
    template = str(templates.get(name) or "").strip()
    if not template:
        raise AnsibleFilterError(
            "scheduler_release_manifest_urls has no entry for %s: add a URL template of its release manifest "
            "(entries: %s)" % (name, ", ".join(sorted(templates)) or "none"))
    url = template.replace("{version}", str(version))
    if not url.startswith(URL_SCHEMES) or any(ch.isspace() for ch in url) or "{" in url:
        raise AnsibleFilterError(
            "scheduler_release_manifest_urls.%s=%r is not allowed: use an http(s):// or file:// URL with "
            "{version} where the version goes" % (name, template))
    return url


def release_url_problem(templates, name, version):
    """The sentence release_manifest_url would fail with, or an empty string."""
    try:
        release_manifest_url(templates, name, version)
    except AnsibleFilterError as exc:
        return str(exc.message if hasattr(exc, "message") else exc)
    return ""


def cpu_problem(request, limit):
    """Why the controllers' CPU request and limit cannot be applied (one sentence), or an empty string."""
    try:
        wanted = _parse_quantity(request)
    except ValueError:
        return "scheduler_controller_cpu_request=%r is not allowed: use a CPU quantity such as 500m" % (request,)
    if str(limit or "").strip() == "":
        return ""
    try:
        allowed = _parse_quantity(limit)
    except ValueError:
        return "scheduler_controller_cpu_limit=%r is not allowed: use a CPU quantity such as 2, or empty for no limit" % (limit,)
    if allowed < wanted:
        return "scheduler_controller_cpu_limit=%s is not allowed: it is below scheduler_controller_cpu_request=%s" % (limit, request)
    return ""


def pod_spec(doc):
    """The pod spec of a workload document (a CronJob's is two templates deep), or None."""
    spec = doc.get("spec") or {}
    if doc.get("kind") == "CronJob":
        spec = (spec.get("jobTemplate") or {}).get("spec") or {}
    elif doc.get("kind") not in WORKLOAD_KINDS:
        return None
    return (spec.get("template") or {}).get("spec")


def _containers(doc):
    spec = pod_spec(doc) or {}
    return list(spec.get("initContainers") or []) + list(spec.get("containers") or [])


def release_images(docs):
    """The images the workloads of ``docs`` run, each once, in order of appearance."""
    images = []
    for doc in manifests_of_kind(docs, WORKLOAD_KINDS):
        for container in _containers(doc):
            if container.get("image") and container["image"] not in images:
                images.append(container["image"])
    return images


def rewrite_images(docs, registry):
    """Copies of ``docs`` whose containers and init containers pull from the local ``registry``."""
    docs = copy.deepcopy(list(docs or []))
    for doc in manifests_of_kind(docs, WORKLOAD_KINDS):
        for container in _containers(doc):
            if container.get("image"):
                container["image"] = _image_rewrite(container["image"], "local", registry=registry)
    return docs


def without_containers(docs, names):
    """Copies of ``docs`` whose pod templates lack the containers called one of ``names``, and a line per container
    left out ("Deployment ns/name: container")."""
    docs = copy.deepcopy(list(docs or []))
    left_out = []
    for doc in manifests_of_kind(docs, WORKLOAD_KINDS):
        spec = pod_spec(doc) or {}
        for key in ("initContainers", "containers"):
            kept = [container for container in spec.get(key) or [] if container.get("name") not in names]
            left_out += ["%s: %s" % (_name(doc), container.get("name"))
                         for container in spec.get(key) or [] if container.get("name") in names]
            if key in spec:
                spec[key] = kept
    return docs, left_out


def main_container(doc):
    """The controller's own container: the one kubectl defaults to, else the first (sidecars stay as they are)."""
    spec = pod_spec(doc) or {}
    containers = spec.get("containers") or []
    annotations = (((doc.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("annotations") or {}
    named = [c for c in containers if c.get("name") == annotations.get(DEFAULT_CONTAINER)]
    return (named or containers or [None])[0]


def controller_cpu(docs, request, limit=""):
    """Copies of ``docs`` whose controllers' main containers request ``request`` CPU, limited to ``limit`` (empty: no limit)."""
    problem = cpu_problem(request, limit)
    if problem:
        raise AnsibleFilterError(problem)
    docs = copy.deepcopy(list(docs or []))
    for doc in manifests_of_kind(docs, CONTROLLER_KINDS):
        container = main_container(doc)
        if container is None:
            continue
        resources = container.setdefault("resources", {})
        resources.setdefault("requests", {})["cpu"] = str(request)
        limits = resources.setdefault("limits", {})
        if str(limit or "").strip():
            limits["cpu"] = str(limit)
        else:
            limits.pop("cpu", None)
        if not limits:
            resources.pop("limits")
    return docs


def _ref(doc):
    meta = doc.get("metadata") or {}
    return {"namespace": meta.get("namespace") or "default", "name": meta.get("name", "")}


def webhook_services(docs):
    """The Services the webhook configurations of ``docs`` call, each once ({namespace, name})."""
    services = []
    for doc in manifests_of_kind(docs, WEBHOOK_KINDS):
        for hook in doc.get("webhooks") or []:
            service = (hook.get("clientConfig") or {}).get("service")
            if service:
                ref = {"namespace": service.get("namespace") or "default", "name": service.get("name", "")}
                if ref not in services:
                    services.append(ref)
    return services


def _selects(selector, labels):
    return bool(selector) and all(labels.get(key) == value for key, value in selector.items())


def _pod_labels(doc):
    return (((doc.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {}


def webhook_deployments(docs):
    """The Deployments behind the webhook Services of ``docs``: the pods the Services select."""
    refs = webhook_services(docs)
    services = [doc for doc in manifests_of_kind(docs, "Service") if _ref(doc) in refs]
    return [
        doc for doc in manifests_of_kind(docs, "Deployment")
        if any(_ref(svc)["namespace"] == _ref(doc)["namespace"]
               and _selects((svc.get("spec") or {}).get("selector"), _pod_labels(doc)) for svc in services)
    ]


def webhook_cert_secrets(docs):
    """The Secrets the webhook servers mount (their serving certificates), each once ({namespace, name})."""
    secrets = []
    for doc in webhook_deployments(docs):
        for volume in (pod_spec(doc) or {}).get("volumes") or []:
            name = (volume.get("secret") or {}).get("secretName")
            ref = {"namespace": _ref(doc)["namespace"], "name": name}
            if name and ref not in secrets:
                secrets.append(ref)
    return secrets


def controller_deployments(docs):
    """Each Deployment of ``docs`` with the label selector of its pods ({namespace, name, selector})."""
    result = []
    for doc in manifests_of_kind(docs, "Deployment"):
        labels = ((doc.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
        selector = ",".join("%s=%s" % item for item in sorted(labels.items()))
        result.append(dict(_ref(doc), selector=selector))
    return result


# The API client's rate flags a controller of a release may already pass (some do); only these are
# changed, none is added: a binary may not know them.
API_RATE_FLAGS = {"--kube-api-qps": "qps", "--kube-api-burst": "burst"}


def _number(value):
    number = float(value)
    return int(number) if number.is_integer() else number


def _name(doc):
    meta = doc.get("metadata") or {}
    return "%s %s/%s" % (doc.get("kind"), meta.get("namespace", ""), meta.get("name", ""))


def controller_knobs(docs, env, qps, burst, feature_gates=None):
    """Copies of ``docs`` with the fairness knobs where the release has a place for them, and what was set.

    ``env`` (GOGC, GOMEMLIMIT, GOMAXPROCS; empty values left out) goes to every controller's main container;
    the API client's rate (``qps``, ``burst``) replaces the one the release sets: --kube-api-qps and
    --kube-api-burst in a container's args, ``clientConnection`` in a configuration file of a ConfigMap
    (a controller-runtime manager's), where ``feature_gates`` ({gate: bool}, a scheduler's descriptor's topology
    feature gates when the scenario asks for a topology) go into its ``featureGates``. Returns (docs, applied): one
    line per object changed.
    """
    docs = copy.deepcopy(list(docs or []))
    env = {str(name): str(value) for name, value in (env or {}).items() if str(value)}
    rate = {"qps": _number(qps), "burst": _number(burst)}
    applied = []
    for doc in manifests_of_kind(docs, CONTROLLER_KINDS):
        changes = []
        container = main_container(doc)
        if container is not None and env:
            kept = [entry for entry in container.get("env") or [] if entry.get("name") not in env]
            container["env"] = kept + [{"name": name, "value": value} for name, value in sorted(env.items())]
            changes.append("env " + ", ".join("%s=%s" % item for item in sorted(env.items())))
        for each in _containers(doc):
            args = each.get("args") or []
            for index, arg in enumerate(args):
                flag = str(arg).split("=", 1)[0]
                if flag in API_RATE_FLAGS and "=" in str(arg):
                    args[index] = "%s=%s" % (flag, rate[API_RATE_FLAGS[flag]])
                    changes.append("%s %s" % (each.get("name"), args[index]))
        if changes:
            applied.append("%s: %s" % (_name(doc), "; ".join(changes)))
    for doc in manifests_of_kind(docs, "ConfigMap"):
        for key, text in (doc.get("data") or {}).items():
            try:
                config = yaml.load(str(text), Loader=_LOADER)  # noqa: S506 - a safe loader
            except yaml.YAMLError:
                continue
            if isinstance(config, dict) and isinstance(config.get("clientConnection"), dict):
                config["clientConnection"].update(rate)
                gates = {str(gate): bool(on) for gate, on in (feature_gates or {}).items()}
                if gates:
                    config["featureGates"] = dict(config.get("featureGates") or {}, **gates)
                doc["data"][key] = yaml.dump(config, Dumper=_DUMPER, default_flow_style=False, sort_keys=False)
                applied.append("%s: %s clientConnection qps=%s, burst=%s%s" % (
                    _name(doc), key, rate["qps"], rate["burst"],
                    "".join(", featureGates %s=%s" % (gate, str(on).lower()) for gate, on in sorted(gates.items()))))
    return docs, applied


def readiness_targets(docs):
    """What must be ready before the scheduler is: cert Secrets, controller Deployments, webhook Services."""
    return {"secrets": webhook_cert_secrets(docs), "deployments": controller_deployments(docs),
            "services": webhook_services(docs)}


def kind_release(text, registry, cpu_request, cpu_limit="", with_text=True, knobs=None, left_out=()):
    """A release manifest adapted for the kind runtime, as the dict the role records and applies.

    ``text`` is the upstream multi-document YAML. Returns ``text`` (the objects to
    apply, images on ``registry``, controller CPU set, the fairness ``knobs`` (env, qps,
    burst: controller_knobs; cycle: cluster/cycle.py's release_cycle_knobs) applied, the containers named
    in ``left_out`` (the descriptor's release.without_containers) removed; left out unless ``with_text``), ``images``
    (upstream, to mirror), ``local_images``, ``targets`` (readiness_targets), ``kinds``
    (count per kind), ``knobs_applied``, ``containers_left_out`` and ``problem``: why the text is not a
    release manifest, or empty.
    """
    try:
        docs = [doc for doc in yaml.load_all(str(text), Loader=_LOADER) if doc]  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        return {"problem": "it is not YAML (%s)" % str(exc).splitlines()[0]}
    if not manifests_of_kind(docs, "Deployment"):
        return {"problem": "it has no Deployment, so it is not a scheduler's release manifest"}
    docs, containers_left_out = without_containers(docs, set(left_out or ()))
    images = release_images(docs)
    docs = controller_cpu(rewrite_images(docs, registry), cpu_request, cpu_limit)
    applied = []
    if knobs:
        docs, applied = controller_knobs(docs, knobs.get("env"), knobs["qps"], knobs["burst"], knobs.get("feature_gates"))
        docs, cycle_applied = release_cycle_knobs(docs, **(knobs.get("cycle") or {}))
        applied += cycle_applied
    kinds = {}
    for doc in docs:
        kinds[doc.get("kind", "")] = kinds.get(doc.get("kind", ""), 0) + 1
    release = {"problem": "", "images": images, "local_images": release_images(docs),
               "targets": readiness_targets(docs), "kinds": kinds, "knobs_applied": applied,
               "containers_left_out": containers_left_out}
    if with_text:
        release["text"] = yaml.dump_all(docs, Dumper=_DUMPER, default_flow_style=False, sort_keys=False, explicit_start=True)
    return release


def secret_has_cert(resources):
    """Whether the listed Secret holds a serving certificate (tls.crt)."""
    return any(((secret.get("data") or {}).get(CERT_KEY)) for secret in resources or [])


def pods_ready(resources):
    """Whether there are pods and every one not being deleted is Ready."""
    pods = [pod for pod in resources or [] if not (pod.get("metadata") or {}).get("deletionTimestamp")]
    return bool(pods) and all(
        any(c.get("type") == "Ready" and c.get("status") == "True" for c in (pod.get("status") or {}).get("conditions") or [])
        for pod in pods)


def endpoints_ready(resources):
    """Whether the listed EndpointSlices have at least one ready address."""
    return any(
        endpoint.get("addresses") and (endpoint.get("conditions") or {}).get("ready") is not False
        for item in resources or [] for endpoint in item.get("endpoints") or [])


READY_CHECKS = {"secret": secret_has_cert, "pods": pods_ready, "endpoints": endpoints_ready}


def is_ready(resources, check):
    """Whether ``resources`` (as k8s_info lists them) pass ``check``: secret, pods or endpoints."""
    if check not in READY_CHECKS:
        raise AnsibleFilterError("readiness check %r is not one of %s" % (check, ", ".join(READY_CHECKS)))
    return READY_CHECKS[check](resources)


def pod_problem(pod):
    """Why a pod is not Ready, as the API server says it: unschedulable (the scheduler's message, with the knob
    that sets the controllers' CPU request when CPU is short) or a waiting container's reason; '' if unknown."""
    status = pod.get("status") or {}
    for condition in status.get("conditions") or []:
        if condition.get("type") == "PodScheduled" and condition.get("status") == "False":
            message = " ".join(str(condition.get("message") or condition.get("reason") or "").split())
            if "Insufficient cpu" in message:
                message += " (each release controller requests scheduler_controller_cpu_request)"
            return "unschedulable: " + message
    for container in status.get("containerStatuses") or []:
        waiting = (container.get("state") or {}).get("waiting") or {}
        if waiting.get("reason"):
            return "container %s %s" % (container.get("name"), waiting["reason"])
    return ""


def not_ready(results, check):
    """namespace/name of each target of a registered loop (item = target) whose resources fail ``check``;
    for pods, with why the first pod that is not Ready is not (pod_problem)."""
    names = []
    for result in results or []:
        if is_ready(result.get("resources"), check):
            continue
        name = "%s/%s" % (result["item"]["namespace"], result["item"]["name"])
        problems = [pod_problem(pod) for pod in result.get("resources") or []] if check == "pods" else []
        problem = next((problem for problem in problems if problem), "")
        names.append("%s (%s)" % (name, problem) if problem else name)
    return names


def chart_release(text, namespace, crds=()):
    """A chart's rendered objects (helm template) as helm install creates them: the release namespace
    first, then the CustomResourceDefinitions (those of ``crds`` the chart did not render itself), then every other
    object, the namespaced ones in that namespace unless the chart names another."""
    try:
        docs = [doc for doc in yaml.load_all(str(text), Loader=_LOADER) if isinstance(doc, dict)]  # noqa: S506 - _LOADER is a safe loader
    except yaml.YAMLError as exc:
        raise AnsibleFilterError("the rendered chart is not YAML (%s)" % str(exc).splitlines()[0]) from exc
    namespace = str(namespace)  # a plain str: the YAML dumper cannot write Ansible's tagged strings
    for doc in docs:
        meta = doc.get("metadata") or {}
        if doc.get("kind") not in CLUSTER_SCOPED_KINDS and not meta.get("namespace"):
            doc["metadata"] = dict(meta, namespace=namespace)
    rendered = {(doc.get("metadata") or {}).get("name") for doc in manifests_of_kind(docs, "CustomResourceDefinition")}
    # Plain types through JSON: the YAML dumper cannot write Ansible's tagged strings.
    added = [json.loads(json.dumps(crd)) for crd in manifests_of_kind(list(crds or []), "CustomResourceDefinition")
             if (crd.get("metadata") or {}).get("name") not in rendered]
    docs = manifests_of_kind(docs, "CustomResourceDefinition") + added + [
        doc for doc in docs if doc.get("kind") != "CustomResourceDefinition"]
    release = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}]
    return yaml.dump_all(release + docs, Dumper=_DUMPER, sort_keys=False)
