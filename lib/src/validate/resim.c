// resim.c: contact wrenches and re-simulation of a motion (validate.h)
//
// The validator's independent physical check: the motion's own inverse dynamics gives the
// joint torques and the contact wrenches that would produce it; the articulated-body
// algorithm integrates them forward from the motion's state at a phase's start, and how far
// the result drifts from the motion says how much of it physics cannot explain. Contacts that
// the phase holds stay held by acceleration constraints, so that the drift measures the
// motion, not the open-loop instability of a standing character.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "salto/character.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/orient.h"
#include "salto/spatial.h"
#include "salto/validate.h"

#include "linalg.h"

enum { max_wrench = 8, max_rows = 24 };

static const double pi = 3.14159265358979323846;

static const double hold_rate = 20.0;     // w: the held sites' drift returns as exp(-w t)

int salto_contact_wrenches(const salto_problem_desc* p, int i, const salto_data* d, int* link,
                           double* w) {
    const salto_model* m = p->model;
    const salto_contact_desc* ct = &p->phases[i].contact;
    // the contact links and their sites' centroids
    double pc[max_wrench][3];
    int count[max_wrench];
    const int nb = ct->type == SALTO_CONTACT_NONE ? 0 : salto_contact_links(m, ct, link, count);
    if (nb == 0) return 0;
    memset(pc, 0, sizeof pc);
    for (int s = 0; s < ct->nsite; s++) {
        int b = 0;
        while (b < nb && link[b] != m->site_link[ct->site[s]]) b++;
        if (b == nb) continue;
        double x[3];
        salto_site_pos(m, d, ct->site[s], x);
        for (int k = 0; k < 3; k++) pc[b][k] += x[k];
    }
    for (int b = 0; b < nb; b++) {
        for (int k = 0; k < 3; k++) pc[b][k] /= count[b];
    }
    salto_contact_shares(nb, (const double(*)[3])pc, d->f0, w, NULL, NULL);
    return nb;
}


int salto_contact_shares(int nb, const double (*pc)[3], const double f0[6], double* w, double A[36],
                         double ab[6]) {
    const double* N = f0;
    const double* F = f0 + 3;
    if (nb == 1) {
        memcpy(w, f0, 6 * sizeof(double));
        return 1;
    }
    // minimise sum |f_b|^2 + |n_b|^2 / l^2 subject to sum f_b = F, sum (n_b + p_b x f_b) = N:
    // f_b = alpha + beta x p_b, n_b = l^2 beta, and
    //   [ B I     -[P]x          ] [alpha]   [F]
    //   [ [P]x    B l^2 I + Q    ] [beta ] = [N],  P = sum p_b, Q = sum (|p_b|^2 I - p_b p_b')
    const double l2 = SALTO_CONTACT_LENGTH * SALTO_CONTACT_LENGTH;
    double P[3] = {0, 0, 0}, Q[9] = {0};
    for (int b = 0; b < nb; b++) {
        const double* x = pc[b];
        const double xx = salto_v3_dot(x, x);
        for (int r = 0; r < 3; r++) {
            P[r] += x[r];
            for (int c = 0; c < 3; c++) Q[3 * r + c] += (r == c ? xx : 0.0) - x[r] * x[c];
        }
    }
    const double px[9] = {0, -P[2], P[1], P[2], 0, -P[0], -P[1], P[0], 0}; // [P]x
    double Aw[36], rhs[6] = {F[0], F[1], F[2], N[0], N[1], N[2]};
    double* M = A ? A : Aw;
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
            M[6 * r + c] = r == c ? (double)nb : 0.0;
            M[6 * r + 3 + c] = -px[3 * r + c];
            M[6 * (3 + r) + c] = px[3 * r + c];
            M[6 * (3 + r) + 3 + c] = Q[3 * r + c] + (r == c ? nb * l2 : 0.0);
        }
    }
    if (!salto_chol(M, 6)) { // cannot happen for finite input (the matrix is positive definite)
        for (int b = 0; b < nb; b++) {
            for (int k = 0; k < 6; k++) w[6 * b + k] = f0[k] / nb;
        }
        return 0;
    }
    salto_chol_solve(M, 6, rhs);
    if (ab) memcpy(ab, rhs, sizeof rhs);
    const double* alpha = rhs;
    const double* beta = rhs + 3;
    for (int b = 0; b < nb; b++) {
        double f[3], n[3];
        salto_v3_cross(f, beta, pc[b]);
        for (int k = 0; k < 3; k++) f[k] += alpha[k], n[k] = l2 * beta[k];
        salto_v3_cross_add(n, pc[b], f);
        for (int k = 0; k < 3; k++) w[6 * b + k] = n[k], w[6 * b + 3 + k] = f[k];
    }
    return 1;
}


