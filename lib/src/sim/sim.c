// sim.c: the stepping simulator (sim.h), after Kokkevis sections 4-8
//
// Each step of dt: (1) the constraint set: every geometry point within the margin of the
// ground (a sphere's or a capsule end's lowest point, a box's corners; closer still if it is
// approaching fast) gives a normal row and one (planar) or two tangent rows; every joint at or
// past a limit, a row on its DOF. (2) Impacts: if a touching point approaches the ground or a
// joint moves into its limit, the impulses that give the normal velocity -e v (v above the
// bounce speed, else 0), stop tangential sliding within the friction cone and stop the joint,
// by projected Gauss-Seidel on K (the velocity change per unit impulse is the acceleration
// change per unit force: the same matrix). (3) Accelerations: the articulated-body algorithm
// with the torques and external forces, then the constraint forces from the same LCP at the
// acceleration level: normal accelerations at least w^2 d - 2 w v (d penetration), friction
// cancelling the tangential velocity within the step, at most mu times the normal force along
// each tangent (a pyramid: two faces in the plane, four in 3-D), joint limit torques pushing
// only away from the limit. (4) Semi-implicit Euler; a point sinking deeper than 1 mm beyond
// where it started halves the step and retries (section 7's backtracking).
#include "salto/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/problem.h" // salto_contact_frame
#include "salto/spatial.h"

#include "linalg.h"

enum { row_normal = 0, row_tangent, row_limit, row_track, row_hold, row_grip };
enum { max_holds = SALTO_SIM_MAX_HOLDS };

// Row keys: the contacts' first (the ground and the bars), then from row_key_base two per DOF
// for its limits, three per hold, one per DOF for its tracking, one per grip
static long row_key_base(const salto_model* m) { return 24L * m->ngeom * (1 + SALTO_SIM_MAX_BARS); }
static long hold_key(const salto_model* m, int k, int a) { return row_key_base(m) + 2L * m->nv + 3L * k + a; }
static long track_key(const salto_model* m, int j) { return row_key_base(m) + 2L * m->nv + 3L * max_holds + j; }
static long grip_key(const salto_model* m, int k) { return row_key_base(m) + 3L * m->nv + 3L * max_holds + k; }

typedef struct row {
    int kind;
    long key;         // the same constraint in the next step has the same key (warm start)
    int link;         // contact rows: the link; limit rows: the DOF
    int contact;      // contact rows: the contact; tangent rows' normal row: normal
    int normal;       // tangent rows: their normal row
    double dir[3];    // contact and hold rows: the direction
    double pt[3];     // contact and hold rows: the point the force acts at, world
    double sign;      // limit rows: +1 at the lower limit, -1 at the upper
    double gap;       // penetration along the row (> 0: inside), m or rad
    double bound;     // grip rows: the largest torque, N m (the row: a torque about dir on link)
    double u[6];      // contact, hold and grip rows: the spatial force of a unit multiplier
                      //   (the point force dir at pt, or the couple dir), filled by collect
} row;

struct salto_sim {
    const salto_model* m;
    salto_sim_opts o;
    salto_data* d;
    double t;
    double *q, *qd, *tau, *fext, *fuser, *qdd;
    double *q0, *qd0;                 // a substep's start, for backtracking
    double* dA;                       // delta pass scratch (nv x 6)
    int planar;
    // constraints
    int nrow, cap;
    row* rows;
    double *K, *resp, *lambda, *target, *now, *vel; // K (cap x cap), responses (cap x nv)
    int ncontact, ccap;
    salto_sim_contact* contacts;
    // tracking
    int tracking;
    double kp, kd;
    double *tq, *tqd, *tqdd, *ttau;
    int* at_limit;                    // per DOF: at a limit at the end of the last step
    int* no_bars;                     // per link: 1 if it does not collide with the bars
    int synced;                       // d holds (q, qd) at the velocity level, depth is its
    double depth;                     //   deepest penetration
    int ttau_stale;                   // the reduced solve's tracking torques wait for a reader:
    double *tt_q, *tt_qd, *tt_qdd;    //   its state and accelerations
    salto_data* d2;                   //   and their inverse dynamics' data
    double *work, *work2;             // the solver's scratch
    int* iwork;
    int nprev;                        // the last acceleration solve's rows: keys, multipliers
    long* prev_key;
    double* prev_lambda;
    // holds: sites kept at points
    int nhold;
    int hold_site[max_holds];
    double hold_point[max_holds][3];
    // grips: a bounded torque about a world axis on a link, following the tracked rotation
    int ngrip;
    int grip_link[max_holds];
    double grip_axis[max_holds][3];
    double grip_max[max_holds];
    salto_sim_stats stats;
};


void salto_sim_opts_default(salto_sim_opts* o) {
    memset(o, 0, sizeof *o);
    o->dt = 1e-3;
    o->ground_normal[2] = 1.0;
    o->ground = 1;
    o->friction = 0.8;
    o->restitution = 0.3;
    o->bounce_speed = 0.05;
    o->joint_limits = 1;
    o->max_iterations = 100;
    o->tolerance = 1e-9;
    o->stiffness = 20.0;
    o->margin = 1e-3;
    o->max_halvings = 6;
    o->method = SALTO_CONSTRAINT_ABA_DELTA;
    o->reduced = 1;
    o->bar_radius = 0.02;
}


