#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The Debian package (make deb): built with no network, lintian clean, what
# it holds and depends on, every relative link of its README and docs
# resolving in it, then its life under a real systemd, in the container of
# tests/e2e/service.bats (testing/nspawn/) with nothing installed: apt
# install, neither unit enabled, an instance counting on a veth, an upgrade
# to a rebuilt package while two instances and the unit for patterns run,
# remove, purge. The container's tests run in order, each on what the one
# before left.

load ../../testing/nspawn/nspawn

bats_require_minimum_version 1.5.0

UNIT=fizzbuzzfib-agent@veth0.service
ALL=fizzbuzzfib-agent.service
# A second instance, running when the upgrade comes, and one enabled but stopped.
UNIT2=fizzbuzzfib-agent@veth2.service
STOPPED=fizzbuzzfib-agent@veth3.service
PKG=fizzbuzzfib-agent

setup_file()
{
	local why

	if ! command -v dh >/dev/null || ! command -v lintian >/dev/null; then
		export FBF_DEB_SKIP="needs debhelper and lintian (make deps)"
		return 0
	fi
	cd "$FBF_ROOT"
	VERSION=$(sed -n 's/^VERSION := //p' Makefile)
	# The same tree as a later version, for the upgrade.
	NEXT=$VERSION+1
	DEB=$FBF_BUILD/deb/${PKG}_${VERSION}_$(dpkg --print-architecture).deb
	DEB_NEXT=$FBF_BUILD/deb/${PKG}_${NEXT}_$(dpkg --print-architecture).deb
	export VERSION NEXT DEB DEB_NEXT
	# No network: the tree holds all the build reads.
	unshare -n make -s deb OUTPUT="$FBF_BUILD" >&3
	unshare -n make -s deb OUTPUT="$FBF_BUILD" VERSION="$NEXT" >&3

	why=$(fbf_box_missing)
	if [ -n "$why" ]; then
		export FBF_BOX_SKIP="$why"
		return 0
	fi
	mkdir -p "$BATS_FILE_TMPDIR/box"
	fbf_box_up "$BATS_FILE_TMPDIR/box" none || { fbf_box_down; return 1; }
	fbf_box_veth_up
	fbf_box_bpffs
	# A machine built as a Docker image may keep Docker's policy-rc.d, which
	# forbids maintainer scripts to start or stop services (deb-systemd-invoke
	# asks it); a host that boots systemd has none. The container's overlay only.
	fbf_box rm -f /usr/sbin/policy-rc.d
}

teardown_file() { fbf_box_down; }

setup()
{
	[ -z "${FBF_DEB_SKIP:-}" ] || skip "$FBF_DEB_SKIP"
	[[ "$BATS_TEST_DESCRIPTION" != "under systemd"* ]] || [ -z "${FBF_BOX_SKIP:-}" ] ||
		skip "$FBF_BOX_SKIP"
}

# apt as an operator runs it, answering no question. The container's
# /var/lib/dpkg lies over the machine's, which the machine's own apt may be
# writing (make deps in another checkout): what it is halfway through reads
# as "dpkg was interrupted" in the container. Wait for it, bounded only to
# stop a hang.
box_apt()
{
	local i

	for i in $(seq 600); do
		[ -n "$(ls -A /var/lib/dpkg/updates)" ] || break
		sleep 0.5
	done
	fbf_box env DEBIAN_FRONTEND=noninteractive apt -y -q "$@"
}

# box_unit_env UNIT LINE...: UNIT reads LINEs (VAR="VALUE") after its
# environment files: a drop-in and a file under /run, which purge leaves alone.
box_unit_env()
{
	local unit=$1 env=/run/fbf-pkg-$1.env

	shift
	printf '%s\n' "$@" | fbf_box tee "$env" >/dev/null
	fbf_box mkdir -p "/run/systemd/system/$unit.d"
	printf '[Service]\nEnvironmentFile=%s\n' "$env" |
		fbf_box tee "/run/systemd/system/$unit.d/env.conf" >/dev/null
}

# build_info VERSION ADDR:PORT: the agent serving metrics at ADDR:PORT is
# VERSION, in skb mode (auto mode takes it on a veth: docs/agent.md).
build_info()
{
	fbf_box_metric 'fizzbuzzfib_build_info{version="'"$1"'",transport="queue",mode="skb"}' "$2"
}

# The files named for the package under /etc, /usr, /var and /run in the
# container (not systemd's own record of a unit under /run/systemd, nor the
# tree under test). The container's root lies over the machine's: what the
# machine has (another checkout's cache, say) is seen there before install.
box_named_files()
{
	fbf_box find /etc /usr /var /run -xdev \( -name 'fizzbuzzfib-agent*' -o -name fizzbuzzfib \) \
		-not -path "$FBF_BUILD/*" -not -path '/run/systemd/*'
}

