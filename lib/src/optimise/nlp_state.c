// nlp_state.c: the state (q, qd, qdd) the NLP's rows see at a time: the splines; in a held
// phase the effective root (Fang & Pollard, Appendix C), its translation following the held
// site, with its chain rule; in a ballistic flight the translation from the centre of mass's
// parabola; the kinematics at a block's time and the centre of mass's sums and Jacobian
#include "nlp_priv.h"

#include "salto/solver.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/aggregate.h"
#include "salto/bspline.h"
#include "salto/data.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"


// ---- the effective root ----

// the phase whose inside (its ends excluded) holds t; -1 at a boundary or outside
static int phase_inside(const salto_problem_desc* p, double t) {
    const int k = salto_problem_phase_at(p, t);
    if (k < 0) return -1;
    const double t0 = p->phases[k].start, t1 = t0 + p->phases[k].duration;
    return t > t0 + 1e-12 && t < t1 - 1e-12 ? k : -1;
}


// a ballistic flight's parabola rows (the centre of mass, its velocity)
int nlp_is_parabola(salto_constraint_type t) {
    return t == SALTO_CON_COM_PARABOLA || t == SALTO_CON_COM_PARABOLA_VEL;
}


// the phase with an effective root whose inside (its ends excluded) holds t; -1 for none
static int er_phase_at(const salto_nlp* nlp, double t) {
    const int k = phase_inside(nlp->p, t);
    return k >= 0 && nlp->root.er[k].site >= 0 ? k : -1;
}

// the effective root of every held phase (eroot): the first held site that the phase before
// holds too (a foot that stays down as the other lands: with the landing foot's site first,
// the humanoid's step onto a box let the standing foot slip 1.5 cm between the knots), else the
// first held site; the root's translation DOFs and the hold's rows; none where the root has no
// world-fixed translation to move (a fixed root) or the hold's rows do not span it
void nlp_setup_eroots(salto_nlp* nlp) {
    const salto_problem_desc* p = nlp->p;
    const salto_model* m = nlp->m;
    for (int i = 0; i < p->nphase; i++) {
        eroot* e = &nlp->root.er[i];
        e->site = -1;
        const salto_contact_desc* ct = &p->phases[i].contact;
        if (ct->type == SALTO_CONTACT_NONE || !ct->hold || ct->nsite == 0 || !ct->effective_root) continue;
        const int site = salto_problem_root_site(p, i);
        int c = -1;
        for (int k = 0; k < p->ncon && c < 0; k++) {
            const salto_constraint_desc* cd = &p->cons[k];
            if (cd->type == SALTO_CON_SITE_HOLD && cd->hold_phase == i + 1 && cd->site == site) c = k;
        }
        if (c < 0) continue;
        e->nt = salto_model_root_translation(m, e->tdof, e->a);
        if (e->nt != (nlp->planar ? 2 : 3)) continue;
        double rows[3][3];
        int is_aux[3], naux = 0;
        e->nr = nlp_hold_rows(p, &p->cons[c], nlp->planar, rows, is_aux, e->target, &naux);
        int ok = 1;
        for (int j = 0; j < e->nt; j++) {
            double sum = 0.0;
            for (int r = 0; r < e->nr; r++) {
                e->c[j][r] = salto_v3_dot(e->a[j], rows[r]);
                sum += e->c[j][r] * e->c[j][r];
            }
            ok &= fabs(sum - 1.0) < 1e-9; // the axis lies in the rows' span
        }
        if (!ok) continue;
        e->naux = 0;
        for (int r = 0; r < e->nr; r++) {
            e->aux[r] = is_aux[r] ? nlp->con_aux[c] + e->naux : -1;
            if (is_aux[r]) e->auxv[e->naux++] = e->aux[r];
        }
        e->site = p->cons[c].site;
    }
}


static int cmp_int(const void* a, const void* b) {
    const int x = *(const int*)a, y = *(const int*)b;
    return (x > y) - (x < y);
}


