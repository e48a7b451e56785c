#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The agent's OCI image (make image, tools/build-image.sh): built with no
# network, reproducible, small and holding only what the agent loads; then
# run under Debian's podman as a DaemonSet runs it: the lab's server
# namespace as its host network, bpffs and the lock directory from the host,
# every capability dropped but the least set, a read-only root with a tmpfs
# on /run. podman here needs Debian's runc and limits under the current ones
# (docs/deploy.md); a store of its own under the suite's directory leaves
# the host's containers alone.

load ../../testing/netns

bats_require_minimum_version 1.5.0

PKG=fizzbuzzfib-agent
METRICS=127.0.0.1:19436
# The capabilities the agent needs on this kernel (docs/deploy.md, docs/hardening.md).
CAPS=NET_ADMIN,BPF,PERFMON

setup_file()
{
	local tool

	for tool in buildah podman runc dh; do
		command -v "$tool" >/dev/null || {
			export FBF_IMAGE_SKIP="needs $tool (make deps-test)"
			return 0
		}
	done
	fbf_bats_setup_file image
	cd "$FBF_ROOT"
	VERSION=$(sed -n 's/^VERSION := //p' Makefile)
	IMAGE=$FBF_WORK/image/$PKG-$VERSION.oci.tar
	export VERSION IMAGE
	# No network: the package and the libraries installed here are all it reads.
	unshare -n make -s deb OUTPUT="$FBF_BUILD" >&3
	unshare -n tools/build-image.sh "$FBF_BUILD/deb/${PKG}_${VERSION}_$(
		)$(dpkg --print-architecture).deb" "$FBF_WORK/image" "$VERSION" >"$FBF_WORK/build.log"
	pman load -q -i "$IMAGE" >&3
	# Debian 12's profile allows bpf() only under CAP_SYS_ADMIN (docs/deploy.md).
	tools/seccomp-bpf.py >"$FBF_WORK/seccomp.json"
}

teardown_file()
{
	[ -z "${FBF_WORK:-}" ] || pman rm -af >/dev/null 2>&1 || true
	[ -z "${FBF_WORK:-}" ] || pman rmi -af >/dev/null 2>&1 || true
	fbf_bats_teardown_file
}

setup()
{
	[ -z "${FBF_IMAGE_SKIP:-}" ] || skip "$FBF_IMAGE_SKIP"
	fbf_bats_setup
	mkdir -p "$FBF_WORK/locks"
}

teardown()
{
	local name

	for name in agent agent2; do
		pman rm -f -t 0 "$name" >/dev/null 2>&1 || true
	done
	pman pod rm -f -t 0 fizzbuzzfib-agent >/dev/null 2>&1 || true
	fbf_bats_teardown
}

# podman with the suite's own store, and the runtime and limits this machine allows.
pman()
{
	podman --root "$FBF_WORK/storage" --runroot "$FBF_WORK/run" --storage-driver vfs \
		--runtime runc "$@"
}

# run_agent NAME [PODMAN ARGS...] -- [AGENT ARGS...]: the image, as a DaemonSet runs it.
run_agent()
{
	local name=$1 opts=()

	shift
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	pman run -d --name "$name" --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
		--network "ns:/run/netns/$FBF_NS_SRV" -v /sys/fs/bpf:/sys/fs/bpf \
		-v "$FBF_WORK/locks:/run/fizzbuzzfib" --read-only --tmpfs /run \
		--security-opt "seccomp=$FBF_WORK/seccomp.json" --cap-drop ALL "${opts[@]}" \
		"localhost/$PKG:$VERSION" "$@" >/dev/null
}

# logs NAME: what the container wrote, its events in $OUT and its log in $ERR.
logs() { pman logs "$1" >"$OUT" 2>"$ERR"; }

attached() { logs "$1" && grep -q "attached xdp_fizzbuzzfib" "$ERR"; }

