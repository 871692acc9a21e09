// nlp.h: the spacetime problem as a sparse nonlinear program
//
// Variables are the B-spline control points, x[j ncp + a] for DOF j and control point a.
// Constraints are blocks of rows evaluated at one time each (a constraint "through a phase" or
// "at every slice" expands into one block per slice); every row depends on the q and qd of
// a few DOFs at its time, hence on four control points per DOF, and the Jacobian's pattern is
// built once, exactly, with no duplicate entries. The objective has a constant Hessian.
#ifndef SALTO_NLP_H
#define SALTO_NLP_H

#include "salto/motion.h"
#include "salto/problem.h"
#include "salto/validate.h"

typedef struct salto_nlp salto_nlp;

// Builds the NLP of a problem (which must outlive it). NULL with err filled on bad input
// (pointing at the problem file) or SALTO_ERR_NOMEM; SALTO_ERR_INVALID also when the build's
// memory, estimated before its largest allocation, is over the limit (budget.h).
salto_nlp* salto_nlp_build(const salto_problem_desc* p, salto_error* err);
void salto_nlp_destroy(salto_nlp* nlp); // accepts NULL

int salto_nlp_nx(const salto_nlp* nlp);        // variables
int salto_nlp_ng(const salto_nlp* nlp);        // constraint rows
int salto_nlp_nnz_jac(const salto_nlp* nlp);   // Jacobian non-zeros
int salto_nlp_nnz_hess(const salto_nlp* nlp);  // Lagrangian Hessian non-zeros (lower triangle)
const salto_problem_desc* salto_nlp_problem(const salto_nlp* nlp);

// The memory (bytes, estimated from the NLP's sizes): with solve 0 the build's peak, else the
// built NLP's with what a solve adds (IPOPT and the KKT factor). salto_nlp_check_memory:
// SALTO_OK, or SALTO_ERR_INVALID when the solve's is over the limit (budget.h); salto_solve
// checks it before IPOPT starts.
double salto_nlp_memory(const salto_nlp* nlp, int solve);
salto_status salto_nlp_check_memory(const salto_nlp* nlp, salto_error* err);
const struct salto_bspline* salto_nlp_spline(const salto_nlp* nlp); // the DOFs' spline

// Variable and constraint bounds (infinite bounds are +-1e20).
void salto_nlp_bounds(const salto_nlp* nlp, double* x_lo, double* x_hi, double* g_lo,
                      double* g_hi);

// The initial guess of the problem (interpolated poses, optional rotation), into x (nx).
void salto_nlp_initial_guess(const salto_nlp* nlp, double* x);

// A warm start from a motion on the same character, into x (nx): its control points when its
// spline is this one (the same knots), else its frames sampled at the Greville abscissae (its
// duration stretched to this problem's); kept inside the variable bounds; the contact
// places where the sites are at each phase's start.
struct salto_motion;
void salto_nlp_guess_from_motion(const salto_nlp* nlp, const struct salto_motion* mo, double* x);
// 1 if the motion has this NLP's spline (as many control points, the same knots to 1e-12 s):
// salto_nlp_guess_from_motion then takes its control points exactly as they are.
int salto_nlp_has_motion_spline(const salto_nlp* nlp, const struct salto_motion* mo);

// 1 if phase i is a ballistic flight in this NLP (its centre of mass on its parabola, the
// root's translation derived from it: problem-format.md, "ballistic")
int salto_nlp_phase_ballistic(const salto_nlp* nlp, int i);

// A warm start from the solution xprev of another NLP on the same character (a problem with
// changed durations, say), into x (nx): its control points when every phase has as many knots
// in both, else its values at this spline's Greville abscissae, each phase's time mapped onto
// the same phase of prev when both have the same number of phases (else the whole duration
// stretched); kept inside the bounds; the contact places where the sites are at each phase's
// start.
void salto_nlp_guess_from_solution(const salto_nlp* nlp, const salto_nlp* prev,
                                   const double* xprev, double* x);

// The multipliers to go with that warm start, from prev's (gprev: ng of prev; zlo, zhi: nx of
// prev, may be NULL) into g (ng), x_lo and x_hi (nx): each row takes the multiplier of the row
// of the same constraint, phase, side and place in the block at the nearest time of prev's,
// each phase's time mapped as for the motion (0 where prev has no such row); each control
// point the bound multipliers of prev's nearest control point of its DOF (by Greville
// abscissa), the other variables prev's in order when both have as many, else 0. Returns the
// rows matched.
int salto_nlp_mult_from_solution(const salto_nlp* nlp, const salto_nlp* prev, const double* gprev,
                                 const double* zlo_prev, const double* zhi_prev, double* g,
                                 double* x_lo, double* x_hi);

// Evaluations at x (nx). Each returns SALTO_OK, or SALTO_ERR_NUMERIC if a value is not
// finite (reported to the solver as a failed evaluation). Nothing is allocated.
salto_status salto_nlp_eval_f(salto_nlp* nlp, const double* x, double* f);
salto_status salto_nlp_eval_grad(salto_nlp* nlp, const double* x, double* grad);
salto_status salto_nlp_eval_g(salto_nlp* nlp, const double* x, double* g);
salto_status salto_nlp_eval_jac(salto_nlp* nlp, const double* x, double* values);

// The Jacobian's pattern (nnz_jac row and column indices, 0-based, sorted by row then column)
// and the Lagrangian Hessian's (nnz_hess, lower triangle, sorted, no duplicates).
void salto_nlp_jac_pattern(const salto_nlp* nlp, int* rows, int* cols);
void salto_nlp_hess_pattern(const salto_nlp* nlp, int* rows, int* cols);

