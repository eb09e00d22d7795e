#!/usr/bin/env bash
# The cross-port differential fuzzer's campaign (fuzz/differential_fuzz.cc,
# ARCHITECTURE.md "Fuzzing at scale"): builds the verdict executor for each
# emulated config and the driver for the host's native config, one config
# at a time, then runs the driver natively with one persistent executor per
# emulated port (each under its port's QEMU, started once).
#
#   ci/differential.sh [--configs=LIST] [--runs=N] [--time=SECONDS]
#                      [--corpus-dir=DIR] [--out=DIR] [--logs=DIR]
#                      [--mutate=NAME] [-- extra bazel build flags]
#
#   --configs     the executors' configs, comma-separated (default: for every
#                 port that is not the host's, its first QEMU config)
#   --runs        the suite's fixed campaign: -seed=1 -runs=N from the
#                 checked-in corpus fuzz/corpus/differential (default 200,
#                 about a minute on a quiet 2-core machine)
#   --time        a long run instead: -max_total_time=SECONDS from a random
#                 seed, new inputs kept in --corpus-dir (default
#                 fuzz-corpus/differential_fuzz in the checkout, seeded from
#                 the checked-in corpus), e.g. ci/differential.sh --time=600
#   --out         crashes and the log (default: DIR/differential with
#                 --logs=DIR, else fuzz-out/differential for --time, else a
#                 temporary folder)
#   --logs        also write DIR/differential/targets.txt and a GoogleTest-
#                 style test.xml, so that ci/summarize.py counts the campaign
#                 as a case (ci/test.sh)
#   --mutate      the executors run under this mutation (harness/mutations.h,
#                 SAFEPOINT_EXECUTOR_MUTATE) and the native port does not: the
#                 campaign must find a difference, and passes when it does
#                 (e.g. --mutate=skip-unsafe-point --runs=200)
#
# Every wait is bounded. Exit: 0 no finding, 1 a finding (its first line is
# `==safepoint-diff== ...`) or a build or run failure, 2 bad flags.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
SP_TOP=$top
. "$top/platforms/toolchains/ports.sh"

die() { echo "ci/differential.sh: $*" >&2; exit 2; }
say() { echo "differential: $*"; }

