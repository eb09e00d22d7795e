#!/usr/bin/env bash
# The runner's environment for a guest, and ports.sh's reading of the
# port.env files it comes from:
# 1. sp_port_env leaves no P_ variable of a port read before it that the
#    port read now does not set (a key one port.env has and another leaves
#    out must not reach the other port's runs);
# 2. every port's QEMU_GLIBC_TUNABLES reach a guest under its emulator
#    (GLIBC_TUNABLES as the guest's environment has it) and its glibc takes
#    each at the value asked (the guest's own ld.so --list-tunables: a value
#    out of a tunable's range is dropped without a word), while a native run
#    of the same port has none of them;
# 3. sp_elf_machine reads every port's machine from an ELF header whose
#    other bytes are NULs, newlines and bytes above 127 (it reads them in
#    the shell, a byte at a time, as od would), and no machine from a file
#    too short, one without the magic, or a directory; and a config's port
#    and emulator are the same whichever port was read before (the runner
#    asks with the binary's port read).
# Ends with "N passed, N failed"; exit 1 on a failure.
set -uo pipefail
top=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
SP_TOP=$top
. "$top/platforms/toolchains/ports.sh"
run=$top/platforms/toolchains/run
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

ports=$(sp_ports)
for p in $ports; do
  for q in $ports; do
    sp_port_env "$p" && sp_port_env "$q" || { bad "ports.sh cannot read $p then $q"; continue; }
    left=
    for v in $(compgen -v P_); do
      [ "$v" = P_NAME ] && continue
      grep -qE "^${v#P_}=" "$top/platforms/$q/port.env" || left="$left ${v#P_}"
    done
    if [ -z "$left" ] && [ "$P_NAME" = "$q" ]; then ok; else bad "after reading $p then $q, set from $p:$left (P_NAME=$P_NAME)"; fi
  done
done

# The value of `name` in an `ld.so --list-tunables` listing, as a number.
listed() {
  local v
  v=$(sed -nE "s/^$2: ([0-9a-fx]+).*/\1/p" <<<"$1" | head -n 1)
  [ -n "$v" ] && echo $((v))
}

