// test_aggregate.c: aggregate force and momentum, and every Jacobian method, against finite
// differences, the inverse-dynamics root wrench and each other
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "salto/aggregate.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "test_suites.h"
#include "test_util.h"

#define MAXV 128

// the models every test runs on: random trees with branches of each root type, a chain,
// and the shipped characters
enum { NMODEL = SALTO_TEST_NMODEL };


// central differences of f (6 outputs) over the 3nv inputs (q, qd, qdd); step 1e-6 relative
typedef void (*f6_fn)(const salto_model* m, salto_data* d, double out[6], const void* ctx);

static void fd_jac(const salto_model* m, salto_data* d, f6_fn f, const void* ctx, int nout,
                   double* J) {
    const int nv = m->nv;
    double* x[3] = {d->q, d->qd, d->qdd};
    for (int c = 0; c < 3 * nv; c++) {
        double* xi = x[c / nv] + c % nv;
        const double x0 = *xi;
        const double h = 1e-6 * fmax(1.0, fabs(x0));
        double fp[MAXV], fm[MAXV];
        *xi = x0 + h;
        f(m, d, fp, ctx);
        *xi = x0 - h;
        f(m, d, fm, ctx);
        *xi = x0;
        for (int r = 0; r < nout; r++) J[(size_t)r * 3 * nv + c] = (fp[r] - fm[r]) / (2 * h);
    }
}


static void f0_of(const salto_model* m, salto_data* d, double out[6], const void* ctx) {
    (void)ctx;
    salto_f0_rnea(m, d, out);
}


// compare two Jacobians with a mixed tolerance scaled by the larger's largest entry
static void jac_close(const double* a, const double* b, int n, double rtol, const char* ctx) {
    const double scale = fmax(1.0, salto_test_maxabs(b, n));
    ck_assert_vec_close(a, b, n, rtol * scale, rtol, ctx);
}


static salto_model* m;
static salto_data* d;


static void setup_model(int i) {
    salto_test_setup(i, (unsigned)(7919 * i + 1), MAXV / 3, &m, &d);
}


static void teardown_model(void) {
    salto_test_teardown(&m, &d);
}


// the rewritten leaf-to-base recursion gives the inverse-dynamics root wrench (1e-10)
START_TEST(aggregate_equals_rnea_root_wrench) {
    setup_model(_i);
    double f_rnea[6];
    salto_f0_rnea(m, d, f_rnea);
    salto_aggregate(m, d);
    char ctx[128];
    snprintf(ctx, sizeof ctx, "f0, model %d seed %d", _i % NMODEL, _i);
    const double scale = salto_test_maxabs(f_rnea, 6);
    ck_assert_vec_close(d->f0, f_rnea, 6, 1e-10 * scale, 1e-10, ctx);

    // p0 equals the total momentum
    double h[6];
    salto_fk(m, d, SALTO_FK_VEL);
    salto_link_inertias(m, d);
    salto_momentum(m, d, h);
    ck_assert_vec_close(d->p0, h, 6, 1e-10 * fmax(1, salto_test_maxabs(h, 6)), 1e-10, ctx);
    teardown_model();
}
END_TEST


// linear-time Jacobian against central differences (relative error at most 1e-6)
START_TEST(linear_jacobian_matches_central_differences) {
    setup_model(_i);
    const int n = 6 * 3 * m->nv;
    double J[6 * MAXV], Jfd[6 * MAXV], f0[6];
    salto_f0_jac(m, d, SALTO_JAC_LINEAR, f0, J, NULL);
    fd_jac(m, d, f0_of, NULL, 6, Jfd);
    char ctx[128];
    snprintf(ctx, sizeof ctx, "linear vs central, model %d seed %d", _i % NMODEL, _i);
    jac_close(J, Jfd, n, 1e-6, ctx);

    // and its f0 is the RNEA one
    double fr[6];
    salto_f0_rnea(m, d, fr);
    ck_assert_vec_close(f0, fr, 6, 1e-10 * fmax(1, salto_test_maxabs(fr, 6)), 1e-10, ctx);
    teardown_model();
}
END_TEST


