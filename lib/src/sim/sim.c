// sim.c: the stepping simulator (sim.h), after Kokkevis sections 4-8
//
// Each step of dt: (1) the constraint set: every geometry point within the margin of the
// ground (a sphere's or a capsule end's lowest point, a box's corners; closer still if it is
// approaching fast) gives a normal row and one (planar) or two tangent rows; every joint at or
// past a limit, a row on its DOF. (2) Impacts: if a touching point approaches the ground or a
// joint moves into its limit, the impulses that give the normal velocity -e v (v above the
// bounce speed, else 0), stop tangential sliding within the friction cone and stop the joint,
// by projected Gauss-Seidel on K (the velocity change per unit impulse is the acceleration
// change per unit force: the same matrix). (3) Accelerations: the articulated-body algorithm
// with the torques and external forces, then the constraint forces from the same LCP at the
// acceleration level: normal accelerations at least w^2 d - 2 w v (d penetration), friction
// cancelling the tangential velocity within the step, at most mu times the normal force along
// each tangent (a pyramid: two faces in the plane, four in 3-D), joint limit torques pushing
// only away from the limit. (4) Semi-implicit Euler; a point sinking deeper than 1 mm beyond
// where it started halves the step and retries (section 7's backtracking).
#include "sim_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/problem.h" // salto_contact_frame
#include "salto/spatial.h"

#include "linalg.h"


void salto_sim_opts_default(salto_sim_opts* o) {
    memset(o, 0, sizeof *o);
    o->dt = 1e-3;
    o->ground_normal[2] = 1.0;
    o->ground = 1;
    o->friction = 0.8;
    o->restitution = 0.3;
    o->bounce_speed = 0.05;
    o->joint_limits = 1;
    o->max_iterations = 100;
    o->tolerance = 1e-7;
    o->stiffness = 20.0;
    o->margin = 1e-3;
    o->max_halvings = 6;
    o->method = SALTO_CONSTRAINT_ABA_DELTA;
    o->reduced = 1;
    o->bar_radius = 0.02;
}


void salto_sim_destroy(salto_sim* s) {
    if (!s) return;
    salto_data_destroy(s->d);
    salto_free(s->q), salto_free(s->qd), salto_free(s->tau), salto_free(s->fext);
    salto_free(s->fuser), salto_free(s->qdd), salto_free(s->q0), salto_free(s->qd0);
    salto_free(s->dA), salto_free(s->tq), salto_free(s->tqd), salto_free(s->tqdd);
    salto_free(s->ttau), salto_free(s->at_limit), salto_free(s->no_bars), salto_free(s->rows);
    salto_free(s->tt_q), salto_free(s->tt_qd), salto_free(s->tt_qdd);
    salto_data_destroy(s->d2);
    salto_free(s->K), salto_free(s->resp);
    salto_free(s->lambda), salto_free(s->target), salto_free(s->now), salto_free(s->vel), salto_free(s->contacts);
    salto_free(s->prev_key), salto_free(s->prev_lambda);
    salto_free(s->work), salto_free(s->work2), salto_free(s->iwork);
    salto_free(s->sm_work), salto_free(s->sm_free);
    sim_adaptive_free(s->ad);
    salto_free(s);
}


