// test_batch.c: sweep files into jobs (grid, zip, ranges), their located errors and checks,
// warm-start neighbours, job results read back, summaries, and the measures of a motion
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "salto/batch.h"
#include "salto/config.h"
#include "salto/kinematics.h"
#include "salto/problem.h"
#include "salto/sweep.h"
#include "test_suites.h"
#include "test_util.h"

static char tmpdir[64];


static void setup(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/salto-test-batch-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}


static void teardown(void) {
    static const char* const names[] = {"sweep.yaml", "result.json", "summary.csv",
                                        "summary.json", "summary.png"};
    char path[160];
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[k]);
        unlink(path);
    }
    rmdir(tmpdir);
}


// writes text (with "ROOT" replaced by the repository root) as tmpdir/sweep.yaml; its path
static const char* write_sweep(const char* text) {
    static char path[160];
    snprintf(path, sizeof path, "%s/sweep.yaml", tmpdir);
    FILE* f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    for (const char* s = text; *s; s++) {
        if (strncmp(s, "ROOT", 4) == 0) {
            fputs(salto_test_root(), f);
            s += 3;
        } else {
            fputc(*s, f);
        }
    }
    fclose(f);
    return path;
}


static salto_sweep* load_ok(const char* text) {
    salto_error err = {0};
    salto_sweep* s = salto_sweep_load(write_sweep(text), &err);
    ck_assert_msg(s != NULL, "sweep did not load: %s", err.msg);
    return s;
}


static const char* const dismount_3x3 =
    "problem: ROOT/problems/highbar_dismount.yaml\n"
    "parameters:\n"
    "  phases.flight.duration: {from: 0.6, to: 0.8, count: 3}\n"
    "  phases.landing.contact.friction: [1.0, 0.7, 0.4]\n";


// ---- jobs ----

// a grid: every combination, the first parameter slowest, values as written or ranged
// a parameter as summary.png's title names it: the phase or the constraint's name kept, a
// list index on its list
START_TEST(param_labels) {
    char b[64];
    ck_assert_str_eq(salto_batch_param_label("phases.landing.contact.friction", b, sizeof b),
                     "landing.contact.friction");
    ck_assert_str_eq(salto_batch_param_label("constraints.landing_spot.point.0", b, sizeof b),
                     "landing_spot.point[0]");
    ck_assert_str_eq(salto_batch_param_label("constraints.3.point.0", b, sizeof b), "[3].point[0]");
    ck_assert_str_eq(salto_batch_param_label("spline.knot_spacing", b, sizeof b), "spline.knot_spacing");
    ck_assert_str_eq(salto_batch_param_label("phases.flight.duration", b, 8), "flight"); // cut whole
}
END_TEST


START_TEST(grid_jobs) {
    salto_sweep* s = load_ok(dismount_3x3);
    ck_assert_int_eq(s->nparam, 2);
    ck_assert_int_eq(s->njob, 9);
    ck_assert_int_eq(s->combine, SALTO_SWEEP_GRID);
    ck_assert_int_eq(s->warm_start, 0);
    ck_assert_int_eq(s->validate, 0);
    ck_assert_str_eq(s->plot, "objective");
    const double dur[3] = {0.6, 0.7, 0.8}, mu[3] = {1.0, 0.7, 0.4};
    for (int j = 0; j < 9; j++) {
        ck_assert_double_eq_tol(salto_sweep_job_value(s, j, 0), dur[j / 3], 1e-15);
        ck_assert_double_eq(salto_sweep_job_value(s, j, 1), mu[j % 3]);
    }
    const char* set[2];
    salto_sweep_job_set(s, 5, set);
    ck_assert_str_eq(set[0], "phases.flight.duration=0.7");
    ck_assert_str_eq(set[1], "phases.landing.contact.friction=0.4");
    salto_sweep_job_set(s, 8, set);
    ck_assert_str_eq(set[0], "phases.flight.duration=0.8"); // the end exactly as written
    ck_assert_str_eq(set[1], "phases.landing.contact.friction=0.4");
    // the problem is resolved against the sweep file's folder
    salto_sweep_destroy(s);
    s = load_ok("problem: ../x.yaml\nparameters: {a.b: [1]}\n");
    char want[200];
    snprintf(want, sizeof want, "%s/../x.yaml", tmpdir);
    ck_assert_str_eq(s->problem, want);
    salto_sweep_destroy(s);
}
END_TEST


