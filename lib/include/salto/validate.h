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

#include "salto/data.h"
#include "salto/nlp.h"

typedef enum salto_check_kind {
    SALTO_CHECK_FLIGHT_FORCE = 0, // flight: |force| of f0, N
    SALTO_CHECK_FLIGHT_TORQUE,    // flight: |torque of f0 about the centre of mass|, N m
    SALTO_CHECK_BALLISTIC,        // flight: the centre of mass's distance from the parabola
                                  //   under gravity from its place and velocity at take-off, m
    SALTO_CHECK_SPIN,             // flight: change of the angular momentum about the centre of
                                  //   mass since take-off, N m s
    SALTO_CHECK_BAR_TORQUE,       // bar: |torque about the bar axis| beyond torque_max, N m
    SALTO_CHECK_NORMAL_FORCE,     // ground: normal force below 0 or above force_max, N
    SALTO_CHECK_FRICTION,         // ground: tangential force beyond mu times the normal, N
    SALTO_CHECK_COP,              // ground: moment about the support centre beyond what the
                                  //   support rectangle allows (centre of pressure outside), N m
    SALTO_CHECK_TWIST,            // ground (3-D): twist beyond twist_max times the normal, N m
    SALTO_CHECK_SLIP,             // held contact sites: distance from their place at the
                                  //   phase's start, m
    SALTO_CHECK_PENETRATION,      // geometry below the plane of the problem's above_ground
                                  //   constraints (the highest), bodies held on the ground by
                                  //   the phase excepted, m
    SALTO_CHECK_JOINT_LIMITS,     // a DOF beyond its limits, rad or m
    SALTO_CHECK_IMPACT,           // at a phase's start (not the first's): the velocity's jump
                                  //   (zero for a C1 motion) unexplained by an impulse the
                                  //   phase's contact can give (salto_impulse): the largest
                                  //   impulsive joint torque, and on the ground the impulse
                                  //   out of its friction cone, pulling, or its centre of
                                  //   pressure outside the support; on a bar the impulsive
                                  //   torque about it; in flight any impulse at all, N m s
    SALTO_CHECK_DRIFT_ROOT,       // re-simulation: the root's distance from the motion's, m
    SALTO_CHECK_DRIFT_ROTATION,   // re-simulation: the angle between the root's orientation
                                  //   and the motion's, rad
    SALTO_CHECK_DRIFT_JOINTS,     // re-simulation: RMS over the joints (DOFs past the root's)
                                  //   of the difference from the motion, rad or m
    SALTO_CHECK_DRIFT_COM,        // re-simulation: the centre of mass's distance from the
                                  //   motion's, m
    SALTO_CHECK_COUNT
} salto_check_kind;

// "flight_force", "flight_torque", "ballistic", "spin", "bar_torque", "normal_force",
// "friction", "cop", "twist", "slip", "penetration", "joint_limits", "impact", "drift_root",
// "drift_rotation", "drift_joints", "drift_com"; and back (-1 for an unknown name)
const char* salto_check_name(salto_check_kind k);
int salto_check_parse(const char* name);
// "N", "N m", "N m s", "m", "rad", "rad/m"
const char* salto_check_unit(salto_check_kind k);

// How the re-simulation integrates the articulated-body algorithm's accelerations.
typedef enum salto_integrator {
    SALTO_INTEGRATOR_NONE = 0,   // no re-simulation (the drift checks are skipped)
    SALTO_INTEGRATOR_EULER,      // semi-implicit (symplectic) Euler: qd += h qdd, q += h qd;
                                 //   first order
    SALTO_INTEGRATOR_RK4,        // classical Runge-Kutta, fourth order
    SALTO_INTEGRATOR_COUNT
} salto_integrator;

// "none", "euler", "rk4"; and back (-1 for an unknown name)
const char* salto_integrator_name(salto_integrator i);
int salto_integrator_parse(const char* name);

typedef struct salto_validate_opts {
    int density;                        // samples per slice interval (default 10)
    double threshold[SALTO_CHECK_COUNT]; // largest violation that passes; < 0: the default
    salto_integrator integrator;        // re-simulation (default RK4)
    double step;                        // its largest step, s; <= 0 (default): the sample
                                        //   spacing (each interval between samples is cut
                                        //   into equal steps no longer than this)
} salto_validate_opts;