salto_sim* salto_sim_create(const salto_model* m, const salto_sim_opts* opts) {
    salto_sim* s = salto_calloc(1, sizeof *s);
    if (!s) return NULL;
    s->m = m;
    if (opts) {
        s->o = *opts;
    } else {
        salto_sim_opts_default(&s->o);
    }
    s->o.nbar = s->o.nbar < 0 ? 0 : s->o.nbar > SALTO_SIM_MAX_BARS ? SALTO_SIM_MAX_BARS : s->o.nbar;
    s->o.nbox = s->o.nbox < 0 ? 0 : s->o.nbox > SALTO_SIM_MAX_BOXES ? SALTO_SIM_MAX_BOXES : s->o.nbox;
    for (int b = 0; b < s->o.nbar; b++) {
        const double an = salto_v3_norm(s->o.bar_axis[b]);
        for (int k = 0; k < 3; k++) s->o.bar_axis[b][k] = an > 0 ? s->o.bar_axis[b][k] / an : (k == 1);
    }
    const double nn = salto_v3_norm(s->o.ground_normal);
    for (int k = 0; k < 3; k++) s->o.ground_normal[k] = nn > 0 ? s->o.ground_normal[k] / nn : (k == 2);
    const size_t nv = (size_t)m->nv;
    s->d = salto_data_create(m);
    s->q = salto_calloc(nv, sizeof(double));
    s->qd = salto_calloc(nv, sizeof(double));
    s->tau = salto_calloc(nv, sizeof(double));
    s->fext = salto_calloc(nv * 6, sizeof(double));
    s->fuser = salto_calloc(nv * 6, sizeof(double));
    s->qdd = salto_calloc(nv, sizeof(double));
    s->q0 = salto_calloc(nv, sizeof(double));
    s->qd0 = salto_calloc(nv, sizeof(double));
    s->dA = salto_calloc(nv * 6, sizeof(double));
    s->tq = salto_calloc(nv, sizeof(double));
    s->tqd = salto_calloc(nv, sizeof(double));
    s->tqdd = salto_calloc(nv, sizeof(double));
    s->ttau = salto_calloc(nv, sizeof(double));
    s->at_limit = salto_calloc(nv, sizeof(int));
    s->no_bars = salto_calloc(nv, sizeof(int));
    s->tt_q = salto_calloc(nv, sizeof(double));
    s->tt_qd = salto_calloc(nv, sizeof(double));
    s->tt_qdd = salto_calloc(nv, sizeof(double));
    s->d2 = salto_data_create(m);
    // room for every geometry point's three rows and every DOF's limit row
    int npt = 0;
    for (int g = 0; g < m->ngeom; g++) npt += m->geom_shape[g] == SALTO_GEOM_BOX ? 8 : m->geom_shape[g] == SALTO_GEOM_CAPSULE ? 3 : 1;
    npt *= 1 + s->o.nbar;
    // against each box: a box's corners, a capsule's ends and six points between them
    for (int g = 0; g < m->ngeom; g++) npt += s->o.nbox * (m->geom_shape[g] == SALTO_GEOM_SPHERE ? 1 : 8);
    s->ccap = npt > 0 ? npt : 1;
    s->cap = 3 * npt + 2 * m->nv + 4 * max_holds + 1; // contacts, limits, tracking, holds, grips
    const size_t cap = (size_t)s->cap;
    s->rows = salto_calloc(cap, sizeof(row));
    s->K = salto_calloc(cap * cap, sizeof(double));
    s->resp = salto_calloc(cap * nv, sizeof(double));
    s->lambda = salto_calloc(cap, sizeof(double));
    s->target = salto_calloc(cap, sizeof(double));
    s->now = salto_calloc(cap, sizeof(double));
    s->vel = salto_calloc(cap, sizeof(double));
    s->contacts = salto_calloc((size_t)s->ccap, sizeof(salto_sim_contact));
    s->prev_key = salto_calloc(cap, sizeof(long));
    s->work = salto_calloc(3 * cap * cap + 6 * cap, sizeof(double));
    s->work2 = salto_calloc(2 * cap, sizeof(double));
    s->iwork = salto_calloc(4 * cap, sizeof(int));
    s->sm_work = salto_calloc(2 * cap * cap + 8 * cap, sizeof(double));
    s->sm_free = salto_calloc(3 * cap, sizeof(int));
    s->prev_lambda = salto_calloc(cap, sizeof(double));
    if (!s->d || !s->q || !s->qd || !s->tau || !s->fext || !s->fuser || !s->qdd || !s->q0 ||
        !s->qd0 || !s->dA || !s->tq || !s->tqd || !s->tqdd || !s->ttau || !s->at_limit || !s->no_bars || !s->tt_q || !s->tt_qd || !s->tt_qdd || !s->d2 || !s->rows || !s->K || !s->resp || !s->lambda || !s->target ||
        !s->now || !s->vel || !s->contacts || !s->prev_key || !s->prev_lambda || !s->work || !s->work2 ||
        !s->iwork || !s->sm_work || !s->sm_free) {
        salto_sim_destroy(s);
        return NULL;
    }
    s->planar = salto_model_is_planar(m);
    return s;
}


