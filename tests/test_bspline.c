// test_bspline.c: clamped uniform cubic B-splines against identities, finite differences, a
// textbook Cox-de Boor recursion over the whole knot vector and composite Simpson quadrature
#include <math.h>
#include <stdio.h>

#include "salto/bspline.h"
#include "test_suites.h"
#include "test_util.h"

enum { MAXCP = 32, MAXT = 256 };

// control-point counts the loop tests cycle through; 4 is a single Bezier segment, and up to
// 7 every segment touches a clamped end
static const int ncp_list[] = {4, 5, 6, 7, 8, 9, 10, 13, 24};
enum { NNCP = sizeof ncp_list / sizeof ncp_list[0], NLOOP = 3 * NNCP };

// case i of the loops: ncp from the list, a random duration; seeds r with i
static void setup_case(int i, salto_test_rng* r, salto_bspline* s) {
    salto_test_rng_seed(r, (uint64_t)i);
    const double T = salto_test_uniform(r, 0.2, 5);
    ck_assert_int_eq(salto_bspline_init(s, ncp_list[i % NNCP], T), SALTO_OK);
    ck_assert_int_eq(s->nseg, s->ncp - 3);
}


static void ctx_at(char* buf, size_t n, int seed, const salto_bspline* s, double t) {
    snprintf(buf, n, "seed %d ncp %d T %.17g t %.17g", seed, s->ncp, s->duration, t);
}


// the ends, every interior knot with its neighbouring doubles, and random times
static int sample_times(const salto_bspline* s, salto_test_rng* r, double* t) {
    const double T = s->duration;
    int n = 0;
    t[n++] = 0;
    t[n++] = 1e-300;
    t[n++] = T;
    t[n++] = nextafter(T, 0);
    for (int j = 1; j < s->nseg; j++) {
        const double kn = j * s->h;
        t[n++] = kn;
        t[n++] = nextafter(kn, 0);
        t[n++] = nextafter(kn, 2 * T);
    }
    while (n < 4 + 3 * (s->nseg - 1) + 40) t[n++] = salto_test_uniform(r, 0, T);
    ck_assert_int_le(n, MAXT);
    return n;
}


static void rand_vec(salto_test_rng* r, double* v, int n) {
    for (int k = 0; k < n; k++) v[k] = salto_test_uniform(r, -1, 1);
}


// ---- reference: the recursion over the whole knot vector, spelled out ----

// knot j of 0, 0, 0, 0, h, 2h, ..., T - h, T, T, T, T in seconds
static double ref_knot(const salto_bspline* s, int j) {
    if (s->U) return s->U[j];
    if (j <= 3) return 0;
    if (j >= s->ncp) return s->duration;
    return (j - 3) * s->h;
}


// d-th derivative of N_{a,p}(t) (NURBS Book, eq. 2.5 and 2.9, with 0/0 = 0); degree 0 is the
// indicator of [U_a, U_{a+1}), closed at T for the last non-empty interval
static double ref_basis(const salto_bspline* s, int a, int p, int d, double t) {
    const double lo = ref_knot(s, a), hi = ref_knot(s, a + 1);
    if (p == 0) {
        if (d > 0 || lo == hi) return 0;
        if (t >= lo && t < hi) return 1;
        return (t == s->duration && hi == s->duration) ? 1 : 0;
    }
    const double d1 = ref_knot(s, a + p) - lo;
    const double d2 = ref_knot(s, a + p + 1) - ref_knot(s, a + 1);
    double v = 0;
    if (d == 0) {
        if (d1 > 0) v += (t - lo) / d1 * ref_basis(s, a, p - 1, 0, t);
        if (d2 > 0) v += (ref_knot(s, a + p + 1) - t) / d2 * ref_basis(s, a + 1, p - 1, 0, t);
    } else {
        if (d1 > 0) v += p / d1 * ref_basis(s, a, p - 1, d - 1, t);
        if (d2 > 0) v -= p / d2 * ref_basis(s, a + 1, p - 1, d - 1, t);
    }
    return v;
}


// the d-th derivative of basis function a at t through salto_bspline_basis (0 off its support)
static double basis_at(const salto_bspline* s, int a, int d, double t) {
    double B[4];
    const int first = salto_bspline_basis(s, t, d == 0 ? B : NULL, d == 1 ? B : NULL,
                                          d == 2 ? B : NULL);
    return (a >= first && a < first + 4) ? B[a - first] : 0;
}


// ---- identities ----

