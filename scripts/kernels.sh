#!/usr/bin/env bash
# kernels.sh: salto under each OpenBLAS kernel family a machine of this class can get
#
#   bash scripts/kernels.sh suite [BUILD]   the test suite (ctest in BUILD, default build/)
#                                           once per kernel; exits 1 if any run fails
#   bash scripts/kernels.sh table [BUILD]   every shipped physics problem solved (its file as
#                                           it is) and validated once per kernel: a table of
#                                           iterations, objective, checks passed and time
#
# Debian's OpenBLAS (0.3.21) picks its kernels by processor at load time: a processor it does
# not know gets the generic "Prescott" kernels, an AMD Zen 5 "Cooperlake", others Haswell,
# SkylakeX or Zen. MUMPS factorises IPOPT's systems with them, and their rounding steers
# IPOPT's path, so a solve can end at another local optimum on another machine
# (docs/validation.md, "The BLAS kernel"). OPENBLAS_CORETYPE forces a family: this script
# sets it for its own runs only, to check on one machine what every machine gets. The test
# suite and CI never set it. KERNELS="Prescott Haswell" narrows the list. The build must
# exist (bash scripts/setup.sh build, or the test mode's build/).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mode="${1:-}"
bdir="${2:-build}"
kernels=(${KERNELS:-Prescott Haswell SkylakeX Zen Cooperlake})
jobs="$(nproc 2>/dev/null || echo 2)"

case "$mode" in
suite | table) ;;
*) echo "usage: bash scripts/kernels.sh suite|table [BUILD]" >&2; exit 2 ;;
esac
[ -x "$bdir/apps/salto" ] || { echo "kernels.sh: no $bdir/apps/salto: build first (bash scripts/setup.sh build)" >&2; exit 2; }
bdir="$(cd "$bdir" && pwd)"
salto="$bdir/apps/salto"

# every kernel asked for must be the one OpenBLAS loads (it names it when verbose): an unknown
# name would run the machine's own kernel under another's label
for k in "${kernels[@]}"; do
    got="$(OPENBLAS_CORETYPE="$k" OPENBLAS_VERBOSE=2 "$salto" --version 2>&1 | sed -n 's/^Core: //p')"
    if [ "${got,,}" != "${k,,}" ]; then
        echo "kernels.sh: OPENBLAS_CORETYPE=$k loads OpenBLAS's '${got:-?}' kernels, not '$k'" >&2
        exit 2
    fi
done

if [ "$mode" = suite ]; then
    status=0
    summary=()
    for k in "${kernels[@]}"; do
        echo "== OPENBLAS_CORETYPE=$k"
        start=$(date +%s)
        if (cd "$bdir" && OPENBLAS_CORETYPE="$k" ctest --output-on-failure -j "$jobs"); then r=passed; else r=FAILED; status=1; fi
        summary+=("$(printf '%-11s %-7s %4d s' "$k" "$r" $(($(date +%s) - start)))")
    done
    echo
    printf '%-11s %-7s %6s\n' kernel suite time
    printf '%s\n' "${summary[@]}"
    exit $status
fi

problems=(highbar_dismount highbar_dismount_08 monkey_bars luxo_jump back_tuck leap leap_pegs)
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
printf '%-20s %-11s %10s %15s %22s %8s\n' problem kernel iterations objective checks "time (s)"
for p in "${problems[@]}"; do
    for k in "${kernels[@]}"; do
        d="$out/$p-$k"
        start=$(date +%s%N)
        OPENBLAS_CORETYPE="$k" "$salto" solve "problems/$p.yaml" -o "$d" --quiet >/dev/null 2>&1
        s=$?
        t=$(( ($(date +%s%N) - start) / 100000000 ))
        it="$(sed -n 's/.*"iterations": \([0-9]*\).*/\1/p' "$d/motion.json" 2>/dev/null | head -1)"
        obj="$(sed -n 's/.*"objective": \([-0-9.e+]*\).*/\1/p' "$d/motion.json" 2>/dev/null | head -1)"
        chk="$(OPENBLAS_CORETYPE="$k" "$salto" validate "$d/motion.json" -o "$d/val" 2>/dev/null |
               sed -n 's/^\([0-9]* of [0-9]*\) checks pass.*/\1/p')"
        [ "$s" -eq 0 ] || chk="${chk:+$chk, }solve exit $s"
        [ -n "$obj" ] && obj="$(printf '%.6g' "$obj")"
        printf '%-20s %-11s %10s %15s %22s %6d.%d\n' "$p" "$k" "${it:-?}" "${obj:-?}" "${chk:-?}" $((t / 10)) $((t % 10))
    done
done
