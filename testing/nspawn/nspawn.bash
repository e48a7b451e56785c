# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A container booted from this machine's root with systemd as PID 1 and the
# agent installed (boot.sh), sourced by tests/e2e/service.bats. In it the
# agent runs as its unit runs on a real system: started, watched and
# restarted by systemd, logging to the journal.

FBF_ROOT=${FBF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
FBF_BUILD=${FBF_BUILD:-$FBF_ROOT/build}

# Why the container cannot boot here, or nothing if it can.
fbf_box_missing()
{
	[ "$(id -u)" -eq 0 ] || { echo "needs root"; return; }
	command -v systemd-nspawn >/dev/null ||
		{ echo "needs systemd-nspawn (Debian package systemd-container; make deps)"; return; }
	compgen -G "$FBF_BUILD/debs/udev_*.deb" >/dev/null ||
		{ echo "needs udev's package in $FBF_BUILD/debs (make deps downloads it)"; return; }
	findmnt -n -t cgroup2 >/dev/null || grep -qw cgroup2 /proc/filesystems ||
		{ echo "needs cgroup2"; return; }
}

# fbf_box_up DIR [none]: boot the container over DIR, an empty directory,
# with the agent installed by make install, or with none: nothing installed;
# sets FBF_BOX_NSPAWN (nspawn's pid) and FBF_BOX_PID (its systemd's, on the
# host).
fbf_box_up()
{
	local dir=$1 install=${2:-make} i

	FBF_BOX_CGROUP=fbf-nspawn-$$
	unshare -m --propagation private "$FBF_ROOT/testing/nspawn/boot.sh" "$dir" \
		"$(ls "$FBF_BUILD"/debs/udev_*.deb | tail -n 1)" "$FBF_ROOT" "$FBF_BUILD" \
		"$FBF_BOX_CGROUP" "$install" </dev/null >"$dir.log" 2>&1 3>&- &
	FBF_BOX_NSPAWN=$!
	FBF_BOX_PID=
	# For fbf_box_down, from bats' teardown_file too.
	export FBF_BOX_NSPAWN FBF_BOX_PID FBF_BOX_CGROUP
	# Bounded only to stop a hang: it boots in about a second.
	for i in $(seq 600); do
		FBF_BOX_PID=$(pgrep -P "$FBF_BOX_NSPAWN" -x systemd) && export FBF_BOX_PID && break
		kill -0 "$FBF_BOX_NSPAWN" 2>/dev/null || break
		sleep 0.1
	done
	# Its bus comes up a moment after PID 1; then it answers once booted.
	for i in $(seq 600); do
		[ -n "$FBF_BOX_PID" ] || break
		timeout 60 nsenter -t "$FBF_BOX_PID" -a systemctl is-system-running --wait \
			>/dev/null 2>&1 && break
		kill -0 "$FBF_BOX_NSPAWN" 2>/dev/null || break
		sleep 0.1
	done
	if ! kill -0 "$FBF_BOX_NSPAWN" 2>/dev/null || [ "$i" -eq 600 ] || [ -z "$FBF_BOX_PID" ]; then
		echo "the container did not boot:" >&2
		tail -n 20 "$dir.log" >&2
		# What failed on the way, which the last lines may not show.
		grep -F 'FAILED' "$dir.log" >&2 || true
		[ -z "$FBF_BOX_PID" ] ||
			timeout 10 nsenter -t "$FBF_BOX_PID" -a systemctl --failed --no-pager >&2 || true
		return 1
	fi
	# PID 1 started before udevd, so it does not listen to udev yet.
	fbf_box systemctl daemon-reexec
}

# Run a command in the container: all its namespaces, not its seccomp
# filter (so bpf() runs in its units, as on a host).
fbf_box() { nsenter -t "$FBF_BOX_PID" -a "$@"; }

# The pair veth0 (the agent's) and veth1 in the container, up, without IPv6
# so that nothing but the test's frames reach it.
fbf_box_veth_up()
{
	fbf_box ip link add veth0 type veth peer name veth1
	fbf_box sysctl -qw net.ipv6.conf.veth0.disable_ipv6=1 net.ipv6.conf.veth1.disable_ipv6=1
	fbf_box ip link set veth0 up
	fbf_box ip link set veth1 up
}

# What systemd mounts on a host and PID 1 in a container does not: libxdp's
# dispatcher needs bpffs. A bpffs of the container's own, empty at first.
fbf_box_bpffs()
{
	fbf_box mkdir -p /sys/fs/bpf
	fbf_box mount -t bpf bpf /sys/fs/bpf
}

# The id of xdp_fizzbuzzfib on IFACE now, in libxdp's dispatcher or not; nothing if none.
fbf_box_attached_id()
{
	fbf_box xdp-loader status "$1" | awk '/ xdp_fizzbuzzfib / {
		for (i = 1; i < NF; i++)	# the id is what the 16-digit tag follows
			if ($i ~ /^[0-9]+$/ && $(i + 1) ~ /^[0-9a-f]+$/ && length($(i + 1)) == 16)
				print $i
	}'
}

# The prog id in UNIT's status (READY=1's STATUS=).
fbf_box_status_id() { fbf_box_prop "$1" StatusText | grep -Eo 'prog id [0-9]+' | grep -Eo '[0-9]+$'; }

# A metric's value from the agent's endpoint: fbf_box_metric NAME [ADDR:PORT].
fbf_box_metric()
{
	fbf_box curl -sf "http://${2:-127.0.0.1:9435}/metrics" | awk -v m="$1" '$1 == m { print $2 }'
}

# A property of a unit in the container, e.g. fbf_box_prop UNIT NRestarts.
fbf_box_prop() { fbf_box systemctl show -P "$2" "$1"; }

# Wait until a unit's property has a value: fbf_box_wait UNIT PROPERTY VALUE.
# Bounded only to stop a hang.
fbf_box_wait()
{
	local i

	for i in $(seq 300); do
		[ "$(fbf_box_prop "$1" "$2")" = "$3" ] && return 0
		sleep 0.1
	done
	echo "$1: $2 is '$(fbf_box_prop "$1" "$2")', not '$3'" >&2
	return 1
}

# Power the container off and remove what it left in the host's cgroup tree:
# everything in its cgroup is killed, should nspawn have gone first.
fbf_box_down()
{
	local i root cg

	[ -n "${FBF_BOX_NSPAWN:-}" ] || return 0
	[ -n "${FBF_BOX_PID:-}" ] && fbf_box systemctl poweroff --no-block 2>/dev/null
	for i in $(seq 200); do
		kill -0 "$FBF_BOX_NSPAWN" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$FBF_BOX_NSPAWN" 2>/dev/null || true
	root=$(findmnt -n -t cgroup2 -o TARGET | head -n 1)
	cg=$root/$FBF_BOX_CGROUP
	if [ -n "$root" ] && [ -d "$cg" ]; then
		# shellcheck disable=SC2038 # xargs reads process ids, not file names
		echo 1 >"$cg/cgroup.kill" 2>/dev/null ||
			find "$cg" -name cgroup.procs -exec cat {} + | xargs -r kill -KILL
		for i in $(seq 50); do
			find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null && break
			sleep 0.1
		done
	fi
	FBF_BOX_NSPAWN=
	return 0
}