// sum N = 1, sum dN = 0, sum ddN = 0, N >= 0, first in range, clamping of t
START_TEST(partition_of_unity) {
    salto_test_rng r;
    salto_bspline s;
    setup_case(_i, &r, &s);
    double ts[MAXT];
    const int nt = sample_times(&s, &r, ts);
    const double ih = 1 / s.h;
    char ctx[200];

    for (int k = 0; k < nt; k++) {
        double N[4], dN[4], ddN[4];
        const int first = salto_bspline_basis(&s, ts[k], N, dN, ddN);
        ctx_at(ctx, sizeof ctx, _i, &s, ts[k]);
        ck_assert_msg(first >= 0 && first <= s.ncp - 4, "%s: first %d", ctx, first);
        double sum[3] = {0, 0, 0};
        for (int j = 0; j < 4; j++) {
            ck_assert_msg(N[j] >= 0, "%s: N[%d] = %g", ctx, j, N[j]);
            sum[0] += N[j];
            sum[1] += dN[j];
            sum[2] += ddN[j];
        }
        const double want[3] = {1, 0, 0};
        const double atol[3] = {1e-14, 1e-13 * ih, 1e-12 * ih * ih};
        for (int d = 0; d < 3; d++) ck_assert_vec_close(sum + d, want + d, 1, atol[d], 0, ctx);
    }

    // t is clamped to [0, T]; t = T is in the last segment
    const double outside[2][2] = {{-1, 0}, {s.duration + 1, s.duration}};
    for (int e = 0; e < 2; e++) {
        double A[12], B[12];
        const int fa = salto_bspline_basis(&s, outside[e][0], A, A + 4, A + 8);
        const int fb = salto_bspline_basis(&s, outside[e][1], B, B + 4, B + 8);
        ck_assert_int_eq(fa, fb);
        ck_assert_int_eq(fb, e == 0 ? 0 : s.ncp - 4);
        ctx_at(ctx, sizeof ctx, _i, &s, outside[e][0]);
        ck_assert_vec_close(A, B, 12, 0, 0, ctx);
    }
}
END_TEST


// every basis function and its first two derivatives against the textbook recursion over the
// whole knot vector, including the functions that must vanish at t
START_TEST(matches_cox_de_boor) {
    salto_test_rng r;
    salto_bspline s;
    setup_case(_i, &r, &s);
    double ts[MAXT];
    const int nt = sample_times(&s, &r, ts);
    const double ih = 1 / s.h;
    char ctx[200];

    for (int k = 0; k < nt; k++) {
        ctx_at(ctx, sizeof ctx, _i, &s, ts[k]);
        for (int d = 0; d < 3; d++) {
            double got[MAXCP], want[MAXCP];
            for (int a = 0; a < s.ncp; a++) {
                got[a] = basis_at(&s, a, d, ts[k]);
                want[a] = ref_basis(&s, a, 3, d, ts[k]);
            }
            ck_assert_vec_close(got, want, s.ncp, 1e-13 * pow(ih, d), 1e-12, ctx);
        }
    }
}
END_TEST


// dN against central differences of N, ddN against central differences of dN, at random times
// and just inside every knot and both ends (the stencil stays within one segment)
START_TEST(derivatives_fd) {
    salto_test_rng r;
    salto_bspline s;
    setup_case(_i, &r, &s);
    const double T = s.duration, e = 1e-6 * T, ih = 1 / s.h;
    double ts[MAXT];
    int nt = 0;
    ts[nt++] = 2 * e;
    ts[nt++] = T - 2 * e;
    for (int j = 1; j < s.nseg; j++) {
        ts[nt++] = j * s.h - 2 * e;
        ts[nt++] = j * s.h + 2 * e;
    }
    while (nt < 2 * s.nseg + 30) ts[nt++] = salto_test_uniform(&r, 2 * e, T - 2 * e);
    char ctx[200];

    for (int k = 0; k < nt; k++) {
        double N[4], dN[4], ddN[4], Np[4], dNp[4], Nm[4], dNm[4];
        const int f0 = salto_bspline_basis(&s, ts[k], N, dN, ddN);
        const int fp = salto_bspline_basis(&s, ts[k] + e, Np, dNp, NULL);
        const int fm = salto_bspline_basis(&s, ts[k] - e, Nm, dNm, NULL);
        ctx_at(ctx, sizeof ctx, _i, &s, ts[k]);
        ck_assert_msg(f0 == fp && f0 == fm, "%s: stencil crosses a knot", ctx);

        double fd1[4], fd2[4];
        for (int j = 0; j < 4; j++) {
            fd1[j] = (Np[j] - Nm[j]) / (2 * e);
            fd2[j] = (dNp[j] - dNm[j]) / (2 * e);
        }
        ck_assert_vec_close(dN, fd1, 4, 1e-7 * ih, 1e-6, ctx);
        ck_assert_vec_close(ddN, fd2, 4, 1e-7 * ih * ih, 1e-6, ctx);
    }
}
END_TEST


// q(0) = c_0 and q(T) = c_last; the end slopes and curvatures of a clamped spline
// (NURBS Book, eq. 3.7 and 3.9 with the knots spelled out)
START_TEST(end_interpolation) {
    salto_test_rng r;
    salto_bspline s;
    setup_case(_i, &r, &s);
    double c[MAXCP];
    rand_vec(&r, c, s.ncp);
    const int n = s.ncp - 1;
    const double h = s.h, u5 = ref_knot(&s, 5), T = s.duration;
    double got[6], want[6];
    salto_bspline_eval(&s, c, 0, got, got + 1, got + 2);
    salto_bspline_eval(&s, c, T, got + 3, got + 4, got + 5);

    // q'(0) = 3 (c_1 - c_0) / U_4,  q''(0) = 6 / U_4 ((c_2 - c_1) / U_5 - (c_1 - c_0) / U_4),
    // and the mirror images at T
    want[0] = c[0];
    want[1] = 3 * (c[1] - c[0]) / h;
    want[2] = 6 / h * ((c[2] - c[1]) / u5 - (c[1] - c[0]) / h);
    want[3] = c[n];
    want[4] = 3 * (c[n] - c[n - 1]) / h;
    want[5] = 6 / h * ((c[n - 2] - c[n - 1]) / u5 - (c[n - 1] - c[n]) / h);
    char ctx[200];
    ctx_at(ctx, sizeof ctx, _i, &s, 0);
    ck_assert_vec_close(got, want, 1, 1e-15, 0, ctx);
    ck_assert_vec_close(got + 3, want + 3, 1, 1e-15, 0, ctx);
    ck_assert_vec_close(got + 1, want + 1, 1, 1e-13 / h, 1e-13, ctx);
    ck_assert_vec_close(got + 4, want + 4, 1, 1e-13 / h, 1e-13, ctx);
    ck_assert_vec_close(got + 2, want + 2, 1, 1e-12 / (h * h), 1e-12, ctx);
    ck_assert_vec_close(got + 5, want + 5, 1, 1e-12 / (h * h), 1e-12, ctx);
}
END_TEST


