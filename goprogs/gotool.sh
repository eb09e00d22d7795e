#!/usr/bin/env bash
# gotool.sh VERSION: prints the GOROOT of Go VERSION (1.19, 1.24 or 1.26) as
# ci/setup.sh installed it; the one place that knows where they are.
#   1.19  Debian 12's golang-1.19-go          /usr/lib/go-1.19
#   1.24  Debian 13's golang-1.24-go          $SAFEPOINT_TOOLS/go1.24/usr/lib/go-1.24
#   1.26  Debian testing's golang-1.26-go     $SAFEPOINT_TOOLS/go1.26/usr/lib/go-1.26
#         (if testing had no 1.26 at setup time, its newest golang-1.N, which
#         setup says loudly; $SAFEPOINT_TOOLS/go1.26/PACKAGE names it)
# Exit status 1, with a message, when that toolchain is not installed.
set -euo pipefail
tools=${SAFEPOINT_TOOLS:-/opt/safepoint-tools}
case "${1:-}" in
  1.19) roots=(/usr/lib/go-1.19) ;;
  1.24) roots=("$tools/go1.24/usr/lib/go-1.24") ;;
  1.26) roots=("$tools"/go1.26/usr/lib/go-1.*) ;;
  *) echo "gotool.sh: usage: gotool.sh 1.19|1.24|1.26" >&2; exit 2 ;;
esac
[ ${#roots[@]} -eq 1 ] && [ -x "${roots[0]}/bin/go" ] \
  || { echo "gotool.sh: Go $1 is not installed (${roots[*]}): run ci/setup.sh" >&2; exit 1; }
echo "${roots[0]}"
