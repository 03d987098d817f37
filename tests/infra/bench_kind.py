#!/usr/bin/env python3
"""`make bench-kind`: the seed's workload (the default burst: 100 fake nodes, 1,000 jobs of 3 pods, the bench
role's defaults, set explicitly here) through bench.yml on the kind runtime, for the five schedulers
(test_kind's), on a test machine (prints figures, asserts nothing).

What a lab host pulls cannot be pulled here, so this does what tests/e2e/test_kind.py does, at the seed's size:
the images come from `make kind-images scheduler-images` (built from source), Kueue's and Volcano's release
manifests come from their Go modules and are served on 127.0.0.1 like their upstream URLs (YuniKorn's chart
from the mirror's chart repository, coscheduling's from its Go module)
(tests/infra/release_mirror.py), and the registry keeps its blobs where test_kind.py keeps them
(tests/infra/kind_ready.py). Arguments are extra `ansible-playbook` arguments
(`make bench-kind ARGS="-e bench_run_id=kind-seed-1"`); the results and the report land in results/ as with
`make bench`.
"""
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile

import yaml

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TESTS)
sys.path.insert(0, TESTS)  # for infra.<module>

from infra.go_mirror import mirror_vars  # noqa: E402 - needs sys.path
from infra.kind_ready import KIND_CPU, REGISTRY_DATA, REGISTRY_IMAGE, RELEASES, SCHEDULERS, chart_repositories  # noqa: E402
from infra.release_mirror import build_release_manifests, serve, templates  # noqa: E402 - needs sys.path

SEED_KNOBS = ("bench_nodes", "bench_jobs", "bench_pods_per_job", "bench_pod_duration")
# Apart from test_kind_manifests' (20090-20099) and test_kind's (20190-20199) manifest servers.
SERVER_PORTS = range(20290, 20300)


def seed_workload():
    """The seed's workload: the bench role's defaults."""
    with open(os.path.join(ROOT, "roles", "bench", "defaults", "main.yml"), encoding="utf-8") as handle:
        defaults = yaml.safe_load(handle)
    return {knob: defaults[knob] for knob in SEED_KNOBS}


def main(args):
    with tempfile.TemporaryDirectory(prefix="sched-bench-kind-") as tmp:
        root, work = pathlib.Path(tmp, "mirror"), pathlib.Path(tmp, "work")
        work.mkdir()
        build_release_manifests(root, work, names=RELEASES)
        REGISTRY_DATA.mkdir(parents=True, exist_ok=True)
        server, base = serve(root, SERVER_PORTS)
        try:
            extravars = dict(bench_runtime="kind", bench_schedulers=SCHEDULERS,
                             registry_image=REGISTRY_IMAGE, registry_data_dir=str(REGISTRY_DATA),
                             scheduler_release_manifest_urls=templates(base),
                             scheduler_chart_repository_urls=chart_repositories(base), **KIND_CPU, **seed_workload(),
                             **mirror_vars())
            path = pathlib.Path(tmp, "kind.json")
            path.write_text(json.dumps(extravars), encoding="utf-8")
            argv = ["ansible-playbook", "bench.yml", "-i", "inventories/local", "-e", "@%s" % path, *args]
            play = subprocess.Popen(argv, cwd=ROOT)
            # Stopped with SIGTERM: the play gets it too, then the server stops. What the play had started stays, as
            # after any interrupted `make bench`: `make teardown ARGS="-e bench_runtime=kind ..."` removes it.
            signal.signal(signal.SIGTERM, lambda *_: play.send_signal(signal.SIGTERM))
            return play.wait()
        finally:
            server.kill()
            server.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
