#!/usr/bin/env bash
# Runs the benchmarks on every config (or --arch=...): cooperative
# preemption (preemptone latency next to the mcall/gogo round trip, the
# prologue check's cost) and armed, fully checked asynchronous preemptions
# next to the bare trap+SIGURG ceiling. Figures only; nothing is asserted.
# Every figure is a median over 5 rounds with its spread (min..max); a
# difference within the rounds' spread prints "no difference", never a
# negative cost; each config's figures come between the machine's load
# average at their start and end.
# Built with -c opt, as the fuzz campaigns are: under emulation a -O0
# harness measures the compiler's debug code, not the preemption path.
# async_bench runs on one CPU (taskset), its ceiling and its armed rounds
# alike: spread over two, each round's figure moved with where the
# emulator's threads landed (ratios from 0.5 to 1.0 in one process). It is
# run by ci/bench_lib.sh, the code ci/ceiling.sh measures the fuzz
# reports' ceiling with, so the two print the same figures.
# Next to the armed rate, the preemption fuzzer's executions per second
# (fuzz:preempt_fuzz, -c opt, pinned to the same one CPU as async_bench so
# that the two figures are comparable; on an emulated config the native
# fuzzer driving the config's fuzz:case_executor under its QEMU, both on
# that CPU, as the campaigns fuzz it: fuzz/case_protocol.h): 5 rounds, each from a fresh empty
# corpus plus the seed corpus fuzz/corpus/preempt with -seed=ROUND and a
# fixed -runs (30000 natively, 8000 emulated: 5 to 20 s a round either
# way; at 6000 and 2000, as they were, a round had shrunk to 1.4 s
# natively and 4 s on arm64, a fifth of it the process's start and its
# first read of the 167 seeds, each a new program and often a new
# runtime, and the stacks', runtimes' and corpus's warm-up besides: a
# campaign's rate is its hours', and start-up is not in them), its rate
# the runs over the round's wall time (start-up and the seed corpus still
# included; libFuzzer's own exec/s is an integer that counts part of the
# corpus read only); then armed rate / fuzz exec/s, the cost of an
# execution over a bare checked preemption (issue 30: within 10x): the
# median over the rounds of each round's ratio to an armed round measured
# just before it (one round of async_bench, as above), so that a change in
# the host's speed between the two measurements is not in the figure; and,
# beside it, the armed rate above over the fuzz rounds' median.
# Beside it, from the same rounds, the rate inside the process (the
# fuzzer's own report of where each execution went, summed: start-up and
# libFuzzer's set-up left out, the seeds' executions kept); and the rate
# of one cached case run over and over (the bytes 00 00: the built-in
# sweep program armed at its first instruction, settings 0, one
# goroutine), the cost of the machinery around a run with the least
# program in it, in armed preemptions (libFuzzer reads a file it is given
# again before each run, six system calls, counted in): what is left of
# the ratio above is the generated programs' own runs.
# The real Go runtime's probes per second (go-sweep of goprogs/loops as
# Go 1.26 builds it for the config's CPU, the harness under the config's
# emulator and the guest under QEMU's gdbstub or natively under ptrace),
# median of 5 sweeps, printed under the armed rate of the same run. With
# --real-go-fuzz, then the real-Go fuzzer (fuzz:go_preempt_fuzz pinned to
# goprogs/gc, Go 1.26, inputs of up to 1024 points for 20 s) against
# go-sweep of the same program, per kind of request and stress, median of
# 5 each: probes per second, guest starts included on both sides (about
# 8 minutes a config natively, 14 emulated: not in the suite's run).
# (The fuzzer starts from 8 inputs natively, 2 emulated.)
#
#   ci/bench.sh [--arch=amd64,arm64,...] [--real-go-fuzz]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.." || exit 2
SP_TOP=$(pwd)
. platforms/toolchains/ports.sh
. ci/bench_lib.sh
mapfile -t configs < <(for c in $(sp_configs); do sp_config_sanitized "$c" || echo "$c"; done)  # no benchmarks under sanitizers
# The host's own config: where an emulated config's fuzzing driver runs.
native_config=
for c in "${configs[@]}"; do
  if [ "$(sp_config_mode "$c")" = native ]; then native_config=$c; break; fi