// ---- re-simulation ----

struct salto_resim {
    const salto_problem_desc* p;
    const salto_model* m;
    salto_state_fn state;
    void* ctx;
    salto_data* dm;  // the motion's state, for its inverse dynamics
    salto_data* ds;  // the simulated state
    double* fext;    // external forces on the links (nv x 6)
    double* qdd0;    // the unconstrained acceleration (nv)
    double* dqdd;    // each constraint direction's response (max_rows x nv)
    double* dA;      // the delta method's link accelerations (nv x 6)
    salto_constraint_method method;
    double* k[4];    // Runge-Kutta stages: [qd; qdd] (2 nv each)
    double* y;       // a stage's state (2 nv)
    double* y0;      // the step's start (2 nv)
    int phase;
    // the motion's inverse dynamics at time t_id (cached: Runge-Kutta's stages share times)
    double t_id;
    double* tau;     // (nv)
    int nw, wlink[max_wrench];
    double w[6 * max_wrench];
    // the held rows: a site's position along a world axis (row_site >= 0), or the angle of its
    // contact link about one (row_site -1), and the link
    int nrow, row_site[max_rows], row_axis[max_rows], row_link[max_rows];
    // the free root's charts (below): the models (cm[0] the problem's), their data, the one
    // integrated in and its state there, and what advance last returned in chart 0
    int chartable;   // a free root whose charts can be built (its character file known)
    int nchart, chart; // charts built (1, or 3 after build_charts), and the one integrated in
    int chart_failed; //  1 when building them failed (not tried again)
    salto_model* cm[3];
    salto_data* cd[3];
    double* cq;      // (nv)
    double* cqd;     // (nv)
    double* oq;      // (nv)
    double* oqd;     // (nv)
    int have_out;
};


// ---- charts: the free root's orientation in three Euler orders ----
//
// A free root turns through three revolute DOFs in the character's rotation_order, whose middle
// angle beta is singular at +-90 deg: the first and last axes align there, the massless links
// between them have a singular articulated inertia, and the articulated-body algorithm breaks
// down (a side somersault about the middle axis stopped the re-simulation at its quarter turn,
// the motion itself smooth and its physics exact). So the re-simulation integrates in whichever
// of three charts keeps |beta| smallest: the character's order and two with the other axes in
// the middle; at any orientation one of them has |beta| <= 45 deg. It switches at the start of
// a step when the current chart's |beta| passes 60 deg, through the root's world orientation R
// and angular velocity w, which all charts share (the translation and the joints are the same
// DOFs in each).

// chart m's root angles of the world orientation R (nearest prev when given), B the chart's
// reference (a turned chart's: salto_model_set_root_reference; else the identity)
static void chart_angles(const salto_model* m, const int o[3], const double R[9], const double* prev,
                         double e[3]) {
    salto_euler_chart_angles(o, m->link_tree_rot[3] ? m->link_Rtree + 27 : NULL, R, prev, e);
}


// The other two charts of p's character: the same character with another rotation_order (its
// file read again), built the first time a state needs them, since nearly every motion keeps
// away from the singular set; 1 when they are there (r->nchart 3), 0 when they cannot be
// (not tried again)
static int build_charts(salto_resim* r) {
    if (r->nchart == 3) return 1;
    if (r->chart_failed) return 0;
    int o[3];
    salto_error err = {0};
    salto_character_desc* c = salto_root_order(r->m, o) ? salto_character_load(r->p->character, &err) : NULL;
    int n = 1;
    for (int mid = 0; c && mid < 3; mid++) {
        if (mid == o[1]) continue;
        const int a = (mid + 1) % 3, b = (mid + 2) % 3;
        c->root_rot_order[0] = a < b ? a : b, c->root_rot_order[1] = mid, c->root_rot_order[2] = a < b ? b : a;
        salto_model* mc = salto_model_build(c, NULL, &err);
        salto_data* dc = mc ? salto_data_create(mc) : NULL;
        if (!dc || mc->nv != r->m->nv) {
            salto_data_destroy(dc);
            salto_model_destroy(mc);
            break;
        }
        r->cm[n] = mc, r->cd[n] = dc, n++;
    }
    salto_character_destroy(c);
    if (n == 3) {
        r->nchart = 3;
        return 1;
    }
    for (int k = 1; k < n; k++) salto_data_destroy(r->cd[k]), salto_model_destroy(r->cm[k]);
    r->chart_failed = 1;
    return 0;
}


