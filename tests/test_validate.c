// test_validate.c: the validator's force against the centre of mass's acceleration taken from
// positions alone; a rigid body on a parabola passes, the same motion with a joint perturbed
// in mid-flight fails there; a standing character passes, leaning past its toes fails the
// centre of pressure, sliding fails friction and slip; a solved motion passes
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/kinematics.h"
#include "salto/nlp.h"
#include "salto/solver.h"
#include "salto/validate.h"
#include "test_suites.h"
#include "test_util.h"

typedef struct fixture {
    salto_problem_desc* p;
    salto_nlp* nlp;
    double* x;
    int nx;
} fixture;


static fixture open_problem_set(const char* rel, int nset, const char* const* set) {
    fixture f = {0};
    salto_error err = {0};
    f.p = salto_problem_load_set(salto_test_path(rel), nset, set, &err);
    f.nlp = f.p ? salto_nlp_build(f.p, &err) : NULL;
    if (!f.nlp) {
        char msg[1024];
        salto_error_format(&err, msg, sizeof msg);
        ck_abort_msg("could not load %s: %s", rel, msg);
    }
    f.nx = salto_nlp_nx(f.nlp);
    f.x = calloc((size_t)f.nx, sizeof(double));
    ck_assert_ptr_nonnull(f.x);
    salto_nlp_initial_guess(f.nlp, f.x);
    return f;
}


static fixture open_problem(const char* rel) { return open_problem_set(rel, 0, NULL); }


static void close_problem(fixture* f) {
    free(f->x);
    salto_nlp_destroy(f->nlp);
    salto_problem_destroy(f->p);
}


static salto_validation run(fixture* f, const salto_validate_opts* o) {
    salto_validation v;
    salto_error err = {0};
    salto_validate_opts def;
    salto_validate_opts_default(&def);
    ck_assert_int_eq(salto_validate(f->nlp, f->x, o ? o : &def, &v, &err), SALTO_OK);
    return v;
}


static const salto_check* find(const salto_validation* v, salto_check_kind k, int phase) {
    for (int c = 0; c < v->ncheck; c++) {
        if (v->check[c].kind == k && v->check[c].phase == phase) return &v->check[c];
    }
    ck_abort_msg("no check %s in phase %d", salto_check_name(k), phase);
    return NULL;
}


// the uniform clamped spline's knot k (0 .. ncp + 3)
static double knot(int ncp, double T, int k) {
    const int nseg = ncp - 3;
    if (k <= 3) return 0.0;
    if (k >= ncp) return T;
    return T * (double)(k - 3) / (double)nseg;
}


// control point a of the quadratic c0 + c1 t + c2 t^2 on that spline (its blossom at knots
// a + 1, a + 2, a + 3), exact: the spline then is the quadratic
static double quad_cp(int ncp, double T, int a, double c0, double c1, double c2) {
    const double u1 = knot(ncp, T, a + 1), u2 = knot(ncp, T, a + 2), u3 = knot(ncp, T, a + 3);
    return c0 + c1 * (u1 + u2 + u3) / 3.0 + c2 * (u1 * u2 + u1 * u3 + u2 * u3) / 3.0;
}


static int dof(const salto_model* m, const char* name) {
    for (int j = 0; j < m->nv; j++) {
        if (strcmp(m->link_name[j], name) == 0) return j;
    }
    ck_abort_msg("no DOF %s", name);
    return -1;
}


