"""The compatibility matrix (plugin_utils/versions/matrix.py; its filters: plugin_utils/versions/matrix.py)."""
import pathlib
import re

import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.versions import matrix

LEGACY = ["3.10.0-1160.el7.x86_64", "3.10.0-1160.el7", "4.5.0", "4.5.7-generic"]
MODERN = ["4.6.0", "4.6", "4.18.0-553.el8_10.x86_64", "5.4.0-200-generic", "5.14.0-503.el9.x86_64",
          "6.1.0-28-amd64", "6.8.0-51-generic", "6.18.44-fc-v857", "10.0.1"]


@pytest.mark.parametrize("kernel", LEGACY)
def test_kernels_without_cgroup_namespaces_get_the_legacy_set(kernel):
    chosen = matrix.version_set(kernel)
    assert not matrix.has_cgroupns(kernel)
    assert chosen["name"] == "legacy-kernel"
    assert (chosen["kind"], chosen["node_image"], chosen["go"]) == ("v0.19.0", "kindest/node:v1.27.1", "1.23.10")
    assert chosen["cgroupns"] is False
    assert chosen["cgroupns_private"] is False
    assert chosen["kind_env"] == {"KIND_EXPERIMENTAL_DISABLE_CGROUP_NAMESPACES": "true"}


@pytest.mark.parametrize("kernel", MODERN)
def test_kernels_with_cgroup_namespaces_get_the_modern_set(kernel):
    chosen = matrix.version_set(kernel)
    assert matrix.has_cgroupns(kernel)
    assert chosen["name"] == "modern"
    assert (chosen["kind"], chosen["node_image"]) == ("v0.27.0", "kindest/node:v1.32.2")
    assert chosen["go"].startswith("1.24.")
    assert chosen["cgroupns"] is True
    assert chosen["cgroupns_private"] is True
    assert chosen["kind_env"] == {}


@pytest.mark.parametrize("kernel", LEGACY + MODERN)
def test_binary_runtime_pins_are_the_same_everywhere(kernel):
    chosen = matrix.version_set(kernel)
    assert (chosen["kubernetes"], chosen["etcd"], chosen["kwok"]) == ("v1.32.2", "v3.5.16", "v0.6.1")


def test_the_matrix_is_not_changed_by_a_call():
    before = {name: dict(pins) for name, pins in matrix.VERSION_SETS.items()}
    matrix.version_set("3.10.0-1160.el7", {"go": "1.22.12"})
    matrix.version_set("6.1.0", {"kind": "v0.26.0"})
    assert matrix.VERSION_SETS == before


@pytest.mark.parametrize("kernel, pins, key, value", [
    ("6.1.0", {"kind": "v0.26.0"}, "kind", "v0.26.0"),
    ("6.1.0", {"node_image": "kindest/node:v1.31.4"}, "node_image", "kindest/node:v1.31.4"),
    ("6.1.0", {"go": "1.23.10"}, "go", "1.23.10"),
    ("5.10.0", {"kubernetes": "v1.31.0"}, "kubernetes", "v1.31.0"),
    ("3.10.0-1160.el7", {"go": "1.22.12"}, "go", "1.22.12"),
    ("3.10.0-1160.el7", {"kind": "v0.18.0"}, "kind", "v0.18.0"),
    ("3.10.0-1160.el7", {"node_image": "m.daocloud.io/docker.io/kindest/node:v1.27.1"}, "node_image",
     "m.daocloud.io/docker.io/kindest/node:v1.27.1"),
])
def test_forced_pins_win(kernel, pins, key, value):
    assert matrix.version_set(kernel, pins)[key] == value


def test_empty_pins_keep_the_set():
    assert matrix.version_set("6.1.0", {"kind": "", "go": None}) == matrix.version_set("6.1.0")
    assert matrix.version_set("6.1.0", None) == matrix.version_set("6.1.0", {})


def test_old_kind_forced_on_a_modern_kernel_runs_without_private_cgroupns():
    chosen = matrix.version_set("6.1.0", {"kind": "v0.19.0"})
    assert chosen["name"] == "modern"
    assert chosen["cgroupns_private"] is False


