// test_react.c: reactions blended into a motion (salto/react.h) and their descriptions
// (salto_reactions_parse, a problem file's `reactions`)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/model.h"
#include "salto/problem.h"
#include "salto/react.h"
#include "salto/spatial.h"
#include "chain_priv.h"
#include "test_suites.h"
#include "test_util.h"

#define MAXV 64
static const double pi = 3.14159265358979323846;

// A smooth motion: each DOF c + A sin(om t + ph), within its limits (the middle, a quarter of
// the range) or about 0 (0.3 rad or m) where it has none; a free root 1 m up
typedef struct sine_motion {
    const salto_model* m;
    double c[MAXV], A[MAXV], om[MAXV], ph[MAXV];
} sine_motion;

static void sine_init(sine_motion* s, const salto_model* m, unsigned seed) {
    salto_test_rng rng;
    salto_test_rng_seed(&rng, seed);
    s->m = m;
    ck_assert_int_le(m->nv, MAXV);
    for (int j = 0; j < m->nv; j++) {
        if (m->link_has_limits[j]) {
            const double lo = m->link_limits[2 * j], hi = m->link_limits[2 * j + 1];
            s->c[j] = 0.5 * (lo + hi), s->A[j] = 0.25 * (hi - lo);
        } else {
            s->c[j] = 0.0, s->A[j] = 0.3;
        }
        s->om[j] = salto_test_uniform(&rng, 1.0, 4.0);
        s->ph[j] = salto_test_uniform(&rng, 0.0, 2.0 * pi);
    }
    if (m->root_type == SALTO_ROOT_FREE) {
        int tdof[3];
        double axes[3][3];
        const int nt = salto_model_root_translation(m, tdof, axes);
        for (int k = 0; k < nt; k++) s->c[tdof[k]] = axes[k][2] != 0.0 ? 1.0 : 0.0;
    }
}

static void sine_state(void* ctx, double t, double* q, double* qd, double* qdd) {
    const sine_motion* s = ctx;
    for (int j = 0; j < s->m->nv; j++) {
        const double a = s->om[j] * t + s->ph[j];
        q[j] = s->c[j] + s->A[j] * sin(a);
        if (qd) qd[j] = s->A[j] * s->om[j] * cos(a);
        if (qdd) qdd[j] = -s->A[j] * s->om[j] * s->om[j] * sin(a);
    }
}


// a reaction by hand: defaults as the reader's, bodies simulated where sim[b] (names, NULL-ended)
typedef struct hand_reaction {
    salto_reaction_desc r;
    unsigned char simulated[64];
    double importance[64];
} hand_reaction;

static void hand_init(hand_reaction* h, const salto_model* m, const char* body,
                      const char* const* sim, const double f[3], double time) {
    memset(h, 0, sizeof *h);
    ck_assert_int_le(m->nbody, 64);
    salto_reaction_desc* r = &h->r;
    r->time = time, r->body = salto_model_body(m, body);
    ck_assert_int_ge(r->body, 0);
    memcpy(r->force, f, sizeof r->force);
    r->push = 0.05, r->duration = 0.3, r->blend_in = 0.05, r->blend_out = 0.5;
    r->stiffness = 36.0, r->damping = 12.0;
    for (int k = 0; sim[k]; k++) {
        const int b = salto_model_body(m, sim[k]);
        ck_assert_int_ge(b, 0);
        h->simulated[b] = 1, h->importance[b] = 1.0;
    }
    r->simulated = h->simulated, r->importance = h->importance;
}


static const char* const RIGHT_ARM[] = {"upperarm_r", "forearm_r", NULL};

// the frames of a reaction player at rate over [0, T] into q (nf x nv) and w (nf)
static int play_frames(const salto_model* m, const salto_reaction_desc* r, int n, sine_motion* s,
                       double T, double rate, double* q, double* w) {
    salto_error err = {0};
    salto_react* a = salto_react_create(m, r, n, sine_state, s, T, 1e-3, &err);
    ck_assert_msg(a != NULL, "%s", err.msg);
    const int nf = (int)floor(T * rate + 1e-9) + 1;
    for (int k = 0; k < nf; k++) {
        const double t = fmin(k / rate, T);
        ck_assert_msg(salto_react_pose(a, t, q + (size_t)k * m->nv, w ? w + (size_t)k * n : NULL, &err) == SALTO_OK,
                      "%s", err.msg);
    }
    salto_react_destroy(a);
    return nf;
}


