// test_sim.c: the stepping simulator's physical claims: rest without drift, friction on a
// slope, bounce height, joint limits, momentum in flight, determinism, the two ways of
// building the constraint matrix
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/character.h"
#include "salto/dca.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/model.h"
#include "salto/sim.h"
#include "salto/spatial.h"
#include "test_suites.h"
#include "test_util.h"

static const double pi = 3.14159265358979323846;

static salto_model* load(const char* rel) {
    salto_error err = {0};
    salto_model* m = salto_model_load(salto_test_path(rel), &err);
    ck_assert_msg(m != NULL, "%s: %s", rel, err.msg);
    return m;
}

static int dof(const salto_model* m, const char* name) {
    const int j = salto_model_dof(m, name);
    ck_assert_msg(j >= 0, "no DOF %s", name);
    return j;
}

static int site(const salto_model* m, const char* name) {
    const int k = salto_model_site(m, name);
    ck_assert_msg(k >= 0, "no site %s", name);
    return k;
}

static void run(salto_sim* s, int steps) {
    salto_error err = {0};
    for (int k = 0; k < steps; k++) {
        ck_assert_msg(salto_sim_step(s, &err) == SALTO_OK, "step %d: %s", k, err.msg);
    }
}


// A box resting flat on the ground stays at rest: after 10 s at 1 ms steps it has not moved
// by 1e-9 m or rad, and no velocity above 1e-9 appears in its last second (no jitter).
START_TEST(box_rests) {
    salto_model* m = load("tests/data/sim/box.yaml");
    salto_sim* s = salto_sim_create(m, NULL);
    ck_assert_ptr_nonnull(s);
    double q0[6] = {0, 0, 0.05, 0, 0, 0}, qd0[6] = {0};
    salto_sim_set_state(s, q0, qd0);
    run(s, 9000);
    double vmax = 0.0;
    for (int k = 0; k < 1000; k++) {
        run(s, 1);
        vmax = fmax(vmax, salto_test_maxabs(salto_sim_qd(s), 6));
    }
    const double* q = salto_sim_q(s);
    for (int j = 0; j < 6; j++) {
        ck_assert_msg(fabs(q[j] - q0[j]) < 1e-9, "DOF %d moved %.3g in 10 s", j, q[j] - q0[j]);
    }
    ck_assert_msg(vmax < 1e-9, "velocity %.3g in the last second", vmax);
    const salto_sim_contact* c;
    const int nc = salto_sim_contacts(s, &c);
    ck_assert_int_eq(nc, 4); // the four bottom corners
    double fz = 0.0;
    for (int k = 0; k < nc; k++) fz += c[k].force[2];
    ck_assert_double_eq_tol(fz, 2.0 * 9.81, 1e-6); // the contacts carry the weight
    salto_sim_destroy(s);
    salto_model_destroy(m);
}
END_TEST


// a box on a slope of angle th (the plane's normal tilted about y), at rest on it; its
// velocity along the slope after 1 s
static double slope_speed(const salto_model* m, double th, double mu, salto_constraint_method meth,
                          double* q_end) {
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.friction = mu;
    o.method = meth;
    o.ground_normal[0] = sin(th), o.ground_normal[1] = 0.0, o.ground_normal[2] = cos(th);
    salto_sim* s = salto_sim_create(m, &o);
    ck_assert_ptr_nonnull(s);
    // the box's centre 0.05 m above the plane through the origin, turned with it (root_ry)
    double q[6] = {0.05 * sin(th), 0, 0.05 * cos(th), 0, 0, 0}, qd[6] = {0};
    q[dof(m, "root_ry")] = th;
    salto_sim_set_state(s, q, qd);
    run(s, 1000);
    const double* qq = salto_sim_q(s);
    const double* v = salto_sim_qd(s);
    // along the slope, downhill: the plane z = -x tan th falls towards +x: (cos th, 0, -sin th)
    const double speed = cos(th) * v[0] - sin(th) * v[2];
    if (q_end) memcpy(q_end, qq, 6 * sizeof(double));
    salto_sim_destroy(s);
    return speed;
}


// Coulomb friction on a slope: below the friction angle (mu 0.5: 26.6 degrees) the box sticks;
// above it, it slides with acceleration g (sin th - mu cos th)
START_TEST(box_on_slope) {
    salto_model* m = load("tests/data/sim/box.yaml");
    const double mu = 0.5, g = 9.81;
    const double stick = slope_speed(m, 20.0 * pi / 180.0, mu, SALTO_CONSTRAINT_ABA_DELTA, NULL);
    ck_assert_msg(fabs(stick) < 1e-6, "20 degrees: the box slides at %.3g m/s", stick);
    const double th = 35.0 * pi / 180.0;
    const double slide = slope_speed(m, th, mu, SALTO_CONSTRAINT_ABA_DELTA, NULL);
    const double want = g * (sin(th) - mu * cos(th)) * 1.0;
    ck_assert_msg(fabs(slide - want) < 0.01 * want, "35 degrees: %.5f m/s after 1 s, Coulomb says %.5f",
                  slide, want);
    salto_model_destroy(m);
}
END_TEST


// Equality of two algorithms: the constraint matrix by a full pass per test force (Kokkevis
// 4.2) and by the delta method (4.3) give the same sliding box, step for step
START_TEST(methods_agree) {
    salto_model* m = load("tests/data/sim/box.yaml");
    double qa[6], qb[6];
    const double th = 35.0 * pi / 180.0;
    const double va = slope_speed(m, th, 0.5, SALTO_CONSTRAINT_TEST_FORCES, qa);
    const double vb = slope_speed(m, th, 0.5, SALTO_CONSTRAINT_ABA_DELTA, qb);
    ck_assert_double_eq_tol(va, vb, 1e-9);
    for (int j = 0; j < 6; j++) ck_assert_double_eq_tol(qa[j], qb[j], 1e-9);
    salto_model_destroy(m);
}
END_TEST


// A ball dropped from 1 m (its bottom) bounces back to e^2 of that: 0.25 m for e = 0.5
START_TEST(ball_bounces) {
    salto_model* m = load("tests/data/sim/ball.yaml");
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.restitution = 0.5;
    salto_sim* s = salto_sim_create(m, &o);
    double q[3] = {0, 1.1, 0}, qd[3] = {0};
    salto_sim_set_state(s, q, qd);
    const int jz = dof(m, "root_z");
    // fall (0.45 s), bounce, and find the top of the rebound
    double top = 0.0;
    int bounced = 0;
    for (int k = 0; k < 1200; k++) {
        run(s, 1);
        const double z = salto_sim_q(s)[jz] - 0.1, vz = salto_sim_qd(s)[jz];
        if (vz > 0.0) bounced = 1;
        if (bounced) top = fmax(top, z);
    }
    ck_assert(bounced);
    ck_assert_msg(fabs(top - 0.25) < 0.25 * 0.02, "rebound to %.4f m, e^2 h = 0.25 m", top);
    ck_assert_int_ge(salto_sim_get_stats(s)->impacts, 1);
    ck_assert_double_lt(salto_sim_get_stats(s)->max_depth, 2e-3);
    salto_sim_destroy(s);
    salto_model_destroy(m);
}
END_TEST


// Bars: a ball dropped 0.5 m onto a bar (along y, 1 m up; no ground) bounces straight back to
// e^2 of the drop, and one dropped 3 cm off the bar's axis is thrown that way; a stick falling
// flat across the bar comes to rest on it, its middle touching (neither end does)
START_TEST(bars) {
    salto_model* m = load("tests/data/sim/ball.yaml");
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.ground = 0;
    o.restitution = 0.5;
    o.nbar = 1;
    o.bar_point[0][2] = 1.0;
    o.bar_axis[0][1] = 1.0;
    const double touch = 1.0 + 0.02 + 0.1; // the ball's centre when it touches
    for (int off = 0; off < 2; off++) {
        salto_sim* s = salto_sim_create(m, &o);
        double q[3] = {off ? 0.03 : 0.0, touch + 0.5, 0}, qd[3] = {0};
        salto_sim_set_state(s, q, qd);
        double top = -INFINITY;
        int bounced = 0;
        for (int k = 0; k < 700; k++) {
            run(s, 1);
            if (salto_sim_qd(s)[1] > 0.0) bounced = 1;
            if (bounced) top = fmax(top, salto_sim_q(s)[1]);
        }
        ck_assert(bounced);
        if (!off) {
            ck_assert_msg(fabs(top - touch - 0.125) < 0.03 * 0.125, "rebound %.4f m above the touch, "
                          "e^2 h = 0.125", top - touch);
            ck_assert_double_lt(fabs(salto_sim_q(s)[0]), 1e-9);
        } else {
            ck_assert_msg(salto_sim_qd(s)[0] > 0.1, "the ball 3 cm off the axis leaves at %.3g m/s "
                          "sideways", salto_sim_qd(s)[0]);
        }
        salto_sim_destroy(s);
    }
    salto_model_destroy(m);
    m = load("tests/data/sim/stick.yaml");
    salto_sim* s = salto_sim_create(m, &o);
    const double rest = 1.0 + 0.02 + 0.02;
    double q[3] = {0, rest + 0.2, 0}, qd[3] = {0};
    salto_sim_set_state(s, q, qd);
    run(s, 1500);
    ck_assert_msg(fabs(salto_sim_q(s)[1] - rest) < 1e-3, "the stick's centre at %.4f m, resting on "
                  "the bar puts it at %.4f", salto_sim_q(s)[1], rest);
    ck_assert_double_lt(salto_test_maxabs(salto_sim_qd(s), 3), 1e-3);
    const salto_sim_contact* c;
    ck_assert_int_eq(salto_sim_contacts(s, &c), 1);
    ck_assert_double_lt(fabs(c[0].point[0]), 1e-3); // the middle
    ck_assert_double_eq_tol(c[0].force[2], 9.81, 1e-3);
    salto_sim_destroy(s);
    salto_model_destroy(m);
}
END_TEST


