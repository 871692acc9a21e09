#!/bin/sh
# batch_test.sh: salto batch driven as a user drives it: a 3 x 3 sweep of the dismount, a job
# that does not converge, one that crashes, one past the time limit, a batch killed and
# resumed, Ctrl-C, warm starts, and the same sweep through GNU parallel and --collect
# usage: batch_test.sh SALTO ROOT
. "$(dirname "$0")/shell_lib.sh" # reads $1 (salto) and $2 (the root)

# col CSV NAME: the column's values, one per line (the header's name picks it)
col() {
    awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"
}

# same_rows A B: the summaries equal but for the solve time (a wall-clock measure)
same_rows() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "solve_time") c = i } { $c = ""; print }' "$1" >"$tmp/a.rows"
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "solve_time") c = i } { $c = ""; print }' "$2" >"$tmp/b.rows"
    if cmp -s "$tmp/a.rows" "$tmp/b.rows"; then ok; else fail "$1 and $2 differ: $(diff "$tmp/a.rows" "$tmp/b.rows" | head -5)"; fi
}

# fine_status CSV: the exit status a batch's summary calls for: 0 when every job is fine
# (converged and, in a validated sweep, its validation passed), else 1
fine_status() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "status") s = i; if ($i == "validation") v = i }; next }
        !($s == "converged" && ($v == "pass" || $v == "")) { bad = 1 } END { print bad ? 1 : 0 }' "$1"
}

# expect_fine DIR CMD...: run CMD (a batch into DIR, or --collect DIR); its exit status the
# one DIR's summary calls for (fine_status)
expect_fine() {
    fdir="$1"
    shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    want=$(fine_status "$fdir/summary.csv")
    if [ "$got" -eq "$want" ]; then ok; else fail "exit $got (its summary calls for $want): $* :: $(head -c 400 "$tmp/err")"; fi
}

# statuses CSV WANT: the status column, space-separated, is WANT
statuses() {
    got=$(col "$1" status | tr '\n' ' ')
    if [ "$got" = "$2 " ]; then ok; else fail "$1: statuses '$got', not '$2 '"; fi
}

# wait_for N PATTERN: until N files match the glob (at most 60 s); 0 when they do
wait_for() {
    i=0
    while [ "$(ls $2 2>/dev/null | wc -l)" -lt "$1" ]; do
        i=$((i + 1))
        [ "$i" -gt 3000 ] && return 1
        sleep 0.02
    done
    return 0
}

# the paper's own dismount (data/paper/): a fast solve, as the tests of the machinery want
problem="$root/data/paper/highbar_dismount_held.yaml"

# ---- the command and bad sweeps, before anything is solved ----
expect 0 "$salto" batch --help
grep_in "$tmp/out" "usage: salto batch"
expect 2 "$salto" batch
expect 2 "$salto" batch "$tmp/no_such_sweep.yaml"
grep_in "$tmp/err" "no_such_sweep.yaml"
expect 2 "$salto" batch "$root/problems/dismount_sweep.yaml" -j 0
grep_in "$tmp/err" "salto batch: -j must be an integer from 1 to 1024, not '0'"
expect 2 "$salto" batch "$root/problems/dismount_sweep.yaml" -j 99999999999999999999
grep_in "$tmp/err" "salto batch: -j must be an integer from 1 to 1024, not '99999999999999999999'"
expect 2 "$salto" batch "$root/problems/dismount_sweep.yaml" --emit pbs
# an output that is a file: said so before any job (it read "in use by another salto batch")
: >"$tmp/a_file"
expect 2 "$salto" batch "$root/problems/dismount_sweep.yaml" -o "$tmp/a_file"
grep_in "$tmp/err" "^salto batch: cannot write into '.*a_file': it is a file, not a folder"
if ! grep -q "in use" "$tmp/err"; then ok; else fail "batch called a file in use"; fi
# the shipped sweeps check (every job's problem loads; nothing solved)
expect 0 "$salto" batch "$root/problems/dismount_sweep.yaml" --emit jobs -o "$tmp/ship_dm"
expect 0 "$salto" batch "$root/problems/broad_jump_sweep.yaml" --emit jobs -o "$tmp/ship_bj"
if [ "$(wc -l <"$tmp/ship_bj/jobs.txt")" -eq 5 ]; then ok; else fail "broad_jump_sweep: $(wc -l <"$tmp/ship_bj/jobs.txt") jobs"; fi
printf 'problem: %s\nparameters:\n  character.mass_scale: [1.0, 1.2]\n' "$problem" >"$tmp/mass.yaml"
expect 2 "$salto" batch "$tmp/mass.yaml" -o "$tmp/mass"
grep_in "$tmp/err" "mass.yaml:3:3: error: parameter 'character.mass_scale'"
if [ -e "$tmp/mass" ]; then fail "a bad sweep made its folder"; else ok; fi
printf 'problem: %s\nparameters:\n  phases.flight.duration: [0.6, 0.7]\n  phases.landing.contact.friction: [1.0, 0]\n' \
    "$problem" >"$tmp/mu0.yaml"