// the root's world orientation (row-major) and angular velocity in chart k at (q, qd)
static void chart_frame(salto_resim* r, int k, const double* q, const double* qd, double R[9],
                        double w[3]) {
    const salto_model* m = r->cm[k];
    salto_data* d = r->cd[k];
    memcpy(d->q, q, (size_t)m->nv * sizeof(double));
    memcpy(d->qd, qd, (size_t)m->nv * sizeof(double));
    salto_fk(m, d, SALTO_FK_VEL);
    const double *Rb, *pb;
    salto_body_frame(m, d, 0, &Rb, &pb);
    memcpy(R, Rb, 9 * sizeof(double));
    memcpy(w, d->V + 6 * m->body_link[0], 3 * sizeof(double));
}


// chart k's root angles and rates for the orientation R and angular velocity w (q, qd: the
// other DOFs already there; angles nearest prev when given): the rates solve J qd = w, J the
// three axes in the world, damped where the chart is singular
static void chart_set(salto_resim* r, int k, const double R[9], const double w[3], const double* prev,
                      double* q, double* qd) {
    const salto_model* m = r->cm[k];
    int o[3];
    salto_root_order(m, o);
    double e[3];
    chart_angles(m, o, R, prev, e);
    for (int a = 0; a < 3; a++) q[3 + a] = e[a];
    salto_data* d = r->cd[k];
    memcpy(d->q, q, (size_t)m->nv * sizeof(double));
    salto_fk(m, d, SALTO_FK_POS);
    double J[9], N[9], rhs[3];
    for (int a = 0; a < 3; a++) {
        for (int b = 0; b < 3; b++) J[3 * b + a] = d->S[6 * (3 + a) + b];
    }
    // (J'J + mu I) x = J' w, mu 1e-14 of the trace: the exact solve away from the singular set,
    // the damped least squares on it (finite)
    for (int a = 0; a < 3; a++) {
        rhs[a] = J[a] * w[0] + J[3 + a] * w[1] + J[6 + a] * w[2];
        for (int b = 0; b < 3; b++) N[3 * a + b] = J[a] * J[b] + J[3 + a] * J[3 + b] + J[6 + a] * J[6 + b];
    }
    const double mu = 1e-14 * (N[0] + N[4] + N[8]);
    for (int a = 0; a < 3; a++) N[4 * a] += mu;
    if (salto_chol(N, 3)) {
        salto_chol_solve(N, 3, rhs);
    } else {
        rhs[0] = rhs[1] = rhs[2] = 0.0; // J zero: no rates give w
    }
    for (int a = 0; a < 3; a++) qd[3 + a] = rhs[a];
}


// the chart to integrate in at (q, qd) in chart r->chart: it, unless its middle angle is past
// 60 deg; then the one with the smallest (the state converted)
static void chart_choose(salto_resim* r) {
    if (!r->chartable || fabs(r->cq[4]) <= pi / 3.0 || !build_charts(r)) return;
    double R[9], w[3];
    chart_frame(r, r->chart, r->cq, r->cqd, R, w);
    int best = r->chart;
    double bb = INFINITY;
    for (int k = 0; k < r->nchart; k++) {
        int o[3];
        double e[3];
        salto_root_order(r->cm[k], o);
        chart_angles(r->cm[k], o, R, NULL, e);
        if (fabs(e[1]) < bb) bb = fabs(e[1]), best = k;
    }
    if (best == r->chart) return;
    chart_set(r, best, R, w, NULL, r->cq, r->cqd);
    r->chart = best;
}


