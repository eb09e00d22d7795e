#!/usr/bin/env bash
# Runs .clusterfuzzlite/build.sh here, in an imitation of OSS-Fuzz's build
# environment (address or undefined sanitizer, or coverage; libFuzzer), and
# checks what it leaves:
# for each fuzz target an x86-64 ELF in $OUT that runs at least 200 inputs from a
# fixed seed on its seed corpus (and dictionary), and its .dict,
# _seed_corpus.zip and .options.
#
#   ci/cflite_build_test.sh [--sanitizer=address|undefined|coverage] [--keep] [-- extra bazel build flags]
#
# OSS-Fuzz's image has its own clang and libc++; this uses Debian's
# clang-16 and libstdc++ with OSS-Fuzz's default sanitizer flags, so it checks
# the script's logic (flags, targets, outputs), not the image. It builds
# with Bazel in this checkout (an output directory of its own per
# sanitizer), so it is a script for CI, not a Bazel test: a Bazel build
# inside a Bazel test is neither hermetic nor quick. --keep keeps $OUT.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
die() { echo "ci/cflite_build_test.sh: FAIL: $*" >&2; exit 1; }
usage() { echo "ci/cflite_build_test.sh: $*" >&2; exit 2; }

keep=
sanitizer=address
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=1 ;;
    --sanitizer=*) sanitizer=${1#--sanitizer=} ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) usage "unknown flag '$1' (see --help)" ;;
  esac
  shift
done

command -v clang-16 >/dev/null && command -v clang++-16 >/dev/null || die "clang-16 is missing (bash ci/setup.sh)"
command -v bazel >/dev/null || die "bazel is missing (bash ci/setup.sh)"
for t in zip unzip file python3 timeout; do command -v "$t" >/dev/null || die "$t is missing"; done

OUT=$(mktemp -d "${TMPDIR:-/tmp}/cflite-out.XXXXXX") || die "cannot make \$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cflite-work.XXXXXX") || die "cannot make a work folder"
if [ -n "$keep" ]; then trap 'rm -rf "$WORK"; echo "kept \$OUT: $OUT"' EXIT
else trap 'rm -rf "$OUT" "$WORK"' EXIT
fi

# OSS-Fuzz's defaults for the sanitizer, with libFuzzer.
common="-O1 -fno-omit-frame-pointer -gline-tables-only"
case "$sanitizer" in
  address)
    flags="$common -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
    runtime_symbol=__asan_init ;;
  undefined)
    checks=array-bounds,bool,builtin,enum,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound,vptr
    flags="$common -fsanitize=$checks,unsigned-integer-overflow -fno-sanitize-recover=$checks -fsanitize=fuzzer-no-link"
    runtime_symbol=__ubsan_handle_
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:silence_unsigned_overflow=1 ;;
  coverage)
    flags="$common -fprofile-instr-generate -fcoverage-mapping -pthread -Wl,--no-as-needed -Wl,-ldl -Wl,-lm -Wno-unused-command-line-argument -fsanitize=fuzzer-no-link"
    runtime_symbol=__llvm_profile_runtime ;;
  *) usage "--sanitizer wants address, undefined or coverage, not '$sanitizer'" ;;
esac
export OUT WORK
export SRC=$top
export CC=clang-16 CXX=clang++-16
export CFLAGS="$flags" CXXFLAGS="$flags"
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
export SANITIZER=$sanitizer FUZZING_ENGINE=libfuzzer ARCHITECTURE=x86_64 FUZZING_LANGUAGE=c++
export SAFEPOINT_BAZEL_FLAGS="${extra[*]}"

t0=$(date +%s)
# As OSS-Fuzz's compile runs it: bash -eux.
echo "== .clusterfuzzlite/build.sh (OUT=$OUT)"
timeout -k 30 3600 bash -eux "$top/.clusterfuzzlite/build.sh" >"$WORK/build.log" 2>&1
rc=$?
if [ $rc != 0 ]; then
  tail -n 30 "$WORK/build.log" >&2
  die "build.sh exited $rc"
