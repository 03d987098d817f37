#!/bin/sh
# cgroup v2: enable every controller for the kubelet's cgroup roots (run before the kubelet starts,
# when systemd has moved its processes out of the root cgroup).
set -eu
enable() { sed -e 's/^/+/' -e 's/ / +/g' "/sys/fs/cgroup/$1/cgroup.controllers" >"/sys/fs/cgroup/$1/cgroup.subtree_control"; }
enable /
for group in kubelet kubelet.slice; do
  mkdir -p "/sys/fs/cgroup/$group"
  enable "$group"
done
