// dynamics.c: RNEA, CRBA and ABA in world coordinates
//
// Working in the world frame removes every coordinate transform from the recursions: a
// child's quantities are added to its parent's directly (RBDA 5.3 and 7.3 note the world-
// frame variants). Each link is one degree of freedom.
#include "salto/dynamics.h"

#include <math.h>
#include <string.h>

#include "salto/kinematics.h"
#include "salto/spatial.h"

// F = I A + V x* I V for the massive link i, from the Newton-Euler equations at its centre
// of mass (RBDA 2.15), which needs no world-frame inertia:
//   c = p + R c_l,  v_c = v_O + w x c,  a_c = a_O + wd x c + w x v_c  (A includes -g)
//   f = m a_c,  n_c = R (J wd_l + w_l x J w_l) with w_l = R' w, wd_l = R' wd,
//   F = [n_c + c x f; f]
static void body_force(const salto_model* m, const salto_data* d, int i, double* restrict F) {
    const double* restrict L = m->link_inertia + 10 * i;
    const double* restrict R = d->R + 9 * i;
    const double* restrict p = d->p + 3 * i;
    const double* restrict V = d->V + 6 * i;
    const double* restrict A = d->A + 6 * i;
    const double mass = L[0];
    double c[3], vc[3], ac[3];
    salto_m3_mul_v3(c, R, L + 1);
    c[0] += p[0], c[1] += p[1], c[2] += p[2];
    salto_v3_cross(vc, V, c);
    vc[0] += V[3], vc[1] += V[4], vc[2] += V[5];
    salto_v3_cross(ac, A, c);
    salto_v3_cross_add(ac, V, vc);
    const double f[3] = {mass * (ac[0] + A[3]), mass * (ac[1] + A[4]), mass * (ac[2] + A[5])};

    double wl[3], wdl[3], Jw[3], nl[3], n[3];
    salto_m3t_mul_v3(wl, R, V);
    salto_m3t_mul_v3(wdl, R, A);
    salto_sym3_mul_v3(Jw, L + 4, wl);
    salto_sym3_mul_v3(nl, L + 4, wdl);
    salto_v3_cross_add(nl, wl, Jw);
    salto_m3_mul_v3(n, R, nl);
    salto_v3_cross_add(n, c, f);
    F[0] = n[0], F[1] = n[1], F[2] = n[2], F[3] = f[0], F[4] = f[1], F[5] = f[2];
}


void salto_rnea(const salto_model* m, salto_data* d, double* tau) {
    salto_rnea_ext(m, d, NULL, tau);
}


void salto_rnea_ext(const salto_model* m, salto_data* d, const double* fext, double* tau) {
    const int nv = m->nv;
    salto_fk(m, d, SALTO_FK_ACC);

    // forward: F_i = I_i A_i + V_i x* I_i V_i - f_ext,i  (massless links carry nothing)
    for (int i = 0; i < nv; i++) {
        double* F = d->F + 6 * i;
        if (m->link_massive[i]) {
            body_force(m, d, i, F);
        } else {
            for (int t = 0; t < 6; t++) F[t] = 0.0;
        }
        if (fext) {
            for (int t = 0; t < 6; t++) F[t] -= fext[6 * i + t];
        }
    }

    // backward: tau_i = S_i . F_i, F_parent += F_i (the world's slot collects f0)
    double* F0 = d->F - 6;
    for (int t = 0; t < 6; t++) F0[t] = 0.0;
    for (int i = nv - 1; i >= 0; i--) {
        const double* F = d->F + 6 * i;
        if (tau) tau[i] = salto_sv_dot(d->S + 6 * i, F);
        salto_sv_add_to(d->F + 6 * m->link_parent[i], F);
    }
    for (int t = 0; t < 6; t++) d->f0[t] = F0[t];
}


