// test_motion.c: motions as data: motion.json written by salto_motion_write_json and read
// back bit for bit, salto_motion_from_nlp against the file, sampling against the frames,
// every reader error with its place and message, allocation failure, and a little fuzzing
// (truncated files, one byte changed, random bytes) that must never crash
#define _XOPEN_SOURCE 700 // realpath
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "salto/bspline.h"
#include "salto/kinematics.h"
#include "salto/motion.h"
#include "salto/orient.h"
#include "salto/spatial.h"
#include "salto/nlp.h"
#include "salto/solver.h"
#include "test_suites.h"
#include "test_util.h"

// ---- fixtures ----

// the reach problem, its NLP and x = initial guess + uniform noise in [-0.1, 0.1]
typedef struct fixture {
    salto_problem_desc* p;
    salto_nlp* nlp;
    double* x;  // (nx)
    int nx;
    char dir[64];     // a fresh temporary folder
    char json[128];   // <dir>/motion.json
} fixture;


static void fixture_setup(fixture* fx, uint64_t seed) {
    salto_error err = {0};
    char msg[1024];
    fx->p = salto_problem_load(salto_test_path("problems/reach.yaml"), &err);
    salto_error_format(&err, msg, sizeof msg);
    ck_assert_msg(fx->p != NULL, "problems/reach.yaml: %s", msg);
    fx->nlp = salto_nlp_build(fx->p, &err);
    salto_error_format(&err, msg, sizeof msg);
    ck_assert_msg(fx->nlp != NULL, "reach NLP: %s", msg);
    fx->nx = salto_nlp_nx(fx->nlp);
    fx->x = malloc((size_t)fx->nx * sizeof(double));
    ck_assert_ptr_nonnull(fx->x);
    salto_nlp_initial_guess(fx->nlp, fx->x);
    salto_test_rng rng;
    salto_test_rng_seed(&rng, seed);
    for (int i = 0; i < fx->nx; i++) fx->x[i] += salto_test_uniform(&rng, -0.1, 0.1);

    snprintf(fx->dir, sizeof fx->dir, "/tmp/salto_motion_XXXXXX");
    ck_assert_msg(mkdtemp(fx->dir) != NULL, "mkdtemp failed");
    snprintf(fx->json, sizeof fx->json, "%s/motion.json", fx->dir);
}


static void fixture_teardown(fixture* fx) {
    remove(fx->json);
    rmdir(fx->dir);
    free(fx->x);
    salto_nlp_destroy(fx->nlp);
    salto_problem_destroy(fx->p);
}


static void write_json(const fixture* fx, const salto_solve_result* res) {
    salto_error err = {0};
    salto_status s = salto_test_write_json(fx->nlp, fx->x, res, fx->json, &err);
    char msg[1024];
    salto_error_format(&err, msg, sizeof msg);
    ck_assert_msg(s == SALTO_OK, "writing %s: %s", fx->json, msg);
}


static salto_motion* load_ok(const char* path) {
    salto_error err = {0};
    salto_motion* mo = salto_motion_load_json(path, &err);
    char msg[1024];
    salto_error_format(&err, msg, sizeof msg);
    ck_assert_msg(mo != NULL, "loading %s: %s", path, msg);
    ck_assert_int_eq(err.status, SALTO_OK);
    return mo;
}


// bit-for-bit equality of n doubles, reporting the first difference
static void assert_bits_eq(const double* a, const double* b, int n, const char* ctx) {
    for (int i = 0; i < n; i++) {
        ck_assert_msg(memcmp(&a[i], &b[i], sizeof(double)) == 0,
                      "%s: entry %d differs: %.17g vs %.17g", ctx, i, a[i], b[i]);
    }
}


// two motions hold the same values, bit for bit (converged excepted)
static void assert_same_motion(const salto_motion* a, const salto_motion* b) {
    ck_assert_int_eq(a->nv, b->nv);
    ck_assert_int_eq(a->nframe, b->nframe);
    ck_assert_int_eq(a->ncp, b->ncp);
    assert_bits_eq(&a->frame_rate, &b->frame_rate, 1, "frame_rate");
    assert_bits_eq(&a->duration, &b->duration, 1, "duration");
    for (int j = 0; j < a->nv; j++) ck_assert_str_eq(a->dof_name[j], b->dof_name[j]);
    assert_bits_eq(a->q, b->q, a->nframe * a->nv, "frames");
    assert_bits_eq(a->control, b->control, a->nv * a->ncp, "control points");
    ck_assert(!a->knot == !b->knot);
    if (a->knot) assert_bits_eq(a->knot, b->knot, a->ncp + 4, "knots");
    ck_assert_str_eq(a->problem, b->problem);
    ck_assert_str_eq(a->character, b->character);
}

// ---- round trip ----

// 0: a converged solve (with a worst constraint), 1: a failed one (objective not finite,
// written as null), 2: no solver block
enum { NROUND = 3 };


START_TEST(round_trip) {
    fixture fx;
    fixture_setup(&fx, 1000u + (uint64_t)_i);
    const salto_problem_desc* p = fx.p;
    const salto_model* m = p->model;

    salto_solve_result res = {0};
    res.converged = _i == 0;
    res.status = _i == 0 ? 0 : -1;
    snprintf(res.status_name, sizeof res.status_name, "%s",
             _i == 0 ? "Solve_Succeeded" : "Maximum_Iterations_Exceeded");
    res.iterations = 17;
    res.objective = _i == 0 ? 3.25 : NAN;
    res.elapsed = 0.125;
    res.max_violation = 1e-9;
    res.worst_row = _i == 0 && salto_nlp_ng(fx.nlp) > 0 ? 0 : -1;
    res.n_eval_f = 18;
    res.n_eval_g = 19;
    res.n_eval_jac = 20;
    write_json(&fx, _i < 2 ? &res : NULL);

    salto_motion* mo = load_ok(fx.json);
    ck_assert_int_eq(mo->converged, _i == 0 ? 1 : _i == 1 ? 0 : -1);
    ck_assert_int_eq(mo->nv, m->nv);
    for (int j = 0; j < m->nv; j++) ck_assert_str_eq(mo->dof_name[j], m->link_name[j]);
    // the files as absolute paths without "..", so that the motion finds them from any folder
    char want[PATH_MAX];
    ck_assert_ptr_nonnull(realpath(p->path, want));
    ck_assert_str_eq(mo->problem, want);
    ck_assert_ptr_nonnull(realpath(p->character, want));
    ck_assert_str_eq(mo->character, want);
    ck_assert(mo->character[0] == '/' && !strstr(mo->character, "/../"));
    ck_assert(strstr(p->character, "/../") != NULL); // (the loader's path has one)
    ck_assert(mo->duration == p->duration);
    ck_assert(mo->frame_rate == p->output.frame_rate);
    ck_assert_int_eq(mo->nframe, (int)floor(p->duration * p->output.frame_rate + 1e-9) + 1);
    ck_assert_int_eq(mo->nframe, 61); // 1 s at 60 frames per second, both ends

    // the control points are x, bit for bit (%.17g round-trips every double)
    ck_assert_int_eq(mo->ncp, p->ncp);
    ck_assert_int_eq(mo->nv * mo->ncp, fx.nx);
    assert_bits_eq(mo->control, fx.x, fx.nx, "control points");
    // and the knots are the spline's
    ck_assert_ptr_nonnull(mo->knot);
    for (int a = 0; a < p->ncp + 4; a++) {
        const double k = salto_bspline_knot(salto_nlp_spline(fx.nlp), a);
        assert_bits_eq(&mo->knot[a], &k, 1, "knot");
    }

    // the frames are the spline's q at t = min(k / rate, duration), bit for bit (values under
    // SALTO_MOTION_ZERO written as 0)
    double* q = malloc((size_t)m->nv * sizeof(double));
    ck_assert_ptr_nonnull(q);
    for (int k = 0; k < mo->nframe; k++) {
        const double t = fmin((double)k / mo->frame_rate, mo->duration);
        salto_nlp_state(fx.nlp, fx.x, t, q, NULL, NULL);
        for (int j = 0; j < m->nv; j++) {
            if (fabs(q[j]) < SALTO_MOTION_ZERO) q[j] = 0.0;
        }
        assert_bits_eq(mo->q + k * mo->nv, q, mo->nv, "frame");
    }

    // salto_motion_from_nlp samples exactly as the writer does
    salto_motion* mn = salto_motion_from_nlp(fx.nlp, fx.x);
    ck_assert_ptr_nonnull(mn);
    ck_assert_int_eq(mn->converged, -1);
    assert_same_motion(mn, mo);
    salto_motion_destroy(mn);

    // sampling: the frames at frame times, the mean of two frames halfway between them
    for (int k = 0; k < mo->nframe; k++) {
        const double t = fmin((double)k / mo->frame_rate, mo->duration);
        salto_motion_sample(mo, t, q);
        assert_bits_eq(q, mo->q + k * mo->nv, mo->nv, "sample at a frame time");
    }
    double* mean = malloc((size_t)m->nv * sizeof(double));
    ck_assert_ptr_nonnull(mean);
    for (int k = 0; k + 1 < mo->nframe; k++) {
        const double t0 = fmin((double)k / mo->frame_rate, mo->duration);
        const double t1 = fmin((double)(k + 1) / mo->frame_rate, mo->duration);
        for (int j = 0; j < mo->nv; j++) {
            mean[j] = 0.5 * (mo->q[k * mo->nv + j] + mo->q[(k + 1) * mo->nv + j]);
        }
        salto_motion_sample(mo, 0.5 * (t0 + t1), q);
        ck_assert_vec_close(q, mean, mo->nv, 1e-12, 1e-12, "sample halfway between frames");
    }
    free(mean);
    free(q);
    salto_motion_destroy(mo);
    fixture_teardown(&fx);
}
END_TEST


// a hand-written file with escaped strings, -0, 1e-05, 1e+300 and every optional block
START_TEST(valid_file) {
    salto_motion* mo = load_ok(salto_test_path("tests/data/motion/valid.json"));
    ck_assert_int_eq(mo->nv, 2);
    ck_assert_int_eq(mo->nframe, 4);
    ck_assert_int_eq(mo->ncp, 4);
    ck_assert_int_eq(mo->converged, 1);
    ck_assert(mo->frame_rate == 30.0);
    ck_assert(mo->duration == 0.1);
    ck_assert_str_eq(mo->dof_name[0], "root_x");
    ck_assert_str_eq(mo->dof_name[1], "sh\"oulder\\");
    ck_assert_str_eq(mo->problem, "problems/two \"quoted\" \\ dofs.yaml");
    ck_assert_str_eq(mo->character, "data/characters/tab\tname\xc3\xa9.yaml");
    ck_assert_int_eq(mo->nset, 2);
    ck_assert_str_eq(mo->set[0], "phases.swing.duration=0.1");
    ck_assert_str_eq(mo->set[1], "solver.ipopt.tol=1e-8 #\"x\"");
    ck_assert_int_eq(mo->nballistic, 1);
    ck_assert_str_eq(mo->ballistic[0], "swing");
    const double q[8] = {-0.0, 1e-05, 0.5, -0.25, 1, 1e-05, 2, -3};
    assert_bits_eq(mo->q, q, 8, "frames");
    ck_assert(signbit(mo->q[0]));
    const double control[8] = {0, -0.0, 1e-05, 2.5, 1.0000000000000001e+300, -1e-300, 0.1, -7};
    assert_bits_eq(mo->control, control, 8, "control points");
    ck_assert_ptr_null(mo->knot); // optional: not given

    // clamped outside [0, duration]; NaN is the start
    double s[2];
    salto_motion_sample(mo, -1.0, s);
    assert_bits_eq(s, mo->q, 2, "before the start");
    salto_motion_sample(mo, NAN, s);
    assert_bits_eq(s, mo->q, 2, "at NaN");
    salto_motion_sample(mo, 5.0, s);
    assert_bits_eq(s, mo->q + 6, 2, "after the end");
    salto_motion_sample(mo, INFINITY, s);
    assert_bits_eq(s, mo->q + 6, 2, "at infinity");
    // a quarter of the way from frame 1 to frame 2
    salto_motion_sample(mo, 1.25 / 30.0, s);
    const double want[2] = {0.625, -0.25 + 0.25 * (1e-05 + 0.25)};
    ck_assert_vec_close(s, want, 2, 1e-14, 1e-12, "a quarter past frame 1");
    salto_motion_destroy(mo);

    // the smallest motion: one frame, no spline, no solver, no paths
    mo = load_ok(salto_test_path("tests/data/motion/minimal.json"));
    ck_assert_int_eq(mo->nv, 1);
    ck_assert_int_eq(mo->nframe, 1);
    ck_assert_int_eq(mo->ncp, 0);
    ck_assert_ptr_null(mo->control);
    ck_assert_int_eq(mo->converged, -1);
    ck_assert_str_eq(mo->problem, "");
    ck_assert_str_eq(mo->character, "");
    ck_assert_str_eq(mo->dof_name[0], "q");
    for (int i = -1; i <= 1; i++) {
        salto_motion_sample(mo, i, s);
        ck_assert(s[0] == 3.0);
    }
    salto_motion_destroy(mo);
    salto_motion_destroy(NULL);
}
END_TEST

