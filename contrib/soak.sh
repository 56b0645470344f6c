#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# contrib/soak.sh [--minutes N] [--workdir DIR] [--flood-seconds S]
#
# The soak test with faults (issue 14), as root (the test internet is on
# port 53 of 127.x addresses; nothing leaves loopback). Builds the
# sanitizer build in build-asan/ (configure --enable-sanitizers) with
# the failure shim, then runs contrib/soak/soak.py: the test internet,
# the daemon (2 threads, so-reuseport, control and Prometheus), dnsperf
# at 80% of a calibrated rate for N minutes (default 10) with TCP abuse,
# operations and faults, then a hostile flood. Prints the figures and
# the checks; exits 1 when one failed. Every process it starts is
# stopped by PID at the end, also on Ctrl-C.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
SRC=$(pwd)
B=${SOAK_BUILDDIR:-$SRC/build-asan}
command -v dnsperf >/dev/null || { echo "soak.sh: dnsperf is needed" >&2; exit 1; }
[ -x "$SRC/configure" ] || autoreconf -fi || exit 1
mkdir -p "$B" && cd "$B" || exit 1
if [ ! -f Makefile ]; then
	"$SRC/configure" -q --enable-sanitizers || exit 1
fi
make -j2 unbound unbound-control testdata/failalloc_shim.so >make-soak.log 2>&1 || {
	tail -20 make-soak.log; exit 1; }
cd "$SRC" || exit 1
exec /usr/bin/python3 "$SRC/contrib/soak/soak.py" --builddir "$B" "$@"
