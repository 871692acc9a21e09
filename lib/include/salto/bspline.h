// bspline.h: clamped uniform cubic B-splines, one per degree of freedom (Fang & Pollard 2003, 3)
//
// A spline with ncp >= 4 control points c_0 .. c_{ncp-1} over [0, T] has the knots
// 0, 0, 0, 0, h, 2h, ..., T - h, T, T, T, T with h = T / (ncp - 3): ncp - 3 polynomial
// segments, q(0) = c_0 and q(T) = c_{ncp-1}. At any time exactly four basis functions are
// non-zero, N_first .. N_first+3, so q, qd and qdd at a time depend on four control points and
// every Jacobian with respect to the control points has a pattern known in advance.
#ifndef SALTO_BSPLINE_H
#define SALTO_BSPLINE_H

#include "salto/base.h"

typedef struct salto_bspline {
    int ncp;         // control points (>= 4)
    int nseg;        // polynomial segments, ncp - 3
    double duration; // T, s (> 0)
    double h;        // segment length T / nseg, s
} salto_bspline;

// Sets up a spline; SALTO_ERR_INVALID if ncp < 4 or duration is not positive and finite.
salto_status salto_bspline_init(salto_bspline* s, int ncp, double duration);

// The basis at time t (clamped to [0, T]; t = T belongs to the last segment): returns first,
// the index of the first of the four non-zero basis functions, and fills their values N,
// first time derivatives dN and second time derivatives ddN (any of the three may be NULL).
int salto_bspline_basis(const salto_bspline* s, double t, double N[4], double dN[4],
                        double ddN[4]);

// q, qd, qdd (each may be NULL) of the spline with control points c (ncp) at time t.
void salto_bspline_eval(const salto_bspline* s, const double* c, double t, double* q,
                        double* qd, double* qdd);

// Exact Gram matrices, banded: G[7 a + 3 + (b - a)] = integral over [0, T] of
// N_a^(k)(t) N_b^(k)(t) dt for |b - a| <= 3 (entries outside [0, ncp) are zero), k = 0 (values)
// or k = 2 (second derivatives). G has 7 ncp entries.
void salto_bspline_gram(const salto_bspline* s, int k, double* G);

// The Greville abscissa of control point a (the mean of its three interior knots): sampling a
// smooth function there gives control points whose spline approximates it to O(h^2).
double salto_bspline_greville(const salto_bspline* s, int a);

#endif
