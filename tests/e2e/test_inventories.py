"""The example lab inventory is accepted and shows each group's version set."""
import json
import os
import subprocess
import sys

from conftest import ROOT

BIN = os.path.dirname(sys.executable)
ENV = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))


def run(*command):
    return subprocess.run(command, cwd=ROOT, env=ENV, capture_output=True, text=True, check=False)


def test_bench_yml_accepts_both_inventories():
    for inventory in ("inventories/local", "inventories/lab"):
        result = run(os.path.join(BIN, "ansible-playbook"), "bench.yml", "-i", inventory, "--syntax-check")
        assert result.returncode == 0, result.stdout + result.stderr


def test_lab_inventory_shows_the_version_set_of_each_group():
    result = run(os.path.join(BIN, "ansible-inventory"), "-i", "inventories/lab", "--list")
    assert result.returncode == 0, result.stderr
    inventory = json.loads(result.stdout)
    hostvars = inventory["_meta"]["hostvars"]
    kinds = {}
    for group in ("modern", "centos7"):
        hosts = inventory[group]["hosts"]
        assert hosts
        kinds[group] = {hostvars[host]["bench_version_pins"]["kind"] for host in hosts}
    assert kinds == {"modern": {"v0.27.0"}, "centos7": {"v0.19.0"}}


def test_the_shipped_inventories_set_only_known_knobs():
    """What the run's first check would refuse (a variable with a toolkit prefix that no role defines)."""
    sys.path.insert(0, os.path.join(ROOT, "filter_plugins"))
    import bench_checks  # noqa: E402 - the filter the bench role uses

    for inventory in ("inventories/local", "inventories/lab"):
        result = run(os.path.join(BIN, "ansible-inventory"), "-i", inventory, "--list")
        assert result.returncode == 0, result.stderr
        for host, variables in json.loads(result.stdout)["_meta"]["hostvars"].items():
            assert bench_checks.unknown_knobs(variables, os.path.join(ROOT, "roles")) == [], (inventory, host)
