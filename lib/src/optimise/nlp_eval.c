// nlp_eval.c: evaluations at x: each block's rows and derivatives (the kinematic constraint
// kinds here, the physics ones in nlp_physics.c, both through the effective root where one
// applies), the constraints g and their Jacobian, and the objective and its gradient
#include "nlp_priv.h"

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
#include "salto/obstacle.h"
#include "salto/spatial.h"


double nlp_bar_distance(const salto_constraint_desc* cd, const double a[3], const double bw[3],
                        double offset, double ga[3], double gb[3], double* H6) {
    // P = I - u u' projects across the bar; A = P (a - p0), B = P (b - a); the segment's point
    // a + s (b - a) nearest the axis at s = -A.B / B.B clamped to [0, 1]; v = A + s B
    const double* u = cd->dir;
    double P[9], A[3], B[3], v[3];
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) P[3 * r + c] = (r == c) - u[r] * u[c];
    }
    double ap[3], ba[3];
    for (int k = 0; k < 3; k++) ap[k] = a[k] - cd->point[k], ba[k] = bw[k] - a[k];
    salto_m3_mul_v3(A, P, ap);
    salto_m3_mul_v3(B, P, ba);
    const double BB = salto_v3_dot(B, B);
    double s = 0.0;
    int interior = 0;
    if (BB > 1e-24) {
        s = -salto_v3_dot(A, B) / BB;
        interior = s > 0.0 && s < 1.0;
        s = fmin(1.0, fmax(0.0, s));
    }
    for (int k = 0; k < 3; k++) v[k] = A[k] + s * B[k];
    const double dist = salto_v3_norm(v);
    for (int k = 0; k < 3; k++) {
        ga[k] = dist > 0.0 ? (1.0 - s) * v[k] / dist : 0.0;
        gb[k] = dist > 0.0 ? s * v[k] / dist : 0.0;
    }
    if (!H6) return dist - offset;
    for (int k = 0; k < 36; k++) H6[k] = 0.0;
    if (!(dist > 0.0)) return dist - offset;
    // D = |v|^2's Hessian in (A, B) (interior: D = A.A - (A.B)^2 / B.B; clamped: s fixed), then
    // in (a, b) through (A, B) = L (a, b), L = [P 0; -P P], and |v| = sqrt(D)'s
    double GAA[9], GAB[9], GBA[9], GBB[9], w[3];
    for (int k = 0; k < 3; k++) w[k] = A[k] + 2.0 * s * B[k];
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
            const double I = r == c;
            GAA[3 * r + c] = 2.0 * (I - (interior ? B[r] * B[c] / BB : 0.0));
            GBA[3 * r + c] = 2.0 * (s * I - (interior ? w[r] * B[c] / BB : 0.0));
            GBB[3 * r + c] = 2.0 * (s * s * I - (interior ? w[r] * w[c] / BB : 0.0));
        }
    }
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) GAB[3 * r + c] = GBA[3 * c + r];
    }
    double Maa[9], Mab[9], Mba[9], Mbb[9];
    for (int k = 0; k < 9; k++) {
        Maa[k] = GAA[k] - GAB[k] - GBA[k] + GBB[k];
        Mab[k] = GAB[k] - GBB[k];
        Mba[k] = GBA[k] - GBB[k];
        Mbb[k] = GBB[k];
    }
    const double* M[4] = {Maa, Mab, Mba, Mbb};
    const double g6[6] = {ga[0], ga[1], ga[2], gb[0], gb[1], gb[2]};
    for (int blk = 0; blk < 4; blk++) {
        const int r0 = blk < 2 ? 0 : 3, c0 = blk % 2 ? 3 : 0;
        double T[9], PMP[9];
        salto_m3_mul(T, M[blk], P);
        salto_m3_mul(PMP, P, T);
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++) {
                H6[6 * (r0 + r) + c0 + c] = PMP[3 * r + c] / (2.0 * dist) - g6[r0 + r] * g6[c0 + c] / dist;
            }
        }
    }
    return dist - offset;
}


double nlp_clear_distance(const salto_nlp* nlp, const salto_constraint_desc* cd, const double a[3],
                          const double bw[3], double offset, double ga[3], double gb[3], double* H6) {
    if (cd->type == SALTO_CON_CLEAR_BAR) return nlp_bar_distance(cd, a, bw, offset, ga, gb, H6);
    double c[3], h[3], yaw;
    int use[3];
    salto_problem_box_geometry(nlp->p, cd->box, c, h, use, &yaw);
    return salto_box_segment_distance_turned(c, h, use, yaw, a, bw, NULL, ga, gb, H6) - offset;
}


