// validate.c: dense physical checks of a motion (validate.h)
//
// Everything here is computed afresh from the state: f0 by RNEA's root wrench (salto_rnea),
// not by the optimiser's linear-time recursion; the contact frame, the support centre and the
// bounds from the problem's contact description, as Fang & Pollard state them (eqs. 1-9); the
// geometry's lowest points from the model. Only the state itself comes from the motion (a
// salto_state_fn: for a solve, salto_nlp_state, so that the effective root's translation is
// the one the motion has).
#include "salto/validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "salto/data.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/obstacle.h"
#include "salto/spatial.h"

#include "linalg.h"

const char* salto_check_at(const salto_model* m, const salto_check* c) {
    if (c->worst_what < 0 || !(c->worst > 0.0)) return NULL;
    switch (c->kind) {
    case SALTO_CHECK_SLIP: return m->site_name[c->worst_what];
    case SALTO_CHECK_PENETRATION:
    case SALTO_CHECK_BAR_CLEARANCE:
    case SALTO_CHECK_BOX_CLEARANCE: return m->body_name[m->geom_body[c->worst_what]];
    case SALTO_CHECK_JOINT_LIMITS: return m->link_name[c->worst_what];
    case SALTO_CHECK_BOUNDS: return m->site_name[c->worst_what];
    case SALTO_CHECK_TORQUE: return m->link_name[c->worst_what];
    default: return NULL;
    }
}


void salto_validate_opts_from_problem(salto_validate_opts* o, const salto_problem_desc* p) {
    salto_validate_opts_default(o);
    const salto_validation_desc* v = &p->validation;
    if (v->density > 0) o->density = v->density;
    if (v->integrator >= 0) o->integrator = (salto_integrator)v->integrator;
    if (v->step > 0.0) o->step = v->step;
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) {
        if (v->threshold[k] >= 0.0) o->threshold[k] = v->threshold[k];
    }
}


void salto_validation_free(salto_validation* v) {
    salto_free(v->check);
    salto_free(v->t);
    salto_free(v->phase);
    salto_free(v->f0);
    salto_free(v->violation);
    salto_free(v->tau);
    salto_free(v->tau_peak);
    salto_free(v->tau_peak_time);
    salto_free(v->tau_lim);
    salto_free(v->resim_stop);
    memset(v, 0, sizeof *v);
}


const salto_check* salto_validation_worst(const salto_validation* v, double* ratio) {
    const salto_check* w = NULL;
    double wr = -1.0;
    for (int c = 0; c < v->ncheck; c++) {
        const salto_check* k = &v->check[c];
        if (!k->judged || k->pass) continue;
        const double r = k->threshold > 0.0 ? k->worst / k->threshold : INFINITY;
        if (r > wr) wr = r, w = k;
    }
    if (ratio) *ratio = w ? wr : 0.0;
    return w;
}


const char* salto_validation_verdict(const salto_problem_desc* p, const salto_validation* v) {
    return !v->pass      ? "FAILED"
           : !p->physics ? "the motion keeps its kinematic constraints within the thresholds"
                         : "the motion is physical within the thresholds";
}


// the moment of the wrench (n, f) about point c along unit axis a: a . (n - c x f)
static double moment_about(const double* n, const double* f, const double c[3], const double a[3]) {
    double cf[3];
    salto_v3_cross(cf, c, f);
    return a[0] * (n[0] - cf[0]) + a[1] * (n[1] - cf[1]) + a[2] * (n[2] - cf[2]);
}


// how far geometry g reaches below the plane z = height (> 0: penetration) where phase i does
// not hold it on the ground (its sole is the contact, judged by slip;
// salto_problem_ground_hold): none of a body held flat by two sites or more, and for a body
// held by one site, which can turn about it, every point but the site's own, a ball that
// holds the site judged by its centre (salto_problem_hold_point, as the optimiser's
// above_ground rows). After salto_fk
static double geom_depth(const salto_problem_desc* p, const salto_model* m, const salto_data* d,
                         int i, int g, double height) {
    if (m->geom_link[g] < 0) return -INFINITY; // welded to the world
    int site;
    const int held = salto_problem_ground_hold(p, i, m->geom_body[g], &site);
    if (held >= 2) return -INFINITY;
    const int own = held == 1 && m->site_link[site] == m->geom_link[g];
    double pts[8][3], loc[8][3], r = 0.0, lowest = INFINITY;
    const int npt = salto_geom_points(m, d, g, pts, &r);
    if (own) salto_geom_local_points(m, g, loc, &r);
    for (int k = 0; k < npt; k++) {
        const int kind = own ? salto_problem_hold_point(m, site, loc[k], r) : 0;
        if (kind == SALTO_HOLD_AT) continue;
        lowest = fmin(lowest, pts[k][2] - (kind == SALTO_HOLD_BALL ? 0.0 : r));
    }
    return height - lowest;
}


