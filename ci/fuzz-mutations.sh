#!/usr/bin/env bash
# How fast the preemption fuzzer finds each mutation: for every chosen
# config and every mutation of the catalogue that applies to its port
# (`safepoint sweep --mutate=list`), a campaign of //fuzz:preempt_fuzz from
# the checked-in seed corpus (or from none: --from), under
# SAFEPOINT_FUZZ_MUTATE=M, until its first crash or the time budget; then
# a Markdown table of the time to find.
#
#   ci/fuzz-mutations.sh [--arch=LIST|all] [--time=SECONDS] [--out=DIR]
#                        [--mutations=NAME,...] [--seed=N] [--from=seeds|empty]
#
#   --arch       configs, comma-separated, or all (the default)
#   --time       the budget per mutation and config (default 60, the
#                issue's bound)
#   --out        the table and logs (default fuzz-out/mutations/)
#   --mutations  only these (default: every one that applies)
#   --seed       libFuzzer's -seed (default 1)
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
from=seeds
while [ $# -gt 0 ]; do
  case "$1" in
    --arch=*) arch=${1#--arch=} ;;
    --time=*) budget=${1#--time=} ;;
    --out=*) out=${1#--out=} ;;
    --mutations=*) only=${1#--mutations=} ;;
    --seed=*) seed=${1#--seed=} ;;
    --from=*) from=${1#--from=} ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown flag '$1' (see --help)" ;;
  esac
  shift
done
[[ "$budget" =~ ^[0-9]+$ ]] && [ "$budget" -ge 1 ] && [ "$budget" -le 86400 ] || die "--time=$budget: want seconds in [1, 86400]"
[[ "$seed" =~ ^[0-9]+$ ]] || die "--seed=$seed: want a number"
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
  echo ", -seed=$seed, budget ${budget} s per mutation and config, one process per campaign (no -fork); wall time to the first crash. $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg) at the start."
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
    corpus=$(mktemp -d)
    [ "$from" = empty ] || cp fuzz/corpus/preempt/* "$corpus/"
    art="$out/artifacts/$c/$m"
    mkdir -p "$art"
    log="$out/logs/$c.$m.log"
    t0=$(date +%s.%N)
    SAFEPOINT_FUZZ_MUTATE=$m timeout $((budget + 120)) "$top/platforms/toolchains/run" --config="$c" \
      "$out/bin/$c/preempt_fuzz" -seed="$seed" -max_total_time="$budget" -max_len=512 -timeout=60 \
      -rss_limit_mb=2048 -entropic_scale_per_exec_time=1 -artifact_prefix="$art/" "$corpus" >"$log" 2>&1
    status=$?
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
    first=$(grep -m1 '==safepoint-fuzz==' "$log" | sed 's/^==safepoint-fuzz== //; s/^ERROR: //; s/|/\\|/g')
    if [ "$status" -ne 0 ] && ls "$art"/crash-* >/dev/null 2>&1; then
      found=yes
    else
      found=no; secs=">$budget"
    fi
    echo "| $c | $m | $found | $secs | ${execs:-?} | ${first:-} |" >>"$table"
    echo "fuzz-mutations: $c $m: found=$found in $secs s"
    rm -rf "$corpus"
  done
done
echo "fuzz-mutations: table in $table"
exit 0
