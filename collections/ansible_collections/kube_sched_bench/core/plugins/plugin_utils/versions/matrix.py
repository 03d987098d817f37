# -*- coding: utf-8 -*-
"""The one place that decides which versions a host gets.

``version_set`` picks a set of pins from the host's kernel: kind from v0.20
always asks Docker for a private cgroup namespace, which needs Linux 4.6+, so
older kernels (CentOS 7's 3.10) get the last kind that can do without, with
the node image and Go that go with it. The binary runtime's control plane
(kubernetes, etcd, kwok) runs on any kernel and is the same in every set, so
hosts stay comparable. Any pin can be forced per host or group;
a forced kind that the kernel cannot run is refused with the reason.
"""
from __future__ import annotations

import re

from ansible.errors import AnsibleFilterError
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers as descriptors
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.cluster.components import component_flags

# Linux gained cgroup namespaces in 4.6.
CGROUPNS_MIN_KERNEL = (4, 6)
# kind v0.20.0 made --cgroupns=private unconditional.
KIND_PRIVATE_CGROUPNS_SINCE = (0, 20, 0)
# kube-controller-manager has taken --concurrent-job-syncs since Kubernetes 1.28; before, its job controller synced
# this many Jobs at once (the flag's default since).
JOB_SYNCS_FLAG_SINCE = (1, 28, 0)
JOB_SYNCS_BEFORE_FLAG = 5

VERSION_SETS = {
    "modern": {
        "kind": "v0.27.0",
        "node_image": "kindest/node:v1.32.2",
        "kubernetes": "v1.32.2",
        "etcd": "v3.5.16",
        "kwok": "v0.6.1",
        "go": "1.24.13",
        # Renders the Helm charts of the schedulers that ship one, on the kind runtime.
        "helm": "v3.16.4",
        "cgroupns_private": True,
    },
}
# The batch schedulers' pins are in their descriptors (module_utils/schedulers/), the same in every set.
SCHEDULER_PINS = {name: descriptor["version"] for name, descriptor in descriptors.DESCRIPTORS.items()
                  if descriptor["version"]}
VERSION_SETS["modern"].update(SCHEDULER_PINS)
# Old kernels (CentOS 7's 3.10) differ only in kind, its node image and the Go that builds that kind.
VERSION_SETS["legacy-kernel"] = dict(VERSION_SETS["modern"], kind="v0.19.0", node_image="kindest/node:v1.27.1",
                                     go="1.23.10", cgroupns_private=False)

# sha256 of every binary the toolkit can download, by tool and then "<version>-<arch>": the one table
# (the kind, kubectl and golang roles read their defaults from it; kind_checksums, kubectl_checksums and
# golang_tarball_checksums override it per host). A download without an entry is refused before it
# starts, one whose file does not match stops the run naming the file and both sums. Fill an entry from
# the release's own checksum file (kind: <binary URL>.sha256sum; kubectl: <binary URL>.sha256; Go: the
# sums on its download page) after checking it. Empty here: the default is to build kind and kubectl from
# their Go modules (kind_install_method=go), which go.sum and the checksum database verify, and Go comes
# through GOTOOLCHAIN from the module proxy, verified the same way.
DOWNLOAD_SHA256 = {
    "kind": {},
    "kubectl": {},
    "go": {},
    # The Python bootstrap's tarballs, by "<version>-<arch>" (arch as uname -m prints it): the
    # release's published sums as recorded in rules_python's python/versions.bzl (the release assets
    # cannot be downloaded from the machines this was written on); bench_python_bootstrap_checksums
    # adds to them per host.
    "python": {
        "3.12.12+20251031-x86_64": "80c3882f14e15cef8260ef5257d198e8f4371ca265887431d939e0d561de3253",
        "3.12.12+20251031-aarch64": "81b644d166e0bfb918615af8a2363f8fcf26eccdcc60a5334b6a62c088470bac",
    },
}

PIN_PATTERNS = {
    "kind": re.compile(r"^v\d+\.\d+\.\d+$"),
    "kubernetes": re.compile(r"^v\d+\.\d+\.\d+$"),
    "etcd": re.compile(r"^v\d+\.\d+\.\d+$"),
    "kwok": re.compile(r"^v\d+\.\d+\.\d+$"),
    "go": re.compile(r"^\d+\.\d+(\.\d+)?$"),
    "helm": re.compile(r"^v3\.\d+\.\d+$"),
    "node_image": re.compile(r"^[a-z0-9./_-]+(:[A-Za-z0-9._-]+)?(@sha256:[a-f0-9]{64})?$"),
}
PIN_PATTERNS.update({name: re.compile(r"^v\d+\.\d+\.\d+$") for name in SCHEDULER_PINS})