// with no force the reaction's simulation is the motion: the output equals the motion to
// rounding inside the reaction and bit for bit outside it
START_TEST(react_zero_force_is_the_motion) {
    salto_model* m = salto_test_model_file("data/characters/humanoid22.yaml");
    sine_motion s;
    sine_init(&s, m, 5u);
    static const char* const SIM[] = {"upperarm_r", "forearm_r", "thigh_l", "shank_l", NULL};
    hand_reaction h;
    const double zero[3] = {0, 0, 0};
    hand_init(&h, m, "forearm_r", SIM, zero, 0.4);
    const double T = 1.5, rate = 120.0;
    const int nv = m->nv;
    double* q = malloc(sizeof(double) * 200 * nv);
    double qa[MAXV];
    const int nf = play_frames(m, &h.r, 1, &s, T, rate, q, NULL);
    double worst = 0.0;
    for (int k = 0; k < nf; k++) {
        const double t = fmin(k / rate, T);
        sine_state(&s, t, qa, NULL, NULL);
        const int inside = t > h.r.time && t < h.r.time + h.r.duration + h.r.blend_out;
        for (int j = 0; j < nv; j++) {
            const double dq = fabs(q[(size_t)k * nv + j] - qa[j]);
            if (!inside) ck_assert_msg(dq == 0.0, "t %g DOF %s differs by %g outside the reaction", t, m->link_name[j], dq);
            worst = fmax(worst, dq);
        }
    }
    ck_assert_msg(worst < 1e-12, "the output strays %g from the motion with no force", worst);
    free(q);
    salto_model_destroy(m);
}
END_TEST


// a reaction on the right arm: every other DOF is the motion's, bit for bit, at every frame;
// the arm's move (by more than 0.05 rad somewhere)
START_TEST(react_right_arm_leaves_the_rest) {
    salto_model* m = salto_test_model_file("data/characters/humanoid22.yaml");
    sine_motion s;
    sine_init(&s, m, 7u + (unsigned)_i);
    hand_reaction h;
    const double f[3] = {_i ? -150.0 : 0.0, 200.0, _i ? 0.0 : 120.0};
    hand_init(&h, m, "forearm_r", RIGHT_ARM, f, 0.3);
    const double T = 1.4, rate = 60.0;
    const int nv = m->nv;
    double* q = malloc(sizeof(double) * 100 * nv);
    double qa[MAXV];
    const int nf = play_frames(m, &h.r, 1, &s, T, rate, q, NULL);
    double arm = 0.0;
    for (int k = 0; k < nf; k++) {
        const double t = fmin(k / rate, T);
        sine_state(&s, t, qa, NULL, NULL);
        for (int j = 0; j < nv; j++) {
            const double v = q[(size_t)k * nv + j];
            if (h.simulated[m->link_body[j]]) {
                arm = fmax(arm, fabs(v - qa[j]));
            } else {
                ck_assert_msg(v == qa[j], "seed %d t %g: DOF %s is %.17g, the motion's %.17g", _i, t,
                              m->link_name[j], v, qa[j]);
            }
        }
    }
    ck_assert_msg(arm > 0.05, "seed %d: the arm moved only %g rad", _i, arm);
    free(q);
    salto_model_destroy(m);
}
END_TEST


// a body's importance scales its weight: the elbow (a hinge) at importance 1/2 deviates from
// the motion half as far as at 1 (the same simulation), at 0 not at all, bit for bit
START_TEST(react_importance_scales_a_body) {
    salto_model* m = salto_test_model_file("data/characters/humanoid22.yaml");
    sine_motion s;
    sine_init(&s, m, 17u);
    hand_reaction h;
    const double f[3] = {30, 90, 0};
    hand_init(&h, m, "forearm_r", RIGHT_ARM, f, 0.3);
    const int nv = m->nv, elbow = salto_model_dof(m, "elbow_r");
    const int fo = salto_model_body(m, "forearm_r");
    ck_assert(elbow >= 0 && fo >= 0);
    double* q[3];
    const double imp[3] = {1.0, 0.5, 0.0};
    int nf = 0;
    for (int k = 0; k < 3; k++) {
        q[k] = malloc(sizeof(double) * 100 * nv);
        h.importance[fo] = imp[k];
        nf = play_frames(m, &h.r, 1, &s, 1.4, 60.0, q[k], NULL);
    }
    double qa[MAXV], big = 0.0;
    for (int k = 0; k < nf; k++) {
        sine_state(&s, fmin(k / 60.0, 1.4), qa, NULL, NULL);
        const double full = q[0][(size_t)k * nv + elbow] - qa[elbow];
        const double half = q[1][(size_t)k * nv + elbow] - qa[elbow];
        big = fmax(big, fabs(full));
        ck_assert_msg(fabs(half - 0.5 * full) < 1e-9, "t %g: elbow off %g at 1/2, %g at 1", k / 60.0, half, full);
        ck_assert(q[2][(size_t)k * nv + elbow] == qa[elbow]);
    }
    ck_assert_msg(big > 0.05, "the elbow moved only %g", big);
    for (int k = 0; k < 3; k++) free(q[k]);
    salto_model_destroy(m);
}
END_TEST