// The distance of the segment a-b from the line through p along the unit u: the segment's
// nearest point minimises the distance across the line, a quadratic in the segment's parameter
static double segment_line_distance(const double a[3], const double b[3], const double p[3],
                                    const double u[3]) {
    double A[3], B[3];
    for (int k = 0; k < 3; k++) A[k] = a[k] - p[k], B[k] = b[k] - a[k];
    const double au = salto_v3_dot(A, u), bu = salto_v3_dot(B, u);
    for (int k = 0; k < 3; k++) A[k] -= au * u[k], B[k] -= bu * u[k];
    const double BB = salto_v3_dot(B, B);
    const double s = BB > 0.0 ? fmin(1.0, fmax(0.0, -salto_v3_dot(A, B) / BB)) : 0.0;
    double v[3];
    for (int k = 0; k < 3; k++) v[k] = A[k] + s * B[k];
    return salto_v3_norm(v);
}


// 1 if a phase at time t (its ends included) holds geometry g's point or segment k on box bx
// (salto_problem_box_holds; the model's geometry data in its link's frame)
static int box_held_at(const salto_problem_desc* p, int bx, int g, int k, int capsule, double t) {
    const salto_model* m = p->model;
    double pts[8][3], r;
    salto_geom_local_points(m, g, pts, &r);
    const double* ends[2] = {pts[k], pts[capsule ? 1 : k]};
    for (int i = 0; i < p->nphase; i++) {
        const salto_phase_desc* ph = &p->phases[i];
        if (t < ph->start - 1e-9 || t > ph->start + ph->duration + 1e-9) continue;
        if (salto_problem_box_holds(p, i, bx, m->geom_body[g], ends[0]) ||
            salto_problem_box_holds(p, i, bx, m->geom_body[g], ends[1]))
            return 1;
    }
    return 0;
}


// what the problem fixes for every sample (the model planar or not; the highest above_ground
// plane, if any) and what a phase's start fixes: the contact sites' places; in flight, the
// take-off's time, centre of mass, its velocity and the angular momentum about it
typedef struct phase_ref {
    int planar, have_plane;
    double plane;
    double site[8][3];
    double t0, c0[3], v0[3], L0[3];
} phase_ref;


// the centre of mass c, its velocity cv and the angular momentum about it L, after salto_rnea
// and salto_link_inertias
static void com_state(const salto_model* m, const salto_data* d, double c[3], double cv[3],
                      double L[3]) {
    double h[6], cp[3];
    salto_com(m, d, c, cv);
    salto_momentum(m, d, h);
    salto_v3_cross(cp, c, h + 3);
    for (int k = 0; k < 3; k++) L[k] = h[k] - cp[k];
}


// How far the wrench w = [n; f] (about the origin: a force, or an impulse) is from what the
// contact ct can give, into v's bar-torque, or normal, friction, centre-of-pressure and twist
// entries: on a bar its torque about the bar beyond torque_max; on the ground the normal part
// below 0 or above normal_max, the tangential part beyond mu times the normal, the moment
// about the sites' centroid (from d's kinematics) beyond the support rectangle, the twist
// beyond twist_max (3-D)
// a violation computed as NaN (an overflow in a check that applies) as infinite
static double nan_to_inf(double x) {
    return isnan(x) ? INFINITY : x;
}


// a margin's violation, 0 when within: NaN (an overflow, inf - inf) infinitely off, where
// fmax(0, NaN) would say 0, a pass
static double over(double x) {
    return isnan(x) ? INFINITY : fmax(0.0, x);
}


