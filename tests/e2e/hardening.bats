#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Quick fault and hardening tests: the interface vanishing under the agent,
# no usable bpffs, the agent with ASan and UBSan and under Valgrind, the
# smallest capability set, and the libFuzzer harnesses. The long runs are in
# `make stress` and `make fuzz` (docs/hardening.md).

load ../../testing/netns
load ../../testing/nats

# Sanitizer reports end the process with a failure, and leaks count.
SANITIZER_ENV=(
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:halt_on_error=1
	UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
)

setup_file() { fbf_bats_setup_file hardening; }
teardown_file() { fbf_bats_teardown_file; }
setup() { fbf_bats_setup; }

teardown()
{
	ip -n "$FBF_NS_SRV" link del fbfgone0 2>/dev/null || true
	fbf_bats_teardown
	fbf_nats_stop_all
}

# Every capability this kernel knows but those named: for capsh --drop.
caps_except()
{
	capsh --print | sed -n 's/^Bounding set =//p' | tr ',' '\n' |
		grep -vxF -f <(tr ',' '\n' <<<"$1") | paste -sd,
}

# run_with_caps CAPS AGENT_ARGS...: the agent as root but with exactly CAPS
# (comma-separated, e.g. cap_net_admin,cap_sys_admin) in every set.
run_with_caps()
{
	local caps=$1

	shift
	run fbf_in_srv capsh --drop="$(caps_except "$caps")" --caps="$caps+eip" -- \
		-c 'grep ^CapEff /proc/self/status >&2; exec "$0" "$@"' "$AGENT" "$@"
}

@test "the interface disappears under the agent: exit 7, one clear line, no crash" {
	local status=0

	ip -n "$FBF_NS_SRV" link add fbfgone0 type veth peer name fbfgone1
	ip -n "$FBF_NS_SRV" link set fbfgone0 up
	fbf_srv_start "$OUT" "$ERR" "$AGENT" --iface fbfgone0 --quiet
	ip -n "$FBF_NS_SRV" link del fbfgone0
	wait "$FBF_AGENT_PID" || status=$?
	FBF_AGENT_PID=
	[ "$status" -eq 7 ]
	grep -Eq "${FBF_LOG}interface fbfgone0 \(ifindex [0-9]+\) disappeared" "$ERR"
	# It still accounts for what it saw.
	grep -Eq "${FBF_LOG}summary produced=" "$ERR"
}

@test "no bpffs and none can be mounted: attaches without the dispatcher and says so" {
	# A private mount namespace: the host's bpffs stays mounted.
	run fbf_in_srv unshare --mount --propagation private sh -c \
		'umount /sys/fs/bpf 2>/dev/null; LIBXDP_BPFFS=/nonexistent exec "$0" --iface "$1" \
		--duration 0.5 --quiet' "$AGENT" "$FBF_VETH_SRV"
	[ "$status" -eq 0 ]
	[[ "$output" == *"no bpffs at /nonexistent and mounting one failed"* ]]
	[[ "$output" == *"without its dispatcher"* ]]
	[[ "$output" == *"no dispatcher"* ]]
	fbf_xdp_detached
}

@test "the agent built with ASan and UBSan, under traffic: no report, exit 0" {
	local agent=$FBF_BUILD/agent status=0

	fbf_is_sanitized "$agent" || agent=$FBF_ROOT/build-sanitize/agent
	fbf_is_sanitized "$agent" || skip "no sanitizer build of the agent: run make SANITIZE=1"
	fbf_srv_start "$OUT" "$ERR" env "${SANITIZER_ENV[@]}" "$agent" --iface "$FBF_VETH_SRV" \
		--duration 3
	fbf_traffic 5
	wait "$FBF_AGENT_PID" || status=$?
	FBF_AGENT_PID=
	[ "$status" -eq 0 ]
	# Not "! grep": bats ignores a negated command's status.
	if grep -E 'Sanitizer|runtime error' "$ERR"; then false; fi
	[ "$(fbf_summary_value "$ERR" delivered)" -gt 0 ]
	[ "$(wc -l <"$OUT")" -eq "$(fbf_summary_value "$ERR" delivered)" ]
}

