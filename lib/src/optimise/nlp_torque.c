// nlp_torque.c: the joint torque rows of the character's torque_limits, at every physics slice
//
// Row r of a torque block is tau_j + slope_j qd_j for limited DOF j = b->tdof[r], bounded
// by [lo_j, hi_j] (the character's torque_limits), or tau_j for a torque objective's DOF. The torque is the validator's (salto_contact_torques): inverse dynamics
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
#include "salto/validate.h"

#include "linalg.h"

enum { max_links = 8 };
static const double contact_length2 = SALTO_CONTACT_LENGTH * SALTO_CONTACT_LENGTH;


// The contact links' sites' centroids pc (nb) at the kinematics in nlp->ev.d, and unless Jp is
// NULL their Jacobians (3 x nv each)
static void contact_centroids(salto_nlp* nlp, int ph, int nb, const int* link, const int* count,
                              double pc[][3], double* Jp) {
    const salto_model* m = nlp->m;
    const salto_data* d = nlp->ev.d;
    const salto_contact_desc* ct = &nlp->p->phases[ph].contact;
    const int nv = nlp->nv;
    memset(pc, 0, (size_t)nb * sizeof pc[0]);
    if (Jp) memset(Jp, 0, (size_t)nb * 3 * nv * sizeof(double));
    for (int s = 0; s < ct->nsite; s++) {
        const int l = m->site_link[ct->site[s]];
        int b = 0;
        while (b < nb && link[b] != l) b++;
        if (b == nb) continue;
        double x[3];
        salto_site_pos(m, d, ct->site[s], x);
        for (int k = 0; k < 3; k++) pc[b][k] += x[k] / count[b];
        if (!Jp) continue;
        salto_site_jac(m, d, ct->site[s], nlp->ev.J3);
        for (int e = 0; e < 3 * nv; e++) Jp[(size_t)b * 3 * nv + e] += nlp->ev.J3[e] / count[b];
    }
}


