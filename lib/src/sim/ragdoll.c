// ragdoll.c: the particle ragdoll (ragdoll.h; Rosen 2007, after Jakobsen 2001)
//
// A step: Verlet integration of every point, then passes (iterations) of
//  - the bodies' shapes: each body's rest shape fitted to its points (the weighted centroid,
//    and the rotation by Mueller et al.'s 2016 iteration, warm-started from the last), each
//    point moved to the weighted average of its bodies' fitted places (a joint's points are in
//    two bodies): Rosen's averaging of constraints, a body's rigidity being one constraint;
//  - the joints: a joint's shared points brought to where both bodies' fits have them, each
//    body moved as a rigid body by its share (generalized inverse masses, Mueller et al. 2020);
//  - the ground: each body's deepest surface point lifted onto it the same way;
//  - the joints' limits and axes: the coordinates read from the two fits, clamped, and the two
//    bodies turned towards them about their centroids by their shares (inverse inertias);
// then rotational friction (the same angular correction, a share of each joint's turn in the
// step taken back), the ground's friction on bodies resting on it, the joints once more, and
// the character's coordinates read back.
//
// Not Rosen's own choices, and why (scratch runs on the humanoid, 2026-11-27): distance
// constraints between every pair of a body's points converge too slowly for clusters of ten
// points (the feet and ankles were crushed by half on landing with ten averaged passes, by 9%
// with ten Gauss-Seidel ones); light joint points between heavy bodies did not hold the joints
// together (gaps of centimetres); and Rosen's rotation of the two sides about the joint's centre
// by their inertias launched a landing humanoid into the air when a grounded foot met its
// ankle's limit. With the rigid corrections it lands and settles (worst joint gap 6 mm, limit
// overrun 0.03 rad over six random falls).
#include "salto/ragdoll.h"
#include "ragdoll_priv.h"
#include "chain_priv.h"

#include <math.h>
#include <string.h>

#include "linalg.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"


struct salto_ragdoll {
    const salto_model* m;
    salto_ragdoll_opts o;
    double h;
    // points: positions, the last step's, masses, inverse masses (0: the world's), contact
    // radii (< 0: not on the body's surface)
    int np;
    double* x;
    double* xold;
    double* mass;
    double* w;
    double* rad;
    double* acc; // a pass's weighted goals (3 a point) and their weights
    double* wsum;
    // pairs of points in a body and their rest distances (for measuring)
    int nl;
    int* lp;
    double* len;
    // bodies: their points (cpt[cstart[b] .. cstart[b + 1])), each in the body's frame and its
    // weight in the body's fit; the rest centroid and total weight; the fitted rotation (a
    // quaternion w x y z) and centroid
    int* cstart;
    int* cpt;
    double* cloc;
    double* cw;
    double* cbar;
    double* cmass;
    double* quat;
    double* ctr;
    double* Irest; // per body: its points' inertia about their centroid, body frame (9)
    // bodies' shapes (their geometry): shapes sstart[b] .. sstart[b + 1] of body b, each its
    // points' first entry in cpt (sk) and how many (sn: 1 sphere, 2 capsule, 8 box)
    int* sstart;
    int* sk;
    int* sn;
    unsigned char* sin; // (shapes x SALTO_RAGDOLL_MAX_BARS) 1: the shape was inside the bar
                        //   when the state was set (a gripping hand), left alone until clear
    int* centre; // the point at the centre of body b's own joint (-1: none)
    int* owner;  // a body whose points include each point, and the point in its frame
    double* oloc;
    // joints: the last coordinates read back, the ones a step before, each joint's relative
    // orientation at the start of a step (friction)
    double* q;
    double* qprev;
    double* Rrel;
    double* qscratch;
};


void salto_ragdoll_default_opts(salto_ragdoll_opts* o) {
    o->iterations = 10;
    o->joint_friction = 0.02;
    o->static_friction = 0.0;
    o->ground_friction = 0.8;
    o->ground = 1;
    o->ground_height = 0.0;
    o->nbar = 0;
    memset(o->bar_point, 0, sizeof o->bar_point);
    memset(o->bar_axis, 0, sizeof o->bar_axis);
    o->bar_radius = 0.02;
}


void salto_ragdoll_destroy(salto_ragdoll* r) {
    if (!r) return;
    salto_free(r->x), salto_free(r->xold), salto_free(r->mass), salto_free(r->w);
    salto_free(r->rad), salto_free(r->acc), salto_free(r->wsum), salto_free(r->lp);
    salto_free(r->len), salto_free(r->cstart), salto_free(r->cpt), salto_free(r->cloc);
    salto_free(r->cw), salto_free(r->cbar), salto_free(r->cmass), salto_free(r->quat);
    salto_free(r->ctr), salto_free(r->Irest), salto_free(r->centre), salto_free(r->owner), salto_free(r->oloc);
    salto_free(r->q), salto_free(r->qprev), salto_free(r->Rrel), salto_free(r->qscratch);
    salto_free(r->sstart), salto_free(r->sk), salto_free(r->sn), salto_free(r->sin);
    salto_free(r);
}


// ---- rotations ----

// The rotation part of A (3 x 3), by Mueller et al.'s iteration ("A robust method to extract
// the rotational part of deformations", 2016) from the quaternion q, which it updates
static void extract_rotation(const double* A, double* q) {
    for (int it = 0; it < 30; it++) {
        double R[9], om[3] = {0, 0, 0}, dot = 0.0;
        salto_quat_to_m3(R, q);
        for (int c = 0; c < 3; c++) {
            const double r[3] = {R[c], R[3 + c], R[6 + c]}, a[3] = {A[c], A[3 + c], A[6 + c]};
            salto_v3_cross_add(om, r, a);
            dot += salto_v3_dot(r, a);
        }
        const double scale = 1.0 / (fabs(dot) + 1e-12);
        for (int k = 0; k < 3; k++) om[k] *= scale;
        const double t = salto_v3_norm(om);
        if (!(t > 1e-14)) break;
        salto_quat_turn(q, om);
        if (t < 1e-13) break;
    }
}
int salto_ragdoll_chain(const salto_model* m, int b, const double* Rp, const double* pp,
                        const double* q, double* R, double* p, double* J) {
    int l[SALTO_MAXCHAIN];
    const int n = salto_chain_of(m, b, l);
    double u[SALTO_MAXCHAIN][3], o[SALTO_MAXCHAIN][3];
    salto_chain_fk(m, l, n, Rp, pp, q, R, p, u, o);
    if (J) salto_chain_jacobian(m, l, n, p, (const double(*)[3])u, (const double(*)[3])o, J);
    return n;
}




// the fit of body b's rest shape to its points: centroid and rotation (from the last)
static void fit(salto_ragdoll* r, int b) {
    if (r->m->body_link[b] < 0) return;
    double c[3] = {0, 0, 0}, A[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int k = r->cstart[b]; k < r->cstart[b + 1]; k++) {
        const double* x = r->x + 3 * r->cpt[k];
        for (int a = 0; a < 3; a++) c[a] += r->cw[k] * x[a];
    }
    for (int a = 0; a < 3; a++) c[a] /= r->cmass[b];
    const double* cb = r->cbar + 3 * b;
    for (int k = r->cstart[b]; k < r->cstart[b + 1]; k++) {
        const double* x = r->x + 3 * r->cpt[k];
        const double* l = r->cloc + 3 * k;
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) A[3 * i + j] += r->cw[k] * (x[i] - c[i]) * (l[j] - cb[j]);
        }
    }
    memcpy(r->ctr + 3 * b, c, sizeof c);
    extract_rotation(A, r->quat + 4 * b);
}


