# -*- coding: utf-8 -*-
"""The cluster record: what every runtime's start (playbooks/tasks/runtimes/<runtime>/start.yml) returns as the
fact ``bench_cluster``, the one description of the cluster under test that the scheduler role, the load test and
the fetch read. A runtime may add keys of its own (kind's node image, the binary runtime's ports); these it must
have. docs/architecture.md ("The runtime contract") lists the same keys (a unit test compares them)."""
from __future__ import annotations

RECORD = {
    "runtime": "the runtime that started it: binary, kind or external",
    "name": "the cluster's name on its runtime",
    "dir": "the directory of the cluster's files on the host (on kind and external, kwok's beside the cluster)",
    "kubeconfig": "an admin kubeconfig on the host (the scheduler's deployment and the load test use it)",
    "audit_log": "the API server's audit log on the host; empty where the toolkit cannot read it (external)",
    "logs_dir": "the directory of the components' logs on the host (fetched with the results)",
    "owned": "true when the toolkit started the cluster (it stops, removes or keeps it); false for a user's cluster",
}
# Keys that must not be empty.
REQUIRED_VALUES = ("runtime", "name", "dir", "kubeconfig", "logs_dir")


def record_problems(record, runtime):
    """Why ``record`` is not a cluster record of ``runtime``, one sentence each; empty when it is."""
    if not isinstance(record, dict):
        return ["the cluster record is %r, not a mapping of %s" % (record, ", ".join(RECORD))]
    problems = ["the cluster record has no %s (%s)" % (key, RECORD[key]) for key in RECORD if key not in record]
    problems += ["the cluster record's %s is empty" % key for key in REQUIRED_VALUES if key in record and not record[key]]
    if record.get("runtime") not in (None, runtime):
        problems.append("the cluster record says runtime %s, the run's is %s" % (record.get("runtime"), runtime))
    return problems