// ---- broken files: status, place and message ----

typedef salto_bad_case bad_case;

static const bad_case bad_cases[] = {
    {"syntax.json", SALTO_ERR_SYNTAX, 9, 32, "did not find expected ',' or ']'", NULL},
    {"empty.json", SALTO_ERR_INVALID, 1, 1,
     "expected a map for the document, found nothing (null)", NULL},
    {"list.json", SALTO_ERR_INVALID, 1, 1,
     "expected a map for the document, found a list of 1 item", NULL},
    {"duplicate_key.json", SALTO_ERR_INVALID, 16, 3, "duplicate key 'dofs' (first given on line 9)",
     NULL},
    {"format_missing.json", SALTO_ERR_INVALID, 1, 1,
     "missing required key 'format' in the document", NULL},
    {"format_version.json", SALTO_ERR_INVALID, 2, 13,
     "unsupported format 'salto motion 2' (expected 'salto motion 1')", NULL},
    {"root_chart_not_rotation.json", SALTO_ERR_INVALID, 12, 31, "'root_chart.reference' is not a rotation", NULL},
    {"root_chart_short.json", SALTO_ERR_INVALID, 12, 31,
     "'root_chart' needs 9 numbers in 'reference' and 3 in 'anchor'", NULL},
    {"root_chart_key.json", SALTO_ERR_INVALID, 12, 60, "unknown key 'anchors' in 'root_chart'", "did you mean 'anchor'?"},
    {"root_chart_no_root.json", SALTO_ERR_INVALID, 11, 17,
     "'root_chart' needs a free root's DOFs (root_r* as the 4th to 6th) and a spline", NULL},
    {"unknown_key.json", SALTO_ERR_INVALID, 16, 3, "unknown key 'framerate' in the document",
     "did you mean 'frame_rate'?"},
    {"unknown_solver_key.json", SALTO_ERR_INVALID, 22, 43, "unknown key 'convergd' in 'solver'",
     "did you mean 'converged'?"},
    {"evaluations_key.json", SALTO_ERR_INVALID, 22, 270,
     "unknown key 'hessian' in 'evaluations'", NULL},
    {"solver_not_map.json", SALTO_ERR_INVALID, 22, 13,
     "expected a map for 'solver', found a list of 1 item", NULL},
    {"solver_converged_missing.json", SALTO_ERR_INVALID, 22, 13,
     "missing required key 'converged' in 'solver'", NULL},
    {"solver_converged_string.json", SALTO_ERR_INVALID, 22, 56,
     "expected true or false for 'converged', found the string 'yes'", NULL},
    {"dofs_missing.json", SALTO_ERR_INVALID, 1, 1, "missing required key 'dofs' in the document",
     NULL},
    {"dofs_empty.json", SALTO_ERR_INVALID, 9, 11, "'dofs' must name at least one DOF", NULL},
    {"dof_null.json", SALTO_ERR_INVALID, 9, 22,
     "expected a string for item 2 of 'dofs', found nothing (null)", NULL},
    {"duration_string.json", SALTO_ERR_INVALID, 5, 15,
     "expected a number for 'duration', found the string '0.1'", NULL},
    {"duration_negative.json", SALTO_ERR_INVALID, 5, 15, "'duration' must not be negative", NULL},
    {"frame_rate_zero.json", SALTO_ERR_INVALID, 15, 17, "'frame_rate' must be positive, found 0",
     NULL},
    {"frames_empty.json", SALTO_ERR_INVALID, 16, 13, "'frames' must hold at least one frame",
     NULL},
    {"frame_not_list.json", SALTO_ERR_INVALID, 19, 5,
     "expected a list of 3 numbers (t and 2 DOF values) for item 3 of 'frames', "
     "found '0.066666666666666666'",
     NULL},
    {"frame_short.json", SALTO_ERR_INVALID, 19, 5,
     "expected a list of 3 numbers (t and 2 DOF values) for item 3 of 'frames', "
     "found a list of 2 items",
     NULL},
    {"frame_null.json", SALTO_ERR_INVALID, 18, 28,
     "expected a number for item 2 of item 2 of 'frames', found nothing (null)", NULL},
    {"frame_infinite.json", SALTO_ERR_INVALID, 18, 33,
     "expected a finite number for item 3 of item 2 of 'frames', found '-1e999'", NULL},
    {"frame_time.json", SALTO_ERR_INVALID, 19, 6,
     "frame 2 is at t = 0.06667 s, but at 30 frames per second over 0.1 s it must be at "
     "0.0666666667 s",
     NULL},
    {"frames_short.json", SALTO_ERR_INVALID, 19, 6,
     "frame 2 is at t = 0.1 s, but at 30 frames per second over 0.1 s it must be at "
     "0.0666666667 s",
     NULL},
    {"frames_extra.json", SALTO_ERR_INVALID, 16, 13,
     "'frames' holds 5 frames, but 0.1 s at 30 frames per second takes 4", NULL},
    {"control_alone.json", SALTO_ERR_INVALID, 10, 3,
     "'control' is given without 'control_points'", NULL},
    {"control_points_alone.json", SALTO_ERR_INVALID, 10, 3,
     "'control_points' is given without 'control'", NULL},
    {"control_points_zero.json", SALTO_ERR_INVALID, 10, 21,
     "'control_points' must be at least 1, found 0", NULL},
    {"control_rows.json", SALTO_ERR_INVALID, 11, 14,
     "expected a list of 2 lists (one per DOF) for 'control', found a list of 1 item", NULL},
    {"control_row_length.json", SALTO_ERR_INVALID, 12, 5,
     "expected a list of 4 numbers (the control points) for item 1 of 'control', "
     "found a list of 3 items",
     NULL},
    {"knot_string.json", SALTO_ERR_INVALID, 11, 25,
     "expected a number for item 5 of 'knots', found the string 'x'", NULL},
    {"control_points_real.json", SALTO_ERR_INVALID, 10, 21,
     "expected an integer for 'control_points', found '4.5'", NULL},
    {"evaluations_not_map.json", SALTO_ERR_INVALID, 22, 251,
     "expected a map for 'evaluations', found '13'", NULL},
    {"duration_missing.json", SALTO_ERR_INVALID, 1, 1,
     "missing required key 'duration' in the document", NULL},
    {"knots_alone.json", SALTO_ERR_INVALID, 10, 3,
     "'knots' is given without 'control_points'", NULL},
    {"knots_length.json", SALTO_ERR_INVALID, 11, 12,
     "expected a list of 8 numbers (the knots) for 'knots', found a list of 7 items", NULL},
    {"knots_decreasing.json", SALTO_ERR_INVALID, 11, 30,
     "knot 5 (0.05) is below the one before it (0.1): knots must not decrease", NULL},
    {"control_quoted.json", SALTO_ERR_INVALID, 12, 13,
     "expected a number for item 3 of item 1 of 'control', found the string '1e-05'", NULL},
    {"ballistic_not_list.json", SALTO_ERR_INVALID, 9, 16,
     "expected a list for 'ballistic', found the string 'swing'", NULL},
    {"ballistic_number.json", SALTO_ERR_INVALID, 9, 26,
     "expected a string for item 2 of 'ballistic', found a list of 1 item", NULL},
    {"refined_slices_string.json", SALTO_ERR_INVALID, 9, 28,
     "expected a number for item 2 of 'refined_slices', found the string 'soon'", NULL},
    {"set_not_list.json", SALTO_ERR_INVALID, 9, 10,
     "expected a list for 'set', found the string 'phases.swing.duration=0.2'", NULL},
    {"set_number.json", SALTO_ERR_INVALID, 9, 40,
     "expected a string for item 2 of 'set', found a list of 1 item", NULL},
    {"phase_duration_zero.json", SALTO_ERR_INVALID, 8, 47,
     "the duration of phase 1 must be positive, found 0", NULL},
};
enum { NBAD = (int)(sizeof bad_cases / sizeof bad_cases[0]) };


START_TEST(bad_file) {
    const bad_case* bc = &bad_cases[_i];
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/motion/bad/%s", bc->file);
    char path[4096];
    snprintf(path, sizeof path, "%s", salto_test_path(rel));

    salto_error err = {0};
    salto_motion* mo = salto_motion_load_json(path, &err);
    salto_test_check_bad(bc, path, mo != NULL, &err);
    // no error object: the same failure, no crash
    ck_assert_ptr_null(salto_motion_load_json(path, NULL));
}
END_TEST


START_TEST(missing_file) {
    salto_error err = {0};
    const char* path = salto_test_path("tests/data/motion/does_not_exist.json");
    ck_assert_ptr_null(salto_motion_load_json(path, &err));
    ck_assert_int_eq(err.status, SALTO_ERR_IO);
    ck_assert_msg(strstr(err.msg, "does_not_exist.json"), "%s", err.msg);
    ck_assert_ptr_null(salto_motion_load_json(path, NULL));
    err = (salto_error){0};
    ck_assert_ptr_null(salto_motion_load_json(NULL, &err));
    ck_assert_int_eq(err.status, SALTO_ERR_IO);
}
END_TEST

// writers that cannot write fail with SALTO_ERR_IO, leave no temporary file and do not need
// an error object: a folder that does not exist, and a path that is a folder (the rename fails)
START_TEST(writers_fail_cleanly) {
    fixture fx;
    fixture_setup(&fx, 7);
    salto_motion* mo = salto_motion_from_nlp(fx.nlp, fx.x);
    ck_assert_ptr_nonnull(mo);
    char missing[256], tmp[300];
    snprintf(missing, sizeof missing, "%s/no/such/folder/motion.json", fx.dir);
    for (int e = 0; e < 2; e++) {
        salto_error err = {0};
        salto_error* ep = e ? NULL : &err;
        ck_assert_int_eq(salto_motion_write_json(fx.nlp, mo, NULL, missing, ep), SALTO_ERR_IO);
        ck_assert_int_eq(salto_motion_write_csv(mo, missing, ep), SALTO_ERR_IO);
        ck_assert_int_eq(salto_motion_write_json(fx.nlp, mo, NULL, fx.dir, ep), SALTO_ERR_IO);
        ck_assert_int_eq(salto_motion_write_csv(mo, fx.dir, ep), SALTO_ERR_IO);
        ck_assert_int_eq(salto_motion_write_bvh(fx.p->model, mo, fx.dir, ep), SALTO_ERR_IO);
        // the first cause is kept: the temporary file in the missing folder
        if (!e) {
            ck_assert_msg(strstr(err.msg, "folder/motion.json.tmp") &&
                              strstr(err.msg, "No such file or directory"),
                          "%s", err.msg);
        }
        snprintf(tmp, sizeof tmp, "%s.tmp", fx.dir);
        ck_assert_msg(access(tmp, F_OK) != 0, "%s left behind", tmp);
    }
    ck_assert_int_eq(salto_motion_write_json(fx.nlp, mo, NULL, "", NULL), SALTO_ERR_IO);
    salto_motion_destroy(mo);
    fixture_teardown(&fx);
}
END_TEST