// Boxes (no floor): a box set down on a box's top rests there on its four bottom corners, which
// carry its weight, without drifting; a stick dropped flat onto a box's top, its right part
// past the edge, comes to rest on the top, its weight shared by its left end and the edge as
// statics says (the edge a point between the capsule's ends); and pushed off the top, a box
// slides over the edge and falls past the box's side to the floor below
START_TEST(boxes) {
    salto_model* m = load("tests/data/sim/box.yaml");
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.ground = 0;
    o.nbox = 1;
    const double lo[3] = {-1.0, -1.0, 0.0}, hi[3] = {1.0, 1.0, 0.5};
    memcpy(o.box_lo[0], lo, sizeof lo);
    memcpy(o.box_hi[0], hi, sizeof hi);
    salto_sim* s = NULL;
    const double* q = NULL;
    const salto_sim_contact* c;
    for (int turned = 0; turned < 2; turned++) {
        // the same on the box turned 0.5 rad about z (its top still level)
        o.box_yaw[0] = turned ? 0.5 : 0.0;
        s = salto_sim_create(m, &o);
        double q0[6] = {0.2, -0.1, 0.5 + 0.05, 0, 0, 0}, qd0[6] = {0};
        salto_sim_set_state(s, q0, qd0);
        run(s, 2000);
        q = salto_sim_q(s);
        for (int j = 0; j < 6; j++) {
            ck_assert_msg(fabs(q[j] - q0[j]) < 1e-9, "DOF %d moved %.3g in 2 s on the box (yaw %g)", j,
                          q[j] - q0[j], o.box_yaw[0]);
        }
        const int nc = salto_sim_contacts(s, &c);
        ck_assert_int_eq(nc, 4);
        double fz = 0.0;
        for (int k = 0; k < nc; k++) fz += c[k].force[2];
        ck_assert_double_eq_tol(fz, 2.0 * 9.81, 1e-6);
        salto_sim_destroy(s);
    }
    o.box_yaw[0] = 0.0;
    // off the edge: the floor (z = 0) and the box reaching to x = 1, little friction
    o.ground = 1;
    o.friction = 0.2;
    s = salto_sim_create(m, &o);
    double qs[6] = {0.6, 0, 0.5 + 0.05, 0, 0, 0}, qds[6] = {2.0, 0, 0, 0, 0, 0};
    salto_sim_set_state(s, qs, qds);
    run(s, 2000);
    q = salto_sim_q(s);
    ck_assert_msg(q[0] > 1.1 && q[2] < 0.2, "the box pushed off the top is at x %.3f, z %.3f", q[0], q[2]);
    salto_sim_destroy(s);
    salto_model_destroy(m);

    m = load("tests/data/sim/stick.yaml");
    o.ground = 0;
    o.box_hi[0][0] = 0.2; // the box's right edge at x = 0.2, under the stick's right half
    s = salto_sim_create(m, &o);
    const double rest = 0.5 + 0.02;
    double qt[3] = {0, rest + 0.2, 0}, qdt[3] = {0};
    salto_sim_set_state(s, qt, qdt);
    run(s, 1500);
    ck_assert_msg(fabs(salto_sim_q(s)[1] - rest) < 1e-3, "the stick's centre at %.4f m, resting on "
                  "the top puts it at %.4f", salto_sim_q(s)[1], rest);
    ck_assert_double_lt(salto_test_maxabs(salto_sim_qd(s), 3), 1e-3);
    // statics: the weight at x = 0 shared by the left end (x = -0.5) and the edge (x = 0.2):
    // 0.2/0.7 and 0.5/0.7 of it
    double fsum = 0.0, fedge = 0.0, fend = 0.0;
    for (int k = 0; k < salto_sim_contacts(s, &c); k++) {
        fsum += c[k].force[2];
        if (fabs(c[k].point[0] - 0.2) < 1e-6) fedge += c[k].force[2];
        if (fabs(c[k].point[0] + 0.5) < 1e-6) fend += c[k].force[2];
    }
    ck_assert_msg(fabs(fedge - 9.81 * 0.5 / 0.7) < 1e-3 && fabs(fend - 9.81 * 0.2 / 0.7) < 1e-3,
                  "the edge carries %.4f N and the left end %.4f, statics says %.4f and %.4f", fedge,
                  fend, 9.81 * 0.5 / 0.7, 9.81 * 0.2 / 0.7);
    ck_assert_double_eq_tol(fsum, 9.81, 1e-3);
    salto_sim_destroy(s);
    salto_model_destroy(m);
}
END_TEST


// A pendulum released at its lower limit (-60 degrees) swings to its upper one (45 degrees),
// which it reaches and never passes
START_TEST(pendulum_stops_at_limit) {
    salto_model* m = load("tests/data/sim/pendulum.yaml");
    salto_sim* s = salto_sim_create(m, NULL);
    const double lo = -pi / 3.0, hi = pi / 4.0;
    double q[1] = {lo}, qd[1] = {0};
    salto_sim_set_state(s, q, qd);
    double qmax = -INFINITY, qmin = INFINITY;
    for (int k = 0; k < 3000; k++) {
        run(s, 1);
        qmax = fmax(qmax, salto_sim_q(s)[0]);
        qmin = fmin(qmin, salto_sim_q(s)[0]);
    }
    ck_assert_msg(qmax > hi - 1e-3, "the pendulum reaches %.5f, short of its limit %.5f", qmax, hi);
    ck_assert_msg(qmax < hi + 1e-3, "the pendulum passes its limit: %.5f > %.5f", qmax, hi);
    ck_assert_msg(qmin > lo - 1e-3, "the pendulum passes its lower limit: %.5f < %.5f", qmin, lo);
    ck_assert_int_ge(salto_sim_get_stats(s)->limit_events, 1);
    salto_sim_destroy(s);
    salto_model_destroy(m);
}
END_TEST


// momentum in flight: the humanoid tumbling with its joints driven (no ground): its linear
// momentum changes by m g t, its angular momentum about the centre of mass stays (to the
// integrator's first order: 1e-3 of it over 0.5 s at 1 ms)
START_TEST(momentum_in_flight) {
    salto_model* m = load("data/characters/humanoid22.yaml");
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.ground = 0;
    o.joint_limits = 0;
    salto_sim* s = salto_sim_create(m, &o);
    const int nv = m->nv;
    double q[32] = {0}, qd[32] = {0}, tau[32] = {0};
    ck_assert_int_le(nv, 32);
    for (int j = 0; j < nv; j++) qd[j] = j < 6 ? (j == 2 ? 3.0 : 0.0) : 0.5 * sin(j);
    qd[dof(m, "root_ry")] = 3.0;
    qd[dof(m, "root_rz")] = 1.0;
    for (int j = 6; j < nv; j++) tau[j] = 0.3 * cos(j);
    salto_sim_set_state(s, q, qd);
    salto_sim_set_torques(s, tau);
    salto_data* d = salto_data_create(m);
    double h0[6], c0[3], v0[3], L0[3];
    memcpy(d->q, q, sizeof q), memcpy(d->qd, qd, sizeof qd);
    salto_fk(m, d, SALTO_FK_VEL);
    salto_link_inertias(m, d);
    salto_momentum(m, d, h0);
    salto_com(m, d, c0, v0);
    double cx[3];
    salto_v3_cross(cx, c0, h0 + 3);
    for (int k = 0; k < 3; k++) L0[k] = h0[k] - cx[k];
    run(s, 500);
    memcpy(d->q, salto_sim_q(s), (size_t)nv * sizeof(double));
    memcpy(d->qd, salto_sim_qd(s), (size_t)nv * sizeof(double));
    salto_fk(m, d, SALTO_FK_VEL);
    salto_link_inertias(m, d);
    double h1[6], c1[3], v1[3], L1[3];
    salto_momentum(m, d, h1);
    salto_com(m, d, c1, v1);
    salto_v3_cross(cx, c1, h1 + 3);
    for (int k = 0; k < 3; k++) L1[k] = h1[k] - cx[k];
    const double T = salto_sim_time(s);
    for (int k = 0; k < 3; k++) {
        const double want = h0[3 + k] + m->mass * m->gravity[k] * T;
        ck_assert_msg(fabs(h1[3 + k] - want) < 1e-3 * (1.0 + fabs(h0[5]) * m->mass),
                      "linear momentum %d: %.6g, m g t says %.6g", k, h1[3 + k], want);
    }
    const double Ln = salto_v3_norm(L0);
    const double dL[3] = {L1[0] - L0[0], L1[1] - L0[1], L1[2] - L0[2]};
    ck_assert_msg(salto_v3_norm(dL) < 1e-3 * Ln, "angular momentum changed by %.3g of %.3g",
                  salto_v3_norm(dL), Ln);
    salto_data_destroy(d);
    salto_sim_destroy(s);
    salto_model_destroy(m);
}
END_TEST