salto_resim* salto_resim_create(const salto_problem_desc* p, salto_state_fn state, void* ctx) {
    salto_resim* r = salto_calloc(1, sizeof *r);
    if (!r) return NULL;
    const int nv = p->model->nv;
    r->p = p, r->m = p->model, r->state = state, r->ctx = ctx;
    r->dm = salto_data_create(p->model);
    r->ds = salto_data_create(p->model);
    r->fext = salto_calloc((size_t)nv * 6, sizeof(double));
    r->dA = salto_calloc((size_t)nv * 6, sizeof(double));
    r->method = SALTO_CONSTRAINT_ABA_DELTA;
    r->qdd0 = salto_calloc((size_t)nv, sizeof(double));
    r->dqdd = salto_calloc((size_t)nv * max_rows, sizeof(double));
    r->tau = salto_calloc((size_t)nv, sizeof(double));
    r->y = salto_calloc((size_t)nv * 2, sizeof(double));
    r->y0 = salto_calloc((size_t)nv * 2, sizeof(double));
    r->cq = salto_calloc((size_t)nv * 4, sizeof(double));
    int ok = r->dm && r->ds && r->fext && r->dA && r->qdd0 && r->dqdd && r->tau && r->y && r->y0 && r->cq;
    for (int s = 0; s < 4; s++) ok &= (r->k[s] = salto_calloc((size_t)nv * 2, sizeof(double))) != NULL;
    if (!ok) {
        salto_resim_destroy(r);
        return NULL;
    }
    r->cqd = r->cq + nv, r->oq = r->cq + 2 * nv, r->oqd = r->cq + 3 * nv;
    // the free root's charts: the character's own now, the others when needed (build_charts)
    r->cm[0] = (salto_model*)p->model;
    r->cd[0] = r->ds;
    r->nchart = 1;
    int o[3];
    r->chartable = salto_root_order(r->m, o) && p->character;
    r->phase = -1;
    r->t_id = NAN;
    return r;
}


void salto_resim_destroy(salto_resim* r) {
    if (!r) return;
    salto_data_destroy(r->dm);
    salto_data_destroy(r->ds);
    salto_free(r->fext);
    salto_free(r->dA);
    salto_free(r->qdd0);
    salto_free(r->dqdd);
    salto_free(r->tau);
    salto_free(r->y);
    salto_free(r->y0);
    for (int s = 0; s < 4; s++) salto_free(r->k[s]);
    for (int k = 1; k < r->nchart; k++) salto_data_destroy(r->cd[k]), salto_model_destroy(r->cm[k]);
    salto_free(r->cq);
    salto_free(r);
}


// the motion's joint torques and contact wrenches at time t (r->tau, r->w), the root's
// torques zero: what the simulation applies
static void motion_forces(salto_resim* r, double t) {
    if (t == r->t_id) return;
    const salto_model* m = r->m;
    salto_data* dm = r->dm;
    r->state(r->ctx, t, dm->q, dm->qd, dm->qdd);
    salto_rnea(m, dm, NULL);
    r->nw = salto_contact_wrenches(r->p, r->phase, dm, r->wlink, r->w);
    salto_contact_torques(m, dm, r->nw, r->wlink, r->w, r->tau);
    for (int j = 0; j < m->nroot; j++) r->tau[j] = 0.0;
    r->t_id = t;
}


salto_status salto_resim_begin(salto_resim* r, int i, double t, double* q, double* qd,
                               salto_error* err) {
    const salto_model* m = r->m;
    const salto_contact_desc* ct = &r->p->phases[i].contact;
    r->phase = i;
    r->t_id = NAN;
    r->chart = 0;
    r->have_out = 0;
    salto_data* dm = r->dm;
    r->state(r->ctx, t, dm->q, dm->qd, dm->qdd);
    for (int j = 0; j < m->nv; j++) {
        if (!isfinite(dm->q[j]) || !isfinite(dm->qd[j])) {
            return SALTO_FAIL(err, SALTO_ERR_NUMERIC, salto_loc_none(),
                              "the motion's state is not finite at t = %.4f s", t);
        }
    }
    memcpy(q, dm->q, (size_t)m->nv * sizeof(double));
    memcpy(qd, dm->qd, (size_t)m->nv * sizeof(double));
    // held sites: x and z in the plane of a planar model, all three axes otherwise
    r->nrow = 0;
    if (ct->type != SALTO_CONTACT_NONE && ct->hold) {
        const int planar = salto_model_is_planar(m);
        for (int s = 0; s < ct->nsite; s++) {
            const int site = ct->site[s];
            if (m->site_link[site] < 0) continue;
            for (int a = 0; a < 3 && r->nrow < max_rows; a++) {
                if (planar && a == 1) continue;
                r->row_site[r->nrow] = site;
                r->row_axis[r->nrow] = a;
                r->row_link[r->nrow] = m->site_link[site];
                r->nrow++;
            }
        }
        // on the ground the contact links keep their orientation too: a held contact with a
        // support is a flat one, whatever number of sites marks it (one site alone would leave
        // the link free to turn about it, an inverted pendulum the open-loop torques cannot
        // balance); rows already implied by the sites' are dependent, and given no force
        if (ct->type == SALTO_CONTACT_GROUND) {
            const int nsite_rows = r->nrow;
            for (int k = 0; k < nsite_rows; k++) {
                const int l = r->row_link[k];
                int seen = 0;
                for (int j = nsite_rows; j < r->nrow; j++) seen |= r->row_link[j] == l;
                for (int a = 0; !seen && a < 3 && r->nrow < max_rows; a++) {
                    if (planar && a != 1) continue;
                    r->row_site[r->nrow] = -1;
                    r->row_axis[r->nrow] = a;
                    r->row_link[r->nrow] = l;
                    r->nrow++;
                }
            }
        }
    }
    return SALTO_OK;
}


