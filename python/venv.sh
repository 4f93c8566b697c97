#!/usr/bin/env bash
# python/venv.sh BUILD: the virtual environment of the Python package, made
# or brought up to date in BUILD/python-venv, and its path printed last.
#  - made from Debian's python3 (the one the extension is built for) with
#    the pinned packages of python/requirements-test.txt; made again only
#    when that file (or the Python) changes, so a warm run installs nothing;
#  - the ltt wheel of BUILD/python/dist installed when it changed (the
#    wheel's hash is kept beside the venv).
# Prints what it installed and how long that took on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: python/venv.sh BUILD}
python=${LTT_PYTHON:-/usr/bin/python3}
venv=$build/python-venv
req=$here/requirements-test.txt
want="$(sha256sum "$req" | cut -d' ' -f1) $("$python" -c 'import sys; print(sys.version)' | head -n 1)"

start=$SECONDS
if [[ ! -x $venv/bin/python || "$(cat "$venv/.ltt-requirements" 2>/dev/null)" != "$want" ]]; then
	echo "python/venv.sh: installing $(grep -c '==' "$req") pinned packages into $venv ..." >&2
	rm -rf "$venv"
	"$python" -m venv "$venv"
	"$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$req" >&2
	echo "$want" >"$venv/.ltt-requirements"
	echo "python/venv.sh: packages installed in $((SECONDS - start)) s" >&2
fi

wheel=$(find "$build/python/dist" -maxdepth 1 -name "ltt-*.whl" 2>/dev/null | head -n 1 || true)
if [[ -z $wheel ]]; then
	echo "python/venv.sh: no wheel in $build/python/dist: run make (needs pybind11-dev, python3-dev)" >&2
	exit 1
fi
sum=$(sha256sum "$wheel" | cut -d' ' -f1)
if [[ "$(cat "$venv/.ltt-wheel" 2>/dev/null)" != "$sum" ]]; then
	"$venv/bin/pip" install --quiet --disable-pip-version-check --no-input --no-deps \
		--force-reinstall "$wheel" >&2
	echo "$sum" >"$venv/.ltt-wheel"
	echo "python/venv.sh: installed $(basename "$wheel")" >&2
fi
echo "$venv"