// motion.csv quotes a DOF name that holds a quote or a comma (RFC 4180)
START_TEST(csv_quotes_names) {
    salto_motion* mo = load_ok(salto_test_path("tests/data/motion/valid.json"));
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/salto_csv_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[128], line[256];
    snprintf(path, sizeof path, "%s/motion.csv", dir);
    salto_error err = {0};
    ck_assert_int_eq(salto_motion_write_csv(mo, path, &err), SALTO_OK);
    FILE* f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "t,root_x,\"sh\"\"oulder\\\"\n");
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "0,-0,1.0000000000000001e-05\n");
    fclose(f);
    remove(path);
    rmdir(dir);
    salto_motion_destroy(mo);
}
END_TEST


// the optional knots, read in order
START_TEST(valid_knots) {
    salto_motion* mo = load_ok(salto_test_path("tests/data/motion/valid_knots.json"));
    ck_assert_ptr_nonnull(mo->knot);
    const double knots[8] = {0, 0, 0, 0, 0.1, 0.1, 0.1, 0.1};
    assert_bits_eq(mo->knot, knots, 8, "knots");
    salto_motion_destroy(mo);
}
END_TEST

// ---- allocation failure ----

// make the n-th allocation fail, n = 1, 2, ... until loading succeeds: every failure is a
// clean SALTO_ERR_NOMEM and nothing leaks
static void* load_motion(const char* path, salto_error* err) {
    return salto_motion_load_json(path, err);
}
static void destroy_motion(void* mo) { salto_motion_destroy(mo); }


START_TEST(load_out_of_memory) {
    static const char* const files[] = {"tests/data/motion/valid.json",
                                        "tests/data/motion/minimal.json",
                                        "tests/data/motion/valid_knots.json"};
    char path[4096];
    snprintf(path, sizeof path, "%s", salto_test_path(files[_i]));
    // many failure points exercised
    ck_assert_int_gt(salto_test_nomem_sweep(path, load_motion, destroy_motion), 9);
}
END_TEST


// salto_motion_from_nlp with the n-th allocation failing, n = 1, 2, ... until it succeeds:
// nothing leaks; how many allocations the success took
static long from_nlp_sweep(const fixture* fx) {
    long n = 1;
    for (int succeeded = 0; n < 100000 && !succeeded; n++) {
        salto_test_counter cnt = {0, 0, n};
        salto_alloc_hooks h = {salto_test_counting_malloc, salto_test_counting_free, &cnt};
        salto_set_alloc_hooks(&h);
        salto_motion* mo = salto_motion_from_nlp(fx->nlp, fx->x);
        if (mo) {
            ck_assert_msg(cnt.calls < n, "allocation %ld failed, but sampling succeeded", n);
            succeeded = 1;
        }
        salto_motion_destroy(mo);
        salto_set_alloc_hooks(NULL);
        ck_assert_msg(cnt.live == 0, "allocation %ld: %ld blocks leaked", n, cnt.live);
    }
    ck_assert_int_lt(n, 100000);
    return n;
}


START_TEST(from_nlp_out_of_memory) {
    fixture fx;
    fixture_setup(&fx, 7);
    const long plain = from_nlp_sweep(&fx);
    ck_assert_int_gt(plain, 5);
    // with overrides to carry (motion's "set"): their copies fail too, two more allocations
    salto_nlp_destroy(fx.nlp);
    salto_problem_destroy(fx.p);
    salto_error err = {0};
    const char* set[] = {"output.frame_rate=50", "solver.ipopt.mu_init=1e-3"};
    fx.p = salto_problem_load_set(salto_test_path("problems/reach.yaml"), 2, set, &err);
    ck_assert_msg(fx.p != NULL, "%s", err.msg);
    fx.nlp = salto_nlp_build(fx.p, &err);
    ck_assert_ptr_nonnull(fx.nlp);
    ck_assert_int_eq(salto_nlp_nx(fx.nlp), fx.nx);
    const long with_set = from_nlp_sweep(&fx);
    ck_assert_int_ge(with_set, plain + 3); // the list and its two strings
    fixture_teardown(&fx);
}
END_TEST

// ---- fuzzing: never crash, every failure located ----