// q, qd, qdd are continuous across every interior knot: left and right limits agree
START_TEST(c2_at_knots) {
    salto_test_rng r;
    salto_bspline s;
    setup_case(_i, &r, &s);
    double c[MAXCP];
    rand_vec(&r, c, s.ncp);
    const double ih = 1 / s.h;
    char ctx[200];

    for (int j = 1; j < s.nseg; j++) {
        const double kn = j * s.h, tl = kn * (1 - 1e-13), tr = kn * (1 + 1e-13);
        ctx_at(ctx, sizeof ctx, _i, &s, kn);
        ck_assert_int_eq(salto_bspline_basis(&s, tl, NULL, NULL, NULL), j - 1);
        ck_assert_int_eq(salto_bspline_basis(&s, tr, NULL, NULL, NULL), j);
        double L[3], R[3];
        salto_bspline_eval(&s, c, tl, L, L + 1, L + 2);
        salto_bspline_eval(&s, c, tr, R, R + 1, R + 2);
        ck_assert_vec_close(L, R, 1, 1e-11, 0, ctx);
        ck_assert_vec_close(L + 1, R + 1, 1, 1e-11 * ih, 0, ctx);
        ck_assert_vec_close(L + 2, R + 2, 1, 1e-10 * ih * ih, 0, ctx);
    }
}
END_TEST


// cubic precision: with c_a the polar form (blossom) of a cubic f at the knots a+1, a+2, a+3
// (Marsden's identity), the spline is f; with c_a = f(greville_a) it is f for linear f
START_TEST(polynomial_reproduction) {
    salto_test_rng r;
    salto_bspline s;
    setup_case(_i, &r, &s);
    const double T = s.duration, ih = 1 / s.h;
    double p[4], c[MAXCP], cl[MAXCP], ts[MAXT];
    rand_vec(&r, p, 4);
    const int nt = sample_times(&s, &r, ts);

    // f(t) = p0 + p1 x + p2 x^2 + p3 x^3 with x = t / T; its blossom at (x, y, z) is
    // p0 + p1 (x + y + z) / 3 + p2 (xy + yz + zx) / 3 + p3 xyz
    for (int a = 0; a < s.ncp; a++) {
        const double x = ref_knot(&s, a + 1) / T, y = ref_knot(&s, a + 2) / T,
                     z = ref_knot(&s, a + 3) / T;
        c[a] = p[0] + p[1] * (x + y + z) / 3 + p[2] * (x * y + y * z + z * x) / 3 +
               p[3] * x * y * z;
        cl[a] = p[0] + p[1] * salto_bspline_greville(&s, a) / T;
    }
    char ctx[200];
    for (int k = 0; k < nt; k++) {
        const double x = ts[k] / T;
        const double want[3] = {p[0] + x * (p[1] + x * (p[2] + x * p[3])),
                                (p[1] + x * (2 * p[2] + x * 3 * p[3])) / T,
                                (2 * p[2] + 6 * x * p[3]) / (T * T)};
        const double want_lin[3] = {p[0] + p[1] * x, p[1] / T, 0};
        double got[3], got_lin[3];
        salto_bspline_eval(&s, c, ts[k], got, got + 1, got + 2);
        salto_bspline_eval(&s, cl, ts[k], got_lin, got_lin + 1, got_lin + 2);
        ctx_at(ctx, sizeof ctx, _i, &s, ts[k]);
        for (int d = 0; d < 3; d++) {
            const double atol = 1e-13 * pow(ih, d);
            ck_assert_vec_close(got + d, want + d, 1, atol, 1e-12, ctx);
            ck_assert_vec_close(got_lin + d, want_lin + d, 1, atol, 1e-12, ctx);
        }
    }
}
END_TEST


// Greville abscissae: the mean of knots a+1..a+3, from 0 to exactly T, increasing, and
// (a - 1) h away from the ends
START_TEST(greville) {
    salto_test_rng r;
    salto_bspline s;
    setup_case(_i, &r, &s);
    char ctx[200];
    ctx_at(ctx, sizeof ctx, _i, &s, 0);
    ck_assert_msg(salto_bspline_greville(&s, 0) == 0, "%s: first", ctx);
    ck_assert_msg(salto_bspline_greville(&s, s.ncp - 1) == s.duration, "%s: last", ctx);
    for (int a = 0; a < s.ncp; a++) {
        const double g = salto_bspline_greville(&s, a);
        const double want =
            (ref_knot(&s, a + 1) + ref_knot(&s, a + 2) + ref_knot(&s, a + 3)) / 3;
        ck_assert_vec_close(&g, &want, 1, 1e-14 * s.duration, 1e-14, ctx);
        if (a > 0) ck_assert_msg(g > salto_bspline_greville(&s, a - 1), "%s: a %d", ctx, a);
        if (a >= 2 && a <= s.ncp - 3) {
            const double uniform = (a - 1) * s.h;
            ck_assert_vec_close(&g, &uniform, 1, 1e-14 * s.duration, 1e-14, ctx);
        }
    }
}
END_TEST


