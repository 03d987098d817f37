# -*- coding: utf-8 -*-
"""The gate as JUnit XML (gate.junit.xml beside the report), the format CI systems show as test results (Jenkins,
GitLab, GitHub Actions' test reporters): schemas/junit.xsd.

One test suite per host. Its test cases:

- ``host ran`` (class ``run.<host>``): fails with the host's failed.json when the host failed;
- one per scheduler × gated figure × threshold (class ``gate.<host>.<scheduler>``, name ``<figure> <threshold>``):
  passed, or failed with the measured value, the limit and the verdict; skipped when the gate refused to judge the
  result (measured on a busy host, bench_gate_busy=refuse), so that a case keeps its name from run to run.

No I/O here: task.py writes the text.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.model import describe_failure

JUNIT_FILE = "gate.junit.xml"
HOST_CASE = "host ran"


def _case(suite, classname, name):
    return ET.SubElement(suite, "testcase", {"classname": classname, "name": name, "time": "0"})


def _failure_text(check):
    return "\n".join([
        check.line(),
        "measured: %s" % check.value_text,
        "limit: %s" % check.threshold.text,
        "verdict: %s%s" % ("passed" if check.passed else "missed", " (%s)" % check.why if check.why else ""),
    ])


def _classname(kind, host, scheduler=None):
    # Dots separate packages in Jenkins' tree: a host name's own dots are kept out of it.
    parts = [kind, host.replace(".", "_")] + ([scheduler] if scheduler else [])
    return ".".join(parts)


def _host_case(suite, host):
    case = _case(suite, _classname("run", host.name), HOST_CASE)
    if host.failure:
        message = "host %s failed at %s" % (host.name, describe_failure(host.failure))
        ET.SubElement(case, "failure", {"message": message, "type": "host failed"}).text = message
        return 1
    return 0


def _check_case(suite, check):
    case = _case(suite, _classname("gate", check.host, check.scheduler),
                 "%s %s" % (check.figure, check.threshold.text))
    if check.passed:
        return 0
    ET.SubElement(case, "failure", {"message": check.line(), "type": "gate missed"}).text = _failure_text(check)
    return 1


def _refused_cases(suite, gate, refusal):
    count = 0
    for figure, thresholds in gate.thresholds(refusal.scheduler).items():
        for threshold in thresholds:
            case = _case(suite, _classname("gate", refusal.host, refusal.scheduler), "%s %s" % (figure, threshold.text))
            ET.SubElement(case, "skipped", {"message": refusal.line()}).text = refusal.line()
            count += 1
    return count


def _suite(root, run, host, gate, checks, refused):
    suite = ET.SubElement(root, "testsuite", {"name": "%s %s" % (run.run_id, host.name), "hostname": host.name})
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", {"name": "run_id", "value": run.run_id})
    failures = _host_case(suite, host)
    skipped = 0
    for refusal in (refusal for refusal in refused if refusal.host == host.name):
        skipped += _refused_cases(suite, gate, refusal)
    for check in (check for check in checks if check.host == host.name):
        failures += _check_case(suite, check)
    counts = {"tests": len(suite.findall("testcase")), "failures": failures, "errors": 0, "skipped": skipped}
    suite.attrib.update({key: str(value) for key, value in counts.items()})
    suite.set("time", "0")
    return counts


def render_junit(run, gate=None, checks=(), refused=()):
    """gate.junit.xml's text for a run (model.Run), its parsed gate (or None), the gate's Checks and Refusals."""
    root = ET.Element("testsuites", {"name": "kube-sched-bench %s" % run.run_id})
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for host in run.hosts.values():
        counts = _suite(root, run, host, gate, checks if gate else (), refused if gate else ())
        totals = {key: totals[key] + counts[key] for key in totals}
    root.attrib.update({key: str(value) for key, value in totals.items()})
    root.set("time", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
