# SPDX-License-Identifier: BSD-3-Clause
# contrib/packages.sh - sourced by run-tests.sh, demo.sh and bench/run.sh:
# which Debian packages are missing, and installing them without letting
# a packaged unbound or nsd start (they would take port 53 and, for
# unbound, a resolver with the real root hints).

# Print the packages of "$@" that are not installed.
missing_packages() {
	local p
	for p in "$@"; do
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