// body b's frame (its link's) from its fit: R maps the body's coordinates to the world's
static void body_frame(const salto_ragdoll* r, int b, double* R, double* p) {
    const salto_model* m = r->m;
    if (m->body_link[b] < 0) { // welded
        memcpy(R, m->body_world + 12 * b, 9 * sizeof(double));
        memcpy(p, m->body_world + 12 * b + 9, 3 * sizeof(double));
        return;
    }
    salto_quat_to_m3(R, r->quat + 4 * b);
    salto_m3_mul_v3(p, R, r->cbar + 3 * b);
    for (int a = 0; a < 3; a++) p[a] = r->ctr[3 * b + a] - p[a];
}


// the frame body b's chain starts from: its parent body's (the world's for a root, and for the
// children of a root welded to the world, whose chains start from the world's frame)
static void parent_frame(const salto_ragdoll* r, int b, double* R, double* p) {
    const int P = r->m->body_parent[b];
    if (P < 0 || r->m->body_link[P] < 0) {
        static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(R, I, sizeof I);
        p[0] = p[1] = p[2] = 0.0;
    } else {
        body_frame(r, P, R, p);
    }
}


// the relative orientation of body b to its chain's start (Rp' R_b) into Rrel
static void relative(const salto_ragdoll* r, int b, double* Rrel) {
    double Rp[9], pp[3], R[9], p[3];
    parent_frame(r, b, Rp, pp);
    body_frame(r, b, R, p);
    salto_m3t_mul(Rrel, Rp, R);
}


// ---- building ----

static int check_model(const salto_model* m, salto_error* err) {
    if (m->root_type == SALTO_ROOT_PLANAR) {
        SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(),
                   "the particle ragdoll is three-dimensional: '%s' has a planar root", m->name);
        return 0;
    }
    for (int b = 0; b < m->nbody; b++) {
        if (m->body_parent[b] >= b) {
            SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "'%s': a body before its parent", m->name);
            return 0;
        }
        int l[SALTO_MAXCHAIN];
        const int n = m->body_link[b] >= 0 ? salto_chain_of(m, b, l) : 0;
        for (int k = 0; k < n; k++) {
            if (m->body_parent[b] >= 0 && m->link_type[l[k]] != SALTO_AXIS_REVOLUTE) {
                SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "the particle ragdoll has "
                           "revolute joints only: '%s' has a prismatic one ('%s')", m->name,
                           m->link_name[l[k]]);
                return 0;
            }
            if (k > 0 && m->link_offset[l[k]]) {
                SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "the particle ragdoll needs "
                           "each joint's axes through one point: '%s' has an offset inside the "
                           "joint of body '%s'", m->name, m->body_name[b]);
                return 0;
            }
        }
    }
    return 1;
}


// Body b's share js of its mass on its nj first points (loc: in its frame), the rest on its
// four last, placed so that they all have the body's mass, centre of mass and inertia (second
// moment S = tr(I)/2 - I about the centre): the four carry M4 at c4 with second moment S4
// about it, as c4 + sqrt(3 / M4) L t_k for L L' = S4 and the regular tetrahedron's t_k (sum
// t t' = 4/3). The share is halved until S4 is positive definite. Returns the share a point
// (0 when it cannot be placed), the four points into four.
static double place_four(const double* I, const double (*loc)[3], int nj, double four[4][3]) {
    const double mb = I[0];
    const double* c = I + 1;
    const double tr = 0.5 * (I[4] + I[5] + I[6]);
    const double Icom[9] = {I[4], I[7], I[8], I[7], I[5], I[9], I[8], I[9], I[6]};
    double js = nj > 0 ? 0.2 : 0.0;
    for (int tries = 0; tries < 60; tries++, js *= 0.5) {
        const double mu = nj > 0 ? js * mb / nj : 0.0, M4 = mb - mu * nj;
        double c4[3], S[9];
        for (int t = 0; t < 3; t++) {
            c4[t] = mb * c[t];
            for (int k = 0; k < nj; k++) c4[t] -= mu * loc[k][t];
            c4[t] /= M4;
        }
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                double v = (i == j ? tr : 0.0) - Icom[3 * i + j] + mb * c[i] * c[j] - M4 * c4[i] * c4[j];
                for (int k = 0; k < nj; k++) v -= mu * loc[k][i] * loc[k][j];
                S[3 * i + j] = v;
            }
        }
        if (!salto_chol(S, 3)) continue;
        static const double tet[4][3] = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
        for (int k = 0; k < 4; k++) {
            for (int i = 0; i < 3; i++) {
                double s = 0.0;
                for (int j = 0; j <= i; j++) s += S[3 * i + j] * tet[k][j];
                four[k][i] = c4[i] + sqrt(1.0 / M4) * s; // sqrt(3 / M4) L t_k, |t_k| = sqrt(3)
            }
        }
        return mu > 0.0 ? mu : (nj > 0 ? 0.0 : 1.0);
    }
    return 0.0;
}


