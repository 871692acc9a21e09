// test_kinematics.c: sites, point Jacobians, centre of mass and momentum against finite
// differences in q and in time
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "salto/kinematics.h"
#include "salto/obstacle.h"
#include "salto/spatial.h"
#include "test_suites.h"
#include "test_util.h"

#define MAXV 64

enum { NMODEL = SALTO_TEST_NMODEL };

static salto_model* m;
static salto_data* d;


static unsigned seed_of(int i) { return 3u * (unsigned)i + 11u; }


static void setup_model(int i) {
    salto_test_setup(i, seed_of(i), MAXV, &m, &d);
}


// a test model's random state, kept in q, qd, qdd (MAXV each); returns the DOF count
static int setup_state(int i, double* q, double* qd, double* qdd) {
    setup_model(i);
    const int nv = m->nv;
    memcpy(q, d->q, sizeof(double) * (size_t)nv);
    memcpy(qd, d->qd, sizeof(double) * (size_t)nv);
    memcpy(qdd, d->qdd, sizeof(double) * (size_t)nv);
    return nv;
}


static void teardown_model(void) {
    salto_test_teardown(&m, &d);
}


// moves the state along q(t) = q + qd t + qdd t^2 / 2, qd(t) = qd + qdd t
static void state_at(const double* q, const double* qd, const double* qdd, int n, double t) {
    for (int i = 0; i < n; i++) {
        d->q[i] = q[i] + qd[i] * t + 0.5 * qdd[i] * t * t;
        d->qd[i] = qd[i] + qdd[i] * t;
        d->qdd[i] = qdd[i];
    }
    salto_fk(m, d, SALTO_FK_ACC);
    salto_link_inertias(m, d);
}


// site Jacobian by central differences in q; velocity = J qd; acceleration = d/dt velocity
START_TEST(site_derivatives) {
    double q[MAXV], qd[MAXV], qdd[MAXV];
    const int nv = setup_state(_i, q, qd, qdd);
    char ctx[96];
    for (int s = 0; s < m->nsite; s++) {
        snprintf(ctx, sizeof ctx, "site %d model %d seed %u", s, _i % NMODEL, seed_of(_i));
        double J[3 * MAXV], Jfd[3 * MAXV], xp[3], xm[3];
        state_at(q, qd, qdd, nv, 0.0);
        salto_site_jac(m, d, s, J);
        for (int j = 0; j < nv; j++) {
            const double h = 1e-6 * fmax(1, fabs(q[j]));
            d->q[j] = q[j] + h;
            salto_fk(m, d, SALTO_FK_POS);
            salto_site_pos(m, d, s, xp);
            d->q[j] = q[j] - h;
            salto_fk(m, d, SALTO_FK_POS);
            salto_site_pos(m, d, s, xm);
            d->q[j] = q[j];
            for (int r = 0; r < 3; r++) Jfd[r * nv + j] = (xp[r] - xm[r]) / (2 * h);
        }
        ck_assert_vec_close(J, Jfd, 3 * nv, 1e-7, 1e-6, ctx);

        // velocity = J qd
        state_at(q, qd, qdd, nv, 0.0);
        double v[3], Jqd[3] = {0, 0, 0}, a[3];
        salto_site_vel(m, d, s, v);
        salto_site_acc(m, d, s, a);
        for (int r = 0; r < 3; r++) {
            for (int j = 0; j < nv; j++) Jqd[r] += J[r * nv + j] * qd[j];
        }
        ck_assert_vec_close(v, Jqd, 3, 1e-10, 1e-10, ctx);

        // acceleration = d/dt velocity along the trajectory (gravity excluded)
        const double h = 1e-5;
        double vp[3], vm[3], afd[3];
        state_at(q, qd, qdd, nv, h);
        salto_site_vel(m, d, s, vp);
        state_at(q, qd, qdd, nv, -h);
        salto_site_vel(m, d, s, vm);
        for (int r = 0; r < 3; r++) afd[r] = (vp[r] - vm[r]) / (2 * h);
        ck_assert_vec_close(a, afd, 3, 1e-6, 1e-6, ctx);
    }
    teardown_model();
}
END_TEST