void nlp_bar_segment(const salto_nlp* nlp, const block* b, double xa[3], double xb[3]) {
    const salto_data* d = nlp->ev.d;
    const double* R = d->R + 9 * b->link;
    const double* pl = d->p + 3 * b->link;
    salto_m3_mul_v3(xa, R, b->point);
    salto_m3_mul_v3(xb, R, b->e[0]);
    for (int k = 0; k < 3; k++) xa[k] += pl[k], xb[k] += pl[k];
}


void nlp_chord(const salto_nlp* nlp, const block* b, double P[3], double v[3], double xa[3],
               double xb[3]) {
    const salto_data* d = nlp->ev.d;
    salto_m3_mul_v3(P, d->R + 9 * b->link, b->point);
    for (int k = 0; k < 3; k++) P[k] += d->p[3 * b->link + k];
    salto_point_vel(d, b->link, P, v);
    for (int k = 0; k < 3; k++) xa[k] = P[k] - b->sweep[0] * v[k], xb[k] = P[k] + b->sweep[1] * v[k];
}


// rows of block b at x: values g (nrows) and derivatives with respect to the q and qd of its
// deps, dq and dqd (nrows x ndep, row-major)
static void eval_block_rows(salto_nlp* nlp, const double* x, const block* b, double* g,
                            int want_jac);


void nlp_eval_block(salto_nlp* nlp, const double* x, const block* b, double* g, int want_jac) {
    if (b->junc) {
        nlp_eval_junction(nlp, x, b, g, NULL);
        return;
    }
    if (want_jac && b->nxaux > 0) memset(nlp->ev.daux, 0, (size_t)b->nrows * NXAUX * sizeof(double));
    if (b->impact) {
        nlp_eval_impact(nlp, x, b, g, want_jac);
        return;
    }
    if (b->torque) {
        nlp_eval_torque(nlp, x, b, g, want_jac);
        return;
    }
    if (b->fobj) {
        nlp_eval_force_rows(nlp, x, b, g, want_jac);
        return;
    }
    if (b->con < 0) {
        nlp_eval_physics(nlp, x, b, g, want_jac);
        return;
    }
    eval_block_rows(nlp, x, b, g, want_jac);
    if (!want_jac || b->er < 0) return;
    // through the effective root: each row's derivatives over all DOFs, chained, and back onto
    // the deps (which hold the held site's path)
    const int nv = nlp->nv, nd = b->ndep;
    const int* dep = nlp->dep + b->dep0;
    double* rq = nlp->ev.fq;
    double* rqd = nlp->ev.fq + nv;
    for (int r = 0; r < b->nrows; r++) {
        memset(rq, 0, 2 * (size_t)nv * sizeof(double));
        for (int jj = 0; jj < nd; jj++) rq[dep[jj]] = nlp->ev.dq[r * nd + jj], rqd[dep[jj]] = nlp->ev.dqd[r * nd + jj];
        nlp_er_chain(nlp, b->er, rq, rqd, NULL, nlp->ev.daux + NXAUX * r);
        for (int jj = 0; jj < nd; jj++) nlp->ev.dq[r * nd + jj] = rq[dep[jj]], nlp->ev.dqd[r * nd + jj] = rqd[dep[jj]];
    }
}


