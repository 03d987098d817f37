#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: find free TCP ports on an address."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: bench_free_ports
short_description: Pick free TCP ports from a range on the host
description:
  - Returns O(count) distinct ports from O(range_start) to O(range_end) that nothing listens on at O(address),
    tested by binding them. Ports already recorded in O(reuse) are returned again when they are still free or
    held by the component that recorded them, so that a second run keeps its ports.
  - Fails with one line when the range has too few free ports.
version_added: "0.1.0"
options:
  names:
    description: One name per port wanted; the result maps each name to a port.
    type: list
    elements: str
    required: true
  address:
    description: Address to test.
    type: str
    default: 127.0.0.1
  range_start:
    description: First port of the range.
    type: int
    default: 20000
  range_end:
    description: Last port of the range.
    type: int
    default: 32000
  reuse:
    description: Ports picked by an earlier run (name to port); kept when they are in the range.
    type: dict
    default: {}
  reuse_file:
    description:
      - A JSON file on the host whose C(ports) (name to port) are reused as with O(reuse), such as the C(state.json)
        of a cluster that may already run there; a file that does not exist reuses nothing.
    type: path
  exclude:
    description: Ports already promised to others (for example a cluster's ports whose listeners have not started yet).
    type: list
    elements: int
    default: []
author:
  - kube-sched-bench maintainers
"""

EXAMPLES = r"""
- name: Pick ports for the cluster's components
  bench_free_ports:
    names: [etcd_client, etcd_peer, apiserver]
    range_start: 20000
    range_end: 32000
  register: ports
"""

RETURN = r"""
ports:
  description: Name to port.
  returned: success
  type: dict
  sample: {etcd_client: 20000, etcd_peer: 20001, apiserver: 20002}
"""

import json
import random
import socket

from ansible.module_utils.basic import AnsibleModule


def is_free(address, port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((address, port))
        except OSError:
            return False
    return True


def pick(names, address, start, end, reuse, free=is_free, rng=random, exclude=()):
    """Map each name to a distinct free port, never one of ``exclude``; ports in ``reuse`` are kept as they are."""
    chosen = {}
    taken = set(exclude)
    for name in names:
        port = reuse.get(name)
        if isinstance(port, int) and start <= port <= end and port not in taken:
            chosen[name] = port
            taken.add(port)
    candidates = list(range(start, end + 1))
    rng.shuffle(candidates)
    for name in names:
        if name in chosen:
            continue
        while candidates:
            port = candidates.pop()
            if port not in taken and free(address, port):
                chosen[name] = port
                taken.add(port)
                break
        else:
            return None
    return chosen


def read_ports(path):
    """The ``ports`` recorded in the JSON file at ``path``, or {} when there is none."""
    try:
        with open(path, encoding="utf-8") as handle:
            ports = json.load(handle).get("ports") or {}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, AttributeError) as exc:
        raise ValueError("%s is not a state file with ports: %s" % (path, exc)) from exc
    if not isinstance(ports, dict) or not all(isinstance(port, int) for port in ports.values()):
        raise ValueError("%s is not a state file with ports: its ports are %r" % (path, ports))
    return ports


def main():
    module = AnsibleModule(
        argument_spec=dict(
            names=dict(type="list", elements="str", required=True),
            address=dict(type="str", default="127.0.0.1"),
            range_start=dict(type="int", default=20000),
            range_end=dict(type="int", default=32000),
            reuse=dict(type="dict", default={}),
            reuse_file=dict(type="path"),
            exclude=dict(type="list", elements="int", default=[]),
        ),
        supports_check_mode=True,
    )
    p = module.params
    if not 1 <= p["range_start"] <= p["range_end"] <= 65535:
        module.fail_json(msg="port range %s-%s is not valid: need 1 <= start <= end <= 65535"
                         % (p["range_start"], p["range_end"]))
    reuse = dict(p["reuse"])
    if p["reuse_file"]:
        try:
            reuse.update(read_ports(p["reuse_file"]))
        except ValueError as exc:
            module.fail_json(msg=str(exc))
    ports = pick(p["names"], p["address"], p["range_start"], p["range_end"], reuse, exclude=p["exclude"])
    if ports is None:
        module.fail_json(msg="port range %d-%d on %s has fewer than %d free ports"
                         % (p["range_start"], p["range_end"], p["address"], len(p["names"])))
    module.exit_json(changed=False, ports=ports)


if __name__ == "__main__":
    main()
