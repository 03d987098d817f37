"""Helpers of tests/infra/kind-images.sh (test set-up only, never used by the product).
    kindimg.py versions <kubernetes version>   shell assignments: the version set's kind, etcd and Go, and the
                                               kind that builds its node image
    kindimg.py node-version [version set]      the Kubernetes version of the set's node image (modern)
    kindimg.py node-versions                   those of every set, one per line
    kindimg.py pin <name> [version set]        the set's pin of one component (kueue, go...; modern)
    kindimg.py graph-only <scheduler>           its descriptor's build.graph_only modules, one per line
    kindimg.py gomod <kubernetes version> <etcd version>
                                               go.mod of the module that builds the node's binaries
    kindimg.py archive <in.tar> <out.tar> <image>...
                                               a `docker save` archive whose `repositories` entry, first
                                               in the tar, names every image fully (docker.io/...)"""
import io
import json
import os
import sys
import tarfile

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.versions.matrix import (
    VERSION_SETS,
    descriptors,
    kubernetes_staging_replaces,
)

# tests/infra/kind-images/kindimg.py: the project is four levels up.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def version_set(kubernetes_version):
    """The version set whose kind node image is kindest/node:<kubernetes_version>."""
    for name, pins in VERSION_SETS.items():
        if pins["node_image"] == "kindest/node:" + kubernetes_version:
            return name, pins
    known = ", ".join(pins["node_image"].split(":", 1)[1] for pins in VERSION_SETS.values())
    raise SystemExit("kind-images: Kubernetes version %s has no kind node image in the version sets; allowed: %s"
                     % (kubernetes_version, known))


GO_MOD_TEMPLATE = os.path.join(ROOT, "roles", "binary_components", "templates", "go.mod.j2")


def go_mod(kubernetes_version, etcd_version):
    """The go.mod of the binary runtime's build module (the binary_components role's template), for these
    versions: the node's binaries come from the same module, with the same replace directives."""
    import jinja2  # noqa: PLC0415 - only this command needs it (it comes with ansible-core in the venv)
    env = jinja2.Environment(keep_trailing_newline=True, trim_blocks=True, undefined=jinja2.StrictUndefined)
    env.filters["kubernetes_staging_replaces"] = kubernetes_staging_replaces
    with open(GO_MOD_TEMPLATE, encoding="utf-8") as handle:
        template = env.from_string(handle.read())
    return template.render(ansible_managed="written by tests/infra/kind-images/kindimg.py",
                           binary_components_kubernetes_version=kubernetes_version,
                           binary_components_etcd_version=etcd_version)


def full_name(image):
    """Docker's short names in full, as kind compares them: kindest/x:t -> docker.io/kindest/x:t."""
    first = image.split("/", 1)[0]
    if "/" not in image:
        return "docker.io/library/" + image
    if "." in first or ":" in first or first == "localhost":
        return image
    return "docker.io/" + image


def repositories(manifest):
    """The `repositories` document of a docker archive from its manifest.json entries, full names."""
    doc = {}
    for entry in manifest:
        image_id = entry["Config"].split(".", 1)[0].replace("sha256:", "").split("/")[-1]
        for tag in entry.get("RepoTags") or []:
            repo, _, version = full_name(tag).rpartition(":")
            doc.setdefault(repo, {})[version] = image_id
    return doc


def rewrite_archive(source, target):
    """Copy a docker archive with `repositories` (full names) first and manifest.json's tags in full."""
    with tarfile.open(source) as tin:
        members = tin.getmembers()
        manifest = json.load(tin.extractfile("manifest.json"))
        for entry in manifest:
            entry["RepoTags"] = [full_name(tag) for tag in entry.get("RepoTags") or []]
        with tarfile.open(target, "w") as tout:
            for name, doc in (("repositories", repositories(manifest)), ("manifest.json", manifest)):
                data = json.dumps(doc).encode()
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tout.addfile(info, io.BytesIO(data))
            for member in members:
                if member.name in ("repositories", "manifest.json"):
                    continue
                tout.addfile(member, tin.extractfile(member) if member.isfile() else None)


def main(argv):
    if argv[:1] == ["versions"] and len(argv) == 2:
        name, pins = version_set(argv[1])
        # kind before v0.20 builds node images only from a Kubernetes source tree, in containers it pulls: every
        # node image is built by the modern set's kind (`--type file`), with what that kind's images hold.
        print("VERSION_SET=%s KIND_VERSION=%s BUILDER_KIND_VERSION=%s ETCD_VERSION=%s GO_VERSION=%s"
              % (name, pins["kind"], VERSION_SETS["modern"]["kind"], pins["etcd"], pins["go"]))
    elif argv[:1] == ["node-version"] and len(argv) <= 2:
        name = argv[1] if len(argv) == 2 else "modern"
        if name not in VERSION_SETS:
            raise SystemExit("kind-images: version set %s does not exist; allowed: %s" % (name, ", ".join(VERSION_SETS)))
        print(VERSION_SETS[name]["node_image"].split(":", 1)[1])
    elif argv == ["node-versions"]:
        for version in sorted({pins["node_image"].split(":", 1)[1] for pins in VERSION_SETS.values()}):
            print(version)
    elif argv[:1] == ["pin"] and len(argv) in (2, 3):
        pins = VERSION_SETS.get(argv[2] if len(argv) == 3 else "modern")
        if pins is None or argv[1] not in pins:
            raise SystemExit("kind-images: no pin %s in version set %s; allowed: %s"
                             % (argv[1], argv[2] if len(argv) == 3 else "modern", ", ".join(VERSION_SETS["modern"])))
        print(pins[argv[1]])
    elif argv[:1] == ["graph-only"] and len(argv) == 2:
        for module in descriptors.get(argv[1])["build"].get("graph_only", ()):
            print(module)
    elif argv[:1] == ["gomod"] and len(argv) == 3:
        sys.stdout.write(go_mod(argv[1], argv[2]))
    elif argv[:1] == ["archive"] and len(argv) == 3:
        rewrite_archive(argv[1], argv[2])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
