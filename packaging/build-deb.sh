#!/usr/bin/env bash
# usage: packaging/build-deb.sh OUTDIR
# Builds ltt's Debian packages (ltt-dkms, ltt-tools, traceview) into OUTDIR
# from a copy of the source tree in OUTDIR/stage, so the tree itself is never
# written: the tree's files (committed or not, minus what .gitignore ignores
# and OUTDIR itself) are copied, packaging/debian/ becomes the copy's debian/,
# and debian/changelog is written with the project's version (the VERSION of
# CMakeLists.txt's project(), which LTT_VERSION_STRING is). Then
# dpkg-buildpackage -b builds the binary packages. Prints the .deb paths.
set -euo pipefail
[[ $# == 1 ]] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
die() { echo "build-deb: $*" >&2; exit 1; }

version=$(sed -nE 's/^project\(ltt VERSION ([0-9][0-9.]*)[ )].*/\1/p' "$repo/CMakeLists.txt")
[[ -n $version ]] || die "no 'project(ltt VERSION x.y.z' line in CMakeLists.txt"
# shellcheck disable=SC2016 # the CMake text, not a shell expansion
grep -q 'set(LTT_VERSION_STRING "${PROJECT_VERSION}")' "$repo/CMakeLists.txt" ||
	die "LTT_VERSION_STRING is no longer PROJECT_VERSION: teach $0 the version"

stage=$out/stage
src=$stage/ltt-$version
rm -rf "$stage"
mkdir -p "$src"
if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# OUTDIR relative to the tree, when it lies inside it, is left out.
	rel=${out#"$repo"/}
	[[ $rel == "$out" ]] && rel=
	(cd "$repo" && git ls-files -z --cached --others --exclude-standard) |
		while IFS= read -r -d '' f; do
			[[ -n $rel && ($f == "$rel" || $f == "$rel"/*) ]] && continue
			[[ -e $repo/$f ]] && printf '%s\0' "$f"
		done | tar -C "$repo" --null -T - -cf - | tar -C "$src" -xf -
else
	tar -C "$repo" --exclude='./build*' --exclude="./${out#"$repo"/}" -cf - . | tar -C "$src" -xf -
fi
cp -r "$repo/packaging/debian" "$src/debian"
when=$(git -C "$repo" log -1 --format=%cD 2>/dev/null || date -R)
what=$(git -C "$repo" describe --always --dirty 2>/dev/null || echo "a source tree")
cat >"$src/debian/changelog" <<CHANGELOG
ltt ($version) unstable; urgency=medium

  * Built from ltt $what.

 -- ltt maintainers <maintainers@users.noreply.a-seed-fb5f7869.example>  $when
CHANGELOG

echo "build-deb: dpkg-buildpackage -b in $src (log: $out/build.log)" >&2
if ! (cd "$src" && dpkg-buildpackage -b -uc -us) >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	die "dpkg-buildpackage failed (whole log: $out/build.log)"
fi
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mv "$stage"/*.deb "$stage"/*.changes "$stage"/*.buildinfo "$out"/
ls "$out"/*.deb