// the rows of a constraint block (not physics) at the state its kinematics give
static void eval_block_rows(salto_nlp* nlp, const double* x, const block* b, double* g,
                            int want_jac) {
    const salto_model* m = nlp->m;
    const salto_constraint_desc* cd = nlp_cd(nlp, b->con);
    salto_data* d = nlp->ev.d;
    const int* dep = nlp->dep + b->dep0;
    const int nd = b->ndep;
    double* dq = nlp->ev.dq;
    double* dqd = nlp->ev.dqd;
    if (want_jac) {
        memset(dq, 0, (size_t)(b->diag ? b->nrows : b->nrows * nd) * sizeof(double));
        memset(dqd, 0, (size_t)(b->diag ? b->nrows : b->nrows * nd) * sizeof(double));
    }

    if (cd->type == SALTO_CON_POSE || cd->type == SALTO_CON_VELOCITY || cd->type == SALTO_CON_JOINT_RANGE) {
        // linear in the control points: no kinematics (a joint range bounds q itself)
        const int range = cd->type == SALTO_CON_JOINT_RANGE;
        for (int r = 0; r < b->nrows; r++) {
            const double* c = x + cd->dof[r] * nlp->ncp + b->first;
            const double* w = cd->type == SALTO_CON_VELOCITY ? b->dN : b->N;
            g[r] = w[0] * c[0] + w[1] * c[1] + w[2] * c[2] + w[3] * c[3] - (range ? 0.0 : cd->value[r]);
            if (want_jac) (cd->type == SALTO_CON_VELOCITY ? dqd : dq)[r] = 1.0;
        }
        return;
    }

    nlp_kinematics_at(nlp, x, b);
    switch (cd->type) {
    case SALTO_CON_SITE_HOLD:
    case SALTO_CON_SITE_AT:
    case SALTO_CON_SITE_ON_LINE:
    case SALTO_CON_SITE_ON_PLANE:
    case SALTO_CON_SITE_ABOVE:
    case SALTO_CON_SITE_IN_BOX: {
        // e . x_site - e . point for a direction e: a component (site_at) or a projection (on a
        // line or plane); a hold's rows subtract a place variable or a fixed target instead
        double xs[3];
        salto_site_pos(m, d, cd->site, xs);
        if (want_jac) salto_site_jac(m, d, cd->site, nlp->ev.J3);
        for (int r = 0; r < b->nrows; r++) {
            double e[3] = {0, 0, 0};
            if (cd->type == SALTO_CON_SITE_AT || cd->type == SALTO_CON_SITE_IN_BOX) {
                e[b->comp[r]] = 1.0;
            } else {
                memcpy(e, b->e[r], sizeof e);
            }
            const double off = cd->type == SALTO_CON_SITE_IN_BOX ? 0.0 // the box bounds x itself
                               : cd->type != SALTO_CON_SITE_HOLD ? salto_v3_dot(e, cd->point)
                               : b->aux[r] >= 0                ? x[b->aux[r]]
                                                               : b->target[r];
            g[r] = salto_v3_dot(e, xs) - off;
            if (!want_jac) continue;
            for (int jj = 0; jj < nd; jj++) {
                const int j = dep[jj];
                dq[r * nd + jj] = e[0] * nlp->ev.J3[j] + e[1] * nlp->ev.J3[nlp->nv + j] +
                                  e[2] * nlp->ev.J3[2 * nlp->nv + j];
            }
        }
        break;
    }
    case SALTO_CON_SITE_STILL: {
        // v = J qd: dv/dqd = J, dv/dq by salto_site_vel_deriv
        double v[3];
        salto_site_vel(m, d, cd->site, v);
        for (int r = 0; r < b->nrows; r++) g[r] = v[b->comp[r]];
        if (!want_jac) break;
        const int nv = nlp->nv;
        salto_site_jac(m, d, cd->site, nlp->ev.J3);
        salto_site_vel_deriv(m, d, cd->site, nlp->ev.fq);
        for (int r = 0; r < b->nrows; r++) {
            const int k = b->comp[r];
            for (int jj = 0; jj < nd; jj++) {
                dq[r * nd + jj] = nlp->ev.fq[k * nv + dep[jj]];
                dqd[r * nd + jj] = nlp->ev.J3[k * nv + dep[jj]];
            }
        }
        break;
    }
    case SALTO_CON_BODY_HEADING: {
        // the angle about N of u = x_site - x_site0 in the frame turned by the heading a:
        // atan2(u . e_y(a), u . e_x(a)) = psi - a near 0, so d/da = -1 exactly; du/dq_j =
        // s_j x u (both sites on one body)
        double x0[3], x1[3], u[3], Tx[3], Ty[3];
        salto_site_pos(m, d, cd->site0, x0);
        salto_site_pos(m, d, cd->site, x1);
        for (int k = 0; k < 3; k++) u[k] = x1[k] - x0[k];
        salto_contact_frame(cd->dir, 0, Tx, Ty);
        const double a = x[b->aux[0]], ca = cos(a), sa = sin(a);
        double ex[3], ey[3];
        for (int k = 0; k < 3; k++) ex[k] = ca * Tx[k] + sa * Ty[k], ey[k] = -sa * Tx[k] + ca * Ty[k];
        const double ux = salto_v3_dot(u, ex), uy = salto_v3_dot(u, ey);
        g[0] = atan2(uy, ux);
        if (!want_jac) break;
        const double r2 = ux * ux + uy * uy;
        for (int jj = 0; jj < nd; jj++) {
            double du[3];
            salto_v3_cross(du, d->S + 6 * dep[jj], u);
            dq[jj] = r2 > 0 ? (ux * salto_v3_dot(du, ey) - uy * salto_v3_dot(du, ex)) / r2 : 0.0;
        }
        break;
    }
    case SALTO_CON_BODY_LEVEL: {
        // with v the body's zero-pose vertical turned with it, u = x_site - x_site0 and N the
        // normal: (v . (N x u)) / |u|, v's part across the line (|u| is constant: both sites
        // on one body); dv/dq_j = s_j x v, du/dq_j = s_j x u
        const int l = m->site_link[cd->site];
        double v[3], x0[3], x1[3], u[3], Nu[3];
        salto_m3_mul_v3(v, d->R + 9 * l, cd->point);
        salto_site_pos(m, d, cd->site0, x0);
        salto_site_pos(m, d, cd->site, x1);
        for (int k = 0; k < 3; k++) u[k] = x1[k] - x0[k];
        const double len = salto_v3_norm(u);
        salto_v3_cross(Nu, cd->dir, u);
        g[0] = len > 0 ? salto_v3_dot(v, Nu) / len : 0.0;
        if (!want_jac) break;
        for (int jj = 0; jj < nd && len > 0; jj++) {
            const double* a = d->S + 6 * dep[jj];
            double av[3], au[3], Nau[3];
            salto_v3_cross(av, a, v);
            salto_v3_cross(au, a, u);
            salto_v3_cross(Nau, cd->dir, au);
            dq[jj] = (salto_v3_dot(av, Nu) + salto_v3_dot(v, Nau)) / len;
        }
        break;
    }
    case SALTO_CON_BODY_STILL: {
        // w = sum_j s_j qd_j over the path; dw/dqd_j = s_j, dw/dq_j = s_j x (w_link - w_parent(j))
        // (the angular part of S_j x U, as for site_still)
        const int l = m->site_link[cd->site];
        const double* Vl = d->V + 6 * l;
        for (int r = 0; r < b->nrows; r++) g[r] = Vl[b->comp[r]];
        if (!want_jac) break;
        for (int jj = 0; jj < nd; jj++) {
            const int j = dep[jj];
            const double* S = d->S + 6 * j;
            const double* Vp = d->V + 6 * m->link_parent[j];
            double U[6], SU[6];
            for (int k = 0; k < 6; k++) U[k] = Vl[k] - Vp[k];
            salto_sv_crossm(SU, S, U);
            for (int r = 0; r < b->nrows; r++) {
                dq[r * nd + jj] = SU[b->comp[r]];
                dqd[r * nd + jj] = S[b->comp[r]];
            }
        }
        break;
    }
    case SALTO_CON_COM_POSITION:
    case SALTO_CON_COM_VELOCITY:
    case SALTO_CON_COM_PARABOLA:
    case SALTO_CON_COM_PARABOLA_VEL:
    case SALTO_CON_COM_ABOVE:
    case SALTO_CON_COM_IN_BOX: {
        // c = h / M, cdot = p_lin / M; per DOF j (deps are all DOFs, in order):
        // dc/dq_j = dcdot/dqd_j = (m_sub t_j + s_j x h_sub) / M
        // dcdot/dq_j = (s_j x P_sub + m_sub W_lin + W_ang x h_sub) / M, W = V_p x S_j
        // A row is e . c (or e . cdot) minus its target: a component's value, or on a
        // ballistic flight's parabola along the root's translation axis e_r,
        // c0_r + v0_r tau + (e_r . g) tau^2 / 2 (velocity: v0_r + (e_r . g) tau), tau = t - t0
        nlp_com_sums(nlp);
        const double M = m->mass;
        double hc[3], pc[3]; // c and cdot
        nlp_com_from_sums(nlp, hc, pc);
        const int par = nlp_is_parabola(cd->type);
        const int vel = cd->type == SALTO_CON_COM_VELOCITY || cd->type == SALTO_CON_COM_PARABOLA_VEL;
        // (a free flight's tau in real time: its nominal one over the time scale, nlp_time.c)
        const double tau = par ? (b->t - nlp->p->phases[cd->phase].start) / b->r : 0.0;
        const int nt = nlp->root.bal_nt;
        double e[3][3];
        for (int r = 0; r < b->nrows; r++) {
            if (par || cd->type == SALTO_CON_COM_ABOVE) {
                memcpy(e[r], b->e[r], sizeof e[r]);
            } else {
                e[r][0] = e[r][1] = e[r][2] = 0.0;
                e[r][b->comp[r]] = 1.0;
            }
            const double val = salto_v3_dot(e[r], vel ? pc : hc);
            double target = cd->type == SALTO_CON_COM_ABOVE   ? salto_v3_dot(e[r], cd->point)
                            : cd->type == SALTO_CON_COM_IN_BOX ? 0.0
                                                               : cd->vec[b->comp[r]];
            if (par) {
                const double* pl = x + nlp->bal[cd->phase];
                const double ge = salto_v3_dot(e[r], m->gravity);
                target = vel ? pl[nt + r] + ge * tau : pl[r] + pl[nt + r] * tau + 0.5 * ge * tau * tau;
                if (want_jac) {
                    if (!vel) nlp->ev.daux[NXAUX * r + r] = -1.0;
                    nlp->ev.daux[NXAUX * r + nt + r] = vel ? -1.0 : -tau;
                }
            }
            g[r] = val - target;
        }
        if (!want_jac) break;
        const int nv = nlp->nv;
        nlp_com_jac(nlp, nlp->ev.J3);
        for (int j = 0; j < nv; j++) {
            const double* S = d->S + 6 * j;
            const double* sj = nlp->ev.sums + 7 * j;
            const double a[3] = {nlp->ev.J3[j], nlp->ev.J3[nv + j], nlp->ev.J3[2 * nv + j]};
            double c2[3] = {0, 0, 0};
            if (vel) {
                double W[6];
                salto_sv_crossm(W, d->V + 6 * m->link_parent[j], S);
                salto_v3_cross(c2, S, sj + 4);
                double t2[3];
                salto_v3_cross(t2, W, sj + 1);
                for (int k = 0; k < 3; k++) c2[k] = (c2[k] + sj[0] * W[3 + k] + t2[k]) / M;
            }
            for (int r = 0; r < b->nrows; r++) {
                if (vel) {
                    dq[r * nd + j] = salto_v3_dot(e[r], c2);
                    dqd[r * nd + j] = salto_v3_dot(e[r], a);
                } else {
                    dq[r * nd + j] = salto_v3_dot(e[r], a);
                }
            }
        }
        break;
    }
    case SALTO_CON_CLEAR_BAR:
    case SALTO_CON_CLEAR_BOX: {
        if (b->chord) {
            // the chord a = P - hb v, b = P + hf v of point P's path (velocity v): its signed
            // distance from the box less the radius; da/dq = J - hb dv/dq, da/dqd = -hb J
            // (b likewise with +hf), dv/dqd = J the point's Jacobian
            double P[3], v[3], xa[3], xb[3], ga[3], gb[3];
            nlp_chord(nlp, b, P, v, xa, xb);
            g[0] = nlp_clear_distance(nlp, cd, xa, xb, b->offset, ga, gb, NULL);
            if (!want_jac) break;
            const int nv = nlp->nv;
            const double hb = b->sweep[0], hf = b->sweep[1];
            double wp[3], wv[3];
            for (int k = 0; k < 3; k++) wp[k] = ga[k] + gb[k], wv[k] = hf * gb[k] - hb * ga[k];
            salto_point_jac(m, d, b->link, P, nlp->ev.J3);
            salto_point_motion_deriv(m, d, b->link, P, nlp->ev.fq, NULL, NULL);
            for (int jj = 0; jj < nd; jj++) {
                const int j = dep[jj];
                double aq = 0.0, aqd = 0.0;
                for (int k = 0; k < 3; k++) {
                    aq += wp[k] * nlp->ev.J3[k * nv + j] + wv[k] * nlp->ev.fq[k * nv + j];
                    aqd += wv[k] * nlp->ev.J3[k * nv + j];
                }
                dq[jj] = aq, dqd[jj] = aqd;
            }
            break;
        }
        // the segment's distance from the bar's axis less the radii (nlp_bar_distance), or its
        // signed distance from the box less its radius
        double xa[3], xb[3], ga[3], gb[3];
        nlp_bar_segment(nlp, b, xa, xb);
        g[0] = nlp_clear_distance(nlp, cd, xa, xb, b->offset, ga, gb, NULL);
        if (!want_jac) break;
        const int nv = nlp->nv;
        salto_point_jac(m, d, b->link, xa, nlp->ev.J3);
        for (int jj = 0; jj < nd; jj++) {
            const int j = dep[jj];
            dq[jj] = ga[0] * nlp->ev.J3[j] + ga[1] * nlp->ev.J3[nv + j] + ga[2] * nlp->ev.J3[2 * nv + j];
        }
        salto_point_jac(m, d, b->link, xb, nlp->ev.J3);
        for (int jj = 0; jj < nd; jj++) {
            const int j = dep[jj];
            dq[jj] += gb[0] * nlp->ev.J3[j] + gb[1] * nlp->ev.J3[nv + j] + gb[2] * nlp->ev.J3[2 * nv + j];
        }
        break;
    }
    case SALTO_CON_ABOVE_GROUND: {
        // z of the point minus the radius below it
        const double* R = d->R + 9 * b->link;
        const double* pl = d->p + 3 * b->link;
        double xw[3];
        salto_m3_mul_v3(xw, R, b->point);
        for (int k = 0; k < 3; k++) xw[k] += pl[k];
        g[0] = xw[2] - b->offset;
        if (!want_jac) break;
        salto_point_jac(m, d, b->link, xw, nlp->ev.J3);
        for (int jj = 0; jj < nd; jj++) dq[jj] = nlp->ev.J3[2 * nlp->nv + dep[jj]];
        break;
    }
    default:
        break;
    }
}