// the state gradient of mu . f0 (mu in ctx), by the linear-time Jacobian
static void f0_weighted_grad(const salto_model* mm, salto_data* dd, double* out, const void* ctx) {
    const double* mu = ctx;
    double J[6 * MAXV];
    salto_f0_jac(mm, dd, SALTO_JAC_LINEAR, NULL, J, NULL);
    for (int c = 0; c < 3 * mm->nv; c++) {
        out[c] = 0.0;
        for (int r = 0; r < 6; r++) out[c] += mu[r] * J[r * 3 * mm->nv + c];
    }
}


// salto_f0_hess (mu . f0's second derivatives in the state) against central differences of the
// exact gradient, every entry (relative error at most 1e-6 of the largest)
START_TEST(f0_hessian_matches_differences) {
    setup_model(_i);
    const int nv = m->nv, n3 = 3 * nv;
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 900u + (uint64_t)_i);
    double mu[6];
    for (int k = 0; k < 6; k++) mu[k] = salto_test_uniform(&rng, -1.0, 1.0);
    static double H[MAXV * MAXV], Hfd[MAXV * MAXV], work[72 * MAXV];
    salto_f0_hess(m, d, mu, H, work);
    fd_jac(m, d, f0_weighted_grad, mu, n3, Hfd); // row c: d grad_c / d state
    char ctx[128];
    snprintf(ctx, sizeof ctx, "mu . f0 Hessian vs differences, model %d seed %d", _i % NMODEL, 900 + _i);
    jac_close(H, Hfd, n3 * n3, 1e-6, ctx);
    for (int a = 0; a < n3; a++) {
        for (int c = 0; c < a; c++) ck_assert_double_eq(H[a * n3 + c], H[c * n3 + a]);
    }
    teardown_model();
}
END_TEST


// weighted torques: every joint past the root (up to 40), a seeded weight each
typedef struct torque_weights {
    int K;
    int links[40];
    double lam[40];
} torque_weights;


// the state gradient of sum_r lam_r tau_r by the torques' exact Jacobian
static void torques_weighted_grad(const salto_model* mm, salto_data* dd, double* out, const void* ctx) {
    const torque_weights* tw = ctx;
    static double J[40 * 3 * MAXV];
    salto_joint_torques_jac(mm, dd, tw->K, tw->links, NULL, J);
    for (int c = 0; c < 3 * mm->nv; c++) {
        out[c] = 0.0;
        for (int r = 0; r < tw->K; r++) out[c] += tw->lam[r] * J[(size_t)r * 3 * mm->nv + c];
    }
}


// salto_torques_hess against central differences of the exact gradient, every entry, on the
// test models (chains, trees, free, planar and fixed roots)
START_TEST(torques_hessian_matches_differences) {
    setup_model(_i);
    const int nv = m->nv, n3 = 3 * nv;
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 1900u + (uint64_t)_i);
    torque_weights tw = {0};
    for (int j = 0; j < nv && tw.K < 40; j++) {
        if (j < m->nroot && _i % 2 == 0) continue; // odd seeds: the root's DOFs too
        tw.links[tw.K] = j;
        tw.lam[tw.K++] = salto_test_uniform(&rng, -1.0, 1.0);
    }
    static double H[MAXV * MAXV], Hfd[MAXV * MAXV], work[72 * MAXV + MAXV * MAXV];
    salto_torques_hess(m, d, tw.K, tw.links, tw.lam, H, work);
    fd_jac(m, d, torques_weighted_grad, &tw, n3, Hfd);
    char ctx[128];
    snprintf(ctx, sizeof ctx, "lam . tau Hessian vs differences, model %d seed %d", _i % NMODEL, 1900 + _i);
    jac_close(H, Hfd, n3 * n3, 1e-6, ctx);
    for (int a = 0; a < n3; a++) {
        for (int c = 0; c < a; c++) ck_assert_double_eq_tol(H[a * n3 + c], H[c * n3 + a], 1e-9 * (1 + fabs(H[a * n3 + c])));
    }
    teardown_model();
}
END_TEST


// the (q, qd) gradient of mu . p0 (mu in ctx) by p0's Jacobian, padded to the 3nv inputs
static void p0_weighted_grad(const salto_model* mm, salto_data* dd, double* out, const void* ctx) {
    const double* mu = ctx;
    double Jp[6 * MAXV];
    salto_p0_jac(mm, dd, Jp);
    for (int c = 0; c < 2 * mm->nv; c++) {
        out[c] = 0.0;
        for (int r = 0; r < 6; r++) out[c] += mu[r] * Jp[r * 2 * mm->nv + c];
    }
}


