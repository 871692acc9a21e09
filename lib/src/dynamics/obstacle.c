// obstacle.c: signed distances of points and segments from axis-aligned boxes, with the
// segment's exact gradient and Hessian (obstacle.h)
#include "salto/obstacle.h"

#include <math.h>
#include <string.h>


double salto_box_point_distance(const double c[3], const double h[3], const int use[3],
                                const double x[3], double n[3]) {
    double e[3], out = 0.0, in = -INFINITY;
    int kin = -1;
    for (int k = 0; k < 3; k++) {
        e[k] = use[k] ? fabs(x[k] - c[k]) - h[k] : -INFINITY;
        if (e[k] > 0.0) out += e[k] * e[k];
        if (use[k] && e[k] > in) in = e[k], kin = k;
    }
    if (n) n[0] = n[1] = n[2] = 0.0;
    if (out > 0.0) {
        const double dist = sqrt(out);
        for (int k = 0; k < 3 && n; k++) {
            if (e[k] > 0.0) n[k] = (x[k] > c[k] ? e[k] : -e[k]) / dist;
        }
        return dist;
    }
    if (n && kin >= 0) n[kin] = x[kin] >= c[kin] ? 1.0 : -1.0;
    return in;
}


// the squared distance outside the box of the segment's point at u
static double outside_sq(const double c[3], const double h[3], const int use[3], const double a[3],
                         const double d[3], double u) {
    double q = 0.0;
    for (int k = 0; k < 3; k++) {
        if (!use[k]) continue;
        const double e = fabs(a[k] + u * d[k] - c[k]) - h[k];
        if (e > 0.0) q += e * e;
    }
    return q;
}


static void sort(double* v, int n) {
    for (int i = 1; i < n; i++) {
        const double x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) v[j + 1] = v[j], j--;
        v[j + 1] = x;
    }
}


// outside: D = sqrt(Q), Q = min_u q(u) with q = sum over the axes outside of r_k^2,
// r_k = s_k (a_k + u d_k - c_k) - h_k (s_k the side). Returns 0 when the segment reaches the box.
static int outside(const double c[3], const double h[3], const int use[3], const double a[3],
                   const double b[3], double* D, double* uo, double ga[3], double gb[3],
                   double* H6) {
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = b[k] - a[k];
    // the breakpoints, where the segment crosses a face's plane, cut [0, 1] into pieces on
    // which q is one quadratic; its least value on each, the least of those
    double br[8];
    int nb = 0;
    br[nb++] = 0.0, br[nb++] = 1.0;
    for (int k = 0; k < 3; k++) {
        if (!use[k] || d[k] == 0.0) continue;
        for (int s = -1; s <= 1; s += 2) {
            const double u = (c[k] + s * h[k] - a[k]) / d[k];
            if (u > 0.0 && u < 1.0) br[nb++] = u;
        }
    }
    sort(br, nb);
    double best = INFINITY, ub = 0.0;
    for (int i = 0; i + 1 < nb || i == 0; i++) {
        const double u0 = br[i], u1 = i + 1 < nb ? br[i + 1] : br[i];
        const double um = 0.5 * (u0 + u1);
        double num = 0.0, den = 0.0;
        for (int k = 0; k < 3; k++) {
            if (!use[k]) continue;
            const double x = a[k] + um * d[k] - c[k];
            if (fabs(x) - h[k] <= 0.0) continue;
            const double s = x > 0.0 ? 1.0 : -1.0;
            num += d[k] * (c[k] + s * h[k] - a[k]);
            den += d[k] * d[k];
        }
        double u = den > 0.0 ? num / den : u0;
        u = fmin(u1, fmax(u0, u));
        const double q = outside_sq(c, h, use, a, d, u);
        if (q < best) best = q, ub = u;
        if (i + 1 >= nb) break;
    }
    if (!(best > 1e-24)) return 0;
    const double u = ub, dist = sqrt(best);
    *D = dist;
    if (uo) *uo = u;
    // v: from the box's nearest point to the segment's; the axes outside
    double v[3] = {0, 0, 0}, qu = 0.0, quu = 0.0;
    int act[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        if (!use[k]) continue;
        const double x = a[k] + u * d[k] - c[k];
        const double e = fabs(x) - h[k];
        if (e <= 0.0) continue;
        act[k] = 1;
        v[k] = x > 0.0 ? e : -e;
        qu += 2.0 * v[k] * d[k];
        quu += 2.0 * d[k] * d[k];
    }
    (void)qu;
    for (int k = 0; k < 3; k++) {
        if (ga) ga[k] = (1.0 - u) * v[k] / dist;
        if (gb) gb[k] = u * v[k] / dist;
    }
    if (!H6) return 1;
    // Q's Hessian in x = (a, b): q_xx less, at a minimum inside (0, 1), q_xu q_ux / q_uu
    double Q[36], w[6] = {0, 0, 0, 0, 0, 0};
    memset(Q, 0, sizeof Q);
    for (int k = 0; k < 3; k++) {
        if (!act[k]) continue;
        Q[6 * k + k] += 2.0 * (1.0 - u) * (1.0 - u);
        Q[6 * k + 3 + k] += 2.0 * (1.0 - u) * u;
        Q[6 * (3 + k) + k] += 2.0 * (1.0 - u) * u;
        Q[6 * (3 + k) + 3 + k] += 2.0 * u * u;
        w[k] = 2.0 * ((1.0 - u) * d[k] - v[k]);
        w[3 + k] = 2.0 * (u * d[k] + v[k]);
    }
    if (u > 0.0 && u < 1.0 && quu > 0.0) {
        for (int r = 0; r < 6; r++) {
            for (int s = 0; s < 6; s++) Q[6 * r + s] -= w[r] * w[s] / quu;
        }
    }
    // D = sqrt(Q): D_xx = Q_xx / (2 D) - D_x D_x' / D
    const double g[6] = {(1.0 - u) * v[0] / dist, (1.0 - u) * v[1] / dist, (1.0 - u) * v[2] / dist,
                         u * v[0] / dist,         u * v[1] / dist,         u * v[2] / dist};
    for (int r = 0; r < 6; r++) {
        for (int s = 0; s < 6; s++) H6[6 * r + s] = Q[6 * r + s] / (2.0 * dist) - g[r] * g[s] / dist;
    }
    return 1;
}


