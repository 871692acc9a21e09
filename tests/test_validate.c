// test_validate.c: the validator's force against the centre of mass's acceleration taken from
// positions alone; a rigid body on a parabola passes, the same motion with a joint perturbed
// in mid-flight fails there; a standing character passes, leaning past its toes fails the
// centre of pressure, sliding fails friction and slip; a solved motion passes
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "salto/bspline.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"
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


// salto_solve_refined on the fixture (its NLP and x replaced by the refined ones), asserting
// that it ran
static void solve_refined(fixture* f, salto_solve_result* res, salto_refine_result* rr) {
    salto_error err = {0};
    const salto_status st = salto_solve_refined(f->p, &f->nlp, f->x, NULL, NULL, res, rr, &err);
    ck_assert_msg(st == SALTO_OK, "%s: %s", f->p->path, err.msg);
}


// solve_refined, asserting convergence
static void solve_converged(fixture* f) {
    salto_solve_result res;
    salto_refine_result rr;
    solve_refined(f, &res, &rr);
    ck_assert_msg(res.converged, "%s: %s", f->p->path, res.status_name);
}


static salto_validation run(fixture* f, const salto_validate_opts* o) {
    salto_validation v;
    salto_error err = {0};
    salto_validate_opts def;
    salto_validate_opts_default(&def);
    ck_assert_int_eq(salto_validate(f->nlp, f->x, o ? o : &def, &v, &err), SALTO_OK);
    return v;
}


