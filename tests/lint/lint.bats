#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The lint itself (tests/lint/lint.mk): an assertion that cannot fail, planted
# in a bats file or a script of a temporary directory, is caught, each way
# errexit lets one pass; the same file written right passes; and the layout
# check names a source file that docs/design.md leaves out; a merge conflict
# left in a file is caught; a C line past 100 columns, tabs counted to their
# stops, is caught, but not under testing/third_party/; a command that no package brings fails make test's run,
# named with its test; and the tree itself passes make lint.

bats_require_minimum_version 1.5.0

ROOT=$BATS_TEST_DIRNAME/../..

setup()
{
	command -v shellcheck >/dev/null ||
		skip "shellcheck is not installed (apt install shellcheck)"
}

# plant NAME LINE...: a bats file of one test of these lines, and the lint's verdict on it.
plant()
{
	local file=$BATS_TEST_TMPDIR/$1

	{
		printf '#!/usr/bin/env bats\n\n@test "planted" {\n'
		printf '\t%s\n' "${@:2}"
		printf '}\n'
	} >"$file"
	run "$ROOT/tests/lint/shell.sh" "$file"
	echo "$output"
}

@test "a ! mid-test is caught (SC2314)" {
	plant mid.bats '! false' true
	[ "$status" -eq 1 ]
	[[ "$output" == *"mid.bats:4:"*"SC2314"* ]]
}

@test "a ! in a loop, which ShellCheck misses, is caught" {
	plant loop.bats 'for i in 1 2; do' '	! false' 'done'
	[ "$status" -eq 1 ]
	[[ "$output" == *"loop.bats:5: a negated command"* ]]
}

@test "[ A ] && [ B ] mid-test is caught" {
	plant and.bats '[ -e / ] && [ -e /none ]' true
	[ "$status" -eq 1 ]
	[[ "$output" == *"and.bats:4: A && B asserts nothing"* ]]
}

@test "a bare ! in a script is caught (SC2251), and cannot be disabled" {
	local file=$BATS_TEST_TMPDIR/planted.sh

	printf '#!/bin/bash\nset -e\n! false\necho done\n' >"$file"
	run "$ROOT/tests/lint/shell.sh" "$file"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"planted.sh:3:"*"SC2251"* ]]
	printf '#!/bin/bash\nset -e\n# shellcheck disable=SC2251\n! false\necho done\n' >"$file"
	run "$ROOT/tests/lint/shell.sh" "$file"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"fix it, do not disable it"* ]]
}

@test "the same checks written to fail pass the lint" {
	plant clean.bats 'run ! false' 'for i in 1 2; do' '	run -1 false' 'done' \
		'[ -e / ]' '[ -d / ]' '[[ -e / && -d / ]]' true
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "the layout check names a source file or folder docs/design.md leaves out" {
	local tree=$BATS_TEST_TMPDIR/tree

	mkdir -p "$tree/docs" "$tree/agent/sinks" "$tree/bench/cost"
	printf '# Design\n\n## The layout\n\n```\n%s\n```\n\n## Next\n' \
		$'agent/ main\n  sinks/ sink\nbench/' >"$tree/docs/design.md"
	touch "$tree/agent/main.c" "$tree/agent/sinks/sink.c" "$tree/agent/sinks/sink.h"
	git -C "$tree" init -q
	git -C "$tree" add .
	run "$ROOT/tests/lint/design_layout.py" "$tree"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	touch "$tree/agent/sinks/sink_planted.c" "$tree/bench/cost/cost.sh"
	git -C "$tree" add .
	run "$ROOT/tests/lint/design_layout.py" "$tree"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "docs/design.md's layout does not name agent/sinks/sink_planted" ]
	[ "${lines[1]}" = "docs/design.md's layout does not name bench/cost/" ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "make test fails on a command no package brings, naming it and its test" {
	local suite=$BATS_TEST_TMPDIR/calls.bats

	printf '@test "calls one" {\n\tfbf_not_a_command --x || true\n}\n' >"$suite"
	run "$ROOT/tests/run-all" "$suite"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"ok 1 calls one"* ]]
	[[ "$output" == *"broken: 'fbf_not_a_command' is not installed (called by "*"calls.bats:"*\
" calls one): add its Debian package to ci/install-deps.sh's lists for make test"* ]]
	[ "${lines[-1]}" = "1 passed, 1 failed, 0 skipped" ]
}

@test "a merge conflict left in a tracked file is caught" {
	local tree=$BATS_TEST_TMPDIR/tree

	mkdir -p "$tree"
	printf '# Title\n=======\n\ntext\n' >"$tree/doc.md"
	git -C "$tree" init -q
	git -C "$tree" add .
	run "$ROOT/tests/lint/conflict_markers.sh" "$tree"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	printf 'a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> other\n' >>"$tree/doc.md"
	git -C "$tree" add .
	run "$ROOT/tests/lint/conflict_markers.sh" "$tree"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "doc.md:6:<<<<<<< HEAD: a merge conflict left in the file" ]
	[ "${lines[1]}" = "doc.md:10:>>>>>>> other: a merge conflict left in the file" ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "a C line past 100 columns is caught, its tabs counted to their stops" {
	local tree=$BATS_TEST_TMPDIR/tree x79

	mkdir -p "$tree/src"
	printf -v x79 '%79s' ''
	x79=${x79// /x}
	# Tabs to columns 8 and 16 around "int a;", then 84: 100 (a flat 8 a tab, 106).
	printf 'int b;\n\n\tint a;\t/* %s */\n' "${x79:1}" >"$tree/src/planted.c"
	git -C "$tree" init -q
	git -C "$tree" add .
	run "$ROOT/tests/lint/c_columns.sh" "$tree"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	printf 'int b;\n\n\tint a;\t/* %s */\n' "$x79" >"$tree/src/planted.c"
	git -C "$tree" add .
	run "$ROOT/tests/lint/c_columns.sh" "$tree"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "src/planted.c:3: 101 columns, over 100" ]
}

@test "others' C under testing/third_party/ keeps its upstream's line widths" {
	local tree=$BATS_TEST_TMPDIR/tree x120

	mkdir -p "$tree/testing/third_party/up" "$tree/src"
	printf -v x120 '%120s' ''
	printf 'int a; /* %s */\n' "$x120" >"$tree/testing/third_party/up/wide.c"
	git -C "$tree" init -q
	git -C "$tree" add .
	run "$ROOT/tests/lint/c_columns.sh" "$tree"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	cp "$tree/testing/third_party/up/wide.c" "$tree/src/wide.c"
	git -C "$tree" add .
	run "$ROOT/tests/lint/c_columns.sh" "$tree"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "src/wide.c:1: 133 columns, over 100" ]
}

@test "this tree: make lint finds nothing, and says so in one line" {
	run make -C "$ROOT" --no-print-directory -s lint
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "lint: found nothing: ShellCheck and the bats assertions over every "* ]]
}