// Physical claim: in every phase, the force part of f0 equals m (a_com - g), with the centre
// of mass's acceleration from second differences of its positions alone (no accelerations,
// no dynamics), at a random motion near the dismount's initial guess.
START_TEST(test_force_equals_com_acceleration) {
    const unsigned seed = 4242;
    fixture f = open_problem("problems/highbar_dismount.yaml");
    salto_test_rng r;
    salto_test_rng_seed(&r, seed);
    for (int i = 0; i < f.nx; i++) f.x[i] += salto_test_uniform(&r, -0.2, 0.2);
    salto_validation v = run(&f, NULL);
    const salto_model* m = f.p->model;
    salto_data* d = salto_data_create(m);
    const double h = 1e-4, W = m->mass * 9.81;
    // second differences straddling a knot would see the jump in the third derivative
    double* knots = calloc((size_t)f.p->ncp, sizeof(double));
    ck_assert_ptr_nonnull(knots);
    const int nknot = salto_problem_knots(f.p, knots);
    int checked = 0;
    for (int s = 0; s < v.nsample; s++) {
        int near = v.t[s] < 3 * h || v.t[s] > f.p->duration - 3 * h;
        for (int k = 0; k < nknot; k++) near |= fabs(v.t[s] - knots[k]) < 3 * h;
        if (near) continue;
        double c[3][3], cv[3];
        for (int k = -1; k <= 1; k++) {
            salto_nlp_state(f.nlp, f.x, v.t[s] + k * h, d->q, d->qd, d->qdd);
            salto_fk(m, d, SALTO_FK_VEL);
            salto_link_inertias(m, d);
            salto_com(m, d, c[k + 1], cv);
        }
        for (int i = 0; i < 3; i++) {
            const double a = (c[0][i] - 2.0 * c[1][i] + c[2][i]) / (h * h);
            const double want = m->mass * (a - m->gravity[i]);
            const double got = v.f0[6 * s + 3 + i];
            ck_assert_msg(fabs(got - want) <= 1e-4 * W + 1e-4 * fabs(want),
                          "seed %u, t = %.4f, axis %d: f = %.6f, m (a_com - g) = %.6f", seed,
                          v.t[s], i, got, want);
        }
        checked++;
    }
    ck_assert_int_gt(checked, 100);
    free(knots);
    salto_data_destroy(d);
    salto_validation_free(&v);
    close_problem(&f);
}
END_TEST


// the flight fixture: joints bent, no rotation, the root on a parabola under gravity; with
// ballistic, the flight's centre of mass on the parabola of its place variables instead
static fixture rigid_flight_as(int ballistic) {
    const char* on[] = {"phases.flight.ballistic=true"};
    fixture f = open_problem_set("tests/data/validate/flight2d.yaml", ballistic ? 1 : 0, on);
    const salto_model* m = f.p->model;
    const int ncp = f.p->ncp;
    const double T = f.p->duration;
    const double pose[7] = {0, 0, 0, 1.0, -0.6, 0.9, 0.2}; // shoulder, hip, knee, ankle after the root
    for (int j = 0; j < m->nv; j++) {
        for (int a = 0; a < ncp; a++) f.x[j * ncp + a] = pose[j];
    }
    const int jx = dof(m, "root_x"), jz = dof(m, "root_z");
    for (int a = 0; a < ncp; a++) {
        f.x[jx * ncp + a] = quad_cp(ncp, T, a, 0.0, 1.5, 0.0);
        f.x[jz * ncp + a] = quad_cp(ncp, T, a, 1.0, 2.9, 0.5 * m->gravity[2]);
    }
    return f;
}


static fixture rigid_flight(void) { return rigid_flight_as(0); }


START_TEST(test_rigid_flight_passes) {
    fixture f = rigid_flight();
    salto_validation v = run(&f, NULL);
    const double W = f.p->model->mass * 9.81;
    ck_assert_msg(v.pass, "a rigid body on a parabola fails validation");
    ck_assert_double_lt(find(&v, SALTO_CHECK_FLIGHT_FORCE, 0)->worst, 1e-9 * W);
    ck_assert_double_lt(find(&v, SALTO_CHECK_FLIGHT_TORQUE, 0)->worst, 1e-9 * W);
    ck_assert_double_lt(find(&v, SALTO_CHECK_BALLISTIC, 0)->worst, 1e-12);
    ck_assert_double_lt(find(&v, SALTO_CHECK_SPIN, 0)->worst, 1e-9 * W);
    ck_assert_int_eq(find(&v, SALTO_CHECK_FLIGHT_FORCE, 0)->nsample, 10 * 11 + 1);
    salto_validation_free(&v);
    close_problem(&f);
}
END_TEST


