#!/usr/bin/env bash
# usage: scripts/tidy.sh [-j N] [FILE...]
# clang-tidy with the repository's .clang-tidy (its checks, and why some are
# off) over the build's compile_commands.json: every C and C++ source of the
# product (analysis/, daemon/, gui/, user/, kshark/) and the headers they
# include from there; FILE... narrows the run. N files at a time (default:
# the number of CPUs; a file that passed before with the same inputs is not
# checked again, see below). One check per source file, "ok"/"FAIL" with the
# findings as file:line:column; the last line is "N passed, N failed".
# Exit status 0 when nothing failed. Needs a configured build directory
# ($BUILD, default build; `make tidy` configures it).
#
# Not checked here: the tests (GoogleTest's macros trip the bug patterns by
# design), traceview's self test among them (gui/selftest/).
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
source "$repo/tests/lib/sh-test.sh"
cd "$repo" || exit 1
build=${BUILD:-build}
[[ $build == /* ]] || build=$repo/$build
jobs=$(nproc)
if [[ ${1:-} == -j ]]; then
	jobs=$2
	shift 2
fi
excluded='^gui/selftest/'

if ! command -v clang-tidy >/dev/null; then
	t_fail "clang-tidy installed" "clang-tidy not found (scripts/install-deps.sh)"
	t_summary
	exit
fi
db=$build/compile_commands.json
if [[ ! -f $db ]]; then
	t_fail "clang-tidy: $db" "missing: configure the build first (make configure)"
	t_summary
	exit
fi
if (($#)); then
	files=("$@")
else
	mapfile -t files < <(jq -r '.[].file' "$db" | sed "s|^$repo/||" |
		grep -E '^(analysis|daemon|gui|user|kshark)/' | grep -vE "$excluded" | sort -u)
fi
if ((${#files[@]} == 0)); then
	t_fail "clang-tidy: sources in $db" "none found"
	t_summary
	exit
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# A file clang-tidy passed is not checked again while nothing it reads
# changed: the key hashes clang-tidy's version, .clang-tidy, the file's
# compile command and the contents of every file its object depends on
# (ninja's deps log). Only passes are kept, under $LTT_TIDY_CACHE
# (default ~/.cache/ltt/tidy; "off" checks every file). A file ninja has
# no deps for (not built yet) is always checked.
cache=${LTT_TIDY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ltt/tidy}
keys=$out/keys
if [[ $cache != off ]] && mkdir -p "$cache" 2>/dev/null; then
	ninja -C "$build" -t deps >"$out/deps" 2>/dev/null
	printf '%s\n' "${files[@]}" >"$out/files"
	python3 - "$repo" "$db" "$out/deps" "$out/files" "$(clang-tidy --version 2>&1)" >"$keys" <<'PY'
import hashlib, json, os, shlex, sys
repo, db, depsfile, filelist, version = sys.argv[1:6]
deps, obj = {}, None
for line in open(depsfile, errors="replace"):
    if not line.startswith(" ") and ": #deps" in line:
        obj = line.split(":", 1)[0]
        deps[obj] = [] if "(VALID)" in line else None
    elif obj and deps.get(obj) is not None and line.strip():
        deps[obj].append(line.strip())
commands = {}
for e in json.load(open(db)):
    f = os.path.relpath(e["file"], repo)
    args = shlex.split(e["command"])
    o = args[args.index("-o") + 1] if "-o" in args else None
    commands[f] = (e["command"], o)
tidy_conf = open(os.path.join(repo, ".clang-tidy"), "rb").read()
digests = {}
def digest(path):
    if path not in digests:
        try:
            digests[path] = hashlib.sha256(open(path, "rb").read()).hexdigest()
        except OSError:
            digests[path] = "missing"
    return digests[path]
for f in open(filelist).read().split("\n")[:-1]:
    command, o = commands.get(f, (None, None))
    d = deps.get(o) if o else None
    if not d:
        print("none")
        continue
    # Paths relative to the clone: another clone of the same tree hits too.
    h = hashlib.sha256(version.encode() + tidy_conf + command.replace(repo, "@").encode())
    for p in d:
        h.update(p.replace(repo, "@").encode() + digest(p).encode())
    print(h.hexdigest())
PY
fi
[[ -s $keys ]] || for f in "${files[@]}"; do echo none; done >"$keys"
mapfile -t key <"$keys"

run_one() {
	if [[ $3 != none && -e $cache/$3 ]]; then
		: >"$out/$1.log"
		echo 0 >"$out/$1.rc"
		return
	fi
	clang-tidy -p "$build" --quiet "$2" >"$out/$1.log" 2>&1
	echo $? >"$out/$1.rc"
}
export -f run_one
export build out cache
for i in "${!files[@]}"; do printf '%s\0%s\0%s\0' "$((i + 1))" "${files[$i]}" "${key[$i]:-none}"; done |
	xargs -0 -n 3 -P "$jobs" bash -c 'run_one "$@"' _
for i in "${!files[@]}"; do
	f=${files[$i]} n=$((i + 1))
	log=$out/$n.log
	found=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): ' "$log" 2>/dev/null | sed "s|^$repo/||" |
		sed -E 's/,-warnings-as-errors\]$/]/')
	if [[ $(cat "$out/$n.rc" 2>/dev/null) == 0 && -z $found ]]; then
		t_pass "clang-tidy: $f"
		k=${key[$i]:-none}
		[[ $k == none || $cache == off ]] || : >"$cache/$k" 2>/dev/null
	else
		t_fail "clang-tidy: $f" "$(head -n 10 <<<"${found:-$(tail -n 5 "$log" 2>/dev/null)}" | sed '2,$s/^/       /')"
	fi
done
t_summary