// ---- joint-space inertia (CRBA) ----
//
// M_ij = S_i . Ic_j S_j for i on the path from j to the root (RBDA Table 6.2, world form): row
// j of the lower triangle is F_j = Ic_j S_j against the axes of j's path, walked from j to the
// root, each entry computed once and written once, left of the diagonal only; the entries off
// the path are zero. In preorder the path is a few runs of consecutive links (a run begins
// where a link's parent is not the link before it; a serial chain is one run). When a model
// has a run of CRBA_SOA_MODEL links or more, the axes are first copied by component, and a run
// of CRBA_SOA_RUN links or more on a row's path is one loop over contiguous memory, which
// vectorises across the links (on a 200-link chain the rows were most of the time); a link's
// row and its child's are then computed together, each axis loaded once for both. Every entry
// is summed in salto_sv_dot's order, so a vector lane rounds it as the scalar dot product
// does, bit for bit (the C11 mode contracts nothing into fused multiply-adds). Without such a
// run (the shipped characters: the humanoid's longest is 11 links) the copy cost more than it
// saved (the humanoid 5-10% slower), so the rows read d->S as it is.
enum {
    CRBA_SOA_MODEL = 16, // links in the longest run from which the axes are copied by component
    CRBA_SOA_RUN = 8     // links in a run from which it is computed by component
};

// a zero the compiler cannot see, so that the short loops writing the off-path zeros stay
// inline stores: made memset calls (one per gap in a row), they took the humanoid's lower
// triangle from 0.94 to 1.07 times the time of the full matrix before this version
static volatile const double crba_zero = 0.0;


// the composite inertias, Ic_i = I_i + the children's Ic (leaf to base), after the kinematics
// and the link inertias
static void crba_composite(const salto_model* m, salto_data* d) {
    const int nv = m->nv;
    salto_fk(m, d, SALTO_FK_POS);
    salto_link_inertias(m, d);
    memcpy(d->Ic, d->I, 10 * (size_t)nv * sizeof(double));
    for (int i = nv - 1; i >= 0; i--) {
        const int par = m->link_parent[i];
        if (par >= 0) salto_si_add_to(d->Ic + 10 * par, d->Ic + 10 * i);
    }
}


// in d->work, the joint axes by component, St[t nv + i] = S_i[t] (6 nv), then the first link
// of each link's run (nv, as doubles); NULL (nothing written) when no run has CRBA_SOA_MODEL
// links
static const double* crba_axes_soa(const salto_model* m, salto_data* d) {
    const int nv = m->nv;
    int longest = 0;
    for (int i = 0, start = 0; i < nv; i++) {
        if (m->link_parent[i] != i - 1) start = i;
        if (i - start + 1 > longest) longest = i - start + 1;
    }
    if (longest < CRBA_SOA_MODEL) return NULL;
    SALTO_ASSERT(d->nwork >= 7 * nv);

    const double* restrict S = d->S;
    double* restrict St = d->work;
    for (int i = 0; i < nv; i++) {
        const double* Si = S + 6 * i;
        double* Sti = St + i;
        Sti[0] = Si[0], Sti[nv] = Si[1], Sti[2 * nv] = Si[2];
        Sti[3 * nv] = Si[3], Sti[4 * nv] = Si[4], Sti[5 * nv] = Si[5];
    }
    double* restrict run = St + 6 * (size_t)nv;
    double start = 0.0;
    for (int i = 0; i < nv; i++) {
        if (m->link_parent[i] != i - 1) start = (double)i;
        run[i] = start;
    }
    return St;
}