// which blocks see an effective root: a physics block of a phase that has one; another block
// strictly inside such a phase that reads the translation, unless it is one of the hold's
// own rows (which tie the splines to the contact) or a pose or velocity (which read the
// splines); those gain the held site's path as dependencies, and the place variables
salto_status nlp_assign_eroots(salto_nlp* nlp, builder* B) {
    const salto_model* m = nlp->m;
    int* dep = salto_malloc((size_t)(B->ndep + nlp->nblock * nlp->nv + 1) * sizeof(int));
    if (!dep) return SALTO_ERR_NOMEM;
    int n = 0;
    for (int i = 0; i < nlp->nblock; i++) {
        block* b = &nlp->blocks[i];
        const int* old = B->dep + b->dep0;
        int ph = -1;
        if (b->impact || b->junc) {
            ph = -1; // at the boundary: the splines as they are
        } else if (b->con < 0) {
            ph = nlp->root.er[b->phase].site >= 0 ? b->phase : -1;
        } else {
            const salto_constraint_desc* cd = nlp_cd(nlp, b->con);
            if (cd->hold_phase == 0 && cd->type != SALTO_CON_POSE && cd->type != SALTO_CON_VELOCITY &&
                cd->type != SALTO_CON_JOINT_RANGE) {
                ph = er_phase_at(nlp, b->t);
            }
        }
        if (ph >= 0) {
            int reads = 0; // does the block read a translation DOF?
            for (int jj = 0; jj < b->ndep && !reads; jj++) {
                for (int t = 0; t < nlp->root.er[ph].nt; t++) reads |= old[jj] == nlp->root.er[ph].tdof[t];
            }
            if (!reads) ph = -1;
        }
        const int start = n;
        for (int jj = 0; jj < b->ndep; jj++) dep[n++] = old[jj];
        b->er = ph;
        b->nxaux = 0;
        if (ph >= 0) {
            const eroot* e = &nlp->root.er[ph];
            b->nxaux = e->naux;
            for (int a = 0; a < e->naux; a++) b->xaux[a] = e->auxv[a];
            if (b->con >= 0) {
                // the held site's path, merged in ascending order
                for (int j = m->site_link[e->site]; j >= 0; j = m->link_parent[j]) dep[n++] = j;
                qsort(dep + start, (size_t)(n - start), sizeof(int), cmp_int);
                int u = start;
                for (int k = start; k < n; k++) {
                    if (k == start || dep[k] != dep[u - 1]) dep[u++] = dep[k];
                }
                n = u;
            }
        }
        if (b->con >= 0 && nlp_is_parabola(nlp_cd(nlp, b->con)->type)) {
            // the parabola's c0 and v0, on which each row depends
            const int base = nlp->bal[nlp_cd(nlp, b->con)->phase];
            b->nxaux = 2 * nlp->root.bal_nt;
            for (int a = 0; a < b->nxaux; a++) b->xaux[a] = base + a;
        }
        if (b->impact && nlp->impv[b->phase] >= 0) {
            // the impulses of the contact's second and later links
            int link[8];
            b->nxaux = (nlp_impact_links(nlp, b->phase, link) - 1) * nlp_impulse_width(nlp);
            for (int a = 0; a < b->nxaux; a++) b->xaux[a] = nlp->impv[b->phase] + a;
        }
        b->dep0 = start;
        b->ndep = n - start;
    }
    salto_free(B->dep);
    B->dep = dep;
    B->ndep = n;
    B->cap_dep = n;
    return SALTO_OK;
}


