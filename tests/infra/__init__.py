"""Test infrastructure: what the tests and the test machines' own tools share, never used by the product.

    go_mirror       the Go module mirror beside the project (../shared/mirror/go) as GOPROXY and golang_* variables
    release_mirror  the schedulers' release manifests built from their Go modules and served on 127.0.0.1
    kind_ready      the images and settings of the kind runtime's e2e run, and whether they are built

Imported as ``infra.<module>`` with tests/ on sys.path (tests/conftest.py puts it there; the scripts here do
it themselves). The scripts beside them: kind_warm.py (.ci/run), bench_kind.py (`make bench-kind`),
kind-docker.sh and kind-images.sh (`make kind-images`), scheduler-images.sh (`make scheduler-images`).
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The version matrix (plugin_utils/versions/matrix.py) names the pins the images are built at.
_FILTER_PLUGINS = os.path.join(ROOT, "filter_plugins")
if _FILTER_PLUGINS not in sys.path:
    sys.path.append(_FILTER_PLUGINS)
