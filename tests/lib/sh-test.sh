# shellcheck shell=bash
# Helpers for shell test suites: source this, call the checks, end with
# t_summary. Every check prints "ok"/"FAIL" with its name; t_summary prints
# the "N passed, N failed[, N skipped]" line tests/run-suites.sh reads.
t_passed=0 t_failed=0 t_skipped=0

t_pass() { t_passed=$((t_passed + 1)); echo "ok   - $1"; }
t_fail() { t_failed=$((t_failed + 1)); echo "FAIL - $1"; [[ -n ${2:-} ]] && printf '       %s\n' "$2"; return 0; }
t_skip() { t_skipped=$((t_skipped + 1)); echo "skip - $1: $2"; }

# t_check NAME CMD... : passes when CMD exits 0.
t_check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then t_pass "$name"; else t_fail "$name" "$(tail -n 5 <<<"$out")"; fi
}

# t_run_expect NAME STATUS PATTERN CMD... : passes when CMD exits with STATUS
# and its stderr+stdout matches the extended regex PATTERN.
t_run_expect() {
	local name=$1 want=$2 pat=$3; shift 3
	local out rc
	out=$("$@" 2>&1); rc=$?
	if [[ $rc != "$want" ]]; then
		t_fail "$name" "exit status $rc, expected $want: $(head -c 400 <<<"$out")"
	elif ! grep -Eq -- "$pat" <<<"$out"; then
		t_fail "$name" "output does not match /$pat/: $(head -c 400 <<<"$out")"
	else
		t_pass "$name"
	fi
}

# t_gtest BIN [ARGS]: run a GoogleTest binary, fold its counts in.
t_gtest() {
	local out rc p f s
	out=$("$@" 2>&1); rc=$?
	echo "$out" | grep -E '^\[ +(OK|FAILED|SKIPPED) +\] [A-Za-z]' || true
	p=$(grep -Eo '^\[  PASSED  \] [0-9]+' <<<"$out" | grep -Eo '[0-9]+$' || echo 0)
	f=$(grep -Eo '^\[  FAILED  \] [0-9]+ test' <<<"$out" | grep -Eo '[0-9]+' || echo 0)
	s=$(grep -Eo '^\[  SKIPPED \] [0-9]+ test' <<<"$out" | grep -Eo '[0-9]+' || echo 0)
	if ((rc != 0 && f == 0)); then
		echo "$out" | tail -n 20
		f=1
	fi
	t_passed=$((t_passed + p)) t_failed=$((t_failed + f)) t_skipped=$((t_skipped + s))
}

# t_include CMD...: run a checker that prints this protocol (scripts/
# format-check.sh, scripts/shellcheck.sh, ...) and fold its counts into this
# suite's; its own summary line is left out. A checker that prints no summary
# counts as one failure.
t_include() {
	local out line f
	out=$("$@" 2>&1)
	grep -vE '^[0-9]+ passed, [0-9]+ failed' <<<"$out"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -n 1)
	if [[ -z $line ]]; then
		t_fail "$* ran" "$(tail -n 5 <<<"$out")"
		return
	fi
	t_passed=$((t_passed + ${line%% passed*}))
	f=${line#*passed, }
	t_failed=$((t_failed + ${f%% failed*}))
	if [[ $line == *skipped ]]; then
		f=${line##*failed, }
		t_skipped=$((t_skipped + ${f%% skipped}))
	fi
}

t_summary() {
	if ((t_skipped)); then
		echo "$t_passed passed, $t_failed failed, $t_skipped skipped"
	else
		echo "$t_passed passed, $t_failed failed"
	fi
	((t_failed == 0))
}