START_TEST(test_perturbed_flight_fails_there) {
    fixture f = rigid_flight();
    const int ncp = f.p->ncp, a = 6;
    const double T = f.p->duration;
    f.x[dof(f.p->model, "hip") * ncp + a] += 0.3;
    salto_validation v = run(&f, NULL);
    ck_assert(!v.pass);
    const salto_check* c = find(&v, SALTO_CHECK_FLIGHT_FORCE, 0);
    ck_assert(!c->pass);
    // the centre of mass leaves its parabola, but not before the perturbation starts
    const salto_check* b = find(&v, SALTO_CHECK_BALLISTIC, 0);
    ck_assert(!b->pass);
    for (int s = 0; s < v.nsample && v.t[s] < knot(ncp, T, a) - 1e-9; s++) {
        ck_assert_double_lt(v.violation[SALTO_CHECK_COUNT * s + SALTO_CHECK_BALLISTIC], 1e-12);
    }
    // the perturbed control point moves the motion on its support only: knots a .. a + 4
    ck_assert_msg(c->worst_time > knot(ncp, T, a) && c->worst_time < knot(ncp, T, a + 4),
                  "worst at t = %.4f, outside [%.4f, %.4f]", c->worst_time, knot(ncp, T, a),
                  knot(ncp, T, a + 4));
    for (int s = 0; s < v.nsample; s++) {
        const double e = v.violation[SALTO_CHECK_COUNT * s + SALTO_CHECK_FLIGHT_FORCE];
        if (v.t[s] < knot(ncp, T, a) - 1e-9 || v.t[s] > knot(ncp, T, a + 4) + 1e-9) {
            ck_assert_msg(e < 1e-6, "force %.3g at t = %.4f, off the perturbation", e, v.t[s]);
        }
    }
    salto_validation_free(&v);
    close_problem(&f);
}
END_TEST


// Physical claim: a ballistic flight's centre of mass is on its parabola at every sample, not
// only at the knots: the same perturbed hip, with the root's translation derived from the
// parabola, leaves no force and no departure from the parabola anywhere (the perturbation
// shows as a torque about the centre of mass, on the control point's support only)
START_TEST(test_ballistic_flight_has_no_force) {
    fixture f = rigid_flight_as(1);
    const int ncp = f.p->ncp, a = 6;
    const double T = f.p->duration, W = f.p->model->mass * 9.81;
    f.x[dof(f.p->model, "hip") * ncp + a] += 0.3;
    salto_validation v = run(&f, NULL);
    ck_assert_double_lt(find(&v, SALTO_CHECK_FLIGHT_FORCE, 0)->worst, 1e-9 * W);
    ck_assert_double_lt(find(&v, SALTO_CHECK_BALLISTIC, 0)->worst, 1e-9);
    const salto_check* c = find(&v, SALTO_CHECK_FLIGHT_TORQUE, 0);
    ck_assert(!c->pass);
    for (int s = 0; s < v.nsample; s++) {
        const double e = v.violation[SALTO_CHECK_COUNT * s + SALTO_CHECK_FLIGHT_TORQUE];
        if (v.t[s] < knot(ncp, T, a) - 1e-9 || v.t[s] > knot(ncp, T, a + 4) + 1e-9) {
            ck_assert_msg(e < 1e-9 * W, "torque %.3g at t = %.4f, off the perturbation", e, v.t[s]);
        }
    }
    // the derived translation's velocity and acceleration are its position's derivatives:
    // central differences of salto_nlp_state at times away from the knots
    const int nv = f.p->model->nv;
    double q[2][16], qd[2][16], qd0[16], qdd0[16], q0[16];
    const double times[3] = {0.13, 0.31, 0.47}, h = 1e-6;
    for (int k = 0; k < 3; k++) {
        salto_nlp_state(f.nlp, f.x, times[k], q0, qd0, qdd0);
        for (int side = 0; side < 2; side++) {
            salto_nlp_state(f.nlp, f.x, times[k] + (side ? h : -h), q[side], qd[side], NULL);
        }
        for (int j = 0; j < nv; j++) {
            const double dq = (q[1][j] - q[0][j]) / (2 * h), dqd = (qd[1][j] - qd[0][j]) / (2 * h);
            ck_assert_msg(fabs(dq - qd0[j]) <= 1e-6 * (1 + fabs(qd0[j])), "t = %.2f, DOF %d: qd %.9g, "
                          "differences %.9g", times[k], j, qd0[j], dq);
            ck_assert_msg(fabs(dqd - qdd0[j]) <= 1e-5 * (1 + fabs(qdd0[j])), "t = %.2f, DOF %d: qdd "
                          "%.9g, differences %.9g", times[k], j, qdd0[j], dqd);
        }
    }
    salto_validation_free(&v);
    close_problem(&f);
}
END_TEST


static int site(const salto_model* m, const char* name) {
    for (int s = 0; s < m->nsite; s++) {
        if (strcmp(m->site_name[s], name) == 0) return s;
    }
    ck_abort_msg("no site %s", name);
    return -1;
}