// Motion control: the humanoid in flight, its joints tracking swaying targets through
// acceleration constraints (Kokkevis 8.3), starts on them and stays within 1e-3 rad over 0.5 s
// (0.47e-3 measured: semi-implicit Euler lags by about h qdd / (2 kd) per step's worth of
// target acceleration, 2e-4 here, and PGS stops at its tolerance). Started 0.1 rad off, the
// error decays as e'' + kd e' + kp e = 0 says: kp = 100, kd = 14.142 (w = 10, damping 0.707)
// leave e0 exp(-7.07 t) (cos 7.07 t + sin 7.07 t) = 0.0695 rad at 0.1 s (Kokkevis's rule of
// thumb, 10% at ts = 1/sqrt(kp), is not what this equation gives). Without tracking it drifts.
static void targets(const salto_model* m, double t, double* q, double* qd, double* qdd) {
    for (int j = 0; j < m->nv; j++) {
        const double a = j < m->nroot ? 0.0 : 0.3, w = 3.0 + 0.1 * j;
        q[j] = a * sin(w * t + j), qd[j] = a * w * cos(w * t + j), qdd[j] = -a * w * w * sin(w * t + j);
    }
}

static double tracked_error(const salto_model* m, double offset, int track, double T) {
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.ground = 0, o.joint_limits = 0;
    salto_sim* s = salto_sim_create(m, &o);
    double q[32], qd[32], qdd[32];
    targets(m, 0.0, q, qd, qdd);
    for (int j = m->nroot; j < m->nv; j++) q[j] += offset;
    salto_sim_set_state(s, q, qd);
    const int n = (int)lround(T / o.dt);
    for (int k = 0; k < n; k++) {
        targets(m, salto_sim_time(s), q, qd, qdd);
        if (track) salto_sim_track(s, q, qd, qdd, 100.0, 14.142);
        run(s, 1);
    }
    targets(m, salto_sim_time(s), q, qd, qdd);
    double e = 0.0;
    for (int j = m->nroot; j < m->nv; j++) e = fmax(e, fabs(salto_sim_q(s)[j] - q[j]));
    salto_sim_destroy(s);
    return e;
}

START_TEST(tracking_follows) {
    salto_model* m = load("data/characters/humanoid22.yaml");
    const double on = tracked_error(m, 0.0, 1, 0.5);
    ck_assert_msg(on < 1e-3, "tracking error %.3g rad after 0.5 s", on);
    const double back = tracked_error(m, 0.1, 1, 0.1);
    const double wd = 7.0710678, decay = exp(-wd * 0.1) * (cos(wd * 0.1) + sin(wd * 0.1));
    ck_assert_msg(fabs(back - 0.1 * decay) < 0.02 * 0.1 * decay, "0.1 rad off: %.4g rad left after "
                  "0.1 s, the error equation says %.4g", back, 0.1 * decay);
    const double off = tracked_error(m, 0.0, 0, 0.5);
    ck_assert_msg(off > 0.05, "without tracking the joints still follow (%.3g)", off);
    salto_model_destroy(m);
}
END_TEST


// A character at rest: the humanoid standing on both feet (its zero pose: soles on the floor),
// its joints holding the pose by tracking, stays put for 10 s: no DOF moves by 1e-8, no
// velocity above 1e-8 in the last second (no jitter), and the eight sole corners carry its
// weight
START_TEST(humanoid_stands_still) {
    salto_model* m = load("data/characters/humanoid22.yaml");
    salto_sim* s = salto_sim_create(m, NULL);
    const int nv = m->nv;
    double zero[32] = {0};
    ck_assert_int_le(nv, 32);
    salto_sim_set_state(s, zero, zero);
    salto_sim_track(s, zero, zero, zero, 400.0, 40.0);
    run(s, 9000);
    double vmax = 0.0;
    for (int k = 0; k < 1000; k++) {
        run(s, 1);
        vmax = fmax(vmax, salto_test_maxabs(salto_sim_qd(s), nv));
    }
    const double qmax = salto_test_maxabs(salto_sim_q(s), nv);
    ck_assert_msg(qmax < 1e-8, "a DOF moved by %.3g in 10 s", qmax);
    ck_assert_msg(vmax < 1e-8, "velocity %.3g in the last second", vmax);
    const salto_sim_contact* c;
    const int nc = salto_sim_contacts(s, &c);
    ck_assert_int_eq(nc, 8);
    double fz = 0.0;
    for (int k = 0; k < nc; k++) fz += c[k].force[2];
    ck_assert_double_eq_tol(fz, m->mass * 9.81, 1e-6 * m->mass * 9.81);
    salto_sim_destroy(s);
    salto_model_destroy(m);
}
END_TEST


// The contact solver converges, and says so: standing tracked (8 contacts, 24 rows on the
// reduced problem's rank-6 matrix) every step's solve meets the residual tolerance in a few
// sweeps; landing from 0.2 m (tracked, e = 0) the penetration left by the impact is gone once
// it has rested (under 0.01 mm 0.6 s after touching down), and the stats count the solves
START_TEST(contact_solver_converges) {
    salto_model* m = load("data/characters/humanoid22.yaml");
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.restitution = 0.0;
    double zero[32] = {0}, q[32] = {0};
    ck_assert_int_le(m->nv, 32);
    for (int drop = 0; drop < 2; drop++) {
        salto_sim* s = salto_sim_create(m, &o);
        q[2] = drop ? 0.2 : 0.0;
        salto_sim_set_state(s, q, zero);
        salto_sim_track(s, zero, zero, zero, 400.0, 40.0);
        const int steps = drop ? 800 : 1000;
        long capped_steps = 0;
        for (int k = 0; k < steps; k++) {
            run(s, 1);
            const salto_sim_stats* st = salto_sim_get_stats(s);
            if (st->step_residual > o.tolerance) capped_steps++;
        }
        const salto_sim_stats* st = salto_sim_get_stats(s);
        ck_assert_int_ge(st->pgs_solves, drop ? 500 : 1000);
        ck_assert_int_ge(st->pgs_capped, capped_steps); // a capped step: a capped solve in it
        if (!drop) {
            ck_assert_msg(st->pgs_sweeps < 5 * steps, "%ld sweeps in %d steps standing",
                          st->pgs_sweeps, steps);
            ck_assert_msg(st->step_residual <= o.tolerance, "residual %.3g", st->step_residual);
            ck_assert_msg(capped_steps <= 5, "%ld steps capped standing", capped_steps);
        }
        const salto_sim_contact* c;
        const int nc = salto_sim_contacts(s, &c);
        ck_assert_int_eq(nc, 8);
        double depth = 0.0;
        for (int k = 0; k < nc; k++) depth = fmax(depth, c[k].depth);
        ck_assert_msg(depth < 1e-5, "resting %.3g m deep (drop %d)", depth, drop);
        salto_sim_destroy(s);
    }
    salto_model_destroy(m);
}
END_TEST


// PD gains as salto bench sim's: M_jj, the joint-space inertia's diagonal at the zero pose
static void pd_gains(const salto_model* m, double* gain) {
    double M[32 * 32];
    ck_assert_int_le(m->nv, 32);
    salto_data* d = salto_data_create(m);
    salto_crba(m, d, M); // at q = 0
    for (int j = 0; j < m->nv; j++) gain[j] = M[m->nv * j + j];
    salto_data_destroy(d);
}

// PD torques toward tq (at rest), M_jj (400 (tq_j - q_j) - 40 qd_j), the root's zero, set on s
static void pd_drive(const salto_model* m, salto_sim* s, const double* gain, const double* tq) {
    double tau[32];
    const double *q = salto_sim_q(s), *qd = salto_sim_qd(s);
    for (int j = 0; j < m->nv; j++) {
        tau[j] = j < m->nroot ? 0.0 : gain[j] * (400.0 * ((tq ? tq[j] : 0.0) - q[j]) - 40.0 * qd[j]);
    }
    salto_sim_set_torques(s, tau);
}


