#!/bin/bash
# lint-test.sh: make check's test of its own style gate. A fake newer
# checker, linux-source-6.1's with one word added to its spelling list (a
# word the tree has, so that it finds something), must make make check's
# gate (make lint-check) pass with the warning line, make lint fail, and
# make lint-check fail under CI=true. Log: build/lint-test/*.log.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
dir=$top/build/lint-test
fake=$dir/checker
fail=0

rm -rf "$dir"
mkdir -p "$fake"
cp -r "$top/build/ksrc/scripts" "$top/build/ksrc/.version" "$fake/"
sed -i 's/$/+fake/' "$fake/.version"
echo 'mwin||mw in' >> "$fake/scripts/spelling.txt"

# gate NAME EXPECTED TARGET [CI]: one run of make TARGET with the fake
# checker (CI unset, or set to the fourth argument); EXPECTED: 0 or fail
gate() {
	local name=$1 want=$2 target=$3 rc
	(
		unset CI
		[ -z "${4:-}" ] || export CI=$4
		make -s -C "$top" --no-print-directory -o deps CHECKER="$fake" \
			"$target"
	) > "$dir/$name.log" 2>&1
	rc=$?
	if { [ "$want" = 0 ] && [ "$rc" = 0 ]; } ||
	   { [ "$want" = fail ] && [ "$rc" != 0 ]; }; then
		echo "lint-test: ok: $name (status $rc)"
	else
		echo "lint-test: FAILED: $name: status $rc (log $dir/$name.log)"
		tail -n 5 "$dir/$name.log" | sed 's/^/lint-test:   /'
		fail=1
	fi
}

gate lint-check 0 lint-check
if grep -qE '^lint: warning: checkpatch from linux-source-6\.1 [^ ]+\+fake reports [1-9][0-9]* findings new since [^ ]+: run make lint$' \
	"$dir/lint-check.log"; then
	echo "lint-test: ok: the warning line: $(grep '^lint: warning' "$dir/lint-check.log")"
else
	echo "lint-test: FAILED: no warning line in $dir/lint-check.log"
	fail=1
fi
gate lint fail lint
gate lint-check-ci fail lint-check true
[ "$fail" = 0 ] && echo "lint-test: the style gate holds"
exit "$fail"