@pytest.mark.parametrize("kind", ["v0.20.0", "v0.27.0", "v1.0.0"])
def test_new_kind_forced_on_a_legacy_kernel_is_refused_with_the_reason(kind):
    with pytest.raises(AnsibleFilterError) as err:
        matrix.version_set("3.10.0-1160.el7.x86_64", {"kind": kind})
    message = str(err.value)
    assert kind in message and "3.10.0-1160.el7.x86_64" in message
    assert "cgroup namespace" in message and "4.6" in message
    assert "v0.19.0" in message
    assert matrix.version_set_problem("3.10.0-1160.el7.x86_64", {"kind": kind}) == (
        "bench_version_pins={'kind': '%s'} is not allowed: %s" % (kind, message))
    assert matrix.version_set_problem("3.10.0-1160.el7.x86_64", {"kind": kind}, "") == message


@pytest.mark.parametrize("pins, words", [
    ({"kind": "0.27.0"}, "kind='0.27.0' is malformed"),
    ({"kind": "latest"}, "kind='latest' is malformed"),
    ({"go": "go1.24"}, "go='go1.24' is malformed"),
    ({"go": "1.24rc1"}, "go='1.24rc1' is malformed"),
    ({"kubernetes": "1.32.2"}, "kubernetes='1.32.2' is malformed"),
    ({"node_image": "Kindest/Node:v1.32.2"}, "node_image='Kindest/Node:v1.32.2' is malformed"),
    ({"helm": "v4.0.0"}, "helm='v4.0.0' is malformed"),
    ({"kubectl": "v1.32.2"}, "unknown version pin kubectl"),
])
def test_malformed_or_unknown_pins_are_refused(pins, words):
    with pytest.raises(AnsibleFilterError) as err:
        matrix.version_set("6.1.0", pins)
    assert words in str(err.value)
    assert matrix.version_set_problem("6.1.0", pins) == "bench_version_pins=%s is not allowed: %s" % (pins, err.value)
    # The same check up front, in bench_checks, names the variable and the pin alike.
    import bench_checks
    assert words in bench_checks.version_pin_problems(pins)[0]


def test_no_problem_is_an_empty_string():
    assert matrix.version_set_problem("6.1.0") == ""
    assert matrix.version_set_problem("3.10.0-1160.el7", {"kind": "v0.19.0"}) == ""


@pytest.mark.parametrize("kernel", ["", "linux", "v6.1", None])
def test_unreadable_kernel_releases_are_refused(kernel):
    with pytest.raises(AnsibleFilterError, match="kernel version"):
        matrix.version_set(kernel)


def test_filters_are_registered():
    import version_matrix  # the filter file, filter_plugins/

    filters = version_matrix.FilterModule().filters()
    assert set(filters) == {"version_set", "version_set_problem", "has_cgroupns", "python_bootstrap", "download_checksums",
                            "go_arch", "kubernetes_staging_replaces", "kind_controller_manager_args",
                            "kind_job_syncs_problem"}


def test_kind_job_syncs_flag_only_where_the_nodes_kubernetes_takes_it():
    legacy, modern = matrix.version_set(LEGACY[0]), matrix.version_set(MODERN[0])
    assert matrix.kind_controller_manager_args(modern, 700, 750, 8) == {
        "kube-api-qps": 700, "kube-api-burst": 750, "concurrent-job-syncs": 8, "node-monitor-grace-period": "5m"}
    # Kubernetes 1.27 (the legacy set's node image) has no --concurrent-job-syncs: kube-controller-manager would exit.
    assert matrix.kind_controller_manager_args(legacy, 700, 750, 5) == {
        "kube-api-qps": 700, "kube-api-burst": 750, "node-monitor-grace-period": "5m"}
    pinned = matrix.version_set(MODERN[0], {"node_image": "kindest/node:v1.27.3@sha256:" + "a" * 64})
    assert "concurrent-job-syncs" not in matrix.kind_controller_manager_args(pinned, 1, 1, 5)
    unknown = matrix.version_set(MODERN[0], {"node_image": "example.org/node:latest"})
    assert "concurrent-job-syncs" in matrix.kind_controller_manager_args(unknown, 1, 1, 5)


def test_kind_job_syncs_other_than_the_old_fixed_number_are_refused_on_kubernetes_1_27():
    legacy, modern = matrix.version_set(LEGACY[0]), matrix.version_set(MODERN[0])
    assert matrix.kind_job_syncs_problem(legacy, 5) == ""
    assert matrix.kind_job_syncs_problem(modern, 20) == ""
    problem = matrix.kind_job_syncs_problem(legacy, 20)
    assert problem.startswith("bench_controller_manager_job_syncs=20 is not allowed")
    assert "kindest/node:v1.27.1 runs Kubernetes 1.27" in problem and "leave it at 5" in problem


