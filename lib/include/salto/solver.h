// solver.h: solving a salto NLP with IPOPT (the adapter in solver_ipopt.c)
#ifndef SALTO_SOLVER_H
#define SALTO_SOLVER_H

#include <stdio.h>

#include "salto/motion.h"
#include "salto/nlp.h"
#include "salto/validate.h"

// One line of progress, reported after every iteration.
typedef struct salto_solver_progress {
    int iter;          // iteration number
    double objective;  // objective value
    double inf_pr;     // constraint violation
    double inf_du;     // dual infeasibility
    double elapsed;    // wall time since the solve started, s
} salto_solver_progress;

typedef void (*salto_progress_fn)(const salto_solver_progress* p, void* user);

typedef struct salto_solve_result {
    int converged;         // 1 when IPOPT reports success
    int status;            // IPOPT's return status (ApplicationReturnStatus)
    char status_name[64];  // its name
    int iterations;
    double objective;
    double elapsed;        // s
    double max_violation;  // largest constraint violation at the returned x
    int worst_row;         // its row (-1 when there are no constraints)
    int n_eval_f, n_eval_g, n_eval_jac, n_eval_h;  // callback counts
    double time_g, time_jac, time_h;  // wall time in salto's constraint, Jacobian and Hessian
                                      // evaluations, s (the rest of elapsed is IPOPT's)
    // the KKT systems (solver.linear_solver salto; zero with MUMPS, which IPOPT does not time)
    int factorisations;    // of IPOPT's augmented system, the restoration phase's included
    double time_factor;    // CPU time of the factorisations, s
    double time_kkt_solve; // CPU time of the solves with the factors, s
    int kkt_order;         // the last system's order
    // with salto_solver_compare_mumps(1): MUMPS (set up as IPOPT sets it up) factored the
    // same matrices too, timed apart; its time is not in elapsed
    int mumps_compared;
    int mumps_inertia_differs; // matrices where MUMPS counted other negative eigenvalues
    double time_mumps;     // s (CPU)
} salto_solve_result;

// Prints the solve's cost line ("cost: ..."): factorisations an iteration, their time, the
// Hessian's time in Jacobians' worth, and MUMPS's time on the same matrices when compared.
void salto_print_cost(FILE* f, const salto_solve_result* r);

// What an iteration of the problem's solve costs, measured at x (CPU time, s, the median of a
// few runs): the constraints and objective, their derivatives, the Hessian (unit multipliers),
// and one factorisation and one solve of the KKT system assembled as IPOPT assembles it.
typedef struct salto_cost {
    double t_values, t_jacobian, t_hessian, t_factor, t_solve;
    int kkt_order, kkt_entries;  // the KKT matrix's order and entries (lower triangle)
    double factor_entries, flops; // its factor's entries and the factorisation's multiply-adds
    int max_front;                // the largest front's order
    int predicted;                // 1: the factorisation was not made (over 1e10 multiply-adds
                                  //   predicted from its pattern): t_factor, t_solve, flops and
                                  //   factor_entries are the prediction's
} salto_cost;

salto_status salto_nlp_cost(salto_nlp* nlp, const double* x, salto_cost* out);

// What the solve's KKT factorisation will cost, predicted from the pattern alone (AMD's order,
// no pivoting or delays, before any value): multiply-adds and the factor's entries. Milliseconds
// for the shipped problems; salto solve warns from it before a solve whose factorisations will
// take seconds each. SALTO_ERR_NOMEM.
salto_status salto_nlp_kkt_predict(const salto_nlp* nlp, double* flops, double* factor_entries);

// Makes every later solve on this thread factor each KKT matrix with MUMPS too, for salto
// bench's comparison (salto_solve_result's mumps fields); 0 turns it off.
void salto_solver_compare_mumps(int on);

// Solves the NLP from the starting point x (nx), in place: x receives the best iterate even
// when IPOPT stops without success. Every option is set in code; IPOPT's options file in the
// working directory is not read. progress may be NULL. Returns SALTO_OK when IPOPT ran (see
// result->converged), SALTO_ERR_SOLVER with err filled when it could not start.
salto_status salto_solve(salto_nlp* nlp, double* x, salto_progress_fn progress, void* user,
                         salto_solve_result* result, salto_error* err);

// The multipliers of a solve: of the constraints (ng) and of the variables' lower and upper
// bounds (nx each), IPOPT's signs.
typedef struct salto_multipliers {
    double* g;
    double* x_lo;
    double* x_hi;
} salto_multipliers;

// salto_solve, with the multipliers: mult (may be NULL) receives them; with warm, they are
// also where the solve starts (IPOPT's warm_start_init_point, the point and multipliers pushed
// from their bounds by 1e-3), for a re-solve from a solution of a nearby problem.
// max_iterations > 0 caps IPOPT's iterations below the problem's solver.max_iterations (a
// refinement's re-solve: solver.refine_max_iterations); solver.ipopt options still come last.
salto_status salto_solve_mult(salto_nlp* nlp, double* x, salto_multipliers* mult, int warm,
                              int max_iterations, salto_progress_fn progress, void* user,
                              salto_solve_result* result, salto_error* err);

