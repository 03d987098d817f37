"""Record, for every task result of a run, the connection and the privilege escalation it ran with.

Test infrastructure of the `lab` scenario (molecule/lab): its converge adds this directory to the inner
`ansible-playbook bench.yml`'s callback plugins and names a file in LAB_CONNECTIONS_LOG; verify.yml then checks that
every task on a lab host went over ssh and which of them became root, and when a dropped host was given up. One
JSON line per result: host, task, action, connection, delegated_to, become, status and time (seconds since the
epoch). The connection is the one Ansible's task executor chooses: the delegated host's ``ansible_connection`` for a
delegated task, else the host's, else the task's keyword.
"""
import json
import os
import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
name: lab_connections
type: aggregate
short_description: the connection and become of every task result, as JSON lines (molecule/lab's verify)
description: Writes one JSON line per task result to the file named by LAB_CONNECTIONS_LOG; nothing without it.
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "lab_connections"
    CALLBACK_NEEDS_ENABLED = False

    def __init__(self):
        super().__init__()
        self._path = os.environ.get("LAB_CONNECTIONS_LOG")
        self._play = None
        self._host_connections = {}

    def v2_playbook_on_play_start(self, play):
        self._play = play
        self._host_connections = {}

    def _host_connection(self, host):
        if host.name not in self._host_connections:
            variables = self._play.get_variable_manager().get_vars(play=self._play, host=host)
            self._host_connections[host.name] = variables.get("ansible_connection")
        return self._host_connections[host.name]

    def _record(self, result, status):
        if not self._path or self._play is None:
            return
        fields = result.task_fields
        delegated = result.result.get("_ansible_delegated_vars") or {}
        if delegated:
            connection = delegated.get("ansible_connection")
        else:
            connection = self._host_connection(result.host)
        line = {
            "host": result.host.name,
            "task": result.task_name,
            "action": fields.get("action"),
            "connection": str(connection or fields.get("connection") or result.task.connection),
            "delegated_to": fields.get("delegate_to") if delegated else None,
            "become": bool(fields.get("become")),
            "status": status,
            "time": round(time.time(), 1),
        }
        with open(self._path, "a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")

    def v2_runner_on_ok(self, result):
        self._record(result, "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, "failed")

    def v2_runner_on_unreachable(self, result):
        self._record(result, "unreachable")

    def v2_runner_on_skipped(self, result):
        self._record(result, "skipped")
