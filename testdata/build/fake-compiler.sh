#!/bin/sh
echo "$0 $*" >> "$FAKE_LOG"
out=""; dep=""; src=""
while [ $# -gt 0 ]; do
  case "$1" in -o) out="$2"; shift;; -MF) dep="$2"; shift;; -c) src="$2"; shift;; esac
  shift
done
# elf TYPE: a 64-bit ELF header (1 relocatable, 3 shared object), for the
# build engine checks that an object or library is one before trusting it.
elf() {
  printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000'
  printf "\\00$1\\000\\076\\000\\001\\000\\000\\000"
  printf '\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000'
  printf '\000\000\000\000\100\000\000\000\000\000\000\000\000\000\000\000'
}
if [ -n "$src" ]; then
  if grep -q '#error' "$src"; then echo "$src:1:2: error: broken on purpose" >&2; exit 1; fi
  { elf 1; cat "$src"; } > "$out"
else
  { elf 3; echo linked; } > "$out"
fi
[ -n "$dep" ] && echo "$out: $src" > "$dep"
exit 0