// reactions add up: a second reaction on the same bodies with no force leaves the first's
// effect as it is (not pulled back to the motion), and two reactions on different bodies give
// each body what its own reaction alone gives
START_TEST(react_reactions_add) {
    salto_model* m = salto_test_model_file("data/characters/humanoid22.yaml");
    sine_motion s;
    sine_init(&s, m, 29u);
    static const char* const LEG[] = {"thigh_l", "shank_l", "foot_l", NULL};
    const double f1[3] = {0, 200, 0}, f0[3] = {0, 0, 0}, f2[3] = {150, 0, 0};
    hand_reaction h[4];
    hand_init(&h[0], m, "forearm_r", RIGHT_ARM, f1, 0.3);
    hand_init(&h[1], m, "forearm_r", RIGHT_ARM, f0, 0.3); // nothing, on the same bodies
    hand_init(&h[2], m, "shank_l", LEG, f2, 0.4);
    salto_reaction_desc two[2] = {h[0].r, h[1].r}, other[2] = {h[0].r, h[2].r};
    const int nv = m->nv;
    double* q1 = malloc(sizeof(double) * 100 * nv);
    double* q2 = malloc(sizeof(double) * 100 * nv);
    double* q3 = malloc(sizeof(double) * 100 * nv);
    double* q4 = malloc(sizeof(double) * 100 * nv);
    const int nf = play_frames(m, &h[0].r, 1, &s, 1.4, 60.0, q1, NULL);
    play_frames(m, two, 2, &s, 1.4, 60.0, q2, NULL);
    play_frames(m, other, 2, &s, 1.4, 60.0, q3, NULL);
    play_frames(m, &h[2].r, 1, &s, 1.4, 60.0, q4, NULL);
    double moved = 0.0, qa[MAXV];
    for (int k = 0; k < nf; k++) {
        sine_state(&s, fmin(k / 60.0, 1.4), qa, NULL, NULL);
        for (int j = 0; j < nv; j++) {
            const size_t i = (size_t)k * nv + j;
            moved = fmax(moved, fabs(q1[i] - qa[j]));
            ck_assert_msg(fabs(q2[i] - q1[i]) < 1e-9, "t %g %s: %g with a second reaction, %g alone",
                          k / 60.0, m->link_name[j], q2[i], q1[i]);
            const double want = h[2].simulated[m->link_body[j]] ? q4[i] : q1[i];
            ck_assert_msg(fabs(q3[i] - want) < 1e-9, "t %g %s: %g with both, %g with its own alone",
                          k / 60.0, m->link_name[j], q3[i], want);
        }
    }
    ck_assert_msg(moved > 0.05, "the first reaction moved only %g", moved);
    free(q1), free(q2), free(q3), free(q4);
    salto_model_destroy(m);
}
END_TEST


// the weights: 0 before, (1 - cos)/2 up to 1 at time + blend_in, 1 to time + duration, down
// to 0 at the end, continuous, never outside [0, 1]; salto_react_pose reports them
START_TEST(react_weights_ramp) {
    salto_reaction_desc r;
    memset(&r, 0, sizeof r);
    r.time = 0.5, r.blend_in = 0.1, r.duration = 0.4, r.blend_out = 0.6;
    ck_assert(salto_reaction_weight(&r, 0.0) == 0.0);
    ck_assert(salto_reaction_weight(&r, 0.5) == 0.0);
    ck_assert(fabs(salto_reaction_weight(&r, 0.55) - 0.5) < 1e-12);
    ck_assert(salto_reaction_weight(&r, 0.6) == 1.0);
    ck_assert(salto_reaction_weight(&r, 0.9) == 1.0);
    ck_assert(fabs(salto_reaction_weight(&r, 1.2) - 0.5) < 1e-12);
    ck_assert(salto_reaction_weight(&r, 1.5) == 0.0);
    ck_assert(salto_reaction_weight(&r, 9.0) == 0.0);
    double last = 0.0;
    for (int k = 0; k <= 20000; k++) {
        const double t = 0.4 + k * 1.2 / 20000, w = salto_reaction_weight(&r, t);
        ck_assert(w >= 0.0 && w <= 1.0);
        ck_assert_msg(fabs(w - last) < 1e-3, "the weight jumps %g at %g", w - last, t);
        last = w;
    }
    // an instant attack: the weight is 1 from the reaction's time on
    r.blend_in = 0.0;
    ck_assert(salto_reaction_weight(&r, 0.5) == 1.0);
    // reported per frame
    salto_model* m = salto_test_model_file("data/characters/humanoid22.yaml");
    sine_motion s;
    sine_init(&s, m, 9u);
    hand_reaction h;
    const double f[3] = {0, 100, 0};
    hand_init(&h, m, "forearm_r", RIGHT_ARM, f, 0.2);
    double* q = malloc(sizeof(double) * 100 * m->nv);
    double w[100];
    const int nf = play_frames(m, &h.r, 1, &s, 1.2, 60.0, q, w);
    for (int k = 0; k < nf; k++) {
        ck_assert(fabs(w[k] - salto_reaction_weight(&h.r, fmin(k / 60.0, 1.2))) == 0.0);
    }
    free(q);
    salto_model_destroy(m);
}
END_TEST


