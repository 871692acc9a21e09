// test_model.c: model building (DOF order, subtrees, names, root types), allocation
// behaviour of building and of every evaluation function
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/aggregate.h"
#include "salto/character.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/orient.h"
#include "salto/spatial.h"
#include <math.h>
#include "test_suites.h"
#include "test_util.h"

// the subtree range of every link is exactly its set of descendants
START_TEST(preorder_and_subtrees) {
    salto_model* m = salto_test_model_random(12, _i % 3, 40u + (unsigned)_i);
    for (int i = 0; i < m->nv; i++) {
        ck_assert_int_lt(m->link_parent[i], i);
        for (int k = 0; k < m->nv; k++) {
            int anc = 0;
            for (int a = k; a >= 0; a = m->link_parent[a]) anc |= (a == i);
            const int in_range = k >= i && k < m->link_subtree_end[i];
            ck_assert_msg(anc == in_range, "link %d in subtree of %d: %d vs range %d", k, i, anc,
                          in_range);
        }
    }
    salto_model_destroy(m);
}
END_TEST


// root types add their DOFs first, with the documented names and axes
START_TEST(root_dofs) {
    static const char* const free_names[] = {"root_x", "root_y", "root_z", "root_ry", "root_rx", "root_rz"};
    static const char* const planar_names[] = {"root_x", "root_z", "root_ry"};
    for (int rt = 0; rt < 3; rt++) {
        salto_character_desc* c = salto_character_random_tree(5, (salto_root_type)rt, 9u);
        int naxis = 0;
        for (int b = 0; b < c->nbody; b++) naxis += c->bodies[b].parent >= 0 ? c->bodies[b].naxis : 0;
        salto_error err = {0};
        salto_model* m = salto_model_build(c, NULL, &err);
        ck_assert_ptr_nonnull(m);
        const int nroot = rt == SALTO_ROOT_FREE ? 6 : rt == SALTO_ROOT_PLANAR ? 3 : 0;
        ck_assert_int_eq(m->nroot, nroot);
        ck_assert_int_eq(m->nv, nroot + naxis);
        for (int i = 0; i < nroot; i++) {
            const char* want = rt == SALTO_ROOT_FREE ? free_names[i] : planar_names[i];
            ck_assert_str_eq(m->link_name[i], want);
            ck_assert_int_eq(salto_model_dof(m, want), i);
            ck_assert_int_eq(m->link_type[i], i < nroot - (rt == SALTO_ROOT_FREE ? 3 : 1)
                                                  ? SALTO_AXIS_PRISMATIC
                                                  : SALTO_AXIS_REVOLUTE);
        }
        // every named DOF, body and site is found by name
        for (int i = 0; i < m->nv; i++) ck_assert_int_eq(salto_model_dof(m, m->link_name[i]), i);
        for (int b = 0; b < m->nbody; b++) ck_assert_int_eq(salto_model_body(m, m->body_name[b]), b);
        for (int s = 0; s < m->nsite; s++) ck_assert_int_eq(salto_model_site(m, m->site_name[s]), s);
        ck_assert_int_eq(salto_model_dof(m, "no_such_dof"), -1);
        // total mass
        double mass = 0;
        for (int b = 0; b < c->nbody; b++) {
            if (!(rt == SALTO_ROOT_FIXED && c->bodies[b].parent < 0)) mass += c->bodies[b].mass;
        }
        ck_assert_double_eq_tol(m->mass, mass, 1e-12 * mass);
        salto_model_destroy(m);
        salto_character_destroy(c);
    }
}
END_TEST


// the shipped characters have the DOF counts the issue asks for
START_TEST(shipped_characters) {
    static const struct {
        const char* path;
        int nv, planar, root;
    } want[] = {
        {"data/characters/gymnast7.yaml", 7, 1, SALTO_ROOT_PLANAR},
        {"data/characters/humanoid22.yaml", 22, 0, SALTO_ROOT_FREE},
        {"data/characters/luxo.yaml", 6, 1, SALTO_ROOT_PLANAR},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        salto_model* m = salto_test_model_file(want[k].path);
        ck_assert_int_eq(m->nv, want[k].nv);
        ck_assert_int_eq(salto_model_is_planar(m), want[k].planar);
        ck_assert_int_eq(m->root_type, want[k].root);
        salto_model_destroy(m);
    }
    // the humanoid: 3 translational and 19 rotational DOFs, 70 kg
    salto_model* m = salto_test_model_file("data/characters/humanoid22.yaml");
    int nprism = 0;
    for (int i = 0; i < m->nv; i++) nprism += m->link_type[i] == SALTO_AXIS_PRISMATIC;
    ck_assert_int_eq(nprism, 3);
    ck_assert_double_eq_tol(m->mass, 70.0, 0.05);
    salto_model_destroy(m);
}
END_TEST