int nlp_finite_n(const double* v, int n) {
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) return 0;
    }
    return 1;
}


salto_status salto_nlp_eval_g(salto_nlp* nlp, const double* x, double* g) {
    nlp_time_update(nlp, x);
    nlp->ev.have_state = 0;
    for (int i = 0; i < nlp->nblock; i++) {
        const block* b = &nlp->blocks[i];
        nlp_eval_block(nlp, x, b, g + b->row0, 0);
    }
    nlp->ev.have_state = 0;
    return nlp_finite_n(g, nlp->ng) ? SALTO_OK : SALTO_ERR_NUMERIC;
}


salto_status salto_nlp_eval_jac(salto_nlp* nlp, const double* x, double* values) {
    double gtmp[16];
    nlp_time_update(nlp, x);
    nlp->ev.have_state = 0;
    double* dcol = NULL; // the rows' derivatives in their durations (nlp_time_dcol)
    for (int i = 0; i < nlp->nblock; i++) {
        const block* b = &nlp->blocks[i];
        if (b->junc) {
            nlp_eval_junction(nlp, x, b, NULL, values + b->jac0);
            continue;
        }
        double* g = b->nrows <= 16 ? gtmp : NULL;
        double* gbig = NULL;
        if (!g) {
            // pose and velocity blocks may be wide; their values are not needed here
            gbig = nlp->ev.J3; // 3 nv >= nrows (a pose lists at most nv DOFs)
            g = gbig;
        }
        nlp_eval_block(nlp, x, b, g, 1);
        if (b->ntc) dcol = nlp_time_dscratch(nlp), nlp_time_dcol(nlp, x, b, dcol);
        const int nd = b->ndep;
        double* v = values + b->jac0;
        for (int r = 0; r < b->nrows; r++) {
            const int j0 = b->diag ? r : 0;
            const int j1 = b->diag ? r + 1 : nd;
            for (int jj = j0; jj < j1; jj++) {
                const double a = b->diag ? nlp->ev.dq[r] : nlp->ev.dq[r * nd + jj];
                const double c = b->diag ? nlp->ev.dqd[r] : nlp->ev.dqd[r * nd + jj];
                const double e = b->con < 0 ? nlp->ev.dqdd[r * nd + jj] : 0.0;
                for (int k = 0; k < 4; k++) *v++ = a * b->N[k] + c * b->dN[k] + e * b->ddN[k];
            }
            if (row_aux(b, r) >= 0) *v++ = -1.0;
            for (int a = 0; a < b->nxaux; a++) *v++ = nlp->ev.daux[NXAUX * r + a];
            for (int t = 0; t < b->ntc; t++) *v++ = dcol[t * b->nrows + r];
        }
    }
    nlp->ev.have_state = 0;
    return nlp_finite_n(values, nlp->nnz_jac) ? SALTO_OK : SALTO_ERR_NUMERIC;
}