# The CPython installed on hosts without a Python >= PYTHON_MIN_VERSION (CentOS 7 has 2.7
# and 3.6): a python-build-standalone "install_only" build, relocatable and built for glibc
# 2.17, unpacked into the user's cache directory. "<CPython version>+<build release>".
PYTHON_BOOTSTRAP_VERSION = "3.12.12+20251031"
# ansible-core 2.19 runs modules on Python 3.8+, the load test's kubernetes client needs 3.9+.
PYTHON_MIN_VERSION = "3.9"
_PYTHON_BOOTSTRAP_VERSION_RE = re.compile(r"^(\d+\.\d+\.\d+)(?:\+([A-Za-z0-9._-]+))?$")


def python_bootstrap(arch, version="", url_template="", checksums=None):
    """What the Python bootstrap of a host with this architecture downloads.

    ``version`` is "<CPython version>+<build release>" (empty: PYTHON_BOOTSTRAP_VERSION);
    ``url_template`` has the fields {version}, {release} and {arch}; ``checksums`` adds to or
    overrides DOWNLOAD_SHA256["python"]. Returns version, arch, url, file (the tarball's name),
    dir (its directory name under the cache), sha256 ('' when no sum is known) and
    min_version (the oldest Python the toolkit runs on).
    """
    version = str(version or PYTHON_BOOTSTRAP_VERSION)
    match = _PYTHON_BOOTSTRAP_VERSION_RE.match(version)
    if not match:
        raise AnsibleFilterError("bench_python_bootstrap_version=%r is not allowed: use <CPython version>+<build "
                                 "release> such as %s" % (version, PYTHON_BOOTSTRAP_VERSION))
    table = dict(DOWNLOAD_SHA256["python"])
    table.update({str(key): str(value).strip().lower() for key, value in (checksums or {}).items()})
    key = "%s-%s" % (version, arch)
    url = (str(url_template).replace("{version}", match.group(1)).replace("{release}", match.group(2) or "")
           .replace("{arch}", str(arch)))
    return {
        "version": version,
        "python_version": match.group(1),
        "arch": str(arch),
        "key": key,
        "url": url,
        "file": url.rstrip("/").rsplit("/", 1)[-1],
        "dir": key,
        "sha256": table.get(key, ""),
        "min_version": PYTHON_MIN_VERSION,
    }


def kernel_version(release):
    """(major, minor) from a kernel release such as 3.10.0-1160.el7.x86_64."""
    match = re.match(r"^(\d+)\.(\d+)", str(release))
    if not match:
        raise AnsibleFilterError("cannot read a kernel version from %r" % (release,))
    return int(match.group(1)), int(match.group(2))


def semver(text):
    match = re.match(r"^v?(\d+)\.(\d+)\.(\d+)", str(text))
    if not match:
        raise AnsibleFilterError("%r is not a version such as v0.27.0" % (text,))
    return tuple(int(part) for part in match.groups())


def has_cgroupns(kernel_release):
    return kernel_version(kernel_release) >= CGROUPNS_MIN_KERNEL


def version_set(kernel_release, pins=None):
    """The pins for a host with this kernel, with ``pins`` (a dict) forced on top.

    Returns the set plus ``name`` (modern or legacy-kernel), ``cgroupns``
    (whether the kernel has cgroup namespaces) and, for legacy kernels,
    ``kind_env`` with the variable kind and its users export.
    """
    pins = {key: value for key, value in (pins or {}).items() if value not in (None, "")}
    unknown = sorted(set(pins) - set(PIN_PATTERNS))
    if unknown:
        raise AnsibleFilterError("unknown version pin %s; allowed: %s" % (", ".join(unknown), ", ".join(sorted(PIN_PATTERNS))))
    for key, value in pins.items():
        if not PIN_PATTERNS[key].match(str(value)):
            raise AnsibleFilterError("version pin %s=%r is malformed (expected like %s)"
                                     % (key, value, VERSION_SETS["modern"][key]))
    cgroupns = has_cgroupns(kernel_release)
    name = "modern" if cgroupns else "legacy-kernel"
    chosen = dict(VERSION_SETS[name])
    chosen.update(pins)
    if not cgroupns and semver(chosen["kind"]) >= KIND_PRIVATE_CGROUPNS_SINCE:
        raise AnsibleFilterError(
            "kind %s cannot run on kernel %s: kind v0.20.0 and later always start nodes with a private cgroup "
            "namespace, which needs Linux 4.6 or later; pin kind v0.19.0 (node image kindest/node:v1.27.1) "
            "for this host" % (chosen["kind"], kernel_release))
    chosen["name"] = name
    chosen["cgroupns"] = cgroupns
    chosen["cgroupns_private"] = semver(chosen["kind"]) >= KIND_PRIVATE_CGROUPNS_SINCE
    chosen["kind_env"] = {} if cgroupns else {"KIND_EXPERIMENTAL_DISABLE_CGROUP_NAMESPACES": "true"}
    return chosen