static char* read_all(const char* path, size_t* len) {
    FILE* f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    char* buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_int_eq((long)fread(buf, 1, (size_t)n, f), n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}


static void write_all(const char* path, const char* buf, size_t len) {
    FILE* f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq((long)fwrite(buf, 1, len, f), (long)len);
    ck_assert_int_eq(fclose(f), 0);
}


// buf := text (len bytes) with one byte, at a random place, changed to a random byte (half the
// time) or one of the npool characters of pool (the other half)
static void mutate_byte(salto_test_rng* rng, char* buf, const char* text, size_t len,
                        const char* pool, int npool) {
    memcpy(buf, text, len);
    size_t at = (size_t)salto_test_uniform(rng, 0, (double)len);
    if (at >= len) at = len - 1;
    const int r = (int)salto_test_uniform(rng, 0, 512);
    buf[at] = r < 256 ? (char)r : pool[r % npool];
}


// loads path: either a motion that is consistent with itself, or a located error
static int fuzz_one(const char* path, const char* what, long trial) {
    salto_error err = {0};
    salto_motion* mo = salto_motion_load_json(path, &err);
    if (mo) {
        ck_assert_int_ge(mo->nv, 1);
        ck_assert_int_ge(mo->nframe, 1);
        ck_assert(mo->frame_rate > 0 && mo->duration >= 0);
        ck_assert(mo->nframe == (int)floor(mo->duration * mo->frame_rate + 1e-9) + 1);
        double* q = malloc((size_t)mo->nv * sizeof(double));
        ck_assert_ptr_nonnull(q);
        salto_motion_sample(mo, 0.5 * mo->duration, q);
        free(q);
        salto_motion_destroy(mo);
        return 1;
    }
    ck_assert_msg(err.status == SALTO_ERR_SYNTAX || err.status == SALTO_ERR_INVALID,
                  "%s %ld: status %d: %s", what, trial, err.status, err.msg);
    ck_assert_msg(err.where.file && err.where.line >= 1 && err.where.col >= 1,
                  "%s %ld: error without a place: %s", what, trial, err.msg);
    return 0;
}


// ---- frames from CSV ----

static salto_model* oom_model;

static void* frames_load_bound(const char* path, salto_error* err) {
    salto_frames* f = salto_frames_load_csv(path, err);
    if (f && salto_frames_bind(f, oom_model, err) != SALTO_OK) {
        salto_frames_destroy(f);
        return NULL;
    }
    return f;
}

static void frames_release(void* f) { salto_frames_destroy(f); }

static const char* const gym_dofs[7] = {"root_x", "root_z", "root_ry", "shoulder", "hip", "knee", "ankle"};

// a temporary file holding text; its path in path (128)
static void write_temp(const char* text, char* path) {
    snprintf(path, 128, "/tmp/salto_frames_XXXXXX");
    const int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE* f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static salto_model* gymnast(void) {
    salto_error err = {0};
    salto_model* m = salto_model_load(salto_test_path("data/characters/gymnast7.yaml"), &err);
    ck_assert_ptr_nonnull(m);
    return m;
}

// DOF j's test cubic, or with a kink (the acceleration jumping by 8 j at tb when kink)
static double cubic(int j, double t, int der, int kink, double tb) {
    const double a = 0.1 * j, b = 0.5 - 0.2 * j, c = 1.5 * (j % 3) - 1.0, d = 0.7 * j - 2.0;
    double v = der == 0 ? a + b * t + c * t * t + d * t * t * t
             : der == 1 ? b + 2 * c * t + 3 * d * t * t
                        : 2 * c + 6 * d * t;
    if (kink && t > tb) {
        const double u = t - tb, jump = 8.0 * j; // + jump u^2 / 2: C1 at tb
        v += der == 0 ? 0.5 * jump * u * u : der == 1 ? jump * u : jump;
    }
    return v;
}

// a CSV of the gymnast's DOFs (columns shuffled, the time in the middle, one name quoted) at
// uneven times, every DOF a cubic (kinked at tb when kink); tb = 0.4 is row 12's time
static void write_cubic_csv(char* path, int kink, double tb) {
    static const int order[7] = {5, 0, 6, 2, 1, 4, 3};
    char text[16384];
    int at = snprintf(text, sizeof text, "# a cubic motion\n");
    for (int c = 0; c < 8; c++) {
        const char* name = c == 3 ? "t" : gym_dofs[order[c < 3 ? c : c - 1]];
        at += snprintf(text + at, sizeof text - (size_t)at, "%s%s%s%s", c ? ", " : "",
                       c == 5 ? "\"" : "", name, c == 5 ? "\"" : "");
    }
    at += snprintf(text + at, sizeof text - (size_t)at, "\n");
    for (int k = 0; k <= 30; k++) {
        const double u = k / 30.0, t = k <= 12 ? 0.4 * k / 12.0 : 0.4 + 0.5 * (k - 12) / 18.0 * (1.0 + 0.3 * u);
        for (int c = 0; c < 8; c++) {
            const double v = c == 3 ? t : cubic(order[c < 3 ? c : c - 1], t, 0, kink, tb);
            at += snprintf(text + at, sizeof text - (size_t)at, "%s%.17g", c ? "," : "", v);
        }
        at += snprintf(text + at, sizeof text - (size_t)at, "\n");
    }
    write_temp(text, path);
}


// a cubic motion at uneven times is reproduced exactly (not-a-knot ends), its derivatives
// too; a motion whose acceleration jumps at a phase boundary is exact when cut there, and
// smeared by one spline across
START_TEST(frames_cubic_exact) {
    salto_model* m = gymnast();
    for (int kink = 0; kink < 2; kink++) {
        char path[128];
        const double tb = 0.4;
        write_cubic_csv(path, kink, tb);
        salto_error err = {0};
        salto_frames* f = salto_frames_load_csv(path, &err);
        ck_assert_msg(f != NULL, "%s", err.msg);
        ck_assert_int_eq(f->nframe, 31);
        ck_assert_int_eq(salto_frames_bind(f, m, &err), SALTO_OK);
        if (kink) ck_assert_int_eq(salto_frames_fit(f, 1, &tb, &err), SALTO_OK);
        double q[7], qd[7], qdd[7];
        for (int s = 0; s < 50; s++) {
            const double t = 0.001 + 0.017 * s + (s == 23 ? 0.0 : 0.0003);
            salto_frames_state(f, t, q, qd, qdd, 7);
            for (int j = 0; j < 7; j++) {
                const double want[3] = {cubic(j, t, 0, kink, tb), cubic(j, t, 1, kink, tb), cubic(j, t, 2, kink, tb)};
                const double got[3] = {q[j], qd[j], qdd[j]};
                for (int d = 0; d < 3; d++) {
                    ck_assert_msg(fabs(got[d] - want[d]) <= 1e-9 * (1.0 + fabs(want[d])), "kink %d, t = %.4f, "
                                  "%s, derivative %d: %.12g, exact %.12g", kink, t, gym_dofs[j], d, got[d], want[d]);
                }
            }
        }
        if (kink) { // one spline across the kink misses it
            ck_assert_int_eq(salto_frames_fit(f, 0, NULL, &err), SALTO_OK);
            salto_frames_state(f, tb - 1e-6, q, qd, qdd, 7);
            ck_assert_double_gt(fabs(qdd[6] - cubic(6, tb - 1e-6, 2, 1, tb)), 1.0);
        }
        salto_frames_destroy(f);
        remove(path);
    }
    salto_model_destroy(m);
}
END_TEST


// Finite differences: the frames' splines' qd and qdd are their q's derivatives, at times off
// the rows, on frames of random values at uneven times (cut at a phase boundary too)
START_TEST(frames_derivatives) {
    salto_model* m = gymnast();
    salto_test_rng rng;
    const uint64_t seed = 5150;
    salto_test_rng_seed(&rng, seed);
    char text[16384], path[128];
    int at = snprintf(text, sizeof text, "t");
    for (int j = 0; j < 7; j++) at += snprintf(text + at, sizeof text - (size_t)at, ",%s", gym_dofs[j]);
    at += snprintf(text + at, sizeof text - (size_t)at, "\n");
    double t = 0.0;
    for (int k = 0; k < 25; k++) {
        at += snprintf(text + at, sizeof text - (size_t)at, "%.17g", t);
        for (int j = 0; j < 7; j++) at += snprintf(text + at, sizeof text - (size_t)at, ",%.17g", salto_test_uniform(&rng, -1.0, 1.0));
        at += snprintf(text + at, sizeof text - (size_t)at, "\n");
        t += salto_test_uniform(&rng, 0.02, 0.06);
    }
    write_temp(text, path);
    salto_error err = {0};
    salto_frames* f = salto_frames_load_csv(path, &err);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(salto_frames_bind(f, m, &err), SALTO_OK);
    for (int cut = 0; cut < 2; cut++) {
        const double br = f->t[12];
        ck_assert_int_eq(salto_frames_fit(f, cut, &br, &err), SALTO_OK);
        for (int k = 0; k < 40; k++) {
            double tt = salto_test_uniform(&rng, f->t[0], f->t[f->nframe - 1]);
            int near = 0;
            for (int r = 0; r < f->nframe; r++) near |= fabs(tt - f->t[r]) < 1e-4;
            if (near) continue;
            const double h = 1e-6;
            double q[2][7], qd[2][7], qd0[7], qdd0[7];
            salto_frames_state(f, tt, NULL, qd0, qdd0, 7);
            salto_frames_state(f, tt - h, q[0], qd[0], NULL, 7);
            salto_frames_state(f, tt + h, q[1], qd[1], NULL, 7);
            for (int j = 0; j < 7; j++) {
                const double dq = (q[1][j] - q[0][j]) / (2 * h), dqd = (qd[1][j] - qd[0][j]) / (2 * h);
                ck_assert_msg(fabs(dq - qd0[j]) <= 1e-6 * (1.0 + fabs(qd0[j])), "seed %llu, t = %.5f, %s: qd "
                              "%.10g, differences %.10g", (unsigned long long)seed, tt, gym_dofs[j], qd0[j], dq);
                ck_assert_msg(fabs(dqd - qdd0[j]) <= 1e-5 * (1.0 + fabs(qdd0[j])), "seed %llu, t = %.5f, %s: "
                              "qdd %.10g, differences %.10g", (unsigned long long)seed, tt, gym_dofs[j], qdd0[j], dqd);
            }
        }
    }
    salto_frames_destroy(f);
    remove(path);
    salto_model_destroy(m);
}
END_TEST


// bad input: frames that do not span a problem's phases, named by the file and the problem
START_TEST(frames_phase_coverage) {
    salto_error err = {0};
    salto_problem_desc* p = salto_problem_load(salto_test_path("tests/data/validate/flight2d.yaml"), &err);
    ck_assert_ptr_nonnull(p); // one flight of 0.6 s
    static const struct { double t0, t1; const char* msg; } cases[] = {
        {0.1, 0.6, "the motion starts at t = 0.1 s, but the phases of"},
        {0.0, 0.9, "the motion runs to t = 0.9 s, but the phases of"},
        {0.0, 0.4, "the motion ends at t = 0.4 s, but the phases of"},
        {0.0, 0.59, NULL}, // one frame interval (0.05 s) short: allowed
    };
    for (int c = 0; c < 4; c++) {
        char text[4096], path[128];
        int at = snprintf(text, sizeof text, "t,root_x,root_z,root_ry,shoulder,hip,knee,ankle\n");
        const int n = 11;
        for (int k = 0; k < n; k++) {
            const double t = cases[c].t0 + (cases[c].t1 - cases[c].t0) * k / (n - 1);
            at += snprintf(text + at, sizeof text - (size_t)at, "%.17g,0,1,0,0,0,0,0\n", t);
        }
        write_temp(text, path);
        err = (salto_error){0};
        salto_frames* f = salto_frames_load_csv(path, &err);
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(salto_frames_bind(f, p->model, &err), SALTO_OK);
        const salto_status s = salto_frames_fit_problem(f, p, &err);
        if (cases[c].msg) {
            ck_assert_int_eq(s, SALTO_ERR_INVALID);
            ck_assert_msg(strstr(err.msg, cases[c].msg) != NULL, "case %d: %s", c, err.msg);
            ck_assert_str_eq(err.where.file, path);
        } else {
            ck_assert_msg(s == SALTO_OK, "case %d: %s", c, err.msg);
        }
        salto_frames_destroy(f);
        remove(path);
    }
    salto_problem_destroy(p);
}
END_TEST


// salto's own motion.csv reads back: the frames, names and times it wrote
START_TEST(frames_read_motion_csv) {
    fixture fx;
    fixture_setup(&fx, 11);
    salto_motion* mo = salto_motion_from_nlp(fx.nlp, fx.x);
    ck_assert_ptr_nonnull(mo);
    char path[160];
    snprintf(path, sizeof path, "%s/motion.csv", fx.dir);
    salto_error err = {0};
    ck_assert_int_eq(salto_motion_write_csv(mo, path, &err), SALTO_OK);
    salto_frames* f = salto_frames_load_csv(path, &err);
    ck_assert_msg(f != NULL, "%s", err.msg);
    ck_assert_int_eq(f->nframe, mo->nframe);
    ck_assert_int_eq(f->nv, mo->nv);
    ck_assert_int_eq(salto_frames_bind(f, fx.p->model, &err), SALTO_OK);
    for (int k = 0; k < mo->nframe; k++) {
        ck_assert_double_eq_tol(f->t[k], salto_motion_frame_time(mo, k), 1e-9);
        double q[64];
        ck_assert_int_le(mo->nv, 64);
        salto_frames_state(f, f->t[k], q, NULL, NULL, mo->nv);
        for (int j = 0; j < mo->nv; j++) {
            ck_assert_double_eq_tol(q[j], mo->q[(size_t)k * mo->nv + j], 1e-12 * (1.0 + fabs(q[j])));
        }
    }
    salto_frames_destroy(f);
    salto_motion_destroy(mo);
    remove(path);
    fixture_teardown(&fx);
}
END_TEST


typedef struct csv_case {
    const char* name;
    const char* text;
    int line, col;
    const char* msg;
    const char* note;
} csv_case;

static const csv_case csv_cases[] = {
    {"empty", "", 1, 1, "the file is empty", NULL},
    {"comments only", "# nothing\n\n", 1, 1, "the file is empty", NULL},
    {"no time column", "a,b\n1,2\n", 1, 1, "the header names no time column", NULL},
    {"duplicate column", "t,hip,knee,hip\n", 1, 12, "column 'hip' appears twice in the header", NULL},
    {"empty name", "t,,knee\n", 1, 3, "column 2 of the header has no name", NULL},
    {"short row", "t,hip,knee\n0,1,2\n0.1,1\n", 3, 5, "2 cells on this line, but the header (line 1) has 3 columns", NULL},
    {"long row", "t,hip,knee\n0,1,2,3\n", 2, 7, "4 cells on this line, but the header (line 1) has 3 columns", NULL},
    {"not a number", "t,hip,knee\n0,1,2\n0.1, 1x ,2\n", 3, 6, "'1x' in column 'hip' is not a finite number", NULL},
    {"not finite", "t,hip\n0,nan\n", 2, 3, "'nan' in column 'hip' is not a finite number", NULL},
    {"empty cell", "t,hip\n0,\n", 2, 3, "'' in column 'hip' is not a finite number", NULL},
    {"time not increasing", "t,hip\n0,1\n0.1,1\n0.1,1\n", 4, 1, "time 0.1 does not come after the previous row's 0.1", NULL},
    {"too few rows", "t,hip\n0,1\n0.1,1\n0.2,1\n", 4, 1, "3 rows of frames; at least 4 are needed", NULL},
    {"open quote", "t,\"hip\n", 1, 3, "a quoted cell is not closed", NULL},
};
enum { NCSV = (int)(sizeof csv_cases / sizeof csv_cases[0]) };

START_TEST(frames_bad_csv) {
    const csv_case* c = &csv_cases[_i];
    char path[128];
    write_temp(c->text, path);
    salto_error err = {0};
    salto_frames* f = salto_frames_load_csv(path, &err);
    const salto_bad_case bc = {c->name, SALTO_ERR_INVALID, c->line, c->col, c->msg, c->note};
    salto_test_check_bad(&bc, path, f != NULL, &err);
    ck_assert_ptr_null(salto_frames_load_csv(path, NULL));
    remove(path);
}
END_TEST


// the columns must be the character's DOFs: an unknown column points at its header cell with a
// did-you-mean; a missing DOF is named
START_TEST(frames_bad_columns) {
    salto_model* m = gymnast();
    static const char* const texts[2] = {
        "t,root_x,root_z,root_ry,shoulder,hipp,knee,ankle\n0,0,0,0,0,0,0,0\n1,0,0,0,0,0,0,0\n2,0,0,0,0,0,0,0\n3,0,0,0,0,0,0,0\n",
        "t,root_x,root_z,root_ry,shoulder,hip,ankle\n0,0,0,0,0,0,0\n1,0,0,0,0,0,0\n2,0,0,0,0,0,0\n3,0,0,0,0,0,0\n"};
    const salto_bad_case bc[2] = {
        {"unknown column", SALTO_ERR_INVALID, 1, 34, "column 'hipp' is not a DOF of the character 'gymnast7'", "did you mean 'hip'?"},
        {"missing column", SALTO_ERR_INVALID, 1, 1, "the header has no column for DOF 'knee' of the character 'gymnast7'", NULL}};
    for (int k = 0; k < 2; k++) {
        char path[128];
        write_temp(texts[k], path);
        salto_error err = {0};
        salto_frames* f = salto_frames_load_csv(path, &err);
        ck_assert_ptr_nonnull(f);
        salto_test_check_bad(&bc[k], path, salto_frames_bind(f, m, &err) == SALTO_OK, &err);
        salto_frames_destroy(f);
        remove(path);
    }
    // a phase with too few rows when cut
    char path[128];
    write_temp(texts[0], path);
    salto_error err = {0};
    salto_frames* f = salto_frames_load_csv(path, &err);
    const double br = 1.5;
    ck_assert_int_eq(salto_frames_fit(f, 1, &br, &err), SALTO_ERR_INVALID);
    ck_assert_msg(strstr(err.msg, "rows of frames span the phase from 0 to 1.5 s") != NULL, "%s", err.msg);
    salto_frames_destroy(f);
    remove(path);
    salto_model_destroy(m);
}
END_TEST


START_TEST(frames_out_of_memory) {
    char path[128];
    write_cubic_csv(path, 0, 0.4);
    oom_model = gymnast();
    ck_assert_int_gt(salto_test_nomem_sweep(path, frames_load_bound, frames_release), 5);
    salto_model_destroy(oom_model);
    oom_model = NULL;
    remove(path);
}
END_TEST


// ---- frames from BVH ----

// a problem's initial guess plus noise as a motion, written as motion.bvh into a new
// temporary folder dir (64 bytes), its path into bvh (160)
static salto_motion* bvh_motion(const char* rel, salto_problem_desc** pp, salto_nlp** np, char* bvh,
                                char* dir) {
    snprintf(dir, 64, "/tmp/salto_bvh_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    salto_error err = {0};
    *pp = salto_problem_load(salto_test_path(rel), &err);
    ck_assert_msg(*pp != NULL, "%s: %s", rel, err.msg);
    *np = salto_nlp_build(*pp, &err);
    ck_assert_ptr_nonnull(*np);
    const int nx = salto_nlp_nx(*np);
    double* x = malloc((size_t)nx * sizeof(double));
    ck_assert_ptr_nonnull(x);
    salto_nlp_initial_guess(*np, x);
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 99);
    for (int i = 0; i < nx; i++) x[i] += salto_test_uniform(&rng, -0.3, 0.3);
    salto_motion* mo = salto_motion_from_nlp(*np, x);
    free(x);
    ck_assert_ptr_nonnull(mo);
    snprintf(bvh, 160, "%s/motion.bvh", dir);
    ck_assert_int_eq(salto_motion_write_bvh((*pp)->model, mo, bvh, &err), SALTO_OK);
    return mo;
}


// the overrides a problem was loaded with are written to motion.json ("set") and read back,
// in order, and all but the initial guess's are the ones to apply again; a motion without them
// reads none
START_TEST(overrides_round_trip) {
    fixture fx;
    fixture_setup(&fx, 77u);
    write_json(&fx, NULL);
    salto_motion* mo = load_ok(fx.json);
    ck_assert_int_eq(mo->nset, 0);
    salto_motion_destroy(mo);
    salto_nlp_destroy(fx.nlp);
    salto_problem_destroy(fx.p);
    salto_error err = {0};
    const char* set[] = {"output.frame_rate=50", "initial_guess.rotation=null",
                         "solver.ipopt.mu_init=1e-3", "phases.reach.duration=1.5"};
    fx.p = salto_problem_load_set(salto_test_path("problems/reach.yaml"), 4, set, &err);
    ck_assert_msg(fx.p != NULL, "%s", err.msg);
    fx.nlp = salto_nlp_build(fx.p, &err);
    ck_assert_ptr_nonnull(fx.nlp);
    ck_assert_int_eq(salto_nlp_nx(fx.nlp), fx.nx); // fx.x fits the rebuilt NLP
    // the motion sampled from the NLP carries them, and so does the file
    salto_motion* mn = salto_motion_from_nlp(fx.nlp, fx.x);
    ck_assert_ptr_nonnull(mn);
    write_json(&fx, NULL);
    mo = load_ok(fx.json);
    for (const salto_motion* m2 = mn; m2; m2 = m2 == mn ? mo : NULL) {
        ck_assert_int_eq(m2->nset, 4);
        for (int k = 0; k < 4; k++) ck_assert_str_eq(m2->set[k], set[k]);
    }
    ck_assert(mo->duration == 1.5);
    ck_assert(mo->frame_rate == 50.0);
    // the ones that make the problem: all but the initial guess's, in order
    const char* keep[4] = {NULL, NULL, NULL, NULL};
    ck_assert_int_eq(salto_motion_problem_overrides(mo, keep), 3);
    ck_assert_str_eq(keep[0], set[0]);
    ck_assert_str_eq(keep[1], set[2]);
    ck_assert_str_eq(keep[2], set[3]);
    salto_motion_destroy(mn);
    salto_motion_destroy(mo);
    fixture_teardown(&fx);
}
END_TEST


// mo written as bvh read back onto m: the largest difference of a DOF from mo's, over every
// frame (the frames' times checked too); the file and its folder removed
static double bvh_read_back(const salto_model* m, const salto_motion* mo, const char* bvh,
                            const char* dir, const char* what) {
    salto_error err = {0};
    salto_frames* f = salto_frames_load_bvh(bvh, m, &err);
    ck_assert_msg(f != NULL, "%s: %s", what, err.msg);
    ck_assert_int_eq(f->nframe, mo->nframe);
    ck_assert_int_eq(salto_frames_bind(f, m, &err), SALTO_OK);
    double worst = 0.0;
    for (int k = 0; k < mo->nframe; k++) {
        ck_assert_double_eq_tol(f->t[k], salto_motion_frame_time(mo, k), 1e-6);
        for (int j = 0; j < mo->nv; j++) {
            worst = fmax(worst, fabs(f->q[(size_t)k * f->nv + j] - mo->q[(size_t)k * mo->nv + j]));
        }
    }
    salto_frames_destroy(f);
    remove(bvh);
    rmdir(dir);
    return worst;
}


// An arm half a turn from zero (the humanoid's right shoulder flexed to its -pi limit and
// abducted, as the leaps' motion.bvh had it in their first frame): just short of -pi
// (leap_pegs') the fit from zero stopped 3.08 rad off, where the rotation's logarithm is
// singular, and refused the file; at -pi exactly (the leap's) the half turn read as no turn
// and the fit stopped at zero, 3.14 rad off, unseen. Restarted at quarter turns, with the
// half turn's logarithm from its symmetric part, both find the DOFs the BVH was written from
// (the turn's representative inside the joint's limits)
START_TEST(frames_bvh_far_arm) {
    const double flex[2] = {-3.1415926504006451, -3.1415926535897931};
    const double abd[2] = {0.38852482390682053, 0.252591};
    char dir[64], bvh[160];
    salto_problem_desc* p;
    salto_nlp* nlp;
    salto_motion* mo = bvh_motion("problems/reach3d.yaml", &p, &nlp, bvh, dir);
    const int j = salto_model_dof(p->model, "shoulder_r_flex");
    const int ja = salto_model_dof(p->model, "shoulder_r_abd");
    ck_assert(j >= 0 && ja >= 0);
    for (int k = 0; k < mo->nframe; k++) {
        mo->q[(size_t)k * mo->nv + j] = flex[_i];
        mo->q[(size_t)k * mo->nv + ja] = abd[_i];
    }
    salto_error err = {0};
    ck_assert_int_eq(salto_motion_write_bvh(p->model, mo, bvh, &err), SALTO_OK);
    const double worst = bvh_read_back(p->model, mo, bvh, dir, "far arm");
    ck_assert_msg(worst < 1e-6, "shoulder flexed to %.17g: DOFs from the BVH off by %.3g", flex[_i], worst);
    salto_motion_destroy(mo);
    salto_nlp_destroy(nlp);
    salto_problem_destroy(p);
}
END_TEST


// motion.bvh read back onto its character gives the DOFs it was written from (the Euler
// channels solved back into the character's own axes), planar and 3-D
START_TEST(frames_bvh_round_trip) {
    const char* rels[2] = {"problems/reach.yaml", "problems/reach3d.yaml"};
    for (int r = 0; r < 2; r++) {
        char dir[64], bvh[160];
        salto_problem_desc* p;
        salto_nlp* nlp;
        salto_motion* mo = bvh_motion(rels[r], &p, &nlp, bvh, dir);
        const double worst = bvh_read_back(p->model, mo, bvh, dir, rels[r]);
        ck_assert_msg(worst < 1e-6, "%s: DOFs from the BVH off by %.3g", rels[r], worst);
        salto_motion_destroy(mo);
        salto_nlp_destroy(nlp);
        salto_problem_destroy(p);
    }
}
END_TEST


// bad BVH input, each made from a good file by one edit: the place and the message
typedef struct bvh_case {
    const char* name;
    const char* from;    // text replaced (its first occurrence)
    const char* to;
    int line, col;       // 0: not checked (a frame's line depends on the file)
    const char* msg;
} bvh_case;

static const bvh_case bvh_cases[] = {
    {"not a body", "JOINT shanks", "JOINT shins", 19, 11, "joint 'shins' is not a body of the character 'gymnast7'"},
    {"unknown channel", "CHANNELS 3 Zrotation Xrotation Yrotation", "CHANNELS 3 Zrotation Xrotation Wrotation", 9, 36, "unknown channel 'Wrotation'"},
    {"offset", "OFFSET 0.00000000 -0.42220000 0.00000000", "OFFSET 0.00000000 -0.40220000 0.00000000", 19, 11, "joint 'shanks' sits 0.02 m from where the character 'gymnast7' has it"},
    {"syntax", "OFFSET 0.00000000 0.51550000", "OFFSET 0.00000000 zero", 8, 23, "expected a number (OFFSET), found 'zero'"},
    {"missing frames", "Frames: ", "Frames: 1", 0, 0, "the file ends in frame 62 of the 161 that 'Frames:' announces"},
    {"extra values", "Frames: 6", "Frames: 5", 0, 0, "more values than the 51 frames of 18 channels that 'Frames:' announces"},
    {"too few frames", "Frames: ", "Frames: 3 ", 0, 0, "3 frames; at least 4 are needed"},
    {"bent", "MOTION", "MOTION", 0, 0, "from any pose the character 'gymnast7' can take"},
};
enum { NBVH = (int)(sizeof bvh_cases / sizeof bvh_cases[0]) };

START_TEST(frames_bad_bvh) {
    const bvh_case* c = &bvh_cases[_i];
    char dir[64], bvh[160];
    salto_problem_desc* p;
    salto_nlp* nlp;
    salto_motion* mo = bvh_motion("problems/reach.yaml", &p, &nlp, bvh, dir);
    FILE* in = fopen(bvh, "r");
    ck_assert_ptr_nonnull(in);
    static char text[1 << 20], out[1 << 20];
    const size_t n = fread(text, 1, sizeof text - 1, in);
    text[n] = '\0';
    fclose(in);
    const char* at = strstr(text, c->from);
    ck_assert_msg(at != NULL, "%s: '%s' not in the file", c->name, c->from);
    if (strcmp(c->name, "bent") == 0) { // a knee bent sideways in the first frame
        const char* motion = strstr(text, "Frame Time:");
        const char* row = strchr(motion, '\n') + 1;
        // the first row's channels: trunk 6, arms 3, thighs 3, shanks 3 (Zrot Xrot Yrot): the
        // shank's Zrotation, the 13th, turns it about salto's x, which no DOF of the planar
        // gymnast can
        const char* q = row;
        for (int k = 0; k < 12; k++) q = strchr(q, ' ') + 1;
        const char* qe = strchr(q, ' ');
        snprintf(out, sizeof out, "%.*s40.0%s", (int)(q - text), text, qe);
    } else {
        snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, c->to, at + strlen(c->from));
    }
    FILE* o = fopen(bvh, "w");
    ck_assert_ptr_nonnull(o);
    fputs(out, o);
    fclose(o);
    salto_error err = {0};
    salto_frames* f = salto_frames_load_bvh(bvh, p->model, &err);
    ck_assert_msg(f == NULL, "%s: loaded", c->name);
    ck_assert_msg(strstr(err.msg, c->msg) != NULL, "%s: '%s' not in: %s", c->name, c->msg, err.msg);
    if (c->line) {
        ck_assert_msg(err.where.line == c->line && err.where.col == c->col, "%s: at %d:%d, expected %d:%d: %s",
                      c->name, err.where.line, err.where.col, c->line, c->col, err.msg);
    }
    ck_assert_ptr_nonnull(err.where.file);
    salto_motion_destroy(mo);
    salto_nlp_destroy(nlp);
    salto_problem_destroy(p);
    remove(bvh);
    rmdir(dir);
}
END_TEST


// the CSV and BVH readers never crash on damaged input: motion.csv and motion.bvh truncated
// anywhere and with one byte changed either load (and then bind and fit, or fail with a
// located error) or fail with a located error; random bytes too
static int fuzz_frames(const char* path, int bvh, const salto_model* m, const char* what, long trial) {
    salto_error err = {0};
    salto_frames* f = bvh ? salto_frames_load_bvh(path, m, &err) : salto_frames_load_csv(path, &err);
    if (f) {
        ck_assert_int_ge(f->nframe, 4);
        for (int k = 1; k < f->nframe; k++) ck_assert(f->t[k] > f->t[k - 1]);
        if (salto_frames_bind(f, m, &err) == SALTO_OK) {
            double q[64], qd[64], qdd[64];
            ck_assert_int_le(m->nv, 64);
            salto_frames_state(f, 0.5 * (f->t[0] + f->t[f->nframe - 1]), q, qd, qdd, m->nv);
        } else {
            ck_assert_msg(err.msg[0] != '\0', "%s %ld: binding failed without a message", what, trial);
        }
        salto_frames_destroy(f);
        return 1;
    }
    ck_assert_msg(err.status != SALTO_OK && err.msg[0] != '\0', "%s %ld: no error", what, trial);
    ck_assert_msg(err.status == SALTO_ERR_IO || err.where.line > 0, "%s %ld: error without a place: %s",
                  what, trial, err.msg);
    return 0;
}

START_TEST(frames_fuzz) {
    for (int bvh = 0; bvh < 2; bvh++) {
        char dir[64], path[160], fz[160];
        snprintf(dir, sizeof dir, "/tmp/salto_ffuzz_XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(dir));
        salto_problem_desc* p;
        salto_nlp* nlp;
        salto_motion* mo = bvh_motion("problems/reach.yaml", &p, &nlp, path, dir);
        salto_error err = {0};
        if (!bvh) {
            remove(path);
            snprintf(path, sizeof path, "%s/motion.csv", dir);
            ck_assert_int_eq(salto_motion_write_csv(mo, path, &err), SALTO_OK);
        }
        snprintf(fz, sizeof fz, "%s/fuzz", dir);
        size_t len;
        char* text = read_all(path, &len);
        char* buf = malloc(len + 1);
        ck_assert_ptr_nonnull(buf);
        salto_test_rng rng;
        salto_test_rng_seed(&rng, 777u + (uint64_t)bvh);
        for (size_t n = 0; n < len; n += 1 + n / 40) {
            write_all(fz, text, n);
            fuzz_frames(fz, bvh, p->model, "truncated at", (long)n);
        }
        static const char pool[] = ",.-+e0123456789 \n\t\"{}:#XYZabc\x01\xff";
        for (long trial = 0; trial < 600; trial++) {
            mutate_byte(&rng, buf, text, len, pool, sizeof pool - 1);
            write_all(fz, buf, len);
            fuzz_frames(fz, bvh, p->model, "byte changed, trial", trial);
        }
        for (long trial = 0; trial < 100; trial++) {
            const size_t n = (size_t)salto_test_uniform(&rng, 0, 1500);
            for (size_t i = 0; i < n && i < len; i++) {
                const int r = (int)salto_test_uniform(&rng, 0, 256);
                buf[i] = trial % 2 ? (char)r : pool[r % (int)(sizeof pool - 1)];
            }
            write_all(fz, buf, n < len ? n : len);
            fuzz_frames(fz, bvh, p->model, "random bytes, trial", trial);
        }
        remove(fz);
        remove(path);
        rmdir(dir);
        free(buf);
        free(text);
        salto_motion_destroy(mo);
        salto_nlp_destroy(nlp);
        salto_problem_destroy(p);
    }
}
END_TEST


START_TEST(fuzz) {
    fixture fx;
    fixture_setup(&fx, 99);
    salto_solve_result res = {0};
    res.converged = 1;
    snprintf(res.status_name, sizeof res.status_name, "Solve_Succeeded");
    res.worst_row = -1;
    write_json(&fx, &res);
    size_t len;
    char* text = read_all(fx.json, &len);
    char* buf = malloc(len + 1);
    ck_assert_ptr_nonnull(buf);
    char path[160];
    snprintf(path, sizeof path, "%s/fuzz.json", fx.dir);
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 4242);

    // truncated anywhere before the final "}\n": nothing loads
    ck_assert(len > 2 && text[len - 2] == '}' && text[len - 1] == '\n');
    int nloaded = 0;
    for (size_t n = 0; n + 1 < len; n += n + 8 < len ? 1 + n % 7 : 1) { // every byte at the end
        write_all(path, text, n);
        nloaded += fuzz_one(path, "truncated at", (long)n);
    }
    ck_assert_int_eq(nloaded, 0);

    // one byte changed, to a JSON-ish character or to any byte
    static const char pool[] = "{}[],:\"\\ -+.e0123456789nultrfa\n\t\x01\x7f\xc3\xff";
    enum { NCHANGE = 1500 };
    for (long trial = 0; trial < NCHANGE; trial++) {
        mutate_byte(&rng, buf, text, len, pool, sizeof pool - 1);
        write_all(path, buf, len);
        nloaded += fuzz_one(path, "byte changed, trial", trial);
    }
    // a changed digit or space still loads; most other changes do not
    ck_assert_msg(nloaded > 0 && nloaded < NCHANGE, "%d of %d changed files loaded", nloaded,
                  (int)NCHANGE);

    // random bytes, and random text made of JSON's characters
    for (long trial = 0; trial < 400; trial++) {
        const size_t n = (size_t)salto_test_uniform(&rng, 0, 2000);
        for (size_t i = 0; i < n && i < len; i++) {
            const int r = (int)salto_test_uniform(&rng, 0, 256);
            buf[i] = trial % 2 ? (char)r : pool[r % (int)(sizeof pool - 1)];
        }
        write_all(path, buf, n < len ? n : len);
        fuzz_one(path, "random bytes, trial", trial);
    }

    remove(path);
    free(buf);
    free(text);
    fixture_teardown(&fx);
}
END_TEST


// a state of rounding noise about zero: -3.7e-242, 5.6e-32, -1e-13 (under SALTO_MOTION_ZERO)
// and values that are not noise (1e-11, -0.25)
static void noisy_state(void* ctx, double t, double* q, double* qd, double* qdd) {
    const int nv = *(const int*)ctx;
    static const double v[] = {-3.7e-242, 5.6e-32, -1e-13, 1e-11, -0.25};
    for (int j = 0; j < nv; j++) q[j] = v[j % 5] * (1.0 + t);
    if (qd) memset(qd, 0, (size_t)nv * sizeof(double));
    if (qdd) memset(qdd, 0, (size_t)nv * sizeof(double));
}


// frames hold rounding noise about zero as 0 (motion.csv, .json and .bvh then write 0, not
// -3.7e-242), and every other value as it is; the control points as they are
START_TEST(frames_zero_noise) {
    fixture fx;
    fixture_setup(&fx, 77u);
    const int nv = fx.p->model->nv;
    salto_motion* mo = salto_motion_from_state(fx.p, noisy_state, (void*)&nv,
                                               salto_nlp_spline(fx.nlp), fx.x);
    ck_assert_ptr_nonnull(mo);
    for (int k = 0; k < mo->nframe; k++) {
        const double t = salto_motion_frame_time(mo, k);
        for (int j = 0; j < nv; j++) {
            const double v = mo->q[k * nv + j];
            switch (j % 5) {
            case 0:
            case 1:
            case 2: ck_assert_msg(v == 0.0 && !signbit(v), "frame %d DOF %d: %g, not 0", k, j, v); break;
            case 3: ck_assert_double_eq(v, 1e-11 * (1.0 + t)); break;
            default: ck_assert_double_eq(v, -0.25 * (1.0 + t)); break;
            }
        }
    }
    for (int a = 0; a < nv * fx.p->ncp; a++) ck_assert_double_eq(mo->control[a], fx.x[a]);
    ck_assert_int_eq(salto_motion_write_csv(mo, fx.json, NULL), SALTO_OK);
    FILE* f = fopen(fx.json, "r");
    ck_assert_ptr_nonnull(f);
    char line[4096];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); // the header
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); // t = 0
    fclose(f);
    ck_assert_msg(strncmp(line, "0,0,0,0,", 8) == 0, "the first frame written as %s", line);
    salto_motion_destroy(mo);
    fixture_teardown(&fx);
}
END_TEST


