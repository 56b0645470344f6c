#!/bin/bash
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
#    LeakSanitizer, UndefinedBehaviorSanitizer) and `make check` again.
#
# Exits non-zero if anything fails. The integration tests talk only to
# 127.0.0.1 and ::1.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
SRC=$(pwd)
JOBS=$(nproc 2>/dev/null || echo 2)

PACKAGES=(build-essential autoconf automake pkg-config libevent-dev
	libldns-dev libssl-dev libcmocka-dev ldnsutils knot-dnsutils
	python3-dnspython python3-pytest iproute2 unbound nsd dnsperf procps)

say() { printf '\n=== %s\n' "$*"; }
die() { printf '\nrun-tests: %s\n' "$*" >&2; exit 1; }

missing_packages() {
	local p
	for p in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q "install ok installed" || echo "$p"
	done
}

# Install with services kept from starting: Debian's unbound and nsd
# packages would otherwise start a resolver and a server on port 53.
install_packages() {
	local policy=/usr/sbin/policy-rc.d saved="" rc
	if [ -e "$policy" ]; then
		saved=$(mktemp) && cp -p "$policy" "$saved"
	fi
	printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q && apt-get install -y -q --no-install-recommends "$@"
	rc=$?
	if [ -n "$saved" ]; then mv "$saved" "$policy"; else rm -f "$policy"; fi
	stop_packaged_daemons
	disable_new_services "$@"
	return $rc
}

# The reference unbound and nsd are installed for tests only: keep the
# services we just installed from starting at the next boot.
disable_new_services() {
	local p
	[ -d /run/systemd/system ] || return 0
	for p in "$@"; do
		case "$p" in
		unbound) systemctl disable --now unbound.service \
			unbound-resolvconf.service 2>/dev/null ;;
		nsd) systemctl disable --now nsd.service 2>/dev/null ;;
		esac
	done
	return 0
}

# Should a packaged daemon have been started anyway, stop it by its pid.
stop_packaged_daemons() {
	local f pid exe
	for f in /run/unbound.pid /run/nsd/nsd.pid /run/nsd.pid; do
		[ -s "$f" ] || continue
		pid=$(head -n1 "$f" | tr -dc 0-9)
		[ -n "$pid" ] || continue
		exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || continue
		case "$exe" in
		/usr/sbin/unbound|/usr/sbin/nsd)
			echo "stopping packaged $exe (pid $pid)"
			kill "$pid" 2>/dev/null ;;
		esac
	done
}

mapfile -t MISSING < <(missing_packages)
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

if [ ${#failed[@]} -gt 0 ]; then
	say "FAILED: ${failed[*]}"
	exit 1
fi
say "all builds and tests passed"
exit 0
