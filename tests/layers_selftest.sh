#!/bin/sh
# layers_selftest.sh ROOT: tests/layers.sh fails where it must. On a copy of lib/: an upward
# include (dynamics including the optimiser's header), a private header of another folder,
# a source outside every layer's folder and a public header in no layer each fail it, naming
# the file; the copy untouched passes.
root="$(cd "${1:-.}" && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nfail=0
fresh() { rm -rf "$tmp/r"; mkdir -p "$tmp/r"; cp -r "$root/lib" "$tmp/r/lib"; }
# want STATUS PATTERN: layers.sh on the copy exits STATUS and prints PATTERN
want() {
    sh "$root/tests/layers.sh" "$tmp/r" >"$tmp/out" 2>&1
    got=$?
    if [ "$got" -ne "$1" ] || ! grep -Eq -- "$2" "$tmp/out"; then
        nfail=$((nfail + 1))
        echo "FAIL: want exit $1 and '$2', got exit $got: $(head -c 400 "$tmp/out")"
    fi
}
fresh
want 0 'every include points down'
fresh
sed -i 's|#include "salto/kinematics.h"|#include "salto/kinematics.h"\n#include "salto/nlp.h"|' "$tmp/r/lib/src/dynamics/dynamics.c"
want 1 'dynamics.c:[0-9]+: dynamics includes salto/nlp.h \(optimise\): an upward'
fresh
echo '#include "nlp_priv.h"' >>"$tmp/r/lib/src/motion/bvh.c"
want 1 'bvh.c:[0-9]+: includes "nlp_priv.h", a private header of another folder'
fresh
cp "$tmp/r/lib/src/motion/bvh.c" "$tmp/r/lib/src/stray.c"
want 1 'stray.c: outside every layer'
fresh
echo '#include "salto/base.h"' >"$tmp/r/lib/include/salto/newmodule.h"
want 1 'newmodule.h: not in any layer'
fresh
sed -i '1a #include "salto/sim.h"' "$tmp/r/lib/src/optimise/nlp_motion.c"
want 1 'nlp_motion.c:[0-9]+: optimise includes salto/sim.h \(sim\): an upward or sideways'
[ "$nfail" -eq 0 ] && echo "layers_selftest: 6 cases pass"
exit "$nfail"