// row j of M's lower triangle, Mj[k] for k <= j: S_k . F_j for k on j's path to the root, 0
// elsewhere; St from crba_axes_soa (NULL: every entry from d->S)
static inline void crba_row(const salto_model* m, const salto_data* d, const double* St, int j,
                            double zero, double* restrict Mj) {
    const double* run = St ? St + 6 * (size_t)m->nv : NULL;
    double F[6];
    salto_si_mul(F, d->Ic + 10 * j, d->S + 6 * j);
    for (int i = j; i >= 0;) {
        if (run && i - run[i] >= CRBA_SOA_RUN) {
            // M_jk = S_k . F_j over the run's links up to i, by component
            const size_t nv = (size_t)m->nv;
            const double* restrict S0 = St;
            const double* restrict S1 = St + nv;
            const double* restrict S2 = St + 2 * nv;
            const double* restrict S3 = St + 3 * nv;
            const double* restrict S4 = St + 4 * nv;
            const double* restrict S5 = St + 5 * nv;
            const double F0 = F[0], F1 = F[1], F2 = F[2], F3 = F[3], F4 = F[4], F5 = F[5];
            const int a = (int)run[i];
            for (int k = a; k <= i; k++) {
                Mj[k] =
                    S0[k] * F0 + S1[k] * F1 + S2[k] * F2 + S3[k] * F3 + S4[k] * F4 + S5[k] * F5;
            }
            i = a;
        } else {
            Mj[i] = salto_sv_dot(d->S + 6 * i, F); // M_ji = S_i . F_j
        }

        // the links between i and its parent are off the path
        const int par = m->link_parent[i];
        for (int k = par + 1; k < i; k++) Mj[k] = zero;
        i = par;
    }
}


// rows j and j + 1 of M's lower triangle when link j + 1 is link j's child, as two calls of
// crba_row would write them (St not NULL): j + 1's path is j's and itself, so each axis on j's
// path is loaded once for both rows
static inline void crba_row_pair(const salto_model* m, const salto_data* d, const double* St,
                                 int j, double zero, double* restrict Mj, double* restrict Mn) {
    double F[6], G[6];
    salto_si_mul(F, d->Ic + 10 * j, d->S + 6 * j);
    salto_si_mul(G, d->Ic + 10 * (j + 1), d->S + 6 * (j + 1));
    Mn[j + 1] = salto_sv_dot(d->S + 6 * (j + 1), G);
    const double* run = St + 6 * (size_t)m->nv;
    for (int i = j; i >= 0;) {
        if (i - run[i] >= CRBA_SOA_RUN) {
            const size_t nv = (size_t)m->nv;
            const double* restrict S0 = St;
            const double* restrict S1 = St + nv;
            const double* restrict S2 = St + 2 * nv;
            const double* restrict S3 = St + 3 * nv;
            const double* restrict S4 = St + 4 * nv;
            const double* restrict S5 = St + 5 * nv;
            const double F0 = F[0], F1 = F[1], F2 = F[2], F3 = F[3], F4 = F[4], F5 = F[5];
            const double G0 = G[0], G1 = G[1], G2 = G[2], G3 = G[3], G4 = G[4], G5 = G[5];
            // M_jk = S_k . F_j and M_(j+1)k = S_k . F_(j+1) over the run's links up to i
            const int a = (int)run[i];
            for (int k = a; k <= i; k++) {
                const double s0 = S0[k], s1 = S1[k], s2 = S2[k], s3 = S3[k], s4 = S4[k],
                             s5 = S5[k];
                Mj[k] = s0 * F0 + s1 * F1 + s2 * F2 + s3 * F3 + s4 * F4 + s5 * F5;
                Mn[k] = s0 * G0 + s1 * G1 + s2 * G2 + s3 * G3 + s4 * G4 + s5 * G5;
            }
            i = a;
        } else {
            Mj[i] = salto_sv_dot(d->S + 6 * i, F);
            Mn[i] = salto_sv_dot(d->S + 6 * i, G);
        }

        // the links between i and its parent are off both paths
        const int par = m->link_parent[i];
        for (int k = par + 1; k < i; k++) Mj[k] = zero, Mn[k] = zero;
        i = par;
    }
}


// the lower triangle's rows, after crba_composite and crba_axes_soa
static void crba_lower_rows(const salto_model* m, const salto_data* d, const double* St,
                            double* M) {
    const int nv = m->nv;
    const double zero = crba_zero;
    if (!St) {
        for (int j = 0; j < nv; j++) crba_row(m, d, NULL, j, zero, M + (size_t)j * nv);
        return;
    }
    for (int j = 0; j < nv; j++) {
        double* Mj = M + (size_t)j * nv;
        if (j + 1 < nv && m->link_parent[j + 1] == j) {
            crba_row_pair(m, d, St, j, zero, Mj, Mj + nv);
            j++;
        } else {
            crba_row(m, d, St, j, zero, Mj);
        }
    }
}


