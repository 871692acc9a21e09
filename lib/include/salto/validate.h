// validate.h: how physical a motion is, checked densely between the solver's slices
//
// The optimiser enforces physics only at its constraint slices; a solved motion can still
// cheat between them. The validator samples a motion's state (q, qd, qdd) at a user-set
// density over every phase, computes the aggregate force f0 by inverse dynamics (RNEA's root
// wrench, an algorithm independent of the linear-time recursion the optimiser uses) and
// reports, phase by phase, how far each physical requirement is violated: f0 = 0 in flight,
// the bar torque bound, the ground's normal force, friction cone, centre of pressure and
// twist, held contact sites that slip, geometry below the ground, joints beyond their limits.
#ifndef SALTO_VALIDATE_H
#define SALTO_VALIDATE_H

#include "salto/checks.h"
#include "salto/data.h"
#include "salto/motion.h"
#include "salto/problem.h"

// the defaults with what the problem file's `validation` key gives
void salto_validate_opts_from_problem(salto_validate_opts* o, const salto_problem_desc* p);

// One check over one phase.
typedef struct salto_check {
    salto_check_kind kind;
    int phase;          // phase index
    int nsample;        // samples it was evaluated at
    double worst;       // largest violation (>= 0), in the check's unit
    double worst_time;  // where, s
    int worst_what;     // the site (slip), geometry (penetration) or DOF (joint limits) at
                        //   fault; -1 otherwise
    double rms;         // root mean square of the violation over the samples
    double threshold;   // the threshold it was judged by
    int pass;           // worst <= threshold
    int judged;         // 1, or 0 for a physics check (salto_check_is_physics) on a problem that
                        //   asks for no physics (physics: false): shown, not counted in the
                        //   verdict
} salto_check;

// What a failing check points at: the site (slip), the geometry's body (penetration) or the
// DOF (joint limits) of its worst violation; NULL when it points at nothing or never fails.
const char* salto_check_at(const salto_model* m, const salto_check* c);

typedef struct salto_validation {
    int ncheck;
    salto_check* check;  // (ncheck), phase by phase, kinds in enum order
    int nsample;
    double* t;           // sample times (nsample)
    int* phase;          // their phases (nsample)
    double* f0;          // f0 at each sample, about the world origin, torque first (nsample x 6)
    double* violation;   // each check's violation at each sample, NAN where it does not apply
                         //   (nsample x SALTO_CHECK_COUNT)
    int nv;              // DOFs
    double* tau;         // joint torques by inverse dynamics at each sample, the contact
                         //   wrenches distributed by salto_contact_wrenches (nsample x nv); the
                         //   root's entries are what no contact supplies (zero in contact
                         //   phases, f0's components in flight)
    double* tau_peak;    // the largest |tau| of each DOF over the motion (nv)
    double* tau_peak_time; // where, s (nv)
    double* tau_lim;     // where the model has torque limits: the range of tau that they allow
                         //   at each sample, [lo - slope qd, hi - slope qd] of each DOF
                         //   (nsample x 2 nv; +-INFINITY for a DOF without); NULL without
    salto_integrator integrator; // the re-simulation's (NONE: none was run)
    double step;         // its largest step, s
    double* resim_stop;  // per phase: NAN when the re-simulation ran through it, else the
                         //   sample time from which its state was not finite or the
                         //   articulated-body algorithm failed (the drift is infinite there)
    int njudged;         // the checks judged (those of check[] with judged set)
    int npassed;         //   and of those, how many passed
    int pass;            // every judged check passed (npassed == njudged)
} salto_validation;

// What salto_validate_motion refuses before any work, checked alone (a re-simulation step that
// would need more than opts->max_steps steps over the motion): SALTO_OK or SALTO_ERR_INVALID
// with err filled.
salto_status salto_validate_check_opts(const salto_problem_desc* p, const salto_validate_opts* opts,
                                       salto_error* err);

// Validates a motion on p's character and phases, given by its state (salto_validate for an
// NLP's variables; a motion read from a file; a test's reference): every phase sampled at
// opts->density samples per slice interval (both ends, each just inside its phase so that
// each side's acceleration is used). Fills v (release with salto_validation_free).
// SALTO_ERR_NOMEM, or SALTO_ERR_NUMERIC if a state or force is not finite, with err filled. Re-simulation: from the motion's state at the start of
// each phase, the articulated-body algorithm integrated with the joint torques and contact
// wrenches of the motion's inverse dynamics (the root unactuated), each phase's held sites
// kept in place by acceleration constraints (salto_resim_accel), and the state compared with
// the motion's at every sample (the drift checks).
salto_status salto_validate_motion(const salto_problem_desc* p, salto_state_fn state, void* ctx,
                                   const salto_validate_opts* opts, salto_validation* v,
                                   salto_error* err);

// torques.png: each joint's torque (v->tau) against time, a panel per joint past the root,
// scaled to its peak, the phases marked. Written atomically (cairo).
salto_status salto_validation_write_torques_png(const salto_problem_desc* p, const salto_validation* v,
                                                const char* path, salto_error* err);

