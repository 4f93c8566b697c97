#!/usr/bin/env bash
# Checks that libltt's layers include each other only downwards (the order in
# analysis/CMakeLists.txt and analysis/README.md): every #include of a
# <libltt/...> header in a layer's files must name a header of that layer or
# of one it may use, a libltt/internal/ header only from its own layer, and
# a quoted include must not leave its folder. The
# build enforces most of this already (a layer's target sees only the include
# directories of the layers it links); this also catches an include that the
# build lets through by accident, and files outside every layer.
#   analysis/check-layers.sh [ROOT]   prints FILE:LINE: why; exit 1 on any
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
lib=$root/analysis
base="format read describe/names describe analyze"
# A layer, then the layers its files may include besides its own.
declare -A may=(
	[format]="" [read]="format" [describe/names]=""
	[describe]="format read describe/names" [analyze]="format read describe/names describe"
	[report]=$base [convert]=$base [symbols]=$base [view]=$base
	[tools]="$base report convert symbols view"
	[daemon]="format describe/names" # tracedaemon links ltt_format and ltt_names only
)
# The layer of a file, by its path below analysis/ (daemon/src for the daemon).
layer_of() {
	case $1 in
	describe/names/*) echo describe/names ;;
	*/*) echo "${1%%/*}" ;;
	esac
}
declare -A owner # public header (libltt/NAME) -> its layer
for layer in "${!may[@]}"; do
	for h in "$lib/$layer"/include/libltt/* "$lib/$layer"/include/libltt/internal/*; do
		[[ -f $h ]] && owner[${h#"$lib/$layer/include/"}]=$layer
	done
done
bad=0
complain() { echo "$1: $2"; bad=1; }
while IFS= read -r f; do
	if [[ $f == "$root"/daemon/* ]]; then layer=daemon; else layer=$(layer_of "${f#"$lib/"}"); fi
	[[ -n $layer && -v may[$layer] ]] || { complain "${f#"$root/"}" "in no layer of libltt"; continue; }
	while IFS=: read -r line inc; do
		name=$(sed -E 's/^#include [<"]([^>"]+)[>"].*/\1/' <<<"$inc")
		rel=${f#"$root/"}:$line
		if [[ $inc == *'"'* && $name == ../* ]]; then
			complain "$rel" "$layer includes \"$name\" from outside its folder"
		elif [[ $name == libltt/* ]]; then
			o=${owner[$name]:-}
			if [[ -z $o ]]; then
				complain "$rel" "$layer includes $name, which no layer has"
			elif [[ $name == libltt/internal/* && $o != "$layer" ]]; then
				complain "$rel" "$layer includes $name, internal to $o"
			elif [[ $o != "$layer" && " ${may[$layer]} " != *" $o "* ]]; then
				complain "$rel" "$layer includes $name of $o (allowed: ${may[$layer]:-none})"
			fi
		fi
	done < <(grep -nE '^#include [<"]' "$f")
done < <(find "$lib" "$root/daemon/src" -name bench -prune -o -type f \
	\( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.inc' \) -print | sort)
exit $bad
