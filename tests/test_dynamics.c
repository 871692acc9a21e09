// test_dynamics.c: consistency of RNEA, CRBA and ABA; conservation laws; change of frame
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "salto/aggregate.h"
#include "salto/character.h"
#include "hybrid.h"
#include "salto/dca.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/sim.h"
#include "salto/spatial.h"
#include "test_suites.h"
#include "test_util.h"

#define MAXV 64

enum { NMODEL = SALTO_TEST_NMODEL };

static salto_model* m;
static salto_data* d;


static void setup_model(int i) {
    salto_test_setup(i, (unsigned)(104729 * i + 3), MAXV, &m, &d);
}


static void teardown_model(void) {
    salto_test_teardown(&m, &d);
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


// the same with external forces on every link: RNEA_ext(q, qd, ABA(q, qd, tau, fext), fext) = tau
START_TEST(aba_inverts_rnea_ext) {
    setup_model(_i);
    double tau[MAXV], back[MAXV], fext[6 * MAXV];
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 300u + (uint64_t)_i);
    for (int k = 0; k < 6 * m->nv; k++) fext[k] = salto_test_uniform(&rng, -3.0, 3.0);
    memcpy(tau, d->tau, (size_t)m->nv * sizeof(double));
    ck_assert_int_eq(salto_aba(m, d, fext), SALTO_OK);
    salto_rnea_ext(m, d, fext, back);
    char ctx[96];
    snprintf(ctx, sizeof ctx, "model %d seed %d", _i % NMODEL, _i);
    ck_assert_vec_close(back, tau, m->nv, 1e-9, 1e-9, ctx);
    teardown_model();
}
END_TEST


// hybrid dynamics (some joints' motion given, the others' torques) agrees with inverse
// dynamics: RNEA_ext(q, qd, qdd, fext) gives back the free joints' torques and the given
// joints' torques that salto_aba_hybrid computed, on random masks (none given: salto_aba's
// accelerations; all given: RNEA's torques)
START_TEST(aba_hybrid_inverts_rnea) {
    setup_model(_i);
    const int nv = m->nv;
    double tau[MAXV], qdd[MAXV], back[MAXV], fext[6 * MAXV];
    unsigned char given[MAXV];
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 700u + (uint64_t)_i);
    for (int k = 0; k < 6 * nv; k++) fext[k] = salto_test_uniform(&rng, -3.0, 3.0);
    const int mode = (_i / NMODEL) % 4; // 0 none given, 1 all, 2 the root's DOFs, 3 random
    for (int j = 0; j < nv; j++) {
        given[j] = mode == 1 || (mode == 2 && j < m->nroot) ||
                   (mode == 3 && salto_test_uniform(&rng, 0.0, 1.0) < 0.5);
    }
    memcpy(tau, d->tau, (size_t)nv * sizeof(double));
    memcpy(qdd, d->qdd, (size_t)nv * sizeof(double));
    char ctx[128];
    snprintf(ctx, sizeof ctx, "model %d seed %d mode %d", _i % NMODEL, _i, mode);
    ck_assert_int_eq(salto_aba_hybrid(m, d, fext, given), SALTO_OK);
    for (int j = 0; j < nv; j++) {
        if (given[j]) ck_assert_msg(d->qdd[j] == qdd[j], "%s: given qdd[%d] changed", ctx, j);
        else ck_assert_msg(d->tau[j] == tau[j], "%s: free tau[%d] changed", ctx, j);
    }
    double hq[MAXV], ht[MAXV];
    memcpy(hq, d->qdd, (size_t)nv * sizeof(double));
    memcpy(ht, d->tau, (size_t)nv * sizeof(double));
    salto_rnea_ext(m, d, fext, back);
    ck_assert_vec_close(back, ht, nv, 1e-9, 1e-9, ctx);
    if (mode == 0) { // none given: salto_aba's accelerations, bit for bit
        memcpy(d->tau, tau, (size_t)nv * sizeof(double));
        ck_assert_int_eq(salto_aba(m, d, fext), SALTO_OK);
        for (int j = 0; j < nv; j++) ck_assert_msg(d->qdd[j] == hq[j], "%s: qdd[%d] %.17g vs ABA %.17g", ctx, j, hq[j], d->qdd[j]);
    }
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


// a serial chain of n links (root fixed, planar or free) with 1 to 6 links moved onto earlier
// parents: long runs of consecutive links with branches between them, which is what
// salto_crba's run loops (by component, a link's row with its child's) are taken on
static salto_model* branched_chain(int n, int root, unsigned seed) {
    salto_character_desc* c = salto_character_chain(n, 0.3, 1.0);
    ck_assert_ptr_nonnull(c);
    c->root_type = (salto_root_type)root;
    salto_test_rng rng;
    salto_test_rng_seed(&rng, seed);
    for (int k = 0; k < 1 + (int)(seed % 6); k++) {
        const int b = 2 + (int)salto_test_uniform(&rng, 0.0, n - 2.0 - 1e-9);
        c->bodies[b].parent = (int)salto_test_uniform(&rng, 0.0, b - 1.0 - 1e-9);
    }
    salto_error err = {0};
    salto_model* mm = salto_model_build(c, NULL, &err);
    salto_character_destroy(c);
    ck_assert_msg(mm != NULL, "branched chain (n %d, root %d, seed %u): %s", n, root, seed,
                  err.msg);
    return mm;
}


// salto_crba_lower writes salto_crba's lower triangle bit for bit and nothing above it; the
// full matrix is symmetric bit for bit, and every entry is the textbook S_i . Ic_j S_j (RBDA
// Table 6.2) on j's path to the root, bit for bit (the same products in the same order, by
// whichever loop), zero off it
static void check_crba_lower(const salto_model* mm, salto_data* dd, const char* what) {
    const int nv = mm->nv;
    const size_t nn = (size_t)nv * (size_t)nv;
    double* M = malloc(nn * sizeof(double));
    double* L = malloc(nn * sizeof(double));
    double* R = calloc(nn, sizeof(double));
    ck_assert(M && L && R);
    const double sentinel = -12345.0;
    for (size_t k = 0; k < nn; k++) M[k] = NAN, L[k] = sentinel;
    salto_crba(mm, dd, M);
    salto_crba_lower(mm, dd, L);

    // the reference from the composite inertias and axes salto_crba_lower leaves in dd
    for (int j = 0; j < nv; j++) {
        double F[6];
        salto_si_mul(F, dd->Ic + 10 * j, dd->S + 6 * j);
        for (int i = j; i >= 0; i = mm->link_parent[i]) {
            R[(size_t)j * nv + i] = R[(size_t)i * nv + j] = salto_sv_dot(dd->S + 6 * i, F);
        }
    }
    for (int i = 0; i < nv; i++) {
        for (int j = 0; j < nv; j++) {
            const size_t ij = (size_t)i * nv + j, ji = (size_t)j * nv + i;
            ck_assert_msg(memcmp(&M[ij], &R[ij], sizeof(double)) == 0,
                          "%s: M[%d][%d] = %.17g, S_i . Ic_j S_j = %.17g", what, i, j, M[ij],
                          R[ij]);
            ck_assert_msg(memcmp(&M[ij], &M[ji], sizeof(double)) == 0,
                          "%s: M[%d][%d] = %.17g, M[%d][%d] = %.17g", what, i, j, M[ij], j, i,
                          M[ji]);
            const double* want = j <= i ? &M[ij] : &sentinel;
            ck_assert_msg(memcmp(&L[ij], want, sizeof(double)) == 0,
                          "%s: lower triangle [%d][%d] = %.17g, want %.17g", what, i, j, L[ij],
                          *want);
        }
    }
    free(M);
    free(L);
    free(R);
}


START_TEST(crba_lower_is_the_lower_triangle) {
    setup_model(_i);
    char what[64];
    snprintf(what, sizeof what, "model %d seed %d", _i % NMODEL, _i);
    check_crba_lower(m, d, what);
    teardown_model();
}
END_TEST


// the same on long chains and branched chains of 16 to 200 links (where the runs are computed
// by component), random states; and a column of M is d tau / d qdd_j (RNEA's difference)
START_TEST(crba_lower_long_chains) {
    static const int sizes[] = {16, 17, 24, 40, 75, 130, 200};
    const int n = sizes[_i % 7];
    salto_model* mm = _i < 7 ? salto_test_model_chain(n) : branched_chain(n, _i % 3, (unsigned)_i);
    salto_data* dd = salto_data_create(mm);
    ck_assert_ptr_nonnull(dd);
    salto_test_random_state(mm, dd, 7000u + (unsigned)_i, 3.0);
    char what[96];
    snprintf(what, sizeof what, "%s of %d links (case %d, %d DOFs)",
             _i < 7 ? "chain" : "branched chain", n, _i, mm->nv);
    check_crba_lower(mm, dd, what);

    const int nv = mm->nv, j = (7 * _i) % nv;
    double* M = malloc((size_t)nv * nv * sizeof(double));
    double* t0 = malloc((size_t)nv * sizeof(double));
    double* t1 = malloc((size_t)nv * sizeof(double));
    double* col = malloc((size_t)nv * sizeof(double));
    ck_assert(M && t0 && t1 && col);
    salto_crba_lower(mm, dd, M);
    memset(dd->qdd, 0, (size_t)nv * sizeof(double));
    salto_rnea(mm, dd, t0);
    dd->qdd[j] = 1.0;
    salto_rnea(mm, dd, t1);
    for (int i = 0; i < nv; i++) {
        t1[i] -= t0[i];
        col[i] = i >= j ? M[(size_t)i * nv + j] : M[(size_t)j * nv + i];
    }
    ck_assert_vec_close(col, t1, nv, 1e-9, 1e-9, what);
    free(M);
    free(t0);
    free(t1);
    free(col);
    salto_data_destroy(dd);
    salto_model_destroy(mm);
}
END_TEST