// ---- allocation ----

static salto_test_counter g_count;

static void hooks_on(int fail_at) {
    g_count.calls = 0;
    g_count.live = 0;
    g_count.fail_at = fail_at;
    salto_alloc_hooks h = {salto_test_counting_malloc, salto_test_counting_free, &g_count};
    salto_set_alloc_hooks(&h);
}


// building a model and its data fails cleanly at every allocation, with nothing leaked
START_TEST(build_survives_allocation_failure) {
    salto_character_desc* c = salto_character_random_tree(6, SALTO_ROOT_FREE, 3u);
    int succeeded = 0;
    for (int n = 1; n < 50 && !succeeded; n++) {
        hooks_on(n);
        salto_error err = {0};
        salto_model* m = salto_model_build(c, NULL, &err);
        salto_data* d = m ? salto_data_create(m) : NULL;
        if (m && d) {
            succeeded = 1;
        } else if (!m) {
            ck_assert_int_eq(err.status, SALTO_ERR_NOMEM);
        }
        salto_data_destroy(d);
        salto_model_destroy(m);
        salto_set_alloc_hooks(NULL);
        ck_assert_msg(g_count.live == 0, "%ld blocks leaked when allocation %d failed", g_count.live, n);
    }
    ck_assert(succeeded);
    salto_character_destroy(c);
}
END_TEST


// evaluation functions allocate nothing
START_TEST(evaluation_allocates_nothing) {
    salto_model* m = salto_test_model_random(10, SALTO_ROOT_FREE, 5u);
    salto_data* d = salto_data_create(m);
    salto_test_random_state(m, d, 1u, 1.0);
    const int nv = m->nv;
    double* J = calloc((size_t)18 * nv, sizeof(double));
    double* M = calloc((size_t)nv * nv, sizeof(double));
    double* tau = calloc((size_t)nv, sizeof(double));
    double* Js = calloc((size_t)3 * nv, sizeof(double));
    int links[2] = {0, nv - 1};
    hooks_on(0);
    salto_fk(m, d, SALTO_FK_ACC);
    salto_rnea(m, d, tau);
    salto_crba(m, d, M);
    ck_assert_int_eq(salto_aba(m, d, NULL), SALTO_OK);
    salto_aggregate(m, d);
    for (int k = 0; k < SALTO_JAC_COUNT; k++) salto_f0_jac(m, d, (salto_jac_method)k, NULL, J, NULL);
    salto_joint_torques_jac(m, d, 2, links, tau, J);
    if (m->nsite > 0) salto_site_jac(m, d, 0, Js);
    salto_set_alloc_hooks(NULL);
    ck_assert_int_eq(g_count.calls, 0);
    // every method's scratch fits the data's work area
    for (int k = 0; k < SALTO_JAC_COUNT; k++) {
        ck_assert_int_le(salto_f0_jac_work(m, (salto_jac_method)k), d->nwork);
    }
    free(J);
    free(M);
    free(tau);
    free(Js);
    salto_data_destroy(d);
    salto_model_destroy(m);
}
END_TEST


// the work area fits every method on small and odd-sized models (the linear method pads to
// whole blocks of links), and the methods agree there
START_TEST(work_area_fits_small_models) {
    salto_model* m = salto_test_model_chain(1 + _i);
    salto_data* d = salto_data_create(m);
    salto_test_random_state(m, d, 7u, 1.0);
    double J[18 * 16], Jd[18 * 16];
    for (int k = 0; k < SALTO_JAC_COUNT; k++) {
        ck_assert_int_le(salto_f0_jac_work(m, (salto_jac_method)k), d->nwork);
    }
    salto_f0_jac(m, d, SALTO_JAC_LINEAR, NULL, J, NULL);
    salto_f0_jac(m, d, SALTO_JAC_DIRECT, NULL, Jd, NULL);
    ck_assert_vec_close(J, Jd, 18 * m->nv, 1e-9, 1e-9, "linear vs direct");
    salto_data_destroy(d);
    salto_model_destroy(m);
}
END_TEST

// ---- orientation charts (orient.h) ----

#define TEST_PI 3.14159265358979323846

static const int test_orders[6][3] = {{1, 0, 2}, {0, 1, 2}, {2, 1, 0}, {0, 2, 1}, {1, 2, 0}, {2, 0, 1}};


