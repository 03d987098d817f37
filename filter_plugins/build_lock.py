# -*- coding: utf-8 -*-
"""locked_build: a build command that waits its turn in a shared cache and is not redone once built."""
from __future__ import annotations

# Builds into one cache take turns (another run on the host, or a test beside this one, may build the same thing:
# Go would compile every package twice at once). After its wait, a build that the other run finished (its stamp
# written) is skipped: that run may be running the binaries already.
_SKIP_WHEN_BUILT = 'stamp=$1; shift; [ -e "$stamp" ] || exec "$@"'


def locked_build(argv, lock, stamp):
    """``argv`` run under an exclusive flock of the file ``lock``, unless ``stamp`` exists by then."""
    return ["flock", str(lock), "sh", "-c", _SKIP_WHEN_BUILT, "sh", str(stamp)] + [str(arg) for arg in argv]


class FilterModule:
    def filters(self):
        return {"locked_build": locked_build}
