#!/usr/bin/env bash
# Fuzzes every fuzz target of fuzz/ on every chosen config for a time budget
# each, keeping a corpus between runs, and writes a Markdown report.
#
#   ci/fuzz-nightly.sh [--arch=LIST|all] [--time=SECONDS] [--corpus-dir=DIR]
#                      [--out=DIR] [--targets=NAME,...] [--mode=opt|fastbuild|dbg]
#                      [--build-only] [--no-ceiling] [-- extra bazel build flags]
#
#   --arch        configs, comma-separated (bash platforms/toolchains/ports.sh
#                 configs), or all (the default)
#   --time        seconds per target per config (default 600)
#   --corpus-dir  the corpus kept between runs, one folder per target
#                 (default fuzz-corpus/ in the checkout); a target's folder
#                 is seeded from its checked-in corpus (fuzz/corpus/NAME/)
#   --out         the report, crashes and logs (default fuzz-out/ in the
#                 checkout): report.md, crashes/<config>/<target>/,
#                 logs/<config>/
#   --targets     only these targets (default: every cc_test in fuzz/ whose
#                 name ends in _fuzz, found by bazel query)
#   --mode        Bazel's compilation mode (default opt: about three times
#                 the exec/s of fastbuild)
#   --build-only  build the targets for every config, one after another, and
#                 stop (what `safepoint fuzz` does before its parallel jobs)
#   --no-ceiling  do not measure the ceiling after each config's campaigns
#                 (`safepoint fuzz` measures it itself, once they all end)
#
# After each config's targets, ci/ceiling.sh measures the machine's own
# limit on it (bare trap+SIGURG round trips per second, and armed, fully
# checked preemptions per second), which the report prints next to the
# campaigns' executions per second (ceiling.tsv, logs/<config>/ceiling.log).
#
# Not among them: the cross-port differential fuzzer (//fuzz:differential_fuzz,
# a cc_binary), which needs a verdict executor per emulated port (named in
# SAFEPOINT_EXECUTORS); ci/differential.sh --time=SECONDS builds them and
# runs it (fuzz-nightly.yml's `differential` job).
#
# Each target runs through the one runner (platforms/toolchains/run), so an
# emulated config fuzzes under its QEMU; the preemption fuzzer on an
# emulated config is the native one driving the config's case executor
# (fuzz:case_executor, started once per process under the config's QEMU:
# fuzz/case_protocol.h), so that only the runtime's runs are emulated. With libFuzzer's -fork=1
# -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -max_total_time=T and
# the target's own options from its BUILD args (-max_len, -timeout, ...).
# New inputs land in a fresh folder and are merged into the kept corpus
# with -merge=1 afterwards. Every wait is bounded. Exit: 0 no crash and
# every run finished, 1 a crash, timeout or OOM found or a build or run
# failed (the report says which), 2 bad flags.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
SP_TOP=$top
. "$top/platforms/toolchains/ports.sh"

die() { echo "ci/fuzz-nightly.sh: $*" >&2; exit 2; }
fail() { echo "ci/fuzz-nightly.sh: error: $*" >&2; exit 1; }
say() { echo "fuzz-nightly: $*"; }

arch=all
budget=600
corpus_root="$top/fuzz-corpus"
out="$top/fuzz-out"
only=
mode=opt
build_only=0
ceiling=1
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --arch=*) arch=${1#--arch=} ;;
    --time=*) budget=${1#--time=} ;;
    --corpus-dir=*) corpus_root=${1#--corpus-dir=} ;;
    --out=*) out=${1#--out=} ;;
    --targets=*) only=${1#--targets=} ;;
    --mode=*) mode=${1#--mode=} ;;
    --build-only) build_only=1 ;;
    --no-ceiling) ceiling=0 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown flag '$1' (see --help)" ;;
  esac
  shift
done

[[ "$budget" =~ ^[1-9][0-9]*$ ]] || die "--time wants a whole number of seconds above 0, not '$budget'"
[ "$budget" -le 86400 ] || die "--time=$budget is more than a day per target"
case "$mode" in opt|fastbuild|dbg) ;; *) die "--mode wants opt, fastbuild or dbg, not '$mode'" ;; esac
[ -n "$corpus_root" ] || die "--corpus-dir is empty"
[ -n "$out" ] || die "--out is empty"
mapfile -t VALID < <(sp_configs)
if [ "$arch" = all ]; then
  configs=("${VALID[@]}")
else
  ( sp_check_configs "$arch" ) 2>&1 | sed 's/^/ci\/fuzz-nightly.sh: /' >&2
  [ "${PIPESTATUS[0]}" = 0 ] || exit 2
  IFS=, read -r -a configs <<<"$arch"