static void contact_margins(const salto_model* m, const salto_data* d, const salto_contact_desc* ct,
                            int planar, const double w[6], double torque_max, double normal_max,
                            double* v) {
    const double* n = w;
    const double* f = w + 3;
    if (ct->type == SALTO_CONTACT_BAR) {
        const double tau = moment_about(n, f, ct->bar_point, ct->bar_axis);
        v[SALTO_CHECK_BAR_TORQUE] = over(fabs(tau) - torque_max);
        return;
    }
    const double* N = ct->normal;
    double Tx[3], Ty[3], c[3] = {0, 0, 0};
    salto_contact_frame(N, planar, Tx, Ty);
    for (int s = 0; s < ct->nsite; s++) {
        double xs[3];
        salto_site_pos(m, d, ct->site[s], xs);
        for (int k = 0; k < 3; k++) c[k] += xs[k] / ct->nsite;
    }
    const double fN = salto_v3_dot(N, f);
    const double ft2 = over(salto_v3_dot(f, f) - fN * fN);
    v[SALTO_CHECK_NORMAL_FORCE] = isnan(fN) ? INFINITY : fmax(fmax(-fN, fN - normal_max), 0.0);
    v[SALTO_CHECK_FRICTION] = over(sqrt(ft2) - ct->friction * fmax(fN, 0.0));
    // the centre of pressure inside the rectangle: |moment about T_x| <= half_y fN,
    // |moment about T_y| <= half_x fN (in the plane: about y only)
    const double mx = moment_about(n, f, c, Tx), my = moment_about(n, f, c, Ty);
    const double cop_y = fabs(mx) - ct->support_half[1] * fN;
    const double cop_x = fabs(my) - ct->support_half[0] * fN;
    v[SALTO_CHECK_COP] = planar ? over(cop_x) : isnan(cop_x) || isnan(cop_y) ? INFINITY : over(fmax(cop_x, cop_y));
    if (!planar) {
        const double mz = moment_about(n, f, c, N);
        v[SALTO_CHECK_TWIST] = over(fabs(mz) - ct->twist_max * fmax(fN, 0.0));
    }
}