// no pop: with the blend ramped in and out, no frame-to-frame change of the output is larger
// than the motion's own largest at the frame rate (a push within the motion's speeds); the same
// push cut off at once (blend_out 0) jumps
START_TEST(react_output_is_continuous) {
    salto_model* m = salto_test_model_file("data/characters/humanoid22.yaml");
    sine_motion s;
    sine_init(&s, m, 21u);
    hand_reaction h;
    const double f[3] = {0, 40, 20};
    hand_init(&h, m, "forearm_r", RIGHT_ARM, f, 0.3);
    const double T = 1.6, rate = 60.0;
    const int nv = m->nv;
    double* q = malloc(sizeof(double) * 200 * nv);
    double* qa = malloc(sizeof(double) * 200 * nv);
    for (int pass = 0; pass < 2; pass++) {
        h.r.blend_out = pass == 0 ? 0.5 : 0.0;
        const int nf = play_frames(m, &h.r, 1, &s, T, rate, q, NULL);
        double jump = 0.0, own = 0.0;
        for (int k = 0; k < nf; k++) sine_state(&s, fmin(k / rate, T), qa + (size_t)k * nv, NULL, NULL);
        for (int k = 0; k + 1 < nf; k++) {
            for (int j = 0; j < nv; j++) {
                jump = fmax(jump, fabs(q[(size_t)(k + 1) * nv + j] - q[(size_t)k * nv + j]));
                own = fmax(own, fabs(qa[(size_t)(k + 1) * nv + j] - qa[(size_t)k * nv + j]));
            }
        }
        if (pass == 0) {
            ck_assert_msg(jump <= own, "the output jumps %g rad in a frame, the motion at most %g", jump, own);
        } else {
            ck_assert_msg(jump > own, "cut off at once the output jumps only %g (motion %g): the "
                                      "test cannot see a pop", jump, own);
        }
    }
    free(q), free(qa);
    salto_model_destroy(m);
}
END_TEST


// the spherical blend of unit quaternions: normalized, on the short arc (the angle from a is t
// times the rotations' angle, at most pi), exact at the ends, and the same for b and -b
START_TEST(quat_slerp_short_arc) {
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 41u);
    for (int it = 0; it < 2000; it++) {
        double a[4], b[4], nb[4], r[4], r2[4], na = 0.0, nn = 0.0;
        for (int k = 0; k < 4; k++) a[k] = salto_test_uniform(&rng, -1, 1), b[k] = salto_test_uniform(&rng, -1, 1);
        if (it % 7 == 0) { // nearly equal, and nearly opposite
            for (int k = 0; k < 4; k++) b[k] = (it % 14 ? 1.0 : -1.0) * a[k] + 1e-9 * b[k];
        }
        for (int k = 0; k < 4; k++) na += a[k] * a[k], nn += b[k] * b[k];
        for (int k = 0; k < 4; k++) a[k] /= sqrt(na), b[k] /= sqrt(nn), nb[k] = -b[k];
        double dot = 0.0;
        for (int k = 0; k < 4; k++) dot += a[k] * b[k];
        const double ang = 2.0 * acos(fmin(1.0, fabs(dot))); // the rotations' angle, in [0, pi]
        const double t = salto_test_uniform(&rng, 0.0, 1.0);
        salto_quat_slerp(r, a, b, t);
        salto_quat_slerp(r2, a, nb, t);
        double n = 0.0, ra = 0.0, same = 0.0;
        for (int k = 0; k < 4; k++) n += r[k] * r[k], ra += r[k] * a[k], same += r[k] * r2[k];
        ck_assert_msg(fabs(n - 1.0) < 1e-14, "it %d: |r| - 1 = %g", it, n - 1.0);
        ck_assert_msg(fabs(fabs(same) - 1.0) < 1e-12, "it %d: b and -b blend differently", it);
        const double got = 2.0 * acos(fmin(1.0, fabs(ra)));
        ck_assert_msg(fabs(got - t * ang) < 2e-7, "it %d: turned %.12g of %.12g at t %g", it, got, ang, t);
        ck_assert_msg(ra >= -1e-15, "it %d: the long way round", it);
        salto_quat_slerp(r, a, b, 0.0);
        for (int k = 0; k < 4; k++) ck_assert(fabs(r[k] - a[k]) < 1e-15);
        salto_quat_slerp(r, a, b, 1.0);
        double e = 0.0;
        for (int k = 0; k < 4; k++) e = fmax(e, fabs(fabs(r[k]) - fabs(b[k])));
        ck_assert_msg(e < 1e-12, "it %d: t = 1 misses b by %g", it, e);
    }
}
END_TEST