// The state of phase ph's effective root in nlp->ev.d: d->q, d->qd (and d->qdd at SALTO_FK_ACC)
// hold the splines' values; the translation is replaced by the one that keeps the held site at
// its place under x, and with derivs the site's Jacobian and derivatives are left in erJ, erDv
// (and erDaq, erDaqd) for er_chain. The kinematics in d are then the new state's (at VEL; at
// ACC the caller's dynamics recompute them).
void nlp_er_state(const salto_nlp* nlp, const double* x, int ph, salto_fk_level level,
                     int derivs) {
    const eroot* e = &nlp->root.er[ph];
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    for (int j = 0; j < e->nt; j++) {
        d->q[e->tdof[j]] = 0.0;
        d->qd[e->tdof[j]] = 0.0;
        if (level == SALTO_FK_ACC) d->qdd[e->tdof[j]] = 0.0;
    }
    salto_fk(m, d, level);
    double g[3], gv[3], ga[3] = {0, 0, 0};
    salto_site_pos(m, d, e->site, g);
    salto_site_vel(m, d, e->site, gv);
    if (level == SALTO_FK_ACC) salto_site_acc(m, d, e->site, ga);
    if (derivs) {
        salto_site_jac(m, d, e->site, nlp->root.J);
        const int acc = level == SALTO_FK_ACC;
        salto_site_motion_deriv(m, d, e->site, nlp->root.Dv, acc ? nlp->root.Daq : NULL,
                                acc ? nlp->root.Daqd : NULL);
        // each translation's axis dotted with them, once for all the rows nlp_er_chain takes
        const int nv = nlp->nv;
        const double *J = nlp->root.J, *Dv = nlp->root.Dv, *Aq = nlp->root.Daq, *Aqd = nlp->root.Daqd;
        for (int j = 0; j < e->nt; j++) {
            const double* a = e->a[j];
            double* aJ = nlp->root.aJ + j * nv;
            double* aV = nlp->root.aV + j * nv;
            double* aAq = nlp->root.aAq + j * nv;
            double* aAqd = nlp->root.aAqd + j * nv;
            for (int k = 0; k < nv; k++) {
                aJ[k] = a[0] * J[k] + a[1] * J[nv + k] + a[2] * J[2 * nv + k];
                aV[k] = a[0] * Dv[k] + a[1] * Dv[nv + k] + a[2] * Dv[2 * nv + k];
                aAq[k] = acc ? a[0] * Aq[k] + a[1] * Aq[nv + k] + a[2] * Aq[2 * nv + k] : 0.0;
                aAqd[k] = acc ? a[0] * Aqd[k] + a[1] * Aqd[nv + k] + a[2] * Aqd[2 * nv + k] : 0.0;
            }
            for (int i = 0; i < e->nt; i++) {
                const int t = e->tdof[i];
                aJ[t] = aV[t] = aAq[t] = aAqd[t] = 0.0;
            }
        }
    }
    for (int j = 0; j < e->nt; j++) {
        double P = 0.0;
        for (int r = 0; r < e->nr; r++) P += e->c[j][r] * (e->aux[r] >= 0 ? x[e->aux[r]] : e->target[r]);
        d->q[e->tdof[j]] = P - salto_v3_dot(e->a[j], g);
        d->qd[e->tdof[j]] = -salto_v3_dot(e->a[j], gv);
        if (level == SALTO_FK_ACC) d->qdd[e->tdof[j]] = -salto_v3_dot(e->a[j], ga);
    }
    if (level != SALTO_FK_ACC) salto_fk(m, d, level);
}


// The chain rule through phase ph's effective root for one row: rq, rqd (and rqdd, may be
// NULL) hold its derivatives with respect to the state it was evaluated at, over all nv DOFs;
// on return they are with respect to the splines' state (the translation's entries zero), and
// raux (the root's naux place variables) has the place derivatives added. After er_state.
void nlp_er_chain(const salto_nlp* nlp, int ph, double* rq, double* rqd, double* rqdd,
                     double* raux) {
    const eroot* e = &nlp->root.er[ph];
    const int nv = nlp->nv;
    for (int j = 0; j < e->nt; j++) {
        const int t = e->tdof[j];
        const double wq = rq[t], wqd = rqd[t], wqdd = rqdd ? rqdd[t] : 0.0;
        rq[t] = rqd[t] = 0.0;
        if (rqdd) rqdd[t] = 0.0;
        if (wq == 0.0 && wqd == 0.0 && wqdd == 0.0) continue;
        const double* aJ = nlp->root.aJ + j * nv;
        const double* aV = nlp->root.aV + j * nv;
        const double* aAq = nlp->root.aAq + j * nv;
        const double* aAqd = nlp->root.aAqd + j * nv;
        if (rqdd && wqdd != 0.0) {
            for (int k = 0; k < nv; k++) {
                rq[k] -= wq * aJ[k] + wqd * aV[k] + wqdd * aAq[k];
                rqd[k] -= wqd * aJ[k] + wqdd * aAqd[k];
                rqdd[k] -= wqdd * aJ[k];
            }
        } else {
            for (int k = 0; k < nv; k++) {
                rq[k] -= wq * aJ[k] + wqd * aV[k];
                rqd[k] -= wqd * aJ[k];
            }
        }
        int na = 0;
        for (int r = 0; r < e->nr; r++) {
            if (e->aux[r] >= 0) raux[na++] += wq * e->c[j][r];
        }
    }
}


// ---- state and kinematics at a time ----