void salto_sim_destroy(salto_sim* s) {
    if (!s) return;
    salto_data_destroy(s->d);
    salto_free(s->q), salto_free(s->qd), salto_free(s->tau), salto_free(s->fext);
    salto_free(s->fuser), salto_free(s->qdd), salto_free(s->q0), salto_free(s->qd0);
    salto_free(s->dA), salto_free(s->tq), salto_free(s->tqd), salto_free(s->tqdd);
    salto_free(s->ttau), salto_free(s->at_limit), salto_free(s->no_bars), salto_free(s->rows);
    salto_free(s->tt_q), salto_free(s->tt_qd), salto_free(s->tt_qdd);
    salto_data_destroy(s->d2);
    salto_free(s->K), salto_free(s->resp);
    salto_free(s->lambda), salto_free(s->target), salto_free(s->now), salto_free(s->vel), salto_free(s->contacts);
    salto_free(s->prev_key), salto_free(s->prev_lambda);
    salto_free(s->work), salto_free(s->work2), salto_free(s->iwork);
    salto_free(s);
}


salto_sim* salto_sim_create(const salto_model* m, const salto_sim_opts* opts) {
    salto_sim* s = salto_calloc(1, sizeof *s);
    if (!s) return NULL;
    s->m = m;
    if (opts) {
        s->o = *opts;
    } else {
        salto_sim_opts_default(&s->o);
    }
    s->o.nbar = s->o.nbar < 0 ? 0 : s->o.nbar > SALTO_SIM_MAX_BARS ? SALTO_SIM_MAX_BARS : s->o.nbar;
    for (int b = 0; b < s->o.nbar; b++) {
        const double an = salto_v3_norm(s->o.bar_axis[b]);
        for (int k = 0; k < 3; k++) s->o.bar_axis[b][k] = an > 0 ? s->o.bar_axis[b][k] / an : (k == 1);
    }
    const double nn = salto_v3_norm(s->o.ground_normal);
    for (int k = 0; k < 3; k++) s->o.ground_normal[k] = nn > 0 ? s->o.ground_normal[k] / nn : (k == 2);
    const size_t nv = (size_t)m->nv;
    s->d = salto_data_create(m);
    s->q = salto_calloc(nv, sizeof(double));
    s->qd = salto_calloc(nv, sizeof(double));
    s->tau = salto_calloc(nv, sizeof(double));
    s->fext = salto_calloc(nv * 6, sizeof(double));
    s->fuser = salto_calloc(nv * 6, sizeof(double));
    s->qdd = salto_calloc(nv, sizeof(double));
    s->q0 = salto_calloc(nv, sizeof(double));
    s->qd0 = salto_calloc(nv, sizeof(double));
    s->dA = salto_calloc(nv * 6, sizeof(double));
    s->tq = salto_calloc(nv, sizeof(double));
    s->tqd = salto_calloc(nv, sizeof(double));
    s->tqdd = salto_calloc(nv, sizeof(double));
    s->ttau = salto_calloc(nv, sizeof(double));
    s->at_limit = salto_calloc(nv, sizeof(int));
    s->no_bars = salto_calloc(nv, sizeof(int));
    s->tt_q = salto_calloc(nv, sizeof(double));
    s->tt_qd = salto_calloc(nv, sizeof(double));
    s->tt_qdd = salto_calloc(nv, sizeof(double));
    s->d2 = salto_data_create(m);
    // room for every geometry point's three rows and every DOF's limit row
    int npt = 0;
    for (int g = 0; g < m->ngeom; g++) npt += m->geom_shape[g] == SALTO_GEOM_BOX ? 8 : m->geom_shape[g] == SALTO_GEOM_CAPSULE ? 3 : 1;
    npt *= 1 + s->o.nbar;
    s->ccap = npt > 0 ? npt : 1;
    s->cap = 3 * npt + 2 * m->nv + 4 * max_holds + 1; // contacts, limits, tracking, holds, grips
    const size_t cap = (size_t)s->cap;
    s->rows = salto_calloc(cap, sizeof(row));
    s->K = salto_calloc(cap * cap, sizeof(double));
    s->resp = salto_calloc(cap * nv, sizeof(double));
    s->lambda = salto_calloc(cap, sizeof(double));
    s->target = salto_calloc(cap, sizeof(double));
    s->now = salto_calloc(cap, sizeof(double));
    s->vel = salto_calloc(cap, sizeof(double));
    s->contacts = salto_calloc((size_t)s->ccap, sizeof(salto_sim_contact));
    s->prev_key = salto_calloc(cap, sizeof(long));
    s->work = salto_calloc(3 * cap * cap + 6 * cap, sizeof(double));
    s->work2 = salto_calloc(2 * cap, sizeof(double));
    s->iwork = salto_calloc(4 * cap, sizeof(int));
    s->prev_lambda = salto_calloc(cap, sizeof(double));
    if (!s->d || !s->q || !s->qd || !s->tau || !s->fext || !s->fuser || !s->qdd || !s->q0 ||
        !s->qd0 || !s->dA || !s->tq || !s->tqd || !s->tqdd || !s->ttau || !s->at_limit || !s->no_bars || !s->tt_q || !s->tt_qd || !s->tt_qdd || !s->d2 || !s->rows || !s->K || !s->resp || !s->lambda || !s->target ||
        !s->now || !s->vel || !s->contacts || !s->prev_key || !s->prev_lambda || !s->work || !s->work2 ||
        !s->iwork) {
        salto_sim_destroy(s);
        return NULL;
    }
    s->planar = salto_model_is_planar(m);
    return s;
}


void salto_sim_set_state(salto_sim* s, const double* q, const double* qd) {
    memcpy(s->q, q, (size_t)s->m->nv * sizeof(double));
    memcpy(s->qd, qd, (size_t)s->m->nv * sizeof(double));
    s->synced = 0;
}

const double* salto_sim_q(const salto_sim* s) { return s->q; }
const double* salto_sim_qd(const salto_sim* s) { return s->qd; }
double salto_sim_time(const salto_sim* s) { return s->t; }
const salto_data* salto_sim_data(const salto_sim* s) { return s->d; }
const salto_sim_stats* salto_sim_get_stats(const salto_sim* s) { return &s->stats; }