// q, qd, qdd at a fixed t are linear in c with coefficients N, dN, ddN: perturbing control
// point a changes them by delta times basis function a (zero off its support)
START_TEST(eval_linear_in_control_points) {
    salto_test_rng r;
    salto_bspline s;
    setup_case(_i, &r, &s);
    double c[MAXCP], ts[MAXT];
    rand_vec(&r, c, s.ncp);
    const int nt = sample_times(&s, &r, ts);
    const double ih = 1 / s.h, delta = 0.5;
    char ctx[200];

    for (int k = 0; k < nt; k++) {
        ctx_at(ctx, sizeof ctx, _i, &s, ts[k]);
        double q0[3];
        salto_bspline_eval(&s, c, ts[k], q0, q0 + 1, q0 + 2);

        // each output alone is the same as all three together
        double q1[3];
        salto_bspline_eval(&s, c, ts[k], q1, NULL, NULL);
        salto_bspline_eval(&s, c, ts[k], NULL, q1 + 1, NULL);
        salto_bspline_eval(&s, c, ts[k], NULL, NULL, q1 + 2);
        ck_assert_vec_close(q1, q0, 3, 0, 0, ctx);

        for (int a = 0; a < s.ncp; a++) {
            double qp[3], qm[3], fd[3], want[3];
            const double ca = c[a];
            c[a] = ca + delta;
            salto_bspline_eval(&s, c, ts[k], qp, qp + 1, qp + 2);
            c[a] = ca - delta;
            salto_bspline_eval(&s, c, ts[k], qm, qm + 1, qm + 2);
            c[a] = ca;
            for (int d = 0; d < 3; d++) {
                fd[d] = (qp[d] - qm[d]) / (2 * delta);
                want[d] = basis_at(&s, a, d, ts[k]);
            }
            ck_assert_vec_close(fd, want, 1, 1e-14, 1e-13, ctx);
            ck_assert_vec_close(fd + 1, want + 1, 1, 1e-14 * ih, 1e-13, ctx);
            ck_assert_vec_close(fd + 2, want + 2, 1, 1e-14 * ih * ih, 1e-13, ctx);
        }
    }
}
END_TEST


// ---- Gram matrices ----

// G_ab = integral of N_a^(k) N_b^(k) by composite Simpson with 2000 intervals per segment,
// the basis evaluated through salto_bspline_basis just inside each segment (N^(2) jumps at
// the knots); dense ncp x ncp
static void gram_simpson(const salto_bspline* s, int k, double R[MAXCP][MAXCP]) {
    enum { NSUB = 2000 };
    for (int a = 0; a < s->ncp; a++) {
        for (int b = 0; b < s->ncp; b++) R[a][b] = 0;
    }
    for (int i = 0; i < s->nseg; i++) {
        for (int j = 0; j <= NSUB; j++) {
            double x = (double)j / NSUB;
            if (x < 1e-12) x = 1e-12;
            if (x > 1 - 1e-12) x = 1 - 1e-12;
            const double w = s->h / (3.0 * NSUB) * ((j == 0 || j == NSUB) ? 1 : (j % 2 ? 4 : 2));
            double B[4];
            const int first = salto_bspline_basis(s, (i + x) * s->h, k == 0 ? B : NULL,
                                                  k == 1 ? B : NULL, k == 2 ? B : NULL);
            ck_assert_int_eq(first, i);
            for (int ra = 0; ra < 4; ra++) {
                for (int rb = 0; rb < 4; rb++) R[i + ra][i + rb] += w * B[ra] * B[rb];
            }
        }
    }
}


// k = 0, 1, 2: band entries against Simpson quadrature, zero outside [0, ncp), symmetry
START_TEST(gram_quadrature) {
    salto_test_rng r;
    salto_bspline s;
    setup_case(_i, &r, &s);
    char ctx[200];
    for (int k = 0; k <= 2; k++) {
        double G[7 * MAXCP], R[MAXCP][MAXCP];
        salto_bspline_gram(&s, k, G);
        gram_simpson(&s, k, R);
        const double scale = salto_test_maxabs(G, 7 * s.ncp);
        for (int a = 0; a < s.ncp; a++) {
            for (int d = -3; d <= 3; d++) {
                const int b = a + d;
                const double g = G[7 * a + 3 + d];
                snprintf(ctx, sizeof ctx, "seed %d ncp %d T %.17g k %d a %d b %d", _i, s.ncp,
                         s.duration, k, a, b);
                if (b < 0 || b >= s.ncp) {
                    ck_assert_msg(g == 0, "%s: %g outside the matrix", ctx, g);
                    continue;
                }
                ck_assert_vec_close(&g, &R[a][b], 1, 1e-10 * scale, 1e-10, ctx);
                ck_assert_msg(g == G[7 * b + 3 - d], "%s: not symmetric", ctx);
            }
        }
    }
}
END_TEST


