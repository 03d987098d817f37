"""The Python probe's reading (filter_plugins/python_probe.py) and the bootstrap's download
data in the version matrix (plugin_utils/versions/matrix.py)."""
import importlib.util
import pathlib

import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.versions import matrix

_ROOT = pathlib.Path(__file__).resolve().parents[2] / "filter_plugins"


def _load(name):
    spec = importlib.util.spec_from_file_location(name + "_under_test", _ROOT / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


probe = _load("python_probe")

# What the probe prints on a stock CentOS 7 with Software Collections' 3.8 and nothing else.
CENTOS7 = "\n".join([
    "python\tconfigured\t/usr/bin/python\t2.7.5",
    "python\tpath\t/usr/bin/python3\t3.6.8",
    "python\tscl\t/opt/rh/rh-python38/root/usr/bin/python3.8\t3.8.14",
    "python\tscl\t/opt/rh/rh-python38/root/usr/bin/python3\t-",
])


def test_a_host_with_only_old_pythons_has_no_choice_and_says_what_it_found():
    found = probe.python_probe(CENTOS7, "3.9")
    assert found["chosen"] == {}
    assert [item["version"] for item in found["too_old"]] == ["2.7.5", "3.6.8", "3.8.14"]
    assert found["found"] == ("/usr/bin/python 2.7.5, /usr/bin/python3 3.6.8, "
                              "/opt/rh/rh-python38/root/usr/bin/python3.8 3.8.14, "
                              "/opt/rh/rh-python38/root/usr/bin/python3 (does not run)")


def test_the_first_usable_python_in_the_probes_order_is_chosen():
    stdout = CENTOS7 + "\npython\tbootstrap\t/home/u/.cache/kube-sched-bench/cpython/3.12.12+20251031-x86_64/bin/python3\t3.12.12\n"
    assert probe.python_probe(stdout, "3.9")["chosen"]["how"] == "bootstrap"
    stdout = "python\tpath\t/usr/bin/python3.11\t3.11.2\npython\tpath\t/usr/bin/python3\t3.11.2\n" + stdout
    assert probe.python_probe(stdout, "3.9")["chosen"] == {"how": "path", "path": "/usr/bin/python3.11", "version": "3.11.2"}


def test_versions_compare_as_numbers_and_duplicates_and_noise_are_dropped():
    stdout = ("bash: warning: setlocale\npython\tconfigured\t/usr/bin/python3\t3.10.0\n"
              "python\tpath\t/usr/bin/python3\t3.10.0\npython\tpath\t/x/python3.9\t3.9.0\r\n")
    found = probe.python_probe(stdout, "3.9")
    assert [item["path"] for item in found["candidates"]] == ["/usr/bin/python3", "/x/python3.9"]
    assert found["chosen"]["version"] == "3.10.0"
    assert probe.python_probe("python\tpath\t/p\t3.10.1", "3.11")["chosen"] == {}


def test_no_python_at_all_is_said_in_words():
    assert probe.python_probe("", "3.9") == {"chosen": {}, "candidates": [], "too_old": [], "found": "no Python"}


TEMPLATE = "https://mirror.example/{release}/cpython-{version}+{release}-{arch}-unknown-linux-gnu-install_only.tar.gz"


def test_the_default_bootstrap_has_a_sum_for_each_architecture_it_names():
    for arch in ("x86_64", "aarch64"):
        chosen = matrix.python_bootstrap(arch, "", TEMPLATE)
        assert chosen["version"] == matrix.PYTHON_BOOTSTRAP_VERSION
        assert len(chosen["sha256"]) == 64
        assert chosen["file"] == "cpython-%s-%s-unknown-linux-gnu-install_only.tar.gz" % (chosen["version"], arch)
        assert chosen["min_version"] == "3.9"


def test_the_url_template_is_filled_and_a_missing_sum_is_empty():
    chosen = matrix.python_bootstrap("ppc64le", "3.11.7+local", TEMPLATE)
    assert chosen["url"] == "https://mirror.example/local/cpython-3.11.7+local-ppc64le-unknown-linux-gnu-install_only.tar.gz"
    assert chosen["key"] == chosen["dir"] == "3.11.7+local-ppc64le"
    assert chosen["sha256"] == ""


def test_sums_given_by_the_user_add_to_and_override_the_table():
    key = matrix.PYTHON_BOOTSTRAP_VERSION + "-x86_64"
    chosen = matrix.python_bootstrap("x86_64", "", TEMPLATE, {key: "A" * 64})
    assert chosen["sha256"] == "a" * 64
    assert matrix.python_bootstrap("s390x", "3.12.1+1", TEMPLATE, {"3.12.1+1-s390x": "b" * 64})["sha256"] == "b" * 64


@pytest.mark.parametrize("version", ["3.12", "python3.12.1", "3.12.1+", "3.12.1 +x", "3.12.1+a/b"])
def test_a_malformed_bootstrap_version_is_refused_naming_the_variable(version):
    with pytest.raises(AnsibleFilterError, match="bench_python_bootstrap_version"):
        matrix.python_bootstrap("x86_64", version, TEMPLATE)
