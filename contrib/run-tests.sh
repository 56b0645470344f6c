#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# contrib/run-tests.sh - build and test everything, on a fresh Debian 12, as
# root, from a clone of the repository:
#
#     contrib/run-tests.sh
#
# 1. installs the packages it needs (skipped when all are there already),
# 2. autoreconf -fi,
# 3. a normal out-of-tree build in build/ and `make check` (unit tests and
#    the integration tests in testdata/integration),
# 4. a second build in build-asan/ with --enable-sanitizers (AddressSanitizer,
#    LeakSanitizer, UndefinedBehaviorSanitizer) and `make check` again,
# 5. the fuzzing build in build-fuzz/ (clang, libFuzzer, ASan/UBSan):
#    contrib/fuzz.sh 60 runs every harness over its seeds and regression
#    inputs and then a minute on new inputs (issue 14); any crash fails
#    (two harnesses at a time: about 8 min for the 15). Each stage line
#    shows the seconds since the start ([123s]), to keep CI under 60 min.
#
# Exits non-zero if anything fails. The integration tests talk only to
# 127.0.0.1 and ::1.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
SRC=$(pwd)
JOBS=$(nproc 2>/dev/null || echo 2)

PACKAGES=(build-essential autoconf automake pkg-config libevent-dev
	libldns-dev libssl-dev libcmocka-dev ldnsutils knot-dnsutils
	python3-dnspython python3-cryptography python3-pytest iproute2 unbound
	nsd dnsperf procps dns-root-data clang libclang-rt-14-dev
	libexpat1-dev unbound-anchor libnghttp2-dev python3-h2 curl
	libhiredis-dev redis-server libfstrm-dev libprotobuf-c-dev
	protobuf-c-compiler fstrm-bin dnstap-ldns)

say() { printf '\n=== [%ds] %s\n' "$SECONDS" "$*"; }
die() { printf '\nrun-tests: %s\n' "$*" >&2; exit 1; }

# missing_packages, install_packages
. "$SRC/contrib/packages.sh"

mapfile -t MISSING < <(missing_packages "${PACKAGES[@]}")
if [ ${#MISSING[@]} -gt 0 ]; then
	say "installing: ${MISSING[*]}"
	[ "$(id -u)" = 0 ] || die "run as root to install: ${MISSING[*]}"
	install_packages "${MISSING[@]}" || die "package installation failed"
else
	say "all packages present, skipping apt"
fi

say "autoreconf -fi"
autoreconf -fi || die "autoreconf failed"

# name, configure arguments; then make check with the environment given
build_and_check() {
	local dir=$1; shift
	say "$dir: configure $*"
	mkdir -p "$SRC/$dir" && cd "$SRC/$dir" || return 1
	"$SRC/configure" -q "$@" || return 1
	say "$dir: make"
	make -j"$JOBS" || return 1
	say "$dir: make check"
	make check || return 1
	cd "$SRC" || return 1
}

failed=()
build_and_check build || failed+=(build)
cd "$SRC" || exit 1

(
	export ASAN_OPTIONS=detect_leaks=1
	export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
	build_and_check build-asan --enable-sanitizers
) || failed+=(build-asan)
cd "$SRC" || exit 1

say "build-fuzz: contrib/fuzz.sh 60"
FUZZ_JOBS=$JOBS "$SRC/contrib/fuzz.sh" 60 || failed+=(build-fuzz)
cd "$SRC" || exit 1

if [ ${#failed[@]} -gt 0 ]; then
	say "FAILED: ${failed[*]}"
	exit 1
fi
say "all builds and tests passed"
exit 0
