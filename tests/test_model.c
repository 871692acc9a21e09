// test_model.c: model building (DOF order, subtrees, names, root types), allocation
// behaviour of building and of every evaluation function
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/aggregate.h"
#include "salto/character.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
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
    return s;
}
