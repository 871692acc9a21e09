// kinematics.c: world-frame forward kinematics, sites, centre of mass, momentum, energy
//
// Every quantity is kept in world coordinates about the world origin (as in RBDA 4.1's
// world-frame variant and Pinocchio's "universe" convention). With one-DOF links this makes
// the joint axis S_i a world vector that moves rigidly with its link, which is what the
// linear-time aggregate-force Jacobian needs (aggregate.c).
#include "salto/kinematics.h"

#include <string.h>

#include "salto/spatial.h"

// R = R_J Rot(e_k, t) for a coordinate axis k: column k is kept, the other two rotate
static inline void rotate_about_coordinate_axis(double* restrict R, const double* restrict RJ,
                                                int k, double c, double s) {
    switch (k) {
    case 0:
        for (int r = 0; r < 3; r++) {
            const double ca = RJ[3 * r + 1], cb = RJ[3 * r + 2];
            R[3 * r] = RJ[3 * r], R[3 * r + 1] = c * ca + s * cb, R[3 * r + 2] = c * cb - s * ca;
        }
        break;
    case 1:
        for (int r = 0; r < 3; r++) {
            const double ca = RJ[3 * r + 2], cb = RJ[3 * r];
            R[3 * r + 1] = RJ[3 * r + 1], R[3 * r + 2] = c * ca + s * cb, R[3 * r] = c * cb - s * ca;
        }
        break;
    default:
        for (int r = 0; r < 3; r++) {
            const double ca = RJ[3 * r], cb = RJ[3 * r + 1];
            R[3 * r + 2] = RJ[3 * r + 2], R[3 * r] = c * ca + s * cb, R[3 * r + 1] = c * cb - s * ca;
        }
        break;
    }
}


// V = V_p + S qd, c = V_p x (S qd); restrict-qualified parameters let the compiler keep the
// vectors in registers (a link is never its own parent)
static inline void velocity_step(double* restrict V, double* restrict c,
                                 const double* restrict Vp, const double* restrict S,
                                 double qd) {
    double sv[6];
    for (int t = 0; t < 6; t++) sv[t] = S[t] * qd;
    for (int t = 0; t < 6; t++) V[t] = Vp[t] + sv[t];
    salto_sv_crossm(c, Vp, sv);
}


// A = A_p + S qdd + c
static inline void acceleration_step(double* restrict A, const double* restrict Ap,
                                     const double* restrict S, const double* restrict c,
                                     double qdd) {
    for (int t = 0; t < 6; t++) A[t] = Ap[t] + S[t] * qdd + c[t];
}


