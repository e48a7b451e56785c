#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make test-fresh: the README's commands as a new user types them on a new
# Debian 12 host. A clone of this tree's HEAD in a fresh minimal root
# (base-root.sh), and there, once: `make demo`, which must exit 0 and print
# classified lines, leaving no network namespace behind; and in another
# fresh root, at the same time, `make test`, which must install all that its
# suites call and pass, every skip saying why. Says each one's wall time,
# when the demo printed its first classified line, the packages each
# installed and what was downloaded, make test's closing lines and each
# failed test's output. Exits 1 if any check fails.
#
# Cached between runs in FBF_FRESH_CACHE (/var/cache/fizzbuzzfib-fresh):
# the base root, and the packages apt downloaded, which later roots take
# from there. This host's packages are left as they are. Each root's output is
# kept in $(OUTPUT)/test-fresh/.
set -euo pipefail
export LC_ALL=C

top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/testing/fresh
# Not .../fizzbuzzfib: package.bats would take that for a path the package left.
cache=${FBF_FRESH_CACHE:-/var/cache/fizzbuzzfib-fresh}

[ "$(id -u)" -eq 0 ] ||
	{ echo "test-fresh: needs root (chroot, mounts); run: sudo make test-fresh" >&2; exit 1; }
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] ||
	echo "test-fresh: the tree has changes not committed: the roots get HEAD without them"

