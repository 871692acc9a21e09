// orient.c: the free root's orientation charts (orient.h)
#include "salto/orient.h"

#include <math.h>
#include <string.h>

#include "salto/spatial.h"

static const double pi = 3.14159265358979323846;


int salto_root_order(const salto_model* m, int o[3]) {
    if (!m || m->root_type != SALTO_ROOT_FREE || m->nroot != 6 || m->nv < 6) return 0;
    for (int a = 0; a < 3; a++) {
        o[a] = m->link_axis_k[3 + a];
        if (m->link_type[3 + a] != SALTO_AXIS_REVOLUTE || o[a] < 0) return 0;
    }
    return 1;
}


// R := R Rot(e_k, t)
static void post_rotate(double R[9], int k, double t) {
    double e[3] = {0, 0, 0}, Q[9], T[9];
    e[k] = 1.0;
    salto_m3_axis_angle(Q, e, t);
    salto_m3_mul(T, R, Q);
    memcpy(R, T, sizeof T);
}


void salto_euler_matrix(const int o[3], const double q[3], double E[9]) {
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(E, I, sizeof I);
    for (int a = 0; a < 3; a++) post_rotate(E, o[a], q[a]);
}


// the angles (a, b, c) of E = R_i(a) R_j(b) R_k(c), b in [-90, 90] deg
static void euler_of(const int o[3], const double* E, double e[3]) {
    const int i = o[0], j = o[1], k = o[2];
    const double eps = ((j - i + 3) % 3 == 1) ? 1.0 : -1.0; // +1 for a cyclic order
    double sb = eps * E[3 * i + k];
    sb = sb > 1.0 ? 1.0 : sb < -1.0 ? -1.0 : sb;
    e[1] = asin(sb);
    e[0] = atan2(-eps * E[3 * j + k], E[3 * k + k]);
    e[2] = atan2(-eps * E[3 * i + j], E[3 * i + i]);
}


// of the two angle sets, (a, b, c) and (a + pi, pi - b, c + pi), and their 2 pi shifts, the
// one nearest prev
static void euler_nearest(double e[3], const double prev[3]) {
    double best[3], bd = INFINITY;
    for (int fam = 0; fam < 2; fam++) {
        double f[3] = {e[0], e[1], e[2]};
        if (fam) {
            f[0] += pi;
            f[1] = pi - f[1];
            f[2] += pi;
        }
        double dsum = 0.0;
        for (int a = 0; a < 3; a++) {
            f[a] += 2.0 * pi * round((prev[a] - f[a]) / (2.0 * pi));
            dsum += fabs(f[a] - prev[a]);
        }
        if (dsum < bd) bd = dsum, memcpy(best, f, sizeof best);
    }
    memcpy(e, best, sizeof best);
}


void salto_euler_angles(const int o[3], const double E[9], const double* prev, double q[3]) {
    euler_of(o, E, q);
    if (prev) euler_nearest(q, prev);
}


void salto_euler_chart_angles(const int o[3], const double* B, const double R[9], const double* prev,
                              double q[3]) {
    if (!B) {
        salto_euler_angles(o, R, prev, q);
        return;
    }
    double E[9]; // B' R
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) E[3 * r + c] = B[r] * R[c] + B[3 + r] * R[3 + c] + B[6 + r] * R[6 + c];
    }
    salto_euler_angles(o, E, prev, q);
}


void salto_euler_axes(const int o[3], const double q[3], double J[9]) {
    double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int a = 0; a < 3; a++) {
        for (int r = 0; r < 3; r++) J[3 * r + a] = R[3 * r + o[a]];
        post_rotate(R, o[a], q[a]);
    }
}


void salto_euler_axes_rate(const int o[3], const double q[3], const double qd[3], double Jd[9]) {
    double J[9], w[3] = {0, 0, 0};
    salto_euler_axes(o, q, J);
    for (int a = 0; a < 3; a++) {
        // column a turns with the angular velocity of the links before it
        const double c[3] = {J[a], J[3 + a], J[6 + a]};
        double d[3];
        salto_v3_cross(d, w, c);
        for (int r = 0; r < 3; r++) Jd[3 * r + a] = d[r];
        for (int r = 0; r < 3; r++) w[r] += c[r] * qd[a];
    }
}


// x = J^-1 b, damped least squares (J'J + mu I) x = J' b where J is singular
static void solve_axes(const double J[9], const double b[3], double x[3]) {
    double N[9], rhs[3];
    for (int a = 0; a < 3; a++) {
        rhs[a] = J[a] * b[0] + J[3 + a] * b[1] + J[6 + a] * b[2];
        for (int c = 0; c < 3; c++) N[3 * a + c] = J[a] * J[c] + J[3 + a] * J[3 + c] + J[6 + a] * J[6 + c];
    }
    const double mu = 1e-14 * (N[0] + N[4] + N[8]);
    for (int a = 0; a < 3; a++) N[4 * a] += mu;
    // 3 x 3 Cholesky
    const double l00 = sqrt(N[0]);
    const double l10 = N[3] / l00, l20 = N[6] / l00;
    const double l11 = sqrt(N[4] - l10 * l10);
    const double l21 = (N[7] - l20 * l10) / l11;
    const double l22 = sqrt(N[8] - l20 * l20 - l21 * l21);
    const double y0 = rhs[0] / l00, y1 = (rhs[1] - l10 * y0) / l11;
    const double y2 = (rhs[2] - l20 * y0 - l21 * y1) / l22;
    x[2] = y2 / l22;
    x[1] = (y1 - l21 * x[2]) / l11;
    x[0] = (y0 - l10 * x[1] - l20 * x[2]) / l00;
}