static void random_rotation(salto_test_rng* r, double B[9]) {
    double ax[3], n = 0.0;
    for (int a = 0; a < 3; a++) ax[a] = salto_test_uniform(r, -1, 1), n += ax[a] * ax[a];
    n = sqrt(n);
    for (int a = 0; a < 3; a++) ax[a] /= n;
    salto_m3_axis_angle(B, ax, salto_test_uniform(r, -3.1, 3.1));
}


// the angles of E(q) are q again (nearest q given, of either set, 2 pi shifts included), and
// without prev their middle angle is in [-90, 90] deg with the same matrix
START_TEST(euler_angles_round_trip) {
    const unsigned seed = 900u + (unsigned)_i;
    salto_test_rng r;
    salto_test_rng_seed(&r, seed);
    const int* o = test_orders[_i % 6];
    for (int k = 0; k < 50; k++) {
        double q[3], q2[3], q3[3], E[9], E3[9];
        for (int a = 0; a < 3; a++) q[a] = salto_test_uniform(&r, -8, 8);
        salto_euler_matrix(o, q, E);
        salto_euler_angles(o, E, q, q2);
        ck_assert_vec_close(q2, q, 3, 1e-9, 0, "nearest angles");
        salto_euler_angles(o, E, NULL, q3);
        ck_assert_msg(fabs(q3[1]) <= 0.5 * TEST_PI + 1e-12, "seed %u: middle angle %g", seed, q3[1]);
        salto_euler_matrix(o, q3, E3);
        ck_assert_vec_close(E3, E, 9, 1e-12, 0, "principal angles' matrix");
    }
}
END_TEST


// the axes J and their rate against central differences of E along a path: [w]x = Edot E'
// with w = J qd, and Jdot = dJ/dt
START_TEST(euler_axes_against_differences) {
    const unsigned seed = 920u + (unsigned)_i;
    salto_test_rng r;
    salto_test_rng_seed(&r, seed);
    const int* o = test_orders[_i % 6];
    for (int k = 0; k < 20; k++) {
        double q[3], qd[3], qp[3], qm[3], Ep[9], Em[9], E[9], J[9], Jd[9], Jp[9], Jm[9];
        for (int a = 0; a < 3; a++) q[a] = salto_test_uniform(&r, -3, 3), qd[a] = salto_test_uniform(&r, -2, 2);
        const double h = 1e-6;
        for (int a = 0; a < 3; a++) qp[a] = q[a] + h * qd[a], qm[a] = q[a] - h * qd[a];
        salto_euler_matrix(o, q, E);
        salto_euler_matrix(o, qp, Ep);
        salto_euler_matrix(o, qm, Em);
        salto_euler_axes(o, q, J);
        salto_euler_axes(o, qp, Jp);
        salto_euler_axes(o, qm, Jm);
        salto_euler_axes_rate(o, q, qd, Jd);
        double W[9], w[3], wfd[3], Jfd[9];
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) {
                double s = 0.0;
                for (int c = 0; c < 3; c++) s += (Ep[3 * a + c] - Em[3 * a + c]) / (2 * h) * E[3 * b + c];
                W[3 * a + b] = s;
            }
        }
        wfd[0] = W[7], wfd[1] = W[2], wfd[2] = W[3];
        salto_m3_mul_v3(w, J, qd);
        ck_assert_vec_close(w, wfd, 3, 1e-8, 1e-8, "angular velocity");
        for (int e = 0; e < 9; e++) Jfd[e] = (Jp[e] - Jm[e]) / (2 * h);
        ck_assert_vec_close(Jd, Jfd, 9, 1e-8, 1e-8, "axes' rate");
    }
}
END_TEST