// salto_p0_hess against central differences of the exact gradient (q and qd columns)
START_TEST(p0_hessian_matches_differences) {
    setup_model(_i);
    const int nv = m->nv, n2 = 2 * nv, n3 = 3 * nv;
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 950u + (uint64_t)_i);
    double mu[6];
    for (int k = 0; k < 6; k++) mu[k] = salto_test_uniform(&rng, -1.0, 1.0);
    static double H[MAXV * MAXV], Hfd[MAXV * MAXV], work[30 * MAXV];
    salto_p0_hess(m, d, mu, H, work);
    fd_jac(m, d, p0_weighted_grad, mu, n2, Hfd); // rows: the gradient's 2nv entries; columns 3nv
    static double Hq[MAXV * MAXV];
    for (int a = 0; a < n2; a++) {
        for (int c = 0; c < n2; c++) Hq[a * n2 + c] = Hfd[a * n3 + c]; // the q and qd columns
    }
    char ctx[128];
    snprintf(ctx, sizeof ctx, "mu . p0 Hessian vs differences, model %d seed %d", _i % NMODEL, 950 + _i);
    jac_close(H, Hq, n2 * n2, 1e-6, ctx);
    // and p0 does not depend on qdd
    for (int a = 0; a < n2; a++) {
        for (int c = n2; c < n3; c++) ck_assert_double_eq_tol(Hfd[a * n3 + c], 0.0, 1e-6);
    }
    teardown_model();
}
END_TEST


// direct O(D^2) differentiation agrees with the linear method to rounding
START_TEST(direct_jacobian_equals_linear) {
    setup_model(_i);
    const int n = 18 * m->nv;
    double J[6 * MAXV], Jd[6 * MAXV], f0[6], f0d[6];
    salto_f0_jac(m, d, SALTO_JAC_LINEAR, f0, J, NULL);
    salto_f0_jac(m, d, SALTO_JAC_DIRECT, f0d, Jd, NULL);
    char ctx[128];
    snprintf(ctx, sizeof ctx, "direct vs linear, model %d seed %d", _i % NMODEL, _i);
    jac_close(Jd, J, n, 1e-10, ctx);
    ck_assert_vec_close(f0d, f0, 6, 1e-10 * fmax(1, salto_test_maxabs(f0, 6)), 1e-10, ctx);
    teardown_model();
}
END_TEST


// the finite-difference baselines converge to the analytical Jacobian at their order
START_TEST(fd_baselines_match_linear) {
    setup_model(_i);
    const int n = 18 * m->nv;
    double J[6 * MAXV], Jb[6 * MAXV];
    salto_f0_jac(m, d, SALTO_JAC_LINEAR, NULL, J, NULL);
    const struct {
        salto_jac_method method;
        double rtol;
    } cases[] = {
        {SALTO_JAC_FD_FORWARD, 1e-5},
        {SALTO_JAC_FD_CENTRAL, 1e-8},
        {SALTO_JAC_RICHARDSON, 1e-9},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        salto_f0_jac(m, d, cases[k].method, NULL, Jb, NULL);
        char ctx[128];
        snprintf(ctx, sizeof ctx, "%s vs linear, model %d seed %d",
                 salto_jac_method_name(cases[k].method), _i % NMODEL, _i);
        jac_close(Jb, J, n, cases[k].rtol, ctx);
    }
    teardown_model();
}
END_TEST


static void p0_of(const salto_model* mm, salto_data* dd, double out[6], const void* ctx) {
    (void)ctx;
    salto_aggregate(mm, dd);
    memcpy(out, dd->p0, sizeof dd->p0);
}


