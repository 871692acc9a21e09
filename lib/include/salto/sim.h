// sim.h: the stepping simulator (Kokkevis, "Practical physics for articulated characters")
//
// Forward dynamics by the articulated-body algorithm with joint torques and external forces;
// contacts of the character's geometry (spheres, capsules, boxes) with a ground plane, bars
// (cylinders) and boxes (obstacles and raised ground), and joints at their limits as unilateral constraints with Coulomb friction, solved each step
// by projected Gauss-Seidel on the constraint matrix that test forces build (Kokkevis 4.2, or
// the delta method of 4.3); impacts as velocity jumps by impulses with a restitution
// coefficient (section 5); the step of section 7 (integrate, update the constraints, halve
// the step and retry on penetration, resolve impacts). The same input gives bit-identical
// output on the same build (no randomness, a fixed order everywhere).
#ifndef SALTO_SIM_H
#define SALTO_SIM_H

#include "salto/data.h"
#include "salto/dca.h"      // salto_adaptive_opts
#include "salto/validate.h" // salto_constraint_method

enum { SALTO_SIM_MAX_BARS = 4, SALTO_SIM_MAX_HOLDS = 8, SALTO_SIM_MAX_BOXES = 8 }; // bars; holds, and
                                                  // grips, each; axis-aligned boxes

typedef struct salto_sim_opts {
    double dt;                  // step, s (default 1e-3)
    double ground_normal[3];    // the ground plane's unit normal (default 0 0 1)
    double ground_height;       // the plane: N . x = height, m (default 0)
    int ground;                 // 1 (default): the ground plane is there
    int nbar;                   // bars (horizontal or not: cylinders of infinite length) the
                                //   geometry collides with (default 0, at most 4)
    double bar_point[SALTO_SIM_MAX_BARS][3]; // a point on each bar's axis, world, m
    double bar_axis[SALTO_SIM_MAX_BARS][3];  // its direction
    double bar_radius;          // m (default 0.02)
    int nbox;                   // axis-aligned boxes the geometry collides with, standing on their
                                //   top or against their sides (default 0, at most 8; a planar
                                //   character's span every y)
    double box_lo[SALTO_SIM_MAX_BOXES][3]; // each box's corners, world, m, before its yaw
    double box_hi[SALTO_SIM_MAX_BOXES][3];
    double box_yaw[SALTO_SIM_MAX_BOXES];   // its turn about +z through its centre, rad
    double friction;            // Coulomb coefficient mu, ground and bars (default 0.8)
    double restitution;         // e: normal velocity after an impact = -e times before
                                //   (default 0.3; below bounce_speed, impacts are inelastic)
    double bounce_speed;        // m/s (default 0.05)
    int joint_limits;           // 1 (default): joints stop at their limits (inelastic)
    int max_iterations;         // projected Gauss-Seidel sweeps (default 100)
    double tolerance;           // PGS stops after a sweep that changed no row's velocity over
                                //   the step (K_aa |dL_a| dt; an impulse's, K_aa |dL_a|) by more
                                //   than this, m/s or rad/s: its residual (default 1e-7). Each
                                //   row's own correction when it is visited: where rows of very
                                //   different K_aa are coupled the final velocities can be off by
                                //   several times this (9x measured on the passive humanoid)
    double stiffness;           // w: penetration d and normal velocity v corrected by the
                                //   acceleration w^2 d - 2 w v (default 20 /s)
    double margin;              // contacts are kept while within this distance, m (default 1e-3)
    int max_halvings;           // step halvings on penetration (default 6)
    salto_constraint_method method; // how the constraint matrix is built (default delta)
    int reduced;                // 1 (default): with every joint tracked, the contact problem
                                //   on the root's DOFs alone (sim.c: the same solution,
                                //   without a test force per row); 0: always the full matrix
} salto_sim_opts;

void salto_sim_opts_default(salto_sim_opts* o);

typedef struct salto_sim_contact {
    int geom;                   // model geometry
    int link;                   // the link it moves with
    double point[3];            // the contact point, world (on the geometry's surface)
    double depth;               // penetration (> 0) or gap (< 0), m
    double force[3];            // the contact force at the point in the last step, N
} salto_sim_contact;

typedef struct salto_sim_stats {
    long steps;                 // steps taken (salto_sim_step calls)
    long substeps;              // integration steps, halvings included
    long halvings;              // steps halved on penetration
    long impacts;               // collisions: impacts with a point approaching faster than
                                //   bounce_speed (slower ones are resting contact)
    long limit_events;          // joints arriving at a limit (within 1e-4 rad of it)
    long pgs_sweeps;            // projected Gauss-Seidel sweeps in all
    long pgs_solves;            // projected Gauss-Seidel solves (impacts and accelerations)
    long pgs_capped;            //   of them, those stopped by max_iterations, the tolerance unmet
    long pgs_subspace;          // subspace solves: factorisations on the rows inside their
                                //   bounds, by the subspace steps and the exact solves (see
                                //   "Where Gauss-Seidel crawls" in docs/simulation.md)
    long step_sweeps;           // the last step's sweeps (all its solves, halvings included)
    double step_residual;       // the last step's largest final residual (opts tolerance), m/s
                                //   (rad/s on joint rows)
    double max_residual;        // the largest final residual of any solve, m/s or rad/s
    double max_depth;           // the deepest penetration seen at the end of a step, m
} salto_sim_stats;