// The loop body reads the parent's results and writes link i's; the restrict-qualified
// pointers tell the compiler that they never overlap (a link is never its own parent).
void salto_fk(const salto_model* m, salto_data* d, salto_fk_level level) {
    // the world accelerates at -g (gravity as a fictitious base acceleration, RBDA 5.3)
    double* A0 = d->A - 6;
    A0[0] = A0[1] = A0[2] = 0.0;
    A0[3] = -m->gravity[0], A0[4] = -m->gravity[1], A0[5] = -m->gravity[2];

    for (int i = 0; i < m->nv; i++) {
        const int par = m->link_parent[i];
        const double* restrict Rp = d->R + 9 * par;
        const double* restrict pp = d->p + 3 * par;
        double* restrict R = d->R + 9 * i;
        double* restrict p = d->p + 3 * i;
        double* restrict S = d->S + 6 * i;
        const double* rtree = m->link_rtree + 3 * i;
        const double qi = d->q[i];

        // joint frame: R_J = R_p R_tree, p_J = p_p + R_p r_tree
        double RJbuf[9];
        const double* restrict RJ = Rp;
        if (m->link_tree_rot[i]) {
            salto_m3_mul(RJbuf, Rp, m->link_Rtree + 9 * i);
            RJ = RJbuf;
        }
        double px = pp[0], py = pp[1], pz = pp[2];
        if (m->link_offset[i]) {
            px += Rp[0] * rtree[0] + Rp[1] * rtree[1] + Rp[2] * rtree[2];
            py += Rp[3] * rtree[0] + Rp[4] * rtree[1] + Rp[5] * rtree[2];
            pz += Rp[6] * rtree[0] + Rp[7] * rtree[1] + Rp[8] * rtree[2];
        }

        // world axis u = R_J axis
        double u[3];
        const int k = m->link_axis_k[i];
        if (k >= 0) {
            u[0] = RJ[k], u[1] = RJ[3 + k], u[2] = RJ[6 + k];
        } else {
            salto_m3_mul_v3(u, RJ, m->link_axis + 3 * i);
        }

        if (m->link_type[i] == SALTO_AXIS_REVOLUTE) {
            // R = R_J Rot(axis, q); S = [u; p x u]
            if (k >= 0) {
                double sn, cs;
                salto_sincos(qi, &sn, &cs);
                rotate_about_coordinate_axis(R, RJ, k, cs, sn);
            } else {
                double Rq[9];
                salto_m3_axis_angle(Rq, m->link_axis + 3 * i, qi);
                salto_m3_mul(R, RJ, Rq);
            }
            S[0] = u[0], S[1] = u[1], S[2] = u[2];
            S[3] = py * u[2] - pz * u[1];
            S[4] = pz * u[0] - px * u[2];
            S[5] = px * u[1] - py * u[0];
        } else {
            // R = R_J; p += u q; S = [0; u]
            for (int t = 0; t < 9; t++) R[t] = RJ[t];
            px += u[0] * qi, py += u[1] * qi, pz += u[2] * qi;
            S[0] = S[1] = S[2] = 0.0;
            S[3] = u[0], S[4] = u[1], S[5] = u[2];
        }
        p[0] = px, p[1] = py, p[2] = pz;
        if (level == SALTO_FK_POS) continue;

        // V = V_p + S qd;  c = (V_p x S) qd  (= (V x S) qd, as S x S = 0)
        // A = A_p + S qdd + c
        velocity_step(d->V + 6 * i, d->c + 6 * i, d->V + 6 * par, S, d->qd[i]);
        if (level == SALTO_FK_VEL) continue;
        acceleration_step(d->A + 6 * i, d->A + 6 * par, S, d->c + 6 * i, d->qdd[i]);
    }
}


void salto_link_inertias(const salto_model* m, salto_data* d) {
    for (int i = 0; i < m->nv; i++) {
        double* restrict I = d->I + 10 * i;
        if (!m->link_massive[i]) {
            for (int t = 0; t < 10; t++) I[t] = 0.0;
            continue;
        }
        const double* restrict L = m->link_inertia + 10 * i;
        const double* restrict R = d->R + 9 * i;
        const double* restrict p = d->p + 3 * i;
        const double mass = L[0];

        // world com: c = p + R c_local
        double cw[3];
        salto_m3_mul_v3(cw, R, L + 1);
        cw[0] += p[0], cw[1] += p[1], cw[2] += p[2];

        // I_com in the world: R J R'  (J symmetric; diagonal J skips the products)
        const double* J = L + 4;
        double RJ[9];
        if (J[3] == 0.0 && J[4] == 0.0 && J[5] == 0.0) {
            for (int r = 0; r < 3; r++) {
                RJ[3 * r] = R[3 * r] * J[0];
                RJ[3 * r + 1] = R[3 * r + 1] * J[1];
                RJ[3 * r + 2] = R[3 * r + 2] * J[2];
            }
        } else {
            const double Jf[9] = {J[0], J[3], J[4], J[3], J[1], J[5], J[4], J[5], J[2]};
            salto_m3_mul(RJ, R, Jf);
        }
        const double cc = cw[0] * cw[0] + cw[1] * cw[1] + cw[2] * cw[2];

        // about the origin: Ibar = I_com + m (|c|^2 1 - c c')  (parallel axis theorem)
        I[0] = mass;
        I[1] = mass * cw[0], I[2] = mass * cw[1], I[3] = mass * cw[2];
        I[4] = RJ[0] * R[0] + RJ[1] * R[1] + RJ[2] * R[2] + mass * (cc - cw[0] * cw[0]);
        I[5] = RJ[3] * R[3] + RJ[4] * R[4] + RJ[5] * R[5] + mass * (cc - cw[1] * cw[1]);
        I[6] = RJ[6] * R[6] + RJ[7] * R[7] + RJ[8] * R[8] + mass * (cc - cw[2] * cw[2]);
        I[7] = RJ[0] * R[3] + RJ[1] * R[4] + RJ[2] * R[5] - mass * cw[0] * cw[1];
        I[8] = RJ[0] * R[6] + RJ[1] * R[7] + RJ[2] * R[8] - mass * cw[0] * cw[2];
        I[9] = RJ[3] * R[6] + RJ[4] * R[7] + RJ[5] * R[8] - mass * cw[1] * cw[2];
    }
}