@test "the same under --aggregate, its map too small, its top lists full: no report, exit 0" {
	local agent=$FBF_BUILD/agent status=0

	fbf_is_sanitized "$agent" || agent=$FBF_ROOT/build-sanitize/agent
	fbf_is_sanitized "$agent" || skip "no sanitizer build of the agent: run make SANITIZE=1"
	fbf_srv_start "$OUT" "$ERR" env "${SANITIZER_ENV[@]}" "$agent" --iface "$FBF_VETH_SRV" \
		--duration 3 --aggregate 0.3 --max-sources 6 --top 2 --json
	fbf_traffic 5
	wait "$FBF_AGENT_PID" || status=$?
	FBF_AGENT_PID=
	[ "$status" -eq 0 ]
	if grep -E 'Sanitizer|runtime error' "$ERR"; then false; fi
	[ "$(fbf_summary_value "$ERR" no_room)" -gt 0 ]
	[ "$(fbf_summary_value "$ERR" aggregated_read)" -eq "$(fbf_summary_value "$ERR" aggregated)" ]
	grep -q '"fibonacci":\[{"saddr":"[0-9.]*","packets":[0-9]*},{' "$OUT"
}

@test "the same with every output: stdout, a file rotated and reopened, NATS; no report" {
	local agent=$FBF_BUILD/agent status=0 port dir=$FBF_WORK/outputs outputs=()

	fbf_is_sanitized "$agent" || agent=$FBF_ROOT/build-sanitize/agent
	fbf_is_sanitized "$agent" || skip "no sanitizer build of the agent: run make SANITIZE=1"
	mkdir -p "$dir"
	# NATS where it can run: the writer threads and nats.c's own under ASan too.
	if [ -z "$(fbf_nats_skip_reason)" ]; then
		fbf_nats_free_port port
		fbf_nats_start single "$dir" "$port"
		outputs=(--output "nats://127.0.0.1:$port/fbf.hardening")
	fi
	fbf_srv_start "$OUT" "$ERR" env "${SANITIZER_ENV[@]}" "$agent" --iface "$FBF_VETH_SRV" \
		--duration 4 --output stdout --output "file:$dir/events.json" \
		--output-rotate-bytes 4096 --output-keep 2 "${outputs[@]}"
	fbf_traffic 3
	kill -HUP "$FBF_AGENT_PID"
	fbf_traffic 2
	wait "$FBF_AGENT_PID" || status=$?
	FBF_AGENT_PID=
	cat "$ERR"
	[ "$status" -eq 0 ]
	if grep -E 'Sanitizer|runtime error' "$ERR"; then false; fi
	[ "$(fbf_summary_value "$ERR" delivered)" -gt 0 ]
	[ "$(fbf_summary_value "$ERR" file_delivered)" -eq "$(fbf_summary_value "$ERR" delivered)" ]
	[ -z "${outputs[*]}" ] ||
		[ "$(fbf_summary_value "$ERR" nats_delivered)" -eq "$(fbf_summary_value "$ERR" delivered)" ]
	[ -e "$dir/events.json.1" ]
}

# valgrind_start ARGS...: the plain agent under Valgrind memcheck with ARGS, attached.
valgrind_start()
{
	local agent=$FBF_BUILD/agent

	command -v valgrind >/dev/null || skip "valgrind is not installed (make deps)"
	# Valgrind cannot run an ASan binary: use the plain build.
	fbf_is_sanitized "$agent" && agent=$FBF_ROOT/build/agent
	[ -x "$agent" ] && ! fbf_is_sanitized "$agent" ||
		skip "no build without sanitizers: run make"
	fbf_srv_start "$OUT" "$ERR" valgrind --error-exitcode=99 --leak-check=full \
		--show-leak-kinds=all --errors-for-leak-kinds=all \
		--suppressions="$FBF_ROOT/tests/e2e/hardening.supp" "$agent" "$@"
}

# valgrind_clean: the agent under Valgrind exited 0, with no error and no leak.
valgrind_clean()
{
	local status=0 kind

	wait "$FBF_AGENT_PID" || status=$?
	FBF_AGENT_PID=
	[ "$status" -eq 0 ]
	grep -q 'ERROR SUMMARY: 0 errors' "$ERR"
	# Every block freed, but glib's own tables (hardening.supp says why).
	grep -q 'All heap blocks were freed -- no leaks are possible' "$ERR" || {
		for kind in 'definitely lost' 'indirectly lost' 'possibly lost' 'still reachable'; do
			grep -q "$kind: 0 bytes in 0 blocks" "$ERR"
		done
	}
	[ "$(fbf_summary_value "$ERR" delivered)" -gt 0 ]
}

