// aggregate.c: aggregate momentum and force, and their Jacobians in linear time
//
// Derivation (world coordinates about the world origin; S_j the world motion axis of link j,
// V_j, A_j link velocity and acceleration with the base accelerating at -g, I_i the world
// inertia of link i; sub(j) the links of j's subtree, p the parent of j):
//
//   f0 = sum_i F_i,  F_i = I_i A_i + V_i x* I_i V_i,     p0 = sum_i I_i V_i.
//
// Changing q_j moves every world quantity of sub(j) rigidly with the twist S_j:
// dI_i = S_j x* I_i - I_i S_j x, dS_k = S_j x S_k for i, k in sub(j), nothing else moves.
// With V_i = V_p + U_i this gives dV_i = S_j x U_i and, by the Jacobi identity,
// dA_i = S_j x (A_i - A_p) + W x U_i with W = V_p x S_j. Summing dF_i over sub(j), and using
// V x* I m + I (m x V) = (d/dt I) m, every term collapses onto four subtree sums
// (composite inertia Ic_j, its rate Icd_j = sum d/dt I_i, subtree momentum H_j = sum I_i V_i,
// subtree force F_j = sum F_i, which is RNEA's joint force):
//
//   d f0 / d q_j   = S_j x* F_j + Ic_j (A_p x S_j + V_p x W) + Icd_j W + W x* H_j
//   d f0 / d qd_j  = 2 Ic_j W + Icd_j S_j + S_j x* H_j
//   d f0 / d qdd_j = Ic_j S_j
//   d p0 / d q_j   = S_j x* H_j + Ic_j W,      d p0 / d qd_j = Ic_j S_j
//
// The sums accumulate leaf to base in one pass, so the whole 6 x 3D Jacobian costs O(D).
// These are the world-frame counterparts of Fang & Pollard's Appendix B (whose printed
// equations carry typos); the tests check every column against finite differences.
#include "salto/aggregate.h"

#include <string.h>

#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"

int salto_jac_method_parse(const char* name) {
    for (int k = 0; k < SALTO_JAC_COUNT; k++) {
        if (name && strcmp(name, salto_jac_method_name((salto_jac_method)k)) == 0) return k;
    }
    return -1;
}


const char* salto_jac_method_name(salto_jac_method method) {
    switch (method) {
    case SALTO_JAC_LINEAR: return "linear";
    case SALTO_JAC_DIRECT: return "direct";
    case SALTO_JAC_FD_FORWARD: return "fd-forward";
    case SALTO_JAC_FD_CENTRAL: return "fd-central";
    case SALTO_JAC_RICHARDSON: return "richardson";
    default: return "?";
    }
}


// ---- the rewritten recursion (Fang & Pollard eqs. 13-18, world form) ----
//
// For the subtree of j with j's parent held still, let w_j = S_j qd_j,
//   P*_j = sum_c P*_c + Ic_j w_j                                  (momentum, eq. 14)
//   D_j  = sum_c Dc_c,  Dc_j = D_j + (w_j x* Ic_j - Ic_j w_j x)   (rate of Ic_j, eq. 39)
//   F*_j = sum_c F*_c + w_j x* P*_j + Ic_j S_j qdd_j + D_j w_j    (force, eq. 18)
// and at the world, f0 = sum_roots F*_r + Ic_r A_0 (A_0 = -g), p0 = sum_roots P*_r.
// Each quantity depends only on its own subtree: the recursion runs leaf to base only.
void salto_aggregate(const salto_model* m, salto_data* d) {
    const int nv = m->nv;
    const double A0[6] = {0, 0, 0, -m->gravity[0], -m->gravity[1], -m->gravity[2]};
    salto_fk(m, d, SALTO_FK_POS);
    salto_link_inertias(m, d);

    double* Ic = d->Ic;
    double* Dc = d->Icd;          // rate of Ic_j with j's parent held still
    double* P = d->work;          // P*_j              (nv x 6)
    double* Fs = d->work + 6 * nv; // F*_j             (nv x 6)
    double* Dacc = d->work + 12 * nv; // sum_c Dc_c    (nv x 10)
    memcpy(Ic, d->I, 10 * (size_t)nv * sizeof(double));
    memset(P, 0, 22 * (size_t)nv * sizeof(double));
    memset(d->f0, 0, sizeof d->f0);
    memset(d->p0, 0, sizeof d->p0);

    for (int j = nv - 1; j >= 0; j--) {
        const double* S = d->S + 6 * j;
        double* Icj = Ic + 10 * j;
        double* Pj = P + 6 * j;
        double* Fj = Fs + 6 * j;
        const double* Dj = Dacc + 10 * j;
        double w[6], t[6];
        for (int k = 0; k < 6; k++) w[k] = S[k] * d->qd[j];

        salto_si_mul_add(Pj, Icj, w);
        salto_sv_crossf_add(Fj, w, Pj);
        salto_si_mul(t, Icj, S);
        salto_sv_axpy(Fj, d->qdd[j], t);
        salto_si_mul_add(Fj, Dj, w);

        double* Dcj = Dc + 10 * j;
        memcpy(Dcj, Dj, 10 * sizeof(double));
        salto_si_rate_add(Dcj, Icj, w);

        const int par = m->link_parent[j];
        if (par >= 0) {
            salto_si_add_to(Ic + 10 * par, Icj);
            salto_sv_add_to(P + 6 * par, Pj);
            salto_sv_add_to(Fs + 6 * par, Fj);
            salto_si_add_to(Dacc + 10 * par, Dcj);
        } else {
            salto_sv_add_to(d->p0, Pj);
            salto_sv_add_to(d->f0, Fj);
            salto_si_mul_add(d->f0, Icj, A0);
        }
    }
}


