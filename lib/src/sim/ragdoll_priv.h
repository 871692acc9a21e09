// ragdoll_priv.h: the particle ragdoll's joint chains, for the tests
#ifndef SALTO_RAGDOLL_PRIV_H
#define SALTO_RAGDOLL_PRIV_H

#include "salto/model.h"

// Body b's joint chain from its parent's frame (Rp, pp) at q (indexed by link): its last frame
// (R, p) and, when J is not NULL, the frame's velocity per coordinate (6 x n, column k at
// J + 6 k: world angular velocity, then the velocity of p). Returns the chain's links n.
int salto_ragdoll_chain(const salto_model* m, int b, const double* Rp, const double* pp,
                        const double* q, double* R, double* p, double* J);

#endif