// every check of v passes (the failing one named, with its phase, value and threshold)
static void assert_all_pass(const salto_validation* v, const char* what) {
    for (int c = 0; c < v->ncheck; c++) {
        ck_assert_msg(v->check[c].pass, "%s: %s in phase %d: %.3g > %.3g", what,
                      salto_check_name(v->check[c].kind), v->check[c].phase, v->check[c].worst,
                      v->check[c].threshold);
    }
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
    const double h = 2e-5, W = m->mass * 9.81;
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


static void nlp_state_fn(void* ctx, double t, double* q, double* qd, double* qdd) {
    const fixture* f = ctx;
    salto_nlp_state(f->nlp, f->x, t, q, qd, qdd);
}


static int site(const salto_model* m, const char* name) {
    for (int s = 0; s < m->nsite; s++) {
        if (strcmp(m->site_name[s], name) == 0) return s;
    }
    ck_abort_msg("no site %s", name);
    return -1;
}


// the standing fixture: the gymnast standing still, heel on the floor, its body leaning by
// `lean` (rad, the root pitched and the ankle turned back so that the foot stays flat), the
// root sliding forward at `accel` m/s^2; with overrides of the problem (set, nset)
static fixture standing_set(double lean, double accel, int nset, const char* const* set) {
    fixture f = open_problem_set("tests/data/validate/stand2d.yaml", nset, set);
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


static fixture standing(double lean, double accel) { return standing_set(lean, accel, 0, NULL); }


START_TEST(test_standing_passes) {
    fixture f = standing(0.0, 0.0);
    salto_validation v = run(&f, NULL);
    assert_all_pass(&v, "standing still");
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


// a hand slipping along the bar: the hanging humanoid's whole body sliding along the bar at
// 0.1 m/s fails the slip check by the distance slid (4 cm at the end), naming a hand
START_TEST(test_hand_slipping_along_bar_fails_slip) {
    fixture f = open_problem("tests/data/validate/hang3d.yaml");
    const salto_model* m = f.p->model;
    const int ncp = f.p->ncp, jy = dof(m, "root_y");
    const double T = f.p->duration;
    for (int a = 0; a < ncp; a++) f.x[jy * ncp + a] = quad_cp(ncp, T, a, 0.0, 0.1, 0.0);
    salto_validation v = run(&f, NULL);
    const salto_check* sl = find(&v, SALTO_CHECK_SLIP, 0);
    ck_assert(!sl->pass);
    ck_assert_double_eq_tol(sl->worst, 0.1 * T, 1e-6);
    ck_assert_double_gt(sl->worst_time, T - 1e-3);
    const char* at = salto_check_at(m, sl);
    ck_assert_msg(at && strncmp(at, "hand_", 5) == 0, "slip located at %s", at ? at : "nothing");
    salto_validation_free(&v);
    // standing still on the bar: no slip at all
    for (int a = 0; a < ncp; a++) f.x[jy * ncp + a] = 0.0;
    salto_validation v0 = run(&f, NULL);
    ck_assert_double_lt(find(&v0, SALTO_CHECK_SLIP, 0)->worst, 1e-12);
    salto_validation_free(&v0);
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
    assert_all_pass(&v, "the monkey bars");
    salto_validation_free(&v);
    close_problem(&f);
}
END_TEST


// A kinematic problem (physics: false) is judged on its kinematics only: the reach, solved,
// stands in the air (its flight force is its weight), which the physics checks show and do not
// judge; the same motion on the problem with physics on fails them, and a joint pushed past
// its limit fails the judged check either way.
START_TEST(test_kinematic_problems_judge_kinematics) {
    const char* on[] = {"physics=true"};
    for (int phys = 0; phys < 2; phys++) {
        fixture f = open_problem_set("problems/reach.yaml", phys, on);
        ck_assert_int_eq(f.p->physics, phys);
        salto_solve_result res;
        salto_error err = {0};
        if (phys) {
            // the motion of the kinematic problem (the same variables), judged with physics
            fixture k = open_problem("problems/reach.yaml");
            ck_assert_int_eq(salto_solve(k.nlp, k.x, NULL, NULL, &res, &err), SALTO_OK);
            ck_assert_int_eq(k.nx, f.nx);
            memcpy(f.x, k.x, sizeof(double) * (size_t)f.nx);
            close_problem(&k);
        } else {
            ck_assert_int_eq(salto_solve(f.nlp, f.x, NULL, NULL, &res, &err), SALTO_OK);
        }
        salto_validation v = run(&f, NULL);
        // the kinematic checks, listed here rather than asked of the library
        int physics = 0, kinematic = 0, judged = 0, passed = 0;
        for (int c = 0; c < v.ncheck; c++) {
            const salto_check* k = &v.check[c];
            const int is_kin = k->kind == SALTO_CHECK_SLIP || k->kind == SALTO_CHECK_PENETRATION ||
                               k->kind == SALTO_CHECK_JOINT_LIMITS;
            ck_assert_int_eq(k->judged, phys || is_kin);
            ck_assert_int_eq(salto_check_is_physics(k->kind), !is_kin);
            physics += !is_kin, kinematic += is_kin;
            judged += k->judged, passed += k->judged && k->pass;
        }
        ck_assert_int_gt(physics, 0);
        ck_assert_int_gt(kinematic, 0);
        ck_assert_int_eq(v.njudged, judged);
        ck_assert_int_eq(v.npassed, passed);
        ck_assert_int_eq(v.njudged, phys ? v.ncheck : kinematic);
        const salto_check* ff = find(&v, SALTO_CHECK_FLIGHT_FORCE, 0);
        ck_assert_msg(!ff->pass && ff->worst > 0.9 * f.p->model->mass * 9.81, "flight force %g",
                      ff->worst);
        ck_assert_int_eq(v.pass, !phys);
        salto_validation_free(&v);
        // a shoulder beyond its limit at every control point: the judged joint limits fail
        const int js = salto_model_dof(f.p->model, "shoulder");
        ck_assert_int_ge(js, 0);
        ck_assert(f.p->model->link_has_limits[js]);
        const double over = f.p->model->link_limits[2 * js + 1] + 0.1;
        for (int a = 0; a < f.p->ncp; a++) f.x[js * f.p->ncp + a] = over;
        v = run(&f, NULL);
        const salto_check* jl = find(&v, SALTO_CHECK_JOINT_LIMITS, 0);
        ck_assert(jl->judged && !jl->pass && !v.pass);
        salto_validation_free(&v);
        close_problem(&f);
    }
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) {
        const int is_kin = k == SALTO_CHECK_SLIP || k == SALTO_CHECK_PENETRATION ||
                           k == SALTO_CHECK_JOINT_LIMITS || k == SALTO_CHECK_BOUNDS ||
                           k == SALTO_CHECK_BAR_CLEARANCE || k == SALTO_CHECK_BOX_CLEARANCE;
        ck_assert_int_eq(salto_check_is_physics((salto_check_kind)k), !is_kin);
    }
}
END_TEST


// Slice refinement: a half-somersault flight solved with f0 = 0 at its 12 slices fails the
// flight force between them; salto_solve_refined adds slices where it does (at the worst
// samples of the violated runs, strictly inside the phase, recorded in the problem) and
// resumes, and the refined motion passes every check, the re-simulation's drift included.
START_TEST(test_refinement_makes_flight_pass) {
    salto_error err = {0};
    const char* off[1] = {"solver.refine=0"};
    fixture f = open_problem_set("tests/data/validate/turn2d.yaml", 1, off);
    salto_solve_result res;
    salto_refine_result rr;
    ck_assert_int_eq(salto_solve_refined(f.p, &f.nlp, f.x, NULL, NULL, &res, &rr, &err), SALTO_OK);
    ck_assert(res.converged);
    ck_assert_int_eq(rr.rounds, 0); // refinement off: the first solve alone
    ck_assert_int_eq(f.p->nextra, 0);
    salto_validation v = run(&f, NULL);
    const salto_check* c = find(&v, SALTO_CHECK_FLIGHT_FORCE, 0);
    ck_assert_msg(!c->pass, "flight force %.3g N without refinement", c->worst);
    // what refinement would add: one slice per violated run, at its worst sample
    salto_validate_opts o;
    salto_validate_opts_default(&o);
    int n = 0;
    const double worst = salto_refine_scan(f.p, &v, &o, 0.5, &n, NULL, NULL, NULL);
    ck_assert_int_ge(n, 1);
    ck_assert_double_gt(worst, 1.0);
    double t[64];
    int ph[64];
    ck_assert_int_le(n, 64);
    salto_refine_scan(f.p, &v, &o, 0.5, &n, t, ph, NULL);
    int at_worst = 0;
    for (int k = 0; k < n; k++) {
        ck_assert_int_eq(ph[k], 0);
        at_worst |= fabs(t[k] - c->worst_time) < 1e-12;
    }
    ck_assert_msg(at_worst, "no slice at the worst flight force (t = %.4f)", c->worst_time);
    salto_validation_free(&v);

    // the NLP with those slices added restates every row of the first, by name, and adds
    // rows at the new times only
    ck_assert_int_eq(salto_problem_add_slices(f.p, n, t, ph), n);
    salto_nlp* n1 = salto_nlp_build(f.p, &err);
    ck_assert_ptr_nonnull(n1);
    ck_assert_int_eq(salto_nlp_nx(n1), f.nx);
    const int ng0 = salto_nlp_ng(f.nlp), ng1 = salto_nlp_ng(n1);
    ck_assert_int_gt(ng1, ng0);
    int* map = malloc(sizeof(int) * (size_t)ng1);
    ck_assert_ptr_nonnull(map);
    ck_assert_int_eq(salto_nlp_map_rows(f.nlp, n1, map), ng0);
    int fresh = 0;
    for (int r = 0; r < ng1; r++) {
        char a[600], b[600];
        if (map[r] < 0) {
            fresh++;
            continue;
        }
        salto_nlp_row_name(n1, r, a, sizeof a);
        salto_nlp_row_name(f.nlp, map[r], b, sizeof b);
        ck_assert_str_eq(a, b);
    }
    ck_assert_int_eq(fresh, ng1 - ng0);
    free(map);
    salto_nlp_destroy(n1);

    // a warm start from a solution and its own multipliers stays there
    f.p->nextra = 0;
    salto_multipliers mu = {malloc(sizeof(double) * (size_t)ng0), malloc(sizeof(double) * (size_t)f.nx),
                            malloc(sizeof(double) * (size_t)f.nx)};
    ck_assert(mu.g && mu.x_lo && mu.x_hi);
    ck_assert_int_eq(salto_solve_mult(f.nlp, f.x, &mu, 0, 0, NULL, NULL, &res, &err), SALTO_OK);
    ck_assert(res.converged);
    const double obj0 = res.objective;
    const int it0 = res.iterations;
    ck_assert_int_eq(salto_solve_mult(f.nlp, f.x, &mu, 1, 0, NULL, NULL, &res, &err), SALTO_OK);
    ck_assert(res.converged);
    ck_assert_msg(res.iterations <= 10 && res.iterations < it0, "warm: %d iterations, cold %d",
                  res.iterations, it0);
    ck_assert_double_eq_tol(res.objective, obj0, 1e-5 * obj0);
    free(mu.g), free(mu.x_lo), free(mu.x_hi);
    close_problem(&f);

    const char* on[1] = {"solver.refine=4"};
    f = open_problem_set("tests/data/validate/turn2d.yaml", 1, on);
    const int ns0 = salto_problem_slices(f.p, NULL, NULL);
    ck_assert_int_eq(salto_solve_refined(f.p, &f.nlp, f.x, NULL, NULL, &res, &rr, &err), SALTO_OK);
    ck_assert(res.converged);
    ck_assert(!rr.failed);
    ck_assert_int_ge(rr.rounds, 1);
    ck_assert_int_ge(rr.added, 1);
    ck_assert_int_eq(f.p->nextra, rr.added);
    ck_assert_int_eq(salto_problem_slices(f.p, NULL, NULL), ns0 + rr.added);
    ck_assert_int_gt(res.iterations, rr.first_iterations); // the sums of every solve
    ck_assert_int_eq(rr.pending, 0);
    ck_assert_double_le(rr.worst_ratio, 0.5);
    for (int k = 0; k < f.p->nextra; k++) {
        ck_assert_double_gt(f.p->extra_t[k], 0.0);
        ck_assert_double_lt(f.p->extra_t[k], 0.6);
        if (k > 0) ck_assert_double_gt(f.p->extra_t[k], f.p->extra_t[k - 1]);
    }
    salto_validate_opts_from_problem(&o, f.p);
    v = run(&f, &o);
    assert_all_pass(&v, "after refinement");
    salto_validation_free(&v);
    close_problem(&f);
}
END_TEST


// Impacts: a drop landed with an impact (contact.impact: the spline C0 at touchdown) solves,
// and its velocity jumps there by metres a second while the impact check finds the jump
// explained by the floor's impulse at the feet (no impulsive joint torque, the impulse in the
// cone and under the feet), and every other check, the re-simulation included, passes. The
// same motion with the shoulder's velocity jumping too (its control points after the shared
// one moved) fails the impact check, at the touchdown, by the shoulder's impulsive torque.
// Both with a plain fall and a ballistic one (_i 1: the centre of mass on its parabola up to
// the impact; the parabola's velocity at the fall's end is the splines' from the left, the
// landing's still feet the splines' from the right, at the same time: read from one side
// only, the solve did not converge)
START_TEST(test_impact_landing) {
    const char* ballistic[] = {_i ? "phases.fall.ballistic=true" : "phases.fall.ballistic=false"};
    fixture f = open_problem_set("tests/data/validate/drop2d.yaml", 1, ballistic);
    ck_assert_int_eq(f.p->phases[0].ballistic, _i);
    salto_solve_result res;
    salto_refine_result rr;
    solve_refined(&f, &res, &rr);
    ck_assert_msg(res.converged, "ballistic %d: not converged", _i);
    const salto_model* m = f.p->model;
    const int nv = m->nv;
    const double tb = f.p->phases[1].start;
    double qa[16], qda[16], qdda[16], qb[16], qdb[16], qddb[16];
    ck_assert_int_le(nv, 16);
    salto_nlp_state(f.nlp, f.x, tb - 1e-9, qa, qda, qdda);
    salto_nlp_state(f.nlp, f.x, tb + 1e-9, qb, qdb, qddb);
    double jump = 0.0;
    for (int j = 0; j < nv; j++) {
        ck_assert_double_eq_tol(qa[j], qb[j], 1e-6); // continuous
        jump = fmax(jump, fabs(qdb[j] - qda[j]));
    }
    ck_assert_msg(jump > 1.0, "the landing's velocity jumps by %.3g only", jump);
    salto_validation v = run(&f, NULL);
    assert_all_pass(&v, "the drop landed with an impact");
    const salto_check* c = find(&v, SALTO_CHECK_IMPACT, 1);
    ck_assert_int_eq(c->nsample, 1);
    ck_assert_double_lt(c->worst, 1e-3);
    salto_validation_free(&v);

    // the shoulder's control points after the one the two segments share, moved: q stays
    // continuous, its velocity jumps
    double* knots = calloc((size_t)f.p->ncp, sizeof(double));
    ck_assert_ptr_nonnull(knots);
    salto_bspline sp;
    ck_assert_int_eq(salto_problem_knots(f.p, knots), f.p->ncp - 4);
    ck_assert_int_eq(salto_bspline_init_knots(&sp, f.p->ncp, f.p->duration, knots), SALTO_OK);
    double N[4], dN[4], ddN[4];
    const int fr = salto_bspline_basis_side(&sp, tb, 1, N, dN, ddN);
    salto_bspline_release(&sp);
    free(knots);
    int shoulder = -1;
    for (int j = 0; j < nv; j++) shoulder = strcmp(m->link_name[j], "shoulder") == 0 ? j : shoulder;
    ck_assert_int_ge(shoulder, 0);
    for (int a = fr + 1; a < f.p->ncp; a++) f.x[shoulder * f.p->ncp + a] += 0.05;
    v = run(&f, NULL);
    c = find(&v, SALTO_CHECK_IMPACT, 1);
    ck_assert_msg(!c->pass, "a shoulder jump passes the impact check: %.3g", c->worst);
    ck_assert_double_eq_tol(c->worst_time, tb, 1e-6);
    salto_validation_free(&v);
    close_problem(&f);
}
END_TEST


// An impact shared among links: the 3-D humanoid standing still until the landing, where its
// velocity jumps by u = M(q)^-1 (J_l' i_l + J_r' i_r), the jump impulses i_l and i_r under the
// middle of each foot would make (by the articulated-body algorithm with the impulses as
// external forces, less its result without them; the jump added to the spline as a line
// through the landing's triple knot, so q stays continuous). Judged as a landing on both
// feet, the impact check finds the jump explained (the right foot's share found by least
// squares); judged as a landing on the left foot alone, the right leg's share is an impulsive
// joint torque, and fails.
START_TEST(test_impact_shared_among_feet) {
    const char* left[] = {"phases.land.contact.sites=[heel_l, toe_l]"};
    double worst[2];
    for (int k = 0; k < 2; k++) {
        fixture f = open_problem_set("tests/data/problems/land3d.yaml", k, left);
        const salto_model* m = f.p->model;
        const int nv = m->nv, ncp = f.p->ncp;
        ck_assert_int_eq(f.p->phases[1].contact.impact, 1);
        ck_assert_int_eq(salto_contact_links(m, &f.p->phases[1].contact, NULL, NULL), k ? 1 : 2);
        const double tb = f.p->phases[1].start;
        for (int i = 0; i < f.nx; i++) f.x[i] = 0.0;
        // the jump: the impulses at the middle of each foot
        salto_data* d = salto_data_create(m);
        double* fext = calloc((size_t)nv * 6, sizeof(double));
        double qdd0[64];
        ck_assert_ptr_nonnull(fext);
        ck_assert_int_le(nv, 64);
        ck_assert_int_eq(salto_aba(m, d, fext), SALTO_OK);
        memcpy(qdd0, d->qdd, sizeof(double) * (size_t)nv);
        const char* feet[2][2] = {{"heel_l", "toe_l"}, {"heel_r", "toe_r"}};
        const double imp[2][3] = {{5.0, 2.0, 120.0}, {-3.0, -1.0, 90.0}};
        salto_fk(m, d, SALTO_FK_POS);
        for (int b = 0; b < 2; b++) {
            double xh[3], xt[3], mid[3], w[6];
            salto_site_pos(m, d, site(m, feet[b][0]), xh);
            salto_site_pos(m, d, site(m, feet[b][1]), xt);
            for (int c = 0; c < 3; c++) mid[c] = 0.5 * (xh[c] + xt[c]);
            salto_point_force(w, mid, imp[b]);
            const int link = m->site_link[site(m, feet[b][0])];
            for (int c = 0; c < 6; c++) fext[6 * link + c] += w[c];
        }
        ck_assert_int_eq(salto_aba(m, d, fext), SALTO_OK);
        // the jump on the spline: control point a after the knot gets u (greville_a - tb)
        double* knots = calloc((size_t)ncp, sizeof(double));
        ck_assert_ptr_nonnull(knots);
        salto_bspline sp;
        salto_problem_knots(f.p, knots);
        ck_assert_int_eq(salto_bspline_init_knots(&sp, ncp, f.p->duration, knots), SALTO_OK);
        for (int a = 0; a < ncp; a++) {
            const double xi = salto_bspline_greville(&sp, a);
            if (xi <= tb) continue;
            for (int j = 0; j < nv; j++) f.x[j * ncp + a] += (d->qdd[j] - qdd0[j]) * (xi - tb);
        }
        salto_bspline_release(&sp);
        free(knots), free(fext);
        salto_data_destroy(d);
        double qa[64], qda[64], qb[64], qdb[64], jump = 0.0;
        salto_nlp_state(f.nlp, f.x, tb - 1e-9, qa, qda, NULL);
        salto_nlp_state(f.nlp, f.x, tb + 1e-9, qb, qdb, NULL);
        for (int j = 0; j < nv; j++) { // continuous (but for the jump over the 2 ns between)
            const double uj = qdb[j] - qda[j];
            ck_assert_double_eq_tol(qa[j], qb[j], 1e-9 + 3e-9 * fabs(uj));
            jump = fmax(jump, fabs(uj));
        }
        ck_assert_msg(jump > 0.5, "the landing's velocity jumps by %.3g only", jump);
        salto_validation v = run(&f, NULL);
        const salto_check* c = find(&v, SALTO_CHECK_IMPACT, 1);
        worst[k] = c->worst;
        ck_assert_double_eq_tol(c->worst_time, tb, 1e-6);
        salto_validation_free(&v);
        close_problem(&f);
    }
    ck_assert_msg(worst[0] < 1e-6, "both feet: the impact check finds %.3g N m s", worst[0]);
    ck_assert_msg(worst[1] > 10.0, "the left foot alone: the impact check finds %.3g N m s only", worst[1]);
}
END_TEST


// f's motion judged by the problem with one override: the flight's bounds check fails by at
// least worst
static void judge_bounds(const fixture* f, const char* set, double worst) {
    fixture g = open_problem_set("tests/data/problems/bounds.yaml", 1, &set);
    ck_assert_int_eq(g.nx, f->nx);
    memcpy(g.x, f->x, sizeof(double) * (size_t)f->nx);
    salto_validation v = run(&g, NULL);
    const salto_check* c = find(&v, SALTO_CHECK_BOUNDS, 1);
    ck_assert_msg(!c->pass && c->worst >= worst, "%s: bounds %g", set, c->worst);
    salto_validation_free(&v);
    close_problem(&g);
}


// Bounds through a phase (site_above, com_above): the lamp hop with its base's back edge under a
// ceiling and its centre of mass above a floor through the flight solves to a motion that
// keeps them between the slices too (the bounds check, judged in the flight alone); the same
// motion judged against a ceiling 5 cm below the floor fails it by at least those 5 cm
START_TEST(test_bounds_check) {
    fixture f = open_problem("tests/data/problems/bounds.yaml");
    solve_converged(&f);
    salto_validation v = run(&f, NULL);
    const salto_check* c = find(&v, SALTO_CHECK_BOUNDS, 1);
    ck_assert_msg(c->pass, "bounds: %g m", c->worst);
    for (int k = 0; k < v.ncheck; k++) {
        ck_assert(v.check[k].kind != SALTO_CHECK_BOUNDS || v.check[k].phase == 1);
    }
    salto_validation_free(&v);
    // the same motion judged against a ceiling 5 cm below the floor, a box the centre of mass
    // stays out of (its height above 5 m) and a range of the neck it is nowhere near (170 to
    // 180 degrees): each fails by at least that much
    judge_bounds(&f, "constraints.ceiling.point=[0, 0, -0.05]", 0.05 - 1e-9);
    judge_bounds(&f, "constraints.9={type: com_in_box, min: [null, null, 5.0], phase: flight}", 4.0);
    judge_bounds(&f, "constraints.9={type: joint_range, dofs_deg: {neck: [170, 180]}, phase: flight}", 1.0);
    close_problem(&f);
}
END_TEST


// Torque limits: the zoo's straight jump of the planar gymnast needs 586 N m at the hips;
// with the gymnast's joints limited (shoulder 100, hip 250, knee 250, ankle 150 N m) it solves
// on the defaults to a motion that uses every limit (its peaks within 1% of them) and passes
// every check, the torque check included; the unlimited motion judged against the limits
// fails that check, by the largest excess over the samples of (tau + slope qd) beyond [lo, hi],
// at the DOF it names.
START_TEST(test_torque_limits_hold) {
    static const double lim[4] = {100, 250, 250, 150};
    static const char* const names[4] = {"shoulder", "hip", "knee", "ankle"};
    char path[256], tail[160];
    snprintf(tail, sizeof tail, "\ntorque_limits: {shoulder: %g, hip: %g, knee: %g, ankle: %g}\n",
             lim[0], lim[1], lim[2], lim[3]);
    salto_test_character_with("gymnast7", tail, "validate_limits", path, sizeof path);
    char set[300];
    snprintf(set, sizeof set, "character=%s", path);
    const char* sets[1] = {set};
    fixture f = open_problem_set("problems/zoo/gymnast_straight_jump.yaml", 1, sets);
    ck_assert_int_eq(f.p->model->ntorque, 4);
    solve_converged(&f);
    salto_validation v = run(&f, NULL);
    assert_all_pass(&v, "the limited straight jump");
    const salto_model* m = f.p->model;
    const double thr = salto_check_default_threshold(m, SALTO_CHECK_TORQUE);
    for (int k = 0; k < 4; k++) {
        const int j = dof(m, names[k]);
        ck_assert_msg(v.tau_peak[j] <= lim[k] + thr && v.tau_peak[j] >= 0.99 * lim[k],
                      "%s: peak %.2f N m against its limit %g", names[k], v.tau_peak[j], lim[k]);
    }
    salto_validation_free(&v);

    // the unlimited motion, judged against the limits (the same spline and variables)
    fixture g = open_problem("problems/zoo/gymnast_straight_jump.yaml");
    solve_converged(&g);
    fixture h = open_problem_set("problems/zoo/gymnast_straight_jump.yaml", 1, sets);
    if (g.nx != h.nx) { // refinement changed the slices, not the variables
        ck_abort_msg("variables %d and %d", g.nx, h.nx);
    }
    memcpy(h.x, g.x, (size_t)g.nx * sizeof(double));
    v = run(&h, NULL);
    int failed = 0;
    for (int c = 0; c < v.ncheck; c++) {
        const salto_check* k = &v.check[c];
        if (k->kind != SALTO_CHECK_TORQUE) continue;
        // the largest excess over the phase's samples, from the torques
        double want = -INFINITY;
        int at = -1;
        for (int smp = 0; smp < v.nsample; smp++) {
            if (v.phase[smp] != k->phase) continue;
            for (int q = 0; q < 4; q++) {
                const int j = dof(m, names[q]);
                const double t = v.tau[(size_t)v.nv * smp + j];
                const double e = fmax(t - lim[q], -lim[q] - t);
                if (e > want) want = e, at = j;
            }
        }
        ck_assert_msg(fabs(k->worst - want) <= 1e-9 * (1 + fabs(want)), "phase %d: torque check %.17g, want %.17g",
                      k->phase, k->worst, want);
        if (!k->pass) {
            failed++;
            ck_assert_str_eq(salto_check_at(m, k), m->link_name[at]);
        }
    }
    ck_assert_int_gt(failed, 0);
    salto_validation_free(&v);
    close_problem(&h);
    close_problem(&g);
    close_problem(&f);
    remove(path);
}
END_TEST


// the distance of the segment a-b from the line through p along u, by brute force: 20001 points
// along the segment
static double brute_segment_line(const double* a, const double* b, const double* p, const double* u) {
    double best = INFINITY;
    for (int k = 0; k <= 20000; k++) {
        const double s = k / 20000.0;
        double x[3], pu = 0.0;
        for (int c = 0; c < 3; c++) x[c] = a[c] + s * (b[c] - a[c]) - p[c], pu += x[c] * u[c];
        for (int c = 0; c < 3; c++) x[c] -= pu * u[c];
        best = fmin(best, sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
    }
    return best;
}


// the least distance of the segment a-b from the box lo..hi (x and z alone when planar: the box
// spans every y), by brute force: 20001 points along it, each's distance from the box (minus
// its depth inside: the nearest face's)
static double brute_segment_box(const double a[3], const double b[3], const double lo[3],
                                const double hi[3], int planar) {
    double best = INFINITY;
    for (int n = 0; n <= 20000; n++) {
        const double s = n / 20000.0;
        double out = 0.0, in = INFINITY;
        for (int k = 0; k < 3; k++) {
            if (planar && k == 1) continue;
            const double x = a[k] + s * (b[k] - a[k]);
            const double e = fmax(lo[k] - x, x - hi[k]);
            if (e > 0.0) out += e * e;
            in = fmin(in, -e);
        }
        best = fmin(best, out > 0.0 ? sqrt(out) : -in);
    }
    return best;
}


// boxes: the shipped jump onto a box passes every check (box_clearance among them, the held
// feet on the box's top excepted); that motion judged against the box moved 0.25 m towards the
// take-off, which the flight then passes through, fails box_clearance by the radius less the
// least signed distance of a capsule's axis from the box, found here by brute force
START_TEST(test_boxes) {
    fixture f = open_problem("problems/box_jump_up.yaml");
    solve_converged(&f);
    salto_validation v = run(&f, NULL);
    assert_all_pass(&v, "box_jump_up");
    const salto_check* c = find(&v, SALTO_CHECK_BOX_CLEARANCE, 1);
    ck_assert_msg(c->worst < 0.0, "the flight reaches %g m into the box", c->worst);
    salto_validation_free(&v);

    const char* set[1] = {"boxes.box.center.0=0.75"};
    fixture g = open_problem_set("problems/box_jump_up.yaml", 1, set);
    ck_assert_int_eq(g.nx, f.nx);
    memcpy(g.x, f.x, (size_t)f.nx * sizeof(double));
    v = run(&g, NULL);
    c = NULL;
    for (int i = 0; i < g.p->nphase; i++) {
        const salto_check* ci = find(&v, SALTO_CHECK_BOX_CLEARANCE, i);
        if (!c || ci->worst > c->worst) c = ci;
    }
    ck_assert_msg(!c->pass && c->worst > 0.01, "the moved box is cleared by %g m", -c->worst);
    const salto_model* m = g.p->model;
    salto_data* d = salto_data_create(m);
    salto_nlp_state(g.nlp, g.x, c->worst_time, d->q, d->qd, NULL);
    salto_fk(m, d, SALTO_FK_POS);
    const int ph = salto_problem_phase_at(g.p, c->worst_time);
    double want = -INFINITY;
    for (int gi = 0; gi < m->ngeom; gi++) {
        if (m->geom_link[gi] < 0) continue;
        if (g.p->phases[ph].contact.box == 0 && m->geom_body[gi] == m->site_body[g.p->phases[ph].contact.site[0]]) continue;
        double pts[8][3], r = 0.0;
        const int npt = salto_geom_points(m, d, gi, pts, &r);
        const int cap = m->geom_shape[gi] == SALTO_GEOM_CAPSULE;
        for (int k = 0; k < (cap ? 1 : npt); k++) {
            want = fmax(want, r - brute_segment_box(pts[k], pts[cap ? 1 : k], g.p->boxes[0].lo, g.p->boxes[0].hi, 1));
        }
    }
    ck_assert_msg(fabs(c->worst - want) <= 1e-4, "box_clearance %.9g, brute force %.9g", c->worst, want);
    ck_assert_ptr_nonnull(salto_check_at(m, c));
    salto_data_destroy(d);
    salto_validation_free(&v);
    close_problem(&g);
    close_problem(&f);
}
END_TEST


// clear_bar: the shipped giant swing that clears the bar passes every check; without the
// constraint (an end velocity in its place) the optimum pikes its thighs through the bar, and
// that motion judged with it fails bar_clearance by the radii's sum less the least distance of
// a capsule's axis from the bar's, found here by brute force over the validator's samples
START_TEST(test_clear_bar) {
    fixture f = open_problem("problems/giant_swing_clear.yaml");
    solve_converged(&f);
    salto_validation v = run(&f, NULL);
    assert_all_pass(&v, "giant_swing_clear");
    salto_validation_free(&v);

    const char* set[1] = {"constraints.bar={type: velocity, time: end, dofs: {root_ry: 0}}"};
    fixture g = open_problem_set("problems/giant_swing_clear.yaml", 1, set);
    solve_converged(&g);
    ck_assert_int_eq(g.nx, f.nx);
    memcpy(f.x, g.x, (size_t)g.nx * sizeof(double));
    v = run(&f, NULL);
    const salto_check* c = find(&v, SALTO_CHECK_BAR_CLEARANCE, 0);
    ck_assert_msg(!c->pass && c->worst > 0.03, "the piked swing clears the bar by %g m", -c->worst);
    // the worst sample again, by brute force
    const salto_model* m = f.p->model;
    const salto_constraint_desc* bar = NULL;
    for (int k = 0; k < f.p->ncon; k++) {
        if (f.p->cons[k].type == SALTO_CON_CLEAR_BAR) bar = &f.p->cons[k];
    }
    ck_assert_ptr_nonnull(bar);
    salto_data* d = salto_data_create(m);
    salto_nlp_state(f.nlp, f.x, c->worst_time, d->q, d->qd, NULL);
    salto_fk(m, d, SALTO_FK_POS);
    double want = -INFINITY;
    for (int gi = 0; gi < m->ngeom; gi++) {
        if (m->geom_link[gi] < 0 || salto_problem_grips_bar(f.p, m->geom_link[gi])) continue;
        double pts[8][3], r = 0.0;
        const int npt = salto_geom_points(m, d, gi, pts, &r);
        const int cap = m->geom_shape[gi] == SALTO_GEOM_CAPSULE;
        for (int k = 0; k < (cap ? 1 : npt); k++) {
            want = fmax(want, r + bar->height - brute_segment_line(pts[k], pts[cap ? 1 : k], bar->point, bar->dir));
        }
    }
    ck_assert_msg(fabs(c->worst - want) <= 1e-7, "bar_clearance %.9g, brute force %.9g", c->worst, want);
    ck_assert_str_eq(salto_check_at(m, c), "thighs");
    salto_data_destroy(d);
    salto_validation_free(&v);
    close_problem(&g);
    close_problem(&f);
}
END_TEST


// Shipped problems solve on the default settings (no spline, solver or formulation lines in
// their files: knots by spacing and the first solve on 20 control points, the flights
// ballistic, the landings impacts) to motions that pass every check with the default
// thresholds, the re-simulation included, with no refinement asked for: a first motion that
// fails its validation is refined, up to four rounds (the lamp's, since 2026-11-27: one slice
// added), and if that does not make it pass, solved denser. Both dismounts, the lamp's hop and
// the monkey bars (the leaps and the back tuck take 2-10 s each: cli_test.sh checks them).
START_TEST(test_shipped_problems_pass) {
    static const char* const path[] = {"problems/highbar_dismount.yaml",
                                       "problems/highbar_dismount_08.yaml",
                                       "problems/luxo_jump.yaml", "problems/monkey_bars.yaml"};
    fixture f = open_problem(path[_i]);
    ck_assert_int_eq(f.p->warmup, 1);
    ck_assert_double_eq(f.p->knot_spacing, SALTO_DEFAULT_KNOT_SPACING);
    ck_assert_int_eq(f.p->solver.refine, 0);
    if (_i < 3) {
        ck_assert(f.p->phases[1].ballistic);
        ck_assert(f.p->phases[2].contact.impact);
        ck_assert_int_eq(f.p->solver.flight_rows, SALTO_FLIGHT_MOMENTUM_ENDS);
    }
    salto_solve_result res;
    salto_refine_result rr;
    solve_refined(&f, &res, &rr);
    ck_assert_msg(res.converged, "%s: %s", path[_i], res.status_name);
    if (!rr.auto_refined) ck_assert_int_eq(rr.added, 0);
    if (rr.auto_refined && !rr.auto_undone) ck_assert_int_gt(rr.added, 0);
    if (_i == 2) ck_assert_msg(rr.auto_refined && !rr.auto_undone, "the lamp's motion not refined");
    ck_assert_int_eq(res.iterations, rr.warmup_iterations + rr.first_iterations +
                                         rr.refine_iterations + rr.denser_iterations);
    salto_validate_opts o;
    salto_validate_opts_from_problem(&o, f.p);
    salto_validation v = run(&f, &o);
    assert_all_pass(&v, f.p->path);
    ck_assert(v.pass);
    salto_validation_free(&v);
    close_problem(&f);
}
END_TEST


// The default spline (no spline settings in the file): the zoo's giant swing and kip, written
// from the docs, solve through the first solve on 20 control points and then on knots every
// 0.05 s with two slices each, and pass every check, the re-simulation included; on 20
// control points and 20 slices alone (what the default was) the bar's torque between the
// slices fails
START_TEST(test_default_spline_is_physical) {
    static const char* const path[] = {"problems/zoo/giant_swing.yaml", "problems/zoo/kip.yaml"};
    for (int k = 0; k < 2; k++) {
        fixture f = open_problem(path[k]);
        ck_assert_int_eq(f.p->warmup, 1);
        ck_assert_double_eq(f.p->knot_spacing, SALTO_DEFAULT_KNOT_SPACING);
        salto_solve_result res;
        salto_refine_result rr;
        solve_refined(&f, &res, &rr);
        ck_assert_msg(res.converged, "%s: %s", path[k], res.status_name);
        ck_assert_msg(rr.warmup_iterations > 0 && rr.warmup_status[0], "%s: no first solve", path[k]);
        ck_assert_int_eq(res.iterations, rr.warmup_iterations + rr.first_iterations);
        ck_assert_str_eq(rr.denser_status, ""); // passed: no denser solve
        salto_validation v = run(&f, NULL);
        assert_all_pass(&v, path[k]);
        salto_validation_free(&v);
        close_problem(&f);
    }
    const char* coarse[] = {"spline.control_points=20"};
    fixture f = open_problem_set(path[0], 1, coarse);
    ck_assert_int_eq(f.p->warmup, 0);
    salto_solve_result res;
    salto_refine_result rr;
    solve_refined(&f, &res, &rr);
    ck_assert(res.converged);
    ck_assert_int_eq(rr.warmup_iterations, 0);
    ck_assert_str_eq(rr.warmup_status, "");
    salto_validation v = run(&f, NULL);
    const salto_check* c = find(&v, SALTO_CHECK_BAR_TORQUE, 0);
    ck_assert_msg(!c->pass, "the coarse giant swing's bar torque passes: %.3g", c->worst);
    salto_validation_free(&v);
    close_problem(&f);
}
END_TEST


// salto_solve_first is salto_solve_refined's first solve alone: on the zoo's giant swing (the
// default spline) the coarse solve and then the fine one, the same iterations as the refined
// solve's first two, the same motion
START_TEST(test_solve_first_is_the_first_solve) {
    fixture f = open_problem("problems/zoo/giant_swing.yaml");
    fixture g = open_problem("problems/zoo/giant_swing.yaml");
    ck_assert_int_eq(f.p->warmup, 1);
    salto_solve_result res, coarse, ref;
    salto_refine_result rr;
    salto_error err = {0};
    ck_assert_int_eq(salto_solve_first(f.p, f.nlp, f.x, NULL, NULL, &res, &coarse, &err), SALTO_OK);
    solve_refined(&g, &ref, &rr);
    ck_assert(res.converged && ref.converged);
    ck_assert_int_gt(coarse.iterations, 0);
    ck_assert_int_eq(coarse.iterations, rr.warmup_iterations);
    ck_assert_int_eq(res.iterations, rr.warmup_iterations + rr.first_iterations);
    ck_assert_int_eq(f.nx, g.nx);
    for (int i = 0; i < f.nx; i++) ck_assert_double_eq(f.x[i], g.x[i]);
    close_problem(&f);
    close_problem(&g);
}
END_TEST


// Constraints that restate another exactly are freed before the solve: the lamp's hop with its
// end pose stated twice has three equality rows dependent at the guess and near it with a
// twin, the second statement's (named at its line); freed, the rows are no longer equalities,
// and the hop solves to a motion that passes every check (with them it passed 31 of 32). A
// dependency of the guess alone (the zoo's hop up: the flight's momentum rows at its
// symmetric start) frees nothing, nor one among several rows that stays nearby (the zoo's
// squat jump: its second foot's hold at the start, implied by the first foot's and the start
// pose), nor reach3d's (its start pose's root roll and yaw against the feet's holds), which
// solves as it did.
START_TEST(test_restated_rows_are_freed) {
    fixture f = open_problem("tests/data/problems/restated.yaml");
    const int ng = salto_nlp_ng(f.nlp);
    int* dep = malloc(sizeof(int) * (size_t)ng);
    ck_assert_ptr_nonnull(dep);
    int n = -1;
    salto_error err = {0};
    ck_assert_int_eq(salto_nlp_restated_rows(f.nlp, f.x, dep, &n, &err), SALTO_OK);
    ck_assert_int_eq(n, 3);
    for (int k = 0; k < n; k++) {
        char name[600];
        salto_nlp_row_name(f.nlp, dep[k], name, sizeof name);
        ck_assert_msg(strstr(name, "pose '") && strstr(name, "restated.yaml:26:5"), "%s", name);
    }
    salto_solve_result res;
    salto_refine_result rr;
    solve_refined(&f, &res, &rr);
    ck_assert_int_eq(rr.freed, 3);
    ck_assert_msg(strstr(rr.freed_row[0], "restated.yaml:26:5"), "%s", rr.freed_row[0]);
    ck_assert(res.converged);
    ck_assert_int_eq(salto_nlp_restated_rows(f.nlp, f.x, dep, &n, &err), SALTO_OK);
    ck_assert_int_eq(n, 0);
    salto_validation v = run(&f, NULL);
    assert_all_pass(&v, "the hop with its end pose stated twice");
    salto_validation_free(&v);
    free(dep);
    close_problem(&f);
    fixture g = open_problem("problems/zoo/lamp_hop_up.yaml");
    int* dep2 = malloc(sizeof(int) * (size_t)salto_nlp_ng(g.nlp));
    int rank = 0, n0 = 0;
    ck_assert_ptr_nonnull(dep2);
    ck_assert_int_eq(salto_nlp_jac_rank(g.nlp, g.x, &rank, dep2, &n0, &err), SALTO_OK);
    ck_assert_int_gt(n0, 0); // dependent at the guess
    ck_assert_int_eq(salto_nlp_restated_rows(g.nlp, g.x, dep2, &n, &err), SALTO_OK);
    ck_assert_int_eq(n, 0); // but not near it
    free(dep2);
    close_problem(&g);
    static const char* const several[] = {"problems/zoo/humanoid_squat_jump.yaml", "problems/reach3d.yaml"};
    for (int k = 0; k < 2; k++) {
        fixture h = open_problem(several[k]);
        int* d3 = malloc(sizeof(int) * (size_t)salto_nlp_ng(h.nlp));
        double* xp = malloc(sizeof(double) * (size_t)h.nx);
        ck_assert(d3 && xp);
        salto_nlp_nearby_point(h.nlp, h.x, xp);
        ck_assert_int_eq(salto_nlp_jac_rank(h.nlp, xp, &rank, d3, &n0, &err), SALTO_OK);
        ck_assert_msg(n0 > 0, "%s: independent near the guess", several[k]); // dependent there too
        ck_assert_int_eq(salto_nlp_restated_rows(h.nlp, h.x, d3, &n, &err), SALTO_OK);
        ck_assert_msg(n == 0, "%s: %d rows freed", several[k], n);
        free(d3), free(xp);
        close_problem(&h);
    }
}
END_TEST


// The denser solve: the zoo's drop and rebound, on the default spline with the paper's flight
// rows (f0 = 0 at the slices; with the default momentum_ends it passes at once), converges
// with two slices a segment to a motion that fails its validation; refined (four rounds) it
// still fails, so that motion is solved once more with three slices a segment, fails fewer
// checks and is kept: the problem's slices are three a segment, the NLP
// is built on them, and the overrides motion.json records load the same spline and slices
// again
START_TEST(test_denser_solve_kept) {
    const char* force[] = {"solver.flight_rows=force"};
    fixture f = open_problem_set("problems/zoo/drop_rebound.yaml", 1, force);
    const int ng2 = salto_nlp_ng(f.nlp);
    salto_solve_result res;
    salto_refine_result rr;
    solve_refined(&f, &res, &rr);
    ck_assert(res.converged);
    ck_assert_msg(rr.denser_status[0], "no denser solve");
    ck_assert_msg(rr.denser_kept, "the denser solve (%s) not kept", rr.denser_status);
    ck_assert_int_eq(rr.denser_slices_per_segment, SALTO_DEFAULT_SLICES_PER_SEGMENT + 1);
    ck_assert(rr.auto_refined && rr.auto_undone);
    ck_assert_int_eq(f.p->nextra, 0); // the refinement's slices taken back
    ck_assert_int_eq(res.iterations, rr.warmup_iterations + rr.first_iterations +
                                         rr.refine_iterations + rr.denser_iterations);
    ck_assert_int_eq(f.p->slices_per_segment, SALTO_DEFAULT_SLICES_PER_SEGMENT + 1);
    ck_assert_int_eq(f.p->nslice, salto_problem_slices(f.p, NULL, NULL));
    ck_assert_int_gt(salto_nlp_ng(f.nlp), ng2);
    ck_assert_int_eq(f.p->nset, 3); // the force rows, and the two spline keys
    ck_assert_str_eq(f.p->set[0], force[0]);
    salto_error err = {0};
    salto_problem_desc* again = salto_problem_load_set(f.p->path, f.p->nset, (const char* const*)f.p->set, &err);
    ck_assert_msg(again != NULL, "%s", err.msg);
    ck_assert_int_eq(again->ncp, f.p->ncp);
    ck_assert_int_eq(again->nslice, f.p->nslice);
    ck_assert_int_eq(again->slices_per_segment, f.p->slices_per_segment);
    salto_problem_destroy(again);
    close_problem(&f);
}
END_TEST


// The denser solve also follows a solve stopped at its iteration limit (kept only if it
// converges): the giant swing with every solve capped at 10 iterations runs it, and keeps
// the first motion when it stops there too
START_TEST(test_denser_solve_after_limit) {
    const char* cap[] = {"solver.max_iterations=10"};
    fixture f = open_problem_set("problems/zoo/giant_swing.yaml", 1, cap);
    const int sps = f.p->slices_per_segment;
    salto_solve_result res;
    salto_refine_result rr;
    solve_refined(&f, &res, &rr);
    ck_assert(!res.converged);
    ck_assert_str_eq(res.status_name, "Maximum_Iterations_Exceeded");
    ck_assert_msg(rr.denser_status[0], "no denser solve after the iteration limit");
    ck_assert_int_eq(rr.denser_after_limit, 1);
    ck_assert_int_eq(rr.denser_kept, 0);
    ck_assert_int_eq(f.p->slices_per_segment, sps);
    ck_assert_int_eq(f.p->nset, 1);
    close_problem(&f);
}
END_TEST


// solver.refine_time: a budget the first solve already spent starts no refinement round; the
// motion is the first solve's, the places it would refine still pending
START_TEST(test_refinement_time_budget) {
    const char* budget[] = {"solver.refine=4", "solver.refine_time=1e-9"};
    fixture f = open_problem_set("tests/data/problems/hop_far.yaml", 2, budget);
    salto_solve_result res;
    salto_refine_result rr;
    solve_refined(&f, &res, &rr);
    ck_assert(res.converged);
    ck_assert_int_eq(rr.out_of_time, 1);
    ck_assert_int_eq(rr.rounds, 0);
    ck_assert_int_eq(rr.added, 0);
    ck_assert_int_gt(rr.pending, 0);
    ck_assert_int_eq(res.iterations, rr.warmup_iterations + rr.first_iterations);
    close_problem(&f);
}
END_TEST


// Refinement on the default spline stops at a round that does not help: every scan but the
// first and the last found a motion better (a lower worst ratio) than every scan before it,
// a stalled refinement's last did not, and the motion returned is the best one scanned. The
// tutorial's farther hop, whose first motion fails at the take-off, with four rounds allowed
// (which rounds help depends on the BLAS kernel; these hold under all of them)
START_TEST(test_refinement_stops_when_no_better) {
    const char* four[] = {"solver.refine=4"};
    fixture f = open_problem_set("tests/data/problems/hop_far.yaml", 1, four);
    ck_assert_double_gt(f.p->knot_spacing, 0.0);
    salto_solve_result res;
    salto_refine_result rr;
    solve_refined(&f, &res, &rr);
    ck_assert_int_ge(rr.nscan, 2); // the first motion fails: refinement ran
    ck_assert_int_le(rr.nscan, 5);
    double best = rr.scan_worst[0];
    for (int k = 1; k < rr.nscan; k++) {
        const double w = rr.scan_worst[k];
        if (k < rr.nscan - 1) {
            ck_assert_msg(w < best, "scan %d: %.6g after a best of %.6g, and refinement went on", k, w, best);
        } else if (rr.stalled) {
            ck_assert_msg(!(w < best), "stalled at a scan that improved: %.6g < %.6g", w, best);
        }
        best = fmin(best, w);
    }
    ck_assert_double_eq(rr.worst_ratio, best);
    ck_assert_int_eq(rr.kept_earlier, rr.scan_worst[rr.nscan - 1] > best);
    close_problem(&f);
}
END_TEST


// A body held on the ground by one site can turn about it: its other points keep their
// clearance rows and the penetration check (the lamp's base on its back edge alone, the edge
// on the floor (the hold's effective root), tilted 0.3 rad nose down: its front edge, 0.18 m
// ahead, 0.18 sin 0.3 = 5.3 cm under the floor in the initial guess); held by two sites it is
// held flat, and neither applies to it
START_TEST(test_one_site_hold_keeps_clearance) {
    const char* flat[] = {"phases.rest.contact.sites=[base_front, base_back]"};
    int base_rows[2] = {0, 0}, nslice[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        fixture f = open_problem_set("tests/data/problems/tilted_base.yaml", k, flat);
        nslice[k] = salto_problem_slices(f.p, NULL, NULL);
        for (int r = 0; r < salto_nlp_ng(f.nlp); r++) {
            char name[600];
            salto_nlp_row_name(f.nlp, r, name, sizeof name);
            base_rows[k] += strstr(name, "above_ground") && strstr(name, "body 'base'");
        }
        salto_validation v = run(&f, NULL);
        const salto_check* c = find(&v, SALTO_CHECK_PENETRATION, 0);
        if (k == 0) {
            ck_assert_msg(!c->pass, "the base 5.3 cm under the floor passes: %.4g m", c->worst);
            ck_assert_double_eq_tol(c->worst, 0.18 * sin(0.3), 1e-6);
        } else {
            ck_assert_msg(c->pass && c->worst == 0.0, "the base held flat: %.4g m", c->worst);
        }
        salto_validation_free(&v);
        close_problem(&f);
    }
    // one site: the box's 8 corners less the 2 at the held edge (planar: x and z), at every
    // slice; two sites: none
    ck_assert_int_eq(nslice[0], nslice[1]);
    ck_assert_int_eq(base_rows[0], 6 * nslice[0]);
    ck_assert_int_eq(base_rows[1], 0);
}
END_TEST


// A body held on the ground by one site that lies inside its geometry's rounded end: the
// gymnast on its hands, the hands site 3.7 cm past the arm capsule's end, within its 4.5 cm
// radius. Wherever the site touches the floor that end's surface reaches 8.2 mm under it at
// best (the rows for it made a back handspring infeasible), so both the optimiser's
// above_ground row and the penetration check keep that end's centre above the floor instead
// of its surface; the shoulder end keeps its full row. In the handstand (the arms vertical)
// every arms row holds, the hand end's at its centre's height, 3.68 cm
START_TEST(test_hold_inside_rounded_end) {
    fixture f = open_problem("tests/data/problems/handstand.yaml");
    const int nslice = salto_problem_slices(f.p, NULL, NULL);
    const int ng = salto_nlp_ng(f.nlp);
    double* g = calloc((size_t)ng, sizeof(double));
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(salto_nlp_eval_g(f.nlp, f.x, g), SALTO_OK);
    int arm_rows = 0;
    double lowest = INFINITY;
    for (int r = 0; r < ng; r++) {
        char name[600];
        salto_nlp_row_name(f.nlp, r, name, sizeof name);
        if (!strstr(name, "above_ground") || !strstr(name, "body 'arms'")) continue;
        arm_rows++;
        lowest = fmin(lowest, g[r]);
    }
    free(g);
    ck_assert_int_eq(arm_rows, 2 * nslice); // both ends at every slice
    ck_assert_msg(fabs(lowest - (0.6368 - 0.60)) < 1e-6, "the arms' lowest row %.6g m, not the hand "
                  "end's centre height 0.0368 m (its surface would be -0.0082)", lowest);
    salto_validation v = run(&f, NULL);
    const salto_check* c = find(&v, SALTO_CHECK_PENETRATION, 0);
    ck_assert_msg(c->pass, "the hand's end of the arms, which holds the site, judged by its surface: %.4g m",
                  c->worst);
    salto_validation_free(&v);
    close_problem(&f);
}
END_TEST


// ---- contact wrenches, joint torques, re-simulation ----

// the distribution's cost: sum |f_b|^2 + |n_b about the centroid c_b|^2 / l^2, l = 0.1 m
static double wrench_cost(int nw, const double* w, const double (*c)[3]) {
    double cost = 0.0;
    for (int b = 0; b < nw; b++) {
        const double* n = w + 6 * b;
        const double* f = n + 3;
        double cf[3];
        cf[0] = c[b][1] * f[2] - c[b][2] * f[1];
        cf[1] = c[b][2] * f[0] - c[b][0] * f[2];
        cf[2] = c[b][0] * f[1] - c[b][1] * f[0];
        for (int k = 0; k < 3; k++) cost += f[k] * f[k] + (n[k] - cf[k]) * (n[k] - cf[k]) / 0.01;
    }
    return cost;
}


// Physical claim: the contact wrenches sum to f0, and among wrenches that do they are the
// least costly: the cost's first variation along random exchanges between the two hands
// (z on one, -z on the other, so the sum stays) is zero and its second positive. One link
// takes f0 whole.
START_TEST(test_contact_wrenches_sum_and_minimise) {
    fixture f = open_problem("tests/data/nlp/contacts3d.yaml");
    const salto_model* m = f.p->model;
    salto_data* d = salto_data_create(m);
    salto_test_rng rng;
    const uint64_t seed = 20261124;
    salto_test_rng_seed(&rng, seed);
    const double times[3] = {0.05, 0.17, 0.61}; // hang (two hands), hang, land (one foot)
    for (int k = 0; k < 3; k++) {
        const int ph = times[k] < 0.3 ? 0 : 2;
        salto_nlp_state(f.nlp, f.x, times[k], d->q, d->qd, d->qdd);
        salto_rnea(m, d, NULL);
        int link[8];
        double w[48], sum[6] = {0};
        const int nw = salto_contact_wrenches(f.p, ph, d, link, w);
        ck_assert_int_eq(nw, ph == 0 ? 2 : 1);
        for (int b = 0; b < nw; b++) {
            for (int c = 0; c < 6; c++) sum[c] += w[6 * b + c];
        }
        const double scale = 1.0 + salto_test_maxabs(d->f0, 6);
        for (int c = 0; c < 6; c++) {
            ck_assert_msg(fabs(sum[c] - d->f0[c]) <= 1e-10 * scale, "t = %.2f: sum %.12g, f0 %.12g",
                          times[k], sum[c], d->f0[c]);
        }
        if (nw < 2) continue;
        // the links' sites' centroids
        double cen[2][3] = {{0}};
        const salto_contact_desc* ct = &f.p->phases[ph].contact;
        for (int b = 0; b < 2; b++) {
            int cnt = 0;
            for (int s = 0; s < ct->nsite; s++) {
                if (m->site_link[ct->site[s]] != link[b]) continue;
                double x[3];
                salto_site_pos(m, d, ct->site[s], x);
                for (int c = 0; c < 3; c++) cen[b][c] += x[c];
                cnt++;
            }
            for (int c = 0; c < 3; c++) cen[b][c] /= cnt;
        }
        const double c0 = wrench_cost(2, w, (const double (*)[3])cen);
        for (int trial = 0; trial < 5; trial++) {
            double z[6], wp[12], wm[12];
            for (int c = 0; c < 6; c++) z[c] = salto_test_uniform(&rng, -1.0, 1.0);
            const double eps = 1e-3 * (1.0 + sqrt(c0));
            for (int c = 0; c < 6; c++) {
                wp[c] = w[c] + eps * z[c], wp[6 + c] = w[6 + c] - eps * z[c];
                wm[c] = w[c] - eps * z[c], wm[6 + c] = w[6 + c] + eps * z[c];
            }
            const double cp = wrench_cost(2, wp, (const double (*)[3])cen);
            const double cm = wrench_cost(2, wm, (const double (*)[3])cen);
            const double first = (cp - cm) / (2 * eps), second = (cp - 2 * c0 + cm) / (eps * eps);
            ck_assert_msg(fabs(first) <= 1e-6 * sqrt(c0) * (1.0 + second), "seed %llu, t = %.2f: "
                          "first variation %.3g (cost %.6g)", (unsigned long long)seed, times[k], first, c0);
            ck_assert_msg(second > 0.0, "seed %llu: second variation %.3g", (unsigned long long)seed, second);
        }
    }
    salto_data_destroy(d);
    close_problem(&f);
}
END_TEST


// Equality of two algorithms: the joint torques of the motion's inverse dynamics with its
// contact wrenches (RNEA), given back with those wrenches to the articulated-body algorithm,
// reproduce the motion's accelerations; in contact phases the root needs no torque. The
// re-simulation's acceleration at the motion's own state is the motion's, held sites and all
// (its constraint forces vanish). Planar (a hold on tilted ground, a bar not held) and 3-D
// (two hands on a bar, a foot), at motions off any solution. Off the motion, the two ways of
// building the constraint matrix agree.
START_TEST(test_torques_reproduce_motion) {
    const char* files[2] = {"tests/data/nlp/contacts2d.yaml", "tests/data/nlp/contacts3d.yaml"};
    for (int fi = 0; fi < 2; fi++) {
        fixture f = open_problem(files[fi]);
        const salto_model* m = f.p->model;
        const int nv = m->nv;
        salto_data* d = salto_data_create(m);
        salto_data* d2 = salto_data_create(m);
        salto_resim* r = salto_resim_create(f.p, nlp_state_fn, &f);
        ck_assert_ptr_nonnull(r);
        double tau[32], fext[32 * 6], qdd[32], q[32], qd[32];
        salto_error err = {0};
        for (int i = 0; i < f.p->nphase; i++) {
            const salto_phase_desc* ph = &f.p->phases[i];
            ck_assert_int_eq(salto_resim_begin(r, i, ph->start + 1e-9, q, qd, &err), SALTO_OK);
            for (int k = 1; k < 4; k++) {
                const double t = ph->start + ph->duration * k / 4.0;
                salto_nlp_state(f.nlp, f.x, t, d->q, d->qd, d->qdd);
                salto_rnea(m, d, NULL);
                int link[8];
                double w[48];
                const int nw = salto_contact_wrenches(f.p, i, d, link, w);
                salto_contact_torques(m, d, nw, link, w, tau);
                const double scale = 1.0 + salto_test_maxabs(d->f0, 6);
                if (ph->contact.type != SALTO_CONTACT_NONE) {
                    for (int j = 0; j < m->nroot; j++) {
                        ck_assert_msg(fabs(tau[j]) <= 1e-9 * scale, "%s, t = %.3f: root torque %d "
                                      "%.3g", files[fi], t, j, tau[j]);
                    }
                }
                memset(fext, 0, sizeof fext);
                for (int b = 0; b < nw; b++) {
                    for (int c = 0; c < 6; c++) fext[6 * link[b] + c] += w[6 * b + c];
                }
                memcpy(d2->q, d->q, (size_t)nv * sizeof(double));
                memcpy(d2->qd, d->qd, (size_t)nv * sizeof(double));
                memcpy(d2->tau, tau, (size_t)nv * sizeof(double));
                ck_assert_int_eq(salto_aba(m, d2, fext), SALTO_OK);
                const double qscale = 1.0 + salto_test_maxabs(d->qdd, nv);
                for (int j = 0; j < nv; j++) {
                    ck_assert_msg(fabs(d2->qdd[j] - d->qdd[j]) <= 1e-8 * qscale, "%s, t = %.3f, "
                                  "DOF %d: ABA %.10g, motion %.10g", files[fi], t, j, d2->qdd[j], d->qdd[j]);
                }
                if (ph->contact.type == SALTO_CONTACT_NONE) continue; // flight: f0 is not applied
                ck_assert_int_eq(salto_resim_accel(r, t, d->q, d->qd, qdd, &err), SALTO_OK);
                for (int j = 0; j < nv; j++) {
                    ck_assert_msg(fabs(qdd[j] - d->qdd[j]) <= 1e-7 * qscale, "%s, t = %.3f, "
                                  "DOF %d: re-simulation %.10g, motion %.10g", files[fi], t, j, qdd[j], d->qdd[j]);
                }
                // off the motion (every joint spun at 1 rad/s), the constraint matrix by full
                // passes (Kokkevis 4.2) and by the delta method (4.3) give the same acceleration
                double qd2[32], qa[32], qb[32];
                for (int j = 0; j < nv; j++) qd2[j] = d->qd[j] + (j >= m->nroot ? 1.0 : 0.0);
                salto_resim_set_method(r, SALTO_CONSTRAINT_TEST_FORCES);
                ck_assert_int_eq(salto_resim_accel(r, t, d->q, qd2, qa, &err), SALTO_OK);
                salto_resim_set_method(r, SALTO_CONSTRAINT_ABA_DELTA);
                ck_assert_int_eq(salto_resim_accel(r, t, d->q, qd2, qb, &err), SALTO_OK);
                const double ascale = 1.0 + salto_test_maxabs(qa, nv);
                double off = 0.0;
                for (int j = 0; j < nv; j++) {
                    ck_assert_msg(fabs(qa[j] - qb[j]) <= 1e-8 * ascale, "%s, t = %.3f, DOF %d: test "
                                  "forces %.10g, deltas %.10g", files[fi], t, j, qa[j], qb[j]);
                    off = fmax(off, fabs(qa[j] - d->qdd[j]));
                }
                ck_assert_double_gt(off, 1e-3 * qscale); // the constraint forces are at work
            }
        }
        salto_resim_destroy(r);
        salto_data_destroy(d);
        salto_data_destroy(d2);
        close_problem(&f);
    }
}
END_TEST


// Held sites follow the motion's: the standing fixture sliding forward at 2 m/s^2 (its held
// heel and toe accelerating): at the motion's state the re-simulation's acceleration is the
// motion's. Then, re-simulated from a state kicked off the motion (the knee and hip spun at
// 2 rad/s), the heel and toe return to the motion's place at the constraint's critically
// damped rate (error v t exp(-20 t) at most at 0.3 s), while the joints keep their kick.
START_TEST(test_held_sites_return) {
    {
        fixture g = standing(0.1, 2.0);
        const salto_model* m = g.p->model;
        salto_resim* r = salto_resim_create(g.p, nlp_state_fn, &g);
        ck_assert_ptr_nonnull(r);
        double q[16], qd[16], qdd[16], qm[16], qdm[16], qddm[16];
        salto_error err = {0};
        ck_assert_int_eq(salto_resim_begin(r, 0, 1e-9, q, qd, &err), SALTO_OK);
        for (int k = 1; k < 5; k++) {
            const double t = 0.1 * k;
            salto_nlp_state(g.nlp, g.x, t, qm, qdm, qddm);
            ck_assert_int_eq(salto_resim_accel(r, t, qm, qdm, qdd, &err), SALTO_OK);
            for (int j = 0; j < m->nv; j++) {
                ck_assert_msg(fabs(qdd[j] - qddm[j]) <= 1e-8 * (1.0 + fabs(qddm[j])), "t = %.2f, DOF %d: "
                              "re-simulation %.10g, motion %.10g", t, j, qdd[j], qddm[j]);
            }
        }
        salto_resim_destroy(r);
        close_problem(&g);
    }
    fixture f = standing(0.0, 0.0);
    const salto_model* m = f.p->model;
    salto_resim* r = salto_resim_create(f.p, nlp_state_fn, &f);
    ck_assert_ptr_nonnull(r);
    double q[16], qd[16];
    salto_error err = {0};
    ck_assert_int_eq(salto_resim_begin(r, 0, 1e-9, q, qd, &err), SALTO_OK);
    qd[dof(m, "knee")] += 2.0;
    qd[dof(m, "hip")] -= 2.0;
    salto_data* d = salto_data_create(m);
    memcpy(d->q, q, sizeof(double) * (size_t)m->nv);
    memcpy(d->qd, qd, sizeof(double) * (size_t)m->nv);
    salto_fk(m, d, SALTO_FK_VEL);
    double v0[3];
    salto_site_vel(m, d, site(m, "toe"), v0);
    const double kick = salto_v3_norm(v0);
    ck_assert_double_gt(kick, 0.01); // the kick moves the toe
    ck_assert_int_eq(salto_resim_advance(r, SALTO_INTEGRATOR_RK4, 1e-9, 0.3, 1e-3, q, qd, &err), SALTO_OK);
    memcpy(d->q, q, sizeof(double) * (size_t)m->nv);
    salto_fk(m, d, SALTO_FK_POS);
    salto_data* dm = salto_data_create(m);
    salto_nlp_state(f.nlp, f.x, 0.3, dm->q, dm->qd, dm->qdd);
    salto_fk(m, dm, SALTO_FK_POS);
    const char* names[2] = {"heel", "toe"};
    for (int k = 0; k < 2; k++) {
        double xs[3], xm[3];
        salto_site_pos(m, d, site(m, names[k]), xs);
        salto_site_pos(m, dm, site(m, names[k]), xm);
        const double e[3] = {xs[0] - xm[0], xs[1] - xm[1], xs[2] - xm[2]};
        ck_assert_msg(salto_v3_norm(e) <= 1.05 * kick * 0.3 * exp(-20.0 * 0.3), "%s %.3g m from "
                      "the motion's (kick %.3g m/s)", names[k], salto_v3_norm(e), kick);
    }
    ck_assert_double_gt(fabs(q[dof(m, "knee")] - dm->q[dof(m, "knee")]), 0.05);
    salto_data_destroy(d);
    salto_data_destroy(dm);
    salto_resim_destroy(r);
    close_problem(&f);
}
END_TEST


// A ground contact held by one site holds its link's orientation too: the standing fixture
// held by the heel alone, re-simulated from a state kicked off the motion (the ankle spun at
// 2 rad/s, turning the foot about the heel): the foot's angle returns to the motion's at the
// constraint's critically damped rate (error w0 t exp(-20 t) at most at 0.3 s, w0 the kick's
// rate of the foot), the heel too, and at the motion's own state the re-simulation's
// acceleration is the motion's. Held by its sites alone the foot would be an inverted pendulum
// about the heel, free to keep turning.
START_TEST(test_one_site_hold_keeps_orientation) {
    const char* heel[] = {"phases.stand.contact.sites=[heel]"};
    fixture f = standing_set(0.0, 0.0, 1, heel);
    const salto_model* m = f.p->model;
    const int foot = m->site_link[site(m, "heel")];
    salto_resim* r = salto_resim_create(f.p, nlp_state_fn, &f);
    ck_assert_ptr_nonnull(r);
    double q[16], qd[16], qdd[16], qm[16], qdm[16], qddm[16];
    salto_error err = {0};
    ck_assert_int_eq(salto_resim_begin(r, 0, 1e-9, q, qd, &err), SALTO_OK);
    salto_nlp_state(f.nlp, f.x, 0.2, qm, qdm, qddm);
    ck_assert_int_eq(salto_resim_accel(r, 0.2, qm, qdm, qdd, &err), SALTO_OK);
    for (int j = 0; j < m->nv; j++) {
        ck_assert_msg(fabs(qdd[j] - qddm[j]) <= 1e-8 * (1.0 + fabs(qddm[j])), "DOF %d: "
                      "re-simulation %.10g, motion %.10g", j, qdd[j], qddm[j]);
    }
    qd[dof(m, "ankle")] += 2.0;
    salto_data* d = salto_data_create(m);
    salto_data* dm = salto_data_create(m);
    memcpy(d->q, q, sizeof(double) * (size_t)m->nv);
    memcpy(d->qd, qd, sizeof(double) * (size_t)m->nv);
    salto_fk(m, d, SALTO_FK_VEL);
    salto_nlp_state(f.nlp, f.x, 1e-9, dm->q, dm->qd, dm->qdd);
    salto_fk(m, dm, SALTO_FK_VEL);
    const double w0 = fabs(d->V[6 * foot + 1] - dm->V[6 * foot + 1]);
    ck_assert_double_gt(w0, 0.5); // the kick turns the foot
    ck_assert_int_eq(salto_resim_advance(r, SALTO_INTEGRATOR_RK4, 1e-9, 0.3, 1e-3, q, qd, &err), SALTO_OK);
    memcpy(d->q, q, sizeof(double) * (size_t)m->nv);
    salto_fk(m, d, SALTO_FK_POS);
    salto_nlp_state(f.nlp, f.x, 0.3, dm->q, dm->qd, dm->qdd);
    salto_fk(m, dm, SALTO_FK_POS);
    // the foot's angle about y between the two: from R_m R_s' (planar: a rotation about y)
    const double* Rs = d->R + 9 * foot;
    const double* Rm = dm->R + 9 * foot;
    const double s02 = Rm[0] * Rs[6] + Rm[1] * Rs[7] + Rm[2] * Rs[8];  // (Rm Rs')[0][2]
    const double s00 = Rm[0] * Rs[0] + Rm[1] * Rs[1] + Rm[2] * Rs[2];  // (Rm Rs')[0][0]
    const double angle = fabs(atan2(s02, s00));
    ck_assert_msg(angle <= 1.05 * w0 * 0.3 * exp(-20.0 * 0.3), "the foot %.3g rad off the "
                  "motion's (kick %.3g rad/s)", angle, w0);
    double xs[3], xm[3];
    salto_site_pos(m, d, site(m, "heel"), xs);
    salto_site_pos(m, dm, site(m, "heel"), xm);
    const double e[3] = {xs[0] - xm[0], xs[1] - xm[1], xs[2] - xm[2]};
    ck_assert_double_lt(salto_v3_norm(e), 1e-3);
    salto_data_destroy(d);
    salto_data_destroy(dm);
    salto_resim_destroy(r);
    close_problem(&f);
}
END_TEST


// a reference motion made by forward simulation: the flight fixture's gymnast tumbling with
// its joints driven by smooth torques, integrated by RK4 at a fine step; its state anywhere by
// quintic Hermite interpolation of q, qd, qdd between steps (error far below the tests')
typedef struct sim_ref {
    const salto_model* m;
    int n;            // steps
    double h;         // s
    double* q;        // (n + 1) x nv, and qd, qdd
    double* qd;
    double* qdd;
    int bump;         // DOF given a bump, -1 for none
    double bump_t;    // its centre, s
    double gain[16];  // the joints' inertias at the start (M's diagonal)
} sim_ref;

static const double ref_pose[7] = {0, 1.0, 0, 1.0, -0.6, 0.9, 0.2};

// the joints driven towards a swaying pose (inside the limits) by springs and dampers scaled
// by each joint's inertia (about 10 /s: smooth, so the motion has no fast transients)
static void ref_torque(const sim_ref* r, double t, const double* q, const double* qd,
                       double* tau) {
    for (int j = 0; j < r->m->nv; j++) {
        const double target = ref_pose[j] + 0.25 * sin(6.0 * t + j);
        tau[j] = j < r->m->nroot ? 0.0 : r->gain[j] * (100.0 * (target - q[j]) - 15.0 * qd[j]);
    }
}

static void ref_accel(const sim_ref* r, salto_data* d, double t, const double* q,
                      const double* qd, double* qdd) {
    const salto_model* m = r->m;
    memcpy(d->q, q, sizeof(double) * (size_t)m->nv);
    memcpy(d->qd, qd, sizeof(double) * (size_t)m->nv);
    ref_torque(r, t, q, qd, d->tau);
    ck_assert_int_eq(salto_aba(m, d, NULL), SALTO_OK);
    memcpy(qdd, d->qdd, sizeof(double) * (size_t)m->nv);
}

static sim_ref make_ref(const salto_model* m, double T, int n) {
    const int nv = m->nv;
    sim_ref r = {m, n, T / n, NULL, NULL, NULL, -1, 0.0, {0}};
    r.q = calloc((size_t)(n + 1) * nv, sizeof(double));
    r.qd = calloc((size_t)(n + 1) * nv, sizeof(double));
    r.qdd = calloc((size_t)(n + 1) * nv, sizeof(double));
    ck_assert(r.q && r.qd && r.qdd);
    salto_data* d = salto_data_create(m);
    const double vel[7] = {1.5, 2.9, -4.0, 0.5, -0.3, 0.2, 0.0};
    for (int j = 0; j < nv; j++) r.q[j] = d->q[j] = ref_pose[j], r.qd[j] = vel[j];
    double M[16 * 16];
    ck_assert_int_le(nv, 16);
    salto_crba(m, d, M);
    for (int j = 0; j < nv; j++) r.gain[j] = M[j * nv + j];
    double k[4][2][16], y[2][16];
    for (int s = 0; s <= n; s++) {
        const double t = s * r.h;
        double* q = r.q + s * nv;
        double* qd = r.qd + s * nv;
        ref_accel(&r, d, t, q, qd, r.qdd + s * nv);
        if (s == n) break;
        static const double c[4] = {0, 0.5, 0.5, 1};
        for (int stg = 0; stg < 4; stg++) {
            for (int j = 0; j < nv; j++) {
                y[0][j] = q[j] + (stg ? c[stg] * r.h * k[stg - 1][0][j] : 0.0);
                y[1][j] = qd[j] + (stg ? c[stg] * r.h * k[stg - 1][1][j] : 0.0);
            }
            memcpy(k[stg][0], y[1], sizeof(double) * (size_t)nv);
            ref_accel(&r, d, t + c[stg] * r.h, y[0], y[1], k[stg][1]);
        }
        for (int j = 0; j < nv; j++) {
            q[nv + j] = q[j] + r.h / 6 * (k[0][0][j] + 2 * k[1][0][j] + 2 * k[2][0][j] + k[3][0][j]);
            qd[nv + j] = qd[j] + r.h / 6 * (k[0][1][j] + 2 * k[1][1][j] + 2 * k[2][1][j] + k[3][1][j]);
        }
    }
    salto_data_destroy(d);
    return r;
}

static void free_ref(sim_ref* r) { free(r->q), free(r->qd), free(r->qdd); }

static void ref_state(void* ctx, double t, double* q, double* qd, double* qdd) {
    const sim_ref* r = ctx;
    const int nv = r->m->nv;
    int s = (int)floor(t / r->h);
    if (s < 0) s = 0;
    if (s > r->n - 1) s = r->n - 1;
    const double h = r->h, u = (t - s * h) / h;
    // quintic Hermite basis on [0, 1] (value, first and second derivative at each end)
    const double u2 = u * u, u3 = u2 * u, u4 = u3 * u, u5 = u4 * u;
    const double H[6] = {1 - 10 * u3 + 15 * u4 - 6 * u5, u - 6 * u3 + 8 * u4 - 3 * u5,
                         0.5 * (u2 - 3 * u3 + 3 * u4 - u5), 10 * u3 - 15 * u4 + 6 * u5,
                         -4 * u3 + 7 * u4 - 3 * u5, 0.5 * (u3 - 2 * u4 + u5)};
    const double D[6] = {-30 * u2 + 60 * u3 - 30 * u4, 1 - 18 * u2 + 32 * u3 - 15 * u4,
                         0.5 * (2 * u - 9 * u2 + 12 * u3 - 5 * u4), 30 * u2 - 60 * u3 + 30 * u4,
                         -12 * u2 + 28 * u3 - 15 * u4, 0.5 * (3 * u2 - 8 * u3 + 5 * u4)};
    const double E[6] = {-60 * u + 180 * u2 - 120 * u3, -36 * u + 96 * u2 - 60 * u3,
                         0.5 * (2 - 18 * u + 36 * u2 - 20 * u3), 60 * u - 180 * u2 + 120 * u3,
                         -24 * u + 84 * u2 - 60 * u3, 0.5 * (6 * u - 24 * u2 + 20 * u3)};
    for (int j = 0; j < nv; j++) {
        const double a[6] = {r->q[s * nv + j], h * r->qd[s * nv + j], h * h * r->qdd[s * nv + j],
                             r->q[(s + 1) * nv + j], h * r->qd[(s + 1) * nv + j],
                             h * h * r->qdd[(s + 1) * nv + j]};
        double x = 0, dx = 0, ddx = 0;
        for (int b = 0; b < 6; b++) x += H[b] * a[b], dx += D[b] * a[b], ddx += E[b] * a[b];
        q[j] = x, qd[j] = dx / h, qdd[j] = ddx / (h * h);
        if (j == r->bump) { // 0.2 rad, 20 ms wide
            const double sg = 0.02, z = (t - r->bump_t) / sg, g = 0.2 * exp(-z * z);
            q[j] += g, qd[j] += g * (-2 * z / sg), qdd[j] += g * (4 * z * z - 2) / (sg * sg);
        }
    }
}


// the block's torque-free turn about its principal axis x, along world x: root_rx = 2 pi t at a
// constant rate, the centre of mass falling freely from 5 m, the rest still
static void sideflip_state(void* ctx, double t, double* q, double* qd, double* qdd) {
    (void)ctx;
    const double g = 9.81, w = 2.0 * 3.14159265358979323846;
    for (int j = 0; j < 6; j++) q[j] = qd[j] = qdd[j] = 0.0;
    q[2] = 5.0 - 0.5 * g * t * t, qd[2] = -g * t, qdd[2] = -g;
    q[4] = w * t, qd[4] = w; // root_rx, the middle of [y, x, z]
}


// Physical claim: a free body's motion through any orientation re-simulates. The root's Euler
// angles [y, x, z] are singular where root_rx is +-90 deg (the massless links' articulated
// inertia singular there): the re-simulation broke down at the quarter turn (drift infinite from
// t = 0.25 s) until it integrated in another chart there (resim.c, "charts"); now the drift
// over the whole turn is rounding.
START_TEST(resim_turns_through_gimbal_lock) {
    fixture f = open_problem("tests/data/orient/sideflip3d.yaml");
    salto_validate_opts o;
    salto_validate_opts_default(&o);
    salto_validation v;
    salto_error err = {0};
    ck_assert_int_eq(salto_validate_motion(f.p, sideflip_state, NULL, &o, &v, &err), SALTO_OK);
    ck_assert_msg(isnan(v.resim_stop[0]), "the re-simulation stopped at t = %g s", v.resim_stop[0]);
    ck_assert_double_le(find(&v, SALTO_CHECK_DRIFT_ROOT, 0)->worst, 1e-9);
    ck_assert_double_le(find(&v, SALTO_CHECK_DRIFT_ROTATION, 0)->worst, 1e-9);
    ck_assert_double_le(find(&v, SALTO_CHECK_DRIFT_COM, 0)->worst, 1e-9);
    ck_assert_double_le(find(&v, SALTO_CHECK_FLIGHT_TORQUE, 0)->worst, 1e-9);
    ck_assert(v.pass);
    salto_validation_free(&v);
    close_problem(&f);
}
END_TEST


// the re-simulation's drift at the end of the flight fixture's one phase (root, rotation,
// joints summed), by integrator at step h, sampled once per slice interval
static double flight_drift(fixture* f, sim_ref* ref, salto_integrator integ, double h,
                           salto_validation* keep) {
    salto_validate_opts o;
    salto_validate_opts_default(&o);
    o.density = 1;
    o.integrator = integ;
    o.step = h;
    salto_validation v;
    salto_error err = {0};
    ck_assert_int_eq(salto_validate_motion(f->p, ref_state, ref, &o, &v, &err), SALTO_OK);
    const double e = find(&v, SALTO_CHECK_DRIFT_ROOT, 0)->worst + find(&v, SALTO_CHECK_DRIFT_ROTATION, 0)->worst +
                     find(&v, SALTO_CHECK_DRIFT_JOINTS, 0)->worst;
    if (keep) {
        *keep = v;
    } else {
        salto_validation_free(&v);
    }
    return e;
}


// Physical claim: a motion made by forward simulation of a free-flying character passes
// every check, and its re-simulation's drift shrinks at the integrator's order as the step
// halves (RK4: by 16, semi-implicit Euler: by 2).
START_TEST(test_simulated_flight_passes_and_converges) {
    fixture f = open_problem("tests/data/validate/flight2d.yaml");
    sim_ref ref = make_ref(f.p->model, f.p->duration, 6000);
    salto_validation v;
    salto_validate_opts o;
    salto_validate_opts_default(&o);
    salto_error err = {0};
    ck_assert_int_eq(salto_validate_motion(f.p, ref_state, &ref, &o, &v, &err), SALTO_OK);
    assert_all_pass(&v, "the simulated flight");
    // the torques the validator finds are the ones that drove the motion
    double tau[16], q[16], qd[16], qdd[16];
    for (int s = 0; s < v.nsample; s += 7) {
        ref_state(&ref, v.t[s], q, qd, qdd);
        ref_torque(&ref, v.t[s], q, qd, tau);
        for (int j = f.p->model->nroot; j < v.nv; j++) {
            ck_assert_msg(fabs(v.tau[s * v.nv + j] - tau[j]) < 1e-6 * (1.0 + fabs(tau[j])), "t = %.3f, DOF %d: %.9g, drove %.9g",
                          v.t[s], j, v.tau[s * v.nv + j], tau[j]);
        }
    }
    salto_validation_free(&v);
    const double r1 = flight_drift(&f, &ref, SALTO_INTEGRATOR_RK4, 0.01, NULL);
    const double r2 = flight_drift(&f, &ref, SALTO_INTEGRATOR_RK4, 0.005, NULL);
    const double r3 = flight_drift(&f, &ref, SALTO_INTEGRATOR_RK4, 0.0025, NULL);
    // the observed order from the finest pair, log2 of the ratio (the coarser pair is not yet
    // asymptotic: 11)
    ck_assert_msg(r1 / r2 > 8 && log2(r2 / r3) > 3.7 && log2(r2 / r3) < 4.3,
                  "RK4 drift %.3g, %.3g, %.3g: ratios %.2f, %.2f (order 4: 16)", r1, r2, r3, r1 / r2, r2 / r3);
    const double e1 = flight_drift(&f, &ref, SALTO_INTEGRATOR_EULER, 0.004, NULL);
    const double e2 = flight_drift(&f, &ref, SALTO_INTEGRATOR_EULER, 0.002, NULL);
    const double e3 = flight_drift(&f, &ref, SALTO_INTEGRATOR_EULER, 0.001, NULL);
    ck_assert_msg(e1 / e2 > 1.8 && e1 / e2 < 2.2 && e2 / e3 > 1.8 && e2 / e3 < 2.2,
                  "Euler drift %.3g, %.3g, %.3g: ratios %.2f, %.2f (order 1: 2)", e1, e2, e3, e1 / e2, e2 / e3);
    free_ref(&ref);
    close_problem(&f);
}
END_TEST


// the same motion with the hip bumped by 0.2 rad in mid-flight fails the flight checks at the
// bump, and the re-simulation (which cannot follow it) drifts from there on
START_TEST(test_simulated_flight_bumped_fails_there) {
    fixture f = open_problem("tests/data/validate/flight2d.yaml");
    sim_ref ref = make_ref(f.p->model, f.p->duration, 6000);
    ref.bump = dof(f.p->model, "hip");
    ref.bump_t = 0.31;
    salto_validation v;
    salto_error err = {0};
    ck_assert_int_eq(salto_validate_motion(f.p, ref_state, &ref, NULL, &v, &err), SALTO_OK);
    ck_assert(!v.pass);
    const salto_check* c = find(&v, SALTO_CHECK_FLIGHT_TORQUE, 0);
    ck_assert(!c->pass);
    ck_assert_msg(fabs(c->worst_time - 0.31) < 0.02, "flight torque worst at %.4f s", c->worst_time);
    const salto_check* b = find(&v, SALTO_CHECK_DRIFT_JOINTS, 0);
    ck_assert(!b->pass);
    for (int s = 0; s < v.nsample && v.t[s] < 0.23; s++) {
        ck_assert_double_lt(v.violation[SALTO_CHECK_COUNT * s + SALTO_CHECK_DRIFT_JOINTS], 1e-4);
    }
    salto_validation_free(&v);
    free_ref(&ref);
    close_problem(&f);
}
END_TEST


START_TEST(test_names_round_trip) {
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) {
        ck_assert_int_eq(salto_check_parse(salto_check_name((salto_check_kind)k)), k);
        ck_assert_str_ne(salto_check_unit((salto_check_kind)k), "");
    }
    for (int k = 0; k < SALTO_INTEGRATOR_COUNT; k++) {
        ck_assert_int_eq(salto_integrator_parse(salto_integrator_name((salto_integrator)k)), k);
    }
    ck_assert_int_eq(salto_integrator_parse("rk45"), -1);
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


// salto_validation_worst: of the judged checks that fail, the largest violation over its
// threshold (a zero threshold: infinitely over), never a passing or unjudged one; none when all
// judged pass. salto_validation_verdict's words follow pass and physics.
START_TEST(test_worst_and_verdict) {
    salto_check c[5] = {
        {.kind = SALTO_CHECK_FLIGHT_FORCE, .worst = 30.0, .threshold = 10.0, .pass = 0, .judged = 1},
        {.kind = SALTO_CHECK_COP, .worst = 50.0, .threshold = 10.0, .pass = 0, .judged = 1},
        {.kind = SALTO_CHECK_SLIP, .worst = 900.0, .threshold = 1.0, .pass = 0, .judged = 0},
        {.kind = SALTO_CHECK_TWIST, .worst = 0.5, .threshold = 1.0, .pass = 1, .judged = 1},
        {.kind = SALTO_CHECK_SPIN, .worst = 2.0, .threshold = 1.0, .pass = 0, .judged = 1},
    };
    salto_validation v = {.ncheck = 5, .check = c, .njudged = 4, .npassed = 1, .pass = 0};
    double r = -1.0;
    ck_assert_ptr_eq(salto_validation_worst(&v, &r), &c[1]);
    ck_assert_double_eq_tol(r, 5.0, 1e-15);
    c[4].threshold = 0.0;
    ck_assert_ptr_eq(salto_validation_worst(&v, &r), &c[4]);
    ck_assert(isinf(r));
    ck_assert_ptr_eq(salto_validation_worst(&v, NULL), &c[4]);
    for (int k = 0; k < 5; k++) c[k].pass = c[k].judged ? 1 : c[k].pass;
    v.pass = 1, v.npassed = 4;
    ck_assert_ptr_null(salto_validation_worst(&v, &r));
    ck_assert_double_eq(r, 0.0);
    salto_problem_desc p = {.physics = 1};
    ck_assert_str_eq(salto_validation_verdict(&p, &v), "the motion is physical within the thresholds");
    p.physics = 0;
    ck_assert_str_eq(salto_validation_verdict(&p, &v),
                     "the motion keeps its kinematic constraints within the thresholds");
    v.pass = 0;
    ck_assert_str_eq(salto_validation_verdict(&p, &v), "FAILED");
}
END_TEST


Suite* validate_suite(void) {
    Suite* s = suite_create("validate");
    TCase* tc = tcase_create("validate");
    tcase_add_test(tc, test_names_round_trip);
    tcase_add_test(tc, test_worst_and_verdict);
    tcase_add_test(tc, test_force_equals_com_acceleration);
    tcase_add_test(tc, test_rigid_flight_passes);
    tcase_add_test(tc, test_perturbed_flight_fails_there);
    tcase_add_test(tc, test_ballistic_flight_has_no_force);
    tcase_add_test(tc, test_standing_passes);
    tcase_add_test(tc, test_leaning_fails_cop);
    tcase_add_test(tc, test_sliding_fails_friction_and_slip);
    tcase_add_test(tc, test_solved_monkey_bars_pass);
    tcase_add_test(tc, test_kinematic_problems_judge_kinematics);
    tcase_add_test(tc, test_hand_slipping_along_bar_fails_slip);
    tcase_add_test(tc, test_refinement_makes_flight_pass);
    tcase_add_loop_test(tc, test_impact_landing, 0, 2);
    tcase_add_test(tc, test_bounds_check);
    tcase_add_test(tc, test_torque_limits_hold);
    tcase_add_test(tc, test_clear_bar);
    tcase_add_test(tc, test_boxes);
    tcase_add_loop_test(tc, test_shipped_problems_pass, 0, 4);
    tcase_add_test(tc, test_default_spline_is_physical);
    tcase_add_test(tc, test_solve_first_is_the_first_solve);
    tcase_add_test(tc, test_restated_rows_are_freed);
    tcase_add_test(tc, test_denser_solve_kept);
    tcase_add_test(tc, test_refinement_time_budget);
    tcase_add_test(tc, test_refinement_stops_when_no_better);
    tcase_add_test(tc, test_one_site_hold_keeps_clearance);
    tcase_add_test(tc, test_hold_inside_rounded_end);
    tcase_add_test(tc, test_denser_solve_after_limit);
    tcase_add_test(tc, test_contact_wrenches_sum_and_minimise);
    tcase_add_test(tc, test_torques_reproduce_motion);
    tcase_add_test(tc, test_held_sites_return);
    tcase_add_test(tc, test_one_site_hold_keeps_orientation);
    tcase_add_test(tc, test_impact_shared_among_feet);
    tcase_add_test(tc, test_simulated_flight_passes_and_converges);
    tcase_add_test(tc, resim_turns_through_gimbal_lock);
    tcase_add_test(tc, test_simulated_flight_bumped_fails_there);
    tcase_add_test(tc, test_nonfinite_motion_is_an_error);
    tcase_add_test(tc, test_out_of_memory);
    suite_add_tcase(s, tc);
    return s;
}