expect 2 "$salto" batch "$tmp/mu0.yaml" -o "$tmp/mu0"
grep_in "$tmp/err" "mu0.yaml:4:42: error: job-001 \(phases.flight.duration=0.6, phases.landing.contact.friction=0\): 'friction' must be positive"
printf 'problem: %s\nparamters: {phases.flight.duration: [0.6]}\n' "$problem" >"$tmp/typo.yaml"
expect 2 "$salto" batch "$tmp/typo.yaml"
grep_in "$tmp/err" "typo.yaml:2:1: error: unknown key 'paramters'"
grep_in "$tmp/err" "did you mean 'parameters'"

# ---- the 3 x 3 sweep of the dismount (flight time, friction), validated ----
cat >"$tmp/grid.yaml" <<EOF
problem: $problem
parameters:
  phases.flight.duration: {from: 0.6, to: 0.8, count: 3}
  phases.landing.contact.friction: [1.0, 0.7, 0.4]
validate: true
EOF
# (exit 1 unless every job converged and passed its validation: the paper's held landing fails
# it, so 1 where it fails on this machine)
expect_fine "$tmp/grid" "$salto" batch "$tmp/grid.yaml" -o "$tmp/grid" -j 2
sum="$tmp/grid/summary.csv"
grep_in "$sum" "^job,phases.flight.duration,phases.landing.contact.friction,status,objective,iterations,solve_time,worst_residual,peak_com_height,flight_rotation,peak_joint_torque,validation,warm_start$"
if [ "$(wc -l <"$sum")" -eq 10 ]; then ok; else fail "summary.csv has $(wc -l <"$sum") lines, not 10"; fi
if [ "$(col "$sum" status | grep -c '^converged$')" -eq 9 ]; then ok; else fail "not 9 converged: $(col "$sum" status | tr '\n' ' ')"; fi
if [ "$(col "$sum" phases.flight.duration | tr '\n' ' ')" = "0.6 0.6 0.6 0.7 0.7 0.7 0.8 0.8 0.8 " ]; then ok; else fail "durations: $(col "$sum" phases.flight.duration | tr '\n' ' ')"; fi
if [ "$(col "$sum" phases.landing.contact.friction | tr '\n' ' ')" = "1.0 0.7 0.4 1.0 0.7 0.4 1.0 0.7 0.4 " ]; then ok; else fail "frictions: $(col "$sum" phases.landing.contact.friction | tr '\n' ' ')"; fi
# every row: a validation verdict, measures that make sense (the centre of mass above 1.5 m,
# a flight rotation, a peak torque), the solver's numbers
bad=$(awk -F, 'NR > 1 && !($12 == "pass" || $12 == "fail") || NR > 1 && !($9 > 1.5 && $9 < 4 && $10 > 30 && $11 > 0 && $6 > 0 && $8 < 1e-3) { print $1 }' "$sum")
if [ -z "$bad" ]; then ok; else fail "rows with missing or implausible values: $bad"; fi
# the flight times differ, so the motions do: the objective differs between the rows
if [ "$(col "$sum" objective | sort -u | wc -l)" -eq 9 ]; then ok; else fail "objectives not all different"; fi
for f in summary.json summary.png batch.json job-004/job.json job-004/result.json job-004/log.txt \
         job-004/motion.json job-004/validation.json job-004/problem.yaml; do
    if [ -s "$tmp/grid/$f" ]; then ok; else fail "no $f"; fi
