// test_export.c: the exported character is the same character elsewhere: MuJoCo loads the
// MJCF and the URDF, finds the same joints, masses and, at random states and torques, the same
// accelerations as salto's articulated-body algorithm
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "salto/dynamics.h"
#include "salto/export.h"
#include "salto/model.h"
#include "test_suites.h"
#include "test_util.h"

static const char* const characters[] = {"data/characters/humanoid22.yaml",
                                         "data/characters/gymnast7.yaml", "data/characters/luxo.yaml",
                                         "tests/data/sim/pendulum.yaml", "tests/data/sim/box.yaml"};
enum { NCHAR = (int)(sizeof characters / sizeof characters[0]) };

// exports character _i in the format (1 MJCF, 0 URDF), loads it into MuJoCo, and compares
// at random states: accelerations to rel (MJCF: exact to round-off; URDF: the token masses
// between DOFs move them by about 1e-8)
// (ci >= NCHAR: the random tree salto_test_model_pick gives for ci - NCHAR: full inertia
// tensors, tilted axes and frames)
static void compare(int ci, int mjcf, double rel) {
    salto_error err = {0};
    salto_model* m = ci < NCHAR ? salto_model_load(salto_test_path(characters[ci]), &err)
                                : salto_test_model_pick(ci - NCHAR, 900u + (unsigned)ci);
    const char* name = ci < NCHAR ? characters[ci] : "a random tree";
    ck_assert_msg(m != NULL, "%s: %s", name, err.msg);
    if (salto_export_check(m, &err) != SALTO_OK) { // a tree MJCF cannot hold one for one
        salto_model_destroy(m);
        return;
    }
    char path[64];
    snprintf(path, sizeof path, "/tmp/salto_export_XXXXXX");
    const int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(mjcf ? salto_export_mjcf(m, path, &err) : salto_export_urdf(m, path, &err), SALTO_OK);
    char mjerr[1000] = "";
    mjModel* mm = mj_loadXML(path, NULL, mjerr, sizeof mjerr);
    ck_assert_msg(mm != NULL, "%s (%s): MuJoCo: %s", name, mjcf ? "MJCF" : "URDF", mjerr);
    remove(path);
    ck_assert_int_eq(mm->nq, m->nv);
    ck_assert_int_eq(mm->nv, m->nv);
    double mass = 0.0;
    for (int b = 0; b < mm->nbody; b++) mass += mm->body_mass[b];
    // the moving bodies' (a body welded to the world never moves: its inertia is not exported)
    ck_assert_msg(fabs(mass - m->mass) < (mjcf ? 1e-9 : 1e-4) * (1.0 + mass), "%s: MuJoCo's "
                  "mass %.9g, salto's %.9g", name, mass, m->mass);
    // salto DOF j is MuJoCo's joint of the same name
    int adr[64];
    ck_assert_int_le(m->nv, 64);
    for (int j = 0; j < m->nv; j++) {
        const int id = mj_name2id(mm, mjOBJ_JOINT, m->link_name[j]);
        ck_assert_msg(id >= 0, "%s: no joint %s in MuJoCo", name, m->link_name[j]);
        adr[j] = mm->jnt_dofadr[id];
        ck_assert_int_eq(mm->jnt_qposadr[id], adr[j]);
    }
    mm->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_LIMIT | mjDSBL_PASSIVE;
    mjData* md = mj_makeData(mm);
    salto_data* d = salto_data_create(m);
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 77u + (uint64_t)ci);
    for (int trial = 0; trial < 5; trial++) {
        for (int j = 0; j < m->nv; j++) {
            d->q[j] = salto_test_uniform(&rng, -0.8, 0.8);
            d->qd[j] = salto_test_uniform(&rng, -2.0, 2.0);
            d->tau[j] = salto_test_uniform(&rng, -5.0, 5.0);
            md->qpos[adr[j]] = d->q[j];
            md->qvel[adr[j]] = d->qd[j];
            md->qfrc_applied[adr[j]] = d->tau[j];
        }
        ck_assert_int_eq(salto_aba(m, d, NULL), SALTO_OK);
        mj_forward(mm, md);
        double scale = 1.0;
        for (int j = 0; j < m->nv; j++) scale = fmax(scale, fabs(d->qdd[j]));
        for (int j = 0; j < m->nv; j++) {
            ck_assert_msg(fabs(md->qacc[adr[j]] - d->qdd[j]) <= rel * scale, "%s (%s), trial %d, %s: "
                          "MuJoCo %.12g, salto %.12g", name, mjcf ? "MJCF" : "URDF", trial,
                          m->link_name[j], md->qacc[adr[j]], d->qdd[j]);
        }
    }
    salto_data_destroy(d);
    mj_deleteData(md);
    mj_deleteModel(mm);
    salto_model_destroy(m);
}

// the shipped characters (diagonal inertias) to 1e-9; the random trees (full inertia tensors,
// tilted axes) to 1e-5: they agree to about 1e-6, which we put down to MuJoCo keeping each
// body's inertia in principal axes from its own eigen-decomposition (not investigated further)
START_TEST(mjcf_same_dynamics) { compare(_i, 1, _i < NCHAR ? 1e-9 : 1e-5); }
END_TEST

START_TEST(urdf_same_dynamics) { compare(_i, 0, 1e-5); }
END_TEST

Suite* export_suite(void) {
    Suite* s = suite_create("export");
    TCase* tc = tcase_create("export");
    tcase_add_loop_test(tc, mjcf_same_dynamics, 0, NCHAR + SALTO_TEST_NMODEL);
    tcase_add_loop_test(tc, urdf_same_dynamics, 0, NCHAR);
    suite_add_tcase(s, tc);
    return s;
}
