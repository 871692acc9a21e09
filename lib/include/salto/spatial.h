// spatial.h: 3-vectors, 3x3 matrices and Featherstone's spatial algebra, header-only kernels
//
// Conventions (RBDA = Featherstone, Rigid Body Dynamics Algorithms, 2008):
// - spatial vectors are [angular; linear], double[6], expressed in the world frame about the
//   world origin unless a name says otherwise;
// - 3x3 matrices are row-major double[9];
// - symmetric 3x3 matrices are stored as 6 numbers: xx yy zz xy xz yz;
// - a rigid-body spatial inertia about the world origin is stored as 10 numbers
//   (m, h = m c (3), Ibar (6)), Ibar the rotational inertia about the origin, so that
//   I [w; v] = [Ibar w + h x v; m v - h x w] (RBDA eq. 2.63 in this parametrisation).
//   The time derivative of an inertia (and sums of such) uses the same 10-number form.
#ifndef SALTO_SPATIAL_H
#define SALTO_SPATIAL_H

#include <math.h>

// ---- sine and cosine together ----

// sin and cos of x. For |x| < 1e5 (any joint angle): Cody-Waite reduction by pi/2 with a
// two-part constant (the first part has 33 significant bits, so k P1 is exact for
// |k| < 2^20), then the minimax polynomials of fdlibm's __kernel_sin and __kernel_cos on
// [-pi/4, pi/4] (Sun Microsystems, 1993; error below 2^-58 relative); tests/test_spatial.c
// checks agreement with libm. Larger or non-finite x go to libm. Inline and branch-light:
// libm's sincos costs about as much as the rest of a link's forward kinematics.
static inline void salto_sincos(double x, double* s, double* c) {
    if (!(fabs(x) < 1e5)) {
        *s = sin(x);
        *c = cos(x);
        return;
    }
    const double shifter = 6755399441055744.0; // 1.5 * 2^52: x * 2/pi + shifter rounds
    const double k = (x * 0.63661977236758134308 + shifter) - shifter;
    const long n = (long)k;
    const double P1 = 1.57079632673412561417e+00, P1t = 6.07710050650619224932e-11;
    const double r = (x - k * P1) - k * P1t;
    const double z = r * r;
    const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                 S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                 S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
    const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                 C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                 C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
    const double sr = r + r * z * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
    const double hz = 0.5 * z, w = 1.0 - hz;
    const double cp =
        w + (((1.0 - w) - hz) + z * z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6))))));
    switch (n & 3) {
    case 0: *s = sr, *c = cp; break;
    case 1: *s = cp, *c = -sr; break;
    case 2: *s = -sr, *c = -cp; break;
    default: *s = -cp, *c = sr; break;
    }
}

// ---- 3-vectors ----

static inline void salto_v3_cross(double* r, const double* a, const double* b) {
    const double x = a[1] * b[2] - a[2] * b[1];
    const double y = a[2] * b[0] - a[0] * b[2];
    const double z = a[0] * b[1] - a[1] * b[0];
    r[0] = x, r[1] = y, r[2] = z;
}

static inline double salto_v3_dot(const double* a, const double* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline double salto_v3_norm(const double* a) {
    return sqrt(salto_v3_dot(a, a));
}

// r = a x b + r
static inline void salto_v3_cross_add(double* r, const double* a, const double* b) {
    r[0] += a[1] * b[2] - a[2] * b[1];
    r[1] += a[2] * b[0] - a[0] * b[2];
    r[2] += a[0] * b[1] - a[1] * b[0];
}

// ---- 3x3 matrices (row-major) ----

// r = M x
static inline void salto_m3_mul_v3(double* r, const double* M, const double* x) {
    const double a = M[0] * x[0] + M[1] * x[1] + M[2] * x[2];
    const double b = M[3] * x[0] + M[4] * x[1] + M[5] * x[2];
    const double c = M[6] * x[0] + M[7] * x[1] + M[8] * x[2];
    r[0] = a, r[1] = b, r[2] = c;
}

// r = M' x
static inline void salto_m3t_mul_v3(double* r, const double* M, const double* x) {
    const double a = M[0] * x[0] + M[3] * x[1] + M[6] * x[2];
    const double b = M[1] * x[0] + M[4] * x[1] + M[7] * x[2];
    const double c = M[2] * x[0] + M[5] * x[1] + M[8] * x[2];
    r[0] = a, r[1] = b, r[2] = c;
}

// r = A B (r may not alias A or B)
static inline void salto_m3_mul(double* r, const double* A, const double* B) {
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            r[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
        }
    }
}

// r = A' B (3 x 3)
static inline void salto_m3t_mul(double* r, const double* A, const double* B) {
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) r[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
    }
}