void salto_sim_set_state(salto_sim* s, const double* q, const double* qd) {
    memcpy(s->q, q, (size_t)s->m->nv * sizeof(double));
    memcpy(s->qd, qd, (size_t)s->m->nv * sizeof(double));
    s->synced = 0;
    sim_adaptive_reset(s->ad);
}

const double* salto_sim_q(const salto_sim* s) { return s->q; }
const double* salto_sim_qd(const salto_sim* s) { return s->qd; }
double salto_sim_time(const salto_sim* s) { return s->t; }
const salto_data* salto_sim_data(const salto_sim* s) { return s->d; }
const salto_sim_stats* salto_sim_get_stats(const salto_sim* s) { return &s->stats; }

int salto_sim_contacts(const salto_sim* s, const salto_sim_contact** contacts) {
    if (contacts) *contacts = s->contacts;
    return s->ncontact;
}

void salto_sim_set_torques(salto_sim* s, const double* tau) {
    memcpy(s->tau, tau, (size_t)s->m->nv * sizeof(double));
}

void salto_sim_apply_force(salto_sim* s, int link, const double f[3], const double x[3]) {
    if (link < 0 || link >= s->m->nv) return;
    double w[6];
    salto_point_force(w, x, f);
    salto_sv_add_to(s->fuser + 6 * link, w);
}

void salto_sim_track(salto_sim* s, const double* q, const double* qd, const double* qdd,
                     double kp, double kd) {
    const size_t n = (size_t)s->m->nv * sizeof(double);
    s->tracking = q != NULL;
    if (!q) return;
    memcpy(s->tq, q, n);
    memcpy(s->tqd, qd, n);
    memcpy(s->tqdd, qdd, n);
    s->kp = kp, s->kd = kd;
}

const double* salto_sim_tracking_torques(salto_sim* s) {
    if (!s->ttau_stale) return s->ttau;
    // the inverse dynamics of the reduced solve's accelerations with its contact and hold
    // forces: what the joints needed beyond the torques set and the user forces
    const salto_model* m = s->m;
    const int nv = m->nv;
    salto_data* d = s->d2;
    memcpy(d->q, s->tt_q, (size_t)nv * sizeof(double));
    memcpy(d->qd, s->tt_qd, (size_t)nv * sizeof(double));
    memcpy(d->qdd, s->tt_qdd, (size_t)nv * sizeof(double));
    // the external forces: the user's and the contact and hold forces at their points
    double* W = s->fext;
    memcpy(W, s->fuser, (size_t)nv * 6 * sizeof(double));
    for (int i = 0; i < s->nrow; i++) {
        const row* r = &s->rows[i];
        const double L = s->lambda[i];
        if (L == 0.0 || r->kind == row_track || r->kind == row_limit) continue;
        salto_sv_axpy(W + 6 * r->link, L, r->u);
    }
    double* tau = s->ttau;
    salto_rnea_ext(m, d, W, tau);
    for (int j = 0; j < nv; j++) tau[j] = j < m->nroot ? 0.0 : tau[j] - s->tau[j];
    s->ttau_stale = 0;
    return s->ttau;
}


int salto_sim_hold(salto_sim* s, int site, const double point[3]) {
    if (site < 0 || site >= s->m->nsite || s->m->site_link[site] < 0 || s->nhold == max_holds ||
        !point || !isfinite(point[0]) || !isfinite(point[1]) || !isfinite(point[2])) {
        return 0;
    }
    s->hold_site[s->nhold] = site;
    memcpy(s->hold_point[s->nhold], point, 3 * sizeof(double));
    s->nhold++;
    return 1;
}