// zipped lists and a range by step, with the other keys
START_TEST(zip_and_step) {
    salto_sweep* s = load_ok("problem: p.yaml\ncombine: zip\nwarm_start: true\nvalidate: true\n"
                             "timeout: 30\nplot: flight_rotation\nparameters:\n"
                             "  phases.flight.duration: {from: 0.6, to: 0.8, step: 0.1}\n"
                             "  solver.max_iterations: [10, 20, 30]\n");
    ck_assert_int_eq(s->njob, 3);
    ck_assert_int_eq(s->warm_start, 1);
    ck_assert_int_eq(s->validate, 1);
    ck_assert_double_eq(s->timeout, 30.0);
    ck_assert_str_eq(s->plot, "flight_rotation");
    const char* set[2];
    for (int j = 0; j < 3; j++) {
        ck_assert_double_eq_tol(salto_sweep_job_value(s, j, 0), 0.6 + 0.1 * j, 1e-12);
        ck_assert_double_eq(salto_sweep_job_value(s, j, 1), 10.0 * (j + 1));
        salto_sweep_job_set(s, j, set);
        char want[64];
        snprintf(want, sizeof want, "solver.max_iterations=%d", 10 * (j + 1));
        ck_assert_str_eq(set[1], want);
    }
    salto_sweep_job_set(s, 2, set);
    ck_assert_str_eq(set[0], "phases.flight.duration=0.8");
    salto_sweep_destroy(s);
}
END_TEST


// the warm-start tree: the nearest earlier job in scaled parameter space, the latest on ties
START_TEST(neighbours) {
    salto_sweep* s = load_ok(dismount_3x3);
    const int want[9] = {-1, 0, 1, 0, 3, 4, 3, 6, 7};
    for (int j = 0; j < 9; j++) ck_assert_int_eq(salto_sweep_neighbour(s, j), want[j]);
    salto_sweep_destroy(s);
    // uneven values: 0.9 is nearer to 1.0 than to 0.5 whatever the order
    s = load_ok("problem: p.yaml\nparameters: {a.b: [1.0, 0.5, 0.9, 0.0]}\n");
    ck_assert_int_eq(salto_sweep_neighbour(s, 2), 0);
    ck_assert_int_eq(salto_sweep_neighbour(s, 3), 1);
    salto_sweep_destroy(s);
}
END_TEST


// ---- errors, at the sweep file's line and column ----

