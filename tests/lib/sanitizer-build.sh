# shellcheck shell=bash disable=SC2154 # root: the repository, set by the suite that sources this
# Sanitizer builds for the unit-test suites: source this after sh-test.sh.
#
# sanitizer_build DIR SANITIZERS TARGET...
#   Configures DIR (once; later runs are incremental) as a Debug build with
#   -DLTT_SANITIZE=SANITIZERS and builds TARGET... in it, at low priority on
#   two jobs (log: DIR/sanitizer-build.log). Returns non-zero after recording a failed check (with the
#   configure or build log's first errors) when either step fails.
sanitizer_build() {
	local dir=$1 sanitizers=$2 log lock rc=0
	shift 2
	mkdir -p "$dir"
	log=$dir/sanitizer-build.log
	# One build at a time in DIR: suites 10 and 40 share it and may run at
	# once (tests/run-suites.sh). Held for the build only.
	exec {lock}>"$dir/.build.lock"
	flock "$lock"
	if [[ ! -f $dir/build.ninja ]] &&
		! cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
			-DLTT_SANITIZE="$sanitizers" >"$log" 2>&1; then
		t_fail "configure the $sanitizers build in $dir" "$(tail -n 5 "$log")"
		rc=1
	elif ! nice cmake --build "$dir" -j2 --target "$@" >"$log" 2>&1; then
		t_fail "build $* with $sanitizers" "$(grep -m5 -E 'error|Error' "$log")"
		rc=1
	fi
	exec {lock}>&-
	return "$rc"
}