// the standing fixture: the gymnast standing still, heel on the floor, its body leaning by
// `lean` (rad, the root pitched and the ankle turned back so that the foot stays flat), the
// root sliding forward at `accel` m/s^2
static fixture standing(double lean, double accel) {
    fixture f = open_problem("tests/data/validate/stand2d.yaml");
    const salto_model* m = f.p->model;
    const int ncp = f.p->ncp;
    const double T = f.p->duration;
    salto_data* d = salto_data_create(m);
    memset(d->q, 0, (size_t)m->nv * sizeof(double));
    d->q[dof(m, "root_ry")] = lean;
    d->q[dof(m, "ankle")] = -lean;
    salto_fk(m, d, SALTO_FK_POS);
    double xh[3];
    salto_site_pos(m, d, site(m, "heel"), xh);
    for (int j = 0; j < m->nv; j++) {
        for (int a = 0; a < ncp; a++) f.x[j * ncp + a] = d->q[j];
    }
    const int jx = dof(m, "root_x"), jz = dof(m, "root_z");
    for (int a = 0; a < ncp; a++) {
        f.x[jx * ncp + a] = quad_cp(ncp, T, a, -xh[0], 0.0, 0.5 * accel);
        f.x[jz * ncp + a] = -xh[2];
    }
    salto_data_destroy(d);
    return f;
}


START_TEST(test_standing_passes) {
    fixture f = standing(0.0, 0.0);
    salto_validation v = run(&f, NULL);
    for (int c = 0; c < v.ncheck; c++) {
        ck_assert_msg(v.check[c].pass, "%s fails standing still: %.3g",
                      salto_check_name(v.check[c].kind), v.check[c].worst);
    }
    ck_assert(v.pass);
    ck_assert_double_lt(find(&v, SALTO_CHECK_SLIP, 0)->worst, 1e-12);
    salto_validation_free(&v);
    close_problem(&f);
}
END_TEST


START_TEST(test_leaning_fails_cop) {
    fixture f = standing(0.5, 0.0);
    salto_validation v = run(&f, NULL);
    ck_assert(!v.pass);
    ck_assert(!find(&v, SALTO_CHECK_COP, 0)->pass);
    ck_assert(find(&v, SALTO_CHECK_FRICTION, 0)->pass);
    ck_assert(find(&v, SALTO_CHECK_NORMAL_FORCE, 0)->pass);
    ck_assert(find(&v, SALTO_CHECK_SLIP, 0)->pass);
    // standing still, the floor carries the weight W, and its moment about the feet's centre
    // is W times the centre of mass's horizontal distance from it: the violation is W times
    // that distance less the support's half length, 0.13 m
    const salto_model* m = f.p->model;
    salto_data* d = salto_data_create(m);
    salto_nlp_state(f.nlp, f.x, 0.25, d->q, d->qd, NULL);
    salto_fk(m, d, SALTO_FK_VEL);
    salto_link_inertias(m, d);
    double com[3], heel[3], toe[3];
    salto_com(m, d, com, NULL);
    salto_site_pos(m, d, site(m, "heel"), heel);
    salto_site_pos(m, d, site(m, "toe"), toe);
    const double W = m->mass * 9.81, want = W * (fabs(com[0] - 0.5 * (heel[0] + toe[0])) - 0.13);
    ck_assert_double_gt(want, 0.05 * W);
    ck_assert_double_eq_tol(find(&v, SALTO_CHECK_COP, 0)->worst, want, 1e-6 * W);
    salto_data_destroy(d);
    salto_validation_free(&v);
    close_problem(&f);
}
END_TEST


START_TEST(test_sliding_fails_friction_and_slip) {
    // mu = 0.5 holds at most 0.5 g = 4.9 m/s^2 of horizontal acceleration
    fixture f = standing(0.0, 8.0);
    salto_validation v = run(&f, NULL);
    ck_assert(!v.pass);
    const salto_check* fr = find(&v, SALTO_CHECK_FRICTION, 0);
    const salto_check* sl = find(&v, SALTO_CHECK_SLIP, 0);
    ck_assert(!fr->pass);
    ck_assert(!sl->pass);
    const double W = f.p->model->mass * 9.81;
    // |f_t| - mu f_n = m a - 0.5 m g
    ck_assert_double_eq_tol(fr->worst, f.p->model->mass * 8.0 - 0.5 * W, 1e-6 * W);
    // the foot has slid 0.5 a t^2 at the end
    ck_assert_double_eq_tol(sl->worst, 0.5 * 8.0 * 0.25, 1e-6);
    ck_assert_double_gt(sl->worst_time, 0.499);
    // a threshold set above it passes
    salto_validate_opts o;
    salto_validate_opts_default(&o);
    o.threshold[SALTO_CHECK_SLIP] = 2.0;
    o.threshold[SALTO_CHECK_FRICTION] = 10.0 * W;
    salto_validation v2 = run(&f, &o);
    ck_assert(find(&v2, SALTO_CHECK_SLIP, 0)->pass);
    ck_assert(find(&v2, SALTO_CHECK_FRICTION, 0)->pass);
    salto_validation_free(&v2);
    salto_validation_free(&v);
    close_problem(&f);
}
END_TEST