// r = A B' (3 x 3)
static inline void salto_m3_mul_t(double* r, const double* A, const double* B) {
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            r[3 * i + j] = A[3 * i] * B[3 * j] + A[3 * i + 1] * B[3 * j + 1] + A[3 * i + 2] * B[3 * j + 2];
        }
    }
}

// rotation matrix about unit axis u by angle t (Rodrigues)
static inline void salto_m3_axis_angle(double* R, const double* u, double t) {
    const double c = cos(t), s = sin(t), k = 1.0 - c;
    R[0] = c + k * u[0] * u[0];
    R[1] = k * u[0] * u[1] - s * u[2];
    R[2] = k * u[0] * u[2] + s * u[1];
    R[3] = k * u[1] * u[0] + s * u[2];
    R[4] = c + k * u[1] * u[1];
    R[5] = k * u[1] * u[2] - s * u[0];
    R[6] = k * u[2] * u[0] - s * u[1];
    R[7] = k * u[2] * u[1] + s * u[0];
    R[8] = c + k * u[2] * u[2];
}

// ---- unit quaternions (w, x, y, z) ----

// the rotation matrix of q (row-major; its columns the rotated axes)
static inline void salto_quat_to_m3(double* R, const double* q) {
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

// the quaternion of the rotation matrix R (Shepperd's method: from the largest of the trace
// and the diagonal, so that no division is by a small number)
static inline void salto_m3_to_quat(double* q, const double* R) {
    const double tr = R[0] + R[4] + R[8];
    if (tr > 0.0) {
        const double s = 2.0 * sqrt(1.0 + tr);
        q[0] = 0.25 * s, q[1] = (R[7] - R[5]) / s, q[2] = (R[2] - R[6]) / s, q[3] = (R[3] - R[1]) / s;
    } else if (R[0] > R[4] && R[0] > R[8]) {
        const double s = 2.0 * sqrt(1.0 + R[0] - R[4] - R[8]);
        q[0] = (R[7] - R[5]) / s, q[1] = 0.25 * s, q[2] = (R[1] + R[3]) / s, q[3] = (R[2] + R[6]) / s;
    } else if (R[4] > R[8]) {
        const double s = 2.0 * sqrt(1.0 + R[4] - R[0] - R[8]);
        q[0] = (R[2] - R[6]) / s, q[1] = (R[1] + R[3]) / s, q[2] = 0.25 * s, q[3] = (R[5] + R[7]) / s;
    } else {
        const double s = 2.0 * sqrt(1.0 + R[8] - R[0] - R[4]);
        q[0] = (R[3] - R[1]) / s, q[1] = (R[2] + R[6]) / s, q[2] = (R[5] + R[7]) / s, q[3] = 0.25 * s;
    }
}

// r = a b (the rotation b, then a), normalized
static inline void salto_quat_mul(double* r, const double* a, const double* b) {
    const double n[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                         a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                         a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                         a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
    const double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] + n[3] * n[3]);
    for (int k = 0; k < 4; k++) r[k] = n[k] / nn;
}

// q turned by the world rotation vector v (q <- exp(v) q: q's rotation, then v's), normalized
static inline void salto_quat_turn(double* q, const double* v) {
    const double t = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(t > 0.0)) return;
    const double s = sin(0.5 * t) / t, c = cos(0.5 * t);
    const double d[4] = {c, s * v[0], s * v[1], s * v[2]};
    salto_quat_mul(q, d, q);
}

// The spherical linear interpolation of unit quaternions from a (t = 0) to b (t = 1) along the
// short arc (b negated when a . b < 0: the same rotation; de Heras 2002, eq. 3.20), normalized.
// The angle by 2 atan2(|a - b|, |a + b|), accurate at every angle (acos is not near 0); below
// 1e-9 rad the weights are linear.
static inline void salto_quat_slerp(double* r, const double* a, const double* b, double t) {
    const double sg = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0.0 ? -1.0 : 1.0;
    double dm = 0.0, dp = 0.0;
    for (int k = 0; k < 4; k++) {
        dm += (a[k] - sg * b[k]) * (a[k] - sg * b[k]);
        dp += (a[k] + sg * b[k]) * (a[k] + sg * b[k]);
    }
    const double om = 2.0 * atan2(sqrt(dm), sqrt(dp)); // the angle between a and sg b on the sphere
    double wa = 1.0 - t, wb = t;
    if (om > 1e-9) {
        const double so = sin(om);
        wa = sin((1.0 - t) * om) / so, wb = sin(t * om) / so;
    }
    double n = 0.0;
    for (int k = 0; k < 4; k++) r[k] = wa * a[k] + wb * sg * b[k], n += r[k] * r[k];
    n = sqrt(n);
    for (int k = 0; k < 4; k++) r[k] /= n;
}