fi
echo "   built in $(( $(date +%s) - t0 )) s"

# The targets build.sh should have left: the same query it uses.
names=$(cd "$top" && timeout -k 30 600 bazel query 'kind(cc_test, attr(name, "_fuzz$", //fuzz:all))' 2>/dev/null | sed 's/.*://')
[ -n "$names" ] || die "no fuzz targets found by bazel query"
for n in $names; do
  bin="$OUT/$n"
  [ -f "$bin" ] && [ -x "$bin" ] || die "\$OUT/$n is missing or not executable"
  desc=$(file -b "$bin")
  case "$desc" in
    *"ELF 64-bit"*"x86-64"*) ;;
    *) die "\$OUT/$n is not an x86-64 ELF: $desc" ;;
  esac
  # The sanitizer is really in there.
  grep -q "$runtime_symbol" "$bin" || die "\$OUT/$n has no $sanitizer sanitizer runtime ($runtime_symbol)"
  [ -s "$OUT/$n.options" ] && grep -q '^\[libfuzzer\]' "$OUT/$n.options" || die "\$OUT/$n.options is missing"
  # The options a campaign runs with, from the BUILD args (the preemption
  # fuzzer's energy scaled by execution time among them).
  if [ "$n" = preempt_fuzz ]; then
    grep -q '^entropic_scale_per_exec_time = 1$' "$OUT/$n.options" ||
      die "\$OUT/$n.options does not carry -entropic_scale_per_exec_time=1 from its BUILD args"
  fi
  args=(-runs=200 -seed=1)
  [ -f "$OUT/$n.dict" ] && args+=(-dict="$OUT/$n.dict")
  corpus="$WORK/corpus-$n"
  mkdir -p "$corpus"
  if [ -f "$OUT/${n}_seed_corpus.zip" ]; then
    unzip -q "$OUT/${n}_seed_corpus.zip" -d "$corpus" || die "\$OUT/${n}_seed_corpus.zip does not unzip"
  fi
  seeds=$(find "$corpus" -type f | wc -l)
  [ -f "$OUT/${n}_seed_corpus.zip" ] && [ "$seeds" = 0 ] && die "\$OUT/${n}_seed_corpus.zip is empty"
  # As ClusterFuzzLite runs it: from $OUT, under its sanitizer.
  (cd "$OUT" && LLVM_PROFILE_FILE="$WORK/$n-%p.profraw" timeout -k 10 300 "./$n" "${args[@]}" "$corpus") >"$WORK/$n.log" 2>&1
  rc=$?
  # What the run says it did, not a number fixed here: libFuzzer runs every
  # seed first, so a corpus larger than -runs makes more runs than asked
  # (297 of 200 once the seed corpus had grown: this check failed on it).
  done_runs=$(sed -nE 's/^Done ([0-9]+) runs.*/\1/p' "$WORK/$n.log" | tail -n 1)
  inited=$(sed -nE 's/^#([0-9]+)[[:space:]]+INITED.*/\1/p' "$WORK/$n.log" | tail -n 1)
  if [ $rc != 0 ] || [ -z "$done_runs" ] || [ "$done_runs" -lt 200 ] || [ -z "$inited" ]; then
    tail -n 20 "$WORK/$n.log" >&2
    die "\$OUT/$n -runs=200 -seed=1 on its seed corpus of $seeds files exited $rc after ${done_runs:-no} runs (${inited:-no} inputs read at start)"
  fi
  echo "   $n: x86-64 ELF with $sanitizer, dict $([ -f "$OUT/$n.dict" ] && echo yes || echo no), seed corpus $seeds files, $inited read at start, $done_runs runs ok"
done
echo "cflite build test: ok ($(( $(date +%s) - t0 )) s)"