// The subspace step (sim_solve.c, pgs_core): the humanoid dropped 0.2 m flat onto its soles
// (restitution 0), once under PD joint torques and once tracking on the full matrix, where
// projected Gauss-Seidel alone ran to its 100 sweeps on half the solves after touchdown (the
// redundant corners of a flat foot, K_aa 0.43 against 5.4, residual 5e-3 m/s left; tracked,
// the tracking rows' Schur complement leaves the contact rows worse conditioned, K_aa 0.015):
// every solve now meets the tolerance, in under 5 sweeps a step, with subspace solves made; the
// contact forces stay in their cones (normal >= 0, each tangent within mu times it) and the
// feet rest within 0.01 mm of the floor
START_TEST(landing_solves_converge) {
    salto_model* m = load("data/characters/humanoid22.yaml");
    const int nv = m->nv;
    ck_assert_int_le(nv, 32);
    double zero[32] = {0}, q0[32] = {0}, gain[32];
    pd_gains(m, gain);
    q0[2] = 0.2;
    for (int pd = 0; pd < 2; pd++) {
        salto_sim_opts o;
        salto_sim_opts_default(&o);
        o.restitution = 0.0, o.reduced = 0;
        salto_sim* s = salto_sim_create(m, &o);
        salto_sim_set_state(s, q0, zero);
        salto_sim_track(s, pd ? NULL : zero, zero, zero, 400.0, 40.0);
        const int steps = 600; // 0.2 s of flight, 0.4 s standing
        for (int k = 0; k < steps; k++) {
            if (pd) pd_drive(m, s, gain, NULL);
            run(s, 1);
            const salto_sim_contact* c;
            const int nc = salto_sim_contacts(s, &c);
            for (int i = 0; i < nc; i++) {
                const double fn = c[i].force[2], ft = fmax(fabs(c[i].force[0]), fabs(c[i].force[1]));
                ck_assert_msg(fn >= -1e-9 && ft <= o.friction * fn + 1e-6, "step %d contact %d: "
                              "normal %.6g N, tangent %.6g N (%s)", k, i, fn, ft, pd ? "PD" : "tracked");
            }
        }
        const salto_sim_stats* st = salto_sim_get_stats(s);
        ck_assert_int_gt(st->impacts, 0); // it did land
        ck_assert_msg(st->pgs_capped == 0 && st->max_residual <= o.tolerance,
                      "%s: %ld of %ld solves capped, residual up to %.3g m/s", pd ? "PD" : "tracked",
                      st->pgs_capped, st->pgs_solves, st->max_residual);
        ck_assert_msg(st->pgs_sweeps < 5 * steps, "%s: %ld sweeps in %d steps", pd ? "PD" : "tracked",
                      st->pgs_sweeps, steps);
        ck_assert_int_gt(st->pgs_subspace, 0);
        const salto_sim_contact* c;
        const int nc = salto_sim_contacts(s, &c);
        ck_assert_int_eq(nc, 8);
        for (int i = 0; i < nc; i++) {
            ck_assert_msg(c[i].depth < 1e-5, "%s: resting %.3g m deep", pd ? "PD" : "tracked", c[i].depth);
        }
        salto_sim_destroy(s);
    }
    salto_model_destroy(m);
}
END_TEST


// The exact solve (sim_solve.c, exact_solve): the humanoid squatting under PD torques (knees
// to 34 degrees and back in 1 s, the feet flat, restitution 0 as in salto bench sim), its
// ankles pushed past their limits by the PD law. Both soles planted close a loop through the
// legs, and with an ankle at its limit the contact problem's matrix has nonzero eigenvalues
// from 5e-4 to 144: projected Gauss-Seidel needs 9,000 sweeps to 1e-7 m/s, so 92% of its
// steps stopped at the 100-sweep cap, some 0.6 m/s off, and the heels rocked (9 collisions). Now under a tenth of the solves stop at the
// cap, none 1e-3 m/s off (43 of 1,023 measured, 6e-7 m/s at worst; without the exact solve
// 394 of 1,145, 0.022 m/s), and the feet stay down (at most 2 collisions, under 0.2 mm deep).
START_TEST(squat_solves_converge) {
    salto_model* m = load("data/characters/humanoid22.yaml");
    const int nv = m->nv;
    ck_assert_int_le(nv, 32);
    double zero[32] = {0}, gain[32], tq[32];
    pd_gains(m, gain);
    const int sq[6] = {dof(m, "hip_l_flex"), dof(m, "knee_l"), dof(m, "ankle_l"), dof(m, "hip_r_flex"),
                       dof(m, "knee_r"), dof(m, "ankle_r")};
    const double amp[3] = {-0.3, 0.6, -0.3}; // rad: hip, knee, ankle
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.restitution = 0.0; // as salto bench sim's PD squat
    salto_sim* s = salto_sim_create(m, &o);
    salto_sim_set_state(s, zero, zero);
    const int steps = 1000;
    double depth = 0.0;
    for (int k = 0; k < steps; k++) {
        const double sv = 0.5 * (1.0 - cos(2.0 * pi * k * 1e-3));
        memset(tq, 0, sizeof tq);
        for (int i = 0; i < 6; i++) tq[sq[i]] = amp[i % 3] * sv;
        pd_drive(m, s, gain, tq);
        run(s, 1);
        const salto_sim_contact* c;
        const int nc = salto_sim_contacts(s, &c);
        for (int i = 0; i < nc; i++) depth = fmax(depth, c[i].depth);
    }
    const salto_sim_stats* st = salto_sim_get_stats(s);
    ck_assert_int_ge(st->limit_events, 1); // the ankles did reach their limits
    ck_assert_msg(st->pgs_capped * 10 < st->pgs_solves && st->max_residual < 1e-3,
                  "%ld of %ld solves capped, residual up to %.3g m/s", st->pgs_capped,
                  st->pgs_solves, st->max_residual);
    ck_assert_msg(st->impacts <= 2, "%ld collisions", st->impacts);
    ck_assert_msg(depth < 2e-4, "%.3g m deep", depth);
    ck_assert_msg(fabs(salto_sim_q(s)[2]) < 0.03, "the root sank %.3g m", salto_sim_q(s)[2]);
    salto_sim_destroy(s);
    salto_model_destroy(m);
}
END_TEST


// An impulse drives a resting contact in (sim_impacts): a box resting flat on the floor, an
// arm hinged on its top swung down at 4 rad/s into its limit. The impulse that stops the arm
// presses the box's +x bottom edge into the floor; that edge was resting, not approaching,
// and the solve that left it out let the box sink at 0.1 m/s (0.65 mm deep a step later, and
// a collision). Solved again with the edge held, the box tips up about it instead: over the
// 50 ms before it falls back, no point sinks 0.01 mm and nothing collides.
START_TEST(impulse_does_not_drive_contacts_in) {
    salto_model* m = load("tests/data/sim/arm_on_box.yaml");
    salto_sim* s = salto_sim_create(m, NULL);
    const double lim = pi / 6.0;
    double q[7] = {0, 0, 0.05, 0, 0, 0, lim - 0.01}, qd[7] = {0, 0, 0, 0, 0, 0, 4.0};
    ck_assert_int_eq(m->nv, 7);
    salto_sim_set_state(s, q, qd);
    double depth = 0.0, rise = 0.0;
    for (int k = 0; k < 50; k++) {
        run(s, 1);
        const salto_sim_contact* c;
        const int nc = salto_sim_contacts(s, &c);
        for (int i = 0; i < nc; i++) depth = fmax(depth, c[i].depth);
        rise = fmax(rise, salto_sim_q(s)[2] - 0.05);
    }
    const salto_sim_stats* st = salto_sim_get_stats(s);
    ck_assert_int_eq(st->limit_events, 1);
    ck_assert_msg(fabs(salto_sim_qd(s)[6]) < 0.1, "the arm still turns at %.3g rad/s", salto_sim_qd(s)[6]);
    ck_assert_msg(rise > 1e-3, "the box did not tip up (its centre rose %.3g m)", rise);
    ck_assert_msg(depth < 1e-5, "a point sank %.3g m into the floor", depth);
    ck_assert_msg(st->impacts == 0, "%ld collision(s) after the arm stopped", st->impacts);
    salto_sim_destroy(s);
    salto_model_destroy(m);
}
END_TEST


