#!/bin/sh
# run.sh BUILD [SECONDS] [SALTO]: every libFuzzer harness built in BUILD (cmake -DSALTO_FUZZ=ON,
# clang) run on its regression inputs (fuzz/regressions/HARNESS/*: each a finding, kept), then
# for SECONDS (default 5) on a corpus seeded from the shipped files (problems, characters, the
# test data's broken files; with SALTO, a salto built normally, the monkey bars solved for its
# motion.json, motion.csv and motion.bvh, and the problems fuzz_validate and fuzz_play use solved
# for theirs; their raw-value seeds need no salto). Exit status 0 when no harness crashed, leaked
# or failed without an error. A longer hunt: bash fuzz/run.sh build-fuzz 600 build/apps/salto
set -u
build="${1:?usage: run.sh BUILD [SECONDS] [SALTO]}"
secs="${2:-5}"
salto="${3:-}"
# A short run (under 60 s a harness, the test suite's) mutates from a fixed seed (FUZZ_SEED,
# default 1), so that it tries the same inputs first on every run and the suite passes or fails
# the same way each time; a hunt takes a random seed (FUZZ_SEED=0), to find what is new.
if [ "$secs" -ge 60 ]; then seed="${FUZZ_SEED:-0}"; else seed="${FUZZ_SEED:-1}"; fi
root="$(cd "$(dirname "$0")/.." && pwd)"
export SALTO_ROOT="$root"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
status=0

