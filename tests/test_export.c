// test_export.c: the exported character is the same character elsewhere: MuJoCo loads the
// MJCF and the URDF, finds the same joints, masses and, at random states and torques, the same
// accelerations as salto's articulated-body algorithm
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "salto/dynamics.h"
#include "salto/spatial.h"
#include "salto/kinematics.h"
#include "salto/character.h"
#include "salto/export.h"
#include "salto/model.h"
#include "test_suites.h"
#include "test_util.h"

static const char* const characters[] = {"data/characters/humanoid22.yaml",
                                         "data/characters/gymnast7.yaml", "data/characters/luxo.yaml",
                                         "tests/data/sim/pendulum.yaml", "tests/data/sim/box.yaml",
                                         "tests/data/sim/fixed_offset.yaml"};
enum { NCHAR = (int)(sizeof characters / sizeof characters[0]) };
// after the characters and the random trees: the displaced fixed base in a turned world (its
// welded frame rotated as well as moved)
enum { TURNED = NCHAR + SALTO_TEST_NMODEL };

static salto_model* load(int ci, const char** name, salto_error* err) {
    if (ci < NCHAR) {
        *name = characters[ci];
        return salto_model_load(salto_test_path(characters[ci]), err);
    }
    if (ci < TURNED) {
        *name = "a random tree";
        return salto_test_model_pick(ci - NCHAR, 900u + (unsigned)ci);
    }
    *name = "the fixed base in a turned world";
    salto_character_desc* c = salto_character_load(salto_test_path("tests/data/sim/fixed_offset.yaml"), err);
    if (!c) return NULL;
    salto_model_options o = {{0}, {0.3, -0.1, 0.2}};
    const double u[3] = {0.48, 0.6, 0.64}; // a unit axis
    salto_m3_axis_angle(o.world_R, u, 0.7);
    salto_model* m = salto_model_build(c, &o, err);
    salto_character_destroy(c);
    return m;
}

// exports character _i in the format (1 MJCF, 0 URDF), loads it into MuJoCo, and compares
// at random states: accelerations to rel (MJCF: exact to round-off; URDF: the token masses
// between DOFs move them by about 1e-8)
// (ci >= NCHAR: the random tree salto_test_model_pick gives for ci - NCHAR: full inertia
// tensors, tilted axes and frames)
static void compare(int ci, int mjcf, double rel) {
    salto_error err = {0};
    const char* name = NULL;
    salto_model* m = load(ci, &name, &err);
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
    if (!mjcf) { // URDF has no gravity: MuJoCo's default, unless the world is turned
        for (int k = 0; k < 3; k++) mm->opt.gravity[k] = m->gravity[k];
    }
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
                          "MuJoCo %.17g, salto %.17g", name, mjcf ? "MJCF" : "URDF", trial,
                          m->link_name[j], md->qacc[adr[j]], d->qdd[j]);
        }
        // the sites (MJCF's; URDF has none) where salto has them, the welded bodies' included
        for (int st = 0; mjcf && st < m->nsite; st++) {
            const int id = mj_name2id(mm, mjOBJ_SITE, m->site_name[st]);
            ck_assert_msg(id >= 0, "%s: no site %s in MuJoCo", name, m->site_name[st]);
            double x[3];
            salto_site_pos(m, d, st, x);
            for (int k = 0; k < 3; k++) {
                ck_assert_msg(fabs(md->site_xpos[3 * id + k] - x[k]) <= 1e-12, "%s, trial %d: site %s "
                              "at %.17g in MuJoCo, %.17g in salto (axis %d)", name, trial,
                              m->site_name[st], md->site_xpos[3 * id + k], x[k], k);
            }
        }
    }
    salto_data_destroy(d);
    mj_deleteData(md);
    mj_deleteModel(mm);
    salto_model_destroy(m);
}

// every character, the random trees (full inertia tensors, tilted axes and frames) and a fixed
// base away from the origin in a turned world to 1e-12 of the largest acceleration, and the
// sites to 1e-12 m (issue 27: a full inertia written as MJCF's fullinertia agreed only to 1e-6,
// MuJoCo diagonalising it to about 1e-6 rad; the principal axes are now written at full
// precision)
START_TEST(mjcf_same_dynamics) { compare(_i, 1, 1e-12); }
END_TEST

START_TEST(urdf_same_dynamics) { compare(_i, 0, 1e-5); }
END_TEST

START_TEST(urdf_turned_fixed_base) { compare(TURNED, 0, 1e-5); }
END_TEST

Suite* export_suite(void) {
    Suite* s = suite_create("export");
    TCase* tc = tcase_create("export");
    tcase_add_loop_test(tc, mjcf_same_dynamics, 0, TURNED + 1);
    tcase_add_loop_test(tc, urdf_same_dynamics, 0, NCHAR);
    tcase_add_test(tc, urdf_turned_fixed_base);
    suite_add_tcase(s, tc);
    return s;
}