// the frame a site or geometry is attached to: a link's, or a welded body's
static void frame_of(const salto_model* m, const salto_data* d, int link, int body,
                     const double** R, const double** p) {
    if (link >= 0) {
        *R = d->R + 9 * link;
        *p = d->p + 3 * link;
    } else {
        *R = m->body_world + 12 * body;
        *p = m->body_world + 12 * body + 9;
    }
}


void salto_body_frame(const salto_model* m, const salto_data* d, int k, const double** R,
                      const double** p) {
    const int l = m->body_link[k];
    if (l >= 0) {
        *R = d->R + 9 * l;
        *p = d->p + 3 * l;
    } else {
        *R = m->body_world + 12 * k;
        *p = m->body_world + 12 * k + 9;
    }
}


void salto_site_pos(const salto_model* m, const salto_data* d, int site, double pos[3]) {
    const double* R;
    const double* p;
    frame_of(m, d, m->site_link[site], m->site_body[site], &R, &p);
    salto_m3_mul_v3(pos, R, m->site_pos + 3 * site);
    pos[0] += p[0], pos[1] += p[1], pos[2] += p[2];
}


void salto_site_vel(const salto_model* m, const salto_data* d, int site, double vel[3]) {
    const int l = m->site_link[site];
    if (l < 0) {
        vel[0] = vel[1] = vel[2] = 0.0;
        return;
    }
    // v_x = v_O + w x x
    double x[3];
    salto_site_pos(m, d, site, x);
    const double* V = d->V + 6 * l;
    salto_v3_cross(vel, V, x);
    vel[0] += V[3], vel[1] += V[4], vel[2] += V[5];
}


void salto_site_acc(const salto_model* m, const salto_data* d, int site, double acc[3]) {
    const int l = m->site_link[site];
    if (l < 0) {
        acc[0] = acc[1] = acc[2] = 0.0;
        return;
    }
    // classical acceleration from the spatial one (RBDA 2.11):
    // a_x = a_O + wd x x + w x v_x, with a_O corrected for the -g base acceleration
    double x[3], vx[3];
    salto_site_pos(m, d, site, x);
    salto_site_vel(m, d, site, vx);
    const double* V = d->V + 6 * l;
    const double* A = d->A + 6 * l;
    salto_v3_cross(acc, A, x);
    salto_v3_cross_add(acc, V, vx);
    for (int t = 0; t < 3; t++) acc[t] += A[3 + t] + m->gravity[t];
}


void salto_point_jac(const salto_model* m, const salto_data* d, int link, const double x[3],
                     double* J) {
    const int nv = m->nv;
    memset(J, 0, 3 * (size_t)nv * sizeof(double));
    // column j = S_j,lin + S_j,ang x x for each link on the path to the root
    for (int j = link; j >= 0; j = m->link_parent[j]) {
        const double* S = d->S + 6 * j;
        double col[3];
        salto_v3_cross(col, S, x);
        J[j] = col[0] + S[3];
        J[nv + j] = col[1] + S[4];
        J[2 * nv + j] = col[2] + S[5];
    }
}


void salto_site_jac(const salto_model* m, const salto_data* d, int site, double* J) {
    double x[3];
    salto_site_pos(m, d, site, x);
    salto_point_jac(m, d, m->site_link[site], x, J);
}


void salto_momentum(const salto_model* m, const salto_data* d, double h[6]) {
    memset(h, 0, 6 * sizeof(double));
    for (int i = 0; i < m->nv; i++) {
        if (m->link_massive[i]) salto_si_mul_add(h, d->I + 10 * i, d->V + 6 * i);
    }
}


void salto_com(const salto_model* m, const salto_data* d, double com[3], double comvel[3]) {
    double hsum[3] = {0, 0, 0};
    for (int i = 0; i < m->nv; i++) {
        for (int t = 0; t < 3; t++) hsum[t] += d->I[10 * i + 1 + t];
    }
    for (int t = 0; t < 3 && com; t++) com[t] = hsum[t] / m->mass;
    if (!comvel) return; // the momentum only when the velocity is asked for
    double mom[6];
    salto_momentum(m, d, mom);
    for (int t = 0; t < 3; t++) comvel[t] = mom[3 + t] / m->mass;
}


