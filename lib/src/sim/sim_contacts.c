// sim_contacts.c: finding contacts: each geometry point (a sphere's or a capsule end's lowest
// point, a box's corners) within the margin of the ground or a bar gives a normal row and
// tangent rows (sim.c's step (1))
#include "sim_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/obstacle.h"
#include "salto/problem.h" // salto_contact_frame
#include "salto/spatial.h"

#include "linalg.h"


void sim_point_vel(const salto_data* d, int link, const double x[3], double v[3]) {
    const double* V = d->V + 6 * link;
    salto_v3_cross(v, V, x);
    for (int k = 0; k < 3; k++) v[k] += V[3 + k];
}

void sim_point_acc(const salto_model* m, const salto_data* d, int link, const double x[3],
                      double a[3]) {
    const double* V = d->V + 6 * link;
    const double* A = d->A + 6 * link;
    double v[3];
    sim_point_vel(d, link, x, v);
    salto_v3_cross(a, A, x);
    salto_v3_cross_add(a, V, v);
    for (int k = 0; k < 3; k++) a[k] += A[3 + k] + m->gravity[k];
}


// a contact of geometry g's point k (on link; x its surface point, N the surface's normal
// there, T1 and T2 its tangents, T2 NULL for one) with surface `surf` (0 the ground, 1 + i bar
// i), kept when within the margin (further when approaching fast)
static void add_contact(salto_sim* s, double h, int g, int k, int surf, int link,
                        const double x[3], const double N[3], double depth, const double* T1,
                        const double* T2) {
    double v[3];
    sim_point_vel(s->d, link, x, v);
    const double vn = salto_v3_dot(N, v);
    if (depth < -(s->o.margin + h * fmax(0.0, -vn)) || s->ncontact == s->ccap) return;
    salto_sim_contact* c = &s->contacts[s->ncontact];
    memset(c, 0, sizeof *c);
    c->geom = g, c->link = link, c->depth = depth;
    memcpy(c->point, x, 3 * sizeof(double));
    const long key = 3L * (8L * (g + (long)s->m->ngeom * surf) + k);
    const int nr = s->nrow;
    row* rn = &s->rows[s->nrow++];
    memset(rn, 0, sizeof *rn);
    rn->kind = row_normal, rn->link = link, rn->contact = s->ncontact, rn->gap = depth, rn->key = key;
    memcpy(rn->dir, N, 3 * sizeof(double));
    memcpy(rn->pt, x, 3 * sizeof(double));
    for (int t = 0; t < (T2 ? 2 : 1); t++) {
        row* rt = &s->rows[s->nrow++];
        memset(rt, 0, sizeof *rt);
        rt->kind = row_tangent, rt->link = link, rt->contact = s->ncontact, rt->normal = nr;
        rt->key = key + 1 + t;
        memcpy(rt->dir, t ? T2 : T1, 3 * sizeof(double));
        memcpy(rt->pt, x, 3 * sizeof(double));
    }
    s->ncontact++;
}


// how far a sphere of radius r at c sinks into bar b (> 0: inside, m), its outward normal n
// and the touching point x on the sphere; 0 when c is on the bar's axis (no direction)
int sim_bar_touch(const salto_sim* s, int b, const double c[3], double r, double n[3],
                     double x[3], double* depth) {
    const double* a = s->o.bar_axis[b];
    double w[3];
    for (int k = 0; k < 3; k++) w[k] = c[k] - s->o.bar_point[b][k];
    const double wa = salto_v3_dot(w, a);
    for (int k = 0; k < 3; k++) n[k] = w[k] - wa * a[k];
    const double dist = salto_v3_norm(n);
    if (!(dist > 1e-9)) return 0;
    for (int k = 0; k < 3; k++) n[k] /= dist, x[k] = c[k] - r * n[k];
    *depth = s->o.bar_radius + r - dist;
    return 1;
}


// the point of the segment p0 p1 nearest bar b's axis, strictly between the ends (0 when an
// end is nearest: the ends are points of their own)
int sim_nearest_inside(const salto_sim* s, int b, const double p0[3], const double p1[3],
                          double c[3]) {
    const double* a = s->o.bar_axis[b];
    double u[3], w[3], up[3], wp[3];
    for (int k = 0; k < 3; k++) u[k] = p1[k] - p0[k], w[k] = p0[k] - s->o.bar_point[b][k];
    const double ua = salto_v3_dot(u, a), wa = salto_v3_dot(w, a);
    for (int k = 0; k < 3; k++) up[k] = u[k] - ua * a[k], wp[k] = w[k] - wa * a[k];
    const double uu = salto_v3_dot(up, up);
    const double t = uu > 0.0 ? -salto_v3_dot(wp, up) / uu : -1.0;
    if (!(t > 1e-6 && t < 1.0 - 1e-6)) return 0;
    for (int k = 0; k < 3; k++) c[k] = p0[k] + t * u[k];
    return 1;
}


