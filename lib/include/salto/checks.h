// checks.h: what a motion is checked for (salto validate), named, with units and thresholds
//
// The kinds of physical and kinematic checks, the re-simulation's integrators and the options a
// validation runs with. The problem loader reads a problem's `validation` key in these terms
// (problem.h, salto_validation_desc); the validator (validate.h) evaluates them; refinement
// (solver.h) adds slices where the ones the NLP enforces fail.
#ifndef SALTO_CHECKS_H
#define SALTO_CHECKS_H

#include "salto/model.h"

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
    SALTO_CHECK_BOUNDS,           // a site or the centre of mass on the wrong side of a
                                  //   site_above or com_above plane held through the phase, m
    SALTO_CHECK_TORQUE,           // a joint torque tau + slope x qd outside the character's
                                  //   torque_limits (the contact wrenches of minimum norm, as
                                  //   the validator's torques), N m or N
    SALTO_CHECK_BAR_CLEARANCE,    // how far a body's capsule (sphere, box corner) reaches into a
                                  //   clear_bar bar (the radii's sum less the distance of its
                                  //   axis from the bar's), the gripping links excepted, m
    SALTO_CHECK_BOX_CLEARANCE,    // how far a body's capsule (sphere, box corner) reaches into one
                                  //   of the problem's boxes (its radius less its axis's signed
                                  //   distance from the box), a body the phase holds on that
                                  //   box excepted, m
    SALTO_CHECK_COUNT
} salto_check_kind;

// "flight_force", "flight_torque", "ballistic", "spin", "bar_torque", "normal_force",
// "friction", "cop", "twist", "slip", "penetration", "joint_limits", "impact", "drift_root",
// "drift_rotation", "drift_joints", "drift_com", "bounds", "torque", "bar_clearance",
// "box_clearance"; and back (-1 for an unknown name)
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
    double max_steps;                   // the re-simulation's steps over the motion at most
                                        //   (default SALTO_VALIDATE_MAX_STEPS): a step that
                                        //   needs more is refused before any work
} salto_validate_opts;

// The re-simulation's steps over a motion at most unless asked (about 1e8 steps of four
// articulated-body passes: minutes on the humanoid; a step of 1e-12 s would be days)
#define SALTO_VALIDATE_MAX_STEPS 1e8

// density 10, default thresholds (every threshold -1), RK4 at the sample spacing
void salto_validate_opts_default(salto_validate_opts* o);
// The default threshold of a check for a model (docs/validation.md): forces 2% of the
// character's weight W, torques 2% of W times 1 m, the ballistic path 1 cm, angular momentum
// 0.2% of W times 1 m s, slip 1 mm, penetration 5 mm, joint limits 1e-6 (rad or m), the
// re-simulation's drift 2 cm (root, centre of mass) and 0.035 rad (2 degrees: root
// orientation, joints' RMS)
double salto_check_default_threshold(const salto_model* m, salto_check_kind k);

// 1 for the checks that judge physics (forces, momentum, the contacts' force limits, impacts,
// the re-simulation's drift), 0 for the kinematic ones (slip, penetration, joint limits)
int salto_check_is_physics(salto_check_kind k);

#endif
