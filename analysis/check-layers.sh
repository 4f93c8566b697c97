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
declare -A owner # public header (libltt/NAME) -> its layer
for layer in "${!may[@]}"; do
	for h in "$lib/$layer"/include/libltt/* "$lib/$layer"/include/libltt/internal/*; do
		[[ -f $h ]] && owner[${h#"$lib/$layer/include/"}]=$layer
	done
done
bad=0
complain() { echo "$1: $2"; bad=1; }
# One grep over every file (a fork per include is slow on a busy machine).
mapfile -t files < <(find "$lib" "$root/daemon/src" -name bench -prune -o -type f \
	\( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.inc' \) -print | sort)
declare -A seen
while IFS= read -r hit; do
	f=${hit%%:*} rest=${hit#*:}
	line=${rest%%:*} inc=${rest#*:}
	rel=${f#"$root/"}
	case $rel in # the file's layer
	daemon/*) layer=daemon ;;
	analysis/describe/names/*) layer=describe/names ;;
	analysis/*/*) layer=${rel#analysis/} layer=${layer%%/*} ;;
	*) layer= ;;
	esac
	if [[ -z $layer || ! -v may[$layer] ]]; then
		[[ -v seen[$f] ]] || complain "$rel" "in no layer of libltt"
		seen[$f]=1
		continue
	fi
	[[ $inc =~ ^#include\ [\<\"]([^\>\"]+)[\>\"] ]] || continue
	name=${BASH_REMATCH[1]}
	rel=$rel:$line
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
done < <(grep -HnE '^#include [<"]' "${files[@]}")
exit $bad