fi

# Bounds (seconds). A fork-mode run overshoots -max_total_time by up to one
# job, and libFuzzer's jobs grow to 300 s; QEMU adds start-up time: the
# real-Go fuzzer runs its 27 seeds, each a Go guest under QEMU's gdbstub,
# before its time counts (arm64: 70-80 s alone, and over 140 s beside
# another config's campaign, where a bound of 160 s for --time=20 stopped a
# README step that had nothing wrong).
BUILD_BOUND=${SAFEPOINT_FUZZ_BUILD_TIMEOUT:-3600}
QUERY_BOUND=600
run_bound=$(( budget + (budget < 300 ? budget : 300) + 300 ))
merge_bound=$(( budget > 300 ? budget : 300 ))
REPRO_BOUND=120
MAX_REPROS=10

TOOLS=${SAFEPOINT_TOOLS:-/opt/safepoint-tools}
if [ ! -f "$TOOLS/.stamp-proved-$(sp_ports | tr '\n' '-')" ] || ! command -v bazel >/dev/null || ! command -v clang++-16 >/dev/null; then
  say "tools missing; running ci/setup.sh"
  timeout -k 60 3600 bash "$here/setup.sh" || fail "setup failed (or took over an hour)"
fi
command -v python3 >/dev/null || fail "python3 is missing (ci/setup.sh installs it)"

mkdir -p "$out" "$corpus_root" || fail "cannot create $out or $corpus_root"
out=$(cd "$out" && pwd)
corpus_root=$(cd "$corpus_root" && pwd)
cd "$top" || exit 2
sp_write_bazelrc || fail "cannot write .bazelrc.ports"
work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-nightly.XXXXXX") || fail "cannot make a work folder"
trap 'rm -rf "$work"' EXIT

# --- the targets --------------------------------------------------------------
query='kind(cc_test, attr(name, "_fuzz$", //fuzz:all))'
if ! timeout -k 30 "$QUERY_BOUND" bazel query --output=xml "$query" >"$work/query.xml" 2>"$work/query.log"; then
  tail -n 20 "$work/query.log" >&2
  fail "bazel query '$query' failed"
fi
python3 "$here/fuzz_targets.py" --root="$top" <"$work/query.xml" >"$work/targets.tsv" || fail "cannot read the fuzz targets"
declare -A T_LABEL T_DICT T_CORPORA T_OPTS
names=()
while IFS=$'\t' read -r label name dict corpora opts; do
  T_LABEL[$name]=$label; T_DICT[$name]=$dict; T_CORPORA[$name]=$corpora; T_OPTS[$name]=$opts
  names+=("$name")