void salto_crba_lower(const salto_model* m, salto_data* d, double* M) {
    SALTO_ASSERT(M + (size_t)m->nv * m->nv <= d->work || M >= d->work + 7 * (size_t)m->nv);
    crba_composite(m, d);
    crba_lower_rows(m, d, crba_axes_soa(m, d), M);
}


void salto_crba(const salto_model* m, salto_data* d, double* M) {
    const size_t nv = (size_t)m->nv;
    // (M must not lie in the scratch crba_axes_soa writes: d->work's first 7 nv doubles)
    SALTO_ASSERT(M + nv * nv <= d->work || M >= d->work + 7 * nv);
    crba_composite(m, d);
    const double* St = crba_axes_soa(m, d);
    if (St) {
        // the lower triangle, then the upper by symmetry, four rows of it at a time: row j of
        // the lower triangle gives four contiguous entries to them
        crba_lower_rows(m, d, St, M);
        size_t i = 0;
        for (; i + 4 <= nv; i += 4) {
            for (size_t a = i; a < i + 4; a++) {
                for (size_t b = a + 1; b < i + 4; b++) M[a * nv + b] = M[b * nv + a];
            }
            double* U = M + i * nv;
            for (size_t j = i + 4; j < nv; j++) {
                const double* L = M + j * nv + i;
                const double l0 = L[0], l1 = L[1], l2 = L[2], l3 = L[3];
                U[j] = l0, U[nv + j] = l1, U[2 * nv + j] = l2, U[3 * nv + j] = l3;
            }
        }
        for (; i < nv; i++) {
            for (size_t j = i + 1; j < nv; j++) M[i * nv + j] = M[j * nv + i];
        }
        return;
    }

    // no long runs (the characters): each entry written to both triangles as it is computed
    // (the mirror pass above cost the humanoid 10%), the off-path zeros from one memset
    memset(M, 0, nv * nv * sizeof(double));
    for (int j = 0; j < (int)nv; j++) {
        double F[6];
        salto_si_mul(F, d->Ic + 10 * j, d->S + 6 * j);
        for (int i = j; i >= 0; i = m->link_parent[i]) {
            const double v = salto_sv_dot(d->S + 6 * i, F); // M_ij = S_i . F_j
            M[(size_t)i * nv + j] = v;
            M[(size_t)j * nv + i] = v;
        }
    }
}


void salto_point_force(double w[6], const double x[3], const double f[3]) {
    salto_v3_cross(w, x, f);
    w[3] = f[0], w[4] = f[1], w[5] = f[2];
}


// ABA's first pass (after the kinematics at SALTO_FK_VEL and the link inertias): IA_i = I_i,
// pA_i = V_i x* I_i V_i - f_ext,i (salto_aba's and salto_aba_hybrid's)
static inline void aba_pass1(const salto_model* m, salto_data* d, const double* fext) {
    const int nv = m->nv;
    salto_fk(m, d, SALTO_FK_VEL);
    salto_link_inertias(m, d);
    for (int i = 0; i < nv; i++) {
        double* IA = d->IA + 21 * i;
        double* pA = d->pA + 6 * i;
        if (m->link_massive[i]) {
            const double* I = d->I + 10 * i;
            const double* V = d->V + 6 * i;
            double h[6];
            salto_s6_from_si(IA, I);
            salto_si_mul(h, I, V);
            salto_sv_crossf(pA, V, h);
        } else {
            memset(IA, 0, 21 * sizeof(double));
            memset(pA, 0, 6 * sizeof(double));
        }
        if (fext) {
            for (int t = 0; t < 6; t++) pA[t] -= fext[6 * i + t];
        }
    }
}