// a contact of geometry g's point k (a sphere of radius r at c) with bar b: tangents round the
// bar (in the plane for a planar character) and along it
static void add_bar_contact(salto_sim* s, double h, int g, int k, int b, int link,
                            const double c[3], double r) {
    double n[3], x[3], t2[3], depth;
    if (!sim_bar_touch(s, b, c, r, n, x, &depth)) return;
    salto_v3_cross(t2, n, s->o.bar_axis[b]);
    add_contact(s, h, g, k, 1 + b, link, x, n, depth, t2, s->planar ? NULL : s->o.bar_axis[b]);
}


// box b's centre and half sizes
static void box_centre(const salto_sim* s, int b, double c[3], double h[3]) {
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5 * (s->o.box_lo[b][k] + s->o.box_hi[b][k]);
        h[k] = 0.5 * (s->o.box_hi[b][k] - s->o.box_lo[b][k]);
    }
}


double sim_box_distance(const salto_sim* s, int b, const double p0[3], const double p1[3],
                        double* u) {
    double c[3], h[3];
    const int use[3] = {1, !s->planar, 1};
    box_centre(s, b, c, h);
    return salto_box_segment_distance_turned(c, h, use, s->o.box_yaw[b], p0, p1, u, NULL, NULL, NULL);
}


// a contact of geometry g's point k (a sphere of radius r at x) with box b: the normal the
// box's distance's gradient (out of its nearest face, edge or corner), the tangents across it
static void add_box_contact(salto_sim* s, double h, int g, int k, int b, int link,
                            const double x[3], double r) {
    double c[3], hs[3], n[3], pt[3], Tx[3], Ty[3];
    const int use[3] = {1, !s->planar, 1};
    box_centre(s, b, c, hs);
    const double sd = salto_box_point_distance_turned(c, hs, use, s->o.box_yaw[b], x, n);
    if (!(salto_v3_norm(n) > 0.5)) return;
    for (int a = 0; a < 3; a++) pt[a] = x[a] - r * n[a];
    salto_contact_frame(n, s->planar, Tx, Ty);
    add_contact(s, h, g, k, 1 + SALTO_SIM_MAX_BARS + b, link, pt, n, r - sd, Tx, s->planar ? NULL : Ty);
}