// salto's own motion.csv read back on its problem is its motion: every DOF the spline gives is
// that spline (the least-squares fit on the problem's knots passes through the frames), and
// the root translation the problem derives (the paper's dismount: the hands' effective root on
// the bar, the feet's on the ground) is derived again from them. At random times inside each
// phase q, qd, qdd agree with salto_nlp_state's (the derived translation's derivatives are
// differences: 1e-4 of its acceleration's scale); a noisy start, not a solution, so that
// nothing is special about the motion.
START_TEST(frames_csv_is_the_motion) {
    salto_error err = {0};
    char msg[1024];
    salto_problem_desc* p = salto_problem_load(salto_test_path("data/paper/highbar_dismount_held.yaml"), &err);
    salto_error_format(&err, msg, sizeof msg);
    ck_assert_msg(p != NULL, "%s", msg);
    salto_nlp* nlp = salto_nlp_build(p, &err);
    ck_assert_ptr_nonnull(nlp);
    const int nx = salto_nlp_nx(nlp), nv = p->model->nv;
    double* x = malloc((size_t)nx * sizeof(double));
    ck_assert_ptr_nonnull(x);
    salto_nlp_initial_guess(nlp, x);
    const uint64_t seed = 20261126u + (uint64_t)_i;
    salto_test_rng rng;
    salto_test_rng_seed(&rng, seed);
    for (int i = 0; i < nv * p->ncp; i++) x[i] += salto_test_uniform(&rng, -0.05, 0.05);
    char dir[64], csv[128];
    snprintf(dir, sizeof dir, "/tmp/salto_frames_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(csv, sizeof csv, "%s/motion.csv", dir);
    salto_motion* mo = salto_motion_from_nlp(nlp, x);
    ck_assert_ptr_nonnull(mo);
    ck_assert_int_eq(salto_motion_write_csv(mo, csv, &err), SALTO_OK);
    salto_frames* f = salto_frames_load_csv(csv, &err);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(salto_frames_bind(f, p->model, &err), SALTO_OK);
    ck_assert_int_eq(salto_frames_fit_problem(f, p, &err), SALTO_OK);
    // the joints exact in every phase; the root's translation exact or derived in each
    ck_assert_ptr_nonnull(f->exact);
    ck_assert_ptr_nonnull(f->derive);
    for (int ph = 0; ph < p->nphase; ph++) {
        for (int j = 0; j < nv; j++) {
            int is_t = 0;
            for (int k = 0; k < f->nt; k++) is_t |= f->tdof[k] == j;
            ck_assert_msg(f->exact[ph * nv + j] || (is_t && f->derive[ph]),
                          "seed %llu: phase %d DOF %d neither exact nor derived",
                          (unsigned long long)seed, ph, j);
        }
    }
    double *q0 = malloc(6 * (size_t)nv * sizeof(double));
    ck_assert_ptr_nonnull(q0);
    double *qd0 = q0 + nv, *qdd0 = q0 + 2 * nv, *q1 = q0 + 3 * nv, *qd1 = q0 + 4 * nv, *qdd1 = q0 + 5 * nv;
    for (int ph = 0; ph < p->nphase; ph++) {
        const double a = p->phases[ph].start, d = p->phases[ph].duration;
        for (int k = 0; k < 8; k++) {
            const double t = a + d * salto_test_uniform(&rng, 0.01, 0.99);
            salto_nlp_state(nlp, x, t, q0, qd0, qdd0);
            salto_frames_state(f, t, q1, qd1, qdd1, nv);
            for (int j = 0; j < nv; j++) {
                ck_assert_msg(fabs(q1[j] - q0[j]) <= 1e-8 * (1.0 + fabs(q0[j])) &&
                                  fabs(qd1[j] - qd0[j]) <= 1e-6 * (1.0 + fabs(qd0[j])) &&
                                  fabs(qdd1[j] - qdd0[j]) <= 1e-4 * (1.0 + fabs(qdd0[j])),
                              "seed %llu: phase %d t = %.4f DOF %d: q %.12g/%.12g qd %.9g/%.9g "
                              "qdd %.7g/%.7g (CSV/NLP)", (unsigned long long)seed, ph, t, j,
                              q1[j], q0[j], qd1[j], qd0[j], qdd1[j], qdd0[j]);
            }
        }
    }
    salto_frames_destroy(f);
    // one frame of one joint moved by 1e-4 rad in the middle of the swing: that joint is not on
    // the spline there and keeps the interpolation (its frames, as they are); the other
    // joints and phases stay exact, and the root there is no longer derived from an exact set
    f = salto_frames_load_csv(csv, &err);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(salto_frames_bind(f, p->model, &err), SALTO_OK);
    const int jbad = nv - 1; // the last joint
    int rbad = -1;
    for (int r = 0; r < f->nframe && rbad < 0; r++) {
        if (f->t[r] > p->phases[0].start + 0.5 * p->phases[0].duration) rbad = r;
    }
    ck_assert_int_ge(rbad, 0);
    f->q[(size_t)rbad * nv + f->map[jbad]] += 1e-4;
    ck_assert_int_eq(salto_frames_fit_problem(f, p, &err), SALTO_OK);
    ck_assert_msg(!f->exact[jbad], "seed %llu: a moved frame still read as the spline",
                  (unsigned long long)seed);
    ck_assert(!f->derive[0]);
    for (int j = f->nt; j < nv - 1; j++) ck_assert(f->exact[j]);
    for (int j = 0; j < nv; j++) ck_assert(f->exact[nv + j] || f->derive[1]);
    double qv;
    salto_frames_state(f, f->t[rbad], q1, NULL, NULL, nv);
    qv = q1[jbad];
    ck_assert_double_eq(qv, f->q[(size_t)rbad * nv + f->map[jbad]]); // interpolated: through the frame
    free(q0);
    salto_frames_destroy(f);
    salto_motion_destroy(mo);
    remove(csv);
    rmdir(dir);
    free(x);
    salto_nlp_destroy(nlp);
    salto_problem_destroy(p);
}
END_TEST

// ---- a motion in a turned root chart (motion.json's root_chart) ----

// a hand-written turned motion: its frames, written in the character's chart, are read into the
// turned one (the same orientation, B E(turned) = E(character)); salto_motion_character_q gives
// them back, from the anchor
START_TEST(root_chart_read) {
    salto_motion* mo = load_ok(salto_test_path("tests/data/motion/root_chart_ok.json"));
    ck_assert_int_eq(mo->root_turned, 1);
    const double B[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
    assert_bits_eq(mo->root_ref, B, 9, "reference");
    const int o[3] = {1, 0, 2};
    const double qc[3] = {0.1, 0.2, 0.3};
    double Ec[9], Et[9], R[9];
    salto_euler_matrix(o, qc, Ec);
    for (int k = 0; k < mo->nframe; k++) {
        salto_euler_matrix(o, mo->q + k * mo->nv + 3, Et);
        salto_m3_mul(R, B, Et);
        ck_assert_vec_close(R, Ec, 9, 1e-14, 0, "the same orientation");
        ck_assert_double_eq(mo->q[k * mo->nv + 2], 1.0);
    }
    double* cq = salto_motion_character_q(mo);
    ck_assert_ptr_nonnull(cq);
    for (int k = 0; k < mo->nframe; k++) ck_assert_vec_close(cq + k * mo->nv + 3, qc, 3, 1e-14, 0, "back");
    salto_free(cq);
    salto_motion_destroy(mo);
}
END_TEST


static void zero_path(void* ctx, double t, double q[3], double qd[3]) {
    (void)ctx, (void)t;
    q[0] = q[1] = q[2] = 0.0;
    qd[0] = qd[1] = qd[2] = 0.0;
}


// a solve's motion in a turned chart: motion.json keeps the chart and the control points bit
// for bit, and its frames are the character's; read back, the frames are the NLP's state in the
// turned chart again (to rounding); the character's frames (salto_motion_character_q, as
// motion.json and motion.csv hold them) give the same orientations and stay continuous through
// a full turn (away from that chart's singular set)
START_TEST(root_chart_round_trip) {
    salto_error err = {0};
    salto_problem_desc* p = salto_problem_load(salto_test_path("tests/data/nlp/all3d.yaml"), &err);
    ck_assert_ptr_nonnull(p);
    int o[3];
    ck_assert(salto_root_order(p->model, o));
    const double ax[3] = {0.6, 0.0, 0.8};
    double B[9];
    salto_m3_axis_angle(B, ax, 1.3);
    const double anchor[3] = {0, 0, 0};
    ck_assert_int_eq(salto_problem_turn_root(p, B, anchor, zero_path, NULL, &err), SALTO_OK);
    salto_nlp* nlp = salto_nlp_build(p, &err);
    ck_assert_ptr_nonnull(nlp);
    const int nx = salto_nlp_nx(nlp), nv = p->model->nv, ncp = p->ncp;
    double* x = malloc(sizeof(double) * (size_t)nx);
    ck_assert_ptr_nonnull(x);
    salto_nlp_initial_guess(nlp, x);
    // the first angle a full turn and more, the others a swing
    for (int a = 0; a < ncp; a++) {
        x[3 * ncp + a] = 7.0 * a / (ncp - 1);
        x[4 * ncp + a] = 0.6 * sin(2.0 * a);
        x[5 * ncp + a] = -1.0 + 0.3 * a;
    }
    char dir[64], json[128], csv[128];
    snprintf(dir, sizeof dir, "/tmp/salto_turned_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(json, sizeof json, "%s/motion.json", dir);
    snprintf(csv, sizeof csv, "%s/motion.csv", dir);
    ck_assert_int_eq(salto_test_write_json(nlp, x, NULL, json, &err), SALTO_OK);
    salto_motion* mo = load_ok(json);
    ck_assert_int_eq(mo->root_turned, 1);
    assert_bits_eq(mo->root_ref, B, 9, "reference");
    assert_bits_eq(mo->root_anchor, anchor, 3, "anchor");
    assert_bits_eq(mo->control, x, nv * ncp, "control points");
    double* q = malloc(sizeof(double) * (size_t)nv);
    double* cq = salto_motion_character_q(mo);
    ck_assert_ptr_nonnull(q);
    ck_assert_ptr_nonnull(cq);
    for (int k = 0; k < mo->nframe; k++) {
        salto_nlp_state(nlp, x, salto_motion_frame_time(mo, k), q, NULL, NULL);
        for (int j = 0; j < nv; j++) {
            if (fabs(q[j]) < SALTO_MOTION_ZERO) q[j] = 0.0;
        }
        ck_assert_vec_close(mo->q + k * nv, q, 3, 0, 0, "translations");
        ck_assert_vec_close(mo->q + k * nv + 3, q + 3, 3, 1e-9, 0, "turned angles");
        ck_assert_vec_close(mo->q + k * nv + 6, q + 6, nv - 6, 0, 0, "joints");
        double Et[9], Ec[9], R[9];
        salto_euler_matrix(o, q + 3, Et);
        salto_m3_mul(R, B, Et);
        salto_euler_matrix(o, cq + k * nv + 3, Ec);
        ck_assert_vec_close(Ec, R, 9, 1e-12, 0, "the character's angles, the same orientation");
        // continuous (no 2 pi jumps) where the character's chart is regular: near its singular
        // set its first and last angles swing fast, as any Euler chart's must
        if (k > 0 && fabs(cq[k * nv + 4]) < 1.0 && fabs(cq[(k - 1) * nv + 4]) < 1.0) {
            for (int a = 3; a < 6; a++) {
                ck_assert_msg(fabs(cq[k * nv + a] - cq[(k - 1) * nv + a]) < 1.0, "frame %d: angle %d jumps from %g to %g", k, a,
                              cq[(k - 1) * nv + a], cq[k * nv + a]);
            }
        }
    }
    // motion.csv: the character's angles
    ck_assert_int_eq(salto_motion_write_csv(mo, csv, &err), SALTO_OK);
    salto_frames* f = salto_frames_load_csv(csv, &err);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->nframe, mo->nframe);
    for (int k = 0; k < mo->nframe; k++) {
        for (int c = 0; c < f->nv; c++) {
            ck_assert_double_eq_tol(f->q[k * f->nv + c], cq[k * nv + c], 1e-15 + 1e-15 * fabs(cq[k * nv + c]));
        }
    }
    salto_frames_destroy(f);
    salto_free(cq);
    free(q);
    salto_motion_destroy(mo);
    remove(json);
    remove(csv);
    rmdir(dir);
    free(x);
    salto_nlp_destroy(nlp);
    salto_problem_destroy(p);
}
END_TEST

// a turned motion's file (root_chart) changed a byte at a time: it loads or fails at a place,
// and a loaded one's character frames come out (salto_motion_character_q) finite where its
// frames are
START_TEST(root_chart_fuzz) {
    size_t len;
    char* text = read_all(salto_test_path("tests/data/motion/root_chart_ok.json"), &len);
    char* buf = malloc(len + 1);
    ck_assert_ptr_nonnull(buf);
    char dir[64], path[128];
    snprintf(dir, sizeof dir, "/tmp/salto_rcfuzz_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/m.json", dir);
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 4343);
    static const char pool[] = "{}[],:\"\\ -+.e0123456789nultrfa\n";
    int nloaded = 0;
    for (long trial = 0; trial < 600; trial++) {
        mutate_byte(&rng, buf, text, len, pool, sizeof pool - 1);
        write_all(path, buf, len);
        salto_error err = {0};
        salto_motion* mo = salto_motion_load_json(path, &err);
        if (!mo) {
            ck_assert_msg(err.status == SALTO_ERR_SYNTAX || err.status == SALTO_ERR_INVALID,
                          "trial %ld: status %d: %s", trial, err.status, err.msg);
            ck_assert_msg(err.where.line >= 1 && err.where.col >= 1, "trial %ld: no place: %s", trial, err.msg);
            continue;
        }
        nloaded++;
        double* cq = salto_motion_character_q(mo);
        ck_assert_ptr_nonnull(cq);
        for (int k = 0; k < mo->nframe * mo->nv; k++) {
            if (isfinite(mo->q[k])) ck_assert_msg(isfinite(cq[k]), "trial %ld: entry %d", trial, k);
        }
        salto_free(cq);
        salto_motion_destroy(mo);
    }
    ck_assert_msg(nloaded > 0 && nloaded < 600, "%d of 600 loaded", nloaded);
    remove(path);
    rmdir(dir);
    free(buf);
    free(text);
}
END_TEST


// ---- retargeting (salto_frames_retarget_bvh) ----

// a smooth motion of the humanoid: each DOF about the middle of its range, a quarter of it
// (0.3 rad or m where it has none), the root 1 m up; nf frames at rate into q
static void retarget_motion(const salto_model* m, int nf, double rate, double* q) {
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 4040u);
    double c[64], a[64], w[64], ph[64];
    for (int j = 0; j < m->nv; j++) {
        if (m->link_has_limits[j]) {
            c[j] = 0.5 * (m->link_limits[2 * j] + m->link_limits[2 * j + 1]);
            a[j] = 0.25 * (m->link_limits[2 * j + 1] - m->link_limits[2 * j]);
        } else {
            c[j] = 0.0, a[j] = 0.3;
        }
        w[j] = salto_test_uniform(&rng, 1.0, 4.0), ph[j] = salto_test_uniform(&rng, 0.0, 6.28);
    }
    c[salto_model_dof(m, "root_z")] = 0.1;
    for (int k = 0; k < nf; k++) {
        for (int j = 0; j < m->nv; j++) q[(size_t)k * m->nv + j] = c[j] + a[j] * sin(w[j] * k / rate + ph[j]);
    }
}