// ABA's pass 2 at free link i, leaf to base: U = IA S, D = S . U, u = tau - S . pA;
// IA_p += IA - U U' / D, pA_p += pA + Ia c + U u / D (RBDA Table 7.1; the world's slot at index
// -1 absorbs the roots' contributions, which nothing reads); salto_aba's and salto_aba_hybrid's
static inline salto_status aba_free_link(const salto_model* m, salto_data* d, int i) {
    double* restrict IA = d->IA + 21 * i;
    const double* restrict pA = d->pA + 6 * i;
    double* restrict U = d->U + 6 * i;
    const double* restrict S = d->S + 6 * i;
    salto_s6_mul(U, IA, S);
    const double D = salto_sv_dot(S, U);
    if (!(D > 0.0) || !isfinite(D)) return SALTO_ERR_NUMERIC;
    const double Dinv = 1.0 / D;
    const double u = d->tau[i] - salto_sv_dot(S, pA);
    d->Dinv[i] = Dinv;
    d->u[i] = u;
    const int par = m->link_parent[i];
    double* restrict IAp = d->IA + 21 * par;
    double* restrict pAp = d->pA + 6 * par;

    // Ia = IA - U U' / D (packed upper triangle, row by row)
    double Ud[6];
    for (int t = 0; t < 6; t++) Ud[t] = U[t] * Dinv;
    // clang-format off
    IA[0] -= Ud[0] * U[0]; IA[1] -= Ud[0] * U[1]; IA[2] -= Ud[0] * U[2];
    IA[3] -= Ud[0] * U[3]; IA[4] -= Ud[0] * U[4]; IA[5] -= Ud[0] * U[5];
    IA[6] -= Ud[1] * U[1]; IA[7] -= Ud[1] * U[2]; IA[8] -= Ud[1] * U[3];
    IA[9] -= Ud[1] * U[4]; IA[10] -= Ud[1] * U[5]; IA[11] -= Ud[2] * U[2];
    IA[12] -= Ud[2] * U[3]; IA[13] -= Ud[2] * U[4]; IA[14] -= Ud[2] * U[5];
    IA[15] -= Ud[3] * U[3]; IA[16] -= Ud[3] * U[4]; IA[17] -= Ud[3] * U[5];
    IA[18] -= Ud[4] * U[4]; IA[19] -= Ud[4] * U[5]; IA[20] -= Ud[5] * U[5];
    // clang-format on
    for (int k = 0; k < 21; k++) IAp[k] += IA[k];

    // pa = pA + Ia c + U u / D
    double Iac[6];
    salto_s6_mul(Iac, IA, d->c + 6 * i);
    for (int t = 0; t < 6; t++) pAp[t] += pA[t] + Iac[t] + Ud[t] * u;
    return SALTO_OK;
}


// ABA's pass 3 at free link i (A holding A_p + c_i): qdd_i = (u_i - U_i . A) / D_i, A += S_i
// qdd_i; 0 when qdd_i is not finite
static inline int aba_free_accel(salto_data* d, int i, double* A) {
    const double qdd = (d->u[i] - salto_sv_dot(d->U + 6 * i, A)) * d->Dinv[i];
    if (!isfinite(qdd)) return 0;
    d->qdd[i] = qdd;
    const double* S = d->S + 6 * i;
    for (int t = 0; t < 6; t++) A[t] += S[t] * qdd;
    return 1;
}


salto_status salto_aba(const salto_model* m, salto_data* d, const double* fext) {
    const int nv = m->nv;
    aba_pass1(m, d, fext); // IA_i = I_i, pA_i = V_i x* I_i V_i - f_ext,i

    // pass 2, leaf to base (aba_free_link)
    for (int t = 0; t < 21; t++) d->IA[t - 21] = 0.0;
    for (int t = 0; t < 6; t++) d->pA[t - 6] = 0.0;
    for (int i = nv - 1; i >= 0; i--) {
        const salto_status st = aba_free_link(m, d, i);
        if (st != SALTO_OK) return st;
    }

    // pass 3, base to leaf: A'_i = A_p + c_i, qdd_i = (u_i - U_i . A'_i) / D_i, A_i = A'_i + S_i qdd_i
    for (int i = 0; i < nv; i++) {
        const double* Ap = d->A + 6 * m->link_parent[i];
        const double* c = d->c + 6 * i;
        double* A = d->A + 6 * i;
        for (int t = 0; t < 6; t++) A[t] = Ap[t] + c[t];
        if (!aba_free_accel(d, i, A)) return SALTO_ERR_NUMERIC;
    }
    return SALTO_OK;
}