done
real_go_fuzz=0
for a in "$@"; do
  case "$a" in
    --arch=*)
      ( sp_check_configs "${a#--arch=}" ) 2>&1 | sed 's/^/ci\/bench.sh: /' >&2
      [ "${PIPESTATUS[0]}" = 0 ] || exit 2
      IFS=, read -r -a configs <<<"${a#--arch=}" ;;
    --real-go-fuzz) real_go_fuzz=1 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ci/bench.sh: unknown flag '$a'" >&2; exit 2 ;;
  esac
done
[ -f "$TOOLS/.stamp-proved-$(sp_ports | tr '\n' '-')" ] || timeout -k 30 3600 bash "$here/setup.sh" || exit 2
sp_write_bazelrc || { echo "ci/bench.sh: cannot write .bazelrc.ports" >&2; exit 2; }

# go-sweep's probes per second, from its --json (0 when it timed nothing).
sweep_rate() {
  python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.1f" % (d["total"]["probed"] / d["seconds"]) if d["seconds"] > 0 else 0)'
}

# fuzz_round RUNS SEED [INPUT]: one round of the preemption fuzzer
# (the command in fuzz_cmd, run in its runfiles fuzz_runfiles),
# pinned as async_bench is (the executor with it), from a fresh empty corpus (libFuzzer writes
# what it finds there) plus the seed corpus, with the BUILD file's own
# flags (-max_len, -dict, limits) as a campaign has them. Prints the
# round's executions per second (RUNS over the wall time, measured here)
# and the rate inside the process (in_process_rate), or says why not on
# stderr and returns 1. With a fifth argument, a file: that one input run
# RUNS times instead (no corpus: libFuzzer runs a file it is given).
# The round's corpus (what libFuzzer writes) is on a tmpfs (/dev/shm) where
# there is one: what is measured is the fuzzer, not the disk. On this
# project's machines ext4 took 600-900 us to create each new corpus file
# (its inode allocator walks past the inodes deleted recently, of which a
# build's sandboxes and these rounds leave thousands): a fifth of a
# 30000-run round, a thousand files in it (between executions 32-34 us
# there, 12 us on /dev/shm, natively).
fuzz_round() {
  local runs=$1 seed=$2 input=${3:-} tmp t0 t1 r done_runs inproc
  tmp=$(mktemp -d -p "$(fast_tmp)") || return 1
  mkdir "$tmp/artifacts"
  local what=("$input")
  [ -n "$input" ] || { mkdir "$tmp/corpus"; what=("$tmp/corpus" fuzz/corpus/preempt); }
  t0=$(date +%s.%N)
  (cd "$fuzz_runfiles" &&
   timeout -k 10 600 "${pin[@]}" "${fuzz_cmd[@]}" \
     -runs="$runs" -seed="$seed" -max_len=512 -rss_limit_mb=2048 -timeout=60 -entropic_scale_per_exec_time=1 \
     -dict=fuzz/preempt.dict \
     -artifact_prefix="$tmp/artifacts/" "${what[@]}") >"$tmp/log" 2>&1
  r=$?
  t1=$(date +%s.%N)
  # A crash or a timeout ends the round early: its rate would be wrong.
  # (A file given is run without a "Done" line: its executions are counted
  # by the fuzzer's own report.) libFuzzer may run a few more than -runs
  # (one round on riscv64 said "Done 8003 runs"): the rate counts what it
  # ran.
  done_runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$tmp/log" | tail -1)
  [ -z "$input" ] || done_runs=$(sed -n 's/^preempt_fuzz: \([0-9]*\) executions:.*/\1/p' "$tmp/log" | tail -1)
  inproc=$(in_process_rate <"$tmp/log")
  if [ $r != 0 ] || ! [[ "$done_runs" =~ ^[0-9]+$ ]] || [ "$done_runs" -lt "$runs" ] || [ -z "$inproc" ]; then
    echo "   preempt_fuzz round $seed${input:+ of one input} failed (exit $r, ${done_runs:-no} runs of $runs); its end:" >&2
    tail -n 5 "$tmp/log" | sed 's/^/     /' >&2
    rm -rf "$tmp"
    return 1
  fi
  rm -rf "$tmp"
  python3 -c 'import sys; print("%.1f %s" % (int(sys.argv[1]) / (float(sys.argv[3]) - float(sys.argv[2])), sys.argv[4]))' \
    "$done_runs" "$t0" "$t1" "$inproc"
}

