// react.c: simulated reactions blended into a motion (react.h; de Heras 2002, chapters 3-4)
#include "salto/react.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chain_priv.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"

static const double pi = 3.14159265358979323846;

typedef struct reaction {
    const salto_reaction_desc* r;
    unsigned char* given;   // (nv) 1: the joint follows the motion; 0: simulated
    double* e;              // (nv) the simulated joints' deviation from the motion
    double* ed;             //   and its rate
    double* fw;             // (nbody) the bodies' blend weights (scratch)
    int started, ended;
    double t;               // the simulation's time
    salto_react_stats st;
} reaction;

struct salto_react {
    const salto_model* m;
    int n;
    reaction* rs;
    salto_state_fn state;
    void* ctx;
    double T, dt;
    double qa_t;             // the time qa, qda, qdda are at (NAN: none yet)
    salto_data* d;           // the simulation's state
    double *qa, *qda, *qdda; // the motion at a time (nv each)
    double *qs, *tau, *fext; // scratch: a simulated pose, torques, forces (6 nv)
};


double salto_reaction_weight(const salto_reaction_desc* r, double t) {
    const double u = t - r->time;
    if (!(u >= 0.0)) return 0.0;
    if (u < r->blend_in) return 0.5 * (1.0 - cos(pi * u / r->blend_in));
    if (u <= r->duration) return 1.0;
    if (!(r->blend_out > 0.0) || u >= r->duration + r->blend_out) return 0.0;
    return 0.5 * (1.0 + cos(pi * (u - r->duration) / r->blend_out));
}


double salto_pose_add(const salto_model* m, const double* c, const double* a, const double* b,
                      const double* w, double* out) {
    if (out != c) memcpy(out, c, (size_t)m->nv * sizeof(double));
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, O[3] = {0, 0, 0};
    double worst = 0.0;
    for (int bd = 0; bd < m->nbody; bd++) {
        const double wb = w[bd];
        if (!(wb > 0.0) || m->body_link[bd] < 0) continue;
        int l[SALTO_MAXCHAIN];
        const int n = salto_chain_of(m, bd, l);
        double Rc[9], pc[3], Ra[9], pa[3], Rb[9], pb[3], u[SALTO_MAXCHAIN][3], o[SALTO_MAXCHAIN][3];
        salto_chain_fk(m, l, n, I, O, out, Rc, pc, u, o); // (out's chain is still c's)
        salto_chain_fk(m, l, n, I, O, a, Ra, pa, u, o);
        salto_chain_fk(m, l, n, I, O, b, Rb, pb, u, o);
        // the body's turn from a to b in its own frame, D = Ra' Rb, taken at the weight from
        // the identity (the short arc) and put after c's: Rc slerp(1, D, w)
        double D[9], qd[4], qw[4], Rw[9], Rt[9], pt[3];
        static const double one[4] = {1, 0, 0, 0};
        salto_m3t_mul(D, Ra, Rb);
        salto_m3_to_quat(qd, D);
        salto_quat_slerp(qw, one, qd, wb);
        salto_quat_to_m3(Rw, qw);
        salto_m3_mul(Rt, Rc, Rw);
        for (int k = 0; k < 3; k++) pt[k] = pc[k] + wb * (pb[k] - pa[k]);
        for (int k = 0; k < n; k++) out[l[k]] += wb * (b[l[k]] - a[l[k]]);
        worst = fmax(worst, salto_chain_ik(m, bd, I, O, Rt, pt, out));
    }
    return worst;
}


double salto_pose_blend(const salto_model* m, const double* a, const double* b, const double* w,
                        double* out) {
    return salto_pose_add(m, a, a, b, w, out);
}


void salto_react_destroy(salto_react* a) {
    if (!a) return;
    for (int k = 0; a->rs && k < a->n; k++) {
        salto_free(a->rs[k].given), salto_free(a->rs[k].e), salto_free(a->rs[k].fw);
    }
    salto_free(a->rs);
    salto_data_destroy(a->d);
    salto_free(a->qa);
    salto_free(a);
}


salto_react* salto_react_create(const salto_model* m, const salto_reaction_desc* r, int n,
                                salto_state_fn state, void* ctx, double T, double dt,
                                salto_error* err) {
    if (!(dt > 0.0) || !isfinite(dt) || !(T > 0.0) || n < 0) {
        SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(),
                   "reactions need a step > 0 and a motion of positive duration (dt %g, T %g)", dt, T);
        return NULL;
    }
    const int nv = m->nv;
    salto_react* a = salto_calloc(1, sizeof *a);
    if (!a) goto nomem;
    a->m = m, a->n = n, a->state = state, a->ctx = ctx, a->T = T, a->dt = dt, a->qa_t = NAN;
    a->rs = salto_calloc((size_t)(n > 0 ? n : 1), sizeof *a->rs);
    a->d = salto_data_create(m);
    a->qa = salto_calloc((size_t)nv * 11, sizeof(double));
    if (!a->rs || !a->d || !a->qa) goto nomem;
    a->qda = a->qa + nv, a->qdda = a->qda + nv, a->qs = a->qdda + nv, a->tau = a->qs + nv;
    a->fext = a->tau + nv;
    for (int k = 0; k < n; k++) {
        reaction* x = &a->rs[k];
        x->r = &r[k];
        x->given = salto_calloc((size_t)nv, 1);
        x->e = salto_calloc((size_t)nv * 2, sizeof(double));
        x->fw = salto_calloc((size_t)m->nbody, sizeof(double));
        if (!x->given || !x->e || !x->fw) goto nomem;
        x->ed = x->e + nv;
        for (int j = 0; j < nv; j++) x->given[j] = !r[k].simulated[m->link_body[j]];
        x->st.peak_dof = -1;
        x->st.end = r[k].time + r[k].duration + r[k].blend_out;
    }
    return a;
