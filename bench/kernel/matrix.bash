# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The programs' static figures on the kernels of the matrix, shared by the
# regression gate (bench/gate/gate.sh) and the cost tool (bench/cost/cost.sh):
# each kernel booted once under QEMU (testing/vm/vm-run), where a command of
# the caller's loads the programs and writes their verified and translated
# instructions and JIT bytes; bench/gate/gate.py judges each kernel's file as
# on:KERNEL=FILE. Timing means nothing under emulation, so none is taken there.
#
# A kernel is a name under FBF_KERNELS (default build/kernels, where make
# kernels fetches them), or a directory with boot/vmlinuz-RELEASE and
# lib/modules/RELEASE, as tests/run-kernels takes them.

# matrix_dir TOOL KERNEL: where KERNEL is unpacked; or one line on what to do, status 1.
matrix_dir()
{
	local kernels_dir=${FBF_KERNELS:-$(pwd)/build/kernels}

	if [ -d "$kernels_dir/$2/boot" ]; then
		echo "$kernels_dir/$2"
	elif [ -d "$2/boot" ]; then
		(cd "$2" && pwd)
	else
		echo "$1: kernel '$2' is not in $kernels_dir: fetch it with 'make kernels" \
		     "KERNELS=$2', or leave the matrix out with KERNELS=" >&2
		return 1
	fi
}

# matrix_measure TOOL OUT_ROOT "KERNEL..." "ENV_NAMES" COMMAND...: boot each kernel once
# and run COMMAND FILE there, which writes the figures into FILE (through matrix_figures),
# OUT_ROOT/NAME/figures.tsv; ENV_NAMES are variables the guest gets. TOOL names the caller
# in its lines. Sets matrix_args, gate.py's on:NAME=FILE arguments. A kernel that gives no
# figures is told, with the end of its output, and left to gate.py to fail, named.
matrix_measure()
{
	local tool=$1 root=$2 kernels=$3 env_names=$4 kernel dir name out start

	shift 4
	matrix_args=()
	for kernel in $kernels; do
		dir=$(matrix_dir "$tool" "$kernel") || return
		name=$(basename "$kernel")
		out=$root/$name
		mkdir -p "$out"
		rm -f "$out/figures.tsv"
		start=$SECONDS
		VM_ENV="$env_names" VM_TIMEOUT=${FBF_MATRIX_VM_TIMEOUT:-1200} \
			testing/vm/vm-run "$dir" "$out" "$@" "$out/figures.tsv" ||
			{ echo "$tool: $name gave no figures; the end of $out/output.log:"
			  tail -n 5 "$out/output.log" 2>/dev/null | sed 's/^/    /'; }
		echo "$tool: $name booted and measured in $((SECONDS - start)) s"
		matrix_args+=("on:$name=$out/figures.tsv")
	done
}

# matrix_figures FILE COMMAND...: in a guest, a line naming this kernel, then COMMAND's
# figures, into FILE only if COMMAND succeeded.
matrix_figures()
{
	local file=${1:?matrix_figures FILE COMMAND...}

	shift
	{
		echo "# kernel $(uname -r)"
		"$@"
	} >"$file.part" && mv "$file.part" "$file"
}
