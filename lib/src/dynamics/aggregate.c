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

#include "aggregate_priv.h"

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
//
// The per-link inputs of the columns are kept as a structure of arrays in d->work: field f of
// link j at X[f np + j], np = nv rounded up to whole blocks of LANES links (the padding
// repeats the last link). The subtree sums are accumulated there directly; the kinematic
// fields are gathered from the AoS kinematics just before the columns.

enum { LANES = 4 }; // links per block: the compiler maps the lane loop onto vector registers

enum {
    X_S = 0,    // S_j (6)
    X_VP = 6,   // V_p (6)
    X_AP = 12,  // A_p (6)
    X_IC = 18,  // Ic_j (10)
    X_HD = 28,  // Icd_j without its zero mass: hd (3), Bd (6)
    X_H = 37,   // H_j (6)
    X_F = 43,   // F_j (6)
    X_COUNT = 49
};


static size_t padded(int nv) {
    return ((size_t)nv + LANES - 1) / LANES * LANES;
}


// fields f0 .. f1 - 1 of link i's work column added to link par's
static inline void add_fields(double* restrict X, size_t np, int f0, int f1, int i, int par) {
    for (int f = f0; f < f1; f++) X[f * np + par] += X[f * np + i];
}


// One leaf-to-base pass: kinematics, inertias and the subtree sums Ic, Icd, H, F (fields
// X_IC to X_F of the work arrays); also d->f0 and d->p0. Without rates, the velocity level
// only: Ic and H (salto_p0_jac), d->p0, and kinematics to SALTO_FK_VEL.
static void subtree_sums(const salto_model* m, salto_data* d, int rates) {
    const int nv = m->nv;
    const size_t np = padded(nv);
    double* restrict X = d->work;
    salto_fk(m, d, rates ? SALTO_FK_ACC : SALTO_FK_VEL);
    salto_link_inertias(m, d);

    // each link's own body: Ic = I, Icd = V x* I - I V x, H = I V, F = I A + V x* I V
    for (int i = 0; i < nv; i++) {
        double icd[10] = {0}, h[6] = {0}, f[6] = {0};
        const double* I = d->I + 10 * i; // zero for massless links
        if (m->link_massive[i]) {
            const double* V = d->V + 6 * i;
            salto_si_mul(h, I, V);
            if (rates) {
                salto_si_rate(icd, I, V);
                salto_si_mul(f, I, d->A + 6 * i);
                salto_sv_crossf_add(f, V, h);
            }
        }
        for (int k = 0; k < 10; k++) X[(X_IC + k) * np + i] = I[k];
        for (int k = 0; k < 6; k++) X[(X_H + k) * np + i] = h[k];
        if (!rates) continue;
        for (int k = 0; k < 9; k++) X[(X_HD + k) * np + i] = icd[1 + k];
        for (int k = 0; k < 6; k++) X[(X_F + k) * np + i] = f[k];
    }

    // leaf to base: add each subtree to its parent's, every field X_IC to X_F, or without rates
    // Ic's and H's alone
    for (int k = 0; k < 6; k++) d->f0[k] = d->p0[k] = 0.0;
    for (int i = nv - 1; i >= 0; i--) {
        const int par = m->link_parent[i];
        if (par >= 0 && rates) {
            add_fields(X, np, X_IC, X_COUNT, i, par);
        } else if (par >= 0) {
            add_fields(X, np, X_IC, X_IC + 10, i, par);
            add_fields(X, np, X_H, X_H + 6, i, par);
        } else {
            for (int k = 0; k < 6; k++) {
                if (rates) d->f0[k] += X[(X_F + k) * np + i];
                d->p0[k] += X[(X_H + k) * np + i];
            }
        }
    }
}


