# What ci/setup.sh fetches for the loong64 port (sourced; its helpers are in
# scope). Debian 12 has no LoongArch toolchain, so from Debian 13: the
# loongarch64 binutils with exactly the host libraries they link (patched
# to use their own loader), the loong64 glibc, libstdc++ and gcc runtime as
# a sysroot; from Debian testing (which carries loong64 in its main
# archive), the newest libclang-rt-N-dev for the libFuzzer runtime.
port_setup() {
  make_apt trixie trixie amd64
  apt_update trixie
  rm -rf "$TOOLS/host"
  fetch trixie "$TOOLS/host" binutils-loongarch64-linux-gnu binutils-common libbinutils \
    libctf-nobfd0 libctf0 libsframe1 libgprofng0 libjansson4 libzstd1 zlib1g libc6 libgcc-s1 libstdc++6 libelf1t64
  rm -rf "$TOOLS/sysroot-loong64"
  fetch trixie "$TOOLS/sysroot-loong64" libc6-loong64-cross libc6-dev-loong64-cross linux-libc-dev-loong64-cross \
    libgcc-s1-loong64-cross libgcc-14-dev-loong64-cross libstdc++6-loong64-cross libstdc++-14-dev-loong64-cross

  # Point the Debian 13 host programs at their own loader and libraries.
  local H="$TOOLS/host" loader f
  loader="$H/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
  [ -e "$loader" ] || loader="$H/lib64/ld-linux-x86-64.so.2"
  [ -e "$loader" ] || die "no loader in $H"
  for f in "$H"/usr/bin/loongarch64-linux-gnu-* "$H"/usr/loongarch64-linux-gnu/bin/*; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    file -b "$f" | grep -q "ELF 64-bit.*dynamically linked" || continue
    patchelf --set-interpreter "$loader" --force-rpath --set-rpath "$H/usr/lib/x86_64-linux-gnu" "$f"
  done
  mkdir -p "$TOOLS/bin"
  ln -sf "$H/usr/bin/loongarch64-linux-gnu-ld" "$TOOLS/bin/loongarch64-linux-gnu-ld"
  ln -sf "$H/usr/bin/loongarch64-linux-gnu-objdump" "$TOOLS/bin/loongarch64-linux-gnu-objdump"

  # Testing moves: take the newest libclang-rt-N-dev it carries.
  make_apt testing-loong64 testing loong64
  apt_update testing-loong64
  fetch_clang_rt loong64 testing-loong64 loongarch64
}