salto_status salto_aba_hybrid(const salto_model* m, salto_data* d, const double* fext,
                               const unsigned char* given) {
    const int nv = m->nv;
    aba_pass1(m, d, fext);

    // pass 2, leaf to base. A free joint as salto_aba's; a given one passes its whole
    // articulated inertia on (nothing is free across it) with the bias of its known motion:
    // IA_p += IA, pA_p += pA + IA (c + S qdd) (RBDA 9.2, Table 9.6). IA and pA of a given
    // joint stay its own, for its torque in pass 3.
    for (int t = 0; t < 21; t++) d->IA[t - 21] = 0.0;
    for (int t = 0; t < 6; t++) d->pA[t - 6] = 0.0;
    for (int i = nv - 1; i >= 0; i--) {
        double* restrict IA = d->IA + 21 * i;
        const double* restrict pA = d->pA + 6 * i;
        const double* restrict S = d->S + 6 * i;
        const int par = m->link_parent[i];
        double* restrict IAp = d->IA + 21 * par;
        double* restrict pAp = d->pA + 6 * par;
        if (given[i]) {
            double a[6], Ia[6];
            for (int t = 0; t < 6; t++) a[t] = d->c[6 * i + t] + S[t] * d->qdd[i];
            salto_s6_mul(Ia, IA, a);
            for (int k = 0; k < 21; k++) IAp[k] += IA[k];
            for (int t = 0; t < 6; t++) pAp[t] += pA[t] + Ia[t];
            continue;
        }
        const salto_status st = aba_free_link(m, d, i);
        if (st != SALTO_OK) return st;
    }

    // pass 3, base to leaf: a free joint's qdd as salto_aba's; a given joint's motion known,
    // its torque tau = S . (IA A + pA), the force its articulated body needs
    for (int i = 0; i < nv; i++) {
        const double* Ap = d->A + 6 * m->link_parent[i];
        const double* S = d->S + 6 * i;
        const double* c = d->c + 6 * i;
        double* A = d->A + 6 * i;
        for (int t = 0; t < 6; t++) A[t] = Ap[t] + c[t];
        if (given[i]) {
            for (int t = 0; t < 6; t++) A[t] += S[t] * d->qdd[i];
            double f[6];
            salto_s6_mul(f, d->IA + 21 * i, A);
            for (int t = 0; t < 6; t++) f[t] += d->pA[6 * i + t];
            d->tau[i] = salto_sv_dot(S, f);
            if (!isfinite(d->tau[i])) return SALTO_ERR_NUMERIC;
            continue;
        }
        if (!aba_free_accel(d, i, A)) return SALTO_ERR_NUMERIC;
    }
    return SALTO_OK;
}


void salto_aba_delta(const salto_model* m, const salto_data* d, int link, const double f[6],
                     double* dqdd, double* dA) {
    const int nv = m->nv;
    // inbound, up the link's path: dpA_link = -f; du_i = -S_i . dpA_i,
    // dpA_parent += dpA_i + U_i du_i / D_i (every other link's dpA and du stay zero). The du
    // of the path is kept in dqdd until the outbound pass overwrites it.
    for (int i = 0; i < nv; i++) dqdd[i] = 0.0;
    double dp[6];
    for (int t = 0; t < 6; t++) dp[t] = f ? -f[t] : 0.0;
    for (int i = link; i >= 0; i = m->link_parent[i]) {
        // (a unit generalised force on DOF `link` instead: du = 1 there, dpA_link = 0)
        const double du = !f && i == link ? 1.0 : -salto_sv_dot(d->S + 6 * i, dp);
        dqdd[i] = du;
        const double* U = d->U + 6 * i;
        const double s = du * d->Dinv[i];
        for (int t = 0; t < 6; t++) dp[t] += U[t] * s;
    }
    // outbound: dA'_i = dA_parent, dqdd_i = (du_i - U_i . dA'_i) / D_i, dA_i = dA'_i + S_i dqdd_i
    for (int i = 0; i < nv; i++) {
        const int par = m->link_parent[i];
        double* A = dA + 6 * i;
        if (par >= 0) {
            for (int t = 0; t < 6; t++) A[t] = dA[6 * par + t];
        } else {
            for (int t = 0; t < 6; t++) A[t] = 0.0;
        }
        const double q = (dqdd[i] - salto_sv_dot(d->U + 6 * i, A)) * d->Dinv[i];
        dqdd[i] = q;
        for (int t = 0; t < 6; t++) A[t] += d->S[6 * i + t] * q;
    }
}


