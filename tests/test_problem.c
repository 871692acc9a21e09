// test_problem.c: problem files: the examples, every form of the format, times, broken inputs
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "salto/bspline.h"
#include "salto/kinematics.h"
#include "salto/motion.h"
#include "salto/nlp.h"
#include "salto/orient.h"
#include "salto/problem.h"
#include "salto/spatial.h"
#include "salto/validate.h"
#include "test_suites.h"
#include "test_util.h"

static const double pi = 3.14159265358979323846;

// ---- helpers ----

// a problem file (relative to the repository, or absolute) with overrides, which must load
static salto_problem_desc* load_set_ok(const char* rel, int nset, const char* const* set) {
    char path[4096];
    snprintf(path, sizeof path, "%s", rel[0] == '/' ? rel : salto_test_path(rel));
    salto_error err = {0};
    salto_problem_desc* p = salto_problem_load_set(path, nset, set, &err);
    if (!p) {
        char msg[1024];
        salto_error_format(&err, msg, sizeof msg);
        ck_abort_msg("could not load %s: %s", rel, msg);
    }
    return p;
}


static salto_problem_desc* load_ok(const char* rel) { return load_set_ok(rel, 0, NULL); }


static int dof(const salto_problem_desc* p, const char* name) {
    int k = salto_model_dof(p->model, name);
    ck_assert_msg(k >= 0, "no DOF '%s'", name);
    return k;
}


static int site(const salto_problem_desc* p, const char* name) {
    int k = salto_model_site(p->model, name);
    ck_assert_msg(k >= 0, "no site '%s'", name);
    return k;
}


// value of DOF name in constraint c, which must constrain it
static double con_value(const salto_problem_desc* p, const salto_constraint_desc* c,
                        const char* name) {
    int k = dof(p, name);
    for (int i = 0; i < c->ndof; i++) {
        if (c->dof[i] == k) return c->value[i];
    }
    ck_abort_msg("DOF '%s' is not constrained", name);
    return NAN;
}


static void assert_dofs_ascending(const salto_constraint_desc* c) {
    for (int i = 1; i < c->ndof; i++) ck_assert_int_lt(c->dof[i - 1], c->dof[i]);
}

// ---- temporary files ----

static char tmpdir[256];


static void make_tmpdir(void) {
    const char* base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/salto_problem_XXXXXX", base && base[0] ? base : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}


static const char* tmp_path(const char* name) {
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
    return buf;
}


static void write_file(const char* path, const char* text) {
    FILE* f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

// ---- the example problems in problems/ ----

START_TEST(example_reach) {
    salto_problem_desc* p = load_ok("problems/reach.yaml");
    ck_assert_int_eq(p->physics, 0); // a kinematic problem
    ck_assert_str_eq(p->model->name, "gymnast7");
    ck_assert_int_eq(p->model->nv, 7);
    ck_assert_int_eq(p->nphase, 1);
    ck_assert_str_eq(p->phases[0].name, "reach");
    ck_assert_int_eq(p->phases[0].contact.type, SALTO_CONTACT_NONE);
    ck_assert_double_eq(p->duration, 1.0);
    ck_assert_int_eq(p->ncp, 12);
    ck_assert_int_eq(p->nslice, 12);
    ck_assert_int_eq(p->ncon, 5);

    // pose and velocity at the start: every DOF, in DOF order
    for (int i = 0; i < 2; i++) {
        const salto_constraint_desc* c = &p->cons[i];
        ck_assert_int_eq(c->type, i == 0 ? SALTO_CON_POSE : SALTO_CON_VELOCITY);
        ck_assert(c->has_time);
        ck_assert_double_eq(c->time, 0.0);
        ck_assert_int_eq(c->phase, -1);
        ck_assert_int_eq(c->ndof, 7);
        for (int k = 0; k < 7; k++) {
            ck_assert_int_eq(c->dof[k], k);
            ck_assert_double_eq(c->value[k], 0.0);
        }
    }
    const salto_constraint_desc* c = &p->cons[2];
    ck_assert_int_eq(c->type, SALTO_CON_SITE_AT);
    ck_assert_int_eq(c->site, site(p, "hands"));
    ck_assert_double_eq(c->time, 1.0);
    ck_assert_int_eq(p->cons[3].type, SALTO_CON_VELOCITY);
    ck_assert_double_eq(p->cons[3].time, 1.0);
    ck_assert_int_eq(p->cons[4].type, SALTO_CON_JOINT_LIMITS);
    ck_assert(!p->cons[4].has_time);
    ck_assert_int_eq(p->cons[4].phase, -1);
    ck_assert_int_eq(p->nobj, 1);
    ck_assert_int_eq(p->objs[0].type, SALTO_OBJ_ACCELERATION);
    ck_assert_int_eq(p->output.filmstrip_frames, 6);

    // feasible: the target is where the hands are, upright, with the shoulders at 45 deg
    salto_data* d = salto_data_create(p->model);
    ck_assert_ptr_nonnull(d);
    for (int k = 0; k < p->model->nv; k++) d->q[k] = 0.0;
    d->q[dof(p, "shoulder")] = pi / 4;
    salto_fk(p->model, d, SALTO_FK_POS);
    double x[3];
    salto_site_pos(p->model, d, c->site, x);
    ck_assert_vec_close(x, c->point, 3, 1e-4, 0.0, "hands at the target");
    salto_data_destroy(d);
    salto_problem_destroy(p);
}
END_TEST


START_TEST(example_keyframes) {
    salto_problem_desc* p = load_ok("problems/keyframes.yaml");
    ck_assert_str_eq(p->model->name, "humanoid22");
    ck_assert_int_eq(p->model->nv, 22);
    ck_assert_int_eq(p->nphase, 1);
    ck_assert(fabs(p->duration - 1.2) < 1e-15);
    ck_assert_int_eq(p->ncp, 14);
    ck_assert_int_eq(p->nslice, 25);
    ck_assert_int_eq(p->ncon, 6);

    // three keyframes at 0, 0.6 and 1.2 s, named DOFs in ascending DOF order
    static const int pose_con[3] = {0, 2, 3};
    static const double pose_t[3] = {0.0, 0.6, 1.2};
    static const int pose_ndof[3] = {16, 11, 15};
    for (int i = 0; i < 3; i++) {
        const salto_constraint_desc* c = &p->cons[pose_con[i]];
        ck_assert_int_eq(c->type, SALTO_CON_POSE);
        ck_assert(c->has_time);
        ck_assert_msg(fabs(c->time - pose_t[i]) < 1e-15, "keyframe %d at %.17g", i, c->time);
        ck_assert_int_eq(c->ndof, pose_ndof[i]);
        assert_dofs_ascending(c);
    }
    const salto_constraint_desc* k0 = &p->cons[0];
    for (int k = 0; k < 6; k++) ck_assert_int_eq(k0->dof[k], k); // the root DOFs
    ck_assert_int_eq(k0->dof[6], dof(p, "hip_l_flex"));
    ck_assert_int_eq(dof(p, "hip_l_flex"), 6);
    ck_assert_int_eq(dof(p, "elbow_r"), 21);
    const salto_constraint_desc* k1 = &p->cons[2];
    ck_assert_double_eq_tol(con_value(p, k1, "hip_l_flex"), -60 * pi / 180, 1e-15);
    ck_assert_double_eq_tol(con_value(p, k1, "knee_l"), 70 * pi / 180, 1e-15);
    ck_assert_double_eq(con_value(p, k1, "root_x"), 0.2);
    ck_assert_double_eq(con_value(p, k1, "root_z"), -0.15);
    ck_assert_double_eq_tol(con_value(p, &p->cons[3], "shoulder_r_flex"), -170 * pi / 180,
                            1e-15);
    ck_assert_int_eq(p->cons[1].type, SALTO_CON_VELOCITY);
    ck_assert_int_eq(p->cons[1].ndof, 22);
    ck_assert_int_eq(p->cons[4].type, SALTO_CON_VELOCITY);
    ck_assert(fabs(p->cons[4].time - 1.2) < 1e-15);
    ck_assert_int_eq(p->cons[5].type, SALTO_CON_JOINT_LIMITS);

    // loading succeeded with joint_limits present, so every keyframe is within the limits;
    // check it independently
    const salto_model* m = p->model;
    for (int i = 0; i < 3; i++) {
        const salto_constraint_desc* c = &p->cons[pose_con[i]];
        for (int k = 0; k < c->ndof; k++) {
            int j = c->dof[k];
            if (!m->link_has_limits[j]) continue;
            ck_assert(c->value[k] >= m->link_limits[2 * j]);
            ck_assert(c->value[k] <= m->link_limits[2 * j + 1]);
        }
    }
    salto_problem_destroy(p);
}
END_TEST


START_TEST(example_hold) {
    salto_problem_desc* p = load_ok("problems/hold.yaml");
    ck_assert_str_eq(p->model->name, "gymnast7");
    ck_assert_int_eq(p->nphase, 1);
    ck_assert_double_eq(p->duration, 1.0);
    ck_assert_int_eq(p->ncp, 12);
    ck_assert_int_eq(p->nslice, 16);
    ck_assert_int_eq(p->ncon, 5);
    ck_assert_int_eq(p->cons[1].type, SALTO_CON_SITE_STILL);
    ck_assert_int_eq(p->cons[2].type, SALTO_CON_SITE_ON_PLANE);
    for (int i = 1; i < 3; i++) {
        const salto_constraint_desc* c = &p->cons[i];
        ck_assert_int_eq(c->phase, 0);
        ck_assert(!c->has_time);
        ck_assert_int_eq(c->site, site(p, i == 1 ? "heel" : "toe"));
    }
    const salto_constraint_desc* c = &p->cons[3];
    ck_assert_int_eq(c->type, SALTO_CON_POSE);
    ck_assert_double_eq(c->time, 1.0);
    ck_assert_int_eq(c->ndof, 3);
    ck_assert_int_eq(c->dof[0], dof(p, "shoulder"));
    ck_assert_int_eq(c->dof[1], dof(p, "hip"));
    ck_assert_int_eq(c->dof[2], dof(p, "knee"));
    ck_assert_double_eq_tol(c->value[0], pi / 2, 1e-15);
    ck_assert_double_eq(c->value[1], -1.2);
    ck_assert_double_eq(c->value[2], 1.6);

    // feasible: with root_ry = -0.3 and the ankle at -0.1 (within its limits) the foot is
    // flat, so a translation of the root puts heel and toe back where they started
    const salto_model* m = p->model;
    salto_data* d = salto_data_create(m);
    ck_assert_ptr_nonnull(d);
    for (int k = 0; k < m->nv; k++) d->q[k] = 0.0;
    double heel0[3];
    double toe0[3];
    salto_fk(m, d, SALTO_FK_POS);
    salto_site_pos(m, d, site(p, "heel"), heel0);
    salto_site_pos(m, d, site(p, "toe"), toe0);
    for (int k = 0; k < c->ndof; k++) d->q[c->dof[k]] = c->value[k];
    d->q[dof(p, "root_ry")] = -0.3;
    d->q[dof(p, "ankle")] = -0.1;
    int ankle = dof(p, "ankle");
    ck_assert(-0.1 >= m->link_limits[2 * ankle] && -0.1 <= m->link_limits[2 * ankle + 1]);
    salto_fk(m, d, SALTO_FK_POS);
    double heel[3];
    double toe[3];
    salto_site_pos(m, d, site(p, "heel"), heel);
    salto_site_pos(m, d, site(p, "toe"), toe);
    double v0[3] = {toe0[0] - heel0[0], toe0[1] - heel0[1], toe0[2] - heel0[2]};
    double v1[3] = {toe[0] - heel[0], toe[1] - heel[1], toe[2] - heel[2]};
    ck_assert_vec_close(v1, v0, 3, 1e-12, 0.0, "heel to toe");
    salto_data_destroy(d);
    salto_problem_destroy(p);
}
END_TEST

// ---- every form of the format ----

START_TEST(full_file) {
    salto_problem_desc* p = load_ok("tests/data/problems/full.yaml");
    const salto_model* m = p->model;
    char expect[4096];
    snprintf(expect, sizeof expect, "%s", salto_test_path("tests/data/problems/full.yaml"));
    ck_assert_str_eq(p->path, expect);
    snprintf(expect, sizeof expect, "%s",
             salto_test_path("tests/data/problems/../../../data/characters/gymnast7.yaml"));
    ck_assert_str_eq(p->character, expect);
    ck_assert_double_eq(m->gravity[2], -9.80665);

    // phases
    ck_assert_int_eq(p->nphase, 3);
    ck_assert_double_eq(p->phases[0].start, 0.0);
    ck_assert_double_eq(p->phases[1].start, 0.5);
    ck_assert_double_eq(p->phases[2].start, 0.5 + 0.7);
    ck_assert_double_eq(p->duration, 0.5 + 0.7 + 0.3);
    ck_assert_int_eq(p->phases[0].loc.line, 5);
    ck_assert_ptr_eq(p->phases[0].loc.file, p->path);

    const salto_contact_desc* bar = &p->phases[0].contact;
    ck_assert_int_eq(bar->type, SALTO_CONTACT_BAR);
    ck_assert_int_eq(bar->nsite, 1);
    ck_assert_int_eq(bar->site[0], site(p, "hands"));
    ck_assert_double_eq(bar->bar_point[2], 2.6);
    ck_assert_double_eq(bar->bar_axis[0], 0.0);
    ck_assert_double_eq(bar->bar_axis[1], 1.0); // normalised
    ck_assert_double_eq(bar->torque_max, 100.0);
    ck_assert_int_eq(bar->loc.line, 7);
    ck_assert_int_eq(bar->loc.col, 14);
    ck_assert_int_eq(p->phases[1].contact.type, SALTO_CONTACT_NONE);
    const salto_contact_desc* g = &p->phases[2].contact;
    ck_assert_int_eq(g->type, SALTO_CONTACT_GROUND);
    ck_assert_int_eq(g->nsite, 2);
    ck_assert_int_eq(g->site[0], site(p, "heel"));
    ck_assert_int_eq(g->site[1], site(p, "toe"));
    ck_assert_double_eq(g->normal[2], 1.0);
    ck_assert_double_eq(g->friction, 0.8);
    ck_assert_double_eq(g->force_max, 5000.0);
    ck_assert_double_eq(g->twist_max, 0.05);
    ck_assert_double_eq(g->support_half[0], 0.12);
    ck_assert_double_eq(g->support_half[1], 0.05);
    ck_assert_int_eq(g->loc.line, 14);

    ck_assert_int_eq(p->ncp, 16);
    ck_assert_int_eq(p->nslice, 31);

    // constraints: the 13 written, then the holds the contacts add (hands: in place and
    // still; heel: in place and still; toe, on the same foot: on the ground, the foot not
    // turning)
    ck_assert_int_eq(p->ncon, 13 + 6);
    const salto_constraint_desc* c = p->cons;
    for (int k = 0; k < 13; k++) ck_assert_int_eq(c[k].hold_phase, 0);
    const int hold_type[6] = {SALTO_CON_SITE_HOLD, SALTO_CON_SITE_STILL, SALTO_CON_SITE_HOLD,
                              SALTO_CON_SITE_STILL, SALTO_CON_SITE_ON_PLANE, SALTO_CON_BODY_STILL};
    const int hold_phase[6] = {1, 1, 3, 3, 3, 3};
    for (int k = 0; k < 6; k++) {
        const salto_constraint_desc* h = &c[13 + k];
        ck_assert_int_eq(h->type, hold_type[k]);
        ck_assert_int_eq(h->hold_phase, hold_phase[k]);
        ck_assert_int_eq(h->phase, hold_phase[k] - 1);
        ck_assert_int_eq(h->at_knots, k % 2 ? 2 : 1);
        ck_assert_int_eq(h->skip_start, 0);
        ck_assert_int_eq(h->loc.line, p->phases[hold_phase[k] - 1].contact.loc.line);
    }
    ck_assert_int_eq(c[13].site, p->phases[0].contact.site[0]);
    ck_assert_double_eq(c[13].point[2], 2.6);
    ck_assert_int_eq(c[17].site, p->phases[2].contact.site[1]);
    ck_assert_int_eq(c[0].type, SALTO_CON_SITE_AT);
    ck_assert(c[0].has_time);
    ck_assert_double_eq(c[0].time, 0.0);
    ck_assert_int_eq(c[0].phase, -1);
    ck_assert_int_eq(c[0].loc.line, 25);
    ck_assert_int_eq(c[0].loc.col, 5);
    ck_assert_int_eq(c[1].type, SALTO_CON_SITE_AT);
    ck_assert(!c[1].has_time);
    ck_assert_int_eq(c[1].phase, 0);
    ck_assert_int_eq(c[2].type, SALTO_CON_SITE_ON_LINE);
    ck_assert_double_eq(c[2].time, 0.5);
    ck_assert_double_eq(c[2].dir[1], 1.0);
    ck_assert_int_eq(c[3].type, SALTO_CON_SITE_ON_PLANE);
    ck_assert_int_eq(c[3].site, site(p, "toe"));
    ck_assert_int_eq(c[3].phase, 2);
    ck_assert_double_eq(c[3].point[0], 1.0);
    ck_assert_double_eq(c[3].dir[2], 1.0);
    ck_assert_int_eq(c[4].type, SALTO_CON_SITE_STILL);
    ck_assert_int_eq(c[4].site, site(p, "heel"));
    ck_assert_int_eq(c[4].phase, 2);
    ck_assert(!c[4].has_time);

    ck_assert_int_eq(c[5].type, SALTO_CON_POSE);
    ck_assert_double_eq(c[5].time, p->duration);
    ck_assert_int_eq(c[5].ndof, 7);
    ck_assert_double_eq(c[5].value[2], -6.283);
    ck_assert_int_eq(c[6].ndof, 3);
    ck_assert_double_eq_tol(c[6].time, 0.6, 1e-15);
    assert_dofs_ascending(&c[6]);
    ck_assert_double_eq_tol(con_value(p, &c[6], "shoulder"), pi / 2, 1e-15);
    ck_assert_double_eq(con_value(p, &c[6], "hip"), -0.2);
    ck_assert_double_eq(con_value(p, &c[6], "knee"), 0.5);
    ck_assert_int_eq(c[7].type, SALTO_CON_VELOCITY);
    ck_assert_int_eq(c[7].ndof, 2);
    ck_assert_int_eq(c[7].dof[0], dof(p, "root_x"));
    ck_assert_double_eq(c[7].value[0], 1.5);
    ck_assert_double_eq_tol(c[7].value[1], 30 * pi / 180, 1e-15);

    ck_assert_int_eq(c[8].type, SALTO_CON_COM_POSITION);
    ck_assert_int_eq(c[8].mask[0], 0);
    ck_assert_int_eq(c[8].mask[1], 0);
    ck_assert_int_eq(c[8].mask[2], 1);
    ck_assert_double_eq(c[8].vec[2], 1.0);
    ck_assert_int_eq(c[9].type, SALTO_CON_COM_VELOCITY);
    ck_assert_double_eq_tol(c[9].time, 1.15, 1e-15);
    for (int k = 0; k < 3; k++) ck_assert_int_eq(c[9].mask[k], 1);
    ck_assert_int_eq(c[10].type, SALTO_CON_JOINT_LIMITS);
    ck_assert_int_eq(c[11].type, SALTO_CON_ABOVE_GROUND);
    ck_assert_double_eq(c[11].height, 0.01);
    ck_assert_double_eq(c[12].height, 0.0);
    for (int i = 10; i < 13; i++) {
        ck_assert(!c[i].has_time);
        ck_assert_int_eq(c[i].phase, -1);
    }

    // objective: paths resolved against the problem's folder, absolute ones kept
    ck_assert_int_eq(p->nobj, 3);
    ck_assert_int_eq(p->objs[0].type, SALTO_OBJ_ACCELERATION);
    ck_assert_double_eq(p->objs[0].weight, 2.5);
    ck_assert_ptr_null(p->objs[0].motion);
    ck_assert_int_eq(p->objs[1].type, SALTO_OBJ_REFERENCE);
    ck_assert_double_eq(p->objs[1].weight, 0.0);
    snprintf(expect, sizeof expect, "%s", salto_test_path("tests/data/problems/ref/motion.json"));
    ck_assert_str_eq(p->objs[1].motion, expect);
    ck_assert_str_eq(p->objs[2].motion, "/data/ref.json");
    ck_assert_double_eq(p->objs[2].weight, 1.0);
    ck_assert_int_eq(p->objs[2].loc.line, 41);

    // initial guess, solver, output
    ck_assert_int_eq(p->guess.type, SALTO_GUESS_INTERPOLATE);
    ck_assert_ptr_null(p->guess.motion);
    ck_assert_int_eq(p->guess.rot_phase, 1);
    ck_assert_int_eq(p->guess.rot_dof, dof(p, "root_ry"));
    ck_assert_double_eq_tol(p->guess.rot_angle, -2 * pi, 1e-15);
    ck_assert_int_eq(p->guess.loc.line, 43); // the map starts at its first key
    ck_assert_double_eq(p->solver.tolerance, 1e-7);
    ck_assert_int_eq(p->solver.max_iterations, 0);
    ck_assert_int_eq(p->solver.hessian_exact, 1);
    ck_assert_double_eq(p->solver.max_cpu_time, 30.5);
    ck_assert_int_eq(p->solver.print_level, 5);
    ck_assert_double_eq(p->output.frame_rate, 120.0);
    ck_assert_int_eq(p->output.filmstrip_frames, 64);
    salto_problem_destroy(p);
}
END_TEST


// a flight phase with ballistic: true gains the parabola's two constraints (at its knots, and
// its velocity at its ends), with physics; off by default with control points given (on with
// the default spline: `defaults`), and without physics nothing
START_TEST(ballistic_flight) {
    const char* off[] = {"spline.control_points=20"};
    const char* on[] = {"phases.hop.ballistic=true"};
    const char* on_nophys[] = {"phases.hop.ballistic=true", "physics=false"};
    const char* path = salto_test_path("tests/data/problems/minimal.yaml");
    salto_error err = {0};
    salto_problem_desc* p0 = salto_problem_load_set(path, 1, off, &err);
    salto_problem_desc* p1 = salto_problem_load_set(path, 1, on, &err);
    salto_problem_desc* p2 = salto_problem_load_set(path, 2, on_nophys, &err);
    ck_assert_ptr_nonnull(p0);
    ck_assert_ptr_nonnull(p1);
    ck_assert_ptr_nonnull(p2);
    ck_assert_int_eq(p0->phases[0].ballistic, 0);
    ck_assert_int_eq(p0->ncon, 0);
    ck_assert_int_eq(p1->phases[0].ballistic, 1);
    ck_assert_int_eq(p1->ncon, 2);
    const salto_constraint_type type[2] = {SALTO_CON_COM_PARABOLA, SALTO_CON_COM_PARABOLA_VEL};
    for (int k = 0; k < 2; k++) {
        const salto_constraint_desc* c = &p1->cons[k];
        ck_assert_int_eq(c->type, type[k]);
        ck_assert_int_eq(c->phase, 0);
        ck_assert_int_eq(c->hold_phase, 1);
        ck_assert_int_eq(c->at_knots, k + 1);
        ck_assert_int_eq(c->loc.line, p1->phases[0].loc.line);
    }
    ck_assert_str_eq(salto_constraint_name(SALTO_CON_COM_PARABOLA), "com_parabola");
    ck_assert_int_eq(p2->ncon, 0);
    salto_problem_destroy(p0);
    salto_problem_destroy(p1);
    salto_problem_destroy(p2);
}
END_TEST


// validation: the problem's settings for salto validate, each check's threshold by name; the
// defaults with none
START_TEST(validation_settings) {
    const char* set[] = {"validation={density: 4, integrator: euler, step: 0.002, "
                         "thresholds: {slip: 0.003, drift_com: 0.5}}"};
    const char* path = salto_test_path("tests/data/problems/minimal.yaml");
    salto_error err = {0};
    salto_problem_desc* p0 = salto_problem_load(path, &err);
    salto_problem_desc* p1 = salto_problem_load_set(path, 1, set, &err);
    ck_assert_ptr_nonnull(p0);
    ck_assert_ptr_nonnull(p1);
    salto_validate_opts o0, o1, def;
    salto_validate_opts_default(&def);
    salto_validate_opts_from_problem(&o0, p0);
    salto_validate_opts_from_problem(&o1, p1);
    ck_assert_int_eq(o0.density, def.density);
    ck_assert_int_eq(o0.integrator, def.integrator);
    ck_assert_double_eq(o0.step, def.step);
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) ck_assert_double_eq(o0.threshold[k], def.threshold[k]);
    ck_assert_int_eq(o1.density, 4);
    ck_assert_int_eq(o1.integrator, SALTO_INTEGRATOR_EULER);
    ck_assert_double_eq(o1.step, 0.002);
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) {
        const double want = k == SALTO_CHECK_SLIP ? 0.003 : k == SALTO_CHECK_DRIFT_COM ? 0.5 : -1.0;
        ck_assert_double_eq(o1.threshold[k], want);
    }
    salto_problem_destroy(p0);
    salto_problem_destroy(p1);
}
END_TEST