// ---- objective ----

// entry (a, a + o) of DOF j's objective Hessian nlp_band, halved: w_j G2 + rho G0
double nlp_band(const salto_nlp* nlp, int j, int a, int o) {
    const int i = 7 * a + 3 + o;
    return nlp->obj.w[j] * nlp->obj.G[i] + nlp->obj.rho * nlp->obj.G0[i];
}


// ((wg G + w0 G0) c)_a: row a of a band of the Gram matrices times control points c
static double band_row_of(const salto_nlp* nlp, double wg, double w0, int a, const double* c) {
    double row = 0.0;
    for (int o = -3; o <= 3; o++) {
        const int b = a + o;
        const int i = 7 * a + 3 + o;
        if (b >= 0 && b < nlp->ncp) row += (wg * nlp->obj.G[i] + w0 * nlp->obj.G0[i]) * c[b];
    }
    return row;
}


// (band c)_a for DOF j's control points c
static double band_row(const salto_nlp* nlp, int j, int a, const double* c) {
    return band_row_of(nlp, nlp->obj.w[j], nlp->obj.rho, a, c);
}


double nlp_jerk_rows(salto_nlp* nlp, const double* x, int k, int want_c) {
    if (nlp->njk == 0) return 0.0;
    nlp->ev.have_state = 0;
    for (int i = nlp->nblock; i < nlp->nblock + nlp->nobjblk; i++) {
        const block* b = &nlp->blocks[i];
        double* f = nlp->jk_f + 3 * (size_t)(i - nlp->nblock);
        double* c = nlp->jk_c + 3 * (size_t)(i - nlp->nblock);
        c[0] = c[1] = c[2] = 0.0;
        if (b->quad != 2 || (k >= 0 && b->oi != k)) continue;
        nlp_eval_block(nlp, x, b, f, 0);
    }
    nlp->ev.have_state = 0;
    double sum = 0.0;
    for (int q = 0; q < nlp->njk; q++) {
        const int a = nlp->jk_a[q], b = nlp->jk_b[q];
        if (k >= 0 && nlp->blocks[a].oi != k) continue;
        const double* fa = nlp->jk_f + 3 * (size_t)(a - nlp->nblock);
        const double* fb = nlp->jk_f + 3 * (size_t)(b - nlp->nblock);
        double* ca = nlp->jk_c + 3 * (size_t)(a - nlp->nblock);
        double* cb = nlp->jk_c + 3 * (size_t)(b - nlp->nblock);
        for (int r = 0; r < nlp->blocks[a].nrows; r++) {
            const double d = fb[r] - fa[r];
            sum += nlp->jk_w[q] * d * d;
            if (want_c) ca[r] -= 2.0 * nlp->jk_w[q] * d, cb[r] += 2.0 * nlp->jk_w[q] * d;
        }
    }
    return sum;
}