// BVH axes from salto's: v_bvh = (v_y, v_z, v_x), R_bvh(i, j) = R(s(i), s(j)), s = (1, 2, 0)
static void to_bvh(const double* R, double* Rb) {
    static const int sm[3] = {1, 2, 0};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) Rb[3 * i + j] = R[3 * sm[i] + sm[j]];
    }
}


// body b's joint and its subtree into the capture's hierarchy (the trunk's arms under a chest
// joint), the order of the joints into seq
static void capture_joint(FILE* f, const salto_model* m, int b, int pa, int depth, double (*p0)[3],
                          double (*Cb)[9], int tpose, int chest_parent, const double* chest,
                          int* seq, int* nseq) {
    const int ind = 2 * depth;
    double off[3] = {0, 0, 0};
    const int arm = pa == chest_parent && strstr(m->body_name[b], "arm") != NULL;
    if (pa >= 0) { // (the root's OFFSET zero, its place all in its channels, as captures have it)
        for (int k = 0; k < 3; k++) off[k] = p0[b][k] - p0[pa][k];
        if (arm) off[2] -= chest[2];
        if (tpose && strstr(m->body_name[pa], "upperarm")) { // a T-posed arm's forearm: out
            double t[3];
            salto_m3_mul_v3(t, Cb[pa], off);
            memcpy(off, t, sizeof off);
        }
    }
    fprintf(f, "%*s%s mx_%s\n%*s{\n%*sOFFSET %.10f %.10f %.10f\n%*sCHANNELS %s\n", ind, "",
            pa < 0 ? "ROOT" : "JOINT", m->body_name[b], ind, "", ind + 2, "", 100 * off[1],
            100 * off[2], 100 * off[0], ind + 2, "",
            pa < 0 ? "6 Xposition Yposition Zposition Zrotation Xrotation Yrotation" : "3 Zrotation Xrotation Yrotation");
    seq[(*nseq)++] = b;
    int chest_done = 0;
    for (int c = b + 1; c < m->nbody; c++) {
        if (m->body_parent[c] != b) continue;
        if (b == chest_parent && strstr(m->body_name[c], "arm")) {
            if (chest_done) continue;
            chest_done = 1;
            fprintf(f, "%*sJOINT mx_chest\n%*s{\n%*sOFFSET 0 %.10f 0\n%*sCHANNELS 3 Zrotation Xrotation Yrotation\n",
                    ind + 2, "", ind + 2, "", ind + 4, "", 100 * chest[2], ind + 4, "");
            seq[(*nseq)++] = -2;
            for (int c2 = b + 1; c2 < m->nbody; c2++) {
                if (m->body_parent[c2] == b && strstr(m->body_name[c2], "arm")) {
                    capture_joint(f, m, c2, b, depth + 2, p0, Cb, tpose, chest_parent, chest, seq, nseq);
                }
            }
            fprintf(f, "%*s}\n", ind + 2, "");
            continue;
        }
        capture_joint(f, m, c, b, depth + 1, p0, Cb, tpose, chest_parent, chest, seq, nseq);
    }
    if (m->body_parent[b] >= 0) {
        int leaf = 1;
        for (int c = b + 1; c < m->nbody; c++) leaf &= m->body_parent[c] != b;
        if (leaf) fprintf(f, "%*sEnd Site\n%*s{\n%*sOFFSET 0 -5 0\n%*s}\n", ind + 2, "", ind + 2, "", ind + 4, "", ind + 2, "");
    }
    fprintf(f, "%*s}\n", ind, "");
}


