#!/usr/bin/env bash
# The real Go runtime under test, whole: `safepoint go-sweep` over every
# program of goprogs/ built by every Go version, on every config (or those
# given), every instruction of package main (the suite's conformance
# targets sweep a fixed selection), with each kind of request (the
# scheduler's, the collector's) and each stress asked for (none by
# default; collection, traceback). A Markdown report (a row per config,
# version, program, request and stress: instructions, probed, accepted,
# restarted, refused, disagreements, frame-table, save-area and output
# differences, crashes, stacks scanned parked, tracebacks judged, probes
# per second) on standard output and in OUT/report.md; each sweep's JSON and
# findings file (every finding with the command that replays it alone) in
# OUT. Exit 1 when any sweep has a finding conformance/go_findings.txt
# does not record as a bug in Go, 2 on bad input or a failed build.
#
#   ci/go-sweep.sh [--arch=amd64,arm64,...] [--go=1.19,1.24,1.26] [--programs=loops,...]
#                  [--requests=sched,gc] [--stress=none,collection,traceback] [--out=DIR]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.." || exit 2
SP_TOP=$(pwd)
. platforms/toolchains/ports.sh
mapfile -t configs < <(for c in $(sp_configs); do sp_config_sanitized "$c" || echo "$c"; done)
versions=(1.19 1.24 1.26)
requests=(sched gc)
stresses=(none)
programs=()
out=go-sweep-out
for a in "$@"; do
  case "$a" in
    --arch=*)
      ( sp_check_configs "${a#--arch=}" ) 2>&1 | sed 's/^/ci\/go-sweep.sh: /' >&2
      [ "${PIPESTATUS[0]}" = 0 ] || exit 2
      IFS=, read -r -a configs <<<"${a#--arch=}" ;;
    --go=*) IFS=, read -r -a versions <<<"${a#--go=}" ;;
    --programs=*) IFS=, read -r -a programs <<<"${a#--programs=}" ;;
    --requests=*) IFS=, read -r -a requests <<<"${a#--requests=}" ;;
    --stress=*) IFS=, read -r -a stresses <<<"${a#--stress=}" ;;
    --out=*) out=${a#--out=} ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "ci/go-sweep.sh: unknown flag '$a'" >&2; exit 2 ;;
  esac
done
for v in "${versions[@]}"; do
  case "$v" in 1.19|1.24|1.26) ;; *) echo "ci/go-sweep.sh: --go=$v: want 1.19, 1.24 or 1.26" >&2; exit 2 ;; esac
done
for r in "${requests[@]}"; do
  case "$r" in sched|gc) ;; *) echo "ci/go-sweep.sh: --requests=$r: want sched or gc" >&2; exit 2 ;; esac
done
for x in "${stresses[@]}"; do
  case "$x" in none|collection|traceback) ;; *) echo "ci/go-sweep.sh: --stress=$x: want none, collection or traceback" >&2; exit 2 ;; esac
done
[ ${#programs[@]} -gt 0 ] || mapfile -t programs < <(cd goprogs && ls -d */ | tr -d / | while read -r p; do [ -f "$p/main.go" ] && echo "$p"; done)
for p in "${programs[@]}"; do
  [ -f "goprogs/$p/main.go" ] || { echo "ci/go-sweep.sh: no program goprogs/$p" >&2; exit 2; }
done
[ -f "$TOOLS/.stamp-proved-$(sp_ports | tr '\n' '-')" ] || bash "$here/setup.sh" || exit 2
sp_write_bazelrc
mkdir -p "$out" || exit 2
rows=$out/rows.tsv
: >"$rows"
rc=0
for c in "${configs[@]}"; do
  port=$(sp_config_port "$c")
  targets=(//cmd:safepoint)
  for v in "${versions[@]}"; do targets+=("//goprogs:go${v}_$port"); done
  log=$(mktemp)
  if ! bazel build -c opt --config="$c" "${targets[@]}" >"$log" 2>&1; then
    cat "$log" >&2; rm -f "$log"; echo "ci/go-sweep.sh: the build for $c failed" >&2; exit 2
  fi
  rm -f "$log"
  bin=$(bazel info -c opt --config="$c" bazel-bin 2>/dev/null)
  for v in "${versions[@]}"; do
    for p in "${programs[@]}"; do
     for req in "${requests[@]}"; do
      for st in "${stresses[@]}"; do
      base=$out/$c-go$v-$p-$req-$st
      echo "ci/go-sweep.sh: $c, Go $v, $p, --request=$req --stress=$st" >&2
      platforms/toolchains/run --config="$c" "$bin/cmd/safepoint" go-sweep --json --request="$req" --stress="$st" \
        --findings="$base.findings.txt" "$bin/goprogs/$v/$port/$p" >"$base.json" 2>"$base.log"
      status=$?
      python3 - "$base.json" "$c" "$v" "$p" "$status" conformance/go_findings.txt "$req" "$st" >>"$rows" <<'PY' || rc=1
import json, sys
path, config, version, program, status, records, request, stress = sys.argv[1:9]
try:
    d = json.load(open(path))
except Exception as e:
    print("\t".join([config, version, program, request, stress] + ["?"] * 13 + ["no report (exit %s): %s" % (status, e)]))
    sys.exit(1)
t = d["total"]
known = []
for line in open(records):
    if line.strip() and not line.startswith("#"):
        known.append(line.split("|")[0].split())
def recorded(f):
    return any(k[0] == version and k[1] == d["goarch"] and k[2] == program and k[3] == f["kind"]
               and f["func"].startswith(k[4]) for k in known if len(k) >= 5)
new = [f for f in d["findings"] if not recorded(f)]
rate = t["probed"] / d["seconds"] if d["seconds"] else 0
note = d["fatal"] or ("; ".join("%s %s" % (f["kind"], f["func"]) for f in new[:3]) + (" ..." if len(new) > 3 else ""))
print("\t".join(str(x) for x in [config, version, program, request, stress, t["instructions"], t["probed"], t["accepted"],
      t["restarted"], t["refused"], t["disagreements"], t["frame_differences"], t["saved_differences"],
      d["output_differences"], d["crashes"], t["gc_scanned"], t["tracebacks"], "%.1f" % rate, note or "clean"]))
sys.exit(1 if new or d["fatal"] else 0)
PY
      done
     done
    done
  done
done
{
  echo "| config | Go | program | request | stress | insns | probed | accepted | restarted | refused | disagree | frame | save area | output | crashes | scanned parked | tracebacks | probes/s | |"
  echo "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
  sed 's/\t/ | /g; s/^/| /; s/$/ |/' "$rows"
} >"$out/report.md"
cat "$out/report.md"
exit $rc