// Equality of two algorithms: with every joint tracked, the contact problem reduced to the
// root's DOFs and the full matrix with the tracking rows eliminated give the same landing (the
// humanoid dropped 0.2 m onto its soles, 0.4 s) and the same tracking torques
START_TEST(reduced_tracking_agrees) {
    salto_model* m = load("data/characters/humanoid22.yaml");
    const int nv = m->nv;
    double q0[32] = {0}, zero[32] = {0}, q[2][32], tt[2][32];
    q0[dof(m, "root_z")] = 0.2;
    q0[dof(m, "knee_l")] = 0.3;
    long impacts[2];
    for (int r = 0; r < 2; r++) {
        salto_sim_opts o;
        salto_sim_opts_default(&o);
        o.reduced = r;
        salto_sim* s = salto_sim_create(m, &o);
        salto_sim_set_state(s, q0, zero);
        salto_sim_track(s, zero, zero, zero, 400.0, 40.0);
        run(s, 400);
        memcpy(q[r], salto_sim_q(s), (size_t)nv * sizeof(double));
        memcpy(tt[r], salto_sim_tracking_torques(s), (size_t)nv * sizeof(double));
        impacts[r] = salto_sim_get_stats(s)->impacts;
        salto_sim_destroy(s);
    }
    ck_assert_int_gt(impacts[0], 0); // it did land
    for (int j = 0; j < nv; j++) {
        ck_assert_msg(fabs(q[0][j] - q[1][j]) < 1e-7, "%s: full %.12g, reduced %.12g", m->link_name[j],
                      q[0][j], q[1][j]);
        ck_assert_msg(fabs(tt[0][j] - tt[1][j]) < 1e-4 * (1.0 + fabs(tt[0][j])), "%s torque: full %.9g, "
                      "reduced %.9g", m->link_name[j], tt[0][j], tt[1][j]);
    }
    salto_model_destroy(m);
}
END_TEST


// The gymnast hanging by its hands from a bar, tilted 0.3 rad, its joints holding their pose
// by tracking and the hold keeping the hands at the bar, runs 0.3 s (reduced and full solves).
// With a grip strong enough (1000 N m) it stays tilted, the grip's torque cancelling gravity's
// moment about the hands, ((c - p) x M g)_y. With a weak one (a third of that moment) the grip
// saturates at its bound every step and the body swings; a constant couple of the same torque
// applied by two forces to the hands' link, without a grip, gives the same motion.
START_TEST(grip_holds_and_slips) {
    salto_model* m = load("data/characters/gymnast7.yaml");
    const int nv = m->nv, reduced = _i;
    const int hands = site(m, "hands");
    const int link = m->site_link[hands], ry = dof(m, "root_ry");
    double q0[16] = {0}, zero[16] = {0};
    ck_assert_int_le(nv, 16);
    q0[ry] = 0.3;
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.ground = 0;
    o.reduced = reduced;
    const double axis[3] = {0, 1, 0};
    // gravity's moment about the hands at the start
    salto_data* d = salto_data_create(m);
    memcpy(d->q, q0, sizeof(double) * (size_t)nv);
    memset(d->qd, 0, sizeof(double) * (size_t)nv);
    salto_fk(m, d, SALTO_FK_VEL);
    salto_link_inertias(m, d);
    double c[3], p[3], mg[3], mom[3];
    salto_com(m, d, c, NULL);
    salto_site_pos(m, d, hands, p);
    for (int k = 0; k < 3; k++) mg[k] = m->mass * m->gravity[k], c[k] -= p[k];
    salto_v3_cross(mom, c, mg);
    const double tau_g = mom[1];
    ck_assert_double_gt(fabs(tau_g), 50.0); // a real moment to resist
    double qend[3][16];
    for (int run_k = 0; run_k < 3; run_k++) {
        // 0: a strong grip; 1: a weak one; 2: no grip, the weak grip's torque as a couple
        salto_sim* s = salto_sim_create(m, &o);
        salto_sim_set_state(s, q0, zero);
        salto_sim_track(s, q0, zero, zero, 400.0, 40.0);
        ck_assert(salto_sim_hold(s, hands, p));
        const double weak = fabs(tau_g) / 3.0, sign = tau_g > 0 ? -1.0 : 1.0;
        if (run_k < 2) ck_assert(salto_sim_grip(s, link, axis, run_k == 0 ? 1000.0 : weak));
        if (run_k == 2) {
            // forces +-F along z at points 1 m apart along x: moment about y of -F
            const double F = -sign * weak, f1[3] = {0, 0, F}, f2[3] = {0, 0, -F};
            const double x1[3] = {p[0] + 0.5, p[1], p[2]}, x2[3] = {p[0] - 0.5, p[1], p[2]};
            salto_sim_apply_force(s, link, f1, x1);
            salto_sim_apply_force(s, link, f2, x2);
        }
        for (int k = 0; k < 300; k++) {
            run(s, 1);
            if (run_k == 1) {
                ck_assert_msg(fabs(salto_sim_grip_torque(s, 0) - sign * weak) < 1e-9 * weak,
                              "step %d: the weak grip's torque %.9g, its bound %.9g", k,
                              salto_sim_grip_torque(s, 0), sign * weak);
            }
        }
        memcpy(qend[run_k], salto_sim_q(s), sizeof(double) * (size_t)nv);
        if (run_k == 0) {
            ck_assert_msg(fabs(salto_sim_q(s)[ry] - 0.3) < 1e-6, "the strong grip let it turn to %.9g",
                          salto_sim_q(s)[ry]);
            ck_assert_msg(fabs(salto_sim_grip_torque(s, 0) + tau_g) < 1e-4 * fabs(tau_g),
                          "grip torque %.9g, gravity's moment %.9g", salto_sim_grip_torque(s, 0), tau_g);
        }
        salto_sim_destroy(s);
    }
    ck_assert_msg(fabs(qend[1][ry] - 0.3) > 0.05, "the weak grip held: root_ry %.6g", qend[1][ry]);
    // a grip acts only with tracking: tracked, it turns the hand towards the target's root
    // (here without a hold, the body falling; its torque at the bound); with tracking off its
    // torque reads zero
    {
        salto_sim* s = salto_sim_create(m, &o);
        double qt[16];
        memcpy(qt, q0, sizeof qt);
        qt[ry] = 0.5; // 0.2 rad to turn: the grip works at its bound
        salto_sim_set_state(s, q0, zero);
        salto_sim_track(s, qt, zero, zero, 400.0, 40.0);
        ck_assert(salto_sim_grip(s, link, axis, 10.0));
        run(s, 1);
        ck_assert_double_eq_tol(salto_sim_grip_torque(s, 0), 10.0 * (qt[ry] > q0[ry] ? 1.0 : -1.0), 1e-9);
        salto_sim_track(s, NULL, NULL, NULL, 0.0, 0.0);
        run(s, 1);
        ck_assert_double_eq(salto_sim_grip_torque(s, 0), 0.0);
        salto_sim_destroy(s);
    }
    for (int j = 0; j < nv; j++) {
        ck_assert_msg(fabs(qend[1][j] - qend[2][j]) < 1e-7, "%s: grip %.12g, couple %.12g",
                      m->link_name[j], qend[1][j], qend[2][j]);
    }
    salto_data_destroy(d);
    salto_model_destroy(m);
}
END_TEST


// A grip in 3-D: the hand's angular acceleration about the grip's axis is exactly what the
// kinematics give were every DOF, the root's too, to follow the tracking law (salto_fk's A at
// the tracked qdd*), velocity products included: the humanoid spinning about skew axes, its
// joints tracked, one step from a random state (seeded) with an unbounded grip on a skew axis.
// The velocity product w_parent x S qd, zero when every axis is parallel (the planar test
// above), adds 0.39 rad/s^2 about the axis at this seed (asserted above 0.1): leaving it out
// of the grip's target fails the comparison, which holds to 1e-6.
START_TEST(grip_velocity_product_3d) {
    salto_model* m = load("data/characters/humanoid22.yaml");
    const int nv = m->nv, reduced = _i;
    const int hand = site(m, "hand_l");
    const int link = m->site_link[hand];
    const uint64_t seed = 20261124u;
    salto_test_rng rng;
    salto_test_rng_seed(&rng, seed);
    double q[32], qd[32], qt[32], qdt[32], qddt[32], qstar[32];
    ck_assert_int_le(nv, 32);
    for (int j = 0; j < nv; j++) {
        q[j] = salto_test_uniform(&rng, -0.6, 0.6);
        qd[j] = salto_test_uniform(&rng, -2.0, 2.0);
        qt[j] = q[j] + salto_test_uniform(&rng, -0.1, 0.1);
        qdt[j] = qd[j] + salto_test_uniform(&rng, -0.5, 0.5);
        qddt[j] = salto_test_uniform(&rng, -3.0, 3.0);
    }
    const double kp = 100.0, kd = 20.0;
    for (int j = 0; j < nv; j++) qstar[j] = qddt[j] + kp * (qt[j] - q[j]) + kd * (qdt[j] - qd[j]);
    double a[3] = {0.3, 0.8, -0.5};
    const double an = salto_v3_norm(a);
    for (int k = 0; k < 3; k++) a[k] /= an;

    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.ground = 0, o.joint_limits = 0, o.reduced = reduced;
    salto_sim* s = salto_sim_create(m, &o);
    salto_sim_set_state(s, q, qd);
    salto_sim_track(s, qt, qdt, qddt, kp, kd);
    ck_assert(salto_sim_grip(s, link, a, INFINITY));
    run(s, 1);
    double qdd[32];
    for (int j = 0; j < nv; j++) qdd[j] = (salto_sim_qd(s)[j] - qd[j]) / o.dt;

    // the hand's angular acceleration about a: as simulated, as tracked, and tracked without
    // the velocity products (qd zero, qdd* kept)
    salto_data* d = salto_data_create(m);
    double got, want, no_vel;
    const double* acc[3] = {qdd, qstar, qstar};
    double* out[3] = {&got, &want, &no_vel};
    for (int c = 0; c < 3; c++) {
        memcpy(d->q, q, sizeof(double) * (size_t)nv);
        for (int j = 0; j < nv; j++) d->qd[j] = c == 2 ? 0.0 : qd[j];
        memcpy(d->qdd, acc[c], sizeof(double) * (size_t)nv);
        salto_fk(m, d, SALTO_FK_ACC);
        *out[c] = salto_v3_dot(a, d->A + 6 * link);
    }
    // the joints follow the law exactly; the root only as the grip makes it
    for (int j = m->nroot; j < nv; j++) {
        ck_assert_msg(fabs(qdd[j] - qstar[j]) < 1e-6 * (1.0 + fabs(qstar[j])),
                      "seed %llu: %s qdd %.12g, tracked %.12g", (unsigned long long)seed,
                      m->link_name[j], qdd[j], qstar[j]);
    }
    ck_assert_msg(fabs(want - no_vel) > 0.1,
                  "seed %llu: the velocity products add only %.3g rad/s^2 about the axis",
                  (unsigned long long)seed, want - no_vel);
    ck_assert_msg(fabs(got - want) < 1e-6 * (1.0 + fabs(want)),
                  "seed %llu (reduced %d): the hand turns at %.12g rad/s^2 about the axis, the "
                  "tracked motion at %.12g (%.12g without velocity products)",
                  (unsigned long long)seed, reduced, got, want, no_vel);
    salto_data_destroy(d);
    salto_sim_destroy(s);
    salto_model_destroy(m);
}
END_TEST