@test "the agent under Valgrind memcheck, under traffic: no error, no leak" {
	valgrind_start --iface "$FBF_VETH_SRV" --duration 4
	fbf_traffic 3
	valgrind_clean
}

@test "the same over patterns, interfaces coming and going, metrics scraped: no error, no leak" {
	local n

	valgrind_start --iface "$FBF_VETH_SRV,fbfh*" --duration 8 --metrics 127.0.0.1:19436
	for n in 1 2 3; do
		fbf_in_srv ip link add "fbfh$n" type veth peer name "fbfg$n"
		fbf_in_srv ip link set "fbfh$n" up
	done
	fbf_traffic 3
	fbf_in_srv ip link set fbfh2 down
	fbf_in_srv ip link set fbfh2 name fbfx2
	fbf_in_srv curl -sf http://127.0.0.1:19436/metrics | grep -q '^fizzbuzzfib_iface_packets_total'
	# The probes too: their reads of what the drain publishes, under memcheck.
	fbf_in_srv curl -sf http://127.0.0.1:19436/healthz | grep -q '^ok: '
	fbf_in_srv curl -sf http://127.0.0.1:19436/readyz | grep -q '^ready: '
	fbf_in_srv ip link del fbfh1
	fbf_in_srv ip link del fbfx2
	valgrind_clean
	grep -q 'iface_gone iface=fbfh1 ' "$ERR"
	grep -q 'iface_gone iface=fbfh2 ' "$ERR"
	grep -q 'iface iface=fbfh3 ' "$ERR"
	fbf_in_srv ip link del fbfh3
}

@test "least privilege: runs with exactly CAP_NET_ADMIN and CAP_SYS_ADMIN" {
	command -v capsh >/dev/null || skip "capsh is not installed (libcap2-bin, make deps)"
	run_with_caps cap_net_admin,cap_sys_admin --iface "$FBF_VETH_SRV" --duration 0.5 --quiet
	[ "$status" -eq 0 ]
	# CAP_NET_ADMIN is bit 12, CAP_SYS_ADMIN bit 21, and nothing else.
	[[ "$output" == *"CapEff:	0000000000201000"* ]]
	[[ "$output" == *"attached xdp_fizzbuzzfib"* ]]
	fbf_xdp_detached
}

# What the kernel asks to load and attach XDP: without CAP_SYS_ADMIN the agent
# attaches through a BPF link of its own instead of libxdp.
LINK_CAPS=cap_net_admin,cap_bpf,cap_perfmon

# start_with_caps CAPS AGENT_ARGS...: the agent on the server veth in the
# background, as root but with exactly CAPS, attached.
start_with_caps()
{
	local caps=$1

	shift
	fbf_srv_start "$OUT" "$ERR" capsh --drop="$(caps_except "$caps")" --caps="$caps+eip" \
		-- -c 'exec "$0" "$@"' "$AGENT" --iface "$FBF_VETH_SRV" "$@"
}

@test "least privilege: CAP_BPF, CAP_PERFMON, CAP_NET_ADMIN alone: a link, counted, gone at exit" {
	local id printed

	command -v capsh >/dev/null || skip "capsh is not installed (libcap2-bin, make deps)"
	start_with_caps "$LINK_CAPS"
	# CAP_NET_ADMIN is bit 12, CAP_PERFMON 38, CAP_BPF 39, and nothing else.
	grep -q '^CapEff:	000000c000001000$' "/proc/$FBF_AGENT_PID/status"
	id=$(fbf_agent_prog_id "$ERR")
	[ "$id" -gt 0 ]
	[ "$id" = "$(fbf_attached_prog_id)" ]
	fbf_in_srv bpftool -j link show | grep -Eq "\"prog_id\":${id}[,}]"
	fbf_traffic 2
	fbf_stop_agent TERM
	printed=$(wc -l <"$OUT")
	[ "$printed" -gt 0 ]
	fbf_check_summary "$ERR" "$printed"

	# Killed, it cannot detach: the kernel does, with the link's last descriptor.
	start_with_caps "$LINK_CAPS" --quiet
	kill -KILL "$FBF_AGENT_PID"
	wait "$FBF_AGENT_PID" || true
	FBF_AGENT_PID=
	fbf_xdp_detached
}