// the objective's terms that are blocks: height and travel, linear in their rows (ow x row),
// torque and contact force, quadratic (ow x sum_r rw_r row_r^2), and contact jerk (its pairs,
// nlp_jerk_rows) (k >= 0: objective term k's alone)
static double objective_rows(salto_nlp* nlp, const double* x, int k) {
    double sum = nlp_jerk_rows(nlp, x, k, 0);
    double* g = nlp->ev.og;
    nlp->ev.have_state = 0;
    for (int i = nlp->nblock; i < nlp->nblock + nlp->nobjblk; i++) {
        const block* b = &nlp->blocks[i];
        if ((k >= 0 && b->oi != k) || b->quad == 2) continue;
        nlp_eval_block(nlp, x, b, g, 0);
        for (int r = 0; r < b->nrows; r++) {
            sum += b->quad ? b->ow * (b->rw ? b->rw[r] : 1.0) * g[r] * g[r] : b->ow * g[r];
        }
    }
    nlp->ev.have_state = 0;
    return sum;
}


// their gradient added to grad
static void objective_rows_grad(salto_nlp* nlp, const double* x, double* grad) {
    double* g = nlp->ev.og;
    nlp_jerk_rows(nlp, x, -1, 1);
    nlp->ev.have_state = 0;
    for (int i = nlp->nblock; i < nlp->nblock + nlp->nobjblk; i++) {
        const block* b = &nlp->blocks[i];
        nlp_eval_block(nlp, x, b, g, 1);
        const int nd = b->ndep;
        const int* dep = nlp->dep + b->dep0;
        const double* jc = nlp->jk_c + 3 * (size_t)(i - nlp->nblock);
        for (int r = 0; r < b->nrows; r++) {
            // d term / d row
            const double w = b->quad == 2 ? jc[r] : b->quad ? 2.0 * b->ow * (b->rw ? b->rw[r] : 1.0) * g[r] : b->ow;
            for (int jj = 0; jj < nd; jj++) {
                const double a = w * nlp->ev.dq[r * nd + jj], c = w * nlp->ev.dqd[r * nd + jj];
                const double e = b->con < 0 ? w * nlp->ev.dqdd[r * nd + jj] : 0.0;
                double* gr = grad + dep[jj] * nlp->ncp + b->first;
                for (int k = 0; k < 4; k++) gr[k] += a * b->N[k] + c * b->dN[k] + e * b->ddN[k];
            }
            for (int a = 0; a < b->nxaux; a++) grad[b->xaux[a]] += w * nlp->ev.daux[NXAUX * r + a];
        }
        if (b->ntc) {
            // a free phase's duration: through the rows, and the weight ow = ow0 d / D
            double* dc = nlp_time_dscratch(nlp);
            nlp_time_dcol(nlp, x, b, dc);
            const double d = x[b->tc[0]];
            for (int r = 0; r < b->nrows; r++) {
                const double rw = b->rw ? b->rw[r] : 1.0;
                grad[b->tc[0]] += 2.0 * b->ow * rw * g[r] * dc[r] + b->ow / d * rw * g[r] * g[r];
            }
        }
    }
    nlp->ev.have_state = 0;
}