salto_ragdoll* salto_ragdoll_create(const salto_model* m, const salto_ragdoll_opts* o,
                                    salto_error* err) {
    salto_ragdoll_opts def;
    salto_ragdoll_default_opts(&def);
    if (!o) o = &def;
    int bars_ok = o->nbar >= 0 && o->nbar <= SALTO_RAGDOLL_MAX_BARS && o->bar_radius > 0.0 &&
                  isfinite(o->bar_radius);
    for (int j = 0; bars_ok && j < o->nbar; j++) {
        const double* u = o->bar_axis[j];
        const double n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        bars_ok = n > 0.0 && isfinite(n) && isfinite(o->bar_point[j][0]) &&
                  isfinite(o->bar_point[j][1]) && isfinite(o->bar_point[j][2]);
    }
    if (o->iterations < 1 || !(o->joint_friction >= 0.0 && o->joint_friction < 1.0) ||
        !(o->static_friction >= 0.0) || !(o->ground_friction >= 0.0 && o->ground_friction <= 1.0) ||
        !isfinite(o->ground_height) || !bars_ok) {
        SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "ragdoll options out of range "
                   "(iterations >= 1, joint friction in [0, 1), static friction >= 0, ground "
                   "friction in [0, 1], a finite ground height, at most %d bars with finite "
                   "points, nonzero axes and a positive radius)", SALTO_RAGDOLL_MAX_BARS);
        return NULL;
    }
    if (!check_model(m, err)) return NULL;
    const int nb = m->nbody;
    salto_ragdoll* r = salto_calloc(1, sizeof *r);
    int* axis = salto_malloc(sizeof(int) * ((size_t)nb + 1));
    salto_data* d = salto_data_create(m); // the character at q = 0, while building
    double* X = NULL;  // the points at q = 0, world
    double* RAD = NULL;
    size_t cap = 0, rcap = 0, ccap = 0;
    int np = 0, nc = 0;
    if (!r || !axis || !d) goto nomem;
    r->m = m, r->o = *o, r->h = 1e-3;
    for (int j = 0; j < o->nbar; j++) { // unit axes
        double* u = r->o.bar_axis[j];
        const double n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        for (int a = 0; a < 3; a++) u[a] /= n;
    }
    r->sstart = salto_malloc(sizeof(int) * ((size_t)nb + 1));
    r->sk = salto_malloc(sizeof(int) * ((size_t)m->ngeom + 1));
    r->sn = salto_malloc(sizeof(int) * ((size_t)m->ngeom + 1));
    r->sin = salto_calloc(((size_t)m->ngeom + 1) * SALTO_RAGDOLL_MAX_BARS, 1);
    if (!r->sstart || !r->sk || !r->sn || !r->sin) goto nomem;
    int nshape = 0;
    r->centre = salto_malloc(sizeof(int) * ((size_t)nb + 1));
    r->cstart = salto_malloc(sizeof(int) * ((size_t)nb + 1));
    r->cbar = salto_calloc(3 * (size_t)nb + 1, sizeof(double));
    r->cmass = salto_calloc((size_t)nb + 1, sizeof(double));
    r->quat = salto_calloc(4 * (size_t)nb + 1, sizeof(double));
    r->ctr = salto_calloc(3 * (size_t)nb + 1, sizeof(double));
    r->q = salto_calloc((size_t)m->nv + 1, sizeof(double));
    r->qprev = salto_calloc((size_t)m->nv + 1, sizeof(double));
    r->qscratch = salto_calloc((size_t)m->nv + 1, sizeof(double));
    r->Rrel = salto_calloc(9 * (size_t)nb + 1, sizeof(double));
    if (!r->centre || !r->cstart || !r->cbar || !r->cmass || !r->quat || !r->ctr ||
        !r->q || !r->qprev || !r->qscratch || !r->Rrel) goto nomem;
    memset(d->q, 0, sizeof(double) * (size_t)m->nv);
    salto_fk(m, d, SALTO_FK_POS);
    // the joints' points: each joint's centre, and a hinge's second point on its axis
    for (int b = 0; b < nb; b++) {
        r->centre[b] = axis[b] = -1;
        const int L = m->body_link[b];
        if (L < 0 || m->body_parent[b] < 0) continue;
        if (salto_grow((void**)&X, &cap, (size_t)(np + 2), 3 * sizeof(double)) != 0 ||
            salto_grow((void**)&RAD, &rcap, (size_t)(np + 2), sizeof(double)) != 0) goto nomem;
        memcpy(X + 3 * np, d->p + 3 * L, 3 * sizeof(double));
        RAD[np] = -1.0;
        r->centre[b] = np++;
        int l[SALTO_MAXCHAIN];
        if (salto_chain_of(m, b, l) == 1) {
            const double* I = m->link_inertia + 10 * L;
            // (10 cm at least: a longer lever holds the hinge's axis better; with 2 cm the
            // read-back feet sank 5 cm on landing, with 10 cm 3.5, over 30 random falls)
            const double a = fmax(0.1, 0.5 * sqrt((I[4] + I[5] + I[6]) / fmax(I[0], 1e-12)));
            double u[3];
            salto_m3_mul_v3(u, d->R + 9 * L, m->link_axis + 3 * L);
            for (int t = 0; t < 3; t++) X[3 * np + t] = d->p[3 * L + t] + a * u[t];
            RAD[np] = -1.0;
            axis[b] = np++;
        }
    }
    // each body's points: its joint's, its children's joints', its surface's (its geometry's
    // points with their radii; its four mass points when it has no geometry), its four
    for (int b = 0; b < nb; b++) {
        r->cstart[b] = nc;
        r->sstart[b] = nshape;
        const int L = m->body_link[b];
        if (L < 0) continue;
        int ng = 0;
        for (int g = 0; g < m->ngeom; g++) ng += m->geom_body[g] == b && m->geom_link[g] >= 0;
        if (salto_grow((void**)&r->cpt, &ccap, (size_t)(nc + 2 * nb + 8 * ng + 4), sizeof(int)) != 0 ||
            salto_grow((void**)&X, &cap, (size_t)(np + 8 * ng + 4), 3 * sizeof(double)) != 0 ||
            salto_grow((void**)&RAD, &rcap, (size_t)(np + 8 * ng + 4), sizeof(double)) != 0) goto nomem;
        if (r->centre[b] >= 0) r->cpt[nc++] = r->centre[b];
        if (axis[b] >= 0) r->cpt[nc++] = axis[b];
        for (int c = b + 1; c < nb; c++) {
            if (m->body_parent[c] != b) continue;
            if (r->centre[c] >= 0) r->cpt[nc++] = r->centre[c];
            if (axis[c] >= 0) r->cpt[nc++] = axis[c];
        }
        for (int g = 0; g < m->ngeom; g++) {
            const int gl = m->geom_link[g];
            if (m->geom_body[g] != b || gl < 0) continue;
            double pts[8][3], radius;
            const int n = salto_geom_local_points(m, g, pts, &radius);
            r->sk[nshape] = nc, r->sn[nshape] = n, nshape++;
            for (int k = 0; k < n; k++) {
                double* xw = X + 3 * np;
                salto_m3_mul_v3(xw, d->R + 9 * gl, pts[k]);
                for (int t = 0; t < 3; t++) xw[t] += d->p[3 * gl + t];
                RAD[np] = radius;
                r->cpt[nc++] = np++;
            }
        }
        for (int k = 0; k < 4; k++) RAD[np + k] = ng > 0 ? -1.0 : 0.0;
        for (int k = 0; k < 4; k++) r->cpt[nc++] = np++;
    }
    r->cstart[nb] = nc;
    r->sstart[nb] = nshape;
    r->np = np;
    r->x = X, r->rad = RAD;
    X = NULL, RAD = NULL;
    r->xold = salto_malloc(sizeof(double) * 3 * (size_t)np);
    r->mass = salto_calloc((size_t)np, sizeof(double));
    r->w = salto_calloc((size_t)np, sizeof(double));
    r->acc = salto_malloc(sizeof(double) * 3 * (size_t)np);
    r->wsum = salto_malloc(sizeof(double) * (size_t)np);
    r->cloc = salto_malloc(sizeof(double) * 3 * ((size_t)nc + 1));
    r->cw = salto_malloc(sizeof(double) * ((size_t)nc + 1));
    r->owner = salto_malloc(sizeof(int) * (size_t)np);
    r->oloc = salto_malloc(sizeof(double) * 3 * (size_t)np);
    if (!r->xold || !r->mass || !r->w || !r->acc || !r->wsum || !r->cloc || !r->cw || !r->owner || !r->oloc) goto nomem;
    // the points in their bodies' frames; the mass shares; the four points placed
    for (int b = 0; b < nb; b++) {
        const int L = m->body_link[b];
        if (L < 0) continue;
        const int k0 = r->cstart[b], nj = r->cstart[b + 1] - k0 - 4;
        for (int k = k0; k < k0 + nj; k++) {
            const double* xw = r->x + 3 * r->cpt[k];
            const double t[3] = {xw[0] - d->p[3 * L], xw[1] - d->p[3 * L + 1], xw[2] - d->p[3 * L + 2]};
            salto_m3t_mul_v3(r->cloc + 3 * k, d->R + 9 * L, t);
        }
        double four[4][3];
        const double mu = place_four(m->link_inertia + 10 * L, (const double(*)[3])(r->cloc + 3 * k0), nj, four);
        if (!(mu > 0.0)) {
            SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "'%s': the inertia of body '%s' "
                       "cannot be carried by its points", m->name, m->body_name[b]);
            salto_free(axis);
            salto_data_destroy(d);
            salto_ragdoll_destroy(r);
            return NULL;
        }
        const double mb = m->link_inertia[10 * L], M4 = mb - (nj > 0 ? mu * nj : 0.0);
        for (int k = k0; k < k0 + nj; k++) r->cw[k] = mu;
        for (int k = 0; k < 4; k++) {
            const int kk = k0 + nj + k, i = r->cpt[kk];
            r->cw[kk] = 0.25 * M4;
            memcpy(r->cloc + 3 * kk, four[k], sizeof four[k]);
            salto_m3_mul_v3(r->x + 3 * i, d->R + 9 * L, four[k]);
            for (int t = 0; t < 3; t++) r->x[3 * i + t] += d->p[3 * L + t];
        }
        double cm = 0.0, cb[3] = {0, 0, 0};
        for (int k = k0; k < r->cstart[b + 1]; k++) {
            r->mass[r->cpt[k]] += r->cw[k];
            cm += r->cw[k];
            for (int t = 0; t < 3; t++) cb[t] += r->cw[k] * r->cloc[3 * k + t];
        }
        r->cmass[b] = cm;
        for (int t = 0; t < 3; t++) r->cbar[3 * b + t] = cb[t] / cm;
        r->quat[4 * b] = 1.0;
    }
    for (int i = 0; i < np; i++) r->owner[i] = -1;
    for (int b = 0; b < nb; b++) {
        for (int k = r->cstart[b]; k < r->cstart[b + 1]; k++) {
            const int i = r->cpt[k];
            if (r->owner[i] >= 0) continue;
            r->owner[i] = b;
            memcpy(r->oloc + 3 * i, r->cloc + 3 * k, 3 * sizeof(double));
        }
    }
    // inverse masses; the points of a joint to a welded body (a fixed root) are the world's
    for (int i = 0; i < np; i++) r->w[i] = r->mass[i] > 0.0 ? 1.0 / r->mass[i] : 0.0;
    for (int b = 0; b < nb; b++) {
        const int P = m->body_parent[b];
        if (m->body_link[b] < 0 || P < 0 || m->body_link[P] >= 0) continue;
        if (r->centre[b] >= 0) r->w[r->centre[b]] = 0.0;
        if (axis[b] >= 0) r->w[axis[b]] = 0.0;
    }
    salto_free(axis);
    axis = NULL;
    // each body's inertia about its points' centroid in its frame
    r->Irest = salto_calloc(9 * (size_t)nb + 1, sizeof(double));
    if (!r->Irest) goto nomem;
    for (int b = 0; b < nb; b++) {
        double* I = r->Irest + 9 * b;
        for (int k = r->cstart[b]; k < r->cstart[b + 1]; k++) {
            const double* l = r->cloc + 3 * k;
            const double* cb = r->cbar + 3 * b;
            const double y[3] = {l[0] - cb[0], l[1] - cb[1], l[2] - cb[2]};
            const double yy = salto_v3_dot(y, y);
            for (int a = 0; a < 3; a++) {
                for (int c = 0; c < 3; c++) I[3 * a + c] += r->cw[k] * ((a == c ? yy : 0.0) - y[a] * y[c]);
            }
        }
    }
    // the pairs of points within a body, once, and their rest distances
    size_t most = 1;
    for (int b = 0; b < nb; b++) {
        const size_t n = (size_t)(r->cstart[b + 1] - r->cstart[b]);
        most += n * (n > 0 ? n - 1 : 0) / 2;
    }
    r->lp = salto_malloc(sizeof(int) * 2 * most);
    r->len = salto_malloc(sizeof(double) * most);
    if (!r->lp || !r->len) goto nomem;
    for (int b = 0; b < nb; b++) {
        for (int i = r->cstart[b]; i < r->cstart[b + 1]; i++) {
            for (int j = i + 1; j < r->cstart[b + 1]; j++) {
                const int a = r->cpt[i] < r->cpt[j] ? r->cpt[i] : r->cpt[j];
                const int c = r->cpt[i] < r->cpt[j] ? r->cpt[j] : r->cpt[i];
                int seen = a == c;
                for (int k = 0; k < r->nl && !seen; k++) seen = r->lp[2 * k] == a && r->lp[2 * k + 1] == c;
                if (seen) continue;
                double dx[3];
                for (int t = 0; t < 3; t++) dx[t] = r->x[3 * c + t] - r->x[3 * a + t];
                r->lp[2 * r->nl] = a, r->lp[2 * r->nl + 1] = c;
                r->len[r->nl++] = salto_v3_norm(dx);
            }
        }
    }
    memcpy(r->xold, r->x, sizeof(double) * 3 * (size_t)np);
    for (int b = 0; b < nb; b++) fit(r, b);
    salto_data_destroy(d);
    return r;