@pytest.mark.parametrize("group", ["modern", "centos7"])
def test_lab_inventory_pins_match_the_matrix(group):
    import yaml
    path = pathlib.Path(__file__).resolve().parents[2] / "inventories" / "lab" / "group_vars" / (group + ".yml")
    group_vars = yaml.safe_load(path.read_text())
    chosen = matrix.version_set(group_vars["lab_reference_kernel"])
    assert chosen["name"] == ("modern" if group == "modern" else "legacy-kernel")
    for key, value in group_vars["bench_version_pins"].items():
        assert chosen[key] == value, "%s pins %s=%s, the matrix gives %s" % (group, key, value, chosen[key])


def test_role_defaults_repeat_the_modern_set():
    """Roles keep a literal default (they run on their own too); it must be the matrix's modern pin."""
    import os

    import yaml
    roles = os.path.join(os.path.dirname(__file__), "..", "..", "roles")
    modern = matrix.VERSION_SETS["modern"]

    def defaults(role):
        with open(os.path.join(roles, role, "defaults", "main.yml"), encoding="utf-8") as handle:
            return yaml.safe_load(handle)

    pairs = [
        (defaults("binary_components")["binary_components_kubernetes_version"], modern["kubernetes"]),
        (defaults("binary_components")["binary_components_etcd_version"], modern["etcd"]),
        (defaults("binary_components")["binary_components_kwok_version"], modern["kwok"]),
        (defaults("golang")["golang_version"], modern["go"]),
        (defaults("kind")["kind_version"], modern["kind"]),
        (defaults("kubectl")["kubectl_version"], modern["kubernetes"]),
        (defaults("kind_cluster")["kind_cluster_node_image"], modern["node_image"]),
    ]
    assert [found for found, _ in pairs] == [wanted for _, wanted in pairs]
    # The schedulers' pins are not repeated: the role reads them from the descriptors, as the matrix does.
    assert defaults("scheduler_components")["scheduler_components_versions"] == "{{ 'version' | scheduler_catalog }}"


def test_every_set_has_each_descriptors_pin():
    from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers

    pinned = {name: d["version"] for name, d in schedulers.DESCRIPTORS.items() if d["version"]}
    assert set(pinned) == {"kueue", "volcano", "yunikorn", "coscheduling"}
    for version_set in matrix.VERSION_SETS.values():
        assert {name: version_set[name] for name in pinned} == pinned
    assert matrix.version_set("5.14.0", {"kueue": "v0.9.0"})["kueue"] == "v0.9.0"
    with pytest.raises(AnsibleFilterError, match="version pin kueue='0.9' is malformed"):
        matrix.version_set("5.14.0", {"kueue": "0.9"})


def test_download_checksums_come_from_the_one_table():
    assert set(matrix.DOWNLOAD_SHA256) == {"kind", "kubectl", "go", "python"}
    keys = {"python": r"^\d+\.\d+\.\d+\+\d+-(x86_64|aarch64)$"}
    for tool, table in matrix.DOWNLOAD_SHA256.items():
        assert matrix.download_checksums(tool) == table
        for key, value in table.items():
            assert re.match(keys.get(tool, r"^v?\d+\.\d+(\.\d+)?-(amd64|arm64)$"), key) and re.match(r"^[0-9a-f]{64}$", value)
    with pytest.raises(AnsibleFilterError):
        matrix.download_checksums("helm")


@pytest.mark.parametrize("machine,arch", [("x86_64", "amd64"), ("aarch64", "arm64"), ("arm64", "arm64"), ("riscv64", "riscv64")])
def test_go_arch_is_the_release_files_name(machine, arch):
    assert matrix.go_arch(machine) == arch


def test_staging_modules_are_replaced_at_the_matching_v0_release():
    replaces = matrix.kubernetes_staging_replaces("v1.32.2")
    assert ["k8s.io/client-go", "v0.32.2"] in replaces and ["k8s.io/kubectl", "v0.32.2"] in replaces
    assert {version for _, version in replaces} == {"v0.32.2"}
    assert len(replaces) == len(set(module for module, _ in replaces)) == len(matrix.KUBERNETES_STAGING)
    with pytest.raises(AnsibleFilterError, match="not a Kubernetes release"):
        matrix.kubernetes_staging_replaces("1.32")