// Slice refinement (problem key solver.refine): what salto_solve_refined did.
typedef struct salto_refine_result {
    int warmup_iterations; // the default spline's first solve on a coarse spline (problem.
    double warmup_elapsed; //   warmup), s; 0 when there was none
    char warmup_status[64]; //  IPOPT's status for it ("" when none)
    int denser_iterations; // the denser solve (one slice more a segment) after a first coarse
    double denser_elapsed; //   solve, when the motion failed its validation; s
    char denser_status[64]; //  IPOPT's status for it ("" when none)
    int denser_slices_per_segment; // its slices a segment
    int denser_kept;       //   1 when its motion validated better and is the one returned
    int denser_after_limit; //  1 when it followed a solve that did not converge (kept
                           //   if it converges), 0 after one that converged
    int first_iterations;  // the first solve's
    double first_elapsed;  // s
    int rounds;            // re-solves after adding slices
    int refine_iterations; //   their iterations, all of them (undone ones too)
    int added;             // slices added (kept: a failed re-solve's are taken back)
    int undone;            // re-solves that did not converge and were taken back
    char failed_status[64]; //   IPOPT's status for the last of them
    int failed;            // 1 when refinement stopped at such a re-solve with the worst place
                           //   alone (the motion before it is kept)
    int out_of_time;       // 1 when refinement stopped at its time budget (solver.refine_time)
    int nscan;             // refinement's scans of the motion (the first solve's, then one a
    double scan_worst[101]; //  round): each one's worst ratio (below), the first 101
    int stalled;           // 1 when refinement stopped at a round whose motion was no better
                           //   (its worst ratio not below the best before it; on a spline
                           //   by knot spacing only)
    int kept_earlier;      // 1 when a later round's motion was worse (a higher worst ratio)
                           //   and an earlier one, with its slices, is what is returned
    int pending;           // places still violated beyond the refinement fraction at the end
    double worst_ratio;    // the largest violation of a slice-enforced check at the end over
                           //   its validation threshold (0 when none is violated)
    int auto_refined;      // 1 when the default pipeline refined a converged motion that
                           //   failed its validation (no solver.refine given)
    int auto_undone;       //   and that refinement did not make it pass: the first motion,
                           //   its slices and NLP were restored before the denser solve
    int freed;             // equality rows of the problem's own spline that restate the others
                           //   (salto_nlp_restated_rows: dependent at the start and nearby)
                           //   and were not enforced in its first solve, which kept them
    char freed_row[3][320]; //  the first three of them, by name (salto_nlp_row_name)
    int final_pass;        // 1 when the default pipeline's own validation found the motion it
                           //   returns passing every check (0: failing, or not judged)
    int finer_iterations;  // the finer solve (salto_solve_timed): the whole pipeline again on
    double finer_elapsed;  //   knots half as far apart, when the motion failed its validation;
    char finer_status[64]; //   its iterations, time (s), IPOPT's status ("" when none), its
    double finer_spacing;  //   knot spacing, s, and 1 when its motion validated better and is
    int finer_kept;        //   the one returned
    int finer_failing[2];  //   the failing checks before and after it
    int turned_iterations; // the turned solve (salto_solve_timed): the pipeline again with the
    double turned_elapsed; //   root's angles in a turned chart, when the motion failed its
    char turned_status[64]; //  validation or did not converge and its root came within 30 deg
    double turned_tilt[2]; //   of the chart's singular set: iterations, time (s), IPOPT's
    int turned_kept;       //   status ("" when none); the largest |sin| of the middle angle in
    int turned_failing[2]; //   the character's chart and in the turned one; kept; the failing
                           //   checks before and after (-1: not judged)
    int timed;             // free phase durations (salto_solve_timed): 1 when chosen by a first
    int timed_iterations;  //   solve with them free, then pinned; its iterations, time and
    double timed_elapsed;  //   IPOPT's status
    char timed_status[64];
    int restored;          // rows that looked restated but that the motion broke: enforced
                           //   again, and that solve started over from its own start (any
                           //   solve: the coarse one, the first, the denser, a refinement's)
} salto_refine_result;

// With the default spline (p->warmup) and an interpolated guess, first the problem loaded
// again from p->path on a coarse spline (SALTO_WARMUP_CONTROL_POINTS control points, as many
// slices) and solved, its motion then x's guess on *nlp's spline (x's own guess is kept where
// that cannot be done). Then salto_solve, then up to p->solver.refine rounds of refinement
// (none when the first solve
// does not converge, or for a kinematic problem): salto_validate (no re-simulation) samples
// the motion densely; every run of samples of one phase where a check the NLP enforces at its
// slices (flight f0, the bar torque, the ground's normal force, friction, centre of pressure
// and twist, penetration, joint limits) is violated by more than p->solver.refine_fraction of
// its validation threshold gets a slice at its worst sample (salto_problem_add_slices); the
// NLP is rebuilt on p (same variables) into *nlp and solved from x and the last multipliers
// (salto_solve_mult, warm). A re-solve that does not converge is taken back (x, p's slices and
// *nlp are then the last converged solve's) and tried again with the worst place alone.
// Stops when nothing is violated, after the last round, or when even the worst place alone
// fails. Returns the best motion seen (the lowest worst ratio, the first solve's included)
// with its slices and NLP. result sums the iterations, times and evaluations of all the
// solves, the coarse one included (and the validations' time); its status is the last
// converged solve's.
// After a first coarse solve and without refinement, a converged motion on slices by segment
// that fails its validation (the re-simulation included) is solved once more with one slice
// more a segment (same spline and variables, from x), and the one that validates better is
// returned, p's slices with it (rr->denser_*).
salto_status salto_solve_refined(salto_problem_desc* p, salto_nlp** nlp, double* x,
                                 salto_progress_fn progress, void* user, salto_solve_result* result,
                                 salto_refine_result* rr, salto_error* err);

