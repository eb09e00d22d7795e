#!/usr/bin/env bash
# How fast the preemption fuzzer finds each mutation: for every chosen
# config and every mutation of the catalogue that applies to its port
# (`safepoint sweep --mutate=list`), a campaign of //fuzz:preempt_fuzz from
# the checked-in seed corpus (or from none: --from), under
# SAFEPOINT_FUZZ_MUTATE=M, until its first crash or the time budget; then
# a Markdown table of the time to find.
#
#   ci/fuzz-mutations.sh [--arch=LIST|all] [--time=SECONDS] [--out=DIR]
#                        [--mutations=NAME,...] [--seed=N] [--runs=N]
#                        [--from=seeds|empty]
#
#   --arch       configs, comma-separated, or all (the default)
#   --time       the budget per mutation and config (default 60, the
#                issue's bound)
#   --out        the table and logs (default fuzz-out/mutations/)
#   --mutations  only these (default: every one that applies)
#   --seed       libFuzzer's -seed (default 1)
#   --runs       campaigns per mutation and config (default 1), with -seed
#                SEED, SEED+1, ...; the table gives how many found it, the
#                median time (a campaign that did not find it counts as
#                longer than any that did; no median when half or more did
#                not) and each campaign's. One campaign is no measurement
#                of a change: libFuzzer's schedule reads execution times,
#                so the same -seed does not repeat a campaign (from an
#                empty corpus one mutation took 3.1 s and 1.1 s with
#                -seed=3 on one machine within an hour)
#   --from       the corpus a campaign starts from: seeds (the default, the
#                checked-in corpus: each mutation there is found by a seed
#                within the corpus's first read, under a second natively)
#                or empty (no input at all: what the fuzzer's own search
#                finds, and how fast)
#
# Each campaign is one process (no -fork: the first crash ends it), started
# through the runner, so an emulated config runs under its QEMU; its time is
# the wall time to that crash. Exit: 0 the table was written (whatever it
# says), 1 a build failed, 2 bad flags.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
SP_TOP=$top
. "$top/platforms/toolchains/ports.sh"

die() { echo "ci/fuzz-mutations.sh: $*" >&2; exit 2; }

arch=all
budget=60
out="$top/fuzz-out/mutations"
only=
seed=1
runs=1
from=seeds
while [ $# -gt 0 ]; do
  case "$1" in
    --arch=*) arch=${1#--arch=} ;;
    --time=*) budget=${1#--time=} ;;
    --out=*) out=${1#--out=} ;;
    --mutations=*) only=${1#--mutations=} ;;
    --seed=*) seed=${1#--seed=} ;;
    --runs=*) runs=${1#--runs=} ;;
    --from=*) from=${1#--from=} ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown flag '$1' (see --help)" ;;
  esac
  shift
done
[[ "$budget" =~ ^[0-9]+$ ]] && [ "$budget" -ge 1 ] && [ "$budget" -le 86400 ] || die "--time=$budget: want seconds in [1, 86400]"
[[ "$seed" =~ ^[0-9]+$ ]] || die "--seed=$seed: want a number"
[[ "$runs" =~ ^[0-9]+$ ]] && [ "$runs" -ge 1 ] && [ "$runs" -le 50 ] || die "--runs=$runs: want a number of campaigns in [1, 50]"
case "$from" in seeds|empty) ;; *) die "--from=$from: want seeds or empty" ;; esac
if [ "$arch" = all ]; then
  mapfile -t configs < <(sp_configs)
else
  ( sp_check_configs "$arch" ) 2>&1 | sed 's/^/ci\/fuzz-mutations.sh: /' >&2
  [ "${PIPESTATUS[0]}" = 0 ] || exit 2
  IFS=, read -r -a configs <<<"$arch"
fi

cd "$top" || exit 2
sp_write_bazelrc || die "cannot write .bazelrc.ports"
mkdir -p "$out/logs" || die "cannot create $out"
table="$out/report.md"
{
  echo "# Time for //fuzz:preempt_fuzz to find each mutation"
  echo
  if [ "$from" = seeds ]; then echo -n "From the checked-in seed corpus (fuzz/corpus/preempt)"; else echo -n "From an empty corpus"; fi
  if [ "$runs" = 1 ]; then echo -n ", -seed=$seed"; else echo -n ", $runs campaigns each (-seed=$seed..$((seed + runs - 1)); seconds: the median, then each)"; fi
  echo ", budget ${budget} s per mutation and config, one process per campaign (no -fork); wall time to the first crash. $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg) at the start."
  echo
  echo "| config | mutation | found | seconds | execs | first line |"
  echo "|---|---|---|---|---|---|"
} >"$table"