int salto_sim_contacts(const salto_sim* s, const salto_sim_contact** contacts) {
    if (contacts) *contacts = s->contacts;
    return s->ncontact;
}

void salto_sim_set_torques(salto_sim* s, const double* tau) {
    memcpy(s->tau, tau, (size_t)s->m->nv * sizeof(double));
}

void salto_sim_apply_force(salto_sim* s, int link, const double f[3], const double x[3]) {
    if (link < 0 || link >= s->m->nv) return;
    double w[6];
    salto_point_force(w, x, f);
    salto_sv_add_to(s->fuser + 6 * link, w);
}

void salto_sim_track(salto_sim* s, const double* q, const double* qd, const double* qdd,
                     double kp, double kd) {
    const size_t n = (size_t)s->m->nv * sizeof(double);
    s->tracking = q != NULL;
    if (!q) return;
    memcpy(s->tq, q, n);
    memcpy(s->tqd, qd, n);
    memcpy(s->tqdd, qdd, n);
    s->kp = kp, s->kd = kd;
}

const double* salto_sim_tracking_torques(salto_sim* s) {
    if (!s->ttau_stale) return s->ttau;
    // the inverse dynamics of the reduced solve's accelerations with its contact and hold
    // forces: what the joints needed beyond the torques set and the user forces
    const salto_model* m = s->m;
    const int nv = m->nv;
    salto_data* d = s->d2;
    memcpy(d->q, s->tt_q, (size_t)nv * sizeof(double));
    memcpy(d->qd, s->tt_qd, (size_t)nv * sizeof(double));
    memcpy(d->qdd, s->tt_qdd, (size_t)nv * sizeof(double));
    // the external forces: the user's and the contact and hold forces at their points
    double* W = s->fext;
    memcpy(W, s->fuser, (size_t)nv * 6 * sizeof(double));
    for (int i = 0; i < s->nrow; i++) {
        const row* r = &s->rows[i];
        const double L = s->lambda[i];
        if (L == 0.0 || r->kind == row_track || r->kind == row_limit) continue;
        salto_sv_axpy(W + 6 * r->link, L, r->u);
    }
    double* tau = s->ttau;
    salto_rnea_ext(m, d, W, tau);
    for (int j = 0; j < nv; j++) tau[j] = j < m->nroot ? 0.0 : tau[j] - s->tau[j];
    s->ttau_stale = 0;
    return s->ttau;
}


int salto_sim_hold(salto_sim* s, int site, const double point[3]) {
    if (site < 0 || site >= s->m->nsite || s->m->site_link[site] < 0 || s->nhold == max_holds ||
        !point || !isfinite(point[0]) || !isfinite(point[1]) || !isfinite(point[2])) {
        return 0;
    }
    s->hold_site[s->nhold] = site;
    memcpy(s->hold_point[s->nhold], point, 3 * sizeof(double));
    s->nhold++;
    return 1;
}

int salto_sim_grip(salto_sim* s, int link, const double axis[3], double torque_max) {
    const double an = salto_v3_norm(axis);
    if (link < 0 || link >= s->m->nv || !(an > 0.0) || !isfinite(an) || !(torque_max >= 0.0) ||
        s->ngrip == max_holds) {
        return 0;
    }
    s->grip_link[s->ngrip] = link;
    for (int k = 0; k < 3; k++) s->grip_axis[s->ngrip][k] = axis[k] / an;
    s->grip_max[s->ngrip] = torque_max;
    s->ngrip++;
    return 1;
}

static double last_multiplier(const salto_sim* s, long key);

double salto_sim_grip_torque(const salto_sim* s, int k) {
    return k >= 0 && k < s->ngrip ? last_multiplier(s, grip_key(s->m, k)) : 0.0;
}

// the holds' and grips' last multipliers go with them: a new grip's torque reads zero until its
// first step, and a new hold starts without the old one's force
void salto_sim_release_all(salto_sim* s) {
    s->nhold = 0, s->ngrip = 0;
    const salto_model* m = s->m;
    int n = 0;
    for (int k = 0; k < s->nprev; k++) {
        const long key = s->prev_key[k];
        const int hold = key >= hold_key(m, 0, 0) && key < hold_key(m, max_holds, 0);
        const int grip = key >= grip_key(m, 0) && key < grip_key(m, max_holds);
        if (hold || grip) continue;
        s->prev_key[n] = key, s->prev_lambda[n] = s->prev_lambda[k];
        n++;
    }
    s->nprev = n;
}

void salto_sim_ignore_bars(salto_sim* s, int link) {
    if (link >= 0 && link < s->m->nv) s->no_bars[link] = 1;
}


void salto_sim_clear_forces(salto_sim* s) {
    memset(s->fuser, 0, (size_t)s->m->nv * 6 * sizeof(double));
}


// velocity and acceleration (after salto_aba: A holds -g as the base's) of world point x on link
static void point_vel(const salto_data* d, int link, const double x[3], double v[3]) {
    const double* V = d->V + 6 * link;
    salto_v3_cross(v, V, x);
    for (int k = 0; k < 3; k++) v[k] += V[3 + k];
}