# A directory for short-lived files on a tmpfs, if the machine has one
# writable, else the usual one.
fast_tmp() {
  if [ -d /dev/shm ] && [ -w /dev/shm ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
    echo /dev/shm
  else
    echo "${TMPDIR:-/tmp}"
  fi
}

# in_process_rate <LOG: executions per second inside the fuzzing process,
# from its report at exit ("per execution decode ... us, case ... us,
# features ... us, libFuzzer between executions ... us", summed); nothing
# when the log has no report.
in_process_rate() {
  python3 -c '
import re, sys
m = re.findall(r"per execution decode \(generator\) (\d+) us, case (\d+) us, features (\d+) us, "
               r"libFuzzer between executions (\d+) us", sys.stdin.read())
us = sum(int(x) for x in m[-1]) if m else 0
if us > 0: print("%.1f" % (1e6 / us))'
}

rc=0
for c in "${configs[@]}"; do
  echo "== $c"
  log=$(mktemp)
  port=$(sp_config_port "$c")
  if ! timeout -k 30 3600 bazel build -c opt --config="$c" //cmd:coop_bench //cmd:async_bench //cmd:safepoint \
      "//goprogs:loops_go1.26_$port" //fuzz:go_preempt_fuzz //fuzz:preempt_fuzz //fuzz:case_executor >"$log" 2>&1; then
    cat "$log"; rm -f "$log"; rc=1; continue
  fi
  bin=$(timeout -k 10 600 bazel info -c opt --config="$c" bazel-bin 2>/dev/null)
  # The preemption fuzzer as a campaign runs it: natively, in-process;
  # emulated, the native driver with this config's case executor.
  if [ "$(sp_config_mode "$c")" = native ] || [ -z "$native_config" ]; then
    fuzz_cmd=("$SP_TOP/platforms/toolchains/run" --config="$c" "$bin/fuzz/preempt_fuzz")
    fuzz_runfiles=$bin/fuzz/preempt_fuzz.runfiles/safepoint
  else
    if ! timeout -k 30 3600 bazel build -c opt --config="$native_config" //fuzz:preempt_fuzz >"$log" 2>&1; then
      cat "$log"; rm -f "$log"; rc=1; continue
    fi
    nbin=$(timeout -k 10 600 bazel info -c opt --config="$native_config" bazel-bin 2>/dev/null)
    fuzz_cmd=(env SAFEPOINT_FUZZ_EXECUTOR="$c=$bin/fuzz/case_executor" SAFEPOINT_RUNNER="$SP_TOP/platforms/toolchains/run"
              "$SP_TOP/platforms/toolchains/run" --config="$native_config" "$nbin/fuzz/preempt_fuzz")
    fuzz_runfiles=$nbin/fuzz/preempt_fuzz.runfiles/safepoint
  fi
  rm -f "$log"
  # How loaded the machine was, before and after (1, 5, 15 minutes): a
  # figure from a busy machine says so.
  echo "   load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
  timeout -k 10 1800 platforms/toolchains/run --config="$c" "$bin/cmd/coop_bench" || rc=1
  # The armed rate and its ceiling: the same measurement as ci/ceiling.sh's.
  sp_bench_async "$c" "$bin/cmd/async_bench" || rc=1
  [ "$SP_BENCH_RC" = 0 ] || rc=1
  echo "$SP_BENCH_SAID"
  armed=$SP_BENCH_ARMED
  # The preemption fuzzer's executions per second, on the CPU async_bench
  # had: 5 rounds of a fixed number of runs, about 10 s a round.
  read -r -a pin < <(sp_one_cpu)
  case $(sp_config_mode "$c") in native) runs=30000 ;; *) runs=8000 ;; esac
  # Each fuzz round is paired with a round of the armed rate measured just
  # before it (async_bench, one round of the same N, pinned the same way):
  # the ratio of the pair is the cost of an execution on the machine as it
  # was during that round. (The host's speed moved by a third within a
  # minute on this project's VMs: the armed rounds above and the fuzz
  # rounds a minute later saw different machines, and one run's ratio of
  # the medians ranged from 7.9 to 13.3 on code that had not changed.)
  rates=() inside=() floor=() pairs=()
  for round in 1 2 3 4 5; do
    sp_bench_async "$c" "$bin/cmd/async_bench" "$SP_BENCH_N" 1 || rc=1
    a=$SP_BENCH_ARMED
    read -r r i < <(fuzz_round "$runs" "$round") || rc=1
    [ -z "$r" ] || { rates+=("$r"); inside+=("$i"); }
    [ -z "$r" ] || [ -z "$a" ] || pairs+=("$(python3 -c 'import sys; print("%.3f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$a" "$r")")
  done
  one=$(mktemp) && printf '\000\000' >"$one"
  for round in 1 2 3 4 5; do
    read -r r i < <(fuzz_round "$runs" "$round" "$one") || rc=1
    [ -z "$i" ] || floor+=("$i")
  done
  rm -f "$one"
  python3 - "$armed" "$runs" "${#rates[@]}" "${#pairs[@]}" "${rates[@]}" "${pairs[@]}" "${inside[@]}" "${floor[@]}" <<'PY'