// the violations of every check at one sample of phase i at time t (v: SALTO_CHECK_COUNT,
// NAN where a check does not apply; what: the site, geometry or DOF at fault), from the
// kinematics and f0 in d and the phase's start in ref; edge: -1 at the phase's first sample,
// 1 at its last, else 0
static void sample_checks(const salto_problem_desc* p, const salto_data* d, int i, double t,
                          int edge, const phase_ref* ref, double* v, int* what) {
    const salto_model* m = p->model;
    const salto_contact_desc* ct = &p->phases[i].contact;
    const int planar = ref->planar;
    const double* n = d->f0;
    const double* f = d->f0 + 3;
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) v[k] = NAN, what[k] = -1;

    if (ct->type == SALTO_CONTACT_NONE) {
        // f0 about the centre of mass, and the take-off's parabola and angular momentum
        double c[3], cv[3], L[3], cf[3], nc[3], e[3], dl[3];
        com_state(m, d, c, cv, L);
        salto_v3_cross(cf, c, f);
        const double tau = t - ref->t0;
        for (int k = 0; k < 3; k++) {
            nc[k] = n[k] - cf[k];
            e[k] = c[k] - (ref->c0[k] + ref->v0[k] * tau + 0.5 * m->gravity[k] * tau * tau);
            dl[k] = L[k] - ref->L0[k];
        }
        // (a state so large that these overflow, inf - inf, is infinitely off, not a check
        // that does not apply: NaN would leave the check out of the verdict)
        v[SALTO_CHECK_FLIGHT_FORCE] = nan_to_inf(salto_v3_norm(f));
        v[SALTO_CHECK_FLIGHT_TORQUE] = nan_to_inf(salto_v3_norm(nc));
        v[SALTO_CHECK_BALLISTIC] = nan_to_inf(salto_v3_norm(e));
        v[SALTO_CHECK_SPIN] = nan_to_inf(salto_v3_norm(dl));
    } else {
        contact_margins(m, d, ct, planar, d->f0, ct->torque_max, ct->force_max, v);
    }

    if (ct->type != SALTO_CONTACT_NONE && ct->hold) {
        v[SALTO_CHECK_SLIP] = 0.0;
        for (int s = 0; s < ct->nsite; s++) {
            double xs[3];
            salto_site_pos(m, d, ct->site[s], xs);
            const double dx[3] = {xs[0] - ref->site[s][0], xs[1] - ref->site[s][1], xs[2] - ref->site[s][2]};
            const double dist = salto_v3_norm(dx);
            if (dist > v[SALTO_CHECK_SLIP] || what[SALTO_CHECK_SLIP] < 0) {
                v[SALTO_CHECK_SLIP] = dist;
                what[SALTO_CHECK_SLIP] = ct->site[s];
            }
        }
    }

    // the above_ground plane, for every body this phase does not hold on the ground
    if (ref->have_plane) {
        v[SALTO_CHECK_PENETRATION] = 0.0;
        // at a phase boundary the neighbour's hold counts too (the optimiser's above_ground
        // rows leave out what either phase containing t holds: the hands touching down at a
        // flight's end are the next phase's contact)
        const int prev = edge < 0 && i > 0 ? i - 1 : -1;
        const int next = edge > 0 && i + 1 < p->nphase ? i + 1 : -1;
        for (int g = 0; g < m->ngeom; g++) {
            double depth = geom_depth(p, m, d, i, g, ref->plane);
            if (prev >= 0) depth = fmin(depth, geom_depth(p, m, d, prev, g, ref->plane));
            if (next >= 0) depth = fmin(depth, geom_depth(p, m, d, next, g, ref->plane));
            if (depth > v[SALTO_CHECK_PENETRATION]) {
                v[SALTO_CHECK_PENETRATION] = depth;
                what[SALTO_CHECK_PENETRATION] = g;
            }
        }
    }

    // the clear_bar bars: how far a capsule (a sphere, a box corner) of a link that grips no bar
    // reaches into one: the radii's sum less its axis's distance from the bar's axis
    for (int c = 0; c < p->ncon; c++) {
        const salto_constraint_desc* cd = &p->cons[c];
        if (cd->type != SALTO_CON_CLEAR_BAR) continue;
        if (isnan(v[SALTO_CHECK_BAR_CLEARANCE])) v[SALTO_CHECK_BAR_CLEARANCE] = -INFINITY;
        for (int g = 0; g < m->ngeom; g++) {
            if (m->geom_link[g] < 0 || salto_problem_grips_bar(p, m->geom_link[g])) continue;
            double pts[8][3], r = 0.0;
            const int npt = salto_geom_points(m, d, g, pts, &r);
            const int capsule = m->geom_shape[g] == SALTO_GEOM_CAPSULE;
            for (int k = 0; k < (capsule ? 1 : npt); k++) {
                const double e = r + cd->height - segment_line_distance(pts[k], pts[capsule ? 1 : k], cd->point, cd->dir);
                if (e > v[SALTO_CHECK_BAR_CLEARANCE]) {
                    v[SALTO_CHECK_BAR_CLEARANCE] = e;
                    what[SALTO_CHECK_BAR_CLEARANCE] = g;
                }
            }
        }
    }

    // the boxes: how far a capsule (a sphere, a box corner) reaches into one, a body that this
    // phase (or one that starts or ends at t) holds on that box excepted
    for (int bx = 0; bx < p->nbox; bx++) {
        double c[3], h[3], yaw;
        int use[3];
        salto_problem_box_geometry(p, bx, c, h, use, &yaw);
        if (isnan(v[SALTO_CHECK_BOX_CLEARANCE])) v[SALTO_CHECK_BOX_CLEARANCE] = -INFINITY;
        for (int g = 0; g < m->ngeom; g++) {
            if (m->geom_link[g] < 0) continue;
            double pts[8][3], r = 0.0;
            const int npt = salto_geom_points(m, d, g, pts, &r);
            const int capsule = m->geom_shape[g] == SALTO_GEOM_CAPSULE;
            for (int k = 0; k < (capsule ? 1 : npt); k++) {
                if (box_held_at(p, bx, g, k, capsule, t)) continue;
                const double e = r - salto_box_segment_distance_turned(c, h, use, yaw, pts[k], pts[capsule ? 1 : k], NULL, NULL, NULL, NULL);
                if (e > v[SALTO_CHECK_BOX_CLEARANCE]) {
                    v[SALTO_CHECK_BOX_CLEARANCE] = e;
                    what[SALTO_CHECK_BOX_CLEARANCE] = g;
                }
            }
        }
    }

    int limited = 0;
    double lim = 0.0;
    for (int j = 0; j < m->nv; j++) {
        if (!m->link_has_limits[j]) continue;
        limited = 1;
        const double e = fmax(m->link_limits[2 * j] - d->q[j], d->q[j] - m->link_limits[2 * j + 1]);
        if (e > lim) lim = e, what[SALTO_CHECK_JOINT_LIMITS] = j;
    }
    if (limited) v[SALTO_CHECK_JOINT_LIMITS] = lim;

    // the bounds held through this phase: how far a DOF is outside its joint_range, a site or
    // the centre of mass on the wrong side of its plane (site_above, com_above) or outside its
    // box (site_in_box, com_in_box; a planar character's y not judged)
    for (int c = 0; c < p->ncon; c++) {
        const salto_constraint_desc* cd = &p->cons[c];
        if (cd->type == SALTO_CON_JOINT_RANGE && cd->phase == i) {
            for (int k = 0; k < cd->ndof; k++) {
                const double qj = d->q[cd->dof[k]];
                const double e = fmax(0.0, fmax(cd->value[2 * k] - qj, qj - cd->value[2 * k + 1]));
                if (isnan(v[SALTO_CHECK_BOUNDS]) || e > v[SALTO_CHECK_BOUNDS]) {
                    v[SALTO_CHECK_BOUNDS] = e;
                    what[SALTO_CHECK_BOUNDS] = -1;
                }
            }
            continue;
        }
        const int above = cd->type == SALTO_CON_SITE_ABOVE || cd->type == SALTO_CON_COM_ABOVE;
        const int box = cd->type == SALTO_CON_SITE_IN_BOX || cd->type == SALTO_CON_COM_IN_BOX;
        if ((!above && !box) || cd->phase != i) continue;
        const int site = cd->type == SALTO_CON_SITE_ABOVE || cd->type == SALTO_CON_SITE_IN_BOX;
        double x[3];
        if (site) {
            salto_site_pos(m, d, cd->site, x);
        } else {
            salto_com(m, d, x, NULL);
        }
        double e = 0.0;
        if (above) {
            const double dx[3] = {x[0] - cd->point[0], x[1] - cd->point[1], x[2] - cd->point[2]};
            e = fmax(0.0, -salto_v3_dot(cd->dir, dx));
        } else {
            for (int k = 0; k < 3; k++) {
                if (ref->planar && k == 1) continue;
                e = fmax(e, fmax(cd->lo[k] - x[k], x[k] - cd->hi[k]));
            }
        }
        if (isnan(v[SALTO_CHECK_BOUNDS]) || e > v[SALTO_CHECK_BOUNDS]) {
            v[SALTO_CHECK_BOUNDS] = e;
            what[SALTO_CHECK_BOUNDS] = site ? cd->site : -1;
        }
    }
}