// Equality of two algorithms: the delta method's change of accelerations for a force on a
// link equals the difference of two full passes (with and without it), on every link of the
// random trees, with other external forces already applied
START_TEST(aba_delta_equals_two_passes) {
    setup_model(_i);
    const int nv = m->nv;
    double fext[6 * MAXV], qdd0[MAXV], dqdd[MAXV], dA[6 * MAXV], diff[MAXV];
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 500u + (uint64_t)_i);
    for (int k = 0; k < 6 * nv; k++) fext[k] = salto_test_uniform(&rng, -2.0, 2.0);
    ck_assert_int_eq(salto_aba(m, d, fext), SALTO_OK);
    memcpy(qdd0, d->qdd, (size_t)nv * sizeof(double));
    for (int l = 0; l < nv; l++) {
        double f[6];
        for (int t = 0; t < 6; t++) f[t] = salto_test_uniform(&rng, -3.0, 3.0);
        ck_assert_int_eq(salto_aba(m, d, fext), SALTO_OK); // the state the delta reads
        salto_aba_delta(m, d, l, f, dqdd, dA);
        for (int t = 0; t < 6; t++) fext[6 * l + t] += f[t];
        ck_assert_int_eq(salto_aba(m, d, fext), SALTO_OK);
        for (int t = 0; t < 6; t++) fext[6 * l + t] -= f[t];
        for (int j = 0; j < nv; j++) diff[j] = d->qdd[j] - qdd0[j];
        char ctx[96];
        snprintf(ctx, sizeof ctx, "model %d seed %d link %d", _i % NMODEL, _i, l);
        ck_assert_vec_close(dqdd, diff, nv, 1e-9, 1e-9, ctx);
        // a unit torque on DOF l
        ck_assert_int_eq(salto_aba(m, d, fext), SALTO_OK);
        salto_aba_delta(m, d, l, NULL, dqdd, dA);
        d->tau[l] += 1.0;
        ck_assert_int_eq(salto_aba(m, d, fext), SALTO_OK);
        d->tau[l] -= 1.0;
        for (int j = 0; j < nv; j++) diff[j] = d->qdd[j] - qdd0[j];
        snprintf(ctx, sizeof ctx, "model %d seed %d DOF %d torque", _i % NMODEL, _i, l);
        ck_assert_vec_close(dqdd, diff, nv, 1e-9, 1e-9, ctx);
    }
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


// ---- integration for the conservation tests: RK4 on (q, qd) with ABA ----

static void deriv(const salto_model* mm, salto_data* dd, const double* q, const double* qd,
                  double* dq, double* dqd) {
    memcpy(dd->q, q, (size_t)mm->nv * sizeof(double));
    memcpy(dd->qd, qd, (size_t)mm->nv * sizeof(double));
    ck_assert_int_eq(salto_aba(mm, dd, NULL), SALTO_OK);
    memcpy(dq, qd, (size_t)mm->nv * sizeof(double));
    memcpy(dqd, dd->qdd, (size_t)mm->nv * sizeof(double));
}


static void rk4_step(const salto_model* mm, salto_data* dd, double* q, double* qd, double h) {
    const int n = mm->nv;
    double k1q[MAXV], k1v[MAXV], k2q[MAXV], k2v[MAXV], k3q[MAXV], k3v[MAXV], k4q[MAXV],
        k4v[MAXV], tq[MAXV], tv[MAXV];
    deriv(mm, dd, q, qd, k1q, k1v);
    for (int i = 0; i < n; i++) tq[i] = q[i] + 0.5 * h * k1q[i], tv[i] = qd[i] + 0.5 * h * k1v[i];
    deriv(mm, dd, tq, tv, k2q, k2v);
    for (int i = 0; i < n; i++) tq[i] = q[i] + 0.5 * h * k2q[i], tv[i] = qd[i] + 0.5 * h * k2v[i];
    deriv(mm, dd, tq, tv, k3q, k3v);
    for (int i = 0; i < n; i++) tq[i] = q[i] + h * k3q[i], tv[i] = qd[i] + h * k3v[i];
    deriv(mm, dd, tq, tv, k4q, k4v);
    for (int i = 0; i < n; i++) {
        q[i] += h / 6 * (k1q[i] + 2 * k2q[i] + 2 * k3q[i] + k4q[i]);
        qd[i] += h / 6 * (k1v[i] + 2 * k2v[i] + 2 * k3v[i] + k4v[i]);
    }
}


// total spatial momentum about the world origin at the state in d
static void momentum_now(const salto_model* mm, salto_data* dd, double h[6]) {
    salto_fk(mm, dd, SALTO_FK_VEL);
    salto_link_inertias(mm, dd);
    salto_momentum(mm, dd, h);
}


// a free-floating character with zero torques and no gravity keeps its spatial momentum
START_TEST(momentum_conserved_free_floating) {
    m = salto_test_model_random(8, SALTO_ROOT_FREE, 500u + (unsigned)_i);
    d = salto_data_create(m);
    salto_test_random_state(m, d, 77u + (unsigned)_i, 0.4);
    // no gravity for this test: rebuild-free, the model is ours
    m->gravity[0] = m->gravity[1] = m->gravity[2] = 0.0;
    memset(d->tau, 0, (size_t)m->nv * sizeof(double));
    double q[MAXV], qd[MAXV], h0[6], h1[6];
    memcpy(q, d->q, (size_t)m->nv * sizeof(double));
    for (int i = 0; i < m->nv; i++) qd[i] = 0.5 * d->qd[i];
    memcpy(d->qd, qd, (size_t)m->nv * sizeof(double));
    momentum_now(m, d, h0);
    for (int k = 0; k < 400; k++) rk4_step(m, d, q, qd, 1e-3);
    memcpy(d->q, q, (size_t)m->nv * sizeof(double));
    memcpy(d->qd, qd, (size_t)m->nv * sizeof(double));
    momentum_now(m, d, h1);
    char ctx[96];
    snprintf(ctx, sizeof ctx, "momentum after 0.4 s, seed %d", _i);
    const double scale = salto_test_maxabs(h0, 6);
    ck_assert_vec_close(h1, h0, 6, 1e-7 * scale, 1e-7, ctx);
    // and the configuration did move
    ck_assert_double_gt(fabs(q[0] - d->q[0]) + salto_test_maxabs(qd, m->nv), 0.0);
    teardown_model();
}
END_TEST


static double energy_now(const salto_model* mm, salto_data* dd) {
    double ke, pe;
    salto_fk(mm, dd, SALTO_FK_VEL);
    salto_link_inertias(mm, dd);
    salto_energy(mm, dd, &ke, &pe);
    return ke + pe;
}


// energy drift of a passive chain under gravity after T seconds at step h
static double energy_drift(const salto_model* mm, salto_data* dd, double h, double T) {
    double q[MAXV], qd[MAXV];
    salto_test_random_state(mm, dd, 4242u, 1.0);
    memcpy(q, dd->q, (size_t)mm->nv * sizeof(double));
    memcpy(qd, dd->qd, (size_t)mm->nv * sizeof(double));
    memset(dd->tau, 0, (size_t)mm->nv * sizeof(double));
    const double e0 = energy_now(mm, dd);
    const int nstep = (int)lround(T / h);
    for (int k = 0; k < nstep; k++) rk4_step(mm, dd, q, qd, h);
    memcpy(dd->q, q, (size_t)mm->nv * sizeof(double));
    memcpy(dd->qd, qd, (size_t)mm->nv * sizeof(double));
    return fabs(energy_now(mm, dd) - e0);
}


// a passive chain conserves energy to integrator tolerance, and the error falls at RK4's order
START_TEST(energy_conserved_passive_chain) {
    m = salto_test_model_chain(5);
    d = salto_data_create(m);
    // energy scale: the chain's weight times its length
    const double scale = m->mass * 9.81 * 0.3 * 5;
    const double e_big = energy_drift(m, d, 2e-3, 1.0);
    const double e_small = energy_drift(m, d, 1e-3, 1.0);
    ck_assert_msg(e_small < 1e-7 * scale, "energy drift %.3g J at h = 1 ms (scale %.3g J)",
                  e_small, scale);
    // fourth order: halving h divides the error by about 16 (accept 8 or more)
    ck_assert_msg(e_big / e_small > 8.0, "drift ratio %.3g (%.3g / %.3g)", e_big / e_small,
                  e_big, e_small);
    teardown_model();
}
END_TEST


// rotation matrix from a random axis and angle
static void random_rotation(salto_test_rng* r, double R[9]) {
    double u[3] = {salto_test_uniform(r, -1, 1), salto_test_uniform(r, -1, 1),
                   salto_test_uniform(r, -1, 1)};
    const double n = salto_v3_norm(u);
    for (int k = 0; k < 3; k++) u[k] /= n;
    salto_m3_axis_angle(R, u, salto_test_uniform(r, -3, 3));
}