// a solved motion: the monkey bars (hands on bars, no flight) pass every check
START_TEST(test_solved_monkey_bars_pass) {
    fixture f = open_problem("problems/monkey_bars.yaml");
    salto_solve_result res;
    salto_error err = {0};
    ck_assert_int_eq(salto_solve(f.nlp, f.x, NULL, NULL, &res, &err), SALTO_OK);
    ck_assert(res.converged);
    salto_validation v = run(&f, NULL);
    for (int c = 0; c < v.ncheck; c++) {
        ck_assert_msg(v.check[c].pass, "%s in phase %d: %.3g > %.3g",
                      salto_check_name(v.check[c].kind), v.check[c].phase, v.check[c].worst,
                      v.check[c].threshold);
    }
    salto_validation_free(&v);
    close_problem(&f);
}
END_TEST


START_TEST(test_names_round_trip) {
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) {
        ck_assert_int_eq(salto_check_parse(salto_check_name((salto_check_kind)k)), k);
        ck_assert_str_ne(salto_check_unit((salto_check_kind)k), "");
    }
    ck_assert_int_eq(salto_check_parse("no_such_check"), -1);
}
END_TEST


// bad input: a motion that is not finite is an error naming the time, and leaves nothing
START_TEST(test_nonfinite_motion_is_an_error) {
    fixture f = rigid_flight();
    f.x[dof(f.p->model, "knee") * f.p->ncp + 5] = NAN;
    salto_validation v;
    salto_error err = {0};
    salto_validate_opts o;
    salto_validate_opts_default(&o);
    ck_assert_int_eq(salto_validate(f.nlp, f.x, &o, &v, &err), SALTO_ERR_NUMERIC);
    ck_assert_msg(strstr(err.msg, "not finite at t = ") != NULL, "message: %s", err.msg);
    ck_assert_int_eq(v.nsample, 0);
    ck_assert_int_eq(v.ncheck, 0);
    ck_assert_ptr_null(v.check);
    close_problem(&f);
}
END_TEST


// every allocation failing in turn is a clean out-of-memory error with nothing leaked
static fixture* oom_fixture;

static void* validate_for_sweep(const char* path, salto_error* err) {
    (void)path;
    salto_validation* v = salto_malloc(sizeof *v);
    if (!v) {
        SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        return NULL;
    }
    salto_validate_opts o;
    salto_validate_opts_default(&o);
    if (salto_validate(oom_fixture->nlp, oom_fixture->x, &o, v, err) != SALTO_OK) {
        salto_free(v);
        return NULL;
    }
    return v;
}

static void destroy_validation(void* v) {
    salto_validation_free(v);
    salto_free(v);
}

START_TEST(test_out_of_memory) {
    fixture f = rigid_flight();
    oom_fixture = &f;
    ck_assert_int_gt(salto_test_nomem_sweep("rigid flight", validate_for_sweep, destroy_validation), 5);
    oom_fixture = NULL;
    close_problem(&f);
}
END_TEST


Suite* validate_suite(void) {
    Suite* s = suite_create("validate");
    TCase* tc = tcase_create("validate");
    tcase_add_test(tc, test_names_round_trip);
    tcase_add_test(tc, test_force_equals_com_acceleration);
    tcase_add_test(tc, test_rigid_flight_passes);
    tcase_add_test(tc, test_perturbed_flight_fails_there);
    tcase_add_test(tc, test_ballistic_flight_has_no_force);
    tcase_add_test(tc, test_standing_passes);
    tcase_add_test(tc, test_leaning_fails_cop);
    tcase_add_test(tc, test_sliding_fails_friction_and_slip);
    tcase_add_test(tc, test_solved_monkey_bars_pass);
    tcase_add_test(tc, test_nonfinite_motion_is_an_error);
    tcase_add_test(tc, test_out_of_memory);
    suite_add_tcase(s, tc);
    return s;
}