// the drift of the simulated state ds from the motion's dm (both after salto_fk at the
// velocity level and salto_link_inertias): the root's place and orientation, the joints' RMS,
// the centre of mass (out: 4, in the order of the drift checks)
static void drift(const salto_model* m, const salto_data* ds, const salto_data* dm, double out[4]) {
    const double *Rs, *ps, *Rm, *pm;
    salto_body_frame(m, ds, 0, &Rs, &ps);
    salto_body_frame(m, dm, 0, &Rm, &pm);
    const double dp[3] = {ps[0] - pm[0], ps[1] - pm[1], ps[2] - pm[2]};
    out[0] = salto_v3_norm(dp);
    // the angle of Rs Rm': atan2(|axial part|, (trace - 1) / 2)
    double E[9];
    for (int a = 0; a < 3; a++) {
        for (int b = 0; b < 3; b++) {
            E[3 * a + b] = Rs[3 * a] * Rm[3 * b] + Rs[3 * a + 1] * Rm[3 * b + 1] + Rs[3 * a + 2] * Rm[3 * b + 2];
        }
    }
    const double ax[3] = {0.5 * (E[7] - E[5]), 0.5 * (E[2] - E[6]), 0.5 * (E[3] - E[1])};
    out[1] = atan2(salto_v3_norm(ax), 0.5 * (E[0] + E[4] + E[8] - 1.0));
    double sum2 = 0.0;
    for (int j = m->nroot; j < m->nv; j++) sum2 += (ds->q[j] - dm->q[j]) * (ds->q[j] - dm->q[j]);
    out[2] = m->nv > m->nroot ? sqrt(sum2 / (m->nv - m->nroot)) : 0.0;
    double cs[3], cm[3], vs[3], vm[3];
    salto_com(m, ds, cs, vs);
    salto_com(m, dm, cm, vm);
    const double dc[3] = {cs[0] - cm[0], cs[1] - cm[1], cs[2] - cm[2]};
    out[3] = salto_v3_norm(dc);
}


// The shares xi (6 each) of links 2..nl of an impulse that explain the jump u at d->q best:
// the least squares of the joint rows (linear in the shares; A's columns the rows at a unit
// share and no jump), by a pivoted Cholesky of the normal equations, which leaves the shares
// the joints cannot see at zero. res: room for nv. Out of memory: all zero (the check then
// asks link 1 to explain it all, which can only make it stricter)
static void impact_shares(const salto_model* m, salto_data* d, int nl, const int* link,
                          const double* u, double* res, double* xi) {
    const int nv = m->nv, nx = 6 * (nl - 1);
    memset(xi, 0, (size_t)nx * sizeof(double));
    double* A = salto_malloc((size_t)nv * (size_t)nx * sizeof(double));
    double* zero = salto_calloc((size_t)nv, sizeof(double));
    if (A && zero) {
        double iota[6], e[6 * 7] = {0};
        for (int a = 0; a < nx; a++) {
            e[a] = 1.0;
            salto_impulse_shared(m, d, nl, link, e, zero, A + (size_t)a * nv, iota);
            e[a] = 0.0;
        }
        salto_impulse_shared(m, d, nl, link, xi, u, res, iota); // the rows with no shares
        double N[42 * 42], rhs[42], work[84];
        int piv[42];
        for (int a = 0; a < nx; a++) {
            const double* Aa = A + (size_t)a * nv;
            rhs[a] = 0.0;
            for (int j = m->nroot; j < nv; j++) rhs[a] -= Aa[j] * res[j];
            for (int c = 0; c < nx; c++) {
                const double* Ac = A + (size_t)c * nv;
                double sum = 0.0;
                for (int j = m->nroot; j < nv; j++) sum += Aa[j] * Ac[j];
                N[a * nx + c] = sum;
            }
        }
        const int rank = salto_pchol(N, nx, 1e-12, piv, work);
        if (rank > 0) {
            salto_pchol_solve(N, nx, rank, piv, rhs, work);
            memcpy(xi, rhs, (size_t)nx * sizeof(double));
        }
    }
    salto_free(A), salto_free(zero);
}