// ---- the linear-time Jacobian ----

// One leaf-to-base pass: kinematics, inertias and the subtree sums Ic, Icd, H, F.
static void subtree_sums(const salto_model* m, salto_data* d) {
    const int nv = m->nv;
    salto_fk(m, d, SALTO_FK_ACC);
    salto_link_inertias(m, d);
    for (int i = nv - 1; i >= 0; i--) {
        double* Ic = d->Ic + 10 * i;
        double* Icd = d->Icd + 10 * i;
        double* H = d->H + 6 * i;
        double* F = d->F + 6 * i;
        if (m->link_massive[i]) {
            // own body: F = I A + V x* I V, H = I V, Icd = V x* I - I V x
            const double* I = d->I + 10 * i;
            const double* V = d->V + 6 * i;
            double h[6], f[6];
            salto_si_mul(h, I, V);
            salto_si_mul(f, I, d->A + 6 * i);
            salto_sv_crossf_add(f, V, h);
            double r[10];
            salto_si_rate(r, I, V);
            for (int k = 0; k < 10; k++) Ic[k] += I[k], Icd[k] += r[k];
            for (int k = 0; k < 6; k++) H[k] += h[k], F[k] += f[k];
        }
        const int par = m->link_parent[i];
        if (par >= 0) {
            salto_si_add_to(d->Ic + 10 * par, Ic);
            salto_si_add_to(d->Icd + 10 * par, Icd);
            salto_sv_add_to(d->H + 6 * par, H);
            salto_sv_add_to(d->F + 6 * par, F);
        } else {
            salto_sv_add_to(d->f0, F);
            salto_sv_add_to(d->p0, H);
        }
    }
}


static void clear_sums(const salto_model* m, salto_data* d) {
    const size_t nv = (size_t)m->nv;
    memset(d->Ic, 0, 10 * nv * sizeof(double));
    memset(d->Icd, 0, 10 * nv * sizeof(double));
    memset(d->H, 0, 6 * nv * sizeof(double));
    memset(d->F, 0, 6 * nv * sizeof(double));
    memset(d->f0, 0, sizeof d->f0);
    memset(d->p0, 0, sizeof d->p0);
}


// I [x; y] = [B x + h × y; m y + x × h] for an inertia (m, h, B) (salto_si_mul), on 3-vectors
static inline void inertia_apply(double* restrict rn, double* restrict rf, const double* I,
                                 const double* x, const double* y) {
    salto_sym3_mul_v3(rn, I + 4, x);
    salto_v3_cross_add(rn, I + 1, y);
    salto_v3_cross(rf, x, I + 1);
    rf[0] += I[0] * y[0], rf[1] += I[0] * y[1], rf[2] += I[0] * y[2];
}