// results are equivariant under a change of world frame: joint torques and accelerations do
// not change, positions map by x -> R x + p, forces and momenta by the spatial force transform
START_TEST(equivariant_under_change_of_world_frame) {
    const int k = _i % 5;
    salto_character_desc* c = k == 4 ? salto_character_chain(5, 0.3, 1.0)
                                     : salto_character_random_tree(8, (salto_root_type)(k % 3), 900u + (unsigned)_i);
    ck_assert_ptr_nonnull(c);
    salto_test_rng r;
    salto_test_rng_seed(&r, 31u + (unsigned)_i);
    salto_model_options opt;
    random_rotation(&r, opt.world_R);
    for (int t = 0; t < 3; t++) opt.world_p[t] = salto_test_uniform(&r, -2, 2);
    salto_error err = {0};
    salto_model* m0 = salto_model_build(c, NULL, &err);
    salto_model* m1 = salto_model_build(c, &opt, &err);
    salto_character_destroy(c);
    ck_assert_ptr_nonnull(m0);
    ck_assert_ptr_nonnull(m1);
    salto_data* d0 = salto_data_create(m0);
    salto_data* d1 = salto_data_create(m1);
    salto_test_random_state(m0, d0, 5u + (unsigned)_i, 1.0);
    salto_data_copy_inputs(m0, d1, d0);
    const int nv = m0->nv;
    char ctx[96];
    snprintf(ctx, sizeof ctx, "model %d seed %d", k, _i);

    double tau0[MAXV], tau1[MAXV];
    salto_rnea(m0, d0, tau0);
    salto_rnea(m1, d1, tau1);
    ck_assert_vec_close(tau1, tau0, nv, 1e-9, 1e-9, ctx);
    salto_fk(m0, d0, SALTO_FK_POS);
    salto_fk(m1, d1, SALTO_FK_POS);

    // f0' = X* f0: n' = R n + p x (R f), f' = R f
    double fexp[6];
    salto_m3_mul_v3(fexp + 3, opt.world_R, d0->f0 + 3);
    salto_m3_mul_v3(fexp, opt.world_R, d0->f0);
    salto_v3_cross_add(fexp, opt.world_p, fexp + 3);
    ck_assert_vec_close(d1->f0, fexp, 6, 1e-9, 1e-9, ctx);

    for (int s = 0; s < m0->nsite; s++) {
        double x0[3], x1[3], xe[3];
        salto_site_pos(m0, d0, s, x0);
        salto_site_pos(m1, d1, s, x1);
        salto_m3_mul_v3(xe, opt.world_R, x0);
        for (int t = 0; t < 3; t++) xe[t] += opt.world_p[t];
        ck_assert_vec_close(x1, xe, 3, 1e-12, 1e-12, ctx);
    }

    ck_assert_int_eq(salto_aba(m0, d0, NULL), SALTO_OK);
    ck_assert_int_eq(salto_aba(m1, d1, NULL), SALTO_OK);
    ck_assert_vec_close(d1->qdd, d0->qdd, nv, 1e-8, 1e-8, ctx);

    // the Jacobian of f0 maps the same way, column by column
    double J0[18 * MAXV], J1[18 * MAXV];
    salto_f0_jac(m0, d0, SALTO_JAC_LINEAR, NULL, J0, NULL);
    salto_f0_jac(m1, d1, SALTO_JAC_LINEAR, NULL, J1, NULL);
    for (int col = 0; col < 3 * nv; col++) {
        double a[6], e[6], b[6];
        for (int t = 0; t < 6; t++) a[t] = J0[t * 3 * nv + col], b[t] = J1[t * 3 * nv + col];
        salto_m3_mul_v3(e + 3, opt.world_R, a + 3);
        salto_m3_mul_v3(e, opt.world_R, a);
        salto_v3_cross_add(e, opt.world_p, e + 3);
        ck_assert_vec_close(b, e, 6, 1e-8, 1e-8, ctx);
    }
    salto_data_destroy(d0);
    salto_data_destroy(d1);
    salto_model_destroy(m0);
    salto_model_destroy(m1);
}
END_TEST


// L = lam . res + mu . iota of an impulse shared among nb links (salto_impulse_shared), at d->q
static double impulse_lagrangian(int nb, const int* link, const double* xi, const double* u,
                                 const double* lam, const double* mu) {
    double res[MAXV], iota[6];
    salto_impulse_shared(m, d, nb, link, xi, u, res, iota);
    double L = 0.0;
    for (int j = 0; j < m->nv; j++) L += lam[j] * res[j];
    for (int k = 0; k < 6; k++) L += mu[k] * iota[k];
    return L;
}


// salto_impulse_grad's exact gradient in (q, u, xi) against central differences of L, on 0 to 3
// contact links
START_TEST(impulse_gradient_matches_differences) {
    setup_model(_i);
    const int nv = m->nv;
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 700u + (uint64_t)_i);
    const int nb = _i % 4 < nv ? _i % 4 : nv;
    int link[4];
    for (int b = 0; b < nb; b++) link[b] = (nv - 1 - 3 * b + 4 * nv) % nv; // distinct links
    double xi[18], u[MAXV], lam[MAXV], mu[6], gq[MAXV], gu[MAXV], gxi[18];
    for (int k = 0; k < 18; k++) xi[k] = salto_test_uniform(&rng, -2.0, 2.0);
    for (int k = 0; k < nv; k++) {
        u[k] = salto_test_uniform(&rng, -2.0, 2.0);
        lam[k] = salto_test_uniform(&rng, -1.0, 1.0);
    }
    for (int k = 0; k < 6; k++) mu[k] = salto_test_uniform(&rng, -1.0, 1.0);
    salto_impulse_grad(m, d, nb, link, xi, u, lam, mu, gq, gu, gxi);
    char ctx[128];
    // q
    for (int k = 0; k < nv; k++) {
        const double q0 = d->q[k], h = 1e-6 * fmax(1.0, fabs(q0));
        d->q[k] = q0 + h;
        const double lp = impulse_lagrangian(nb, link, xi, u, lam, mu);
        d->q[k] = q0 - h;
        const double lm = impulse_lagrangian(nb, link, xi, u, lam, mu);
        d->q[k] = q0;
        snprintf(ctx, sizeof ctx, "model %d seed %d nb %d: dL/dq_%d", _i % NMODEL, 700 + _i, nb, k);
        ck_assert_vec_close(&gq[k], &(double){(lp - lm) / (2 * h)}, 1, 1e-6, 1e-6, ctx);
    }
    // u and xi: L is linear in them, so a unit step is exact up to rounding
    for (int k = 0; k < nv; k++) {
        const double u0 = u[k];
        u[k] = u0 + 1.0;
        const double lp = impulse_lagrangian(nb, link, xi, u, lam, mu);
        u[k] = u0 - 1.0;
        const double lm = impulse_lagrangian(nb, link, xi, u, lam, mu);
        u[k] = u0;
        snprintf(ctx, sizeof ctx, "model %d seed %d nb %d: dL/du_%d", _i % NMODEL, 700 + _i, nb, k);
        ck_assert_vec_close(&gu[k], &(double){(lp - lm) / 2.0}, 1, 1e-9, 1e-9, ctx);
    }
    for (int k = 0; k < 6 * (nb > 0 ? nb - 1 : 0); k++) {
        const double x0 = xi[k];
        xi[k] = x0 + 1.0;
        const double lp = impulse_lagrangian(nb, link, xi, u, lam, mu);
        xi[k] = x0 - 1.0;
        const double lm = impulse_lagrangian(nb, link, xi, u, lam, mu);
        xi[k] = x0;
        snprintf(ctx, sizeof ctx, "model %d seed %d nb %d: dL/dxi_%d", _i % NMODEL, 700 + _i, nb, k);
        ck_assert_vec_close(&gxi[k], &(double){(lp - lm) / 2.0}, 1, 1e-9, 1e-9, ctx);
    }
    teardown_model();
}
END_TEST


// ---- divide and conquer (dca.h) ----

// random forces on the bodies (their massive links), as contacts and pushes put them; the
// massless links' entries zero
static void random_body_forces(const salto_model* mm, salto_test_rng* rng, double* fext) {
    memset(fext, 0, sizeof(double) * 6 * (size_t)mm->nv);
    for (int k = 0; k < mm->nbody; k++) {
        const int l = mm->body_link[k];
        for (int t = 0; l >= 0 && t < 6; t++) fext[6 * l + t] = salto_test_uniform(rng, -3.0, 3.0);
    }
}

