#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The agent as installed: make install into a staging tree, the installed
# binary run from there, its systemd unit and manual page checked by the
# tools that read them, and the documentation covering every option and
# exit status the agent has.

load ../../testing/netns

setup_file() { fbf_bats_setup_file install; }
teardown_file() { fbf_bats_teardown_file; }
setup()
{
	fbf_bats_setup
	DEST=$BATS_TEST_TMPDIR/dest
	cd "$FBF_ROOT"
	make -s install DESTDIR="$DEST" PREFIX=/usr/local OUTPUT="$FBF_BUILD" >/dev/null
}
teardown() { fbf_bats_teardown; }

@test "make install: the agent, its manual page and unit; the binary runs from there" {
	local bin=$DEST/usr/local/sbin/fizzbuzzfib-agent

	[ -x "$bin" ]
	[ -f "$DEST/usr/local/share/man/man8/fizzbuzzfib-agent.8" ]
	grep -qx 'ExecStart=/usr/local/sbin/fizzbuzzfib-agent --iface %i $FIZZBUZZFIB_AGENT_OPTS' \
		"$DEST/usr/local/lib/systemd/system/fizzbuzzfib-agent@.service"
	# Named as installed, in what it prints and in what it tells to run.
	run "$bin" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^fizzbuzzfib-agent\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
	run "$bin" --bogus
	[ "$status" -eq 2 ]
	[[ "$output" == "fizzbuzzfib-agent: "*"; see fizzbuzzfib-agent --help" ]]
	fbf_srv_start "$OUT" "$ERR" "$bin" --iface "$FBF_VETH_SRV"
	fbf_traffic 1
	fbf_stop_agent TERM
	fbf_check_summary "$ERR" "$(wc -l <"$OUT")"
	make -s uninstall DESTDIR="$DEST" PREFIX=/usr/local
	[ -z "$(find "$DEST" -type f)" ]
}

@test "the systemd unit passes systemd-analyze verify" {
	local units=$BATS_TEST_TMPDIR/units

	command -v systemd-analyze >/dev/null ||
		skip "systemd-analyze is not installed (Debian package systemd; make deps)"
	# verify wants the binary and the manual page where the unit says: point it
	# at the staging tree.
	mkdir -p "$units"
	sed "s|/usr/local/sbin|$DEST/usr/local/sbin|" \
		"$DEST/usr/local/lib/systemd/system/fizzbuzzfib-agent@.service" \
		>"$units/fizzbuzzfib-agent@.service"
	run env MANPATH="$DEST/usr/local/share/man" \
		systemd-analyze verify "$units/fizzbuzzfib-agent@eth0.service"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "the manual page is clean for mandoc -T lint and man --warnings" {
	command -v mandoc >/dev/null || skip "mandoc is not installed (make deps)"
	run mandoc -T lint man/fizzbuzzfib-agent.8
	echo "$output"
	[ "$status" -eq 0 ]
	run bash -c 'man --warnings -E UTF-8 -l man/fizzbuzzfib-agent.8 2>&1 >/dev/null'
	echo "$output"
	[ -z "$output" ]
}

@test "the manual page and docs/agent.md name every option; their exit statuses are the header's" {
	local opt

	for opt in $("$AGENT" --help | grep -o -- '--[a-z-]*' | sort -u); do
		grep -q -- "$(sed 's/-/\\\\-/g' <<<"$opt")" man/fizzbuzzfib-agent.8 ||
			{ echo "man page lacks $opt" >&2; false; }
		grep -q -- "$opt" docs/agent.md || { echo "docs/agent.md lacks $opt" >&2; false; }
	done
	# One list in agent/exit_codes.h; the tables are written from it.
	tools/exit_status.py --check
	grep -q '^| 13 | cannot use the lock directory' docs/agent.md
	grep -qx '.B 13' man/fizzbuzzfib-agent.8
	[[ "$("$AGENT" --help | tr -s ' \n' '  ')" == *" 13 cannot use the lock directory"* ]]
}

@test "every page the README and docs/ link to exists" {
	local page link target

	for page in README.md docs/*.md; do
		for link in $(grep -o '](\([^)#]*\)[)#]' "$page" | sed 's/^](//; s/[)#]$//'); do
			case "$link" in
			http://* | https://* | '') continue ;;
			esac
			target=$(dirname "$page")/$link
			[ -e "$target" ] || { echo "$page links to $link, which does not exist" >&2; false; }
		done
	done
}
