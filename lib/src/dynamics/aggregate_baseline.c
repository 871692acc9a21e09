// aggregate_baseline.c: the baselines behind salto_f0_jac: direct O(D^2) differentiation of
// the body-frame Newton-Euler equations, and finite differences (Fang & Pollard's NR1-NR3)
//
// The direct method is the textbook route the linear method is measured against (Fang &
// Pollard 2003, section 4.4): it runs the RNEA in body coordinates (RBDA Table 5.1, with
// transforms X_i from parent to link) and pushes a tangent through it for each of the 3D
// inputs. A tangent in q_j, qd_j or qdd_j touches the subtree of j on the way out and the path
// to the root on the way back, so a chain costs O(D^2). It is also an independent second
// implementation of inverse dynamics that the tests compare with the world-frame one.
#include <math.h>
#include <string.h>

#include "salto/aggregate.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"

#include "aggregate_priv.h"

// body-frame per-link record in d->work
enum { BF_E = 0, BF_R = 9, BF_S = 12, BF_V = 18, BF_A = 24, BF_F = 30, BF_I = 36,
       BF_DV = 46, BF_DA = 64, BF_DF = 82, BF_SIZE = 100 };

// X m: [E w; E (v - r x w)]
static void x_motion(double* out, const double* E, const double* r, const double* mvec) {
    double t[3];
    salto_v3_cross(t, r, mvec);
    const double u[3] = {mvec[3] - t[0], mvec[4] - t[1], mvec[5] - t[2]};
    salto_m3_mul_v3(out, E, mvec);
    salto_m3_mul_v3(out + 3, E, u);
}


// X' f: [E' n + r x E' f; E' f]
static void xt_force(double* out, const double* E, const double* r, const double* f) {
    double n[3], g[3];
    salto_m3t_mul_v3(n, E, f);
    salto_m3t_mul_v3(g, E, f + 3);
    salto_v3_cross_add(n, r, g);
    out[0] = n[0], out[1] = n[1], out[2] = n[2], out[3] = g[0], out[4] = g[1], out[5] = g[2];
}


// f = I a + v x* I v for the local inertia I
static void body_force(double* f, const double* I, const double* a, const double* v) {
    double h[6];
    salto_si_mul(f, I, a);
    salto_si_mul(h, I, v);
    salto_sv_crossf_add(f, v, h);
}


// df = I da + dv x* I v + v x* I dv
static void body_force_tangent(double* df, const double* I, const double* da, const double* dv,
                               const double* v) {
    double h[6];
    salto_si_mul(df, I, da);
    salto_si_mul(h, I, v);
    salto_sv_crossf_add(df, dv, h);
    salto_si_mul(h, I, dv);
    salto_sv_crossf_add(df, v, h);
}


// body-frame RNEA; fills the per-link records and d->f0
static void rnea_body(const salto_model* m, salto_data* d) {
    const int nv = m->nv;
    double* W = d->work;
    const double A0w[6] = {0, 0, 0, -m->gravity[0], -m->gravity[1], -m->gravity[2]};
    static const double zero6[6] = {0, 0, 0, 0, 0, 0};
    salto_fk(m, d, SALTO_FK_POS);

    for (int i = 0; i < nv; i++) {
        double* B = W + BF_SIZE * i;
        const int par = m->link_parent[i];
        const double* Ri = d->R + 9 * i;
        const double* pi = d->p + 3 * i;
        static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        static const double z3[3] = {0, 0, 0};
        const double* Rp = par >= 0 ? d->R + 9 * par : I3;
        const double* pp = par >= 0 ? d->p + 3 * par : z3;

        // E = R_i' R_p, r = R_p' (p_i - p_p)
        double RiT[9] = {Ri[0], Ri[3], Ri[6], Ri[1], Ri[4], Ri[7], Ri[2], Ri[5], Ri[8]};
        salto_m3_mul(B + BF_E, RiT, Rp);
        const double dp[3] = {pi[0] - pp[0], pi[1] - pp[1], pi[2] - pp[2]};
        salto_m3t_mul_v3(B + BF_R, Rp, dp);

        // local joint axis and local inertia about the link origin
        const double* ax = m->link_axis + 3 * i;
        double* S = B + BF_S;
        if (m->link_type[i] == SALTO_AXIS_REVOLUTE) {
            S[0] = ax[0], S[1] = ax[1], S[2] = ax[2], S[3] = S[4] = S[5] = 0.0;
        } else {
            S[0] = S[1] = S[2] = 0.0, S[3] = ax[0], S[4] = ax[1], S[5] = ax[2];
        }
        memcpy(B + BF_I, m->link_Iorigin + 10 * i, 10 * sizeof(double));

        // v = X v_p + S qd, a = X a_p + S qdd + v x S qd
        const double* vp = par >= 0 ? W + BF_SIZE * par + BF_V : zero6;
        const double* ap = par >= 0 ? W + BF_SIZE * par + BF_A : A0w;
        double* v = B + BF_V;
        double* a = B + BF_A;
        x_motion(v, B + BF_E, B + BF_R, vp);
        salto_sv_axpy(v, d->qd[i], S);
        x_motion(a, B + BF_E, B + BF_R, ap);
        salto_sv_axpy(a, d->qdd[i], S);
        double vs[6];
        salto_sv_crossm(vs, v, S);
        salto_sv_axpy(a, d->qd[i], vs);
        body_force(B + BF_F, B + BF_I, a, v);
    }

    memset(d->f0, 0, sizeof d->f0);
    for (int i = nv - 1; i >= 0; i--) {
        double* B = W + BF_SIZE * i;
        const int par = m->link_parent[i];
        double g[6];
        xt_force(g, B + BF_E, B + BF_R, B + BF_F);
        salto_sv_add_to(par >= 0 ? W + BF_SIZE * par + BF_F : d->f0, g);
    }
}