// the accelerations of the held rows after salto_aba (d->A, d->V set)
static void row_acc(const salto_resim* r, const salto_data* d, double* a) {
    for (int k = 0; k < r->nrow; k++) {
        if (r->row_site[k] < 0) { // an angle: l times the angular acceleration
            a[k] = SALTO_CONTACT_LENGTH * d->A[6 * r->row_link[k] + r->row_axis[k]];
            continue;
        }
        double acc[3];
        salto_site_acc(r->m, d, r->row_site[k], acc);
        a[k] = acc[r->row_axis[k]];
    }
}


salto_status salto_resim_accel(salto_resim* r, double t, const double* q, const double* qd,
                               double* qdd, salto_error* err) {
    // in the chart integrated in (chart 0, the problem's model, unless advance switched): the
    // motion's own state r->dm stays in the problem's
    const salto_model* m = r->cm[r->chart];
    const int nv = m->nv;
    salto_data* d = r->cd[r->chart];
    motion_forces(r, t);
    memcpy(d->q, q, (size_t)nv * sizeof(double));
    memcpy(d->qd, qd, (size_t)nv * sizeof(double));
    memcpy(d->tau, r->tau, (size_t)nv * sizeof(double));
    memset(r->fext, 0, (size_t)nv * 6 * sizeof(double));
    for (int b = 0; b < r->nw; b++) salto_sv_add_to(r->fext + 6 * r->wlink[b], r->w + 6 * b);
    if (salto_aba(m, d, r->fext) != SALTO_OK) {
        return SALTO_FAIL(err, SALTO_ERR_NUMERIC, salto_loc_none(),
                          "the articulated-body algorithm failed at t = %.4f s", t);
    }
    memcpy(r->qdd0, d->qdd, (size_t)nv * sizeof(double));
    const int nr = r->nrow;
    if (nr > 0) {
        // what the held rows need, and what they get without constraint forces
        double a0[max_rows], want[max_rows], K[max_rows * max_rows], xs[max_rows][3];
        row_acc(r, d, a0);
        for (int k = 0; k < nr; k++) { // the motion's site: r->dm holds its state at t
            const int a = r->row_axis[k];
            if (r->row_site[k] < 0) { // the link's angle about axis a: l (wd + 2 w dw + w^2 e)
                const int l = r->row_link[k];
                const double* Rm = r->dm->R + 9 * l;
                const double* Rs = d->R + 9 * l;
                // e: the small rotation from the simulated orientation to the motion's,
                // vee of the skew part of Rm Rs'
                double E[9];
                for (int i = 0; i < 3; i++) {
                    for (int j = 0; j < 3; j++) {
                        E[3 * i + j] = Rm[3 * i] * Rs[3 * j] + Rm[3 * i + 1] * Rs[3 * j + 1] +
                                       Rm[3 * i + 2] * Rs[3 * j + 2];
                    }
                }
                const double e[3] = {0.5 * (E[7] - E[5]), 0.5 * (E[2] - E[6]), 0.5 * (E[3] - E[1])};
                const double* Vm = r->dm->V + 6 * l;
                const double* Am = r->dm->A + 6 * l;
                want[k] = SALTO_CONTACT_LENGTH * (Am[a] + 2.0 * hold_rate * (Vm[a] - d->V[6 * l + a]) +
                                            hold_rate * hold_rate * e[a]) - a0[k];
                continue;
            }
            double v[3], xm[3], vm[3], am[3];
            const double* x = xs[k];
            salto_site_pos(m, d, r->row_site[k], xs[k]);
            salto_site_vel(m, d, r->row_site[k], v);
            salto_site_pos(r->m, r->dm, r->row_site[k], xm);
            salto_site_vel(r->m, r->dm, r->row_site[k], vm);
            salto_site_acc(r->m, r->dm, r->row_site[k], am);
            want[k] = am[a] + 2.0 * hold_rate * (vm[a] - v[a]) + hold_rate * hold_rate * (xm[a] - x[a]) - a0[k];
        }
        // test forces: a unit force along each row's axis at its site; column k of K is the
        // rows' response, dqdd_k the DOFs'. By a full pass each (Kokkevis 4.2) or by the
        // delta method (4.3), which reads the free pass's articulated inertias
        for (int k = 0; k < nr; k++) {
            double e[3] = {0, 0, 0}, u[6], ak[max_rows];
            e[r->row_axis[k]] = 1.0;
            if (r->row_site[k] >= 0) {
                salto_point_force(u, xs[k], e);
            } else { // a couple of l about the axis
                for (int c = 0; c < 3; c++) u[c] = SALTO_CONTACT_LENGTH * e[c], u[3 + c] = 0.0;
            }
            const int link = r->row_link[k];
            double* dq = r->dqdd + (size_t)nv * k;
            if (r->method == SALTO_CONSTRAINT_ABA_DELTA) {
                salto_aba_delta(m, d, link, u, dq, r->dA);
                for (int j = 0; j < nr; j++) { // the site's acceleration change: dA x p + dA_lin
                    double da[3];
                    const int lj = r->row_link[j];
                    if (r->row_site[j] < 0) {
                        K[nr * k + j] = SALTO_CONTACT_LENGTH * r->dA[6 * lj + r->row_axis[j]];
                        continue;
                    }
                    salto_v3_cross(da, r->dA + 6 * lj, xs[j]);
                    K[nr * k + j] = da[r->row_axis[j]] + r->dA[6 * lj + 3 + r->row_axis[j]];
                }
                continue;
            }
            double* fl = r->fext + 6 * link;
            salto_sv_add_to(fl, u);
            const salto_status st = salto_aba(m, d, r->fext);
            for (int c = 0; c < 6; c++) fl[c] -= u[c];
            if (st != SALTO_OK) {
                return SALTO_FAIL(err, SALTO_ERR_NUMERIC, salto_loc_none(),
                                  "the articulated-body algorithm failed at t = %.4f s", t);
            }
            row_acc(r, d, ak);
            for (int j = 0; j < nr; j++) K[nr * k + j] = ak[j] - a0[j];
            for (int j = 0; j < nv; j++) dq[j] = d->qdd[j] - r->qdd0[j];
        }
        for (int a = 0; a < nr; a++) { // J M^-1 J' is symmetric; its numerical copy nearly
            for (int b = a + 1; b < nr; b++) {
                const double s = 0.5 * (K[nr * a + b] + K[nr * b + a]);
                K[nr * a + b] = K[nr * b + a] = s;
            }
        }
        int piv[max_rows];
        double work[2 * max_rows];
        const int rank = salto_pchol(K, nr, 1e-9, piv, work);
        if (rank < 1) {
            return SALTO_FAIL(err, SALTO_ERR_NUMERIC, salto_loc_none(),
                              "the held sites' constraint matrix is singular at t = %.4f s", t);
        }
        // the first rank pivoted rows solved, the rest (dependent) given no force
        double* lambda = want;
        salto_pchol_solve(K, nr, rank, piv, lambda, work);
        for (int j = 0; j < nv; j++) {
            double s = r->qdd0[j];
            for (int k = 0; k < nr; k++) s += lambda[k] * r->dqdd[nv * k + j];
            r->qdd0[j] = s;
        }
    }
    for (int j = 0; j < nv; j++) {
        if (!isfinite(r->qdd0[j])) {
            return SALTO_FAIL(err, SALTO_ERR_NUMERIC, salto_loc_none(),
                              "the simulated acceleration is not finite at t = %.4f s", t);
        }
    }
    memcpy(qdd, r->qdd0, (size_t)nv * sizeof(double));
    return SALTO_OK;
}


