#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# bench/cost/chain/chain_kernels.sh [KERNEL...]: what a tail call and libxdp's
# dispatcher cost, on the host and in a guest of each KERNEL (names under
# FBF_KERNELS, default build/kernels, or directories; default FBF_COST_KERNELS),
# each booted once under QEMU (bench/kernel/matrix.bash), side by side in one
# Markdown table (chain_kernels.py). cost_run tailcall: chains of 1, 2, 8 and
# 32 tail calls between bare XDP programs, less the bare program, per call;
# cost_run dispatcher: a program (OBJ, PROG; default build/xdp_pass.bpf.o) in
# libxdp's dispatcher with 1, 2, 5 and 10 programs, the others bare XDP_PASS
# programs, against the program alone; with SLOTS (OBJECT[:PROG] words, up to 9:
# your own programs, or xdp-tools' filters that Debian ships), the dispatcher
# holding the program and them too, in the order it runs them, and each one's
# share: what its slot adds over a bare program. Where the dispatcher does not load (the
# host's 6.18) that column says so, and its one line goes to stderr. A guest
# under TCG emulates its CPU: its ns compare only with its own, hence the
# multiples of its bare program. Exit 0, or 11 where a kernel gave no figures.
#   FBF_COST_ROUNDS (default 20), FBF_COST_REPEAT (runs a round, default 100000)
#   OBJ, PROG: the program in the dispatcher; SLOTS: the programs beside it;
#   FBF_BUILD: the build (default build)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$here/../../.." && pwd)
build=${FBF_BUILD:-$tree/build}
rounds=${FBF_COST_ROUNDS:-20}
repeat=${FBF_COST_REPEAT:-100000}
obj=${OBJ:-$build/xdp_pass.bpf.o}
exit_kernel=11
# shellcheck source=bench/kernel/matrix.bash
. "$here/../../kernel/matrix.bash"

# figures FILE: this kernel's rows into FILE; the dispatcher's refusal as a row, since it
# is a figure of the kernel too.
figures()
{
	local run=$build/bench/cost_run status=0

	"$run" tailcall -r "$rounds" -n "$repeat"
	# shellcheck disable=SC2086 # SLOTS: one word a program
	"$run" dispatcher -r "$rounds" -n "$repeat" ${PROG:+-p "$PROG"} "$obj" \
		"$build/xdp_pass.bpf.o" ${SLOTS:-} || status=$?
	[ "$status" -eq 0 ] || echo -e "no-dispatcher\t$status"
	[ "$status" -eq 0 ] || [ "$status" -eq 55 ]
}

if [ "${1:-}" = --guest ]; then
	matrix_figures "$2" figures
	exit
fi

kernels=${*:-${FBF_COST_KERNELS:-}}
root=$build/results/chain-kernels
mkdir -p "$root/host"
matrix_figures "$root/host/figures.tsv" figures
files=("host=$root/host/figures.tsv")
if [ -n "$kernels" ]; then
	export FBF_KERNELS=${FBF_KERNELS:-$tree/build/kernels}
	(cd "$tree" && FBF_BUILD=$build FBF_COST_ROUNDS=$rounds FBF_COST_REPEAT=$repeat \
		matrix_measure chain_kernels "$root" "$kernels" \
		"FBF_BUILD FBF_COST_ROUNDS FBF_COST_REPEAT OBJ PROG SLOTS" \
		bench/cost/chain/chain_kernels.sh --guest) >&2 || exit $exit_kernel
	for kernel in $kernels; do
		files+=("$(basename "$kernel")=$root/$(basename "$kernel")/figures.tsv")
	done
fi
"$here/chain_kernels.py" "${files[@]}" || exit $exit_kernel