static const struct {
    const char* text;
    const char* where;  // "line:col"
    const char* what;
} bad_sweeps[] = {
    {"problem: p.yaml\nparamters: {a.b: [1]}\n", "2:1", "did you mean 'parameters'"},
    {"parameters: {a.b: [1]}\n", "1:1", "missing required key 'problem'"},
    {"problem: p.yaml\nparameters: {a.b: [1, fast]}\n", "2:23", "expected a number"},
    {"problem: p.yaml\nparameters: {a.b: []}\n", "2:19", "has no values"},
    {"problem: p.yaml\nparameters: {a.b: 3}\n", "2:19", "expected a list of values or a range"},
    {"problem: p.yaml\nparameters: {a.b: {from: 1, to: 2}}\n", "2:19", "exactly one of 'count'"},
    {"problem: p.yaml\nparameters: {a.b: {from: 1, to: 2, count: 0}}\n", "2:43", "'count'"},
    {"problem: p.yaml\nparameters: {a.b: {from: 1, to: 2, step: -1}}\n", "2:42", "does not lead"},
    {"problem: p.yaml\nparameters: {a.b: {from: 1, to: 2, cnt: 2}}\n", "2:36", "did you mean 'count'"},
    {"problem: p.yaml\nparameters: {}\n", "2:13", "names no parameter"},
    {"problem: p.yaml\nparameters: {a..b: [1]}\n", "2:14", "not a dotted path"},
    {"problem: p.yaml\ncombine: zp\nparameters: {a.b: [1]}\n", "2:10", "did you mean 'zip'"},
    {"problem: p.yaml\ncombine: zip\nparameters:\n  a.b: [1, 2]\n  c.d: [1, 2, 3]\n", "5:8",
     "as many values"},
    {"problem: p.yaml\ntimeout: 0\nparameters: {a.b: [1]}\n", "2:10", "'timeout'"},
    {"problem: p.yaml\nplot: height\nparameters: {a.b: [1]}\n", "2:7", "unknown measure 'height'"},
    {"problem: p.yaml\nwarm_start: yes please\nparameters: {a.b: [1]}\n", "2:13", "true"},
    {"problem: p.yaml\nparameters: {a.b: {from: 0, to: 1, count: 400}, c.d: {from: 0, to: 1, "
     "count: 400}}\n", "2:13", "more than 100000"},
    {"problem: [p.yaml\n", "2:1", "did not find expected ',' or ']'"},
    {"problem: p.yaml\n", "1:1", "missing required key 'parameters'"},
    {"problem: p.yaml\nparameters: [a]\n", "2:13", "expected a map for 'parameters'"},
    {"problem: [p.yaml]\nparameters: {a.b: [1]}\n", "1:10", "expected a string for 'problem'"},
    {"problem: p.yaml\nparameters: {a.b: {to: 2, count: 2}}\n", "2:19",
     "missing required key 'from' in 'a.b'"},
    {"problem: p.yaml\nparameters: {a.b: {from: 1, to: x, count: 2}}\n", "2:33",
     "expected a number for 'to', found 'x'"},
    {"problem: p.yaml\nparameters: {a.b: {from: 1, to: 2, count: 1.5}}\n", "2:43",
     "expected an integer for 'count', found '1.5'"},
    {"problem: p.yaml\nparameters: {a.b: {from: 1, to: 2, count: 1}}\n", "2:43",
     "a range from 1 to 2 needs a 'count' of at least 2"},
    {"problem: p.yaml\nparameters: {a.b: {from: 1, to: 2, step: 0}}\n", "2:42",
     "a 'step' of 0 does not lead from 1 to 2"},
    {"problem: p.yaml\nparameters: {a=b: [1]}\n", "2:14", "'a=b' is not a dotted path"},
    {"problem: p.yaml\nvalidate: maybe\nparameters: {a.b: [1]}\n", "2:11",
     "expected true or false for 'validate', found 'maybe'"},
    {"problem: p.yaml\ntimeout: soon\nparameters: {a.b: [1]}\n", "2:10",
     "expected a number for 'timeout', found 'soon'"},
};


START_TEST(bad_sweep_located) {
    salto_error err = {0};
    const char* path = write_sweep(bad_sweeps[_i].text);
    salto_sweep* s = salto_sweep_load(path, &err);
    ck_assert_ptr_null(s);
    ck_assert_int_ne(err.status, SALTO_OK);
    char line[1400], want[300];
    salto_error_format(&err, line, sizeof line);
    snprintf(want, sizeof want, "%s:%s: ", path, bad_sweeps[_i].where); // the column whole
    ck_assert_msg(strstr(line, want) != NULL, "case %d: '%s' not in '%s'", _i, want, line);
    ck_assert_msg(strstr(line, bad_sweeps[_i].what) != NULL, "case %d: '%s' not in '%s'", _i,
                  bad_sweeps[_i].what, line);
}
END_TEST


static void* load_sweep(const char* path, salto_error* err) { return salto_sweep_load(path, err); }
static void destroy_sweep(void* s) { salto_sweep_destroy(s); }


