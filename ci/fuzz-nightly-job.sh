#!/usr/bin/env bash
# One job of the nightly fuzzing workflow (.github/workflows/fuzz-nightly.yml,
# the `fuzz` job), as the workflow runs it after checkout, tool cache and
# setup: the campaign on one config (ci/fuzz-nightly.sh), the report into
# the job's summary, and the artifact layout the upload step takes checked.
# The suite runs it too, briefly (ci/workflow_steps.sh, step nightly-job),
# so the workflow's steps and this script cannot drift apart.
#
#   ci/fuzz-nightly-job.sh --arch=CONFIG [--time=SECONDS] [--corpus-dir=DIR] [--out=DIR]
#
# --time: seconds per target (default 1800, the workflow's); --corpus-dir
# (default fuzz-corpus) and --out (default fuzz-out) as fuzz-nightly.sh
# takes them, relative to the checkout. Appends the report to
# $GITHUB_STEP_SUMMARY when that is set. Exit status: fuzz-nightly.sh's
# (1 on findings), or 1 when a part of the upload's layout is missing.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
arch= time=1800 corpus=fuzz-corpus out=fuzz-out
for a in "$@"; do
  case "$a" in
    --arch=*) arch=${a#--arch=} ;;
    --time=*) time=${a#--time=} ;;
    --corpus-dir=*) corpus=${a#--corpus-dir=} ;;
    --out=*) out=${a#--out=} ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "ci/fuzz-nightly-job.sh: unknown flag '$a' (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$arch" ] || { echo "ci/fuzz-nightly-job.sh: --arch=CONFIG is required" >&2; exit 2; }
cd "$top" || exit 2

bash "$here/fuzz-nightly.sh" --arch="$arch" --time="$time" --corpus-dir="$corpus" --out="$out"
rc=$?

# The report, as the workflow's Report step shows it.
if [ -f "$out/report.md" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$out/report.md" >>"$GITHUB_STEP_SUMMARY"; fi

# What the upload step takes: report.md, results.tsv, crashes/, logs/.
missing=
for f in report.md results.tsv; do [ -s "$out/$f" ] || missing+=" $out/$f"; done
for d in crashes logs; do [ -d "$out/$d" ] || missing+=" $out/$d/"; done
[ -d "$out/logs/$arch" ] || missing+=" $out/logs/$arch/"
for t in "$corpus"/*; do [ -d "$t" ] && break; missing+=" a target's corpus under $corpus/"; done
if [ -n "$missing" ]; then
  echo "ci/fuzz-nightly-job.sh: the artifact layout is missing:$missing" >&2
  exit 1
fi
echo "nightly job ($arch): report, results, crashes/, logs/ and the corpus in place; campaign exit $rc"
exit $rc
