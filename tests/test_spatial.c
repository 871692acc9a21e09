// test_spatial.c: identities of the spatial-algebra kernels
#include <math.h>
#include <stdio.h>

#include "salto/spatial.h"
#include "test_suites.h"
#include "test_util.h"

static void rand_vec(salto_test_rng* r, double* v, int n) {
    for (int k = 0; k < n; k++) v[k] = salto_test_uniform(r, -1, 1);
}


// a random rigid-body inertia (m, h, Ibar) about the origin: com c, I_com = A A' + 0.1 1
static void rand_inertia(salto_test_rng* r, double I[10]) {
    double A[9], c[3];
    rand_vec(r, A, 9);
    rand_vec(r, c, 3);
    const double m = salto_test_uniform(r, 0.5, 3);
    double Ic[9];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            Ic[3 * i + j] = (i == j ? 0.1 : 0.0);
            for (int k = 0; k < 3; k++) Ic[3 * i + j] += A[3 * i + k] * A[3 * j + k];
        }
    }
    const double cc = salto_v3_dot(c, c);
    I[0] = m;
    for (int k = 0; k < 3; k++) I[1 + k] = m * c[k];
    I[4] = Ic[0] + m * (cc - c[0] * c[0]);
    I[5] = Ic[4] + m * (cc - c[1] * c[1]);
    I[6] = Ic[8] + m * (cc - c[2] * c[2]);
    I[7] = Ic[1] - m * c[0] * c[1];
    I[8] = Ic[2] - m * c[0] * c[2];
    I[9] = Ic[5] - m * c[1] * c[2];
}


START_TEST(cross_products) {
    salto_test_rng r;
    salto_test_rng_seed(&r, (uint64_t)_i);
    double v[6], w[6], u[6], f[6], a[6], b[6], c[6];
    rand_vec(&r, v, 6);
    rand_vec(&r, w, 6);
    rand_vec(&r, u, 6);
    rand_vec(&r, f, 6);
    const double zero[6] = {0, 0, 0, 0, 0, 0};

    // v x v = 0
    salto_sv_crossm(a, v, v);
    ck_assert_vec_close(a, zero, 6, 1e-15, 0, "v x v");

    // (v x m) . f + m . (v x* f) = 0  (x* is minus the dual of x)
    salto_sv_crossm(a, v, w);
    salto_sv_crossf(b, v, f);
    ck_assert_double_eq_tol(salto_sv_dot(a, f) + salto_sv_dot(w, b), 0.0, 1e-14);

    // Jacobi: v x (w x u) = (v x w) x u + w x (v x u)
    salto_sv_crossm(a, w, u);
    salto_sv_crossm(b, v, a);
    salto_sv_crossm(a, v, w);
    salto_sv_crossm(c, a, u);
    salto_sv_crossm(a, v, u);
    double t[6];
    salto_sv_crossm(t, w, a);
    for (int k = 0; k < 6; k++) c[k] += t[k];
    ck_assert_vec_close(b, c, 6, 1e-14, 1e-14, "Jacobi");
}
END_TEST


START_TEST(inertia_kernels) {
    salto_test_rng r;
    salto_test_rng_seed(&r, 100u + (uint64_t)_i);
    double I[10], V[6], x[6], a[6], b[6], P[21], R[10];
    rand_inertia(&r, I);
    rand_vec(&r, V, 6);
    rand_vec(&r, x, 6);

    // packed 6x6 multiplies as the (m, h, Ibar) form
    salto_s6_from_si(P, I);
    salto_s6_mul(a, P, x);
    salto_si_mul(b, I, x);
    ck_assert_vec_close(a, b, 6, 1e-14, 1e-14, "s6 vs si");

    // rate: (V x* I - I V x) x
    salto_si_rate(R, I, V);
    ck_assert_double_eq(R[0], 0.0);
    salto_si_mul(a, R, x);
    double Ix[6], Vx[6], t[6];
    salto_si_mul(Ix, I, x);
    salto_sv_crossf(b, V, Ix);
    salto_sv_crossm(Vx, V, x);
    salto_si_mul(t, I, Vx);
    for (int k = 0; k < 6; k++) b[k] -= t[k];
    ck_assert_vec_close(a, b, 6, 1e-13, 1e-13, "inertia rate");

    // the inertia is symmetric: y . I x = x . I y
    double y[6];
    rand_vec(&r, y, 6);
    salto_si_mul(a, I, x);
    salto_si_mul(b, I, y);
    ck_assert_double_eq_tol(salto_sv_dot(y, a), salto_sv_dot(x, b), 1e-13);
    // and positive definite along random directions
    ck_assert_double_gt(salto_sv_dot(x, a), 0.0);
}
END_TEST


