#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# totals.sh LOG: add up the kselftest "# Totals:" lines of a console log and
# print "PASS FAIL SKIP" (errors count as failures).
tr -d '\r' < "$1" | awk '
	/^# Totals:/ {
		for (i = 3; i <= NF; i++) {
			split($i, kv, ":")
			n[kv[1]] += kv[2]
		}
	}
	END { print n["pass"] + 0, n["fail"] + n["error"] + 0, n["skip"] + 0 }'
