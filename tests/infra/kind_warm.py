#!/usr/bin/env python3
"""Exit 0 when the images of the kind runtime's e2e test are built (`make test-kind` would build none of them),
else 1, naming the missing ones: .ci/run runs `make test-kind` only then (a cold build of them takes hours here)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/, for infra.<module>

from infra.kind_ready import not_ready  # noqa: E402 - needs sys.path


def main():
    reason = not_ready()
    print("kind-warm: %s" % (reason or "the kind e2e's images are built"))
    return 1 if reason else 0


if __name__ == "__main__":
    sys.exit(main())