done
if ls "$tmp/grid"/*.tmp "$tmp/grid"/job-*/*.tmp >/dev/null 2>&1; then fail "temporary files left"; else ok; fi
grep_in "$tmp/grid/job-004/job.json" '"set": \["phases.flight.duration=0.7", "phases.landing.contact.friction=0.7"\]'
grep_in "$tmp/grid/summary.json" '"counts": \{"converged": 9,'
# the job's motion validates again by hand with the same overrides, with the summary's verdict
v4=$(col "$sum" validation | sed -n 5p)
expect "$([ "$v4" = pass ] && echo 0 || echo 1)" "$salto" validate "$tmp/grid/job-004/motion.json" -o "$tmp/v4" --quiet \
    --set phases.flight.duration=0.7 --set phases.landing.contact.friction=0.7
# and without them: motion.json records the overrides its problem was solved with ("set"),
# which validate applies again on the problem the motion names
grep_in "$tmp/grid/job-004/motion.json" '"set": \["phases.flight.duration=0.7", "phases.landing.contact.friction=0.7"\]'
expect "$([ "$v4" = pass ] && echo 0 || echo 1)" "$salto" validate "$tmp/grid/job-004/motion.json" -o "$tmp/v4b" --quiet
if cmp -s "$tmp/v4/validation.json" "$tmp/v4b/validation.json"; then ok; else fail "validate without the job's --set judged differently"; fi
# the job's resolved problem, copied anywhere, solves as the job did (warm start included)
grep_in "$tmp/grid/job-004/problem.yaml" "^  - name: flight$"
grep_in "$tmp/grid/job-004/problem.yaml" "^    duration: 0.7$"
grep_in "$tmp/grid/job-004/problem.yaml" "^      friction: 0.7$"
mkdir -p "$tmp/elsewhere" && cp "$tmp/grid/job-004/problem.yaml" "$tmp/elsewhere/p.yaml"
# (exit status 0 when it validates, as the job's verdict says, else 1)
expect "$([ "$v4" = pass ] && echo 0 || echo 1)" "$salto" solve "$tmp/elsewhere/p.yaml" -o "$tmp/elsewhere/out" --quiet
it_job=$(col "$sum" iterations | sed -n 5p)
it_again=$(sed -n 's/.*"iterations": \([0-9]*\).*/\1/p' "$tmp/elsewhere/out/motion.json" | head -1)
if [ -n "$it_job" ] && [ "$it_job" = "$it_again" ]; then ok; else fail "problem.yaml: $it_again iterations, the job $it_job"; fi
expect 0 "$salto" validate "$tmp/elsewhere/out/motion.json" -o "$tmp/elsewhere/out" \
    --threshold flight_force=1e12 --threshold flight_torque=1e12 --threshold ballistic=1e12 \
    --threshold spin=1e12 --threshold bar_torque=1e12 --threshold normal_force=1e12 \
    --threshold friction=1e12 --threshold cop=1e12 --threshold slip=1e12 --threshold impact=1e12 \
    --threshold drift_root=1e12 --threshold drift_rotation=1e12 --threshold drift_joints=1e12 \
    --threshold drift_com=1e12
# the summary again from the folders (the same, byte for byte), with another measure drawn
cp "$sum" "$tmp/grid.csv"
expect_fine "$tmp/grid" "$salto" batch --collect "$tmp/grid" --plot peak_joint_torque
if cmp -s "$sum" "$tmp/grid.csv"; then ok; else fail "--collect changed the batch's summary"; fi
expect 2 "$salto" batch --collect "$tmp/grid" --plot height
grep_in "$tmp/err" "--plot needs one of objective"
# run again: nothing to do
expect_fine "$tmp/grid" "$salto" batch "$tmp/grid.yaml" -o "$tmp/grid" -j 2
grep_in "$tmp/err" "9 already finished \(skipped\)"

# ---- warm starts: the same grid, each job from its neighbour's motion ----
sed 's/^validate: true$/warm_start: true/' "$tmp/grid.yaml" >"$tmp/warm.yaml"
expect 0 "$salto" batch "$tmp/warm.yaml" -o "$tmp/warm" -j 2
wsum="$tmp/warm/summary.csv"
if [ "$(col "$wsum" warm_start | tr '\n' ' ')" = " job-000 job-001 job-000 job-003 job-004 job-003 job-006 job-007 " ]; then ok; else fail "warm starts: $(col "$wsum" warm_start | tr '\n' ' ')"; fi
cold=$(col "$sum" iterations | tail -n +2 | awk '{ s += $1 } END { print s }')
warm=$(col "$wsum" iterations | tail -n +2 | awk '{ s += $1 } END { print s }')
if [ "$warm" -lt "$cold" ]; then ok; else fail "warm starts took $warm iterations over jobs 1-8, cold $cold"; fi
# the first job has no neighbour and is the cold one
if [ "$(col "$wsum" iterations | head -1)" = "$(col "$sum" iterations | head -1)" ]; then ok; else fail "job-000 differs warm and cold"; fi