// the pose blend: each body's rotation to its parent is the spherical blend of the two poses'
// (its chain reaches it: hinges and three-axis joints), a body of weight 0 keeps a's DOFs bit
// for bit, weight 1 gives b's rotation
START_TEST(pose_blend_blends_each_body) {
    salto_model* m = salto_test_model_file("data/characters/humanoid22.yaml");
    const int nv = m->nv;
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 60u + (unsigned)_i);
    double a[MAXV], b[MAXV], out[MAXV], w[64];
    for (int j = 0; j < nv; j++) {
        double lo = -1.0, hi = 1.0;
        if (m->link_has_limits[j]) lo = m->link_limits[2 * j], hi = m->link_limits[2 * j + 1];
        a[j] = salto_test_uniform(&rng, lo, hi), b[j] = salto_test_uniform(&rng, lo, hi);
    }
    for (int bd = 0; bd < m->nbody; bd++) {
        const double u = salto_test_uniform(&rng, 0.0, 1.0);
        w[bd] = u < 0.25 ? 0.0 : u < 0.4 ? 1.0 : u;
    }
    salto_pose_blend(m, a, b, w, out);
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, O[3] = {0, 0, 0};
    for (int bd = 0; bd < m->nbody; bd++) {
        if (m->body_link[bd] < 0) continue;
        int l[SALTO_MAXCHAIN];
        const int n = salto_chain_of(m, bd, l);
        if (w[bd] == 0.0) {
            for (int k = 0; k < n; k++) ck_assert(out[l[k]] == a[l[k]]);
            continue;
        }
        double Ra[9], Rb[9], Ro[9], pa[3], pb[3], po[3], u[SALTO_MAXCHAIN][3], o[SALTO_MAXCHAIN][3];
        salto_chain_fk(m, l, n, I, O, a, Ra, pa, u, o);
        salto_chain_fk(m, l, n, I, O, b, Rb, pb, u, o);
        salto_chain_fk(m, l, n, I, O, out, Ro, po, u, o);
        double qa[4], qb[4], qw[4], qo[4];
        salto_m3_to_quat(qa, Ra), salto_m3_to_quat(qb, Rb), salto_m3_to_quat(qo, Ro);
        salto_quat_slerp(qw, qa, qb, w[bd]);
        double dot = 0.0;
        for (int k = 0; k < 4; k++) dot += qw[k] * qo[k];
        if (n == 2) continue; // a two-axis joint reaches the blend only in its own least squares
        ck_assert_msg(fabs(fabs(dot) - 1.0) < 1e-12, "seed %d body %s (w %g): rotation off by %g",
                      _i, m->body_name[bd], w[bd], 1.0 - fabs(dot));
        for (int k = 0; k < 3; k++) ck_assert(fabs(po[k] - ((1 - w[bd]) * pa[k] + w[bd] * pb[k])) < 1e-12);
    }
    salto_model_destroy(m);
}
END_TEST


// the analytic response: a one-link pendulum on a fixed base hit by an impulse iota at its
// centre of mass starts turning at v0 = (S . iota x (c - o)) / M (M its inertia about the
// hinge), and the pull back (critically damped at om) gives e(u) = v0 u exp(-om u) after it; the
// simulation agrees within its integration error (dt 1e-3), and a force iota / dt for one step
// gives the same
START_TEST(react_impulse_matches_analytic) {
    salto_model* m = salto_test_model_chain(1);
    sine_motion s;
    sine_init(&s, m, 3u);
    static const char* const SIM[] = {"link1", NULL};
    const double iota[3] = {0.0, 0.0, 0.8};
    hand_reaction h;
    hand_init(&h, m, "link1", SIM, iota, 0.2);
    h.r.impulse = 1;
    const double om = 5.0;
    h.r.stiffness = om * om, h.r.damping = 2.0 * om;
    memcpy(h.r.point, m->link_inertia + 10 * m->body_link[h.r.body] + 1, sizeof h.r.point);
    // v0 from the model at the motion's pose at the reaction's time
    salto_data* d = salto_data_create(m);
    sine_state(&s, h.r.time, d->q, d->qd, d->qdd);
    double M[1];
    salto_crba(m, d, M);
    const double *R, *p;
    salto_body_frame(m, d, h.r.body, &R, &p);
    double x[3], wrench[6];
    salto_m3_mul_v3(x, R, h.r.point);
    for (int k = 0; k < 3; k++) x[k] += p[k];
    salto_point_force(wrench, x, iota);
    const double v0 = salto_sv_dot(d->S, wrench) / M[0];
    ck_assert(fabs(v0) > 0.5);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) { // the same as a force for one step
            h.r.impulse = 0, h.r.push = 1e-3;
            for (int k = 0; k < 3; k++) h.r.force[k] = iota[k] / 1e-3;
        }
        salto_error err = {0};
        salto_react* a = salto_react_create(m, &h.r, 1, sine_state, &s, 2.0, 1e-3, &err);
        ck_assert_ptr_nonnull(a);
        double q[4], qa[4], worst = 0.0;
        for (int k = 1; k <= 60; k++) {
            const double t = h.r.time + k * 0.01;
            ck_assert_int_eq(salto_react_pose(a, t, q, NULL, &err), SALTO_OK);
            sine_state(&s, t, qa, NULL, NULL);
            const double u = t - h.r.time;
            // the output blends the simulated rotation in at weight w: a hinge's angle blends
            // linearly
            const double want = salto_reaction_weight(&h.r, t) * v0 * u * exp(-om * u);
            worst = fmax(worst, fabs(q[0] - qa[0] - want));
        }
        ck_assert_msg(worst < (pass ? 0.02 : 0.01) * fabs(v0) / om,
                      "pass %d: the response strays %g from v0 u exp(-om u) (v0 %g)", pass, worst, v0);
        salto_react_destroy(a);
    }
    salto_data_destroy(d);
    salto_model_destroy(m);
}
END_TEST