// loading a sweep with every allocation failing in turn: a clean SALTO_ERR_NOMEM each time,
// nothing leaked (the sanitizer build checks the leaks)
START_TEST(sweep_out_of_memory) {
    char path[200];
    snprintf(path, sizeof path, "%s", write_sweep("problem: ROOT/problems/highbar_dismount.yaml\n"
                                                  "combine: zip\nwarm_start: true\nplot: peak_com_height\n"
                                                  "parameters:\n"
                                                  "  phases.flight.duration: {from: 0.6, to: 0.8, count: 3}\n"
                                                  "  phases.landing.contact.friction: [1.0, 0.7, 0.4]\n"));
    ck_assert_int_gt(salto_test_nomem_sweep(path, load_sweep, destroy_sweep), 10);
}
END_TEST


// every generated problem checked before solving: a path the problem does not have, at the
// path; a value the problem rejects, at the value, naming the job
START_TEST(check_jobs) {
    salto_error err = {0};
    salto_sweep* s = load_ok(dismount_3x3);
    ck_assert_int_eq(salto_sweep_check(s, &err), SALTO_OK);
    salto_sweep_destroy(s);

    char line[1400];
    const char* path = write_sweep("problem: ROOT/problems/highbar_dismount.yaml\n"
                                   "parameters:\n  character.mass_scale: [1, 2]\n");
    s = salto_sweep_load(path, &err);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(salto_sweep_check(s, &err), SALTO_ERR_INVALID);
    salto_error_format(&err, line, sizeof line);
    ck_assert_msg(strstr(line, "sweep.yaml:3:3: error: parameter 'character.mass_scale'") != NULL,
                  "%s", line);
    ck_assert_msg(strstr(line, "highbar_dismount.yaml:") != NULL, "%s", line);
    salto_sweep_destroy(s);

    memset(&err, 0, sizeof err);
    s = load_ok("problem: ROOT/problems/highbar_dismount.yaml\n"
                "parameters:\n  solver.tolerence: [1e-6]\n");
    ck_assert_int_eq(salto_sweep_check(s, &err), SALTO_ERR_INVALID);
    salto_error_format(&err, line, sizeof line);
    ck_assert_msg(strstr(line, "sweep.yaml:3:3:") && strstr(line, "did you mean 'tolerance'"),
                  "%s", line);
    salto_sweep_destroy(s);

    memset(&err, 0, sizeof err);
    s = load_ok("problem: ROOT/problems/highbar_dismount.yaml\n"
                "parameters:\n  phases.flight.duration: [0.6, 0.7]\n"
                "  phases.landing.contact.friction: [1.0, -0.5]\n");
    ck_assert_int_eq(salto_sweep_check(s, &err), SALTO_ERR_INVALID);
    salto_error_format(&err, line, sizeof line);
    ck_assert_msg(strstr(line, "sweep.yaml:4:42: error: job-001 (phases.flight.duration=0.6, "
                               "phases.landing.contact.friction=-0.5): 'friction' must be positive") != NULL,
                  "%s", line);
    salto_sweep_destroy(s);

    memset(&err, 0, sizeof err);
    s = load_ok("problem: no_such.yaml\nparameters: {a.b: [1]}\n");
    ck_assert_int_eq(salto_sweep_check(s, &err), SALTO_ERR_IO);
    salto_error_format(&err, line, sizeof line);
    ck_assert_msg(strstr(line, "sweep.yaml:1:10: error: the base problem does not load") != NULL,
                  "%s", line);
    salto_sweep_destroy(s);
}
END_TEST


// ---- results and summaries ----

static void example_result(salto_job_result* r, int j) {
    salto_job_result_init(r, j);
    r->status = SALTO_JOB_NOT_CONVERGED;
    r->exit_code = 1;
    for (int k = 0; k < SALTO_MEASURE_COUNT; k++) r->measure[k] = 1.0 / (k + 3.0) + j;
    r->measure[SALTO_MEASURE_ITERATIONS] = 42;
    r->measure[SALTO_MEASURE_PEAK_JOINT_TORQUE] = NAN;
    r->validation = SALTO_JOB_VALID_FAIL;
    r->warm_from = j - 1;
}