// momentum Jacobian against central differences
START_TEST(momentum_jacobian_matches_central_differences) {
    setup_model(_i);
    const int nv = m->nv;
    double J[6 * MAXV], Jp[4 * MAXV], Jfd[6 * MAXV];
    salto_f0_jac(m, d, SALTO_JAC_LINEAR, NULL, J, Jp);
    fd_jac(m, d, p0_of, NULL, 6, Jfd);
    // Jp holds the q and qd blocks; p0 does not depend on qdd
    double Jfd2[4 * MAXV];
    for (int r = 0; r < 6; r++) {
        memcpy(Jfd2 + (size_t)r * 2 * nv, Jfd + (size_t)r * 3 * nv, 2 * (size_t)nv * sizeof(double));
        ck_assert_double_eq_tol(salto_test_maxabs(Jfd + (size_t)r * 3 * nv + 2 * nv, nv), 0.0, 1e-6);
    }
    char ctx[128];
    snprintf(ctx, sizeof ctx, "p0 jacobian, model %d seed %d", _i % NMODEL, _i);
    jac_close(Jp, Jfd2, 12 * nv, 1e-6, ctx);
    // salto_p0_jac (velocities only, no f0) gives the same momentum and Jacobian
    double p0[6], Jp2[4 * MAXV];
    memcpy(p0, d->p0, sizeof p0);
    salto_p0_jac(m, d, Jp2);
    ck_assert_vec_close(d->p0, p0, 6, 1e-12 * fmax(1, salto_test_maxabs(p0, 6)), 1e-12, ctx);
    ck_assert_vec_close(Jp2, Jp, 12 * nv, 1e-12 * fmax(1, salto_test_maxabs(Jp, 12 * nv)), 1e-12, ctx);
    // and on fresh data holding only q and qd (the rest NaN): nothing read that it did not write
    salto_data* fresh = salto_data_create(m);
    ck_assert_ptr_nonnull(fresh);
    for (int k = 0; k < fresh->nwork; k++) fresh->work[k] = NAN;
    for (int j = 0; j < nv; j++) fresh->qdd[j] = NAN;
    memcpy(fresh->q, d->q, sizeof(double) * (size_t)nv);
    memcpy(fresh->qd, d->qd, sizeof(double) * (size_t)nv);
    salto_p0_jac(m, fresh, Jp2);
    ck_assert_vec_close(fresh->p0, p0, 6, 1e-12 * fmax(1, salto_test_maxabs(p0, 6)), 1e-12, ctx);
    ck_assert_vec_close(Jp2, Jp, 12 * nv, 1e-12 * fmax(1, salto_test_maxabs(Jp, 12 * nv)), 1e-12, ctx);
    salto_data_destroy(fresh);
    teardown_model();
}
END_TEST


typedef struct torque_ctx {
    int K;
    const int* links;
} torque_ctx;

static void torques_of(const salto_model* mm, salto_data* dd, double out[6], const void* vctx) {
    const torque_ctx* t = vctx;
    double tau[MAXV];
    salto_rnea(mm, dd, tau);
    for (int k = 0; k < t->K; k++) out[k] = tau[t->links[k]];
}


// torques at K chosen joints and their O(KD) Jacobian
START_TEST(joint_torque_jacobian_matches_central_differences) {
    setup_model(_i);
    const int nv = m->nv;
    int links[6];
    int K = 0;
    for (int j = _i % 3; j < nv && K < 6; j += 1 + nv / 5) links[K++] = j;
    double tau[6], J[6 * MAXV], Jfd[6 * MAXV], tau_all[MAXV];
    salto_joint_torques_jac(m, d, K, links, tau, J);
    torque_ctx t = {K, links};
    fd_jac(m, d, torques_of, &t, K, Jfd);
    char ctx[128];
    snprintf(ctx, sizeof ctx, "torque jacobian, model %d seed %d", _i % NMODEL, _i);
    jac_close(J, Jfd, K * 3 * nv, 1e-6, ctx);
    salto_rnea(m, d, tau_all);
    for (int k = 0; k < K; k++) {
        ck_assert_double_eq_tol(tau[k], tau_all[links[k]], 1e-10 * fmax(1, fabs(tau[k])));
    }
    teardown_model();
}
END_TEST


typedef struct point_ctx {
    const double* x;
    int site;
} point_ctx;

static void wrench_at_of(const salto_model* mm, salto_data* dd, double out[6], const void* vctx) {
    const point_ctx* pc = vctx;
    double f[6];
    salto_f0_rnea(mm, dd, f);
    if (pc->site >= 0) {
        double x[3];
        salto_fk(mm, dd, SALTO_FK_POS);
        salto_site_pos(mm, dd, pc->site, x);
        salto_wrench_at(out, f, x);
    } else {
        salto_wrench_at(out, f, pc->x);
    }
}


