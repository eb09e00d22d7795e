# Shared by the run-<arch> test runners. Sourced, not run.
#
# A runner starts a target binary the way the config says: natively for
# amd64, under the pinned QEMU 10 for the others. It refuses a binary whose
# ELF machine is not the config's, so nothing can silently run natively.
# It exports SAFEPOINT_EMULATOR (the emulator command, words separated by
# spaces; empty when native) so that a harness starting children starts them
# the same way, and SAFEPOINT_ARCH so the program knows what it should be.
TOOLS=${SAFEPOINT_TOOLS:-/opt/safepoint-tools}

# elf_machine FILE: prints the e_machine field of an ELF file, in decimal.
elf_machine() {
  local hdr
  hdr=$(od -An -t u1 -N 20 "$1" 2>/dev/null | tr -s ' \n' ' ') || return 1
  set -- $hdr
  [ "$1 $2 $3 $4" = "127 69 76 70" ] || return 1
  echo $(( ${19} + 256 * ${20} ))
}

# run_target ARCH EXPECTED_MACHINE EMULATOR... -- PROGRAM ARGS...
run_target() {
  local arch=$1 want=$2; shift 2
  local emu=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do emu+=("$1"); shift; done
  shift
  local prog=$1
  if [ -z "$prog" ]; then echo "run-$arch: no program given" >&2; exit 2; fi
  local got
  if ! got=$(elf_machine "$prog"); then
    # Bazel runs some helpers (shell test wrappers) through --run_under too:
    # a script is started as it is; it must call run-<arch> itself.
    if head -c 2 "$prog" | grep -q '#!'; then exec "$@"; fi
    echo "run-$arch: $prog is not an ELF file" >&2; exit 126
  fi
  if [ "$got" != "$want" ]; then
    echo "run-$arch: refusing $prog: ELF machine $got, but the $arch config needs $want" >&2
    exit 126
  fi
  export SAFEPOINT_ARCH=$arch
  export SAFEPOINT_EMULATOR="${emu[*]}"
  # glibc's rseq registration differs natively and under QEMU; the harness's
  # "restartable sequences" are the chapter's, not Linux's, so turn it off
  # for both to keep runs comparable.
  export GLIBC_TUNABLES=glibc.pthread.rseq=0
  exec "${emu[@]}" "$@"
}
