// dynamics.h: inverse dynamics (RNEA), joint-space inertia (CRBA), forward dynamics (ABA)
#ifndef SALTO_DYNAMICS_H
#define SALTO_DYNAMICS_H

#include "salto/data.h"

// Inverse dynamics by the recursive Newton-Euler algorithm in world coordinates (RBDA
// Table 5.1), gravity as a base acceleration -g. Reads d->q, d->qd, d->qdd; writes tau (nv,
// may be NULL), the kinematics (salto_fk at SALTO_FK_ACC), d->F (the net force of each
// link's subtree, i.e. the joint force) and d->f0, the root wrench: the wrench the world must
// apply, beyond gravity, to produce the motion, about the world origin (for a free or planar
// root this is Fang & Pollard's aggregate force; for a fixed root, the base reaction).
// Massive links use the Newton-Euler equations at their centre of mass, so no world-frame
// inertia is formed. Allocates nothing.
void salto_rnea(const salto_model* m, salto_data* d, double* tau);

// The same with external forces fext (nv x 6: world-frame spatial forces about the origin on
// each link, as salto_aba takes them): tau is what the joints must add to them, d->f0 what the
// world must add beyond gravity and them. salto_aba with these tau and fext gives back qdd.
void salto_rnea_ext(const salto_model* m, salto_data* d, const double* fext, double* tau);

// Joint-space inertia matrix M (nv x nv, row-major, symmetric) by the composite-rigid-body
// algorithm (RBDA Table 6.2, world form: M_ij = S_i . Ic_j S_j for i on j's path to the root).
// Reads d->q; writes d->R, d->p, d->S, d->I, d->Ic and, on a model with a run of 16 or more
// consecutive links (link i's parent i - 1), d->work (the first 7 nv doubles, scratch). Both
// triangles, each entry computed once. Allocates nothing.
void salto_crba(const salto_model* m, salto_data* d, double* M);

// The same matrix's lower triangle only, for callers that need one (a Cholesky factorisation
// that reads only it): M[j nv + i] for i <= j (the diagonal included; zero where
// i is not on j's path to the root), bit for bit salto_crba's entries; the strictly upper
// triangle is not written. Each entry is computed and written once, row by row (on a 200-link
// chain 0.8 of salto_crba's time; docs/performance.md, "CRBA on long chains"). Reads and
// writes what salto_crba does.
void salto_crba_lower(const salto_model* m, salto_data* d, double* M);

// Forward dynamics by the articulated-body algorithm (RBDA Table 7.1, world form). Reads
// d->q, d->qd, d->tau and optional external forces fext (nv x 6: world-frame spatial forces
// about the origin acting on each link's body, or NULL); writes d->qdd. Returns SALTO_OK, or
// SALTO_ERR_NUMERIC if an articulated inertia is singular (a massless leaf) or a result is
// not finite.
salto_status salto_aba(const salto_model* m, salto_data* d, const double* fext);

// Hybrid dynamics (RBDA section 9.2): the joints marked in given (nv) move as d->qdd says
// (prescribed motion), the others under d->tau. Writes the free joints' accelerations into
// d->qdd and the given joints' torques (what they must exert for that motion) into d->tau; a
// given floating root is a base that follows its motion. All given: inverse dynamics; none:
// salto_aba. fext as salto_aba's. Returns SALTO_ERR_NUMERIC as salto_aba does (a free joint's
// articulated inertia singular, or a result not finite). Does not leave d->U or d->Dinv of
// the given joints meaningful: salto_aba_delta does not follow it.
salto_status salto_aba_hybrid(const salto_model* m, salto_data* d, const double* fext,
                              const unsigned char* given);

// The articulated-body delta method (Kokkevis 4.3): the change of the accelerations dqdd (nv)
// that a spatial force f (world frame, about the origin) added on link `link` causes, after
// salto_aba at the same state (which it reads: U, D, the joint axes; nothing is changed). The
// change is linear in f and does not depend on the forces already applied, so that one full
// pass and one delta per test force give the constraint matrix of Kokkevis's section 4.2. An
// inbound pass up the link's path and an outbound pass over the tree: O(n), about a third of
// a full pass. f NULL: a unit generalised force (joint torque) on DOF `link` instead. dA (nv x
// 6) receives the links' spatial acceleration changes.
void salto_aba_delta(const salto_model* m, const salto_data* d, int link, const double f[6],
                     double* dqdd, double* dA);

// The spatial force about the world origin of a linear force f applied at world point x:
// [x × f; f].
void salto_point_force(double w[6], const double x[3], const double f[3]);

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

// An impulse shared among nb contact links (1 <= nb <= 8): link[1..nb-1] take the given
// impulses xi (nb - 1 world-frame spatial impulses about the origin, 6 each), link[0] the
// rest of the aggregate iota. res as salto_impulse's: the generalized impulse M(q) u that the
// shared impulses do not explain, zero at the root's DOFs; linear in (u, xi) together. nb = 1
// is salto_impulse. Overwrites d->qd, d->qdd, d->tau.
void salto_impulse_shared(const salto_model* m, salto_data* d, int nb, const int* link,
                          const double* xi, const double* u, double* res, double iota[6]);

// The exact gradient of L = lam . res(q, u, xi) + mu . iota(q, u) (salto_impulse_shared's res
// and iota at d->q; lam over all nv DOFs, whose root entries multiply rows that are zero by
// construction; mu a fixed weight on the aggregate impulse) with respect to q (gq, nv), u (gu,
// nv) and the shared impulses xi (gxi, 6 (nb - 1); NULL: not wanted), in O(nv): with Lambda_i
// and U_i the velocities link i would have at joint rates lam and u, and sub(k) moving
// rigidly with S_k, lam . M(q) u = sum_i Lambda_i . I_i U_i and iota = sum_i I_i U_i
// (docs/aggregate-jacobian.md, "The impact's gradient"). Overwrites d->qd, d->V, d->I and
// d->work.
void salto_impulse_grad(const salto_model* m, salto_data* d, int nb, const int* link,
                        const double* xi, const double* u, const double* lam, const double mu[6],
                        double* gq, double* gu, double* gxi);

#endif