// row sums: sum_b G0_ab = integral of N_a = (U_{a+4} - U_a) / 4 (partition of unity), and
// sum_b G1_ab = 0; G2 c = 0 for the control points of a linear function (q'' = 0)
START_TEST(gram_identities) {
    salto_test_rng r;
    salto_bspline s;
    setup_case(_i, &r, &s);
    double G0[7 * MAXCP], G1[7 * MAXCP], G2[7 * MAXCP], c[MAXCP];
    salto_bspline_gram(&s, 0, G0);
    salto_bspline_gram(&s, 1, G1);
    salto_bspline_gram(&s, 2, G2);
    const double alpha = salto_test_uniform(&r, -1, 1), beta = salto_test_uniform(&r, -1, 1);
    for (int a = 0; a < s.ncp; a++) c[a] = alpha + beta * salto_bspline_greville(&s, a);
    const double cmax = salto_test_maxabs(c, s.ncp);
    const double s1 = salto_test_maxabs(G1, 7 * s.ncp), s2 = salto_test_maxabs(G2, 7 * s.ncp);
    char ctx[200];
    double total = 0;

    for (int a = 0; a < s.ncp; a++) {
        double row[3] = {0, 0, 0};
        for (int d = -3; d <= 3; d++) {
            const int b = a + d;
            if (b < 0 || b >= s.ncp) continue;
            row[0] += G0[7 * a + 3 + d];
            row[1] += G1[7 * a + 3 + d];
            row[2] += G2[7 * a + 3 + d] * c[b];
        }
        total += row[0];
        const double want[3] = {(ref_knot(&s, a + 4) - ref_knot(&s, a)) / 4, 0, 0};
        snprintf(ctx, sizeof ctx, "seed %d ncp %d T %.17g row %d", _i, s.ncp, s.duration, a);
        ck_assert_vec_close(row, want, 1, 1e-14 * s.duration, 1e-13, ctx);
        ck_assert_vec_close(row + 1, want + 1, 1, 1e-13 * s1, 0, ctx);
        ck_assert_vec_close(row + 2, want + 2, 1, 1e-13 * s2 * cmax, 0, ctx);
    }
    ck_assert_double_eq_tol(total, s.duration, 1e-13 * s.duration);
}
END_TEST


// ---- errors ----

START_TEST(init_rejects) {
    salto_bspline s;
    ck_assert_int_eq(salto_bspline_init(&s, 3, 1.0), SALTO_ERR_INVALID);
    ck_assert_int_eq(salto_bspline_init(&s, 0, 1.0), SALTO_ERR_INVALID);
    ck_assert_int_eq(salto_bspline_init(&s, -5, 1.0), SALTO_ERR_INVALID);
    ck_assert_int_eq(salto_bspline_init(&s, 8, 0.0), SALTO_ERR_INVALID);
    ck_assert_int_eq(salto_bspline_init(&s, 8, -0.0), SALTO_ERR_INVALID);
    ck_assert_int_eq(salto_bspline_init(&s, 8, -1.0), SALTO_ERR_INVALID);
    ck_assert_int_eq(salto_bspline_init(&s, 8, NAN), SALTO_ERR_INVALID);
    ck_assert_int_eq(salto_bspline_init(&s, 8, INFINITY), SALTO_ERR_INVALID);
    ck_assert_int_eq(salto_bspline_init(&s, 8, -INFINITY), SALTO_ERR_INVALID);

    ck_assert_int_eq(salto_bspline_init(&s, 4, 2.0), SALTO_OK);
    ck_assert_int_eq(s.ncp, 4);
    ck_assert_int_eq(s.nseg, 1);
    ck_assert_double_eq(s.duration, 2.0);
    ck_assert_double_eq(s.h, 2.0);
    ck_assert_int_eq(salto_bspline_init(&s, 11, 1e-3), SALTO_OK);
    ck_assert_int_eq(s.nseg, 8);
    ck_assert_double_eq_tol(s.h, 1.25e-4, 1e-18);
}
END_TEST


// ncp = 4 is one cubic Bezier segment: N = Bernstein polynomials of t / T
START_TEST(single_segment_is_bezier) {
    salto_bspline s;
    ck_assert_int_eq(salto_bspline_init(&s, 4, 1.5), SALTO_OK);
    char ctx[200];
    for (int k = 0; k <= 20; k++) {
        const double t = 1.5 * k / 20, x = k / 20.0, y = 1 - x;
        double N[4];
        ck_assert_int_eq(salto_bspline_basis(&s, t, N, NULL, NULL), 0);
        const double want[4] = {y * y * y, 3 * x * y * y, 3 * x * x * y, x * x * x};
        ctx_at(ctx, sizeof ctx, 0, &s, t);
        ck_assert_vec_close(N, want, 4, 1e-15, 0, ctx);
    }
}
END_TEST


// ---- general knots, with double knots (C1 junctions) ----

// case i: 6 to 21 control points, random interior knots in (0, T), some of them doubled
static void setup_general(int i, salto_test_rng* r, salto_bspline* s) {
    salto_test_rng_seed(r, 1000u + (uint64_t)i);
    const int ncp = 6 + i % 16;
    const double T = salto_test_uniform(r, 0.2, 5);
    double in[MAXCP];
    for (int k = 0; k < ncp - 4; k++) in[k] = salto_test_uniform(r, 0.02 * T, 0.98 * T);
    for (int a = 1; a < ncp - 4; a++) { // insertion sort
        const double v = in[a];
        int b = a - 1;
        for (; b >= 0 && in[b] > v; b--) in[b + 1] = in[b];
        in[b + 1] = v;
    }
    for (int k = 1; k < ncp - 4; k++) {
        const int doubled = k > 1 && in[k - 1] == in[k - 2];
        if (!doubled && salto_test_uniform(r, 0, 1) < 0.35) in[k] = in[k - 1];
    }
    ck_assert_int_eq(salto_bspline_init_knots(s, ncp, T, in), SALTO_OK);
}