def node_kubernetes(versions):
    """(major, minor, patch) of the Kubernetes the kind node image of ``versions`` (version_set's) runs, from its tag;
    None when the tag is not a version."""
    tag = versions["node_image"].split("@", 1)[0].rsplit(":", 1)[-1]
    try:
        return semver(tag)
    except AnsibleFilterError:
        return None


def takes_job_syncs(versions):
    """Whether the kind node's kube-controller-manager takes --concurrent-job-syncs (an unknown tag: assume so)."""
    kubernetes = node_kubernetes(versions)
    return kubernetes is None or kubernetes >= JOB_SYNCS_FLAG_SINCE


def kind_controller_manager_args(versions, api_qps, api_burst, job_syncs):
    """kube-controller-manager's extra arguments on a kind cluster of ``versions``: the client rate and, where the
    node's Kubernetes takes it, the job controller's syncs (kind_job_syncs_problem refuses other syncs before)."""
    return component_flags("kube-controller-manager", {
        "api_qps": api_qps, "api_burst": api_burst, "job_syncs": job_syncs if takes_job_syncs(versions) else None})


def kind_job_syncs_problem(versions, job_syncs, name="bench_controller_manager_job_syncs"):
    """The sentence that refuses ``job_syncs`` on a kind node whose kube-controller-manager cannot take them, or ''."""
    if takes_job_syncs(versions) or int(job_syncs) == JOB_SYNCS_BEFORE_FLAG:
        return ""
    return ("%s=%s is not allowed on this host's kind cluster: its node image %s runs Kubernetes %s, whose "
            "kube-controller-manager has no --concurrent-job-syncs (1.28 and later) and syncs %d Jobs at once; "
            "leave it at %d or pin a newer node_image" % (name, job_syncs, versions["node_image"],
                                                     ".".join(map(str, node_kubernetes(versions)[:2])),
                                                     JOB_SYNCS_BEFORE_FLAG, JOB_SYNCS_BEFORE_FLAG))


def version_set_problem(kernel_release, pins=None, name="bench_version_pins"):
    """The sentence version_set would fail with, naming ``name`` (the variable that holds the pins) and its
    value, or an empty string."""
    try:
        version_set(kernel_release, pins)
    except AnsibleFilterError as exc:
        reason = str(exc.message if hasattr(exc, "message") else exc)
        return "%s=%s is not allowed: %s" % (name, dict(pins or {}), reason) if pins and name else reason
    return ""


# Go's (and the release files') name for each machine architecture Ansible reports.
GO_ARCH = {"x86_64": "amd64", "aarch64": "arm64", "arm64": "arm64", "ppc64le": "ppc64le", "s390x": "s390x"}

# k8s.io/kubernetes replaces its staging modules with ./staging, so it cannot be built with `go
# install`; a build module requires it and points each staging module at its published v0.x
# release instead (the set of Kubernetes v1.32).
KUBERNETES_STAGING = (
    "api", "apiextensions-apiserver", "apimachinery", "apiserver", "cli-runtime", "client-go", "cloud-provider",
    "cluster-bootstrap", "code-generator", "component-base", "component-helpers", "controller-manager", "cri-api",
    "cri-client", "csi-translation-lib", "dynamic-resource-allocation", "endpointslice", "externaljwt", "kms",
    "kube-aggregator", "kube-controller-manager", "kube-proxy", "kube-scheduler", "kubectl", "kubelet", "metrics",
    "mount-utils", "pod-security-admission", "sample-apiserver", "sample-cli-plugin", "sample-controller",
)


def go_arch(machine):
    """Go's name for ``machine`` as ansible_architecture gives it (x86_64 -> amd64); others unchanged."""
    return GO_ARCH.get(str(machine), str(machine))


def kubernetes_staging_replaces(kubernetes_version):
    """(module, version) pairs that replace k8s.io/kubernetes' staging modules for ``kubernetes_version``."""
    version = str(kubernetes_version)
    if not PIN_PATTERNS["kubernetes"].match(version):
        raise AnsibleFilterError("%r is not a Kubernetes release such as v1.32.2" % version)
    return [["k8s.io/" + module, "v0." + version.split(".", 1)[1]] for module in KUBERNETES_STAGING]


def download_checksums(tool):
    """The sha256 entries of DOWNLOAD_SHA256 for ``tool`` (kind, kubectl or go), by "<version>-<arch>"."""
    if tool not in DOWNLOAD_SHA256:
        raise AnsibleFilterError("no download table for %r; tables: %s" % (tool, ", ".join(sorted(DOWNLOAD_SHA256))))
    return dict(DOWNLOAD_SHA256[tool])
