#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The test command: installs what is missing, builds everything and runs
# every test, then prints one line "N passed, M failed".
#
#   stage      what                                          where
#   setup      scripts/setup.sh (apt, idempotent)            host
#   build      module (W=1), library, admin tool, selftests  host
#   style      checkpatch --strict on kmod/, warning-free    host
#   host       lib + txrdma-admin unit tests (ASan/UBSan),   host
#              doc numbers vs headers (check_doc_numbers.py),
#              man pages (check_man.py: mandoc lint, coverage),
#              the docs' C examples compiled (check_doc_code.py)
#   kunit      txrdma_* suites on UML (scripts/kunit.sh)     host (UML)
#   vm         kselftests in 2 QEMU guests with rxe          QEMU
#   debug      debug kernel (KASAN, lockdep, kmemleak) and   host, QEMU
#              txrdma.ko against it (scripts/debug-kernel.sh,
#              cached); ring/region/endpoint/smp/msg suites
#              on it (run_vm_tests.py debug)
#
# TXRDMA_STAGES="build host" runs a subset: build runs first whenever a
# stage that needs it is named, setup only when named (a machine that has
# never run it needs "setup build ...").  Logs go to $TXRDMA_OUT (default
# out/test) in the checkout.  Exit status 0 only if nothing failed.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# one cache for every step (CI may run without HOME)
HOME=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
export HOME
export TXRDMA_CACHE=${TXRDMA_CACHE:-$HOME/.cache/txrdma}
cd "$ROOT"
OUT=${TXRDMA_OUT:-$ROOT/out/test}
STAGES=${TXRDMA_STAGES:-"setup build style host kunit vm debug"}
mkdir -p "$OUT"

PASSED=0
FAILED=0
SKIPPED=0
TIMES=()

# count TAP lines of a log: top-level "ok"/"not ok" (skips count apart)
# runner_ok STAGE LOG RC: run_vm_tests.py must not have crashed (a
# traceback ends the suites after it unseen: their tests are neither
# passed nor failed), nor failed without saying which test did
runner_ok() {
	if grep -q '^Traceback ' "$2"; then
		result "$1: run_vm_tests.py crashed, the suites after it did not run: $(grep -A 40 '^Traceback ' "$2" | grep -E '^[A-Za-z]+(Error|Exception)' | head -1) (see $2)" FAIL
	elif [ "$3" -ne 0 ] && ! grep -q '^not ok' "$2"; then
		result "$1: run_vm_tests.py exited $3 with no failing test named (see $2)" FAIL
	fi
}

count_tap() {
	local p f s
	p=$(grep -E '^ok\b' "$1" | grep -vc '# SKIP')
	s=$(grep -E '^ok\b' "$1" | grep -c '# SKIP')
	f=$(grep -cE '^not ok\b' "$1")
	PASSED=$((PASSED + p))
	FAILED=$((FAILED + f))
	SKIPPED=$((SKIPPED + s))
	echo "  $p passed, $f failed, $s skipped ($(basename "$1"))"
}

# result NAME OK|FAIL: a single check of the runner itself
result() {
	if [ "$2" = OK ]; then
		PASSED=$((PASSED + 1)); echo "ok - $1"
	else
		FAILED=$((FAILED + 1)); echo "not ok - $1"
	fi
}

stage_begin() {
	STAGE_T0=$(date +%s)
	echo "===== stage $1"
}

stage_end() {
	local dt=$(($(date +%s) - STAGE_T0))
	TIMES+=("$1 ${dt}s")
	echo "===== stage $1 took ${dt}s"
}

want() { [[ " $STAGES " == *" $1 "* ]]; }

if want setup; then
	stage_begin setup
	if scripts/setup.sh > "$OUT/setup.log" 2>&1; then
		result "setup: packages present" OK
	else
		result "setup: packages present (see $OUT/setup.log)" FAIL
		tail -20 "$OUT/setup.log"
	fi
	tail -2 "$OUT/setup.log"
	stage_end setup
fi