// the site velocity's derivative in q and the site acceleration's in q and qd against central
// differences of salto_site_vel and salto_site_acc, every site of every test model
START_TEST(site_acceleration_derivatives) {
    double q[MAXV], qd[MAXV], qdd[MAXV];
    const int nv = setup_state(_i, q, qd, qdd);
    char ctx[96];
    for (int s = 0; s < m->nsite; s++) {
        snprintf(ctx, sizeof ctx, "site %d model %d seed %u", s, _i % NMODEL, seed_of(_i));
        double dq[3 * MAXV], dqd[3 * MAXV], fq[3 * MAXV], fqd[3 * MAXV], ap[3], am[3];
        double dv[3 * MAXV], fv[3 * MAXV];
        state_at(q, qd, qdd, nv, 0.0);
        salto_site_acc_deriv(m, d, s, dq, dqd);
        salto_site_vel_deriv(m, d, s, dv);
        for (int j = 0; j < nv; j++) {
            const double x0 = d->q[j], h = 1e-6 * fmax(1, fabs(x0));
            d->q[j] = x0 + h;
            salto_fk(m, d, SALTO_FK_VEL);
            salto_site_vel(m, d, s, ap);
            d->q[j] = x0 - h;
            salto_fk(m, d, SALTO_FK_VEL);
            salto_site_vel(m, d, s, am);
            d->q[j] = x0;
            for (int r = 0; r < 3; r++) fv[r * nv + j] = (ap[r] - am[r]) / (2 * h);
        }
        state_at(q, qd, qdd, nv, 0.0);
        ck_assert_vec_close(dv, fv, 3 * nv, 1e-6, 1e-6, ctx);
        double scale = 1.0;
        for (int k = 0; k < 3 * nv; k++) scale = fmax(scale, fmax(fabs(dq[k]), fabs(dqd[k])));
        for (int which = 0; which < 2; which++) {
            double* x = which == 0 ? d->q : d->qd;
            double* fd = which == 0 ? fq : fqd;
            for (int j = 0; j < nv; j++) {
                const double x0 = x[j], h = 1e-6 * fmax(1, fabs(x0));
                x[j] = x0 + h;
                salto_fk(m, d, SALTO_FK_ACC);
                salto_site_acc(m, d, s, ap);
                x[j] = x0 - h;
                salto_fk(m, d, SALTO_FK_ACC);
                salto_site_acc(m, d, s, am);
                x[j] = x0;
                for (int r = 0; r < 3; r++) fd[r * nv + j] = (ap[r] - am[r]) / (2 * h);
            }
            salto_fk(m, d, SALTO_FK_ACC);
        }
        ck_assert_vec_close(dq, fq, 3 * nv, 1e-6, 1e-6 * scale, ctx);
        ck_assert_vec_close(dqd, fqd, 3 * nv, 1e-6, 1e-6 * scale, ctx);
        // all three in one pass: the same numbers
        double cv[3 * MAXV], cq[3 * MAXV], cqd[3 * MAXV];
        salto_site_motion_deriv(m, d, s, cv, cq, cqd);
        ck_assert_vec_close(cv, dv, 3 * nv, 0, 0, ctx);
        ck_assert_vec_close(cq, dq, 3 * nv, 0, 0, ctx);
        ck_assert_vec_close(cqd, dqd, 3 * nv, 0, 0, ctx);
    }
    teardown_model();
}
END_TEST


// com velocity = d/dt com; linear momentum = mass x com velocity
START_TEST(com_and_momentum) {
    double q[MAXV], qd[MAXV], qdd[MAXV];
    const int nv = setup_state(_i, q, qd, qdd);
    double c[3], cv[3], cp[3], cm[3], cfd[3], h6[6];
    state_at(q, qd, qdd, nv, 0.0);
    salto_com(m, d, c, cv);
    salto_momentum(m, d, h6);
    const double h = 1e-5;
    state_at(q, qd, qdd, nv, h);
    salto_com(m, d, cp, NULL);
    state_at(q, qd, qdd, nv, -h);
    salto_com(m, d, cm, NULL);
    for (int r = 0; r < 3; r++) cfd[r] = (cp[r] - cm[r]) / (2 * h);
    char ctx[96];
    snprintf(ctx, sizeof ctx, "model %d seed %d", _i % NMODEL, _i);
    ck_assert_vec_close(cv, cfd, 3, 1e-7, 1e-6, ctx);
    for (int r = 0; r < 3; r++) ck_assert_double_eq_tol(h6[3 + r], m->mass * cv[r], 1e-9 * m->mass);

    // the centre of mass is the mass-weighted mean of the bodies' centres
    state_at(q, qd, qdd, nv, 0.0);
    double mc[3] = {0, 0, 0}, mass = 0;
    for (int i = 0; i < nv; i++) {
        if (!m->link_massive[i]) continue;
        const double* L = m->link_inertia + 10 * i;
        double x[3];
        salto_m3_mul_v3(x, d->R + 9 * i, L + 1);
        for (int r = 0; r < 3; r++) mc[r] += L[0] * (x[r] + d->p[3 * i + r]);
        mass += L[0];
    }
    ck_assert_double_eq_tol(mass, m->mass, 1e-12 * mass);
    for (int r = 0; r < 3; r++) ck_assert_double_eq_tol(c[r], mc[r] / mass, 1e-12);
    teardown_model();
}
END_TEST


// the world rotation of each link stays orthonormal
START_TEST(rotations_orthonormal) {
    setup_model(_i);
    salto_fk(m, d, SALTO_FK_POS);
    for (int i = 0; i < m->nv; i++) {
        const double* R = d->R + 9 * i;
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) {
                const double dot = R[a] * R[b] + R[3 + a] * R[3 + b] + R[6 + a] * R[6 + b];
                ck_assert_double_eq_tol(dot, a == b ? 1.0 : 0.0, 1e-12);
            }
        }
    }
    teardown_model();
}
END_TEST

