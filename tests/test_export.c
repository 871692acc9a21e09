// test_export.c: the exported character is the same character elsewhere: MuJoCo loads the
// MJCF and the URDF, finds the same joints, masses and, at random states and torques, the same
// accelerations as salto's articulated-body algorithm
#include <ctype.h>
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import.h"
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

// ---- import (issue 27) ----

// a temporary file name with the given ending
static void temp_name(char* path, size_t n, const char* tag, const char* ext) {
    snprintf(path, n, "/tmp/salto_import_%s_%d%s", tag, (int)getpid(), ext);
}


// the text of a file (malloc'd)
static char* slurp(const char* path) {
    FILE* f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* t = malloc((size_t)n + 1);
    ck_assert_int_eq((long)fread(t, 1, (size_t)n, f), n);
    t[n] = '\0';
    fclose(f);
    return t;
}


// two texts equal but for their numbers, which agree to tol (relative, 1 at least): the token
// where they part, or NULL
static const char* same_but_numbers(const char* a, const char* b, double tol, double* worst) {
    *worst = 0.0;
    while (*a && *b) {
        char *ea, *eb;
        const double x = strtod(a, &ea), y = strtod(b, &eb);
        const int na = ea != a && (isdigit((unsigned char)*a) || *a == '-' || *a == '.');
        const int nb = eb != b && (isdigit((unsigned char)*b) || *b == '-' || *b == '.');
        if (na && nb) {
            const double d = fabs(x - y) / fmax(1.0, fmax(fabs(x), fabs(y)));
            *worst = fmax(*worst, d);
            if (d > tol) return a;
            a = ea, b = eb;
            continue;
        }
        if (*a != *b) return a;
        a++, b++;
    }
    return *a || *b ? a : NULL;
}