// symmetric 3x3 (xx yy zz xy xz yz) times vector
static inline void salto_sym3_mul_v3(double* r, const double* S, const double* x) {
    const double a = S[0] * x[0] + S[3] * x[1] + S[4] * x[2];
    const double b = S[3] * x[0] + S[1] * x[1] + S[5] * x[2];
    const double c = S[4] * x[0] + S[5] * x[1] + S[2] * x[2];
    r[0] = a, r[1] = b, r[2] = c;
}

// ---- spatial vectors ----

// r = v x m (motion cross product, RBDA eq. 2.31)
static inline void salto_sv_crossm(double* r, const double* v, const double* m) {
    double a[3], b[3];
    salto_v3_cross(a, v, m);
    salto_v3_cross(b, v, m + 3);
    salto_v3_cross_add(b, v + 3, m);
    r[0] = a[0], r[1] = a[1], r[2] = a[2], r[3] = b[0], r[4] = b[1], r[5] = b[2];
}

// r = v x* f (force cross product, RBDA eq. 2.32)
static inline void salto_sv_crossf(double* r, const double* v, const double* f) {
    double a[3], b[3];
    salto_v3_cross(a, v, f);
    salto_v3_cross_add(a, v + 3, f + 3);
    salto_v3_cross(b, v, f + 3);
    r[0] = a[0], r[1] = a[1], r[2] = a[2], r[3] = b[0], r[4] = b[1], r[5] = b[2];
}

// r += v x* f
static inline void salto_sv_crossf_add(double* r, const double* v, const double* f) {
    salto_v3_cross_add(r, v, f);
    salto_v3_cross_add(r, v + 3, f + 3);
    salto_v3_cross_add(r + 3, v, f + 3);
}

// motion-force pairing m . f
static inline double salto_sv_dot(const double* m, const double* f) {
    return m[0] * f[0] + m[1] * f[1] + m[2] * f[2] + m[3] * f[3] + m[4] * f[4] + m[5] * f[5];
}

// r += a (r and a must not overlap)
static inline void salto_sv_add_to(double* restrict r, const double* restrict a) {
    for (int k = 0; k < 6; k++) r[k] += a[k];
}

// r += s a (r and a must not overlap)
static inline void salto_sv_axpy(double* restrict r, double s, const double* restrict a) {
    for (int k = 0; k < 6; k++) r[k] += s * a[k];
}

// ---- spatial inertia (m, h, Ibar) ----

// A body's inertia given as (m, c (3), I about c (6: xx yy zz xy xz yz)) in some frame, in the
// (m, h, Ibar) form about that frame's origin: h = m c, Ibar = I + m (|c|^2 1 - c c')
static inline void salto_si_from_com(double* I, const double* L) {
    const double mass = L[0], cx = L[1], cy = L[2], cz = L[3];
    const double cc = cx * cx + cy * cy + cz * cz;
    I[0] = mass, I[1] = mass * cx, I[2] = mass * cy, I[3] = mass * cz;
    I[4] = L[4] + mass * (cc - cx * cx);
    I[5] = L[5] + mass * (cc - cy * cy);
    I[6] = L[6] + mass * (cc - cz * cz);
    I[7] = L[7] - mass * cx * cy;
    I[8] = L[8] - mass * cx * cz;
    I[9] = L[9] - mass * cy * cz;
}

// r = I m
static inline void salto_si_mul(double* r, const double* I, const double* x) {
    const double* h = I + 1;
    double a[3], b[3];
    salto_sym3_mul_v3(a, I + 4, x);
    salto_v3_cross_add(a, h, x + 3);
    salto_v3_cross(b, x, h); // -h x w = w x h
    b[0] += I[0] * x[3], b[1] += I[0] * x[4], b[2] += I[0] * x[5];
    r[0] = a[0], r[1] = a[1], r[2] = a[2], r[3] = b[0], r[4] = b[1], r[5] = b[2];
}

// r += I m
static inline void salto_si_mul_add(double* r, const double* I, const double* x) {
    double t[6];
    salto_si_mul(t, I, x);
    salto_sv_add_to(r, t);
}

static inline void salto_si_add_to(double* restrict r, const double* restrict I) {
    for (int k = 0; k < 10; k++) r[k] += I[k];
}