import statistics, sys
armed, runs, n, npairs = float(sys.argv[1] or 0), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
v = [float(x) for x in sys.argv[5:]]
rates, pairs = sorted(v[:n]), sorted(v[n:n + npairs])
inside, floor = sorted(v[n + npairs:2 * n + npairs]), sorted(v[2 * n + npairs:])
def ratio(m):
    return ("%.1fx" % (armed / m)) if m > 0 and armed > 0 else "?"
label = "preemption fuzzer, -runs=%s from seeds" % runs
if len(rates) < 5:
    print("  %-43s not measured (%d of 5 rounds ran)" % (label, len(rates)))
else:
    m = statistics.median(rates)
    print("  %-43s%10.1f exec/s median (%.1f..%.1f)" % (label, m, rates[0], rates[-1]))
    if len(pairs) < 5:
        print("  %-43s not measured (%d of 5 pairs)" % ("armed rate / fuzz exec/s, per round", len(pairs)))
    else:
        print("  %-43s%9.1fx median (%.1f..%.1f; each round's armed rate measured just before it; goal: within 10x)" % (
            "armed rate / fuzz exec/s, per round", statistics.median(pairs), pairs[0], pairs[-1]))
    print("  %-43s%10s (the armed rate above over the fuzz rounds' median, minutes apart)" % (
        "  the same, of the medians", ratio(m)))
    mi = statistics.median(inside)
    print("  %-43s%10.1f exec/s median (%.1f..%.1f); armed rate / it %s" % (
        "  the same rounds inside the process", mi, inside[0], inside[-1], ratio(mi)))
label = "  one cached case (00 00), -runs=%s" % runs
if len(floor) < 5:
    print("  %-43s not measured (%d of 5 rounds ran)" % (label, len(floor)))
else:
    mf = statistics.median(floor)
    print("  %-43s%10.1f exec/s median (%.1f..%.1f); armed rate / it %s (the machinery's own cost)" % (
        label, mf, floor[0], floor[-1], ratio(mf)))
PY
  rates=()
  for round in 1 2 3 4 5; do
    r=$(timeout -k 10 900 platforms/toolchains/run --config="$c" "$bin/cmd/safepoint" go-sweep --json \
          "$bin/goprogs/1.26/$port/loops" | sweep_rate) || rc=1
    rates+=("${r:-0}")
  done
  python3 - "$armed" "${rates[@]}" <<'PY'
