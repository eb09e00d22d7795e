#!/usr/bin/env bash
# safepoint fuzz: fuzz campaigns on several configs at once, with live
# progress and a summary table (what `./safepoint fuzz` runs).
#
#   ./safepoint fuzz [--arch=CONFIG,...|all] [--time=SECONDS] [--jobs=N]
#                    [--targets=NAME,...] [--out=DIR]
#
#   --arch     configs (default amd64), or all
#   --time     seconds per target per config (default 60)
#   --jobs     configs fuzzed at the same time (default: the number of cores)
#   --targets  fuzz targets (default preempt_fuzz)
#   --out      where each config's report, crashes and logs go (default
#              fuzz-out/ in the checkout: fuzz-out/<config>/report.md)
#
# Each config is one ci/fuzz-nightly.sh run (the corpus kept in
# fuzz-corpus/, -fork=1, artifacts kept); every 10 s a line per running
# config gives its executions, exec/s, coverage, features and crashes so
# far; at the end a table per config and target, with each config's
# ceiling (ci/ceiling.sh, measured one config after another once every
# campaign has ended, so that none runs beside them) next to its exec/s,
# and each crash with the `./safepoint repro` command that replays it. Exit: 0 nothing found, 1 a
# crash or a failed build or run, 2 bad flags.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
SP_TOP=$top
. "$top/platforms/toolchains/ports.sh"

die() { echo "safepoint fuzz: $*" >&2; exit 2; }