double salto_nlp_objective_term(salto_nlp* nlp, const double* x, int k) {
    const salto_problem_desc* p = nlp->p;
    if (k < 0 || k >= p->nobj) return NAN;
    nlp_time_update(nlp, x);
    const salto_objective_desc* od = &p->objs[k];
    if (od->type == SALTO_OBJ_DURATION) return (od->maximise ? -od->weight : od->weight) * x[nlp->tvar[od->phase]];
    if (od->type == SALTO_OBJ_ACCELERATION || od->type == SALTO_OBJ_REFERENCE) {
        // the band's parts: sum_j w_j c' G c (all acceleration terms, shared by weight) and the
        // reference's ref_w c' G0 c - 2 b' c + ref_c (one reference term alone)
        double wsum = 0.0;
        int nref = 0;
        for (int i = 0; i < p->nobj; i++) {
            if (p->objs[i].type == SALTO_OBJ_ACCELERATION) wsum += p->objs[i].weight;
            nref += p->objs[i].type == SALTO_OBJ_REFERENCE;
        }
        const int acc = od->type == SALTO_OBJ_ACCELERATION;
        if ((acc && !(wsum > 0.0)) || (!acc && nref > 1)) return acc ? 0.0 : NAN;
        double sum = acc ? 0.0 : nlp->obj.ref_c;
        for (int j = 0; j < nlp->nv && nlp->obj.dofs > 0; j++) {
            const double* c = x + j * nlp->ncp;
            for (int a = 0; a < nlp->ncp; a++) {
                sum += c[a] * band_row_of(nlp, acc ? nlp->obj.w[j] : 0.0, acc ? 0.0 : nlp->obj.ref_w, a, c);
                if (!acc) sum -= 2.0 * nlp->obj.ref_b[j * nlp->ncp + a] * c[a];
            }
        }
        return acc ? sum * od->weight / wsum : sum;
    }
    return objective_rows(nlp, x, k);
}