// every DOF's spline state from its four control points from first on and their basis values
// (N, dN, ddN); q, qd, qdd may each be NULL
static void spline_state(const salto_nlp* nlp, const double* x, int first, const double* N,
                         const double* dN, const double* ddN, double* q, double* qd,
                         double* qdd) {
    for (int j = 0; j < nlp->nv; j++) {
        const double* c = x + j * nlp->ncp + first;
        if (q) q[j] = N[0] * c[0] + N[1] * c[1] + N[2] * c[2] + N[3] * c[3];
        if (qd) qd[j] = dN[0] * c[0] + dN[1] * c[1] + dN[2] * c[2] + dN[3] * c[3];
        if (qdd) qdd[j] = ddN[0] * c[0] + ddN[1] * c[1] + ddN[2] * c[2] + ddN[3] * c[3];
    }
}


// the splines' own state at t
void nlp_state_raw(const salto_nlp* nlp, const double* x, double t, double* q, double* qd,
                      double* qdd) {
    double N[4], dN[4], ddN[4];
    const int first = salto_bspline_basis(&nlp->spline, t, N, dN, ddN);
    spline_state(nlp, x, first, N, dN, ddN, q, qd, qdd);
}


int salto_nlp_phase_ballistic(const salto_nlp* nlp, int i) {
    return i >= 0 && i < nlp->p->nphase && nlp->bal[i] >= 0;
}


// the ballistic flight phase whose inside (its ends excluded) holds t; -1 for none
static int bal_phase_at(const salto_nlp* nlp, double t) {
    const int k = phase_inside(nlp->p, t);
    return k >= 0 && nlp->bal[k] >= 0 ? k : -1;
}


// In ballistic flight phase ph at t, with d->q, d->qd, d->qdd the splines' values: the root's
// translation replaced by the one that puts the centre of mass on the phase's parabola,
// q_T = a . (P(tau) - c), qd_T = a . (P'(tau) - c'), qdd_T = a . (g - c''), with c, c', c''
// the centre of mass's motion with the translation at zero (a translation moves every point
// alike) and c'' = f / M + g from the aggregate force f = M (c'' - g).
static void bal_state(const salto_nlp* nlp, const double* x, int ph, double t, int acc) {
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    const int nt = nlp->root.bal_nt;
    for (int j = 0; j < nt; j++) {
        d->q[nlp->root.bal_tdof[j]] = d->qd[nlp->root.bal_tdof[j]] = 0.0;
        if (acc) d->qdd[nlp->root.bal_tdof[j]] = 0.0;
    }
    double c[3], cv[3], ca[3] = {0, 0, 0};
    if (acc) {
        double f0[6];
        salto_f0_rnea(m, d, f0); // leaves the kinematics at the state (velocities included)
        for (int k = 0; k < 3; k++) ca[k] = f0[3 + k] / m->mass + m->gravity[k];
    } else {
        salto_fk(m, d, SALTO_FK_VEL);
    }
    salto_link_inertias(m, d);
    salto_com(m, d, c, cv);
    // (a free flight's real time: the nominal tau scaled by its duration, nlp_time.c)
    double tau = t - nlp->p->phases[ph].start;
    if (nlp->tvar[ph] >= 0) tau *= x[nlp->tvar[ph]] / nlp->tnom[ph];
    const double* pl = x + nlp->bal[ph];
    for (int j = 0; j < nt; j++) {
        const double* a = nlp->root.bal_a[j];
        const double ge = salto_v3_dot(a, m->gravity);
        d->q[nlp->root.bal_tdof[j]] = pl[j] + pl[nt + j] * tau + 0.5 * ge * tau * tau - salto_v3_dot(a, c);
        d->qd[nlp->root.bal_tdof[j]] = pl[nt + j] + ge * tau - salto_v3_dot(a, cv);
        if (acc) d->qdd[nlp->root.bal_tdof[j]] = ge - salto_v3_dot(a, ca);
    }
}