// the constraint rows at the state in s->d (salto_fk at the velocity level done): contacts
// with the ground and the bars, joints within 1e-3 rad of a limit, holds, tracking
void sim_collect(salto_sim* s, double h) {
    const salto_model* m = s->m;
    const salto_data* d = s->d;
    const double* N = s->o.ground_normal;
    s->nrow = 0;
    s->ncontact = 0;
    double Tx[3], Ty[3];
    salto_contact_frame(N, s->planar, Tx, Ty);
    for (int g = 0; g < m->ngeom; g++) {
        const int link = m->geom_link[g];
        if (link < 0) continue;
        double pts[8][3], r = 0.0;
        const int npt = salto_geom_points(m, d, g, pts, &r);
        // a capsule crossing a bar touches it between its ends: its segment's point nearest
        // the bar's axis is one more point (k = 2)
        const int nbar = (s->no_bars_geom ? s->no_bars_geom[g] : s->no_bars[link]) ? 0 : s->o.nbar;
        for (int b = 0; b < nbar && m->geom_shape[g] == SALTO_GEOM_CAPSULE; b++) {
            double c[3];
            if (sim_nearest_inside(s, b, pts[0], pts[1], c)) add_bar_contact(s, h, g, 2, b, link, c, r);
        }
        for (int k = 0; k < npt; k++) {
            if (s->o.ground) {
                double x[3];
                for (int c = 0; c < 3; c++) x[c] = pts[k][c] - r * N[c];
                const double depth = s->o.ground_height - salto_v3_dot(N, x);
                add_contact(s, h, g, k, 0, link, x, N, depth, Tx, s->planar ? NULL : Ty);
            }
            for (int b = 0; b < nbar; b++) add_bar_contact(s, h, g, k, b, link, pts[k], r);
            for (int b = 0; b < s->o.nbox; b++) add_box_contact(s, h, g, k, b, link, pts[k], r);
        }
        // a capsule across a box's edge, or lying on a face past its edge, touches it between
        // its ends: at the segment's point nearest the box (k = 2), and where the segment
        // crosses the planes of the box's faces (the edges a capsule lying on a face rests on;
        // k = 3 .. 7, the first five within reach)
        for (int b = 0; b < s->o.nbox && m->geom_shape[g] == SALTO_GEOM_CAPSULE; b++) {
            double u, dseg[3], c[3];
            const double dist = sim_box_distance(s, b, pts[0], pts[1], &u);
            if (dist > r + s->o.margin + 0.5) continue; // nowhere near (add_contact's reach is less)
            for (int a = 0; a < 3; a++) dseg[a] = pts[1][a] - pts[0][a];
            if (u > 1e-6 && u < 1.0 - 1e-6) {
                for (int a = 0; a < 3; a++) c[a] = pts[0][a] + u * dseg[a];
                add_box_contact(s, h, g, 2, b, link, c, r);
            }
            // the face planes' crossings, in the box's frame (turned by -yaw about its centre)
            const double cz = cos(s->o.box_yaw[b]), sz = sin(s->o.box_yaw[b]);
            double bc[3], bh[3];
            box_centre(s, b, bc, bh);
            const double cx = bc[0], cy = bc[1];
            const double p0b[3] = {cx + cz * (pts[0][0] - cx) + sz * (pts[0][1] - cy),
                                   cy - sz * (pts[0][0] - cx) + cz * (pts[0][1] - cy), pts[0][2]};
            const double db[3] = {cz * dseg[0] + sz * dseg[1], -sz * dseg[0] + cz * dseg[1], dseg[2]};
            int k = 3;
            for (int a = 0; a < 3 && k < 8; a++) {
                if ((s->planar && a == 1) || db[a] == 0.0) continue;
                for (int side = 0; side < 2 && k < 8; side++) {
                    const double face = side ? s->o.box_hi[b][a] : s->o.box_lo[b][a];
                    const double uc = (face - p0b[a]) / db[a];
                    if (!(uc > 1e-6 && uc < 1.0 - 1e-6) || fabs(uc - u) < 1e-9) continue;
                    for (int e = 0; e < 3; e++) c[e] = pts[0][e] + uc * dseg[e];
                    if (sim_box_distance(s, b, c, c, NULL) > r + s->o.margin + 0.5) continue;
                    add_box_contact(s, h, g, k++, b, link, c, r);
                }
            }
        }
    }
    if (s->o.joint_limits) {
        for (int j = 0; j < m->nv; j++) {
            if (!m->link_has_limits[j]) continue;
            const double lo = m->link_limits[2 * j], hi = m->link_limits[2 * j + 1];
            const double reach = 1e-3 + h * fabs(s->qd[j]);
            double sign = 0.0, gap = 0.0;
            if (s->q[j] < lo + reach) sign = 1.0, gap = lo - s->q[j];
            else if (s->q[j] > hi - reach) sign = -1.0, gap = s->q[j] - hi;
            if (sign == 0.0) continue;
            row* rl = &s->rows[s->nrow++];
            memset(rl, 0, sizeof *rl);
            rl->kind = row_limit, rl->link = j, rl->sign = sign, rl->gap = gap, rl->contact = -1;
            rl->key = row_key_base(m) + 2L * j + (sign > 0 ? 0 : 1);
        }
    }
    for (int k = 0; k < s->nhold; k++) {
        const int site = s->hold_site[k];
        double x[3];
        salto_site_pos(m, d, site, x);
        for (int a = 0; a < 3; a++) {
            if (s->planar && a == 1) continue;
            row* rh = &s->rows[s->nrow++];
            memset(rh, 0, sizeof *rh);
            rh->kind = row_hold, rh->link = m->site_link[site], rh->contact = -1;
            rh->key = hold_key(m, k, a);
            rh->dir[a] = 1.0;
            memcpy(rh->pt, x, sizeof x);
            rh->gap = s->hold_point[k][a] - x[a];
        }
    }
    if (s->tracking) {
        for (int k = 0; k < s->ngrip; k++) {
            row* rg = &s->rows[s->nrow++];
            memset(rg, 0, sizeof *rg);
            rg->kind = row_grip, rg->link = s->grip_link[k], rg->contact = -1;
            rg->key = grip_key(m, k);
            memcpy(rg->dir, s->grip_axis[k], sizeof rg->dir);
            rg->bound = s->grip_max[k];
        }
        for (int j = m->nroot; j < m->nv; j++) {
            row* rt = &s->rows[s->nrow++];
            memset(rt, 0, sizeof *rt);
            rt->kind = row_track, rt->link = j, rt->sign = 1.0, rt->contact = -1;
            rt->key = track_key(m, j);
        }
    }
    // each force row's unit spatial force: a row's rate is that force's pairing with the
    // link's acceleration, d (dir . (w x pt + v)) = dA . [pt x dir; dir]
    for (int i = 0; i < s->nrow; i++) {
        row* r = &s->rows[i];
        if (r->kind == row_limit || r->kind == row_track) continue;
        if (r->kind == row_grip) {
            memcpy(r->u, r->dir, 3 * sizeof(double));
            r->u[3] = r->u[4] = r->u[5] = 0.0;
        } else {
            salto_point_force(r->u, r->pt, r->dir);
        }
    }
}


// each row's velocity (vel) or acceleration (after salto_aba) at the state in s->d
