# -*- coding: utf-8 -*-
"""go_env: the Go runtime's environment of a scheduler from the fairness knobs, one rule for the binary runtime's
processes (the scheduler role's scheduler_go_env) and the kind runtime's (its releases' controllers and kind's
kube-scheduler)."""
from __future__ import annotations


def go_env(gogc, gomemlimit="", cpu_limit=0):
    """GOGC, GOMEMLIMIT and GOMAXPROCS (the whole CPUs of ``cpu_limit``, when above 0); unset knobs left out."""
    env = {"GOGC": str(gogc if gogc is not None else "").strip(),
           "GOMEMLIMIT": str(gomemlimit if gomemlimit is not None else "").strip(),
           "GOMAXPROCS": str(int(cpu_limit or 0)) if int(cpu_limit or 0) > 0 else ""}
    return {name: value for name, value in env.items() if value}


class FilterModule:
    def filters(self):
        return {"go_env": go_env}
