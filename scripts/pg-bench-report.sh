#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pg-bench-report.sh LOG: the figures of a "make bench-debian-pg" boot,
# from its serial console log (the "KGR-PG " lines of
# debian-guest/kgr-pg-bench, and the kernel log it dumps at its end), and
# the verdict.  Per transition:
#   kernel_ms   the kernel's "transition finalized N ms after its start":
#               from the start of the transition until the check that
#               found every task crossed
#   final_ms    "kgr succeeded" to "transition finalized" in the log's
#               time stamps: kgr_finalize() (the stubs switched or removed)
#   request_ms  the guest's request ("kgr-pg: request N", just before
#               insmod or the write to revert) to "transition finalized"
#   wall_ms     the same, timed by the guest's loop until in_progress
#               read 0 (polled every 100 ms)
#
# Exit status 1 (FAIL) when: the guest did not end its run (no
# "KGR-PG-END", a timeout or a crash) or said rc != 0; a pgbench run had a
# failed transaction, a client error or a non-zero exit status; fewer than
# MIN transitions; a transition not finalized, finalized later than
# BOUND_MS (kernel_ms) or WALL_BOUND_MS (request_ms) or not under load; or
# the log shows kernel badness (panic, BUG:, WARNING:, Oops, hung task) or
# a forced transition.  0 (PASS) otherwise; 2 for bad usage.
#
# Environment: BOUND_MS (default 5000), WALL_BOUND_MS (default 20000),
# MIN (default 20).