nomem:
    salto_free(X), salto_free(RAD), salto_free(axis);
    salto_data_destroy(d);
    salto_ragdoll_destroy(r);
    SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    return NULL;
}


// ---- state ----

// every joint's coordinates from the bodies' fits, each joint's search from q's; the largest
// error left (rad, m)
static double read_joints(salto_ragdoll* r, double* q) {
    const salto_model* m = r->m;
    double worst = 0.0;
    for (int b = 0; b < m->nbody; b++) {
        if (m->body_link[b] < 0) continue;
        double Rp[9], pp[3], R[9], p[3];
        parent_frame(r, b, Rp, pp);
        body_frame(r, b, R, p);
        worst = fmax(worst, salto_chain_ik(m, b, Rp, pp, R, p, q));
    }
    return worst;
}


static void bar_marks(salto_ragdoll* r, int set);

salto_status salto_ragdoll_set_state(salto_ragdoll* r, salto_data* d, double h) {
    const salto_model* m = r->m;
    if (!(h > 0.0) || !isfinite(h)) return SALTO_ERR_INVALID;
    for (int j = 0; j < m->nv; j++) {
        if (!isfinite(d->q[j]) || !isfinite(d->qd[j])) return SALTO_ERR_INVALID;
    }
    r->h = h;
    salto_fk(m, d, SALTO_FK_VEL);
    for (int i = 0; i < r->np; i++) {
        const int L = m->body_link[r->owner[i]];
        double* x = r->x + 3 * i;
        salto_m3_mul_v3(x, d->R + 9 * L, r->oloc + 3 * i);
        for (int t = 0; t < 3; t++) x[t] += d->p[3 * L + t];
        double v[3];
        salto_v3_cross(v, d->V + 6 * L, x);
        for (int t = 0; t < 3; t++) r->xold[3 * i + t] = x[t] - h * (v[t] + d->V[6 * L + 3 + t]);
    }
    for (int b = 0; b < m->nbody; b++) {
        if (m->body_link[b] < 0) continue;
        salto_m3_to_quat(r->quat + 4 * b, d->R + 9 * m->body_link[b]);
        fit(r, b);
    }
    for (int j = 0; j < m->nv; j++) r->q[j] = d->q[j], r->qprev[j] = d->q[j] - h * d->qd[j];
    bar_marks(r, 1); // a shape inside a bar now (a hand gripping it) is left alone until clear
    return SALTO_OK;
}