# Every event's class is the reference classifier's for its source.
check_classes()
{
	local addr class want
	local -A class_of

	while read -r addr class _; do
		[ -n "${class_of[$addr]:-}" ] || class_of[$addr]=$(fbf_expected_class "$addr")
		want=${class_of[$addr]}
		[ "$class" = "$want" ] || { echo "$addr: $class, not $want" >&2; return 1; }
	done <"$1"
}

@test "the image: under 40 MB, the agent its entrypoint, only what it loads; two builds one digest" {
	local config layer size files

	cat "$FBF_WORK/build.log"
	size=$(stat -c %s "$IMAGE")
	[ "$size" -lt $((40 * 1024 * 1024)) ]
	# Unpacked too: every file the agent, a library, the dispatcher or a copyright.
	config=$(pman image inspect --format '{{json .Config.Entrypoint}} {{.Labels}}' \
		"localhost/$PKG:$VERSION")
	echo "$config"
	[[ "$config" == "[\"/usr/sbin/$PKG\"] "*"org.opencontainers.image.version:$VERSION"* ]]
	layer=$(awk '/ files:$/ { on = 1; next } on { print $2 }' "$FBF_WORK/build.log")
	files=$(wc -l <<<"$layer")
	[ "$files" -gt 10 ]
	run grep -Ev "^(/usr/sbin/$PKG|(/usr)?/lib(64)?/(x86_64-linux-gnu/)?[^/]+\\.so[.0-9]*|$(
		)/usr/lib/x86_64-linux-gnu/bpf/xdp-dispatcher\\.o|/usr/share/doc/[^/]+/$(
		)(copyright|packages))$" <<<"$layer"
	echo "unexpected: $output"
	[ -z "$output" ]
	[ "$(awk '/unpacked/ { print $5 }' "$FBF_WORK/build.log")" -lt $((40 * 1000 * 1000)) ]
	# The same commit again, elsewhere: the same bytes.
	unshare -n tools/build-image.sh "$FBF_BUILD/deb/${PKG}_${VERSION}_$(
		)$(dpkg --print-architecture).deb" "$FBF_WORK/image2" "$VERSION" >/dev/null
	sha256sum "$IMAGE" "$FBF_WORK/image2/$PKG-$VERSION.oci.tar"
	[ "$(sha256sum <"$IMAGE")" = "$(sha256sum <"$FBF_WORK/image2/$PKG-$VERSION.oci.tar")" ]
}

