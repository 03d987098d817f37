"""plugin_utils/actions/direct_run.py: when a project module runs directly on a local host, and that it runs so."""
import json
import os
import subprocess
import sys

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.actions import direct_run as bench_direct_run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOCAL = dict(transport="local", interpreter=sys.executable, become=False, environment={}, async_val=0,
             delegate_to=None)


def test_a_call_runs_directly_only_when_nothing_can_differ():
    assert bench_direct_run.refusal(**LOCAL) is None
    assert bench_direct_run.refusal(**dict(LOCAL, transport="ansible.builtin.local")) is None
    assert bench_direct_run.refusal(**dict(LOCAL, transport="ssh")) == "the connection is ssh, not local"
    assert bench_direct_run.refusal(**dict(LOCAL, interpreter="/usr/bin/python3.6")).startswith(
        "the host's Python /usr/bin/python3.6 is not the controller's")
    assert bench_direct_run.refusal(**dict(LOCAL, interpreter=None)) is not None
    assert bench_direct_run.refusal(**dict(LOCAL, become=True)) == "the task becomes another user"
    assert bench_direct_run.refusal(**dict(LOCAL, environment={"KUBECONFIG": "/x"})) == "the task sets an environment"
    assert bench_direct_run.refusal(**dict(LOCAL, async_val=60)) == "the task runs asynchronously"
    assert bench_direct_run.refusal(**dict(LOCAL, delegate_to="localhost")) == "the task is delegated"


def test_the_same_python_is_the_same_file_or_two_names_of_one_executable_in_one_directory(tmp_path):
    real = tmp_path / "python3.11"
    real.write_text("")
    (tmp_path / "python").symlink_to(real)
    other = tmp_path / "venv"
    other.mkdir()
    (other / "python").symlink_to(real)
    assert bench_direct_run.same_python(str(real), str(real))
    assert bench_direct_run.same_python(str(tmp_path / "python"), str(real))
    # Another directory is another environment (a virtualenv), even for the same executable.
    assert not bench_direct_run.same_python(str(other / "python"), str(real))
    assert not bench_direct_run.same_python(None, str(real))


def run_directly(module, args):
    process = subprocess.run(
        bench_direct_run.boot_argv(sys.executable, os.path.join(ROOT, "library", module + ".py")),
        env=bench_direct_run.boot_env(os.environ), input=json.dumps({"ANSIBLE_MODULE_ARGS": args}).encode(),
        capture_output=True, check=False)
    return process.returncode, json.loads(process.stdout)


def test_a_module_run_directly_reads_its_arguments_and_its_module_utils_and_answers_in_json(tmp_path):
    # bench_process imports the project's module_utils (bench_file_set, bench_host_guard...) as Ansible ships them.
    code, result = run_directly("bench_process", {"name": "x", "state": "stopped", "pid_file": str(tmp_path / "x.pid")})
    assert code == 0 and result["changed"] is False and result["running"] is False
    code, result = run_directly("bench_directories", {"paths": [str(tmp_path), str(tmp_path / "absent")]})
    assert code == 0 and result["directories"] == [str(tmp_path)] and result["missing"] == [str(tmp_path / "absent")]
    # A module's own refusal comes back as Ansible's failure, with its message.
    code, result = run_directly("bench_directories", {"paths": [str(tmp_path)], "typo": 1})
    assert code == 1 and result["failed"] is True and "typo" in result["msg"]