# Whether program ID exists anywhere on the machine (the container shares the kernel).
prog_exists() { fbf_box bpftool prog show id "$1" >/dev/null 2>&1; }

# The program ids the instances had, for the checks after remove and purge.
remember_id() { echo "$1" >>"$BATS_FILE_TMPDIR/ids"; }

@test "make deb: both versions built with no network; the agent and the README say the version" {
	local dir=$BATS_TEST_TMPDIR/x

	[ "$(dpkg-deb -f "$DEB" Version)" = "$VERSION" ]
	[ "$(dpkg-deb -f "$DEB_NEXT" Version)" = "$NEXT" ]
	dpkg --compare-versions "$NEXT" gt "$VERSION"
	dpkg-deb -x "$DEB" "$dir"
	[ "$("$dir/usr/sbin/fizzbuzzfib-agent" --version)" = "fizzbuzzfib-agent $VERSION" ]
	grep -qF "apt install ./build/deb/$(basename "$DEB")" "$FBF_ROOT/README.md"
}

@test "lintian: no error, no warning" {
	run lintian --fail-on error,warning "$DEB"
	echo "$output"
	[ "$status" -eq 0 ]
	run -1 grep -q '^[EW]: ' <<<"$output"
}

@test "the package: agent, units, manual page, a conffile of commented options, docs; Depends from its libraries" {
	local dir=$BATS_TEST_TMPDIR/x lib owner deps libs opts

	dpkg-deb -R "$DEB" "$dir"
	[ -x "$dir/usr/sbin/fizzbuzzfib-agent" ]
	grep -qx 'ExecStart=/usr/sbin/fizzbuzzfib-agent --iface %i $FIZZBUZZFIB_AGENT_OPTS' \
		"$dir/lib/systemd/system/fizzbuzzfib-agent@.service"
	grep -qxF 'ExecStart=/usr/sbin/fizzbuzzfib-agent --iface "${FIZZBUZZFIB_AGENT_IFACES}" $FIZZBUZZFIB_AGENT_OPTS' \
		"$dir/lib/systemd/system/fizzbuzzfib-agent.service"
	# Its patterns are the operator's to write: examples, commented.
	grep -q '^#FIZZBUZZFIB_AGENT_IFACES="[^"]*,![^"]*"$' "$dir/etc/default/fizzbuzzfib-agent"
	[ -f "$dir/usr/share/man/man8/fizzbuzzfib-agent.8.gz" ]
	[ -f "$dir/usr/share/doc/$PKG/docs/service.md.gz" ]
	[ "$(cat "$dir/DEBIAN/conffiles")" = /etc/default/fizzbuzzfib-agent ]
	# Nothing set, and the default it shows is the unit's.
	run -1 grep -q '^[^#]' "$dir/etc/default/fizzbuzzfib-agent"
	opts=$(sed -n 's/^Environment="FIZZBUZZFIB_AGENT_OPTS=\(.*\)"$/\1/p' \
		"$dir/lib/systemd/system/fizzbuzzfib-agent@.service")
	[ -n "$opts" ]
	grep -qx "#FIZZBUZZFIB_AGENT_OPTS=\"$opts\"" "$dir/etc/default/fizzbuzzfib-agent"
	# Depends: the packages of the libraries the agent links, no more (no build dependency).
	deps=$(dpkg-deb -f "$DEB" Depends | tr ',' '\n' | awk 'NF { print $1 }' | sort -u)
	for lib in $(objdump -p "$dir/usr/sbin/fizzbuzzfib-agent" | awk '$1 == "NEEDED" { print $2 }'); do
		owner=$(dpkg -S "*/$lib" | awk -F: 'NR == 1 { print $1 }')
		libs+="$owner"$'\n'
	done
	echo "Depends: $deps"
	echo "libraries' packages: $libs"
	[ "$deps" = "$(sort -u <<<"${libs%$'\n'}")" ]
}