void salto_nlp_state(const salto_nlp* nlp, const double* x, double t, double* q, double* qd,
                     double* qdd) {
    // strictly inside a phase with an effective root or a ballistic flight, its translation
    const int ph = nlp->root.er ? er_phase_at(nlp, t) : -1;
    const int bph = ph < 0 && nlp->bal ? bal_phase_at(nlp, t) : -1;
    if (ph < 0 && bph < 0) {
        nlp_state_raw(nlp, x, t, q, qd, qdd);
        return;
    }
    salto_data* d = nlp->ev.d;
    nlp_state_raw(nlp, x, t, d->q, d->qd, d->qdd);
    if (ph >= 0) {
        nlp_er_state(nlp, x, ph, qdd ? SALTO_FK_ACC : SALTO_FK_VEL, 0);
    } else {
        bal_state(nlp, x, bph, t, qdd != NULL);
    }
    const size_t n = (size_t)nlp->nv * sizeof(double);
    if (q) memmove(q, d->q, n);
    if (qd) memmove(qd, d->qd, n);
    if (qdd) memmove(qdd, d->qdd, n);
}


// the splines' q and qd (and with acc, qdd) at block b's time into nlp->ev.d, from its basis
void nlp_block_state(salto_nlp* nlp, const double* x, const block* b, int acc) {
    salto_data* d = nlp->ev.d;
    spline_state(nlp, x, b->first, b->N, b->dN, b->ddN, d->q, d->qd, acc ? d->qdd : NULL);
}


// the kinematics (positions and velocities) at block b's time, computed once per time
void nlp_kinematics_at(salto_nlp* nlp, const double* x, const block* b) {
    // the side matters where the velocity may jump (an impact's triple knot): the flight's
    // end and the landing's start are the same time with different velocities
    if (nlp->ev.have_state && nlp->ev.last_t == b->t && nlp->ev.last_side == b->side &&
        nlp->ev.last_x == x && nlp->ev.last_er == b->er)
        return;
    salto_data* d = nlp->ev.d;
    nlp_block_state(nlp, x, b, 0);
    if (b->er >= 0) {
        nlp_er_state(nlp, x, b->er, SALTO_FK_VEL, 1);
    } else {
        salto_fk(nlp->m, d, SALTO_FK_VEL); // the inertias only where needed (nlp_com_sums)
    }
    nlp->ev.last_t = b->t;
    nlp->ev.last_side = b->side;
    nlp->ev.last_x = x;
    nlp->ev.last_er = b->er;
    nlp->ev.have_state = 1;
}


// centre of mass helpers: subtree mass, first moment h and linear momentum per link
void nlp_com_sums(salto_nlp* nlp) {
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    salto_link_inertias(m, d);
    double* s = nlp->ev.sums;
    for (int i = 0; i < nlp->nv; i++) {
        const double* I = d->I + 10 * i;
        double h[6];
        salto_si_mul(h, I, d->V + 6 * i);
        double* si = s + 7 * i;
        si[0] = I[0], si[1] = I[1], si[2] = I[2], si[3] = I[3];
        si[4] = h[3], si[5] = h[4], si[6] = h[5];
    }
    for (int i = nlp->nv - 1; i >= 0; i--) {
        const int par = m->link_parent[i];
        if (par < 0) continue;
        for (int k = 0; k < 7; k++) s[7 * par + k] += s[7 * i + k];
    }
}


// the centre of mass c = h / M and its velocity cdot = p_lin / M (may be NULL) after com_sums:
// the root subtrees' sums
void nlp_com_from_sums(const salto_nlp* nlp, double* c, double* cdot) {
    const salto_model* m = nlp->m;
    for (int k = 0; k < 3; k++) {
        c[k] = 0.0;
        if (cdot) cdot[k] = 0.0;
    }
    for (int i = 0; i < nlp->nv; i++) {
        if (m->link_parent[i] >= 0) continue;
        const double* root = nlp->ev.sums + 7 * i;
        for (int k = 0; k < 3; k++) {
            c[k] += root[1 + k] / m->mass;
            if (cdot) cdot[k] += root[4 + k] / m->mass;
        }
    }
}


// the centre of mass's Jacobian (3 x nv) after com_sums: dc/dq_j = (m_sub t_j + s_j x h_sub) / M
void nlp_com_jac(const salto_nlp* nlp, double* J) {
    const salto_model* m = nlp->m;
    const int nv = nlp->nv;
    for (int j = 0; j < nv; j++) {
        const double* S = nlp->ev.d->S + 6 * j;
        const double* sj = nlp->ev.sums + 7 * j;
        double a[3];
        salto_v3_cross(a, S, sj + 1);
        for (int k = 0; k < 3; k++) J[k * nv + j] = (a[k] + sj[0] * S[3 + k]) / m->mass;
    }
}