// link j's subtree sums, unpacked (Icd and F may be NULL: the velocity level alone)
static void load_sums(const salto_model* m, const salto_data* d, int j, double Ic[10],
                      double Icd[10], double H[6], double F[6]) {
    const size_t np = padded(m->nv);
    const double* X = d->work;
    for (int k = 0; k < 10; k++) Ic[k] = X[(X_IC + k) * np + j];
    for (int k = 0; k < 6; k++) H[k] = X[(X_H + k) * np + j];
    if (Icd) {
        Icd[0] = 0.0;
        for (int k = 0; k < 9; k++) Icd[1 + k] = X[(X_HD + k) * np + j];
    }
    for (int k = 0; F && k < 6; k++) F[k] = X[(X_F + k) * np + j];
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


// ---- the columns of all links at once, vectorised across links ----
//
// The columns of different links are independent, so they are computed for blocks of LANES
// links at a time from the structure-of-arrays inputs (field f of lane l at in[f np + l]); the
// compiler runs the lanes in vector instructions. The arithmetic is that of columns() above,
// on scalars.

#define CROSS(r, a0, a1, a2, b0, b1, b2) \
    r##0 = (a1) * (b2) - (a2) * (b1), r##1 = (a2) * (b0) - (a0) * (b2), \
    r##2 = (a0) * (b1) - (a1) * (b0)

static void columns_all(const salto_model* m, const salto_data* d, double* restrict J) {
    const int nv = m->nv;
    const size_t ncol = 3 * (size_t)nv;
    const size_t np = padded(nv);
    double* restrict X = d->work;                                // X_COUNT x np

    // gather the kinematic inputs (AoS -> SoA) and pad the last block with the last link
    for (size_t j = 0; j < np; j++) {
        const int jj = j < (size_t)nv ? (int)j : nv - 1;
        const int par = m->link_parent[jj];
        for (int k = 0; k < 6; k++) {
            X[(X_S + k) * np + j] = d->S[6 * jj + k];
            X[(X_VP + k) * np + j] = d->V[6 * par + k];
            X[(X_AP + k) * np + j] = d->A[6 * par + k];
        }
        if (j >= (size_t)nv) {
            for (int f = X_IC; f < X_COUNT; f++) X[f * np + j] = X[f * np + jj];
        }
    }

    for (int j0 = 0; j0 < nv; j0 += LANES) {
        const int nl = nv - j0 < LANES ? nv - j0 : LANES;
        const double* restrict in = X + j0;
        double out[18][LANES];

#define IN(f) in[(f) * np + l]
    for (int l = 0; l < LANES; l++) {
        const double s0 = IN(X_S), s1 = IN(X_S + 1), s2 = IN(X_S + 2);
        const double t0 = IN(X_S + 3), t1 = IN(X_S + 4), t2 = IN(X_S + 5);
        const double w0 = IN(X_VP), w1 = IN(X_VP + 1), w2 = IN(X_VP + 2);
        const double v0 = IN(X_VP + 3), v1 = IN(X_VP + 4), v2 = IN(X_VP + 5);
        const double l0 = IN(X_AP), l1 = IN(X_AP + 1), l2 = IN(X_AP + 2);
        const double a0 = IN(X_AP + 3), a1 = IN(X_AP + 4), a2 = IN(X_AP + 5);
        const double mass = IN(X_IC), h0 = IN(X_IC + 1), h1 = IN(X_IC + 2), h2 = IN(X_IC + 3);
        const double B00 = IN(X_IC + 4), B11 = IN(X_IC + 5), B22 = IN(X_IC + 6);
        const double B01 = IN(X_IC + 7), B02 = IN(X_IC + 8), B12 = IN(X_IC + 9);
        const double e0 = IN(X_HD), e1 = IN(X_HD + 1), e2 = IN(X_HD + 2);
        const double D00 = IN(X_HD + 3), D11 = IN(X_HD + 4), D22 = IN(X_HD + 5);
        const double D01 = IN(X_HD + 6), D02 = IN(X_HD + 7), D12 = IN(X_HD + 8);
        const double Hn0 = IN(X_H), Hn1 = IN(X_H + 1), Hn2 = IN(X_H + 2);
        const double Hf0 = IN(X_H + 3), Hf1 = IN(X_H + 4), Hf2 = IN(X_H + 5);
        const double Fn0 = IN(X_F), Fn1 = IN(X_F + 1), Fn2 = IN(X_F + 2);
        const double Ff0 = IN(X_F + 3), Ff1 = IN(X_F + 4), Ff2 = IN(X_F + 5);
        // G [x; y] = [Bd x + x × Hn + (hd - Hf) × y; x × (hd + Hf)]
        const double m0 = e0 - Hf0, m1 = e1 - Hf1, m2 = e2 - Hf2;
        const double p0 = e0 + Hf0, p1 = e1 + Hf1, p2 = e2 + Hf2;
        double c0, c1, c2, d0, d1, d2, x0, x1, x2;

        // W = V_p × S
        double Wn0, Wn1, Wn2, Wf0, Wf1, Wf2;
        CROSS(Wn, w0, w1, w2, s0, s1, s2);
        CROSS(Wf, w0, w1, w2, t0, t1, t2);
        CROSS(x, v0, v1, v2, s0, s1, s2);
        Wf0 += x0, Wf1 += x1, Wf2 += x2;

        // a = A_p × S + V_p × W
        double an0, an1, an2, af0, af1, af2;
        CROSS(an, l0, l1, l2, s0, s1, s2);
        CROSS(x, w0, w1, w2, Wn0, Wn1, Wn2);
        an0 += x0, an1 += x1, an2 += x2;
        CROSS(af, l0, l1, l2, t0, t1, t2);
        CROSS(x, a0, a1, a2, s0, s1, s2);
        af0 += x0, af1 += x1, af2 += x2;
        CROSS(x, w0, w1, w2, Wf0, Wf1, Wf2);
        af0 += x0, af1 += x1, af2 += x2;
        CROSS(x, v0, v1, v2, Wn0, Wn1, Wn2);
        af0 += x0, af1 += x1, af2 += x2;


        // qdd: Ic S = [B s + h × t; m t + s × h]
        CROSS(c, h0, h1, h2, t0, t1, t2);
        CROSS(d, s0, s1, s2, h0, h1, h2);
        out[12][l] = B00 * s0 + B01 * s1 + B02 * s2 + c0;
        out[13][l] = B01 * s0 + B11 * s1 + B12 * s2 + c1;
        out[14][l] = B02 * s0 + B12 * s1 + B22 * s2 + c2;
        out[15][l] = mass * t0 + d0;
        out[16][l] = mass * t1 + d1;
        out[17][l] = mass * t2 + d2;

        // qd: 2 Ic W + G S
        double qn0, qn1, qn2, qf0, qf1, qf2;
        CROSS(c, h0, h1, h2, Wf0, Wf1, Wf2);
        CROSS(d, Wn0, Wn1, Wn2, h0, h1, h2);
        qn0 = 2.0 * (B00 * Wn0 + B01 * Wn1 + B02 * Wn2 + c0);
        qn1 = 2.0 * (B01 * Wn0 + B11 * Wn1 + B12 * Wn2 + c1);
        qn2 = 2.0 * (B02 * Wn0 + B12 * Wn1 + B22 * Wn2 + c2);
        qf0 = 2.0 * (mass * Wf0 + d0);
        qf1 = 2.0 * (mass * Wf1 + d1);
        qf2 = 2.0 * (mass * Wf2 + d2);
        CROSS(c, s0, s1, s2, Hn0, Hn1, Hn2);
        CROSS(d, m0, m1, m2, t0, t1, t2);
        CROSS(x, s0, s1, s2, p0, p1, p2);
        out[6][l] = qn0 + D00 * s0 + D01 * s1 + D02 * s2 + c0 + d0;
        out[7][l] = qn1 + D01 * s0 + D11 * s1 + D12 * s2 + c1 + d1;
        out[8][l] = qn2 + D02 * s0 + D12 * s1 + D22 * s2 + c2 + d2;
        out[9][l] = qf0 + x0;
        out[10][l] = qf1 + x1;
        out[11][l] = qf2 + x2;

        // q: Ic a + G W + S ×* F, with S ×* F = [s × Fn + t × Ff; s × Ff]
        CROSS(c, h0, h1, h2, af0, af1, af2);
        CROSS(d, an0, an1, an2, h0, h1, h2);
        qn0 = B00 * an0 + B01 * an1 + B02 * an2 + c0;
        qn1 = B01 * an0 + B11 * an1 + B12 * an2 + c1;
        qn2 = B02 * an0 + B12 * an1 + B22 * an2 + c2;
        qf0 = mass * af0 + d0;
        qf1 = mass * af1 + d1;
        qf2 = mass * af2 + d2;
        CROSS(c, Wn0, Wn1, Wn2, Hn0, Hn1, Hn2);
        CROSS(d, m0, m1, m2, Wf0, Wf1, Wf2);
        CROSS(x, Wn0, Wn1, Wn2, p0, p1, p2);
        qn0 += D00 * Wn0 + D01 * Wn1 + D02 * Wn2 + c0 + d0;
        qn1 += D01 * Wn0 + D11 * Wn1 + D12 * Wn2 + c1 + d1;
        qn2 += D02 * Wn0 + D12 * Wn1 + D22 * Wn2 + c2 + d2;
        qf0 += x0, qf1 += x1, qf2 += x2;
        CROSS(c, s0, s1, s2, Fn0, Fn1, Fn2);
        CROSS(d, t0, t1, t2, Ff0, Ff1, Ff2);
        CROSS(x, s0, s1, s2, Ff0, Ff1, Ff2);
        out[0][l] = qn0 + c0 + d0;
        out[1][l] = qn1 + c1 + d1;
        out[2][l] = qn2 + c2 + d2;
        out[3][l] = qf0 + x0;
        out[4][l] = qf1 + x1;
        out[5][l] = qf2 + x2;
    }
#undef IN

        // scatter: rows r of the q, qd and qdd blocks
        for (int r = 0; r < 6; r++) {
            double* row = J + r * ncol + j0;
            for (int l = 0; l < nl; l++) {
                row[l] = out[r][l];
                row[nv + l] = out[6 + r][l];
                row[2 * nv + l] = out[12 + r][l];
            }
        }
    }
}

#undef CROSS


// p0's columns of link j from its subtree's composite inertia Ic and momentum H: the q column
// S x* H + Ic W (W = V_p x S), the qd column Ic S, into Jp (6 x 2nv)
static void p0_columns(const salto_model* m, const salto_data* d, int j, const double* Ic,
                       const double* H, double* Jp) {
    const int nv = m->nv;
    double W[6], pq[6], pqd[6];
    salto_sv_crossm(W, d->V + 6 * m->link_parent[j], d->S + 6 * j);
    salto_si_mul(pq, Ic, W);
    salto_sv_crossf_add(pq, d->S + 6 * j, H);
    salto_si_mul(pqd, Ic, d->S + 6 * j);
    for (int r = 0; r < 6; r++) {
        Jp[(size_t)r * 2 * nv + j] = pq[r];
        Jp[(size_t)r * 2 * nv + nv + j] = pqd[r];
    }
}


static void f0_jac_linear(const salto_model* m, salto_data* d, double* J, double* Jp) {
    subtree_sums(m, d, 1);
    columns_all(m, d, J);
    for (int j = 0; Jp && j < m->nv; j++) {
        double Ic[10], Icd[10], H[6], F[6];
        load_sums(m, d, j, Ic, Icd, H, F);
        p0_columns(m, d, j, Ic, H, Jp);
    }
}


void salto_p0_jac(const salto_model* m, salto_data* d, double* Jp) {
    subtree_sums(m, d, 0); // Ic and H only
    for (int j = 0; Jp && j < m->nv; j++) {
        double Ic[10], H[6];
        load_sums(m, d, j, Ic, NULL, H, NULL);
        p0_columns(m, d, j, Ic, H, Jp);
    }
}


int salto_f0_jac_work(const salto_model* m, salto_jac_method method) {
    switch (method) {
    case SALTO_JAC_LINEAR: return X_COUNT * (int)padded(m->nv);
    case SALTO_JAC_DIRECT: return salto_f0_jac_direct_work(m);
    default: return 0; // finite differences use the inverse dynamics only
    }
}


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
    subtree_sums(m, d, 1);
    for (int r = 0; r < K; r++) {
        const int j = links[r];
        const double* Sj = d->S + 6 * j;
        double Icj[10], Icdj[10], Hj[6], Fj[6];
        load_sums(m, d, j, Icj, Icdj, Hj, Fj);
        if (tau) tau[r] = salto_sv_dot(Sj, Fj);
        if (!J) continue;
        double* row = J + (size_t)r * ncol;
        memset(row, 0, (size_t)ncol * sizeof(double));
        double cq[6], cqd[6], cqdd[6];
        for (int k = j; k < m->link_subtree_end[j]; k++) {
            double Ic[10], Icd[10], H[6], F[6];
            load_sums(m, d, k, Ic, Icd, H, F);
            columns(m, d, k, Ic, Icd, H, F, 1, cq, cqd, cqdd);
            row[k] = salto_sv_dot(Sj, cq);
            row[nv + k] = salto_sv_dot(Sj, cqd);
            row[2 * nv + k] = salto_sv_dot(Sj, cqdd);
        }
        for (int k = m->link_parent[j]; k >= 0; k = m->link_parent[k]) {
            columns(m, d, k, Icj, Icdj, Hj, Fj, 0, cq, cqd, cqdd);
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


// The second derivatives' per-link vectors (salto_f0_hess, salto_torques_hess) of link l for a
// weight mu, from the sums Ic, Icd, Hs, F that move with q_l, into P + l NPER 6 (the fields of
// enum hess_field)
enum hess_field { HF_DF, HF_DH, HF_R1, HF_R2, HF_A, HF_E, HF_W, HF_B, HF_ICS, HF_COLQD, HF_G, HF_C, HF_NPER };
static void hess_link_vectors(const salto_model* m, const salto_data* d, int l, const double Ic[10],
                              const double Icd[10], const double Hs[6], const double F[6],
                              const double mu[6], double* P) {
#define PV(l, f) (P + (size_t)(l) * 6 * HF_NPER + 6 * (HF_##f))
    const double* S = d->S + 6 * l;
    const int par = m->link_parent[l];
    const double* Vp = d->V + 6 * par; // the world's at index -1
    const double* Ap = d->A + 6 * par;
    double* Wl = PV(l, W);
    double* bl = PV(l, B);
    double t[6];
    salto_sv_crossm(Wl, Vp, S);
    salto_sv_crossm(bl, Ap, S);
    salto_sv_crossm(t, Vp, Wl);
    salto_sv_add_to(bl, t);
    double* dF = PV(l, DF);
    salto_sv_crossf(dF, S, F);
    salto_si_mul_add(dF, Ic, bl);
    salto_si_mul_add(dF, Icd, Wl);
    salto_sv_crossf_add(dF, Wl, Hs);
    double* dH = PV(l, DH);
    salto_sv_crossf(dH, S, Hs);
    salto_si_mul_add(dH, Ic, Wl);
    double dIc[10], dIcd[10], dIcd2[10];
    salto_si_rate(dIc, Ic, S);
    salto_si_rate(dIcd, Icd, S);
    salto_si_rate(dIcd2, Ic, Wl);
    for (int k = 0; k < 10; k++) dIcd[k] += dIcd2[k];
    salto_si_mul(PV(l, R1), dIc, mu);
    salto_si_mul(PV(l, R2), dIcd, mu);
    double* al = PV(l, A);
    double* el = PV(l, E);
    salto_sv_crossm(al, S, mu);
    salto_sv_crossm(el, Wl, mu);
    for (int k = 0; k < 6; k++) al[k] = -al[k], el[k] = -el[k];
    salto_si_mul(PV(l, ICS), Ic, S);
    double* cq = PV(l, COLQD); // 2 Ic W + Icd S + S x* H
    salto_si_mul(cq, Ic, Wl);
    for (int k = 0; k < 6; k++) cq[k] *= 2.0;
    salto_si_mul_add(cq, Icd, S);
    salto_sv_crossf_add(cq, S, Hs);
    salto_si_mul(PV(l, G), Ic, mu);
    salto_si_mul(PV(l, C), Ic, al);
#undef PV
}


// The second derivatives of mu . f0 (mu fixed). A change of q_l moves sub(l) rigidly by S_l
// and adds W_l = V_p x S_l to the velocities there, so its four subtree sums change by
//   dF_l = d f0/dq_l,  dH_l = S_l x* H_l + Ic_l W_l,  dIc_l = S_l x* Ic_l - Ic_l S_l x,
//   dIcd_l = (S_l x* Icd_l - Icd_l S_l x) + (W_l x* Ic_l - Ic_l W_l x)
// and, for l in sub(j), f0's columns of j change only through them (S_j, W_j and
// b_j = A_p x S_j + V_p x W_j read j's ancestors alone). With a = -S x mu, e = -W x mu,
// r1 = dIc mu and r2 = dIcd mu (each d(Ic), d(Icd) is symmetric):
//   q_j q_l      = a_j . dF_l + b_j . r1_l + W_j . r2_l + e_j . dH_l
//   qdd_j q_l    = S_j . r1_l
//   qd_j q_l     = 2 W_j . r1_l + S_j . r2_l + a_j . dH_l
// For l a strict ancestor of j, sub(j) and S_j move rigidly with S_l (the column's force turns
// with it: a_l . col) and the velocities there gain W_l:
//   qdd_j q_l    = a_l . Ic_j S_j
//   qd_j q_l     = a_l . col_j + (Ic_j mu) . (W_l x S_j) + e_l . Ic_j S_j + (Ic_j a_j) . W_l
// with col_j = d f0/dqd_j; links on separate branches give zero.
void salto_f0_hess(const salto_model* m, salto_data* d, const double mu[6], double* H,
                   double* work) {
    const int nv = m->nv, n3 = 3 * nv;
    subtree_sums(m, d, 1);
    double* P = work; // HF_NPER x 6 per link
#define PV(l, f) (P + (size_t)(l) * 6 * HF_NPER + 6 * (HF_##f))
    for (int l = 0; l < nv; l++) {
        double Ic[10], Icd[10], Hs[6], F[6];
        load_sums(m, d, l, Ic, Icd, Hs, F);
        hess_link_vectors(m, d, l, Ic, Icd, Hs, F, mu, P);
    }
    memset(H, 0, (size_t)n3 * (size_t)n3 * sizeof(double));
    double* Hq = H;                          // rows q
    double* Hqd = H + (size_t)nv * n3;       // rows qd
    double* Hqdd = H + 2 * (size_t)nv * n3;  // rows qdd
    for (int j = 0; j < nv; j++) {
        const double* Sj = d->S + 6 * j;
        for (int l = j; l < m->link_subtree_end[j]; l++) {
            const double v = salto_sv_dot(PV(j, A), PV(l, DF)) + salto_sv_dot(PV(j, B), PV(l, R1)) +
                             salto_sv_dot(PV(j, W), PV(l, R2)) + salto_sv_dot(PV(j, E), PV(l, DH));
            Hq[(size_t)j * n3 + l] = Hq[(size_t)l * n3 + j] = v;
            Hqdd[(size_t)j * n3 + l] = salto_sv_dot(Sj, PV(l, R1));
            Hqd[(size_t)j * n3 + l] = 2.0 * salto_sv_dot(PV(j, W), PV(l, R1)) +
                                      salto_sv_dot(Sj, PV(l, R2)) + salto_sv_dot(PV(j, A), PV(l, DH));
        }
        for (int l = m->link_parent[j]; l >= 0; l = m->link_parent[l]) {
            double ws[6];
            salto_sv_crossm(ws, PV(l, W), Sj);
            Hqdd[(size_t)j * n3 + l] = salto_sv_dot(PV(l, A), PV(j, ICS));
            Hqd[(size_t)j * n3 + l] = salto_sv_dot(PV(l, A), PV(j, COLQD)) + salto_sv_dot(ws, PV(j, G)) +
                                      salto_sv_dot(PV(l, E), PV(j, ICS)) + salto_sv_dot(PV(l, W), PV(j, C));
        }
    }
#undef PV
    // the q columns' mirrors, and qd-qd = M + M' with M the qdd-q block
    for (int j = 0; j < nv; j++) {
        for (int l = 0; l < nv; l++) {
            Hq[(size_t)l * n3 + nv + j] = Hqd[(size_t)j * n3 + l];
            Hq[(size_t)l * n3 + 2 * nv + j] = Hqdd[(size_t)j * n3 + l];
            Hqd[(size_t)j * n3 + nv + l] = Hqdd[(size_t)j * n3 + l] + Hqdd[(size_t)l * n3 + j];
        }
    }
}


// The second derivatives of sum_r lam_r tau_j (j = links[r]), tau_j = S_j . F_j, F_j the force
// sub(j) needs (its subtree sums). Three parts for each j:
// (A) S_j . d2F_j with S_j held: salto_f0_hess's formulas over the links F_j reads, j's
//     ancestors and its subtree, each link l's column vectors (dF, dH, r1, r2, and the qd and
//     qdd columns) made from the sums F_j changes by when q_l moves: sub(l)'s for l in sub(j),
//     and for a strict ancestor l (which moves all of sub(j)) sub(j)'s own;
// (B) dS_j x dF_j: S_j turns with a strict ancestor a, dS_j/dq_a = S_a x S_j, against every
//     column of F_j (the same column vectors);
// (C) F_j . d2S_j: d2S_j/dq_a dq_b = (S_a x S_b) x S_j + S_b x (S_a x S_j) for a an ancestor
//     of b (the first term only for a != b), both strict ancestors of j.
// The qd-qd block is M + M' with M (A)'s qdd-q block: F_j is the rate of sub(j)'s momentum.
void salto_torques_hess(const salto_model* m, salto_data* d, int K, const int* links,
                        const double* lam, double* H, double* work) {
    const int nv = m->nv, n3 = 3 * nv;
    subtree_sums(m, d, 1);
    double* P = work; // HF_NPER x 6 per link
    double* Mq = work + (size_t)HF_NPER * 6 * nv; // (A)'s qdd-q block, nv x nv
#define PV(l, f) (P + (size_t)(l) * 6 * HF_NPER + 6 * (HF_##f))
#define HH(r, c) H[(size_t)(r) * n3 + (c)]
    memset(H, 0, (size_t)n3 * (size_t)n3 * sizeof(double));
    memset(Mq, 0, (size_t)nv * (size_t)nv * sizeof(double));
    for (int r = 0; r < K; r++) {
        const int j = links[r];
        const double lr = lam[r];
        if (lr == 0.0) continue;
        const double* Sj = d->S + 6 * j;
        const double* mu = Sj;
        double Icj[10], Icdj[10], Hj[6], Fj[6];
        load_sums(m, d, j, Icj, Icdj, Hj, Fj);
        const int end = m->link_subtree_end[j];
        // the links F_j reads: the strict ancestors (with sub(j)'s sums), then sub(j)
        for (int pass = 0; pass < 2; pass++) {
            const int l0 = pass == 0 ? m->link_parent[j] : j;
            for (int l = l0; pass == 0 ? l >= 0 : l < end; l = pass == 0 ? m->link_parent[l] : l + 1) {
                double Ic[10], Icd[10], Hs[6], F[6];
                if (pass == 0) {
                    memcpy(Ic, Icj, sizeof Ic), memcpy(Icd, Icdj, sizeof Icd);
                    memcpy(Hs, Hj, sizeof Hs), memcpy(F, Fj, sizeof F);
                } else {
                    load_sums(m, d, l, Ic, Icd, Hs, F);
                }
                hess_link_vectors(m, d, l, Ic, Icd, Hs, F, mu, P);
            }
        }
        // (A): every link l F_j reads, against each of its ancestors a (itself included)
        for (int pass = 0; pass < 2; pass++) {
            const int l0 = pass == 0 ? m->link_parent[j] : j;
            for (int l = l0; pass == 0 ? l >= 0 : l < end; l = pass == 0 ? m->link_parent[l] : l + 1) {
                const double* Sl = d->S + 6 * l;
                for (int a = l; a >= 0; a = m->link_parent[a]) {
                    const double* Sa = d->S + 6 * a;
                    const double vq = salto_sv_dot(PV(a, A), PV(l, DF)) + salto_sv_dot(PV(a, B), PV(l, R1)) +
                                      salto_sv_dot(PV(a, W), PV(l, R2)) + salto_sv_dot(PV(a, E), PV(l, DH));
                    HH(a, l) += lr * vq;
                    if (a != l) HH(l, a) += lr * vq;
                    // qdd_a q_l and qd_a q_l
                    const double vdd = lr * salto_sv_dot(Sa, PV(l, R1));
                    const double vd = lr * (2.0 * salto_sv_dot(PV(a, W), PV(l, R1)) + salto_sv_dot(Sa, PV(l, R2)) +
                                            salto_sv_dot(PV(a, A), PV(l, DH)));
                    HH(2 * nv + a, l) += vdd, HH(l, 2 * nv + a) += vdd;
                    HH(nv + a, l) += vd, HH(l, nv + a) += vd;
                    Mq[(size_t)a * nv + l] += vdd;
                    if (a == l) continue;
                    // qdd_l q_a and qd_l q_a (l the descendant)
                    double ws[6];
                    salto_sv_crossm(ws, PV(a, W), Sl);
                    const double udd = lr * salto_sv_dot(PV(a, A), PV(l, ICS));
                    const double ud = lr * (salto_sv_dot(PV(a, A), PV(l, COLQD)) + salto_sv_dot(ws, PV(l, G)) +
                                            salto_sv_dot(PV(a, E), PV(l, ICS)) + salto_sv_dot(PV(a, W), PV(l, C)));
                    HH(2 * nv + l, a) += udd, HH(a, 2 * nv + l) += udd;
                    HH(nv + l, a) += ud, HH(a, nv + l) += ud;
                    Mq[(size_t)l * nv + a] += udd;
                }
            }
        }
        // (B) and (C): the strict ancestors a of j
        for (int a = m->link_parent[j]; a >= 0; a = m->link_parent[a]) {
            double SS[6];
            salto_sv_crossm(SS, d->S + 6 * a, Sj);
            for (int pass = 0; pass < 2; pass++) {
                const int c0 = pass == 0 ? m->link_parent[j] : j;
                for (int c = c0; pass == 0 ? c >= 0 : c < end; c = pass == 0 ? m->link_parent[c] : c + 1) {
                    const double xq = lr * salto_sv_dot(SS, PV(c, DF));
                    const double xd = lr * salto_sv_dot(SS, PV(c, COLQD));
                    const double xdd = lr * salto_sv_dot(SS, PV(c, ICS));
                    HH(a, c) += xq, HH(c, a) += xq;
                    HH(a, nv + c) += xd, HH(nv + c, a) += xd;
                    HH(a, 2 * nv + c) += xdd, HH(2 * nv + c, a) += xdd;
                }
            }
            for (int b = a; b != j; ) { // b from a down to j's parent: walk j's path
                double D2[6], t1[6], t2[6];
                salto_sv_crossm(t1, d->S + 6 * b, SS);        // S_b x (S_a x S_j)
                memcpy(D2, t1, sizeof D2);
                if (b != a) {
                    salto_sv_crossm(t1, d->S + 6 * a, d->S + 6 * b); // (S_a x S_b) x S_j
                    salto_sv_crossm(t2, t1, Sj);
                    salto_sv_add_to(D2, t2);
                }
                const double v = lr * salto_sv_dot(D2, Fj);
                HH(a, b) += v;
                if (b != a) HH(b, a) += v;
                // the next link on the path from a towards j
                int nb = j;
                while (m->link_parent[nb] != b) nb = m->link_parent[nb];
                b = nb;
            }
        }
    }
    // qd-qd = M + M'
    for (int a = 0; a < nv; a++) {
        for (int b = 0; b < nv; b++) HH(nv + a, nv + b) += Mq[(size_t)a * nv + b] + Mq[(size_t)b * nv + a];
    }
#undef HH
#undef PV
}


// The second derivatives of mu . p0 (mu fixed), p0 = sum_i I_i V_i, from p0's columns
// dp0/dq_j = S_j x* H_j + Ic_j W_j and dp0/dqd_j = Ic_j S_j: for l in sub(j), with dH_l, dIc_l,
// a = -S x mu and r1 = dIc mu as in salto_f0_hess,
//   q_j q_l   = a_j . dH_l + W_j . r1_l
//   qd_j q_l  = S_j . r1_l,      and for l a strict ancestor of j, qd_j q_l = a_l . Ic_j S_j
// (p0 is linear in qd: the qd-qd block is zero).
void salto_p0_hess(const salto_model* m, salto_data* d, const double mu[6], double* H,
                   double* work) {
    const int nv = m->nv, n2 = 2 * nv;
    subtree_sums(m, d, 0);
    enum { DH, R1, A, W, ICS, NPER };
    double* P = work;
#define PV(l, f) (P + (size_t)(l) * 6 * NPER + 6 * (f))
    for (int l = 0; l < nv; l++) {
        double Ic[10], Hs[6];
        load_sums(m, d, l, Ic, NULL, Hs, NULL);
        const double* S = d->S + 6 * l;
        const double* Vp = d->V + 6 * m->link_parent[l]; // the world's at index -1
        double* Wl = PV(l, W);
        salto_sv_crossm(Wl, Vp, S);
        double* dH = PV(l, DH);
        salto_sv_crossf(dH, S, Hs);
        salto_si_mul_add(dH, Ic, Wl);
        double dIc[10];
        salto_si_rate(dIc, Ic, S);
        salto_si_mul(PV(l, R1), dIc, mu);
        double* al = PV(l, A);
        salto_sv_crossm(al, S, mu);
        for (int k = 0; k < 6; k++) al[k] = -al[k];
        salto_si_mul(PV(l, ICS), Ic, S);
    }
    memset(H, 0, (size_t)n2 * (size_t)n2 * sizeof(double));
    for (int j = 0; j < nv; j++) {
        const double* Sj = d->S + 6 * j;
        for (int l = j; l < m->link_subtree_end[j]; l++) {
            const double v = salto_sv_dot(PV(j, A), PV(l, DH)) + salto_sv_dot(PV(j, W), PV(l, R1));
            H[(size_t)j * n2 + l] = H[(size_t)l * n2 + j] = v;
            const double c = salto_sv_dot(Sj, PV(l, R1)); // qd_j q_l
            H[(size_t)(nv + j) * n2 + l] = H[(size_t)l * n2 + nv + j] = c;
        }
        for (int l = m->link_parent[j]; l >= 0; l = m->link_parent[l]) {
            const double c = salto_sv_dot(PV(l, A), PV(j, ICS));
            H[(size_t)(nv + j) * n2 + l] = H[(size_t)l * n2 + nv + j] = c;
        }
    }
#undef PV
}