// The impact check at phase i's start: the jump u = qd+ - qd- at q (d->q; d's other state is
// overwritten) against the impulse the phase's contact can give (SALTO_CHECK_IMPACT). On
// several links the impulse is shared as well as it can be (impact_shares), the first link
// the rest
static double impact_violation(const salto_problem_desc* p, int i, salto_data* d, const double* u,
                               double* res) {
    const salto_model* m = p->model;
    const salto_contact_desc* ct = &p->phases[i].contact;
    int link[8];
    const int nl = ct->type == SALTO_CONTACT_NONE ? 0 : salto_contact_links(m, ct, link, NULL);
    double iota[6], xi[6 * 7] = {0};
    if (nl > 1) impact_shares(m, d, nl, link, u, res, xi);
    salto_impulse_shared(m, d, nl, link, xi, u, res, iota);
    double worst = 0.0;
    for (int j = 0; j < m->nv; j++) worst = fmax(worst, fabs(res[j]));
    if (ct->type != SALTO_CONTACT_NONE) {
        // a bounded torque gives no impulse about the bar; the ground's push is not bounded
        double v[SALTO_CHECK_COUNT];
        for (int k = 0; k < SALTO_CHECK_COUNT; k++) v[k] = 0.0;
        contact_margins(m, d, ct, salto_model_is_planar(m), iota, 0.0, INFINITY, v);
        for (int k = 0; k < SALTO_CHECK_COUNT; k++) worst = fmax(worst, v[k]);
    }
    return worst;
}


salto_status salto_validate_check_opts(const salto_problem_desc* p, const salto_validate_opts* opts,
                                       salto_error* err) {
    if (!opts) return SALTO_OK;
    // the re-simulation's cost before any work: its steps over the motion
    const double max_steps = opts->max_steps > 0.0 ? opts->max_steps : SALTO_VALIDATE_MAX_STEPS;
    if (opts->integrator != SALTO_INTEGRATOR_NONE && opts->step > 0.0 &&
        !(p->duration / opts->step <= max_steps)) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "a re-simulation step of %g s "
                          "makes %.2g steps over the motion's %g s: at most %g (salto validate "
                          "--max-steps allows more)", opts->step, p->duration / opts->step,
                          p->duration, max_steps);
    }
    return SALTO_OK;
}


