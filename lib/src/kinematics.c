// kinematics.c: world-frame forward kinematics, sites, centre of mass, momentum, energy
//
// Every quantity is kept in world coordinates about the world origin (as in RBDA 4.1's
// world-frame variant and Pinocchio's "universe" convention). With one-DOF links this makes
// the joint axis S_i a world vector that moves rigidly with its link, which is what the
// linear-time aggregate-force Jacobian needs (aggregate.c).
#include "salto/kinematics.h"

#include <string.h>

#include "salto/spatial.h"

// R = R_J Rot(e_k, t) for a coordinate axis k: only two columns change
static void rotate_about_coordinate_axis(double* R, const double* RJ, int k, double t) {
    const double c = cos(t), s = sin(t);
    const int a = (k + 1) % 3, b = (k + 2) % 3;
    for (int r = 0; r < 3; r++) {
        const double ca = RJ[3 * r + a], cb = RJ[3 * r + b];
        R[3 * r + k] = RJ[3 * r + k];
        R[3 * r + a] = c * ca + s * cb;
        R[3 * r + b] = -s * ca + c * cb;
    }
}


void salto_fk(const salto_model* m, salto_data* d, salto_fk_level level) {
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const double zero3[3] = {0, 0, 0};
    static const double zero6[6] = {0, 0, 0, 0, 0, 0};
    // the world accelerates at -g (gravity as a fictitious base acceleration, RBDA 5.3)
    const double A0[6] = {0, 0, 0, -m->gravity[0], -m->gravity[1], -m->gravity[2]};

    for (int i = 0; i < m->nv; i++) {
        const int par = m->link_parent[i];
        const double* Rp = par >= 0 ? d->R + 9 * par : I3;
        const double* pp = par >= 0 ? d->p + 3 * par : zero3;
        double* R = d->R + 9 * i;
        double* p = d->p + 3 * i;
        double* S = d->S + 6 * i;
        const double* axis = m->link_axis + 3 * i;
        const double qi = d->q[i];

        // joint frame: R_J = R_p R_tree, p_J = p_p + R_p r_tree
        double RJbuf[9];
        const double* RJ = Rp;
        if (m->link_tree_rot[i]) {
            salto_m3_mul(RJbuf, Rp, m->link_Rtree + 9 * i);
            RJ = RJbuf;
        }
        double rt[3];
        salto_m3_mul_v3(rt, Rp, m->link_rtree + 3 * i);
        p[0] = pp[0] + rt[0], p[1] = pp[1] + rt[1], p[2] = pp[2] + rt[2];

        // world axis u = R_J axis
        double u[3];
        const int k = m->link_axis_k[i];
        if (k >= 0) {
            u[0] = RJ[k], u[1] = RJ[3 + k], u[2] = RJ[6 + k];
        } else {
            salto_m3_mul_v3(u, RJ, axis);
        }

        if (m->link_type[i] == SALTO_AXIS_REVOLUTE) {
            // R = R_J Rot(axis, q); S = [u; p x u]
            if (k >= 0) {
                rotate_about_coordinate_axis(R, RJ, k, qi);
            } else {
                double Rq[9];
                salto_m3_axis_angle(Rq, axis, qi);
                salto_m3_mul(R, RJ, Rq);
            }
            S[0] = u[0], S[1] = u[1], S[2] = u[2];
            salto_v3_cross(S + 3, p, u);
        } else {
            // R = R_J; p += u q; S = [0; u]
            if (RJ != R) memcpy(R, RJ, 9 * sizeof(double));
            p[0] += u[0] * qi, p[1] += u[1] * qi, p[2] += u[2] * qi;
            S[0] = S[1] = S[2] = 0.0;
            S[3] = u[0], S[4] = u[1], S[5] = u[2];
        }
        if (level == SALTO_FK_POS) continue;

        // V = V_p + S qd;  c = (V x S) qd
        const double* Vp = par >= 0 ? d->V + 6 * par : zero6;
        double* V = d->V + 6 * i;
        double* c = d->c + 6 * i;
        const double qdi = d->qd[i];
        for (int t = 0; t < 6; t++) V[t] = Vp[t] + S[t] * qdi;
        salto_sv_crossm(c, Vp, S);
        for (int t = 0; t < 6; t++) c[t] *= qdi;
        if (level == SALTO_FK_VEL) continue;

        // A = A_p + S qdd + c
        const double* Ap = par >= 0 ? d->A + 6 * par : A0;
        double* A = d->A + 6 * i;
        const double qddi = d->qdd[i];
        for (int t = 0; t < 6; t++) A[t] = Ap[t] + S[t] * qddi + c[t];
    }
}


void salto_link_inertias(const salto_model* m, salto_data* d) {
    for (int i = 0; i < m->nv; i++) {
        double* I = d->I + 10 * i;
        if (!m->link_massive[i]) {
            memset(I, 0, 10 * sizeof(double));
            continue;
        }
        const double* L = m->link_inertia + 10 * i;
        const double* R = d->R + 9 * i;
        const double* p = d->p + 3 * i;
        const double mass = L[0];

        // world com: c = p + R c_local
        double cw[3];
        salto_m3_mul_v3(cw, R, L + 1);
        cw[0] += p[0], cw[1] += p[1], cw[2] += p[2];

        // I_com in the world: R J R'  (J symmetric)
        const double* J = L + 4;
        const double Jf[9] = {J[0], J[3], J[4], J[3], J[1], J[5], J[4], J[5], J[2]};
        double RJ[9];
        salto_m3_mul(RJ, R, Jf);
        double Iw[6];
        Iw[0] = RJ[0] * R[0] + RJ[1] * R[1] + RJ[2] * R[2];
        Iw[1] = RJ[3] * R[3] + RJ[4] * R[4] + RJ[5] * R[5];
        Iw[2] = RJ[6] * R[6] + RJ[7] * R[7] + RJ[8] * R[8];
        Iw[3] = RJ[0] * R[3] + RJ[1] * R[4] + RJ[2] * R[5];
        Iw[4] = RJ[0] * R[6] + RJ[1] * R[7] + RJ[2] * R[8];
        Iw[5] = RJ[3] * R[6] + RJ[4] * R[7] + RJ[5] * R[8];

        // about the origin: Ibar = I_com + m (|c|^2 1 - c c')  (parallel axis theorem)
        const double cc = salto_v3_dot(cw, cw);
        I[0] = mass;
        I[1] = mass * cw[0], I[2] = mass * cw[1], I[3] = mass * cw[2];
        I[4] = Iw[0] + mass * (cc - cw[0] * cw[0]);
        I[5] = Iw[1] + mass * (cc - cw[1] * cw[1]);
        I[6] = Iw[2] + mass * (cc - cw[2] * cw[2]);
        I[7] = Iw[3] - mass * cw[0] * cw[1];
        I[8] = Iw[4] - mass * cw[0] * cw[2];
        I[9] = Iw[5] - mass * cw[1] * cw[2];
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
    double mom[6];
    salto_momentum(m, d, mom);
    for (int t = 0; t < 3; t++) {
        if (com) com[t] = hsum[t] / m->mass;
        if (comvel) comvel[t] = mom[3 + t] / m->mass;
    }
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