double salto_box_segment_distance(const double c[3], const double h[3], const int use[3],
                                  const double a[3], const double b[3], double* uo, double ga[3],
                                  double gb[3], double* H6) {
    double D;
    if (outside(c, h, use, a, b, &D, uo, ga, gb, H6)) return D;
    // reaching in: D = min over u of max over the faces i = (axis k, side s) of the depths'
    // negatives l_i(u) = alpha_i + u beta_i, alpha_i = s (a_k - c_k) - h_k, beta_i = s d_k: a
    // convex piecewise-linear function, least at an end or where two pieces meet
    double al[6], be[6];
    int ax[6], sg[6], np = 0;
    for (int k = 0; k < 3; k++) {
        if (!use[k]) continue;
        for (int s = -1; s <= 1; s += 2) {
            ax[np] = k, sg[np] = s;
            al[np] = s * (a[k] - c[k]) - h[k];
            be[np] = s * (b[k] - a[k]);
            np++;
        }
    }
    double cand[2 + 15];
    int nc = 0;
    cand[nc++] = 0.0, cand[nc++] = 1.0;
    for (int i = 0; i < np; i++) {
        for (int j = i + 1; j < np; j++) {
            if (be[i] == be[j]) continue;
            const double u = (al[j] - al[i]) / (be[i] - be[j]);
            if (u > 0.0 && u < 1.0) cand[nc++] = u;
        }
    }
    double best = INFINITY, u = 0.0;
    for (int n = 0; n < nc; n++) {
        double f = -INFINITY;
        for (int i = 0; i < np; i++) f = fmax(f, al[i] + cand[n] * be[i]);
        if (f < best) best = f, u = cand[n];
    }
    if (uo) *uo = u;
    // the pieces reaching the maximum at u: one rising (beta > 0) and one falling (beta < 0)
    // meet there inside (0, 1); otherwise the largest alone holds D
    const double tol = 1e-12 * (1.0 + fabs(best));
    int ip = -1, in = -1, i0 = 0;
    for (int i = 0; i < np; i++) {
        const double l = al[i] + u * be[i];
        if (l > al[i0] + u * be[i0]) i0 = i;
        if (l < best - tol) continue;
        if (be[i] > 0.0 && (ip < 0 || be[i] > be[ip])) ip = i;
        if (be[i] < 0.0 && (in < 0 || be[i] < be[in])) in = i;
    }
    double A[2][6], B[2][6];
    const int pair = u > 0.0 && u < 1.0 && ip >= 0 && in >= 0;
    const int pc[2] = {pair ? ip : i0, pair ? in : i0};
    for (int t = 0; t < 2; t++) {
        memset(A[t], 0, sizeof A[t]);
        memset(B[t], 0, sizeof B[t]);
        const int k = ax[pc[t]];
        A[t][k] = sg[pc[t]];
        B[t][k] = -sg[pc[t]];
        B[t][3 + k] = sg[pc[t]];
    }
    double g[6];
    if (!pair) {
        // D = alpha + u beta at the fixed end u (or along a flat piece): linear in (a, b)
        for (int r = 0; r < 6; r++) g[r] = A[0][r] + u * B[0][r];
        if (H6) memset(H6, 0, 36 * sizeof(double));
    } else {
        // D = N / M, N = alpha_n beta_p - alpha_p beta_n, M = beta_p - beta_n (p rising, n falling)
        const int p = ip, q = in;
        const double M = be[p] - be[q];
        double Nx[6], Mx[6];
        for (int r = 0; r < 6; r++) {
            Nx[r] = be[p] * A[1][r] + al[q] * B[0][r] - be[q] * A[0][r] - al[p] * B[1][r];
            Mx[r] = B[0][r] - B[1][r];
        }
        best = (al[q] * be[p] - al[p] * be[q]) / M;
        for (int r = 0; r < 6; r++) g[r] = (Nx[r] - best * Mx[r]) / M;
        if (H6) {
            for (int r = 0; r < 6; r++) {
                for (int s = 0; s < 6; s++) {
                    const double Nxx = A[1][r] * B[0][s] + B[0][r] * A[1][s] - A[0][r] * B[1][s] - B[1][r] * A[0][s];
                    H6[6 * r + s] = (Nxx - g[r] * Mx[s] - Mx[r] * g[s]) / M;
                }
            }
        }
    }
    for (int k = 0; k < 3; k++) {
        if (ga) ga[k] = g[k];
        if (gb) gb[k] = g[3 + k];
    }
    return best;
}


