#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# build-deb.sh SRC DIR VERSION: the Debian package of the tree at SRC, as
# version VERSION (make deb passes the Makefile's), in DIR:
# DIR/fizzbuzzfib-agent_VERSION_ARCH.deb. Built by dpkg-buildpackage in a
# copy of the files git knows there (not the ignored build output), so that
# neither the build nor debhelper's output mixes with the tree's own, with a
# debian/changelog written for VERSION: the version has one source. Reads
# nothing from the network.
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: build-deb.sh SRC DIR VERSION" >&2; exit 2; }
src=$1 dir=$2 version=$3

command -v dh >/dev/null ||
	{ echo "build-deb: debhelper is not installed; install it with 'make deps' as root" >&2; exit 1; }
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "build-deb: $src is not a git checkout; make deb builds from one" >&2; exit 1; }

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
tree=$dir/fizzbuzzfib-agent-$version
rm -rf "$tree"
mkdir -p "$tree"
# Tracked and new files, but not those deleted and not yet committed.
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do
		[ ! -e "$f" ] && [ ! -L "$f" ] || printf '%s\0' "$f"
	done | tar --null -T - -cf -) | tar -xf - -C "$tree"

# The commit's time, not the clock's: the same tree builds the same package.
commit=$(git -C "$src" rev-parse --short HEAD)
when=$(git -C "$src" log -1 --format=%ct)
dirty=
[ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] || dirty=", with changes not committed"
maintainer=$(sed -n 's/^Maintainer: //p' "$tree/debian/control")
cat >"$tree/debian/changelog" <<EOF
fizzbuzzfib-agent ($version) unstable; urgency=medium

  * Built from commit $commit$dirty.

 -- $maintainer  $(LC_ALL=C date -u -R -d "@$when")
EOF

# A clean environment: make puts the variables of its command line (OUTPUT=,
# VERSION=) in it, and the copy's make clean would remove that OUTPUT. The
# copy builds as debian/rules says, and nothing else.
log=$dir/build-$version.log
if ! (cd "$tree" && env -i PATH="$PATH" HOME="$HOME" LC_ALL=C.UTF-8 \
	DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-parallel=$(nproc)}" \
	dpkg-buildpackage -b -uc -us) >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	echo "build-deb: dpkg-buildpackage failed; the whole log is $log" >&2
	exit 1
fi
echo "build-deb: $dir/fizzbuzzfib-agent_${version}_$(dpkg --print-architecture).deb"