salto_status salto_ragdoll_get_state(salto_ragdoll* r, salto_data* d) {
    const salto_model* m = r->m;
    for (int j = 0; j < m->nv; j++) {
        d->q[j] = r->q[j];
        d->qd[j] = (r->q[j] - r->qprev[j]) / r->h;
        if (!isfinite(d->q[j]) || !isfinite(d->qd[j])) return SALTO_ERR_NUMERIC;
    }
    return SALTO_OK;
}


double salto_ragdoll_read(salto_ragdoll* r, double* q) {
    for (int b = 0; b < r->m->nbody; b++) fit(r, b);
    return read_joints(r, q);
}


int salto_ragdoll_npoints(const salto_ragdoll* r) { return r->np; }
const double* salto_ragdoll_positions(const salto_ragdoll* r) { return r->x; }
const double* salto_ragdoll_masses(const salto_ragdoll* r) { return r->mass; }
const double* salto_ragdoll_radii(const salto_ragdoll* r) { return r->rad; }
int salto_ragdoll_nlinks(const salto_ragdoll* r) { return r->nl; }
const int* salto_ragdoll_link_points(const salto_ragdoll* r) { return r->lp; }
const double* salto_ragdoll_link_lengths(const salto_ragdoll* r) { return r->len; }


// ---- the step ----
//
// Between passes the state is each body's fit (its centroid and rotation); the corrections move
// fits, as rigid bodies, and the points are then placed from them: each at the weighted average
// of its bodies' fitted places. Every correction between two bodies is equal and opposite, so
// that the points' momentum is kept to rounding in flight.

// where body b's fit has its point k (a cluster entry)
static void fitted(const salto_ragdoll* r, int b, int k, double* g) {
    double R[9];
    salto_quat_to_m3(R, r->quat + 4 * b);
    const double* l = r->cloc + 3 * k;
    const double* cb = r->cbar + 3 * b;
    const double y[3] = {l[0] - cb[0], l[1] - cb[1], l[2] - cb[2]};
    salto_m3_mul_v3(g, R, y);
    for (int a = 0; a < 3; a++) g[a] += r->ctr[3 * b + a];
}


// each point at the weighted average of its bodies' fitted places (the world's stay)
static void place_points(salto_ragdoll* r) {
    const salto_model* m = r->m;
    memset(r->acc, 0, sizeof(double) * 3 * (size_t)r->np);
    memset(r->wsum, 0, sizeof(double) * (size_t)r->np);
    for (int b = 0; b < m->nbody; b++) {
        if (m->body_link[b] < 0) continue;
        for (int k = r->cstart[b]; k < r->cstart[b + 1]; k++) {
            const int i = r->cpt[k];
            double g[3];
            fitted(r, b, k, g);
            for (int a = 0; a < 3; a++) r->acc[3 * i + a] += r->cw[k] * g[a];
            r->wsum[i] += r->cw[k];
        }
    }
    for (int i = 0; i < r->np; i++) {
        if (r->w[i] == 0.0 || !(r->wsum[i] > 0.0)) continue;
        for (int a = 0; a < 3; a++) r->x[3 * i + a] = r->acc[3 * i + a] / r->wsum[i];
    }
}


// body b's centroid, mass and the factor of its inertia there (world); 0 when it cannot move
static int body_mass(const salto_ragdoll* r, int b, double* c, double* M, double* L) {
    if (b < 0 || r->m->body_link[b] < 0) return 0;
    double R[9], T[9];
    salto_quat_to_m3(R, r->quat + 4 * b);
    salto_m3_mul(T, R, r->Irest + 9 * b);
    salto_m3_mul_t(L, T, R); // R I R'
    memcpy(c, r->ctr + 3 * b, 3 * sizeof(double));
    *M = r->cmass[b];
    return salto_chol(L, 3);
}


