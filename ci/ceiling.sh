#!/usr/bin/env bash
# The machine's own limit, measured for a fuzz report: on one config, the
# bare trap+SIGURG round trips per second (the ceiling) and armed, fully
# checked preemptions per second, from a //cmd:async_bench run measured by
# the same code as ci/bench.sh's (ci/bench_lib.sh: the same counts, one
# CPU, the same parsing), so the reports' figures are bench's. The fuzz
# reports print a campaign's executions per second next to them.
#
#   ci/ceiling.sh --arch=CONFIG [--mode=opt] [--n=5000] [--rounds=5] [--log=FILE]
#
# --n and --rounds default to ci/bench.sh's (5 rounds of 5000 bare round
# trips and 5000 checked preemptions; about 5 s natively, 10 s for arm64
# under QEMU). Prints one tab-separated line: config, ceiling /s, armed /s,
# ratio (each the median over the rounds, as async_bench prints them), and
# a note; the three figures are "-" when nothing was measured, the note
# says why (a sanitizer config, a port without asynchronous preemption, a
# failed build or run). --log keeps the build's and async_bench's output.
# Every step is bounded. Exit: 0 measured or declared not measurable, 1 a
# build or run failed, 2 bad flags.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
SP_TOP=$top
. "$top/platforms/toolchains/ports.sh"
. "$here/bench_lib.sh"
die() { echo "ci/ceiling.sh: $*" >&2; exit 2; }

config=
mode=opt
n=$SP_BENCH_N
rounds=$SP_BENCH_ROUNDS
log=
for a in "$@"; do
  case "$a" in
    --arch=*) config=${a#--arch=} ;;
    --mode=*) mode=${a#--mode=} ;;
    --n=*) n=${a#--n=} ;;
    --rounds=*) rounds=${a#--rounds=} ;;
    --log=*) log=${a#--log=} ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown flag '$a' (see --help)" ;;
  esac
done
[ -n "$config" ] || die "--arch=CONFIG is required"
[[ "$config" != *,* ]] || die "--arch takes one config, not '$config'"
( sp_check_configs "$config" ) 2>&1 | sed 's/^/ci\/ceiling.sh: /' >&2
[ "${PIPESTATUS[0]}" = 0 ] || exit 2
case "$mode" in opt|fastbuild|dbg) ;; *) die "--mode wants opt, fastbuild or dbg, not '$mode'" ;; esac
[[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 100 ] && [ "$n" -le 1000000 ] || die "--n=$n: want a count in [100, 1000000]"
[[ "$rounds" =~ ^[0-9]+$ ]] && [ "$rounds" -ge 1 ] && [ "$rounds" -le 50 ] || die "--rounds=$rounds: want a count in [1, 50]"
[ -n "$log" ] || log=/dev/null

line() { printf '%s\t%s\t%s\t%s\t%s\n' "$config" "$1" "$2" "$3" "$4"; }
if sp_config_sanitized "$config"; then
  line - - - "not measured under sanitizers"
  exit 0
fi

cd "$top" || exit 2
sp_write_bazelrc || die "cannot write .bazelrc.ports"
if ! timeout -k 30 1800 bazel build --config="$config" -c "$mode" //cmd:async_bench >"$log" 2>&1; then
  line - - - "async_bench did not build"
  exit 1
fi
bin=$(timeout -k 10 600 bazel info --config="$config" -c "$mode" bazel-bin 2>/dev/null)/cmd/async_bench
[ -x "$bin" ] || { line - - - "async_bench built, but $bin is missing"; exit 1; }
sp_bench_async "$config" "$bin" "$n" "$rounds"
ok=$?
[ "$log" = /dev/null ] || printf '%s\n' "$SP_BENCH_SAID" >>"$log"
if [ "$SP_BENCH_MISSING" = 1 ]; then
  line - - - "the port declares asynchronous preemption missing"
  exit 0
fi
if [ "$SP_BENCH_RC" != 0 ] || [ "$ok" != 0 ]; then
  line - - - "async_bench failed (exit $SP_BENCH_RC)"
  exit 1
fi
line "$SP_BENCH_CEILING" "$SP_BENCH_ARMED" "$SP_BENCH_RATIO" "$rounds rounds of $n, one CPU, -c $mode"