// f0 moved to a fixed point and to a moving site (Fang & Pollard eq. 2)
START_TEST(wrench_at_point_and_site_jacobians) {
    setup_model(_i);
    const int nv = m->nv;
    double J[6 * MAXV], Jfd[6 * MAXV], f[6];
    const double x[3] = {0.3, -0.2, 1.1};
    salto_f0_jac(m, d, SALTO_JAC_LINEAR, f, J, NULL);
    salto_wrench_jac_at(J, 3 * nv, x);
    point_ctx pc = {x, -1};
    fd_jac(m, d, wrench_at_of, &pc, 6, Jfd);
    char ctx[128];
    snprintf(ctx, sizeof ctx, "wrench at point, model %d seed %d", _i % NMODEL, _i);
    jac_close(J, Jfd, 18 * nv, 1e-6, ctx);

    if (m->nsite > 0) {
        const int s = _i % m->nsite;
        salto_f0_jac(m, d, SALTO_JAC_LINEAR, f, J, NULL);
        salto_wrench_jac_at_site(m, d, s, f, J);
        point_ctx ps = {NULL, s};
        fd_jac(m, d, wrench_at_of, &ps, 6, Jfd);
        double fw[6];
        wrench_at_of(m, d, fw, &ps);
        snprintf(ctx, sizeof ctx, "wrench at site %d, model %d seed %d", s, _i % NMODEL, _i);
        jac_close(J, Jfd, 18 * nv, 1e-6, ctx);
        ck_assert_vec_close(f, fw, 6, 1e-10 * fmax(1, salto_test_maxabs(fw, 6)), 1e-10, ctx);
    }
    teardown_model();
}
END_TEST


// in flight with gravity only (no contact), a ballistic motion has f0 = 0: take a random
// pose and velocity, let ABA produce qdd with zero torques on a free character; f0 vanishes
START_TEST(ballistic_motion_has_zero_aggregate_force) {
    m = salto_test_model_random(10, SALTO_ROOT_FREE, (unsigned)_i);
    d = salto_data_create(m);
    salto_test_random_state(m, d, (unsigned)_i, 1.0);
    // joint torques are internal: any tau on non-root DOFs keeps f0 = 0; root DOFs get none
    for (int i = 0; i < m->nroot; i++) d->tau[i] = 0.0;
    ck_assert_int_eq(salto_aba(m, d, NULL), SALTO_OK);
    salto_aggregate(m, d);
    // f0 is at the scale of m g; ABA's solution leaves rounding only
    const double scale = m->mass * 9.81;
    for (int k = 0; k < 6; k++) ck_assert_double_eq_tol(d->f0[k], 0.0, 1e-10 * scale);
    teardown_model();
}
END_TEST


// method names round-trip
START_TEST(method_names) {
    for (int k = 0; k < SALTO_JAC_COUNT; k++) {
        ck_assert_int_eq(salto_jac_method_parse(salto_jac_method_name((salto_jac_method)k)), k);
    }
    ck_assert_int_eq(salto_jac_method_parse("newton"), -1);
    ck_assert_int_eq(salto_jac_method_parse(NULL), -1);
}
END_TEST


Suite* aggregate_suite(void) {
    Suite* s = suite_create("aggregate");
    TCase* tc = tcase_create("consistency");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, aggregate_equals_rnea_root_wrench, 0, 4 * NMODEL);
    tcase_add_loop_test(tc, direct_jacobian_equals_linear, 0, 4 * NMODEL);
    tcase_add_loop_test(tc, ballistic_motion_has_zero_aggregate_force, 0, 5);
    tcase_add_test(tc, method_names);
    suite_add_tcase(s, tc);

    TCase* fd = tcase_create("derivatives");
    tcase_set_timeout(fd, 120);
    tcase_add_loop_test(fd, linear_jacobian_matches_central_differences, 0, 6 * NMODEL);
    tcase_add_loop_test(fd, f0_hessian_matches_differences, 0, 3 * NMODEL);
    tcase_add_loop_test(fd, torques_hessian_matches_differences, 0, 3 * NMODEL);
    tcase_add_loop_test(fd, p0_hessian_matches_differences, 0, 2 * NMODEL);
    tcase_add_loop_test(fd, fd_baselines_match_linear, 0, NMODEL);
    tcase_add_loop_test(fd, momentum_jacobian_matches_central_differences, 0, 2 * NMODEL);
    tcase_add_loop_test(fd, joint_torque_jacobian_matches_central_differences, 0, 4 * NMODEL);
    tcase_add_loop_test(fd, wrench_at_point_and_site_jacobians, 0, 2 * NMODEL);
    suite_add_tcase(s, fd);
    return s;
}
