// nlp_torque.c: the joint torque rows of the character's torque_limits, at every physics slice
//
// Row r of a torque block is tau_j + slope_j qd_j for limited DOF j = nlp->tq_dof[r], bounded
// by [lo_j, hi_j]. The torque is the validator's (salto_contact_torques): inverse dynamics
// with the phase's contact wrench shared among its links by minimum norm (resim.c,
// salto_contact_wrenches), tau_j = S_j . (F_j - sum of the wrenches on links in sub(j)), F_j
// the force sub(j) needs. In a ballistic flight the translation's acceleration is the one
// that zeroes the aggregate force (the written motion's, nlp_state.c), not the splines'.
//
// The Jacobian is exact: salto_joint_torques_jac for S_j . F_j; the wrench share w_b differs
// with f0 (its Jacobian) and the contact links' centroids p_b (theirs) through the 6 x 6
// system of resim.c, differentiated in closed form; S_j turns with its ancestors, dS_j/dq_i =
// S_i x S_j; the flight's correction adds tau's qdd_T column times its own derivative.
#include "nlp_priv.h"

#include <math.h>
#include <string.h>

#include "salto/aggregate.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"

#include "linalg.h"

enum { max_links = 8 };
static const double contact_length2 = 0.01; // l^2 of resim.c's contact_length (0.1 m)


// the contact links of phase ph and their sites' centroids (resim.c's order and rule)
static int contact_links(const salto_nlp* nlp, int ph, int* link, int* count) {
    const salto_model* m = nlp->m;
    const salto_contact_desc* ct = &nlp->p->phases[ph].contact;
    if (ct->type == SALTO_CONTACT_NONE) return 0;
    int nb = 0;
    for (int s = 0; s < ct->nsite; s++) {
        const int l = m->site_link[ct->site[s]];
        if (l < 0) continue;
        int b = 0;
        while (b < nb && link[b] != l) b++;
        if (b == nb) {
            if (nb == max_links) continue;
            link[nb] = l, count[nb] = 0;
            nb++;
        }
        count[b]++;
    }
    return nb;
}


