// chain_priv.h: a body's joint chain (the sim layer's: the particle ragdoll, the reactions)
#ifndef SALTO_CHAIN_PRIV_H
#define SALTO_CHAIN_PRIV_H

#include "salto/model.h"

enum { SALTO_MAXCHAIN = 6 }; // links in a body's chain at most (a free root's six)

// the rotation vector (axis times angle) of R (row-major)
void salto_rot_log(double* v, const double* R);

// the links of body b's chain (first to last) into l; returns how many
int salto_chain_of(const salto_model* m, int b, int* l);

// the chain's last frame (R, p) from the parent's (Rp, pp) at q (indexed by link), and each
// link's world axis u and origin o, as salto_fk has them
void salto_chain_fk(const salto_model* m, const int* l, int n, const double* Rp,
                    const double* pp, const double* q, double* R, double* p, double (*u)[3],
                    double (*o)[3]);

// the frame's velocity per coordinate (6 x n, column k at J + 6 k: world angular velocity,
// then the velocity of its origin pc)
void salto_chain_jacobian(const salto_model* m, const int* l, int n, const double* pc,
                          const double (*u)[3], const double (*o)[3], double* J);

// body b's chain coordinates in q (its links' entries, from their values there) that put its
// last frame at (R, p) from the parent's (Rp, pp): damped Gauss-Newton on the rotation's error
// (and the position's, when the chain has a prismatic link), starting where q is. Returns the
// error left (rad, m); the least-squares answer when the chain cannot reach (R, p).
double salto_chain_ik(const salto_model* m, int b, const double* Rp, const double* pp,
                      const double* R, const double* p, double* q);

#endif