configs=
runs=200
budget=
corpus_dir=
out=
logs=
mutate=
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --configs=*) configs=${1#--configs=} ;;
    --runs=*) runs=${1#--runs=} ;;
    --time=*) budget=${1#--time=} ;;
    --corpus-dir=*) corpus_dir=${1#--corpus-dir=} ;;
    --out=*) out=${1#--out=} ;;
    --logs=*) logs=${1#--logs=} ;;
    --mutate=*) mutate=${1#--mutate=} ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown flag '$1' (see --help)" ;;
  esac
  shift
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs wants a whole number above 0, not '$runs'"
[ -z "$budget" ] || [[ "$budget" =~ ^[1-9][0-9]*$ ]] || die "--time wants a whole number of seconds above 0, not '$budget'"

# The host's port and its native config; the emulated ports' QEMU configs.
native=
default_execs=()
for p in $(sp_ports); do
  sp_port_env "$p" || exit 2
  for c in $P_CONFIGS; do
    mode=${c#*:}; name=${c%%:*}
    if [ "$P_UNAME_MACHINE" = "$(uname -m)" ]; then
      [ -z "$native" ] && [ "$mode" = native ] && ! sp_config_sanitized "$name" && native=$name
    elif [ "$mode" = qemu ]; then
      default_execs+=("$name"); break
    fi
  done
done
[ -n "$native" ] || die "no native config for this host ($(uname -m)) in platforms/*/port.env"
if [ -n "$configs" ]; then
  ( sp_check_configs "$configs" ) 2>&1 | sed 's/^/ci\/differential.sh: /' >&2
  [ "${PIPESTATUS[0]}" = 0 ] || exit 2
  IFS=, read -r -a execs <<<"$configs"
else
  execs=("${default_execs[@]}")
fi
[ ${#execs[@]} -gt 0 ] || die "no executor configs: nothing to compare the native port with"

BUILD_BOUND=${SAFEPOINT_DIFF_BUILD_TIMEOUT:-3600}
INFO_BOUND=120
if [ -n "$budget" ]; then
  run_bound=$(( budget + 600 ))
else
  run_bound=${SAFEPOINT_DIFF_RUN_TIMEOUT:-1200}
fi

cd "$top" || exit 2
sp_write_bazelrc || die "cannot write .bazelrc.ports"
work=$(mktemp -d "${TMPDIR:-/tmp}/differential.XXXXXX") || die "cannot make a work folder"
trap 'rm -rf "$work"' EXIT
if [ -z "$out" ]; then
  if [ -n "$logs" ]; then out="$logs/differential"
  elif [ -n "$budget" ]; then out="$top/fuzz-out/differential"
  else out="$work/out"; fi
fi
[ -z "$logs" ] || rm -rf "$logs/differential"
[ "$out" = "$logs/differential" ] && rm -f "$out"/crash-* "$out"/timeout-* "$out"/oom-* 2>/dev/null
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
log="$out/differential.log"
: >"$log"

result() {  # result STATUS MESSAGE: the test.xml and targets.txt for ci/summarize.py
  [ -n "$logs" ] || return 0
  local d="$logs/differential" name msg
  rm -rf "$d/testlogs" "$d/targets.txt"; mkdir -p "$d/testlogs/differential/campaign"
  name="campaign natively against ${execs[*]}${mutate:+ under $mutate}"
  msg=$(printf '%s' "$2" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g')
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    if [ "$1" = ok ]; then
      echo "<testsuites><testsuite name=\"Differential\" tests=\"1\" failures=\"0\">"
      echo "<testcase classname=\"Differential\" name=\"$name\"/>"
    else
      echo "<testsuites><testsuite name=\"Differential\" tests=\"1\" failures=\"1\">"
      echo "<testcase classname=\"Differential\" name=\"$name\"><failure message=\"$msg\"/></testcase>"
    fi
    echo '</testsuite></testsuites>'
  } >"$d/testlogs/differential/campaign/test.xml"
  if [ "$1" = ok ]; then echo "//differential:campaign PASSED"; else echo "//differential:campaign FAILED"; fi >"$d/targets.txt"
}
fail() { say "FAILED: $*"; result failed "$*"; exit 1; }

# --- build: each executor config, then the driver, one config at a time ------
spec=
for c in "${execs[@]}"; do
  say "bazel build --config=$c //fuzz:verdict_executor"
  timeout -k 60 "$BUILD_BOUND" bazel build --config="$c" "${extra[@]}" //fuzz:verdict_executor >>"$log" 2>&1 ||
    { tail -n 15 "$log" | sed 's/^/   | /'; fail "building the $c executor failed or took over $BUILD_BOUND s (see $log)"; }
  bin=$(timeout -k 10 "$INFO_BOUND" bazel info --config="$c" "${extra[@]}" bazel-bin 2>>"$log")/fuzz/verdict_executor
  [ -x "$bin" ] || fail "the $c executor built, but $bin is missing"
  # A copy: the next config's build leaves it alone, but a copy is certain.
  cp "$bin" "$work/verdict_executor.$c" || fail "cannot copy $bin"
  spec+="${spec:+,}$c=$work/verdict_executor.$c"
done
say "bazel build --config=$native //fuzz:differential_fuzz"
timeout -k 60 "$BUILD_BOUND" bazel build --config="$native" "${extra[@]}" //fuzz:differential_fuzz >>"$log" 2>&1 ||
  { tail -n 15 "$log" | sed 's/^/   | /'; fail "building the driver failed or took over $BUILD_BOUND s (see $log)"; }
driver=$(timeout -k 10 "$INFO_BOUND" bazel info --config="$native" "${extra[@]}" bazel-bin 2>>"$log")/fuzz/differential_fuzz
[ -x "$driver" ] || fail "the driver built, but $driver is missing"

# --- the campaign ------------------------------------------------------------
# An executor has 60 s per request (SAFEPOINT_DIFF_TIMEOUT) and its restart
# and retry as long again, well inside libFuzzer's -timeout.
opts=(-max_len=512 -timeout=300 -rss_limit_mb=2048 -artifact_prefix="$out/" -print_final_stats=1)
mkdir -p "$work/new"
if [ -n "$budget" ]; then
  [ -n "$corpus_dir" ] || corpus_dir="$top/fuzz-corpus/differential_fuzz"
  mkdir -p "$corpus_dir" || fail "cannot create $corpus_dir"
  cp -n "$top/fuzz/corpus/differential"/* "$corpus_dir"/ 2>/dev/null
  opts+=(-max_total_time="$budget" "$corpus_dir" "$top/fuzz/corpus/differential")
  what="$budget s, corpus $corpus_dir"
else
  # New inputs go to a scratch folder, never into the checkout.
  opts+=(-seed=1 -runs="$runs" "$work/new" "$top/fuzz/corpus/differential")
  what="-seed=1 -runs=$runs"
fi
say "campaign ($what): native $native against ${execs[*]}; log $log"
t0=$(date +%s)
SAFEPOINT_EXECUTOR_MUTATE="$mutate" \
SAFEPOINT_RUNNER="$top/platforms/toolchains/run" SAFEPOINT_EXECUTORS="$spec" SAFEPOINT_DIFF_TIMEOUT=60 \
  timeout -k 30 "$run_bound" "$top/platforms/toolchains/run" --config="$native" "$driver" "${opts[@]}" \
  >>"$log" 2>&1 </dev/null
rc=$?
secs=$(( $(date +%s) - t0 ))
done_line=$(grep -E '^Done [0-9]+ runs' "$log" | tail -n 1)
say "${done_line:-no Done line} (${secs} s wall, exit $rc)"
headline=$(grep -m1 '^==safepoint-diff==' "$log")
# The driver's or an executor's own complaint, if it stopped on one.
complaint=$(grep -E '^(differential_fuzz|verdict_executor): ' "$log" | grep -v ' up: ' | head -n 1)
if [ -n "$mutate" ]; then
  # Under a mutation a difference must be found (and only a difference).
  case "$headline" in
    "==safepoint-diff== executor "*|"==safepoint-diff== protocol"*|"==safepoint-diff== unpreempted"*|"")
      fail "under --mutate=$mutate the campaign found no difference between the ports${headline:+ (it ended with: $headline)}${complaint:+ ($complaint)}" ;;
  esac
  say "found under --mutate=$mutate: $headline"
  result ok ""
  exit 0
fi
if [ -n "$headline" ]; then
  say "$headline"
  grep -A40 -m1 '^==safepoint-diff==' "$log" | sed -n '2,12p' | sed 's/^/   | /'
  ls "$out"/crash-* 2>/dev/null | sed 's/^/   input: /'
  fail "$headline"
fi
[ $rc = 124 ] || [ $rc = 137 ] && fail "the campaign did not end within $run_bound s"
[ $rc = 0 ] || { tail -n 15 "$log" | sed 's/^/   | /'; fail "the driver exited $rc without a finding line${complaint:+: $complaint} (see $log)"; }
result ok ""
say "no difference between the ports beyond what their data declares"
exit 0