@test "podman, cap-drop ALL + $CAPS, read-only: every class exact, metrics from the host, stop detaches" {
	local start attached_at

	start=$(date +%s.%N)
	run_agent agent --cap-add "$CAPS" -- --iface "$FBF_VETH_SRV" --metrics "$METRICS"
	fbf_wait_for 30 attached agent
	attached_at=$(date +%s.%N)
	echo "podman run to attached: $(awk -v a="$start" -v b="$attached_at" \
		'BEGIN { printf "%.2f", b - a }') s"
	fbf_xdp_attached
	fbf_traffic 3
	fbf_wait_for 10 fbf_in_srv curl -sfS -o /dev/null "http://$METRICS/readyz"
	[ "$(fbf_in_srv curl -sS "http://$METRICS/healthz" | cut -d: -f1)" = ok ]
	fbf_in_srv curl -sS "http://$METRICS/metrics" | grep -q "^fizzbuzzfib_classified_total{"
	pman stop -t 30 agent >/dev/null
	[ "$(pman inspect --format '{{.State.ExitCode}}' agent)" -eq 0 ]
	run fbf_xdp_attached
	[ "$status" -ne 0 ]
	logs agent
	[ "$(wc -l <"$OUT")" -gt 0 ]
	check_classes "$OUT"
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
	ls -la "$FBF_WORK/locks"
	# Its lock file, on the host's /run/fizzbuzzfib, gone with it.
	[ -z "$(ls -A "$FBF_WORK/locks")" ]
}

@test "SIGKILLed, the container's program goes with its link; the next container counts" {
	run_agent agent --cap-add "$CAPS" -- --iface "$FBF_VETH_SRV" --quiet
	fbf_wait_for 30 attached agent
	fbf_xdp_attached
	pman kill -s KILL agent >/dev/null
	pman wait agent >/dev/null || true
	# The agent had no chance to detach: the kernel did, with the link's last descriptor.
	run fbf_xdp_attached
	[ "$status" -ne 0 ]
	run_agent agent2 --cap-add "$CAPS" -- --iface "$FBF_VETH_SRV"
	fbf_wait_for 30 attached agent2
	fbf_traffic 1
	pman stop -t 30 agent2 >/dev/null
	run fbf_xdp_attached
	[ "$status" -ne 0 ]
	logs agent2
	check_classes "$OUT"
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
}

@test "the least capabilities: without each of $CAPS the agent exits 4 naming it" {
	local drop rest

	for drop in ${CAPS//,/ }; do
		rest=$(tr , '\n' <<<"$CAPS" | grep -vx "$drop" | paste -sd,)
		run_agent agent --cap-add "$rest" -- --iface "$FBF_VETH_SRV"
		[ "$(pman wait agent)" -eq 4 ]
		logs agent
		cat "$ERR"
		grep -q "missing capability CAP_$drop .*; run as root (sudo), or in a container $(
			)add it (--cap-add, securityContext)$" "$ERR"
		[ "$(grep -c . "$ERR")" -eq 1 ]
		run fbf_xdp_attached
		[ "$status" -ne 0 ]
		pman rm agent >/dev/null
	done
}

@test "deploy/kubernetes: the DaemonSet's pod template played by podman kube play counts exactly" {
	local ds=deploy/kubernetes/fizzbuzzfib-agent.yaml ctr=fizzbuzzfib-agent-agent what

	# The manifest names the image make image builds.
	grep -q "image: localhost/$PKG:$VERSION\$" "$ds"
	# As docs/deploy.md plays it, on the lab's interface and the suite's lock
	# directory, with events on stdout to check.
	tools/daemonset-pod.py "$ds" --iface "$FBF_VETH_SRV*" --lock-dir "$FBF_WORK/locks" \
		--events >"$FBF_WORK/pod.yaml"
	printf '[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]\n' \
		>"$FBF_WORK/containers.conf"
	# Its host network: the lab's server namespace. podman runs the probes
	# through systemd, which says it cannot here: this test asks them itself.
	CONTAINERS_CONF=$FBF_WORK/containers.conf nsenter --net="/run/netns/$FBF_NS_SRV" \
		podman --root "$FBF_WORK/storage" --runroot "$FBF_WORK/run" --storage-driver vfs \
		--runtime runc kube play --seccomp-profile-root "$FBF_WORK" "$FBF_WORK/pod.yaml" >/dev/null 2>"$FBF_WORK/play.log"
	fbf_wait_for 30 attached "$ctr"
	what='{{.EffectiveCaps}} {{.HostConfig.ReadonlyRootfs}} {{.HostConfig.Privileged}}'
	[ "$(pman inspect --format "$what" "$ctr")" = "[CAP_BPF CAP_NET_ADMIN CAP_PERFMON] true false" ]
	fbf_traffic 3
	# What the kubelet's probes would ask.
	fbf_wait_for 10 fbf_in_srv curl -sfS -o /dev/null "http://127.0.0.1:9435/readyz"
	fbf_in_srv curl -sfS -o /dev/null "http://127.0.0.1:9435/healthz"
	pman pod stop -t 30 fizzbuzzfib-agent >/dev/null
	[ "$(pman inspect --format '{{.State.ExitCode}}' "$ctr")" -eq 0 ]
	run fbf_xdp_attached
	[ "$status" -ne 0 ]
	logs "$ctr"
	[ "$(wc -l <"$OUT")" -gt 0 ]
	check_classes "$OUT"
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
	pman pod rm -f fizzbuzzfib-agent >/dev/null
}