// result.json reads back exactly; one for another job or other values is not trusted
START_TEST(result_round_trip) {
    salto_sweep* s = load_ok(dismount_3x3);
    char path[200];
    snprintf(path, sizeof path, "%s/result.json", tmpdir);
    salto_job_result r, back;
    example_result(&r, 4);
    salto_error err = {0};
    ck_assert_int_eq(salto_job_result_write(path, s, &r, &err), SALTO_OK);
    ck_assert_int_eq(salto_job_result_read(path, s, 4, &back, &err), SALTO_OK);
    ck_assert_int_eq(back.job, 4);
    ck_assert_int_eq(back.status, r.status);
    ck_assert_int_eq(back.exit_code, 1);
    ck_assert_int_eq(back.validation, SALTO_JOB_VALID_FAIL);
    ck_assert_int_eq(back.warm_from, 3);
    for (int k = 0; k < SALTO_MEASURE_COUNT; k++) {
        if (isnan(r.measure[k])) {
            ck_assert(isnan(back.measure[k]));
        } else {
            ck_assert_double_eq(back.measure[k], r.measure[k]); // %.17g: exact
        }
    }
    ck_assert_int_eq(salto_job_result_read(path, s, 5, &back, &err), SALTO_ERR_INVALID);
    ck_assert_msg(strstr(err.msg, "job 4, not of job 5") != NULL, "%s", err.msg);
    salto_sweep_destroy(s);

    // the same job index in an edited sweep
    s = load_ok("problem: ROOT/problems/highbar_dismount.yaml\nparameters:\n"
                "  phases.flight.duration: {from: 0.6, to: 0.8, count: 3}\n"
                "  phases.landing.contact.friction: [1.0, 0.6, 0.4]\n");
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(salto_job_result_read(path, s, 4, &back, &err), SALTO_ERR_INVALID);
    ck_assert_msg(strstr(err.msg, "other values") != NULL, "%s", err.msg);
    salto_sweep_destroy(s);

    // a file cut short (as by a crash while writing, had it not been written atomically)
    s = load_ok(dismount_3x3);
    FILE* f = fopen(path, "r+");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(ftruncate(fileno(f), 120), 0);
    fclose(f);
    memset(&err, 0, sizeof err);
    ck_assert_int_ne(salto_job_result_read(path, s, 4, &back, &err), SALTO_OK);
    salto_sweep_destroy(s);
}
END_TEST


// a job stopped by its environment, or one that never ran, has no result: a result.json that
// says so anyway is not trusted (the job runs again), with the place of the status
START_TEST(unfinished_not_trusted) {
    salto_sweep* s = load_ok(dismount_3x3);
    char path[200];
    snprintf(path, sizeof path, "%s/result.json", tmpdir);
    const salto_job_status unfinished[] = {SALTO_JOB_ENVIRONMENT, SALTO_JOB_MISSING};
    for (int k = 0; k < 2; k++) {
        salto_job_result r, back;
        example_result(&r, 2);
        r.status = unfinished[k];
        salto_error err = {0};
        ck_assert_int_eq(salto_job_result_write(path, s, &r, &err), SALTO_OK);
        ck_assert_int_eq(salto_job_result_read(path, s, 2, &back, &err), SALTO_ERR_INVALID);
        ck_assert_msg(strstr(err.msg, "is not the status of a finished job") != NULL, "%s",
                      err.msg);
        ck_assert_int_eq(err.where.line, 7); // "status": on the file's seventh line
        ck_assert_int_gt(err.where.col, 0);
    }
    salto_sweep_destroy(s);
}
END_TEST


// fine: converged and, when the sweep validates, validated passing; nothing else is
START_TEST(fine_jobs) {
    salto_job_result r;
    for (int st = 0; st < SALTO_JOB_STATUS_COUNT; st++) {
        for (int v = 0; v < SALTO_JOB_VALID_COUNT; v++) {
            salto_job_result_init(&r, 0);
            r.status = (salto_job_status)st;
            r.validation = (salto_job_validation)v;
            const int converged = st == SALTO_JOB_CONVERGED;
            ck_assert_int_eq(salto_job_fine(&r, 0), converged);
            ck_assert_int_eq(salto_job_fine(&r, 1), converged && v == SALTO_JOB_VALID_PASS);
        }
    }
    ck_assert_str_eq(salto_job_status_name(SALTO_JOB_ENVIRONMENT), "environment");
}
END_TEST