// The minimum-norm share w (nb x 6) of f0 among the contact links with centroids pc, and unless
// dw is NULL its derivatives dw (nb x 6 x 3 nv, row stride 3 nv) in the first ncols state
// components, with Jp the centroids' Jacobians (3 x nv each, contact_centroids) and Jf
// (6 x 3 nv) f0's (NULL: f0 held fixed, only the centroids move)
static void contact_shares(const salto_nlp* nlp, int nb, const double (*pc)[3], const double* Jp,
                           const double* f0, const double* Jf, int ncols, double* w, double* dw) {
    const int nv = nlp->nv, ncol = 3 * nv;
    if (nb == 1) {
        memcpy(w, f0, 6 * sizeof(double));
        for (int k = 0; dw && k < 6; k++) {
            for (int c = 0; c < ncols; c++) dw[(size_t)k * ncol + c] = Jf ? Jf[(size_t)k * ncol + c] : 0.0;
        }
        return;
    }
    double A[36], ab[6];
    if (!salto_contact_shares(nb, pc, f0, w, A, ab)) {
        // not for finite input: resim.c's fallback, f0 / nb each
        for (int bb = 0; dw && bb < nb; bb++) {
            for (int k = 0; k < 6; k++) {
                for (int c = 0; c < ncols; c++) {
                    dw[(size_t)bb * 6 * ncol + (size_t)k * ncol + c] = Jf ? Jf[(size_t)k * ncol + c] / nb : 0.0;
                }
            }
        }
        return;
    }
    const double* alpha = ab;
    const double* beta = ab + 3;
    double fb[max_links][3];
    for (int bb = 0; bb < nb; bb++) memcpy(fb[bb], w + 6 * bb + 3, sizeof fb[bb]);
    if (!dw) return;
    // column by column: d[alpha; beta] = A^-1 ([dF; dN] - dA [alpha; beta]), with
    // dA [alpha; beta] = [-dP x beta; dP x alpha + dQ beta] and dQ beta = sum 2 (p . dp) beta -
    // dp (p . beta) - p (dp . beta); then df_b = da + db x p_b + beta x dp_b and
    // dn_b = l^2 db + dp_b x f_b + p_b x df_b
    for (int c = 0; c < ncols; c++) {
        double rhs[6] = {0, 0, 0, 0, 0, 0};
        if (Jf) {
            for (int k = 0; k < 3; k++) rhs[k] = Jf[(3 + k) * ncol + c], rhs[3 + k] = Jf[k * ncol + c];
        }
        double dp[max_links][3] = {{0}};
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


// the contact links of block b's phase under each limited DOF (bit masks into under, K); their
// number into nb, link and count; whether any row has one
static int torque_under(salto_nlp* nlp, const block* b, int* nb, int* link, int* count, int* under) {
    const salto_model* m = nlp->m;
    const int* dof = b->tdof;
    *nb = nlp->bal[b->phase] >= 0 ? 0 : salto_contact_links(nlp->m, &nlp->p->phases[b->phase].contact, link, count);
    int any = 0;
    for (int r = 0; r < b->nrows; r++) {
        under[r] = 0;
        for (int c = 0; c < *nb; c++) {
            if (link[c] >= dof[r] && link[c] < m->link_subtree_end[dof[r]]) under[r] |= 1 << c;
        }
        any |= under[r];
    }
    return any;
}


// the sum W of the shares w (nb x 6) of the contact links in mask (bit c: link c)
static void under_wrench(const double* w, int nb, int mask, double W[6]) {
    for (int k = 0; k < 6; k++) W[k] = 0.0;
    for (int c = 0; c < nb; c++) {
        if (!(mask >> c & 1)) continue;
        for (int k = 0; k < 6; k++) W[k] += w[6 * c + k];
    }
}


// f0 at the state in nlp->ev.d, and unless Jf is NULL its Jacobian (the linear-time method);
// the kinematics are left at the state
static void state_force(salto_nlp* nlp, double f0[6], double* Jf) {
    if (Jf) {
        salto_f0_jac(nlp->m, nlp->ev.d, SALTO_JAC_LINEAR, f0, Jf, NULL);
    } else {
        salto_f0_rnea(nlp->m, nlp->ev.d, f0);
    }
}


// Block b's rows g at the full state in nlp->ev.d (the splines', or through the effective root:
// the caller's), and unless J is NULL their full-state Jacobian J (K x 3 nv). A ballistic
// flight's translation acceleration is corrected in d.
static void torque_core(salto_nlp* nlp, const block* b, double* g, double* J) {
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    const int nv = nlp->nv, ncol = 3 * nv, K = b->nrows;
    const int* dof = b->tdof;
    const int want_jac = J != NULL;
    double* Jt = J;
    double* Jf = nlp->ev.Jf;
    // a ballistic flight: the translation's acceleration that zeroes the force, qdd_T += delta,
    // delta_t = -a_t . f / M at the splines' state (f0 is linear in qdd; the axes orthonormal)
    const int bal = nlp->bal[b->phase] >= 0;
    const int nt = nlp->root.bal_nt;
    if (bal) {
        double f0[6];
        state_force(nlp, f0, want_jac ? Jf : NULL);
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
    int link[max_links], count[max_links], nb = 0;
    int* under = nlp->ev.tq_under; // bit masks of the contact links in sub(j)
    const int any = torque_under(nlp, b, &nb, link, count, under);
    double w[6 * max_links];
    double* dw = nlp->ev.wjac;
    if (any) {
        double f0[6];
        state_force(nlp, f0, want_jac ? Jf : NULL);
        double pc[max_links][3];
        double* Jp = want_jac ? nlp->ev.wjac + (size_t)max_links * 6 * ncol : NULL;
        if (nb > 1) contact_centroids(nlp, b->phase, nb, link, count, pc, Jp); // one link: f0
        contact_shares(nlp, nb, (const double(*)[3])pc, Jp, f0, want_jac ? Jf : NULL, ncol, w,
                       want_jac ? dw : NULL);
    }
    for (int r = 0; r < K; r++) {
        const int j = dof[r];
        const double* Sj = d->S + 6 * j;
        double W[6];
        under_wrench(w, nb, under[r], W);
        g[r] = tau[r] - salto_sv_dot(Sj, W) + (b->slope ? m->link_torque_slope[j] * d->qd[j] : 0.0);
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
        if (b->slope) row[nv + j] += m->link_torque_slope[j];
    }
}


void nlp_eval_torque(salto_nlp* nlp, const double* x, const block* b, double* g, int want_jac) {
    const int nv = nlp->nv, ncol = 3 * nv;
    nlp_block_state(nlp, x, b, 1);
    if (b->er >= 0) nlp_er_state(nlp, x, b->er, SALTO_FK_ACC, want_jac);
    nlp->ev.have_state = 0; // d now holds this slice's accelerations
    double* Jt = nlp->ev.Jt;
    torque_core(nlp, b, g, want_jac ? Jt : NULL);
    for (int r = 0; want_jac && r < b->nrows; r++) {
        double* row = Jt + (size_t)r * ncol;
        if (b->er >= 0) nlp_er_chain(nlp, b->er, row, row + nv, row + 2 * nv, nlp->ev.daux + NXAUX * r);
        memcpy(nlp->ev.dq + (size_t)r * nv, row, (size_t)nv * sizeof(double));
        memcpy(nlp->ev.dqd + (size_t)r * nv, row + nv, (size_t)nv * sizeof(double));
        memcpy(nlp->ev.dqdd + (size_t)r * nv, row + 2 * nv, (size_t)nv * sizeof(double));
    }
}


// ---- the exact Hessian ----
//
// Of Phi = sum_r lambda_r row_r in the full state, three parts (docs/aggregate-jacobian.md,
// "The torque rows' Hessian"): the torques' own, salto_torques_hess; a contact's shares, Psi =
// -sum_r lambda_r S_j . W_r = -m(q) . f0(y), m(q) = sum_b D_b(p(q))' nu_b(q) (the shares are
// linear in f0): -(f0_hess(m) + dm' J + J' dm + d2_q (m . f0) with f0 held), the last by central
// differences of its exact q-gradient (positions only: the held shares' kinematics); a
// ballistic flight's correction, lambda . tau(y) + sum_t gamma_t(q) delta_t(y) with gamma_t =
// d(lambda . tau)/dqdd_T and delta_t = -a_t . f / M: gamma f0_hess-term, the cross terms
// (gamma's gradient is the torques' Hessian's qdd_T row) and delta d2 gamma, the q-q block of
// two more torque Hessians (at qd = 0 and qdd = delta along the translation, less qdd = 0).

// The q-gradient (nv, into out) of phi(q) = sum_r lambda_r S_j . W_r(fbar, p(q)) with f0 held at
// fbar, at the positions in nlp->ev.d; returns phi
static double share_qgrad(salto_nlp* nlp, const block* b, const double* lam, int nb,
                          const double (*pc)[3], const double* Jp, const int* under,
                          const double* fbar, double* out) {
    const salto_model* m = nlp->m;
    const salto_data* d = nlp->ev.d;
    const int nv = nlp->nv, ncol = 3 * nv;
    const int* dof = b->tdof;
    double w[6 * max_links];
    double* dw = nlp->ev.wjac;
    contact_shares(nlp, nb, pc, Jp, fbar, NULL, nv, w, dw);
    double phi = 0.0;
    memset(out, 0, (size_t)nv * sizeof(double));
    for (int r = 0; r < b->nrows; r++) {
        if (!under[r] || lam[r] == 0.0) continue;
        const int j = dof[r];
        const double* Sj = d->S + 6 * j;
        double W[6];
        under_wrench(w, nb, under[r], W);
        for (int c = 0; c < nb; c++) {
            if (!(under[r] >> c & 1)) continue;
            const double* o = dw + (size_t)c * 6 * ncol;
            for (int e = 0; e < nv; e++) {
                double s = 0.0;
                for (int k = 0; k < 6; k++) s += Sj[k] * o[(size_t)k * ncol + e];
                out[e] += lam[r] * s;
            }
        }
        phi += lam[r] * salto_sv_dot(Sj, W);
        for (int i = m->link_parent[j]; i >= 0; i = m->link_parent[i]) {
            double SS[6];
            salto_sv_crossm(SS, d->S + 6 * i, Sj);
            out[i] += lam[r] * salto_sv_dot(SS, W);
        }
    }
    return phi;
}


// G (3 nb): the gradient in the centroids pc of sum_b nu_b . w_b (nu: nb x 6, held; w the
// shares of fbar), by the 6 x 6 system differentiated along each coordinate (contact_shares'
// column rule with f held and one centroid moving); zero for one link
static void shares_pgrad(int nb, const double (*pc)[3], const double* fbar, const double* nu,
                         double* G) {
    double w[6 * max_links], A[36], ab[6];
    for (int k = 0; k < 3 * nb; k++) G[k] = 0.0;
    if (nb < 2 || !salto_contact_shares(nb, pc, fbar, w, A, ab)) return;
    const double* alpha = ab;
    const double* beta = ab + 3;
    for (int b0 = 0; b0 < nb; b0++) {
        const double pb = salto_v3_dot(pc[b0], beta);
        for (int k0 = 0; k0 < 3; k0++) {
            double e[3] = {0, 0, 0};
            e[k0] = 1.0;
            double rhs[6], t1[3], t2[3];
            salto_v3_cross(t1, e, beta);
            salto_v3_cross(t2, e, alpha);
            for (int k = 0; k < 3; k++) {
                const double dQb = 2.0 * pc[b0][k0] * beta[k] - e[k] * pb - pc[b0][k] * beta[k0];
                rhs[k] = t1[k], rhs[3 + k] = -(t2[k] + dQb);
            }
            salto_chol_solve(A, 6, rhs);
            const double* da = rhs;
            const double* db = rhs + 3;
            double g = 0.0;
            for (int bb = 0; bb < nb; bb++) {
                double df[3], dn[3], t[3];
                salto_v3_cross(df, db, pc[bb]);
                for (int k = 0; k < 3; k++) df[k] += da[k];
                if (bb == b0) {
                    salto_v3_cross(t, beta, e);
                    for (int k = 0; k < 3; k++) df[k] += t[k];
                }
                for (int k = 0; k < 3; k++) dn[k] = contact_length2 * db[k];
                salto_v3_cross_add(dn, pc[bb], df);
                if (bb == b0) salto_v3_cross_add(dn, e, w + 6 * bb + 3);
                g += salto_v3_dot(nu + 6 * bb, dn) + salto_v3_dot(nu + 6 * bb + 3, df);
            }
            G[3 * b0 + k0] = g;
        }
    }
}


void nlp_torque_hess(salto_nlp* nlp, const block* b, const double* lam, const double* J, double* H,
                     double wq[3], double wv[3], double wa[3]) {
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    const int nv = nlp->nv, n3 = 3 * nv, K = b->nrows;
    const int* dof = b->tdof;
    const double* xs = nlp->hess.xs;
    nlp_block_state(nlp, xs, b, 1);
    if (b->er >= 0) nlp_er_state(nlp, xs, b->er, SALTO_FK_ACC, 1);
    nlp->ev.have_state = 0;
    double* tw = nlp->hess.tw;   // 72 nv + nv^2
    double* H2 = nlp->hess.H2;   // 9 nv^2
    double* gp = nlp->hess.tg;   // 3 nv
    double* gm = gp + 3 * nv;    // 3 nv
    double* Dm = gm + 3 * nv;    // 6 nv
    double* gg = Dm + 6 * nv;    // 3 nv: gamma_t's q-gradients
    double* dd = gg + 3 * nv;    // 3 x 3 nv: delta_t's gradients
    double* Jf = nlp->hess.Jb;   // 6 x 3 nv
    // (A) the torques' own, at the splines' state (a ballistic flight's uncorrected)
    salto_torques_hess(m, d, K, dof, lam, H, tw);
    int link[max_links], count[max_links], nb = 0;
    int* under = nlp->ev.tq_under;
    const int any = torque_under(nlp, b, &nb, link, count, under);
    const int bal = nlp->bal[b->phase] >= 0;
    if (any || bal) {
        double f0[6];
        salto_f0_jac(m, d, SALTO_JAC_LINEAR, f0, Jf, NULL);
        if (any) {
            // (B) the shares: the centroids and their Jacobians once, m and dm (6 x nv) by
            // phi(q; e_k)
            double pc[max_links][3];
            double* Jp = nlp->ev.wjac + (size_t)max_links * 6 * n3; // 3 x nv per link
            if (nb > 1) contact_centroids(nlp, b->phase, nb, link, count, pc, Jp); // one link: f0
            const double(*pcc)[3] = (const double(*)[3])pc;
            double mk[6];
            for (int k = 0; k < 6; k++) {
                double e[6] = {0, 0, 0, 0, 0, 0};
                e[k] = 1.0;
                mk[k] = share_qgrad(nlp, b, lam, nb, pcc, Jp, under, e, Dm + k * nv);
            }
            salto_f0_hess(m, d, mk, H2, tw);
            for (size_t e = 0; e < (size_t)n3 * (size_t)n3; e++) H[e] -= H2[e];
            for (int a = 0; a < nv; a++) {
                for (int c = 0; c < n3; c++) {
                    double X = 0.0;
                    for (int k = 0; k < 6; k++) X += Dm[k * nv + a] * Jf[k * n3 + c];
                    H[(size_t)a * n3 + c] -= X;
                    H[(size_t)c * n3 + a] -= X;
                }
            }
            // d2_q phi(q; f0) with f0 held, phi = sum_b nu_b(q) . w_b(p(q)): the shares' own
            // curvature (in the centroids: Jp' Mpp Jp, Mpp by central differences of the exact
            // gradient shares_pgrad, plus the centroids' point Hessians weighted by it), the
            // cross terms dnu' dw + dw' dnu, and w . d2 nu (the axes' second derivatives)
            const int np = 3 * nb;
            double G[3 * max_links], Gp[3 * max_links], Gm[3 * max_links];
            double Mpp[9 * max_links * max_links], nu[6 * max_links] = {0}, w[6 * max_links];
            double* dw = nlp->ev.wjac; // nb x 6 x 3 nv
            for (int r = 0; r < K; r++) {
                for (int c = 0; c < nb; c++) {
                    if (under[r] >> c & 1) salto_sv_axpy(nu + 6 * c, lam[r], d->S + 6 * dof[r]);
                }
            }
            // (one link takes the whole of f0: no curvature through the centroids)
            if (nb > 1) {
                shares_pgrad(nb, pcc, f0, nu, G);
                for (int i = 0; i < np; i++) {
                    double* pi = &pc[i / 3][i % 3];
                    const double p0 = *pi, h = 1e-6 * fmax(1.0, fabs(p0));
                    *pi = p0 + h;
                    shares_pgrad(nb, pcc, f0, nu, Gp);
                    *pi = p0 - h;
                    shares_pgrad(nb, pcc, f0, nu, Gm);
                    *pi = p0;
                    for (int k = 0; k < np; k++) Mpp[k * np + i] = (Gp[k] - Gm[k]) / (2.0 * h);
                }
                // -Jp' Mpp Jp (symmetrised) into the q-q block
                double* MJ = nlp->hess.tw; // np x nv
                for (int k = 0; k < np; k++) {
                    for (int c = 0; c < nv; c++) {
                        double v = 0.0;
                        for (int i = 0; i < np; i++) {
                            v += 0.5 * (Mpp[k * np + i] + Mpp[i * np + k]) * Jp[(size_t)(i / 3) * 3 * nv + (size_t)(i % 3) * nv + c];
                        }
                        MJ[(size_t)k * nv + c] = v;
                    }
                }
                for (int a = 0; a < nv; a++) {
                    for (int c = 0; c < nv; c++) {
                        double v = 0.0;
                        for (int k = 0; k < np; k++) v += Jp[(size_t)(k / 3) * 3 * nv + (size_t)(k % 3) * nv + a] * MJ[(size_t)k * nv + c];
                        H[(size_t)a * n3 + c] -= v;
                    }
                }
                // the centroids' curvature: each site's point Hessian, weighted by G / count
                {
                    int* id = nlp->hess.map2;
                    for (int j = 0; j < nv; j++) id[j] = j;
                    const salto_contact_desc* ct = &nlp->p->phases[b->phase].contact;
                    for (int sidx = 0; sidx < ct->nsite; sidx++) {
                        const int l = m->site_link[ct->site[sidx]];
                        int c = 0;
                        while (c < nb && link[c] != l) c++;
                        if (c == nb) continue;
                        double x[3], wv3[3];
                        salto_site_pos(m, d, ct->site[sidx], x);
                        for (int k = 0; k < 3; k++) wv3[k] = G[3 * c + k] / count[c];
                        nlp_point_hess_add(nlp, H, n3, id, l, x, wv3, -1.0);
                    }
                }
            }
            // the shares' q-derivatives with f0 held, dw (6 x nv each, q columns), and the axes'
            contact_shares(nlp, nb, pcc, Jp, f0, NULL, nv, w, dw);
            for (int r = 0; r < K; r++) {
                if (!under[r] || lam[r] == 0.0) continue;
                const int j = dof[r];
                const double* Sj = d->S + 6 * j;
                double W[6];
                under_wrench(w, nb, under[r], W);
                for (int i = m->link_parent[j]; i >= 0; i = m->link_parent[i]) {
                    // d nu / dq_i = lam S_i x S_j against dw: -(S_i x S_j) . dW/dq_c, both ways
                    double SS[6];
                    salto_sv_crossm(SS, d->S + 6 * i, Sj);
                    for (int c = 0; c < nv; c++) {
                        double dWc[6] = {0, 0, 0, 0, 0, 0};
                        for (int cc = 0; cc < nb; cc++) {
                            if (!(under[r] >> cc & 1)) continue;
                            for (int k = 0; k < 6; k++) dWc[k] += dw[(size_t)cc * 6 * n3 + (size_t)k * n3 + c];
                        }
                        const double v = lam[r] * salto_sv_dot(SS, dWc);
                        H[(size_t)i * n3 + c] -= v;
                        H[(size_t)c * n3 + i] -= v;
                    }
                    // W . d2 S_j / dq_i dq_i2 for i2 on the path from i down to j's parent
                    for (int i2 = i; i2 != j;) {
                        double D2[6], t1[6], t2[6];
                        salto_sv_crossm(D2, d->S + 6 * i2, SS);
                        if (i2 != i) {
                            salto_sv_crossm(t1, d->S + 6 * i, d->S + 6 * i2);
                            salto_sv_crossm(t2, t1, Sj);
                            salto_sv_add_to(D2, t2);
                        }
                        const double v = lam[r] * salto_sv_dot(D2, W);
                        H[(size_t)i * n3 + i2] -= v;
                        if (i2 != i) H[(size_t)i2 * n3 + i] -= v;
                        int nx = j;
                        while (m->link_parent[nx] != i2) nx = m->link_parent[nx];
                        i2 = nx;
                    }
                }
            }
        }
        if (bal) {
            // (C) the flight's correction: gamma_t, its gradient (the qdd_T rows of H), delta_t
            const int nt = nlp->root.bal_nt;
            const double M = m->mass;
            double gam[3], del[3], mu[6] = {0, 0, 0, 0, 0, 0};
            for (int t = 0; t < nt; t++) {
                const double* a = nlp->root.bal_a[t];
                const int T = nlp->root.bal_tdof[t];
                for (int c = 0; c < nv; c++) gg[t * nv + c] = H[(size_t)(2 * nv + T) * n3 + c];
                del[t] = -salto_v3_dot(a, f0 + 3) / M;
                for (int c = 0; c < n3; c++) {
                    dd[t * n3 + c] = -(a[0] * Jf[3 * n3 + c] + a[1] * Jf[4 * n3 + c] + a[2] * Jf[5 * n3 + c]) / M;
                }
            }
            salto_joint_torques_jac(m, d, K, dof, NULL, nlp->ev.Jt);
            for (int t = 0; t < nt; t++) {
                const int T = nlp->root.bal_tdof[t];
                gam[t] = 0.0;
                for (int r = 0; r < K; r++) gam[t] += lam[r] * nlp->ev.Jt[(size_t)r * n3 + 2 * nv + T];
                for (int k = 0; k < 3; k++) mu[3 + k] -= gam[t] * nlp->root.bal_a[t][k] / M;
            }
            salto_f0_hess(m, d, mu, H2, tw);
            for (size_t e = 0; e < (size_t)n3 * (size_t)n3; e++) H[e] += H2[e];
            for (int t = 0; t < nt; t++) {
                for (int a = 0; a < nv; a++) {
                    const double ga = gg[t * nv + a];
                    if (ga == 0.0) continue;
                    for (int c = 0; c < n3; c++) {
                        const double X = ga * dd[t * n3 + c];
                        H[(size_t)a * n3 + c] += X;
                        H[(size_t)c * n3 + a] += X;
                    }
                }
            }
            // sum_t delta_t d2 gamma_t: tau is linear in qdd, so with qd = 0 the torques at
            // qdd = sum_t delta_t e_T less those at qdd = 0 are sum_t delta_t gamma_t(q), gravity
            // cancelling: the q-q blocks of two torque Hessians
            double* qd0 = gp;  // the state's qd and qdd, kept (nv each)
            double* qdd0 = gm;
            memcpy(qd0, d->qd, (size_t)nv * sizeof(double));
            memcpy(qdd0, d->qdd, (size_t)nv * sizeof(double));
            memset(d->qd, 0, (size_t)nv * sizeof(double));
            for (int pass = 0; pass < 2; pass++) {
                memset(d->qdd, 0, (size_t)nv * sizeof(double));
                if (pass == 0) {
                    for (int t = 0; t < nt; t++) d->qdd[nlp->root.bal_tdof[t]] = del[t];
                }
                salto_torques_hess(m, d, K, dof, lam, H2, tw);
                const double sign = pass == 0 ? 1.0 : -1.0;
                for (int a = 0; a < nv; a++) {
                    for (int c = 0; c < nv; c++) H[(size_t)a * n3 + c] += sign * H2[(size_t)a * n3 + c];
                }
            }
            memcpy(d->qd, qd0, (size_t)nv * sizeof(double));
            memcpy(d->qdd, qdd0, (size_t)nv * sizeof(double));
        }
        // the kinematics at the state again
        salto_fk(m, d, SALTO_FK_ACC);
        salto_link_inertias(m, d);
    }
    // the full-state gradient's weights at the effective root's translation (from the rows'
    // Jacobian J when the caller has it)
    if (b->er >= 0) {
        const eroot* e = &nlp->root.er[b->er];
        const double* Jt = J;
        if (!Jt) {
            torque_core(nlp, b, gp, nlp->ev.Jt);
            Jt = nlp->ev.Jt;
        }
        for (int t = 0; t < e->nt; t++) {
            const int T = e->tdof[t];
            wq[t] = wv[t] = wa[t] = 0.0;
            for (int r = 0; r < K; r++) {
                wq[t] += lam[r] * Jt[(size_t)r * n3 + T];
                wv[t] += lam[r] * Jt[(size_t)r * n3 + nv + T];
                wa[t] += lam[r] * Jt[(size_t)r * n3 + 2 * nv + T];
            }
        }
    }
}


// A torque objective's block: Phi = obj_factor ow sum_r rw_r row_r^2. Its full-state Hessian
// (3 nv x 3 nv) is the Gauss-Newton part 2 obj_factor ow sum_r rw_r J_r' J_r and the rows' own
// curvature at multipliers 2 obj_factor ow rw_r row_r (nlp_torque_hess), with its translation
// weights for an effective root
void nlp_torque_obj_hess(salto_nlp* nlp, const block* b, double obj_factor, double* H, double wq[3],
                         double wv[3], double wa[3]) {
    const int nv = nlp->nv, n3 = 3 * nv, K = b->nrows;
    double* g = nlp->ev.og;
    double* lam = g + nv;
    double* GN = nlp->hess.Tl;
    double* J = nlp->ev.Jt;
    nlp_block_state(nlp, nlp->hess.xs, b, 1);
    if (b->er >= 0) nlp_er_state(nlp, nlp->hess.xs, b->er, SALTO_FK_ACC, 1);
    torque_core(nlp, b, g, J);
    memset(GN, 0, (size_t)n3 * (size_t)n3 * sizeof(double));
    for (int r = 0; r < K; r++) {
        const double c = 2.0 * obj_factor * b->ow * b->rw[r];
        lam[r] = c * g[r];
        const double* Jr = J + (size_t)r * n3;
        for (int a = 0; a < n3; a++) {
            const double ca = c * Jr[a];
            if (ca == 0.0) continue;
            double* Ga = GN + (size_t)a * n3;
            for (int e = 0; e < n3; e++) Ga[e] += ca * Jr[e];
        }
    }
    nlp_torque_hess(nlp, b, lam, J, H, wq, wv, wa);
    for (size_t e = 0; e < (size_t)n3 * (size_t)n3; e++) H[e] += GN[e];
}