// r = d/dt I when the inertia moves with spatial velocity V = [w; v]: V x* I - I V x.
// In the (m, h, Ibar) form: (0, w x h + m v, [w]Ibar - Ibar[w] - ([v][h] + [h][v])),
// with [a][b] + [b][a] = a b' + b a' - 2 (a . b) 1.
static inline void salto_si_rate(double* r, const double* I, const double* V) {
    const double* w = V;
    const double* v = V + 3;
    const double* h = I + 1;
    const double* J = I + 4;
    double wh[3];
    salto_v3_cross(wh, w, h);
    r[0] = 0.0;
    r[1] = wh[0] + I[0] * v[0];
    r[2] = wh[1] + I[0] * v[1];
    r[3] = wh[2] + I[0] * v[2];
    // M = [w] J (full 3x3), [w]J - J[w] = M + M'
    const double J00 = J[0], J11 = J[1], J22 = J[2], J01 = J[3], J02 = J[4], J12 = J[5];
    const double M00 = w[1] * J02 - w[2] * J01;
    const double M11 = w[2] * J01 - w[0] * J12;
    const double M22 = w[0] * J12 - w[1] * J02;
    const double M01 = w[1] * J12 - w[2] * J11;
    const double M10 = w[2] * J00 - w[0] * J02;
    const double M02 = w[1] * J22 - w[2] * J12;
    const double M20 = w[0] * J01 - w[1] * J00;
    const double M12 = w[2] * J02 - w[0] * J22;
    const double M21 = w[0] * J11 - w[1] * J01;
    const double vh = 2.0 * salto_v3_dot(v, h);
    r[4] = 2.0 * M00 - (2.0 * v[0] * h[0] - vh);
    r[5] = 2.0 * M11 - (2.0 * v[1] * h[1] - vh);
    r[6] = 2.0 * M22 - (2.0 * v[2] * h[2] - vh);
    r[7] = M01 + M10 - (v[0] * h[1] + v[1] * h[0]);
    r[8] = M02 + M20 - (v[0] * h[2] + v[2] * h[0]);
    r[9] = M12 + M21 - (v[1] * h[2] + v[2] * h[1]);
}

// r += d/dt I for velocity V (see salto_si_rate)
static inline void salto_si_rate_add(double* r, const double* I, const double* V) {
    double t[10];
    salto_si_rate(t, I, V);
    for (int k = 1; k < 10; k++) r[k] += t[k];
}

// ---- symmetric 6x6 (articulated inertia), 21 numbers, upper triangle row by row ----

// index of (i, j), i <= j, in the packed upper triangle
static inline int salto_s6_idx(int i, int j) {
    return i * 6 - i * (i - 1) / 2 + (j - i);
}

// r = P x for packed symmetric P (r must not alias x)
static inline void salto_s6_mul(double* r, const double* P, const double* x) {
    const double x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5];
    r[0] = P[0] * x0 + P[1] * x1 + P[2] * x2 + P[3] * x3 + P[4] * x4 + P[5] * x5;
    r[1] = P[1] * x0 + P[6] * x1 + P[7] * x2 + P[8] * x3 + P[9] * x4 + P[10] * x5;
    r[2] = P[2] * x0 + P[7] * x1 + P[11] * x2 + P[12] * x3 + P[13] * x4 + P[14] * x5;
    r[3] = P[3] * x0 + P[8] * x1 + P[12] * x2 + P[15] * x3 + P[16] * x4 + P[17] * x5;
    r[4] = P[4] * x0 + P[9] * x1 + P[13] * x2 + P[16] * x3 + P[18] * x4 + P[19] * x5;
    r[5] = P[5] * x0 + P[10] * x1 + P[14] * x2 + P[17] * x3 + P[19] * x4 + P[20] * x5;
}


// packed symmetric 6x6 of a rigid-body inertia (m, h, Ibar):
// [[Ibar, [h]], [[h]', m 1]] where [h] x = h x x
static inline void salto_s6_from_si(double* P, const double* I) {
    const double m = I[0], hx = I[1], hy = I[2], hz = I[3];
    // row 0: Ibar_xx Ibar_xy Ibar_xz | [h] row 0 = (0, -hz, hy)
    P[0] = I[4], P[1] = I[7], P[2] = I[8], P[3] = 0.0, P[4] = -hz, P[5] = hy;
    // row 1: Ibar_yy Ibar_yz | (hz, 0, -hx)
    P[6] = I[5], P[7] = I[9], P[8] = hz, P[9] = 0.0, P[10] = -hx;
    // row 2: Ibar_zz | (-hy, hx, 0)
    P[11] = I[6], P[12] = -hy, P[13] = hx, P[14] = 0.0;
    // rows 3-5: m 1
    P[15] = m, P[16] = 0.0, P[17] = 0.0;
    P[18] = m, P[19] = 0.0;
    P[20] = m;
}

#endif
