// react.h: simulated reactions blended into a motion (de Heras 2002, "parametric dynamics")
//
// A reaction (salto_reaction_desc, problem.h) is a force or an impulse on a body. From its time,
// the bodies it simulates move under it by hybrid dynamics (salto_aba_hybrid): their joints
// free, every other joint (the root, the reaction's base, included) moving as the motion does.
// The free joints start in the motion's state; their torques are those that would give them
// the motion's accelerations less a pull back toward it, qdd_m - stiffness e - damping e' (e a
// joint's deviation from the motion), at their simulated state: computed-torque control, which
// cancels gravity, the base's motion and the velocity terms, so that each joint's deviation
// obeys e'' = -stiffness e - damping e' plus what the force does through the simulated bodies'
// inertia. With no force the simulation is the motion; after one, every joint returns to it
// alike, whatever its pose and load. The deviation is what is integrated (semi-implicit Euler
// with the pull back implicit, so stable at any stiffness and damping; steps of at most dt ending
// on the frames and on the push's end), against the motion's exact state; a joint that reaches a
// limit the motion keeps is stopped there.
//
// The output pose is the motion's with each simulated body's rotation relative to its parent
// replaced by the spherical blend (short arc) of the motion's and the simulation's, at the
// body's weight: the reaction's weight (0 before its time, up to 1 over blend_in on the
// (1 - cos)/2 ramp, 1 until time + duration, down to 0 over blend_out) times the body's
// importance. Several reactions add up (de Heras's bone-pose addition): each one's turn of a
// body away from the motion, taken at its weight, is put after the pose so far
// (salto_pose_add). The result is read back on the body's own DOFs (its chain's coordinates, by
// Gauss-Newton from the linear blend of the DOFs). A body of weight 0, the root among them,
// keeps the motion's DOFs bit for bit, and outside every reaction the output is the motion.
#ifndef SALTO_REACT_H
#define SALTO_REACT_H

#include "salto/motion.h"
#include "salto/problem.h"

typedef struct salto_react salto_react;

// What one reaction did (salto_react_info).
typedef struct salto_react_stats {
    double peak;          // the largest deviation of a simulated joint from the motion, rad or m
    double peak_time;     //   and when, s
    int peak_dof;         //   and which DOF (-1 when none)
    long steps;           // simulation steps taken
    long limit_stops;     // steps at which a joint was stopped at a limit
    double end;           // s, when its blend-out ends (time + duration + blend_out)
} salto_react_stats;

// A player of the n reactions r (borrowed; they must outlive it) on the motion state(ctx, t,
// q, qd, qdd) of model m (p's model) lasting T s, in steps of at most dt. NULL with err filled
// (SALTO_ERR_INVALID: dt not positive; SALTO_ERR_NOMEM).
salto_react* salto_react_create(const salto_model* m, const salto_reaction_desc* r, int n,
                                salto_state_fn state, void* ctx, double T, double dt,
                                salto_error* err);
void salto_react_destroy(salto_react* a); // accepts NULL

// The blended pose at time t into q (nv) and the blend weight of each reaction at t into w (n,
// may be NULL). Times must not decrease from one call to the next (each reaction's simulation
// runs forward to t). The motion is read at t clamped to [0, T].
// SALTO_ERR_NUMERIC with err filled when a simulation's state is not finite or its dynamics
// fail (the reaction, the time and the DOF named).
salto_status salto_react_pose(salto_react* a, double t, double* q, double* w, salto_error* err);

// Reaction k's statistics so far.
const salto_react_stats* salto_react_info(const salto_react* a, int k);

// The weight of reaction r at t: 0 before r->time, (1 - cos(pi u / blend_in)) / 2 at u = t -
// r->time < blend_in, 1 until u = duration, (1 + cos(pi v)) / 2 at v = (u - duration) /
// blend_out, 0 after.
double salto_reaction_weight(const salto_reaction_desc* r, double t);

// The pose a blended toward b (both nv, on m) at each body's weight w (nbody): out (nv, may be
// a) has a's DOFs for bodies of weight 0, and for the others the chain coordinates whose local
// rotation (to the parent body) is the spherical blend of a's and b's, and whose local
// translation their linear blend. Returns the largest Gauss-Newton residual left (rad; 0 when
// every body's chain reaches its blend, as hinges and three-axis joints do).
double salto_pose_blend(const salto_model* m, const double* a, const double* b, const double* w,
                        double* out);

// The pose c with each body's turn from pose a to pose b (all nv, on m), taken at the body's
// weight w (nbody) from the identity along the short arc, put after c's rotation relative to the
// parent (Rc slerp(1, Ra' Rb, w)), its translation c's plus w (b - a): out (nv, may be c).
// Bodies of weight 0 keep c's DOFs bit for bit; with c = a it is salto_pose_blend. Returns the
// largest Gauss-Newton residual left, as salto_pose_blend's.
double salto_pose_add(const salto_model* m, const double* c, const double* a, const double* b,
                      const double* w, double* out);

#endif
