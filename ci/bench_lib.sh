# The one measurement of the armed rate and its ceiling, sourced by
# ci/bench.sh and ci/ceiling.sh so that both report the same figures from
# the same run of //cmd:async_bench: the same counts, the same pinning and
# the same parsing. (Two copies had drifted: bench.sh ran 5 rounds of 5000,
# ceiling.sh 3 of 2000, and the fuzz reports' ratio was not bench's.)
# Needs platforms/toolchains/ports.sh sourced first (sp_one_cpu) and SP_TOP.
#
#   sp_bench_async CONFIG ASYNC_BENCH_BINARY [N [ROUNDS]]
#
# Runs async_bench N ROUNDS (defaults SP_BENCH_N, SP_BENCH_ROUNDS) on one
# CPU through the config's runner, bounded by a timeout, and sets:
#   SP_BENCH_SAID     everything it printed (stdout and stderr)
#   SP_BENCH_RC       its exit status (124 or 137: the timeout ended it)
#   SP_BENCH_MISSING  1 when the port declares asynchronous preemption
#                     missing (nothing measured, not a failure), else 0
#   SP_BENCH_CEILING  bare trap+SIGURG round trips /s, median of the rounds
#   SP_BENCH_ARMED    armed, fully checked preemptions /s, median
#   SP_BENCH_RATIO    armed / ceiling, the median of the per-round ratios
# The three figures are empty when they could not be read. Returns 0 when
# all three were read (or the port declares it missing), 1 otherwise.

SP_BENCH_N=5000
SP_BENCH_ROUNDS=5

sp_bench_async() {
  local config=$1 bin=$2 n=${3:-$SP_BENCH_N} rounds=${4:-$SP_BENCH_ROUNDS} pin limit
  # One CPU: the ceiling rounds and the armed rounds then see the same
  # machine (spread over two, one process's ratio swung from 0.5 to 1.0
  # with where the emulator's threads ran).
  read -r -a pin < <(sp_one_cpu)
  # Bounded by the work asked for: 2 * N * ROUNDS events at 200 /s (well
  # under the slowest emulated port's rate), at least 10 minutes.
  limit=$(( 2 * n * rounds / 200 ))
  [ "$limit" -ge 600 ] || limit=600
  SP_BENCH_SAID=$(timeout -k 10 "$limit" "${pin[@]}" "$SP_TOP/platforms/toolchains/run" --config="$config" \
                    "$bin" "$n" "$rounds" 2>&1)
  SP_BENCH_RC=$?
  SP_BENCH_MISSING=0 SP_BENCH_CEILING= SP_BENCH_ARMED= SP_BENCH_RATIO=
  if grep -q "declares asynchronous preemption missing" <<<"$SP_BENCH_SAID"; then
    SP_BENCH_MISSING=1
    return 0
  fi
  SP_BENCH_CEILING=$(sed -nE 's/.*\(ceiling\) +([0-9]+) \/s median.*/\1/p' <<<"$SP_BENCH_SAID")
  SP_BENCH_ARMED=$(sed -nE 's/.*armed preemptions, fully checked +([0-9]+) \/s median.*/\1/p' <<<"$SP_BENCH_SAID")
  SP_BENCH_RATIO=$(sed -nE 's/.*ratio to the ceiling, per round +([0-9.]+) median.*/\1/p' <<<"$SP_BENCH_SAID")
  [ -n "$SP_BENCH_CEILING" ] && [ -n "$SP_BENCH_ARMED" ] && [ -n "$SP_BENCH_RATIO" ]
}