// output.filmstrip_view: side unless the file (or --set) says front or top, by name; a value
// not among them is an error naming the key and the three views
START_TEST(filmstrip_view_setting) {
    const char* path = "tests/data/problems/minimal.yaml";
    salto_problem_desc* p = load_ok(path);
    ck_assert_int_eq(p->output.filmstrip_view, SALTO_FILMSTRIP_SIDE);
    salto_problem_destroy(p);
    static const char* const names[3] = {"side", "front", "top"};
    for (int v = 0; v < SALTO_FILMSTRIP_VIEW_COUNT; v++) {
        char buf[64];
        snprintf(buf, sizeof buf, "output.filmstrip_view=%s", names[v]);
        const char* set[] = {buf};
        p = load_set_ok(path, 1, set);
        ck_assert_int_eq(p->output.filmstrip_view, v);
        ck_assert_int_eq(p->output.filmstrip_frames, 8); // the output's other keys untouched
        salto_problem_destroy(p);
        ck_assert_str_eq(salto_filmstrip_view_name(v), names[v]);
        ck_assert_int_eq(salto_filmstrip_view_parse(names[v]), v);
    }
    ck_assert_str_eq(salto_filmstrip_view_name(SALTO_FILMSTRIP_VIEW_COUNT), "?");
    ck_assert_int_eq(salto_filmstrip_view_parse("Top"), -1);
    ck_assert_int_eq(salto_filmstrip_view_parse(""), -1);
    ck_assert_int_eq(salto_filmstrip_view_parse(NULL), -1);

    const char* bad[] = {"output.filmstrip_view=bogus"};
    salto_error err = {0};
    p = salto_problem_load_set(salto_test_path(path), 1, bad, &err);
    ck_assert_ptr_null(p);
    ck_assert_int_eq(err.status, SALTO_ERR_INVALID);
    ck_assert_msg(strstr(err.msg, "unknown filmstrip_view 'bogus' (expected one of: side, front, "
                                  "top)") != NULL, "%s", err.msg);
}
END_TEST