# ---- a job whose solver fails: recorded, the others finish ----
cat >"$tmp/fail.yaml" <<EOF
problem: $problem
combine: zip
parameters:
  phases.flight.duration: [0.6, 0.7, 0.8]
  solver.max_iterations: [1000, 3, 1000]
EOF
expect 1 "$salto" batch "$tmp/fail.yaml" -o "$tmp/fail" -j 2
if [ "$(col "$tmp/fail/summary.csv" status | tr '\n' ' ')" = "converged not_converged converged " ]; then ok; else fail "statuses: $(col "$tmp/fail/summary.csv" status | tr '\n' ' ')"; fi
if [ "$(col "$tmp/fail/summary.csv" iterations | sed -n 2p)" = "3" ]; then ok; else fail "the failing job's iterations"; fi
grep_in "$tmp/fail/job-001/log.txt" "Maximum_Iterations_Exceeded"
# --retry runs it again (and it fails again); without, it is finished
expect 1 "$salto" batch "$tmp/fail.yaml" -o "$tmp/fail" -j 2
grep_in "$tmp/err" "3 already finished"
expect 1 "$salto" batch "$tmp/fail.yaml" -o "$tmp/fail" -j 2 --retry
grep_in "$tmp/err" "2 already finished"

# ---- a job that crashes (a signal) and jobs past the time limit ----
sed 's/^  solver.max_iterations: .*$/  solver.tolerance: [1e-6, 1e-6, 1e-6]/' "$tmp/fail.yaml" >"$tmp/crash.yaml"
"$salto" batch "$tmp/crash.yaml" -o "$tmp/crash" -j 1 >"$tmp/out" 2>"$tmp/err" &
pid=$!
child=""
i=0
while [ -z "$child" ] && [ "$i" -lt 3000 ]; do child=$(pgrep -P "$pid" | head -1); i=$((i + 1)); sleep 0.01; done
if [ -n "$child" ]; then kill -ABRT "$child"; ok; else fail "no job process seen"; fi  # (ASan would catch SIGSEGV)
wait "$pid"
st=$?
if [ "$st" -eq 1 ]; then ok; else fail "crashed batch: exit $st"; fi
if [ "$(col "$tmp/crash/summary.csv" status | tr '\n' ' ')" = "crashed converged converged " ]; then ok; else fail "statuses: $(col "$tmp/crash/summary.csv" status | tr '\n' ' ')"; fi
grep_in "$tmp/crash/job-000/result.json" '"signal": 6'
grep_in "$tmp/crash/job-000/log.txt" "crashed: Aborted"
expect 1 "$salto" batch "$tmp/crash.yaml" -o "$tmp/timeout" -j 2 --timeout 0.02
if [ "$(col "$tmp/timeout/summary.csv" status | tr '\n' ' ')" = "timeout timeout timeout " ]; then ok; else fail "statuses: $(col "$tmp/timeout/summary.csv" status | tr '\n' ' ')"; fi
grep_in "$tmp/timeout/job-002/log.txt" "killed at the time limit of 0.02 s"

# ---- killed (SIGKILL) in the middle, then resumed: nothing finished is redone ----
"$salto" batch "$tmp/grid.yaml" -o "$tmp/kill" -j 1 >"$tmp/kill.out" 2>&1 &
pid=$!
if wait_for 3 "$tmp/kill/job-*/result.json"; then ok; else fail "no results while running"; fi
kill -KILL "$pid"
wait "$pid" 2>/dev/null
sleep 0.2
if pgrep -f "batch --job $tmp/grid.yaml" >/dev/null; then fail "job processes outlived the batch"; else ok; fi
n=$(ls "$tmp"/kill/job-*/result.json | wc -l)
if [ "$n" -lt 9 ]; then ok; else fail "the batch finished before it was killed"; fi
ls -l --time-style=+%s.%N "$tmp"/kill/job-*/result.json | awk '{ print $6, $7 }' >"$tmp/kill.before"
expect_fine "$tmp/kill" "$salto" batch "$tmp/grid.yaml" -o "$tmp/kill" -j 2
grep_in "$tmp/err" "$n already finished \(skipped\)"
ls -l --time-style=+%s.%N "$tmp"/kill/job-*/result.json | awk '{ print $6, $7 }' >"$tmp/kill.after"
while read -r t f; do
    if grep -qF "$t $f" "$tmp/kill.after"; then ok; else fail "$f was written again"; fi