// the signed distance of a segment from a box: its value against the least over a fine sampling
// of the segment (the point distance, itself against its own definition), its gradient against
// central differences of the value, its Hessian against central differences of the gradient;
// segments outside, reaching in, wholly inside and of no length (a sphere), in 3-D and planar,
// the box axis-aligned and turned about +z
START_TEST(box_segment_distance) {
    const uint64_t seed = 7001u + (uint64_t)_i;
    salto_test_rng rng;
    salto_test_rng_seed(&rng, seed);
    const double c[3] = {salto_test_uniform(&rng, -0.5, 0.5), salto_test_uniform(&rng, -0.5, 0.5),
                         salto_test_uniform(&rng, 0.0, 0.5)};
    const double h[3] = {salto_test_uniform(&rng, 0.1, 0.6), salto_test_uniform(&rng, 0.1, 0.6),
                         salto_test_uniform(&rng, 0.1, 0.6)};
    const int use[3] = {1, _i % 4 != 3, 1};
    // a turned box (about +z) from the fifth seed on, in 3-D
    const double yaw = _i >= 4 && use[1] ? salto_test_uniform(&rng, -1.5, 1.5) : 0.0;
    int checked = 0;
    for (int trial = 0; trial < 40; trial++) {
        double x[6];
        const double spread = trial % 3 == 0 ? 0.5 : trial % 3 == 1 ? 1.0 : 2.0;
        for (int k = 0; k < 6; k++) x[k] = c[k % 3] + salto_test_uniform(&rng, -spread, spread);
        if (trial % 10 == 9) memcpy(x + 3, x, 3 * sizeof(double)); // a point
        double u, g[6], H[36];
        const double D = salto_box_segment_distance_turned(c, h, use, yaw, x, x + 3, &u, g, g + 3, H);
        // the value: the least of the point distance over 2001 samples, within the sampling's
        // resolution, never below D
        double least = INFINITY;
        for (int n = 0; n <= 2000; n++) {
            const double s = n / 2000.0;
            double p[3];
            for (int k = 0; k < 3; k++) p[k] = x[k] + s * (x[3 + k] - x[k]);
            least = fmin(least, salto_box_point_distance_turned(c, h, use, yaw, p, NULL));
        }
        double len = 0.0;
        for (int k = 0; k < 3; k++) len += (x[3 + k] - x[k]) * (x[3 + k] - x[k]);
        ck_assert_msg(least >= D - 1e-12 && least <= D + sqrt(len) / 2000.0 + 1e-12,
                      "seed %llu trial %d: D %.15g, sampled %.15g", (unsigned long long)seed, trial, D, least);
        // derivatives, where the nearest feature does not change within the difference step
        const double step = 1e-6;
        double gf[6], Hf[36];
        int smooth = 1;
        for (int r = 0; r < 6 && smooth; r++) {
            double xp[6], xm[6], up, um, gp[6], gm[6];
            memcpy(xp, x, sizeof xp), memcpy(xm, x, sizeof xm);
            xp[r] += step, xm[r] -= step;
            const double Dp = salto_box_segment_distance_turned(c, h, use, yaw, xp, xp + 3, &up, gp, gp + 3, NULL);
            const double Dm = salto_box_segment_distance_turned(c, h, use, yaw, xm, xm + 3, &um, gm, gm + 3, NULL);
            gf[r] = (Dp - Dm) / (2.0 * step);
            for (int s = 0; s < 6; s++) Hf[6 * s + r] = (gp[s] - gm[s]) / (2.0 * step);
            // a kink within the step: the one-sided slopes differ
            const double side = fabs((Dp - D) - (D - Dm)) / step;
            if (side > 1e-4) smooth = 0;
        }
        if (!smooth) continue;
        checked++;
        for (int r = 0; r < 6; r++) {
            ck_assert_msg(fabs(g[r] - gf[r]) <= 1e-7 * (1.0 + fabs(gf[r])),
                          "seed %llu trial %d: dD/dx%d %.12g, differences %.12g (D %.6g, u %.6g)",
                          (unsigned long long)seed, trial, r, g[r], gf[r], D, u);
            for (int s = 0; s < 6; s++) {
                ck_assert_msg(fabs(H[6 * r + s] - Hf[6 * r + s]) <= 1e-5 * (1.0 + fabs(Hf[6 * r + s])),
                              "seed %llu trial %d: H[%d][%d] %.10g, differences %.10g (D %.6g, u %.6g)",
                              (unsigned long long)seed, trial, r, s, H[6 * r + s], Hf[6 * r + s], D, u);
            }
        }
    }
    ck_assert_msg(checked >= 30, "seed %llu: only %d of 40 samples away from kinks", (unsigned long long)seed, checked);
}
END_TEST

Suite* kinematics_suite(void) {
    Suite* s = suite_create("kinematics");
    TCase* tc = tcase_create("derivatives");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, site_derivatives, 0, 4 * NMODEL);
    tcase_add_loop_test(tc, site_acceleration_derivatives, 0, 4 * NMODEL);
    tcase_add_loop_test(tc, com_and_momentum, 0, 2 * NMODEL);
    tcase_add_loop_test(tc, rotations_orthonormal, 0, NMODEL);
    tcase_add_loop_test(tc, box_segment_distance, 0, 8);
    suite_add_tcase(s, tc);
    return s;
}