// a state moved to another chart and back is itself; both charts give the same world
// orientation, angular velocity and angular acceleration
START_TEST(euler_rechart_round_trip) {
    const unsigned seed = 940u + (unsigned)_i;
    salto_test_rng r;
    salto_test_rng_seed(&r, seed);
    const int* o = test_orders[_i % 6];
    for (int k = 0; k < 30; k++) {
        double Ba[9], Bb[9], qa[3], qda[3], qdda[3], qb[3], qdb[3], qddb[3], q2[3], qd2[3], qdd2[3];
        random_rotation(&r, Ba);
        random_rotation(&r, Bb);
        for (int a = 0; a < 3; a++) {
            qa[a] = salto_test_uniform(&r, -3, 3), qda[a] = salto_test_uniform(&r, -2, 2);
            qdda[a] = salto_test_uniform(&r, -2, 2);
        }
        salto_euler_rechart(o, Ba, k % 3 ? Bb : NULL, qa, qda, qdda, NULL, qb, qdb, qddb);
        if (cos(qb[1]) < 0.05) continue; // too near the target chart's singular set to invert well
        salto_euler_rechart(o, k % 3 ? Bb : NULL, Ba, qb, qdb, qddb, qa, q2, qd2, qdd2);
        ck_assert_vec_close(q2, qa, 3, 1e-9, 0, "angles back");
        ck_assert_vec_close(qd2, qda, 3, 1e-7, 1e-7, "rates back");
        ck_assert_vec_close(qdd2, qdda, 3, 1e-6, 1e-6, "accelerations back");
        // the world angular acceleration by differences of the world angular velocity
        const double h = 1e-6;
        double wp[3], wm[3];
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            double q[3], qd[3], J[9], wl[3];
            for (int a = 0; a < 3; a++) q[a] = qa[a] + sgn * h * qda[a] + 0.5 * h * h * qdda[a], qd[a] = qda[a] + sgn * h * qdda[a];
            salto_euler_axes(o, q, J);
            salto_m3_mul_v3(wl, J, qd);
            salto_m3_mul_v3(sgn > 0 ? wp : wm, Ba, wl);
        }
        double al[3], alb[3], J[9], Jd[9], t[3];
        salto_euler_axes(o, qb, J);
        salto_euler_axes_rate(o, qb, qdb, Jd);
        salto_m3_mul_v3(al, J, qddb);
        salto_m3_mul_v3(t, Jd, qdb);
        for (int a = 0; a < 3; a++) al[a] += t[a];
        if (k % 3) {
            salto_m3_mul_v3(alb, Bb, al);
        } else {
            memcpy(alb, al, sizeof al);
        }
        double afd[3];
        for (int a = 0; a < 3; a++) afd[a] = (wp[a] - wm[a]) / (2 * h);
        ck_assert_vec_close(alb, afd, 3, 1e-6, 1e-6, "world angular acceleration");
    }
}
END_TEST


// The same motion in the character's chart and in a turned one (salto_model_set_root_reference)
// is the same physics: a state of the humanoid in a random turned chart, moved to the
// character's chart, gives the same aggregate force and momentum, the same joint torques and
// the same site positions; f0's Jacobian in the turned chart agrees with central differences;
// and the identity reference gives back the model as built, bit for bit.
START_TEST(turned_chart_same_physics) {
    const unsigned seed = 960u + (unsigned)_i;
    salto_test_rng r;
    salto_test_rng_seed(&r, seed);
    salto_model* mc = salto_test_model_file("data/characters/humanoid22.yaml");
    salto_model* mt = salto_test_model_file("data/characters/humanoid22.yaml");
    ck_assert_ptr_nonnull(mc);
    ck_assert_ptr_nonnull(mt);
    int o[3];
    ck_assert(salto_root_order(mt, o));
    double B[9];
    random_rotation(&r, B);
    salto_model_set_root_reference(mt, B);
    const int nv = mc->nv;
    salto_data* dc = salto_data_create(mc);
    salto_data* dt = salto_data_create(mt);
    salto_test_random_state(mt, dt, seed, 1.2);
    memcpy(dc->q, dt->q, sizeof(double) * (size_t)nv);
    memcpy(dc->qd, dt->qd, sizeof(double) * (size_t)nv);
    memcpy(dc->qdd, dt->qdd, sizeof(double) * (size_t)nv);
    salto_euler_rechart(o, B, NULL, dt->q + 3, dt->qd + 3, dt->qdd + 3, NULL, dc->q + 3, dc->qd + 3, dc->qdd + 3);
    double tc[64], tt[64];
    ck_assert_int_le(nv, 64);
    salto_aggregate(mc, dc);
    salto_aggregate(mt, dt);
    ck_assert_vec_close(dt->f0, dc->f0, 6, 1e-9, 1e-9, "f0");
    ck_assert_vec_close(dt->p0, dc->p0, 6, 1e-9, 1e-9, "p0");
    salto_rnea(mc, dc, tc);
    salto_rnea(mt, dt, tt);
    ck_assert_vec_close(tt + 6, tc + 6, nv - 6, 1e-8, 1e-9, "joint torques");
    for (int s = 0; s < mc->nsite; s++) {
        double xc[3], xt[3];
        salto_site_pos(mc, dc, s, xc);
        salto_site_pos(mt, dt, s, xt);
        ck_assert_vec_close(xt, xc, 3, 1e-12, 0, "site");
    }
    // f0's Jacobian in the turned chart: the q columns of the root's angles by differences
    static double J[6 * 3 * 64];
    double f0[6];
    salto_f0_jac(mt, dt, SALTO_JAC_LINEAR, f0, J, NULL);
    for (int j = 0; j < nv; j++) {
        const double q0 = dt->q[j], h = 1e-6 * fmax(1.0, fabs(q0));
        double fp[6], fm[6];
        dt->q[j] = q0 + h;
        salto_aggregate(mt, dt);
        memcpy(fp, dt->f0, sizeof fp);
        dt->q[j] = q0 - h;
        salto_aggregate(mt, dt);
        memcpy(fm, dt->f0, sizeof fm);
        dt->q[j] = q0;
        for (int a = 0; a < 6; a++) {
            const double fd = (fp[a] - fm[a]) / (2 * h), an = J[a * 3 * nv + j];
            ck_assert_msg(fabs(fd - an) <= 1e-5 * (1.0 + fabs(an)), "seed %u: df0[%d]/dq[%d] %g vs %g", seed, a, j, an, fd);
        }
    }
    // the identity: the model as built
    salto_model_set_root_reference(mt, NULL);
    ck_assert_int_eq(mt->link_tree_rot[3], 0);
    ck_assert(memcmp(mt->link_Rtree + 27, mc->link_Rtree + 27, 9 * sizeof(double)) == 0);
    salto_data_destroy(dc);
    salto_data_destroy(dt);
    salto_model_destroy(mc);
    salto_model_destroy(mt);
}
END_TEST


