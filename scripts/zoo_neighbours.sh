#!/usr/bin/env bash
# zoo_neighbours.sh: how the zoo's problems with a flight fare when their flight is 15% and 5%
# shorter or longer than their files say (problems a user writes are neighbours of these)
#
#   bash scripts/zoo_neighbours.sh [BUILD] [NAMES...]
#
# For each problem (default: the zoo's lamp, gymnast and bar problems with a phase named
# 'flight', and the humanoid's vertical jump) a sweep over phases.flight.duration at 0.85, 0.95,
# 1.05 and 1.15 times the file's value, solved and validated with `salto batch -j 2`; prints
# each job's duration, status, verdict, iterations and time, and the count that pass.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-build}"
shift || true
salto="$here/$build/apps/salto"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    names=(lamp_hop_up lamp_long_hop gymnast_broad_jump release_regrasp flyaway_layout vertical_jump)
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
pass=0
total=0
for z in "${names[@]}"; do
    f="$here/problems/zoo/$z.yaml"
    # the flight's duration: the line after 'name: flight', or the flow map's 'duration: X'
    d=$(awk '/name: flight/ { if (match($0, /duration: *[0-9.]+/)) { print substr($0, RSTART + 10, RLENGTH - 10) + 0; exit }
                                  getline; if (match($0, /duration: *[0-9.]+/)) { print substr($0, RSTART + 10, RLENGTH - 10) + 0; exit } }' "$f")
    if [ -z "$d" ]; then echo "$z: no phase named 'flight'"; continue; fi
    vals=$(awk -v d="$d" 'BEGIN { printf "[%.4g, %.4g, %.4g, %.4g]", 0.85 * d, 0.95 * d, 1.05 * d, 1.15 * d }')
    printf 'problem: %s\nparameters:\n  phases.flight.duration: %s\nvalidate: true\ntimeout: 300\n' \
        "$f" "$vals" >"$tmp/$z.yaml"
    "$salto" batch "$tmp/$z.yaml" -o "$tmp/out_$z" -j 2 --quiet >/dev/null 2>&1
    # summary.csv: job, the parameter, status, objective, iterations, solve_time, ..., validation
    while IFS=, read -r job dur status obj it time _ _ _ _ val _; do
        [ "$job" = job ] && continue
        printf '%-22s flight %-7s %-14s %-5s %5s iterations %6.2f s\n' "$z" "$dur" "$status" "$val" "$it" "$time"
        total=$((total + 1))
        if [ "$status" = converged ] && [ "$val" = pass ]; then pass=$((pass + 1)); fi
    done <"$tmp/out_$z/summary.csv"
done
echo "$pass of $total converged and passed every check"
