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
    SALTO_CHECK_COUNT
} salto_check_kind;

// "flight_force", "flight_torque", "ballistic", "spin", "bar_torque", "normal_force", "friction", "cop", "twist",
// "slip", "penetration", "joint_limits"; and back (-1 for an unknown name)
const char* salto_check_name(salto_check_kind k);
int salto_check_parse(const char* name);
// "N", "N m", "N m s", "m", "rad/m"
const char* salto_check_unit(salto_check_kind k);

typedef struct salto_validate_opts {
    int density;                        // samples per slice interval (default 10)
    double threshold[SALTO_CHECK_COUNT]; // largest violation that passes; < 0: the default
} salto_validate_opts;

// density 10 and default thresholds (every threshold -1)
void salto_validate_opts_default(salto_validate_opts* o);
// The default threshold of a check for a model (docs/validation.md): forces 2% of the
// character's weight W, torques 2% of W times 1 m, the ballistic path 1 cm, angular momentum
// 0.2% of W times 1 m s, slip 1 mm, penetration 5 mm, joint limits 1e-6 (rad or m)
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
    int pass;            // every check passed
} salto_validation;

// Validates the motion x (the NLP's variables: control points and contact places) of nlp's
// problem: every phase sampled at opts->density samples per slice interval (both ends, each
// just inside its phase so that each side's acceleration is used), the state from
// salto_nlp_state (the effective root's translation where it applies). Fills v (release with
// salto_validation_free). SALTO_ERR_NOMEM, or SALTO_ERR_NUMERIC if a state or force is not
// finite, with err filled.
salto_status salto_validate(salto_nlp* nlp, const double* x, const salto_validate_opts* opts,
                            salto_validation* v, salto_error* err);
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
