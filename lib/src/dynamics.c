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

void salto_rnea(const salto_model* m, salto_data* d, double* tau) {
    const int nv = m->nv;
    salto_fk(m, d, SALTO_FK_ACC);
    salto_link_inertias(m, d);

    // forward: F_i = I_i A_i + V_i x* I_i V_i  (massless links carry nothing)
    for (int i = 0; i < nv; i++) {
        double* F = d->F + 6 * i;
        if (!m->link_massive[i]) {
            memset(F, 0, 6 * sizeof(double));
            continue;
        }
        const double* I = d->I + 10 * i;
        const double* V = d->V + 6 * i;
        double h[6];
        salto_si_mul(F, I, d->A + 6 * i);
        salto_si_mul(h, I, V);
        salto_sv_crossf_add(F, V, h);
    }

    // backward: tau_i = S_i . F_i, F_parent += F_i
    memset(d->f0, 0, sizeof d->f0);
    for (int i = nv - 1; i >= 0; i--) {
        const double* F = d->F + 6 * i;
        if (tau) tau[i] = salto_sv_dot(d->S + 6 * i, F);
        const int par = m->link_parent[i];
        salto_sv_add_to(par >= 0 ? d->F + 6 * par : d->f0, F);
    }
}


void salto_crba(const salto_model* m, salto_data* d, double* M) {
    const int nv = m->nv;
    salto_fk(m, d, SALTO_FK_POS);
    salto_link_inertias(m, d);
    memcpy(d->Ic, d->I, 10 * (size_t)nv * sizeof(double));
    for (int i = nv - 1; i >= 0; i--) {
        const int par = m->link_parent[i];
        if (par >= 0) salto_si_add_to(d->Ic + 10 * par, d->Ic + 10 * i);
    }
    memset(M, 0, (size_t)nv * (size_t)nv * sizeof(double));
    // M_ij = S_i . (Ic_j S_j) for every i on the path from j to the root
    for (int j = 0; j < nv; j++) {
        double F[6];
        salto_si_mul(F, d->Ic + 10 * j, d->S + 6 * j);
        for (int i = j; i >= 0; i = m->link_parent[i]) {
            const double v = salto_sv_dot(d->S + 6 * i, F);
            M[(size_t)i * nv + j] = v;
            M[(size_t)j * nv + i] = v;
        }
    }
}


void salto_point_force(double w[6], const double x[3], const double f[3]) {
    salto_v3_cross(w, x, f);
    w[3] = f[0], w[4] = f[1], w[5] = f[2];
}


salto_status salto_aba(const salto_model* m, salto_data* d, const double* fext) {
    const int nv = m->nv;
    salto_fk(m, d, SALTO_FK_VEL);
    salto_link_inertias(m, d);

    // pass 1: IA_i = I_i, pA_i = V_i x* I_i V_i - f_ext,i
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

    // pass 2, leaf to base: U = IA S, D = S . U, u = tau - S . pA;
    // IA_p += IA - U U' / D, pA_p += pA + IA c + U u / D (with IA already reduced, RBDA 7.3)
    for (int i = nv - 1; i >= 0; i--) {
        double* IA = d->IA + 21 * i;
        double* pA = d->pA + 6 * i;
        double* U = d->U + 6 * i;
        const double* S = d->S + 6 * i;
        salto_s6_mul(U, IA, S);
        const double D = salto_sv_dot(S, U);
        if (!(D > 0.0) || !isfinite(D)) return SALTO_ERR_NUMERIC;
        const double Dinv = 1.0 / D;
        const double u = d->tau[i] - salto_sv_dot(S, pA);
        d->Dinv[i] = Dinv;
        d->u[i] = u;
        const int par = m->link_parent[i];
        if (par < 0) continue;

        // Ia = IA - U U' / D; pa = pA + Ia c + U u / D
        double* IAp = d->IA + 21 * par;
        double* pAp = d->pA + 6 * par;
        int k = 0;
        for (int r = 0; r < 6; r++) {
            const double Ur = U[r] * Dinv;
            for (int s = r; s < 6; s++, k++) {
                const double v = IA[k] - Ur * U[s];
                IA[k] = v;
                IAp[k] += v;
            }
        }
        double Iac[6];
        salto_s6_mul(Iac, IA, d->c + 6 * i);
        const double uD = u * Dinv;
        for (int t = 0; t < 6; t++) pAp[t] += pA[t] + Iac[t] + U[t] * uD;
    }

    // pass 3, base to leaf: A'_i = A_p + c_i, qdd_i = (u_i - U_i . A'_i) / D_i, A_i = A'_i + S_i qdd_i
    const double A0[6] = {0, 0, 0, -m->gravity[0], -m->gravity[1], -m->gravity[2]};
    for (int i = 0; i < nv; i++) {
        const int par = m->link_parent[i];
        const double* Ap = par >= 0 ? d->A + 6 * par : A0;
        const double* U = d->U + 6 * i;
        const double* S = d->S + 6 * i;
        const double* c = d->c + 6 * i;
        double* A = d->A + 6 * i;
        for (int t = 0; t < 6; t++) A[t] = Ap[t] + c[t];
        const double qdd = (d->u[i] - salto_sv_dot(U, A)) * d->Dinv[i];
        if (!isfinite(qdd)) return SALTO_ERR_NUMERIC;
        d->qdd[i] = qdd;
        for (int t = 0; t < 6; t++) A[t] += S[t] * qdd;
    }
    return SALTO_OK;
}
