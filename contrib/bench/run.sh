#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# contrib/bench/run.sh - the dnsperf cache-hit benchmark: this resolver
# (build/unbound) side by side with Debian's Unbound 1.17 and a trivial
# responder (the floor), all on loopback, never the real root. As root
# on Debian 12, from the repository:
#
#     contrib/bench/run.sh                        # UDP, 1 thread, 3 x 10 s
#     contrib/bench/run.sh --mode tcp
#     contrib/bench/run.sh --mode doh           # DoH (dnsperf -m doh), TLS/h2
#     contrib/bench/run.sh --mode doh --doh-client dohload  # lighter client
#     contrib/bench/run.sh --mode tcstorm       # TC=1 storm: TCP upstream
#     contrib/bench/run.sh --threads 2 --reuseport yes
#     contrib/bench/run.sh --conn-rate            # TCP connections/s
#     contrib/bench/run.sh --callgrind            # instructions per query
#     contrib/bench/run.sh --misses --unsigned    # cache misses, with the
#         floor: missfloor.c, a new random-port socket per upstream query
#         and nothing else (doc/performance.md "The floor of a miss")
#     contrib/bench/run.sh --misses --unsigned --floor-variant floor= \
#         --floor-variant nodel=-k --floor-variant sendto=-s  # variants
#     contrib/bench/run.sh --no-ref --no-trivial \
#         --ours-variant iprl='ip-ratelimit: 1000000' --ours-variant aa=
#         # this resolver twice or more, one config a column, the rounds
#         # interleaved; per-round ratios against ours (aa=: an A/A column)
#
# Other options: --rate Q (dnsperf -Q), --seconds S, --rounds R,
# --names N, --clients C (dnsperf -c, default 32, TCP 16), --server-cpus 0,
# --client-cpus 1, --conf-line "OPTION: VALUE", --no-p99, --keep; see
# contrib/bench/bench.py --help.
#
# 1. installs dnsperf, nsd, unbound, python3-dnspython, valgrind when
#    missing (with a policy-rc.d that exits 101, so no packaged service
#    starts),
# 2. builds the project in $BUILD (default build/) when needed (NO_BUILD=1:
#    use the unbound binary there as it is), and the
#    helpers trivial_responder, connrate, dohload, missfloor and udpflood
#    (attack_bench.py's sender) in $BUILD/bench/,
# 3. runs contrib/bench/bench.py, which starts NSD, the servers and the
#    clients, prints the tables, and stops everything it started by PID
#    (also on Ctrl-C, kill, hang-up: its signal handler and finally).
set -uo pipefail

cd "$(dirname "$0")/../.." || exit 1
SRC=$(pwd)
BUILD=${BUILD:-build}
JOBS=$(nproc 2>/dev/null || echo 2)
PACKAGES=(build-essential pkg-config libevent-dev libldns-dev libssl-dev libnghttp2-dev
	dnsperf nsd unbound python3-dnspython valgrind procps util-linux)

die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

# missing_packages, install_packages
. "$SRC/contrib/packages.sh"

mapfile -t MISSING < <(missing_packages "${PACKAGES[@]}")
if [ ${#MISSING[@]} -gt 0 ]; then
	echo "bench: installing ${MISSING[*]}"
	[ "$(id -u)" = 0 ] || die "run as root to install: ${MISSING[*]}"
	install_packages "${MISSING[@]}" || die "package installation failed"
fi

# The project: configure once, then make (a no-op when up to date).
mkdir -p "$BUILD" || die "cannot create $BUILD"
if [ ! -f "$BUILD/Makefile" ]; then
	[ -x configure ] || autoreconf -fi || die "autoreconf failed"
	(cd "$BUILD" && "$SRC/configure" -q) || die "configure failed"
fi
if [ -n "${NO_BUILD:-}" ] && [ -x "$BUILD/unbound" ]; then
	echo "bench: NO_BUILD set, using $BUILD/unbound as it is"
else
	make -C "$BUILD" -j"$JOBS" unbound >/dev/null || die "build failed"
fi
mkdir -p "$BUILD/bench"
cc -O2 -Wall -Wextra -o "$BUILD/bench/trivial_responder" \
	contrib/bench/trivial_responder.c || die "trivial_responder build"
cc -O2 -Wall -Wextra -pthread -o "$BUILD/bench/connrate" \
	contrib/bench/connrate.c -lssl -lcrypto || die "connrate build"
cc -O2 -Wall -Wextra -o "$BUILD/bench/dohload" contrib/bench/dohload.c \
	-lnghttp2 -lssl -lcrypto || die "dohload build"
cc -O2 -Wall -Wextra -o "$BUILD/bench/missfloor" contrib/bench/missfloor.c \
	|| die "missfloor build"
# the open-loop attack sender of contrib/bench/attack_bench.py
cc -O2 -Wall -Wextra -o "$BUILD/bench/udpflood" contrib/bench/udpflood.c \
	|| die "udpflood build"

# exec: bench.py is then the process a signal (Ctrl-C, kill) reaches; its
# handler and its finally stop, by PID, everything it started.
exec /usr/bin/python3 contrib/bench/bench.py --ours "$BUILD/unbound" \
	--trivial "$BUILD/bench/trivial_responder" \
	--connrate "$BUILD/bench/connrate" --dohload "$BUILD/bench/dohload" \
	--floor "$BUILD/bench/missfloor" "$@"
