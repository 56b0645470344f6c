#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# contrib/demo.sh - install what is missing, build, start the bundled
# loopback test internet (NSD servers for a root, TLDs and child zones on
# 127.0.0.x, the same ones the tests use) and the resolver against it
# (127.0.0.1 port 5353, contrib/demo.conf); show it resolving through
# delegations, answering the second ask from its cache, and answering
# local data over UDP and TCP; then keep it running until Ctrl-C.
#
#     contrib/demo.sh          # as root on Debian 12, from a clone
#     contrib/demo.sh --once   # stop after the demo queries
#
# The daemon and the test internet are always stopped by PID when this
# script exits. Nothing is sent off the machine: the resolver's only root
# server is the loopback one.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
SRC=$(pwd)
ONCE=no
case "${1:-}" in
--once) ONCE=yes ;;
"") ;;
*) echo "usage: $0 [--once]" >&2; exit 2 ;;
esac

PORT=5353
PACKAGES=(build-essential autoconf automake pkg-config libevent-dev
	libldns-dev libssl-dev ldnsutils knot-dnsutils iproute2 procps nsd
	python3-dnspython)
TESTNET=(/usr/bin/python3 "testdata/testnet/testnet.py")

say() { printf '\n=== %s\n' "$*"; }
die() { printf '\ndemo: %s\n' "$*" >&2; exit 1; }

# missing_packages, install_packages (no packaged nsd or unbound starts)
. "$SRC/contrib/packages.sh"
mapfile -t missing < <(missing_packages "${PACKAGES[@]}")
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "run as root to install: ${missing[*]}"
	say "installing: ${missing[*]}"
	install_packages "${missing[@]}" || die "package installation failed"
fi

if [ ! -x "$SRC/configure" ] || [ "$SRC/configure.ac" -nt "$SRC/configure" ]
then
	say "autoreconf -fi"
	autoreconf -fi || die "autoreconf failed"
fi
mkdir -p "$SRC/build" && cd "$SRC/build" || exit 1
if [ ! -f Makefile ] || [ "$SRC/configure" -nt Makefile ]; then
	say "configure"
	"$SRC/configure" -q || die "configure failed"
fi
say "make"
make -j"$(nproc 2>/dev/null || echo 2)" unbound unbound-checkconf >/dev/null ||
	die "build failed (run make in build/ to see why)"
cd "$SRC" || exit 1

if ss -Hlun "sport = :$PORT" | grep -q . || ss -Hltn "sport = :$PORT" | grep -q .
then
	die "port $PORT is in use on this machine; stop what uses it first"
fi

# A private copy of the config with the pidfile and logfile in a temp dir.
WORK=$(mktemp -d /tmp/unbound-demo.XXXXXX)
sed -e "s|^\([[:space:]]*\)pidfile: .*|\1pidfile: \"$WORK/unbound.pid\"|" \
	-e "s|^\([[:space:]]*\)directory: .*|\1directory: \"$WORK\"|" \
	-e "s|^\([[:space:]]*\)root-hints: .*|\1root-hints: \"$WORK/net/root.hints\"|" \
	"$SRC/contrib/demo.conf" > "$WORK/demo.conf"
printf '\tlogfile: "%s"\n' "$WORK/unbound.log" >> "$WORK/demo.conf"
# without its root-hints line the resolver would use the built-in (real)
# root servers: refuse to run rather than reach them
grep -q "root-hints: \"$WORK/net/root.hints\"" "$WORK/demo.conf" ||
	die "demo.conf has no root-hints line to point at the test internet"

say "unbound-checkconf"
"$SRC/build/unbound-checkconf" "$WORK/demo.conf" || die "config check failed"

PID=""
TAIL=""
NET=""
cleanup() {
	if [ -n "$TAIL" ]; then kill "$TAIL" 2>/dev/null; fi
	if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
		echo
		echo "stopping unbound (pid $PID)"
		kill -TERM "$PID" 2>/dev/null
		for _ in $(seq 50); do
			kill -0 "$PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$PID" 2>/dev/null && kill -KILL "$PID" 2>/dev/null
		wait "$PID" 2>/dev/null
	fi
	if [ -n "$NET" ]; then
		echo "stopping the test internet"
		"${TESTNET[@]}" stop "$WORK/net" >/dev/null 2>&1
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" = 0 ] || die "the test internet listens on port 53: run as root"
say "starting the loopback test internet (NSD on 127.0.0.x port 53)"
NET=yes
"${TESTNET[@]}" start "$WORK/net" || die "the test internet did not start"

say "starting: build/unbound -d -c $WORK/demo.conf"
"$SRC/build/unbound" -d -c "$WORK/demo.conf" &
PID=$!
up=no
for _ in $(seq 100); do
	kill -0 "$PID" 2>/dev/null || break
	if drill -Q -p "$PORT" @127.0.0.1 www.demo.test A >/dev/null 2>&1; then
		up=yes; break
	fi
	sleep 0.1
done
if [ "$up" != yes ]; then
	cat "$WORK/unbound.log" 2>/dev/null
	die "unbound did not come up"
fi
echo "unbound is running, pid $PID, answering on 127.0.0.1 port $PORT"

show() { printf '\n$ %s\n' "$*"; "$@"; }
echo
echo "# recursion from the loopback root: referrals, glue, an out-of-bailiwick"
echo "# name server, a CNAME chain across three zones"
show kdig -p "$PORT" @127.0.0.1 +noall +answer +stats www.example.tld1 A
show kdig -p "$PORT" @127.0.0.1 +noall +answer www.example.tld2 A
show kdig -p "$PORT" @127.0.0.1 +noall +answer chain.example.tld1 A
show kdig -p "$PORT" @127.0.0.1 +noall +header nonexistent.example.tld1 A
sleep 2
echo
echo "# the second ask comes from the cache: no upstream query, TTL lower"
show kdig -p "$PORT" @127.0.0.1 +noall +answer +stats www.example.tld1 A
echo
echo "# local data"
show drill -p "$PORT" @127.0.0.1 www.demo.test A
show kdig -p "$PORT" @127.0.0.1 +tcp +noall +answer www.demo.test AAAA
show kdig -p "$PORT" @127.0.0.1 +noall +answer demo.test TXT
show kdig -p "$PORT" @127.0.0.1 +noall +answer -x 192.0.2.10
show kdig -p "$PORT" @127.0.0.1 +tcp +noall +answer anything.lan.test A
show kdig -p "$PORT" @127.0.0.1 +noall +header ads.test A
show kdig -p "$PORT" @127.0.0.1 +noall +answer +tcp localhost A
show kdig -p "$PORT" @127.0.0.1 +noall +answer id.server CH TXT

say "who answered (log-queries; [pid:thread])"
grep -E 'info: 127\.0\.0\.1 ' "$WORK/unbound.log" | tail -n 12

if [ "$ONCE" = yes ]; then
	exit 0
fi
say "unbound keeps running; query it with e.g. 'drill -p $PORT @127.0.0.1 www.demo.test'; Ctrl-C to stop"
tail -n 0 -f "$WORK/unbound.log" --pid="$PID" &
TAIL=$!
wait "$PID"
echo "unbound exited with status $?"
PID=""