// a joint pushed past its limit stops there (the motion within it): every frame's elbow within
// its range
START_TEST(react_keeps_joint_limits) {
    salto_model* m = salto_test_model_file("data/characters/humanoid22.yaml");
    sine_motion s;
    sine_init(&s, m, 13u);
    hand_reaction h;
    const double f[3] = {0, 0, 0};
    hand_init(&h, m, "forearm_r", RIGHT_ARM, f, 0.3);
    h.r.impulse = 1;
    const int nv = m->nv;
    double* q = malloc(sizeof(double) * 100 * nv);
    int hit = 0;
    for (int dir = -1; dir <= 1; dir += 2) {
        for (int ax = 0; ax < 3; ax++) {
            memset(h.r.force, 0, sizeof h.r.force);
            h.r.force[ax] = 40.0 * dir;
            salto_error err = {0};
            salto_react* a = salto_react_create(m, &h.r, 1, sine_state, &s, 1.2, 1e-3, &err);
            ck_assert_ptr_nonnull(a);
            for (int k = 0; k < 72; k++) {
                ck_assert_int_eq(salto_react_pose(a, k / 60.0, q, NULL, &err), SALTO_OK);
                for (int j = 0; j < nv; j++) {
                    if (!h.simulated[m->link_body[j]] || !m->link_has_limits[j]) continue;
                    ck_assert_msg(q[j] >= m->link_limits[2 * j] - 1e-9 && q[j] <= m->link_limits[2 * j + 1] + 1e-9,
                                  "axis %d dir %d t %g: %s at %g outside [%g, %g]", ax, dir, k / 60.0,
                                  m->link_name[j], q[j], m->link_limits[2 * j], m->link_limits[2 * j + 1]);
                }
            }
            hit += salto_react_info(a, 0)->limit_stops > 0;
            salto_react_destroy(a);
        }
    }
    ck_assert_msg(hit > 0, "no push reached a limit: the test sees nothing");
    // a very stiff, very damped pull back stays stable (implicit), its statistics within reason
    h.r.stiffness = 1e7, h.r.damping = 1e4;
    h.r.force[0] = 40.0, h.r.force[1] = h.r.force[2] = 0.0;
    salto_error err = {0};
    salto_react* a = salto_react_create(m, &h.r, 1, sine_state, &s, 1.2, 1e-3, &err);
    for (int k = 0; k < 72; k++) ck_assert_int_eq(salto_react_pose(a, k / 60.0, q, NULL, &err), SALTO_OK);
    const salto_react_stats* st = salto_react_info(a, 0);
    ck_assert_msg(st->peak < 0.05 && st->limit_stops <= st->steps, "stiff: peak %g, %ld stops in %ld steps",
                  st->peak, st->limit_stops, st->steps);
    salto_react_destroy(a);
    free(q);
    salto_model_destroy(m);
}
END_TEST