// the basis against the textbook recursion, partition of unity, and the left limits at knots
START_TEST(general_matches_cox_de_boor) {
    salto_test_rng r;
    salto_bspline s;
    setup_general(_i, &r, &s);
    const double T = s.duration;
    double ts[MAXT];
    int nt = 0;
    ts[nt++] = 0;
    ts[nt++] = T;
    for (int j = 4; j < s.ncp; j++) ts[nt++] = s.U[j];
    while (nt < 60) ts[nt++] = salto_test_uniform(&r, 0, T);
    double hmin = T;
    for (int j = 3; j < s.ncp; j++) {
        if (s.U[j + 1] > s.U[j]) hmin = fmin(hmin, s.U[j + 1] - s.U[j]);
    }
    const double sc[3] = {1, 1 / hmin, 1 / (hmin * hmin)};
    char ctx[200];
    for (int k = 0; k < nt; k++) {
        ctx_at(ctx, sizeof ctx, 1000 + _i, &s, ts[k]);
        double B[3][4];
        const int first = salto_bspline_basis(&s, ts[k], B[0], B[1], B[2]);
        ck_assert_msg(first >= 0 && first <= s.ncp - 4, "%s: first %d", ctx, first);
        for (int d = 0; d < 3; d++) {
            double sum = 0;
            for (int a = 0; a < 4; a++) {
                const double want = ref_basis(&s, first + a, 3, d, ts[k]);
                ck_assert_vec_close(&B[d][a], &want, 1, 1e-12 * sc[d], 1e-12, ctx);
                sum += B[d][a];
            }
            const double want_sum = d == 0 ? 1 : 0;
            ck_assert_vec_close(&sum, &want_sum, 1, 1e-12 * sc[d], 0, ctx);
        }
        // the left side is the limit from the left: compare with a point just before
        if (ts[k] <= 0) continue;
        double L[3][4], P[3][4];
        const int fl = salto_bspline_basis_side(&s, ts[k], -1, L[0], L[1], L[2]);
        const double tb = ts[k] - 1e-9 * T;
        const int fp = salto_bspline_basis_side(&s, tb, 1, P[0], P[1], P[2]);
        ck_assert_msg(fl == fp, "%s: left first %d, just before %d", ctx, fl, fp);
        for (int d = 0; d < 3; d++) ck_assert_vec_close(L[d], P[d], 4, 1e-6 * sc[d], 1e-6, ctx);
    }
    salto_bspline_release(&s);
}
END_TEST


// at a double knot, q and qd are continuous and qdd jumps; at a single knot all three are
// continuous
START_TEST(general_continuity) {
    salto_test_rng r;
    salto_bspline s;
    setup_general(_i, &r, &s);
    double c[MAXCP];
    rand_vec(&r, c, s.ncp);
    char ctx[200];
    for (int j = 4; j < s.ncp; j++) {
        const double t = s.U[j];
        const int dbl = s.U[j - 1] == t || s.U[j + 1] == t;
        double N[3][4], M[3][4], left[3] = {0, 0, 0}, right[3] = {0, 0, 0};
        const int fl = salto_bspline_basis_side(&s, t, -1, N[0], N[1], N[2]);
        const int fr = salto_bspline_basis_side(&s, t, 1, M[0], M[1], M[2]);
        for (int d = 0; d < 3; d++) {
            for (int a = 0; a < 4; a++) left[d] += N[d][a] * c[fl + a], right[d] += M[d][a] * c[fr + a];
        }
        ctx_at(ctx, sizeof ctx, 1000 + _i, &s, t);
        const double sc = 1 / (s.h * s.h);
        ck_assert_vec_close(left, right, 2, 1e-10 * sc, 1e-10, ctx);
        if (!dbl) ck_assert_vec_close(left + 2, right + 2, 1, 1e-9 * sc, 1e-9, ctx);
        if (dbl) {
            // the jump is generic: the basis' second derivatives differ between the sides
            double diff = 0;
            for (int a = 0; a < 4; a++) {
                for (int b = 0; b < 4; b++) {
                    if (fl + a == fr + b) diff = fmax(diff, fabs(N[2][a] - M[2][b]));
                }
            }
            ck_assert_msg(diff > 1e-3 * sc, "%s: no jump in ddN at a double knot", ctx);
        }
    }
    salto_bspline_release(&s);
}
END_TEST