// a character exported to MJCF, imported and exported again: the same file, its numbers to
// 1e-15 (a capsule passes through MuJoCo's centre-and-half-length form, which moves its ends by
// an ulp); the shipped characters and the test ones
START_TEST(import_round_trip) {
    const char* rel = characters[_i];
    salto_error err = {0};
    salto_model* m = salto_model_load(salto_test_path(rel), &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    char a[128], y[128], b[128];
    temp_name(a, sizeof a, "a", ".xml"), temp_name(y, sizeof y, "y", ".yaml"), temp_name(b, sizeof b, "b", ".xml");
    ck_assert_int_eq(salto_export_mjcf(m, a, &err), SALTO_OK);
    salto_import_report rep;
    salto_character_desc* c = salto_import_model(a, &rep, &err);
    ck_assert_msg(c != NULL, "%s: %s", rel, err.msg);
    ck_assert_int_eq(salto_character_save(c, y, &err), SALTO_OK);
    salto_character_destroy(c);
    salto_model* m2 = salto_model_load(y, &err);
    ck_assert_msg(m2 != NULL, "%s: the imported file: %s", rel, err.msg);
    ck_assert_int_eq(salto_export_mjcf(m2, b, &err), SALTO_OK);
    char* ta = slurp(a);
    char* tb = slurp(b);
    double worst = 0.0;
    const char* at = same_but_numbers(ta, tb, 1e-15, &worst);
    ck_assert_msg(at == NULL, "%s: the round trip parts at '%.60s' (worst number %g)", rel, at ? at : "", worst);
    ck_assert_int_eq(m2->root_type, m->root_type);
    free(ta), free(tb);
    remove(a), remove(y), remove(b);
    salto_model_destroy(m2);
    salto_model_destroy(m);
}
END_TEST


// the imported character moves as MuJoCo moves the model, and as the character exported: at
// random states and torques its accelerations equal MuJoCo's on the MJCF (1e-12) and the
// original's (1e-12), its sites the original's (1e-12 m); every character, the random trees
// (full inertias, tilted axes and frames) and the displaced fixed base in a turned world
START_TEST(import_same_dynamics) {
    salto_error err = {0};
    const char* name = NULL;
    salto_model* m = load(_i, &name, &err);
    ck_assert_msg(m != NULL, "%s: %s", name, err.msg);
    if (salto_export_check(m, &err) != SALTO_OK) {
        salto_model_destroy(m);
        return;
    }
    char a[128];
    temp_name(a, sizeof a, "dyn", ".xml");
    ck_assert_int_eq(salto_export_mjcf(m, a, &err), SALTO_OK);
    salto_import_report rep;
    salto_character_desc* c = salto_import_model(a, &rep, &err);
    ck_assert_msg(c != NULL, "%s: %s", name, err.msg);
    salto_model* mi = salto_model_build(c, NULL, &err);
    salto_character_destroy(c);
    ck_assert_msg(mi != NULL, "%s: %s", name, err.msg);
    char mjerr[1000] = "";
    mjModel* mm = mj_loadXML(a, NULL, mjerr, sizeof mjerr);
    ck_assert_msg(mm != NULL, "%s", mjerr);
    remove(a);
    mm->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_LIMIT | mjDSBL_PASSIVE;
    ck_assert_int_eq(mi->nv, m->nv);
    int dof[64], adr[64]; // the imported DOF of each original DOF, and MuJoCo's
    for (int j = 0; j < m->nv; j++) {
        dof[j] = salto_model_dof(mi, m->link_name[j]);
        ck_assert_msg(dof[j] >= 0, "%s: no DOF %s imported", name, m->link_name[j]);
        const int id = mj_name2id(mm, mjOBJ_JOINT, m->link_name[j]);
        ck_assert_int_ge(id, 0);
        adr[j] = mm->jnt_dofadr[id];
    }
    mjData* md = mj_makeData(mm);
    salto_data* d = salto_data_create(m);
    salto_data* di = salto_data_create(mi);
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 1300u + (uint64_t)_i);
    for (int trial = 0; trial < 4; trial++) {
        for (int j = 0; j < m->nv; j++) {
            d->q[j] = di->q[dof[j]] = md->qpos[adr[j]] = salto_test_uniform(&rng, -0.8, 0.8);
            d->qd[j] = di->qd[dof[j]] = md->qvel[adr[j]] = salto_test_uniform(&rng, -2.0, 2.0);
            d->tau[j] = di->tau[dof[j]] = md->qfrc_applied[adr[j]] = salto_test_uniform(&rng, -5.0, 5.0);
        }
        ck_assert_int_eq(salto_aba(m, d, NULL), SALTO_OK);
        ck_assert_int_eq(salto_aba(mi, di, NULL), SALTO_OK);
        mj_forward(mm, md);
        double scale = 1.0;
        for (int j = 0; j < m->nv; j++) scale = fmax(scale, fabs(d->qdd[j]));
        for (int j = 0; j < m->nv; j++) {
            ck_assert_msg(fabs(di->qdd[dof[j]] - md->qacc[adr[j]]) <= 1e-12 * scale, "%s trial %d %s: "
                          "imported %.17g, MuJoCo %.17g", name, trial, m->link_name[j], di->qdd[dof[j]], md->qacc[adr[j]]);
            ck_assert_msg(fabs(di->qdd[dof[j]] - d->qdd[j]) <= 1e-12 * scale, "%s trial %d %s: "
                          "imported %.17g, original %.17g", name, trial, m->link_name[j], di->qdd[dof[j]], d->qdd[j]);
        }
        for (int st = 0; st < m->nsite; st++) {
            const int si = salto_model_site(mi, m->site_name[st]);
            ck_assert_int_ge(si, 0);
            double x[3], xi[3];
            salto_site_pos(m, d, st, x);
            salto_site_pos(mi, di, si, xi);
            for (int k = 0; k < 3; k++) ck_assert_msg(fabs(x[k] - xi[k]) <= 1e-12, "%s: site %s", name, m->site_name[st]);
        }
    }
    salto_data_destroy(d), salto_data_destroy(di);
    mj_deleteData(md);
    mj_deleteModel(mm);
    salto_model_destroy(mi), salto_model_destroy(m);
}
END_TEST