// DCA's accelerations against ABA's at m's state in d, with random forces on the bodies
static void dca_against_aba(salto_model* mm, salto_data* dd, unsigned seed, const char* what) {
    const int nv = mm->nv;
    double* fext = calloc((size_t)(6 * nv), sizeof(double));
    double* want = malloc(sizeof(double) * (size_t)nv);
    ck_assert_ptr_nonnull(fext);
    ck_assert_ptr_nonnull(want);
    salto_test_rng rng;
    salto_test_rng_seed(&rng, seed);
    random_body_forces(mm, &rng, fext);
    ck_assert_int_eq(salto_aba(mm, dd, fext), SALTO_OK);
    memcpy(want, dd->qdd, sizeof(double) * (size_t)nv);
    memset(dd->qdd, 0, sizeof(double) * (size_t)nv);
    salto_dca* a = salto_dca_create(mm);
    ck_assert_ptr_nonnull(a);
    ck_assert_int_eq(salto_dca_forward(a, dd, fext), SALTO_OK);
    // to 1e-10 of the largest acceleration (neither is exact: on long chains DCA's rounding
    // is some 50 times ABA's, measured by RNEA's residual of each)
    char ctx[160];
    snprintf(ctx, sizeof ctx, "%s (seed %u, tree height %d)", what, seed, salto_dca_height(a));
    double scale = fmax(1.0, salto_test_maxabs(want, nv));
    ck_assert_vec_close(dd->qdd, want, nv, 1e-10 * scale, 1e-10, ctx);
    // and without external forces
    ck_assert_int_eq(salto_aba(mm, dd, NULL), SALTO_OK);
    memcpy(want, dd->qdd, sizeof(double) * (size_t)nv);
    ck_assert_int_eq(salto_dca_forward(a, dd, NULL), SALTO_OK);
    scale = fmax(1.0, salto_test_maxabs(want, nv));
    ck_assert_vec_close(dd->qdd, want, nv, 1e-10 * scale, 1e-10, ctx);
    salto_dca_destroy(a);
    free(fext), free(want);
}


// DCA equals ABA on the sweep's models (random trees of each root type, a chain, the
// shipped characters) at random states
START_TEST(dca_equals_aba) {
    setup_model(_i);
    char what[64];
    snprintf(what, sizeof what, "model %d", _i % NMODEL);
    dca_against_aba(m, d, 900u + (unsigned)_i, what);
    teardown_model();
}
END_TEST


// every character file shipped in data/characters (the folder read, so that a new one is
// covered), at random states
START_TEST(dca_equals_aba_shipped) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/data/characters", salto_test_root());
    DIR* dp = opendir(dir);
    ck_assert_msg(dp != NULL, "cannot open %s", dir);
    int n = 0;
    for (struct dirent* e; (e = readdir(dp)) != NULL;) {
        const size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0) continue;
        char rel[512];
        snprintf(rel, sizeof rel, "data/characters/%s", e->d_name);
        salto_model* mm = salto_test_model_file(rel);
        salto_data* dd = salto_data_create(mm);
        ck_assert_ptr_nonnull(dd);
        for (unsigned k = 0; k < 4; k++) {
            salto_test_random_state(mm, dd, 31u * k + (unsigned)n, 1.5);
            dca_against_aba(mm, dd, 77u + k, rel);
        }
        salto_data_destroy(dd);
        salto_model_destroy(mm);
        n++;
    }
    closedir(dp);
    ck_assert_int_ge(n, 5);
}
END_TEST


// long chains (the adaptive benchmarks' pendulums) and large random trees; a chain's tree is
// balanced: its height is about log2 of its bodies
START_TEST(dca_equals_aba_large) {
    static const int sizes[] = {1, 2, 3, 50, 300};
    for (int k = 0; k < 5; k++) {
        salto_model* mm = salto_test_model_chain(sizes[k]);
        salto_data* dd = salto_data_create(mm);
        ck_assert_ptr_nonnull(dd);
        salto_test_random_state(mm, dd, 5u + (unsigned)k, 1.0);
        char what[64];
        snprintf(what, sizeof what, "chain of %d", sizes[k]);
        dca_against_aba(mm, dd, 11u + (unsigned)k, what);
        salto_dca* a = salto_dca_create(mm);
        ck_assert_ptr_nonnull(a);
        // n bodies and the world: n + 1 leaves, ceil(log2(n + 1)) levels above them; a floating
        // root's joint at the top (the world alone on one side), then ceil(log2(n)) levels
        ck_assert_int_eq(salto_dca_nodes(a), 2 * (sizes[k] + 1) - 1);
        const int floating = mm->root_type != SALTO_ROOT_FIXED;
        const int height = floating ? 1 + (int)ceil(log2((double)sizes[k])) : (int)ceil(log2((double)(sizes[k] + 1)));
        ck_assert_msg(salto_dca_height(a) == height, "chain of %d (root type %d): height %d, not %d", sizes[k], mm->root_type, salto_dca_height(a), height);
        if (floating) { // the first joint to be active is the root's
            unsigned char act[301];
            ck_assert_int_eq(salto_dca_activate_top(a, 1), mm->nroot);
            salto_dca_active_links(a, act);
            for (int j = 0; j < mm->nv; j++) ck_assert_int_eq(act[j], j < mm->nroot);
        }
        salto_dca_destroy(a);
        salto_data_destroy(dd);
        salto_model_destroy(mm);
    }
    for (int k = 0; k < 6; k++) {
        salto_model* mm = salto_test_model_random(40 + 10 * k, k % 3 == 0 ? SALTO_ROOT_FREE : k % 3 == 1 ? SALTO_ROOT_PLANAR : SALTO_ROOT_FIXED, 4242u + (unsigned)k);
        salto_data* dd = salto_data_create(mm);
        ck_assert_ptr_nonnull(dd);
        salto_test_random_state(mm, dd, 17u + (unsigned)k, 1.0);
        char what[64];
        snprintf(what, sizeof what, "random tree of %d bodies, root type %d", 40 + 10 * k, k % 3);
        dca_against_aba(mm, dd, 23u + (unsigned)k, what);
        // a floating root's joint first at the top of the tree
        salto_dca* a = salto_dca_create(mm);
        ck_assert_ptr_nonnull(a);
        const int floating = mm->root_type != SALTO_ROOT_FIXED;
        unsigned char act[512];
        ck_assert_int_le(mm->nv, 512);
        if (floating) {
            ck_assert_int_eq(salto_dca_activate_top(a, 1), mm->nroot);
            salto_dca_active_links(a, act);
            for (int j = 0; j < mm->nv; j++) ck_assert_msg(act[j] == (j < mm->nroot), "%s: DOF %d", what, j);
        }
        salto_dca_destroy(a);
        salto_data_destroy(dd);
        salto_model_destroy(mm);
    }
}
END_TEST


// the reference for the hybrid and armature tests: the accelerations of the character with
// the DOFs outside act (NULL: none) locked and arm (NULL: none) added to the inertia,
// (M + diag(arm))_aa qdd_a = tau_a - h_a (h: RNEA at qdd = 0 with fext), zero on locked DOFs,
// into want (nv); d's state is kept
static void locked_reference(const salto_model* mm, salto_data* dd, const double* fext,
                             const unsigned char* act, const double* arm, double* want) {
    const int nv = mm->nv;
    double tau[MAXV], h[MAXV], M[MAXV * MAXV], Mr[MAXV * MAXV], rhs[MAXV];
    int idx[MAXV], na = 0;
    for (int j = 0; j < nv; j++) {
        if (!act || act[j]) idx[na++] = j;
    }
    memcpy(tau, dd->tau, sizeof(double) * (size_t)nv);
    memset(dd->qdd, 0, sizeof(double) * (size_t)nv);
    salto_rnea_ext(mm, dd, fext, h);
    memcpy(dd->tau, tau, sizeof(double) * (size_t)nv);
    salto_crba(mm, dd, M);
    for (int r = 0; r < na; r++) {
        rhs[r] = tau[idx[r]] - h[idx[r]];
        for (int c = 0; c < na; c++) Mr[na * r + c] = M[nv * idx[r] + idx[c]];
        if (arm) Mr[na * r + r] += arm[idx[r]];
    }
    ck_assert(na == 0 || cholesky_solve(na, Mr, rhs));
    memset(want, 0, sizeof(double) * (size_t)nv);
    for (int r = 0; r < na; r++) want[idx[r]] = rhs[r];
}