// salto_solve_refined, for a problem whose phases may have free durations (duration: {min,
// max}). Without them it is salto_solve_refined on *p, *nlp, *x. With them, two stages: the
// durations are chosen by salto_solve_first on the free problem (its NLP in nominal time, each
// free phase's velocities and accelerations scaled by its duration: nlp_time.c); then the
// problem is loaded again from p->path with those durations pinned (overrides
// phases.NAME.duration.min/max/initial, which motion.json keeps, so that validation and
// playback see the same problem) and the same knots per phase, and salto_solve_refined runs on
// it from the first stage's solution (no coarse solve): refinement and validation in real time.
// *p, *nlp and *x are then replaced by the pinned problem's (the old ones destroyed);
// rr->timed_* says what the first stage did, and each pinned phase's dur_lo, dur_hi the range
// it was chosen in. result sums both stages.
// Then, for either: on the default spline (p->warmup, knots by spacing, no refinement asked
// for), a converged motion that still fails its validation is solved once more, the whole
// pipeline again on knots half as far apart (`spline.knot_spacing`, an override the motion
// keeps), from its motion; the one that validates better is returned (rr->finer_*).
// Last, a motion that still fails (or did not converge) with its root's orientation within
// 30 deg of the Euler chart's singular set (the middle angle past 60 deg) is solved again in a
// turned chart (salto_problem_turn_root, its reference the one that keeps the motion farthest
// from the singular set), from its motion; kept if it validates better (rr->turned_*).
salto_status salto_solve_timed(salto_problem_desc** p, salto_nlp** nlp, double** x,
                               salto_progress_fn progress, void* user, salto_solve_result* result,
                               salto_refine_result* rr, salto_error* err);

// the duration of phase i at x: a free one's variable, else the problem's (x may be NULL: the
// nominal one)
double salto_nlp_phase_duration(const salto_nlp* nlp, const double* x, int i);
// sets a free phase's duration variable in x (kept within its bounds); a fixed phase's is left
void salto_nlp_set_phase_duration(const salto_nlp* nlp, double* x, int i, double d);

// The first solve as salto_solve_refined makes it, and nothing after it (no validation, no
// denser solve, no refinement): on a problem with p->warmup the coarse solve on 20 control
// points first, from x (the initial guess), then the solve on nlp from the coarse motion; else
// the solve on nlp from x. result sums both (its status the last solve's); coarse (may be
// NULL) receives the coarse solve's alone (zero when there was none).
salto_status salto_solve_first(const salto_problem_desc* p, salto_nlp* nlp, double* x,
                               salto_progress_fn progress, void* user, salto_solve_result* result,
                               salto_solve_result* coarse, salto_error* err);
// The same, the final solve's multipliers into mult (may be NULL; arrays of ng and nx).
salto_status salto_solve_first_mult(const salto_problem_desc* p, salto_nlp* nlp, double* x,
                                    salto_multipliers* mult, salto_progress_fn progress, void* user,
                                    salto_solve_result* result, salto_solve_result* coarse,
                                    salto_error* err);

// Where refinement (salto_solve_refined) would add slices to p: for each check the NLP
// enforces at its slices, each run of consecutive samples of v in one phase violated by more
// than fraction x the check's threshold (opts, or the default) gets one slice at its worst
// sample, listed into t, ph and ratio (its violation over the threshold; any may be NULL; room
// for the count, which a first call with NULLs gives through *n). Returns the largest ratio.
double salto_refine_scan(const salto_problem_desc* p, const salto_validation* v,
                         const salto_validate_opts* o, double fraction, int* n, double* t,
                         int* ph, double* ratio);

// motion.json (solve_out.c), written atomically (PATH.tmp, then rename), of a motion from
// salto_motion_from_nlp (or read from a file): the problem as resolved (files, phases, duration, DOF names), the spline
// (control points and knots, when the motion has them), the frames, and the solver's status
// and statistics (result may be NULL for a motion that was not solved, e.g. an initial
// guess; nlp names the worst constraint and gives the phases).
salto_status salto_motion_write_json(const salto_nlp* nlp, const salto_motion* mo,
                                     const salto_solve_result* result, const char* path,
                                     salto_error* err);

#endif