[ $# -eq 1 ] && [ -r "$1" ] || { echo "usage: $0 LOG" >&2; exit 2; }

exec awk -v bound="${BOUND_MS:-5000}" -v wbound="${WALL_BOUND_MS:-20000}" \
	-v min="${MIN:-20}" -v logf="$1" '
function stamp(line) {		# the kernel log time stamp of a line, in ms
	sub(/^[^[]*\[ */, "", line)
	sub(/\].*/, "", line)
	return line * 1000
}
function field(line, key,	a) {	# the value of key=value in line
	if (match(line, " " key "=[^ ]*")) {
		a = substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
		return a
	}
	return ""
}
function fail(why) { fails = fails "\n  - " why }
function stats(arr, n, name, unit,	i, j, t, v, med) {
	if (n == 0)
		return name ": none"
	for (i = 1; i <= n; i++)
		v[i] = arr[i] + 0	# numbers: a string sorts "1096" before "227"
	for (i = 2; i <= n; i++)	# insertion sort, n is small
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	return sprintf("%-34s min %7.0f  median %7.0f  max %7.0f %s", name, v[1], med, v[n], unit)
}

{ sub(/\r$/, "") }	# the serial console ends its lines with CR LF
/^KGR-PG begin / { begin = $0; sub(/^KGR-PG begin /, "", begin) }
/^KGR-PG kernel / { kern = $0; sub(/^KGR-PG kernel /, "", kern) }
/^KGR-PG run=/ {
	r = field($0, "run")
	runs[r] = 1
	tps[r] = field($0, "tps"); tx[r] = field($0, "transactions")
	failed[r] = field($0, "failed"); cerr[r] = field($0, "client_errors")
	rc[r] = field($0, "exit")
}
/^KGR-PG (baseline|patched): latency average/ {
	r = $2; sub(/:$/, "", r); lat[r] = $(NF - 1)
}
/^KGR-PG transition n=/ {
	n = field($0, "n") + 0
	kind[n] = field($0, "kind"); wall[n] = field($0, "wall_ms")
	load[n] = field($0, "under_load")
	if (n > ntr)
		ntr = n
}
/^KGR-PG fail: / { guestfail = guestfail "\n  - guest: " substr($0, 14) }
/^KGR-PG dmesg: .*kgr-pg: request [0-9]+ / {
	cur = $0; sub(/.*kgr-pg: request /, "", cur); cur = cur + 0
	req[cur] = stamp($0)
}
/^KGR-PG dmesg: .*kgr succeeded$/ { if (cur) succ[cur] = stamp($0) }
/^KGR-PG dmesg: .*kgr: transition finalized / {
	if (!cur)
		next
	fin[cur] = stamp($0)
	kms[cur] = $0; sub(/.*finalized /, "", kms[cur]); sub(/ ms .*/, "", kms[cur])
	how[cur] = ($0 ~ /checked at once/) ? "at once" : "periodic"
	nfin++
}
/^KGR-PG-END rc=/ { ended = 1; endrc = substr($0, 15) }
# kernel badness anywhere on the console (not in the guest dump: no doubles)
!/^KGR-PG/ && /Kernel panic|BUG:|WARNING:|Oops|Call Trace:|general protection fault|blocked for more than|INFO: task|qemu-run: TIMEOUT/ {
	bad = bad "\n    " $0
}
/^KGR-PG dmesg: .*(kgr failed after timeout|forcing the transition|the tasks above hold it|stays loaded for good)/ {
	held = held "\n    " substr($0, 15)
}
/^KGR-PG dmesg: .*kgr_pg: calls of the new code:/ { calls = $0; sub(/.*new code: */, "", calls) }

END {
	printf "bench-debian-pg: PostgreSQL + pgbench in the Debian guest, kGraft patch kgr_pg applied and reverted during the second run\n"
	printf "  log %s\n  %s\n  %s\n\n", logf, kern, begin
	printf "%-34s %14s %20s\n", "", "baseline", "during transitions"
	printf "%-34s %14s %20s", "tps", tps["baseline"], tps["patched"]
	if (tps["baseline"] > 0 && tps["patched"] != "")
		printf "  (%+.1f%%)", (tps["patched"] / tps["baseline"] - 1) * 100
	printf "\n"
	printf "%-34s %14s %20s\n", "transactions", tx["baseline"], tx["patched"]
	printf "%-34s %14s %20s\n", "latency average (ms)", lat["baseline"], lat["patched"]
	printf "%-34s %14s %20s\n", "failed transactions", failed["baseline"], failed["patched"]
	printf "%-34s %14s %20s\n", "client errors", cerr["baseline"], cerr["patched"]
	printf "%-34s %14s %20s\n\n", "pgbench exit status", rc["baseline"], rc["patched"]

	printf "%3s %-7s %10s %9s %11s %8s  %s\n", "n", "kind", "kernel_ms", "final_ms", "request_ms", "wall_ms", "finalized by"
	nk = 0; nr = 0; napply = 0; nrevert = 0
	for (i = 1; i <= ntr; i++) {
		f = (i in fin)
		printf "%3d %-7s %10s %9s %11s %8s  %s\n", i, kind[i],
			f ? kms[i] : "-",
			(f && (i in succ)) ? sprintf("%.0f", fin[i] - succ[i]) : "-",
			(f && (i in req)) ? sprintf("%.0f", fin[i] - req[i]) : "-",
			wall[i], f ? how[i] : "NOT FINALIZED"
		if (kind[i] == "apply") napply++; else nrevert++
		if (!f) {
			fail("transition " i " (" kind[i] "): no \"transition finalized\" in the log")
			continue
		}
		kk[++nk] = kms[i] + 0
		if (i in succ)
			fz[nk] = fin[i] - succ[i]
		if (i in req)
			rq[++nr] = fin[i] - req[i]
		if (kms[i] + 0 > bound)
			fail("transition " i " (" kind[i] "): kernel_ms " kms[i] " > bound " bound " ms")
		if ((i in req) && fin[i] - req[i] > wbound)
			fail(sprintf("transition %d (%s): request_ms %.0f > bound %d ms", i, kind[i], fin[i] - req[i], wbound))
		if (load[i] != 1)
			fail("transition " i " (" kind[i] "): pgbench was no longer running")
	}
	printf "\ntransitions: %d (%d apply, %d revert)\n", ntr, napply, nrevert
	print stats(kk, nk, "kernel: start to all crossed", "ms (bound " bound ")")
	print stats(fz, nk, "kgr_finalize()", "ms")
	print stats(rq, nr, "request to finalized", "ms (bound " wbound ")")
	if (calls != "")
		printf "new code ran (last cycle): %s\n", calls
	printf "held or forced transitions: %s\n", held == "" ? "none" : held
	printf "kernel badness on the console: %s\n", bad == "" ? "none" : bad

	if (!ended)
		fail("the guest did not finish its run (no KGR-PG-END: timeout or crash)")
	else if (endrc != 0)
		fail("the guest run ended with rc=" endrc guestfail)
	for (r in runs) {
		if (failed[r] != 0)
			fail(r ": " failed[r] " failed transactions")
		if (cerr[r] != 0)
			fail(r ": " cerr[r] " client errors")
		if (rc[r] != 0)
			fail(r ": pgbench exit status " rc[r])
	}
	if (!("baseline" in runs) || !("patched" in runs))
		fail("a pgbench run is missing")
	if (ntr < min)
		fail("only " ntr " transitions, fewer than " min)
	if (bad != "")
		fail("kernel badness on the console")
	if (held != "")
		fail("a transition was held or forced")
	if (fails != "") {
		printf "\nbench-debian-pg: FAIL%s\n", fails
		exit 1
	}
	printf "\nbench-debian-pg: PASS (%d transitions under load, each finalized within %d ms of its start and %d ms of its request, no client error)\n", ntr, bound, wbound
}' "$1"
