# shellcheck shell=bash
# traceanalyze --follow on traces written step by step by follow-writer.py
# (the header in parts, blocks cut in half then completed, the .proc late):
# the last report is byte for byte the one a run on the finished file
# prints; a producer that closes or hangs without its FINAL blocks ends
# following with the warnings a plain run gives, never a hang. Sourced by
# tests/suites/10-analysis-unit.sh (sh-test.sh's t_* functions).
#
follow_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# follow_tests BUILD_DIR
follow_tests() {
	local bin=$1/bin writer=$follow_dir/../../tools/follow-writer.py
	local ta=$bin/traceanalyze tmp
	tmp=$(mktemp -d)
	local pids=()
	# shellcheck disable=SC2317
	follow_cleanup() {
		local p
		for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
		wait 2>/dev/null
		rm -rf "$tmp"
	}

	if ! "$bin/ltt-synth" --events 40000 --cpus 4 --processes 20 -o "$tmp/v2" >/dev/null ||
		! "$bin/ltt-synth" --events 40000 --cpus 3 --processes 20 --format 1 \
			-o "$tmp/v1" >/dev/null; then
		t_fail "ltt-synth writes the traces to follow"
		follow_cleanup
		return
	fi

	local v name
	for v in v2 v1; do
		name="follow ($v): blocks cut in half, .proc late"
		rm -f "$tmp/live.trace" "$tmp/live.proc"
		"$writer" "$tmp/$v.trace" "$tmp/live.trace" --pause 0.01 --split \
			--proc "$tmp/$v.proc" "$tmp/live.proc" --proc-after 8 >/dev/null &
		pids+=($!)
		timeout 60 "$ta" --follow --interval 0.05 "$tmp/live.trace" "$tmp/live.proc" \
			>"$tmp/follow.out" 2>"$tmp/follow.err"
		local rc=$?
		wait "${pids[-1]}"
		"$ta" -a -s "$tmp/live.trace" "$tmp/live.proc" >"$tmp/plain.out" 2>"$tmp/plain.err"
		local updates last
		updates=$(grep -c '^### ' "$tmp/follow.out")
		last=$(grep '^### ' "$tmp/follow.out" | tail -n 1)
		if ((rc != 0)); then
			t_fail "$name" "exit status $rc: $(head -c 400 "$tmp/follow.err")"
		elif ((updates < 3)); then
			t_fail "$name" "only $updates reports: it did not follow the growth"
		elif [[ $last != "### $tmp/live.trace: final report (every CPU wrote its final block)" ]]; then
			t_fail "$name" "last heading: $last"
		elif ! awk '/^### /{buf=""; next} {buf=buf $0 "\n"} END{printf "%s", buf}' \
			"$tmp/follow.out" | cmp -s - "$tmp/plain.out"; then
			t_fail "$name" "the last report differs from traceanalyze -a -s on the finished file"
		elif grep -q 'warning\|cut short' "$tmp/follow.err"; then
			t_fail "$name" "a warning while following: $(head -c 400 "$tmp/follow.err")"
		elif ! grep -q 'not there yet' "$tmp/follow.out"; then
			t_fail "$name" "no report before the .proc arrived"
		else
			t_pass "$name ($updates reports, the last one identical to -a -s)"
		fi
	done

	# OUT is replaced whole at each update and ends as a plain run's OUT;
	# --json follows too, one document per update.
	name="follow --json into OUT ends as the finished file's JSON"
	rm -f "$tmp/live.trace" "$tmp/live.proc" "$tmp/out.json"
	"$writer" "$tmp/v2.trace" "$tmp/live.trace" --pause 0.01 \
		--proc "$tmp/v2.proc" "$tmp/live.proc" >/dev/null &
	pids+=($!)
	timeout 60 "$ta" --follow --json --interval 0.05 "$tmp/live.trace" "$tmp/live.proc" \
		"$tmp/out.json" 2>"$tmp/follow.err"
	rc=$?
	wait "${pids[-1]}"
	"$ta" --json "$tmp/live.trace" "$tmp/live.proc" "$tmp/plain.json" 2>/dev/null
	if ((rc == 0)) && cmp -s "$tmp/out.json" "$tmp/plain.json"; then
		t_pass "$name"
	else
		t_fail "$name" "exit $rc; $(cmp "$tmp/out.json" "$tmp/plain.json" 2>&1 | head -n 2)"
	fi

	# A producer that hangs with the file open, its last block cut short and
	# no FINAL blocks: --timeout ends following with the truncation warning.
	name="a trace that stops growing ends after --timeout with the warnings"
	rm -f "$tmp/live.trace"
	"$writer" "$tmp/v2.trace" "$tmp/live.trace" --pause 0.005 --no-final --cut --hold 60 \
		>/dev/null &
	pids+=($!)
	# The file's idle time counts from when it appeared: wait for the writer
	# to create it (a loaded machine may take over a second to start it),
	# or a missing file times out instead, which is not what is tested here.
	local i=0
	while [[ ! -s $tmp/live.trace ]] && ((i++ < 300)); do sleep 0.1; done
	local t0=$SECONDS
	timeout 30 "$ta" --follow --interval 0.05 --timeout 1 "$tmp/live.trace" "$tmp/v2.proc" \
		>"$tmp/follow.out" 2>"$tmp/follow.err"
	rc=$?
	local took=$((SECONDS - t0))
	kill "${pids[-1]}" 2>/dev/null
	wait "${pids[-1]}" 2>/dev/null
	"$ta" -a -s "$tmp/live.trace" "$tmp/v2.proc" >"$tmp/plain.out" 2>"$tmp/plain.err"
	if ((rc != 0)); then
		t_fail "$name" "exit status $rc (124: it hung): $(head -c 400 "$tmp/follow.err")"
	elif ! grep -q 'warning: .*live.trace: offset [0-9]* .*last block is cut short' "$tmp/follow.err" ||
		! grep -q 'no final block for CPU' "$tmp/follow.err" ||
		! grep -q 'following ended: the file has not grown for 1 s' "$tmp/follow.err"; then
		t_fail "$name" "$(head -c 600 "$tmp/follow.err")"
	elif ! awk '/^### /{buf=""; next} {buf=buf $0 "\n"} END{printf "%s", buf}' \
		"$tmp/follow.out" | cmp -s - "$tmp/plain.out"; then
		t_fail "$name" "the last report differs from a run on the file as it was left"
	else
		t_pass "$name (${took} s)"
	fi

	# A producer that exits without its FINAL blocks (killed): following
	# ends at its close, without waiting for the timeout.
	name="a producer that exits without FINAL blocks ends following at once"
	rm -f "$tmp/live.trace"
	"$writer" "$tmp/v2.trace" "$tmp/live.trace" --pause 0.005 --no-final >/dev/null &
	pids+=($!)
	timeout 30 "$ta" --follow --interval 0.05 --timeout 20 "$tmp/live.trace" "$tmp/v2.proc" \
		>/dev/null 2>"$tmp/follow.err"
	rc=$?
	wait "${pids[-1]}"
	if ((rc == 0)) && grep -q 'following ended: the producer closed the file' "$tmp/follow.err" &&
		grep -q 'no final block for CPU' "$tmp/follow.err"; then
		t_pass "$name"
	else
		t_fail "$name" "exit $rc: $(head -c 400 "$tmp/follow.err")"
	fi

	# Bad input: corruption is reported as without --follow; a trace that
	# never appears ends after the timeout with the open error.
	"$bin/ltt-synth" --events 20000 --cpus 2 --processes 5 --corrupt block-magic \
		-o "$tmp/bad" >/dev/null 2>&1
	local want got
	want=$("$ta" "$tmp/bad.trace" "$tmp/bad.proc" 2>&1 >/dev/null)
	got=$(timeout 30 "$ta" --follow --interval 0.05 "$tmp/bad.trace" "$tmp/bad.proc" 2>&1 >/dev/null)
	rc=$?
	name="follow: a corrupt trace is refused as without --follow"
	if ((rc == 1)) && [[ $got == "$want" && $want == *"offset "* ]]; then
		t_pass "$name"
	else
		t_fail "$name" "exit $rc: '$got' vs '$want'"
	fi
	t_run_expect "follow: a trace that never appears ends after --timeout" 1 \
		'missing\.trace: offset 0 \(0x0\): cannot open: No such file or directory' \
		timeout 30 "$ta" --follow --interval 0.05 --timeout 0.3 "$tmp/missing.trace"
	t_run_expect "follow: --interval 0 is refused" 2 'bad --interval "0" \(seconds, 0\.01 to 86400\)' \
		"$ta" --follow --interval 0 "$tmp/v2.trace"
	t_run_expect "follow: --timeout needs seconds" 2 'bad --timeout "soon"' \
		"$ta" --follow --timeout soon "$tmp/v2.trace"
	t_run_expect "follow: --dump is refused" 2 '--follow does not combine with --dump' \
		"$ta" --follow -d "$tmp/v2.trace"
	follow_cleanup
}
