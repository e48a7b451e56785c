#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# testing/vm/vm-run on a kernel of the matrix: a guest that dies before it reports is
# said with the end of its console, which is kept, and booted once more; with no boot
# left, its death is status 125. TCG has crashed 6.12 guests on the kernel's own code
# patching (docs/kernels.md); a crash is planted here with sysrq.

setup()
{
	root=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$root"
	kdir=${FBF_KERNELS:-$root/build/kernels}/${FBF_VM_KERNEL:-debian12}
	[ -d "$kdir/boot" ] || skip "no kernel in $kdir: run 'make kernels'"
	# Inside the tree, which the guest writes.
	out=${FBF_BUILD:-$root/build}/results/vm-run
	mkdir -p "$out"
	marker=$out/died-once
	rm -f "$marker"
	# The first boot leaves a mark and crashes; a boot that finds the mark exits 7.
	crash_once="[ -e '$marker' ] && exit 7; touch '$marker'; echo c >/proc/sysrq-trigger"
}

@test "a guest that dies before it reports is booted once more, its console said and kept" {
	run testing/vm/vm-run "$kdir" "$out" sh -c "$crash_once"
	echo "$output"
	[ "$status" -eq 7 ]
	[[ "$output" == *"died before it reported (qemu exited 0); its console from the crash, then boot 2 of 2:"* ]]
	[[ "$output" == *"    | "*"sysrq triggered crash"* ]]
	grep -q "sysrq triggered crash" "$out/console-died.log"
	run grep -c "sysrq triggered crash" "$out/console.log"
	[ "$output" = 0 ]
}

@test "with VM_BOOTS=1 a guest's death is status 125, its console named" {
	run env VM_BOOTS=1 testing/vm/vm-run "$kdir" "$out" sh -c "$crash_once"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "$output" == *"reported no result (qemu exited 0); see $out/console.log"* ]]
	[[ "$output" != *"boot 2"* ]]
	grep -q "sysrq triggered crash" "$out/console.log"
}

@test "VM_BOOTS that is not a count is one line, status 2" {
	run env VM_BOOTS=0 testing/vm/vm-run "$kdir" "$out" true
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "vm-run: VM_BOOTS is '0'; give a count of boots, 1 or more" ]]
}