void salto_contact_torques(const salto_model* m, const salto_data* d, int nw, const int* link,
                           const double* w, double* tau) {
    for (int j = 0; j < m->nv; j++) tau[j] = salto_sv_dot(d->S + 6 * j, d->F + 6 * j);
    for (int b = 0; b < nw; b++) {
        for (int j = link[b]; j >= 0; j = m->link_parent[j]) tau[j] -= salto_sv_dot(d->S + 6 * j, w + 6 * b);
    }
}


void salto_impulse(const salto_model* m, salto_data* d, int body, const double* u, double* res,
                   double iota[6]) {
    salto_impulse_shared(m, d, body >= 0 ? 1 : 0, &body, NULL, u, res, iota);
}


void salto_impulse_shared(const salto_model* m, salto_data* d, int nb, const int* link,
                          const double* xi, const double* u, double* res, double iota[6]) {
    const int nv = m->nv;
    SALTO_ASSERT(nb >= 0 && nb <= 8);
    double f00[6];
    memset(d->qd, 0, (size_t)nv * sizeof(double));
    memset(d->qdd, 0, (size_t)nv * sizeof(double));
    salto_rnea(m, d, d->tau); // at u = 0: gravity's part, carried by link[0]
    memcpy(f00, d->f0, sizeof f00);
    if (nb > 0) salto_contact_torques(m, d, 1, link, f00, d->tau);
    memcpy(d->qdd, u, (size_t)nv * sizeof(double));
    salto_rnea(m, d, res);
    double w[6 * 8];
    memcpy(w, d->f0, 6 * sizeof(double)); // the aggregate, less the others' shares
    for (int b = 1; b < nb; b++) {
        for (int k = 0; k < 6; k++) w[k] -= xi[6 * (b - 1) + k], w[6 * b + k] = xi[6 * (b - 1) + k];
    }
    if (nb > 0) salto_contact_torques(m, d, nb, link, w, res);
    for (int j = 0; j < nv; j++) res[j] -= d->tau[j];
    for (int k = 0; k < 6; k++) iota[k] = d->f0[k] - f00[k];
}