// the reference for a side somersault (about world x: the default chart's tilt through 90 deg)
// and for a turn about the vertical lying flat (every horizontal heading): a chart in which the
// motion keeps well away from the singular set
START_TEST(reference_avoids_the_path) {
    const int o[3] = {1, 0, 2};
    enum { N = 73 };
    static double R[9 * N];
    for (int kind = 0; kind < 2; kind++) {
        double worst0 = 0.0;
        for (int s = 0; s < N; s++) {
            const double th = 2.0 * TEST_PI * s / (N - 1);
            const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
            if (kind == 0) {
                salto_m3_axis_angle(R + 9 * s, ex, th);
            } else {
                double A[9], F[9];
                salto_m3_axis_angle(A, ez, th);
                salto_m3_axis_angle(F, ey, 0.5 * TEST_PI); // lying flat, face down
                salto_m3_mul(R + 9 * s, A, F);
            }
            worst0 = fmax(worst0, salto_euler_tilt(o, NULL, R + 9 * s));
        }
        ck_assert_double_gt(worst0, 0.999);
        double B[9];
        const double worst = salto_euler_reference(o, R, N, B);
        ck_assert_msg(worst < 0.05, "kind %d: tilt %g", kind, worst);
        double w2 = 0.0;
        for (int s = 0; s < N; s++) w2 = fmax(w2, salto_euler_tilt(o, B, R + 9 * s));
        ck_assert_double_eq_tol(w2, worst, 1e-12);
        double BtB[9];
        for (int a = 0; a < 3; a++) {
            for (int c = 0; c < 3; c++) BtB[3 * a + c] = B[a] * B[c] + B[3 + a] * B[3 + c] + B[6 + a] * B[6 + c];
        }
        const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        ck_assert_vec_close(BtB, I, 9, 1e-12, 0, "a rotation");
    }
    // a motion already clear of the singular set keeps the character's chart
    static double U[9 * 2] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    double B[9];
    ck_assert_double_eq_tol(salto_euler_reference(o, U, 2, B), 0.0, 1e-15);
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    ck_assert_vec_close(B, I, 9, 0, 0, "identity");
}
END_TEST


Suite* model_suite(void) {
    Suite* s = suite_create("model");
    TCase* tc = tcase_create("structure");
    tcase_add_loop_test(tc, preorder_and_subtrees, 0, 9);
    tcase_add_test(tc, root_dofs);
    tcase_add_test(tc, shipped_characters);
    suite_add_tcase(s, tc);
    TCase* al = tcase_create("allocation");
    tcase_add_test(al, build_survives_allocation_failure);
    tcase_add_test(al, evaluation_allocates_nothing);
    tcase_add_loop_test(al, work_area_fits_small_models, 0, 9);
    suite_add_tcase(s, al);
    TCase* oc = tcase_create("orient");
    tcase_add_loop_test(oc, euler_angles_round_trip, 0, 6);
    tcase_add_loop_test(oc, euler_axes_against_differences, 0, 6);
    tcase_add_loop_test(oc, euler_rechart_round_trip, 0, 6);
    tcase_add_loop_test(oc, turned_chart_same_physics, 0, 4);
    tcase_add_test(oc, reference_avoids_the_path);
    suite_add_tcase(s, oc);
    return s;
}