// a hybrid body: with the joints outside the active region held rigid (at rest), DCA's
// accelerations are the locked character's: M_aa qdd_a = tau_a - h_a (h: RNEA at qdd = 0, with
// the external forces), zero on the rigid DOFs; with every joint active, ABA's
START_TEST(dca_hybrid_equals_locked_joints) {
    setup_model(_i);
    const int nv = m->nv;
    salto_dca* a = salto_dca_create(m);
    ck_assert_ptr_nonnull(a);
    double fext[6 * MAXV], want[MAXV];
    unsigned char act[MAXV];
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 1300u + (unsigned)_i);
    random_body_forces(m, &rng, fext);
    const int joints = m->nbody; // at most
    for (int top = 0; top <= joints; top++) {
        const int dofs = salto_dca_activate_top(a, top);
        ck_assert_int_eq(dofs, salto_dca_active_dofs(a));
        salto_dca_active_links(a, act);
        int na = 0;
        for (int j = 0; j < nv; j++) {
            na += act[j];
            if (!act[j]) d->qd[j] = 0.0; // rigid joints at rest
        }
        ck_assert_int_eq(na, dofs);
        locked_reference(m, d, fext, act, NULL, want); // the locked character's accelerations
        ck_assert_int_eq(salto_dca_forward(a, d, fext), SALTO_OK);
        char ctx[128];
        snprintf(ctx, sizeof ctx, "model %d seed %d, %d joints active (%d DOFs)", _i % NMODEL, _i, top, dofs);
        const double scale = fmax(1.0, salto_test_maxabs(want, nv));
        ck_assert_vec_close(d->qdd, want, nv, 1e-9 * scale, 1e-9, ctx);
        // the hybrid body as a model of its own, by ABA: the same accelerations; the rigid
        // DOFs' entries not written
        for (int j = 0; j < nv; j++) d->qdd[j] = act[j] ? NAN : 0.0;
        ck_assert_int_eq(salto_dca_hybrid_forward(a, d, fext), SALTO_OK);
        snprintf(ctx, sizeof ctx, "model %d seed %d, %d joints active (%d DOFs), reduced model", _i % NMODEL, _i, top, dofs);
        ck_assert_vec_close(d->qdd, want, nv, 1e-9 * scale, 1e-9, ctx);
        // a second call reuses the model (and without forces, its own bias)
        ck_assert_int_eq(salto_dca_hybrid_forward(a, d, fext), SALTO_OK);
        ck_assert_vec_close(d->qdd, want, nv, 1e-9 * scale, 1e-9, ctx);
    }
    // every joint active: ABA's
    salto_dca_activate_top(a, joints);
    ck_assert_int_eq(salto_dca_active_dofs(a), nv);
    ck_assert_int_eq(salto_aba(m, d, fext), SALTO_OK);
    memcpy(want, d->qdd, sizeof(double) * (size_t)nv);
    ck_assert_int_eq(salto_dca_forward(a, d, fext), SALTO_OK);
    ck_assert_vec_close(d->qdd, want, nv, 1e-10 * fmax(1.0, salto_test_maxabs(want, nv)), 1e-10, "all active");
    // the top node's joint rigid under every other active one: refused, nothing changed
    salto_dca_activate_top(a, 1);
    salto_dca_active_links(a, act);
    int top_body = -1;
    for (int j = 0; j < nv; j++) {
        if (act[j]) top_body = m->link_body[j];
    }
    ck_assert_int_ge(top_body, 0);
    unsigned char body_act[MAXV];
    for (int k = 0; k < m->nbody; k++) body_act[k] = k != top_body;
    const int before = salto_dca_active_dofs(a);
    int joints_moving = 0;
    for (int k = 0; k < m->nbody; k++) joints_moving += m->body_link[k] >= 0;
    if (joints_moving >= 2) {
        ck_assert_int_eq(salto_dca_set_active(a, body_act), -1);
        ck_assert_int_eq(salto_dca_active_dofs(a), before);
    }
    // and the same set with the top active is taken
    body_act[top_body] = 1;
    ck_assert_int_eq(salto_dca_set_active(a, body_act), 0);
    ck_assert_int_eq(salto_dca_active_dofs(a), nv);
    salto_dca_destroy(a);
    teardown_model();
}
END_TEST

// the locked character as a model of its own (salto_model_locked): its accelerations the locked
// character's; its sites, geometry, kinetic energy and momentum where the character's are;
// its limits and names the active DOFs'; and the simulator steps it (no contacts: ABA and
// semi-implicit Euler, as the hybrid body's own step)
START_TEST(dca_locked_model_is_the_locked_character) {
    setup_model(_i);
    const int nv = m->nv;
    salto_dca* a = salto_dca_create(m);
    ck_assert_ptr_nonnull(a);
    double fext[6 * MAXV], want[MAXV];
    unsigned char act[MAXV];
    int map[MAXV], part[MAXV];
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 4100u + (unsigned)_i);
    random_body_forces(m, &rng, fext);
    for (int top = 0; top <= m->nbody; top++) {
        salto_dca_activate_top(a, top);
        salto_dca_active_links(a, act);
        for (int j = 0; j < nv; j++) {
            if (!act[j]) d->qd[j] = 0.0;
        }
        char ctx[128];
        snprintf(ctx, sizeof ctx, "model %d seed %d, %d joints active", _i % NMODEL, _i, top);
        locked_reference(m, d, fext, act, NULL, want);
        salto_fk(m, d, SALTO_FK_VEL);
        int gmap[8 * MAXV];
        salto_model* r = salto_model_locked(m, d, act, map, part, gmap);
        ck_assert_ptr_nonnull(r);
        salto_data* e = salto_data_create(r);
        ck_assert_ptr_nonnull(e);
        double rf[6 * MAXV], got[MAXV];
        memset(rf, 0, sizeof rf);
        for (int i = 0; i < nv; i++) {
            if (part[i] >= 0) salto_sv_add_to(rf + 6 * part[i], fext + 6 * i);
        }
        int na = 0;
        for (int k = 0; k < r->nv; k++) {
            ck_assert_int_eq(act[map[k]], 1);
            ck_assert_int_eq(part[map[k]], k);
            e->q[k] = d->q[map[k]], e->qd[k] = d->qd[map[k]], e->tau[k] = d->tau[map[k]];
            ck_assert_str_eq(r->link_name[k], m->link_name[map[k]]);
            ck_assert_int_eq(r->link_has_limits[k], m->link_has_limits[map[k]]);
        }
        for (int j = 0; j < nv; j++) na += act[j];
        ck_assert_int_eq(r->nv, na);
        // the accelerations
        ck_assert_int_eq(salto_aba(r, e, rf), SALTO_OK);
        memset(got, 0, sizeof got);
        for (int k = 0; k < r->nv; k++) got[map[k]] = e->qdd[k];
        const double scale = fmax(1.0, salto_test_maxabs(want, nv));
        ck_assert_vec_close(got, want, nv, 1e-9 * scale, 1e-9, ctx);
        // sites
        salto_fk(r, e, SALTO_FK_VEL);
        ck_assert_int_eq(r->nsite, m->nsite);
        for (int t = 0; t < m->nsite; t++) {
            double x[3], y[3];
            salto_site_pos(m, d, t, x);
            salto_site_pos(r, e, t, y);
            ck_assert_vec_close(y, x, 3, 1e-12, 1e-12, ctx);
        }
        // geometry: a capsule's and a sphere's points, a box's corners, on the moving parts
        int rg = 0;
        for (int g = 0; g < m->ngeom; g++) {
            if (m->geom_link[g] < 0 || part[m->geom_link[g]] < 0) continue;
            double x[8][3], y[8][3], rx, ry;
            const int n = salto_geom_points(m, d, g, x, &rx);
            const int corners = m->geom_shape[g] == SALTO_GEOM_BOX;
            for (int c = 0; c < (corners ? n : 1); c++, rg++) {
                ck_assert_int_lt(rg, r->ngeom);
                ck_assert_int_eq(gmap[rg], g);
                const int ny = salto_geom_points(r, e, rg, y, &ry);
                ck_assert_int_eq(ny, corners ? 1 : n);
                ck_assert_vec_close(y[0], x[c], 3, 1e-12, 1e-12, ctx);
                if (!corners && n == 2) ck_assert_vec_close(y[1], x[1], 3, 1e-12, 1e-12, ctx);
                ck_assert_double_eq_tol(ry, corners ? 0.0 : rx, 1e-15);
            }
        }
        ck_assert_int_eq(rg, r->ngeom);
        // kinetic energy and momentum (the rigid joints at rest)
        double k0, k1, pe0, pe1;
        salto_link_inertias(m, d);
        salto_link_inertias(r, e);
        salto_energy(m, d, &k0, &pe0);
        salto_energy(r, e, &k1, &pe1);
        ck_assert_msg(fabs(k1 - k0) <= 1e-10 * fmax(1.0, k0), "%s: kinetic energy %.17g, locked %.17g", ctx, k0, k1);
        double mm = 0.0; // the moving bodies' mass
        for (int i = 0; i < nv; i++) {
            if (part[i] >= 0 && m->link_massive[i]) mm += m->link_inertia[10 * i];
        }
        ck_assert_double_eq_tol(r->mass, mm, 1e-12 * fmax(1.0, mm));
        // the simulator on it, contacts and limits off: ABA and semi-implicit Euler
        if (r->nv > 0) {
            salto_sim_opts so;
            salto_sim_opts_default(&so);
            so.ground = 0, so.joint_limits = 0;
            salto_sim* sim = salto_sim_create(r, &so);
            ck_assert_ptr_nonnull(sim);
            salto_sim_set_state(sim, e->q, e->qd);
            salto_sim_set_torques(sim, e->tau);
            salto_error serr = {0};
            ck_assert_int_eq(salto_sim_step(sim, &serr), SALTO_OK);
            ck_assert_int_eq(salto_aba(r, e, NULL), SALTO_OK);
            double q1[MAXV];
            for (int k = 0; k < r->nv; k++) q1[k] = e->q[k] + so.dt * (e->qd[k] + so.dt * e->qdd[k]);
            ck_assert_vec_close(salto_sim_q(sim), q1, r->nv, 1e-12, 1e-12, ctx);
            salto_sim_destroy(sim);
        }
        salto_data_destroy(e);
        salto_model_destroy(r);
    }
    salto_dca_destroy(a);
    teardown_model();
}
END_TEST

