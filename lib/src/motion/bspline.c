// bspline.c: clamped cubic B-splines, their basis, Gram matrices and Greville abscissae
//
// General knots (salto_bspline_init_knots) go through the Cox-de Boor recursion on the knots
// of the span that holds t, in seconds; the uniform spline takes the path below.
//
// The basis is evaluated in knot units u = t / h, where the knots are the integers
// 0, 0, 0, 0, 1, 2, ..., nseg, nseg, nseg, nseg: every knot difference is then a small integer
// and exact. A segment i in [2, nseg - 3] lies under six distinct knots, so its four basis
// functions are the translates of the uniform cubic and take the closed forms below; the at
// most four segments next to the clamped ends (all of them when nseg < 5) go through the
// Cox-de Boor recursion on the knots of their span (NURBS Book, eq. 2.5 and 2.9). Both paths
// use fixed-size stack arrays only: no allocation and no loop over the control points.
#include "salto/bspline.h"

#include "salto/motion.h"

#include <math.h>

salto_status salto_bspline_init(salto_bspline* s, int ncp, double duration) {
    SALTO_ASSERT(s);
    if (ncp < 4) return SALTO_ERR_INVALID;
    if (!(duration > 0) || !isfinite(duration)) return SALTO_ERR_INVALID; // NaN fails > 0
    s->ncp = ncp;
    s->nseg = ncp - 3;
    s->duration = duration;
    s->h = duration / s->nseg;
    s->U = NULL;
    return SALTO_OK;
}


salto_status salto_bspline_init_knots(salto_bspline* s, int ncp, double duration,
                                      const double* interior) {
    SALTO_ASSERT(s);
    s->U = NULL;
    if (ncp < 4) return SALTO_ERR_INVALID;
    if (!(duration > 0) || !isfinite(duration)) return SALTO_ERR_INVALID;
    for (int i = 0; i < ncp - 4; i++) {
        const double k = interior[i];
        if (!(k > 0 && k < duration)) return SALTO_ERR_INVALID; // NaN fails too
        if (i > 0 && k < interior[i - 1]) return SALTO_ERR_INVALID;
        if (i > 2 && k == interior[i - 3]) return SALTO_ERR_INVALID; // quadruple: not C0
    }
    double* U = salto_malloc((size_t)(ncp + 4) * sizeof(double));
    if (!U) return SALTO_ERR_NOMEM;
    for (int j = 0; j < 4; j++) U[j] = 0, U[ncp + j] = duration;
    for (int i = 0; i < ncp - 4; i++) U[4 + i] = interior[i];
    int nseg = 0;
    for (int j = 3; j < ncp; j++) nseg += U[j + 1] > U[j];
    s->ncp = ncp;
    s->nseg = nseg;
    s->duration = duration;
    s->h = duration / nseg;
    s->U = U;
    return SALTO_OK;
}


void salto_bspline_release(salto_bspline* s) {
    if (!s) return;
    salto_free(s->U);
    s->U = NULL;
}


// knot j of the clamped knot vector in units of h: max(0, min(j - 3, nseg))
static double knot(int j, int nseg) {
    const int k = j - 3;
    return (double)(k < 0 ? 0 : (k > nseg ? nseg : k));
}


// N_{k,p}' = p N_{k,p-1} / (U_{k+p} - U_k) - p N_{k+1,p-1} / (U_{k+p+1} - U_{k+1})
// (NURBS Book, eq. 2.9) for k = s - p + r on the span [U_s, U_{s+1}), where lower[r] holds
// N_{s-p+1+r,p-1} (or its derivative, for a second derivative) and U[m] = U_{s-3+m}; a term is
// dropped where its basis function vanishes on the span, which is also where its denominator
// could be zero
static double cox_de_boor_deriv(int p, int r, const double* lower, const double U[8]) {
    const int kl = 3 - p + r; // k relative to s - 3
    double v = 0;
    if (r > 0) v += p * lower[r - 1] / (U[kl + p] - U[kl]);
    if (r < p) v -= p * lower[r] / (U[kl + p + 1] - U[kl + 1]);
    return v;
}


