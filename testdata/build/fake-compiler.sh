#!/bin/sh
echo "$0 $*" >> "$FAKE_LOG"
out=""; dep=""; src=""
while [ $# -gt 0 ]; do
  case "$1" in -o) out="$2"; shift;; -MF) dep="$2"; shift;; -c) src="$2"; shift;; esac
  shift
done
if [ -n "$src" ]; then
  if grep -q '#error' "$src"; then echo "$src:1:2: error: broken on purpose" >&2; exit 1; fi
  cat "$src" > "$out"
else
  echo linked > "$out"
fi
[ -n "$dep" ] && echo "$out: $src" > "$dep"
exit 0