// a URDF (salto's export) imported through MuJoCo: the same DOFs, and at random states the
// original's accelerations to 1e-5 (the URDF's token links between a joint's DOFs weigh 1e-6 kg
// and come back as bodies of their own)
START_TEST(import_urdf_same_dynamics) {
    salto_error err = {0};
    const char* name = NULL;
    salto_model* m = load(_i, &name, &err);
    ck_assert_msg(m != NULL, "%s: %s", name, err.msg);
    char a[128];
    temp_name(a, sizeof a, "urdf", ".urdf");
    ck_assert_int_eq(salto_export_urdf(m, a, &err), SALTO_OK);
    salto_import_report rep;
    salto_character_desc* c = salto_import_model(a, &rep, &err);
    remove(a);
    ck_assert_msg(c != NULL, "%s: %s", name, err.msg);
    salto_model* mi = salto_model_build(c, NULL, &err);
    salto_character_destroy(c);
    ck_assert_msg(mi != NULL, "%s: %s", name, err.msg);
    ck_assert_int_eq(mi->nv, m->nv);
    ck_assert_msg(fabs(mi->mass - m->mass) < 1e-4, "%s: mass %g, imported %g", name, m->mass, mi->mass);
    salto_data* d = salto_data_create(m);
    salto_data* di = salto_data_create(mi);
    int dof[64];
    for (int j = 0; j < m->nv; j++) {
        dof[j] = salto_model_dof(mi, m->link_name[j]);
        ck_assert_msg(dof[j] >= 0, "%s: no DOF %s imported", name, m->link_name[j]);
    }
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 1700u + (uint64_t)_i);
    for (int trial = 0; trial < 4; trial++) {
        for (int j = 0; j < m->nv; j++) {
            d->q[j] = di->q[dof[j]] = salto_test_uniform(&rng, -0.8, 0.8);
            d->qd[j] = di->qd[dof[j]] = salto_test_uniform(&rng, -2.0, 2.0);
            d->tau[j] = di->tau[dof[j]] = salto_test_uniform(&rng, -5.0, 5.0);
        }
        ck_assert_int_eq(salto_aba(m, d, NULL), SALTO_OK);
        ck_assert_int_eq(salto_aba(mi, di, NULL), SALTO_OK);
        double scale = 1.0;
        for (int j = 0; j < m->nv; j++) scale = fmax(scale, fabs(d->qdd[j]));
        for (int j = 0; j < m->nv; j++) {
            ck_assert_msg(fabs(di->qdd[dof[j]] - d->qdd[j]) <= 1e-5 * scale, "%s trial %d %s: imported "
                          "%.12g, original %.12g", name, trial, m->link_name[j], di->qdd[dof[j]], d->qdd[j]);
        }
    }
    salto_data_destroy(d), salto_data_destroy(di);
    salto_model_destroy(mi), salto_model_destroy(m);
}
END_TEST


// writes text to a temporary .xml and imports it: the character, or NULL with err
static salto_character_desc* import_text(const char* text, salto_import_report* rep, salto_error* err) {
    char path[128];
    temp_name(path, sizeof path, "text", ".xml");
    FILE* f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    salto_character_desc* c = salto_import_model(path, rep, err);
    remove(path);
    return c;
}