// The minimum-norm share w (nb x 6) of f0 among the contact links, and with Jf (6 x 3 nv) its
// Jacobian dw (nb x 6 x 3 nv). d holds the kinematics; J3 is 3 x nv scratch, Jp 3 x nv per link.
static void contact_shares(salto_nlp* nlp, int ph, int nb, const int* link, const int* count,
                           const double* f0, const double* Jf, double* w, double* dw, double* Jp) {
    const salto_model* m = nlp->m;
    const salto_data* d = nlp->ev.d;
    const salto_contact_desc* ct = &nlp->p->phases[ph].contact;
    const int nv = nlp->nv, ncol = 3 * nv;
    if (nb == 1) {
        memcpy(w, f0, 6 * sizeof(double));
        if (dw) memcpy(dw, Jf, 6 * (size_t)ncol * sizeof(double));
        return;
    }
    // centroids and their Jacobians
    double pc[max_links][3];
    memset(pc, 0, sizeof pc);
    if (dw) memset(Jp, 0, (size_t)nb * 3 * nv * sizeof(double));
    for (int s = 0; s < ct->nsite; s++) {
        const int l = m->site_link[ct->site[s]];
        int b = 0;
        while (b < nb && link[b] != l) b++;
        if (b == nb) continue;
        double x[3];
        salto_site_pos(m, d, ct->site[s], x);
        for (int k = 0; k < 3; k++) pc[b][k] += x[k] / count[b];
        if (!dw) continue;
        salto_site_jac(m, d, ct->site[s], nlp->ev.J3);
        for (int e = 0; e < 3 * nv; e++) Jp[(size_t)b * 3 * nv + e] += nlp->ev.J3[e] / count[b];
    }
    // [nb I, -[P]x; [P]x, Q + nb l^2 I] [alpha; beta] = [F; N]
    double P[3] = {0, 0, 0}, Q[9] = {0};
    for (int b = 0; b < nb; b++) {
        const double* x = pc[b];
        const double xx = salto_v3_dot(x, x);
        for (int r = 0; r < 3; r++) {
            P[r] += x[r];
            for (int c = 0; c < 3; c++) Q[3 * r + c] += (r == c ? xx : 0.0) - x[r] * x[c];
        }
    }
    const double px[9] = {0, -P[2], P[1], P[2], 0, -P[0], -P[1], P[0], 0};
    double A[36];
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
            A[6 * r + c] = r == c ? (double)nb : 0.0;
            A[6 * r + 3 + c] = -px[3 * r + c];
            A[6 * (3 + r) + c] = px[3 * r + c];
            A[6 * (3 + r) + 3 + c] = Q[3 * r + c] + (r == c ? nb * contact_length2 : 0.0);
        }
    }
    if (!salto_chol(A, 6)) { // not for finite input (positive definite); resim.c's fallback
        for (int b = 0; b < nb; b++) {
            for (int k = 0; k < 6; k++) w[6 * b + k] = f0[k] / nb;
        }
        if (dw) {
            for (int b = 0; b < nb; b++) {
                for (int e = 0; e < 6 * ncol; e++) dw[(size_t)b * 6 * ncol + e] = Jf[e] / nb;
            }
        }
        return;
    }
    double ab[6] = {f0[3], f0[4], f0[5], f0[0], f0[1], f0[2]};
    salto_chol_solve(A, 6, ab);
    const double* alpha = ab;
    const double* beta = ab + 3;
    double fb[max_links][3];
    for (int b = 0; b < nb; b++) {
        double n[3];
        salto_v3_cross(fb[b], beta, pc[b]);
        for (int k = 0; k < 3; k++) fb[b][k] += alpha[k], n[k] = contact_length2 * beta[k];
        salto_v3_cross_add(n, pc[b], fb[b]);
        for (int k = 0; k < 3; k++) w[6 * b + k] = n[k], w[6 * b + 3 + k] = fb[b][k];
    }
    if (!dw) return;
    // column by column: d[alpha; beta] = A^-1 ([dF; dN] - dA [alpha; beta]), with
    // dA [alpha; beta] = [-dP x beta; dP x alpha + dQ beta] and dQ beta = sum 2 (p . dp) beta -
    // dp (p . beta) - p (dp . beta); then df_b = da + db x p_b + beta x dp_b and
    // dn_b = l^2 db + dp_b x f_b + p_b x df_b
    for (int c = 0; c < ncol; c++) {
        double rhs[6] = {Jf[3 * ncol + c], Jf[4 * ncol + c], Jf[5 * ncol + c],
                         Jf[c],            Jf[ncol + c],     Jf[2 * ncol + c]};
        double dp[max_links][3];
        const int moves = c < nv;
        if (moves) {
            double dP[3] = {0, 0, 0}, dQb[3] = {0, 0, 0};
            for (int b = 0; b < nb; b++) {
                for (int k = 0; k < 3; k++) dp[b][k] = Jp[(size_t)b * 3 * nv + (size_t)k * nv + c], dP[k] += dp[b][k];
                const double pdp = salto_v3_dot(pc[b], dp[b]), pb = salto_v3_dot(pc[b], beta),
                             dpb = salto_v3_dot(dp[b], beta);
                for (int k = 0; k < 3; k++) dQb[k] += 2.0 * pdp * beta[k] - dp[b][k] * pb - pc[b][k] * dpb;
            }
            double t1[3], t2[3];
            salto_v3_cross(t1, dP, beta);
            salto_v3_cross(t2, dP, alpha);
            for (int k = 0; k < 3; k++) rhs[k] += t1[k], rhs[3 + k] -= t2[k] + dQb[k];
        }
        salto_chol_solve(A, 6, rhs);
        const double* da = rhs;
        const double* db = rhs + 3;
        for (int b = 0; b < nb; b++) {
            double df[3], dn[3], t[3];
            salto_v3_cross(df, db, pc[b]);
            for (int k = 0; k < 3; k++) df[k] += da[k];
            if (moves) {
                salto_v3_cross(t, beta, dp[b]);
                for (int k = 0; k < 3; k++) df[k] += t[k];
            }
            for (int k = 0; k < 3; k++) dn[k] = contact_length2 * db[k];
            salto_v3_cross_add(dn, pc[b], df);
            if (moves) salto_v3_cross_add(dn, dp[b], fb[b]);
            double* o = dw + (size_t)b * 6 * ncol;
            for (int k = 0; k < 3; k++) o[(size_t)k * ncol + c] = dn[k], o[(size_t)(3 + k) * ncol + c] = df[k];
        }
    }
}