// Holds and grips refused: a site or link that does not exist, a site on the world, a point
// that is not finite, an axis of zero or infinite length, a negative or NaN bound, and one past
// SALTO_SIM_MAX_HOLDS; a refused call holds or grips nothing. Slots filled to the limit, all
// holding the hands at one point (redundant rows), the hanging body still steps to finite
// states with the hands in place, and releasing frees the slots.
START_TEST(holds_and_grips_refused) {
    salto_model* m = load("data/characters/gymnast7.yaml");
    const int hands = site(m, "hands");
    const int nv = m->nv, link = m->site_link[hands];
    double q0[16] = {0}, zero[16] = {0};
    ck_assert_int_le(nv, 16);
    q0[dof(m, "root_ry")] = 0.3;
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.ground = 0;
    salto_sim* s = salto_sim_create(m, &o);
    salto_sim_set_state(s, q0, zero);
    salto_data* d = salto_data_create(m);
    memcpy(d->q, q0, sizeof(double) * (size_t)nv);
    salto_fk(m, d, SALTO_FK_POS);
    double p[3];
    salto_site_pos(m, d, hands, p);
    const double axis[3] = {0, 1, 0}, nan3[3] = {NAN, p[1], p[2]}, inf3[3] = {INFINITY, 0, 0};
    const double zero3[3] = {0, 0, 0};

    ck_assert(!salto_sim_hold(s, -1, p));
    ck_assert(!salto_sim_hold(s, m->nsite, p));
    m->site_link[hands] = -1; // a site fixed to the world
    ck_assert(!salto_sim_hold(s, hands, p));
    m->site_link[hands] = link;
    ck_assert(!salto_sim_hold(s, hands, nan3));
    ck_assert(!salto_sim_hold(s, hands, inf3));
    ck_assert(!salto_sim_grip(s, -1, axis, 10.0));
    ck_assert(!salto_sim_grip(s, nv, axis, 10.0));
    ck_assert(!salto_sim_grip(s, link, zero3, 10.0));
    ck_assert(!salto_sim_grip(s, link, nan3, 10.0));
    ck_assert(!salto_sim_grip(s, link, inf3, 10.0));
    ck_assert(!salto_sim_grip(s, link, axis, -1.0));
    ck_assert(!salto_sim_grip(s, link, axis, NAN));
    // nothing held or gripped: it falls exactly as a simulator never asked
    {
        salto_sim* f = salto_sim_create(m, &o);
        salto_sim_set_state(f, q0, zero);
        run(f, 10);
        run(s, 10);
        for (int j = 0; j < nv; j++) ck_assert_double_eq(salto_sim_q(s)[j], salto_sim_q(f)[j]);
        ck_assert_double_lt(salto_sim_q(s)[dof(m, "root_z")], q0[dof(m, "root_z")] - 1e-5);
        salto_sim_destroy(f);
    }
    salto_sim_set_state(s, q0, zero);
    // the slots filled: every hold at the hands' point, every grip on the hands (one unbounded)
    for (int k = 0; k < SALTO_SIM_MAX_HOLDS; k++) {
        ck_assert_msg(salto_sim_hold(s, hands, p), "hold %d refused", k);
        ck_assert_msg(salto_sim_grip(s, link, axis, k == 0 ? INFINITY : 50.0), "grip %d refused", k);
    }
    ck_assert(!salto_sim_hold(s, hands, p));
    ck_assert(!salto_sim_grip(s, link, axis, 10.0));
    salto_sim_track(s, q0, zero, zero, 400.0, 40.0);
    run(s, 200);
    for (int j = 0; j < nv; j++) ck_assert(isfinite(salto_sim_q(s)[j]) && isfinite(salto_sim_qd(s)[j]));
    memcpy(d->q, salto_sim_q(s), sizeof(double) * (size_t)nv);
    salto_fk(m, d, SALTO_FK_POS);
    double ph[3];
    salto_site_pos(m, d, hands, ph);
    for (int k = 0; k < 3; k++) {
        ck_assert_msg(fabs(ph[k] - p[k]) < 1e-6, "hands %d off by %.3g", k, ph[k] - p[k]);
    }
    // the grips resist gravity's moment about the hands together, each within its bound
    double total = 0.0;
    for (int k = 0; k < SALTO_SIM_MAX_HOLDS; k++) {
        const double tau = salto_sim_grip_torque(s, k);
        ck_assert_msg(isfinite(tau) && (k == 0 || fabs(tau) <= 50.0 + 1e-9), "grip %d: %.9g", k, tau);
        total += fabs(tau);
    }
    ck_assert_double_gt(total, 1.0);
    // released, the slots are free again, and a new grip reads zero torque until it is stepped
    salto_sim_release_all(s);
    ck_assert(salto_sim_hold(s, hands, p));
    ck_assert(salto_sim_grip(s, link, axis, 10.0));
    for (int k = 0; k < SALTO_SIM_MAX_HOLDS; k++) ck_assert_double_eq(salto_sim_grip_torque(s, k), 0.0);
    salto_data_destroy(d);
    salto_sim_destroy(s);
    salto_model_destroy(m);
}
END_TEST


// Determinism: the same input gives bit-identical states
START_TEST(deterministic) {
    salto_model* m = load("tests/data/sim/box.yaml");
    salto_sim* a = salto_sim_create(m, NULL);
    salto_sim* b = salto_sim_create(m, NULL);
    double q[6] = {0, 0, 0.3, 0.2, 0.3, 0.1}, qd[6] = {0.5, 0, 0, 1, -2, 0.5};
    salto_sim_set_state(a, q, qd);
    salto_sim_set_state(b, q, qd);
    run(a, 1500);
    run(b, 1500);
    ck_assert_int_eq(memcmp(salto_sim_q(a), salto_sim_q(b), 6 * sizeof(double)), 0);
    ck_assert_int_eq(memcmp(salto_sim_qd(a), salto_sim_qd(b), 6 * sizeof(double)), 0);
    ck_assert_int_gt(salto_sim_get_stats(a)->impacts, 0); // it did land
    salto_sim_destroy(a);
    salto_sim_destroy(b);
    salto_model_destroy(m);
}
END_TEST


