"""What a run prints for a cluster it keeps (filter_plugins/kept_cluster.py): one command that works as pasted,
naming the host when the inventory has several, and the command that stops it."""
import json
import os
import shlex
import subprocess
import sys

import kept_cluster
import pytest

PROJECT = "/src/kube-sched-bench"
LOCAL = os.path.join(PROJECT, "inventories", "local")
LAB = os.path.join(PROJECT, "inventories", "lab")


def kept(host="localhost", local=True, runtime="binary", workspace="/home/me/kube-sched-bench", **extra):
    return dict({"host": host, "scheduler": "kueue", "runtime": runtime, "local": local, "home": "/home/me",
                 "workspace": workspace, "kubeconfig": workspace + "/clusters/bench/admin.kubeconfig",
                 "kubectl": workspace + "/bin/kubectl"}, **extra)


def lines(text, label):
    return [line.strip()[len(label):].strip() for line in text.splitlines() if line.strip().startswith(label)]


def test_this_machine_alone_gets_kubectl_itself_and_make_teardown():
    text = kept_cluster.help_text([kept()], 1, [LOCAL], PROJECT, PROJECT, "/venv/bin/ansible")
    assert text.splitlines()[0] == "localhost: the cluster of kueue (binary runtime) is kept running (bench_keep_cluster)."
    assert lines(text, "kubeconfig:") == ["/home/me/kube-sched-bench/clusters/bench/admin.kubeconfig"]
    assert lines(text, "use it:") == ["/home/me/kube-sched-bench/bin/kubectl --kubeconfig "
                                      "/home/me/kube-sched-bench/clusters/bench/admin.kubeconfig get nodes"]
    assert lines(text, "stop it:") == ["make teardown"]


def test_a_workspace_other_than_the_default_goes_to_the_stop_command_and_survives_the_shell():
    odd = "/tmp/a b/it's here"
    text = kept_cluster.help_text([kept(workspace=odd)], 1, [LOCAL], PROJECT, PROJECT, "ansible")
    assert shlex.split(lines(text, "use it:")[0]) == [odd + "/bin/kubectl", "--kubeconfig",
                                                      odd + "/clusters/bench/admin.kubeconfig", "get", "nodes"]
    make, target, args = shlex.split(lines(text, "stop it:")[0])
    assert (make, target) == ("make", "teardown")
    # What the Makefile's teardown hands to ansible-playbook, split by the shell as its recipe is.
    assert args.startswith("ARGS=") and shlex.split(args[len("ARGS="):]) == ["-e", "bench_workspace=" + odd]


def test_each_host_of_a_lab_is_named_in_its_command():
    hosts = [kept("lab-01", False, "kind", "/home/bench/kube-sched-bench", home="/home/bench"),
             kept("lab-02", False, "kind", "/data/bench", home="/home/bench")]
    text = kept_cluster.help_text(hosts, 2, [LAB], PROJECT, PROJECT, "/venv/bin/ansible")
    assert lines(text, "kubeconfig:") == ["/home/bench/kube-sched-bench/clusters/bench/admin.kubeconfig (on lab-01)",
                                          "/data/bench/clusters/bench/admin.kubeconfig (on lab-02)"]
    first, second = (shlex.split(command) for command in lines(text, "use it:"))
    assert first[:7] == ["/venv/bin/ansible", "lab-01", "-i", "inventories/lab", "-m", "raw", "-a"]
    assert shlex.split(first[7]) == ["/home/bench/kube-sched-bench/bin/kubectl", "--kubeconfig",
                                     "/home/bench/kube-sched-bench/clusters/bench/admin.kubeconfig", "get", "nodes"]
    assert second[1] == "lab-02"
    assert lines(text, "stop it:") == [
        "make teardown INVENTORY=inventories/lab 'ARGS=-e bench_runtime=kind'",
        "make teardown INVENTORY=inventories/lab 'ARGS=-e bench_runtime=kind -e bench_workspace=/data/bench'"]


def test_this_machine_in_an_inventory_of_several_is_named_too():
    text = kept_cluster.help_text([kept()], 2, [LOCAL], PROJECT, PROJECT, "ansible")
    assert shlex.split(lines(text, "use it:")[0])[:2] == ["ansible", "localhost"]


def test_from_another_directory_the_commands_name_the_project():
    text = kept_cluster.help_text([kept("lab-01", False)], 1, [LAB], PROJECT, "/home/me", "ansible")
    assert lines(text, "use it:")[0].startswith("ANSIBLE_CONFIG=/src/kube-sched-bench/ansible.cfg ansible lab-01 "
                                                "-i /src/kube-sched-bench/inventories/lab -m raw -a ")
    assert lines(text, "stop it:") == ["make -C /src/kube-sched-bench teardown INVENTORY=inventories/lab"]


@pytest.mark.slow  # runs ansible
def test_the_command_for_a_host_of_several_runs_there_as_pasted(tmp_path):
    # Two hosts of this machine stand for a lab; a script stands for kubectl and says what it was asked.
    inventory = tmp_path / "hosts.json"
    local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
    inventory.write_text(json.dumps({"all": {"hosts": {"lab-01": local, "lab-02": local}}}))
    kubectl = tmp_path / "bin" / "kubectl"
    kubectl.parent.mkdir()
    kubectl.write_text('#!/bin/sh\necho "kubectl $*"\n')
    kubectl.chmod(0o755)
    host = kept("lab-02", True, workspace=str(tmp_path), kubectl=str(kubectl))
    ansible = os.path.join(os.path.dirname(sys.executable), "ansible")
    text = kept_cluster.help_text([host], 2, [str(inventory)], kept_cluster.PROJECT, str(tmp_path), ansible)
    command = lines(text, "use it:")[0]
    run = subprocess.run(command, shell=True, cwd=tmp_path, capture_output=True, text=True, check=False,  # noqa: S602
                         env=dict(os.environ, ANSIBLE_NOCOLOR="1"), timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[:2] == ["lab-02 | CHANGED | rc=0 >>",
                                           "kubectl --kubeconfig %s/clusters/bench/admin.kubeconfig get nodes" % tmp_path]