// the acceleration metric from its coefficients (Theorems 1 and 2) equals the metric summed
// from the joints' accelerations, at the whole character and at every node, with identity
// and with random SPD weights, with every joint active and in hybrid bodies
START_TEST(dca_metric_equals_summed_accelerations) {
    setup_model(_i);
    const int nv = m->nv;
    salto_dca* a = salto_dca_create(m);
    ck_assert_ptr_nonnull(a);
    salto_dca_track_metric(a, 1);
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 1700u + (unsigned)_i);
    double fext[6 * MAXV];
    random_body_forces(m, &rng, fext);
    // weights: a full SPD matrix B B' + 0.1 for each joint in the second round
    double wt[MAXV][36];
    int first[MAXV], ndof[MAXV];
    for (int k = 0; k < m->nbody; k++) {
        const int last = m->body_link[k];
        first[k] = last, ndof[k] = 0;
        if (last < 0) continue;
        while (m->link_parent[first[k]] >= 0 && m->link_body[m->link_parent[first[k]]] == k) first[k]--;
        ndof[k] = last - first[k] + 1;
    }
    unsigned char in[MAXV], act[MAXV];
    for (int round = 0; round < 4; round++) {
        if (round == 2) {
            for (int k = 0; k < m->nbody; k++) {
                const int nd = ndof[k];
                if (nd == 0) continue;
                double B[36];
                for (int t = 0; t < nd * nd; t++) B[t] = salto_test_uniform(&rng, -1.0, 1.0);
                for (int r = 0; r < nd; r++) {
                    for (int c = 0; c < nd; c++) {
                        double x = r == c ? 0.1 : 0.0;
                        for (int t = 0; t < nd; t++) x += B[nd * r + t] * B[nd * c + t];
                        wt[k][nd * r + c] = x;
                    }
                }
                ck_assert_int_eq(salto_dca_set_weight(a, k, wt[k]), 0);
            }
        }
        // rounds 1 and 3: a hybrid body, half the joints active, the others at rest
        salto_dca_activate_top(a, round % 2 ? m->nbody / 2 : m->nbody);
        salto_dca_active_links(a, act);
        for (int j = 0; j < nv; j++) {
            if (!act[j]) d->qd[j] = 0.0;
        }
        ck_assert_int_eq(salto_dca_forward(a, d, fext), SALTO_OK);
        for (int body = -1; body < m->nbody; body++) {
            if (body >= 0 && ndof[body] == 0) continue;
            const int cnt = salto_dca_subtree_links(a, body, in);
            ck_assert_int_ge(cnt, 1);
            double want = 0.0, scale = 0.0;
            for (int k = 0; k < m->nbody; k++) {
                const int nd = ndof[k];
                if (nd == 0 || !in[first[k]]) continue;
                const double* q = d->qdd + first[k];
                for (int r = 0; r < nd; r++) {
                    for (int c = 0; c < nd; c++) {
                        const double w = round >= 2 ? wt[k][nd * r + c] : (r == c);
                        want += q[r] * w * q[c];
                        scale += fabs(q[r] * w * q[c]);
                    }
                }
            }
            const double got = salto_dca_metric(a, body);
            char ctx[160];
            snprintf(ctx, sizeof ctx, "model %d seed %d round %d node of body %d (%d DOFs)", _i % NMODEL, _i, round, body, cnt);
            ck_assert_vec_close(&got, &want, 1, 1e-9 * fmax(1.0, scale), 1e-9, ctx);
        }
    }
    // a weight that is not SPD is refused
    const double bad[36] = {-1.0};
    int some = -1;
    for (int k = 0; k < m->nbody && some < 0; k++) {
        if (ndof[k] == 1) some = k;
    }
    if (some >= 0) ck_assert_int_eq(salto_dca_set_weight(a, some, bad), -1);
    salto_dca_destroy(a);
    teardown_model();
}
END_TEST

// the acceleration update region two ways: by every joint's acceleration (ABA, the adaptive
// step's) and by the paper's search on the metric's coefficients, which solves only the joints
// it visits: the same joints, the same metric left, and the visited joints' accelerations the
// fully articulated ones (ABA's), zero elsewhere; each with the budget or the threshold
// deciding, identity and full SPD weights, and the joints' activity kept
START_TEST(dca_accel_region_two_ways) {
    setup_model(_i);
    const int nv = m->nv;
    salto_dca* a = salto_dca_create(m);
    ck_assert_ptr_nonnull(a);
    const int joints = (salto_dca_nodes(a) - 1) / 2;
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 5100u + (unsigned)_i);
    double fext[6 * MAXV], full[MAXV];
    random_body_forces(m, &rng, fext);
    ck_assert_int_eq(salto_aba(m, d, fext), SALTO_OK);
    memcpy(full, d->qdd, sizeof(double) * (size_t)nv);
    const double scale = fmax(1.0, salto_test_maxabs(full, nv));
    for (int round = 0; round < 2; round++) {
        if (round == 1) { // full SPD weights B B' + 0.1
            for (int k = 0; k < m->nbody; k++) {
                const int last = m->body_link[k];
                if (last < 0) continue;
                int first = last;
                while (m->link_parent[first] >= 0 && m->link_body[m->link_parent[first]] == k) first--;
                const int nd = last - first + 1;
                double B[36], w[36];
                for (int t = 0; t < nd * nd; t++) B[t] = salto_test_uniform(&rng, -1.0, 1.0);
                for (int r = 0; r < nd; r++) {
                    for (int c = 0; c < nd; c++) {
                        double x = r == c ? 0.1 : 0.0;
                        for (int t = 0; t < nd; t++) x += B[nd * r + t] * B[nd * c + t];
                        w[nd * r + c] = x;
                    }
                }
                ck_assert_int_eq(salto_dca_set_weight(a, k, w), 0);
            }
        }
        // the whole metric: nothing visited
        unsigned char r1[MAXV], r2[MAXV];
        double total, e2;
        ck_assert_int_eq(salto_dca_accel_region(a, d, fext, 0.0, 0, r1, &total), SALTO_OK);
        ck_assert_int_eq(salto_dca_accel_region_coef(a, d, fext, 0.0, 0, r2, &e2), SALTO_OK);
        char ctx[160];
        snprintf(ctx, sizeof ctx, "model %d seed %d round %d: the whole metric", _i % NMODEL, _i, round);
        ck_assert_vec_close(&total, &e2, 1, 1e-9 * fmax(1.0, total), 1e-9, ctx);
        ck_assert_msg(total > 0.0, "%s is %g", ctx, total);
        const int budgets[5] = {1, 2, joints / 2, joints, joints};
        for (int k = 0; k < 5; k++) {
            const double eps = k == 4 ? 0.3 * total : 0.0; // the last: the threshold decides
            salto_dca_activate_top(a, 1 + k % 2);
            const int act = salto_dca_active_joints(a);
            double err1, err2, q1[MAXV];
            memset(d->qdd, 0x7f, sizeof(double) * (size_t)nv);
            ck_assert_int_eq(salto_dca_accel_region(a, d, fext, eps, budgets[k], r1, &err1), SALTO_OK);
            memcpy(q1, d->qdd, sizeof(double) * (size_t)nv);
            memset(d->qdd, 0x7f, sizeof(double) * (size_t)nv);
            ck_assert_int_eq(salto_dca_accel_region_coef(a, d, fext, eps, budgets[k], r2, &err2), SALTO_OK);
            snprintf(ctx, sizeof ctx, "model %d seed %d round %d budget %d eps %g", _i % NMODEL, _i, round,
                     budgets[k], eps);
            ck_assert_int_eq(salto_dca_active_joints(a), act);
            int visited = 0;
            for (int j = 0; j < nv; j++) {
                ck_assert_msg(r1[j] == r2[j], "%s: DOF %d %s by ABA, %s by the coefficients", ctx, j,
                              r1[j] ? "visited" : "not visited", r2[j] ? "visited" : "not visited");
                const double want = r1[j] ? full[j] : 0.0;
                ck_assert_vec_close(&q1[j], &want, 1, 1e-9 * scale, 1e-9, ctx);
                ck_assert_vec_close(&d->qdd[j], &want, 1, 1e-9 * scale, 1e-9, ctx);
                visited += r1[j] && (j == 0 || m->link_body[j] != m->link_body[j - 1]);
            }
            ck_assert_vec_close(&err1, &err2, 1, 1e-9 * fmax(1.0, total), 1e-9, ctx);
            if (eps > 0.0) {
                ck_assert_msg(err1 <= eps, "%s: %g left", ctx, err1);
            } else {
                ck_assert_msg(visited == budgets[k], "%s: %d joints visited", ctx, visited);
            }
        }
    }
    salto_dca_destroy(a);
    teardown_model();
}
END_TEST

// leftovers: memory the DCA reuses (its scratch from the heap, a join's arrays on the stack)
// may hold NaN from earlier work; no coefficient may depend on it. Found by Figure 6's runs:
// a product "0 C + A B" read a scratch that a freed pendulum had left NaN, and the metric's
// coefficients, hence the region chosen, were NaN in a release build and right under the
// sanitizers. Here the heap's free blocks and the stack below this frame are filled with NaN
// first (blocks of the DCA's sizes, freed just before it is created, are what malloc hands
// out again).
static double __attribute__((noinline)) poison_stack(void) {
    volatile double x[16384];
    for (int i = 0; i < 16384; i++) x[i] = NAN;
    return x[16383];
}

static void __attribute__((noinline)) poison_heap(void) {
    enum { NB = 528 };
    void* blk[NB];
    for (int i = 0; i < NB; i++) { // small blocks of many sizes, then 16 of 120 kB (below
        // glibc's threshold for mapping fresh, zeroed pages)
        const size_t sz = i < 512 ? 16 * (size_t)(1 + i % 64) * (size_t)(1 + i / 64) : 120000;
        double* b = malloc(sz);
        for (size_t t = 0; b && t < sz / sizeof(double); t++) b[t] = NAN;
        blk[i] = b;
    }
    for (int i = 0; i < NB; i++) free(blk[i]);
}