void nlp_eval_torque(salto_nlp* nlp, const double* x, const block* b, double* g, int want_jac) {
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    const int nv = nlp->nv, ncol = 3 * nv, K = b->nrows;
    const int* dof = nlp->tq_dof;
    double* Jt = nlp->ev.Jt;
    double* Jf = nlp->ev.Jf;
    nlp_block_state(nlp, x, b, 1);
    if (b->er >= 0) nlp_er_state(nlp, x, b->er, SALTO_FK_ACC, want_jac);
    nlp->ev.have_state = 0; // d now holds this slice's accelerations
    // a ballistic flight: the translation's acceleration that zeroes the force, qdd_T += delta,
    // delta_t = -a_t . f / M at the splines' state (f0 is linear in qdd; the axes orthonormal)
    const int bal = nlp->bal[b->phase] >= 0;
    const int nt = nlp->root.bal_nt;
    if (bal) {
        double f0[6];
        if (want_jac) {
            salto_f0_jac(m, d, SALTO_JAC_LINEAR, f0, Jf, NULL);
        } else {
            salto_f0_rnea(m, d, f0);
        }
        for (int t = 0; t < nt; t++) d->qdd[nlp->root.bal_tdof[t]] -= salto_v3_dot(nlp->root.bal_a[t], f0 + 3) / m->mass;
    }
    double* tau = nlp->ev.tq;
    salto_joint_torques_jac(m, d, K, dof, tau, want_jac ? Jt : NULL);
    if (bal && want_jac) {
        // tau's total derivative: its qdd_T column times d delta_t = -a_t . df / M
        for (int r = 0; r < K; r++) {
            double* row = Jt + (size_t)r * ncol;
            for (int t = 0; t < nt; t++) {
                const double* a = nlp->root.bal_a[t];
                const double s = row[2 * nv + nlp->root.bal_tdof[t]] / m->mass;
                if (s == 0.0) continue;
                for (int c = 0; c < ncol; c++) row[c] -= s * (a[0] * Jf[3 * ncol + c] + a[1] * Jf[4 * ncol + c] + a[2] * Jf[5 * ncol + c]);
            }
        }
    }
    // the contact's share on the links under each limited DOF
    int link[max_links], count[max_links];
    const int nb = bal ? 0 : contact_links(nlp, b->phase, link, count);
    int* under = nlp->ev.tq_under; // bit masks of the contact links in sub(j)
    int any = 0;
    for (int r = 0; r < K; r++) {
        under[r] = 0;
        for (int c = 0; c < nb; c++) {
            if (link[c] >= dof[r] && link[c] < m->link_subtree_end[dof[r]]) under[r] |= 1 << c;
        }
        any |= under[r];
    }
    double w[6 * max_links];
    double* dw = nlp->ev.wjac;
    if (any) {
        double f0[6];
        if (want_jac) {
            salto_f0_jac(m, d, SALTO_JAC_LINEAR, f0, Jf, NULL);
        } else {
            salto_f0_rnea(m, d, f0);
            salto_fk(m, d, SALTO_FK_POS); // the sites' places (salto_f0_rnea's are at the state)
        }
        contact_shares(nlp, b->phase, nb, link, count, f0, want_jac ? Jf : NULL, w,
                       want_jac ? dw : NULL, nlp->ev.wjac + (size_t)max_links * 6 * ncol);
    }
    for (int r = 0; r < K; r++) {
        const int j = dof[r];
        const double* Sj = d->S + 6 * j;
        double W[6] = {0, 0, 0, 0, 0, 0};
        for (int c = 0; c < nb; c++) {
            if (!(under[r] >> c & 1)) continue;
            for (int k = 0; k < 6; k++) W[k] += w[6 * c + k];
        }
        g[r] = tau[r] - salto_sv_dot(Sj, W) + m->link_torque_slope[j] * d->qd[j];
        if (!want_jac) continue;
        double* row = Jt + (size_t)r * ncol;
        if (under[r]) {
            for (int c = 0; c < nb; c++) {
                if (!(under[r] >> c & 1)) continue;
                const double* o = dw + (size_t)c * 6 * ncol;
                for (int e = 0; e < ncol; e++) {
                    double s = 0.0;
                    for (int k = 0; k < 6; k++) s += Sj[k] * o[(size_t)k * ncol + e];
                    row[e] -= s;
                }
            }
            // S_j turns with its strict ancestors i: d(S_j . W)/dq_i gains (S_i x S_j) . W
            for (int i = m->link_parent[j]; i >= 0; i = m->link_parent[i]) {
                double SS[6];
                salto_sv_crossm(SS, d->S + 6 * i, Sj);
                row[i] -= salto_sv_dot(SS, W);
            }
        }
        row[nv + j] += m->link_torque_slope[j];
        if (b->er >= 0) nlp_er_chain(nlp, b->er, row, row + nv, row + 2 * nv, nlp->ev.daux + NXAUX * r);
        memcpy(nlp->ev.dq + (size_t)r * nv, row, (size_t)nv * sizeof(double));
        memcpy(nlp->ev.dqd + (size_t)r * nv, row + nv, (size_t)nv * sizeof(double));
        memcpy(nlp->ev.dqdd + (size_t)r * nv, row + 2 * nv, (size_t)nv * sizeof(double));
    }
}