// x turned by -yaw about +z through c (into the box's frame)
static void to_box(const double c[3], double cz, double sz, const double x[3], double y[3]) {
    const double dx = x[0] - c[0], dy = x[1] - c[1];
    y[0] = c[0] + cz * dx + sz * dy;
    y[1] = c[1] - sz * dx + cz * dy;
    y[2] = x[2];
}


// v turned by +yaw about +z (back into the world)
static void from_box(double cz, double sz, double v[3]) {
    const double x = v[0], y = v[1];
    v[0] = cz * x - sz * y;
    v[1] = sz * x + cz * y;
}


double salto_box_point_distance_turned(const double c[3], const double h[3], const int use[3],
                                       double yaw, const double x[3], double n[3]) {
    if (yaw == 0.0) return salto_box_point_distance(c, h, use, x, n);
    const double cz = cos(yaw), sz = sin(yaw);
    double y[3];
    to_box(c, cz, sz, x, y);
    const double d = salto_box_point_distance(c, h, use, y, n);
    if (n) from_box(cz, sz, n);
    return d;
}


double salto_box_segment_distance_turned(const double c[3], const double h[3], const int use[3],
                                         double yaw, const double a[3], const double b[3],
                                         double* u, double ga[3], double gb[3], double* H6) {
    if (yaw == 0.0) return salto_box_segment_distance(c, h, use, a, b, u, ga, gb, H6);
    const double cz = cos(yaw), sz = sin(yaw);
    double ya[3], yb[3];
    to_box(c, cz, sz, a, ya);
    to_box(c, cz, sz, b, yb);
    const double D = salto_box_segment_distance(c, h, use, ya, yb, u, ga, gb, H6);
    if (ga) from_box(cz, sz, ga);
    if (gb) from_box(cz, sz, gb);
    if (H6) {
        // H = T H' T' with T = diag(R, R), R the turn (its z row and column the identity's)
        const double R[9] = {cz, -sz, 0, sz, cz, 0, 0, 0, 1};
        double T[36], M[36];
        for (int k = 0; k < 36; k++) T[k] = 0.0;
        for (int e = 0; e < 2; e++) {
            for (int r = 0; r < 3; r++) {
                for (int q = 0; q < 3; q++) T[6 * (3 * e + r) + 3 * e + q] = R[3 * r + q];
            }
        }
        for (int r = 0; r < 6; r++) {
            for (int q = 0; q < 6; q++) {
                double acc = 0.0;
                for (int k = 0; k < 6; k++) acc += T[6 * r + k] * H6[6 * k + q];
                M[6 * r + q] = acc;
            }
        }
        for (int r = 0; r < 6; r++) {
            for (int q = 0; q < 6; q++) {
                double acc = 0.0;
                for (int k = 0; k < 6; k++) acc += M[6 * r + k] * T[6 * q + k];
                H6[6 * r + q] = acc;
            }
        }
    }
    return D;
}
