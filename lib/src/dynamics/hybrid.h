// hybrid.h: a hybrid body as a small model of its own (internal to the adaptive dynamics)
//
// With some joints held rigid, a character moves as its active joints joining rigid parts: the
// world with what is welded to it through rigid joints, and each active joint's child body
// with the bodies that hang from it through rigid joints. Those parts keep their shape while
// the set of active joints stays the same, so the hybrid body is a model of its own: one link
// per active DOF, each part's bodies lumped into one inertia on the link that carries it, the
// rigid joints' transforms folded into the tree transforms of the active links that leave a
// part. salto_aba on it costs O(N_A) a step, whatever the character's size (Redon et al. 2005,
// section 4.3: the multilevel forward dynamics touches the active region only; salto's
// world-frame form makes the part's external force the sum of its bodies').
#ifndef SALTO_HYBRID_H
#define SALTO_HYBRID_H

#include "salto/data.h"

typedef struct salto_hybrid salto_hybrid;

// Room for the hybrid bodies of m (release with salto_hybrid_destroy); NULL out of memory.
salto_hybrid* salto_hybrid_create(const salto_model* m);
void salto_hybrid_destroy(salto_hybrid* h); // accepts NULL

// Builds the hybrid body with the DOFs marked in active (nv; a joint chain's links all alike)
// at d's positions (d after salto_fk at SALTO_FK_POS). The rigid DOFs' positions must then stay
// as they are while the hybrid body is used. Returns its DOFs.
int salto_hybrid_build(salto_hybrid* h, const salto_data* d);
int salto_hybrid_set(salto_hybrid* h, const salto_data* d, const unsigned char* active);

// The active DOFs' accelerations into d->qdd (the others untouched) from d->q, d->qd, d->tau of
// the active DOFs and fext (nv x 6 as salto_aba's, or NULL): the character's accelerations with
// the rigid joints locked. Reads nothing else of d: O(N_A) without fext, O(N) with it.
salto_status salto_hybrid_forward(salto_hybrid* h, salto_data* d, const double* fext);

// One semi-implicit Euler step of h seconds of the active DOFs (d->qdd, d->qd, d->q).
salto_status salto_hybrid_step(salto_hybrid* h, salto_data* d, const double* fext, double dt);

// Stops the hybrid body's DOFs marked in stop (nv, the character's indexing) by impulses on
// them (K^R Q^R = -qd^R, K^R = (M^-1)_RR from the hybrid body's joint-space inertia, Redon et
// al. 5.4.2): their velocities become exactly zero, the other active DOFs' change (d->qd), the
// kinetic energy does not rise; its change into *dke (may be NULL). O(N_A^3), at d->q.
salto_status salto_hybrid_stop(salto_hybrid* h, salto_data* d, const unsigned char* stop, double* dke);


#endif