done <"$tmp/kill.before"
same_rows "$tmp/kill/summary.csv" "$sum"

# ---- Ctrl-C: the workers stopped, a message, the summary of what finished; then resumed ----
"$salto" batch "$tmp/grid.yaml" -o "$tmp/int" -j 2 >"$tmp/int.out" 2>&1 &
pid=$!
if wait_for 2 "$tmp/int/job-*/result.json"; then ok; else fail "no results while running"; fi
kill -INT "$pid"
wait "$pid"
st=$?
if [ "$st" -eq 130 ] || [ "$st" -eq 0 ]; then ok; else fail "interrupted batch: exit $st"; fi
if [ "$st" -eq 130 ]; then grep_in "$tmp/int.out" "run the same command again to resume"; fi
if pgrep -f "batch --job $tmp/grid.yaml" >/dev/null; then fail "job processes outlived Ctrl-C"; else ok; fi
if [ -s "$tmp/int/summary.csv" ]; then ok; else fail "no summary after Ctrl-C"; fi
expect_fine "$tmp/int" "$salto" batch "$tmp/grid.yaml" -o "$tmp/int" -j 2
same_rows "$tmp/int/summary.csv" "$sum"

# ---- beyond one machine: the lines through GNU parallel, then --collect ----
cat >"$tmp/zip.yaml" <<EOF
problem: $problem
combine: zip
validate: true
parameters:
  phases.flight.duration: [0.6, 0.7, 0.8]
  phases.landing.contact.friction: [1.0, 0.7, 0.5]
EOF
expect 0 "$salto" batch "$tmp/zip.yaml" --emit jobs -o "$tmp/par"
if [ "$(wc -l <"$tmp/par/jobs.txt")" -eq 3 ]; then ok; else fail "jobs.txt: $(wc -l <"$tmp/par/jobs.txt") lines"; fi
grep_in "$tmp/par/jobs.txt" "^'$salto' solve '$problem' --set 'phases.flight.duration=0.6' --set 'phases.landing.contact.friction=1.0' -o '$tmp/par/job-000' --quiet"
expect 1 "$salto" batch --collect "$tmp/par" # nothing has run: every job missing
if [ "$(col "$tmp/par/summary.csv" status | tr '\n' ' ')" = "missing missing missing " ]; then ok; else fail "before running: $(col "$tmp/par/summary.csv" status | tr '\n' ' ')"; fi
if command -v parallel >/dev/null; then
    # a job's line exits with its solve's status, 1 for a motion that fails validation (the
    # paper's held dismount does): parallel's status counts those jobs
    parallel -j 2 --halt never <"$tmp/par/jobs.txt" >"$tmp/out" 2>"$tmp/err"
    npar=$?
    expect_fine "$tmp/par" "$salto" batch --collect "$tmp/par"
    nbad=$(col "$tmp/par/summary.csv" validation | grep -c -v '^pass$')
    if [ "$npar" -eq "$nbad" ]; then ok; else fail "parallel exit $npar, $nbad jobs without a passing validation"; fi
    expect_fine "$tmp/own" "$salto" batch "$tmp/zip.yaml" -o "$tmp/own" -j 2
    same_rows "$tmp/par/summary.csv" "$tmp/own/summary.csv"
    if [ "$(col "$tmp/own/summary.csv" validation | sort -u | grep -c -E '^(pass|fail)$')" -ge 1 ]; then ok; else fail "no validation in the zip summary"; fi
else
    fail "GNU parallel is not installed (Debian package parallel; scripts/setup.sh installs it)"