// The three columns of link j (see the file comment), evaluated from the subtree sums of a
// subtree that contains sub(j) or, for a joint-torque row of an ancestor link, the sums of
// the link's own subtree (Ic, Icd, H, F; only S_j, V_p, A_p come from j).
//
// The rate and momentum terms always come together as G x = Icd x + x ×* H, so they are
// applied as one operator: with Icd = (0, hd, Bd) and H = [Hn; Hf],
//   G [x; y] = [Bd x + x × Hn + (hd - Hf) × y;  x × (hd + Hf)].
static void columns(const salto_model* m, const salto_data* d, int j, const double* Ic,
                    const double* Icd, const double* H, const double* F, int with_F,
                    double cq[6], double cqd[6], double cqdd[6]) {
    const int par = m->link_parent[j];
    const double* Vp = d->V + 6 * par; // the world's slot when par is -1
    const double* Ap = d->A + 6 * par;
    const double* S = d->S + 6 * j;
    const double* hd = Icd + 1;
    const double* Bd = Icd + 4;
    const double hdm[3] = {hd[0] - H[3], hd[1] - H[4], hd[2] - H[5]};
    const double hdp[3] = {hd[0] + H[3], hd[1] + H[4], hd[2] + H[5]};

    // W = V_p × S = [w × s; w × t + v × s]
    double Wn[3], Wf[3];
    salto_v3_cross(Wn, Vp, S);
    salto_v3_cross(Wf, Vp, S + 3);
    salto_v3_cross_add(Wf, Vp + 3, S);

    // qdd: Ic S
    inertia_apply(cqdd, cqdd + 3, Ic, S, S + 3);

    // qd: 2 Ic W + G S
    double gn[3], gf[3];
    inertia_apply(cqd, cqd + 3, Ic, Wn, Wf);
    salto_sym3_mul_v3(gn, Bd, S);
    salto_v3_cross_add(gn, S, H);
    salto_v3_cross_add(gn, hdm, S + 3);
    salto_v3_cross(gf, S, hdp);
    for (int k = 0; k < 3; k++) {
        cqd[k] = 2.0 * cqd[k] + gn[k];
        cqd[3 + k] = 2.0 * cqd[3 + k] + gf[k];
    }

    // q: Ic a + G W (+ S ×* F), with a = A_p × S + V_p × W
    double an[3], af[3];
    salto_v3_cross(an, Ap, S);
    salto_v3_cross_add(an, Vp, Wn);
    salto_v3_cross(af, Ap, S + 3);
    salto_v3_cross_add(af, Ap + 3, S);
    salto_v3_cross_add(af, Vp, Wf);
    salto_v3_cross_add(af, Vp + 3, Wn);
    inertia_apply(cq, cq + 3, Ic, an, af);
    salto_sym3_mul_v3(gn, Bd, Wn);
    salto_v3_cross_add(gn, Wn, H);
    salto_v3_cross_add(gn, hdm, Wf);
    salto_v3_cross(gf, Wn, hdp);
    for (int k = 0; k < 3; k++) cq[k] += gn[k], cq[3 + k] += gf[k];
    if (with_F) salto_sv_crossf_add(cq, S, F);
}


static void f0_jac_linear(const salto_model* m, salto_data* d, double* J, double* Jp) {
    const int nv = m->nv;
    const int ncol = 3 * nv;
    clear_sums(m, d);
    subtree_sums(m, d);
    for (int j = 0; j < nv; j++) {
        double cq[6], cqd[6], cqdd[6];
        columns(m, d, j, d->Ic + 10 * j, d->Icd + 10 * j, d->H + 6 * j, d->F + 6 * j, 1, cq,
                cqd, cqdd);
        for (int r = 0; r < 6; r++) {
            double* row = J + (size_t)r * ncol;
            row[j] = cq[r];
            row[nv + j] = cqd[r];
            row[2 * nv + j] = cqdd[r];
        }
        if (Jp) {
            // p0: q column S x* H + Ic W; qd column Ic S (= the f0 qdd column)
            double W[6], pq[6];
            salto_sv_crossm(W, d->V + 6 * m->link_parent[j], d->S + 6 * j);
            salto_si_mul(pq, d->Ic + 10 * j, W);
            salto_sv_crossf_add(pq, d->S + 6 * j, d->H + 6 * j);
            for (int r = 0; r < 6; r++) {
                Jp[(size_t)r * 2 * nv + j] = pq[r];
                Jp[(size_t)r * 2 * nv + nv + j] = cqdd[r];
            }
        }
    }
}


// defined in aggregate_baseline.c
void salto_f0_jac_direct(const salto_model* m, salto_data* d, double* J);
void salto_f0_jac_fd(const salto_model* m, salto_data* d, salto_jac_method method, double* J);