// Each phase's formulation as an override: what the default spline decided (the lamp's hop
// up: its flight ballistic, its landing an impact, its push not) says the same on 20 control
// points, where the defaults would be the paper's; a bar says nothing; and the flights' rows
// by name
START_TEST(formulation_overrides) {
    salto_problem_desc* p = load_ok("tests/data/problems/minimal.yaml");
    char buf[128];
    ck_assert_int_gt(salto_problem_phase_formulation(p, 0, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "phases.hop.ballistic=true"); // the default spline's
    const char* set[] = {"spline.control_points=20", buf};
    salto_problem_desc* q = load_set_ok("tests/data/problems/minimal.yaml", 1, set);
    ck_assert_int_eq(q->phases[0].ballistic, 0); // control points alone: the paper's
    salto_problem_destroy(q);
    q = load_set_ok("tests/data/problems/minimal.yaml", 2, set);
    ck_assert_int_eq(q->phases[0].ballistic, 1); // said: kept
    salto_problem_destroy(q);
    salto_problem_destroy(p);

    // a ground phase says its impact (the first phase's is false), the truncation as snprintf's
    p = load_ok("problems/zoo/lamp_two_hops.yaml");
    static const char* const want[5] = {"phases.push.contact.impact=false", "phases.flight1.ballistic=true",
                                        "phases.middle.contact.impact=true", "phases.flight2.ballistic=true",
                                        "phases.land.contact.impact=true"};
    for (int i = 0; i < 5; i++) {
        const int n = salto_problem_phase_formulation(p, i, buf, sizeof buf);
        ck_assert_str_eq(buf, want[i]);
        ck_assert_int_eq(n, (int)strlen(want[i]));
        ck_assert_int_eq(salto_problem_phase_formulation(p, i, NULL, 0), n);
    }
    char small[8];
    ck_assert_int_eq(salto_problem_phase_formulation(p, 0, small, sizeof small), (int)strlen(want[0]));
    ck_assert_str_eq(small, "phases.");
    salto_problem_destroy(p);
    p = load_ok("problems/zoo/giant_swing.yaml");
    ck_assert_int_eq(p->phases[0].contact.type, SALTO_CONTACT_BAR);
    buf[0] = 'x';
    ck_assert_int_eq(salto_problem_phase_formulation(p, 0, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    salto_problem_destroy(p);

    ck_assert_str_eq(salto_flight_rows_name(SALTO_FLIGHT_FORCE), "force");
    ck_assert_str_eq(salto_flight_rows_name(SALTO_FLIGHT_MOMENTUM), "momentum");
    ck_assert_str_eq(salto_flight_rows_name(SALTO_FLIGHT_MOMENTUM_ENDS), "momentum_ends");
    ck_assert_str_eq(salto_flight_rows_name(7), "?");
}
END_TEST


START_TEST(defaults) {
    salto_problem_desc* p = load_ok("tests/data/problems/minimal.yaml");
    ck_assert_str_eq(p->model->name, "luxo");
    ck_assert_double_eq(p->model->gravity[2], -9.81); // the character's
    ck_assert_int_eq(p->nphase, 1);
    ck_assert_double_eq(p->duration, 0.8);
    const salto_contact_desc* c = &p->phases[0].contact;
    ck_assert_int_eq(c->type, SALTO_CONTACT_NONE);
    ck_assert_int_eq(c->nsite, 0);
    ck_assert_int_eq(c->loc.line, p->phases[0].loc.line);
    // the default spline with physics: a knot every 0.05 s (16 segments over 0.8 s: 15 knots
    // inside, 19 control points), two slices a segment aligned with the knots, and a first
    // solve on 20 control points for the guess (salto_solve_refined)
    ck_assert_double_eq(p->knot_spacing, SALTO_DEFAULT_KNOT_SPACING);
    ck_assert_int_eq(p->slices_per_segment, SALTO_DEFAULT_SLICES_PER_SEGMENT);
    ck_assert_int_eq(p->warmup, 1);
    ck_assert_int_eq(p->ncp, 19);
    ck_assert_int_eq(p->nslice, 33);
    ck_assert_int_eq(salto_problem_slices(p, NULL, NULL), 33);
    ck_assert_int_eq(p->ncon, 2); // the ballistic flight's parabola (below)
    ck_assert_int_eq(p->nobj, 1);
    ck_assert_int_eq(p->objs[0].type, SALTO_OBJ_ACCELERATION);
    ck_assert_double_eq(p->objs[0].weight, 1.0);
    ck_assert_ptr_eq(p->objs[0].loc.file, p->path);
    ck_assert_int_eq(p->guess.type, SALTO_GUESS_INTERPOLATE);
    ck_assert_int_eq(p->guess.rot_phase, -1);
    ck_assert_int_eq(p->guess.rot_dof, -1);
    ck_assert_ptr_null(p->guess.motion);
    ck_assert_double_eq(p->solver.tolerance, 1e-6);
    ck_assert_double_eq(p->solver.refine_time, 0.0); // no time budget
    ck_assert_int_eq(p->solver.max_iterations, 1000);
    ck_assert_int_eq(p->solver.hessian_exact, 1);
    ck_assert_int_eq(p->physics, 1); // physics is on unless switched off
    ck_assert_double_eq(p->solver.max_cpu_time, 600.0);
    ck_assert_int_eq(p->solver.print_level, 0);
    ck_assert_int_eq(p->solver.linear_solver, SALTO_LINEAR_SALTO); // salto's own KKT solver
    // with the knots by spacing a flight holds its momentum, and f0 at its ends, and its centre
    // of mass is on its parabola
    ck_assert_int_eq(p->solver.flight_rows, SALTO_FLIGHT_MOMENTUM_ENDS);
    ck_assert_int_eq(p->phases[0].ballistic, 1);
    ck_assert_double_eq(p->output.frame_rate, 60.0);
    ck_assert_int_eq(p->output.filmstrip_frames, 8);
    salto_problem_destroy(p);
    // control points given keep the paper's rows, f0 = 0 at every slice; given, the rows are
    // what the file says
    {
        const char* sets[3][2] = {{"spline.control_points=20", NULL},
                                  {"spline.control_points=20", "solver.flight_rows=momentum_ends"},
                                  {"phases.hop.ballistic=false", NULL}};
        const int want[3] = {SALTO_FLIGHT_FORCE, SALTO_FLIGHT_MOMENTUM_ENDS, SALTO_FLIGHT_MOMENTUM_ENDS};
        const int ballistic[3] = {0, 0, 0}, warmup[3] = {0, 0, 1};
        for (int k = 0; k < 3; k++) {
            p = load_set_ok("tests/data/problems/minimal.yaml", sets[k][1] ? 2 : 1, sets[k]);
            ck_assert_int_eq(p->warmup, warmup[k]);
            ck_assert_int_eq(p->solver.flight_rows, want[k]);
            ck_assert_int_eq(p->phases[0].ballistic, ballistic[k]);
            salto_problem_destroy(p);
        }
    }
    // a kinematic problem keeps 20 control points, as many slices shared out by duration
    {
        const char* kin[] = {"physics=false"};
        p = load_set_ok("tests/data/problems/minimal.yaml", 1, kin);
        ck_assert_int_eq(p->warmup, 0);
        ck_assert_double_eq(p->knot_spacing, 0.0);
        ck_assert_int_eq(p->slices_per_segment, 0);
        ck_assert_int_eq(p->ncp, 20);
        ck_assert_int_eq(p->nslice, 20);
        ck_assert_int_eq(salto_problem_slices(p, NULL, NULL), 20);
        ck_assert_int_eq(p->solver.flight_rows, SALTO_FLIGHT_FORCE);
        ck_assert_int_eq(p->phases[0].ballistic, 0);
        salto_problem_destroy(p);
    }

    // ground contact defaults
    make_tmpdir();
    char text[1024];
    snprintf(text, sizeof text,
             "character: %s\n"
             "phases:\n"
             "  - {name: stand, duration: 1, contact: {type: ground, sites: [heel]}}\n",
             salto_test_path("data/characters/gymnast7.yaml"));
    char path[512];
    snprintf(path, sizeof path, "%s", tmp_path("ground.yaml"));
    write_file(path, text);
    salto_error err = {0};
    p = salto_problem_load(path, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    c = &p->phases[0].contact;
    ck_assert_int_eq(c->type, SALTO_CONTACT_GROUND);
    ck_assert_double_eq(c->normal[0], 0.0);
    ck_assert_double_eq(c->normal[2], 1.0);
    ck_assert_double_eq(c->friction, 1.0);
    ck_assert_double_eq(c->force_max, 1e5);
    ck_assert_double_eq(c->twist_max, 0.1);
    ck_assert_double_eq(c->support_half[0], 0.1);
    ck_assert_double_eq(c->support_half[1], 0.05);
    salto_problem_destroy(p);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST


// the complete example in docs/problem-format.md loads (its character path re-pointed at the
// repository's data/ from a temporary folder)
START_TEST(doc_example) {
    FILE* f = fopen(salto_test_path("docs/problem-format.md"), "r");
    ck_assert_ptr_nonnull(f);
    static char doc[65536];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = '\0';
    const char* begin = strstr(doc, "```yaml\n");
    ck_assert_ptr_nonnull(begin);
    begin += strlen("```yaml\n");
    const char* end = strstr(begin, "```");
    ck_assert_ptr_nonnull(end);
    const char* rel = "../data/characters/";
    const char* at = strstr(begin, rel);
    ck_assert(at && at < end);

    static char text[65536];
    char data_dir[4096];
    snprintf(data_dir, sizeof data_dir, "%s", salto_test_path("data/characters/"));
    snprintf(text, sizeof text, "%.*s%s%.*s", (int)(at - begin), begin, data_dir,
             (int)(end - at - strlen(rel)), at + strlen(rel));
    make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s", tmp_path("example.yaml"));
    write_file(path, text);
    salto_error err = {0};
    salto_problem_desc* p = salto_problem_load(path, &err);
    char msg[1024];
    salto_error_format(&err, msg, sizeof msg);
    ck_assert_msg(p != NULL, "%s", msg);
    ck_assert_int_eq(p->nphase, 3);
    ck_assert_double_eq_tol(p->duration, 2.0, 1e-15);
    ck_assert_int_eq(p->ncon, 10 + 6); // and the contacts' holds
    ck_assert_int_eq(p->nobj, 2);
    ck_assert_int_eq(p->nslice, 40);
    ck_assert_double_eq_tol(p->cons[7].time, 1.95, 1e-15);
    ck_assert_double_eq_tol(p->guess.rot_angle, -2 * pi, 1e-15);
    salto_problem_destroy(p);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST


// many phases: the knots are shared out without a fixed-size table (70 phases, 9 free knots)
START_TEST(many_phases) {
    make_tmpdir();
    static char text[16384];
    int n = snprintf(text, sizeof text, "character: %s\nphases:\n",
                     salto_test_path("data/characters/gymnast7.yaml"));
    for (int i = 0; i < 70; i++) {
        n += snprintf(text + n, sizeof text - (size_t)n, "  - {name: p%d, duration: %g}\n", i,
                      0.1 + 0.01 * (i % 7));
    }
    snprintf(text + n, sizeof text - (size_t)n, "spline: {control_points: %d}\n", 4 + 2 * 69 + 9);
    char path[512];
    snprintf(path, sizeof path, "%s", tmp_path("many.yaml"));
    write_file(path, text);
    salto_error err = {0};
    salto_problem_desc* p = salto_problem_load(path, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    static double kn[4 + 2 * 69 + 9];
    ck_assert_int_eq(salto_problem_knots(p, kn), 2 * 69 + 9);
    int doubled = 0;
    for (int j = 1; j < 2 * 69 + 9; j++) {
        ck_assert(kn[j] >= kn[j - 1]);
        doubled += kn[j] == kn[j - 1];
    }
    ck_assert_int_eq(doubled, 69); // every boundary twice, the 9 free knots inside phases
    // and the NLP builds on them, its slices per phase
    salto_nlp* nlp = salto_nlp_build(p, &err);
    ck_assert_msg(nlp != NULL, "%s", err.msg);
    ck_assert_int_eq(salto_nlp_nx(nlp), 7 * (4 + 2 * 69 + 9));
    ck_assert_int_ge(salto_nlp_eval_times(nlp, NULL), 71);
    salto_nlp_destroy(nlp);
    salto_problem_destroy(p);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST



START_TEST(guess_motion) {
    salto_problem_desc* p = load_ok("tests/data/problems/guess_motion.yaml");
    ck_assert_int_eq(p->guess.type, SALTO_GUESS_MOTION);
    char expect[4096];
    snprintf(expect, sizeof expect, "%s",
             salto_test_path("tests/data/problems/../motions/prev.json"));
    ck_assert_str_eq(p->guess.motion, expect);
    ck_assert_int_eq(p->guess.rot_phase, -1);
    ck_assert_int_eq(p->guess.loc.line, 5);
    ck_assert_int_eq(p->phases[0].contact.type, SALTO_CONTACT_NONE);
    salto_problem_destroy(p);
}
END_TEST

// ---- times ----

typedef struct time_case {
    const char* text;   // as written after 'time: '
    double t;           // expected seconds; NAN: an error
    const char* msg;    // errors: substring of the message
} time_case;

// phases swing 0.5 s, flight 0.7 s, landing 0.3 s: duration 1.5 s
static const time_case time_cases[] = {
    {"0", 0.0, NULL},
    {"0.25", 0.25, NULL},
    {"1.5", 1.5, NULL},
    {".5", 0.5, NULL},
    {"+0.5", 0.5, NULL},
    {"1e-1", 0.1, NULL},
    {"start", 0.0, NULL},
    {"end", 1.5, NULL},
    {"\"end\"", 1.5, NULL},
    {"swing.start", 0.0, NULL},
    {"swing.end", 0.5, NULL},
    {"flight.start", 0.5, NULL},
    {"flight.end", 1.2, NULL},
    {"landing.start", 1.2, NULL},
    {"landing.end", 1.5, NULL},
    {"swing.start+0.1", 0.1, NULL},
    {"end-0.05", 1.45, NULL},
    {"flight.end - 0.2", 1.0, NULL},
    {"flight.start +0.25", 0.75, NULL},
    {"landing.start+0.3", 1.5, NULL},
    {"start+1.5", 1.5, NULL},
    {"end-1.5", 0.0, NULL},
    {"end-1.5e0", 0.0, NULL},
    {"swing.end+2e-1", 0.7, NULL},
    {"1.6", NAN, "time '1.6' (1.6 s) is outside the problem's span [0, 1.5] s"},
    {"-0.001", NAN, "is outside the problem's span"},
    {"end+0.001", NAN, "time 'end+0.001' (1.501 s) is outside"},
    {"start-0.1", NAN, "time 'start-0.1' (-0.1 s) is outside"},
    {"swing.start-0.01", NAN, "is outside"},
    {"middle", NAN, "bad time 'middle'"},
    {"End", NAN, "bad time 'End'"},
    {"swing.", NAN, "expected 'start' or 'end' after 'swing.'"},
    {"swing.begin", NAN, "expected 'start' or 'end' after 'swing.'"},
    {"swing", NAN, "'swing' is a phase; give 'swing.start' or 'swing.end'"},
    {"jump.end", NAN, "unknown phase 'jump' in time 'jump.end'"},
    {"end+", NAN, "bad time 'end+'"},
    {"end+-0.1", NAN, "bad time 'end+-0.1'"},
    {"end 0.1", NAN, "bad time 'end 0.1'"},
    {"end+0.1x", NAN, "bad time 'end+0.1x'"},
    {"end*2", NAN, "bad time 'end*2'"},
    {"\"0.5\"", NAN, "bad time '0.5'"},
    {"0.5s", NAN, "expected a number for 'time', found '0.5s'"},
    {"null", NAN, "expected a time"},
    {"[0]", NAN, "expected a time"},
};
enum { NTIME = (int)(sizeof time_cases / sizeof time_cases[0]) };


START_TEST(time_syntax) {
    const time_case* tc = &time_cases[_i];
    make_tmpdir();
    static const char* const prefix = "  - {type: pose, time: ";
    char text[2048];
    snprintf(text, sizeof text,
             "character: %s\n"
             "phases:\n"
             "  - {name: swing, duration: 0.5}\n"
             "  - {name: flight, duration: 0.7}\n"
             "  - {name: landing, duration: 0.3}\n"
             "constraints:\n"
             "%s%s, dofs: {knee: 0.5}}\n",
             salto_test_path("data/characters/gymnast7.yaml"), prefix, tc->text);
    char path[512];
    snprintf(path, sizeof path, "%s", tmp_path("times.yaml"));
    write_file(path, text);

    salto_error err = {0};
    salto_problem_desc* p = salto_problem_load(path, &err);
    if (isnan(tc->t)) {
        ck_assert_msg(p == NULL, "'%s' was accepted", tc->text);
        ck_assert_int_eq(err.status, SALTO_ERR_INVALID);
        ck_assert_int_eq(err.where.line, 7);
        ck_assert_int_eq(err.where.col, (int)strlen(prefix) + 1);
        ck_assert_msg(strstr(err.msg, tc->msg), "'%s': '%s' not in: %s", tc->text, tc->msg,
                      err.msg);
    } else {
        ck_assert_msg(p != NULL, "'%s': %s", tc->text, err.msg);
        ck_assert(p->cons[0].has_time);
        ck_assert_msg(fabs(p->cons[0].time - tc->t) < 1e-12, "'%s' gave %.17g, expected %g",
                      tc->text, p->cons[0].time, tc->t);
        ck_assert(p->cons[0].time >= 0.0 && p->cons[0].time <= p->duration);
    }
    salto_problem_destroy(p);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST


// the spline by knot spacing: each phase cut into segments of at most knot_spacing (at least
// two), and slices_per_segment (2) slices in each, so that every knot is a slice and every
// segment has the same slices; control points keep the old sharing unless slices_per_segment
// is given
static void assert_aligned(const salto_problem_desc* p, int per) {
    double knots[512], ts[4096];
    int ph[4096];
    const int nk = salto_problem_knots(p, knots);
    const int ns = salto_problem_slices(p, ts, ph);
    ck_assert_int_eq(ns, p->nslice);
    ck_assert_int_lt(ns, 4096);
    // every knot is a slice time
    for (int a = 0; a < nk; a++) {
        int found = 0;
        for (int k = 0; k < ns && !found; k++) found = fabs(ts[k] - knots[a]) < 1e-12;
        ck_assert_msg(found, "knot %d at %.17g is not a slice", a, knots[a]);
    }
    // per phase: the distinct knots inside it cut it into segments of per intervals each
    for (int i = 0; i < p->nphase; i++) {
        const double a = p->phases[i].start, b = a + p->phases[i].duration;
        int inside = 0;
        for (int k = 0; k < nk; k++) inside += knots[k] > a + 1e-12 && knots[k] < b - 1e-12;
        ck_assert_int_eq(salto_problem_phase_intervals(p, i), per * (inside + 1));
        int in_phase = 0;
        for (int k = 0; k < ns; k++) in_phase += ph[k] == i;
        ck_assert_int_eq(in_phase, per * (inside + 1) + 1);
    }
}


START_TEST(spline_by_knot_spacing) {
    make_tmpdir();
    const char* path = tmp_path("spline.yaml");
    char text[1024];
    snprintf(text, sizeof text,
             "character: %s\n"
             "phases:\n"
             "  - {name: a, duration: 0.5}\n"
             "  - {name: b, duration: 0.7}\n"
             "  - {name: c, duration: 0.3}\n"
             "  - {name: d, duration: 0.02}\n",
             salto_test_path("data/characters/gymnast7.yaml"));
    write_file(path, text);
    salto_error err = {0};
    // 10, 14, 6 and (at least) 2 segments: 9 + 13 + 5 + 1 knots inside, 3 double boundaries
    const char* set0[] = {"spline.knot_spacing=0.05"};
    salto_problem_desc* p = load_set_ok(path, 1, set0);
    ck_assert_double_eq(p->knot_spacing, 0.05);
    ck_assert_int_eq(p->slices_per_segment, 2); // as in the default spline
    ck_assert_int_eq(p->ncp, 4 + 6 + 9 + 13 + 5 + 1);
    ck_assert_int_eq(p->nslice, 21 + 29 + 13 + 5);
    assert_aligned(p, 2);
    salto_problem_destroy(p);

    // a wider spacing and three slices a segment: 5, 7, 3, 2 segments
    const char* set1[] = {"spline.knot_spacing=0.1", "spline.slices_per_segment=3"};
    p = load_set_ok(path, 2, set1);
    ck_assert_int_eq(p->ncp, 4 + 6 + 4 + 6 + 2 + 1);
    ck_assert_int_eq(p->nslice, 16 + 22 + 10 + 7);
    assert_aligned(p, 3);
    salto_problem_destroy(p);

    // without a spline section: the default, the same knots with two slices a segment, and
    // the first solve on 20 control points (spline.coarse_first), also with knot_spacing
    // given; with control points given none, unless asked for
    p = salto_problem_load(path, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    ck_assert_double_eq(p->knot_spacing, 0.05);
    ck_assert_int_eq(p->slices_per_segment, 2);
    ck_assert_int_eq(p->warmup, 1);
    ck_assert_int_eq(p->ncp, 4 + 6 + 9 + 13 + 5 + 1);
    ck_assert_int_eq(p->nslice, 21 + 29 + 13 + 5);
    assert_aligned(p, 2);
    salto_problem_destroy(p);
    p = load_set_ok(path, 1, set0);
    ck_assert_int_eq(p->warmup, 1);
    salto_problem_destroy(p);
    const char* nofirst[] = {"spline.coarse_first=false"};
    p = load_set_ok(path, 1, nofirst);
    ck_assert_int_eq(p->warmup, 0);
    ck_assert_double_eq(p->knot_spacing, 0.05);
    salto_problem_destroy(p);
    const char* first20[] = {"spline.control_points=20", "spline.coarse_first=true"};
    p = load_set_ok(path, 2, first20);
    ck_assert_int_eq(p->warmup, 1);
    ck_assert_int_eq(p->ncp, 20);
    salto_problem_destroy(p);
    // with control points: slices as many, shared out by duration, no first solve
    const char* set20[] = {"spline.control_points=20"};
    p = load_set_ok(path, 1, set20);
    ck_assert_double_eq(p->knot_spacing, 0.0);
    ck_assert_int_eq(p->slices_per_segment, 0);
    ck_assert_int_eq(p->warmup, 0);
    ck_assert_int_eq(p->ncp, 20);
    ck_assert_int_eq(p->nslice, 20);
    salto_problem_destroy(p);
    const char* set2[] = {"spline.control_points=30"};
    p = load_set_ok(path, 1, set2);
    ck_assert_double_eq(p->knot_spacing, 0.0);
    ck_assert_int_eq(p->slices_per_segment, 0);
    ck_assert_int_eq(p->nslice, 30);
    salto_problem_destroy(p);

    // control points and slices_per_segment: the given knots, aligned slices
    const char* set3[] = {"spline.control_points=30", "spline.slices_per_segment=4"};
    p = load_set_ok(path, 2, set3);
    ck_assert_int_eq(p->ncp, 30);
    assert_aligned(p, 4);
    salto_problem_destroy(p);

    // a single phase: the uniform spline, its knots aligned all the same
    snprintf(text, sizeof text,
             "character: %s\nphases:\n  - {name: a, duration: 0.42}\nspline: {knot_spacing: 0.05}\n",
             salto_test_path("data/characters/gymnast7.yaml"));
    write_file(path, text);
    p = salto_problem_load(path, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    ck_assert_int_eq(p->ncp, 3 + 9);
    ck_assert_int_eq(p->nslice, 19); // 9 segments, 2 slices each
    salto_bspline s;
    ck_assert_int_eq(salto_problem_spline(p, NULL, &s), SALTO_OK);
    double ts[64];
    int ph[64];
    ck_assert_int_eq(salto_problem_slices(p, ts, ph), 19);
    for (int a = 4; a < p->ncp; a++) {
        const double k = salto_bspline_knot(&s, a);
        int found = 0;
        for (int j = 0; j < 19 && !found; j++) found = fabs(ts[j] - k) < 1e-12;
        ck_assert_msg(found, "knot %d at %.17g is not a slice", a, k);
    }
    salto_bspline_release(&s);
    salto_problem_destroy(p);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST


START_TEST(phase_at_and_slices) {
    salto_problem_desc* p = load_ok("tests/data/problems/full.yaml"); // 0.5, 0.7, 0.3 s
    const double T = p->duration;
    ck_assert_int_eq(salto_problem_phase_at(p, 0.0), 0);
    ck_assert_int_eq(salto_problem_phase_at(p, 0.25), 0);
    ck_assert_int_eq(salto_problem_phase_at(p, nextafter(0.5, 0.0)), 0);
    ck_assert_int_eq(salto_problem_phase_at(p, 0.5), 1); // a boundary starts the next phase
    ck_assert_int_eq(salto_problem_phase_at(p, p->phases[2].start), 2);
    ck_assert_int_eq(salto_problem_phase_at(p, nextafter(p->phases[2].start, 0.0)), 1);
    ck_assert_int_eq(salto_problem_phase_at(p, T), 2); // the end belongs to the last phase
    ck_assert_int_eq(salto_problem_phase_at(p, nextafter(0.0, -1.0)), -1);
    ck_assert_int_eq(salto_problem_phase_at(p, nextafter(T, 2 * T)), -1);
    ck_assert_int_eq(salto_problem_phase_at(p, -1.0), -1);
    ck_assert_int_eq(salto_problem_phase_at(p, NAN), -1);
    ck_assert_int_eq(salto_problem_phase_at(p, INFINITY), -1);

    // nslice = 31 over 0.5, 0.7, 0.3 s: 10, 14 and 6 intervals, each phase's ends included,
    // the boundaries exact and shared
    ck_assert_int_eq(p->nslice, 31);
    double ts[64];
    int ph[64];
    const int ns = salto_problem_slices(p, NULL, NULL);
    ck_assert_int_eq(ns, 11 + 15 + 7);
    ck_assert_int_eq(salto_problem_slices(p, ts, ph), ns);
    const int nint[3] = {10, 14, 6};
    int k = 0;
    for (int i = 0; i < 3; i++) {
        const double a = p->phases[i].start, d = p->phases[i].duration;
        const double b = i == 2 ? T : p->phases[i + 1].start;
        ck_assert_double_eq(ts[k], a);
        for (int j = 0; j <= nint[i]; j++, k++) {
            ck_assert_int_eq(ph[k], i);
            ck_assert_double_eq_tol(ts[k], a + d * j / nint[i], 1e-15);
            if (j > 0) ck_assert(ts[k] > ts[k - 1]);
        }
        ck_assert_double_eq(ts[k - 1], b);
    }
    ck_assert_double_eq(ts[ns - 1], T);

    // added slices (refinement): merged in time order into their phases; a time at or within
    // 1e-9 s of a slice, at a phase's end, outside its phase, repeated or not finite is left out
    {
        const double d0 = p->phases[0].duration, s1 = p->phases[1].start;
        const double at[8] = {s1 + 0.01, 0.025, ts[3], s1, 0.3, s1 + 0.01, NAN, 0.025 + 5e-10};
        const int in[8] = {1, 0, 0, 1, 2, 1, 0, 0};
        ck_assert_int_eq(salto_problem_add_slices(p, 8, at, in), 2);
        ck_assert_int_eq(p->nextra, 2);
        ck_assert_int_eq(salto_problem_slices(p, NULL, NULL), ns + 2);
        double te[64];
        int pe[64];
        ck_assert_int_eq(salto_problem_slices(p, te, pe), ns + 2);
        for (int j = 1; j < ns + 2; j++) {
            ck_assert(pe[j] >= pe[j - 1]);
            ck_assert(te[j] > te[j - 1] || (te[j] == te[j - 1] && pe[j] == pe[j - 1] + 1));
        }
        ck_assert_double_eq(te[1], 0.025); // between 0 and d0 / 10
        ck_assert_int_eq(pe[1], 0);
        ck_assert_double_eq(te[11], d0); // phase 0 ends after its 11 slices and one more
        ck_assert_double_eq(te[12], s1);
        ck_assert_double_eq(te[13], s1 + 0.01);
        ck_assert_int_eq(pe[13], 1);
        ck_assert_int_eq(salto_problem_add_slices(p, 1, at, in), 0); // already there
        salto_free(p->extra_t), salto_free(p->extra_ph);
        p->extra_t = NULL, p->extra_ph = NULL, p->nextra = 0;
    }

    // knots: 16 control points, 12 interior knots; the two boundaries double, the other 8
    // shared out by duration (8 x 0.5/1.5 = 2.67 -> 3, 8 x 0.7/1.5 = 3.73 -> 4, 1.6 -> 1)
    double kn[16];
    ck_assert_int_eq(salto_problem_knots(p, kn), 12);
    const double b1 = p->phases[1].start, b2 = p->phases[2].start;
    const double want[12] = {0.125, 0.25, 0.375, b1, b1, 0.5 + 0.14, 0.5 + 0.28, 0.5 + 0.42,
                             0.5 + 0.56, b2, b2, b2 + 0.15};
    for (int j = 0; j < 12; j++) ck_assert_double_eq_tol(kn[j], want[j], 1e-15);
    p->junction_c2 = 1; // single knots: 10 shared out (3.33 -> 3, 4.67 -> 5, 2 -> 2)
    ck_assert_int_eq(salto_problem_knots(p, kn), 12);
    ck_assert_double_eq(kn[3], b1);
    ck_assert_double_eq(kn[9], b2);
    ck_assert(kn[4] > b1 && kn[10] > b2);
    salto_problem_destroy(p);

    // two slices over one phase: its ends; a single phase has a uniform spline (20 control
    // points, slices shared out by duration)
    {
        salto_error e2 = {0};
        const char* cp20[] = {"spline.control_points=20"};
        p = salto_problem_load_set(salto_test_path("tests/data/problems/minimal.yaml"), 1, cp20, &e2);
        ck_assert_msg(p != NULL, "%s", e2.msg);
    }
    p->nslice = 2;
    ck_assert_int_eq(salto_problem_slices(p, ts, ph), 2);
    ck_assert_double_eq(ts[0], 0.0);
    ck_assert_double_eq(ts[1], p->duration);
    ck_assert_int_eq(salto_problem_knots(p, kn), 0);
    ck_assert_int_eq(salto_problem_phase_at(p, p->duration), 0);
    ck_assert_int_eq(salto_problem_phase_at(p, 0.0), 0);
    salto_problem_destroy(p);
    ck_assert_int_eq(salto_problem_phase_at(NULL, 0.0), -1);
}
END_TEST


// a constraint's name: kept, quoted in its rows' names, and an address for --set (and sweeps)
// that survives reordering the list; a name --set does not find is named in the error, with
// the nearest one
START_TEST(constraint_names) {
    const char* set[] = {"constraints.landing_spot.point=[0.3, 0, 0]"};
    salto_problem_desc* p = load_set_ok("tests/data/problems/named.yaml", 1, set);
    int k = -1;
    for (int c = 0; c < p->ncon; c++) {
        if (strcmp(p->cons[c].name, "landing_spot") == 0) k = c;
    }
    ck_assert_int_ge(k, 0);
    ck_assert_double_eq(p->cons[k].point[0], 0.3);
    ck_assert_str_eq(p->cons[k - 1].name, "takeoff");
    ck_assert_str_eq(p->cons[0].name, "");
    salto_error err = {0};
    salto_nlp* nlp = salto_nlp_build(p, &err);
    ck_assert_msg(nlp != NULL, "%s", err.msg);
    int found = 0;
    for (int r = 0; r < salto_nlp_ng(nlp); r++) {
        char name[600];
        salto_nlp_row_name(nlp, r, name, sizeof name);
        found |= strstr(name, "site_on_plane 'landing_spot' 'base_back'") != NULL;
    }
    ck_assert_msg(found, "no row named after the constraint");
    salto_nlp_destroy(nlp);
    salto_problem_destroy(p);
    const char* typo[] = {"constraints.landin_spot.point=[0.3, 0, 0]"};
    char path[512];
    snprintf(path, sizeof path, "%s", salto_test_path("tests/data/problems/named.yaml"));
    ck_assert_ptr_null(salto_problem_load_set(path, 1, typo, &err));
    ck_assert_int_eq(err.status, SALTO_ERR_INVALID);
    ck_assert_msg(strstr(err.msg, "no 'landin_spot' here") != NULL, "%s", err.msg);
    ck_assert_msg(strstr(err.note, "did you mean 'landing_spot'?") != NULL, "%s", err.note);
    // an objective's name, likewise
    const char* obj[] = {"objective=[{type: acceleration, name: effort}]", "objective.effort.weight=2.5"};
    p = load_set_ok("tests/data/problems/named.yaml", 2, obj);
    ck_assert_int_eq(p->nobj, 1);
    ck_assert_str_eq(p->objs[0].name, "effort");
    ck_assert_double_eq(p->objs[0].weight, 2.5);
    salto_problem_destroy(p);
}
END_TEST

// ---- broken inputs: every loader error, with status, place and message ----

typedef salto_bad_case bad_case;

static const bad_case bad_cases[] = {
    {"wrong_type.yaml", SALTO_ERR_INVALID, 7, 15,
     "expected a number for 'duration', found 'long'",
     NULL},
    {"unknown_top_key.yaml", SALTO_ERR_INVALID, 11, 1,
     "unknown key 'constraint' in the document",
     "did you mean 'constraints'?"},
    {"unknown_phase_key.yaml", SALTO_ERR_INVALID, 7, 5,
     "unknown key 'duraton'",
     "did you mean 'duration'?"},
    {"unknown_constraint_key.yaml", SALTO_ERR_INVALID, 13, 34,
     "unknown key 'piont' for a site_at constraint",
     "did you mean 'point'?"},
    {"unknown_site.yaml", SALTO_ERR_INVALID, 13, 27,
     "unknown site 'hand'",
     "did you mean 'hands'?"},
    {"unknown_contact_site.yaml", SALTO_ERR_INVALID, 10, 37,
     "unknown site 'heal'",
     "did you mean 'heel'?"},
    {"unknown_dof.yaml", SALTO_ERR_INVALID, 13, 34,
     "unknown DOF 'kne'",
     "did you mean 'knee'?"},
    {"unknown_phase.yaml", SALTO_ERR_INVALID, 13, 43,
     "unknown phase 'landnig'",
     "did you mean 'landing'?"},
    {"unknown_phase_in_time.yaml", SALTO_ERR_INVALID, 13, 24,
     "unknown phase 'swng' in time 'swng.end'",
     "did you mean 'swing.end'?"},
    {"negative_duration.yaml", SALTO_ERR_INVALID, 4, 15,
     "duration of phase 'swing' must be positive, found -0.5 s",
     NULL},
    {"zero_duration.yaml", SALTO_ERR_INVALID, 9, 15,
     "duration of phase 'landing' must be positive, found 0 s",
     NULL},
    {"time_out_of_range.yaml", SALTO_ERR_INVALID, 13, 24,
     "time '1.6' (1.6 s) is outside the problem's span [0, 1.5] s",
     NULL},
    {"time_negative.yaml", SALTO_ERR_INVALID, 13, 32,
     "time '-0.1' (-0.1 s) is outside the problem's span [0, 1.5] s",
     NULL},
    {"time_offset_out_of_range.yaml", SALTO_ERR_INVALID, 13, 24,
     "time 'landing.end+0.2' (1.7 s) is outside the problem's span",
     NULL},
    {"bad_time_suffix.yaml", SALTO_ERR_INVALID, 13, 24,
     "bad time 'swing.middle': expected 'start' or 'end' after 'swing.'",
     NULL},
    {"bad_time_word.yaml", SALTO_ERR_INVALID, 13, 28,
     "bad time 'later': expected seconds, 'start', 'end'",
     NULL},
    {"bad_time_offset.yaml", SALTO_ERR_INVALID, 13, 24,
     "bad time 'end-'",
     NULL},
    {"time_is_phase.yaml", SALTO_ERR_INVALID, 13, 24,
     "bad time 'flight': 'flight' is a phase; give 'flight.start' or 'flight.end'",
     NULL},
    {"time_and_phase.yaml", SALTO_ERR_INVALID, 13, 63,
     "give either 'time' or 'phase', not both",
     NULL},
    {"site_at_no_time.yaml", SALTO_ERR_INVALID, 13, 5,
     "a site_at constraint needs 'time' or 'phase'",
     NULL},
    {"site_still_no_phase.yaml", SALTO_ERR_INVALID, 13, 5,
     "a site_still constraint needs 'phase'",
     NULL},
    {"site_still_time.yaml", SALTO_ERR_INVALID, 13, 36,
     "'time' is not allowed for a site_still constraint",
     NULL},
    {"values_length.yaml", SALTO_ERR_INVALID, 13, 35,
     "expected a list of 7 numbers for 'values', found a list of 3 items",
     NULL},
    {"dofs_deg_prismatic.yaml", SALTO_ERR_INVALID, 13, 38,
     "'dofs_deg' is only for revolute DOFs ('root_x' is prismatic",
     NULL},
    {"duplicate_dof.yaml", SALTO_ERR_INVALID, 13, 57,
     "DOF 'knee' is given twice in this pose constraint",
     NULL},
    {"duplicate_phase.yaml", SALTO_ERR_INVALID, 8, 11,
     "duplicate phase name 'swing' (first given on line 3)",
     NULL},
    {"phase_name.yaml", SALTO_ERR_INVALID, 6, 11,
     "phase name '2flight' is not an identifier",
     NULL},
    {"empty_phases.yaml", SALTO_ERR_INVALID, 2, 9,
     "'phases' must not be empty",
     NULL},
    {"missing_phases.yaml", SALTO_ERR_INVALID, 1, 1,
     "missing required key 'phases'",
     NULL},
    {"bad_contact_type.yaml", SALTO_ERR_INVALID, 10, 21,
     "unknown contact type 'grund'",
     "did you mean 'ground'?"},
    {"contact_scalar.yaml", SALTO_ERR_INVALID, 8, 14,
     "expected 'none' or a map for 'contact', found 'bar'",
     "a bar contact is a map: {type: bar, sites: [...], ...}"},
    {"sites_on_none.yaml", SALTO_ERR_INVALID, 8, 27,
     "'sites' is not allowed for contact type 'none' (its keys: type)",
     NULL},
    {"friction_on_bar.yaml", SALTO_ERR_INVALID, 5, 79,
     "'friction' is not allowed for contact type 'bar'",
     NULL},
    {"no_sites.yaml", SALTO_ERR_INVALID, 10, 36,
     "'sites' needs 1 to 8 site names, found 0",
     NULL},
    {"duplicate_site.yaml", SALTO_ERR_INVALID, 10, 48,
     "site 'heel' is listed twice in 'sites'",
     NULL},
    {"zero_axis.yaml", SALTO_ERR_INVALID, 5, 68,
     "'axis' must not be zero",
     NULL},
    {"bar_no_point.yaml", SALTO_ERR_INVALID, 5, 14,
     "missing required key 'point'",
     NULL},
    {"torque_negative.yaml", SALTO_ERR_INVALID, 5, 91,
     "'torque_max' must be zero or positive, found -1",
     NULL},
    {"friction_zero.yaml", SALTO_ERR_INVALID, 10, 59,
     "'friction' must be positive, found 0",
     NULL},
    {"support_negative.yaml", SALTO_ERR_INVALID, 10, 64,
     "item 2 of 'support' must be zero or positive, found -0.05",
     NULL},
    {"slices_one.yaml", SALTO_ERR_INVALID, 13, 38,
     "'slices' must be at least 2, found 1",
     NULL},
    {"control_points_three.yaml", SALTO_ERR_INVALID, 14, 19,
     "'control_points' must be at least 4, found 3",
     NULL},
    {"control_points_few.yaml", SALTO_ERR_INVALID, 14, 19,
     "6 control points are too few for 3 phases: each phase boundary takes a double knot, so "
     "at least 8 are needed",
     NULL},
    {"control_points_few_c2.yaml", SALTO_ERR_INVALID, 14, 19,
     "5 control points are too few for 3 phases: each phase boundary takes a knot, so at "
     "least 6 are needed",
     NULL},
    {"bad_junctions.yaml", SALTO_ERR_INVALID, 15, 14,
     "unknown junction continuity 'C3' (expected one of: C1, C2)",
     "did you mean 'C1'?"},
    {"control_points_huge.yaml", SALTO_ERR_INVALID, 14, 19,
     "200000 control points per DOF for 7 DOFs are too many (at most 1000000 in all)", NULL},
    {"slices_huge.yaml", SALTO_ERR_INVALID, 15, 11,
     "2147483647 slices are too many (at most 100000)", NULL},
    {"planar_bar_axis.yaml", SALTO_ERR_INVALID, 5, 68,
     "a planar character's bar must lie along y (axis [0, 1, 0])", NULL},
    {"planar_ground_normal.yaml", SALTO_ERR_INVALID, 10, 57,
     "a planar character's ground normal must lie in the x-z plane", NULL},
    {"control_points_real.yaml", SALTO_ERR_INVALID, 14, 19,
     "expected an integer for 'control_points', found '10.5'",
     NULL},
    {"physics_not_bool.yaml", SALTO_ERR_INVALID, 13, 10, "'physics'", NULL},
    {"bad_derivatives.yaml", SALTO_ERR_INVALID, 14, 16,
     "unknown derivatives 'centrl' (expected one of: linear, direct, fd-forward, fd-central, "
     "richardson)",
     NULL},
    {"hold_not_bool.yaml", SALTO_ERR_INVALID, 5, 85, "expected true or false for 'hold', found 'maybe'",
     NULL},
    {"height_string.yaml", SALTO_ERR_INVALID, 10, 57, "expected a number for 'height', found 'low'",
     NULL},
    {"hold_on_none.yaml", SALTO_ERR_INVALID, 8, 27,
     "'hold' is not allowed for contact type 'none' (its keys: type)", NULL},
    {"height_on_bar.yaml", SALTO_ERR_INVALID, 5, 79,
     "'height' is not allowed for contact type 'bar'", NULL},
    {"body_still_no_phase.yaml", SALTO_ERR_INVALID, 12, 5,
     "a body_still constraint needs 'phase' (the site's body is still through a whole phase)",
     NULL},
    {"body_still_time.yaml", SALTO_ERR_INVALID, 12, 35,
     "'time' is not allowed for a body_still constraint", NULL},
    {"phases_too_many_for_20.yaml", SALTO_ERR_INVALID, 13, 26,
     "20 control points are too few for 10 phases: each phase boundary takes a double knot, so "
     "at least 22 are needed",
     NULL},
    {"long_motion_knots.yaml", SALTO_ERR_INVALID, 4, 24,
     "a knot every 0.05 s over 20000 s makes 400003 control points per DOF for 7 DOFs, too "
     "many (at most 1000000 in all)",
     NULL},
    {"knot_spacing_and_control_points.yaml", SALTO_ERR_INVALID, 4, 24,
     "'knot_spacing' places the knots itself: give it or 'control_points', not both", NULL},
    {"slices_and_per_segment.yaml", SALTO_ERR_INVALID, 4, 42,
     "give 'slices' (shared out by duration) or 'slices_per_segment' (aligned with the knots), "
     "not both",
     NULL},
    {"knot_spacing_zero.yaml", SALTO_ERR_INVALID, 4, 24, "'knot_spacing' must be positive, found 0",
     NULL},
    {"default_spline_too_long.yaml", SALTO_ERR_INVALID, 4, 3,
     "104001 slices are too many (at most 100000): the default spline puts 2 in every 0.05 s; "
     "give 'spline' settings for a motion this long", NULL},
    {"coarse_first_not_bool.yaml", SALTO_ERR_INVALID, 4, 43,
     "expected true or false for 'coarse_first', found 'maybe'", NULL},
    {"slices_per_segment_huge.yaml", SALTO_ERR_INVALID, 4, 50,
     "200001 slices are too many (at most 100000)", NULL},
    {"bad_hessian.yaml", SALTO_ERR_INVALID, 14, 12,
     "unknown hessian 'exakt' (expected one of: limited-memory, exact)",
     "did you mean 'exact'?"},
    {"impact_not_bool.yaml", SALTO_ERR_INVALID, 7, 57,
     "expected true or false for 'impact', found 'maybe'", NULL},
    {"impact_no_hold.yaml", SALTO_ERR_INVALID, 7, 70,
     "an impact lands on held sites: 'impact: true' needs 'hold: true'", NULL},
    {"impact_first_phase.yaml", SALTO_ERR_INVALID, 5, 57,
     "the first phase cannot start with an impact: nothing comes before it to land from", NULL},
    {"impact_three_links.yaml", SALTO_ERR_INVALID, 7, 70,
     "an impact shares its impulse among at most 2 links (in 3-D), and these sites are on 3", NULL},
    {"refine_negative.yaml", SALTO_ERR_INVALID, 5, 18, "'refine' must be between 0 and 100, found -1",
     NULL},
    {"refine_fraction_zero.yaml", SALTO_ERR_INVALID, 5, 38,
     "'refine_fraction' must be positive, found 0", NULL},
    {"bad_refine_max_iterations.yaml", SALTO_ERR_INVALID, 14, 26,
     "'refine_max_iterations' must be at least 0, found -1", NULL},
    {"bad_refine_time.yaml", SALTO_ERR_INVALID, 6, 16,
     "'refine_time' must be zero or positive, found -1", NULL},
    {"bad_linear_solver.yaml", SALTO_ERR_INVALID, 14, 18,
     "unknown linear_solver 'ma57' (expected one of: salto, mumps)", NULL},
    {"box_max_below_min.yaml", SALTO_ERR_INVALID, 6, 84, "the box's z max, 0.2, is below its min, 0.3",
     NULL},
    {"joint_range_reversed.yaml", SALTO_ERR_INVALID, 6, 47, "the range of 'neck' ends below its start",
     NULL},
    {"box_min_two.yaml", SALTO_ERR_INVALID, 6, 47,
     "expected a list of 3 numbers or nulls for 'min', found a list of 2 items", NULL},
    {"box_no_side.yaml", SALTO_ERR_INVALID, 6, 5,
     "the box has no side: give 'min' or 'max' with at least one number", NULL},
    {"joint_range_empty.yaml", SALTO_ERR_INVALID, 6, 31,
     "a joint_range constraint must name at least one DOF under 'dofs' or 'dofs_deg'", NULL},
    {"joint_range_number.yaml", SALTO_ERR_INVALID, 6, 38,
     "expected [lo, hi] (numbers or nulls) for 'neck', found '0.3'", NULL},
    {"joint_range_open.yaml", SALTO_ERR_INVALID, 6, 42,
     "the range of 'neck' has no side: give lo or hi a number", NULL},
    {"constraint_name_list.yaml", SALTO_ERR_INVALID, 6, 29,
     "expected a name for 'name', found a list of 1 item", NULL},
    {"objective_height_no_when.yaml", SALTO_ERR_INVALID, 6, 5,
     "a height objective needs 'time' or 'phase'", NULL},
    {"objective_height_both.yaml", SALTO_ERR_INVALID, 6, 48,
     "give either 'time' or 'phase', not both", NULL},
    {"objective_goal.yaml", SALTO_ERR_INVALID, 6, 41,
     "unknown goal 'highest' (expected one of: min, max)", NULL},
    {"objective_travel_y.yaml", SALTO_ERR_INVALID, 6, 31,
     "a planar character moves in the x-z plane: nothing travels along y", NULL},
    {"objective_height_direction.yaml", SALTO_ERR_INVALID, 6, 35,
     "'direction' is not allowed for a height objective", NULL},
    {"objective_site.yaml", SALTO_ERR_INVALID, 6, 26, "unknown site 'hand'", NULL},
    {"objective_torque_dof.yaml", SALTO_ERR_INVALID, 6, 27, "unknown DOF 'elbo'", "did you mean 'elbow'?"},
    {"objective_torque_empty.yaml", SALTO_ERR_INVALID, 6, 26,
     "'dofs' must name at least one DOF (leave it out for every joint)", NULL},
    {"objective_torque_key.yaml", SALTO_ERR_INVALID, 6, 20,
     "'site' is not allowed for a torque objective", NULL},
    {"objective_torque_root.yaml", SALTO_ERR_INVALID, 6, 27, "'root_ry' is the root's: no joint torque drives it",
     NULL},
    {"clear_bar_axis.yaml", SALTO_ERR_INVALID, 6, 47, "'axis' must not be zero", NULL},
    {"clear_bar_planar.yaml", SALTO_ERR_INVALID, 6, 47,
     "a planar character's bar must lie along y (axis [0, 1, 0]): it moves in the x-z plane", NULL},
    {"box_size_negative.yaml", SALTO_ERR_INVALID, 3, 54,
     "a box's size is its full length along x, y and z, each positive: found -0.4 along z", NULL},
    {"box_name_twice.yaml", SALTO_ERR_INVALID, 4, 12, "the box name 'step' is given twice (first on line 3)", NULL},
    {"box_unknown.yaml", SALTO_ERR_INVALID, 5, 93, "unknown box 'stpe'", "did you mean 'step'?"},
    {"box_none.yaml", SALTO_ERR_INVALID, 3, 93, "there is no box 'step': the problem has no 'boxes'", NULL},
    {"box_on_height.yaml", SALTO_ERR_INVALID, 5, 89,
     "'on' puts the ground on the box's top face (its height, normal +z): drop 'height'", NULL},
    {"box_key.yaml", SALTO_ERR_INVALID, 3, 18, "unknown key 'centre' in item 1 of 'boxes'", "did you mean 'center'?"},
    {"box_clearance.yaml", SALTO_ERR_INVALID, 3, 71, "'clearance' must be zero or positive, found -0.01", NULL},
    {"box_on_bar.yaml", SALTO_ERR_INVALID, 5, 111, "'on' is not allowed for contact type 'bar'", NULL},
    {"box_yaw_planar.yaml", SALTO_ERR_INVALID, 3, 69,
     "a planar character's boxes span every y: they cannot turn about z", NULL},
    {"box_on_list.yaml", SALTO_ERR_INVALID, 5, 93,
     "'on' as a list names a box (or 'floor') for each of the 2 sites, found 1", NULL},
    {"clear_bar_radius.yaml", SALTO_ERR_INVALID, 6, 66, "'radius' must be positive, found -0.01", NULL},
    {"clear_bar_point.yaml", SALTO_ERR_INVALID, 6, 5, "missing required key 'point'", NULL},
    {"clear_bar_phase.yaml", SALTO_ERR_INVALID, 6, 58, "'phase' is not allowed for a clear_bar constraint", NULL},
    {"objective_force_flight.yaml", SALTO_ERR_INVALID, 6, 34,
     "phase 'flight' has no contact: there is no contact force to minimise", NULL},
    {"objective_jerk_none.yaml", SALTO_ERR_INVALID, 5, 5,
     "a contact_jerk objective needs a phase with a contact, and no phase has one", NULL},
    {"objective_jerk_flight.yaml", SALTO_ERR_INVALID, 6, 33,
     "phase 'flight' has no contact: there is no contact force to minimise", NULL},
    {"objective_force_none.yaml", SALTO_ERR_INVALID, 5, 5,
     "a contact_force objective needs a phase with a contact, and no phase has one", NULL},
    {"objective_torque_weight.yaml", SALTO_ERR_INVALID, 6, 34, "'elbow' must be zero or positive, found -1", NULL},
    {"site_above_no_point.yaml", SALTO_ERR_INVALID, 6, 5,
     "missing required key 'point' in item 1 of 'constraints'", NULL},
    {"com_above_site.yaml", SALTO_ERR_INVALID, 6, 23,
     "'site' is not allowed for a com_above constraint (its keys: type, name, point, normal, time, "
     "phase)", NULL},
    {"rotation_against_poses.yaml", SALTO_ERR_INVALID, 10, 54,
     "the poses turn 'root_ry' by 0 degrees from t = 0 s to 1.6 s (lines 7 and 8), but the "
     "rotation turns it by -360 degrees over phase 'flight': give the later pose the turned "
     "value (-360 degrees), or leave 'root_ry' out of one of them", NULL},
    {"constraint_name_twice.yaml", SALTO_ERR_INVALID, 7, 33,
     "the constraint name 'spot' is given twice (first on line 6)", NULL},
    {"constraint_name_digit.yaml", SALTO_ERR_INVALID, 6, 33,
     "'2nd' is not a constraint name: letters, digits, '_' and '-', starting with a letter or "
     "'_', at most 47 characters (--set and sweeps address the constraint by it)", NULL},
    {"objective_name_twice.yaml", SALTO_ERR_INVALID, 9, 43,
     "the objective name 'effort' is given twice (first on line 8)", NULL},
    {"bad_flight_rows.yaml", SALTO_ERR_INVALID, 14, 16,
     "unknown flight_rows 'momentm' (expected one of: force, momentum, momentum_ends)",
     "did you mean 'momentum'?"},
    {"print_level.yaml", SALTO_ERR_INVALID, 14, 16,
     "'print_level' must be between 0 and 12, found 13",
     NULL},
    {"tolerance_zero.yaml", SALTO_ERR_INVALID, 13, 21,
     "'tolerance' must be positive, found 0",
     NULL},
    {"frame_rate_huge.yaml", SALTO_ERR_INVALID, 13, 22,
     "at 1e+10 frames per second the 1.5 s motion takes 15000000001 frames; at most 1000000 "
     "are written",
     NULL},
    {"long_motion.yaml", SALTO_ERR_INVALID, 3, 3,
     "at 60 frames per second the 20000 s motion takes 1200001 frames", NULL},
    {"filmstrip_frames.yaml", SALTO_ERR_INVALID, 13, 44,
     "'filmstrip_frames' must be between 1 and 64, found 65",
     NULL},
    {"filmstrip_view.yaml", SALTO_ERR_INVALID, 13, 42,
     "unknown filmstrip_view 'sid' (expected one of: side, front, top)",
     "did you mean 'side'?"},
    {"empty_objective.yaml", SALTO_ERR_INVALID, 13, 12,
     "'objective' must not be empty",
     NULL},
    {"reference_no_motion.yaml", SALTO_ERR_INVALID, 14, 5,
     "missing required key 'motion'",
     NULL},
    {"objective_weight.yaml", SALTO_ERR_INVALID, 14, 34,
     "'weight' must be zero or positive, found -1",
     NULL},
    {"objective_motion_key.yaml", SALTO_ERR_INVALID, 14, 26,
     "'motion' is not allowed for an acceleration objective",
     NULL},
    {"rotation_non_root.yaml", SALTO_ERR_INVALID, 14, 34,
     "the rotation DOF must be a revolute root DOF ('root_ry'), not 'hip'",
     NULL},
    {"rotation_prismatic.yaml", SALTO_ERR_INVALID, 14, 34,
     "the rotation DOF must be a revolute root DOF ('root_ry'), not 'root_z'",
     NULL},
    {"rotation_two_angles.yaml", SALTO_ERR_INVALID, 14, 58,
     "give either 'angle' or 'angle_deg', not both",
     NULL},
    {"rotation_with_motion.yaml", SALTO_ERR_INVALID, 16, 3,
     "'rotation' is only allowed with type: interpolate",
     NULL},
    {"guess_no_motion.yaml", SALTO_ERR_INVALID, 14, 3,
     "missing required key 'motion' in 'initial_guess'",
     NULL},
    {"pose_below_limit.yaml", SALTO_ERR_INVALID, 13, 40,
     "pose sets 'knee' to -0.2 rad, below its lower limit 0 rad; the joint_limits "
     "constraint on line 12",
     NULL},
    {"pose_above_limit_deg.yaml", SALTO_ERR_INVALID, 13, 45,
     "pose sets 'hip' to 45 deg, above its upper limit 30 deg",
     NULL},
    {"conflicting_poses.yaml", SALTO_ERR_INVALID, 14, 48,
     "'knee' is set to 0.7 here but to 0.5 at the same time (0.5 s) by the pose "
     "constraint on line 13",
     NULL},
    {"com_y_planar.yaml", SALTO_ERR_INVALID, 13, 42,
     "only y is given, but a planar character's centre of mass moves in the x-z plane", NULL},
    {"com_all_null.yaml", SALTO_ERR_INVALID, 13, 42,
     "every component of 'value' is null",
     NULL},
    {"com_length.yaml", SALTO_ERR_INVALID, 13, 42,
     "expected a list of 3 numbers or nulls for 'value', found a list of 2 items",
     NULL},
    {"line_zero_direction.yaml", SALTO_ERR_INVALID, 13, 70,
     "'direction' must not be zero",
     NULL},
    {"unknown_constraint_type.yaml", SALTO_ERR_INVALID, 13, 12,
     "unknown constraint type 'pos'",
     "did you mean 'pose'?"},
    {"joint_limits_key.yaml", SALTO_ERR_INVALID, 13, 26,
     "'time' is not allowed for a joint_limits constraint",
     NULL},
    {"joint_limits_twice.yaml", SALTO_ERR_INVALID, 13, 5,
     "joint_limits is given twice (first on line 12)",
     NULL},
    {"pose_no_values.yaml", SALTO_ERR_INVALID, 13, 5,
     "a pose constraint needs 'values', 'dofs' or 'dofs_deg'",
     NULL},
    {"gravity_length.yaml", SALTO_ERR_INVALID, 13, 10,
     "expected a list of 3 numbers for 'gravity', found a list of 2 items",
     NULL},
    {"durations_overflow.yaml", SALTO_ERR_INVALID, 7, 15,
     "the phase durations add up to more than a double can hold",
     NULL},
    {"solver_ipopt_list.yaml", SALTO_ERR_INVALID, 14, 10,
     "expected a map", NULL},
    {"solver_ipopt_value.yaml", SALTO_ERR_INVALID, 12, 20,
     "solver.ipopt.mu_init: expected a number or a word", NULL},
    {"ballistic_not_bool.yaml", SALTO_ERR_INVALID, 11, 28,
     "ballistic", NULL},
    {"phase_knots_count.yaml", SALTO_ERR_INVALID, 11, 43,
     "'phase_knots' needs one count per phase (3), found 2", NULL},
    {"phase_knots_sum.yaml", SALTO_ERR_INVALID, 11, 43,
     "'phase_knots' add up to 9, but 12 control points over 3 phases leave 4 interior knots", NULL},
    {"phase_knots_negative.yaml", SALTO_ERR_INVALID, 11, 47,
     "a phase's knot count must be in 0..4, found -1", NULL},
    {"effective_root_not_bool.yaml", SALTO_ERR_INVALID, 10, 65,
     "expected true or false for 'effective_root'", NULL},
    {"phase_ballistic_contact.yaml", SALTO_ERR_INVALID, 6, 16,
     "'ballistic' is for flight phases (no contact); phase 'swing' has a contact", NULL},
    {"phase_ballistic_not_bool.yaml", SALTO_ERR_INVALID, 6, 46,
     "expected true or false for 'ballistic'", NULL},
    {"validation_threshold_unknown.yaml", SALTO_ERR_INVALID, 5, 29,
     "unknown key 'spinn' in 'thresholds'", "did you mean 'spin'?"},
    {"validation_threshold_negative.yaml", SALTO_ERR_INVALID, 5, 22,
     "'slip' must be zero or positive, found -0.002", NULL},
    {"validation_integrator.yaml", SALTO_ERR_INVALID, 4, 38,
     "unknown integrator 'rk45' (expected one of: none, euler, rk4)", "did you mean 'rk4'?"},
    {"character_missing.yaml", SALTO_ERR_IO, 1, 12,
     "cannot load the character: cannot open '",
     NULL},
    {"character_not_string.yaml", SALTO_ERR_INVALID, 1, 12,
     "expected a string for 'character', found a list of 2 items",
     NULL},
    {"syntax.yaml", SALTO_ERR_SYNTAX, 14, 1,
     "did not find expected ',' or '}' (while parsing a flow mapping on line 13)",
     NULL},
    {"pose_no_time.yaml", SALTO_ERR_INVALID, 13, 5,
     "missing required key 'time' in a pose constraint",
     NULL},
    {"empty_dofs.yaml", SALTO_ERR_INVALID, 13, 33,
     "a pose constraint must name at least one DOF",
     NULL},
    {"values_and_dofs.yaml", SALTO_ERR_INVALID, 13, 62,
     "give either 'values' or 'dofs'/'dofs_deg', not both",
     NULL},
    {"too_many_sites.yaml", SALTO_ERR_INVALID, 10, 36,
     "'sites' needs 1 to 8 site names, found 9",
     NULL},
    {"contact_no_type.yaml", SALTO_ERR_INVALID, 10, 14,
     "missing required key 'type' in 'contact'",
     NULL},
    {"unknown_guess_type.yaml", SALTO_ERR_INVALID, 13, 23,
     "unknown initial guess type 'motoin' (expected one of: interpolate, motion)",
     "did you mean 'motion'?"},
    {"unknown_rotation_dof.yaml", SALTO_ERR_INVALID, 14, 34,
     "unknown DOF 'rot_ry'",
     "did you mean 'root_ry'?"},
    {"plane_no_normal.yaml", SALTO_ERR_INVALID, 13, 5,
     "missing required key 'normal'",
     NULL},
    {"above_ground_height.yaml", SALTO_ERR_INVALID, 13, 34,
     "expected a number for 'height', found 'low'",
     NULL},
    {"an_above_ground_key.yaml", SALTO_ERR_INVALID, 13, 26,
     "'site' is not allowed for an above_ground constraint (its keys: type, name, height)",
     NULL},
    // free phase durations
    {"duration_min_zero.yaml", SALTO_ERR_INVALID, 7, 21,
     "the shortest duration of phase 'flight' must be positive, found 0 s", NULL},
    {"duration_max_below_min.yaml", SALTO_ERR_INVALID, 7, 31,
     "the longest duration of phase 'flight' (0.4 s) is less than its shortest (0.5 s)", NULL},
    {"duration_initial_outside.yaml", SALTO_ERR_INVALID, 7, 45,
     "the initial duration of phase 'flight' (0.7 s) is outside [0.3, 0.6] s", NULL},
    {"duration_key.yaml", SALTO_ERR_INVALID, 7, 36, "unknown key 'start' in 'duration'", NULL},
    {"duration_objective_fixed.yaml", SALTO_ERR_INVALID, 9, 29,
     "phase 'flight' has a fixed duration (line 7): a duration objective needs it free", NULL},
    {"duration_free_jerk.yaml", SALTO_ERR_INVALID, 10, 12,
     "a contact_jerk objective cannot be used yet with a free phase duration (phase 'flight', line 7)", NULL},
};
enum { NBAD = (int)(sizeof bad_cases / sizeof bad_cases[0]) };


START_TEST(bad_file) {
    const bad_case* bc = &bad_cases[_i];
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/problems/bad/%s", bc->file);
    char path[4096];
    snprintf(path, sizeof path, "%s", salto_test_path(rel));

    salto_error err = {0};
    salto_problem_desc* p = salto_problem_load(path, &err);
    salto_test_check_bad(bc, path, p != NULL, &err);
}
END_TEST


// a broken character file reports its own error, in its own file
START_TEST(character_error_passes_through) {
    const char* path = salto_test_path("tests/data/problems/bad/character_invalid.yaml");
    salto_error err = {0};
    ck_assert_ptr_null(salto_problem_load(path, &err));
    ck_assert_int_eq(err.status, SALTO_ERR_INVALID);
    ck_assert_ptr_nonnull(err.where.file);
    const char* tail = "tests/data/problems/bad/../../bad/mass_zero.yaml";
    size_t n = strlen(err.where.file);
    ck_assert_msg(n >= strlen(tail) && strcmp(err.where.file + n - strlen(tail), tail) == 0,
                  "error in %s", err.where.file);
    ck_assert_ptr_eq(err.where.file, err.file_buf);
    ck_assert_int_eq(err.where.line, 16);
    ck_assert_int_eq(err.where.col, 11);
    ck_assert_msg(strstr(err.msg, "mass of body 'arm' must be positive"), "%s", err.msg);
}
END_TEST


START_TEST(missing_file) {
    salto_error err = {0};
    const char* path = salto_test_path("tests/data/problems/does_not_exist.yaml");
    ck_assert_ptr_null(salto_problem_load(path, &err));
    ck_assert_int_eq(err.status, SALTO_ERR_IO);
    ck_assert_msg(strstr(err.msg, "does_not_exist.yaml"), "%s", err.msg);
    ck_assert_ptr_null(salto_problem_load(path, NULL)); // no error object: no crash
    path = salto_test_path("tests/data/problems/bad/character_missing.yaml");
    ck_assert_ptr_null(salto_problem_load(path, NULL));
    salto_problem_destroy(NULL);
}
END_TEST

// ---- allocation failure ----

// make the n-th allocation fail, n = 1, 2, ... until loading succeeds: every failure is a
// clean SALTO_ERR_NOMEM and nothing leaks
static void* load_problem(const char* path, salto_error* err) {
    return salto_problem_load(path, err);
}
static void destroy_problem(void* p) { salto_problem_destroy(p); }


// the held dismount with two overrides (salto_problem_load_set), for the sweep below
static void* load_problem_set(const char* path, salto_error* err) {
    static const char* const set[] = {"phases.flight.duration=0.7", "solver.tolerance=1e-7"};
    return salto_problem_load_set(path, 2, set, err);
}


// a problem loaded with overrides keeps them, in order, as given (what motion.json records);
// without, none; and loading with them runs out of memory cleanly at every allocation
START_TEST(load_keeps_its_overrides) {
    salto_error err = {0};
    const char* path = salto_test_path("data/paper/highbar_dismount_held.yaml");
    salto_problem_desc* p = load_problem_set(path, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    ck_assert_int_eq(p->nset, 2);
    ck_assert_str_eq(p->set[0], "phases.flight.duration=0.7");
    ck_assert_str_eq(p->set[1], "solver.tolerance=1e-7");
    ck_assert_double_eq_tol(p->phases[1].duration, 0.7, 1e-15);
    salto_problem_destroy(p);
    p = salto_problem_load(path, &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p->nset, 0);
    ck_assert_ptr_null(p->set);
    salto_problem_destroy(p);
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    ck_assert_int_gt(salto_test_nomem_sweep(buf, load_problem_set, destroy_problem), 99);
}
END_TEST


START_TEST(load_out_of_memory) {
    static const char* const files[] = {"tests/data/problems/full.yaml", "problems/keyframes.yaml",
                                        "problems/hold.yaml"};
    char path[4096];
    snprintf(path, sizeof path, "%s", salto_test_path(files[_i]));
    // many failure points exercised
    ck_assert_int_gt(salto_test_nomem_sweep(path, load_problem, destroy_problem), 99);
}
END_TEST


// PATH=VALUE overrides read as if the file said so: later phases move, times named after
// phases follow, new keys are added, and IPOPT options are kept with their places
START_TEST(load_with_overrides) {
    char path[4096];
    snprintf(path, sizeof path, "%s", salto_test_path("data/paper/highbar_dismount_held.yaml"));
    salto_error err = {0};
    const char* set[] = {"phases.flight.duration=0.66", "solver.hessian=limited-memory",
                         "solver.ipopt.mu_init=1e-3", "initial_guess.ballistic=true"};
    salto_problem_desc* p = load_set_ok(path, 4, set);
    salto_problem_desc* p0 = load_ok("data/paper/highbar_dismount_held.yaml");
    ck_assert_double_eq_tol(p->phases[1].duration, 0.66, 1e-15);
    ck_assert_double_eq_tol(p->phases[2].start, 0.9 + 0.66, 1e-12);
    ck_assert_double_eq_tol(p->duration, p0->duration + 0.06, 1e-12);
    // "time: end" constraints follow the end
    for (int c = 0; c < p->ncon; c++) {
        if (p->cons[c].has_time && p0->cons[c].has_time && p0->cons[c].time > 1.0) {
            ck_assert_double_eq_tol(p->cons[c].time, p0->cons[c].time + 0.06, 1e-12);
        }
    }
    ck_assert_int_eq(p->solver.hessian_exact, 0);
    ck_assert_int_eq(p0->solver.hessian_exact, 1);
    // the effective root: on the ground by default, not on a bar
    ck_assert_int_eq(p0->phases[0].contact.effective_root, 0);
    ck_assert_int_eq(p0->phases[2].contact.effective_root, 1);
    ck_assert_int_eq(p->guess.ballistic, 1);
    ck_assert_int_eq(p0->guess.ballistic, 0);
    ck_assert_int_eq(p->solver.nipopt, 1);
    ck_assert_str_eq(p->solver.ipopt[0].key, "mu_init");
    ck_assert_str_eq(p->solver.ipopt[0].value, "1e-3");
    ck_assert_ptr_nonnull(p->solver.ipopt[0].loc.file);
    salto_problem_destroy(p);
    salto_problem_destroy(p0);

    // knots per phase given: the knots follow them; the counts read back
    {
        char kpath[4096];
        snprintf(kpath, sizeof kpath, "%s", salto_test_path("tests/data/problems/bad/phase_knots_sum.yaml"));
        const char* kset[] = {"spline.control_points=13"}; // 5 knots to place, not 9
        salto_error e3 = {0};
        salto_problem_desc* pk = salto_problem_load_set(kpath, 1, kset, &e3);
        ck_assert_msg(pk == NULL && strstr(e3.msg, "add up to 9") && strstr(e3.msg, "leave 5"),
                      "%s", e3.msg);
    }
    {
        const char* kset[] = {"spline.control_points=30"};
        salto_error e3 = {0};
        salto_problem_desc* pk = salto_problem_load_set(path, 1, kset, &e3);
        ck_assert_ptr_nonnull(pk);
        int counts[3];
        salto_problem_knot_counts(pk, counts);
        ck_assert_int_eq(counts[0] + counts[1] + counts[2], 30 - 4 - 4);
        // the same counts given explicitly give the same knots
        double k0[64], k1[64];
        const int n0 = salto_problem_knots(pk, k0);
        pk->phase_knots = salto_malloc(3 * sizeof(int));
        pk->phase_knots[0] = counts[0], pk->phase_knots[1] = counts[1], pk->phase_knots[2] = counts[2];
        ck_assert_int_eq(salto_problem_knots(pk, k1), n0);
        for (int k = 0; k < n0; k++) ck_assert_double_eq_tol(k1[k], k0[k], 1e-15);
        // and other counts move them: 2 more knots in the landing
        pk->phase_knots[0] -= 1, pk->phase_knots[1] -= 1, pk->phase_knots[2] += 2;
        salto_problem_knot_counts(pk, counts);
        ck_assert_int_eq(counts[2], pk->phase_knots[2]);
        ck_assert_int_eq(salto_problem_knots(pk, k1), n0);
        int inside = 0;
        for (int k = 0; k < n0; k++) inside += k1[k] > pk->phases[2].start;
        ck_assert_int_eq(inside, counts[2]);
        salto_problem_destroy(pk);
    }

    // a bad override: the path, then a value the loader rejects at the replaced value's place
    const char* bad1[] = {"phases.fly.duration=1"};
    ck_assert_ptr_null(salto_problem_load_set(path, 1, bad1, &err));
    ck_assert_msg(strstr(err.msg, "no 'fly' here"), "%s", err.msg);
    const char* bad2[] = {"phases.flight.duration=-1"};
    memset(&err, 0, sizeof err);
    ck_assert_ptr_null(salto_problem_load_set(path, 1, bad2, &err));
    ck_assert_msg(strstr(err.msg, "must be positive"), "%s", err.msg);
    ck_assert_int_eq(err.where.line, 24);
    const char* bad3[] = {"phases.flight.duration"};
    memset(&err, 0, sizeof err);
    ck_assert_ptr_null(salto_problem_load_set(path, 1, bad3, &err));
    ck_assert_msg(strstr(err.msg, "PATH=VALUE"), "%s", err.msg);
}
END_TEST


// contact.impact: a triple knot at the phase's start (one fewer left to share out), and the
// errors: the first phase, a contact that does not hold, sites on two bodies, a bar; after a
// ballistic flight it loads
START_TEST(impact_knots_and_errors) {
    salto_error err = {0};
    const char* path = salto_test_path("data/paper/highbar_dismount_held.yaml");
    const char* on[] = {"phases.landing.contact.impact=true"};
    salto_problem_desc* p = load_set_ok(path, 1, on);
    ck_assert(p->phases[2].contact.impact && !p->phases[1].contact.impact);
    ck_assert_int_eq(salto_problem_junction_mult(p, 1), 2);
    ck_assert_int_eq(salto_problem_junction_mult(p, 2), 3);
    double kn[64];
    ck_assert_int_eq(salto_problem_knots(p, kn), p->ncp - 4);
    int at_b = 0, at_swing_end = 0;
    for (int k = 0; k < p->ncp - 4; k++) {
        at_b += kn[k] == p->phases[2].start;
        at_swing_end += kn[k] == p->phases[1].start;
        if (k > 0) ck_assert(kn[k] >= kn[k - 1]);
    }
    ck_assert_int_eq(at_b, 3);
    ck_assert_int_eq(at_swing_end, 2);
    salto_problem_destroy(p);

    const char* first[] = {"phases.swing.contact=null",
                           "phases.swing.contact={type: ground, sites: [heel, toe], impact: true}"};
    memset(&err, 0, sizeof err);
    ck_assert_ptr_null(salto_problem_load_set(path, 2, first, &err));
    ck_assert_msg(strstr(err.msg, "first phase cannot start with an impact"), "%s", err.msg);
    ck_assert_int_gt(err.where.line, 0);
    const char* nohold[] = {"phases.landing.contact.impact=true", "phases.landing.contact.hold=false"};
    memset(&err, 0, sizeof err);
    ck_assert_ptr_null(salto_problem_load_set(path, 2, nohold, &err));
    ck_assert_msg(strstr(err.msg, "needs 'hold: true'"), "%s", err.msg);
    const char* bar[] = {"phases.swing.contact.impact=true"};
    memset(&err, 0, sizeof err);
    ck_assert_ptr_null(salto_problem_load_set(path, 1, bar, &err));
    ck_assert_msg(strstr(err.msg, "impact"), "%s", err.msg);
    const char* leap = salto_test_path("problems/leap.yaml");
    // on two links in 3-D: allowed, the impulse shared; on three: refused
    const char* two[] = {"phases.right.contact.sites=[heel_r, toe_l]", "phases.right.contact.impact=true"};
    p = load_set_ok(leap, 2, two);
    ck_assert(p->phases[2].contact.impact);
    ck_assert_int_eq(salto_contact_links(p->model, &p->phases[2].contact, NULL, NULL), 2);
    salto_problem_destroy(p);
    const char* three[] = {"phases.right.contact.sites=[heel_r, toe_l, hand_l]", "phases.right.contact.impact=true"};
    memset(&err, 0, sizeof err);
    ck_assert_ptr_null(salto_problem_load_set(leap, 2, three, &err));
    ck_assert_msg(strstr(err.msg, "at most 2 links"), "%s", err.msg);
    // after a ballistic flight: allowed (the flight's end is read from the left)
    const char* luxo = salto_test_path("problems/luxo_jump.yaml");
    const char* after_ballistic[] = {"phases.land.contact.impact=true"};
    memset(&err, 0, sizeof err);
    p = load_set_ok(luxo, 1, after_ballistic);
    ck_assert(p->phases[1].ballistic && p->phases[2].contact.impact);
    salto_problem_destroy(p);
}
END_TEST


// ---- the root in a turned chart (salto_problem_turn_root) ----

static void turn_path_shifted(void* ctx, double t, double q[3], double qd[3]) {
    (void)t;
    const double* shift = ctx;
    for (int a = 0; a < 3; a++) q[a] = shift[a], qd[a] = 0.1 * (a + 1);
}


// A pose and a velocity of the root's three angles, converted: the same world orientation and
// angular velocity in the turned chart, the angles the set nearest the path (a path two full
// turns on in the first angle gives angles two turns on), the other DOFs as they were; the
// model's root turned; a reload inherits all of it
START_TEST(turn_root_converts_poses) {
    const char* set[] = {
        "constraints.4={type: pose, time: 0, dofs: {knee_l: 0.3, root_ry: 0.4, root_rx: -0.7, root_rz: 2.0, root_z: 0.05}}",
        "constraints.5={type: velocity, time: 0, dofs: {root_ry: 0.5, root_rx: -0.2, root_rz: 0.4, elbow_r: -0.5}}"};
    salto_problem_desc* p = load_set_ok("tests/data/nlp/all3d.yaml", 2, set);
    salto_problem_desc* q = load_set_ok("tests/data/nlp/all3d.yaml", 2, set);
    int o[3];
    ck_assert(salto_root_order(p->model, o));
    const double ax[3] = {0.48, -0.6, 0.64};
    double B[9];
    salto_m3_axis_angle(B, ax, 2.3);
    const double anchor[3] = {0.4, -0.7, 2.0};
    salto_error err = {0};
    // the path's angles in the turned chart, two turns on in the first
    double E0[9], R[9], qt[3];
    salto_euler_matrix(o, anchor, R);
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) E0[3 * r + c] = B[r] * R[c] + B[3 + r] * R[3 + c] + B[6 + r] * R[6 + c];
    }
    salto_euler_angles(o, E0, NULL, qt);
    double path[3] = {qt[0] + 4 * pi + 0.01, qt[1] - 0.01, qt[2] + 0.01};
    ck_assert_int_eq(salto_problem_turn_root(p, B, anchor, turn_path_shifted, path, &err), SALTO_OK);
    ck_assert_int_eq(p->root_turned, 1);
    ck_assert_int_eq(p->model->link_tree_rot[3], 1);
    const salto_constraint_desc* pose = p->cons + 4;
    const salto_constraint_desc* vel = p->cons + 5;
    double qr[3], qdr[3];
    for (int k = 0; k < pose->ndof; k++) {
        const int j = pose->dof[k];
        if (j >= 3 && j < 6) qr[j - 3] = pose->value[k];
        if (j == 2) ck_assert_double_eq(pose->value[k], 0.05);
        if (j >= 6) ck_assert_double_eq(pose->value[k], 0.3);
    }
    for (int k = 0; k < vel->ndof; k++) {
        const int j = vel->dof[k];
        if (j >= 3 && j < 6) qdr[j - 3] = vel->value[k];
        if (j >= 6) ck_assert_double_eq(vel->value[k], -0.5);
    }
    ck_assert_vec_close(qr, path, 3, 0.05, 0, "the angles nearest the path");
    double Et[9], Rt[9];
    salto_euler_matrix(o, qr, Et);
    salto_m3_mul(Rt, B, Et);
    ck_assert_vec_close(Rt, R, 9, 1e-12, 0, "the same orientation");
    // the same angular velocity
    const double qdc[3] = {0.5, -0.2, 0.4};
    double Jc[9], Jt[9], wc[3], wt[3], wtw[3];
    salto_euler_axes(o, anchor, Jc);
    salto_euler_axes(o, qr, Jt);
    salto_m3_mul_v3(wc, Jc, qdc);
    salto_m3_mul_v3(wt, Jt, qdr);
    salto_m3_mul_v3(wtw, B, wt);
    ck_assert_vec_close(wtw, wc, 3, 1e-12, 1e-12, "the same angular velocity");
    // a reload inherits it
    salto_problem_inherit_turn(q, p);
    ck_assert_int_eq(q->root_turned, 1);
    ck_assert(memcmp(q->model->link_Rtree + 27, p->model->link_Rtree + 27, 9 * sizeof(double)) == 0);
    ck_assert(memcmp(q->cons[4].value, p->cons[4].value, sizeof(double) * (size_t)p->cons[4].ndof) == 0);
    ck_assert(memcmp(q->cons[5].value, p->cons[5].value, sizeof(double) * (size_t)p->cons[5].ndof) == 0);
    // and a second turn is refused
    ck_assert_int_eq(salto_problem_turn_root(p, B, anchor, turn_path_shifted, path, &err), SALTO_ERR_INVALID);
    salto_problem_destroy(p);
    salto_problem_destroy(q);
}
END_TEST


// A pose or a velocity of one or two root angles: the others the path's (its orientation's
// angles in the character's chart, its rates there), then converted like a full one; the
// constraint then gives all three
START_TEST(turn_root_fills_partial_poses) {
    const char* set[] = {
        "constraints.4={type: pose, time: 0.2, dofs: {knee_l: 0.3, root_rx: 0.5}}",
        "constraints.5={type: velocity, time: 0.5, dofs: {root_rz: 0.7, root_ry: -0.4}}"};
    salto_problem_desc* p = load_set_ok("tests/data/nlp/all3d.yaml", 2, set);
    int o[3];
    ck_assert(salto_root_order(p->model, o));
    const double ax[3] = {0.0, 0.6, 0.8};
    double B[9];
    salto_m3_axis_angle(B, ax, 0.9);
    const double anchor[3] = {0, 0, 0};
    const double path[3] = {0.2, -0.3, 0.4}; // the path's turned angles (rates 0.1, 0.2, 0.3)
    salto_error err = {0};
    ck_assert_int_eq(salto_problem_turn_root(p, B, anchor, turn_path_shifted, (void*)path, &err), SALTO_OK);
    const salto_constraint_desc* pose = p->cons + 4;
    const salto_constraint_desc* vel = p->cons + 5;
    ck_assert_int_eq(pose->ndof, 4);
    ck_assert_int_eq(vel->ndof, 3);
    double q[3] = {0, 0, 0}, qd[3] = {0, 0, 0};
    for (int k = 0; k < pose->ndof; k++) {
        if (pose->dof[k] >= 3 && pose->dof[k] < 6) q[pose->dof[k] - 3] = pose->value[k];
        if (pose->dof[k] >= 6) ck_assert_double_eq(pose->value[k], 0.3);
    }
    for (int k = 0; k < vel->ndof; k++) qd[vel->dof[k] - 3] = vel->value[k];
    // the pose: root_rx (the middle of [y, x, z]) 0.5 in the character's chart, the other two
    // the path's orientation's
    double c[3], cp[3];
    salto_euler_rechart(o, B, NULL, q, NULL, NULL, NULL, c, NULL, NULL);
    ck_assert_double_eq_tol(c[1], 0.5, 1e-12);
    salto_euler_rechart(o, B, NULL, path, NULL, NULL, c, cp, NULL, NULL);
    ck_assert_double_eq_tol(c[0], cp[0], 1e-12);
    ck_assert_double_eq_tol(c[2], cp[2], 1e-12);
    // the velocity: root_rz 0.7 and root_ry -0.4 in the character's chart at the path's
    // orientation, root_rx's rate the path's
    const double pathd[3] = {0.1, 0.2, 0.3}, zero[3] = {0, 0, 0};
    double e[3], ed[3], f[3], fd[3], dd[3];
    salto_euler_rechart(o, B, NULL, path, pathd, zero, NULL, e, ed, dd);
    salto_euler_rechart(o, B, NULL, path, qd, zero, e, f, fd, dd);
    ck_assert_double_eq_tol(fd[0], -0.4, 1e-12);
    ck_assert_double_eq_tol(fd[2], 0.7, 1e-12);
    ck_assert_double_eq_tol(fd[1], ed[1], 1e-12);
    salto_problem_destroy(p);
}
END_TEST


// what cannot be converted is refused at the constraint's place, the problem unchanged
// the root's partial lists made whole all or nothing: with every allocation failing in turn,
// salto_problem_turn_root and salto_problem_inherit_turn either succeed or leave the problem
// as it was (its constraints' DOF lists and values, its chart), with nothing leaked
START_TEST(turn_root_survives_allocation_failure) {
    const char* set[] = {
        "constraints.4={type: pose, time: 0.2, dofs: {knee_l: 0.3, root_rx: 0.5}}",
        "constraints.5={type: velocity, time: 0.5, dofs: {root_rz: 0.7, root_ry: -0.4}}"};
    const double ax[3] = {0.0, 0.6, 0.8}, anchor[3] = {0, 0, 0}, path[3] = {0.2, -0.3, 0.4};
    double B[9];
    salto_m3_axis_angle(B, ax, 0.9);
    salto_problem_desc* turned = load_set_ok("tests/data/nlp/all3d.yaml", 2, set);
    salto_error err = {0};
    ck_assert_int_eq(salto_problem_turn_root(turned, B, anchor, turn_path_shifted, (void*)path, &err), SALTO_OK);
    for (int which = 0; which < 2; which++) {
        int done = 0, n = 1;
        for (; n < 200 && !done; n++) {
            salto_problem_desc* p = load_set_ok("tests/data/nlp/all3d.yaml", 2, set);
            salto_problem_desc* before = load_set_ok("tests/data/nlp/all3d.yaml", 2, set);
            salto_test_counter cnt = {0, 0, n};
            salto_alloc_hooks h = {salto_test_counting_malloc, salto_test_counting_free, &cnt};
            salto_set_alloc_hooks(&h);
            salto_error e = {0};
            const int failed = which == 0
                                   ? salto_problem_turn_root(p, B, anchor, turn_path_shifted, (void*)path, &e) != SALTO_OK
                                   : salto_problem_inherit_turn(p, turned) != 0;
            salto_set_alloc_hooks(NULL);
            ck_assert_msg(cnt.live == 0 || !failed, "allocation %d failing leaked %ld blocks", n, cnt.live);
            if (failed) {
                if (which == 0) ck_assert_int_eq(e.status, SALTO_ERR_NOMEM);
                ck_assert_int_eq(p->root_turned, 0);
                for (int i = 0; i < p->ncon; i++) {
                    const salto_constraint_desc *c = p->cons + i, *b = before->cons + i;
                    ck_assert_msg(c->ndof == b->ndof, "allocation %d: constraint %d has %d DOFs, not %d",
                                  n, i, c->ndof, b->ndof);
                    for (int k = 0; k < c->ndof && (c->type == SALTO_CON_POSE || c->type == SALTO_CON_VELOCITY); k++) {
                        ck_assert_int_eq(c->dof[k], b->dof[k]);
                        ck_assert(c->value[k] == b->value[k]);
                    }
                }
            } else {
                done = 1;
                ck_assert_int_eq(p->root_turned, 1);
            }
            salto_problem_destroy(p);
            salto_problem_destroy(before);
        }
        ck_assert_msg(done, "%s never succeeded", which ? "inherit" : "turn");
        ck_assert_int_gt(n, 2); // it did fail at the first allocation
    }
    salto_problem_destroy(turned);
}
END_TEST


START_TEST(turn_root_refusals) {
    static const struct {
        const char* set;
        const char* msg;
    } cases[] = {
        {"constraints.5={type: joint_range, dofs: {root_rx: [-1, 1]}, phase: flight}", "a joint range on the root's angles"},
        {"objective=[{type: reference, motion: ref.json}]", "a reference motion's root angles"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        salto_error err = {0};
        salto_problem_desc* p = salto_problem_load_set(salto_test_path("tests/data/nlp/all3d.yaml"), 1, &cases[k].set, &err);
        ck_assert_msg(p != NULL, "case %zu: %s", k, err.msg);
        const double B[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}, anchor[3] = {0, 0, 0}, path[3] = {0, 0, 0};
        ck_assert_int_eq(salto_problem_turn_root(p, B, anchor, turn_path_shifted, (void*)path, &err), SALTO_ERR_INVALID);
        ck_assert_msg(strstr(err.msg, cases[k].msg) != NULL, "case %zu: %s", k, err.msg);
        ck_assert_int_eq(p->root_turned, 0);
        ck_assert_int_eq(p->model->link_tree_rot[3], 0);
        salto_problem_destroy(p);
    }
}
END_TEST


// which ground contacts stand on their plane: any site off a box, or no site; not a contact on a
// box as a whole, not every site on boxes, not a bar or a flight
START_TEST(contact_uses_plane) {
    salto_contact_desc c;
    memset(&c, 0, sizeof c);
    c.type = SALTO_CONTACT_GROUND, c.box = -1, c.nsite = 2;
    c.site_box[0] = -1, c.site_box[1] = -1;
    ck_assert_int_eq(salto_contact_uses_plane(&c), 1);
    c.site_box[0] = 0; // one foot on a box, one on the floor
    ck_assert_int_eq(salto_contact_uses_plane(&c), 1);
    c.site_box[1] = 1; // both on boxes
    ck_assert_int_eq(salto_contact_uses_plane(&c), 0);
    c.nsite = 0;
    ck_assert_int_eq(salto_contact_uses_plane(&c), 1);
    c.box = 0; // the contact on a box
    ck_assert_int_eq(salto_contact_uses_plane(&c), 0);
    c.box = -1, c.type = SALTO_CONTACT_BAR;
    ck_assert_int_eq(salto_contact_uses_plane(&c), 0);
    c.type = SALTO_CONTACT_NONE;
    ck_assert_int_eq(salto_contact_uses_plane(&c), 0);
}
END_TEST


Suite* problem_suite(void) {
    Suite* s = suite_create("problem");
    TCase* tc = tcase_create("examples");
    tcase_add_test(tc, constraint_names);
    tcase_add_test(tc, example_reach);
    tcase_add_test(tc, example_keyframes);
    tcase_add_test(tc, example_hold);
    suite_add_tcase(s, tc);

    tc = tcase_create("loading");
    tcase_add_test(tc, full_file);
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, formulation_overrides);
    tcase_add_test(tc, spline_by_knot_spacing);
    tcase_add_test(tc, ballistic_flight);
    tcase_add_test(tc, validation_settings);
    tcase_add_test(tc, filmstrip_view_setting);
    tcase_add_test(tc, impact_knots_and_errors);
    tcase_add_test(tc, guess_motion);
    tcase_add_test(tc, load_with_overrides);
    tcase_add_test(tc, doc_example);
    tcase_add_loop_test(tc, time_syntax, 0, NTIME);
    tcase_add_test(tc, phase_at_and_slices);
    tcase_add_test(tc, many_phases);
    tcase_add_loop_test(tc, load_out_of_memory, 0, 3);
    tcase_add_test(tc, load_keeps_its_overrides);
    tcase_add_test(tc, turn_root_converts_poses);
    tcase_add_test(tc, turn_root_refusals);
    tcase_add_test(tc, turn_root_fills_partial_poses);
    // the out-of-memory sweep loads a problem once per allocation: seconds under the
    // sanitizers, more on a busy machine (Check's default is 10 s)
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_loop_test(tc, bad_file, 0, NBAD);
    tcase_add_test(tc, character_error_passes_through);
    tcase_add_test(tc, missing_file);
    tcase_add_test(tc, contact_uses_plane);
    tcase_add_test(tc, turn_root_survives_allocation_failure);
    suite_add_tcase(s, tc);
    return s;
}
