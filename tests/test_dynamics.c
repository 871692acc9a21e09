// test_dynamics.c: consistency of RNEA, CRBA and ABA; conservation laws; change of frame
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "salto/aggregate.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"
#include "test_suites.h"
#include "test_util.h"

#define MAXV 64

enum { NMODEL = 8 };

static salto_model* make_model(int k, unsigned seed) {
    switch (k) {
    case 0: return salto_test_model_random(9, SALTO_ROOT_FREE, seed);
    case 1: return salto_test_model_random(7, SALTO_ROOT_PLANAR, seed);
    case 2: return salto_test_model_random(8, SALTO_ROOT_FIXED, seed);
    case 3: return salto_test_model_random(14, SALTO_ROOT_FREE, seed + 1000);
    case 4: return salto_test_model_chain(6);
    default: return salto_test_model_file(salto_test_characters[k - 5]);
    }
}

static salto_model* m;
static salto_data* d;


static void setup_model(int i) {
    m = make_model(i % NMODEL, (unsigned)i);
    d = salto_data_create(m);
    ck_assert_ptr_nonnull(d);
    ck_assert_int_le(m->nv, MAXV);
    salto_test_random_state(m, d, (unsigned)(104729 * i + 3), 1.2);
}


static void teardown_model(void) {
    salto_data_destroy(d);
    salto_model_destroy(m);
    d = NULL;
    m = NULL;
}


// forward dynamics inverts inverse dynamics: RNEA(q, qd, ABA(q, qd, tau)) = tau
START_TEST(aba_inverts_rnea) {
    setup_model(_i);
    double tau[MAXV], back[MAXV];
    memcpy(tau, d->tau, (size_t)m->nv * sizeof(double));
    ck_assert_int_eq(salto_aba(m, d, NULL), SALTO_OK);
    salto_rnea(m, d, back);
    char ctx[96];
    snprintf(ctx, sizeof ctx, "model %d seed %d", _i % NMODEL, _i);
    ck_assert_vec_close(back, tau, m->nv, 1e-9, 1e-9, ctx);
    teardown_model();
}
END_TEST


// dense Cholesky solve of M x = b (M symmetric positive definite), for the tests only
static int cholesky_solve(int n, double* M, double* b) {
    for (int j = 0; j < n; j++) {
        double s = M[j * n + j];
        for (int k = 0; k < j; k++) s -= M[j * n + k] * M[j * n + k];
        if (!(s > 0)) return 0;
        M[j * n + j] = sqrt(s);
        for (int i = j + 1; i < n; i++) {
            double t = M[i * n + j];
            for (int k = 0; k < j; k++) t -= M[i * n + k] * M[j * n + k];
            M[i * n + j] = t / M[j * n + j];
        }
    }
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < i; k++) b[i] -= M[i * n + k] * b[k];
        b[i] /= M[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        for (int k = i + 1; k < n; k++) b[i] -= M[k * n + i] * b[k];
        b[i] /= M[i * n + i];
    }
    return 1;
}


// ABA equals the inertia-matrix solve: M qdd = tau - C(q, qd); and M is d tau / d qdd
START_TEST(aba_equals_crba_solve) {
    setup_model(_i);
    const int nv = m->nv;
    double M[MAXV * MAXV], bias[MAXV], rhs[MAXV], tau0[MAXV], tau1[MAXV];
    salto_crba(m, d, M);

    // symmetric, and column j = RNEA(qdd = e_j) - RNEA(qdd = 0)
    double qdd[MAXV];
    memcpy(qdd, d->qdd, (size_t)nv * sizeof(double));
    memset(d->qdd, 0, (size_t)nv * sizeof(double));
    salto_rnea(m, d, bias);
    char ctx[96];
    for (int j = 0; j < nv; j++) {
        d->qdd[j] = 1.0;
        salto_rnea(m, d, tau1);
        d->qdd[j] = 0.0;
        for (int i = 0; i < nv; i++) tau0[i] = M[i * nv + j];
        for (int i = 0; i < nv; i++) tau1[i] -= bias[i];
        snprintf(ctx, sizeof ctx, "M column %d, model %d seed %d", j, _i % NMODEL, _i);
        ck_assert_vec_close(tau0, tau1, nv, 1e-9, 1e-9, ctx);
        for (int i = 0; i < nv; i++) ck_assert_double_eq(M[i * nv + j], M[j * nv + i]);
    }
    memcpy(d->qdd, qdd, (size_t)nv * sizeof(double));

    for (int i = 0; i < nv; i++) rhs[i] = d->tau[i] - bias[i];
    ck_assert_msg(cholesky_solve(nv, M, rhs), "M not positive definite (model %d seed %d)",
                  _i % NMODEL, _i);
    ck_assert_int_eq(salto_aba(m, d, NULL), SALTO_OK);
    snprintf(ctx, sizeof ctx, "ABA vs CRBA, model %d seed %d", _i % NMODEL, _i);
    ck_assert_vec_close(d->qdd, rhs, nv, 1e-8, 1e-8, ctx);
    teardown_model();
}
END_TEST


// external forces: a point force f at a site acts as the generalised force J' f
START_TEST(aba_external_force_equals_generalised_force) {
    setup_model(_i);
    const int nv = m->nv;
    if (m->nsite == 0) {
        teardown_model();
        return;
    }
    const int s = _i % m->nsite;
    const int link = m->site_link[s];
    if (link < 0) {
        teardown_model();
        return;
    }
    const double f[3] = {3.0, -2.0, 5.0};
    double fext[6 * MAXV], Js[3 * MAXV], x[3], qdd_ext[MAXV];
    memset(fext, 0, sizeof fext);
    salto_fk(m, d, SALTO_FK_POS);
    salto_site_pos(m, d, s, x);
    salto_site_jac(m, d, s, Js);
    salto_point_force(fext + 6 * link, x, f);
    ck_assert_int_eq(salto_aba(m, d, fext), SALTO_OK);
    memcpy(qdd_ext, d->qdd, (size_t)nv * sizeof(double));
    for (int i = 0; i < nv; i++) d->tau[i] += Js[i] * f[0] + Js[nv + i] * f[1] + Js[2 * nv + i] * f[2];
    ck_assert_int_eq(salto_aba(m, d, NULL), SALTO_OK);
    char ctx[96];
    snprintf(ctx, sizeof ctx, "model %d seed %d site %d", _i % NMODEL, _i, s);
    ck_assert_vec_close(qdd_ext, d->qdd, nv, 1e-9, 1e-9, ctx);
    teardown_model();
}
END_TEST


Suite* dynamics_suite(void) {
    Suite* s = suite_create("dynamics");
    TCase* tc = tcase_create("consistency");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, aba_inverts_rnea, 0, 3 * NMODEL);
    tcase_add_loop_test(tc, aba_equals_crba_solve, 0, 2 * NMODEL);
    tcase_add_loop_test(tc, aba_external_force_equals_generalised_force, 0, 2 * NMODEL);
    suite_add_tcase(s, tc);
    return s;
}