double salto_nlp_objective_measure(salto_nlp* nlp, const double* x, int k) {
    double sum = 0.0, g[3];
    int n = 0;
    if (k < 0 || k >= nlp->p->nobj || (nlp->p->objs[k].type != SALTO_OBJ_HEIGHT &&
                                      nlp->p->objs[k].type != SALTO_OBJ_TRAVEL)) {
        return NAN;
    }
    nlp->ev.have_state = 0;
    for (int i = nlp->nblock; i < nlp->nblock + nlp->nobjblk; i++) {
        const block* b = &nlp->blocks[i];
        if (b->oi != k) continue;
        nlp_eval_block(nlp, x, b, g, 0);
        sum += g[0], n++;
    }
    nlp->ev.have_state = 0;
    return n > 0 ? sum / n : NAN;
}


salto_status salto_nlp_eval_f(salto_nlp* nlp, const double* x, double* f) {
    nlp_time_update(nlp, x);
    double sum = nlp->obj.ref_c + objective_rows(nlp, x, -1) + nlp_time_objective(nlp, x, NULL);
    for (int j = 0; j < nlp->nv && nlp->obj.dofs > 0; j++) {
        const double* c = x + j * nlp->ncp;
        for (int a = 0; a < nlp->ncp; a++) {
            sum += c[a] * band_row(nlp, j, a, c);
            if (nlp->obj.ref_b) sum -= 2.0 * nlp->obj.ref_b[j * nlp->ncp + a] * c[a];
        }
    }
    *f = sum;
    return isfinite(sum) ? SALTO_OK : SALTO_ERR_NUMERIC;
}


salto_status salto_nlp_eval_grad(salto_nlp* nlp, const double* x, double* grad) {
    nlp_time_update(nlp, x);
    for (int j = 0; j < nlp->nv; j++) {
        const double* c = x + j * nlp->ncp;
        for (int a = 0; a < nlp->ncp; a++) {
            double gr = nlp->obj.dofs > 0 ? 2.0 * band_row(nlp, j, a, c) : 0.0;
            if (nlp->obj.ref_b) gr -= 2.0 * nlp->obj.ref_b[j * nlp->ncp + a];
            grad[j * nlp->ncp + a] = gr;
        }
    }
    for (int i = nlp->ncpv; i < nlp->nx; i++) grad[i] = 0.0; // the places only through rows
    objective_rows_grad(nlp, x, grad);
    nlp_time_objective(nlp, x, grad);
    return nlp_finite_n(grad, nlp->nx) ? SALTO_OK : SALTO_ERR_NUMERIC;
}