fi
expect 0 "$salto" batch "$tmp/grid.yaml" --emit slurm -o "$tmp/slurm"
grep_in "$tmp/slurm/batch.slurm" "^#SBATCH --array=0-8$"
grep_in "$tmp/slurm/batch.slurm" "SLURM_ARRAY_TASK_ID"
if [ "$(wc -l <"$tmp/slurm/jobs.txt")" -eq 9 ]; then ok; else fail "slurm jobs.txt lines"; fi
expect 2 "$salto" batch --collect "$tmp/nothing_here"
grep_in "$tmp/err" "batch.json"

# ---- accounting (issue 28): what is finished, what --retry runs again, the exit status ----
# A job stopped by something outside its problem gets no result.json: its row says
# 'environment', its log why, and the plain resume that follows runs it (no --retry)
cat >"$tmp/env.yaml" <<EOF
problem: $problem
combine: zip
parameters:
  phases.flight.duration: [0.6, 0.7, 0.8]
EOF
# the disk full for job-001's motion.json and for job-002's result.json: their temporary files
# made links to /dev/full, which refuses every write with ENOSPC (as a full disk does; no root)
expect 0 "$salto" batch "$tmp/env.yaml" --emit jobs -o "$tmp/env"
ln -s /dev/full "$tmp/env/job-001/motion.json.tmp"
ln -s /dev/full "$tmp/env/job-002/result.json.tmp"
expect 1 "$salto" batch "$tmp/env.yaml" -o "$tmp/env" -j 2
statuses "$tmp/env/summary.csv" "converged environment environment"
grep_in "$tmp/env/summary.json" '"environment": 2, "missing": 0'
grep_in "$tmp/err" "^2 jobs stopped by their environment, not by their problem .*: not finished, they run again when the batch is resumed$"
grep_in "$tmp/err" "^job-001 environment: stopped outside its problem, see its log.txt, not finished"
if [ ! -e "$tmp/env/job-001/result.json" ] && [ ! -e "$tmp/env/job-002/result.json" ]; then ok; else fail "a job stopped by a full disk has a result.json"; fi
grep_in "$tmp/env/job-001/log.txt" "cannot write '.*/job-001/motion.json': No space left on device"
grep_in "$tmp/env/job-001/log.txt" "^salto batch: job-001 stopped by its environment, not its problem \(a write failed: No space left on device\): not finished, no result.json"
grep_in "$tmp/env/job-002/log.txt" "cannot write '.*/job-002/result.json': No space left on device"
grep_in "$tmp/env/job-002/log.txt" "^salto batch: job-002's result.json could not be written: not finished"
expect 0 "$salto" batch "$tmp/env.yaml" -o "$tmp/env" -j 2
grep_in "$tmp/err" "1 already finished \(skipped\)"
statuses "$tmp/env/summary.csv" "converged converged converged"
# memory run out: job-001's 300th allocation through salto's allocator fails
# (SALTO_BATCH_FAIL_ALLOC=J:N, which only the job process reads)
expect 1 env SALTO_BATCH_FAIL_ALLOC=1:300 "$salto" batch "$tmp/env.yaml" -o "$tmp/nomem" -j 2
statuses "$tmp/nomem/summary.csv" "converged environment converged"
grep_in "$tmp/nomem/job-001/log.txt" "stopped by its environment, not its problem \(out of memory: allocation 300 failed\)"
if [ ! -e "$tmp/nomem/job-001/result.json" ]; then ok; else fail "a job out of memory has a result.json"; fi
expect 0 "$salto" batch "$tmp/env.yaml" -o "$tmp/nomem" -j 2
grep_in "$tmp/err" "2 already finished \(skipped\)"
# killed from outside with SIGKILL (as by the kernel's OOM killer): not finished, run again
"$salto" batch "$tmp/env.yaml" -o "$tmp/kill9" -j 1 >"$tmp/out" 2>"$tmp/err" &
pid=$!
child=""
i=0
while [ -z "$child" ] && [ "$i" -lt 3000 ]; do child=$(pgrep -P "$pid" | head -1); i=$((i + 1)); sleep 0.01; done
if [ -n "$child" ]; then kill -KILL "$child"; ok; else fail "no job process seen"; fi
wait "$pid"
st=$?
if [ "$st" -eq 1 ]; then ok; else fail "a batch with a job killed from outside: exit $st"; fi
statuses "$tmp/kill9/summary.csv" "environment converged converged"
grep_in "$tmp/kill9/job-000/log.txt" "^salto batch: job-000 killed from outside \(Killed\): not finished"
if [ ! -e "$tmp/kill9/job-000/result.json" ]; then ok; else fail "a job killed from outside has a result.json"; fi
expect 0 "$salto" batch "$tmp/env.yaml" -o "$tmp/kill9" -j 1
grep_in "$tmp/err" "2 already finished \(skipped\)"
# what stays recorded: a crash of the job's own (SIGABRT, above) and a time-out, skipped by the
# resume
expect 1 "$salto" batch "$tmp/crash.yaml" -o "$tmp/crash" -j 1
grep_in "$tmp/err" "3 already finished \(skipped\)"
expect 1 "$salto" batch "$tmp/crash.yaml" -o "$tmp/timeout" -j 2 --timeout 0.02
grep_in "$tmp/err" "3 already finished \(skipped\)"
# with warm starts, a job whose neighbour was stopped by its environment still runs (cold)
sed 's/^combine: zip$/warm_start: true\ncombine: zip/' "$tmp/env.yaml" >"$tmp/envwarm.yaml"
expect 0 "$salto" batch "$tmp/envwarm.yaml" --emit jobs -o "$tmp/envwarm"
ln -s /dev/full "$tmp/envwarm/job-000/motion.json.tmp"
expect 1 "$salto" batch "$tmp/envwarm.yaml" -o "$tmp/envwarm" -j 2
statuses "$tmp/envwarm/summary.csv" "environment converged converged"
if [ "$(col "$tmp/envwarm/summary.csv" warm_start | tr '\n' ' ')" = "  job-001 " ]; then ok; else fail "warm starts after a full disk: $(col "$tmp/envwarm/summary.csv" warm_start | tr '\n' ' ')"; fi