void salto_f0_jac_direct(const salto_model* m, salto_data* d, double* J) {
    const int nv = m->nv;
    const int ncol = 3 * nv;
    double* W = d->work;
    static const double zero6[6] = {0, 0, 0, 0, 0, 0};
    const double A0w[6] = {0, 0, 0, -m->gravity[0], -m->gravity[1], -m->gravity[2]};
    rnea_body(m, d);
    // F in the records now holds the accumulated joint forces (own force + children's)

    for (int j = 0; j < nv; j++) {
        const int end = m->link_subtree_end[j];
        const int par = m->link_parent[j];
        double* Bj = W + BF_SIZE * j;
        const double* S = Bj + BF_S;
        const double* vp = par >= 0 ? W + BF_SIZE * par + BF_V : zero6;
        const double* ap = par >= 0 ? W + BF_SIZE * par + BF_A : A0w;

        // seeds at link j for the directions q_j, qd_j, qdd_j (k = 0, 1, 2)
        double Xv[6], Xa[6];
        x_motion(Xv, Bj + BF_E, Bj + BF_R, vp);
        x_motion(Xa, Bj + BF_E, Bj + BF_R, ap);
        double* dv = Bj + BF_DV;
        double* da = Bj + BF_DA;
        // q: dv = -S x (X v_p), da = -S x (X a_p) + dv x S qd
        salto_sv_crossm(dv, Xv, S);
        salto_sv_crossm(da, Xa, S);
        double t[6];
        salto_sv_crossm(t, dv, S);
        salto_sv_axpy(da, d->qd[j], t);
        // qd: dv = S, da = v x S
        memcpy(dv + 6, S, 6 * sizeof(double));
        salto_sv_crossm(da + 6, Bj + BF_V, S);
        // qdd: dv = 0, da = S
        memset(dv + 12, 0, 6 * sizeof(double));
        memcpy(da + 12, S, 6 * sizeof(double));

        // out through the subtree: dv_i = X dv_p, da_i = X da_p + dv_i x S_i qd_i
        for (int i = j; i < end; i++) {
            double* B = W + BF_SIZE * i;
            if (i > j) {
                const double* Bp = W + BF_SIZE * m->link_parent[i];
                for (int k = 0; k < 3; k++) {
                    x_motion(B + BF_DV + 6 * k, B + BF_E, B + BF_R, Bp + BF_DV + 6 * k);
                    x_motion(B + BF_DA + 6 * k, B + BF_E, B + BF_R, Bp + BF_DA + 6 * k);
                    salto_sv_crossm(t, B + BF_DV + 6 * k, B + BF_S);
                    salto_sv_axpy(B + BF_DA + 6 * k, d->qd[i], t);
                }
            }
            for (int k = 0; k < 3; k++) {
                body_force_tangent(B + BF_DF + 6 * k, B + BF_I, B + BF_DA + 6 * k,
                                   B + BF_DV + 6 * k, B + BF_V);
            }
        }

        // back through the subtree: df_p += X' df_i
        for (int i = end - 1; i > j; i--) {
            double* B = W + BF_SIZE * i;
            double* Bp = W + BF_SIZE * m->link_parent[i];
            for (int k = 0; k < 3; k++) {
                double g[6];
                xt_force(g, B + BF_E, B + BF_R, B + BF_DF + 6 * k);
                salto_sv_add_to(Bp + BF_DF + 6 * k, g);
            }
        }

        // up the path to the world; at j the transform itself depends on q_j:
        // d(X' f)/dq_j = X' (S x* f)
        double g[3][6];
        for (int k = 0; k < 3; k++) memcpy(g[k], Bj + BF_DF + 6 * k, 6 * sizeof(double));
        salto_sv_crossf_add(g[0], S, Bj + BF_F);
        for (int i = j; i >= 0; i = m->link_parent[i]) {
            const double* B = W + BF_SIZE * i;
            for (int k = 0; k < 3; k++) {
                double h[6];
                xt_force(h, B + BF_E, B + BF_R, g[k]);
                memcpy(g[k], h, sizeof h);
            }
        }
        for (int r = 0; r < 6; r++) {
            J[(size_t)r * ncol + j] = g[0][r];
            J[(size_t)r * ncol + nv + j] = g[1][r];
            J[(size_t)r * ncol + 2 * nv + j] = g[2][r];
        }
    }
}