START_TEST(dca_metric_ignores_leftover_memory) {
    salto_model* mm = salto_test_model_chain_axes(50, "y");
    salto_data* dd = salto_data_create(mm);
    ck_assert_ptr_nonnull(dd);
    salto_test_random_state(mm, dd, 4100u, 1.0);
    const int nv = mm->nv;
    double arm[64];
    for (int j = 0; j < nv; j++) arm[j] = 0.02;
    unsigned char r[64];
    for (int round = 0; round < 2; round++) { // without armature, then with
        // the whole metric (identity weights, one DOF a joint): the sum of the squared fully
        // articulated accelerations, by the DCA's own pass (no metric)
        salto_dca* ref = salto_dca_create(mm);
        ck_assert_ptr_nonnull(ref);
        if (round) salto_dca_set_armature(ref, arm);
        ck_assert_int_eq(salto_dca_forward(ref, dd, NULL), SALTO_OK);
        salto_dca_destroy(ref);
        double want = 0.0, got = -1.0;
        for (int j = 0; j < nv; j++) want += dd->qdd[j] * dd->qdd[j];
        poison_heap();
        salto_dca* a = salto_dca_create(mm);
        ck_assert_ptr_nonnull(a);
        if (round) salto_dca_set_armature(a, arm);
        ck_assert_msg(isnan(poison_stack()), "the stack not poisoned");
        ck_assert_int_eq(salto_dca_accel_region_coef(a, dd, NULL, 0.0, 0, r, &got), SALTO_OK);
        ck_assert_msg(isfinite(got) && want > 0.0, "round %d: the metric %g, want %g", round, got, want);
        ck_assert_vec_close(&got, &want, 1, 1e-9 * want, 1e-9, round ? "with armature" : "without");
        salto_dca_destroy(a);
    }
    salto_data_destroy(dd);
    salto_model_destroy(mm);
}
END_TEST

// the full semi-implicit Euler step by ABA, for the adaptive step's tests
static void full_step(const salto_model* mm, salto_data* dd, const double* fext, double h) {
    ck_assert_int_eq(salto_aba(mm, dd, fext), SALTO_OK);
    for (int j = 0; j < mm->nv; j++) dd->qd[j] += h * dd->qdd[j], dd->q[j] += h * dd->qd[j];
}


// with every joint in the budget and no thresholds, the adaptive step is the full step
START_TEST(dca_adaptive_all_active_is_the_full_step) {
    setup_model(_i);
    const int nv = m->nv;
    salto_data* e = salto_data_create(m);
    ck_assert_ptr_nonnull(e);
    salto_data_copy_inputs(m, e, d);
    salto_dca* a = salto_dca_create(m);
    ck_assert_ptr_nonnull(a);
    const salto_adaptive_opts o = {m->nbody, 0.0, 0.0, 1};
    for (int step = 0; step < 5; step++) {
        salto_adaptive_stats st;
        ck_assert_int_eq(salto_dca_adaptive_step(a, d, NULL, 1e-3, &o, &st), SALTO_OK);
        full_step(m, e, NULL, 1e-3);
        char ctx[96];
        snprintf(ctx, sizeof ctx, "model %d seed %d step %d", _i % NMODEL, _i, step);
        ck_assert_vec_close(d->qd, e->qd, nv, 1e-9 * fmax(1.0, salto_test_maxabs(e->qd, nv)), 1e-9, ctx);
        ck_assert_vec_close(d->q, e->q, nv, 1e-10 * fmax(1.0, salto_test_maxabs(e->q, nv)), 1e-10, ctx);
    }
    salto_dca_destroy(a);
    salto_data_destroy(e);
    teardown_model();
}
END_TEST


// rigidification by impulses: the stopped joints at rest, the momentum of the others' directions
// kept ((M dqd)_A = 0: the impulses act on the stopped joints only), and the kinetic energy
// never rises
START_TEST(dca_rigidify_keeps_momentum_and_never_adds_energy) {
    setup_model(_i);
    const int nv = m->nv;
    salto_dca* a = salto_dca_create(m);
    ck_assert_ptr_nonnull(a);
    double qd0[MAXV], M[MAXV * MAXV], k0, k1, pe;
    unsigned char act[MAXV], rigid[MAXV];
    salto_data* e = salto_data_create(m);
    salto_hybrid* hy = salto_hybrid_create(m);
    ck_assert(e && hy);
    for (int top = 0; top < m->nbody; top++) {
        salto_test_random_state(m, d, 2000u + 37u * (unsigned)_i + (unsigned)top, 1.2);
        salto_dca_set_active(a, NULL);
        memcpy(qd0, d->qd, sizeof(double) * (size_t)nv);
        salto_fk(m, d, SALTO_FK_VEL);
        salto_link_inertias(m, d);
        salto_energy(m, d, &k0, &pe);
        // keep the first top joints, stop the rest
        salto_dca_activate_top(a, top);
        salto_dca_active_links(a, act);
        salto_dca_set_active(a, NULL);
        for (int k = 0; k < m->nbody; k++) rigid[k] = m->body_link[k] >= 0 && !act[m->body_link[k]];
        // the same stop on the hybrid body's joint-space inertia (every joint active), on a copy
        salto_data_copy_inputs(m, e, d);
        salto_fk(m, e, SALTO_FK_POS);
        unsigned char all[MAXV], stop[MAXV];
        for (int j = 0; j < nv; j++) all[j] = 1, stop[j] = !act[j];
        ck_assert_int_eq(salto_hybrid_set(hy, e, all), nv);
        double dke = 1.0;
        ck_assert_int_eq(salto_hybrid_stop(hy, e, stop, &dke), SALTO_OK);
        ck_assert_int_eq(salto_dca_rigidify(a, d, rigid), SALTO_OK);
        salto_fk(m, d, SALTO_FK_VEL);
        salto_link_inertias(m, d);
        salto_energy(m, d, &k1, &pe);
        char ctx[96];
        snprintf(ctx, sizeof ctx, "model %d seed %d, %d joints kept", _i % NMODEL, _i, top);
        ck_assert_msg(k1 <= k0 * (1.0 + 1e-12) + 1e-12, "%s: kinetic energy %.17g -> %.17g", ctx, k0, k1);
        ck_assert_vec_close(e->qd, d->qd, nv, 1e-9 * fmax(1.0, salto_test_maxabs(qd0, nv)), 1e-9, ctx);
        ck_assert_msg(fabs(dke - (k1 - k0)) <= 1e-9 * fmax(1.0, k0), "%s: the energy change %g, by the hybrid body %g",
                      ctx, k1 - k0, dke);
        salto_crba(m, d, M);
        for (int r = 0; r < nv; r++) {
            if (!act[r]) {
                ck_assert_msg(d->qd[r] == 0.0, "%s: DOF %d still moves (%g)", ctx, r, d->qd[r]);
                continue;
            }
            double s = 0.0, sc = 0.0;
            for (int c = 0; c < nv; c++) s += M[nv * r + c] * (d->qd[c] - qd0[c]), sc += fabs(M[nv * r + c] * qd0[c]);
            ck_assert_msg(fabs(s) <= 1e-9 * fmax(1.0, sc), "%s: (M dqd)_%d = %g", ctx, r, s);
        }
        ck_assert_int_eq(salto_dca_active_joints(a), top);
    }
    salto_hybrid_destroy(hy);
    salto_data_destroy(e);
    salto_dca_destroy(a);
    teardown_model();
}
END_TEST


// a budget of N joints leaves exactly N active while more move; the pendulum's error against
// the full simulation (its tip's place after 0.3 s: a planar pendulum of 30 links released
// straight with its first joint at 1.5 rad) falls as the budget grows, and vanishes with every joint in it
START_TEST(dca_adaptive_budget_and_error) {
    salto_model* mm = salto_test_model_chain_axes(30, "y");
    salto_data* d0 = salto_data_create(mm);
    ck_assert_ptr_nonnull(d0);
    d0->q[0] = 1.5;
    const int steps = 300, tip = mm->nv - 1;
    const double h = 1e-3;
    salto_data* ref = salto_data_create(mm);
    salto_data_copy_inputs(mm, ref, d0);
    for (int k = 0; k < steps; k++) full_step(mm, ref, NULL, h);
    salto_fk(mm, ref, SALTO_FK_POS);
    static const int budgets[] = {1, 5, 10, 30};
    double err[4];
    for (int b = 0; b < 4; b++) {
        salto_data* dd = salto_data_create(mm);
        salto_data_copy_inputs(mm, dd, d0);
        salto_dca* a = salto_dca_create(mm);
        ck_assert_ptr_nonnull(a);
        const salto_adaptive_opts o = {budgets[b], 0.0, 0.0, 1};
        for (int k = 0; k < steps; k++) {
            salto_adaptive_stats st;
            ck_assert_int_eq(salto_dca_adaptive_step(a, dd, NULL, h, &o, &st), SALTO_OK);
            ck_assert_msg(st.active_joints == budgets[b], "budget %d: %d joints active at step %d",
                          budgets[b], st.active_joints, k);
            ck_assert_msg(st.rigidified_energy <= 1e-9, "budget %d step %d: rigidification added %g J",
                          budgets[b], k, st.rigidified_energy);
        }
        salto_fk(mm, dd, SALTO_FK_POS);
        const double* x = dd->p + 3 * tip;
        const double* y = ref->p + 3 * tip;
        err[b] = sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) + (x[2] - y[2]) * (x[2] - y[2]));
        salto_dca_destroy(a);
        salto_data_destroy(dd);
    }
    for (int b = 1; b < 4; b++) {
        ck_assert_msg(err[b] < err[b - 1], "the tip %g m off with %d joints, %g m with %d", err[b],
                      budgets[b], err[b - 1], budgets[b - 1]);
    }
    ck_assert_msg(err[3] < 1e-9, "every joint active: %g m from the full simulation", err[3]);
    salto_data_destroy(ref);
    salto_data_destroy(d0);
    salto_model_destroy(mm);
}
END_TEST

