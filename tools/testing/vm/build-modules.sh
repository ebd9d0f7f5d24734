#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-modules.sh KDIR OUT: the two modules every guest kernel runs, built
# against KDIR from copies of the sources (build-copy.sh): OUT/mwin.ko, and
# OUT/mwin-test.ko, the test build (MWIN_TEST=1) for selftests/mwin_delays.c.
# Their objects stay in OUT/src and OUT/test-src, so a rebuild is quick.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kdir=$1 out=$2

bash "$here/build-copy.sh" "$kdir" "$out/src"
bash "$here/build-copy.sh" "$kdir" "$out/test-src" MWIN_TEST=1
cp "$out/src/mwin.ko" "$out/mwin.ko"
cp "$out/test-src/mwin.ko" "$out/mwin-test.ko"
