#!/usr/bin/env bash
# Checks that the trace module's graph runs one way (module/README.md,
# "Layers"): every file of module/ belongs to one layer, and each layer has
# one header (the buffer layer two: ltt_buffer.h and its inline writer,
# ltt_write.h). A file may include the headers of its own layer and of the
# layers below it, never one above; every function, static key and
# variable a layer's header declares is defined in a file of that layer
# (so a header cannot carry a call upwards), and no .c file declares a
# function itself (so none can call one without its header). The kernel
# build's -Werror=implicit-function-declaration refuses a call without a
# declaration, so together these mean a file calls only its own layer and
# the layers below.
#   module/check-layers.sh [ROOT]   prints FILE:LINE: why; exit 1 on any
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
mod=$root/module
# The layers, bottom up, with their headers and files (paths in module/).
layers=(compat buffer event probe session dev test)
declare -A headers=(
	[compat]="ltt_compat.h ltt_compat_config.h" [buffer]="ltt_buffer.h ltt_write.h"
	[event]="ltt_event.h" [probe]="ltt_probe.h" [session]="ltt_session.h"
	[dev]="" [test]=""
)
declare -A sources=(
	[compat]="" [buffer]="ltt_buffer.c" [event]="ltt_event.c ltt_vars.c"
	[probe]="ltt_probe.c ltt_fac.c ltt_tp.c ltt_tp_sys.c ltt_extra.c ltt_map.c ltt_stack.c"
	[session]="ltt_session.c" [dev]="ltt_dev.c" [test]="test/ltt_test.c"
)
declare -A rank layer_of
for i in "${!layers[@]}"; do
	l=${layers[$i]}
	rank[$l]=$i
	for f in ${headers[$l]} ${sources[$l]}; do layer_of[$f]=$l; done
done
bad=0
complain() { echo "module/$1: $2"; bad=1; }

mapfile -t files < <(cd "$mod" && find . -path ./compat -prune -o -type f \
	\( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||' | sort)
for f in "${files[@]}"; do
	[[ -n ${layer_of[$f]:-} ]] || complain "$f:1" "in no layer (add it to module/check-layers.sh and module/README.md)"
done

# Includes: only of the file's own layer or below.
for f in "${files[@]}"; do
	l=${layer_of[$f]:-}
	[[ -n $l ]] || continue
	while IFS=: read -r n inc; do
		inc=${inc#*\"} inc=${inc%%\"*} inc=${inc#../}
		il=${layer_of[$inc]:-}
		if [[ -z $il ]]; then
			complain "$f:$n" "$l includes \"$inc\", a header of no layer"
		elif ((rank[$il] > rank[$l])); then
			complain "$f:$n" "$l includes $inc of $il, a layer above it"
		fi
	done < <(grep -n '^#include "' "$mod/$f")
done

# Declarations in a header, defined in a file of the header's layer.
# A declaration starts at the first column: a prototype (NAME( ... ;), an
# extern variable, or DECLARE_STATIC_KEY_*(NAME).
declare -A defined_in
for f in "${files[@]}"; do
	[[ $f == *.c ]] || continue
	while IFS= read -r name; do
		defined_in[$name]+=" $f"
	done < <(sed -n -E \
		-e 's/^DEFINE_STATIC_KEY_[A-Z]+\((ltt_[a-z0-9_]+)\).*/\1/p' \
		-e '/^(static|extern|#|[[:space:]])/d' \
		-e 's/^[a-z][^(=;]*[ *](ltt_[a-z0-9_]+)( __[a-z_]+)*( =.*)?;$/\1/p' \
		-e '/;[[:space:]]*$/d' \
		-e 's/^[a-z][^(=]*[ *](ltt_[a-z0-9_]+)\(.*/\1/p' "$mod/$f")
done
for l in "${layers[@]}"; do
	for h in ${headers[$l]}; do
		[[ -f $mod/$h ]] || continue
		while IFS=: read -r n decl; do
			name=$(sed -n -E \
				-e 's/^DECLARE_STATIC_KEY_[A-Z]+\((ltt_[a-z0-9_]+)\).*/\1/p' \
				-e 's/^extern .*[ *](ltt_[a-z0-9_]+)( __[a-z_]+)*;$/\1/p' \
				-e '/^(static|extern)/d' \
				-e 's/^[a-z][^(=]*[ *](ltt_[a-z0-9_]+)\(.*/\1/p' <<<"$decl")
			[[ -n $name ]] || continue
			where=${defined_in[$name]:-}
			if [[ -z $where ]]; then
				complain "$h:$n" "$name, declared in $l's header, is defined in no file of the module"
				continue
			fi
			for d in $where; do
				[[ ${layer_of[$d]:-} == "$l" ]] ||
					complain "$h:$n" "$name, declared in $l's header, is defined in $d of ${layer_of[$d]:-no layer}"
			done
		done < <(grep -n -E '^(DECLARE_STATIC_KEY|extern |[a-z])' "$mod/$h" | grep -v -E '^[0-9]+:(static|struct [a-z_]+ \{|enum |union )')
	done
done

# No .c file declares a function of its own: prototypes live in headers.
for f in "${files[@]}"; do
	[[ $f == *.c ]] || continue
	while IFS=: read -r n decl; do
		complain "$f:$n" "declares ${decl%%(*}(): a declaration belongs in a layer's header"
	done < <(grep -n -E '^(extern )?[a-z][a-z0-9_ *]*[ *]ltt_[a-z0-9_]+\([^)]*\);$' "$mod/$f" |
		grep -v -E '^[0-9]+:static ' |
		sed -E 's/^([0-9]+):.*[ *](ltt_[a-z0-9_]+)\(.*/\1:\2(/')
done
exit $bad