// the reactions' descriptions: defaults, the simulated set, and errors at the spec's column
START_TEST(reactions_parse) {
    salto_error err = {0};
    salto_problem_desc* p = salto_problem_load(salto_test_path("problems/monkey_bars.yaml"), &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    const salto_model* m = p->model;
    salto_reaction_desc* r = NULL;
    int n = 0;
    // the short form: defaults; the path from the root's child and the subtree simulated
    ck_assert_int_eq(salto_reactions_parse(p, "shank_l:0,200,0@0.5", &r, &n, &err), SALTO_OK);
    ck_assert_int_eq(n, 1);
    ck_assert(r[0].time == 0.5 && r[0].force[1] == 200.0 && !r[0].impulse && r[0].push == 0.05);
    ck_assert(r[0].duration == 0.3 && r[0].blend_in == 0.05 && r[0].blend_out == 0.5);
    for (int b = 0; b < m->nbody; b++) {
        const char* nm = m->body_name[b];
        const int want = !strcmp(nm, "thigh_l") || !strcmp(nm, "shank_l") || !strcmp(nm, "foot_l");
        ck_assert_msg(r[0].simulated[b] == want, "%s simulated %d", nm, r[0].simulated[b]);
        ck_assert(r[0].importance[b] == (want ? 1.0 : 0.0));
    }
    // the point defaults to the body's centre of mass
    const int sh = salto_model_body(m, "shank_l");
    for (int k = 0; k < 3; k++) ck_assert(r[0].point[k] == m->link_inertia[10 * m->body_link[sh] + 1 + k]);
    salto_reactions_free(r, n);
    // a map: a subtree, importance, a time by phase, an impulse
    ck_assert_int_eq(salto_reactions_parse(p, "{body: forearm_r, impulse: [1, 2, 3], time: right1.end, "
                                              "simulate: upperarm_r, importance: {forearm_r: 0.5}}",
                                           &r, &n, &err), SALTO_OK);
    ck_assert(r[0].impulse && r[0].force[2] == 3.0);
    ck_assert(fabs(r[0].time - p->phases[0].duration) < 1e-12);
    ck_assert(r[0].importance[salto_model_body(m, "forearm_r")] == 0.5);
    ck_assert(r[0].importance[salto_model_body(m, "upperarm_r")] == 1.0);
    ck_assert(r[0].simulated[salto_model_body(m, "forearm_r")] && !r[0].simulated[salto_model_body(m, "trunk")]);
    salto_reactions_free(r, n);
    // errors: what and where
    static const struct { const char* spec; const char* msg; } bad[] = {
        {"{body: forearm_r, force: [0, 1, 0], time: 0.5, simulat: trunk}", "--react:1:48: error: unknown key 'simulat'"},
        {"{body: forearm_r, force: [0, 1, 0], impulse: [1, 0, 0], time: 0.5}", "exactly one of 'force'"},
        {"{body: forearm_r, force: [0, 1, 0], time: 0.5, simulate: trunk}", "'trunk' is the root"},
        {"{body: trunk, force: [0, 1, 0], time: 0.5}", "no simulated joint carries 'trunk'"},
        {"{body: forearm_r, force: [0, 1, 0], time: 0.5, simulate: [thigh_l]}", "no simulated joint carries 'forearm_r'"},
        {"{body: forearm_r, force: [0, 1, 0], time: 0.5, importance: {forearm_r: 2}}", "importance.forearm_r must be in [0, 1]"},
        {"{body: forearm_r, force: [0, 1, 0], time: 0.5, importance: {shank_l: 1}}", "'shank_l' is not simulated"},
        {"{body: forearm_r, force: [0, 1, 0], time: 0.5, blend_in: 0.5}", "must not pass 'duration'"},
        {"{body: forearm_r, force: [0, 1, 0], time: 99}", "--react:1:43: error"},
        {"{body: forarm_r, force: [0, 1, 0], time: 0.5}", "did you mean 'forearm_r'?"},
        {"{body: forearm_r, impulse: [0, 1, 0], time: 0.5, push: 0.1}", "an impulse acts at once"},
        {"forearm_r:0,1@0.5", "--react 'forearm_r:0,1@0.5': error"},
        {"forearm_r", "--react 'forearm_r': error: not a file, and a reaction is FILE, a YAML map"},
        {"shank_l:0,200,0], stiffness: 0, point: [0,0,0@0.5", "']' (character 16) does not belong"},
        {"shank_l:0,200,0@0.5 #c", "' ' (character 20) does not belong"},
        {"shank_l:0,200,0@0.5, simulate: foot_l", "',' (character 20) does not belong"},
        {"{body: shank_l, force: [0, 1, 0], time: 0.5}\nreactions: []\nx: {", "--react:"},
        {"{body: shank_l, force: [0, 1, 0], time: 0.5}, {body: shank_l, force: [0, 1, 0], time: 0.5}", "--react:1:45: error"},
        {"{body: shank_l, force: [0, 1, 0], time: 0.5}\nstiffness: 0", "one reaction, a YAML map"},
        {"{body: shank_l", "--react:1:"},
        {"{body: shank_l,\n force: [0, 1, 0],\n time: 0.5, frc: 1}", "--react:3:13: error: unknown key 'frc'"},
        {"{body: shank_l, force: [0, 1e300, 0], time: 0.5}", "beyond any hit"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        salto_error e = {0};
        const salto_status st = salto_reactions_parse(p, bad[k].spec, &r, &n, &e);
        ck_assert_msg(st != SALTO_OK && st != SALTO_ERR_NOMEM, "'%s' was accepted", bad[k].spec);
        char msg[1200];
        salto_error_format(&e, msg, sizeof msg);
        ck_assert_msg(strstr(msg, bad[k].msg) != NULL, "'%s': the message '%s' lacks '%s'",
                      bad[k].spec, msg, bad[k].msg);
        ck_assert_ptr_null(r);
    }
    salto_problem_destroy(p);
}
END_TEST


// a problem file's reactions are read with it (salto check sees their errors at file:line:col),
// and a file of its own holding the list
START_TEST(reactions_in_files) {
    const char* src = salto_test_path("problems/monkey_bars.yaml");
    FILE* in = fopen(src, "r");
    ck_assert_ptr_nonnull(in);
    char* text = malloc(1 << 20);
    const size_t len = fread(text, 1, (1 << 20) - 1, in);
    fclose(in);
    text[len] = '\0';
    char path[256], rpath[256];
    snprintf(path, sizeof path, "/tmp/salto_react_%d.yaml", (int)getpid());
    snprintf(rpath, sizeof rpath, "/tmp/salto_react_list_%d.yaml", (int)getpid());
    // the problem's character is relative to its folder: name it absolutely
    char* ch = strstr(text, "character:");
    ck_assert_ptr_nonnull(ch);
    char* eol = strchr(ch, '\n');
    for (int pass = 0; pass < 2; pass++) {
        FILE* f = fopen(path, "w");
        fprintf(f, "character: %s\n%s", salto_test_path("data/characters/humanoid22.yaml"), eol + 1);
        fprintf(f, "reactions:\n  - body: shank_l\n    force: [0, 100, 0]\n    time: 0.4\n"
                   "    damping: %s\n", pass ? "-1" : "8");
        fclose(f);
        salto_error err = {0};
        salto_problem_desc* p = salto_problem_load(path, &err);
        if (pass == 0) {
            ck_assert_msg(p != NULL, "%s", err.msg);
            ck_assert_int_eq(p->nreaction, 1);
            ck_assert(p->reactions[0].damping == 8.0 && p->reactions[0].time == 0.4);
            // the same list from a file of its own, and from the problem file
            FILE* g = fopen(rpath, "w");
            fprintf(g, "# reactions\nreactions:\n  - {body: shank_l, force: [0, 100, 0], time: 0.4, damping: 8}\n");
            fclose(g);
            salto_reaction_desc* r = NULL;
            int n = 0;
            ck_assert_int_eq(salto_reactions_load(p, rpath, &r, &n, &err), SALTO_OK);
            ck_assert(n == 1 && r[0].damping == 8.0 && r[0].body == p->reactions[0].body);
            salto_reactions_free(r, n);
            ck_assert_int_eq(salto_reactions_load(p, path, &r, &n, &err), SALTO_OK);
            ck_assert_int_eq(n, 1);
            salto_reactions_free(r, n);
            g = fopen(rpath, "w");
            fprintf(g, "reaction:\n  - {body: shank_l, force: [0, 100, 0], time: 0.4}\n");
            fclose(g);
            ck_assert_int_eq(salto_reactions_load(p, rpath, &r, &n, &err), SALTO_ERR_INVALID);
            ck_assert_msg(strstr(err.msg, "no 'reactions' list") != NULL, "%s", err.msg);
            salto_problem_destroy(p);
        } else {
            ck_assert_ptr_null(p);
            char msg[1200];
            salto_error_format(&err, msg, sizeof msg);
            ck_assert_msg(strstr(msg, "'damping' must be zero or positive") && strstr(msg, path),
                          "%s", msg);
        }
    }
    remove(path), remove(rpath);
    free(text);
}
END_TEST


Suite* react_suite(void) {
    Suite* s = suite_create("react");
    TCase* tc = tcase_create("react");
    tcase_add_test(tc, react_zero_force_is_the_motion);
    tcase_add_loop_test(tc, react_right_arm_leaves_the_rest, 0, 2);
    tcase_add_test(tc, react_importance_scales_a_body);
    tcase_add_test(tc, react_reactions_add);
    tcase_add_test(tc, react_weights_ramp);
    tcase_add_test(tc, react_output_is_continuous);
    tcase_add_test(tc, quat_slerp_short_arc);
    tcase_add_loop_test(tc, pose_blend_blends_each_body, 0, 6);
    tcase_add_test(tc, react_impulse_matches_analytic);
    tcase_add_test(tc, react_keeps_joint_limits);
    tcase_add_test(tc, reactions_parse);
    tcase_add_test(tc, reactions_in_files);
    suite_add_tcase(s, tc);
    return s;
}