static void point_acc(const salto_model* m, const salto_data* d, int link, const double x[3],
                      double a[3]) {
    const double* V = d->V + 6 * link;
    const double* A = d->A + 6 * link;
    double v[3];
    point_vel(d, link, x, v);
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
    point_vel(s->d, link, x, v);
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
static int bar_touch(const salto_sim* s, int b, const double c[3], double r, double n[3],
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
static int nearest_inside(const salto_sim* s, int b, const double p0[3], const double p1[3],
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
    if (!bar_touch(s, b, c, r, n, x, &depth)) return;
    salto_v3_cross(t2, n, s->o.bar_axis[b]);
    add_contact(s, h, g, k, 1 + b, link, x, n, depth, t2, s->planar ? NULL : s->o.bar_axis[b]);
}


// the constraint rows at the state in s->d (salto_fk at the velocity level done): contacts
// with the ground and the bars, joints within 1e-3 rad of a limit, holds, tracking
static void collect(salto_sim* s, double h) {
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
        const int nbar = s->no_bars[link] ? 0 : s->o.nbar;
        for (int b = 0; b < nbar && m->geom_shape[g] == SALTO_GEOM_CAPSULE; b++) {
            double c[3];
            if (nearest_inside(s, b, pts[0], pts[1], c)) add_bar_contact(s, h, g, 2, b, link, c, r);
        }
        for (int k = 0; k < npt; k++) {
            if (s->o.ground) {
                double x[3];
                for (int c = 0; c < 3; c++) x[c] = pts[k][c] - r * N[c];
                const double depth = s->o.ground_height - salto_v3_dot(N, x);
                add_contact(s, h, g, k, 0, link, x, N, depth, Tx, s->planar ? NULL : Ty);
            }
            for (int b = 0; b < nbar; b++) add_bar_contact(s, h, g, k, b, link, pts[k], r);
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
static void row_values(const salto_sim* s, int accel, double* out) {
    for (int i = 0; i < s->nrow; i++) {
        const row* r = &s->rows[i];
        if (r->kind == row_limit || r->kind == row_track) {
            out[i] = r->sign * (accel ? s->d->qdd[r->link] : s->qd[r->link]);
            continue;
        }
        if (r->kind == row_grip) { // the link's turning about the axis
            out[i] = salto_v3_dot(r->dir, (accel ? s->d->A : s->d->V) + 6 * r->link);
            continue;
        }
        const double* x = r->pt;
        double v[3];
        if (accel) {
            point_acc(s->m, s->d, r->link, x, v);
        } else {
            point_vel(s->d, r->link, x, v);
        }
        out[i] = salto_v3_dot(r->dir, v);
    }
}


// K by test forces after a free salto_aba at the state (d's articulated inertias): column k
// the rows' response to a unit force (or torque) along row k, resp + k nv the DOFs'
static salto_status build_k(salto_sim* s) {
    const salto_model* m = s->m;
    const int nv = m->nv, n = s->nrow;
    double* base = s->now; // the rows' accelerations without test forces (full-pass method)
    if (s->o.method == SALTO_CONSTRAINT_TEST_FORCES) row_values(s, 1, base);
    for (int k = 0; k < n; k++) {
        const row* r = &s->rows[k];
        int at = r->link;
        const int torque = r->kind == row_limit || r->kind == row_track;
        const double* f = torque ? NULL : r->u;
        double* dq = s->resp + (size_t)k * nv;
        if (s->o.method == SALTO_CONSTRAINT_ABA_DELTA) {
            salto_aba_delta(m, s->d, at, f, dq, s->dA);
            if (torque && r->sign != 1.0) {
                for (int j = 0; j < nv; j++) dq[j] *= r->sign;
                for (int j = 0; j < 6 * nv; j++) s->dA[j] *= r->sign;
            }
            for (int i = 0; i < n; i++) { // the rows' change from dA (no velocity terms)
                const row* ri = &s->rows[i];
                if (ri->kind == row_limit || ri->kind == row_track) {
                    s->K[(size_t)n * k + i] = ri->sign * dq[ri->link];
                } else {
                    s->K[(size_t)n * k + i] = salto_sv_dot(s->dA + 6 * ri->link, ri->u);
                }
            }
            continue;
        }
        // a full pass with the test force added
        if (f) {
            salto_sv_add_to(s->fext + 6 * at, f);
        } else {
            s->d->tau[at] += r->sign;
        }
        const salto_status st = salto_aba(m, s->d, s->fext);
        if (f) {
            for (int c = 0; c < 6; c++) s->fext[6 * at + c] -= f[c];
        } else {
            s->d->tau[at] -= r->sign;
        }
        if (st != SALTO_OK) return st;
        row_values(s, 1, s->vel);
        for (int i = 0; i < n; i++) s->K[(size_t)n * k + i] = s->vel[i] - base[i];
        for (int j = 0; j < nv; j++) dq[j] = s->d->qdd[j] - s->qdd[j];
    }
    if (s->o.method == SALTO_CONSTRAINT_TEST_FORCES) { // the free pass's state back
        const salto_status st = salto_aba(m, s->d, s->fext);
        if (st != SALTO_OK) return st;
    }
    for (int a = 0; a < n; a++) { // symmetric in exact arithmetic
        for (int b = a + 1; b < n; b++) {
            const double v = 0.5 * (s->K[(size_t)n * a + b] + s->K[(size_t)n * b + a]);
            s->K[(size_t)n * a + b] = s->K[(size_t)n * b + a] = v;
        }
    }
    return SALTO_OK;
}


// the last acceleration solve's multiplier of the row with this key (a warm start), else 0
static double last_multiplier(const salto_sim* s, long key) {
    for (int k = 0; k < s->nprev; k++) {
        if (s->prev_key[k] == key) return s->prev_lambda[k];
    }
    return 0.0;
}


// projected Gauss-Seidel on n rows idx[] of the system (matrix K with stride ld, indexed by
// position in idx): L with now + K L >= target on normal and limit rows (complementary to
// L >= 0), = target on the others, tangent rows within |L| <= mu L_normal (pos_of gives a
// row's position in idx, -1 if it is not there). L starts as given.
static void pgs_core(salto_sim* s, int n, const int* idx, const double* K, int ld,
                     const double* now, const double* target, const int* pos_of, double* L) {
    const double mu = s->o.friction;
    for (int sweep = 0; sweep < s->o.max_iterations; sweep++) {
        double moved = 0.0, big = 0.0;
        for (int a = 0; a < n; a++) {
            const row* r = &s->rows[idx[a]];
            const double kaa = K[(size_t)ld * a + a];
            if (!(kaa > 1e-12) || target[a] == -INFINITY) { // immovable direction, or inactive
                L[a] = 0.0;
                continue;
            }
            double w = now[a] - target[a];
            for (int k = 0; k < n; k++) w += K[(size_t)ld * k + a] * L[k];
            double v = L[a] - w / kaa;
            if (r->kind == row_tangent) {
                const int pn = pos_of[r->normal];
                const double lim = pn >= 0 ? mu * L[pn] : 0.0;
                v = fmin(fmax(v, -lim), lim);
            } else if (r->kind == row_grip) {
                v = fmin(fmax(v, -r->bound), r->bound);
            } else if (r->kind != row_track && r->kind != row_hold) {
                v = fmax(v, 0.0);
            }
            moved = fmax(moved, fabs(v - L[a]));
            big = fmax(big, fabs(v));
            L[a] = v;
        }
        s->stats.pgs_sweeps++;
        if (moved <= s->o.tolerance * big) break;
    }
}


// The constraint multipliers s->lambda for K, now, target. Bilateral rows (tracking, holds)
// are eliminated exactly first (Schur complement through a pivoted Cholesky factorisation of
// their block): lambda_B = K_BB^-1 (target_B - now_B - K_BU lambda_U); projected Gauss-Seidel
// then solves the unilateral rows (contacts, limits) on S = K_UU - K_UB K_BB^-1 K_BU, where it
// converges as on a plain contact problem (Gauss-Seidel over stiff bilateral rows coupled to
// contacts crawls). warm: the unilateral rows start from the last step's multipliers.
static void pgs(salto_sim* s, int warm) {
    const int n = s->nrow;
    double* L = s->lambda;
    int *iu = s->iwork, *ib = s->iwork + n, *pos = s->iwork + 2 * n;
    int nu = 0, nb = 0;
    for (int i = 0; i < n; i++) {
        const int bil = (s->rows[i].kind == row_track || s->rows[i].kind == row_hold) && s->target[i] != -INFINITY;
        if (bil) {
            pos[i] = -1, ib[nb++] = i;
        } else {
            pos[i] = nu, iu[nu++] = i;
        }
        L[i] = 0.0;
    }
    double* S = s->work;                        // (nu x nu)
    double* X = S + (size_t)nu * nu;            // K_BB^-1 K_BU (nb x nu), column per unilateral
    double* y = X + (size_t)nb * nu;            // K_BB^-1 (target_B - now_B) (nb)
    double* nowu = y + nb;                      // (nu)
    double* tgtu = nowu + nu;                   // (nu)
    double* Lu = tgtu + nu;                     // (nu)
    double* C = Lu + nu;                        // K_BB factor (nb x nb)
    int rank = 0;
    int* piv = s->iwork + 3 * n;
    if (nb > 0) {
        for (int a = 0; a < nb; a++) {
            for (int b = 0; b < nb; b++) C[(size_t)nb * a + b] = s->K[(size_t)n * ib[a] + ib[b]];
        }
        rank = salto_pchol(C, nb, 1e-12, piv, s->work2);
        for (int a = 0; a < nb; a++) y[a] = s->target[ib[a]] - s->now[ib[a]];
        salto_pchol_solve(C, nb, rank, piv, y, s->work2);
    }
    for (int u = 0; u < nu && nb > 0; u++) {
        double* x = X + (size_t)nb * u;
        for (int a = 0; a < nb; a++) x[a] = s->K[(size_t)n * iu[u] + ib[a]];
        salto_pchol_solve(C, nb, rank, piv, x, s->work2);
    }
    for (int u = 0; u < nu; u++) {
        double v = s->now[iu[u]];
        for (int a = 0; a < nb; a++) v += s->K[(size_t)n * ib[a] + iu[u]] * y[a];
        nowu[u] = v;
        tgtu[u] = s->target[iu[u]];
        for (int w = 0; w < nu; w++) {
            double k = s->K[(size_t)n * iu[w] + iu[u]];
            for (int a = 0; a < nb; a++) k -= s->K[(size_t)n * ib[a] + iu[u]] * X[(size_t)nb * w + a];
            S[(size_t)nu * w + u] = k;
        }
        Lu[u] = warm ? last_multiplier(s, s->rows[iu[u]].key) : 0.0;
    }
    if (nu > 0) pgs_core(s, nu, iu, S, nu, nowu, tgtu, pos, Lu);
    for (int u = 0; u < nu; u++) L[iu[u]] = Lu[u];
    for (int a = 0; a < nb; a++) {
        double v = y[a];
        for (int u = 0; u < nu; u++) v -= X[(size_t)nb * u + a] * Lu[u];
        L[ib[a]] = v;
    }
}


// the free accelerations at the state in s->q, s->qd (torques, user forces)
static salto_status free_pass(salto_sim* s) {
    const salto_model* m = s->m;
    memcpy(s->d->q, s->q, (size_t)m->nv * sizeof(double));
    memcpy(s->d->qd, s->qd, (size_t)m->nv * sizeof(double));
    memcpy(s->d->tau, s->tau, (size_t)m->nv * sizeof(double));
    memcpy(s->fext, s->fuser, (size_t)m->nv * 6 * sizeof(double));
    const salto_status st = salto_aba(m, s->d, s->fext);
    if (st == SALTO_OK) memcpy(s->qdd, s->d->qdd, (size_t)m->nv * sizeof(double));
    return st;
}


// impacts at the state: impulses for touching points approaching the ground and joints moving
// into a limit; qd changed in place. Returns whether any impulse acted.
static salto_status impacts(salto_sim* s, int* any) {
    *any = 0;
    const int n = s->nrow, nv = s->m->nv;
    if (n == 0) return SALTO_OK;
    row_values(s, 0, s->now); // velocities
    int approaching = 0;
    for (int i = 0; i < n; i++) {
        const row* r = &s->rows[i];
        if (r->kind == row_tangent || r->kind == row_track || r->kind == row_hold || r->kind == row_grip) continue;
        if (r->gap >= -1e-9 && s->now[i] < -1e-9) approaching = 1;
    }
    if (!approaching) return SALTO_OK;
    salto_status st = free_pass(s); // the articulated inertias the test forces read
    if (st == SALTO_OK) st = build_k(s);
    if (st != SALTO_OK) return st;
    row_values(s, 0, s->now);
    for (int i = 0; i < n; i++) {
        const row* r = &s->rows[i];
        const double v = s->now[i];
        if (r->kind == row_track || r->kind == row_hold || r->kind == row_grip) {
            s->target[i] = -INFINITY; // tracking, holds and grips act through accelerations only
        } else if (r->kind == row_tangent) {
            s->target[i] = 0.0; // stop sliding, as far as friction can
        } else if (r->gap < -1e-9 || v >= 0.0) {
            s->target[i] = -INFINITY; // not touching, or separating: no impulse needed
        } else if (r->kind == row_normal) {
            s->target[i] = -v > s->o.bounce_speed ? -s->o.restitution * v : 0.0;
        } else {
            s->target[i] = 0.0; // joints stop at their limits
        }
    }
    pgs(s, 0);
    double fastest = 0.0; // the fastest approach of a touching point
    for (int i = 0; i < n; i++) {
        const double L = s->lambda[i];
        if (L == 0.0) continue;
        *any = 1;
        const row* r = &s->rows[i];
        if (r->kind == row_normal) fastest = fmax(fastest, -s->now[i]);
        for (int j = 0; j < nv; j++) s->qd[j] += L * s->resp[(size_t)i * nv + j];
    }
    if (fastest > s->o.bounce_speed) s->stats.impacts++; // a collision, not resting contact
    return SALTO_OK;
}


// DOF j's tracked acceleration, qdd_t + kp (q_t - q) + kd (qd_t - qd) (Kokkevis 8.3)
static double tracked_qdd(const salto_sim* s, int j) {
    return s->tqdd[j] + s->kp * (s->tq[j] - s->q[j]) + s->kd * (s->tqd[j] - s->qd[j]);
}


// A grip row's target: the link's angular acceleration about the axis a were every DOF on its
// path to follow the tracked motion, qdd*_j = qdd_t + kp (q_t - q) + kd (qd_t - qd) (the root's
// too): a . sum_j (S_j qdd*_j + w_parent(j) x S_j qd_j), S_j the joints' world axes (angular
// parts) and w their parents' angular velocities, at the state in s->d (velocity level).
static double grip_target(const salto_sim* s, const row* r) {
    const salto_model* m = s->m;
    const salto_data* d = s->d;
    double acc = 0.0;
    for (int j = r->link; j >= 0; j = m->link_parent[j]) {
        // d->c: the kinematics' velocity-product term (w_parent x S_j) qd_j, angular part first
        acc += salto_v3_dot(r->dir, d->S + 6 * j) * tracked_qdd(s, j) + salto_v3_dot(r->dir, d->c + 6 * j);
    }
    return acc;
}


// the rows' target accelerations (vel: their velocities)
static void row_targets(salto_sim* s, double h, const double* vel) {
    const double w = s->o.stiffness;
    for (int i = 0; i < s->nrow; i++) {
        const row* r = &s->rows[i];
        if (r->kind == row_track) {
            const int j = r->link;
            s->target[i] = tracked_qdd(s, j);
            continue;
        }
        if (r->kind == row_grip) {
            s->target[i] = grip_target(s, r);
            continue;
        }
        if (r->kind == row_hold) { // back to the point, critically damped
            s->target[i] = w * w * r->gap - 2.0 * w * vel[i];
            continue;
        }
        const double gap = r->kind == row_tangent ? s->rows[r->normal].gap : r->gap;
        if (gap < -1e-6) {
            s->target[i] = -INFINITY; // apart: free to approach (an impact when it touches)
        } else if (r->kind == row_tangent) {
            s->target[i] = -vel[i] / h;
        } else {
            s->target[i] = w * w * r->gap - 2.0 * w * vel[i];
        }
    }
}


static void keep_multipliers(salto_sim* s) {
    for (int i = 0; i < s->nrow; i++) s->prev_key[i] = s->rows[i].key, s->prev_lambda[i] = s->lambda[i];
    s->nprev = s->nrow;
}


// Every joint tracked: the joints' accelerations are the targets, so only the root's DOFs
// (and the contact and hold forces) are unknown. The contact problem is then the root's: with
// M_rr the whole body's composite inertia on the root's axes and J_r the rows' Jacobian in the
// root's DOFs, K = J_r M_rr^-1 J_r' (rank at most 6) and the bias from one inverse-dynamics
// pass at qdd = (0, targets). The same solution as eliminating the tracking rows from the full
// matrix (a test compares them), without a test force per row. Joint limits give way to the
// tracking here, as they do there.
static salto_status accelerations_tracked(salto_sim* s, double h) {
    const salto_model* m = s->m;
    const int nv = m->nv, nr = m->nroot;
    salto_data* d = s->d;
    memcpy(d->q, s->q, (size_t)nv * sizeof(double));
    memcpy(d->qd, s->qd, (size_t)nv * sizeof(double));
    for (int j = 0; j < nv; j++) {
        d->qdd[j] = j < nr ? 0.0 : tracked_qdd(s, j);
    }
    double* tau = s->ttau;
    salto_rnea(m, d, tau); // kinematics to accelerations; the torques for qdd_root = 0
    salto_link_inertias(m, d);
    // the root's residual without contacts: tau_r - (set torques) - (user forces' share)
    double Fu[6] = {0, 0, 0, 0, 0, 0}, Ic[10] = {0}, b[6], Mrr[36];
    for (int l = 0; l < nv; l++) salto_sv_add_to(Fu, s->fuser + 6 * l);
    for (int l = 0; l < nv; l++) salto_si_add_to(Ic, d->I + 10 * l);
    for (int a = 0; a < nr; a++) {
        b[a] = -(tau[a] - s->tau[a] - salto_sv_dot(d->S + 6 * a, Fu));
        double IS[6];
        salto_si_mul(IS, Ic, d->S + 6 * a);
        for (int c = 0; c < nr; c++) Mrr[nr * c + a] = salto_sv_dot(d->S + 6 * c, IS);
    }
    // M_rr's Cholesky factor, then qdd_root0 = M_rr^-1 b
    if (!salto_chol(Mrr, nr)) return SALTO_ERR_NUMERIC;
    double qr[6];
    memcpy(qr, b, (size_t)nr * sizeof(double));
    salto_chol_solve(Mrr, nr, qr);
    // the contact and hold rows: their root Jacobian and M_rr^-1 J_r' (per row)
    int* idx = s->iwork;
    int* pos = s->iwork + s->nrow;
    int nu = 0;
    for (int i = 0; i < s->nrow; i++) {
        const int k = s->rows[i].kind;
        pos[i] = -1;
        s->lambda[i] = 0.0;
        if (k == row_track || k == row_limit) continue;
        pos[i] = nu, idx[nu++] = i;
    }
    double* Jr = s->work;                     // (nu x 6)
    double* MJ = Jr + (size_t)nu * 6;         // M_rr^-1 J_r' columns (nu x 6)
    double* Kr = MJ + (size_t)nu * 6;         // (nu x nu)
    double* nowr = Kr + (size_t)nu * nu;      // (nu)
    double* tgt = nowr + nu;                  // (nu)
    double* L = tgt + nu;                     // (nu)
    double* vel = s->vel;
    row_values(s, 0, vel);
    row_values(s, 1, s->now); // with qdd_root = 0 (d->A from the inverse dynamics)
    row_targets(s, h, vel);
    for (int u = 0; u < nu; u++) {
        const row* r = &s->rows[idx[u]];
        for (int a = 0; a < nr; a++) Jr[6 * u + a] = salto_sv_dot(d->S + 6 * a, r->u);
        memcpy(MJ + 6 * u, Jr + 6 * u, (size_t)nr * sizeof(double));
        salto_chol_solve(Mrr, nr, MJ + 6 * u);
    }
    for (int u = 0; u < nu; u++) {
        double v = s->now[idx[u]];
        for (int a = 0; a < nr; a++) v += Jr[6 * u + a] * qr[a];
        nowr[u] = v;
        tgt[u] = s->target[idx[u]];
        for (int w2 = 0; w2 < nu; w2++) {
            double k = 0.0;
            for (int a = 0; a < nr; a++) k += Jr[6 * u + a] * MJ[6 * w2 + a];
            Kr[(size_t)nu * w2 + u] = k;
        }
        L[u] = last_multiplier(s, s->rows[idx[u]].key);
    }
    if (nu > 0) pgs_core(s, nu, idx, Kr, nu, nowr, tgt, pos, L);
    for (int u = 0; u < nu; u++) {
        s->lambda[idx[u]] = L[u];
        for (int a = 0; a < nr; a++) qr[a] += MJ[6 * u + a] * L[u];
    }
    keep_multipliers(s);
    // the accelerations; the tracking torques, from the inverse dynamics with the contact and
    // hold forces, when someone asks (salto_sim_tracking_torques); the contact forces now
    for (int j = 0; j < nv; j++) s->qdd[j] = j < nr ? qr[j] : d->qdd[j];
    memcpy(s->tt_q, s->q, (size_t)nv * sizeof(double));
    memcpy(s->tt_qd, s->qd, (size_t)nv * sizeof(double));
    memcpy(s->tt_qdd, s->qdd, (size_t)nv * sizeof(double));
    s->ttau_stale = 1;
    for (int u = 0; u < nu; u++) {
        const row* r = &s->rows[idx[u]];
        if (L[u] == 0.0 || (r->kind != row_normal && r->kind != row_tangent)) continue;
        salto_sim_contact* c = &s->contacts[r->contact];
        for (int k = 0; k < 3; k++) c->force[k] += L[u] * r->dir[k];
    }
    return SALTO_OK;
}


static salto_status accelerations(salto_sim* s, double h) {
    const salto_model* m = s->m;
    const int nv = m->nv, n = s->nrow;
    memset(s->ttau, 0, (size_t)nv * sizeof(double));
    s->ttau_stale = 0;
    if (s->tracking && s->o.reduced && m->nroot > 0) return accelerations_tracked(s, h);
    salto_status st = free_pass(s);
    if (st == SALTO_OK && n == 0) keep_multipliers(s); // none: the store is emptied too
    if (st != SALTO_OK || n == 0) return st;
    if ((st = build_k(s)) != SALTO_OK) return st;
    double* vel = s->vel;
    row_values(s, 0, vel);
    row_values(s, 1, s->now);
    row_targets(s, h, vel);
    pgs(s, 1);
    keep_multipliers(s);
    for (int i = 0; i < n; i++) {
        const double L = s->lambda[i];
        if (L == 0.0) continue;
        for (int j = 0; j < nv; j++) s->qdd[j] += L * s->resp[(size_t)i * nv + j];
        const row* r = &s->rows[i];
        if (r->kind == row_track) s->ttau[r->link] = L;
        if (r->kind == row_normal || r->kind == row_tangent) {
            salto_sim_contact* c = &s->contacts[r->contact];
            for (int k = 0; k < 3; k++) c->force[k] += L * r->dir[k];
        }
    }
    return SALTO_OK;
}


// d at (q, qd), the velocity level, and the deepest any geometry point sinks into the ground
// or a bar (the step is halved when it sinks further)
static void sync(salto_sim* s) {
    const salto_model* m = s->m;
    memcpy(s->d->q, s->q, (size_t)m->nv * sizeof(double));
    memcpy(s->d->qd, s->qd, (size_t)m->nv * sizeof(double));
    salto_fk(m, s->d, SALTO_FK_VEL);
    s->synced = 1;
    double worst = -INFINITY;
    for (int g = 0; g < m->ngeom; g++) {
        const int link = m->geom_link[g];
        if (link < 0) continue;
        double pts[8][3], r = 0.0;
        const int npt = salto_geom_points(m, s->d, g, pts, &r);
        const int nbar = s->no_bars[link] ? 0 : s->o.nbar;
        for (int k = 0; k < npt; k++) {
            if (s->o.ground) {
                worst = fmax(worst, s->o.ground_height - (salto_v3_dot(s->o.ground_normal, pts[k]) - r));
            }
            for (int b = 0; b < nbar; b++) {
                double n[3], x[3], depth;
                if (bar_touch(s, b, pts[k], r, n, x, &depth)) worst = fmax(worst, depth);
            }
        }
        for (int b = 0; b < nbar && m->geom_shape[g] == SALTO_GEOM_CAPSULE; b++) {
            double c[3], n[3], x[3], depth;
            if (nearest_inside(s, b, pts[0], pts[1], c) && bar_touch(s, b, c, r, n, x, &depth)) {
                worst = fmax(worst, depth);
            }
        }
    }
    s->depth = worst;
}


salto_status salto_sim_step(salto_sim* s, salto_error* err) {
    const salto_model* m = s->m;
    const int nv = m->nv;
    double remaining = s->o.dt;
    int halvings = 0;
    s->stats.steps++;
    if (!s->synced) sync(s);
    while (remaining > 1e-15) {
        double h = remaining;
        memcpy(s->q0, s->q, (size_t)nv * sizeof(double));
        memcpy(s->qd0, s->qd, (size_t)nv * sizeof(double));
        const double start_depth = s->depth;
        for (;;) {
            if (!s->synced) { // a retry: back to the substep's start
                memcpy(s->q, s->q0, (size_t)nv * sizeof(double));
                memcpy(s->qd, s->qd0, (size_t)nv * sizeof(double));
                sync(s);
            }
            collect(s, h);
            int any = 0;
            salto_status st = impacts(s, &any);
            if (st == SALTO_OK) {
                if (any) { // the contacts' velocities changed: the set again
                    memcpy(s->d->qd, s->qd, (size_t)nv * sizeof(double));
                    salto_fk(m, s->d, SALTO_FK_VEL);
                    collect(s, h);
                }
                st = accelerations(s, h);
            }
            if (st != SALTO_OK) {
                memcpy(s->q, s->q0, (size_t)nv * sizeof(double));
                memcpy(s->qd, s->qd0, (size_t)nv * sizeof(double));
                s->synced = 0;
                return SALTO_FAIL(err, SALTO_ERR_NUMERIC, salto_loc_none(),
                                  "the articulated-body algorithm failed at t = %.6f s", s->t);
            }
            for (int j = 0; j < nv; j++) {
                s->qd[j] += h * s->qdd[j];
                s->q[j] += h * s->qd[j];
            }
            s->stats.substeps++;
            sync(s); // the new state: kinematics for the next substep, and its depth
            if (s->depth > fmax(start_depth, 0.0) + 1e-3 && halvings < s->o.max_halvings) {
                halvings++;
                s->stats.halvings++;
                h *= 0.5;
                s->synced = 0;
                continue;
            }
            s->stats.max_depth = fmax(s->stats.max_depth, s->depth);
            break;
        }
        for (int j = 0; j < nv; j++) {
            if (!isfinite(s->q[j]) || !isfinite(s->qd[j])) {
                memcpy(s->q, s->q0, (size_t)nv * sizeof(double));
                memcpy(s->qd, s->qd0, (size_t)nv * sizeof(double));
                s->synced = 0;
                return SALTO_FAIL(err, SALTO_ERR_NUMERIC, salto_loc_none(),
                                  "the state stopped being finite at t = %.6f s (DOF '%s')", s->t,
                                  m->link_name[j]);
            }
        }
        remaining -= h;
        s->t += h;
    }
    // joints arriving at a limit (within 1e-4 rad of it, or past it) since the last step
    for (int j = 0; j < nv; j++) {
        int at = 0;
        if (s->o.joint_limits && m->link_has_limits[j]) {
            at = s->q[j] < m->link_limits[2 * j] + 1e-4 || s->q[j] > m->link_limits[2 * j + 1] - 1e-4;
        }
        if (at && !s->at_limit[j]) s->stats.limit_events++;
        s->at_limit[j] = at;
    }
    return SALTO_OK;
}