nomem:
    salto_react_destroy(a);
    SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    return NULL;
}


const salto_react_stats* salto_react_info(const salto_react* a, int k) {
    return &a->rs[k].st;
}


// the motion's state at t (clamped into the motion) into qa, qda, qdda
// (a step's end is the next step's start: read once)
static void motion_at(salto_react* a, double t) {
    const double tc = fmin(fmax(t, 0.0), a->T);
    if (tc == a->qa_t) return;
    a->state(a->ctx, tc, a->qa, a->qda, a->qdda);
    a->qa_t = tc;
}


// a simulated joint past a limit the motion keeps (at the motion's state in qa, qda) put back on
// it, its velocity out of the range taken away; counted in the statistics
static void clamp_limits(salto_react* a, reaction* x) {
    const salto_model* m = a->m;
    int stopped = 0;
    for (int j = 0; j < m->nv; j++) {
        if (x->given[j] || !m->link_has_limits[j]) continue;
        const double lo = fmin(m->link_limits[2 * j], a->qa[j]);
        const double hi = fmax(m->link_limits[2 * j + 1], a->qa[j]);
        const double q = a->qa[j] + x->e[j], v = a->qda[j] + x->ed[j];
        if (q > hi) {
            x->e[j] = hi - a->qa[j], stopped = 1;
            if (v > 0.0) x->ed[j] = -a->qda[j];
        } else if (q < lo) {
            x->e[j] = lo - a->qa[j], stopped = 1;
            if (v < 0.0) x->ed[j] = -a->qda[j];
        }
    }
    x->st.limit_stops += stopped;
}


// the simulated state: d->q = qa + e, d->qd = qda + ed, d->qdd the motion's
static void sim_state(salto_react* a, const reaction* x) {
    salto_data* d = a->d;
    for (int j = 0; j < a->m->nv; j++) {
        d->q[j] = a->qa[j] + x->e[j];
        d->qd[j] = a->qda[j] + x->ed[j];
        d->qdd[j] = a->qdda[j];
    }
}


static salto_status fail(const salto_react* a, const reaction* x, double t, const char* what,
                         salto_error* err) {
    char line[64] = "";
    if (x->r->line > 0) snprintf(line, sizeof line, " (line %d of its file)", x->r->line);
    return SALTO_FAIL(err, SALTO_ERR_NUMERIC, salto_loc_none(),
                      "the reaction on '%s' at %g s%s: at t = %.4f s %s",
                      a->m->body_name[x->r->body], x->r->time, line, t, what);
}


// the reaction's force (or impulse) on its body's point into a->fext, at d's positions
static void point_force(salto_react* a, const reaction* x) {
    const salto_model* m = a->m;
    memset(a->fext, 0, (size_t)m->nv * 6 * sizeof(double));
    const double *R, *p;
    salto_body_frame(m, a->d, x->r->body, &R, &p);
    double xw[3];
    salto_m3_mul_v3(xw, R, x->r->point);
    for (int k = 0; k < 3; k++) xw[k] += p[k];
    salto_point_force(a->fext + 6 * m->body_link[x->r->body], xw, x->r->force);
}


// the free joints' accelerations at the simulated state (d, after sim_state) into d->qdd: the
// joint torques those that give the simulated joints the motion's accelerations less the pull
// back (a = qdd_m - stiffness e - damping e') at this state (computed-torque control: gravity,
// the base's motion and the velocity terms cancelled), then the hybrid dynamics under them and
// the force when on: e'' = -stiffness e - damping e' + the force's own effect
static salto_status accelerations(salto_react* a, reaction* x, int force) {
    const salto_model* m = a->m;
    salto_data* d = a->d;
    const double ks = x->r->stiffness, kd = x->r->damping;
    for (int j = 0; j < m->nv; j++) {
        if (!x->given[j]) d->qdd[j] = a->qdda[j] - ks * x->e[j] - kd * x->ed[j];
    }
    salto_rnea(m, d, a->tau);
    for (int j = 0; j < m->nv; j++) d->tau[j] = x->given[j] ? 0.0 : a->tau[j];
    if (force) point_force(a, x); // (d's positions from the inverse dynamics)
    return salto_aba_hybrid(m, d, force ? a->fext : NULL, x->given);
}