tested=0
for p in $ports; do
  sp_port_env "$p" || continue
  [ -n "${P_QEMU_GLIBC_TUNABLES:-}" ] || continue
  tunables=$P_QEMU_GLIBC_TUNABLES qemu_cfg= native_cfg=
  # /usr/bin/env is the port's own binary only on a host of its machine.
  own_host=0; [ "$P_UNAME_MACHINE" = "$(uname -m)" ] && own_host=1
  for c in $P_CONFIGS; do
    case ${c#*:} in qemu) qemu_cfg=${qemu_cfg:-${c%%:*}} ;; native) native_cfg=${native_cfg:-${c%%:*}} ;; esac
  done
  [ -n "$qemu_cfg" ] || { bad "$p sets QEMU_GLIBC_TUNABLES but has no qemu config"; continue; }
  # The port's dynamic loader: in the sysroot its QEMU_ARGS name (-L), or
  # the host's when it has none.
  sysroot=/
  read -r -a words <<<"$P_QEMU_ARGS"
  for ((i = 0; i + 1 < ${#words[@]}; i++)); do [ "${words[i]}" = -L ] && sysroot=${words[i + 1]}; done
  ldso=
  for f in "$sysroot"/lib64/ld-*.so* "$sysroot"/lib/ld-*.so* "$sysroot"/lib/*/ld-*.so*; do
    [ -f "$f" ] && [ "$(sp_elf_machine "$f")" = "$P_ELF_MACHINE" ] && { ldso=$f; break; }
  done
  [ -n "$ldso" ] || { bad "$p: no dynamic loader under $sysroot"; continue; }
  guest_env= native_env=
  [ "$own_host" = 0 ] || guest_env=$("$run" --config="$qemu_cfg" /usr/bin/env 2>&1)
  [ "$own_host" = 0 ] || [ -z "$native_cfg" ] || native_env=$("$run" --config="$native_cfg" /usr/bin/env 2>&1)
  listing=$("$run" --config="$qemu_cfg" "$ldso" --list-tunables 2>&1)
  IFS=: read -r -a asked <<<"$tunables"
  for t in "${asked[@]}"; do
    name=${t%%=*} want=${t#*=}
    tested=$((tested + 1))
    if [ "$own_host" = 1 ]; then
      if grep -qE "^GLIBC_TUNABLES=(.*:)?$name=$want(:|$)" <<<"$guest_env" && grep -q "^SAFEPOINT_EMULATOR=." <<<"$guest_env"; then
        ok
      else
        bad "$qemu_cfg: the guest's environment lacks $name=$want: $(grep -E '^(GLIBC_TUNABLES|SAFEPOINT_EMULATOR)=' <<<"$guest_env" | tr '\n' ' ')"
      fi
    fi
    got=$(listed "$listing" "$name")
    if [ -n "$got" ] && [ "$got" = "$((want))" ]; then
      ok
    else
      bad "$qemu_cfg: the guest's glibc has $name ${got:-unlisted}, not $want; its listing: $(head -c 300 <<<"$listing")"
    fi
    if [ "$own_host" = 1 ] && [ -n "$native_cfg" ]; then
      if grep -qE "^GLIBC_TUNABLES=.*$name=" <<<"$native_env"; then bad "$native_cfg (native) has $name: $(grep '^GLIBC_TUNABLES=' <<<"$native_env")"; else ok; fi
    fi
  done
done
# 3. ELF headers made here, each byte of 4..17 one of NUL, newline, 0xff,
# 0x80 and 0x7f in turn; the machine's two bytes as the port has them.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fill=('\000' '\n' '\377' '\200' '\177')
for p in $ports; do
  sp_port_env "$p" || continue
  m=$P_ELF_MACHINE
  hdr='\177ELF'
  for ((i = 4; i < 18; i++)); do hdr+=${fill[i % 5]}; done
  hdr+=$(printf '\\%03o\\%03o' $((m % 256)) $((m / 256)))
  printf "$hdr" >"$tmp/$p.elf"
  printf 'tail\n\000' >>"$tmp/$p.elf"
  ref=$(od -An -t u1 -j 18 -N 2 "$tmp/$p.elf" | tr -s ' \n' ' ')
  read -r lo hi <<<"$ref"
  got=$(sp_elf_machine "$tmp/$p.elf")
  if [ "$got" = "$m" ] && [ "$((lo + 256 * hi))" = "$m" ]; then ok; else bad "$p: sp_elf_machine read $got from a header of machine $m (od: $ref)"; fi
done
# Machines no port has, of the bytes a shell's read would take for
# separators (newline, space, tab) or end at (NUL).
for pair in '\n \040' '\t \000' '\000 \n'; do
  read -r a b <<<"$pair"
  printf "\\177ELF\\002\\001\\001\\000\\000\\000\\000\\000\\000\\000\\000\\000\\003\\000$a$b" >"$tmp/sep"
  read -r lo hi <<<"$(od -An -t u1 -j 18 -N 2 "$tmp/sep")"
  got=$(sp_elf_machine "$tmp/sep")
  if [ "$got" = "$((lo + 256 * hi))" ]; then ok; else bad "sp_elf_machine read $got from a header of machine $((lo + 256 * hi))"; fi
done
printf '\177ELF\002\001\001' >"$tmp/short"
printf '\177ELG\002\001\001\000\000\000\000\000\000\000\000\000\003\000\076\000' >"$tmp/nomagic"
for f in "$tmp/short" "$tmp/nomagic" "$tmp" "$tmp/absent"; do
  if got=$(sp_elf_machine "$f" 2>&1); then bad "sp_elf_machine read '$got' from ${f#$tmp}"; else ok; fi
done
for c in $(sp_configs); do
  want=$(unset P_NAME; echo "$(sp_config_port "$c") $(sp_config_mode "$c") [$(sp_emulator "$c")]")
  for p in $ports; do
    sp_port_env "$p"
    got="$(sp_config_port "$c") $(sp_config_mode "$c") [$(sp_emulator "$c")]"
    if [ "$got" = "$want" ]; then ok; else bad "$c after reading $p: $got, not $want"; fi
  done
done

echo "$tested emulator tunables checked"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