# The debug kernel is about 30 min of compiling on a fresh machine (its
# tree is cached after that).  Build it in the background from here, as
# SCHED_IDLE (it gets only CPU time that nothing else wants), so that it
# fills what the build, style, host and kunit stages leave idle; it is
# stopped (SIGSTOP) while the vm stage runs and continued by the debug
# stage, which waits for it.  Not beside the guests: even at idle
# priority the compilers' memory traffic slowed them so much that the
# peers suite's soak saw 168 Downs instead of 3 (a trial with it
# running through the vm stage).  TXRDMA_DEBUG_BUILD_BG=0 builds it in
# the debug stage instead.
DEBUG_BUILD_PID=
stop_debug_build() {
	[ -n "$DEBUG_BUILD_PID" ] && kill -CONT -- -"$DEBUG_BUILD_PID" 2>/dev/null &&
		kill -- -"$DEBUG_BUILD_PID" 2>/dev/null
	return 0
}
# pause_debug_build STOP|CONT: hold the background build, or let it go on
pause_debug_build() {
	[ -n "$DEBUG_BUILD_PID" ] && kill -"$1" -- -"$DEBUG_BUILD_PID" 2>/dev/null
	return 0
}
if want debug && [ "${TXRDMA_DEBUG_BUILD_BG:-1}" = 1 ]; then
	DEBUG_BUILD_T0=$(date +%s)
	setsid chrt -i 0 nice -n 19 scripts/debug-kernel.sh \
		> "$OUT/debug-kernel.log" 2>&1 < /dev/null &
	DEBUG_BUILD_PID=$!
	trap stop_debug_build EXIT
fi

