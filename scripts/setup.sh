#!/usr/bin/env bash
# setup.sh: install what salto needs on Debian 12, build it, and run the main job or the tests
#
#   bash scripts/setup.sh run    set up, build (Release), run the main job
#   bash scripts/setup.sh test   set up, build (Release with -Werror, and an AddressSanitizer +
#                                UndefinedBehaviorSanitizer build), run the whole test suite,
#                                then the fuzz harnesses for a few seconds each (clang)
#   bash scripts/setup.sh build  set up and build only
#
# Run as root on a fresh machine (it installs Debian packages when they are missing), or as a
# user who already has them. Builds go to build/, build-asan/ and build-fuzz/ in the repository.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mode="${1:-run}"
jobs="$(nproc 2>/dev/null || echo 2)"

# Debian packages: compiler and build tools, the YAML parser, Check for the tests, and the
# numerical libraries the optimiser uses (IPOPT with MUMPS, SuiteSparse, OpenBLAS/LAPACK),
# cairo for pictures, GNU parallel for the batch test's cluster-style run, libmicrohttpd for
# salto watch's server; for the tests, Chromium (salto view's page driven headless)
packages=(build-essential cmake pkg-config libyaml-dev check
          coinor-libipopt-dev libmumps-seq-dev libsuitesparse-dev libopenblas-dev liblapack-dev libcairo2-dev
          libmujoco-dev parallel libmicrohttpd-dev)
# (clang with libFuzzer and its sanitizers' runtime: the fuzz harnesses the tests run)
[ "$mode" = test ] && packages+=(chromium clang libclang-rt-14-dev)
# Node.js and npm: the machine's, else Debian's (salto view inlines three.js and uPlot from npm)
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup: missing Debian packages (${missing[*]}); run as root or install them" >&2
        exit 2
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# the viewer's npm packages (web/package-lock.json: three.js and uPlot, which salto view's page
# inlines, and puppeteer-core, which drives the system Chromium in the tests; no browser is
# downloaded), unless web/node_modules already holds that lock's versions
if ! cmp -s web/package-lock.json web/node_modules/.salto-lock 2>/dev/null; then
    echo "setup: installing the viewer's npm packages into web/node_modules"
    (cd web && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    cp web/package-lock.json web/node_modules/.salto-lock
fi

build() { # build DIR [cmake options...]
    local dir="$1"
    shift
    cmake -S . -B "$dir" "$@" >/dev/null
    cmake --build "$dir" -j "$jobs" >/dev/null
}

case "$mode" in
build)
    build build -DCMAKE_BUILD_TYPE=Release
    ;;
run)
    build build -DCMAKE_BUILD_TYPE=Release
    ./build/apps/salto check data/characters/humanoid22.yaml
    echo
    ./build/apps/salto bench dynamics --quick
    echo
    for problem in highbar_dismount highbar_dismount_08 monkey_bars luxo_jump \
                   back_tuck leap leap_pegs reach keyframes hold; do
        # exit status 1 (not converged, or a validation check fails) does not stop the run
        ./build/apps/salto solve "problems/$problem.yaml" -o "out/$problem" --quiet || true
    done
    # the physics problems checked densely between the slices (docs/validation.md): each
    # table's summary line; exit status 1 (a check fails) does not stop the run
    for problem in highbar_dismount highbar_dismount_08 monkey_bars luxo_jump \
                   back_tuck leap leap_pegs; do
        printf '%s: ' "$problem"
        ./build/apps/salto validate "out/$problem/motion.json" | grep "checks pass" || true
    done
    # the monkey bars (physical within the validator's thresholds) played back under physics
    # (docs/simulation.md): out/monkey_bars/play/sim.json, sim.csv, filmstrip.png
    echo
    ./build/apps/salto play out/monkey_bars/motion.json
    # and two hits blended into it (docs/simulation.md, "Reactions"): out/monkey_bars/react/
    echo
    ./build/apps/salto play out/monkey_bars/motion.json --react problems/reactions/monkey_bars_hits.yaml
    # the dismount as one HTML page (docs/viewer.md): 3-D playback, forces and plots
    ./build/apps/salto view out/highbar_dismount/motion.json
    echo "the motions are in out/<problem>/: motion.json, motion.csv, motion.bvh, and the"
    echo "pictures out/<problem>/filmstrip.png (start with out/highbar_dismount/filmstrip.png);"
    echo "open out/highbar_dismount/view.html in a browser to watch the dismount from any side"
    ;;
test)
    build build -DCMAKE_BUILD_TYPE=Release -DSALTO_WERROR=ON
    (cd build && ctest --output-on-failure -j "$jobs")
    # the same suite under AddressSanitizer and UndefinedBehaviorSanitizer (debug, asserts on)
    build build-asan -DCMAKE_BUILD_TYPE=Debug -DSALTO_WERROR=ON -DSALTO_SANITIZE=ON
    (cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j "$jobs")
    # the readers fuzzed (libFuzzer, clang, ASan and UBSan): each harness on its regression
    # inputs, then 5 s on a corpus seeded from the shipped files (fuzz/run.sh; docs/features.md,
    # "Fuzzing", for a longer hunt)
    cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DSALTO_FUZZ=ON -DSALTO_BUILD_TESTS=OFF >/dev/null
    cmake --build build-fuzz -j "$jobs" --target fuzz_problem fuzz_character fuzz_motion fuzz_react \
        fuzz_sweep fuzz_set fuzz_validate fuzz_play >/dev/null
    bash fuzz/run.sh build-fuzz 5 build/apps/salto
    ;;
*)
    echo "usage: bash scripts/setup.sh run|test|build" >&2
    exit 2
    ;;
esac