@test "the packaged README and the docs it ships: every relative link resolves in the package" {
	local dir=$BATS_TEST_TMPDIR/x

	dpkg-deb -x "$DEB" "$dir"
	# A page compressed by dh_compress is found as PAGE.gz, as Debian's
	# readers of /usr/share/doc look for it.
	run python3 - "$dir/usr/share/doc/$PKG" <<-'EOF'
	import gzip, os, re, sys
	root = sys.argv[1]
	broken, readme_links = [], 0
	for base, _, names in os.walk(root):
	    for name in names:
	        if not re.search(r"\.md(\.gz)?$", name):
	            continue
	        path = os.path.join(base, name)
	        text = (gzip.open if name.endswith(".gz") else open)(path, "rt").read()
	        text = re.sub(r"```.*?```", "", text, flags=re.S)
	        text = re.sub(r"`[^`\n]*`", "", text)
	        for target in re.findall(r"\]\(([^)\s]+)\)", text):
	            if re.match(r"[a-z]+:", target) or target.startswith("#"):
	                continue
	            readme_links += name.startswith("README")
	            file = os.path.normpath(os.path.join(base, target.split("#")[0]))
	            inside = os.path.commonpath([root, file]) == root
	            if not inside or not (os.path.exists(file) or os.path.exists(file + ".gz")):
	                broken.append("%s: %s" % (os.path.relpath(path, root), target))
	print("README: %d relative links" % readme_links)
	print("\n".join("not in the package: " + b for b in broken))
	sys.exit(1 if broken or not readme_links else 0)
	EOF
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the package names no host the machine's apt sources do" {
	local dir=$BATS_TEST_TMPDIR/x host hosts

	dpkg-deb -R "$DEB" "$dir"
	hosts=$(apt-get indextargets --format '$(REPO_URI)' | awk -F/ '{ print $3 }' | sort -u)
	[ -n "$hosts" ] || skip "the machine's apt sources name no archive"
	for host in $hosts; do
		! grep -rqF "$host" "$dir" || { echo "$host in the package" >&2; false; }
		# shellcheck disable=SC2046 # the package's own file names, no space in them
		! zgrep -qF "$host" $(find "$dir" -name '*.gz') || { echo "$host in the docs" >&2; false; }
	done
}

@test "under systemd: apt install; neither unit enabled or started; an instance started counts on a veth" {
	local id sent packets

	box_named_files >"$BATS_FILE_TMPDIR/named-before"
	box_apt install "$DEB"
	[ "$(fbf_box dpkg-query -W -f '${Version}' "$PKG")" = "$VERSION" ]
	[ -z "$(fbf_box systemctl list-units --all --plain --no-legend 'fizzbuzzfib-agent*')" ]
	[ "$(fbf_box systemctl is-enabled "$UNIT" || true)" = disabled ]
	[ "$(fbf_box systemctl is-enabled "$ALL" || true)" = disabled ]
	[ "$(fbf_box_prop "$ALL" ActiveState)" = inactive ]
	# Enabled, as an operator would: purge must remove that too. An instance
	# enabled but not started: the upgrade must not start it.
	fbf_box systemctl enable "$ALL" "$STOPPED"
	fbf_box systemctl enable --now "$UNIT"
	[ "$(fbf_box_prop "$UNIT" ActiveState)" = active ]
	id=$(fbf_box_status_id "$UNIT")
	remember_id "$id"
	[ "$(fbf_box_attached_id veth0)" = "$id" ]
	sent=$(fbf_box "$FBF_BUILD/rawflood" veth1 0.2 10.213.0.1 16 10.213.0.254)
	packets=$(fbf_box_metric 'fizzbuzzfib_packets_total{device="veth0"}')
	echo "sent $sent, counted $packets"
	[ "$packets" -gt 0 ]
	[ "$packets" -le "$sent" ]
}