// A capture of the motion on another skeleton: joints named "mx_" + the body, lengths in
// centimetres, every rotation as Z X Y channels, an extra joint ("mx_chest", its channels
// zero) between the trunk and the arms, and (tpose) a rest pose with the arms out sideways:
// each arm's frames turned by C' so that its bones point as the character's do (C: the turn
// from the character's arm at rest, down, to the capture's, out)
static void write_capture(const salto_model* m, const double* q, int nf, double rate, int tpose,
                          double noise, const char* path) {
    salto_test_rng nrng;
    salto_test_rng_seed(&nrng, 777u);
    salto_data* d = salto_data_create(m);
    const int nb = m->nbody;
    double p0[64][3], Cb[64][9];
    memset(d->q, 0, sizeof(double) * (size_t)m->nv);
    salto_fk(m, d, SALTO_FK_POS);
    for (int b = 0; b < nb; b++) {
        const double *R, *p;
        salto_body_frame(m, d, b, &R, &p);
        memcpy(p0[b], p, sizeof p0[b]);
        const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(Cb[b], I, sizeof I);
        const char* nm = m->body_name[b];
        if (tpose && (strstr(nm, "arm_l") || strstr(nm, "arm_r"))) {
            const double ex[3] = {1, 0, 0};
            salto_m3_axis_angle(Cb[b], ex, strstr(nm, "_l") ? 1.5707963267948966 : -1.5707963267948966);
        }
    }
    const int chest_parent = salto_model_body(m, "trunk");
    const double chest[3] = {0.0, 0.0, 0.35}; // the chest joint: 0.35 m up the trunk
    FILE* f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("HIERARCHY\n", f);
    int seq[80], nseq = 0; // the joints in the file's order: bodies, -2 the chest
    capture_joint(f, m, 0, -1, 0, p0, Cb, tpose, chest_parent, chest, seq, &nseq);
    fprintf(f, "MOTION\nFrames: %d\nFrame Time: %.10f\n", nf, 1.0 / rate);
    for (int k = 0; k < nf; k++) {
        memcpy(d->q, q + (size_t)k * m->nv, sizeof(double) * (size_t)m->nv);
        salto_fk(m, d, SALTO_FK_POS);
        double G[64][9];
        for (int b = 0; b < nb; b++) {
            const double *R, *p;
            salto_body_frame(m, d, b, &R, &p);
            salto_m3_mul_t(G[b], R, Cb[b]); // the capture's joint: the body's frame turned by C'
        }
        for (int i = 0; i < nseq; i++) {
            const int b = seq[i];
            if (b == -2) { // the chest: no turn
                fprintf(f, "0 0 0 ");
                continue;
            }
            const int pa = m->body_parent[b];
            double L[9], Lb[9];
            if (pa < 0) {
                memcpy(L, G[b], sizeof L);
                const double *R, *p;
                salto_body_frame(m, d, b, &R, &p);
                fprintf(f, "%.10f %.10f %.10f ", 100 * p[1], 100 * p[2], 100 * p[0]);
            } else {
                salto_m3t_mul(L, G[pa], G[b]);
            }
            to_bvh(L, Lb);
            // Z X Y: R = Rz(a) Rx(b) Ry(c)
            const double bx = asin(fmax(-1.0, fmin(1.0, Lb[7])));
            const double cy = atan2(-Lb[6], Lb[8]);
            const double az = atan2(-Lb[1], Lb[4]);
            const double r2d = 57.295779513082320876798;
            fprintf(f, "%.10f %.10f %.10f ", az * r2d + salto_test_uniform(&nrng, -noise, noise),
                    bx * r2d + salto_test_uniform(&nrng, -noise, noise), cy * r2d + salto_test_uniform(&nrng, -noise, noise));
        }
        fputs("\n", f);
    }
    fclose(f);
    salto_data_destroy(d);
}


