#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# in-root.sh BASE DIR COMMAND: run the shell command line COMMAND as root in
# a Debian root of its own: BASE, read only, under an overlay that keeps
# every change in DIR/upper, mounted at DIR/root with its own /proc, a new
# /sys (no bpffs on it, as on a new host) with the host's cgroups, the
# host's /dev and an empty /run (no service manager is seen there, so no
# package starts a daemon).
# The host's network, DNS and local certificate authorities. Exits with
# COMMAND's status.
#
# It runs in mount and PID namespaces of its own: every mount it makes is
# in that namespace, so they all go with it on every way out, SIGKILL
# included, and never propagate to the host; and when it exits, every
# process COMMAND left is killed with it.
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: in-root.sh BASE DIR COMMAND" >&2; exit 2; }
# Again in the new namespaces, where this script is the init, PID 1.
[ $$ -eq 1 ] || exec unshare --mount --pid --fork --kill-child --propagation private "$0" "$@"
base=$1 dir=$2 command=$3
root=$dir/root

mkdir -p "$dir/upper" "$dir/work" "$root"
mount -t overlay overlay -o "lowerdir=$base,upperdir=$dir/upper,workdir=$dir/work" "$root"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
# The host's cgroups, as its init mounts them on every host (not bpffs: the
# first run must mount that).
! mountpoint -q /sys/fs/cgroup || mount --rbind /sys/fs/cgroup "$root/sys/fs/cgroup"
mount --rbind /dev "$root/dev"
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$root/run"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The host's own certificate authorities, part of its network where a proxy
# inspects TLS (npm's registry is HTTPS): the root trusts what the host does.
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
	cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
	chroot "$root" update-ca-certificates >/dev/null 2>&1
fi

# The root becomes the namespace's own root, as a host's is, not a chroot:
# a container started in it (the service test's systemd-nspawn) pivots its own
# root there, and nsenter into it finds that root only at the top of the tree.
cd "$root"
pivot_root . mnt
cd /
umount -l /mnt
# A login's environment, none of this host's.
exec env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	/bin/bash -c "$command"