// the basis on the span [U_s, U_{s+1}) of positive length by Cox-de Boor, with
// U[m] = U_{s-3+m}, m = 0..7, in any unit of time; every denominator below spans the span
// itself, so none is zero even where knots repeat
static void basis_span(const double U[8], double u, double N[4], double dN[4], double ddN[4]) {
    // B[p][r] = N_{s-p+r,p}(u), r = 0..p, k = s - p + r:
    // N_{k,p} = (u - U_k) / (U_{k+p} - U_k) N_{k,p-1}
    //         + (U_{k+p+1} - u) / (U_{k+p+1} - U_{k+1}) N_{k+1,p-1}
    double B[4][4];
    B[0][0] = 1;
    for (int p = 1; p <= 3; p++) {
        for (int r = 0; r <= p; r++) {
            const int kl = 3 - p + r;
            double v = 0;
            if (r > 0) v += (u - U[kl]) / (U[kl + p] - U[kl]) * B[p - 1][r - 1];
            if (r < p) v += (U[kl + p + 1] - u) / (U[kl + p + 1] - U[kl + 1]) * B[p - 1][r];
            B[p][r] = v;
        }
    }
    if (N) {
        for (int r = 0; r < 4; r++) N[r] = B[3][r];
    }

    // first derivatives of the cubics from the quadratics
    if (dN) {
        for (int r = 0; r < 4; r++) dN[r] = cox_de_boor_deriv(3, r, B[2], U);
    }

    // second derivatives: the rule applied to the derivatives of the quadratics
    if (ddN) {
        double dB2[3];
        for (int r = 0; r < 3; r++) dB2[r] = cox_de_boor_deriv(2, r, B[1], U);
        for (int r = 0; r < 4; r++) ddN[r] = cox_de_boor_deriv(3, r, dB2, U);
    }
}


// the four basis functions of segment i at local coordinate x = u - i in [0, 1], with
// derivatives in t (inv_h = 1 / h)
static void segment_basis(int nseg, double inv_h, int i, double x, double N[4], double dN[4],
                          double ddN[4]) {
    if (i < 2 || i > nseg - 3) {
        // near a clamped end: the span is [U_s, U_{s+1}) with s = i + 3, in knot units
        double U[8];
        for (int m = 0; m < 8; m++) U[m] = knot(i + m, nseg);
        basis_span(U, i + x, N, dN, ddN);
        if (dN) {
            for (int r = 0; r < 4; r++) dN[r] *= inv_h;
        }
        if (ddN) {
            const double inv_h2 = inv_h * inv_h;
            for (int r = 0; r < 4; r++) ddN[r] *= inv_h2;
        }
        return;
    }

    // uniform cubic B-spline on an interior segment:
    // N = ((1-x)^3, 3x^3 - 6x^2 + 4, -3x^3 + 3x^2 + 3x + 1, x^3) / 6
    const double y = 1 - x;
    const double x2 = x * x;
    if (N) {
        const double x3 = x2 * x;
        N[0] = y * y * y / 6;
        N[1] = (3 * x3 - 6 * x2 + 4) / 6;
        N[2] = (-3 * x3 + 3 * x2 + 3 * x + 1) / 6;
        N[3] = x3 / 6;
    }

    // dN/dx = (-(1-x)^2, 3x^2 - 4x, -3x^2 + 2x + 1, x^2) / 2
    if (dN) {
        const double c = 0.5 * inv_h;
        dN[0] = -y * y * c;
        dN[1] = (3 * x2 - 4 * x) * c;
        dN[2] = (-3 * x2 + 2 * x + 1) * c;
        dN[3] = x2 * c;
    }

    // d2N/dx2 = (1 - x, 3x - 2, 1 - 3x, x)
    if (ddN) {
        const double c = inv_h * inv_h;
        ddN[0] = y * c;
        ddN[1] = (3 * x - 2) * c;
        ddN[2] = (1 - 3 * x) * c;
        ddN[3] = x * c;
    }
}


double salto_bspline_knot(const salto_bspline* s, int j) {
    SALTO_ASSERT(s && j >= 0 && j < s->ncp + 4);
    if (s->U) return s->U[j];
    if (j >= s->ncp) return s->duration;
    return knot(j, s->nseg) * s->h;
}