// r = B' v (B NULL: the identity)
static void to_chart(const double* B, const double v[3], double r[3]) {
    if (B) {
        salto_m3t_mul_v3(r, B, v);
    } else {
        memcpy(r, v, 3 * sizeof(double));
    }
}


static void from_chart(const double* B, const double v[3], double r[3]) {
    if (B) {
        salto_m3_mul_v3(r, B, v);
    } else {
        memcpy(r, v, 3 * sizeof(double));
    }
}


void salto_euler_rechart(const int o[3], const double* Ba, const double* Bb, const double qa[3],
                         const double* qda, const double* qdda, const double* prev, double qb[3],
                         double* qdb, double* qddb) {
    // the world orientation B_a E(qa), and E(qb) = B_b' of it
    double Ea[9], R[9];
    salto_euler_matrix(o, qa, Ea);
    if (Ba) {
        salto_m3_mul(R, Ba, Ea);
    } else {
        memcpy(R, Ea, sizeof R);
    }
    double q[3];
    salto_euler_chart_angles(o, Bb, R, prev, q);
    if (qdb) {
        double Ja[9], Jb[9], wa[3], w[3], wb[3], v[3];
        salto_euler_axes(o, qa, Ja);
        salto_euler_axes(o, q, Jb);
        salto_m3_mul_v3(wa, Ja, qda);
        from_chart(Ba, wa, w);
        to_chart(Bb, w, wb);
        solve_axes(Jb, wb, v);
        if (qddb) {
            double Jda[9], Jdb[9], aa[3], t[3], a[3], ab[3];
            salto_euler_axes_rate(o, qa, qda, Jda);
            salto_m3_mul_v3(aa, Ja, qdda);
            salto_m3_mul_v3(t, Jda, qda);
            for (int r = 0; r < 3; r++) aa[r] += t[r];
            from_chart(Ba, aa, a);
            to_chart(Bb, a, ab);
            salto_euler_axes_rate(o, q, v, Jdb);
            salto_m3_mul_v3(t, Jdb, v);
            for (int r = 0; r < 3; r++) ab[r] -= t[r];
            solve_axes(Jb, ab, qddb);
        }
        memcpy(qdb, v, sizeof v);
    }
    memcpy(qb, q, sizeof q);
}


void salto_euler_frames_rechart(const int o[3], const double* Ba, const double* Bb,
                                const double* prev0, double* q, int n, int stride) {
    const double* prev = prev0;
    for (int k = 0; k < n; k++) {
        double* f = q + (size_t)k * (size_t)stride + 3;
        double c[3];
        salto_euler_rechart(o, Ba, Bb, f, NULL, NULL, prev, c, NULL, NULL);
        memcpy(f, c, sizeof c);
        prev = f;
    }
}


double salto_euler_tilt(const int o[3], const double* B, const double R[9]) {
    // (B e_i) . (R e_k)
    double n[3] = {0, 0, 0};
    if (B) {
        n[0] = B[o[0]], n[1] = B[3 + o[0]], n[2] = B[6 + o[0]];
    } else {
        n[o[0]] = 1.0;
    }
    const int k = o[2];
    return fabs(n[0] * R[k] + n[1] * R[3 + k] + n[2] * R[6 + k]);
}


double salto_euler_reference(const int o[3], const double* R, int n, double B[9]) {
    // directions on the upper half of a Fibonacci sphere about e_i (a direction and its
    // opposite are the same singular set): the one whose largest |n . R e_k| is least, the
    // nearest e_i among equals (the first candidate is e_i itself)
    const int ndir = 4000, k = o[2];
    const double golden = pi * (3.0 - sqrt(5.0));
    double best = INFINITY, bn[3] = {0, 0, 0};
    for (int c = 0; c < ndir; c++) {
        const double z = 1.0 - (double)c / (double)ndir; // cos of the angle from e_i, 1 first
        const double r = sqrt(fmax(0.0, 1.0 - z * z)), phi = golden * c;
        // the direction in a frame whose third axis is e_i
        const double l[3] = {r * cos(phi), r * sin(phi), z};
        double d[3];
        d[o[0]] = l[2], d[o[1]] = l[0], d[o[2]] = l[1];
        double worst = 0.0;
        for (int s = 0; s < n && worst < best; s++) {
            const double* Rs = R + 9 * s;
            const double v = fabs(d[0] * Rs[k] + d[1] * Rs[3 + k] + d[2] * Rs[6 + k]);
            if (v > worst) worst = v;
        }
        if (worst < best - 1e-12) best = worst, memcpy(bn, d, sizeof bn);
    }
    // the rotation about e_i x bn by their angle
    double ei[3] = {0, 0, 0}, ax[3];
    ei[o[0]] = 1.0;
    salto_v3_cross(ax, ei, bn);
    const double s = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    const double cth = ei[0] * bn[0] + ei[1] * bn[1] + ei[2] * bn[2];
    if (s < 1e-15) {
        static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(B, I, sizeof I);
    } else {
        for (int a = 0; a < 3; a++) ax[a] /= s;
        salto_m3_axis_angle(B, ax, atan2(s, cth));
    }
    return n > 0 ? best : 0.0;
}


void salto_model_set_root_reference(salto_model* m, const double* B) {
    int o[3];
    if (!salto_root_order(m, o)) return;
    double* R = m->link_Rtree + 9 * 3;
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double* src = B ? B : I;
    memcpy(R, src, 9 * sizeof(double));
    m->link_tree_rot[3] = memcmp(src, I, sizeof I) != 0;
}