// The Hessian of the Lagrangian obj_factor f + sum_r lambda_r g_r at x, in the pattern's
// order: the objective's constant part exactly; the constraints' curvature block by block, in
// the state (q, qd, qdd) of the block's time: forward differences of the rows' analytic state
// gradient in q and qd (the aggregate force is linear in qdd; the friction cone's qdd-qdd part
// is exact), mapped to the control points through the spline's basis. lambda may be NULL
// (objective only).
salto_status salto_nlp_eval_hess(salto_nlp* nlp, const double* x, double obj_factor,
                                 const double* lambda, double* values);

// A readable name for constraint row r: the constraint, its component and time, and where it
// was written ("site_at 'hands' z at t = 0.900 s (problems/reach.yaml:14:5)").
void salto_nlp_row_name(const salto_nlp* nlp, int r, char* buf, size_t n);

// For two NLPs of one problem whose slices differ (refinement adds some), the row of from
// that each row of to restates (the same constraint, phase, time, side and component), or
// -1 for a new one, into map (salto_nlp_ng(to)). Returns the number of rows matched.
int salto_nlp_map_rows(const salto_nlp* from, const salto_nlp* to, int* map);

// Time of constraint row r, s.
double salto_nlp_row_time(const salto_nlp* nlp, int r);

// The rank of the equality rows of the constraint Jacobian at x (rows scaled to unit length,
// SuiteSparse's rank-revealing QR) and the equality rows that depend linearly on the others
// (dep_rows, room for ng; *ndep of them): a likely set-up error (a constraint stated twice,
// a site held in two places), which also stalls the solver.
salto_status salto_nlp_jac_rank(salto_nlp* nlp, const double* x, int* rank, int* dep_rows,
                                int* ndep, salto_error* err);

// The point near x where salto check and salto solve look at a dependency again: every
// variable moved by up to 5% of (1 + |x_i|), the same moves on every machine, within its
// bounds.
void salto_nlp_nearby_point(const salto_nlp* nlp, const double* x, double* xp);

// The equality rows that restate another row: dependent on the others at x and still at
// salto_nlp_nearby_point(x), and each with a twin whose gradient is parallel to its own at
// both points (a constraint given twice, a site placed twice). A dependency among several
// rows (a hold that a pose and another hold imply) or one of the point's alone (a singular
// pose, a symmetric start, which the solver leaves behind) is not listed (salto check names
// those). dep_rows (room for ng) receives them as the nearby point's rank-revealing QR picks
// them (the later of two twins, as a rule), *ndep of them; one QR when the rows at x are
// independent.
salto_status salto_nlp_restated_rows(salto_nlp* nlp, const double* x, int* dep_rows, int* ndep,
                                     salto_error* err);

// Sets the bounds of constraint rows rows[0..n-1] to lo[k], hi[k]; lo, hi NULL: free (the
// solver no longer enforces them; salto solve frees the rows salto_nlp_restated_rows finds,
// and says which). salto_nlp_bounds reads them back.
void salto_nlp_set_row_bounds(salto_nlp* nlp, int n, const int* rows, const double* lo,
                              const double* hi);

// The distinct times at which constraints are evaluated, ascending, into times (at most
// ng entries; may be NULL); returns their number.
int salto_nlp_eval_times(const salto_nlp* nlp, double* times);

// q, qd, qdd of every DOF at time t from the control points x (each output nv, may be NULL).
void salto_nlp_state(const salto_nlp* nlp, const double* x, double t, double* q, double* qd,
                     double* qdd);

// Objective term k's value at x (p->objs[k], its weight applied): what it adds to the objective,
// but for the regularisation every acceleration term carries (docs/problem-format.md); the
// acceleration terms share their part by weight; NAN for a reference term beside another.
double salto_nlp_objective_term(salto_nlp* nlp, const double* x, int k);

// What a height or travel objective term (p->objs[k]) measures at x: the site's or the centre
// of mass's place along its direction at its time, or the mean over its phase's slices, m
// (what the term weighs); NAN for another kind of term.
double salto_nlp_objective_measure(salto_nlp* nlp, const double* x, int k);

// How far the held contact sites stray: for every phase whose contact holds its sites, the
// largest distance of a contact site from where it is at the phase's start, sampled at
// density times the slice density (10 when density <= 0), so between the slices too. Returns
// it in m, and where (model site, phase, time; each may be NULL; -1 and 0 when nothing is held).
double salto_nlp_contact_drift(const salto_nlp* nlp, const double* x, int density, int* site,
                               int* phase, double* time);

// ---- the NLP's variables as a motion (nlp_motion.c) ----

// A motion sampled from an NLP's variables x at the problem's frame rate (for writers): the
// state salto_nlp_state gives (the derived translations included), the spline's control
// points and knots.
salto_motion* salto_motion_from_nlp(const salto_nlp* nlp, const double* x);

// Validates the motion x (the NLP's variables: control points and contact places) of nlp's
// problem: every phase sampled at opts->density samples per slice interval (both ends, each
// just inside its phase so that each side's acceleration is used), the state from
// salto_nlp_state (the effective root's translation where it applies). Fills v (release with
// salto_validation_free). SALTO_ERR_NOMEM, or SALTO_ERR_NUMERIC if a state or force is not
// finite, with err filled.
salto_status salto_validate(salto_nlp* nlp, const double* x, const salto_validate_opts* opts,
                            salto_validation* v, salto_error* err);

// A motion given by an NLP's variables x, as a salto_state_fn: salto_nlp_motion_state with a
// salto_nlp_motion as its context (salto_nlp_state: the derived translations included).
typedef struct salto_nlp_motion {
    const salto_nlp* nlp;
    const double* x;
} salto_nlp_motion;
void salto_nlp_motion_state(void* ctx, double t, double* q, double* qd, double* qdd);

#endif
