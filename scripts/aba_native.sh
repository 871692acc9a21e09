#!/bin/bash
# aba_native.sh: ABA (and RNEA) built with -march=native against the portable build, on this
# machine: instructions per evaluation (exact: salto bench dynamics --instructions single-steps
# one call, so AVX-512 code counts too, which valgrind cannot run) and thread CPU time (median
# over interleaved rounds of salto bench dynamics --cpu; the machine is shared and noisy).
#
# usage, from the repository root:
#   bash scripts/aba_native.sh [ROUNDS]          (default 5 rounds; about 15 s a round)
# The two builds go to $NATIVE_DIR and $PLAIN_DIR (default /tmp/salto-aba-native and
# /tmp/salto-aba-plain; Release, -DSALTO_NATIVE=ON and OFF; only the program is built); an existing build
# there is brought up to date. Prints one table, docs/performance.md ("ABA and -march=native").
set -euo pipefail
rounds=${1:-5}
native=${NATIVE_DIR:-/tmp/salto-aba-native}
plain=${PLAIN_DIR:-/tmp/salto-aba-plain}
models="chain10 chain20 chain50 gymnast7 humanoid22"

for b in "$native:ON" "$plain:OFF"; do
  dir=${b%:*}
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DSALTO_NATIVE="${b#*:}" >/dev/null
  cmake --build "$dir" -j"$(nproc)" --target salto_app >/dev/null
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for b in native plain; do
  dir=$native; [ $b = plain ] && dir=$plain
  "$dir/apps/salto" bench dynamics --instructions | awk 'NF == 5 && $1 != "model"' >"$tmp/instr.$b"
done
# interleaved rounds: native then portable, each model alone (--filter), RNEA and ABA columns
for ((r = 1; r <= rounds; r++)); do
  for m in $models; do
    for b in native plain; do
      dir=$native; [ $b = plain ] && dir=$plain
      "$dir/apps/salto" bench dynamics --cpu --reps 9 --filter "$m" |
        awk -v m="$m" '$1 == m { print $1, $6, $7 }' >>"$tmp/time.$b"
    done
  done
done

median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf 'ABA and RNEA, -march=native (n) against the portable build (p); %d interleaved rounds\n' "$rounds"
printf 'instructions per evaluation; thread CPU ns per evaluation, median of the rounds\n\n'
printf '%-12s %8s %8s %6s %8s %8s %6s %8s %8s %6s\n' model "ABA in n" "ABA in p" "n/p" \
  "ABA ns n" "ABA ns p" "n/p" "RNEA n" "RNEA p" "n/p"
for m in $models; do
  xn=$(awk -v m="$m" '$1 == m { print $4 }' "$tmp/instr.native")
  xp=$(awk -v m="$m" '$1 == m { print $4 }' "$tmp/instr.plain")
  tn=$(awk -v m="$m" '$1 == m { print $3 }' "$tmp/time.native" | median)
  tp=$(awk -v m="$m" '$1 == m { print $3 }' "$tmp/time.plain" | median)
  rn=$(awk -v m="$m" '$1 == m { print $2 }' "$tmp/time.native" | median)
  rp=$(awk -v m="$m" '$1 == m { print $2 }' "$tmp/time.plain" | median)
  awk -v m="$m" -v xn="$xn" -v xp="$xp" -v tn="$tn" -v tp="$tp" -v rn="$rn" -v rp="$rp" 'BEGIN {
    printf "%-12s %8d %8d %6.2f %8.0f %8.0f %6.2f %8.0f %8.0f %6.2f\n",
      m, xn, xp, xn / xp, tn, tp, tn / tp, rn, rp, rn / rp }'
done