// with an update period, the steps between updates are the hybrid body's: the same as DCA with
// the active joints the update left (their set unchanged), stepped by semi-implicit Euler; the
// update comes back every period steps; and a change of activity restarts the count
START_TEST(dca_adaptive_period_steps_the_hybrid_body) {
    salto_model* mm = salto_test_model_chain_axes(40, "y");
    const int nv = mm->nv, period = 7;
    const double h = 1e-3;
    salto_data* dd = salto_data_create(mm);
    salto_data* ref = salto_data_create(mm);
    salto_dca* a = salto_dca_create(mm);
    salto_dca* b = salto_dca_create(mm);
    ck_assert(dd && ref && a && b);
    dd->q[0] = 1.5, dd->q[3] = -0.4;
    double fext[6 * 40];
    memset(fext, 0, sizeof fext);
    fext[6 * 25 + 3] = 5.0; // a push on link 26 (its entries about the origin: a force along x)
    const salto_adaptive_opts o = {6, 0.0, 0.0, period};
    unsigned char act[40], body_act[41];
    for (int k = 0; k < 3 * period; k++) {
        salto_adaptive_stats st;
        ck_assert_int_eq(salto_dca_adaptive_step(a, dd, fext, h, &o, &st), SALTO_OK);
        ck_assert_msg(st.updated == (k % period == 0), "step %d: updated %d", k, st.updated);
        ck_assert_int_eq(st.active_joints, 6);
        salto_dca_active_links(a, act);
        if (k % period == 0) { // the reference takes the state and the active set here
            salto_data_copy_inputs(mm, ref, dd);
            for (int t = 0; t < mm->nbody; t++) body_act[t] = mm->body_link[t] >= 0 && act[mm->body_link[t]];
            ck_assert_int_eq(salto_dca_set_active(b, body_act), 0);
            continue;
        }
        ck_assert_int_eq(salto_dca_forward(b, ref, fext), SALTO_OK);
        for (int j = 0; j < nv; j++) ref->qd[j] += h * ref->qdd[j], ref->q[j] += h * ref->qd[j];
        unsigned char now[40];
        salto_dca_active_links(b, now);
        ck_assert_msg(memcmp(now, act, (size_t)nv) == 0, "step %d: the active set changed between updates", k);
        char ctx[64];
        snprintf(ctx, sizeof ctx, "step %d (period %d)", k, period);
        ck_assert_vec_close(dd->qd, ref->qd, nv, 1e-10 * fmax(1.0, salto_test_maxabs(ref->qd, nv)), 1e-10, ctx);
        ck_assert_vec_close(dd->q, ref->q, nv, 1e-12 * fmax(1.0, salto_test_maxabs(ref->q, nv)), 1e-12, ctx);
    }
    // a change of activity: the next step updates the region
    salto_dca_set_active(a, NULL);
    salto_adaptive_stats st;
    ck_assert_int_eq(salto_dca_adaptive_step(a, dd, fext, h, &o, &st), SALTO_OK);
    ck_assert_int_eq(st.updated, 1);
    salto_dca_destroy(b);
    salto_dca_destroy(a);
    salto_data_destroy(ref);
    salto_data_destroy(dd);
    salto_model_destroy(mm);
}
END_TEST

// armature: (M + diag(arm)) qdd = tau - h, by CRBA and RNEA; negative armature refused
START_TEST(dca_armature_adds_to_the_inertia_matrix) {
    setup_model(_i);
    const int nv = m->nv;
    salto_dca* a = salto_dca_create(m);
    ck_assert_ptr_nonnull(a);
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 2500u + (unsigned)_i);
    double arm[MAXV], fext[6 * MAXV], rhs[MAXV];
    for (int j = 0; j < nv; j++) arm[j] = salto_test_uniform(&rng, 0.0, 2.0);
    random_body_forces(m, &rng, fext);
    ck_assert_int_eq(salto_dca_set_armature(a, arm), 0);
    locked_reference(m, d, fext, NULL, arm, rhs);
    ck_assert_int_eq(salto_dca_forward(a, d, fext), SALTO_OK);
    char ctx[96];
    snprintf(ctx, sizeof ctx, "model %d seed %d", _i % NMODEL, _i);
    ck_assert_vec_close(d->qdd, rhs, nv, 1e-9 * fmax(1.0, salto_test_maxabs(rhs, nv)), 1e-9, ctx);
    arm[0] = -1.0;
    ck_assert_int_eq(salto_dca_set_armature(a, arm), -1);
    salto_dca_destroy(a);
    teardown_model();
}
END_TEST

// building the assembly tree fails cleanly at every allocation, with nothing leaked
START_TEST(dca_survives_allocation_failure) {
    salto_model* mm = salto_test_model_random(12, SALTO_ROOT_FREE, 5u);
    int succeeded = 0, n = 1;
    for (; n < 400 && !succeeded; n++) {
        salto_test_counter cnt = {0, 0, n};
        salto_alloc_hooks h = {salto_test_counting_malloc, salto_test_counting_free, &cnt};
        salto_set_alloc_hooks(&h);
        salto_dca* a = salto_dca_create(mm);
        succeeded = a != NULL;
        salto_dca_destroy(a);
        salto_set_alloc_hooks(NULL);
        ck_assert_msg(cnt.live == 0, "allocation %d failing leaked %ld blocks", n, cnt.live);
    }
    ck_assert_msg(succeeded, "no success within %d allocations", n);
    ck_assert_int_gt(n, 5); // it did fail at the first few
    salto_model_destroy(mm);
}
END_TEST


Suite* dynamics_suite(void) {
    Suite* s = suite_create("dynamics");
    TCase* tc = tcase_create("consistency");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, aba_inverts_rnea, 0, 3 * NMODEL);
    tcase_add_loop_test(tc, aba_inverts_rnea_ext, 0, 2 * NMODEL);
    tcase_add_loop_test(tc, aba_hybrid_inverts_rnea, 0, 8 * NMODEL);
    tcase_add_loop_test(tc, aba_equals_crba_solve, 0, 2 * NMODEL);
    tcase_add_loop_test(tc, crba_lower_is_the_lower_triangle, 0, 2 * NMODEL);
    tcase_add_loop_test(tc, crba_lower_long_chains, 0, 28);
    tcase_add_loop_test(tc, aba_external_force_equals_generalised_force, 0, 2 * NMODEL);
    tcase_add_loop_test(tc, aba_delta_equals_two_passes, 0, 2 * NMODEL);
    tcase_add_loop_test(tc, impulse_gradient_matches_differences, 0, 4 * NMODEL);
    suite_add_tcase(s, tc);

    TCase* ph = tcase_create("physics");
    tcase_set_timeout(ph, 120);
    tcase_add_loop_test(ph, momentum_conserved_free_floating, 0, 3);
    tcase_add_test(ph, energy_conserved_passive_chain);
    tcase_add_loop_test(ph, equivariant_under_change_of_world_frame, 0, 10);
    suite_add_tcase(s, ph);

    TCase* dc = tcase_create("dca");
    tcase_set_timeout(dc, 120);
    tcase_add_loop_test(dc, dca_equals_aba, 0, 3 * NMODEL);
    tcase_add_test(dc, dca_equals_aba_shipped);
    tcase_add_test(dc, dca_equals_aba_large);
    tcase_add_test(dc, dca_survives_allocation_failure);
    tcase_add_loop_test(dc, dca_hybrid_equals_locked_joints, 0, 2 * NMODEL);
    tcase_add_loop_test(dc, dca_locked_model_is_the_locked_character, 0, 2 * NMODEL);
    tcase_add_loop_test(dc, dca_metric_equals_summed_accelerations, 0, 2 * NMODEL);
    tcase_add_loop_test(dc, dca_accel_region_two_ways, 0, 2 * NMODEL);
    tcase_add_test(dc, dca_metric_ignores_leftover_memory);
    tcase_add_loop_test(dc, dca_adaptive_all_active_is_the_full_step, 0, NMODEL);
    tcase_add_loop_test(dc, dca_rigidify_keeps_momentum_and_never_adds_energy, 0, NMODEL);
    tcase_add_test(dc, dca_adaptive_budget_and_error);
    tcase_add_test(dc, dca_adaptive_period_steps_the_hybrid_body);
    tcase_add_loop_test(dc, dca_armature_adds_to_the_inertia_matrix, 0, NMODEL);
    suite_add_tcase(s, dc);
    return s;
}