START_TEST(rotations) {
    salto_test_rng r;
    salto_test_rng_seed(&r, 200u + (uint64_t)_i);
    double u[3], R[9], Rp[9], Rm[9];
    rand_vec(&r, u, 3);
    const double n = salto_v3_norm(u);
    for (int k = 0; k < 3; k++) u[k] /= n;
    const double t = salto_test_uniform(&r, -3, 3);
    salto_m3_axis_angle(R, u, t);
    // orthonormal, determinant one, axis fixed
    double RtR[9], Rt[9] = {R[0], R[3], R[6], R[1], R[4], R[7], R[2], R[5], R[8]};
    salto_m3_mul(RtR, Rt, R);
    const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    ck_assert_vec_close(RtR, I3, 9, 1e-14, 0, "R'R");
    double c0[3] = {R[0], R[3], R[6]}, c1[3] = {R[1], R[4], R[7]}, c2[3] = {R[2], R[5], R[8]};
    double x[3];
    salto_v3_cross(x, c0, c1);
    ck_assert_vec_close(x, c2, 3, 1e-14, 0, "det");
    salto_m3_mul_v3(x, R, u);
    ck_assert_vec_close(x, u, 3, 1e-14, 0, "axis");
    // the transposed products: R' B and B R' against the product with R' written out
    double Bm[9], P[9], want[9];
    rand_vec(&r, Bm, 9);
    salto_m3t_mul(P, R, Bm);
    salto_m3_mul(want, Rt, Bm);
    ck_assert_vec_close(P, want, 9, 1e-14, 0, "R' B");
    salto_m3_mul_t(P, Bm, R);
    salto_m3_mul(want, Bm, Rt);
    ck_assert_vec_close(P, want, 9, 1e-14, 0, "B R'");
    // dR/dt = [u] R
    const double h = 1e-6;
    salto_m3_axis_angle(Rp, u, t + h);
    salto_m3_axis_angle(Rm, u, t - h);
    for (int col = 0; col < 3; col++) {
        const double rc[3] = {R[col], R[3 + col], R[6 + col]};
        double e[3], fd[3];
        salto_v3_cross(e, u, rc);
        for (int k = 0; k < 3; k++) fd[k] = (Rp[3 * k + col] - Rm[3 * k + col]) / (2 * h);
        ck_assert_vec_close(fd, e, 3, 1e-9, 1e-9, "dR/dt");
    }
}
END_TEST


// quaternions: a rotation's quaternion gives its matrix back (angles up to a half turn, so
// that every branch of the conversion is taken: loop i picks the axis along which the angle
// is near pi every fourth time), the product is the matrices' product, and a turn by the
// rotation vector t u is the axis-angle rotation applied first
START_TEST(quaternions) {
    salto_test_rng r;
    salto_test_rng_seed(&r, 400u + (uint64_t)_i);
    double u[3], v[3], A[9], B[9], AB[9], qa[4], qb[4], qab[4], back[9];
    rand_vec(&r, u, 3);
    if (_i % 4 != 3) { // a half turn (or near it) about an axis near x, y or z
        for (int k = 0; k < 3; k++) u[k] = (k == _i % 4 ? 1.0 : 0.0) + 0.01 * u[k];
    }
    double n = salto_v3_norm(u);
    for (int k = 0; k < 3; k++) u[k] /= n;
    const double t = _i % 4 != 3 ? 3.14159 : salto_test_uniform(&r, -3, 3);
    salto_m3_axis_angle(A, u, t);
    salto_m3_to_quat(qa, A);
    ck_assert_double_eq_tol(qa[0] * qa[0] + qa[1] * qa[1] + qa[2] * qa[2] + qa[3] * qa[3], 1.0, 1e-14);
    salto_quat_to_m3(back, qa);
    ck_assert_vec_close(back, A, 9, 1e-14, 0, "the matrix from its quaternion");
    rand_vec(&r, v, 3);
    n = salto_v3_norm(v);
    for (int k = 0; k < 3; k++) v[k] /= n;
    const double s = salto_test_uniform(&r, -3, 3);
    salto_m3_axis_angle(B, v, s);
    salto_m3_to_quat(qb, B);
    salto_quat_mul(qab, qa, qb);
    salto_m3_mul(AB, A, B);
    salto_quat_to_m3(back, qab);
    ck_assert_vec_close(back, AB, 9, 1e-13, 0, "the product");
    const double tv[3] = {s * v[0], s * v[1], s * v[2]};
    salto_quat_turn(qa, tv); // qa <- exp(s v) qa: B A
    salto_m3_mul(AB, B, A);
    salto_quat_to_m3(back, qa);
    ck_assert_vec_close(back, AB, 9, 1e-13, 0, "the turn");
}
END_TEST


// the inline sine and cosine agree with libm to a few ulps over joint angles and beyond
START_TEST(sincos_matches_libm) {
    salto_test_rng r;
    salto_test_rng_seed(&r, 300u + (uint64_t)_i);
    const double span[] = {1.0, 4.0, 40.0, 1e3, 9e4, 1e6};
    for (int k = 0; k < 2000; k++) {
        const double x = salto_test_uniform(&r, -1, 1) * span[_i % 6];
        double s, c;
        salto_sincos(x, &s, &c);
        ck_assert_msg(fabs(s - sin(x)) <= 4e-16 && fabs(c - cos(x)) <= 4e-16,
                      "x = %.17g: sin %.17g vs %.17g, cos %.17g vs %.17g (seed %d)", x, s, sin(x),
                      c, cos(x), 300 + _i);
    }
    // multiples of pi/2 land on the right quadrant
    for (int n = -8; n <= 8; n++) {
        double s, c;
        salto_sincos(n * 1.5707963267948966, &s, &c);
        ck_assert_double_eq_tol(s, sin(n * 1.5707963267948966), 4e-16);
        ck_assert_double_eq_tol(c, cos(n * 1.5707963267948966), 4e-16);
    }
}
END_TEST


Suite* spatial_suite(void) {
    Suite* s = suite_create("spatial");
    TCase* tc = tcase_create("identities");
    tcase_add_loop_test(tc, cross_products, 0, 20);
    tcase_add_loop_test(tc, inertia_kernels, 0, 20);
    tcase_add_loop_test(tc, rotations, 0, 20);
    tcase_add_loop_test(tc, quaternions, 0, 16);
    tcase_add_loop_test(tc, sincos_matches_libm, 0, 12);
    suite_add_tcase(s, tc);
    return s;
}