// at a triple knot (an impact's junction) the spline passes through the one control point the
// two segments share: q is continuous and equals it, the velocity jumps, each side's velocity
// depends on that point and its neighbour on the side only, and each side's derivatives are
// the one-sided limits of the values
START_TEST(triple_knot_is_c0) {
    salto_bspline s;
    const double knots[5] = {0.2, 0.5, 0.5, 0.5, 0.8};
    ck_assert_int_eq(salto_bspline_init_knots(&s, 9, 1.0, knots), SALTO_OK);
    ck_assert_int_eq(s.nseg, 4);
    double NL[4], dNL[4], ddNL[4], NR[4], dNR[4], ddNR[4];
    const int fl = salto_bspline_basis_side(&s, 0.5, -1, NL, dNL, ddNL);
    const int fr = salto_bspline_basis_side(&s, 0.5, 1, NR, dNR, ddNR);
    ck_assert_int_eq(fr, fl + 3);
    for (int a = 0; a < 4; a++) {
        ck_assert_double_eq_tol(NL[a], a == 3 ? 1.0 : 0.0, 1e-14);
        ck_assert_double_eq_tol(NR[a], a == 0 ? 1.0 : 0.0, 1e-14);
        if (a < 2) ck_assert_double_eq_tol(dNL[a], 0.0, 1e-12);
        if (a > 1) ck_assert_double_eq_tol(dNR[a], 0.0, 1e-12);
    }
    ck_assert_double_eq_tol(dNL[3], -dNL[2], 1e-12); // the left velocity: (c_j - c_{j-1}) k
    ck_assert_double_eq_tol(dNR[0], -dNR[1], 1e-12);
    ck_assert(fabs(dNL[3]) > 1.0 && fabs(dNR[0]) > 1.0);
    // one-sided differences of q against each side's velocity, for random control points
    salto_test_rng r;
    salto_test_rng_seed(&r, 77u);
    double c[9];
    rand_vec(&r, c, 9);
    double ql, qdl, qr, qdr, qa, qb;
    salto_bspline_eval(&s, c, 0.5, &qr, &qdr, NULL);
    qdl = 0.0, ql = 0.0;
    for (int a = 0; a < 4; a++) ql += NL[a] * c[fl + a], qdl += dNL[a] * c[fl + a];
    ck_assert_double_eq_tol(ql, qr, 1e-14);
    ck_assert_double_eq_tol(qr, c[fr], 1e-14);
    const double h = 1e-6;
    salto_bspline_eval(&s, c, 0.5 - h, &qa, NULL, NULL);
    salto_bspline_eval(&s, c, 0.5 + h, &qb, NULL, NULL);
    ck_assert_double_eq_tol((ql - qa) / h, qdl, 1e-4 * (1.0 + fabs(qdl)));
    ck_assert_double_eq_tol((qb - qr) / h, qdr, 1e-4 * (1.0 + fabs(qdr)));
    ck_assert(fabs(qdl - qdr) > 1e-3); // a jump, for generic control points
    salto_bspline_release(&s);
}
END_TEST


// Gram matrices against composite Simpson on every span (exact for k = 2, where the
// integrand is quadratic), Greville abscissae reproducing a line
// a Gram matrix over a knot range (salto_bspline_gram_range, a phase's part of the objective):
// the parts on either side of an interior knot add up to the whole, the whole range is the
// whole matrix exactly, and a basis function whose support lies outside the range has a zero
// row there; uniform and general knots
START_TEST(gram_range_parts) {
    salto_test_rng r;
    salto_bspline s;
    if (_i % 2) {
        setup_general(_i, &r, &s);
    } else {
        setup_case(_i, &r, &s);
    }
    char ctx[200];
    const int m = 3 + 1 + (int)((s.ncp - 4) * 0.5); // an interior knot (or the first's end)
    const double tm = salto_bspline_knot(&s, m);
    for (int k = 0; k <= 2; k++) {
        double G[7 * MAXCP], A[7 * MAXCP], B[7 * MAXCP], W[7 * MAXCP];
        salto_bspline_gram(&s, k, G);
        salto_bspline_gram_range(&s, k, 0.0, s.duration, W);
        salto_bspline_gram_range(&s, k, 0.0, tm, A);
        salto_bspline_gram_range(&s, k, tm, s.duration, B);
        const double scale = salto_test_maxabs(G, 7 * s.ncp);
        for (int e = 0; e < 7 * s.ncp; e++) {
            snprintf(ctx, sizeof ctx, "seed %d ncp %d k %d entry %d split %g", _i, s.ncp, k, e, tm);
            ck_assert_msg(W[e] == G[e], "%s: the whole range differs", ctx);
            const double sum = A[e] + B[e];
            ck_assert_vec_close(&sum, &G[e], 1, 1e-12 * scale, 1e-12, ctx);
        }
        // N_a's support is [U_a, U_{a+4}]: after the split its row in A is zero, before it in B
        for (int a = 0; a < s.ncp; a++) {
            for (int d = -3; d <= 3; d++) {
                if (salto_bspline_knot(&s, a) >= tm) ck_assert_msg(A[7 * a + 3 + d] == 0.0, "seed %d k %d row %d", _i, k, a);
                if (salto_bspline_knot(&s, a + 4) <= tm) ck_assert_msg(B[7 * a + 3 + d] == 0.0, "seed %d k %d row %d", _i, k, a);
            }
        }
    }
    salto_bspline_release(&s);
}
END_TEST


