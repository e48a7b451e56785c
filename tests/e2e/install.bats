#!/usr/bin/env bats
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The agent as installed: make install into a staging tree, the installed
# binary run from there, its systemd units and manual page checked by the
# tools that read them, and the documentation covering every option, exit
# status, counter and metric the agent has, checked against their one source.

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

@test "make install: the agent, its manual page and units; the binary runs from there" {
	local bin=$DEST/usr/local/sbin/fizzbuzzfib-agent

	[ -x "$bin" ]
	[ -f "$DEST/usr/local/share/man/man8/fizzbuzzfib-agent.8" ]
	grep -qx 'ExecStart=/usr/local/sbin/fizzbuzzfib-agent --iface %i $FIZZBUZZFIB_AGENT_OPTS' \
		"$DEST/usr/local/lib/systemd/system/fizzbuzzfib-agent@.service"
	grep -qxF 'ExecStart=/usr/local/sbin/fizzbuzzfib-agent --iface "${FIZZBUZZFIB_AGENT_IFACES}" $FIZZBUZZFIB_AGENT_OPTS' \
		"$DEST/usr/local/lib/systemd/system/fizzbuzzfib-agent.service"
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

@test "the systemd units pass systemd-analyze verify" {
	local units=$BATS_TEST_TMPDIR/units unit

	command -v systemd-analyze >/dev/null ||
		skip "systemd-analyze is not installed (Debian package systemd; make deps)"
	# verify wants the binary and the manual page where the unit says: point it
	# at the staging tree.
	mkdir -p "$units"
	for unit in fizzbuzzfib-agent@.service fizzbuzzfib-agent.service; do
		sed "s|/usr/local/sbin|$DEST/usr/local/sbin|" \
			"$DEST/usr/local/lib/systemd/system/$unit" >"$units/$unit"
	done
	run env MANPATH="$DEST/usr/local/share/man" systemd-analyze verify \
		"$units/fizzbuzzfib-agent@eth0.service" "$units/fizzbuzzfib-agent.service"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "the unit for every interface has the template's settings but those about the interface" {
	# Each unit's settings, comments and sections aside, but for those that
	# name or wait for the interface and the no-restart list (3 is retried
	# where no device is waited for).
	settings()
	{
		grep -v '^#\|^\[\|^$' "systemd/$1" | grep -v \
			'^\(Description\|BindsTo\|After\|ExecStart\|ExecStopPost\|RestartPreventExitStatus\)=' |
			grep -vxF 'EnvironmentFile=-/etc/default/fizzbuzzfib-agent@%i'
	}
	diff <(settings fizzbuzzfib-agent@.service) <(settings fizzbuzzfib-agent.service)
	# Not vacuous: the sandbox is among what was compared.
	[ "$(settings fizzbuzzfib-agent.service | grep -c '^Protect')" -ge 5 ]
	[ "$(sed -n 's/^RestartPreventExitStatus=//p' systemd/fizzbuzzfib-agent@.service | sed 's/ 3 / /')" = \
	  "$(sed -n 's/^RestartPreventExitStatus=//p' systemd/fizzbuzzfib-agent.service)" ]
}

@test "the manual pages are clean for mandoc -T lint and man --warnings" {
	command -v mandoc >/dev/null || skip "mandoc is not installed (make deps)"
	for page in man/fizzbuzzfib-agent.8 man/fizzbuzzfib-cost.8; do
		run mandoc -T lint "$page"
		echo "$output"
		[ "$status" -eq 0 ]
		run bash -c "man --warnings -E UTF-8 -l $page 2>&1 >/dev/null"
		echo "$output"
		[ -z "$output" ]
	done
}

@test "the manual page and docs/agent.md name every option; their exit statuses are the header's" {
	local opt

	for opt in $("$AGENT" --help | grep -o -- '--[a-z-]*' | sort -u); do
		grep -q -- "$(sed 's/-/\\\\-/g' <<<"$opt")" man/fizzbuzzfib-agent.8 ||
			{ echo "man page lacks $opt" >&2; false; }
		grep -q -- "$opt" docs/agent.md || { echo "docs/agent.md lacks $opt" >&2; false; }
	done
	# One list in agent/base/exit_codes.h; the tables are written from it.
	tools/exit_status.py --check
	grep -q '^| 13 | cannot use the lock directory' docs/agent.md
	grep -qx '.B 13' man/fizzbuzzfib-agent.8
	[[ "$("$AGENT" --help | tr -s ' \n' '  ')" == *" 13 cannot use the lock directory"* ]]
}

@test "every page and heading the README and docs/ link to exists" {
	python3 - README.md docs/*.md <<-'EOF'
	import os, re, sys
	def slug(heading):
	    # GitHub's anchors: lower case, punctuation dropped, spaces to hyphens.
	    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
	bad = []
	for page in sys.argv[1:]:
	    text = open(page).read()
	    for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", text):
	        if target.startswith(("http://", "https://")):
	            continue
	        path = os.path.join(os.path.dirname(page), target) if target else page
	        if not os.path.exists(path):
	            bad.append(f"{page} links to {target}, which does not exist")
	        elif anchor and anchor not in {slug(h) for h in
	                                       re.findall(r"^#+ (.*)$", open(path).read(), re.M)}:
	            bad.append(f"{page} links to {target}#{anchor}, a heading {path} lacks")
	print("\n".join(bad), file=sys.stderr)
	sys.exit(1 if bad else 0)
	EOF
}

@test "docs/output.md, docs/metrics.md and the manual name every counter and metric the agent writes" {
	local key name missing=

	# The counters' one list (lib/counter_fields.c, the classes from the shared
	# header) and the totals the summary adds to it.
	for key in $(grep -o 'FIELD("[a-z0-9_]*"' lib/counter_fields.c | cut -d'"' -f2) \
		$(grep -oE '^\s*X\(FBF_[A-Z]+, [0-9]+, "[A-Za-z]+", "[a-z]+"\)' \
			common/fizzbuzzfib.h | cut -d'"' -f4) produced delivered queued; do
		grep -qw -- "$key" docs/output.md || missing+=" docs/output.md:$key"
		grep -qw -- "$key" man/fizzbuzzfib-agent.8 || missing+=" man:$key"
	done
	# The metrics as agent/metrics/metrics_format.c names them: a family's
	# header, or a family of one series.
	for name in $(grep -oE '(header|family)\(out, "[a-z_]+"' agent/metrics/metrics_format.c |
		      sed -E 's/.*"(.*)"/fizzbuzzfib_\1/') \
		$(grep -oE '# TYPE process_[a-z_]+' agent/metrics/metrics_format.c | cut -d' ' -f3); do
		grep -q -- "\`$name\`\|\`$name{\|, \`$name\`" docs/metrics.md || missing+=" docs/metrics.md:$name"
	done
	[ -z "$missing" ] || { echo "not named:$missing" >&2; false; }
	# Not vacuous: the lists above were read.
	[ "$(grep -c 'FIELD("' lib/counter_fields.c)" -ge 5 ]
	grep -q 'header(out, "classified_total"' agent/metrics/metrics_format.c
	grep -q 'family(out, "packets_total"' agent/metrics/metrics_format.c
}

@test "the manual and docs/service.md give the unit's no-restart statuses and the binary's version" {
	local unit man doc

	# The unit is the one source of which exits a restart cannot fix.
	unit=$(sed -n 's/^RestartPreventExitStatus=//p' systemd/fizzbuzzfib-agent@.service)
	[ -n "$unit" ]
	man=$(grep -o 'not after exit statuses [0-9, and]*' man/fizzbuzzfib-agent.8 |
	      grep -o '[0-9]\+' | xargs)
	doc=$(grep -o 'restart cannot fix ([0-9, ]*)' docs/service.md | grep -o '[0-9]\+' | xargs)
	[ "$man" = "$unit" ] || { echo "man page: $man, unit: $unit" >&2; false; }
	[ "$doc" = "$unit" ] || { echo "docs/service.md: $doc, unit: $unit" >&2; false; }
	grep -q "^\.TH FIZZBUZZFIB-AGENT 8 [0-9-]* \"fizzbuzzfib $("$AGENT" --version | cut -d' ' -f2)\"" \
		man/fizzbuzzfib-agent.8
}