# The DaemonSet's way: a pattern, without CAP_SYS_ADMIN. The veths share one program, each
# through a BPF link of its own, and each counts its own frames.
@test "least privilege: the same over a pattern: veths share one program, a link each, counted apart" {
	local id n sent ipv4

	command -v capsh >/dev/null || skip "capsh is not installed (libcap2-bin, make deps)"
	for n in 1 2; do
		fbf_in_srv ip link add "lp$n" type veth peer name "lq$n" netns "$FBF_NS_CLI"
		fbf_in_srv ip link set "lp$n" up
		fbf_in_cli ip link set "lq$n" up
	done
	FBF_START_SAYS='serving every interface' start_with_caps "$LINK_CAPS" --iface 'lp*'
	grep -q '^CapEff:	000000c000001000$' "/proc/$FBF_AGENT_PID/status"
	id=$(grep -Eo 'prog id [0-9]+\) to lp1 ' "$ERR" | grep -Eo '^prog id [0-9]+' | grep -Eo '[0-9]+$')
	[ -n "$id" ]
	grep -q "prog id $id) to lp2 " "$ERR"
	grep -q "prog id $id) to $FBF_VETH_SRV " "$ERR"
	[ "$(fbf_in_srv bpftool -j link show | grep -Eo "\"prog_id\":${id}[,}]" | wc -l)" -eq 3 ]
	for n in 1 2; do
		fbf_in_cli "$FBF_BUILD/rawflood" "lq$n" 5 "10.8$n.0.1" 16 "$FBF_SERVER" $((50 * n)) \
			>/dev/null
	done
	fbf_stop_agent TERM
	for n in 1 2; do
		sent=$((50 * n))
		ipv4=$(grep -Eo "iface iface=lp$n .*" "$ERR" | tail -n 1 | tr ' ' '\n' |
			awk -F= '$1 ~ /^(none|fizz|buzz|fizzbuzz|fibonacci)$/ { s += $2 } END { print s + 0 }')
		[ "$ipv4" -eq "$sent" ]
	done
	[ -z "$(fbf_in_srv bpftool -j link show | grep -Eo "\"prog_id\":${id}[,}]")" ]
}

@test "least privilege: without CAP_SYS_ADMIN, another's program is left alone, said in one line" {
	local id

	command -v capsh >/dev/null || skip "capsh is not installed (libcap2-bin, make deps)"
	fbf_in_srv xdp-loader load "$FBF_VETH_SRV" "$FBF_BUILD/xdp_pass.bpf.o"
	id=$(fbf_attached_prog_id)
	run_with_caps "$LINK_CAPS" --iface "$FBF_VETH_SRV" --duration 0.5
	[ "$status" -eq 4 ]
	[[ "$output" == *"needs capability CAP_SYS_ADMIN, which the agent lacks"* ]]
	[ "$(fbf_attached_prog_id)" = "$id" ]
	fbf_in_srv xdp-loader unload "$FBF_VETH_SRV" --all
}

@test "least privilege before Linux 5.11: a locked-memory limit the maps do not fit is named, exit 4" {
	local release major minor

	release=$(uname -r)
	IFS=. read -r major minor _ <<<"$release"
	[ "$major" -lt 5 ] || { [ "$major" -eq 5 ] && [ "$minor" -lt 11 ]; } ||
		skip "Linux $release charges BPF maps to the memory cgroup, not RLIMIT_MEMLOCK (5.11+)"
	command -v capsh >/dev/null || skip "capsh is not installed (libcap2-bin, make deps)"
	# Soft and hard: under a higher hard limit libbpf raises its own, no capability needed.
	ulimit -l 64
	run_with_caps "$LINK_CAPS" --iface "$FBF_VETH_SRV" --duration 5
	[ "$status" -eq 4 ]
	[[ "$output" == *"before Linux 5.11 BPF maps count against the locked-memory limit, 64 KiB here"* ]]
	[ "$(grep -c ' error ' <<<"$output")" -eq 1 ]
	fbf_xdp_detached
}

