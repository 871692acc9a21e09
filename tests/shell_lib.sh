# shell_lib.sh: what the shell tests share, sourced by a test run as `TEST.sh SALTO ROOT`: the salto
# binary and the repository root made absolute, a temporary folder removed on exit, the pass
# and fail counts, expect and grep_in
salto="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
root="$(cd "$2" && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npass=0
unset SALTO_MAX_MEMORY # the tests set their own limits
nfail=0

ok() { npass=$((npass + 1)); }
fail() { nfail=$((nfail + 1)); echo "FAIL: $*"; }

# expect STATUS CMD...: run CMD, compare the exit status; output in $tmp/out, $tmp/err
expect() {
    want="$1"
    shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -eq "$want" ]; then ok; else fail "exit $got (want $want): $* :: $(head -c 400 "$tmp/err")"; fi
}

# grep_in FILE PATTERN
grep_in() {
    if grep -Eq -- "$2" "$1"; then ok; else fail "'$2' not in $1: $(head -c 400 "$1")"; fi
}

# expect_solved CMD...: a salto solve whose verdict may go either way (a motion whose
# validation depends on the BLAS kernel): IPOPT converged, the motion was validated, and the
# exit status is 0 when every check passed, 1 when one failed
expect_solved() {
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if ! grep -q "Solve_Succeeded" "$tmp/err"; then
        fail "not converged (exit $got): $* :: $(tail -c 400 "$tmp/err")"
    elif grep -q "^validation: .*the motion is physical\|^validation: .*kinematic constraints within" "$tmp/err"; then
        if [ "$got" -eq 0 ]; then ok; else fail "exit $got after a passing validation: $*"; fi
    elif grep -q "^validation: .*NOT PHYSICAL: the worst, " "$tmp/err"; then
        if [ "$got" -eq 1 ]; then ok; else fail "exit $got after a failing validation: $*"; fi
    else
        fail "no validation verdict (exit $got): $* :: $(tail -c 400 "$tmp/err")"
    fi
}
