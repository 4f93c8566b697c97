#!/usr/bin/env bash
# The manual pages (man/*.scd) against the programs they describe, so the two
# cannot drift apart: every long option a program's --help prints is defined
# in its page's OPTIONS section and every option defined there is in --help;
# every placeholder of the usage line (TRACE, SECONDS, ...) is in the page's
# SYNOPSIS. Every page builds with scdoc without a message, formats with
# man --warnings without one, has a NAME line whatis can read, and names in
# SEE ALSO only pages that exist. Then `make install DESTDIR=...` puts the
# programs and pages where man(1) finds them.
#
# Adding a program is one line in `programs` below: its page and the command
# that prints its usage.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/lib/sh-test.sh"
build=${BUILD:-build}
[[ $build == /* ]] || build=$root/$build
bin=$build/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# PAGE  COMMAND... (prints the usage; its exit status is not checked here)
programs=(
	"tracedaemon.8   $bin/tracedaemon --help"
	"traceanalyze.1  $bin/traceanalyze --help"
	"traceview.1     $bin/traceview --help"
	"traceconvert.1  $bin/traceconvert --help"
	"trace.1         $root/scripts/trace --help"
	"trace.1         $root/scripts/tracecore"
	"trace.1         $root/scripts/tracecpuid"
	"ltt-mark.1      $bin/ltt-mark --help"
)
# Pages that describe no program (file formats).
no_program=(ltt-trace.5 libltt-user.3)

for tool in scdoc man lexgrog; do
	if ! command -v $tool >/dev/null; then
		t_fail "$tool is installed" "scripts/install-deps.sh installs it"
		t_summary
		exit
	fi
done

# section FILE TITLE: the lines of the .scd section "# TITLE".
section() { awk -v t="# $2" '/^# /{on = ($0 == t); next} on' "$1"; }
long_options() { grep -oE -- '--[a-z][a-z0-9-]+' | sort -u; }

# Every page builds and formats cleanly.
pages=()
for src in "$root"/man/*.scd; do
	page=$(basename "$src" .scd)
	pages+=("$page")
	out=$tmp/$page
	err=$(scdoc <"$src" 2>&1 >"$out"); rc=$?
	if ((rc != 0)) || [[ -n $err ]]; then
		t_fail "$page: scdoc builds it silently" "status $rc: $err"
		continue
	fi
	t_pass "$page: scdoc builds it silently"
	warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$out" 2>&1 >/dev/null)
	if [[ -z $warn ]]; then t_pass "$page: man --warnings is silent"
	else t_fail "$page: man --warnings is silent" "$warn"; fi
	name=${page%.*}
	t_run_expect "$page: whatis reads its NAME line" 0 ": \"$name - [a-z]" \
		lexgrog -w "$out"
	# SEE ALSO may name only ltt pages that exist.
	bad=
	for ref in $(section "$src" "SEE ALSO" | grep -oE '\*(trace|ltt)[a-z-]*\*\([0-9]\)' | tr -d '*()'); do
		[[ -f $root/man/${ref%?}.${ref: -1}.scd ]] || bad+=" ${ref%?}(${ref: -1})"
	done
	if [[ -z $bad ]]; then t_pass "$page: SEE ALSO names existing pages"
	else t_fail "$page: SEE ALSO names existing pages" "missing:$bad"; fi
done

# Every page is checked against a program, or says it describes none.
for page in "${pages[@]}"; do
	found=0
	for line in "${programs[@]}" "${no_program[@]}"; do
		[[ ${line%% *} == "$page" ]] && found=1
	done
	if ((found)); then t_pass "man/$page.scd is checked against its program"
	else t_fail "man/$page.scd is checked against its program" \
		"add a line to 'programs' (or 'no_program') in $0"; fi
done

# Each program's --help against its page.
for line in "${programs[@]}"; do
	read -r page cmd <<<"$line"
	read -ra cmd <<<"$cmd"
	prog=$(basename "${cmd[0]}")
	src=$root/man/$page.scd
	if [[ ! -f $src ]]; then
		t_fail "$prog: has a manual page" "man/$page.scd is missing"
		continue
	fi
	if [[ ! -x ${cmd[0]} ]]; then
		if [[ $prog == traceview ]] && ! pkg-config --exists gtkmm-4.0 2>/dev/null; then
			t_skip "$prog against $page" "not built (gtkmm-4.0 not installed)"
		else
			t_fail "$prog against $page" "${cmd[0]} is not built"
		fi
		continue
	fi
	help=$("${cmd[@]}" 2>&1)
	if ! grep -qi '^usage:' <<<"$help"; then
		t_fail "$prog: ${cmd[*]:1} prints a usage" "$(head -c 300 <<<"$help")"
		continue
	fi
	in_help=$(long_options <<<"$help")
	in_page=$(section "$src" OPTIONS | grep -E '^\*-' | long_options)
	missing=$(comm -23 <(echo "$in_help") <(echo "$in_page") | xargs)
	extra=$(comm -13 <(echo "$in_help") <(echo "$in_page") | xargs)
	if [[ -z $missing ]]; then t_pass "$prog: every option of --help is in $page"
	else t_fail "$prog: every option of --help is in $page" "not in the page's OPTIONS: $missing"; fi
	if [[ -z $extra ]]; then t_pass "$prog: every option in $page is in --help"
	else t_fail "$prog: every option in $page is in --help" "not in --help: $extra"; fi
	# The placeholders of the usage lines: "usage: PROG ..." and the lines
	# under it that start with the program's name.
	words=$(awk -v p="$prog" 'tolower($1) == "usage:" {on = 1; print; next}
		on && $1 == p {print; next} {on = 0}' <<<"$help" |
		grep -oE '\b[A-Z][A-Z]+\b' | sort -u)
	synopsis=$(section "$src" SYNOPSIS | tr -d '_*')
	missing=
	for w in $words; do grep -qw -- "$w" <<<"$synopsis" || missing+=" $w"; done
	if [[ -n $words && -z $missing ]]; then t_pass "$prog: the usage's operands are in $page's SYNOPSIS"
	else t_fail "$prog: the usage's operands are in $page's SYNOPSIS" "usage words: ${words//$'\n'/ }; not in SYNOPSIS:$missing"; fi
done

# make install into a directory of one's own: programs, pages, the format
# document, and man(1) finds every page by name (the aliases included).
dest=$tmp/dest
if make -s -C "$root" install BUILD="$build" PREFIX=/usr DESTDIR="$dest" >"$tmp/install.log" 2>&1; then
	t_pass "make install DESTDIR=... PREFIX=/usr"
	installed=(tracedaemon trace tracecore tracecpuid traceanalyze traceconvert ltt-mark)
	[[ -x $bin/traceview ]] && installed+=(traceview)
	for p in "${installed[@]}"; do
		t_check "installed: /usr/bin/$p" test -x "$dest/usr/bin/$p"
	done
	t_check "installed: /usr/share/doc/ltt/trace-format.md" \
		cmp "$root/docs/trace-format.md" "$dest/usr/share/doc/ltt/trace-format.md"
	t_check "ltt-synth (a test tool) is not installed" test ! -e "$dest/usr/bin/ltt-synth"
	t_check "traceview-selftest (a test tool) is not installed" \
		test ! -e "$dest/usr/bin/traceview-selftest"
	for page in "${pages[@]}" tracecore.1 tracecpuid.1; do
		t_run_expect "man finds $page in the installed tree" 0 "NAME" \
			env MANPATH="$dest/usr/share/man" MANWIDTH=80 man -P cat "${page##*.}" "${page%.*}"
	done
	# No tracedaemon in PATH: the wrapper must run the one beside it, which
	# then fails on the missing device it was given.
	t_run_expect "the installed tracecore runs the installed tracedaemon" 1 \
		"^tracedaemon: cannot open $tmp/nodev" \
		env -u TRACEDAEMON PATH=/usr/bin:/bin "$dest/usr/bin/tracecore" 1 "$tmp/t" --device "$tmp/nodev"
else
	t_fail "make install DESTDIR=... PREFIX=/usr" "$(tail -n 5 "$tmp/install.log")"
fi

# The same as an unprivileged user (nobody) from the tree built above, when
# this runs as root: install needs no root with a DESTDIR of one's own.
if [[ $(id -u) == 0 ]] && command -v runuser >/dev/null; then
	user_tmp=$(mktemp -d)
	chmod 0755 "$user_tmp"
	install -d -o nobody "$user_tmp/dest"
	if runuser -u nobody -- make -s -C "$root" -o programs -o man install BUILD="$build" \
		DESTDIR="$user_tmp/dest" >"$tmp/install-user.log" 2>&1; then
		t_check "make install DESTDIR=... as user nobody: tracedaemon and its page" \
			test -x "$user_tmp/dest/usr/local/bin/tracedaemon" -a \
			-f "$user_tmp/dest/usr/local/share/man/man8/tracedaemon.8"
	else
		t_fail "make install DESTDIR=... as user nobody" "$(tail -n 5 "$tmp/install-user.log")"
	fi
	rm -rf "$user_tmp"
fi

t_summary
