#!/usr/bin/env python3
"""Check that the collections pinned in requirements.yml are installed at those versions.

The pinned ansible package bundles them; Ansible Galaxy is not needed (and may
not be reachable from lab networks).
"""
import json
import os
import subprocess
import sys

import yaml


def main(path):
    with open(path, encoding="utf-8") as handle:
        wanted = {c["name"]: str(c["version"]) for c in yaml.safe_load(handle)["collections"]}
    galaxy = os.path.join(os.path.dirname(sys.executable), "ansible-galaxy")
    out = subprocess.run([galaxy, "collection", "list", "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    installed = {}
    for collections in json.loads(out).values():
        for name, info in collections.items():
            installed.setdefault(name, info.get("version"))
    problems = ["%s %s (found %s)" % (name, version, installed.get(name, "none"))
                for name, version in sorted(wanted.items()) if installed.get(name) != version]
    if problems:
        sys.exit("collections missing or at other versions: " + "; ".join(problems))


if __name__ == "__main__":
    main(sys.argv[1])