// the generalized inverse mass of a rigid body (c, M, L) at x along the unit n: 1/M +
// (r x n)' I^-1 (r x n)
static double inv_mass_at(const double* c, double M, const double* L, const double* x, const double* n) {
    const double rr[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    double rn[3], t[3];
    salto_v3_cross(rn, rr, n);
    memcpy(t, rn, sizeof t);
    salto_chol_solve(L, 3, t);
    return 1.0 / M + salto_v3_dot(rn, t);
}


// body b's fit turned by the rotation vector v about its centroid
static void turn_fit(salto_ragdoll* r, int b, const double* v) {
    salto_quat_turn(r->quat + 4 * b, v);
}


// Body b's fit moved as a rigid body by the position correction p n at x (Mueller et al.
// 2020): its centroid by p n / M, turned by I^-1 (r x p n)
static void rigid_move(salto_ragdoll* r, int b, const double* c, double M, const double* L,
                       const double* x, const double* n, double p) {
    const double rr[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    double v[3];
    salto_v3_cross(v, rr, n);
    salto_chol_solve(L, 3, v);
    for (int a = 0; a < 3; a++) v[a] *= p, r->ctr[3 * b + a] += p * n[a] / M;
    turn_fit(r, b, v);
}


// a position change dx at point x of body b taken by the body alone; 0 when it cannot move
static int rigid_push(salto_ragdoll* r, int b, const double* x, const double* dx) {
    double c[3], M, L[9];
    const double len = salto_v3_norm(dx);
    if (!(len > 0.0) || !body_mass(r, b, c, &M, L)) return 0;
    const double n[3] = {dx[0] / len, dx[1] / len, dx[2] / len};
    rigid_move(r, b, c, M, L, x, n, len / inv_mass_at(c, M, L, x, n));
    return 1;
}


// The turn v (a world rotation vector) of body b against its parent P, taken by the two as rigid
// bodies (Mueller et al. 2020's angular correction): each turns about its own centroid by
// I^-1 n |v| / (w_b + w_P), P the other way, w = n' I^-1 n their inverse inertias about v's
// axis n (0 for the world's): equal and opposite angular impulses; the joint's gap this opens
// is the joints' pass's to close.
static void angular_pair(salto_ragdoll* r, int b, const double* v) {
    const int P = r->m->body_parent[b];
    const double t = salto_v3_norm(v);
    if (!(t > 1e-15)) return;
    const double n[3] = {v[0] / t, v[1] / t, v[2] / t};
    double cb[3], Mb, Lb[9], cp[3], Mp, Lp[9], tb[3], tp[3];
    const int mb = body_mass(r, b, cb, &Mb, Lb);
    const int mp = P >= 0 && body_mass(r, P, cp, &Mp, Lp);
    double wb = 0.0, wp = 0.0;
    if (mb) memcpy(tb, n, sizeof tb), salto_chol_solve(Lb, 3, tb), wb = salto_v3_dot(n, tb);
    if (mp) memcpy(tp, n, sizeof tp), salto_chol_solve(Lp, 3, tp), wp = salto_v3_dot(n, tp);
    if (!(wb + wp > 0.0)) return;
    if (mb && !mp && r->centre[b] >= 0) {
        // against the world: b turns by all of v about its joint's centre (pinned there)
        int kc = r->cstart[b];
        while (r->cpt[kc] != r->centre[b]) kc++;
        double c[3], R[9], y[3], z[3];
        fitted(r, b, kc, c);
        salto_m3_axis_angle(R, n, t);
        for (int a = 0; a < 3; a++) y[a] = r->ctr[3 * b + a] - c[a];
        salto_m3_mul_v3(z, R, y);
        for (int a = 0; a < 3; a++) r->ctr[3 * b + a] = c[a] + z[a];
        turn_fit(r, b, v);
        return;
    }
    double vb[3], vp[3];
    for (int a = 0; a < 3; a++) vb[a] = t / (wb + wp) * tb[a], vp[a] = -t / (wb + wp) * tp[a];
    if (mb) turn_fit(r, b, vb);
    if (mp) turn_fit(r, P, vp);
}


// the joint of body b within its limits and its axes: its coordinates read (from q, which keeps
// them; by least squares when the bodies' relative orientation is not one the joint's axes
// reach), clamped, and the two bodies turned towards the orientation they give (at most 0.2
// rad a pass)
static void limit_joint(salto_ragdoll* r, int b, double* q) {
    const salto_model* m = r->m;
    int l[SALTO_MAXCHAIN];
    const int n = salto_chain_of(m, b, l);
    int lim = 0;
    for (int k = 0; k < n; k++) lim |= m->link_has_limits[l[k]];
    // three axes: every relative orientation is the joint's; a hinge is held to its axis by
    // the two points its bodies share
    if (!lim && n != 2) return;
    double Rp[9], pp[3], R[9], p[3];
    parent_frame(r, b, Rp, pp);
    body_frame(r, b, R, p);
    salto_chain_ik(m, b, Rp, pp, R, p, q); // (a hinge's best coordinate when the bodies are askew)
    int clamped = 0;
    for (int k = 0; k < n; k++) {
        const int i = l[k];
        if (!m->link_has_limits[i]) continue;
        const double lo = m->link_limits[2 * i], hi = m->link_limits[2 * i + 1];
        if (q[i] < lo) q[i] = lo, clamped = 1;
        if (q[i] > hi) q[i] = hi, clamped = 1;
    }
    if (!clamped && n != 2) return; // (two axes: the orientation is also brought onto the
                                    // joint's, which the bodies' one shared point does not hold)
    double Rc[9], pc[3], u[SALTO_MAXCHAIN][3], o[SALTO_MAXCHAIN][3], E[9], v[3];
    salto_chain_fk(m, l, n, Rp, pp, q, Rc, pc, u, o);
    salto_m3_mul_t(E, Rc, R); // the world turn taking R to Rc: Rc R'
    salto_rot_log(v, E);
    if (n == 1) { // a hinge turns about its axis alone
        const double a = salto_v3_dot(v, u[0]);
        for (int k = 0; k < 3; k++) v[k] = a * u[0][k];
    }
    const double t = salto_v3_norm(v);
    if (t > 0.2) {
        for (int a = 0; a < 3; a++) v[a] *= 0.2 / t;
    }
    angular_pair(r, b, v);
}


// the joints: a joint's point (its centre, a hinge's axis point too) where its two bodies'
// fits have it, brought together by moving both fits as rigid bodies (each by its share of the
// gap, by the generalized inverse masses there)
static void joint_pass(salto_ragdoll* r) {
    const salto_model* m = r->m;
    for (int b = 0; b < m->nbody; b++) {
        const int P = m->body_parent[b];
        if (m->body_link[b] < 0 || P < 0 || r->centre[b] < 0) continue;
        for (int k = r->cstart[b]; k < r->cstart[b + 1] - 4; k++) {
            const int i = r->cpt[k];
            int kp = -1; // the same point among P's
            for (int j = r->cstart[P]; j < r->cstart[P + 1] && kp < 0 && m->body_link[P] >= 0; j++) {
                if (r->cpt[j] == i) kp = j;
            }
            if (kp < 0 && m->body_link[P] >= 0) continue; // not the joint's
            double gb[3], gp[3], d[3];
            fitted(r, b, k, gb);
            if (kp >= 0) {
                fitted(r, P, kp, gp);
            } else {
                memcpy(gp, r->x + 3 * i, sizeof gp); // the world's point
            }
            for (int a = 0; a < 3; a++) d[a] = gp[a] - gb[a];
            const double len = salto_v3_norm(d);
            if (!(len > 1e-15)) continue;
            const double n[3] = {d[0] / len, d[1] / len, d[2] / len};
            double cb[3], Mb, Lb[9], cp[3], Mp, Lp[9];
            const int mb = body_mass(r, b, cb, &Mb, Lb);
            const int mp = kp >= 0 && body_mass(r, P, cp, &Mp, Lp);
            const double wb = mb ? inv_mass_at(cb, Mb, Lb, gb, n) : 0.0;
            const double wp = mp ? inv_mass_at(cp, Mp, Lp, gp, n) : 0.0;
            if (!(wb + wp > 0.0)) continue;
            const double p = len / (wb + wp);
            if (mb) rigid_move(r, b, cb, Mb, Lb, gb, n, p);
            if (mp) rigid_move(r, P, cp, Mp, Lp, gp, n, -p);
        }
    }
}


// the ground: each body's deepest surface point (where its fit has it) lifted onto it by the
// body as a whole (four times, for the next deepest); with friction (at the end of a step),
// the sliding of its surface points on the ground in the step taken back by the share
static void ground_pass(salto_ragdoll* r, int friction) {
    const salto_model* m = r->m;
    if (!r->o.ground) return;
    for (int b = 0; b < m->nbody; b++) {
        if (m->body_link[b] < 0) continue;
        for (int rep = 0; rep < 4; rep++) {
            double depth = 1e-12, at[3];
            int deep = 0;
            for (int k = r->cstart[b]; k < r->cstart[b + 1]; k++) {
                const int i = r->cpt[k];
                if (r->rad[i] < 0.0) continue;
                double g[3];
                fitted(r, b, k, g);
                const double dd = r->rad[i] + r->o.ground_height - g[2];
                if (dd > depth) depth = dd, memcpy(at, g, sizeof at), deep = 1;
            }
            if (!deep) break;
            const double up[3] = {0.0, 0.0, depth};
            if (!rigid_push(r, b, at, up)) break;
        }
        if (!friction || !(r->o.ground_friction > 0.0)) continue;
        double slide[3] = {0, 0, 0}, at[3] = {0, 0, 0};
        int n = 0;
        for (int k = r->cstart[b]; k < r->cstart[b + 1]; k++) {
            const int i = r->cpt[k];
            if (r->rad[i] < 0.0) continue;
            double g[3];
            fitted(r, b, k, g);
            if (g[2] > r->rad[i] + r->o.ground_height + 1e-6) continue;
            for (int a = 0; a < 2; a++) slide[a] += g[a] - r->xold[3 * i + a];
            for (int a = 0; a < 3; a++) at[a] += g[a];
            n++;
        }
        if (n == 0) continue;
        for (int a = 0; a < 3; a++) slide[a] *= -r->o.ground_friction / n, at[a] /= n;
        rigid_push(r, b, at, slide);
    }
}


// The closest approach of segment a + s (b - a), s in [0, 1], to the line through p along the
// unit u: the segment's point x, and the line's normal from the line to it (perp, its length
// the distance)
static double segment_line(const double* a, const double* b, const double* p, const double* u,
                           double* x, double* perp, double* sout) {
    double v[3], w0[3];
    for (int k = 0; k < 3; k++) v[k] = b[k] - a[k], w0[k] = a[k] - p[k];
    const double vu = salto_v3_dot(v, u), wu = salto_v3_dot(w0, u);
    const double A = salto_v3_dot(v, v) - vu * vu, B = salto_v3_dot(w0, v) - wu * vu;
    double s = 0.0;
    if (A > 1e-14) {
        s = fmin(fmax(-B / A, 0.0), 1.0);
    } else { // parallel to the line (or a point): every point as near; its middle
        s = 0.5;
    }
    for (int k = 0; k < 3; k++) x[k] = a[k] + s * v[k];
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = x[k] - p[k];
    const double t = salto_v3_dot(d, u);
    for (int k = 0; k < 3; k++) perp[k] = d[k] - t * u[k];
    *sout = s;
    return salto_v3_norm(perp);
}


// the deepest reach of shape sh (of body b) into bar `bar` (depth > 0 inside): the depth, the
// shape's surface point there (at), the unit normal out of the bar (n), the segment's two
// points (i0, i1: point indices) and its parameter s
static double box_bar(const salto_ragdoll* r, const double (*g)[3], const int* idx, int bar,
                      double* at, double* n, int* i0, int* i1, double* sp);

static double shape_bar(const salto_ragdoll* r, int b, int sh, int bar, double* at, double* n,
                        int* i0, int* i1, double* sp) {
    const int k0 = r->sk[sh], ns = r->sn[sh];
    const double rad = fmax(r->rad[r->cpt[k0]], 0.0);
    double g[8][3], depth = -INFINITY;
    for (int i = 0; i < ns; i++) fitted(r, b, k0 + i, g[i]);
    if (ns == 8) return box_bar(r, (const double(*)[3])g, r->cpt + k0, bar, at, n, i0, i1, sp);
    for (int i = 0; i < ns; i++) {
        for (int j = ns == 1 ? i : i + 1; j < ns; j++) {
            double x[3], perp[3], s;
            const double dist = segment_line(g[i], g[j], r->o.bar_point[bar], r->o.bar_axis[bar],
                                             x, perp, &s);
            const double dd = rad + r->o.bar_radius - dist;
            if (!(dd > depth)) continue;
            double nn[3];
            if (dist > 1e-12) {
                for (int k = 0; k < 3; k++) nn[k] = perp[k] / dist;
            } else { // on the axis: out along any normal (up, or x for a vertical bar)
                const double* u = r->o.bar_axis[bar];
                double e[3] = {0.0, 0.0, 1.0};
                if (fabs(u[2]) > 0.9) e[0] = 1.0, e[2] = 0.0;
                const double eu = salto_v3_dot(e, u);
                for (int k = 0; k < 3; k++) nn[k] = e[k] - eu * u[k];
                const double l = salto_v3_norm(nn);
                for (int k = 0; k < 3; k++) nn[k] /= l;
            }
            depth = dd, *sp = s;
            for (int k = 0; k < 3; k++) n[k] = nn[k], at[k] = x[k] - rad * nn[k];
            *i0 = r->cpt[k0 + i], *i1 = r->cpt[k0 + j];
        }
    }
    return depth;
}


// A box (its 8 corners g, their points idx) against bar `bar`: the bar is infinite along its
// axis u, so in the plane across u it is a disc of the bar's radius about the axis's point P and
// the box is the convex hull Q of its corners' projections, and they overlap exactly when the
// 3-D shapes do. Outside Q, the depth is the radius less P's distance to Q, the box pushed away
// from P; inside, the radius plus the distance to Q's nearest edge, the box pushed so that P
// leaves through that edge. The contact point: on the box's edge (i0, i1, s) whose projection
// is Q's nearest edge.
static double box_bar(const salto_ragdoll* r, const double (*g)[3], const int* idx, int bar,
                      double* at, double* n, int* i0, int* i1, double* sp) {
    const double* u = r->o.bar_axis[bar];
    const double* p = r->o.bar_point[bar];
    // a basis e1, e2 across u
    double e1[3] = {1.0, 0.0, 0.0}, e2[3];
    if (fabs(u[0]) > 0.9) e1[0] = 0.0, e1[1] = 1.0;
    const double eu = salto_v3_dot(e1, u);
    for (int k = 0; k < 3; k++) e1[k] -= eu * u[k];
    const double l1 = salto_v3_norm(e1);
    for (int k = 0; k < 3; k++) e1[k] /= l1;
    salto_v3_cross(e2, u, e1);
    double x[8], y[8];
    for (int i = 0; i < 8; i++) {
        const double d[3] = {g[i][0] - p[0], g[i][1] - p[1], g[i][2] - p[2]};
        x[i] = salto_v3_dot(d, e1), y[i] = salto_v3_dot(d, e2);
    }
    // the hull, counter-clockwise (monotone chain over the corners sorted by x, then y)
    int ord[8], hull[17], nh = 0;
    for (int i = 0; i < 8; i++) ord[i] = i;
    for (int i = 1; i < 8; i++) {
        for (int j = i; j > 0 && (x[ord[j]] < x[ord[j - 1]] ||
                                  (x[ord[j]] == x[ord[j - 1]] && y[ord[j]] < y[ord[j - 1]])); j--) {
            const int t = ord[j];
            ord[j] = ord[j - 1], ord[j - 1] = t;
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        const int base = nh;
        for (int k = 0; k < 8; k++) {
            const int i = pass ? ord[7 - k] : ord[k];
            while (nh >= base + 2) {
                const int a = hull[nh - 2], c = hull[nh - 1];
                const double cr = (x[c] - x[a]) * (y[i] - y[a]) - (y[c] - y[a]) * (x[i] - x[a]);
                if (cr > 0.0) break;
                nh--;
            }
            hull[nh++] = i;
        }
        nh--; // (the last point is the next chain's first)
    }
    if (nh < 3) return -INFINITY; // a box seen edge-on as a segment: its corners' segments do
    // the nearest edge of Q to P = (0, 0), and whether P is inside (left of every edge)
    int inside = 1, best = 0;
    double dbest = INFINITY, sbest = 0.0, cx = 0.0, cy = 0.0;
    for (int e = 0; e < nh; e++) {
        const int a = hull[e], c = hull[(e + 1) % nh];
        const double ex = x[c] - x[a], ey = y[c] - y[a];
        const double cr = ex * (0.0 - y[a]) - ey * (0.0 - x[a]);
        if (cr < 0.0) inside = 0;
        const double ll = ex * ex + ey * ey;
        double s = ll > 0.0 ? -(x[a] * ex + y[a] * ey) / ll : 0.0;
        s = fmin(fmax(s, 0.0), 1.0);
        const double qx = x[a] + s * ex, qy = y[a] + s * ey;
        const double dd = sqrt(qx * qx + qy * qy);
        if (dd < dbest) dbest = dd, best = e, sbest = s, cx = qx, cy = qy;
    }
    const int a = hull[best], c = hull[(best + 1) % nh];
    double depth, nx, ny;
    if (!inside) {
        depth = r->o.bar_radius - dbest;
        nx = dbest > 0.0 ? cx / dbest : 0.0, ny = dbest > 0.0 ? cy / dbest : 1.0;
    } else {
        depth = r->o.bar_radius + dbest;
        // out through the nearest edge: the box moves along its inward normal, so that P ends
        // on the outer side
        const double ex = x[c] - x[a], ey = y[c] - y[a], le = sqrt(ex * ex + ey * ey);
        nx = -ey / le, ny = ex / le; // left of the edge: into Q (counter-clockwise)
    }
    for (int k = 0; k < 3; k++) {
        n[k] = nx * e1[k] + ny * e2[k];
        at[k] = g[a][k] + sbest * (g[c][k] - g[a][k]);
    }
    *i0 = idx[a], *i1 = idx[c], *sp = sbest;
    return depth;
}


// the deepest reach of body b's shapes into the bars deeper than -slack, the pairs left alone
// skipped (as shape_bar's); returns 0 when none
static int bar_contact(const salto_ragdoll* r, int b, double slack, double* depth, double* at,
                       double* n, int* i0, int* i1, double* sp) {
    int found = 0;
    *depth = -slack;
    for (int sh = r->sstart[b]; sh < r->sstart[b + 1]; sh++) {
        for (int bar = 0; bar < r->o.nbar; bar++) {
            if (r->sin[SALTO_RAGDOLL_MAX_BARS * sh + bar]) continue;
            double a2[3], n2[3], s2;
            int j0, j1;
            const double dd = shape_bar(r, b, sh, bar, a2, n2, &j0, &j1, &s2);
            if (!(dd > *depth)) continue;
            *depth = dd, found = 1, *sp = s2, *i0 = j0, *i1 = j1;
            memcpy(at, a2, sizeof a2), memcpy(n, n2, sizeof n2);
        }
    }
    return found;
}


// the pairs of shape and bar left alone: set (inside at the state set), cleared once clear
static void bar_marks(salto_ragdoll* r, int set) {
    const salto_model* m = r->m;
    for (int b = 0; b < m->nbody; b++) {
        if (m->body_link[b] < 0) continue;
        for (int sh = r->sstart[b]; sh < r->sstart[b + 1]; sh++) {
            for (int bar = 0; bar < r->o.nbar; bar++) {
                unsigned char* f = &r->sin[SALTO_RAGDOLL_MAX_BARS * sh + bar];
                if (!set && !*f) continue;
                double at[3], n[3], s;
                int i0, i1;
                *f = shape_bar(r, b, sh, bar, at, n, &i0, &i1, &s) > 0.0;
            }
        }
    }
}


// the bars: each body's deepest reach into them pushed out along the bar's normal by moving the
// body rigidly (as the ground's), then (friction) the sliding of its contact point on the bar
// in the step taken back by ground_friction's share
static void bar_pass(salto_ragdoll* r, int friction) {
    const salto_model* m = r->m;
    if (r->o.nbar == 0) return;
    if (friction) bar_marks(r, 0); // (once a step: a shape left alone that came clear)
    for (int b = 0; b < m->nbody; b++) {
        if (m->body_link[b] < 0 || r->sstart[b] == r->sstart[b + 1]) continue;
        double depth, at[3], n[3], s;
        int i0, i1;
        for (int rep = 0; rep < 4; rep++) {
            if (!bar_contact(r, b, -1e-12, &depth, at, n, &i0, &i1, &s)) break;
            const double dx[3] = {depth * n[0], depth * n[1], depth * n[2]};
            if (!rigid_push(r, b, at, dx)) break;
        }
        if (!friction || !(r->o.ground_friction > 0.0)) continue;
        if (!bar_contact(r, b, 1e-6, &depth, at, n, &i0, &i1, &s)) continue;
        // the contact point's move in the step (its segment's old ends), less its normal part
        double slide[3];
        for (int k = 0; k < 3; k++) {
            const double old = (1.0 - s) * r->xold[3 * i0 + k] + s * r->xold[3 * i1 + k];
            slide[k] = at[k] + r->rad[i0] * n[k] * (r->rad[i0] > 0.0) - old;
        }
        const double sn = salto_v3_dot(slide, n);
        for (int k = 0; k < 3; k++) slide[k] = -r->o.ground_friction * (slide[k] - sn * n[k]);
        rigid_push(r, b, at, slide);
    }
}


salto_status salto_ragdoll_step(salto_ragdoll* r) {
    const salto_model* m = r->m;
    const double h = r->h;
    const int np = r->np;
    double* x = r->x;
    double* xo = r->xold;
    for (int b = 0; b < m->nbody; b++) {
        if (m->body_link[b] >= 0) relative(r, b, r->Rrel + 9 * b);
    }
    // Verlet: x += (x - x_old) + g h^2
    for (int i = 0; i < np; i++) {
        if (r->w[i] == 0.0) continue;
        for (int a = 0; a < 3; a++) {
            const double xn = 2.0 * x[3 * i + a] - xo[3 * i + a] + m->gravity[a] * h * h;
            xo[3 * i + a] = x[3 * i + a];
            x[3 * i + a] = xn;
        }
    }
    double* q = r->qscratch;
    for (int it = 0; it < r->o.iterations; it++) {
        for (int b = 0; b < m->nbody; b++) fit(r, b);
        joint_pass(r);
        ground_pass(r, 0);
        bar_pass(r, 0);
        memcpy(q, r->q, sizeof(double) * (size_t)m->nv);
        for (int b = 0; b < m->nbody; b++) {
            if (m->body_link[b] >= 0 && m->body_parent[b] >= 0) limit_joint(r, b, q);
        }
        place_points(r);
    }
    // rotational friction: a share of each joint's turn in the step taken back (all of it
    // below the static threshold); the ground's friction; the joints once more
    for (int b = 0; b < m->nbody; b++) fit(r, b);
    for (int b = 0; (r->o.joint_friction > 0.0 || r->o.static_friction > 0.0) && b < m->nbody; b++) {
        if (m->body_link[b] < 0 || m->body_parent[b] < 0) continue;
        double Rn[9], T[9], Rp[9], pp[3], Tw[9], v[3], tmp[9];
        relative(r, b, Rn);
        const double* R0 = r->Rrel + 9 * b;
        salto_m3_mul_t(T, Rn, R0); // the turn in the step, in the parent's frame: Rn R0'
        parent_frame(r, b, Rp, pp);
        salto_m3_mul(tmp, Rp, T);
        salto_m3_mul_t(Tw, tmp, Rp); // and in the world's: Rp T Rp'
        salto_rot_log(v, Tw);
        const double k = salto_v3_norm(v) < r->o.static_friction ? 1.0 : r->o.joint_friction;
        for (int a = 0; a < 3; a++) v[a] *= -k;
        angular_pair(r, b, v);
    }
    ground_pass(r, 1);
    bar_pass(r, 1);
    joint_pass(r);
    place_points(r);
    for (int i = 0; i < 3 * np; i++) {
        if (!isfinite(x[i])) return SALTO_ERR_NUMERIC;
    }
    memcpy(r->qprev, r->q, sizeof(double) * (size_t)m->nv);
    for (int b = 0; b < m->nbody; b++) fit(r, b);
    memcpy(q, r->q, sizeof(double) * (size_t)m->nv);
    read_joints(r, q);
    memcpy(r->q, q, sizeof(double) * (size_t)m->nv);
    return SALTO_OK;
}