// summary.csv and summary.json: a row per job in job order, unknown values empty or null;
// summary.png drawn whatever is missing
START_TEST(summary_rows) {
    salto_sweep* s = load_ok(dismount_3x3);
    salto_job_result rs[9];
    for (int j = 0; j < 9; j++) example_result(&rs[j], j);
    rs[0].status = SALTO_JOB_CONVERGED;
    salto_job_result_init(&rs[7], 7);
    rs[7].status = SALTO_JOB_CRASHED;
    rs[7].signal = 11;
    salto_error err = {0};
    ck_assert_int_eq(salto_batch_write_summary(tmpdir, s, rs, &err), SALTO_OK);
    char path[200], line[1000];
    snprintf(path, sizeof path, "%s/summary.csv", tmpdir);
    FILE* f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "job,phases.flight.duration,phases.landing.contact.friction,status,"
                           "objective,iterations,solve_time,worst_residual,peak_com_height,"
                           "flight_rotation,peak_joint_torque,validation,warm_start\n");
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        char want[64];
        snprintf(want, sizeof want, "job-%03d,", rows);
        ck_assert_msg(strncmp(line, want, strlen(want)) == 0, "%s", line);
        if (rows == 0) ck_assert_str_eq(line, "job-000,0.6,1.0,converged,0.3333333333,42,0.2,"
                                              "0.1666666667,0.1428571429,0.125,,fail,\n");
        if (rows == 5) ck_assert_str_eq(line, "job-005,0.7,0.4,not_converged,5.333333333,42,"
                                              "5.2,5.166666667,5.142857143,5.125,,fail,job-004\n");
        if (rows == 7) ck_assert_str_eq(line, "job-007,0.8,0.7,crashed,,,,,,,,,\n");
        rows++;
    }
    fclose(f);
    ck_assert_int_eq(rows, 9);
    // the JSON reads back through the YAML reader, nulls where unknown
    snprintf(path, sizeof path, "%s/summary.json", tmpdir);
    salto_cfg* cfg = salto_cfg_load(path, &err);
    ck_assert_msg(cfg != NULL, "%s", err.msg);
    const salto_cfg_node* jobs = salto_cfg_child(salto_cfg_root(cfg), "jobs");
    ck_assert_int_eq(jobs->n, 9);
    ck_assert(salto_cfg_is_null(salto_cfg_child(jobs->child[7], "objective")));
    ck_assert_str_eq(salto_cfg_child(jobs->child[7], "status")->text, "crashed");
    ck_assert_str_eq(salto_cfg_child(salto_cfg_child(salto_cfg_root(cfg), "counts"), "crashed")->text, "1");
    salto_cfg_destroy(cfg);
    snprintf(path, sizeof path, "%s/summary.png", tmpdir);
    ck_assert_int_eq(salto_batch_write_png(path, s, rs, SALTO_MEASURE_OBJECTIVE, &err), SALTO_OK);
    ck_assert(access(path, R_OK) == 0);
    salto_sweep_destroy(s);
}
END_TEST


// ---- measures ----

// the dismount's gymnast turning at a constant rate w about its root (joints at zero): the
// flight rotation is w times the flight's duration; over a whole turn the centre of mass
// peaks at its distance from the root's axis in the x-z plane above the axis
typedef struct turning {
    const salto_model* m;
    double w;
} turning;


static void turning_state(void* ctx, double t, double* q, double* qd, double* qdd) {
    const turning* c = ctx;
    for (int j = 0; j < c->m->nv; j++) q[j] = qd[j] = qdd[j] = 0.0;
    q[2] = c->w * t; // root_ry
    qd[2] = c->w;
}