// L = lam . M u - Lambda_l0 . w0 - sum_b Lambda_lb . xi_b + mu . iota with w0 = iota - sum_b
// xi_b (res's contact part: an impulse w on link l costs S_j . w at every joint j on its path,
// and sum_{j on the path} lam_j S_j is Lambda_l), so with kappa = mu - Lambda_l0:
//   dL/du_j  = S_j . (Hl_j + Ic_j kappa)
//   dL/dxi_b = Lambda_l0 - Lambda_lb
//   dL/dq_k  = -(S_k x Lambda_p) . Hu_k - (S_k x U_p) . Hl_k + kappa . (S_k x* Hu_k + Ic_k (U_p x S_k))
//              - [k on l0's path] (S_k x (Lambda_l0 - Lambda_p)) . w0
//              - sum_b [k on lb's path] (S_k x (Lambda_lb - Lambda_p)) . xi_b
// where p is k's parent (zero velocities at the world) and Hu_k, Hl_k, Ic_k are sub(k)'s sums of
// I_i U_i, I_i Lambda_i and I_i: a change of q_k moves sub(k) rigidly by S_k, which leaves
// each pairing Lambda_i . I_i U_i unchanged, except that Lambda_i and U_i move by S_k x
// (Lambda_i - Lambda_p) and S_k x (U_i - U_p), not by S_k x Lambda_i and S_k x U_i.
void salto_impulse_grad(const salto_model* m, salto_data* d, int nb, const int* link,
                        const double* xi, const double* u, const double* lam, const double mu[6],
                        double* gq, double* gu, double* gxi) {
    const int nv = m->nv;
    SALTO_ASSERT(nb >= 0 && nb <= 8 && d->nwork >= 28 * nv);
    memcpy(d->qd, u, (size_t)nv * sizeof(double));
    salto_fk(m, d, SALTO_FK_VEL); // S, and V = U
    salto_link_inertias(m, d);
    double* La = d->work;     // Lambda_i (6 nv)
    double* Hu = La + 6 * nv; // sub(i)'s sums (6 nv, 6 nv, 10 nv)
    double* Hl = Hu + 6 * nv;
    double* Ic = Hl + 6 * nv;
    for (int i = 0; i < nv; i++) {
        const int par = m->link_parent[i];
        double* L = La + 6 * i;
        for (int t = 0; t < 6; t++) L[t] = (par >= 0 ? La[6 * par + t] : 0.0) + d->S[6 * i + t] * lam[i];
        salto_si_mul(Hu + 6 * i, d->I + 10 * i, d->V + 6 * i);
        salto_si_mul(Hl + 6 * i, d->I + 10 * i, L);
        memcpy(Ic + 10 * i, d->I + 10 * i, 10 * sizeof(double));
    }
    double iota[6] = {0, 0, 0, 0, 0, 0};
    for (int i = nv - 1; i >= 0; i--) {
        const int par = m->link_parent[i];
        if (par >= 0) {
            salto_sv_add_to(Hu + 6 * par, Hu + 6 * i);
            salto_sv_add_to(Hl + 6 * par, Hl + 6 * i);
            salto_si_add_to(Ic + 10 * par, Ic + 10 * i);
        } else {
            salto_sv_add_to(iota, Hu + 6 * i);
        }
    }
    static const double zero[6] = {0, 0, 0, 0, 0, 0};
    const double* L0 = nb > 0 ? La + 6 * link[0] : zero;
    double kappa[6], w0[6];
    for (int t = 0; t < 6; t++) kappa[t] = mu[t] - L0[t], w0[t] = iota[t];
    for (int b = 1; b < nb; b++) {
        for (int t = 0; t < 6; t++) w0[t] -= xi[6 * (b - 1) + t];
    }
    for (int j = 0; j < nv; j++) {
        double f[6];
        salto_si_mul(f, Ic + 10 * j, kappa);
        salto_sv_add_to(f, Hl + 6 * j);
        gu[j] = salto_sv_dot(d->S + 6 * j, f);
    }
    for (int b = 1; gxi && b < nb; b++) {
        for (int t = 0; t < 6; t++) gxi[6 * (b - 1) + t] = L0[t] - La[6 * link[b] + t];
    }
    for (int k = 0; k < nv; k++) {
        const int par = m->link_parent[k];
        const double* S = d->S + 6 * k;
        const double* Lp = par >= 0 ? La + 6 * par : zero;
        const double* Up = par >= 0 ? d->V + 6 * par : zero;
        double a[6], f[6], w[6];
        salto_sv_crossm(a, S, Lp);
        double g = -salto_sv_dot(a, Hu + 6 * k);
        salto_sv_crossm(a, S, Up);
        g -= salto_sv_dot(a, Hl + 6 * k);
        salto_sv_crossf(f, S, Hu + 6 * k);
        salto_sv_crossm(w, Up, S);
        salto_si_mul_add(f, Ic + 10 * k, w);
        g += salto_sv_dot(kappa, f);
        for (int b = 0; b < nb; b++) {
            const int l = link[b];
            if (l < k || l >= m->link_subtree_end[k]) continue; // k not on l's path
            double rel[6];
            for (int t = 0; t < 6; t++) rel[t] = La[6 * l + t] - Lp[t];
            salto_sv_crossm(a, S, rel);
            g -= salto_sv_dot(a, b == 0 ? w0 : xi + 6 * (b - 1));
        }
        gq[k] = g;
    }
}