// Adaptive dynamics with every joint in the budget is the full simulation: a 20-link pendulum
// released at 1.2 rad swings 0.3 s, ground off, the same states to rounding; and bad settings
// are refused
START_TEST(adaptive_all_joints_is_the_full_simulation) {
    salto_model* m = salto_test_model_chain_axes(20, "y");
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.ground = 0;
    salto_sim* a = salto_sim_create(m, &o);
    salto_sim* b = salto_sim_create(m, &o);
    ck_assert(a && b);
    double q[20] = {1.2}, qd[20] = {0};
    salto_sim_set_state(a, q, qd);
    salto_sim_set_state(b, q, qd);
    const salto_adaptive_opts bad[3] = {{0, 0.0, 0.0, 5}, {5, -1.0, 0.0, 5}, {5, 0.0, 0.0, -1}};
    for (int k = 0; k < 3; k++) ck_assert_int_eq(salto_sim_set_adaptive(b, &bad[k]), -1);
    const salto_adaptive_opts all = {20, 0.0, 0.0, 7};
    ck_assert_int_eq(salto_sim_set_adaptive(b, &all), 0);
    const double f[3] = {3.0, 0.0, 1.0}, x[3] = {0.2, 0.0, -2.0};
    salto_sim_apply_force(a, 9, f, x); // a push on link 10, held
    salto_sim_apply_force(b, 9, f, x);
    run(a, 300);
    run(b, 300);
    ck_assert_vec_close(salto_sim_q(b), salto_sim_q(a), 20, 1e-9, 1e-9, "q after 0.3 s");
    ck_assert_vec_close(salto_sim_qd(b), salto_sim_qd(a), 20, 1e-8, 1e-8, "qd after 0.3 s");
    ck_assert_double_eq_tol(salto_sim_time(b), salto_sim_time(a), 1e-12);
    ck_assert_int_eq(salto_sim_active_joints(b), 20);
    ck_assert_int_eq(salto_sim_get_stats(b)->steps, 300);
    salto_sim_destroy(a);
    salto_sim_destroy(b);
    salto_model_destroy(m);
}
END_TEST


// The humanoid gone limp 0.3 m above the ground with 6 of its joints simulated (chosen every
// 10 steps): it falls, lands and settles on the ground (after 2 s its kinetic energy under 2%
// of the fall's largest; the full simulation's limbs still twitch on the ground then, too)
// without sinking into it, never with more than 6 joints active, its contacts named in its own
// geometry, and its energy (kinetic and potential) never above where it started by more than
// the integrator's own excursion
START_TEST(adaptive_humanoid_falls_limp) {
    salto_model* m = load("data/characters/humanoid22.yaml");
    const int nv = m->nv;
    salto_sim* s = salto_sim_create(m, NULL);
    ck_assert_ptr_nonnull(s);
    double q[32] = {0}, qd[32] = {0};
    ck_assert_int_le(nv, 32);
    q[2] = 0.3;                  // the root 0.3 m up (its z translation)
    for (int j = m->nroot; j < nv; j++) q[j] = 0.3 * sin(1.7 * j); // a pose, not a pose at rest
    salto_sim_set_state(s, q, qd);
    const salto_adaptive_opts o = {6, 0.0, 0.0, 10};
    ck_assert_int_eq(salto_sim_set_adaptive(s, &o), 0);
    salto_data* d = salto_data_create(m);
    ck_assert_ptr_nonnull(d);
    double e0 = NAN, kmax = 0.0, kend = 0.0;
    salto_error err = {0};
    for (int k = 0; k <= 2000; k++) {
        memcpy(d->q, salto_sim_q(s), sizeof(double) * (size_t)nv);
        memcpy(d->qd, salto_sim_qd(s), sizeof(double) * (size_t)nv);
        salto_fk(m, d, SALTO_FK_VEL);
        salto_link_inertias(m, d);
        double ke, pe;
        salto_energy(m, d, &ke, &pe);
        if (k == 0) e0 = ke + pe;
        // (semi-implicit Euler's own excursion: 0.05 J in the full simulation of this fall)
        ck_assert_msg(ke + pe <= e0 + 0.5, "step %d: energy %.9g J, started at %.9g J", k, ke + pe, e0);
        kmax = fmax(kmax, ke), kend = ke;
        if (k == 2000) break;
        ck_assert_msg(salto_sim_step(s, &err) == SALTO_OK, "step %d: %s", k, err.msg);
        ck_assert_int_le(salto_sim_active_joints(s), 6);
        const salto_sim_contact* c;
        const int nc = salto_sim_contacts(s, &c);
        for (int i = 0; i < nc; i++) { // each contact at its geometry (d: the step's start)
            ck_assert(c[i].geom >= 0 && c[i].geom < m->ngeom);
            ck_assert_int_eq(c[i].link, m->geom_link[c[i].geom]); // its own link, not its part's
            double pts[8][3], r = 0.0, best = INFINITY;
            const int np = salto_geom_points(m, d, c[i].geom, pts, &r);
            const int seg = m->geom_shape[c[i].geom] == SALTO_GEOM_CAPSULE;
            for (int a = 0; a < (seg ? 1 : np); a++) {
                double u = 0.0, ab[3], ap[3], x[3];
                for (int t = 0; t < 3; t++) ab[t] = seg ? pts[1][t] - pts[0][t] : 0.0, ap[t] = c[i].point[t] - pts[a][t];
                const double l2 = salto_v3_dot(ab, ab);
                if (l2 > 0.0) u = fmin(fmax(salto_v3_dot(ap, ab) / l2, 0.0), 1.0);
                for (int t = 0; t < 3; t++) x[t] = ap[t] - u * ab[t];
                best = fmin(best, salto_v3_norm(x));
            }
            ck_assert_msg(fabs(best - r) < 0.02, "step %d: contact %d is %.3g m from geometry %d (radius %.3g)", k, i, best, c[i].geom, r);
        }
    }
    const salto_sim_stats* st = salto_sim_get_stats(s);
    ck_assert_int_gt(st->impacts, 0); // it landed
    // (the full simulation of this fall sinks 8.4 mm at worst, its impacts at 1 ms steps)
    ck_assert_msg(st->max_depth < 0.02, "sank %.3g m into the ground", st->max_depth);
    const salto_sim_contact* c;
    ck_assert_int_gt(salto_sim_contacts(s, &c), 0); // and lies on it
    ck_assert_msg(kend < 0.02 * kmax, "after 2 s the kinetic energy is %.3g J, at most %.3g J in the fall", kend, kmax);
    salto_data_destroy(d);
    salto_sim_destroy(s);
    salto_model_destroy(m);
}
END_TEST


// Adaptive dynamics follows the caller's holds and holds still when nothing matters: the
// humanoid falling free (ground off, every joint in the budget, a choice every 200 steps)
// takes a hold on its right hand between choices and hangs from it at once; with an error
// threshold nothing reaches, no joint is active and it stays where it is
START_TEST(adaptive_follows_holds_and_holds_still) {
    salto_model* m = load("data/characters/humanoid22.yaml");
    const int nv = m->nv, hand = site(m, "hand_r");
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.ground = 0;
    salto_sim* s = salto_sim_create(m, &o);
    ck_assert_ptr_nonnull(s);
    double q[32] = {0}, qd[32] = {0}, x[3], y[3];
    salto_sim_set_state(s, q, qd);
    const salto_adaptive_opts all = {m->nbody, 0.0, 0.0, 200};
    ck_assert_int_eq(salto_sim_set_adaptive(s, &all), 0);
    run(s, 10);
    salto_site_pos(m, salto_sim_data(s), hand, x);
    ck_assert_int_eq(salto_sim_hold(s, hand, x), 1);
    run(s, 150); // (no choice in between)
    salto_site_pos(m, salto_sim_data(s), hand, y);
    const double off = sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) + (x[2] - y[2]) * (x[2] - y[2]));
    ck_assert_msg(off < 2e-3, "the held hand moved %.3g m", off);
    // nothing matters: no joint active, nothing moves, time goes on
    const salto_adaptive_opts none = {m->nbody, 1e12, 1e12, 10};
    salto_sim_release_all(s);
    ck_assert_int_eq(salto_sim_set_adaptive(s, &none), 0);
    double q0[32];
    memcpy(q0, salto_sim_q(s), sizeof(double) * (size_t)nv);
    const double t0 = salto_sim_time(s);
    run(s, 30);
    ck_assert_int_eq(salto_sim_active_joints(s), 0);
    ck_assert_int_eq(memcmp(q0, salto_sim_q(s), sizeof(double) * (size_t)nv), 0);
    ck_assert_double_eq_tol(salto_sim_time(s), t0 + 0.03, 1e-12);
    ck_assert_double_eq(salto_test_maxabs(salto_sim_qd(s), nv), 0.0);
    salto_sim_destroy(s);
    salto_model_destroy(m);
}
END_TEST