START_TEST(general_gram_greville) {
    salto_test_rng r;
    salto_bspline s;
    setup_general(_i, &r, &s);
    double c[MAXCP], G[7 * MAXCP];
    rand_vec(&r, c, s.ncp);
    char ctx[200];
    snprintf(ctx, sizeof ctx, "seed %d ncp %d", 1000 + _i, s.ncp);
    for (int k = 0; k <= 2; k += 2) {
        salto_bspline_gram(&s, k, G);
        double quad = 0, simpson = 0;
        for (int a = 0; a < s.ncp; a++) {
            for (int d = -3; d <= 3; d++) {
                if (a + d >= 0 && a + d < s.ncp) quad += c[a] * G[7 * a + 3 + d] * c[a + d];
            }
        }
        for (int j = 3; j < s.ncp; j++) {
            const double a = s.U[j], b = s.U[j + 1];
            if (!(b > a)) continue;
            const int n = 64;
            for (int e = 0; e <= 2 * n; e++) {
                const double t = a + (b - a) * e / (2.0 * n);
                double B[4];
                const int first = salto_bspline_basis_side(&s, t, e == 2 * n ? -1 : 1,
                                                           k == 0 ? B : NULL, NULL,
                                                           k == 2 ? B : NULL);
                double v = 0;
                for (int q = 0; q < 4; q++) v += B[q] * c[first + q];
                const double w = (e == 0 || e == 2 * n) ? 1 : (e % 2 ? 4 : 2);
                simpson += w * v * v * (b - a) / (6.0 * n);
            }
        }
        ck_assert_vec_close(&quad, &simpson, 1, 1e-12, k == 2 ? 1e-10 : 1e-7, ctx);
    }
    // sum_a (alpha + beta g_a) N_a(t) = alpha + beta t
    const double alpha = salto_test_uniform(&r, -1, 1), beta = salto_test_uniform(&r, -1, 1);
    for (int a = 0; a < s.ncp; a++) c[a] = alpha + beta * salto_bspline_greville(&s, a);
    for (int e = 0; e <= 50; e++) {
        const double t = s.duration * e / 50.0;
        double q, qd;
        salto_bspline_eval(&s, c, t, &q, &qd, NULL);
        const double want[2] = {alpha + beta * t, beta}, got[2] = {q, qd};
        ck_assert_vec_close(got, want, 2, 1e-12, 1e-12, ctx);
    }
    salto_bspline_release(&s);
}
END_TEST


START_TEST(general_rejects) {
    salto_bspline s;
    const double ok[4] = {0.2, 0.4, 0.4, 0.7};
    ck_assert_int_eq(salto_bspline_init_knots(&s, 8, 1.0, ok), SALTO_OK);
    ck_assert_int_eq(s.nseg, 4);
    ck_assert_double_eq(salto_bspline_knot(&s, 6), 0.4);
    ck_assert_double_eq(salto_bspline_knot(&s, 11), 1.0);
    salto_bspline_release(&s);
    ck_assert_ptr_null(s.U);
    salto_bspline_release(NULL);
    const double quadruple[5] = {0.2, 0.4, 0.4, 0.4, 0.4};
    const double down[4] = {0.2, 0.5, 0.4, 0.7};
    const double outside[4] = {0.0, 0.4, 0.5, 0.7};
    const double past[4] = {0.2, 0.4, 0.5, 1.0};
    const double nan[4] = {0.2, NAN, 0.5, 0.7};
    ck_assert_int_eq(salto_bspline_init_knots(&s, 9, 1.0, quadruple), SALTO_ERR_INVALID);
    ck_assert_int_eq(salto_bspline_init_knots(&s, 8, 1.0, down), SALTO_ERR_INVALID);
    ck_assert_int_eq(salto_bspline_init_knots(&s, 8, 1.0, outside), SALTO_ERR_INVALID);
    ck_assert_int_eq(salto_bspline_init_knots(&s, 8, 1.0, past), SALTO_ERR_INVALID);
    ck_assert_int_eq(salto_bspline_init_knots(&s, 8, 1.0, nan), SALTO_ERR_INVALID);
    ck_assert_int_eq(salto_bspline_init_knots(&s, 3, 1.0, ok), SALTO_ERR_INVALID);
    ck_assert_int_eq(salto_bspline_init_knots(&s, 8, 0.0, ok), SALTO_ERR_INVALID);
    ck_assert_ptr_null(s.U);
    // the uniform spline's left side at an interior knot is the segment that ends there
    ck_assert_int_eq(salto_bspline_init(&s, 10, 7.0), SALTO_OK);
    ck_assert_int_eq(salto_bspline_basis_side(&s, 3.0, -1, NULL, NULL, NULL), 2);
    ck_assert_int_eq(salto_bspline_basis_side(&s, 3.0, 1, NULL, NULL, NULL), 3);
    ck_assert_int_eq(salto_bspline_basis_side(&s, 0.0, -1, NULL, NULL, NULL), 0);
}
END_TEST


Suite* bspline_suite(void) {
    Suite* s = suite_create("bspline");

    TCase* tc = tcase_create("identities");
    tcase_add_loop_test(tc, partition_of_unity, 0, NLOOP);
    tcase_add_loop_test(tc, matches_cox_de_boor, 0, NLOOP);
    tcase_add_loop_test(tc, derivatives_fd, 0, NLOOP);
    tcase_add_loop_test(tc, end_interpolation, 0, NLOOP);
    tcase_add_loop_test(tc, c2_at_knots, 0, NLOOP);
    tcase_add_loop_test(tc, polynomial_reproduction, 0, NLOOP);
    tcase_add_loop_test(tc, greville, 0, NLOOP);
    tcase_add_loop_test(tc, eval_linear_in_control_points, 0, NLOOP);
    tcase_add_test(tc, single_segment_is_bezier);
    suite_add_tcase(s, tc);

    tc = tcase_create("general knots");
    tcase_add_loop_test(tc, general_matches_cox_de_boor, 0, 32);
    tcase_add_loop_test(tc, general_continuity, 0, 32);
    tcase_add_loop_test(tc, general_gram_greville, 0, 32);
    tcase_add_test(tc, general_rejects);
    tcase_add_test(tc, triple_knot_is_c0);
    suite_add_tcase(s, tc);

    tc = tcase_create("gram");
    tcase_add_loop_test(tc, gram_quadrature, 0, NLOOP);
    tcase_add_loop_test(tc, gram_identities, 0, NLOOP);
    tcase_add_loop_test(tc, gram_range_parts, 0, NLOOP);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_test(tc, init_rejects);
    suite_add_tcase(s, tc);
    return s;
}