for c in "${configs[@]}"; do
  echo "fuzz-mutations: $c: building //fuzz:preempt_fuzz and //cmd:safepoint (-c opt)"
  if ! timeout 3600 bazel build -c opt --config="$c" //fuzz:preempt_fuzz //cmd:safepoint >"$out/logs/$c.build.log" 2>&1; then
    echo "fuzz-mutations: $c: build failed (see $out/logs/$c.build.log)" >&2
    exit 1
  fi
  bin=$(bazel info -c opt --config="$c" bazel-bin 2>/dev/null)
  # A private copy: a later build cannot change the binary under a campaign.
  mkdir -p "$out/bin/$c"
  cp -f "$bin/fuzz/preempt_fuzz" "$bin/cmd/safepoint" "$out/bin/$c/"
  list=$("$top/platforms/toolchains/run" --config="$c" "$out/bin/$c/safepoint" sweep --mutate=list)
  mapfile -t muts < <(awk 'NR > 1 && !/\[not here:/ {print $1}' <<<"$list")
  for m in "${muts[@]}"; do
    if [ -n "$only" ] && [[ ",$only," != *",$m,"* ]]; then continue; fi
    # No run of any program on this port shows it (the list says why): n/a.
    unseen=$(awk -v m="$m" '$1 == m && /\[no run shows it here:/ {sub(/.*\[no run shows it here: /, ""); sub(/\]$/, ""); print}' <<<"$list")
    if [ -n "$unseen" ]; then
      echo "| $c | $m | n/a | | | no run shows it: ${unseen//|/\\|} |" >>"$table"
      echo "fuzz-mutations: $c $m: n/a (no run shows it here)"
      continue
    fi
    times=() execs_all=() first="" found_n=0
    for ((r = 0; r < runs; r++)); do
      corpus=$(mktemp -d)
      [ "$from" = empty ] || cp fuzz/corpus/preempt/* "$corpus/"
      art="$out/artifacts/$c/$m"
      log="$out/logs/$c.$m.log"
      if [ "$runs" -gt 1 ]; then art="$art/$r"; log="$out/logs/$c.$m.$r.log"; fi
      mkdir -p "$art"
      rm -f "$art"/crash-*
      t0=$(date +%s.%N)
      SAFEPOINT_FUZZ_MUTATE=$m timeout $((budget + 120)) "$top/platforms/toolchains/run" --config="$c" \
        "$out/bin/$c/preempt_fuzz" -seed="$((seed + r))" -max_total_time="$budget" -max_len=512 -timeout=60 \
        -rss_limit_mb=2048 -entropic_scale_per_exec_time=1 -artifact_prefix="$art/" "$corpus" >"$log" 2>&1
      status=$?
      t1=$(date +%s.%N)
      secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
      execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
      if [ "$status" -ne 0 ] && ls "$art"/crash-* >/dev/null 2>&1; then
        found_n=$((found_n + 1))
        times+=("$secs")
        [ -n "$first" ] || first=$(grep -m1 '==safepoint-fuzz==' "$log" | sed 's/^==safepoint-fuzz== //; s/^ERROR: //; s/|/\\|/g')
      else
        times+=(">$budget")
      fi
      execs_all+=("${execs:-?}")
      rm -rf "$corpus"
    done
    if [ "$runs" = 1 ]; then
      found=no; [ "$found_n" = 1 ] && found=yes
      secs=${times[0]} execs=${execs_all[0]}
    else
      found="$found_n of $runs"
      # The median, a campaign that found nothing ranked after every one
      # that did; none when it would be such a campaign.
      secs=$(python3 -c '
import sys
b = float(sys.argv[1]); v = sys.argv[2:]
key = sorted((float(x) if x[0] != ">" else float("inf")) for x in v)
n = len(key)
m = key[n // 2] if n % 2 else (key[n // 2 - 1] + key[n // 2]) / 2
print(("%.1f" % m if m != float("inf") else ">%g" % b) + " (" + ", ".join(v) + ")")' "$budget" "${times[@]}")
      execs=$(IFS=,; echo "${execs_all[*]}")
    fi
    echo "| $c | $m | $found | $secs | ${execs:-?} | ${first:-} |" >>"$table"
    echo "fuzz-mutations: $c $m: found=$found in $secs s"
  done
done
echo "fuzz-mutations: table in $table"
exit 0