int salto_sim_grip(salto_sim* s, int link, const double axis[3], double torque_max) {
    const double an = salto_v3_norm(axis);
    if (link < 0 || link >= s->m->nv || !(an > 0.0) || !isfinite(an) || !(torque_max >= 0.0) ||
        s->ngrip == max_holds) {
        return 0;
    }
    s->grip_link[s->ngrip] = link;
    for (int k = 0; k < 3; k++) s->grip_axis[s->ngrip][k] = axis[k] / an;
    s->grip_max[s->ngrip] = torque_max;
    s->ngrip++;
    return 1;
}


double salto_sim_grip_torque(const salto_sim* s, int k) {
    return k >= 0 && k < s->ngrip ? sim_last_multiplier(s, grip_key(s->m, k)) : 0.0;
}

// the holds' and grips' last multipliers go with them: a new grip's torque reads zero until its
// first step, and a new hold starts without the old one's force
void salto_sim_release_all(salto_sim* s) {
    s->nhold = 0, s->ngrip = 0;
    const salto_model* m = s->m;
    int n = 0;
    for (int k = 0; k < s->nprev; k++) {
        const long key = s->prev_key[k];
        const int hold = key >= hold_key(m, 0, 0) && key < hold_key(m, max_holds, 0);
        const int grip = key >= grip_key(m, 0) && key < grip_key(m, max_holds);
        if (hold || grip) continue;
        s->prev_key[n] = key, s->prev_lambda[n] = s->prev_lambda[k];
        n++;
    }
    s->nprev = n;
}

void salto_sim_ignore_bars(salto_sim* s, int link) {
    if (link >= 0 && link < s->m->nv) s->no_bars[link] = 1, s->bars_version++;
}


void salto_sim_clear_forces(salto_sim* s) {
    memset(s->fuser, 0, (size_t)s->m->nv * 6 * sizeof(double));
}


// velocity and acceleration (after salto_aba: A holds -g as the base's) of world point x on link
static void sync(salto_sim* s) {
    const salto_model* m = s->m;
    memcpy(s->d->q, s->q, (size_t)m->nv * sizeof(double));
    memcpy(s->d->qd, s->qd, (size_t)m->nv * sizeof(double));
    salto_fk(m, s->d, SALTO_FK_VEL);
    s->synced = 1;
    double worst = -INFINITY;
    for (int g = 0; g < m->ngeom; g++) {
        const int link = m->geom_link[g];
        if (link < 0) continue;
        double pts[8][3], r = 0.0;
        const int npt = salto_geom_points(m, s->d, g, pts, &r);
        const int nbar = (s->no_bars_geom ? s->no_bars_geom[g] : s->no_bars[link]) ? 0 : s->o.nbar;
        for (int k = 0; k < npt; k++) {
            if (s->o.ground) {
                worst = fmax(worst, s->o.ground_height - (salto_v3_dot(s->o.ground_normal, pts[k]) - r));
            }
            for (int b = 0; b < nbar; b++) {
                double n[3], x[3], depth;
                if (sim_bar_touch(s, b, pts[k], r, n, x, &depth)) worst = fmax(worst, depth);
            }
        }
        for (int b = 0; b < nbar && m->geom_shape[g] == SALTO_GEOM_CAPSULE; b++) {
            double c[3], n[3], x[3], depth;
            if (sim_nearest_inside(s, b, pts[0], pts[1], c) && sim_bar_touch(s, b, c, r, n, x, &depth)) {
                worst = fmax(worst, depth);
            }
        }
        // the boxes: a capsule's axis segment's least signed distance covers its ends too
        const int seg = m->geom_shape[g] == SALTO_GEOM_CAPSULE;
        for (int b = 0; b < s->o.nbox; b++) {
            for (int k = 0; k < (seg ? 1 : npt); k++) {
                worst = fmax(worst, r - sim_box_distance(s, b, pts[k], pts[seg ? 1 : k], NULL));
            }
        }
    }
    s->depth = worst;
}