# corpus DIR PREFIX FILE...: each file as a seed, PREFIX (a byte choosing the reader) first
corpus() {
    dir="$tmp/corpus/$1"
    prefix="$2"
    shift 2
    mkdir -p "$dir"
    for f in "$@"; do
        [ -f "$f" ] || continue
        { printf '%s' "$prefix"; sed -E 's#character: *[^ ]*data/characters/#character: ../data/characters/#' "$f"; } \
            >"$dir/$(echo "$f" | tr / _)"
    done
}
# (a problem seed costs a second or more under the sanitizers: a short run takes the test data's
# small ones, a hunt of a minute or more every shipped problem too)
corpus fuzz_problem "" "$root"/tests/data/problems/*.yaml "$root"/tests/data/problems/bad/*.yaml
if [ "$secs" -ge 60 ]; then
    corpus fuzz_problem "" "$root"/problems/*.yaml "$root"/problems/zoo/*.yaml
fi
corpus fuzz_character "" "$root"/data/characters/*.yaml "$root"/tests/data/bad/*.yaml "$root"/tests/data/sim/*.yaml
corpus fuzz_sweep "" "$root"/problems/*sweep*.yaml
corpus fuzz_react "" "$root"/problems/reactions/*.yaml
printf '%s' 'shank_l:0,200,0@0.5' >"$tmp/corpus/fuzz_react/short"
printf '%s' '{body: forearm_r, impulse: [0, 0, 5], time: 0.3, simulate: upperarm_r, importance: {forearm_r: 0.5}}' \
    >"$tmp/corpus/fuzz_react/map"
corpus fuzz_motion 0 "$root"/tests/data/motion/bad/*.json
if [ -n "$salto" ] && "$salto" solve "$root/problems/monkey_bars.yaml" -o "$tmp/mb" --quiet >/dev/null 2>&1; then
    corpus fuzz_motion 0 "$tmp/mb/motion.json"
    corpus fuzz_motion 1 "$tmp/mb/motion.csv"
    corpus fuzz_motion 2 "$tmp/mb/motion.bvh"
fi

# fuzz_validate (the Luxo jump and the high-bar dismount) and fuzz_play (the dismount and the
# monkey bars): the first byte's bits choose the problem, the format and the settings
# (fuzz_validate.c, fuzz_play.c; a byte 0 cannot pass through the shell); each problem solved
# once, the two planar ones at 20 frames a second (a motion.json and CSV frames, 4 rows a phase
# at least), the monkey bars at 2 (its motion.json: the frames cost parsing, not coverage);
# bit 7: raw values into the problem's initial guess (octal bytes here), a seed for several
# settings, one with a value NaN, one infinite
mkdir -p "$tmp/corpus/fuzz_validate" "$tmp/corpus/fuzz_play"
if [ -n "$salto" ]; then
    for pr in luxo_jump:20 highbar_dismount:20 monkey_bars:2; do
        "$salto" solve "$root/problems/${pr%:*}.yaml" -o "$tmp/${pr%:*}" --quiet \
            --set output.frame_rate="${pr#*:}" >/dev/null 2>&1
    done
    corpus fuzz_validate 0 "$tmp/luxo_jump/motion.json"
    corpus fuzz_validate 5 "$tmp/luxo_jump/motion.csv"
    corpus fuzz_validate 2 "$tmp/highbar_dismount/motion.json"
    corpus fuzz_validate ';' "$tmp/highbar_dismount/motion.csv"
    corpus fuzz_play "$(printf '\020')" "$tmp/highbar_dismount/motion.json"
    corpus fuzz_play "$(printf '\025')" "$tmp/highbar_dismount/motion.csv"
    corpus fuzz_play ':' "$tmp/monkey_bars/motion.json"
fi
for b in 200 202 204 206 210 212; do printf "\\$b" >"$tmp/corpus/fuzz_validate/values_$b"; done
for b in 220 230 226 252 262 276 254; do printf "\\$b" >"$tmp/corpus/fuzz_play/values_$b"; done
printf '\200\001\000\000\000\000\000\000\000\370\177' >"$tmp/corpus/fuzz_validate/values_nan"
printf '\202\005\000\000\000\000\000\000\000\360\177' >"$tmp/corpus/fuzz_validate/values_inf"
printf '\220\003\000\000\000\000\000\000\000\360\177' >"$tmp/corpus/fuzz_play/values_inf"

mkdir -p "$tmp/corpus/fuzz_set"
printf '%s\n' 'phases.right1.duration=0.8' 'output.frame_rate=30' >"$tmp/corpus/fuzz_set/durations"
printf '%s\n' 'spline.knot_spacing=0.05' 'validation.step=0.001' >"$tmp/corpus/fuzz_set/spline"
printf '%s\n' 'character.mass_scale=1.2' 'solver.ipopt.mu_init=1e-3' >"$tmp/corpus/fuzz_set/character"

for h in fuzz_problem fuzz_character fuzz_motion fuzz_react fuzz_sweep fuzz_set fuzz_validate fuzz_play; do
    exe="$build/fuzz/$h"
    if [ ! -x "$exe" ]; then
        echo "fuzz: no $exe: build it first (docs/features.md, \"Fuzzing\")" >&2
        status=2
        continue
    fi
    reg="$root/fuzz/regressions/$h"
    if [ -d "$reg" ] && [ -n "$(ls "$reg" 2>/dev/null)" ]; then
        if ! "$exe" -runs=0 "$reg"/* >"$tmp/$h.reg.log" 2>&1; then
            echo "fuzz: $h fails on a regression input:" >&2
            tail -30 "$tmp/$h.reg.log" >&2
            status=1
            continue
        fi
    fi
    # (a motion's seeds are whole files, up to some 30 KB: libFuzzer sizes its inputs from them)
    case "$h" in fuzz_validate | fuzz_play) len=0 ;; *) len=8000 ;; esac
    mkdir -p "$tmp/corpus/$h" "$tmp/art/$h"
    if "$exe" "$tmp/corpus/$h" -seed="$seed" -max_total_time="$secs" -max_len="$len" -timeout=20 -rss_limit_mb=3000 \
        -artifact_prefix="$tmp/art/$h/" -print_final_stats=1 >"$tmp/$h.log" 2>&1; then
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$tmp/$h.log" | grep -o '[0-9]*$')
        echo "fuzz: $h: ${runs:-?} inputs in ${secs} s, no crash"
    else
        echo "fuzz: $h found a crash (its input: keep it in fuzz/regressions/$h/):" >&2
        tail -40 "$tmp/$h.log" >&2
        mkdir -p "$root/fuzz/regressions/$h" 2>/dev/null
        for a in "$tmp/art/$h"/*; do
            [ -f "$a" ] || continue
            if cp "$a" "$root/fuzz/regressions/$h/" 2>/dev/null; then
                echo "fuzz: kept as $root/fuzz/regressions/$h/$(basename "$a")" >&2
            else # (a read-only checkout): the input itself, so that it is not lost with $tmp
                echo "fuzz: could not keep it; its bytes (base64):" >&2
                base64 "$a" >&2
            fi
        done
        status=1
    fi
done
exit $status