typedef struct salto_sim salto_sim;

// A simulator of model m (which must outlive it), at q = 0, qd = 0, t = 0; NULL when out of
// memory. opts NULL: the defaults.
salto_sim* salto_sim_create(const salto_model* m, const salto_sim_opts* opts);
void salto_sim_destroy(salto_sim* s); // accepts NULL

void salto_sim_set_state(salto_sim* s, const double* q, const double* qd);
const double* salto_sim_q(const salto_sim* s);
const double* salto_sim_qd(const salto_sim* s);
double salto_sim_time(const salto_sim* s);
// the model data at the current state after salto_fk at the velocity level (read only)
const salto_data* salto_sim_data(const salto_sim* s);

// Joint torques (nv; the root's entries are forces the world does not supply: set them to
// zero), held until changed.
void salto_sim_set_torques(salto_sim* s, const double* tau);
// An external force f (world, N) at world point x on link, held until cleared.
void salto_sim_apply_force(salto_sim* s, int link, const double f[3], const double x[3]);
void salto_sim_clear_forces(salto_sim* s);

// Motion control (Kokkevis 8.3): from now on, every DOF past the root's follows the target
// (q, qd, qdd; nv each, copied) through an acceleration constraint on its joint,
// qdd = qdd_target + kp (q_target - q) + kd (qd_target - qd), solved with the contacts and
// limits; the joint torques that do it are the constraint's (salto_sim_tracking_torques).
// kp, kd: 1/s^2, 1/s (Kokkevis: kp = 1/ts^2, kd = sqrt(2)/ts reach 10% in ts). NULL q: no
// tracking (the joints limp, but for the torques set).
void salto_sim_track(salto_sim* s, const double* q, const double* qd, const double* qdd,
                     double kp, double kd);
// the tracking torques of the last step (nv; zero on the root's DOFs and without tracking);
// computed when asked for (an inverse-dynamics pass) after a reduced solve
const double* salto_sim_tracking_torques(salto_sim* s);

// Holds a site at a world point (a hand gripping a bar) by a bilateral constraint until
// released; returns 0 (and holds nothing) for a site that does not exist or is fixed to the
// world, a point that is not finite, or when SALTO_SIM_MAX_HOLDS are held already.
int salto_sim_hold(salto_sim* s, int site, const double point[3]);
// Grips link with a torque about the world axis of at most torque_max (N m), as a hand
// gripping a bar resists turning on it: while tracking (salto_sim_track), the torque makes the
// link turn about the axis as it would were the root, too, to follow the target (its q, qd,
// qdd and the same kp, kd), within the bound (infinity: none); without tracking it is zero.
// Returns 0 (and grips nothing) for a link that does not exist, an axis of zero or not finite
// length, a bound that is negative or NaN, or when SALTO_SIM_MAX_HOLDS grips are set already.
// salto_sim_grip_torque: grip k's torque in the last step (k in the order set), N m.
int salto_sim_grip(salto_sim* s, int link, const double axis[3], double torque_max);
double salto_sim_grip_torque(const salto_sim* s, int k);
// Releases every hold and grip; grip torques then read zero until grips are set and stepped.
void salto_sim_release_all(salto_sim* s);
// The geometry of link does not collide with the bars (a gripping hand wraps round the bar).
void salto_sim_ignore_bars(salto_sim* s, int link);

// Adaptive dynamics (Redon et al. 2005, dca.h) for passive motion: while no joint is tracked,
// the character steps as a hybrid body, the joints that matter active and the others locked:
// every o->period steps (0 or 1: every step) the active region is chosen again on the whole
// character (o->budget joints at most, and the thresholds accel_eps and vel_eps; the user's
// forces and the last step's contact forces among the external forces; the joints left out
// stopped by impulses that add no kinetic energy), and the steps between simulate the locked
// character (salto_model_locked) with the contacts, limits, impacts and holds as usual. The
// state, contacts and counts read as the character's. A step with tracking is a full one, and
// the region is chosen again after it, or after salto_sim_set_state. o NULL: off (the
// default). Returns 0, or -1 (nothing changed) for a budget below 1, a negative threshold or
// period, or out of memory.
int salto_sim_set_adaptive(salto_sim* s, const salto_adaptive_opts* o);
// The joints active in the last step (every moving body's joint when not adaptive).
int salto_sim_active_joints(const salto_sim* s);

// Advances by opts.dt. SALTO_ERR_NUMERIC when the state stops being finite or the
// articulated-body algorithm fails (the state is left at the last good step).
salto_status salto_sim_step(salto_sim* s, salto_error* err);

// The contacts of the last step (count; the array lives until the next step).
int salto_sim_contacts(const salto_sim* s, const salto_sim_contact** contacts);
const salto_sim_stats* salto_sim_get_stats(const salto_sim* s);

#endif
