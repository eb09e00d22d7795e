#!/usr/bin/env bash
# layering.sh [TREE]: checks the layers of ARCHITECTURE.md on the source
# tree (default: this checkout). Prints every violation and exits 1 if any.
#
#   1 core/  <  2 platforms/  <  3 runtime/  <  4 harness/, realgo/  <  5 oracle/
#   <  6 conformance/, fuzz/, cmd/ (which never include one another)
#
# A file may include only headers of its own layer or lower ones. Also:
#  - oracle/ never includes the emitter's tables (core/functab.h,
#    platforms/emitter.h, a port's lower.h): the decision oracle rebuilds
#    them from the program. The one exception is the frame-table oracle
#    (oracle/frame_table.h, .cc), which may include core/functab.h: the
#    table is what it judges;
#  - runtime/, harness/, oracle/, conformance/, cmd/ and the shared files
#    of platforms/ (all but the port folders) never name a port (an entry of
#    platforms/PORTS in quotes) or test a compiler's architecture macro:
#    what differs per port is the port's data.
set -uo pipefail
tree=${1:-$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)}
cd "$tree" || exit 2
layer() {
  case "$1" in
    core) echo 1 ;; platforms) echo 2 ;; runtime) echo 3 ;; harness) echo 4 ;; oracle) echo 5 ;;
    realgo) echo 4 ;;
    conformance|fuzz|cmd) echo 6 ;; *) echo 0 ;;
  esac
}
bad=0
report() { echo "layering: $*"; bad=1; }
while IFS= read -r f; do
  top=${f%%/*}
  mine=$(layer "$top")
  [ "$mine" = 0 ] && continue
  while IFS= read -r inc; do
    itop=${inc%%/*}
    theirs=$(layer "$itop")
    [ "$theirs" = 0 ] && continue
    if [ "$theirs" -gt "$mine" ]; then
      report "$f includes $inc: layer $top ($mine) may not depend on $itop ($theirs)"
    elif [ "$theirs" = 6 ] && [ "$itop" != "$top" ]; then
      report "$f includes $inc: $top and $itop are both on top and independent"
    fi
    if [ "$top" = oracle ]; then
      case "$inc" in
        core/functab.h)
          case "$f" in
            oracle/frame_table.h|oracle/frame_table.cc) ;;
            *) report "$f includes $inc: the oracle may not see the emitter's tables (only oracle/frame_table judges the function table)" ;;
          esac ;;
        platforms/emitter.h|platforms/*/lower.h|platforms/common/*)
          report "$f includes $inc: the oracle may not see the emitter's tables" ;;
      esac
    fi
  done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/p' "$f")
done < <(find core platforms runtime harness realgo oracle conformance fuzz cmd \
           \( -name '*.h' -o -name '*.cc' -o -name '*.S' \) 2>/dev/null | sort)

ports=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' platforms/PORTS 2>/dev/null | grep -v '^$' | tr '\n' '|')
ports=${ports%|}
macros='__x86_64__|__amd64__|__aarch64__|__arm__|__loongarch|__riscv|__i386__|__powerpc|__s390'
while IFS= read -r hit; do
  report "names an architecture: $hit"
done < <({ find runtime harness oracle conformance cmd platforms/common \( -name '*.h' -o -name '*.cc' \) 2>/dev/null
           find platforms -maxdepth 1 \( -name '*.h' -o -name '*.cc' \) 2>/dev/null; } | sort |
           xargs -r grep -nE "\"($ports)\"|($macros)" 2>/dev/null)
[ $bad = 0 ] && echo "layering: ok ($(find core platforms runtime harness realgo oracle conformance fuzz cmd -name '*.cc' -o -name '*.h' 2>/dev/null | wc -l) files)"
exit $bad