// k = [qd; qdd] at (t, y = [q; qd])
static salto_status deriv(salto_resim* r, double t, const double* y, double* k, salto_error* err) {
    const int nv = r->m->nv;
    memcpy(k, y + nv, (size_t)nv * sizeof(double));
    return salto_resim_accel(r, t, y, y + nv, k + nv, err);
}


salto_status salto_resim_advance(salto_resim* r, salto_integrator integrator, double t0,
                                 double t1, double h, double* qo, double* qdo, salto_error* err) {
    const int nv = r->m->nv;
    if (!(t1 > t0)) return SALTO_OK;
    // with charts, the state in the chart integrated in: the last advance's, when the caller
    // passes back what it returned, else the caller's (chart 0)
    double* q = qo;
    double* qd = qdo;
    if (r->chartable) {
        const size_t n = (size_t)nv * sizeof(double);
        if (!r->have_out || memcmp(qo, r->oq, n) != 0 || memcmp(qdo, r->oqd, n) != 0) {
            r->chart = 0;
            memcpy(r->cq, qo, n), memcpy(r->cqd, qdo, n);
        }
        q = r->cq, qd = r->cqd;
    }
    // (the count as a double first: a step of 1e-12 s over seconds would overflow an int)
    const double ns = h > 0.0 ? ceil((t1 - t0) / h - 1e-9) : 1.0;
    if (!(ns <= 9e15)) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "a re-simulation step of %g s "
                          "over %g s: too many steps", h, t1 - t0);
    }
    const long long nstep = (long long)ns;
    const double dt = (t1 - t0) / (double)(nstep > 0 ? nstep : 1);
    double* Y = r->y;
    salto_status st = SALTO_OK;
    for (long long s = 0; s < nstep && st == SALTO_OK; s++) {
        const double t = t0 + dt * (double)s;
        chart_choose(r);
        if (integrator == SALTO_INTEGRATOR_EULER) {
            double* qdd = r->k[0];
            st = salto_resim_accel(r, t, q, qd, qdd, err);
            if (st) break;
            for (int j = 0; j < nv; j++) {
                qd[j] += dt * qdd[j];
                q[j] += dt * qd[j];
            }
            continue;
        }
        // RK4 on y = [q; qd]
        double* y0p = r->y0;
        memcpy(y0p, q, (size_t)nv * sizeof(double));
        memcpy(y0p + nv, qd, (size_t)nv * sizeof(double));
        static const double c[4] = {0.0, 0.5, 0.5, 1.0};
        for (int stg = 0; stg < 4 && st == SALTO_OK; stg++) {
            if (stg == 0) {
                memcpy(Y, y0p, 2 * (size_t)nv * sizeof(double));
            } else {
                for (int j = 0; j < 2 * nv; j++) Y[j] = y0p[j] + c[stg] * dt * r->k[stg - 1][j];
            }
            st = deriv(r, t + c[stg] * dt, Y, r->k[stg], err);
        }
        if (st) break;
        for (int j = 0; j < nv; j++) {
            q[j] += dt / 6.0 * (r->k[0][j] + 2.0 * r->k[1][j] + 2.0 * r->k[2][j] + r->k[3][j]);
            qd[j] += dt / 6.0 * (r->k[0][nv + j] + 2.0 * r->k[1][nv + j] + 2.0 * r->k[2][nv + j] + r->k[3][nv + j]);
        }
    }
    if (r->chartable) {
        // back in the problem's chart, the angles nearest the caller's (continuous through full
        // turns), the rates damped where that chart is singular
        const size_t n = (size_t)nv * sizeof(double);
        if (r->chart == 0) {
            memcpy(qo, q, n), memcpy(qdo, qd, n);
        } else {
            double R[9], w[3], prev[3] = {qo[3], qo[4], qo[5]};
            chart_frame(r, r->chart, q, qd, R, w);
            memcpy(qo, q, n), memcpy(qdo, qd, n);
            chart_set(r, 0, R, w, prev, qo, qdo);
        }
        memcpy(r->oq, qo, n), memcpy(r->oqd, qdo, n);
        r->have_out = 1;
    }
    return st;
}


void salto_resim_set_method(salto_resim* r, salto_constraint_method method) { r->method = method; }