BUILD_OK=1
if want build || want vm || want host || want debug; then
	stage_begin build
	make modules > "$OUT/build-kmod.log" 2>&1; rc=$?
	if [ $rc -eq 0 ] && ! grep -q 'warning:' "$OUT/build-kmod.log"; then
		result "build: txrdma.ko, W=1, no warnings" OK
	else
		result "build: txrdma.ko, W=1, no warnings (see $OUT/build-kmod.log)" FAIL
		grep -E 'warning:|error:' "$OUT/build-kmod.log" | head -20
		BUILD_OK=0
	fi
	make lib tools > "$OUT/build-user.log" 2>&1; rc=$?
	if [ $rc -eq 0 ] && ! grep -q 'warning:' "$OUT/build-user.log"; then
		result "build: libtxrdma and txrdma-admin, -Wall -Wextra, no warnings" OK
	else
		result "build: libtxrdma and txrdma-admin, no warnings (see $OUT/build-user.log)" FAIL
		grep -E 'warning:|error:' "$OUT/build-user.log" | head -20
		BUILD_OK=0
	fi
	# the examples, as an application builds: against the installed
	# library (make install DESTDIR), found through pkg-config
	D=$OUT/destdir
	rm -rf "$D"
	# (an RPATH, not a RUNPATH: it must also find libtxrdma.so for
	# libtxrdma_txn.so, which the staged install does not register)
	if make -C lib install DESTDIR="$D" PREFIX=/usr > "$OUT/build-examples.log" 2>&1 &&
	   make -C lib/txn install DESTDIR="$D" PREFIX=/usr >> "$OUT/build-examples.log" 2>&1 &&
	   make -C lib/raft install DESTDIR="$D" PREFIX=/usr >> "$OUT/build-examples.log" 2>&1 &&
	   make -C examples clean all PKG_CONFIG_PATH="$D/usr/lib/pkgconfig" \
		PKG_CONFIG_SYSROOT_DIR="$D" \
		LDFLAGS="-Wl,-rpath,$D/usr/lib -Wl,--disable-new-dtags" \
		>> "$OUT/build-examples.log" 2>&1 &&
	   ! grep -q 'warning:' "$OUT/build-examples.log"; then
		result "build: examples against the installed library (pkg-config), no warnings" OK
		# the two that need no RDMA run here, over TCP, as built
		if out=$(timeout 120 examples/txn_2pc 200 2>&1) &&
		   grep -q "^txn_2pc: 200 transactions over tcp in .*: 180 committed, 20 aborted" <<< "$out"; then
			result "build: examples/txn_2pc 200 runs on the installed libraries (180 committed, 20 aborted)" OK
		else
			result "build: examples/txn_2pc 200: $(tail -2 <<< "$out")" FAIL
		fi
		if out=$(timeout 120 examples/raft_counter 1000 2>&1) &&
		   grep -q "^raft_counter: 3 servers applied 1000 commands over tcp, totals equal (500500)" <<< "$out"; then
			result "build: examples/raft_counter 1000 runs on the installed libraries (3 equal totals)" OK
		else
			result "build: examples/raft_counter 1000: $(tail -2 <<< "$out")" FAIL
		fi
	else
		result "build: examples (see $OUT/build-examples.log)" FAIL
		tail -20 "$OUT/build-examples.log"
	fi
	# kselftest_harness.h comes from the kernel source that kunit.sh
	# unpacks; unpack it here if the kunit stage has not run yet
	if ! ls "${TXRDMA_CACHE:-$HOME/.cache/txrdma}"/linux-source-*/tools/testing/selftests/kselftest_harness.h >/dev/null 2>&1; then
		scripts/kunit.sh --help > /dev/null 2>&1 || true
	fi
	make selftests > "$OUT/build-selftests.log" 2>&1; rc=$?
	if [ $rc -eq 0 ] && ! grep -q 'warning:' "$OUT/build-selftests.log"; then
		result "build: selftests, no warnings" OK
	else
		result "build: selftests (see $OUT/build-selftests.log)" FAIL
		tail -20 "$OUT/build-selftests.log"
		BUILD_OK=0
	fi
	# the module as a packaged install builds it: DKMS, dkms.conf
	DKMS_KO=
	if scripts/dkms-build.sh "$OUT/dkms" > "$OUT/build-dkms.log" 2>&1; then
		DKMS_KO=$(tail -1 "$OUT/build-dkms.log")
		kv=$(modinfo -F vermagic "$DKMS_KO" 2>/dev/null | cut -d' ' -f1)
		want_kv=$(ls -d /lib/modules/*/build | sort -V | tail -1 | awk -F/ '{print $4}')
		if [ "$kv" = "$want_kv" ]; then
			result "build: dkms add + build of dkms.conf, for $kv" OK
		else
			result "build: the DKMS module is for $want_kv (vermagic '$kv')" FAIL
			DKMS_KO=
		fi
	else
		result "build: dkms add + build of dkms.conf (see $OUT/build-dkms.log)" FAIL
		tail -20 "$OUT/build-dkms.log"
	fi
	stage_end build
fi

if want style; then
	stage_begin style
	CP=$(ls "${TXRDMA_CACHE:-$HOME/.cache/txrdma}"/linux-source-*/scripts/checkpatch.pl 2>/dev/null | tail -1)
	[ -n "$CP" ] || CP=$(ls /lib/modules/*/build/scripts/checkpatch.pl 2>/dev/null | tail -1)
	for f in $(git ls-files 'kmod/*.[ch]' 2>/dev/null || ls kmod/*.[ch] kmod/tests/*.c); do
		if [ -z "$CP" ]; then
			result "checkpatch $f: checkpatch.pl not found" FAIL
		elif "$CP" --no-tree --strict --quiet -f "$f" > "$OUT/checkpatch.log" 2>&1 &&
		     ! grep -qE '^(WARNING|ERROR|CHECK)' "$OUT/checkpatch.log"; then
			result "checkpatch --strict $f" OK
		else
			result "checkpatch --strict $f" FAIL
			cat "$OUT/checkpatch.log"
		fi
	done
	stage_end style
fi

if want host; then
	stage_begin host
	make -C lib check > "$OUT/host-lib.log" 2>&1
	count_tap "$OUT/host-lib.log"
	# the transaction layer's pure parts (lib/txn)
	make -C lib/txn check > "$OUT/host-txn.log" 2>&1; rc=$?
	count_tap "$OUT/host-txn.log"
	[ $rc -eq 0 ] || grep -q '^not ok' "$OUT/host-txn.log" ||
		result "lib/txn: make check built and ran (see $OUT/host-txn.log)" FAIL
	# Raft replication on the transport seam (lib/raft, libraft)
	make -C lib/raft check > "$OUT/host-raft.log" 2>&1; rc=$?
	count_tap "$OUT/host-raft.log"
	[ $rc -eq 0 ] || grep -q '^not ok' "$OUT/host-raft.log" ||
		result "lib/raft: make check built and ran (see $OUT/host-raft.log)" FAIL
	make -C tools/txrdma-admin check > "$OUT/host-admin.log" 2>&1
	count_tap "$OUT/host-admin.log"
	# txkv, the main job's database: its shard and workload logic
	make -C tools/txkv check > "$OUT/host-txkv.log" 2>&1; rc=$?
	count_tap "$OUT/host-txkv.log"
	[ $rc -eq 0 ] || grep -q '^not ok' "$OUT/host-txkv.log" ||
		result "tools/txkv: make check built and ran (see $OUT/host-txkv.log)" FAIL
	# the numbers the docs give for header constants are the headers'
	scripts/check_doc_numbers.py > "$OUT/host-docs.log" 2>&1; rc=$?
	count_tap "$OUT/host-docs.log"
	[ $rc -eq 0 ] || grep -q '^not ok' "$OUT/host-docs.log" ||
		result "docs: the header-number check ran (see $OUT/host-docs.log)" FAIL
	# the module's file tables name every file of kmod/
	scripts/check_file_tables.py > "$OUT/host-file-tables.log" 2>&1; rc=$?
	count_tap "$OUT/host-file-tables.log"
	[ $rc -eq 0 ] || grep -q '^not ok' "$OUT/host-file-tables.log" ||
		result "docs: the file-table check ran (see $OUT/host-file-tables.log)" FAIL
	# the C examples of the docs compile against the headers
	scripts/check_doc_code.py > "$OUT/host-doc-code.log" 2>&1; rc=$?
	count_tap "$OUT/host-doc-code.log"
	[ $rc -eq 0 ] || grep -q '^not ok' "$OUT/host-doc-code.log" ||
		result "docs: the C example check ran (see $OUT/host-doc-code.log)" FAIL
	# man pages: lint-clean, the same commands as --help, every function
	scripts/check_man.py > "$OUT/host-man.log" 2>&1; rc=$?
	count_tap "$OUT/host-man.log"
	[ $rc -eq 0 ] || grep -q '^not ok' "$OUT/host-man.log" ||
		result "docs: the man page check ran (see $OUT/host-man.log)" FAIL
	grep -E '^not ok' "$OUT"/host-*.log
	stage_end host
fi

if want kunit; then
	stage_begin kunit
	scripts/kunit.sh > "$OUT/kunit.log" 2>&1; rc=$?
	grep -E '\[(PASSED|FAILED|SKIPPED|CRASHED)\]|Testing complete' "$OUT/kunit.log"
	# kunit.py: "Testing complete. Ran 16 tests: passed: 16"
	line=$(grep 'Testing complete' "$OUT/kunit.log" | tail -1)
	p=$(sed -n 's/.*passed: \([0-9]*\).*/\1/p' <<<"$line")
	f=$(sed -n 's/.*failed: \([0-9]*\).*/\1/p' <<<"$line")
	c=$(sed -n 's/.*crashed: \([0-9]*\).*/\1/p' <<<"$line")
	if [ -z "$p" ]; then
		result "kunit: suites built and ran (see $OUT/kunit.log)" FAIL
		tail -30 "$OUT/kunit.log"
	else
		PASSED=$((PASSED + p))
		FAILED=$((FAILED + ${f:-0} + ${c:-0}))
		[ $rc -eq 0 ] || result "kunit: kunit.py exit status $rc" FAIL
	fi
	stage_end kunit
fi

if want vm; then
	stage_begin vm
	pause_debug_build STOP
	if [ $BUILD_OK -eq 1 ]; then
		# Smaller than the suites' defaults (each default is what an
		# issue asked for; the issues' closing notes report the full
		# runs), to keep CI within its time on 2 cores: on this
		# machine kind the vm stage took 58-61 min and CI 108 before
		# these cuts, 37 min and 73 with the first of them.  The
		# peers suite: the 20 cuts, and a soak of 150 s, not the
		# 300 s issue 17 asks for (2 guests; every Down without a
		# cut explained by a stall).  50 tenant and peer add/del
		# cycles instead of 500 (each cycle's leaks are checked
		# exactly) and 10 module load cycles, not 20 (30 cycles and
		# fault injection at half size saved only 15 s: the single
		# suite waits, mostly); a tenth of msg's stream; a
		# tenth of txn's transactions; a third of vread's read time;
		# a tenth of logship's log entries; 2 leader kills in 30,000
		# Raft entries instead of 10 in 100,000 (each kill waits for
		# a level cluster and a reboot, after the cut at a quarter);
		# 2 hostile seeds, not 3; 20 s of ep_race and pair_churn, not
		# 45 and 60.  Raft's kills are held to 3 s from kill to a new
		# leader serving (the election timeout's worst case and one
		# more second), not the issue's 500 ms: TCG guests meet it
		# with the margin thin (399-498 ms, testing.rst), and CI's
		# machine may be busier.  multipath: 4 cuts of the pair's
		# link, not 20 (each link twice).  handoff: each pause held
		# to 1 s, not the issue's 300 ms: three TCG guests on two
		# cores stall for 100-400 ms now and then, and the pause
		# includes the state's trip through the job directory
		# (testing.rst, "Session hand-off, measured").
		selftests/txrdma/run_vm_tests.py --cycles 50 --load-cycles 10 \
			--soak 150 --msg-count 10000 --msg-rev-count 2000 \
			--mp-cuts 4 --txn-count 10000 --vread-seconds 20 \
			--logship-count 100000 --raft-count 30000 \
			--raft-kills 2 --raft-serve-ms 3000 \
			--hostile-seeds 2 --race-seconds 20 --churn-seconds 20 \
			--handoff-bound-ms 1000 \
			> "$OUT/vm.log" 2>&1; rc=$?
		# a failing guest's kernel problems and console tail too, so
		# that CI's log alone shows what went wrong
		grep -E '^(ok|not ok)|^# (suite|both)|^#   (dmesg|console|detail|module): ' \
			"$OUT/vm.log"
		count_tap "$OUT/vm.log"
		runner_ok vm "$OUT/vm.log" $rc
		# a guest loads what DKMS built and probes it
		if [ -n "${DKMS_KO:-}" ]; then
			tools/vm/txrdma-vm run --module "$DKMS_KO" -- \
				'TXRDMA_TESTS="probe_test load_cycles.sh" selftests/txrdma/guest_suite.sh' \
				> "$OUT/vm-dkms.log" 2>&1; rc=$?
			sed -i 's/^\(not \)\{0,1\}ok - /&dkms: /' "$OUT/vm-dkms.log"
			count_tap "$OUT/vm-dkms.log"
			[ $rc -eq 0 ] || result "vm: the DKMS-built module loads and probes in a guest (see $OUT/vm-dkms.log)" FAIL
		else
			result "vm: the DKMS-built module in a guest (not run: DKMS did not build it)" FAIL
		fi
	else
		result "vm: kselftests in QEMU (not run: the build failed)" FAIL
	fi
	stage_end vm
fi

if want debug; then
	stage_begin debug
	# a debug kernel that does not build fails the stage: never a skip
	t0=$(date +%s)
	if [ -n "$DEBUG_BUILD_PID" ]; then
		pause_debug_build CONT
		wait "$DEBUG_BUILD_PID"; rc=$?
		DEBUG_BUILD_PID=
		how="built in the background from $((t0 - DEBUG_BUILD_T0))s before this stage, waited $(($(date +%s) - t0))s"
	else
		scripts/debug-kernel.sh > "$OUT/debug-kernel.log" 2>&1; rc=$?
		how="$(($(date +%s) - t0))s in all"
	fi
	if [ $rc -eq 0 ]; then
		kver=$(sed -n 's/^KVER=//p' "$OUT/debug-kernel.log")
		kt=$(sed -n 's/^TXRDMA_DEBUG_KERNEL_SECONDS=//p' "$OUT/debug-kernel.log")
		result "debug: $kver and txrdma.ko against it, no warnings (kernel make ${kt}s, $how)" OK
		if [ $BUILD_OK -eq 1 ]; then
			# half the hostile tenant's seeds and the msg suite's
			# stream and fuzz of the runner's defaults: on a slower
			# machine of this kind the lane took 42 min (msg 565 s)
			# and CI 108, past its 90
			selftests/txrdma/run_vm_tests.py \
				--debug-hostile-seeds 1 \
				--debug-msg-count 1000 --debug-msg-fuzz-count 10000 \
				debug > "$OUT/debug.log" 2>&1; rc=$?
			grep -E '^(ok|not ok)|^# (suite|both|debug-)|^#   (dmesg|console|detail|module): ' \
				"$OUT/debug.log"
			count_tap "$OUT/debug.log"
			runner_ok debug "$OUT/debug.log" $rc
		else
			result "debug: suites on the debug kernel (not run: the build failed)" FAIL
		fi
	else
		result "debug: debug kernel or txrdma.ko against it (see $OUT/debug-kernel.log)" FAIL
		tail -30 "$OUT/debug-kernel.log"
	fi
	stage_end debug
fi

echo "===== times: ${TIMES[*]}"
echo "logs: $OUT"
if [ "$SKIPPED" -gt 0 ]; then
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
else
	echo "$PASSED passed, $FAILED failed"
fi
[ "$FAILED" -eq 0 ]