# A validated sweep of the shipped dismount: job-000 passes every check; job-001, judged with
# no drift of the centre of mass allowed, converges and fails its validation: not fine, exit 1
# (converged is not enough when validation is asked for), from --collect too
cat >"$tmp/val.yaml" <<EOF
problem: $root/problems/highbar_dismount.yaml
combine: zip
parameters:
  validation.thresholds.drift_com: [1e12, 0]
validate: true
EOF
expect 1 "$salto" batch "$tmp/val.yaml" -o "$tmp/val" -j 2
statuses "$tmp/val/summary.csv" "converged converged"
if [ "$(col "$tmp/val/summary.csv" validation | tr '\n' ' ')" = "pass fail " ]; then ok; else fail "validations: $(col "$tmp/val/summary.csv" validation | tr '\n' ' ')"; fi
expect 1 "$salto" batch --collect "$tmp/val"
# a validation that could not be made (recorded as 'error'; written here into job-000's
# result) is not fine either: exit 1, and --retry runs both jobs again, the failed one too
sed 's/"validation": "pass"/"validation": "error"/' "$tmp/val/job-000/result.json" >"$tmp/r.json"
cp "$tmp/r.json" "$tmp/val/job-000/result.json"
grep_in "$tmp/val/job-000/result.json" '"validation": "error"'
expect 1 "$salto" batch "$tmp/val.yaml" -o "$tmp/val" -j 2
grep_in "$tmp/err" "2 already finished \(skipped\)"
expect 1 "$salto" batch "$tmp/val.yaml" -o "$tmp/val" -j 2 --retry
if ! grep -q "already finished" "$tmp/err"; then ok; else fail "--retry skipped a job: $(grep 'already finished' "$tmp/err")"; fi
grep_in "$tmp/err" "^job-000 converged, .*, validation pass "
grep_in "$tmp/err" "^job-001 converged, .*, validation fail "
grep_in "$tmp/val/job-000/result.json" '"validation": "pass"'
# every job fine (job-001's verdict written as a pass): exit 0, from --collect too, and
# --retry runs nothing
sed 's/"validation": "fail"/"validation": "pass"/' "$tmp/val/job-001/result.json" >"$tmp/r.json"
cp "$tmp/r.json" "$tmp/val/job-001/result.json"
expect 0 "$salto" batch "$tmp/val.yaml" -o "$tmp/val" -j 2 --retry
grep_in "$tmp/err" "2 already finished \(skipped\)"
expect 0 "$salto" batch --collect "$tmp/val"

echo "batch_test: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
