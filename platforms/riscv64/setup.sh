# What ci/setup.sh fetches for the riscv64 port (sourced; its helpers are in
# scope). The cross glibc, libstdc++ and binutils are Debian 12 packages
# (SETUP_APT in port.env). Debian 12 has no riscv64 archive, so the libFuzzer
# runtime is Debian 13's newest libclang-rt-N-dev for riscv64 (a private apt
# list for another CPU needs the suite name "stable"). It is built against
# glibc 2.41 and calls two C23 functions Debian 12's glibc 2.36 lacks,
# __isoc23_strtol and __isoc23_strtoul; a shim forwarding them to strtol and
# strtoul (C23 only adds "0b" prefixes, which libFuzzer's flags never use) is
# added to the runtime archives.
port_setup() {
  make_apt stable-riscv64 stable riscv64
  apt_update stable-riscv64
  fetch_clang_rt riscv64 stable-riscv64 riscv64
  local shim; shim=$(mktemp -d)
  cat >"$shim/isoc23.c" <<'C'
#include <stdlib.h>
long __isoc23_strtol(const char *s, char **end, int base) { return strtol(s, end, base); }
unsigned long __isoc23_strtoul(const char *s, char **end, int base) { return strtoul(s, end, base); }
C
  "$SP_TOP/platforms/toolchains/cc" riscv64 -O2 -c "$shim/isoc23.c" -o "$shim/isoc23.o" \
    || die "cannot build the riscv64 glibc 2.38 shim"
  local a
  for a in "$TOOLS/clang-rt-riscv64/lib/linux/libclang_rt.fuzzer-riscv64.a" \
           "$TOOLS/clang-rt-riscv64/lib/linux/libclang_rt.fuzzer_no_main-riscv64.a"; do
    [ -f "$a" ] || continue
    llvm-ar-16 r "$a" "$shim/isoc23.o" || die "cannot add the shim to $a"
  done
  rm -rf "$shim"
}