// ---- contact wrenches, joint torques, re-simulation ----

// l of the contact wrenches' shares (salto_contact_shares): a wrench's moment weighs as a
// force times l, m
#define SALTO_CONTACT_LENGTH 0.1

// The minimum-norm shares w (nb x 6, about the origin) of the aggregate wrench f0 among nb
// contact links with centroids pc (salto_contact_wrenches' rule). Unless NULL, A receives the
// Cholesky factor of the 6 x 6 system and ab its solution (alpha, beta) for derivatives (nb >=
// 2). Returns 0 when the system could not be factored (not for finite input: the shares are
// then f0 / nb), else 1.
int salto_contact_shares(int nb, const double (*pc)[3], const double f0[6], double* w, double A[36],
                         double ab[6]);

// Distributes the aggregate force f0 (d->f0, after salto_rnea) of phase i among its contact
// links: the sites are grouped by the link they move with, each group gets a wrench (n_b about
// its sites' centroid p_b, f_b), and of all such wrenches that sum to f0 the one minimising
// sum_b |f_b|^2 + |n_b|^2 / l^2 (l = 0.1 m, a foot's scale) is taken: in closed form,
// f_b = alpha + beta x p_b, n_b = l^2 beta with (alpha, beta) from a 6 x 6 system. One link:
// the whole of f0. Writes each link (link, at most 8) and its wrench about the world origin
// (w, 6 per link, torque first); returns their number (0 in flight or for a phase whose sites
// are all on the world). The friction cone is not imposed link by link: the checks judge the
// aggregate, as the optimiser does.
int salto_contact_wrenches(const salto_problem_desc* p, int i, const salto_data* d, int* link,
                           double* w);

typedef struct salto_resim salto_resim;

// How a constraint matrix is built from test forces (Kokkevis section 4): a full pass of the
// articulated-body algorithm per test force (4.2), or the delta method on one full pass (4.3,
// salto_aba_delta: the default, the same matrix at less cost)
typedef enum salto_constraint_method {
    SALTO_CONSTRAINT_TEST_FORCES = 0,
    SALTO_CONSTRAINT_ABA_DELTA
} salto_constraint_method;

// A re-simulation of motion state on p's character (release with salto_resim_destroy); NULL
// when out of memory.
salto_resim* salto_resim_create(const salto_problem_desc* p, salto_state_fn state, void* ctx);
void salto_resim_destroy(salto_resim* r); // accepts NULL

void salto_resim_set_method(salto_resim* r, salto_constraint_method method);

// Starts phase i at time t: q and qd (nv each) get the motion's state.
salto_status salto_resim_begin(salto_resim* r, int i, double t, double* q, double* qd,
                               salto_error* err);

// The simulated acceleration qdd at time t and state (q, qd) of the phase begun: the
// articulated-body algorithm with the motion's joint torques at t (its inverse dynamics, the
// root's torques zero) and its contact wrenches as external forces; where the phase holds its
// sites, plus the constraint forces that give each held site the motion's acceleration at t
// corrected by 2 w (v_motion - v) + w^2 (x_motion - x), w = 20 /s (a critically damped return
// of the integrator's drift; the motion's own slip is the slip check's), found by test forces
// (salto_resim_set_method: Kokkevis 4.2 or 4.3, one test force per direction) and a pivoted
// Cholesky factorisation of the constraint matrix (redundant directions, such as three sites
// on one foot, are dropped). For a motion whose contact wrenches explain its inverse dynamics
// the constraint forces are zero and qdd is the motion's. SALTO_ERR_NUMERIC when the
// algorithm fails or a result is not finite.
salto_status salto_resim_accel(salto_resim* r, double t, const double* q, const double* qd,
                               double* qdd, salto_error* err);

// Advances (q, qd) from time t0 to t1 in equal steps no longer than h by integrator.
salto_status salto_resim_advance(salto_resim* r, salto_integrator integrator, double t0,
                                 double t1, double h, double* q, double* qd, salto_error* err);
void salto_validation_free(salto_validation* v); // accepts an empty one

// The judged check that fails worst: the largest violation over its threshold (infinite over a
// zero threshold), that ratio into *ratio (may be NULL); NULL when every judged check passes.
const salto_check* salto_validation_worst(const salto_validation* v, double* ratio);

// The verdict in words: "FAILED", or "the motion is physical within the thresholds", or for a
// problem that asks for no physics "the motion keeps its kinematic constraints within the
// thresholds" (salto validate's summary line, salto solve's last)
const char* salto_validation_verdict(const salto_problem_desc* p, const salto_validation* v);

// validation.json: the motion's and problem's paths, the options, every check and every
// series (t, phase, f0, the violations). Written atomically.
salto_status salto_validation_write_json(const salto_problem_desc* p, const salto_validation* v,
                                         const char* motion_path, const char* path,
                                         salto_error* err);

// residuals.png: each check that applies, its violation against time (log scale) with its
// threshold, the phases marked. Written atomically (cairo).
salto_status salto_validation_write_png(const salto_problem_desc* p, const salto_validation* v,
                                        const char* path, salto_error* err);

#endif
