// bspline.h: clamped cubic B-splines, one per degree of freedom (Fang & Pollard 2003, 3)
//
// A spline with ncp >= 4 control points c_0 .. c_{ncp-1} over [0, T] has the knots
// 0, 0, 0, 0, U_4, ..., U_{ncp-1}, T, T, T, T: uniform (U_{3+i} = i h with h = T / (ncp - 3),
// salto_bspline_init), or any non-decreasing interior knots (salto_bspline_init_knots), where a
// knot of multiplicity 2 makes the spline C1 there: position and velocity stay continuous and
// the acceleration may jump, as it does when a contact is made or released; one of
// multiplicity 3 makes it C0 (the velocity may jump too, as in an impact: the spline passes
// through the one control point the two segments share). q(0) = c_0 and
// q(T) = c_{ncp-1}. At any time exactly four basis functions are non-zero,
// N_first .. N_first+3, so q, qd and qdd at a time depend on four control points and every
// Jacobian with respect to the control points has a pattern known in advance.
#ifndef SALTO_BSPLINE_H
#define SALTO_BSPLINE_H

#include "salto/base.h"

typedef struct salto_bspline {
    int ncp;         // control points (>= 4)
    int nseg;        // polynomial segments, ncp - 3
    double duration; // T, s (> 0)
    double h;        // uniform: segment length T / nseg, s; general knots: T / nseg
    double* U;       // general knots: the whole knot vector (ncp + 4), owned; NULL: uniform
} salto_bspline;

// Sets up a spline; SALTO_ERR_INVALID if ncp < 4 or duration is not positive and finite.
salto_status salto_bspline_init(salto_bspline* s, int ncp, double duration);

// Sets up a spline on the ncp - 4 given interior knots (non-decreasing, inside (0, T), each
// value at most three times). SALTO_ERR_INVALID on bad arguments, SALTO_ERR_NOMEM. Release with
// salto_bspline_release.
salto_status salto_bspline_init_knots(salto_bspline* s, int ncp, double duration,
                                      const double* interior);
void salto_bspline_release(salto_bspline* s); // frees the knots, if any; accepts NULL

// Knot j (0 .. ncp + 3) of the spline, s.
double salto_bspline_knot(const salto_bspline* s, int j);

// The basis at time t (clamped to [0, T]; t = T belongs to the last segment): returns first,
// the index of the first of the four non-zero basis functions, and fills their values N,
// first time derivatives dN and second time derivatives ddN (any of the three may be NULL).
int salto_bspline_basis(const salto_bspline* s, double t, double N[4], double dN[4],
                        double ddN[4]);

// The same, with a side: at a knot t, side < 0 takes the segment that ends there (the limit
// from the left, which differs where the knot is double and the acceleration jumps), side >= 0
// the segment that starts there (as salto_bspline_basis). Away from knots the side is moot.
int salto_bspline_basis_side(const salto_bspline* s, double t, int side, double N[4],
                             double dN[4], double ddN[4]);

// q, qd, qdd (each may be NULL) of the spline with control points c (ncp) at time t.
void salto_bspline_eval(const salto_bspline* s, const double* c, double t, double* q,
                        double* qd, double* qdd);

// Exact Gram matrices, banded: G[7 a + 3 + (b - a)] = integral over [0, T] of
// N_a^(k)(t) N_b^(k)(t) dt for |b - a| <= 3 (entries outside [0, ncp) are zero), k = 0 (values)
// or k = 2 (second derivatives). G has 7 ncp entries.
void salto_bspline_gram(const salto_bspline* s, int k, double* G);

// The same over the knot spans inside [t0, t1] alone (ends at knots; the whole span gives
// salto_bspline_gram's): a phase's part of the integral.
void salto_bspline_gram_range(const salto_bspline* s, int k, double t0, double t1, double* G);

// The Greville abscissa of control point a (the mean of its three interior knots): sampling a
// smooth function there gives control points whose spline approximates it to O(h^2).
double salto_bspline_greville(const salto_bspline* s, int a);

#endif