@test "under systemd: upgraded while they run: both instances and the unit for patterns restarted with the new agent, a stopped one left so, the conffile's edit kept" {
	local pid old new edit pid2 old2 new2 pid_all old_all new_all dev

	pid=$(fbf_box_prop "$UNIT" MainPID)
	old=$(fbf_box_status_id "$UNIT")
	# Beside it, running too: another instance, and the unit for patterns on
	# a third veth, each with a metrics address of its own.
	fbf_box ip link add veth2 type veth peer name veth3
	fbf_box ip link add veth4 type veth peer name veth5
	for dev in veth2 veth3 veth4 veth5; do
		fbf_box ip link set "$dev" up
	done
	box_unit_env "$UNIT2" 'FIZZBUZZFIB_AGENT_OPTS="--quiet --metrics 127.0.0.1:9437"'
	box_unit_env "$ALL" 'FIZZBUZZFIB_AGENT_IFACES="veth4"' \
		'FIZZBUZZFIB_AGENT_OPTS="--quiet --metrics 127.0.0.1:9438"'
	fbf_box systemctl daemon-reload
	fbf_box systemctl start "$UNIT2" "$ALL"
	[ "$(fbf_box_prop "$UNIT2" ActiveState)" = active ]
	[ "$(fbf_box_prop "$ALL" ActiveState)" = active ]
	pid2=$(fbf_box_prop "$UNIT2" MainPID)
	pid_all=$(fbf_box_prop "$ALL" MainPID)
	old2=$(fbf_box_attached_id veth2)
	old_all=$(fbf_box_attached_id veth4)
	[ -n "$old2" ]
	[ -n "$old_all" ]
	[ "$(build_info "$VERSION" 127.0.0.1:9438)" = 1 ]
	# Another metrics address: the restarted agent serving there read the edit.
	edit='FIZZBUZZFIB_AGENT_OPTS="--quiet --stats-interval 60 --metrics 127.0.0.1:9436"'
	echo "$edit" | fbf_box tee -a /etc/default/fizzbuzzfib-agent >/dev/null
	box_apt install "$DEB_NEXT"
	[ "$(fbf_box dpkg-query -W -f '${Version}' "$PKG")" = "$NEXT" ]
	[ "$(fbf_box tail -n 1 /etc/default/fizzbuzzfib-agent)" = "$edit" ]
	[ "$(fbf_box_prop "$UNIT" ActiveState)" = active ]
	[ "$(fbf_box_prop "$UNIT" MainPID)" != "$pid" ]
	[ "$(fbf_box_prop "$STOPPED" ActiveState)" = inactive ]
	[ "$(fbf_box systemctl is-enabled "$STOPPED")" = enabled ]
	# The other instance and the unit for patterns: back, as new agents.
	[ "$(fbf_box_prop "$UNIT2" ActiveState)" = active ]
	[ "$(fbf_box_prop "$ALL" ActiveState)" = active ]
	[ "$(fbf_box_prop "$UNIT2" MainPID)" != "$pid2" ]
	[ "$(fbf_box_prop "$ALL" MainPID)" != "$pid_all" ]
	new2=$(fbf_box_attached_id veth2)
	new_all=$(fbf_box_attached_id veth4)
	remember_id "$new2"
	remember_id "$new_all"
	echo "veth2: prog id $old2 before, $new2 after; veth4: $old_all before, $new_all after"
	[ -n "$new2" ]
	[ "$new2" != "$old2" ]
	[ -n "$new_all" ]
	[ "$new_all" != "$old_all" ]
	[ "$(build_info "$NEXT" 127.0.0.1:9437)" = 1 ]
	[ "$(build_info "$NEXT" 127.0.0.1:9438)" = 1 ]
	new=$(fbf_box_status_id "$UNIT")
	remember_id "$new"
	echo "prog id $old before, $new after"
	[ -n "$new" ]
	[ "$new" != "$old" ]
	[ "$(fbf_box_attached_id veth0)" = "$new" ]
	run ! prog_exists "$old"
	[ "$(build_info "$NEXT" 127.0.0.1:9436)" = 1 ]
}

@test "under systemd: removed: the instances and the unit for patterns stopped, nothing attached, the conffile kept" {
	local unit dev

	box_apt remove "$PKG"
	[ "$(fbf_box dpkg-query -W -f '${db:Status-Abbrev}' "$PKG")" = "rc " ]
	for unit in "$UNIT" "$UNIT2" "$ALL"; do
		[ "$(fbf_box_prop "$unit" ActiveState)" = inactive ]
	done
	for dev in veth0 veth2 veth4; do
		[ -z "$(fbf_box_attached_id "$dev")" ]
	done
	run fbf_box ip -details link show veth0
	[[ "$output" != *"prog/xdp"* ]]
	[ -z "$(fbf_box find /run/fizzbuzzfib -name '*.lock')" ]
	fbf_box test ! -e /usr/sbin/fizzbuzzfib-agent
	fbf_box test -f /etc/default/fizzbuzzfib-agent
}

@test "under systemd: purged: no file of the package left, nothing in bpffs, no program" {
	local left id

	box_apt purge "$PKG"
	run fbf_box dpkg-query -W -f '${db:Status-Abbrev}' "$PKG"
	[ "$status" -ne 0 ] || [ "$output" = "un " ]
	# What the package held and its instances made (not systemd's own
	# record of the unit under /run/systemd).
	left=$(box_named_files | grep -vxFf "$BATS_FILE_TMPDIR/named-before" || true)
	echo "left: $left"
	[ -z "$left" ]
	# No pin. Not the kernel's own iterators (bpf_preload), in every bpffs,
	# nor libxdp's directory, xdp/, which it leaves empty for its next user.
	left=$(fbf_box find /sys/fs/bpf -mindepth 1 -not -type d \
		-not -name progs.debug -not -name maps.debug)
	echo "in bpffs: $left"
	[ -z "$left" ]
	while read -r id; do
		run ! prog_exists "$id"
	done <"$BATS_FILE_TMPDIR/ids"
}
