#!/usr/bin/env bash
# The KernelShark input plugin (kshark/, libkshark-input-ltt.so): loaded
# through libkshark by tests/kshark/kshark_load.cpp (ltt-kshark-load) on the
# committed traces and ltt-synth traces, where KernelShark's entries must be
# traceanalyze's events, its tasks the analysis' processes (with their
# names), its entries in time order and its info column traceanalyze -d's
# descriptions; then kernelshark itself under Xvfb with the plugin on
# tests/data/small.trace: a screenshot must show the CPU and task graphs
# (many pixels of several saturated colours) and kernelshark must still be
# running. Where pkg-config finds no libkshark the plugin is not built: the
# suite says so as a skip, which is not a pass.
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/lib/sh-test.sh"
build=$root/${BUILD:-build}
[[ ${BUILD:-build} == /* ]] && build=${BUILD}
plugin=$build/lib/libkshark-input-ltt.so load=$build/bin/ltt-kshark-load
ta=$build/bin/traceanalyze synth=$build/bin/ltt-synth
data=$root/tests/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! pkg-config --exists libkshark 2>/dev/null; then
	t_skip "KernelShark input plugin" \
		"pkg-config finds no libkshark (install libkshark-dev and the -dev packages its .pc requires: scripts/install-deps.sh)"
	t_summary
	exit
fi
for f in "$plugin" "$load" "$ta" "$synth"; do
	if [[ ! -e $f ]]; then
		t_fail "$(basename "$f") built" "missing in $build (run make: libkshark is installed, so it must build)"
		t_summary
		exit
	fi
done

# check NAME TRACE PROC: what libkshark loads against traceanalyze.
check() {
	local name=$1 trace=$2 proc=$3 out=$tmp/$1.ks json=$tmp/$1.json
	# The plugin reads the .proc beside the trace, with the same base name.
	mkdir -p "$tmp/$name.d"
	cp "$trace" "$tmp/$name.d/t.trace"
	cp "$proc" "$tmp/$name.d/t.proc"
	if ! "$load" "$plugin" "$tmp/$name.d/t.trace" >"$out" 2>"$out.err"; then
		t_fail "$name: libkshark opens it with the plugin" "$(head -c 300 "$out.err")"
		return
	fi
	"$ta" --json "$trace" "$proc" >"$json" 2>/dev/null
	local want got
	want="format ltt_trace cpus $(jq .trace.cpus "$json") entries $(jq .trace.events "$json")"
	got="$(grep -E '^(format|cpus|entries) ' "$out" | tr '\n' ' ' | sed 's/ $//')"
	if [[ $got == "$want" ]]; then
		t_pass "$name: $got"
	else
		t_fail "$name: entries = traceanalyze's events" "kshark: $got; traceanalyze: $want"
	fi
	t_check "$name: entries in time order" grep -qx 'entries-out-of-order 0' "$out"
	# Tasks: the analysis' processes (a reused pid once), and the idle task.
	want="tasks $( (echo 0; jq -r '.processes[].pid' "$json") | sort -nu | tr '\n' ' ' | sed 's/ $//')"
	got=$(grep '^tasks ' "$out")
	if [[ $got == "$want" ]]; then
		t_pass "$name: tasks = traceanalyze's processes ($(wc -w <<<"${got#tasks }"))"
	else
		t_fail "$name: tasks = traceanalyze's processes" "kshark: ${got:0:200}; traceanalyze: ${want:0:200}"
	fi
}
check small.trace "$data/small.trace" "$data/small.proc"
check tiny.trace "$data/tiny.trace" "$data/tiny.proc"
check lost.trace "$data/lost.trace" "$data/lost.proc"
check vm-sh.trace "$data/vm-sh.trace" "$data/vm-sh.proc"
# The trace built record by record (two blocks, a loss between them).
python3 "$root/tests/convert/perfetto/hand-trace.py" "$tmp/hand" &&
	check hand.trace "$tmp/hand.trace" "$tmp/hand.proc"
for v in 1 2; do
	"$synth" --events 20000 --cpus 4 --processes 6 --seed 4 --format $v -o "$tmp/synth-v$v" >/dev/null 2>&1
	check "synth-v$v" "$tmp/synth-v$v.trace" "$tmp/synth-v$v.proc"
done

# Task names: the analysis' last name of each process (names without
# characters that either side escapes).
want=$(jq -r '.processes[] | "task \(.pid) \(.name)"' "$tmp/vm-sh.trace.json" | sort -u)
got=$(grep '^task ' "$tmp/vm-sh.trace.ks" | grep -v '^task 0 ' | sort -u)
if [[ $got == "$want" ]]; then
	t_pass "vm-sh.trace: task names = traceanalyze's ($(wc -l <<<"$got"))"
else
	t_fail "vm-sh.trace: task names = traceanalyze's" "$(diff <(echo "$want") <(echo "$got") | head -n 6 | tr '\n' ' ')"
fi
t_check "tiny.trace: the idle task is <idle>" grep -qx 'task 0 <idle>' "$tmp/tiny.trace.ks"

# Entries' columns against traceanalyze -d (merged order: entry i is the
# dump's line i + 2): time, CPU, pid, event name, description.
idx=(0 1 7 20 100 150 301)
"$load" "$plugin" "$tmp/tiny.trace.d/t.trace" "${idx[@]}" >"$tmp/tiny.entries" 2>/dev/null
bad=
for i in "${idx[@]}"; do
	line=$(sed -n "$((i + 2))p" "$data/tiny.dump.txt")
	# CPU, event name, seconds, nanoseconds, pid, length, description
	if [[ $line =~ ^([0-9]+)\ +([A-Za-z][A-Za-z ]*[a-z])\ +([0-9]+)\ ([0-9]{9})\ +(-?[0-9]+)\ +[0-9]+\ \ (.*)$ ]]; then
		ns=$((10#${BASH_REMATCH[4]} + 5000000000)) # the anchor: 5 s monotonic, .000000000 s realtime
		w="entry $i: $ns ${BASH_REMATCH[1]} ${BASH_REMATCH[5]} ${BASH_REMATCH[2]} |"
		g=$(grep "^entry $i: " "$tmp/tiny.entries")
		[[ $g == "$w"* && $g == *"| ${BASH_REMATCH[6]}" ]] || bad+="[$w ... ${BASH_REMATCH[6]}] != [$g]; "
	else
		bad+="dump line $((i + 2)) unparsed: $line; "
	fi
done
if [[ -z $bad ]]; then
	t_pass "tiny.trace: entries ${idx[*]}: time, CPU, pid, event and info = traceanalyze -d's"
else
	t_fail "tiny.trace: entries' columns = traceanalyze -d's" "${bad:0:600}"
fi

# Bad input: a file that is not an ltt trace is not claimed by the plugin,
# a damaged one is refused with the reader's message.
printf 'not a trace\n' >"$tmp/junk.trace"
t_run_expect "a file that is not a trace: not opened" 1 "cannot open .*junk.trace" \
	"$load" "$plugin" "$tmp/junk.trace"
"$synth" --events 4000 --cpus 3 --processes 4 --seed 21 --corrupt block-magic \
	-o "$tmp/corrupt" >/dev/null 2>&1
t_run_expect "a damaged trace: refused with the offset" 1 \
	"ltt input: .*corrupt.trace: offset [0-9]+ \(0x[0-9a-f]+\): bad block magic" \
	"$load" "$plugin" "$tmp/corrupt.trace"

# kernelshark itself, under Xvfb.
missing=
for cmd in kernelshark xvfb-run import convert; do
	command -v "$cmd" >/dev/null || missing+=" $cmd"
done
if [[ -n $missing ]]; then
	t_fail "kernelshark, xvfb-run and ImageMagick installed" \
		"missing:$missing (scripts/install-deps.sh: kernelshark xvfb imagemagick)"
	t_summary
	exit
fi
# KernelShark run as root first asks, in a dialog, whether to go on; its
# settings (KS_USER_CACHE_DIR) can say the question was answered.
mkdir -p "$tmp/kscache"
printf '[General]\nnoRootWarn=true\n' >"$tmp/kscache/setting.ini"
cat >"$tmp/gui.sh" <<EOF
KS_USER_CACHE_DIR='$tmp/kscache' XDG_RUNTIME_DIR='$tmp' \\
	kernelshark -geometry 1200x780+0+0 -p '$plugin' -i '$tmp/small.trace.d/t.trace' \\
	--cpu 0,1 --pid 100,101 >'$tmp/ks.log' 2>&1 &
pid=\$!
# Screenshots until the graphs are there (or 60 s).
for _ in \$(seq 60); do
	sleep 1
	kill -0 \$pid 2>/dev/null || break
	import -window root '$tmp/shot.png' 2>/dev/null || continue
	# Pixels of saturated colours (chroma > 100), per colour: the graphs'
	# task colours; the window's grey widgets and text have none.
	convert '$tmp/shot.png' -format %c histogram:info:- |
		sed -nE 's/^ *([0-9]+): \\( *([0-9]+), *([0-9]+), *([0-9]+).*/\\1 \\2 \\3 \\4/p' |
		awk '{ mx = \$2; mn = \$2; for (i = 3; i <= 4; i++) { if (\$i > mx) mx = \$i; if (\$i < mn) mn = \$i }
		       if (mx - mn > 100 && \$1 >= 40) n++ } END { print n + 0 }' >'$tmp/colours'
	((\$(cat '$tmp/colours') >= 6)) && break
done
if kill -0 \$pid 2>/dev/null; then echo running >'$tmp/alive'; fi
kill \$pid 2>/dev/null
wait \$pid 2>/dev/null
true
EOF
timeout 120 xvfb-run -a -s "-screen 0 1280x800x24" bash "$tmp/gui.sh" >/dev/null 2>&1
colours=$(cat "$tmp/colours" 2>/dev/null || echo 0)
if ((colours >= 6)); then
	t_pass "kernelshark with the plugin draws the graphs ($colours saturated colours in the screenshot)"
else
	t_fail "kernelshark with the plugin draws the graphs" \
		"$colours saturated colours; kernelshark said: $(head -c 300 "$tmp/ks.log" 2>/dev/null)"
fi
t_check "kernelshark still running after drawing (no crash)" test -e "$tmp/alive"
if grep -q 'ltt input:' "$tmp/ks.log" 2>/dev/null; then
	t_fail "kernelshark: the plugin reported no problem" "$(grep 'ltt input:' "$tmp/ks.log" | head -n 3)"
else
	t_pass "kernelshark: the plugin reported no problem"
fi
[[ -n ${LTT_KSHARK_SCREENSHOT:-} && -e $tmp/shot.png ]] && cp "$tmp/shot.png" "$LTT_KSHARK_SCREENSHOT"

t_summary