// what MuJoCo has and salto has not: refused with the element named
START_TEST(import_refusals) {
    static const struct { const char* xml; const char* msg; } bad[] = {
        {"<mujoco><worldbody><body name='a'><joint name='j' type='hinge'/><geom size='0.1'/>"
         "<site name='s1'/></body><body name='b' pos='1 0 0'><joint type='hinge'/><geom size='0.1'/>"
         "<site name='s2'/></body></worldbody><tendon><spatial name='cable'><site site='s1'/>"
         "<site site='s2'/></spatial></tendon></mujoco>", "tendon 'cable'"},
        {"<mujoco><worldbody><body name='a'><joint name='j' type='hinge'/><geom size='0.1'/></body>"
         "<body name='b' pos='1 0 0'><joint type='hinge'/><geom size='0.1'/></body></worldbody>"
         "<equality><weld name='glue' body1='a' body2='b'/></equality></mujoco>", "equality constraint 'glue'"},
        {"<mujoco><worldbody><body name='arm'><joint name='j1' type='hinge' pos='0 0 0'/>"
         "<joint name='j2' type='hinge' pos='0 0 0.3' axis='1 0 0'/><geom size='0.1'/></body>"
         "</worldbody></mujoco>", "body 'arm': its joints 'j1' and 'j2' turn about different centres"},
        {"<mujoco><worldbody><body name='a'><freejoint/><geom size='0.1'/><body name='b'>"
         "<freejoint name='loose'/><geom size='0.1'/></body></body></worldbody></mujoco>", "free joint can only be used on top level"},
        {"<mujoco><worldbody><body name='ghost'><joint name='j' type='hinge'/></body></worldbody></mujoco>", "mass and inertia of moving bodies must be larger"},
        {"<mujoco><worldbody><body name='a'><joint type='hinge'/><geom size='0.1'/></body>", "MuJoCo cannot read it"},
        {"<mujoco><worldbody><body name='robot'><freejoint/><geom size='0.1'/></body>"
         "<body name='ball' pos='1 0 0'><freejoint name='loose'/><geom size='0.1'/></body></worldbody></mujoco>",
         "is free but its body 'robot' is not the character's root"},
        {"<mujoco><worldbody><body name='arm'><joint name='s' type='slide'/><joint name='h1' type='hinge' pos='0 0 0.5'/>"
         "<joint name='h2' type='hinge' pos='0 0 -0.5' axis='1 0 0'/><geom size='0.1'/></body></worldbody></mujoco>",
         "body 'arm': its joints 'h1' and 'h2' turn about different centres"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        salto_error err = {0};
        salto_import_report rep;
        salto_character_desc* c = import_text(bad[k].xml, &rep, &err);
        char msg[1200];
        salto_error_format(&err, msg, sizeof msg);
        ck_assert_msg(c == NULL && strstr(msg, bad[k].msg), "case %zu: '%s' lacks '%s'", k, msg, bad[k].msg);
    }
}
END_TEST


// names made up for unnamed elements, and a ball's NAME_x, made unique beside the model's own
START_TEST(import_unique_names) {
    const char* xml =
        "<mujoco><worldbody><body name='base'><geom size='0.1'/>"
        "<body pos='0 0 -0.3'><joint type='hinge'/><geom size='0.1'/></body>"
        "<body name='body2' pos='0 0.3 0'><joint name='joint1' type='ball'/><geom size='0.1'/>"
        "<body pos='0 0 -0.3'><joint name='joint1_x' type='hinge'/><geom size='0.1'/></body></body>"
        "</body></worldbody></mujoco>";
    salto_error err = {0};
    salto_import_report rep;
    salto_character_desc* c = import_text(xml, &rep, &err);
    ck_assert_msg(c != NULL, "%s", err.msg);
    salto_model* m = salto_model_build(c, NULL, &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    ck_assert_int_eq(m->nv, 5);
    ck_assert_int_ge(salto_model_dof(m, "joint1_x"), 0);
    ck_assert_int_ge(salto_model_dof(m, "joint1_x_2"), 0);
    ck_assert_int_ge(salto_model_body(m, "body2"), 0);
    ck_assert_int_ge(salto_model_body(m, "body2_2"), 0);
    salto_model_destroy(m);
    salto_character_destroy(c);
}
END_TEST


// the angular velocity, in body's own frame, of unit rates of DOFs first .. first + 2 at d->q
// (a 3 x 3 Jacobian, row-major); d->qd left zero
static void body_rate_jacobian(const salto_model* m, salto_data* d, int body, int first, double* J) {
    for (int k = 0; k < 3; k++) {
        for (int j = 0; j < m->nv; j++) d->qd[j] = j == first + k;
        salto_fk(m, d, SALTO_FK_VEL);
        const int l = m->body_link[body];
        double w[3];
        salto_m3t_mul_v3(w, d->R + 9 * l, d->V + 6 * l);
        for (int r = 0; r < 3; r++) J[3 * r + k] = w[r];
    }
    for (int j = 0; j < m->nv; j++) d->qd[j] = 0.0;
}


// MuJoCo's own free joint and ball joint: the shipped quadruped (a free torso, a ball neck,
// turned legs) imported moves as MuJoCo moves the file: at rest, under random leg torques, in
// random poses (the free joint's place and quaternion from salto's root translation and its
// y, x, z angles, the ball's from its three hinges), the legs' accelerations equal MuJoCo's,
// the torso's linear acceleration its, and the torso's and the head's angular accelerations in
// their own frames equal the hinges' turned by their Jacobians (1e-10)
START_TEST(import_free_and_ball_joints) {
    const char* path = salto_test_path("data/models/quadruped.xml");
    salto_error err = {0};
    salto_import_report rep;
    salto_character_desc* c = salto_import_model(path, &rep, &err);
    ck_assert_msg(c != NULL, "%s", err.msg);
    salto_model* m = salto_model_build(c, NULL, &err);
    salto_character_destroy(c);
    ck_assert_ptr_nonnull(m);
    char mjerr[1000] = "";
    mjModel* mm = mj_loadXML(path, NULL, mjerr, sizeof mjerr);
    ck_assert_msg(mm != NULL, "%s", mjerr);
    mm->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_LIMIT | mjDSBL_PASSIVE;
    mjData* md = mj_makeData(mm);
    salto_data* d = salto_data_create(m);
    const int torso = salto_model_body(m, "torso"), head = salto_model_body(m, "head");
    const int rx0 = salto_model_dof(m, "root_x"), ry = salto_model_dof(m, "root_ry");
    const int nx = salto_model_dof(m, "neck_x");
    const int fj = mj_name2id(mm, mjOBJ_JOINT, "root"), nj = mj_name2id(mm, mjOBJ_JOINT, "neck");
    ck_assert(torso >= 0 && head >= 0 && rx0 >= 0 && ry >= 0 && nx >= 0 && fj >= 0 && nj >= 0);
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 5151u);
    for (int trial = 0; trial < 5; trial++) {
        for (int j = 0; j < m->nv; j++) d->q[j] = salto_test_uniform(&rng, -0.6, 0.6), d->qd[j] = d->tau[j] = 0.0;
        mju_zero(md->qvel, mm->nv);
        mju_zero(md->qfrc_applied, mm->nv);
        // the legs: hinges one for one, torques on them
        for (int j = 0; j < m->nv; j++) {
            const int id = mj_name2id(mm, mjOBJ_JOINT, m->link_name[j]);
            if (id < 0) continue;
            md->qpos[mm->jnt_qposadr[id]] = d->q[j] + mm->qpos0[mm->jnt_qposadr[id]];
            d->tau[j] = md->qfrc_applied[mm->jnt_dofadr[id]] = salto_test_uniform(&rng, -4.0, 4.0);
        }
        // the free joint: the root's place and Ry Rx Rz; the ball: Rx Ry Rz
        const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
        double A[9], B[9], C3[9], T[9], R[9], q4[4];
        const double* p0 = mm->body_pos + 3 * mm->jnt_bodyid[fj];
        for (int k = 0; k < 3; k++) md->qpos[mm->jnt_qposadr[fj] + k] = p0[k] + d->q[rx0 + k];
        salto_m3_axis_angle(A, ey, d->q[ry]);
        salto_m3_axis_angle(B, ex, d->q[ry + 1]);
        salto_m3_axis_angle(C3, ez, d->q[ry + 2]);
        salto_m3_mul(T, A, B), salto_m3_mul(R, T, C3);
        salto_m3_to_quat(q4, R);
        for (int k = 0; k < 4; k++) md->qpos[mm->jnt_qposadr[fj] + 3 + k] = q4[k];
        salto_m3_axis_angle(A, ex, d->q[nx]);
        salto_m3_axis_angle(B, ey, d->q[nx + 1]);
        salto_m3_axis_angle(C3, ez, d->q[nx + 2]);
        salto_m3_mul(T, A, B), salto_m3_mul(R, T, C3);
        salto_m3_to_quat(q4, R);
        for (int k = 0; k < 4; k++) md->qpos[mm->jnt_qposadr[nj] + k] = q4[k];
        mj_forward(mm, md);
        ck_assert_int_eq(salto_aba(m, d, NULL), SALTO_OK);
        double Jt[9], Jn[9];
        body_rate_jacobian(m, d, torso, ry, Jt);
        body_rate_jacobian(m, d, head, nx, Jn);
        for (int j = 0; j < m->nv; j++) {
            const int id = mj_name2id(mm, mjOBJ_JOINT, m->link_name[j]);
            if (id < 0) continue;
            const double got = md->qacc[mm->jnt_dofadr[id]];
            ck_assert_msg(fabs(got - d->qdd[j]) < 1e-10 * (1.0 + fabs(got)), "trial %d %s: MuJoCo %.15g, salto %.15g",
                          trial, m->link_name[j], got, d->qdd[j]);
        }
        for (int k = 0; k < 3; k++) {
            const double lin = md->qacc[mm->jnt_dofadr[fj] + k];
            ck_assert_msg(fabs(lin - d->qdd[rx0 + k]) < 1e-10 * (1.0 + fabs(lin)), "trial %d: the torso's "
                          "acceleration %d: MuJoCo %.15g, salto %.15g", trial, k, lin, d->qdd[rx0 + k]);
            double wt = 0.0, wn = 0.0;
            for (int i = 0; i < 3; i++) wt += Jt[3 * k + i] * d->qdd[ry + i], wn += Jn[3 * k + i] * d->qdd[nx + i];
            const double gt = md->qacc[mm->jnt_dofadr[fj] + 3 + k], gn = md->qacc[mm->jnt_dofadr[nj] + k];
            ck_assert_msg(fabs(gt - wt) < 1e-10 * (1.0 + fabs(gt)), "trial %d: the torso's turn %d: MuJoCo %.15g, salto %.15g", trial, k, gt, wt);
            ck_assert_msg(fabs(gn - wn) < 1e-10 * (1.0 + fabs(gn)), "trial %d: the head's turn %d: MuJoCo %.15g, salto %.15g", trial, k, gn, wn);
        }
    }
    salto_data_destroy(d);
    mj_deleteData(md);
    mj_deleteModel(mm);
    salto_model_destroy(m);
}
END_TEST


// MuJoCo's features mapped: a ball joint as three hinges (at rest, its angular acceleration in
// the body's frame equals MuJoCo's: the hinges' accelerations turned by their Jacobian), a
// hinge's reference taken as q = 0, a body without joints joined to its parent (its mass
// lumped), a turned box and a cylinder left out with a note
START_TEST(import_maps_features) {
    const char* xml =
        "<mujoco model='rig'><compiler angle='radian'/><worldbody>"
        "<body name='base' pos='0 0 1'><geom type='box' size='0.1 0.1 0.1' mass='3'/>"
        "<body name='arm' pos='0 0 -0.1' euler='0.2 -0.3 0.5'><joint name='shoulder' type='ball'/>"
        "<geom type='capsule' fromto='0 0 0 0.1 0.05 -0.4' size='0.04' mass='2'/>"
        "<body name='hand' pos='0.1 0.05 -0.4'><geom type='sphere' size='0.05' mass='0.5'/>"
        "<geom type='box' size='0.02 0.03 0.04' euler='0.3 0 0' mass='0.1'/>"
        "<geom type='cylinder' size='0.02 0.05' mass='0.1'/></body>"
        "<body name='flap' pos='0.05 0 -0.2'><joint name='flap' type='hinge' axis='0 1 0' ref='0.4' "
        "range='-0.5 1.2' limited='true'/><geom type='capsule' fromto='0 0 0 0.2 0 0' size='0.02' mass='0.3'/>"
        "</body></body></body></worldbody></mujoco>";
    salto_error err = {0};
    salto_import_report rep;
    salto_character_desc* c = import_text(xml, &rep, &err);
    ck_assert_msg(c != NULL, "%s", err.msg);
    salto_model* m = salto_model_build(c, NULL, &err);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(c->root_type, SALTO_ROOT_FIXED);
    ck_assert_int_eq(m->nv, 4);
    ck_assert_int_ge(salto_model_dof(m, "shoulder_x"), 0);
    ck_assert_int_ge(salto_model_dof(m, "shoulder_z"), 0);
    const int flap = salto_model_dof(m, "flap");
    ck_assert(fabs(m->link_limits[2 * flap] - (-0.9)) < 1e-15 && fabs(m->link_limits[2 * flap + 1] - 0.8) < 1e-15);
    ck_assert(fabs(m->mass - (2.0 + 0.5 + 0.1 + 0.1 + 0.3)) < 1e-12); // the hand's geoms' masses in the arm
    int notes = 0;
    for (int k = 0; k < rep.nnote; k++) {
        notes += strstr(rep.note[k], "is a ball") != NULL;
        notes += strstr(rep.note[k], "is a turned box: left out") != NULL;
        notes += strstr(rep.note[k], "is a cylinder: left out") != NULL;
        notes += strstr(rep.note[k], "its reference") != NULL;
    }
    ck_assert_int_eq(notes, 4);
    // dynamics against MuJoCo at rest: qacc of the ball (the body's angular acceleration in
    // its own frame) = J(q) qdd of the hinges; the flap's qacc = its qdd (q = qpos - ref)
    char path[128];
    temp_name(path, sizeof path, "rig", ".xml");
    FILE* f = fopen(path, "w");
    fputs(xml, f);
    fclose(f);
    char mjerr[1000] = "";
    mjModel* mm = mj_loadXML(path, NULL, mjerr, sizeof mjerr);
    remove(path);
    ck_assert_msg(mm != NULL, "%s", mjerr);
    mm->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_LIMIT | mjDSBL_PASSIVE;
    mjData* md = mj_makeData(mm);
    salto_data* d = salto_data_create(m);
    const int sx = salto_model_dof(m, "shoulder_x");
    const int arm = salto_model_body(m, "arm");
    const int bj = mj_name2id(mm, mjOBJ_JOINT, "shoulder"), fj = mj_name2id(mm, mjOBJ_JOINT, "flap");
    double R0[9]; // the arm's placement (its parent, the base, is not turned)
    {
        const mjtNum* q0 = mm->body_quat + 4 * mm->jnt_bodyid[bj];
        const double qq[4] = {q0[0], q0[1], q0[2], q0[3]};
        salto_quat_to_m3(R0, qq);
    }
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 4242u);
    for (int trial = 0; trial < 5; trial++) {
        for (int j = 0; j < m->nv; j++) d->q[j] = salto_test_uniform(&rng, -0.7, 0.7), d->qd[j] = 0.0;
        for (int j = 0; j < m->nv; j++) d->tau[j] = salto_test_uniform(&rng, -3.0, 3.0);
        // the ball's quaternion: the three hinges' rotation Rx Ry Rz
        double Rb[9], R1[9], R2[9], R3[9], T[9], qb[4];
        const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
        salto_m3_axis_angle(R1, ex, d->q[sx]);
        salto_m3_axis_angle(R2, ey, d->q[sx + 1]);
        salto_m3_axis_angle(R3, ez, d->q[sx + 2]);
        salto_m3_mul(T, R1, R2);
        salto_m3_mul(Rb, T, R3);
        salto_m3_to_quat(qb, Rb);
        for (int k = 0; k < 4; k++) md->qpos[mm->jnt_qposadr[bj] + k] = qb[k];
        md->qpos[mm->jnt_qposadr[fj]] = d->q[flap] + 0.4;
        mju_zero(md->qvel, mm->nv);
        // generalized forces: the hinges' torques are the body-frame torque's components along
        // each hinge's axis: tau_h = J' t, t = J^-T tau_h
        ck_assert_int_eq(salto_aba(m, d, NULL), SALTO_OK);
        // J: column k the arm's angular velocity in its own frame for unit rate of hinge k
        double J[9];
        for (int k = 0; k < 3; k++) {
            for (int j = 0; j < m->nv; j++) d->qd[j] = j == sx + k;
            salto_fk(m, d, SALTO_FK_VEL);
            // (in MuJoCo's body frame: salto's, world-parallel at q = 0, turned by the body's
            // own placement R0)
            const double* V = d->V + 6 * m->body_link[arm];
            double w[3], wb[3];
            salto_m3t_mul_v3(w, d->R + 9 * m->body_link[arm], V);
            salto_m3t_mul_v3(wb, R0, w);
            for (int r = 0; r < 3; r++) J[3 * r + k] = wb[r];
        }
        for (int j = 0; j < m->nv; j++) d->qd[j] = 0.0;
        // MuJoCo's generalised force on the ball: t with J' t = tau_h (solve J' t = tau)
        double Jt[9], t[3] = {d->tau[sx], d->tau[sx + 1], d->tau[sx + 2]};
        for (int r = 0; r < 3; r++) {
            for (int k = 0; k < 3; k++) Jt[3 * r + k] = J[3 * k + r];
        }
        {
            // Cramer's rule on the 3 x 3 system Jt x = t
            const double det = Jt[0] * (Jt[4] * Jt[8] - Jt[5] * Jt[7]) - Jt[1] * (Jt[3] * Jt[8] - Jt[5] * Jt[6]) +
                               Jt[2] * (Jt[3] * Jt[7] - Jt[4] * Jt[6]);
            double x[3];
            for (int col = 0; col < 3; col++) {
                double A[9];
                memcpy(A, Jt, sizeof A);
                for (int r = 0; r < 3; r++) A[3 * r + col] = t[r];
                x[col] = (A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
                          A[2] * (A[3] * A[7] - A[4] * A[6])) / det;
            }
            for (int k = 0; k < 3; k++) md->qfrc_applied[mm->jnt_dofadr[bj] + k] = x[k];
        }
        md->qfrc_applied[mm->jnt_dofadr[fj]] = d->tau[flap];
        mj_forward(mm, md);
        for (int r = 0; r < 3; r++) {
            double want = 0.0;
            for (int k = 0; k < 3; k++) want += J[3 * r + k] * d->qdd[sx + k];
            ck_assert_msg(fabs(md->qacc[mm->jnt_dofadr[bj] + r] - want) < 1e-10 * (1.0 + fabs(want)),
                          "trial %d: the ball's angular acceleration %d: MuJoCo %.15g, salto %.15g", trial, r,
                          md->qacc[mm->jnt_dofadr[bj] + r], want);
        }
        ck_assert_msg(fabs(md->qacc[mm->jnt_dofadr[fj]] - d->qdd[flap]) < 1e-10 * (1.0 + fabs(d->qdd[flap])),
                      "trial %d: the flap: MuJoCo %.15g, salto %.15g", trial, md->qacc[mm->jnt_dofadr[fj]], d->qdd[flap]);
    }
    salto_data_destroy(d);
    mj_deleteData(md);
    mj_deleteModel(mm);
    salto_model_destroy(m);
    salto_character_destroy(c);
}
END_TEST


Suite* export_suite(void) {
    Suite* s = suite_create("export");
    TCase* tc = tcase_create("export");
    tcase_add_loop_test(tc, mjcf_same_dynamics, 0, TURNED + 1);
    tcase_add_loop_test(tc, urdf_same_dynamics, 0, NCHAR);
    tcase_add_test(tc, urdf_turned_fixed_base);
    tcase_add_loop_test(tc, import_round_trip, 0, NCHAR);
    tcase_add_loop_test(tc, import_same_dynamics, 0, TURNED + 1);
    tcase_add_loop_test(tc, import_urdf_same_dynamics, 0, NCHAR);
    tcase_add_test(tc, import_refusals);
    tcase_add_test(tc, import_maps_features);
    tcase_add_test(tc, import_free_and_ball_joints);
    tcase_add_test(tc, import_unique_names);
    suite_add_tcase(s, tc);
    return s;
}