// ---- finite differences ----

void salto_f0_rnea(const salto_model* m, salto_data* d, double f0[6]) {
    salto_rnea(m, d, NULL);
    memcpy(f0, d->f0, 6 * sizeof(double));
}


static double* input_ptr(salto_data* d, int nv, int c) {
    if (c < nv) return d->q + c;
    if (c < 2 * nv) return d->qd + (c - nv);
    return d->qdd + (c - 2 * nv);
}


// central difference of f0 in input c with step h: (f(x + h) - f(x - h)) / (2h)
static void central(const salto_model* m, salto_data* d, int c, double h, double out[6]) {
    double* x = input_ptr(d, m->nv, c);
    const double x0 = *x;
    double fp[6], fm[6];
    *x = x0 + h;
    const double hp = *x - x0;
    salto_f0_rnea(m, d, fp);
    *x = x0 - h;
    const double hm = x0 - *x;
    salto_f0_rnea(m, d, fm);
    *x = x0;
    for (int r = 0; r < 6; r++) out[r] = (fp[r] - fm[r]) / (hp + hm);
}


void salto_f0_jac_fd(const salto_model* m, salto_data* d, salto_jac_method method, double* J) {
    const int nv = m->nv;
    const int ncol = 3 * nv;
    double f0[6];
    salto_f0_rnea(m, d, f0);
    for (int c = 0; c < ncol; c++) {
        double* x = input_ptr(d, nv, c);
        const double scale = fmax(1.0, fabs(*x));
        double col[6];
        if (method == SALTO_JAC_FD_FORWARD) {
            // h ~ sqrt(eps): truncation O(h) balances rounding O(eps / h)
            const double x0 = *x;
            *x = x0 + 1.5e-8 * scale;
            const double h = *x - x0;
            double fp[6];
            salto_f0_rnea(m, d, fp);
            *x = x0;
            for (int r = 0; r < 6; r++) col[r] = (fp[r] - f0[r]) / h;
        } else if (method == SALTO_JAC_FD_CENTRAL) {
            // h ~ eps^(1/3)
            central(m, d, c, 6e-6 * scale, col);
        } else {
            // Richardson: D(h), D(h/2), D(h/4) combined to cancel the h^2 and h^4 terms
            double D1[6], D2[6], D4[6];
            const double h = 1e-3 * scale;
            central(m, d, c, h, D1);
            central(m, d, c, 0.5 * h, D2);
            central(m, d, c, 0.25 * h, D4);
            for (int r = 0; r < 6; r++) {
                const double R1 = (4.0 * D2[r] - D1[r]) / 3.0;
                const double R2 = (4.0 * D4[r] - D2[r]) / 3.0;
                col[r] = (16.0 * R2 - R1) / 15.0;
            }
        }
        for (int r = 0; r < 6; r++) J[(size_t)r * ncol + c] = col[r];
    }
    // leave d at the unperturbed state
    salto_rnea(m, d, NULL);
}


int salto_f0_jac_direct_work(const salto_model* m) {
    return BF_SIZE * m->nv;
}
