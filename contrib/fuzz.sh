#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# contrib/fuzz.sh [SECONDS] - build the fuzzing build in build-fuzz/ (clang,
# libFuzzer, ASan/UBSan: configure --enable-fuzzing) and run every
# harness for SECONDS (default 60), FUZZ_JOBS at a time, each over its
# seed corpus and regression inputs (testdata/fuzz/NAME/). New
# interesting inputs go to build-fuzz/corpus/NAME/ (the committed corpus
# is only read); a crash leaves build-fuzz/findings/NAME/crash-*.
# Prints per harness: executions per second, edges covered (cov:), the
# corpus size, and the findings. Exits 1 when a harness failed.
#
#     contrib/fuzz.sh 60            # a short run of every harness
#     FUZZ_ONLY="upstream" contrib/fuzz.sh 3600   # one harness, an hour
#
# FUZZ_JOBS: make -j and harnesses run at once (default 2). A finding: reproduce it with
#     build-fuzz/testdata/fuzz/fuzz_NAME build-fuzz/findings/NAME/crash-...
# fix it, and keep the input as testdata/fuzz/NAME/crash-WHAT, which
# `make check` then runs in every build (testdata/fuzz/regress_NAME).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
SRC=$(pwd)
SECS=${1:-60}
JOBS=${FUZZ_JOBS:-2}
NAMES=${FUZZ_ONLY:-"query_udp query_tcp upstream config cacheload control prom_http validate query_https autotrust anchor_xml cookie_file ecs cachedb_value respip_rewrite proxy_v2 xfr_wire rpz_zone zonemd xfr_http stats_shm error_report"}
B=$SRC/build-fuzz

dict_of() {
	case $1 in
	query_udp|query_tcp|upstream|validate|query_https|ecs|error_report|respip_rewrite|cachedb_value|xfr_wire|rpz_zone|zonemd) echo "$SRC/testdata/fuzz/dns.dict" ;;
	config) echo "$SRC/testdata/fuzz/config.dict" ;;
	control) echo "$SRC/testdata/fuzz/control.dict" ;;
	autotrust) echo "$SRC/testdata/fuzz/autotrust.dict" ;;
	anchor_xml) echo "$SRC/testdata/fuzz/anchor_xml.dict" ;;
	proxy_v2) echo "$SRC/testdata/fuzz/proxy_v2.dict" ;;
	esac
}

command -v clang >/dev/null || { echo "fuzz.sh: clang is needed" >&2; exit 1; }
[ -x "$SRC/configure" ] || autoreconf -fi || exit 1
mkdir -p "$B" && cd "$B" || exit 1
# configure again when configure changed (a new library check, say)
if [ ! -f Makefile ] || ! grep -q '^ENABLE_FUZZING = yes' Makefile ||
	[ "$SRC/configure" -nt config.status ]; then
	CC=clang "$SRC/configure" -q --enable-fuzzing || exit 1
fi
make -j"$JOBS" fuzzers >make-fuzzers.log 2>&1 || {
	tail -30 make-fuzzers.log; echo "fuzz.sh: build failed" >&2; exit 1; }

# one harness: its run and its log (stdout of the harness is noise:
# config printing; stderr carries libFuzzer's and the sanitizers'
# reports); the exit status goes to $B/fuzz-NAME.rc
run_one() {
	local n=$1 d
	mkdir -p "$B/corpus/$n" "$B/findings/$n"
	d=$(dict_of "$n")
	"$B/testdata/fuzz/fuzz_$n" -max_total_time="$SECS" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -close_fd_mask=1 \
		-artifact_prefix="$B/findings/$n/" ${d:+-dict="$d"} \
		"$B/corpus/$n" "$SRC/testdata/fuzz/$n" >"$B/fuzz-$n.log" 2>&1
	echo $? >"$B/fuzz-$n.rc"
}

# JOBS harnesses at a time (each is one process on one core): on CI's
# two cores the fifteen minute-long runs take under eight minutes
running=0
for n in $NAMES; do
	if [ $running -ge "$JOBS" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_one "$n" &
	running=$((running + 1))
done
wait

failed=()
printf '\n%-10s %8s %6s %6s %8s  %s\n' harness exec/s cov ft corpus findings
for n in $NAMES; do
	fnd=$B/findings/$n
	log=$B/fuzz-$n.log
	rc=$(cat "$B/fuzz-$n.rc" 2>/dev/null || echo 99)
	last=$(grep -E '^#[0-9]+' "$log" | tail -1)
	cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.*corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<<"$last")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	crashes=$(ls "$fnd" 2>/dev/null | wc -l)
	if [ "$rc" -ne 0 ]; then
		failed+=("$n")
		what="FAILED (rc $rc): $(ls "$fnd" | tr '\n' ' ')see $log"
	elif [ "$crashes" -gt 0 ]; then
		failed+=("$n")
		what="$crashes in $fnd"
	else
		what=none
	fi
	printf '%-10s %8s %6s %6s %8s  %s\n' "$n" "${eps:-?}" "${cov:-?}" \
		"${ft:-?}" "${corp:-?}" "$what"
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz.sh: FAILED: ${failed[*]}" >&2
	grep -h -A12 -E '^==[0-9]+==ERROR|runtime error|deadly signal|Test unit written' \
		"$B"/fuzz-*.log | head -60 >&2
	exit 1
fi
echo "fuzz.sh: no findings (${SECS}s per harness)"
exit 0
