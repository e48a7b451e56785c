#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# boot.sh DIR UDEV_DEB SRC BUILD CGROUP [INSTALL]: boot this machine's own
# root as a container with systemd as its PID 1, the agent installed in it by
# make install (INSTALL "make", the default) or not at all ("none": the
# package's test installs it with apt), for the tests of the unit under a
# real service manager (tests/e2e/service.bats, tests/e2e/package.bats).
# Run in a mount namespace of its own (unshare -m --propagation private):
# every mount below stays in it and goes with it. Execs systemd-nspawn.
#
#  - The root is an overlay: this machine's / below, a tmpfs at DIR above,
#    so the container can install and write without touching the host.
#    systemd-nspawn 252 does not do this itself for the root directory.
#  - udev, unpacked into the overlay only (installed on the host, it would
#    start there): the unit binds to its interface's device unit, which only
#    udev makes. nspawn's /sys must then be writable
#    (SYSTEMD_NSPAWN_API_VFS_WRITABLE); it is the host kernel's, so the units
#    that would write to it (sysctl, binfmt, udev's trigger) are masked.
#  - cgroup2: the host may have the v1 hierarchies, or none mounted; nspawn
#    runs in a cgroup of its own, CGROUP, under the unified one.
#  - bpf() is in nspawn's default seccomp filter's deny list: allowed here.
#    A private network: the container makes its own veths.
#  - BUILD, read-only at its own path, for the tests' tools (rawflood, the
#    agent run by hand): the lower / has it too, but not if it is under /tmp,
#    on which nspawn mounts a tmpfs of the container's own.
set -euo pipefail

[ $# -eq 5 ] || [ $# -eq 6 ] ||
	{ echo "usage: boot.sh DIR UDEV_DEB SRC BUILD CGROUP [make|none]" >&2; exit 2; }
dir=$1 deb=$2 src=$3 build=$4 cgroup=$5 install=${6:-make}

mount -t tmpfs -o mode=0755 fbf-nspawn "$dir"
mkdir -p "$dir/upper" "$dir/work" "$dir/root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$dir/upper,workdir=$dir/work" "$dir/root"
# Into the bin/ and lib/ symlinks of a merged /usr, not over them.
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir/root" --keep-directory-symlink
[ "$install" = none ] ||
	make -s -C "$src" install DESTDIR="$dir/root" PREFIX=/usr/local OUTPUT="$build" >/dev/null

mkdir -p /run/systemd/nspawn
mount -t tmpfs tmpfs /run/systemd/nspawn
# Where none is mounted (a root whose /sys is new, as make test-fresh's), it is mounted.
if [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ]; then
	! mountpoint -q /sys/fs/cgroup || umount -R /sys/fs/cgroup
	mount -t cgroup2 cgroup2 /sys/fs/cgroup
fi
mkdir -p "/sys/fs/cgroup/$cgroup"
echo $$ >"/sys/fs/cgroup/$cgroup/cgroup.procs"

# basic.target: the system's own services (a database, Prometheus) stay down.
SYSTEMD_NSPAWN_API_VFS_WRITABLE=1 exec systemd-nspawn --quiet --directory="$dir/root" \
	--register=no --keep-unit --private-network --system-call-filter=bpf \
	--bind-ro="$build" --boot -- \
	systemd.unit=basic.target \
	systemd.mask=systemd-sysctl.service systemd.mask=systemd-binfmt.service \
	systemd.mask=proc-sys-fs-binfmt_misc.automount \
	systemd.mask=systemd-udev-trigger.service
