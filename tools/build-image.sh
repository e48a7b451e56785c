#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# build-image.sh DEB DIR VERSION: the agent's OCI image, tagged
# fizzbuzzfib-agent:VERSION, as DIR/fizzbuzzfib-agent-VERSION.oci.tar (an OCI
# archive: podman load, skopeo copy), from no registry: the agent out of its
# Debian package DEB, and the libraries it loads out of the Debian packages
# installed here (their names and versions in the image's
# /usr/share/doc/fizzbuzzfib-agent/packages, each one's copyright beside).
# Nothing else: no shell, no package manager. Built with buildah into a store
# of its own under DIR; every file and date is SOURCE_DATE_EPOCH (default:
# the commit's time), so one commit builds one digest. Prints the image's
# size and contents.
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: build-image.sh DEB DIR VERSION" >&2; exit 2; }
deb=$1 dir=$2 version=$3
name=fizzbuzzfib-agent
agent=/usr/sbin/$name

command -v buildah >/dev/null ||
	{ echo "build-image: buildah is not installed; install it with 'make deps-image' as root" >&2
	  exit 1; }
[ -f "$deb" ] || { echo "build-image: no package $deb; make deb builds it" >&2; exit 1; }
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
root=$dir/root
rm -rf "$root"
mkdir -p "$root"

# The agent and its copyright, from the package; not its units or manual.
dpkg-deb --fsys-tarfile "$deb" | tar -xf - -C "$root" ".$agent" \
	"./usr/share/doc/$name/copyright"

# copy_from_package FILE: FILE as the Debian package installed here has it,
# at its path, its package and version listed, its copyright copied.
declare -A packages=()
copy_from_package()
{
	local file=$1 path pkg=

	# usrmerge: /lib is /usr/lib here, and a package names one of the two.
	for path in "$file" "/usr$file" "${file#/usr}"; do
		pkg=$(dpkg-query -S "$path" 2>/dev/null | head -1 | cut -d: -f1) && break
	done
	[ -n "$pkg" ] || { echo "build-image: $file is in no Debian package installed" >&2; exit 1; }
	file=$path
	mkdir -p "$root$(dirname "$file")"
	cp -L "$file" "$root$file"
	if [ -z "${packages[$pkg]:-}" ]; then
		packages[$pkg]=$(dpkg-query -W -f='${Version}' "$pkg")
		mkdir -p "$root/usr/share/doc/${pkg%%:*}"
		cp -L "/usr/share/doc/${pkg%%:*}/copyright" "$root/usr/share/doc/${pkg%%:*}/"
	fi
}

# Every library the agent loads, under the name it asks for, and the
# dynamic loader where the agent's ELF header says it is.
while read -r lib; do
	copy_from_package "$lib"
done < <(ldd "$root$agent" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
# libxdp's dispatcher, which it loads from a file where programs must share an interface.
while read -r obj; do
	copy_from_package "$obj"
done < <(dpkg-query -L libxdp1 | grep '/xdp-dispatcher\.o$')

# Where the agent writes (its lock files: a tmpfs on /run) and what it mounts.
mkdir -p "$root/run" "$root/tmp" "$root/sys/fs/bpf" "$root/proc"
for pkg in "${!packages[@]}"; do
	echo "$pkg ${packages[$pkg]}"
done | sort >"$root/usr/share/doc/$name/packages"
echo "$name $version" >>"$root/usr/share/doc/$name/packages"
find "$root" -exec touch -h -d "@$epoch" {} +

# A store of its own, the vfs driver: nothing of the host's containers is
# read or changed, and it works where overlay cannot (a container's root).
store=(--root "$dir/storage" --runroot "$dir/run" --storage-driver vfs)
archive=$dir/$name-$version.oci.tar
rm -f "$archive"
ctr=$(buildah "${store[@]}" from --quiet scratch)
trap 'buildah "${store[@]}" rm "$ctr" >/dev/null 2>&1 || true' EXIT
buildah "${store[@]}" copy --quiet "$ctr" "$root/" / >/dev/null
buildah "${store[@]}" config --entrypoint "[\"$agent\"]" --cmd '[]' \
	--label org.opencontainers.image.title=$name \
	--label org.opencontainers.image.version="$version" \
	--label org.opencontainers.image.description="XDP classifier of IPv4 sources" \
	--label org.opencontainers.image.licenses="LGPL-2.1 OR BSD-2-Clause" \
	--created-by "build-image.sh $version" "$ctr"
layout=$dir/layout
rm -rf "$layout"
buildah "${store[@]}" commit --quiet --format oci --disable-compression=false \
	--timestamp "$epoch" --rm "$ctr" "oci:$layout:$name:$version" >/dev/null
trap - EXIT
# The OCI layout archived as oci-archive: does, but with its files' own dates
# and in a fixed order, so that the archive's bytes, not only its digest, repeat.
tar -C "$layout" --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
	-cf "$archive" oci-layout index.json blobs
rm -rf "$dir/storage" "$dir/run" "$layout"

digest=$(tar -xOf "$archive" index.json | python3 -c \
	'import json, sys; print(json.load(sys.stdin)["manifests"][0]["digest"])')
echo "image: $archive, $name:$version, manifest $digest"
echo "image: $(du -b "$archive" | cut -f1) bytes archived, $(du -sb "$root" | cut -f1) bytes" \
	"unpacked; $(find "$root" -type f | wc -l) files:"
(cd "$root" && find . -type f -printf '%s %p\n' | sort -k2 |
	awk '{ printf "  %9d %s\n", $1, substr($2, 2) }')