// After the state is set, or after tracked steps, the adaptive simulator starts afresh: a
// planar chain stepped adaptively, then set to a bent pose, goes on exactly as a new adaptive
// simulator from that pose (the locked joints' new angles in the model, the time running on);
// and the tracked steps' torques and grips' torques read zero once it is limp
START_TEST(adaptive_starts_afresh_after_set_state) {
    salto_model* m = salto_test_model_chain_axes(6, "y");
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.ground = 0;
    salto_sim* a = salto_sim_create(m, &o);
    salto_sim* b = salto_sim_create(m, &o);
    ck_assert(a && b);
    const salto_adaptive_opts ao = {1, 0.0, 0.0, 1000};
    ck_assert_int_eq(salto_sim_set_adaptive(a, &ao), 0);
    ck_assert_int_eq(salto_sim_set_adaptive(b, &ao), 0);
    double q[6] = {0.3}, qd[6] = {0}, bent[6] = {0.8, 0.8, 0.8, 0.8, 0.8, 0.8};
    salto_sim_set_state(a, q, qd);
    run(a, 20);
    salto_sim_set_state(a, bent, qd);
    salto_sim_set_state(b, bent, qd);
    run(a, 200);
    run(b, 200);
    ck_assert_vec_close(salto_sim_q(a), salto_sim_q(b), 6, 1e-12, 1e-12, "q after set_state");
    ck_assert_double_eq_tol(salto_sim_time(a), 0.22, 1e-12);
    // tracked, then limp: the full steps' torques do not stay
    double zero[6] = {0};
    salto_sim_track(a, bent, zero, zero, 400.0, 40.0);
    const double axis[3] = {0, 1, 0};
    ck_assert_int_eq(salto_sim_grip(a, 5, axis, 50.0), 1);
    run(a, 20);
    ck_assert_double_eq_tol(salto_sim_time(a), 0.24, 1e-12);
    ck_assert_double_gt(salto_test_maxabs(salto_sim_tracking_torques(a), 6), 1.0); // holding the bent chain up
    salto_sim_track(a, NULL, NULL, NULL, 0.0, 0.0);
    run(a, 5);
    ck_assert_double_eq_tol(salto_sim_time(a), 0.245, 1e-12);
    ck_assert_double_eq(salto_test_maxabs(salto_sim_tracking_torques(a), 6), 0.0);
    ck_assert_double_eq(salto_sim_grip_torque(a, 0), 0.0);
    ck_assert_int_le(salto_sim_active_joints(a), 1);
    salto_sim_destroy(a);
    salto_sim_destroy(b);
    salto_model_destroy(m);
}
END_TEST


// A planar character's locked model is stepped as planar: a free planar chain of 8 links,
// limp with 2 joints simulated (the middle joint of the balanced tree: the locked joints above
// it fold into its tree transform, which turns about y), dropped onto a box whose y extent (1 to
// 2 m) would miss it in 3-D, lies on the box after 1.5 s as the full simulation does (a planar
// character's boxes span every y)
START_TEST(adaptive_planar_stays_planar) {
    salto_character_desc* c = salto_character_chain_axes(8, 0.3, 1.0, "y");
    ck_assert_ptr_nonnull(c);
    c->root_type = SALTO_ROOT_PLANAR;
    salto_error berr = {0};
    salto_model* m = salto_model_build(c, NULL, &berr);
    salto_character_destroy(c);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(salto_model_is_planar(m), 1);
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.nbox = 1;
    const double lo[3] = {-5, 1, 0}, hi[3] = {5, 2, 0.5};
    memcpy(o.box_lo[0], lo, sizeof lo);
    memcpy(o.box_hi[0], hi, sizeof hi);
    for (int adaptive = 0; adaptive < 2; adaptive++) {
        salto_sim* s = salto_sim_create(m, &o);
        ck_assert_ptr_nonnull(s);
        double q[16] = {0}, qd[16] = {0};
        ck_assert_int_le(m->nv, 16);
        q[1] = 3.0, q[2] = 1.4; // root_z, root_ry: 3 m up, lying nearly flat
        for (int j = 3; j < m->nv; j++) q[j] = 0.2;
        salto_sim_set_state(s, q, qd);
        const salto_adaptive_opts ao = {2, 0.0, 0.0, 10};
        if (adaptive) ck_assert_int_eq(salto_sim_set_adaptive(s, &ao), 0);
        run(s, 1500);
        double low = INFINITY; // the lowest point of the geometry: 0.5 m on the box, 0 on the ground
        for (int g = 0; g < m->ngeom; g++) {
            double pts[8][3], r = 0.0;
            const int np = salto_geom_points(m, salto_sim_data(s), g, pts, &r);
            for (int k = 0; k < np; k++) low = fmin(low, pts[k][2] - r);
        }
        ck_assert_msg(low > 0.45, "%s: its lowest point at %.3f m, not on the 0.5 m box", adaptive ? "adaptive" : "full", low);
        salto_sim_destroy(s);
    }
    salto_model_destroy(m);
}
END_TEST


// The bars' exception is each geometry's own: a 6-link pendulum released at 0.8 rad with its
// last link exempt from the bars and one joint simulated (the assembly tree's top one: the
// joints above it locked, the links below it one rigid part with the exempt link) swings that
// part into a bar 0.5 m below the joint; the part's other links meet the bar (they sank 7 cm
// into it when the exception covered the whole part)
START_TEST(adaptive_bar_exception_is_the_geometrys) {
    salto_model* m = salto_test_model_chain_axes(6, "y");
    const int nv = m->nv;
    double q[6] = {0.8}, qd[6] = {0};
    // the joint adaptive dynamics keeps with a budget of 1, and where it is at the release
    salto_dca* a = salto_dca_create(m);
    salto_data* d = salto_data_create(m);
    ck_assert(a && d);
    unsigned char act[6];
    salto_dca_activate_top(a, 1);
    salto_dca_active_links(a, act);
    int top = -1;
    for (int j = 0; j < nv; j++) top = act[j] ? j : top;
    ck_assert_int_gt(top, 0);
    memcpy(d->q, q, sizeof q);
    salto_fk(m, d, SALTO_FK_POS);
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.ground = 0, o.nbar = 1;
    const double bar[3] = {d->p[3 * top], 0.0, d->p[3 * top + 2] - 0.5}, axis[3] = {0, 1, 0};
    memcpy(o.bar_point[0], bar, sizeof bar);
    memcpy(o.bar_axis[0], axis, sizeof axis);
    salto_sim* s = salto_sim_create(m, &o);
    ck_assert_ptr_nonnull(s);
    salto_sim_set_state(s, q, qd);
    salto_sim_ignore_bars(s, nv - 1);
    const salto_adaptive_opts ao = {1, 0.0, 0.0, 10};
    ck_assert_int_eq(salto_sim_set_adaptive(s, &ao), 0);
    double worst = INFINITY; // the deepest the other links' capsules go into the bar
    for (int k = 0; k < 1500; k++) {
        salto_error err = {0};
        ck_assert_msg(salto_sim_step(s, &err) == SALTO_OK, "step %d: %s", k, err.msg);
        for (int g = 0; g < m->ngeom; g++) {
            if (m->geom_link[g] == nv - 1) continue;
            double pts[8][3], r = 0.0;
            const int np = salto_geom_points(m, salto_sim_data(s), g, pts, &r);
            const double ax = pts[0][0], az = pts[0][2], dx = pts[np - 1][0] - ax, dz = pts[np - 1][2] - az;
            const double l2 = dx * dx + dz * dz;
            double u = l2 > 0.0 ? ((bar[0] - ax) * dx + (bar[2] - az) * dz) / l2 : 0.0;
            u = fmin(fmax(u, 0.0), 1.0);
            const double ex = ax + u * dx - bar[0], ez = az + u * dz - bar[2];
            worst = fmin(worst, sqrt(ex * ex + ez * ez) - r - o.bar_radius);
        }
    }
    ck_assert_msg(worst > -0.01, "a link went %.3f m into the bar", -worst);
    ck_assert_msg(worst < 0.01, "the part never reached the bar (%.3f m off)", worst);
    salto_sim_destroy(s);
    salto_data_destroy(d);
    salto_dca_destroy(a);
    salto_model_destroy(m);
}
END_TEST


Suite* sim_suite(void) {
    Suite* s = suite_create("sim");
    TCase* tc = tcase_create("sim");
    tcase_add_test(tc, box_rests);
    tcase_add_test(tc, box_on_slope);
    tcase_add_test(tc, methods_agree);
    tcase_add_test(tc, ball_bounces);
    tcase_add_test(tc, pendulum_stops_at_limit);
    tcase_add_test(tc, bars);
    tcase_add_test(tc, boxes);
    tcase_add_test(tc, momentum_in_flight);
    tcase_add_test(tc, deterministic);
    tcase_add_test(tc, tracking_follows);
    tcase_add_test(tc, humanoid_stands_still);
    tcase_add_test(tc, contact_solver_converges);
    tcase_add_test(tc, landing_solves_converge);
    tcase_add_test(tc, squat_solves_converge);
    tcase_add_test(tc, impulse_does_not_drive_contacts_in);
    tcase_add_test(tc, reduced_tracking_agrees);
    tcase_add_loop_test(tc, grip_holds_and_slips, 0, 2);
    tcase_add_test(tc, holds_and_grips_refused);
    tcase_add_loop_test(tc, grip_velocity_product_3d, 0, 2);
    tcase_add_test(tc, adaptive_all_joints_is_the_full_simulation);
    tcase_add_test(tc, adaptive_humanoid_falls_limp);
    tcase_add_test(tc, adaptive_follows_holds_and_holds_still);
    tcase_add_test(tc, adaptive_starts_afresh_after_set_state);
    tcase_add_test(tc, adaptive_planar_stays_planar);
    tcase_add_test(tc, adaptive_bar_exception_is_the_geometrys);
    suite_add_tcase(s, tc);
    return s;
}