arch=amd64
budget=60
jobs=$(nproc)
targets=preempt_fuzz
out="$top/fuzz-out"
while [ $# -gt 0 ]; do
  case "$1" in
    fuzz) ;;  # the subcommand's own name, as ./safepoint passes it
    --arch=*) arch=${1#--arch=} ;;
    --time=*) budget=${1#--time=} ;;
    --jobs=*) jobs=${1#--jobs=} ;;
    --targets=*) targets=${1#--targets=} ;;
    --out=*) out=${1#--out=} ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown flag '$1' (see ./safepoint fuzz --help)" ;;
  esac
  shift
done
[[ "$budget" =~ ^[0-9]+$ ]] && [ "$budget" -ge 1 ] && [ "$budget" -le 86400 ] || die "--time=$budget: want seconds in [1, 86400]"
[[ "$jobs" =~ ^[0-9]+$ ]] && [ "$jobs" -ge 1 ] && [ "$jobs" -le 64 ] || die "--jobs=$jobs: want a number in [1, 64]"
[[ "$targets" =~ ^[a-z0-9_,]+$ ]] || die "--targets=$targets: want target names separated by commas"
if [ "$arch" = all ]; then
  mapfile -t configs < <(sp_configs)
else
  ( sp_check_configs "$arch" ) 2>&1 | sed 's/^/safepoint fuzz: /' >&2
  [ "${PIPESTATUS[0]}" = 0 ] || exit 2
  IFS=, read -r -a configs <<<"$arch"
fi
mkdir -p "$out" || die "cannot create $out"

# Every config built first, one after another: the jobs' own builds are
# then cache hits, and each campaign's progress line starts when it does
# (built inside the jobs, they queued on one Bazel server and the waiting
# ones said "starting"). A config that fails to build is its job's to
# report (fuzz-nightly.sh builds again, and says so in its results).
start=$(date +%s)
echo "safepoint fuzz: building ${targets} for ${configs[*]} (log: $out/build.log)"
bash "$here/fuzz-nightly.sh" --arch="$(IFS=,; echo "${configs[*]}")" --targets="$targets" --build-only \
  --out="$out/build" >"$out/build.log" 2>&1 ||
  echo "safepoint fuzz: a build failed ($out/build.log); its campaign reports it"
echo "safepoint fuzz: built in $(( $(date +%s) - start )) s"

# The campaigns, --jobs at a time.
declare -A pid
start=$(date +%s)
status_line() {  # CONFIG: the last libFuzzer stats line of each target, condensed
  local c=$1 t log line
  for t in ${targets//,/ }; do
    log="$out/$c/logs/$c/$t.fuzz.log"
    line=$(grep -E '^#[0-9]+' "$log" 2>/dev/null | tail -1)
    if [ -z "$line" ]; then echo "  $c $t: starting"; continue; fi
    local execs cov ft eps crashes
    execs=$(echo "$line" | sed -nE 's/^#([0-9]+).*/\1/p')
    cov=$(echo "$line" | sed -nE 's/.*cov: ([0-9]+).*/\1/p')
    ft=$(echo "$line" | sed -nE 's/.*ft: ([0-9]+).*/\1/p')
    eps=$(echo "$line" | sed -nE 's/.*exec\/s: ([0-9]+).*/\1/p')
    crashes=$(echo "$line" | sed -nE 's/.*oom\/timeout\/crash: ([0-9]+\/[0-9]+\/[0-9]+).*/\1/p')
    echo "  $c $t: ${execs:-0} execs, ${eps:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}, oom/timeout/crash ${crashes:-0/0/0}"
  done
}
queue=("${configs[@]}")
running=()
rc=0
while [ ${#queue[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
  while [ ${#queue[@]} -gt 0 ] && [ ${#running[@]} -lt "$jobs" ]; do
    c=${queue[0]}; queue=("${queue[@]:1}")
    mkdir -p "$out/$c"
    bash "$here/fuzz-nightly.sh" --arch="$c" --time="$budget" --targets="$targets" --out="$out/$c" --no-ceiling \
      >"$out/$c/nightly.log" 2>&1 &
    pid[$c]=$!
    running+=("$c")
    echo "safepoint fuzz: $c: started ($budget s per target)"
  done
  sleep 10
  echo "safepoint fuzz: $(( $(date +%s) - start )) s"
  still=()
  for c in "${running[@]}"; do
    status_line "$c"
    if kill -0 "${pid[$c]}" 2>/dev/null; then
      still+=("$c")
    else
      wait "${pid[$c]}"; r=$?
      [ "$r" = 0 ] || rc=1
      echo "safepoint fuzz: $c: done (exit $r)"
    fi
  done
  running=("${still[@]}")
done

# The machine's own limit on each config, on a machine the campaigns have
# left; each config's report is written again with it.
for c in "${configs[@]}"; do
  [ -f "$out/$c/results.tsv" ] || continue
  echo "safepoint fuzz: $c: measuring the ceiling (ci/ceiling.sh)"
  bash "$here/ceiling.sh" --arch="$c" --log="$out/$c/logs/$c/ceiling.log" >"$out/$c/ceiling.tsv" ||
    echo "safepoint fuzz: $c: the ceiling was not measured ($out/$c/logs/$c/ceiling.log)"
  python3 "$here/fuzz_report.py" --out="$out/$c" --time="$budget" --mode=opt --corpus-dir="$top/fuzz-corpus" ||
    echo "safepoint fuzz: $c: cannot write $out/$c/report.md again"
done

echo
echo "| config | target | status | seconds | execs | exec/s | cov | ft | corpus | ceiling, trap+SIGURG /s | armed, checked /s (ratio) |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for c in "${configs[@]}"; do
  tsv="$out/$c/results.tsv"
  if [ ! -f "$tsv" ]; then echo "| $c | - | no results (see $out/$c/nightly.log) | | | | | | | | |"; rc=1; continue; fi
  ceiling=- armed=-
  if IFS=$'\t' read -r _ cl ar ra note <"$out/$c/ceiling.tsv" 2>/dev/null; then
    ceiling=$cl armed="$ar ($ra)"
    [ "$cl" != - ] || armed=$note
  fi
  # results.tsv (fuzz-nightly.sh): config target status rc seconds corpus_before corpus_after log
  while IFS=$'\t' read -r _ t st _ secs before after log; do
    line=$(grep -E '^#[0-9]+' "$out/$c/$log" 2>/dev/null | tail -1)
    execs=$(echo "$line" | sed -nE 's/^#([0-9]+).*/\1/p')
    cov=$(echo "$line" | sed -nE 's/.*cov: ([0-9]+).*/\1/p')
    ft=$(echo "$line" | sed -nE 's/.*ft: ([0-9]+).*/\1/p')
    eps=$(awk -v e="${execs:-0}" -v s="$secs" 'BEGIN { if (s > 0) printf "%.0f", e / s; else print "?" }')
    echo "| $c | $t | $st | $secs | ${execs:-?} | $eps | ${cov:-?} | ${ft:-?} | $before -> $after | $ceiling | $armed |"
  done < <(tail -n +2 "$tsv")
done
found=0
for c in "${configs[@]}"; do
  # What counts as a finding: the report's KINDS (ci/fuzz_report.py).
  for d in "$out/$c/crashes/$c"/*/; do
    while read -r f; do
      found=1
      echo "crash: $f"
      echo "  replay: ./safepoint repro --arch=$c --show $f"
    done < <(python3 "$here/fuzz_report.py" --findings="${d%/}")
  done
done
[ "$found" = 0 ] || rc=1
echo "safepoint fuzz: reports in $out/<config>/report.md"
exit $rc
