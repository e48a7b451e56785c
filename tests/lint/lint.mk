# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make lint       every shell and bats file through ShellCheck and the bats
#                 assertions it misses (tests/lint/shell.sh), the exit statuses
#                 of docs/agent.md and the manual against agent/base/exit_codes.h
#                 (tools/exit_status.py --check), docs/design.md's layout
#                 against the tree (tests/lint/design_layout.py), no merge
#                 conflict left in a tracked file (tests/lint/conflict_markers.sh),
#                 and no line of a tracked C file past 100 columns
#                 (tests/lint/c_columns.sh). Each says what it found; any
#                 finding fails; with none, one line says what was checked.
#                 Needs no build.
#
# tests/lint/lint.bats, among make test's suites, checks the lint itself and
# runs it over the tree, so make test (and CI, which runs it) fails on a finding.

TEST_BATS += tests/lint/lint.bats

.PHONY: lint

lint: check-deps-lint
	$(Q)status=0; \
	tests/lint/shell.sh || status=1; \
	tools/exit_status.py --check || status=1; \
	tests/lint/design_layout.py || status=1; \
	tests/lint/conflict_markers.sh || status=1; \
	tests/lint/c_columns.sh || status=1; \
	[ $$status -ne 0 ] || echo "lint: found nothing: ShellCheck and the bats assertions" \
		"over every shell and bats file, the exit statuses of docs/agent.md and the" \
		"manual, docs/design.md's layout, merge conflicts, C lines within 100 columns"; \
	exit $$status