// starts reaction x at its time: the motion's state, the inertias, the impulse
static salto_status start(salto_react* a, reaction* x, salto_error* err) {
    const salto_model* m = a->m;
    const int nv = m->nv;
    x->started = 1, x->t = x->r->time;
    memset(x->e, 0, 2 * (size_t)nv * sizeof(double));
    motion_at(a, x->t);
    if (!x->r->impulse) return SALTO_OK;
    // the impulse's velocity change: the free joints' response to it as a force (the
    // accelerations with it less those without, linear in it: M_h^-1 J' iota)
    sim_state(a, x);
    salto_status s = accelerations(a, x, 1);
    if (s == SALTO_OK) memcpy(a->qs, a->d->qdd, (size_t)nv * sizeof(double));
    if (s == SALTO_OK) sim_state(a, x), s = accelerations(a, x, 0);
    if (s != SALTO_OK) return fail(a, x, x->t, "the hybrid dynamics failed", err);
    for (int j = 0; j < nv; j++) {
        if (!x->given[j]) x->ed[j] = a->qs[j] - a->d->qdd[j];
    }
    return SALTO_OK;
}


// one step of h from x->t, the force on or off: the pull back implicit (the deviation's
// linear part, e'' = -ks e - kd e' + delta, delta the force's own effect, taken at the step's
// end: stable at any stiffness and damping), then the limits at the step's end
static salto_status step(salto_react* a, reaction* x, double h, int force, salto_error* err) {
    const salto_model* m = a->m;
    const double ks = x->r->stiffness, kd = x->r->damping;
    motion_at(a, x->t);
    sim_state(a, x);
    const salto_status s = accelerations(a, x, force);
    if (s != SALTO_OK) return fail(a, x, x->t, "the hybrid dynamics failed", err);
    for (int j = 0; j < m->nv; j++) {
        if (x->given[j]) continue;
        const double delta = a->d->qdd[j] - (a->qdda[j] - ks * x->e[j] - kd * x->ed[j]);
        x->ed[j] = (x->ed[j] + h * (delta - ks * x->e[j])) / (1.0 + h * kd + h * h * ks);
        x->e[j] += h * x->ed[j];
    }
    x->t += h;
    x->st.steps++;
    motion_at(a, x->t);
    clamp_limits(a, x);
    for (int j = 0; j < m->nv; j++) {
        if (x->given[j]) continue;
        if (!isfinite(x->e[j]) || !isfinite(x->ed[j])) {
            char what[200];
            snprintf(what, sizeof what, "DOF '%s' is not finite", m->link_name[j]);
            return fail(a, x, x->t, what, err);
        }
        if (fabs(x->e[j]) > x->st.peak) x->st.peak = fabs(x->e[j]), x->st.peak_time = x->t, x->st.peak_dof = j;
    }
    return SALTO_OK;
}


// runs reaction x forward to t (at most to its end): steps of at most dt, ending on t and on
// the end of the push
static salto_status advance(salto_react* a, reaction* x, double t, salto_error* err) {
    const salto_reaction_desc* r = x->r;
    if (x->ended || t < r->time) return SALTO_OK;
    salto_status s = SALTO_OK;
    if (!x->started && (s = start(a, x, err))) return s;
    const double stop = fmin(t, x->st.end);
    const double push_end = r->impulse ? -INFINITY : r->time + r->push;
    while (x->t < stop - 1e-12) {
        double h = fmin(a->dt, stop - x->t);
        const int force = x->t < push_end - 1e-12; // (on from the start: steps end on push_end)
        if (force) h = fmin(h, push_end - x->t);
        if ((s = step(a, x, h, force, err))) return s;
    }
    if (t >= x->st.end) x->ended = 1;
    return SALTO_OK;
}


salto_status salto_react_pose(salto_react* a, double t, double* q, double* w, salto_error* err) {
    const salto_model* m = a->m;
    const int nv = m->nv;
    for (int k = 0; k < a->n; k++) {
        salto_status s = advance(a, &a->rs[k], t, err);
        if (s) return s;
    }
    motion_at(a, t);
    memcpy(q, a->qa, (size_t)nv * sizeof(double));
    for (int k = 0; k < a->n; k++) {
        reaction* x = &a->rs[k];
        const double wk = salto_reaction_weight(x->r, t);
        if (w) w[k] = wk;
        if (!(wk > 0.0) || !x->started) continue;
        // the simulated pose at t (the simulation has run to t: the motion there plus the
        // deviation, within the limits), its turn from the motion added to the pose so far
        for (int j = 0; j < nv; j++) a->qs[j] = a->qa[j] + x->e[j];
        for (int b = 0; b < m->nbody; b++) x->fw[b] = wk * x->r->importance[b];
        salto_pose_add(m, q, a->qa, a->qs, x->fw, q);
    }
    return SALTO_OK;
}