void salto_energy(const salto_model* m, const salto_data* d, double* kinetic,
                  double* potential) {
    double ke = 0.0, pe = 0.0;
    for (int i = 0; i < m->nv; i++) {
        if (!m->link_massive[i]) continue;
        double Iv[6];
        salto_si_mul(Iv, d->I + 10 * i, d->V + 6 * i);
        ke += 0.5 * salto_sv_dot(d->V + 6 * i, Iv);
        // U = -m g . c = -g . h
        pe -= salto_v3_dot(m->gravity, d->I + 10 * i + 1);
    }
    if (kinetic) *kinetic = ke;
    if (potential) *potential = pe;
}


// Perturbing q_k moves the subtree of k rigidly by the screw S_k, and with it the velocities
// and accelerations relative to k's parent p; the parent's own motion is unchanged:
//   dV_l/dq_k = S_k x (V_l - V_p)
//   dA_l/dq_k = S_k x (A_l - A_p) + (V_p x S_k) x (V_l - V_p)
//   dV_l/dqd_k = S_k,  dA_l/dqd_k = V_p x S_k + S_k x (V_l - V_p)
// (x the spatial motion cross product; the last terms are the changed velocity products
// V_i x S_i qd_i of the links between k and l). A site x on l has v = v_O + w x x and the
// classical acceleration a = a_O + alpha x x + w x v; their derivatives follow by the product
// rule, with dx/dq_k = J_k = S_k,ang x x + S_k,lin.
void salto_site_motion_deriv(const salto_model* m, const salto_data* d, int site, double* dq_vel,
                             double* dq_acc, double* dqd_acc) {
    double x[3];
    salto_site_pos(m, d, site, x);
    salto_point_motion_deriv(m, d, m->site_link[site], x, dq_vel, dq_acc, dqd_acc);
}


void salto_point_vel(const salto_data* d, int link, const double x[3], double v[3]) {
    if (link < 0) {
        v[0] = v[1] = v[2] = 0.0;
        return;
    }
    const double* V = d->V + 6 * link;
    salto_v3_cross(v, V, x);
    for (int k = 0; k < 3; k++) v[k] += V[3 + k];
}


void salto_point_motion_deriv(const salto_model* m, const salto_data* d, int l, const double x[3],
                              double* dq_vel, double* dq_acc, double* dqd_acc) {
    const int nv = m->nv;
    if (dq_vel) memset(dq_vel, 0, 3 * (size_t)nv * sizeof(double));
    if (dq_acc) memset(dq_acc, 0, 3 * (size_t)nv * sizeof(double));
    if (dqd_acc) memset(dqd_acc, 0, 3 * (size_t)nv * sizeof(double));
    if (l < 0) return;
    double v[3];
    salto_point_vel(d, l, x, v);
    const double* Vl = d->V + 6 * l;
    const double* Al = d->A + 6 * l;
    static const double zero6[6] = {0, 0, 0, 0, 0, 0};
    for (int k = l; k >= 0; k = m->link_parent[k]) {
        const double* S = d->S + 6 * k;
        const int p = m->link_parent[k];
        const double* Vp = p >= 0 ? d->V + 6 * p : zero6;
        double U[6], dV[6], Jk[3], dv[3];
        for (int i = 0; i < 6; i++) U[i] = Vl[i] - Vp[i];
        salto_sv_crossm(dV, S, U);
        salto_v3_cross(Jk, S, x);
        for (int i = 0; i < 3; i++) Jk[i] += S[3 + i];
        // dv/dq_k = dV_lin + dV_ang x x + w x J_k
        salto_v3_cross(dv, dV, x);
        salto_v3_cross_add(dv, Vl, Jk);
        for (int i = 0; i < 3; i++) dv[i] += dV[3 + i];
        if (dq_vel) {
            for (int i = 0; i < 3; i++) dq_vel[i * nv + k] = dv[i];
        }
        if (!dq_acc && !dqd_acc) continue;
        double Ap[6] = {0, 0, 0, -m->gravity[0], -m->gravity[1], -m->gravity[2]}; // the base
        if (p >= 0) memcpy(Ap, d->A + 6 * p, sizeof Ap);
        double B[6], dA[6], VpS[6], t6[6], dAd[6], r[3];
        for (int i = 0; i < 6; i++) B[i] = Al[i] - Ap[i];
        salto_sv_crossm(dA, S, B);
        salto_sv_crossm(VpS, Vp, S);
        salto_sv_crossm(t6, VpS, U);
        for (int i = 0; i < 6; i++) dA[i] += t6[i], dAd[i] = dV[i] + VpS[i];
        // da/dq_k = dA_lin + dA_ang x x + alpha x J_k + dV_ang x v + w x dv
        salto_v3_cross(r, dA, x);
        salto_v3_cross_add(r, Al, Jk);
        salto_v3_cross_add(r, dV, v);
        salto_v3_cross_add(r, Vl, dv);
        if (dq_acc) {
            for (int i = 0; i < 3; i++) dq_acc[i * nv + k] = r[i] + dA[3 + i];
        }
        // da/dqd_k = dAd_lin + dAd_ang x x + S_ang x v + w x J_k (dv/dqd_k = J_k)
        salto_v3_cross(r, dAd, x);
        salto_v3_cross_add(r, S, v);
        salto_v3_cross_add(r, Vl, Jk);
        if (dqd_acc) {
            for (int i = 0; i < 3; i++) dqd_acc[i * nv + k] = r[i] + dAd[3 + i];
        }
    }
}