import statistics, sys
armed = float(sys.argv[1] or 0)
r = sorted(float(x) for x in sys.argv[2:])
m = statistics.median(r)
print("  real Go (go-sweep, go1.26 loops)           %10.1f probes/s median (%.1f..%.1f); %s of the armed rate"
      % (m, r[0], r[-1], ("1/%.0f" % (armed / m)) if m > 0 and armed > 0 else "?"))
PY
  # The real-Go fuzzer against the sweep, kind by kind (program gc).
  [ "$real_go_fuzz" = 1 ] || { echo "   load average at the end:   $(cut -d' ' -f1-3 /proc/loadavg)"; continue; }
  for kind in "sched none" "gc none" "sched traceback"; do
    set -- $kind
    sweep=() fuzz=()
    for round in 1 2 3 4 5; do
      r=$(timeout -k 10 900 platforms/toolchains/run --config="$c" "$bin/cmd/safepoint" go-sweep --json \
            --request="$1" --stress="$2" "$bin/goprogs/1.26/$port/gc" | sweep_rate) || rc=1
      sweep+=("${r:-0}")
      # A corpus of its own (libFuzzer adds to it): inputs of 1024 points,
      # as a campaign's grow to (-max_len=4100). Eight natively, two
      # emulated: libFuzzer runs the whole corpus before -max_total_time
      # counts, and an input probes for up to 150 s under QEMU (the
      # traceback stress's eight took over 600 s on arm64).
      corpus=$(mktemp -d)
      inputs=8 limit=600
      [ "$(sp_config_mode "$c")" = native ] || inputs=2 limit=900
      python3 - "$corpus" "$round" "$inputs" <<'PY'
import random, sys
random.seed(int(sys.argv[2]))
for i in range(int(sys.argv[3])):
    pts = bytes(b for _ in range(1024) for b in (random.randrange(16), 0, random.randrange(256), 0))
    open("%s/long%d" % (sys.argv[1], i), "wb").write(bytes(4) + pts)
PY
      # -max_total_time=20 ends the campaign; the timeout only bounds a hang.
      r=$(cd "$bin/fuzz/go_preempt_fuzz.runfiles/safepoint" &&
          SAFEPOINT_GO_FUZZ_PIN="gc 1.26 $1 $2" timeout -k 10 "$limit" "$SP_TOP/platforms/toolchains/run" --config="$c" \
            "$bin/fuzz/go_preempt_fuzz" -max_total_time=20 -seed=$round -max_len=4100 -len_control=0 \
            -artifact_prefix="$corpus/" "$corpus" 2>&1 |
          sed -n 's/.* probes in [0-9.]* s (\([0-9.]*\) probes\/s.*/\1/p' | tail -1)
      rm -rf "$corpus"
      fuzz+=("${r:-0}")
    done
    python3 - "$1" "$2" "${sweep[@]}" "${fuzz[@]}" <<'PY'
import statistics, sys
req, stress = sys.argv[1:3]
v = [float(x) for x in sys.argv[3:]]
half = len(v) // 2
s, f = sorted(v[:half]), sorted(v[half:])
ms, mf = statistics.median(s), statistics.median(f)
# Rounds whose ranges overlap are no difference, whatever the medians say.
verdict = ("no difference (the rounds overlap)" if s[0] <= f[-1] and f[0] <= s[-1]
           else "fuzzer/sweep %.2f" % (mf / ms) if ms > 0 else "?")
print("  real Go, gc program, --request=%-5s --stress=%-9s go-sweep %7.1f probes/s (%.1f..%.1f), fuzzer %7.1f (%.1f..%.1f): %s"
      % (req, stress, ms, s[0], s[-1], mf, f[0], f[-1], verdict))
PY
  done
  echo "   load average at the end:   $(cut -d' ' -f1-3 /proc/loadavg)"
done
exit $rc