done <"$work/targets.tsv"
[ ${#names[@]} -gt 0 ] || fail "no fuzz targets in fuzz/ (query: $query)"
if [ -n "$only" ]; then
  IFS=, read -r -a wanted <<<"$only"
  for w in "${wanted[@]}"; do
    [ -n "${T_LABEL[$w]:-}" ] || die "unknown target '$w'; fuzz targets: ${names[*]}"
  done
  names=("${wanted[@]}")
fi
labels=(); for n in "${names[@]}"; do labels+=("${T_LABEL[$n]}"); done
# The host's own config (the preemption fuzzer's driver for the emulated
# ones), and whether the preemption fuzzer is among the targets.
native_config=
for c0 in $(sp_configs); do
  if [ "$(sp_config_mode "$c0")" = native ] && ! sp_config_sanitized "$c0"; then native_config=$c0; break; fi
done
driven=0
for n in "${names[@]}"; do [ "$n" = preempt_fuzz ] && [ -n "$native_config" ] && driven=1; done
say "targets: ${names[*]}; configs: ${configs[*]}; $budget s each; -c $mode"

# --- the corpus: one folder per target, seeded from the checked-in one -------
for n in "${names[@]}"; do
  mkdir -p "$corpus_root/$n" || fail "cannot create $corpus_root/$n"
  if [ "${T_CORPORA[$n]}" != - ]; then
    IFS=, read -r -a seeds <<<"${T_CORPORA[$n]}"
    for s in "${seeds[@]}"; do
      [ -d "$top/$s" ] || fail "$n: its corpus $s is not a folder"
      # -n: never overwrite; a seed added to the checkout later joins too.
      cp -n "$top/$s"/* "$corpus_root/$n"/ 2>/dev/null
    done
  fi
done

count_files() { find "$1" -maxdepth 1 -type f 2>/dev/null | wc -l; }
# The findings among a run's artifacts, a path a line (what is one: the
# report's KINDS).
findings_in() { python3 "$here/fuzz_report.py" --findings="$1"; }

# --- each config: build, then fuzz each target -----------------------------
results="$out/results.tsv"
rm -rf "$out/crashes" "$out/logs" "$out/report.md" "$out/ceiling.tsv"
printf 'config\ttarget\tstatus\trc\tseconds\tcorpus_before\tcorpus_after\tlog\n' >"$results"
# The ceiling's benchmark is built with the targets (a cache hit for
# ci/ceiling.sh after), on the plain build only: extra flags change it.
bench=()
[ "$ceiling" = 1 ] && [ ${#extra[@]} = 0 ] && bench=(//cmd:async_bench)
failed=0
start=$(date +%s)
for c in "${configs[@]}"; do
  logs="$out/logs/$c"
  mkdir -p "$logs"
  mode_of_c=$(sp_config_mode "$c")
  t0=$(date +%s)
  say "== $c: bazel build -c $mode ${labels[*]} ${bench[*]}"
  timeout -k 60 "$BUILD_BOUND" bazel build --config="$c" -c "$mode" "${extra[@]}" -- "${labels[@]}" "${bench[@]}" >"$logs/build.log" 2>&1
  rc=$?
  if [ $rc != 0 ]; then
    [ $rc = 124 ] && echo "(bazel build stopped after $BUILD_BOUND s)" >>"$logs/build.log"
    say "   build failed (exit $rc); last lines of $logs/build.log:"
    tail -n 15 "$logs/build.log" | sed 's/^/   | /'
    for n in "${names[@]}"; do
      printf '%s\t%s\tbuild-failed\t%s\t0\t-\t-\t%s\n' "$c" "$n" "$rc" "logs/$c/build.log" >>"$results"
    done
    failed=1
    continue
  fi
  # Bounded as the build is: with `safepoint fuzz --jobs=N` several of
  # these scripts share one Bazel server, and `bazel info` waits for the
  # others' builds to let go of it (a 120 s bound failed arm64 there).
  bin_dir=$(timeout -k 10 "$BUILD_BOUND" bazel info --config="$c" -c "$mode" "${extra[@]}" bazel-bin 2>/dev/null)
  [ -n "$bin_dir" ] && [ -d "$bin_dir" ] || fail "bazel info bazel-bin failed for $c"
  # An emulated config's preemption fuzzer: the native driver and this
  # config's case executor.
  driver_dir=
  if [ "$driven" = 1 ] && [ "$mode_of_c" = qemu ]; then
    if ! timeout -k 60 "$BUILD_BOUND" bazel build --config="$c" -c "$mode" "${extra[@]}" -- //fuzz:case_executor >>"$logs/build.log" 2>&1 ||
       ! timeout -k 60 "$BUILD_BOUND" bazel build --config="$native_config" -c "$mode" "${extra[@]}" -- //fuzz:preempt_fuzz >>"$logs/build.log" 2>&1; then
      say "   the case executor or the native driver failed to build; last lines of $logs/build.log:"
      tail -n 15 "$logs/build.log" | sed 's/^/   | /'
      printf '%s\t%s\tbuild-failed\t%s\t0\t-\t-\t%s\n' "$c" preempt_fuzz 1 "logs/$c/build.log" >>"$results"
      failed=1
      continue
    fi
    driver_dir=$(timeout -k 10 "$BUILD_BOUND" bazel info --config="$native_config" -c "$mode" "${extra[@]}" bazel-bin 2>/dev/null)
    [ -n "$driver_dir" ] && [ -d "$driver_dir" ] || fail "bazel info bazel-bin failed for $native_config"
  fi
  say "   built in $(( $(date +%s) - t0 )) s"
  [ "$build_only" = 0 ] || continue
  for n in "${names[@]}"; do
    label=${T_LABEL[$n]}
    pkg=${label#//}; pkg=${pkg%%:*}
    bin="$bin_dir/$pkg/$n"
    [ -x "$bin" ] || fail "$label built, but $bin is missing"
    corpus="$corpus_root/$n"
    new="$work/new/$c/$n"
    art="$out/crashes/$c/$n"
    mkdir -p "$new" "$art" "$work/tmp/$c/$n"
    opts=()
    [ "${T_OPTS[$n]}" != - ] && read -r -a opts <<<"${T_OPTS[$n]}"
    [ "${T_DICT[$n]}" != - ] && opts+=("-dict=$top/${T_DICT[$n]}")
    # Under QEMU, libFuzzer's -fork and -merge start their children with
    # system(), that is the host's /bin/sh, which cannot exec a foreign
    # binary (and would run an x86-64 one natively). QEMU_ARGV0 makes the
    # target see a wrapper as its argv[0], so the children it starts are
    # started through the runner, under the same QEMU.
    envs=(TMPDIR="$work/tmp/$c/$n")
    run_c=$c
    if [ "$n" = preempt_fuzz ] && [ -n "$driver_dir" ]; then
      # Natively, its runs in the case executor (each -fork child starts
      # its own, under the config's QEMU).
      run_c=$native_config
      bin="$driver_dir/fuzz/preempt_fuzz"
      envs+=(SAFEPOINT_FUZZ_EXECUTOR="$c=$bin_dir/fuzz/case_executor" SAFEPOINT_RUNNER="$top/platforms/toolchains/run")
    elif [ "$mode_of_c" = qemu ]; then
      wrap="$work/wrap-$c-$n"
      printf '#!/usr/bin/env bash\nexec %q --config=%q %q "$@"\n' "$top/platforms/toolchains/run" "$c" "$bin" >"$wrap"
      chmod +x "$wrap"
      envs+=(QEMU_ARGV0="$wrap")
    fi
    before=$(count_files "$corpus")
    log="$logs/$n.fuzz.log"
    say "   $c $n: fuzzing $budget s (corpus $before files)"
    t1=$(date +%s)
    env "${envs[@]}" timeout -k 30 "$run_bound" "$top/platforms/toolchains/run" --config="$run_c" "$bin" "${opts[@]}" \
      -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$budget" \
      -artifact_prefix="$art/" "$new" "$corpus" >"$log" 2>&1 </dev/null
    rc=$?
    secs=$(( $(date +%s) - t1 ))
    # A finding is a finding whatever the exit: in fork mode libFuzzer
    # exits with the last failing job's code, which is 0 when a later job
    # ended well.
    # (A run whose every input fails, a mutated runtime's, runs on to its
    # bound: what it found is still what it says.)
    nart=$(findings_in "$art" | wc -l)
    status=ok
    stopped=0
    if [ $rc = 124 ] || [ $rc = 137 ]; then stopped=1; echo "(stopped after $run_bound s)" >>"$log"; fi
    if [ "$nart" -gt 0 ]; then
      status=found
    elif [ $stopped = 1 ]; then
      status=timed-out
    elif [ $rc != 0 ]; then
      status=run-failed
    fi
    [ "$status" = ok ] || failed=1
    # Merge what is new into the kept corpus (only inputs that add coverage).
    if [ "$(count_files "$new")" -gt 0 ]; then
      mlog="$logs/$n.merge.log"
      if ! env "${envs[@]}" timeout -k 30 "$merge_bound" "$top/platforms/toolchains/run" --config="$run_c" "$bin" "${opts[@]}" \
          -merge=1 -artifact_prefix="$art/" "$corpus" "$new" >"$mlog" 2>&1 </dev/null; then
        echo "(merge failed; new inputs copied as they are)" >>"$mlog"
        cp -n "$new"/* "$corpus"/ 2>/dev/null
      fi
    fi
    after=$(count_files "$corpus")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$n" "$status" "$rc" "$secs" "$before" "$after" "logs/$c/$n.fuzz.log" >>"$results"
    # Each artifact once more, for what it says (bounded, at most MAX_REPROS).
    # A replay that fails again writes its artifact too: into the work
    # folder, not the current one (the checkout).
    k=0
    mkdir -p "$work/replay/$c/$n"
    while IFS= read -r a; do
      failed=1
      k=$((k + 1)); [ $k -le $MAX_REPROS ] || break
      env "${envs[@]}" timeout -k 10 "$REPRO_BOUND" "$top/platforms/toolchains/run" --config="$run_c" "$bin" "${opts[@]}" \
        -artifact_prefix="$work/replay/$c/$n/" "$a" >"$logs/$n.repro-$(basename "$a").log" 2>&1 </dev/null
    done < <(findings_in "$art")
    say "   $c $n: $status, $secs s, corpus $before -> $after, $nart artifact(s)"
  done
  if [ "$ceiling" = 1 ]; then
    bash "$here/ceiling.sh" --arch="$c" --mode="$mode" --log="$logs/ceiling.log" >>"$out/ceiling.tsv" ||
      say "   $c: the ceiling was not measured (logs/$c/ceiling.log)"
    say "   $c ceiling: $(tail -n 1 "$out/ceiling.tsv" | cut -f 2-4 | tr '\t' ' ') (trap+SIGURG/s, armed/s, ratio)"
  fi
done

[ "$build_only" = 0 ] || exit $failed
python3 "$here/fuzz_report.py" --out="$out" --time="$budget" --mode="$mode" \
  --corpus-dir="$corpus_root" --extra="${extra[*]}" || fail "cannot write $out/report.md"
say "report: $out/report.md ($(( $(date +%s) - start )) s)"
exit $failed
