# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What the gate's suites share: gate.bats on this kernel, gate_kernels.bats on
# the kernel matrix.

load ../../testing/netns

gate_setup()
{
	# The counts compared are of the optimised build, not of sanitizer code.
	! fbf_is_sanitized "$FBF_BUILD/agent" ||
		skip "the gate measures the build without sanitizers"
	cd "$FBF_ROOT"
	# A history of its own: test runs must not show up in the user's trend.
	export FBF_HISTORY=$BATS_TEST_TMPDIR/history.tsv
}

require_root() { [ "$(id -u)" -eq 0 ] || skip "needs root: the gate loads XDP programs"; }

require_base()
{
	local base

	base=$(python3 -c 'import json; print(json.load(open("bench/gate/baseline.json"))["base"])')
	git rev-parse --verify --quiet "$base^{commit}" >/dev/null ||
		skip "the base $base is not in this clone (shallow?): git fetch --unshallow"
}

# build_canary CANARY: the planted regression's build (make CANARY=...), as the gate needs it,
# into $canary.
build_canary()
{
	local dir=build-canary t

	[ "$1" = 1 ] || dir=build-canary-$1
	# shellcheck disable=SC2046 # one word per target
	make -s CANARY="$1" $(for t in agent fizzbuzzfib.bpf.o fizzbuzzfib_ringbuf.bpf.o \
		bench/micro_count bench/cost_run testing/drain_rate; do echo "$dir/$t"; done) \
		>/dev/null
	canary=$FBF_ROOT/$dir
}

# gate_on BUILD [COMMAND]: gate.sh COMMAND (check by default) with BUILD as the candidate.
gate_on() { run env FBF_BUILD="$1" bench/gate/gate.sh "${2:-check}"; echo "$output"; }