void salto_site_vel_deriv(const salto_model* m, const salto_data* d, int site, double* dq) {
    salto_site_motion_deriv(m, d, site, dq, NULL, NULL);
}


void salto_site_acc_deriv(const salto_model* m, const salto_data* d, int site, double* dq,
                          double* dqd) {
    salto_site_motion_deriv(m, d, site, NULL, dq, dqd);
}


// x = R a + p
static void geom_to_world(double x[3], const double* R, const double* p, const double a[3]) {
    salto_m3_mul_v3(x, R, a);
    x[0] += p[0], x[1] += p[1], x[2] += p[2];
}


// the points that outline geometry g in the world (capsule: 2 ends, sphere: centre, box: 8
// corners), and the radius to draw around them (0 for boxes); returns the point count
int salto_geom_local_points(const salto_model* m, int g, double pts[8][3], double* radius) {
    const double* gd = m->geom_data + 7 * g;
    switch (m->geom_shape[g]) {
    case SALTO_GEOM_CAPSULE:
        memcpy(pts[0], gd, 3 * sizeof(double));
        memcpy(pts[1], gd + 3, 3 * sizeof(double));
        *radius = gd[6];
        return 2;
    case SALTO_GEOM_SPHERE:
        memcpy(pts[0], gd, 3 * sizeof(double));
        *radius = gd[6];
        return 1;
    default:
        for (int c = 0; c < 8; c++) {
            for (int a = 0; a < 3; a++) pts[c][a] = gd[a] + ((c >> a) & 1 ? gd[3 + a] : -gd[3 + a]);
        }
        *radius = 0.0;
        return 8;
    }
}


int salto_geom_points(const salto_model* m, const salto_data* d, int g, double pts[8][3],
                      double* radius) {
    const double* R;
    const double* p;
    salto_body_frame(m, d, m->geom_body[g], &R, &p);
    double loc[8][3];
    const int n = salto_geom_local_points(m, g, loc, radius);
    for (int c = 0; c < n; c++) geom_to_world(pts[c], R, p, loc[c]);
    return n;
}


void salto_body_relative(const salto_model* m, const salto_data* d, int k, double Rrel[9],
                         double t[3]) {
    const double* R;
    const double* p;
    salto_body_frame(m, d, k, &R, &p);
    const int par = m->body_parent[k];
    if (par < 0) {
        memcpy(Rrel, R, 9 * sizeof(double));
        memcpy(t, p, 3 * sizeof(double));
        return;
    }
    const double* Rp;
    const double* pp;
    salto_body_frame(m, d, par, &Rp, &pp);
    // R_rel = R_p' R
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            Rrel[3 * i + j] = Rp[i] * R[j] + Rp[3 + i] * R[3 + j] + Rp[6 + i] * R[6 + j];
        }
    }
    const double dp[3] = {p[0] - pp[0], p[1] - pp[1], p[2] - pp[2]};
    salto_m3t_mul_v3(t, Rp, dp);
}
