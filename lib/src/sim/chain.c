// chain.c: a body's joint chain (its one-DOF links from the parent body's frame): forward
// kinematics, the frame's Jacobian, and the coordinates that put the frame at a given place
// (chain_priv.h), for the particle ragdoll and the reactions
#include "chain_priv.h"

#include <math.h>
#include <string.h>

#include "linalg.h"
#include "salto/spatial.h"

// the rotation vector (axis times angle) of R
void salto_rot_log(double* v, const double* R) {
    const double c = 0.5 * (R[0] + R[4] + R[8] - 1.0);
    const double s3[3] = {R[7] - R[5], R[2] - R[6], R[3] - R[1]}; // 2 sin(t) u
    const double s = 0.5 * salto_v3_norm(s3);
    const double t = atan2(s, c > 1.0 ? 1.0 : (c < -1.0 ? -1.0 : c));
    if (s > 1e-9) {
        for (int k = 0; k < 3; k++) v[k] = 0.5 * s3[k] / s * t;
        return;
    }
    if (c > 0.0) { // near the identity: t ~ s
        for (int k = 0; k < 3; k++) v[k] = 0.5 * s3[k];
        return;
    }
    // near a half turn: u u' = (R + 1) / 2 on the diagonal's largest entry
    int k = 0;
    for (int j = 1; j < 3; j++) {
        if (R[4 * j] > R[4 * k]) k = j;
    }
    double u[3];
    for (int j = 0; j < 3; j++) u[j] = 0.5 * (R[3 * j + k] + R[3 * k + j]) + (j == k ? 1.0 : 0.0);
    const double n = salto_v3_norm(u);
    for (int j = 0; j < 3; j++) v[j] = u[j] / n * t;
}


// the links of body b's chain (first to last) into l; returns how many
int salto_chain_of(const salto_model* m, int b, int* l) {
    int n = 0, k = m->body_link[b];
    while (k >= 0 && m->link_body[k] == b && n < SALTO_MAXCHAIN) l[n++] = k, k = m->link_parent[k];
    for (int i = 0; i < n / 2; i++) {
        const int t = l[i];
        l[i] = l[n - 1 - i], l[n - 1 - i] = t;
    }
    return n;
}


// the chain's last frame from the parent's (Rp, pp) at q (indexed by link), and each link's
// world axis and origin, as salto_fk has them
void salto_chain_fk(const salto_model* m, const int* l, int n, const double* Rp, const double* pp,
                     const double* q, double* R, double* p, double (*u)[3], double (*o)[3]) {
    double Rc[9], pc[3];
    memcpy(Rc, Rp, sizeof Rc), memcpy(pc, pp, sizeof pc);
    for (int k = 0; k < n; k++) {
        const int i = l[k];
        double RJ[9], t[3];
        salto_m3_mul(RJ, Rc, m->link_Rtree + 9 * i);
        salto_m3_mul_v3(t, Rc, m->link_rtree + 3 * i);
        for (int a = 0; a < 3; a++) pc[a] += t[a];
        salto_m3_mul_v3(u[k], RJ, m->link_axis + 3 * i);
        memcpy(o[k], pc, sizeof pc);
        if (m->link_type[i] == SALTO_AXIS_REVOLUTE) {
            double Rq[9];
            salto_m3_axis_angle(Rq, m->link_axis + 3 * i, q[i]);
            salto_m3_mul(Rc, RJ, Rq);
        } else {
            memcpy(Rc, RJ, sizeof Rc);
            for (int a = 0; a < 3; a++) pc[a] += u[k][a] * q[i];
        }
    }
    memcpy(R, Rc, sizeof Rc), memcpy(p, pc, sizeof pc);
}


// The chain's frame's velocity per coordinate (6 x n, column k at J + 6 k: the world angular
// velocity, then the velocity of its origin pc): a revolute link turns the frame about its
// world axis u and moves pc by u x (pc - o), a prismatic one moves it along u
void salto_chain_jacobian(const salto_model* m, const int* l, int n, const double* pc,
                           const double (*u)[3], const double (*o)[3], double* J) {
    for (int k = 0; k < n; k++) {
        double* c = J + 6 * k;
        if (m->link_type[l[k]] == SALTO_AXIS_REVOLUTE) {
            const double r3[3] = {pc[0] - o[k][0], pc[1] - o[k][1], pc[2] - o[k][2]};
            memcpy(c, u[k], 3 * sizeof(double));
            salto_v3_cross(c + 3, u[k], r3);
        } else {
            c[0] = c[1] = c[2] = 0.0;
            memcpy(c + 3, u[k], 3 * sizeof(double));
        }
    }
}


// The chain's coordinates in q (its links' entries, from their values there) that put its
// last frame at (R, p) from the parent's (Rp, pp): Gauss-Newton on the rotation's error (and
// the position's, when the chain has a prismatic link). Returns the error left (rad, m).
double salto_chain_ik(const salto_model* m, int b, const double* Rp, const double* pp,
                       const double* R, const double* p, double* q) {
    int l[SALTO_MAXCHAIN];
    const int n = salto_chain_of(m, b, l);
    int lin = 0;
    for (int k = 0; k < n; k++) lin |= m->link_type[l[k]] != SALTO_AXIS_REVOLUTE;
    const int rows = lin ? 6 : 3;
    double err = INFINITY;
    for (int it = 0; it < 60; it++) {
        double Rc[9], pc[3], u[SALTO_MAXCHAIN][3], o[SALTO_MAXCHAIN][3], E[9], res[6];
        salto_chain_fk(m, l, n, Rp, pp, q, Rc, pc, u, o);
        // E = Rc R' (the world rotation from where it should be to where it is)
        salto_m3_mul_t(E, Rc, R);
        salto_rot_log(res, E);
        for (int a = 0; lin && a < 3; a++) res[3 + a] = pc[a] - p[a];
        err = 0.0;
        for (int a = 0; a < rows; a++) err = fmax(err, fabs(res[a]));
        if (err < 1e-13) break;
        double J[6 * SALTO_MAXCHAIN], A[SALTO_MAXCHAIN * SALTO_MAXCHAIN], g[SALTO_MAXCHAIN];
        salto_chain_jacobian(m, l, n, pc, (const double(*)[3])u, (const double(*)[3])o, J);
        // damped by 1e-9 of J'J's trace (near a chain's singularity, as a root's Euler angles at
        // a roll of 90 degrees, the undamped step goes almost anywhere), each step at most 0.5
        // rad, so that the coordinates stay near the last ones
        double tr = 0.0;
        for (int i = 0; i < n; i++) {
            for (int a = 0; a < rows; a++) tr += J[6 * i + a] * J[6 * i + a];
        }
        for (int i = 0; i < n; i++) {
            g[i] = 0.0;
            for (int a = 0; a < rows; a++) g[i] -= J[6 * i + a] * res[a];
            for (int j = 0; j < n; j++) {
                double s = i == j ? 1e-9 * tr + 1e-300 : 0.0;
                for (int a = 0; a < rows; a++) s += J[6 * i + a] * J[6 * j + a];
                A[n * i + j] = s;
            }
        }
        if (!salto_chol(A, n)) break;
        salto_chol_solve(A, n, g);
        double big = 0.0;
        for (int k = 0; k < n; k++) big = fmax(big, fabs(g[k]));
        const double scale = big > 0.5 ? 0.5 / big : 1.0;
        for (int k = 0; k < n; k++) q[l[k]] += scale * g[k];
        if (big < 1e-12) break; // at the least-squares answer (a residual the axes cannot take)
    }
    return err;
}


// ---- bodies ----