void salto_f0_jac(const salto_model* m, salto_data* d, salto_jac_method method, double* f0,
                  double* J, double* Jp) {
    switch (method) {
    case SALTO_JAC_LINEAR: f0_jac_linear(m, d, J, Jp); break;
    case SALTO_JAC_DIRECT: salto_f0_jac_direct(m, d, J); break;
    default: salto_f0_jac_fd(m, d, method, J); break;
    }
    if (f0) memcpy(f0, d->f0, sizeof d->f0);
}


// Torque at link j is tau_j = S_j . F_j. For k in sub(j) the sums over sub(k) are those of
// f0's columns; for k a strict ancestor of j, all of sub(j) (S_j included) moves with S_k, the
// S_k x* F_j term cancels against dS_j, and the columns use j's own subtree sums.
void salto_joint_torques_jac(const salto_model* m, salto_data* d, int K, const int* links,
                             double* tau, double* J) {
    const int nv = m->nv;
    const int ncol = 3 * nv;
    clear_sums(m, d);
    subtree_sums(m, d);
    for (int r = 0; r < K; r++) {
        const int j = links[r];
        const double* Sj = d->S + 6 * j;
        if (tau) tau[r] = salto_sv_dot(Sj, d->F + 6 * j);
        if (!J) continue;
        double* row = J + (size_t)r * ncol;
        memset(row, 0, (size_t)ncol * sizeof(double));
        double cq[6], cqd[6], cqdd[6];
        for (int k = j; k < m->link_subtree_end[j]; k++) {
            columns(m, d, k, d->Ic + 10 * k, d->Icd + 10 * k, d->H + 6 * k, d->F + 6 * k, 1,
                    cq, cqd, cqdd);
            row[k] = salto_sv_dot(Sj, cq);
            row[nv + k] = salto_sv_dot(Sj, cqd);
            row[2 * nv + k] = salto_sv_dot(Sj, cqdd);
        }
        for (int k = m->link_parent[j]; k >= 0; k = m->link_parent[k]) {
            columns(m, d, k, d->Ic + 10 * j, d->Icd + 10 * j, d->H + 6 * j, d->F + 6 * j, 0,
                    cq, cqd, cqdd);
            row[k] = salto_sv_dot(Sj, cq);
            row[nv + k] = salto_sv_dot(Sj, cqd);
            row[2 * nv + k] = salto_sv_dot(Sj, cqdd);
        }
    }
}


void salto_wrench_at(double out[6], const double f0[6], const double x[3]) {
    // n_x = n - x × f
    double xf[3];
    salto_v3_cross(xf, x, f0 + 3);
    const double f[3] = {f0[3], f0[4], f0[5]};
    out[0] = f0[0] - xf[0], out[1] = f0[1] - xf[1], out[2] = f0[2] - xf[2];
    out[3] = f[0], out[4] = f[1], out[5] = f[2];
}


void salto_wrench_jac_at(double* J, int ncol, const double x[3]) {
    for (int c = 0; c < ncol; c++) {
        const double df[3] = {J[3 * ncol + c], J[4 * ncol + c], J[5 * ncol + c]};
        double xf[3];
        salto_v3_cross(xf, x, df);
        J[c] -= xf[0];
        J[ncol + c] -= xf[1];
        J[2 * ncol + c] -= xf[2];
    }
}


void salto_wrench_jac_at_site(const salto_model* m, const salto_data* d, int site,
                              double f[6], double* J) {
    const int nv = m->nv;
    double x[3];
    salto_site_pos(m, d, site, x);
    const double force[3] = {f[3], f[4], f[5]};
    salto_wrench_jac_at(J, 3 * nv, x);
    // the point itself moves: d n_x / d q_j -= (d x / d q_j) × f
    for (int j = m->site_link[site]; j >= 0; j = m->link_parent[j]) {
        const double* S = d->S + 6 * j;
        double dx[3], t[3];
        salto_v3_cross(dx, S, x);
        dx[0] += S[3], dx[1] += S[4], dx[2] += S[5];
        salto_v3_cross(t, dx, force);
        J[j] -= t[0];
        J[3 * nv + j] -= t[1];
        J[6 * nv + j] -= t[2];
    }
    salto_wrench_at(f, f, x);
}


void salto_f0_rnea(const salto_model* m, salto_data* d, double f0[6]) {
    salto_rnea(m, d, NULL);
    memcpy(f0, d->f0, 6 * sizeof(double));
}