mkdir -p "$cache/debs"
"$here/base-root.sh" "$cache"
base=$cache/base
work=$(mktemp -d /var/tmp/fbf-fresh.XXXXXX)
# Stopped early, it stops the roots: each one's namespaces go with its
# in-root.sh (unshare), every process and mount in them. Called by the trap.
# shellcheck disable=SC2317
stop()
{
	local pid

	for pid in "$work"/*.pid; do
		[ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
	done
	wait
	rm -rf "$work"
}
trap stop EXIT
trap 'exit 1' INT TERM
ls "$cache/debs" >"$work/cached"
# Each root's output, kept after the run.
logs=${FBF_BUILD:-$top/build}/test-fresh
rm -rf "$logs"
mkdir -p "$logs"

# The .debs apt names NAME_VERSION_ARCH.deb, the epoch's colon as %3a.
debs_of() # ADMINDIR: the .debs of the packages installed there
{
	dpkg-query --admindir="$1" -W \
		-f='${db:Status-Status} ${Package}_${Version}_${Architecture}.deb\n' |
		awk '$1 == "installed" { sub(/:/, "%3a", $2); print $2 }' | sort
}
bytes_of() # DIR: the total size of the files named on stdin, in DIR
{
	(cd "$1" && xargs -r stat -c %s 2>/dev/null) | awk '{ s += $1 } END { print s + 0 }'
}
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }

# root NAME COMMAND: COMMAND in a fresh root with a clone of HEAD in
# /root/fizzbuzzfib and apt's cache of earlier runs; its stdout in
# $logs/NAME.out, each line after the seconds since the start, its stderr in
# $logs/NAME.err, its status and seconds in $logs/NAME.status.
root()
{
	local name=$1 command=$2 dir=$work/$1 start

	mkdir -p "$dir/upper/var/cache/apt/archives"
	mkdir -m 0700 "$dir/upper/root"
	git clone -q "$top" "$dir/upper/root/fizzbuzzfib"
	# Links, not copies: a .deb is never written in place.
	cp -al "$cache/debs/." "$dir/upper/var/cache/apt/archives/"
	start=$SECONDS
	{
		"$here/in-root.sh" "$base" "$dir" "cd /root/fizzbuzzfib && $command" \
			2>"$logs/$name.err" &
		echo $! >"$work/$name.pid"
		wait $! && status=0 || status=$?
		rm "$work/$name.pid"
		echo "$status" >"$logs/$name.status"
	} | while IFS= read -r line; do echo "$((SECONDS - start)) $line"; done >"$logs/$name.out"
	echo "$((SECONDS - start))" >>"$logs/$name.status"
}

# report NAME: its wall time, packages, downloads; keeps its .debs in the cache.
report()
{
	local name=$1 dir=$work/$1 status secs archives new

	{ read -r status; read -r secs; } <"$logs/$name.status"
	archives=$dir/upper/var/cache/apt/archives
	new=$(comm -13 "$work/cached" <(find "$archives" -maxdepth 1 -name '*.deb' -printf '%f\n' | sort))
	echo "test-fresh: $name: exit $status after $secs s;" \
		"$(comm -13 <(debs_of "$base/var/lib/dpkg") <(debs_of "$dir/upper/var/lib/dpkg") |
		   tee "$dir/installed" | wc -l) packages installed," \
		"$(mb "$(bytes_of "$archives" <"$dir/installed")") of .debs;" \
		"downloaded $(mb "$(bytes_of "$archives" <<<"$new")") of them"
	sed -nE 's/^[0-9]+ (install-deps: ([0-9]+ packages to download|fetched))/  \1/p' "$logs/$name.out"
	(cd "$archives" && xargs -r ln -f -t "$cache/debs" <<<"$new")
}

failed=0
check() # DESCRIPTION COMMAND...: one line, ok or not ok
{
	local what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "not ok: $what"; failed=1; fi
}

roots=$SECONDS
root demo 'make demo; status=$?; echo "netns left: $(ip netns list | wc -l)"; exit $status' &
demo=$!
root test 'make test' &
wait "$demo" $!

report demo
report test
# The cache keeps what this run's roots installed, and no older version.
(cd "$cache/debs" && comm -23 <(ls) <(sort -u "$work/demo/installed" "$work/test/installed") |
	xargs -r rm -f)
classified=$(grep -E '^[0-9]+ [0-9.]+ (Fibonacci|FizzBuzz|Fizz|Buzz)$' "$logs/demo.out" || true)
check "make demo exits 0 in a fresh root" [ "$(head -n1 "$logs/demo.status")" = 0 ]
first=$(head -n1 <<<"$classified" | cut -d' ' -f1)
what="make demo prints classified lines ($(grep -c . <<<"$classified"),"
what+=" the first after ${first:-?} s)"
check "$what" [ -n "$classified" ]
check "make demo leaves no network namespace" grep -qx '[0-9]* netns left: 0' "$logs/demo.out"
# make test's closing lines: each skip with its reason, what broke, the count.
sed -n '/^[0-9]* $/,$ s/^[0-9]* //p' "$logs/test.out" | grep -E '^(skipped|broken): ' || true
closing=$(sed -n 's/^[0-9]* \([0-9]* passed, [0-9]* failed, [0-9]* skipped\)$/\1/p' "$logs/test.out")
check "make test exits 0 in a fresh root: ${closing:-no closing line}" \
	[ "$(head -n1 "$logs/test.status")" = 0 ]
check "every test make test skipped there says why" \
	[ -z "$(grep -iE '^[0-9]+ +ok [0-9]+ .*# skip *$' "$logs/test.out")" ]
check "no mount left under $work" [ -z "$(findmnt -rn -o TARGET | grep -F "$work")" ]
[ "$(head -n1 "$logs/demo.status")" = 0 ] || {
	echo "test-fresh: demo's last lines:"
	tail -n 20 "$logs/demo.out" "$logs/demo.err"
}
# Each failed test with the lines it printed; or, if none failed, how the run ended.
if grep -qE '^[0-9]+ +not ok ' "$logs/test.out"; then
	echo "test-fresh: the tests that failed in the fresh root, with their output:"
	awk '{ sub(/^[0-9]+ /, "") } /^ +not ok / { n = 40; print; next }
	     /^ +ok |^# / { n = 0 } n-- > 0' "$logs/test.out"
elif [ "$(head -n1 "$logs/test.status")" != 0 ]; then
	echo "test-fresh: test's last lines:"
	tail -n 20 "$logs/test.out" "$logs/test.err"
fi
echo "test-fresh: $((SECONDS - roots)) s for both roots at once, $SECONDS s in all"
exit $failed
