"""ansible.cfg's SSH settings for a lab (docs/runtimes-and-schedulers.md, "SSH settings"), as Ansible reads them,
and the ssh command line Ansible builds from them for a lab host; the local inventory is untouched by them.

The molecule scenario `lab` runs them against real sshd hosts; these checks need no host.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest
from ansible.playbook.play_context import PlayContext
from ansible.plugins.loader import connection_loader

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent
ENV = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"))


def ssh_settings():
    dump = subprocess.run([str(BIN / "ansible-config"), "dump", "--only-changed", "-t", "connection", "--format", "json"],
                          cwd=ROOT, env=ENV, capture_output=True, text=True, check=True).stdout
    plugins = {name: values for entry in json.loads(dump) for name, values in entry.items()}
    return {item["name"]: item["value"] for item in plugins["ssh"]}


def test_connection_reuse_pipelining_and_keepalive_are_set_for_ssh():
    settings = ssh_settings()
    assert settings["pipelining"] is True
    args = settings["ssh_args"].split()
    for option in ("ControlMaster=auto", "ControlPersist=60s", "ServerAliveInterval=5", "ServerAliveCountMax=4"):
        assert option in args, settings["ssh_args"]
    # Results come back gzipped: no compression of the connection.
    assert "-C" not in args


def test_the_ssh_command_line_of_a_lab_host_carries_them():
    context = PlayContext()
    context.remote_addr = "lab-01.example.internal"
    context.remote_user = "bench"
    connection = connection_loader.get("ssh", context, None)
    connection.set_options(direct={"ssh_args": ssh_settings()["ssh_args"], "host": "lab-01.example.internal",
                                   "remote_user": "bench"})
    command = connection._build_command("ssh", "ssh", "lab-01.example.internal", "true")  # noqa: SLF001 - Ansible's own
    line = " ".join(str(part) for part in command)
    for option in ("ControlMaster=auto", "ControlPersist=60s", "ServerAliveInterval=5", "ControlPath="):
        assert option in line, line


@pytest.mark.slow
def test_the_local_inventory_still_runs_with_them():
    result = subprocess.run([str(BIN / "ansible"), "all", "-i", "inventories/local", "-m", "ansible.builtin.ping"],
                            cwd=ROOT, env=ENV, capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "pong" in result.stdout