// density 10, default thresholds (every threshold -1), RK4 at the sample spacing
void salto_validate_opts_default(salto_validate_opts* o);
// the defaults with what the problem file's `validation` key gives
void salto_validate_opts_from_problem(salto_validate_opts* o, const salto_problem_desc* p);
// The default threshold of a check for a model (docs/validation.md): forces 2% of the
// character's weight W, torques 2% of W times 1 m, the ballistic path 1 cm, angular momentum
// 0.2% of W times 1 m s, slip 1 mm, penetration 5 mm, joint limits 1e-6 (rad or m), the
// re-simulation's drift 2 cm (root, centre of mass) and 0.035 rad (2 degrees: root
// orientation, joints' RMS)
double salto_check_default_threshold(const salto_model* m, salto_check_kind k);

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

// 1 for the checks that judge physics (forces, momentum, the contacts' force limits, impacts,
// the re-simulation's drift), 0 for the kinematic ones (slip, penetration, joint limits)
int salto_check_is_physics(salto_check_kind k);

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
    salto_integrator integrator; // the re-simulation's (NONE: none was run)
    double step;         // its largest step, s
    double* resim_stop;  // per phase: NAN when the re-simulation ran through it, else the
                         //   sample time from which its state was not finite or the
                         //   articulated-body algorithm failed (the drift is infinite there)
    int njudged;         // the checks judged (those of check[] with judged set)
    int npassed;         //   and of those, how many passed
    int pass;            // every judged check passed (npassed == njudged)
} salto_validation;

// A motion to validate, by its state at any time t inside the problem's span: q, qd, qdd
// (each nv). Called with t in increasing order within each phase, each phase's times just
// inside it, so that a motion with a jump in acceleration at a phase boundary gives each
// side's.
typedef void (*salto_state_fn)(void* ctx, double t, double* q, double* qd, double* qdd);

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

// The same for any motion on p's character and phases, given by its state (a motion read
// from a file, a test's reference). Re-simulation: from the motion's state at the start of
// each phase, the articulated-body algorithm integrated with the joint torques and contact
// wrenches of the motion's inverse dynamics (the root unactuated), each phase's held sites
// kept in place by acceleration constraints (salto_resim_accel), and the state compared with
// the motion's at every sample (the drift checks).
salto_status salto_validate_motion(const salto_problem_desc* p, salto_state_fn state, void* ctx,
                                   const salto_validate_opts* opts, salto_validation* v,
                                   salto_error* err);

// Where refinement (salto_solve_refined) would add slices to p: for each check the NLP
// enforces at its slices, each run of consecutive samples of v in one phase violated by more
// than fraction x the check's threshold (opts, or the default) gets one slice at its worst
// sample, listed into t, ph and ratio (its violation over the threshold; any may be NULL; room
// for the count, which a first call with NULLs gives through *n). Returns the largest ratio.
double salto_refine_scan(const salto_problem_desc* p, const salto_validation* v,
                         const salto_validate_opts* o, double fraction, int* n, double* t,
                         int* ph, double* ratio);

// torques.png: each joint's torque (v->tau) against time, a panel per joint past the root,
// scaled to its peak, the phases marked. Written atomically (cairo).
salto_status salto_validation_write_torques_png(const salto_nlp* nlp, const salto_validation* v,
                                                const char* path, salto_error* err);

// ---- contact wrenches, joint torques, re-simulation ----

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

// Joint torques with contact wrenches: tau_j = S_j . (F_j - sum of the wrenches on links in
// j's subtree), after salto_rnea (d->F). nw wrenches w (6 each, about the origin) on links.
void salto_contact_torques(const salto_model* m, const salto_data* d, int nw, const int* link,
                           const double* w, double* tau);

// An impulse: the velocity jump u (nv) at the configuration d->q, as an impulse iota on body
// (a world-frame spatial impulse about the origin, torque first) would make it with no
// impulsive joint torque. res (nv) receives the generalized impulse M(q) u that iota does not
// explain: zero at the root's DOFs (iota is what the root needs), at a joint the impulsive
// torque it would take; body < 0: no contact, the whole of M(q) u. Computed as the difference
// of two inverse dynamics at zero velocity (gravity cancels); overwrites d->qd, d->qdd, d->tau.
void salto_impulse(const salto_model* m, salto_data* d, int body, const double* u, double* res,
                   double iota[6]);

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

// validation.json: the motion's and problem's paths, the options, every check and every
// series (t, phase, f0, the violations). Written atomically.
salto_status salto_validation_write_json(const salto_nlp* nlp, const salto_validation* v,
                                         const char* motion_path, const char* path,
                                         salto_error* err);

// residuals.png: each check that applies, its violation against time (log scale) with its
// threshold, the phases marked. Written atomically (cairo).
salto_status salto_validation_write_png(const salto_nlp* nlp, const salto_validation* v,
                                        const char* path, salto_error* err);

#endif