salto_status salto_validate_motion(const salto_problem_desc* p, salto_state_fn state, void* ctx,
                                   const salto_validate_opts* opts, salto_validation* v,
                                   salto_error* err) {
    memset(v, 0, sizeof *v);
    const salto_model* m = p->model;
    salto_validate_opts defaults;
    salto_validate_opts_default(&defaults);
    if (!opts) opts = &defaults;
    const int density = opts->density > 0 ? opts->density : 10;
    const int nv = m->nv;
    salto_status cs = salto_validate_check_opts(p, opts, err);
    if (cs != SALTO_OK) return cs;

    int* per = salto_malloc((size_t)p->nphase * sizeof(int));
    if (!per) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    int total = 0;
    for (int i = 0; i < p->nphase; i++) {
        per[i] = density * salto_problem_phase_intervals(p, i) + 1;
        total += per[i];
    }
    v->nsample = total;
    v->ncheck = 0;
    v->nv = nv;
    v->integrator = opts->integrator;
    v->t = salto_malloc((size_t)total * sizeof(double));
    v->phase = salto_malloc((size_t)total * sizeof(int));
    v->f0 = salto_malloc((size_t)total * 6 * sizeof(double));
    v->violation = salto_malloc((size_t)total * SALTO_CHECK_COUNT * sizeof(double));
    v->tau = salto_malloc((size_t)total * nv * sizeof(double));
    v->tau_peak = salto_calloc((size_t)nv, sizeof(double));
    v->tau_peak_time = salto_calloc((size_t)nv, sizeof(double));
    if (m->ntorque > 0) v->tau_lim = salto_malloc((size_t)total * 2 * nv * sizeof(double));
    v->check = salto_calloc((size_t)p->nphase * SALTO_CHECK_COUNT, sizeof(salto_check));
    v->resim_stop = salto_malloc((size_t)p->nphase * sizeof(double));
    int* what = salto_malloc((size_t)total * SALTO_CHECK_COUNT * sizeof(int));
    salto_data* d = salto_data_create(m);
    salto_data* d2 = salto_data_create(m);
    salto_data* d3 = salto_data_create(m);             // the impacts' inverse dynamics
    double* qd_prev = salto_malloc(2 * (size_t)nv * sizeof(double)); // the phase before's end
    salto_resim* r = opts->integrator != SALTO_INTEGRATOR_NONE ? salto_resim_create(p, state, ctx) : NULL;
    if (!v->t || !v->phase || !v->f0 || !v->violation || !v->tau || !v->tau_peak ||
        !v->tau_peak_time || (m->ntorque > 0 && !v->tau_lim) || !v->check || !v->resim_stop || !what || !d || !d2 || !d3 || !qd_prev ||
        (opts->integrator != SALTO_INTEGRATOR_NONE && !r)) {
        salto_free(per), salto_free(what), salto_free(qd_prev);
        salto_data_destroy(d), salto_data_destroy(d2), salto_data_destroy(d3);
        salto_resim_destroy(r);
        salto_validation_free(v);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }

    for (int i = 0; i < p->nphase; i++) v->resim_stop[i] = NAN;
    phase_ref ref = {.planar = salto_model_is_planar(m)};
    for (int c = 0; c < p->ncon; c++) { // the highest above_ground plane
        if (p->cons[c].type != SALTO_CON_ABOVE_GROUND) continue;
        ref.plane = ref.have_plane ? fmax(ref.plane, p->cons[c].height) : p->cons[c].height;
        ref.have_plane = 1;
    }
    salto_status st = SALTO_OK;
    int s = 0;
    double hmax = 0.0;
    for (int i = 0; i < p->nphase && st == SALTO_OK; i++) {
        const salto_phase_desc* ph = &p->phases[i];
        const double eps = 1e-9 * ph->duration;
        // the re-simulation keeps pace with the samples, in steps no longer than their spacing;
        // its own errors are the drift's (infinite from a breakdown on), not the validation's
        const double spacing = ph->duration / (double)(per[i] - 1);
        const double h = opts->step > 0.0 ? fmin(opts->step, spacing) : spacing;
        if (r) hmax = fmax(hmax, h);
        int running = r != NULL;
        salto_error rerr = {0};
        for (int k = 0; k < per[i]; k++, s++) {
            double t = ph->start + ph->duration * (double)k / (double)(per[i] - 1);
            if (k == 0) t += eps;
            if (k == per[i] - 1) t -= eps;
            v->t[s] = t;
            v->phase[s] = i;
            state(ctx, t, d->q, d->qd, d->qdd);
            salto_rnea(m, d, NULL); // the kinematics up to accelerations, and f0
            salto_link_inertias(m, d);
            int finite = 1;
            for (int j = 0; j < nv; j++) finite &= isfinite(d->q[j]) && isfinite(d->qd[j]) && isfinite(d->qdd[j]);
            for (int k6 = 0; k6 < 6; k6++) finite &= isfinite(d->f0[k6]);
            if (!finite) {
                st = SALTO_FAIL(err, SALTO_ERR_NUMERIC, salto_loc_none(),
                                "the motion's state or force is not finite at t = %.4f s", t);
                break;
            }
            memcpy(v->f0 + 6 * s, d->f0, sizeof(double) * 6);
            if (k == 0) {
                for (int c = 0; c < ph->contact.nsite && c < 8; c++) {
                    salto_site_pos(m, d, ph->contact.site[c], ref.site[c]);
                }
                ref.t0 = t;
                com_state(m, d, ref.c0, ref.v0, ref.L0);
            }
            double* viol = v->violation + SALTO_CHECK_COUNT * s;
            sample_checks(p, d, i, t, k == 0 ? -1 : k == per[i] - 1 ? 1 : 0, &ref, viol,
                          what + SALTO_CHECK_COUNT * s);
            // the impact at the phase's start: the jump from the phase before's last sample
            viol[SALTO_CHECK_IMPACT] = NAN;
            if (k == 0 && i > 0) {
                double* u = qd_prev + nv;
                for (int j = 0; j < nv; j++) u[j] = d->qd[j] - qd_prev[j];
                memcpy(d3->q, d->q, (size_t)nv * sizeof(double));
                viol[SALTO_CHECK_IMPACT] = impact_violation(p, i, d3, u, d3->work);
            }
            if (k == per[i] - 1) memcpy(qd_prev, d->qd, (size_t)nv * sizeof(double));
            // joint torques, the contact wrenches distributed among the contact links
            int wlink[8];
            double w[48];
            const int nw = salto_contact_wrenches(p, i, d, wlink, w);
            double* tau = v->tau + (size_t)nv * s;
            salto_contact_torques(m, d, nw, wlink, w, tau);
            // (a finite f0 can still overflow on its way to the joints: a huge motion)
            for (int j = 0; j < nv; j++) finite &= isfinite(tau[j]);
            if (!finite) {
                st = SALTO_FAIL(err, SALTO_ERR_NUMERIC, salto_loc_none(),
                                "the motion's joint torques are not finite at t = %.4f s", t);
                break;
            }
            for (int j = 0; j < nv; j++) {
                if (fabs(tau[j]) > v->tau_peak[j]) v->tau_peak[j] = fabs(tau[j]), v->tau_peak_time[j] = t;
            }
            // the torque limits: tau + slope qd within [lo, hi]
            for (int j = 0; j < nv && m->ntorque > 0; j++) {
                double* lim = v->tau_lim + 2 * ((size_t)nv * s + j);
                lim[0] = -INFINITY, lim[1] = INFINITY;
                if (!m->link_has_torque[j]) continue;
                lim[0] = m->link_torque[2 * j] - m->link_torque_slope[j] * d->qd[j];
                lim[1] = m->link_torque[2 * j + 1] - m->link_torque_slope[j] * d->qd[j];
                const double tr = tau[j] + m->link_torque_slope[j] * d->qd[j];
                const double e = fmax(tr - m->link_torque[2 * j + 1], m->link_torque[2 * j] - tr);
                if (isnan(viol[SALTO_CHECK_TORQUE]) || e > viol[SALTO_CHECK_TORQUE]) {
                    viol[SALTO_CHECK_TORQUE] = e;
                    what[SALTO_CHECK_COUNT * s + SALTO_CHECK_TORQUE] = j;
                }
            }
            // the re-simulation to this sample, and its drift from the motion's state (in d)
            if (running) {
                const salto_status rs = k == 0 ? salto_resim_begin(r, i, t, d2->q, d2->qd, &rerr)
                                               : salto_resim_advance(r, opts->integrator, v->t[s - 1],
                                                                     t, h, d2->q, d2->qd, &rerr);
                for (int j = 0; rs == SALTO_OK && running && j < nv; j++) {
                    running = isfinite(d2->q[j]) && isfinite(d2->qd[j]);
                }
                if (rs != SALTO_OK || !running) running = 0, v->resim_stop[i] = t;
            }
            if (running) {
                salto_fk(m, d2, SALTO_FK_VEL);
                salto_link_inertias(m, d2);
                drift(m, d2, d, viol + SALTO_CHECK_DRIFT_ROOT);
            } else if (r) {
                for (int c = 0; c < 4; c++) viol[SALTO_CHECK_DRIFT_ROOT + c] = INFINITY;
            }
        }
    }
    v->step = hmax;
    if (st == SALTO_OK) {
        s = 0;
        for (int i = 0; i < p->nphase; i++) {
            for (int kind = 0; kind < SALTO_CHECK_COUNT; kind++) {
                salto_check c = {.kind = (salto_check_kind)kind, .phase = i,
                                 .worst_time = p->phases[i].start, .worst_what = -1};
                double sum2 = 0.0;
                for (int k = 0; k < per[i]; k++) {
                    const double e = v->violation[SALTO_CHECK_COUNT * (s + k) + kind];
                    if (isnan(e)) continue;
                    if (c.nsample == 0 || e > c.worst) {
                        c.worst = e;
                        c.worst_time = v->t[s + k];
                        c.worst_what = what[SALTO_CHECK_COUNT * (s + k) + kind];
                    }
                    sum2 += e * e;
                    c.nsample++;
                }
                if (c.nsample == 0) continue;
                c.rms = sqrt(sum2 / c.nsample);
                const double th = opts && opts->threshold[kind] >= 0.0
                                      ? opts->threshold[kind]
                                      : salto_check_default_threshold(m, (salto_check_kind)kind);
                c.threshold = th;
                c.pass = c.worst <= th;
                // a problem that asks for no physics is judged on its kinematics only
                c.judged = p->physics || !salto_check_is_physics((salto_check_kind)kind);
                v->njudged += c.judged;
                v->npassed += c.judged && c.pass;
                v->check[v->ncheck++] = c;
            }
            s += per[i];
        }
        v->pass = v->npassed == v->njudged;
    }
    salto_free(per), salto_free(what), salto_free(qd_prev);
    salto_data_destroy(d), salto_data_destroy(d2), salto_data_destroy(d3);
    salto_resim_destroy(r);
    if (st != SALTO_OK) salto_validation_free(v);
    return st;
}