# under_seccomp COMMAND...: COMMAND under a seccomp filter that refuses bpf() with EPERM,
# as a container runtime's default profile does where CAP_SYS_ADMIN is not held.
under_seccomp()
{
	python3 - "$(fbf_syscall_nr bpf)" "$@" <<-'EOF'
	import ctypes, os, struct, sys
	libc = ctypes.CDLL(None, use_errno=True)
	libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
	# The system call's number: bpf() returns EPERM; anything else runs.
	insns = [(0x20, 0, 0, 0), (0x15, 0, 1, int(sys.argv[1])),
	         (0x06, 0, 0, 0x00050000 | 1), (0x06, 0, 0, 0x7fff0000)]
	code = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *i) for i in insns))
	prog = ctypes.create_string_buffer(struct.pack("HxxxxxxP", len(insns),
	                                               ctypes.addressof(code)))
	# PR_SET_NO_NEW_PRIVS, then PR_SET_SECCOMP with SECCOMP_MODE_FILTER.
	if libc.prctl(38, 1, 0, 0, 0) or libc.prctl(22, 2, ctypes.addressof(prog), 0, 0):
	    sys.exit("prctl: " + os.strerror(ctypes.get_errno()))
	os.execvp(sys.argv[2], sys.argv[2:])
	EOF
}

@test "least privilege: bpf() refused by seccomp, the capabilities held: seccomp named, exit 4" {
	run fbf_in_srv bash -c "$(declare -f under_seccomp fbf_syscall_nr); under_seccomp $(
		)$AGENT --iface $FBF_VETH_SRV --duration 0.2"
	echo "$output"
	[ "$status" -eq 4 ]
	[ "${#lines[@]}" -eq 1 ]
	# The queue's or, with FBF_TRANSPORT=ringbuf, the ring buffer's: the first bpf() call.
	[[ "$output" == *"cannot create the event "*" for 4096 events: Operation not permitted, $(
		)though the agent holds the capabilities it needs: the seccomp profile it runs under $(
		)refuses bpf()"*"tools/seccomp-bpf.py writes one (docs/deploy.md)" ]]
	fbf_xdp_detached
}

@test "tools/seccomp-bpf.py: --help is help; a profile it cannot read is one line, exit 1" {
	run "$BATS_TEST_DIRNAME/../../tools/seccomp-bpf.py" --help
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: seccomp-bpf.py [-h] [profile]"* ]]
	run "$BATS_TEST_DIRNAME/../../tools/seccomp-bpf.py" "$FBF_WORK/none.json"
	[ "$status" -eq 1 ]
	[ "$output" = "seccomp-bpf.py: cannot read $FBF_WORK/none.json: No such file or $(
		)directory; name a container seccomp profile" ]
	echo '{}' >"$FBF_WORK/empty.json"
	run "$BATS_TEST_DIRNAME/../../tools/seccomp-bpf.py" "$FBF_WORK/empty.json"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"is not a container seccomp profile"* ]]
}

@test "least privilege: one capability fewer exits 4 and names it" {
	local caps missing

	command -v capsh >/dev/null || skip "capsh is not installed (libcap2-bin, make deps)"
	for missing in cap_net_admin cap_bpf cap_perfmon; do
		caps=$(tr ',' '\n' <<<"$LINK_CAPS" | grep -vx "$missing" | paste -sd,)
		run_with_caps "$caps" --iface "$FBF_VETH_SRV" --duration 0.5
		[ "$status" -eq 4 ]
		[[ "$output" == *"missing capability ${missing^^}"* ]]
	done

	run_with_caps cap_sys_admin --iface "$FBF_VETH_SRV" --duration 0.5
	[ "$status" -eq 4 ]
	[[ "$output" == *"missing capability CAP_NET_ADMIN"* ]]
	fbf_xdp_detached
}

@test "libFuzzer harnesses: the seed corpus and a short run find nothing" {
	local fuzzer name corpus

	for fuzzer in "$FBF_BUILD"/fuzz/fuzz_*; do
		[ -x "$fuzzer" ] || skip "harnesses not built: run make fuzzers"
		name=${fuzzer##*/fuzz_}
		corpus=$FBF_WORK/corpus-$name
		mkdir -p "$corpus"
		# Seeds beside the harness: tests/fuzz/corpus/NAME or tools/*/corpus/NAME.
		cp "$("$FBF_ROOT/testing/fuzz-seeds" "$name")"/* "$corpus"/
		run env "${SANITIZER_ENV[@]}" "$fuzzer" -max_total_time=2 \
			-artifact_prefix="$FBF_WORK/$name-" "$corpus"
		[ "$status" -eq 0 ] || { echo "$output" | tail -n 30; false; }
		[[ "$output" == *"Done "*" runs in "* ]]
	done
}