START_TEST(measures_of_a_turn) {
    salto_error err = {0};
    salto_problem_desc* p = salto_problem_load(salto_test_path("problems/highbar_dismount.yaml"), &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    const salto_model* m = p->model;
    ck_assert_str_eq(m->link_name[2], "root_ry");
    turning c = {m, 2.0 * 3.14159265358979323846 / p->duration};
    salto_job_result r;
    salto_job_result_init(&r, 0);
    ck_assert_int_eq(salto_job_measure(p, turning_state, &c, 10, &r, &err), SALTO_OK);

    // flight rotation: w x 0.6 s, in degrees
    ck_assert_double_eq_tol(r.measure[SALTO_MEASURE_FLIGHT_ROTATION], 360.0 * 0.6 / p->duration, 1e-6);

    // the centre of mass at q = 0, turned about y: its height peaks at |(x, z)|
    salto_data* d = salto_data_create(m);
    salto_fk(m, d, SALTO_FK_VEL);
    salto_link_inertias(m, d);
    double com[3], comvel[3];
    salto_com(m, d, com, comvel);
    const double* o = d->p + 3 * 2; // the turn's centre: root_ry's origin
    const double reach = o[2] + sqrt((com[0] - o[0]) * (com[0] - o[0]) + (com[2] - o[2]) * (com[2] - o[2]));
    ck_assert_double_le(r.measure[SALTO_MEASURE_PEAK_COM_HEIGHT], reach * (1.0 + 1e-12));
    ck_assert_double_ge(r.measure[SALTO_MEASURE_PEAK_COM_HEIGHT], reach * (1.0 - 1e-3));
    ck_assert(isfinite(r.measure[SALTO_MEASURE_PEAK_JOINT_TORQUE]));
    ck_assert_double_gt(r.measure[SALTO_MEASURE_PEAK_JOINT_TORQUE], 0.0);
    // what the solver reports is not a measure of the motion
    ck_assert(isnan(r.measure[SALTO_MEASURE_OBJECTIVE]));
    salto_data_destroy(d);
    salto_problem_destroy(p);
}
END_TEST


// names and back
START_TEST(names) {
    for (int k = 0; k < SALTO_JOB_STATUS_COUNT; k++) {
        ck_assert_int_eq(salto_job_status_parse(salto_job_status_name((salto_job_status)k)), k);
    }
    for (int k = 0; k < SALTO_JOB_VALID_COUNT; k++) {
        ck_assert_int_eq(salto_job_validation_parse(salto_job_validation_name((salto_job_validation)k)), k);
    }
    for (int k = 0; k < SALTO_MEASURE_COUNT; k++) {
        ck_assert_int_eq(salto_batch_measure_parse(salto_batch_measure_name((salto_batch_measure)k)), k);
    }
    ck_assert_int_eq(salto_job_status_parse("fine"), -1);
    char name[16];
    salto_job_name(7, name, sizeof name);
    ck_assert_str_eq(name, "job-007");
    salto_job_name(1234, name, sizeof name);
    ck_assert_str_eq(name, "job-1234");
}
END_TEST


Suite* batch_suite(void) {
    Suite* s = suite_create("batch");
    TCase* tc = tcase_create("sweeps");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, grid_jobs);
    tcase_add_test(tc, param_labels);
    tcase_add_test(tc, zip_and_step);
    tcase_add_test(tc, neighbours);
    tcase_add_test(tc, check_jobs);
    tcase_add_test(tc, names);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, bad_sweep_located, 0, (int)(sizeof bad_sweeps / sizeof bad_sweeps[0]));
    tcase_add_test(tc, sweep_out_of_memory);
    suite_add_tcase(s, tc);

    tc = tcase_create("results");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, result_round_trip);
    tcase_add_test(tc, unfinished_not_trusted);
    tcase_add_test(tc, fine_jobs);
    tcase_add_test(tc, summary_rows);
    tcase_add_test(tc, measures_of_a_turn);
    suite_add_tcase(s, tc);
    return s;
}
