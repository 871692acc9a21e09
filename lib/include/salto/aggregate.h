// aggregate.h: aggregate momentum p0 and force f0 and their linear-time Jacobians
//
// The aggregate force f0 is the one spatial force, about the world origin, that stands for all
// external forces on the character but gravity (Fang & Pollard 2003, section 4): f0 = 0 in
// flight, bounded about the bar axis on a bar, inside the friction cone on the ground. Its
// Jacobian with respect to (q, qd, qdd) drives every physics constraint of the optimiser.
#ifndef SALTO_AGGREGATE_H
#define SALTO_AGGREGATE_H

#include "salto/data.h"

// Aggregate momentum and force by the leaf-to-base rewritten recursion (Fang & Pollard 2003,
// eqs. 13-18 and Appendix B; derived afresh in world coordinates, see aggregate.c). Reads
// d->q, d->qd, d->qdd; writes d->p0, d->f0 (and the kinematics up to positions). f0 equals
// the root wrench of salto_rnea.
void salto_aggregate(const salto_model* m, salto_data* d);

typedef enum salto_jac_method {
    SALTO_JAC_LINEAR = 0,  // analytical, O(D): subtree sums accumulated leaf to base
    SALTO_JAC_DIRECT,      // analytical, O(D^2): forward-mode differentiation of body-frame RNEA
    SALTO_JAC_FD_FORWARD,  // forward differences (Fang & Pollard's NR1)
    SALTO_JAC_FD_CENTRAL,  // central differences (NR2)
    SALTO_JAC_RICHARDSON,  // Richardson extrapolation of central differences, order 6 (NR3)
    SALTO_JAC_COUNT
} salto_jac_method;

// "linear", "direct", "fd-forward", "fd-central", "richardson"; -1 for an unknown name.
int salto_jac_method_parse(const char* name);
const char* salto_jac_method_name(salto_jac_method method);

// f0 and its Jacobian J = d f0 / d(q, qd, qdd): 6 x 3nv row-major, columns q (0..nv-1), qd
// (nv..2nv-1), qdd (2nv..3nv-1). Reads d->q, d->qd, d->qdd; writes d->f0 and f0 (6, may be
// NULL). Jp (6 x 2nv, columns q then qd, may be NULL; linear method only) receives the
// Jacobian of p0 = d->p0. Allocates nothing.
void salto_f0_jac(const salto_model* m, salto_data* d, salto_jac_method method, double* f0,
                  double* J, double* Jp);

// The Hessian of mu . f0 for a fixed weight mu (6) with respect to the state (q, qd, qdd): H
// is 3nv x 3nv row-major, full and symmetric, in O(nv depth): its q-q entries for l in sub(j)
// are four dot products of per-link vectors, those of qd and qdd with q two or three; f0 is
// linear in qdd, so the qdd-qdd and qd-qdd blocks are zero and qd-qd is M + M' with M the
// qdd-q block (docs/aggregate-jacobian.md, "The second derivatives"). Reads d->q, d->qd,
// d->qdd; work holds 72 nv doubles. Allocates nothing.
void salto_f0_hess(const salto_model* m, salto_data* d, const double mu[6], double* H,
                   double* work);

// The Hessian of mu . p0 (mu fixed, 6) with respect to (q, qd): 2nv x 2nv row-major, full and
// symmetric, in O(nv depth) (the qd-qd block is zero: p0 is linear in qd). Reads d->q, d->qd;
// work holds 30 nv doubles. Allocates nothing.
void salto_p0_hess(const salto_model* m, salto_data* d, const double mu[6], double* H,
                   double* work);

// The aggregate momentum p0 = sum_i I_i V_i (about the world origin, into d->p0) and, unless
// Jp is NULL, its Jacobian Jp (6 x 2nv, columns q then qd) by salto_f0_jac's linear method
// without the accelerations: reads d->q, d->qd, leaves the kinematics at the velocity level
// and the link inertias in d. O(D); allocates nothing.
void salto_p0_jac(const salto_model* m, salto_data* d, double* Jp);

// Joint forces (torques) at K chosen links and their Jacobians with respect to (q, qd, qdd),
// K x 3nv row-major, in O(K D) (after the same leaf-to-base pass as salto_f0_jac). tau (K)
// and J may be NULL.
void salto_joint_torques_jac(const salto_model* m, salto_data* d, int K, const int* links,
                             double* tau, double* J);

// The Hessian of sum_r lam_r tau_r for the joint torques of salto_joint_torques_jac at links
// (K), with respect to the state (q, qd, qdd): H is 3nv x 3nv row-major, full and symmetric,
// exact, in O(K D depth) (docs/aggregate-jacobian.md, "The torques' second derivatives"). Reads
// d->q, d->qd, d->qdd; work holds 72 nv + nv^2 doubles. Allocates nothing.
void salto_torques_hess(const salto_model* m, salto_data* d, int K, const int* links,
                        const double* lam, double* H, double* work);
// f0 moved to a world point x (Fang & Pollard eq. 2): [n - x × f; f]. In-place allowed.
void salto_wrench_at(double out[6], const double f0[6], const double x[3]);

// Moves a 6 x ncol Jacobian of f0 (values f0) to the fixed world point x, in place.
void salto_wrench_jac_at(double* J, int ncol, const double x[3]);

// Moves f0 and its 6 x 3nv Jacobian (from salto_f0_jac, with the kinematics in d) to a site:
// the point moves with q, which adds -(d x / d q_j) × f to the q columns. In place.
void salto_wrench_jac_at_site(const salto_model* m, const salto_data* d, int site,
                              double f[6], double* J);

// f0 by the world-frame RNEA of the current inputs (used by the finite-difference methods).
void salto_f0_rnea(const salto_model* m, salto_data* d, double f0[6]);

// Number of doubles of d->work each method needs (tests check the data's scratch suffices).
int salto_f0_jac_work(const salto_model* m, salto_jac_method method);

#endif