// joints arriving at a limit (within 1e-4 rad of it, or past it) since the last step
void sim_count_limit_events(salto_sim* s) {
    const salto_model* m = s->m;
    for (int j = 0; j < m->nv; j++) {
        int at = 0;
        if (s->o.joint_limits && m->link_has_limits[j]) {
            at = s->q[j] < m->link_limits[2 * j] + 1e-4 || s->q[j] > m->link_limits[2 * j + 1] - 1e-4;
        }
        if (at && !s->at_limit[j]) s->stats.limit_events++;
        s->at_limit[j] = at;
    }
}


salto_status salto_sim_step(salto_sim* s, salto_error* err) {
    if (s->ad && !s->tracking) return sim_adaptive_step(s, err);
    sim_adaptive_reset(s->ad); // a full step: the hybrid body is chosen again after it
    const salto_model* m = s->m;
    const int nv = m->nv;
    double remaining = s->o.dt;
    int halvings = 0;
    s->stats.steps++;
    s->stats.step_sweeps = 0, s->stats.step_residual = 0.0;
    if (!s->synced) sync(s);
    while (remaining > 1e-15) {
        double h = remaining;
        memcpy(s->q0, s->q, (size_t)nv * sizeof(double));
        memcpy(s->qd0, s->qd, (size_t)nv * sizeof(double));
        const double start_depth = s->depth;
        for (;;) {
            if (!s->synced) { // a retry: back to the substep's start
                memcpy(s->q, s->q0, (size_t)nv * sizeof(double));
                memcpy(s->qd, s->qd0, (size_t)nv * sizeof(double));
                sync(s);
            }
            sim_collect(s, h);
            int any = 0;
            salto_status st = sim_impacts(s, &any);
            if (st == SALTO_OK) {
                if (any) { // the contacts' velocities changed: the set again
                    memcpy(s->d->qd, s->qd, (size_t)nv * sizeof(double));
                    salto_fk(m, s->d, SALTO_FK_VEL);
                    sim_collect(s, h);
                }
                st = sim_accelerations(s, h);
            }
            if (st != SALTO_OK) {
                memcpy(s->q, s->q0, (size_t)nv * sizeof(double));
                memcpy(s->qd, s->qd0, (size_t)nv * sizeof(double));
                s->synced = 0;
                return SALTO_FAIL(err, SALTO_ERR_NUMERIC, salto_loc_none(),
                                  "the articulated-body algorithm failed at t = %.6f s", s->t);
            }
            for (int j = 0; j < nv; j++) {
                s->qd[j] += h * s->qdd[j];
                s->q[j] += h * s->qd[j];
            }
            s->stats.substeps++;
            sync(s); // the new state: kinematics for the next substep, and its depth
            if (s->depth > fmax(start_depth, 0.0) + 1e-3 && halvings < s->o.max_halvings) {
                halvings++;
                s->stats.halvings++;
                h *= 0.5;
                s->synced = 0;
                continue;
            }
            s->stats.max_depth = fmax(s->stats.max_depth, s->depth);
            break;
        }
        for (int j = 0; j < nv; j++) {
            if (!isfinite(s->q[j]) || !isfinite(s->qd[j])) {
                memcpy(s->q, s->q0, (size_t)nv * sizeof(double));
                memcpy(s->qd, s->qd0, (size_t)nv * sizeof(double));
                s->synced = 0;
                return SALTO_FAIL(err, SALTO_ERR_NUMERIC, salto_loc_none(),
                                  "the state stopped being finite at t = %.6f s (DOF '%s')", s->t,
                                  m->link_name[j]);
            }
        }
        remaining -= h;
        s->t += h;
    }
    sim_count_limit_events(s);
    return SALTO_OK;
}
