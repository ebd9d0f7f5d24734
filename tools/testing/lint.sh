#!/bin/bash
# lint.sh strict|check FILE...: checkpatch --strict and kernel-doc of the
# checker in CHECKER (default build/ksrc: linux-source-6.1's, unpacked by
# ksrc.sh) on FILEs, the module's and uAPI's sources.
#
#   strict  (make lint) any finding fails.
#   check   (make check) any finding fails when the checker is the one the
#           tree was last verified with (tools/testing/inputs.verified),
#           or under CI=true. With a newer checker, its findings are
#           printed and counted in one warning line, and the run goes on:
#           a package that changed overnight does not fail a newcomer's
#           make check, and the developer learns of it in the same run.
#
# Either way the first line names the checker and the one verified.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
mode=${1:-}
shift || true
[ "$mode" = strict ] || [ "$mode" = check ] || {
	echo "usage: lint.sh strict|check FILE..." >&2
	exit 2
}
CHECKER=${CHECKER:-$top/build/ksrc}
export CHECKER

now=$(bash "$here/inputs.sh" checker)
old=$(awk '$1 == "checker" { $1 = ""; sub(/^ /, ""); print; exit }' \
	"$here/inputs.verified" 2>/dev/null)
echo "lint: checker ${now}; verified with ${old:-nothing}"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$CHECKER/scripts/checkpatch.pl" --no-tree --strict --quiet --show-types \
	-f "$@" > "$out" 2>&1
cp_rc=$?
n=$(grep -cE '^(ERROR|WARNING|CHECK):' "$out")
n=${n:-0}
kd=$("$CHECKER/scripts/kernel-doc" -none "$@" 2>&1)
[ -z "$kd" ] || echo "$kd" >> "$out"
kd=$(grep -c . <<<"$kd")
[ -s "$out" ] && cat "$out"
if [ "$cp_rc" -ne 0 ] && [ "$n" -eq 0 ]; then
	echo "lint: checkpatch failed (status $cp_rc) without a finding" >&2
	exit 1
fi
total=$((n + kd))
[ "$total" -ne 0 ] || exit 0
if [ "$mode" = strict ] || [ "${CI:-}" = true ] || [ "$now" = "$old" ]; then
	echo "lint: $total findings" >&2
	exit 1
fi
# "linux-source-6.1 VERSION sha256:HASH": the checker's package, and the
# version the tree was verified with
read -r pkg ver _ <<<"$now"
read -r _ oldver _ <<<"$old"
echo "lint: warning: checkpatch from $pkg $ver reports $total findings new" \
	"since ${oldver:-none}: run make lint"
exit 0