// Retargeting: the humanoid's motion written by salto as motion.bvh comes back on the same
// character with the bodies' own names (1e-6: the file's 8 decimals); a capture of another
// skeleton (other names, centimetres, Z X Y channels, an extra chest joint, and a T-pose rest)
// comes back through a map to 1e-6, the scale found (0.01); a map naming a joint the capture
// lacks, the root unmapped, two bodies on one joint: errors
START_TEST(retarget_bvh) {
    salto_model* m = salto_test_model_file("data/characters/humanoid22.yaml");
    const int nv = m->nv, nf = 40;
    const double rate = 60.0;
    double* q = malloc(sizeof(double) * (size_t)nf * nv);
    retarget_motion(m, nf, rate, q);
    char dir[64], path[160];
    snprintf(dir, sizeof dir, "/tmp/salto_rt_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/c.bvh", dir);
    const char* names[64];
    char mapped[64][64];
    salto_error err = {0};
    for (int pass = 0; pass < 3; pass++) {
        if (pass == 0) { // salto's own
            salto_motion mo = {0};
            mo.nv = nv, mo.nframe = nf, mo.frame_rate = rate, mo.duration = (nf - 1) / rate;
            mo.dof_name = m->link_name, mo.q = q, mo.converged = -1;
            ck_assert_int_eq(salto_motion_write_bvh(m, &mo, path, &err), SALTO_OK);
        } else {
            write_capture(m, q, nf, rate, pass == 2, 0.0, path);
        }
        for (int b = 0; b < m->nbody; b++) {
            snprintf(mapped[b], sizeof mapped[b], "%s%s", pass ? "mx_" : "", m->body_name[b]);
            names[b] = mapped[b];
        }
        salto_retarget_info info;
        salto_frames* f = salto_frames_retarget_bvh(path, m, names, NULL, 0.0, &info, &err);
        ck_assert_msg(f != NULL, "pass %d: %s", pass, err.msg);
        ck_assert_int_eq(f->nframe, nf);
        ck_assert_msg(fabs(info.scale - (pass ? 0.01 : 1.0)) < 1e-8 * info.scale, "pass %d: scale %.12g", pass, info.scale);
        double worst = 0.0;
        int wj = 0, wk = 0;
        for (int k = 0; k < nf; k++) {
            ck_assert(fabs(f->t[k] - k / rate) < 1e-6); // (the frame time in 9 decimals)
            for (int j = 0; j < nv; j++) {
                const double e = fabs(f->q[(size_t)k * nv + j] - q[(size_t)k * nv + j]);
                if (e > worst) worst = e, wj = j, wk = k;
            }
        }
        ck_assert_msg(worst < 1e-6, "pass %d: %s off by %g in frame %d (fit %g at '%s')", pass, m->link_name[wj],
                      worst, wk, info.worst, info.worst_body >= 0 ? m->body_name[info.worst_body] : "");
        salto_frames_destroy(f);
    }
    // a capture with noise (2 degrees on every rotation channel): a least-squares fit that
    // stays on its branch (each angle within 0.3 rad of the last frame's, the limited ones
    // within 0.1 rad of their limits) and near the motion (0.2 rad)
    write_capture(m, q, nf, rate, 1, 2.0, path);
    {
        salto_retarget_info info;
        salto_frames* f = salto_frames_retarget_bvh(path, m, names, NULL, 0.0, &info, &err);
        ck_assert_msg(f != NULL, "noise: %s", err.msg);
        for (int k = 0; k < nf; k++) {
            for (int j = 0; j < nv; j++) {
                const double v = f->q[(size_t)k * nv + j];
                if (k > 0) ck_assert_msg(fabs(v - f->q[(size_t)(k - 1) * nv + j]) < 0.3, "noise: %s hops %g at frame %d",
                                         m->link_name[j], v - f->q[(size_t)(k - 1) * nv + j], k);
                if (m->link_has_limits[j]) {
                    ck_assert_msg(v > m->link_limits[2 * j] - 0.1 && v < m->link_limits[2 * j + 1] + 0.1,
                                  "noise: %s at %g in frame %d", m->link_name[j], v, k);
                }
                double e = v - q[(size_t)k * nv + j];
                if (m->link_type[j] == SALTO_AXIS_REVOLUTE) e = remainder(e, 6.283185307179586);
                ck_assert_msg(fabs(e) < 0.2, "noise: %s off by %g in frame %d", m->link_name[j], e, k);
            }
        }
        salto_frames_destroy(f);
    }
    // errors
    names[salto_model_body(m, "shank_l")] = "mx_shank_L";
    ck_assert_ptr_null(salto_frames_retarget_bvh(path, m, names, NULL, 0.0, NULL, &err));
    ck_assert_msg(strstr(err.msg, "body 'shank_l': the BVH") && strstr(err.msg, "has no joint 'mx_shank_L'") &&
                  strstr(err.note, "did you mean 'mx_shank_l'"), "%s / %s", err.msg, err.note);
    names[salto_model_body(m, "shank_l")] = "mx_thigh_l";
    memset(&err, 0, sizeof err);
    ck_assert_ptr_null(salto_frames_retarget_bvh(path, m, names, NULL, 0.0, NULL, &err));
    ck_assert_msg(strstr(err.msg, "both follow the BVH joint 'mx_thigh_l'"), "%s", err.msg);
    names[salto_model_body(m, "shank_l")] = "mx_shank_l";
    names[salto_model_body(m, "trunk")] = NULL;
    memset(&err, 0, sizeof err);
    ck_assert_ptr_null(salto_frames_retarget_bvh(path, m, names, NULL, 0.0, NULL, &err));
    ck_assert_msg(strstr(err.msg, "the root body 'trunk' needs a BVH joint"), "%s", err.msg);
    remove(path);
    rmdir(dir);
    free(q);
    salto_model_destroy(m);
}
END_TEST


Suite* motion_suite(void) {
    Suite* s = suite_create("motion");
    TCase* tc = tcase_create("round trip");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, round_trip, 0, NROUND);
    tcase_add_test(tc, valid_file);
    tcase_add_test(tc, valid_knots);
    tcase_add_test(tc, csv_quotes_names);
    tcase_add_test(tc, writers_fail_cleanly);
    tcase_add_test(tc, root_chart_read);
    tcase_add_test(tc, root_chart_round_trip);
    tcase_add_test(tc, root_chart_fuzz);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, bad_file, 0, NBAD);
    tcase_add_test(tc, missing_file);
    tcase_add_loop_test(tc, load_out_of_memory, 0, 3);
    tcase_add_test(tc, from_nlp_out_of_memory);
    tcase_add_test(tc, fuzz);
    tcase_add_test(tc, frames_cubic_exact);
    tcase_add_test(tc, frames_zero_noise);
    tcase_add_loop_test(tc, frames_csv_is_the_motion, 0, 3);
    tcase_add_test(tc, frames_derivatives);
    tcase_add_test(tc, frames_phase_coverage);
    tcase_add_test(tc, frames_read_motion_csv);
    tcase_add_loop_test(tc, frames_bad_csv, 0, NCSV);
    tcase_add_test(tc, frames_bad_columns);
    tcase_add_test(tc, frames_out_of_memory);
    tcase_add_test(tc, frames_bvh_round_trip);
    tcase_add_test(tc, retarget_bvh);
    tcase_add_loop_test(tc, frames_bvh_far_arm, 0, 2);
    tcase_add_test(tc, overrides_round_trip);
    tcase_add_loop_test(tc, frames_bad_bvh, 0, NBVH);
    tcase_add_test(tc, frames_fuzz);
    suite_add_tcase(s, tc);
    return s;
}