// general knots: the span s (3 <= s < ncp, U_s < U_{s+1}) holding t, from the side asked for
static int find_span(const salto_bspline* s, double t, int side) {
    const double* U = s->U;
    int lo = 3, hi = s->ncp - 1;
    if (side >= 0) {
        // the largest s with U_s <= t (the last span is closed at T)
        while (lo < hi) {
            const int mid = (lo + hi + 1) / 2;
            if (U[mid] <= t) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
    } else {
        // the smallest s with t <= U_{s+1} (the first span is closed at 0)
        while (lo < hi) {
            const int mid = (lo + hi) / 2;
            if (t <= U[mid + 1]) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
    }
    return lo;
}


int salto_bspline_basis(const salto_bspline* s, double t, double N[4], double dN[4],
                        double ddN[4]) {
    return salto_bspline_basis_side(s, t, 1, N, dN, ddN);
}


int salto_bspline_basis_side(const salto_bspline* s, double t, int side, double N[4],
                             double dN[4], double ddN[4]) {
    SALTO_ASSERT(s && s->nseg >= 1);
    const int nseg = s->nseg;
    if (s->U) {
        if (!(t > 0)) {
            t = 0; // and NaN
        } else if (t > s->duration) {
            t = s->duration;
        }
        const int sp = find_span(s, t, side);
        basis_span(s->U + sp - 3, t, N, dN, ddN);
        return sp - 3;
    }

    // u = t / h clamped to [0, nseg] (a NaN t goes to 0); u = nseg is in the last segment
    double u = t / s->h;
    if (!(u > 0)) {
        u = 0;
    } else if (u > nseg) {
        u = nseg;
    }
    int i = (int)u;
    if (i > nseg - 1) i = nseg - 1;
    if (side < 0 && i > 0 && u == i) i--; // the segment that ends at the knot

    segment_basis(nseg, 1 / s->h, i, u - i, N, dN, ddN);
    return i;
}


void salto_bspline_eval(const salto_bspline* s, const double* c, double t, double* q,
                        double* qd, double* qdd) {
    double N[4], dN[4], ddN[4];
    const int first = salto_bspline_basis(s, t, q ? N : NULL, qd ? dN : NULL, qdd ? ddN : NULL);
    const double* cf = c + first;

    // q = sum_r c_{first+r} N_{first+r}(t), and likewise for the derivatives
    if (q) *q = cf[0] * N[0] + cf[1] * N[1] + cf[2] * N[2] + cf[3] * N[3];
    if (qd) *qd = cf[0] * dN[0] + cf[1] * dN[1] + cf[2] * dN[2] + cf[3] * dN[3];
    if (qdd) *qdd = cf[0] * ddN[0] + cf[1] * ddN[1] + cf[2] * ddN[2] + cf[3] * ddN[3];
}


// Each product N_a^(k) N_b^(k) is a polynomial of degree 6 - 2k on a segment, so the
// four-point Gauss-Legendre rule (exact to degree 7) on every segment gives the integral
// exactly up to rounding. Each term is added to (a, b) and (b, a) in the same order, so G is
// symmetric bit for bit. k = 1 works too, though the header promises only 0 and 2.
void salto_bspline_gram(const salto_bspline* s, int k, double* G) {
    SALTO_ASSERT(s && G && k >= 0 && k <= 2);
    // Gauss-Legendre nodes and weights on [-1, 1]
    static const double gx[4] = {-0.86113631159405257522, -0.33998104358485626480,
                                 0.33998104358485626480, 0.86113631159405257522};
    static const double gw[4] = {0.34785484513745385737, 0.65214515486254614263,
                                 0.65214515486254614263, 0.34785484513745385737};
    const int nseg = s->nseg;
    const double inv_h = 1 / s->h;

    for (int e = 0; e < 7 * s->ncp; e++) G[e] = 0;

    if (s->U) {
        // every span of positive length, the same rule on each
        for (int sp = 3; sp < s->ncp; sp++) {
            const double a = s->U[sp], b = s->U[sp + 1];
            if (!(b > a)) continue;
            for (int g = 0; g < 4; g++) {
                double B[4];
                const double t = a + (b - a) * (0.5 + 0.5 * gx[g]);
                basis_span(s->U + sp - 3, t, k == 0 ? B : NULL, k == 1 ? B : NULL,
                           k == 2 ? B : NULL);
                const double w = 0.5 * (b - a) * gw[g];
                const int i = sp - 3;
                for (int ra = 0; ra < 4; ra++) {
                    double* row = G + 7 * (i + ra) + 3 - ra;
                    for (int rb = 0; rb < 4; rb++) row[rb] += w * (B[ra] * B[rb]);
                }
            }
        }
        return;
    }

    // G[7 a + 3 + (b - a)] += w N_a^(k) N_b^(k) at the nodes of segment i, a, b = i .. i + 3
    for (int i = 0; i < nseg; i++) {
        for (int g = 0; g < 4; g++) {
            double B[4];
            const double x = 0.5 + 0.5 * gx[g];
            segment_basis(nseg, inv_h, i, x, k == 0 ? B : NULL, k == 1 ? B : NULL,
                          k == 2 ? B : NULL);
            const double w = 0.5 * s->h * gw[g];
            for (int ra = 0; ra < 4; ra++) {
                double* row = G + 7 * (i + ra) + 3 - ra;
                for (int rb = 0; rb < 4; rb++) row[rb] += w * (B[ra] * B[rb]);
            }
        }
    }
}


// Greville abscissa: (U_{a+1} + U_{a+2} + U_{a+3}) / 3; the last one is T exactly
double salto_bspline_greville(const salto_bspline* s, int a) {
    SALTO_ASSERT(s && a >= 0 && a < s->ncp);
    if (s->U) {
        if (a == s->ncp - 1) return s->duration;
        return (s->U[a + 1] + s->U[a + 2] + s->U[a + 3]) / 3.0;
    }
    const int nseg = s->nseg;
    const double sum = knot(a + 1, nseg) + knot(a + 2, nseg) + knot(a + 3, nseg);
    if (sum == 3.0 * nseg) return s->duration;
    return s->duration * sum / (3.0 * nseg);
}


salto_status salto_problem_spline(const salto_problem_desc* p, const int* counts,
                                  salto_bspline* s) {
    double* knots = salto_malloc((size_t)p->ncp * sizeof(double));
    if (!knots) return SALTO_ERR_NOMEM;
    const int nk = salto_problem_knots_from(p, counts ? counts : p->phase_knots, knots);
    const salto_status st = nk ? salto_bspline_init_knots(s, p->ncp, p->duration, knots)
                               : salto_bspline_init(s, p->ncp, p->duration);
    salto_free(knots);
    return st;
}


void salto_bspline_gram_range(const salto_bspline* s, int k, double t0, double t1, double* G) {
    SALTO_ASSERT(s && G && k >= 0 && k <= 2);
    if (t0 <= 0.0 && t1 >= s->duration) {
        salto_bspline_gram(s, k, G);
        return;
    }
    static const double gx[4] = {-0.86113631159405257522, -0.33998104358485626480,
                                 0.33998104358485626480, 0.86113631159405257522};
    static const double gw[4] = {0.34785484513745385737, 0.65214515486254614263,
                                 0.65214515486254614263, 0.34785484513745385737};
    for (int e = 0; e < 7 * s->ncp; e++) G[e] = 0;
    for (int sp = 3; sp < s->ncp; sp++) {
        const double a = salto_bspline_knot(s, sp), b = salto_bspline_knot(s, sp + 1);
        if (!(b > a) || a < t0 || b > t1) continue;
        for (int g = 0; g < 4; g++) {
            double N[4], dN[4], ddN[4];
            const double t = a + (b - a) * (0.5 + 0.5 * gx[g]);
            const int first = salto_bspline_basis(s, t, N, dN, ddN);
            SALTO_ASSERT(first == sp - 3);
            const double* B = k == 0 ? N : k == 1 ? dN : ddN;
            const double w = 0.5 * (b - a) * gw[g];
            for (int ra = 0; ra < 4; ra++) {
                double* row = G + 7 * (first + ra) + 3 - ra;
                for (int rb = 0; rb < 4; rb++) row[rb] += w * (B[ra] * B[rb]);
            }
        }
    }
}
