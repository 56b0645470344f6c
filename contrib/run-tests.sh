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
#    (4 and 5 compile in the background, at the lowest priority, while
#    the tests of 3 run),
# 5. the fuzzing build in build-fuzz/ (clang, libFuzzer, ASan/UBSan):
#    contrib/fuzz.sh 60 runs every harness over its seeds and regression
#    inputs and then a minute on new inputs (issue 14); any crash fails
#    (one harness at a time, at the lowest priority, while the tests of
#    4 run). Each stage line shows the seconds since the start ([123s]),
#    to keep CI under 60 min.
#
# Exits non-zero if anything fails. The integration tests talk only to
# 127.0.0.1 and ::1.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
SRC=$(pwd)
JOBS=$(nproc 2>/dev/null || echo 2)

PACKAGES=(build-essential autoconf automake pkg-config libevent-dev
	libldns-dev libssl-dev libcmocka-dev ldnsutils knot-dnsutils
	python3-dnspython python3-cryptography python3-pytest python3-pytest-xdist iproute2 unbound
	nsd dnsperf procps dns-root-data clang libclang-rt-14-dev
	libexpat1-dev unbound-anchor libnghttp2-dev python3-h2 curl
	libhiredis-dev redis-server haproxy libfstrm-dev libprotobuf-c-dev
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

# dir, configure arguments: configure and make
build_only() {
	local dir=$1; shift
	say "$dir: configure $*"
	mkdir -p "$SRC/$dir" && cd "$SRC/$dir" || return 1
	"$SRC/configure" -q "$@" || return 1
	say "$dir: make"
	make -j"$JOBS" || return 1
	cd "$SRC" || return 1
}

# dir: make check there (the environment as given); the output also goes
# to DIR/check.log, whose failures the last lines repeat (CI shows only the
# tail of a long log)
check_only() {
	say "$1: make check"
	cd "$SRC/$1" || return 1
	make check 2>&1 | tee "$SRC/$1/check.log"
	local rc=${PIPESTATUS[0]}
	cd "$SRC" || return 1
	return "$rc"
}

# dir: the failure lines of its check.log (pytest's summary, unit tests)
show_failures() {
	[ -f "$SRC/$1/check.log" ] || return 0
	echo "--- $1: failures (from $1/check.log)"
	grep -E '(FAILED|ERROR) \.\./|^(FAILED|ERROR) |^[^ ]+ (FAILED|ERROR)|^FAIL:|^\[  FAILED  \]|Error [0-9]+$|^=+ .*(failed|error).* =+$' \
		"$SRC/$1/check.log" | sort -u | head -60
}

# The sanitizer and fuzzing builds compile at the lowest priority while
# the plain build's tests run: those wait on sockets and timers more than
# they use the CPU, so the compiling (minutes on two cores) mostly comes
# for free. One compiler at a time, so the tests keep a core.
prebuild() {
	mkdir -p "$SRC/build-asan" "$SRC/build-fuzz" || return 1
	(cd "$SRC/build-asan" && "$SRC/configure" -q --enable-sanitizers &&
		make all unit-tests fuzz-regress) || return 1
	(cd "$SRC/build-fuzz" && CC=clang "$SRC/configure" -q --enable-fuzzing &&
		make fuzzers) || return 1
}

failed=()
plain_built=yes
build_only build || { failed+=(build); plain_built=no; }
cd "$SRC" || exit 1

say "build-asan, build-fuzz: compiling in the background (prebuild.log)"
nice -n 19 bash -c "$(declare -f prebuild); SRC='$SRC' prebuild" \
	>"$SRC/prebuild.log" 2>&1 &
prebuild_pid=$!

[ $plain_built = yes ] && { check_only build || failed+=(build); }
cd "$SRC" || exit 1

wait "$prebuild_pid"
prebuild_rc=$?
say "background builds done (exit $prebuild_rc)"
[ $prebuild_rc = 0 ] || tail -40 "$SRC/prebuild.log"

# The fuzzing minute per harness runs one harness at a time at the lowest
# priority beside the sanitizer tests (which mostly wait on sockets and
# timers): about 18 min of wall time that used to come after them (9 min
# with two at a time), now hidden inside their ~25 min.
say "build-fuzz: contrib/fuzz.sh 60 in the background, one at a time (fuzz.log)"
FUZZ_JOBS=1 nice -n 19 "$SRC/contrib/fuzz.sh" 60 >"$SRC/fuzz.log" 2>&1 &
fuzz_pid=$!

(
	export ASAN_OPTIONS=detect_leaks=1
	export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
	# make again: a no-op after the background build, the whole build
	# (with its errors shown) if that failed
	if [ -f "$SRC/build-asan/Makefile" ]; then
		say "build-asan: make"
		(cd "$SRC/build-asan" && make -j"$JOBS") || exit 1
	else
		build_only build-asan --enable-sanitizers || exit 1
	fi
	check_only build-asan
) || failed+=(build-asan)
cd "$SRC" || exit 1

wait "$fuzz_pid"
fuzz_rc=$?
say "build-fuzz: contrib/fuzz.sh 60 done (exit $fuzz_rc)"
cat "$SRC/fuzz.log"
[ $fuzz_rc = 0 ] || failed+=(build-fuzz)

if [ ${#failed[@]} -gt 0 ]; then
	say "FAILED: ${failed[*]}"
	for f in "${failed[@]}"; do show_failures "$f"; done
	exit 1
fi
say "all builds and tests passed"
exit 0
