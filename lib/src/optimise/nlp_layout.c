// nlp_layout.c: the spacetime problem as a sparse NLP: its layout (nlp_priv.h has the whole)
//
// Each constraint expands into blocks, one per evaluation time (its time, or every slice of
// its phase, or every slice). A block's rows depend on the q (and qd) of a set of DOFs at that
// time; with the four non-zero B-spline basis functions N_k (dN_k for qd) at the time, the
// derivative of a row with respect to control point first + k of DOF j is
//   dr/dq_j N_k + dr/dqd_j dN_k,
// so the Jacobian pattern is (row) x (dep DOFs) x (4 control points), built once. Blocks are
// sorted by time, and the kinematics are computed once per distinct time. Here: the blocks
// and their dependencies, the reference motion, salto_nlp_build and salto_nlp_destroy, the
// bounds and the Jacobian's pattern.
#include "nlp_priv.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/aggregate.h"
#include "salto/bspline.h"
#include "salto/data.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"


// ---- layout ----



static block* new_block(builder* B) {
    salto_nlp* nlp = B->nlp;
    if (nlp->nblock == B->cap_block) {
        const int cap = B->cap_block ? 2 * B->cap_block : 64;
        block* nb = salto_malloc((size_t)cap * sizeof(block));
        if (!nb) return NULL;
        if (nlp->nblock) memcpy(nb, nlp->blocks, (size_t)nlp->nblock * sizeof(block));
        salto_free(nlp->blocks);
        nlp->blocks = nb;
        B->cap_block = cap;
    }
    block* b = &nlp->blocks[nlp->nblock];
    memset(b, 0, sizeof *b);
    b->seq = nlp->nblock++;
    b->link = -1;
    b->phase = -1;
    b->dep0 = B->ndep;
    for (int r = 0; r < 6; r++) b->aux[r] = -1;
    return b;
}


static int push_dep(builder* B, int j) {
    if (B->ndep == B->cap_dep) {
        const int cap = B->cap_dep ? 2 * B->cap_dep : 256;
        int* nd = salto_malloc((size_t)cap * sizeof(int));
        if (!nd) return -1;
        if (B->ndep) memcpy(nd, B->dep, (size_t)B->ndep * sizeof(int));
        salto_free(B->dep);
        B->dep = nd;
        B->cap_dep = cap;
    }
    B->dep[B->ndep++] = j;
    return 0;
}


// the DOFs on the path from link to the root, ascending
static int push_path(builder* B, block* b, int link) {
    const int first = B->ndep;
    for (int j = link; j >= 0; j = B->nlp->m->link_parent[j]) {
        if (push_dep(B, j)) return -1;
    }
    // pushed from the link to the root: reverse into ascending order (a parent's index is
    // below its children's)
    for (int lo = first, hi = B->ndep - 1; lo < hi; lo++, hi--) {
        const int t = B->dep[lo];
        B->dep[lo] = B->dep[hi];
        B->dep[hi] = t;
    }
    b->ndep = B->ndep - first;
    return 0;
}


static int push_all(builder* B, block* b) {
    for (int j = 0; j < B->nlp->nv; j++) {
        if (push_dep(B, j)) return -1;
    }
    b->ndep = B->nlp->nv;
    return 0;
}


// unit vectors e1, e2 orthogonal to the unit vector d
static void orthonormal(const double* d, double* e1, double* e2) {
    const double a[3] = {fabs(d[0]) < 0.9 ? 1.0 : 0.0, fabs(d[0]) < 0.9 ? 0.0 : 1.0, 0.0};
    salto_v3_cross(e1, d, a);
    const double n = salto_v3_norm(e1);
    for (int k = 0; k < 3; k++) e1[k] /= n;
    salto_v3_cross(e2, d, e1);
}


// the rows of a site_hold: directions e, and per row the place variable or the fixed target;
// returns the number of rows (planar: the rows in the x-z plane) and of place variables
int nlp_hold_rows(const salto_problem_desc* p, const salto_constraint_desc* cd, int planar,
                     double e[3][3], int* is_aux, double* target, int* naux) {
    const salto_contact_desc* ct = &p->phases[cd->hold_phase - 1].contact;
    int n = 0;
    *naux = 0;
    if (ct->type == SALTO_CONTACT_BAR && planar) {
        // the axis crosses the plane at the bar point: x and z fixed
        for (int k = 0; k < 3; k += 2, n++) {
            memset(e[n], 0, sizeof e[n]);
            e[n][k] = 1.0;
            is_aux[n] = 0;
            target[n] = cd->point[k];
        }
        return n;
    }
    if (ct->type == SALTO_CONTACT_BAR) {
        // across the axis fixed, along it a variable
        orthonormal(cd->dir, e[0], e[1]);
        memcpy(e[2], cd->dir, sizeof e[2]);
        for (int r = 0; r < 3; r++) {
            is_aux[r] = r == 2;
            target[r] = salto_v3_dot(e[r], cd->point);
        }
        *naux = 1;
        return 3;
    }
    // ground: along the tangents variables (planar: T_x only), along the normal the plane
    double Tx[3], Ty[3];
    salto_contact_frame(cd->dir, planar, Tx, Ty);
    memcpy(e[n], Tx, sizeof e[n]), is_aux[n] = 1, target[n] = 0.0, n++;
    if (!planar) memcpy(e[n], Ty, sizeof e[n]), is_aux[n] = 1, target[n] = 0.0, n++;
    memcpy(e[n], cd->dir, sizeof e[n]), is_aux[n] = 0, target[n] = salto_v3_dot(cd->dir, cd->point);
    n++;
    *naux = planar ? 1 : 2;
    return n;
}


// How a phase containing t (its ends included) holds geometry point pt (in link's frame, r
// the geometry's radius there) of body on the ground: SALTO_HOLD_AT, held (no row: the hold
// keeps the body's sole on the floor, and clearance rows for it would restate it, an active
// inequality on top of equalities, which stalls the solver); SALTO_HOLD_BALL, its ball holds
// the held site strictly inside (its row keeps the centre above the floor, not the surface);
// 0, neither. A body held by two sites or more is held flat: all its points. A body held by
// one site can turn about it (the lamp landing on its base's back edge alone put the front
// edge 2 cm under the floor), so salto_problem_hold_point says which of its points are the
// hold's (the gymnast's hands site inside its arm capsule's end made every row there
// infeasible: the end was 8 mm under the floor at best)
static int held_on_ground(const salto_problem_desc* p, const salto_model* m, int body, int link,
                          const double pt[3], double r, double t) {
    int held_by = 0;
    for (int i = 0; i < p->nphase; i++) {
        const salto_phase_desc* ph = &p->phases[i];
        if (t < ph->start - 1e-12 || t > ph->start + ph->duration + 1e-12) continue;
        int s;
        const int held = salto_problem_ground_hold(p, i, body, &s);
        if (held >= 2) return SALTO_HOLD_AT;
        if (held == 1 && m->site_link[s] == link) {
            const int k = salto_problem_hold_point(m, s, pt, r);
            if (k == SALTO_HOLD_AT) return k;
            if (k) held_by = k;
        }
    }
    return held_by;
}


// 1 if a phase containing t (its ends included) holds the body on box i (salto_problem_box_holds),
// the segment's ends seg in the link's frame
static int box_held(const salto_problem_desc* p, int i, int body, double seg[2][3], double t) {
    for (int k = 0; k < p->nphase; k++) {
        const salto_phase_desc* ph = &p->phases[k];
        if (t < ph->start - 1e-12 || t > ph->start + ph->duration + 1e-12) continue;
        if (salto_problem_box_holds(p, k, i, body, seg[0]) || salto_problem_box_holds(p, k, i, body, seg[1])) return 1;
    }
    return 0;
}


// The fraction of box i's clearance that holds at time t for a body: 1, but nearer than
// SALTO_BOX_CLEARANCE_RAMP to a phase that holds the body on that box, the time to it over that:
// a foot leaving the box's top (or landing on it) starts (ends) at distance 0, and the whole
// clearance one slice after take-off forced a jerk that broke the centre of pressure between
// the slices (a jump down from a box)
static double box_ramp(const salto_problem_desc* p, int i, int body, double t) {
    double gap = INFINITY;
    for (int k = 0; k < p->nphase; k++) {
        if (!salto_problem_box_holds(p, k, i, body, NULL)) continue;
        const double a = p->phases[k].start, b = a + p->phases[k].duration;
        gap = fmin(gap, t < a ? a - t : t > b ? t - b : 0.0);
    }
    return fmin(1.0, gap / SALTO_BOX_CLEARANCE_RAMP);
}


// The chords of a box's clearance (box_chords): half the time to the distinct slice times before
// and after t (0 at the motion's ends). A foot passing a hurdle's top corner at 3 m/s moves
// 7.5 cm between two slices 25 ms apart and cut 7 cm into the corner between rows at the slices
// alone; rows at four times as many times stopped that, but their near copies, active together,
// cascaded the KKT factorisation's delayed pivots to fronts of 3600 (80 ms a factorisation)
static void slice_half_spans(const salto_nlp* nlp, double t, double* hb, double* hf) {
    double before = t, after = t;
    for (int k = 0; k < nlp->nslice; k++) {
        const double s = nlp->slice_t[k];
        if (s < t - 1e-12 && (before == t || s > before)) before = s;
        if (s > t + 1e-12 && (after == t || s < after)) after = s;
    }
    *hb = 0.5 * (t - before);
    *hf = 0.5 * (after - t);
}


// the rows of constraint c evaluated at time t (one block, or one per geometry point)
static salto_status add_blocks_at(builder* B, int c, double t, int side) {
    salto_nlp* nlp = B->nlp;
    const salto_constraint_desc* cd = nlp_cd(nlp, c);
    const salto_model* m = nlp->m;
    const int planar = nlp->planar;

    if (cd->type == SALTO_CON_ABOVE_GROUND) {
        // every geometry point that could be lowest: capsule ends, sphere centres, box corners
        for (int g = 0; g < m->ngeom; g++) {
            double pts[8][3], off = 0.0;
            const int npt = salto_geom_local_points(m, g, pts, &off);
            const int link = m->geom_link[g];
            if (link < 0) continue; // welded to the world: nothing to constrain
            for (int k = 0; k < npt; k++) {
                const int held = held_on_ground(nlp->p, m, m->geom_body[g], link, pts[k], off, t);
                if (held == SALTO_HOLD_AT) continue;
                block* b = new_block(B);
                if (!b) return SALTO_ERR_NOMEM;
                b->con = c, b->t = t, b->side = side, b->nrows = 1, b->link = link;
                b->offset = held == SALTO_HOLD_BALL ? 0.0 : off; // (its centre above the floor)
                memcpy(b->point, pts[k], sizeof b->point);
                b->comp[0] = 2;
                if (push_path(B, b, link)) return SALTO_ERR_NOMEM;
            }
        }
        return SALTO_OK;
    }

    if (cd->type == SALTO_CON_CLEAR_BAR || cd->type == SALTO_CON_CLEAR_BOX) {
        // every capsule's axis segment (a sphere's centre, a box's corners: segments of no
        // length), on the links that hold no bar in any phase (their grip): a row each; for a
        // box, but a body a phase at t holds on it (its sole is the contact's)
        const int box = cd->type == SALTO_CON_CLEAR_BOX;
        for (int g = 0; g < m->ngeom; g++) {
            const int link = m->geom_link[g];
            if (link < 0 || (!box && salto_problem_grips_bar(nlp->p, link))) continue;
            // the capsule's segment, or each point as a segment of no length
            const int cap = m->geom_shape[g] == SALTO_GEOM_CAPSULE;
            double pts[8][3], seg[8][2][3], r = 0.0;
            const int npt = salto_geom_local_points(m, g, pts, &r), nseg = cap ? 1 : npt;
            for (int k = 0; k < nseg; k++) {
                memcpy(seg[k][0], pts[k], sizeof seg[k][0]);
                memcpy(seg[k][1], pts[cap ? 1 : k], sizeof seg[k][1]);
            }
            // for a box, each point's path over the half intervals to the slices either side
            // too (a chord row, box_chords): a capsule its two ends' (and its segment), a
            // sphere's centre and a box's corners theirs instead of their point
            double hb = 0.0, hf = 0.0;
            if (box) {
                // not into the time a phase holds the body on this box (its sole the contact's)
                slice_half_spans(nlp, t, &hb, &hf);
                const salto_problem_desc* p = nlp->p;
                for (int i = 0; i < p->nphase; i++) {
                    if (!salto_problem_box_holds(p, i, cd->box, m->geom_body[g], NULL)) continue;
                    const double a = p->phases[i].start, e = a + p->phases[i].duration;
                    if (e <= t) hb = fmin(hb, t - e);
                    if (a >= t) hf = fmin(hf, a - t);
                }
            }
            for (int k = 0; k < nseg; k++) {
                if (box && box_held(nlp->p, cd->box, m->geom_body[g], seg[k], t)) continue;
                // a planar character's box corners either side of its plane: one row for both (a
                // box's distance ignores y), not two equal rows, dependent when active
                if (box && planar && nseg == 8 && ((k >> 1) & 1)) continue;
                const double off = r + (box ? cd->height * box_ramp(nlp->p, cd->box, m->geom_body[g], t) : cd->height);
                const int nchord = box && hb + hf > 0.0 ? (cap ? 2 : 1) : 0;
                for (int ch = cap || !nchord ? -1 : 0; ch < nchord; ch++) {
                    block* b = new_block(B);
                    if (!b) return SALTO_ERR_NOMEM;
                    b->con = c, b->t = t, b->side = side, b->nrows = 1, b->link = link;
                    b->offset = off;
                    // a chord's clearance: the ramp's at the end of its span nearer a hold (a
                    // flat foot's eight corners all held the clearance due a slice after
                    // take-off 8 ms after it, dependent rows active together)
                    if (ch >= 0) {
                        const int body = m->geom_body[g];
                        b->offset = r + cd->height * fmin(box_ramp(nlp->p, cd->box, body, t - hb),
                                                          box_ramp(nlp->p, cd->box, body, t + hf));
                    }
                    memcpy(b->point, seg[k][ch < 0 ? 0 : ch], sizeof b->point);
                    memcpy(b->e[0], seg[k][ch < 0 ? 1 : ch], sizeof b->e[0]);
                    if (ch >= 0) b->chord = 1, b->sweep[0] = hb, b->sweep[1] = hf;
                    if (push_path(B, b, link)) return SALTO_ERR_NOMEM;
                }
            }
        }
        return SALTO_OK;
    }

    block* b = new_block(B);
    if (!b) return SALTO_ERR_NOMEM;
    b->con = c;
    b->t = t;
    b->side = side;
    switch (cd->type) {
    case SALTO_CON_SITE_IN_BOX:
    case SALTO_CON_COM_IN_BOX:
        // a row for each axis the box bounds (a planar character's y: none)
        for (int k = 0; k < 3; k++) {
            if ((planar && k == 1) || (!isfinite(cd->lo[k]) && !isfinite(cd->hi[k]))) continue;
            b->comp[b->nrows++] = k;
        }
        if (cd->type == SALTO_CON_SITE_IN_BOX ? push_path(B, b, m->site_link[cd->site]) : push_all(B, b))
            return SALTO_ERR_NOMEM;
        break;
    case SALTO_CON_SITE_AT:
    case SALTO_CON_SITE_STILL: {
        const int some = cd->type == SALTO_CON_SITE_STILL && (cd->mask[0] || cd->mask[1] || cd->mask[2]);
        for (int k = 0; k < 3; k++) {
            if ((planar && k == 1) || (some && !cd->mask[k])) continue;
            b->comp[b->nrows++] = k;
        }
        if (push_path(B, b, m->site_link[cd->site])) return SALTO_ERR_NOMEM;
        break;
    }
    case SALTO_CON_SITE_HOLD: {
        int is_aux[3], naux = 0, a = 0;
        b->nrows = nlp_hold_rows(nlp->p, cd, planar, b->e, is_aux, b->target, &naux);
        for (int r = 0; r < b->nrows; r++) {
            b->comp[r] = r;
            b->aux[r] = is_aux[r] ? nlp->con_aux[c] + a++ : -1;
        }
        if (push_path(B, b, m->site_link[cd->site])) return SALTO_ERR_NOMEM;
        break;
    }
    case SALTO_CON_BODY_HEADING:
        b->nrows = 1;
        b->comp[0] = 0;
        b->aux[0] = nlp->con_aux[c];
        if (push_path(B, b, m->site_link[cd->site])) return SALTO_ERR_NOMEM;
        break;
    case SALTO_CON_BODY_LEVEL:
        b->nrows = 1;
        b->comp[0] = 0;
        if (push_path(B, b, m->site_link[cd->site])) return SALTO_ERR_NOMEM;
        break;
    case SALTO_CON_BODY_STILL: {
        // the body's angular velocity (planar: about y only; the masked components when set)
        const int some = cd->mask[0] || cd->mask[1] || cd->mask[2];
        for (int k = 0; k < 3; k++) {
            if ((!planar || k == 1) && (!some || cd->mask[k])) b->comp[b->nrows++] = k;
        }
        if (push_path(B, b, m->site_link[cd->site])) return SALTO_ERR_NOMEM;
        break;
    }
    case SALTO_CON_SITE_ON_LINE:
        if (planar) {
            const double y[3] = {0, 1, 0};
            salto_v3_cross(b->e[0], y, cd->dir);
            const double n = salto_v3_norm(b->e[0]);
            for (int k = 0; k < 3; k++) b->e[0][k] /= n > 0 ? n : 1.0;
            b->nrows = 1;
        } else {
            orthonormal(cd->dir, b->e[0], b->e[1]);
            b->nrows = 2;
        }
        b->comp[0] = 0, b->comp[1] = 1;
        if (push_path(B, b, m->site_link[cd->site])) return SALTO_ERR_NOMEM;
        break;
    case SALTO_CON_SITE_ON_PLANE:
    case SALTO_CON_SITE_ABOVE:
        memcpy(b->e[0], cd->dir, sizeof b->e[0]);
        b->nrows = 1;
        if (push_path(B, b, m->site_link[cd->site])) return SALTO_ERR_NOMEM;
        break;
    case SALTO_CON_COM_ABOVE:
        memcpy(b->e[0], cd->dir, sizeof b->e[0]);
        b->comp[0] = 0;
        b->nrows = 1;
        if (push_all(B, b)) return SALTO_ERR_NOMEM;
        break;
    case SALTO_CON_POSE:
    case SALTO_CON_VELOCITY:
    case SALTO_CON_JOINT_RANGE:
        b->diag = 1;
        b->nrows = cd->ndof;
        b->ndep = cd->ndof;
        for (int k = 0; k < cd->ndof; k++) {
            if (push_dep(B, cd->dof[k])) return SALTO_ERR_NOMEM;
        }
        break;
    case SALTO_CON_COM_PARABOLA:
    case SALTO_CON_COM_PARABOLA_VEL:
        // along each of the root's translation axes (its place variables are set by
        // nlp_assign_eroots)
        for (int k = 0; k < nlp->root.bal_nt; k++) {
            b->comp[k] = k;
            memcpy(b->e[k], nlp->root.bal_a[k], sizeof b->e[k]);
        }
        b->nrows = nlp->root.bal_nt;
        if (push_all(B, b)) return SALTO_ERR_NOMEM;
        break;
    case SALTO_CON_COM_POSITION:
    case SALTO_CON_COM_VELOCITY:
        // a planar character's centre of mass stays in the x-z plane: no y row
        for (int k = 0; k < 3; k++) {
            if (cd->mask[k] && !(planar && k == 1)) b->comp[b->nrows++] = k;
        }
        if (push_all(B, b)) return SALTO_ERR_NOMEM;
        break;
    default:
        break;
    }
    if (b->nrows == 0) {
        // joint limits (variable bounds), or nothing to state: no block, its deps dropped
        B->ndep = b->dep0;
        nlp->nblock--;
    }
    return SALTO_OK;
}


int nlp_cmp_block(const void* a, const void* b) {
    const block* x = a;
    const block* y = b;
    if (x->obj != y->obj) return x->obj - y->obj; // the objective's blocks last
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    if (x->con != y->con) return x->con - y->con;
    if (x->phase != y->phase) return x->phase - y->phase;
    if (x->impact != y->impact) return x->impact - y->impact;
    if (x->force != y->force) return x->force - y->force;
    if (x->torque != y->torque) return x->torque - y->torque;
    return x->seq - y->seq; // qsort is not stable: one order for the same problem, always
}


// slice k read from the left (-1: the last of its phase) or the right
static int slice_side(const salto_nlp* nlp, int k) {
    return k + 1 == nlp->nslice || nlp->slice_ph[k + 1] != nlp->slice_ph[k] ? -1 : 1;
}


// slice k's share of its phase's time by the trapezoid rule over the phase's slices, s
static double slice_weight(const salto_nlp* nlp, int k) {
    const int ph = nlp->slice_ph[k];
    const int first = k == 0 || nlp->slice_ph[k - 1] != ph;
    const int last = slice_side(nlp, k) < 0;
    return 0.5 * ((last ? nlp->slice_t[k] : nlp->slice_t[k + 1]) - (first ? nlp->slice_t[k] : nlp->slice_t[k - 1]));
}


// a new block of phase ph's physics at time t (from side), depending on every DOF; NULL when
// out of memory (the builder's dependencies then freed)
static block* physics_block(builder* B, int ph, double t, int side) {
    block* b = new_block(B);
    if (!b || push_all(B, b)) {
        salto_free(B->dep);
        B->dep = NULL;
        return NULL;
    }
    b->con = -1;
    b->phase = ph;
    b->t = t;
    b->side = side;
    return b;
}


// a motion a problem names (warm start or reference): read, and on the problem's character
static salto_motion* load_motion_for(const salto_problem_desc* p, const char* path,
                                     salto_src_loc loc, const char* what, salto_error* err) {
    salto_error inner = {0};
    const size_t n = strlen(path);
    salto_motion* mo = n > 4 && strcmp(path + n - 4, ".csv") == 0 ? salto_motion_load_csv(path, p->model, &inner)
                                                                 : salto_motion_load_json(path, &inner);
    if (!mo) {
        char msg[700];
        salto_error_format(&inner, msg, sizeof msg);
        SALTO_FAIL(err, inner.status == SALTO_ERR_NOMEM ? SALTO_ERR_NOMEM : SALTO_ERR_INVALID, loc,
                   "cannot use the %s motion: %s", what, msg);
        return NULL;
    }
    const salto_model* m = p->model;
    int same = mo->nv == m->nv;
    for (int j = 0; same && j < m->nv; j++) same = strcmp(mo->dof_name[j], m->link_name[j]) == 0;
    if (!same) {
        SALTO_FAIL(err, SALTO_ERR_INVALID, loc,
                   "the %s motion '%s' is not on this problem's character (its %d DOFs do not "
                   "match the character's %d DOFs by name and order)",
                   what, path, mo->nv, m->nv);
        salto_motion_destroy(mo);
        return NULL;
    }
    return mo;
}


// Fang & Pollard eq. 21: w int (q - q_R)^2 dt = w sum_j (c_j' G0 c_j - 2 b_j' c_j + int q_R,j^2)
// with b_j,a = int N_a q_R,j dt. The reference is the motion's frames interpolated linearly,
// played over the problem's duration (scaled if the two durations differ); the integrals are
// taken by 8-point Gauss-Legendre on 8 pieces of every knot span.
static salto_status build_reference(salto_nlp* nlp, salto_error* err) {
    const salto_problem_desc* p = nlp->p;
    const int nv = nlp->nv, ncp = nlp->ncp;
    for (int k = 0; k < p->nobj; k++) {
        const salto_objective_desc* od = &p->objs[k];
        if (od->type != SALTO_OBJ_REFERENCE) continue;
        salto_motion* mo = load_motion_for(p, od->motion, od->loc, "reference", err);
        if (!mo) return err->status;
        if (!nlp->obj.ref_b) nlp->obj.ref_b = salto_calloc((size_t)nv * ncp, sizeof(double));
        double* q = salto_malloc((size_t)nv * sizeof(double));
        if (!nlp->obj.ref_b || !q) {
            salto_free(q);
            salto_motion_destroy(mo);
            return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        }
        static const double gx[8] = {-0.9602898564975363, -0.7966664774136267, -0.5255324099163290,
                                     -0.1834346424956498, 0.1834346424956498,  0.5255324099163290,
                                     0.7966664774136267,  0.9602898564975363};
        static const double gw[8] = {0.1012285362903763, 0.2223810344533745, 0.3137066458778873,
                                     0.3626837833783620, 0.3626837833783620, 0.3137066458778873,
                                     0.2223810344533745, 0.1012285362903763};
        const double w = od->weight;
        const double scale = p->duration > 0 ? mo->duration / p->duration : 1.0;
        // 8 pieces of every span of positive length (the rule never straddles a knot)
        for (int piece = 0; piece < 8 * (nlp->ncp - 3); piece++) {
            const double u0 = salto_bspline_knot(&nlp->spline, 3 + piece / 8);
            const double u1 = salto_bspline_knot(&nlp->spline, 4 + piece / 8);
            if (!(u1 > u0)) continue;
            const double hp = (u1 - u0) / 8, t0 = u0 + hp * (piece % 8);
            for (int g = 0; g < 8; g++) {
                const double t = t0 + (0.5 + 0.5 * gx[g]) * hp;
                const double wt = 0.5 * hp * gw[g] * w;
                double N[4];
                const int first = salto_bspline_basis(&nlp->spline, t, N, NULL, NULL);
                salto_motion_sample(mo, t * scale, q);
                for (int j = 0; j < nv; j++) {
                    for (int a = 0; a < 4; a++) nlp->obj.ref_b[j * ncp + first + a] += wt * N[a] * q[j];
                    nlp->obj.ref_c += wt * q[j] * q[j];
                }
            }
        }
        nlp->obj.ref_w += w;
        salto_free(q);
        salto_motion_destroy(mo);
    }
    return SALTO_OK;
}


void salto_nlp_destroy(salto_nlp* nlp) {
    if (!nlp) return;
    salto_free(nlp->blocks);
    salto_free(nlp->ocons);
    salto_free(nlp->lam_ext);
    salto_free(nlp->dep);
    salto_free(nlp->jac_row);
    salto_free(nlp->jac_col);
    salto_free(nlp->g_lo);
    salto_free(nlp->g_hi);
    salto_free(nlp->x_lo);
    salto_free(nlp->x_hi);
    salto_free(nlp->obj.G);
    salto_free(nlp->obj.G0);
    salto_free(nlp->obj.ref_b);
    salto_motion_destroy(nlp->warm);
    salto_free(nlp->hess.row);
    salto_free(nlp->hess.col);
    salto_free(nlp->hess.obj);
    salto_free(nlp->hess.blk);
    salto_free(nlp->hess.jk);
    salto_free(nlp->hess.jk0);
    salto_free(nlp->jk_a), salto_free(nlp->jk_b), salto_free(nlp->jk_w);
    salto_free(nlp->jk_f), salto_free(nlp->jk_c), salto_free(nlp->jk_J);
    salto_free(nlp->hess.blk0);
    salto_free(nlp->hess.xs);
    salto_free(nlp->hess.Jp);
    salto_free(nlp->hess.Sacc);
    salto_free(nlp->hess.Sl);
    salto_free(nlp->hess.Tl);
    salto_free(nlp->hess.Ql);
    salto_free(nlp->hess.fw);
    salto_free(nlp->hess.map);
    salto_free(nlp->hess.map2);
    salto_free(nlp->hess.path);
    salto_free(nlp->hess.pv);
    salto_free(nlp->hess.Hf);
    salto_free(nlp->hess.tw);
    salto_free(nlp->hess.H2);
    salto_free(nlp->hess.tg);
    salto_free(nlp->hess.Er);
    salto_free(nlp->hess.Jb);
    salto_free(nlp->root.er);
    salto_free(nlp->bal);
    salto_free(nlp->mom);
    salto_free(nlp->impv);
    salto_free(nlp->root.J);
    salto_free(nlp->root.Dv);
    salto_free(nlp->root.Daq);
    salto_free(nlp->root.Daqd);
    salto_free(nlp->root.aJ);
    salto_free(nlp->ev.daux);
    salto_free(nlp->ev.fq);
    salto_free(nlp->ev.imp);
    salto_free(nlp->ev.Jt);
    salto_free(nlp->ev.tq);
    salto_free(nlp->ev.og);
    salto_free(nlp->ev.tq_under);
    salto_free(nlp->ev.wjac);
    salto_free(nlp->tq_dof);
    salto_free(nlp->hess.grp);
    salto_free(nlp->hess.grp_at);
    salto_free(nlp->hess.arena);
    salto_free(nlp->obj.w);
    salto_free(nlp->msub);
    salto_free(nlp->tvar), salto_free(nlp->tnom), salto_free(nlp->tcur), salto_free(nlp->Gk);
    salto_free(nlp->G0k), salto_free(nlp->tband0), salto_free(nlp->tb0), salto_free(nlp->tslot);
    salto_free(nlp->tscr);
    salto_free(nlp->ev.J3);
    salto_free(nlp->ev.dq);
    salto_free(nlp->ev.dqd);
    salto_free(nlp->ev.dqdd);
    salto_free(nlp->ev.Jf);
    salto_free(nlp->ev.sums);
    salto_free(nlp->slice_t);
    salto_free(nlp->con_aux);
    salto_free(nlp->slice_ph);
    salto_data_destroy(nlp->ev.d);
    salto_bspline_release(&nlp->spline);
    salto_free(nlp);
}


salto_nlp* salto_nlp_build(const salto_problem_desc* p, salto_error* err) {
    // a spline far too large, refused at its key before anything is allocated (the whole
    // build's memory is estimated and checked exactly before its largest allocation: nlp_hess.c)
    if (salto_problem_check_memory(p, err) != SALTO_OK) return NULL;
    salto_nlp* nlp = salto_calloc(1, sizeof(salto_nlp));
    if (!nlp) goto nomem;
    nlp->p = p;
    nlp->m = p->model;
    const salto_model* m = p->model;
    nlp->nv = m->nv;
    nlp->ncp = p->ncp;
    nlp->planar = salto_model_is_planar(m);
    nlp->nx = m->nv * p->ncp;
    // motions the problem names: the warm start and the reference of eq. 21
    if (p->guess.type == SALTO_GUESS_MOTION) {
        nlp->warm = load_motion_for(p, p->guess.motion, p->guess.loc, "warm-start", err);
        if (!nlp->warm) goto fail;
    }
    // the spline: knots at the phase boundaries (salto_problem_knots), else uniform
    {
        // a warm start from a motion with as many control points and its phases' knots
        // (double knots apart): the same knots per phase, so that its control points carry
        // over when only durations changed
        int* counts = NULL;
        if (!p->phase_knots && nlp->warm && !p->junction_c2 && nlp->warm->ncp == p->ncp) {
            counts = salto_malloc((size_t)p->nphase * sizeof(int));
            if (!counts) goto nomem;
            if (!salto_motion_knot_counts(nlp->warm, p->nphase, counts)) {
                salto_free(counts);
                counts = NULL;
            }
        }
        const salto_status st = salto_problem_spline(p, counts, &nlp->spline);
        salto_free(counts);
        if (st == SALTO_ERR_NOMEM) goto nomem;
        if (st != SALTO_OK) {
            SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(),
                       "%s: %d control points over %g s do not make a cubic B-spline", p->path,
                       p->ncp, p->duration);
            goto fail;
        }
    }
    nlp->nslice = salto_problem_slices(p, NULL, NULL);
    nlp->slice_t = salto_malloc((size_t)nlp->nslice * sizeof(double));
    nlp->slice_ph = salto_malloc((size_t)nlp->nslice * sizeof(int));
    if (!nlp->slice_t || !nlp->slice_ph) goto nomem;
    salto_problem_slices(p, nlp->slice_t, nlp->slice_ph);

    if (build_reference(nlp, err) != SALTO_OK) goto fail;

    // the contact places of the holds: variables after the control points
    nlp->ncpv = nlp->nx;
    nlp->con_aux = salto_malloc((size_t)(p->ncon > 0 ? p->ncon : 1) * sizeof(int));
    nlp->bal = salto_malloc((size_t)p->nphase * sizeof(int));
    nlp->mom = salto_malloc((size_t)p->nphase * sizeof(int));
    nlp->impv = salto_malloc((size_t)p->nphase * sizeof(int));
    nlp->tq_dof = salto_malloc((size_t)nlp->nv * sizeof(int));
    if (!nlp->con_aux || !nlp->bal || !nlp->mom || !nlp->impv || !nlp->tq_dof) goto nomem;
    for (int i = 0; i < p->nphase; i++) nlp->bal[i] = nlp->mom[i] = nlp->impv[i] = -1;
    nlp->root.bal_nt = salto_model_root_translation(nlp->m, nlp->root.bal_tdof, nlp->root.bal_a);
    for (int c = 0; c < p->ncon; c++) {
        nlp->con_aux[c] = -1;
        if (p->cons[c].type == SALTO_CON_BODY_HEADING) {
            nlp->con_aux[c] = nlp->ncpv + nlp->naux; // the heading
            nlp->naux++;
            continue;
        }
        if (p->cons[c].type == SALTO_CON_COM_PARABOLA) {
            nlp->con_aux[c] = nlp->ncpv + nlp->naux; // c0, v0 along the translation axes
            nlp->naux += 2 * nlp->root.bal_nt;
            nlp->bal[p->cons[c].phase] = nlp->con_aux[c];
            continue;
        }
        if (p->cons[c].type != SALTO_CON_SITE_HOLD) continue;
        double e[3][3], target[3];
        int is_aux[3], naux = 0;
        nlp_hold_rows(p, &p->cons[c], nlp->planar, e, is_aux, target, &naux);
        if (naux == 0) continue;
        nlp->con_aux[c] = nlp->ncpv + nlp->naux;
        nlp->naux += naux;
    }
    // a flight's momentum constants (its angular momentum about the centre of mass, and unless
    // ballistic its linear momentum at the phase's start), one per physics row
    const int momentum = p->solver.flight_rows == SALTO_FLIGHT_MOMENTUM ||
                         p->solver.flight_rows == SALTO_FLIGHT_MOMENTUM_ENDS;
    for (int i = 0; p->physics && momentum && i < p->nphase; i++) {
        if (p->phases[i].contact.type != SALTO_CONTACT_NONE) continue;
        nlp->mom[i] = nlp->ncpv + nlp->naux;
        nlp->naux += flight_nrows(nlp, i);
    }
    // an impact on several links: the impulse each link after the first takes
    for (int i = 1; p->physics && i < p->nphase; i++) {
        int link[8];
        const int nl = p->phases[i].contact.impact ? nlp_impact_links(nlp, i, link) : 0;
        if (nl < 2) continue;
        SALTO_ASSERT((nl - 1) * nlp_impulse_width(nlp) <= NXAUX); // the loader's limit
        nlp->impv[i] = nlp->ncpv + nlp->naux;
        nlp->naux += (nl - 1) * nlp_impulse_width(nlp);
    }
    nlp->nx = nlp->ncpv + nlp->naux;
    // free phase durations: the last variables (nlp_time.c)
    if (nlp_time_setup(nlp) != SALTO_OK) goto nomem;
    nlp->root.er = salto_calloc((size_t)p->nphase, sizeof(eroot));
    if (!nlp->root.er) goto nomem;
    nlp_setup_eroots(nlp);

    // constraint blocks
    builder B = {nlp, 0, 0, 0, NULL};
    for (int c = 0; c < p->ncon; c++) {
        const salto_constraint_desc* cd = &p->cons[c];
        salto_status st = SALTO_OK;
        if (cd->type == SALTO_CON_JOINT_LIMITS) continue;
        if (cd->has_time) {
            st = add_blocks_at(&B, c, cd->time, 1);
        } else if (cd->at_knots) {
            // every distinct knot in the phase, its ends included (the end from the left)
            const salto_phase_desc* ph = &p->phases[cd->phase];
            const double t0 = ph->start;
            const double t1 = cd->phase == p->nphase - 1 ? p->duration : p->phases[cd->phase + 1].start;
            double prev = -1.0;
            for (int j = 3; j <= nlp->ncp && st == SALTO_OK; j++) {
                const double t = salto_bspline_knot(&nlp->spline, j);
                if (t == prev || t < t0 || t > t1) continue;
                if (cd->at_knots == 2 && t != t0 && t != t1) continue; // the ends only
                if (cd->skip_start && t == t0) continue;
                prev = t;
                st = add_blocks_at(&B, c, t, t == t1 ? -1 : 1);
            }
        } else {
            // every slice of the phase (its last from the left), or every distinct slice time
            for (int k = 0; k < nlp->nslice && st == SALTO_OK; k++) {
                const double t = nlp->slice_t[k];
                if (cd->phase >= 0) {
                    if (nlp->slice_ph[k] != cd->phase) continue;
                    const int last = k + 1 == nlp->nslice || nlp->slice_ph[k + 1] != cd->phase;
                    st = add_blocks_at(&B, c, t, last ? -1 : 1);
                } else if (k == 0 || t != nlp->slice_t[k - 1]) {
                    st = add_blocks_at(&B, c, t, 1);
                }
            }
        }
        if (st != SALTO_OK) {
            salto_free(B.dep);
            goto nomem;
        }
    }
    // the objective's height and travel terms: the rows of a site_above or com_above through
    // the origin along the term's direction, at its time or at every slice of its phase, each
    // weighted by -+ weight / (their count) (maximised: the objective is minimised)
    nlp->ocons = salto_calloc((size_t)(p->nobj > 0 ? p->nobj : 1), sizeof *nlp->ocons);
    if (!nlp->ocons) {
        salto_free(B.dep);
        goto nomem;
    }
    for (int k = 0; k < p->nobj; k++) {
        const salto_objective_desc* od = &p->objs[k];
        if (od->type != SALTO_OBJ_HEIGHT && od->type != SALTO_OBJ_TRAVEL) continue;
        salto_constraint_desc* cd = &nlp->ocons[k];
        cd->type = od->site >= 0 ? SALTO_CON_SITE_ABOVE : SALTO_CON_COM_ABOVE;
        cd->site = od->site;
        memcpy(cd->dir, od->dir, sizeof cd->dir);
        cd->has_time = od->has_time, cd->time = od->time, cd->phase = od->phase;
        cd->loc = od->loc;
        const int first = nlp->nblock;
        salto_status st = SALTO_OK;
        for (int k2 = 0; k2 < nlp->nslice && st == SALTO_OK; k2++) {
            if (od->has_time) {
                st = add_blocks_at(&B, p->ncon + k, od->time, 1);
                break;
            }
            if (nlp->slice_ph[k2] != od->phase) continue;
            const int last = k2 + 1 == nlp->nslice || nlp->slice_ph[k2 + 1] != od->phase;
            st = add_blocks_at(&B, p->ncon + k, nlp->slice_t[k2], last ? -1 : 1);
        }
        if (st != SALTO_OK) {
            salto_free(B.dep);
            goto nomem;
        }
        const double w = (od->maximise ? -od->weight : od->weight) / (nlp->nblock > first ? nlp->nblock - first : 1);
        for (int i = first; i < nlp->nblock; i++) nlp->blocks[i].obj = 1, nlp->blocks[i].ow = w, nlp->blocks[i].oi = k;
    }
    // physics on the aggregate force at every slice of every phase, by the phase's contact; at
    // a boundary both phases hold, each with its own side's acceleration
    if (p->physics) {
        const int planar = nlp->planar;
        for (int k = 0; k < nlp->nslice; k++) {
            const int ph = nlp->slice_ph[k];
            const int side = k + 1 == nlp->nslice || nlp->slice_ph[k + 1] != ph ? -1 : 1;
            block* b = physics_block(&B, ph, nlp->slice_t[k], side);
            if (!b) goto nomem;
            switch (p->phases[ph].contact.type) {
            case SALTO_CONTACT_BAR: b->nrows = 1; break;
            case SALTO_CONTACT_GROUND: b->nrows = planar ? 4 : 8; break;
            default:
                // a ballistic flight's force is zero by construction: the torque about the
                // centre of mass alone
                b->nrows = flight_nrows(nlp, ph);
                // momentum rows: each against its constant, a place variable per row
                for (int r = 0; nlp->mom[ph] >= 0 && r < b->nrows; r++) b->aux[r] = nlp->mom[ph] + r;
                // momentum_ends: at the flight's first and last slices f0's rows too. The
                // momentum's rows hold f0's integral between slices, not f0 itself, and at a
                // take-off or a touchdown the acceleration may jump (a double knot): the
                // momentum alone leaves the force at the flight's edges free (a released
                // grip pulled 53 N into the flight, the lamp's hop 2.5 times its flight
                // torque threshold right after take-off)
                const int edge = k == 0 || nlp->slice_ph[k - 1] != ph || side < 0;
                if (nlp->mom[ph] >= 0 && edge && p->solver.flight_rows == SALTO_FLIGHT_MOMENTUM_ENDS) {
                    block* bf = physics_block(&B, ph, nlp->slice_t[k], side);
                    if (!bf) goto nomem;
                    bf->nrows = flight_nrows(nlp, ph);
                    bf->force = 1;
                }
                break;
            }
        }
    }
    // the joint torques of the DOFs the character limits, at every physics slice
    for (int j = 0; j < nlp->nv; j++) {
        if (m->link_has_torque[j] && j >= m->nroot) nlp->tq_dof[nlp->ntq++] = j;
    }
    for (int k = 0; p->physics && nlp->ntq > 0 && k < nlp->nslice; k++) {
        const int ph = nlp->slice_ph[k];
        const int side = k + 1 == nlp->nslice || nlp->slice_ph[k + 1] != ph ? -1 : 1;
        block* b = physics_block(&B, ph, nlp->slice_t[k], side);
        if (!b) goto nomem;
        b->torque = 1;
        b->slope = 1;
        b->tdof = nlp->tq_dof;
        b->nrows = nlp->ntq;
    }
    // the torque objectives (eq. 19): their DOFs' torques at every slice, each slice weighted
    // by its share of its phase's time (the trapezoid rule over the phase's slices)
    for (int o = 0; o < p->nobj; o++) {
        const salto_objective_desc* od = &p->objs[o];
        if (od->type != SALTO_OBJ_TORQUE || od->ndof == 0) continue;
        for (int k = 0; k < nlp->nslice; k++) {
            const int ph = nlp->slice_ph[k];
            const double dt = slice_weight(nlp, k);
            if (!(dt > 0.0)) continue;
            block* b = physics_block(&B, ph, nlp->slice_t[k], slice_side(nlp, k));
            if (!b) goto nomem;
            b->torque = 1;
            b->tdof = od->dof;
            b->rw = od->dofw;
            b->nrows = od->ndof;
            b->obj = 1;
            b->quad = 1;
            b->ow = od->weight * dt;
            b->oi = o;
            b->phase = ph;
        }
    }
    // the contact_force objectives (eq. 22): f0's force at every slice of the phases with a
    // contact (or the one named), weighted as the torque's
    // and the contact_jerk objectives' (eq. 23): the same rows at every slice of those phases,
    // paired below
    for (int o = 0; o < p->nobj; o++) {
        const salto_objective_desc* od = &p->objs[o];
        const int jerk = od->type == SALTO_OBJ_CONTACT_JERK;
        if (od->type != SALTO_OBJ_CONTACT_FORCE && !jerk) continue;
        for (int k = 0; k < nlp->nslice; k++) {
            const int ph = nlp->slice_ph[k];
            if (p->phases[ph].contact.type == SALTO_CONTACT_NONE || (od->phase >= 0 && ph != od->phase)) continue;
            const double dt = slice_weight(nlp, k);
            if (!(dt > 0.0) && !jerk) continue;
            block* b = physics_block(&B, ph, nlp->slice_t[k], slice_side(nlp, k));
            if (!b) goto nomem;
            b->fobj = 1;
            b->nrows = nlp->planar ? 2 : 3;
            b->obj = 1;
            b->quad = jerk ? 2 : 1;
            b->ow = jerk ? od->weight : od->weight * dt;
            b->oi = o;
        }
    }
    // an impact at the start of each phase that has one (docs/problem-format.md): the joints'
    // impulses, then the aggregate impulse's rows as the phase's contact rows
    for (int i = 1; p->physics && i < p->nphase; i++) {
        if (!p->phases[i].contact.impact) continue;
        block* b = physics_block(&B, i, p->phases[i].start, 1);
        if (!b) goto nomem;
        b->impact = 1;
        b->nrows = nlp->nv - m->nroot + (nlp->planar ? 4 : 8);
    }
    // a free duration's boundaries: the velocity joined across the C0 knot (nlp_time.c)
    for (int i = 1; i < p->nphase; i++) {
        if ((nlp->tvar[i] < 0 && nlp->tvar[i - 1] < 0) || p->phases[i].contact.impact) continue;
        block* b = physics_block(&B, i, p->phases[i].start, 1);
        if (!b) goto nomem;
        b->junc = 1;
        b->diag = 1;
        b->nrows = nlp->nv;
    }
    if (nlp_assign_eroots(nlp, &B) != SALTO_OK) {
        salto_free(B.dep);
        goto nomem;
    }
    nlp->dep = B.dep;
    if (nlp->nblock > 1) qsort(nlp->blocks, (size_t)nlp->nblock, sizeof(block), nlp_cmp_block);

    // the objective's blocks apart, after the constraints'
    while (nlp->nblock > 0 && nlp->blocks[nlp->nblock - 1].obj) nlp->nblock--, nlp->nobjblk++;
    for (int i = nlp->nblock; i < nlp->nblock + nlp->nobjblk; i++) {
        block* b = &nlp->blocks[i];
        b->first = salto_bspline_basis_side(&nlp->spline, b->t, b->side, b->N, b->dN, b->ddN);
        nlp_time_block(nlp, b);
    }
    // a contact_jerk objective's pairs: each of its blocks with the next later one of the same
    // phase, weighted by weight / (their time apart)
    nlp->jk_a = salto_malloc((size_t)(nlp->nobjblk + 1) * sizeof(int));
    nlp->jk_b = salto_malloc((size_t)(nlp->nobjblk + 1) * sizeof(int));
    nlp->jk_w = salto_malloc((size_t)(nlp->nobjblk + 1) * sizeof(double));
    nlp->jk_f = salto_calloc(3 * (size_t)nlp->nobjblk + 1, sizeof(double));
    nlp->jk_c = salto_calloc(3 * (size_t)nlp->nobjblk + 1, sizeof(double));
    if (!nlp->jk_a || !nlp->jk_b || !nlp->jk_w || !nlp->jk_f || !nlp->jk_c) goto nomem;
    int njkb = 0; // the contact_jerk blocks: each's Jacobian once a Hessian
    for (int i = nlp->nblock; i < nlp->nblock + nlp->nobjblk; i++) njkb += nlp->blocks[i].quad == 2;
    if (njkb > 0) {
        nlp->jk_J = salto_malloc(3 * (4 * (size_t)nlp->nv + NXAUX) * (size_t)nlp->nobjblk * sizeof(double));
        if (!nlp->jk_J) goto nomem;
    }
    for (int i = nlp->nblock; i < nlp->nblock + nlp->nobjblk; i++) {
        const block* b = &nlp->blocks[i];
        if (b->quad != 2) continue;
        int next = -1;
        for (int k = nlp->nblock; k < nlp->nblock + nlp->nobjblk; k++) {
            const block* c = &nlp->blocks[k];
            if (c->quad != 2 || c->oi != b->oi || c->phase != b->phase || !(c->t > b->t + 1e-12)) continue;
            if (next < 0 || c->t < nlp->blocks[next].t) next = k;
        }
        if (next < 0) continue;
        nlp->jk_a[nlp->njk] = i, nlp->jk_b[nlp->njk] = next;
        nlp->jk_w[nlp->njk++] = b->ow / (nlp->blocks[next].t - b->t);
    }

    // rows, bases, Jacobian pattern
    long row = 0, nnz = 0;
    for (int i = 0; i < nlp->nblock; i++) {
        block* b = &nlp->blocks[i];
        b->row0 = (int)row;
        row += b->nrows;
        b->first = salto_bspline_basis_side(&nlp->spline, b->t, b->side, b->N, b->dN, b->ddN);
        if (b->impact) nlp_impact_basis(nlp, b);
        nlp_time_block(nlp, b);
        b->jac0 = (int)nnz;
        b->nnz = 4 * (b->diag ? b->nrows : b->nrows * b->ndep);
        for (int r = 0; r < b->nrows; r++) b->nnz += (row_aux(b, r) >= 0) + b->nxaux + b->ntc;
        nnz += b->nnz;
        if (nnz > INT_MAX / 2 || row > INT_MAX / 2) {
            SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(),
                       "%s: the NLP is too large (over a billion Jacobian entries); use fewer "
                       "slices or control points",
                       p->path);
            goto fail;
        }
    }
    nlp->ng = (int)row;
    nlp->nnz_jac = (int)nnz;
    for (int i = nlp->nblock; i < nlp->nblock + nlp->nobjblk; i++) {
        block* b = &nlp->blocks[i];
        b->row0 = (int)row + nlp->nobjrow;
        b->jac0 = -1;
        nlp->nobjrow += b->nrows;
    }
    nlp->lam_ext = salto_malloc((size_t)(row + nlp->nobjrow + 1) * sizeof(double));
    if (!nlp->lam_ext) goto nomem;
    nlp->jac_row = salto_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int));
    nlp->jac_col = salto_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int));
    nlp->g_lo = salto_malloc((size_t)(row > 0 ? row : 1) * sizeof(double));
    nlp->g_hi = salto_malloc((size_t)(row > 0 ? row : 1) * sizeof(double));
    nlp->x_lo = salto_malloc((size_t)nlp->nx * sizeof(double));
    nlp->x_hi = salto_malloc((size_t)nlp->nx * sizeof(double));
    if (!nlp->jac_row || !nlp->jac_col || !nlp->g_lo || !nlp->g_hi || !nlp->x_lo || !nlp->x_hi) {
        goto nomem;
    }
    for (int i = 0; i < nlp->nblock; i++) {
        const block* b = &nlp->blocks[i];
        const int* dep = nlp->dep + b->dep0;
        int e = b->jac0;
        for (int r = 0; r < b->nrows; r++) {
            // a DOF's four columns are consecutive; deps ascend, so columns ascend
            const int j0 = b->diag ? r : 0;
            const int j1 = b->diag ? r + 1 : b->ndep;
            for (int jj = j0; jj < j1; jj++) {
                for (int k = 0; k < 4; k++, e++) {
                    nlp->jac_row[e] = b->row0 + r;
                    nlp->jac_col[e] = dep[jj] * nlp->ncp + b->first + k;
                }
            }
            // a place variable comes after every control point
            if (row_aux(b, r) >= 0) nlp->jac_row[e] = b->row0 + r, nlp->jac_col[e++] = b->aux[r];
            // the effective root's place variables (ascending, after any control point)
            for (int a = 0; a < b->nxaux; a++) nlp->jac_row[e] = b->row0 + r, nlp->jac_col[e++] = b->xaux[a];
            // the free durations the row depends on (nlp_time.c)
            for (int t = 0; t < b->ntc; t++) nlp->jac_row[e] = b->row0 + r, nlp->jac_col[e++] = b->tc[t];
        }
        // bounds: equalities, except the ground clearance (g >= height) and the contact
        // inequalities (see nlp_physics_rows)
        for (int r = 0; r < b->nrows; r++) {
            double lo = 0.0, hi = 0.0;
            if (b->con >= 0) {
                const salto_constraint_desc* cd = &p->cons[b->con];
                if (cd->type == SALTO_CON_ABOVE_GROUND) lo = cd->height, hi = NLP_INF;
                if (cd->type == SALTO_CON_CLEAR_BAR || cd->type == SALTO_CON_CLEAR_BOX) hi = NLP_INF; // the distance less the radii >= 0
                if (cd->type == SALTO_CON_SITE_ABOVE || cd->type == SALTO_CON_COM_ABOVE) hi = NLP_INF;
                if (cd->type == SALTO_CON_JOINT_RANGE) {
                    const double* lh = cd->value + 2 * r;
                    lo = isfinite(lh[0]) ? lh[0] : -NLP_INF;
                    hi = isfinite(lh[1]) ? lh[1] : NLP_INF;
                }
                if (cd->type == SALTO_CON_SITE_IN_BOX || cd->type == SALTO_CON_COM_IN_BOX) {
                    const int k = b->comp[r];
                    lo = isfinite(cd->lo[k]) ? cd->lo[k] : -NLP_INF;
                    hi = isfinite(cd->hi[k]) ? cd->hi[k] : NLP_INF;
                }
                // a held sole level across its sites' line within NLP_LEVEL_BAND, not exactly:
                // with an ankle that cannot roll (the humanoid's), two soles held flat leave the
                // legs one freedom short, the level rows and the heels' lateral rows become
                // dependent where the legs are straight, and IPOPT's multipliers grew to 1e13
                // (the two-foot jumps stalled for a thousand iterations); a band keeps a sole
                // within a degree of flat (its edge 0.8 mm off the floor on the humanoid's 9 cm
                // sole) and leaves the equalities independent
                if (cd->type == SALTO_CON_BODY_LEVEL) lo = -NLP_LEVEL_BAND, hi = NLP_LEVEL_BAND;
            } else if (b->torque) {
                const int j = nlp->tq_dof[r];
                lo = m->link_torque[2 * j], hi = m->link_torque[2 * j + 1];
            } else if (b->junc) {
                // the velocity joined: lo = hi = 0
            } else if (b->impact) {
                // the joints' impulses vanish; the aggregate impulse's rows as on the ground,
                // its normal part unbounded above (force_max bounds a force, not an impulse)
                if (r >= nlp->nv - m->nroot) lo = 0.0, hi = NLP_INF;
            } else {
                const salto_contact_desc* ct = &p->phases[b->phase].contact;
                if (ct->type == SALTO_CONTACT_BAR) {
                    lo = -ct->torque_max, hi = ct->torque_max;
                } else if (ct->type == SALTO_CONTACT_GROUND) {
                    lo = 0.0, hi = r == 0 ? ct->force_max : NLP_INF;
                }
            }
            nlp->g_lo[b->row0 + r] = lo;
            nlp->g_hi[b->row0 + r] = hi;
        }
    }

    // variable bounds: joint limits hold at all times if they hold for the control points
    // (a B-spline stays in the convex hull of its control points)
    int limits = 0;
    for (int c = 0; c < p->ncon; c++) limits |= p->cons[c].type == SALTO_CON_JOINT_LIMITS;
    for (int i = nlp->ncpv; i < nlp->nx; i++) nlp->x_lo[i] = -NLP_INF, nlp->x_hi[i] = NLP_INF;
    for (int i = 0; i < p->nphase; i++) {
        if (nlp->tvar[i] < 0) continue;
        nlp->x_lo[nlp->tvar[i]] = p->phases[i].dur_min;
        nlp->x_hi[nlp->tvar[i]] = p->phases[i].dur_max;
    }
    // a site held on a box: its place (along x, and y in 3-D: the top face's tangents) on the
    // top face; on a turned box, within the largest rectangle along x and y of the face's
    // proportions that fits inside it (its half sizes k hx, k hy), a bound on the variables
    for (int c = 0; c < p->ncon; c++) {
        const salto_constraint_desc* cd = &p->cons[c];
        if (cd->type != SALTO_CON_SITE_HOLD || nlp->con_aux[c] < 0) continue;
        const salto_contact_desc* ct = &p->phases[cd->hold_phase - 1].contact;
        int box = -1;
        for (int k = 0; k < ct->nsite; k++) box = ct->site[k] == cd->site ? ct->site_box[k] : box;
        if (box < 0) continue;
        const salto_box_desc* bx = &p->boxes[box];
        const double hx = 0.5 * (bx->hi[0] - bx->lo[0]), hy = 0.5 * (bx->hi[1] - bx->lo[1]);
        const double cy = fabs(cos(bx->yaw)), sy = fabs(sin(bx->yaw));
        const double k = bx->yaw == 0.0 ? 1.0 : fmin(hx / (hx * cy + hy * sy), hy / (hx * sy + hy * cy));
        const double half[2] = {k * hx, k * hy};
        for (int a = 0; a < (nlp->planar ? 1 : 2); a++) {
            const double mid = 0.5 * (bx->lo[a] + bx->hi[a]);
            nlp->x_lo[nlp->con_aux[c] + a] = bx->yaw == 0.0 ? bx->lo[a] : mid - half[a];
            nlp->x_hi[nlp->con_aux[c] + a] = bx->yaw == 0.0 ? bx->hi[a] : mid + half[a];
        }
    }
    for (int j = 0; j < nlp->nv; j++) {
        const int lim = limits && m->link_has_limits[j];
        for (int a = 0; a < nlp->ncp; a++) {
            nlp->x_lo[j * nlp->ncp + a] = lim ? m->link_limits[2 * j] : -NLP_INF;
            nlp->x_hi[j * nlp->ncp + a] = lim ? m->link_limits[2 * j + 1] : NLP_INF;
        }
    }

    // objective: w sum_j (m_sub,j / M)^2 int qdd_j^2 dt (Fang & Pollard eq. 20, with the
    // subtended mass as a fraction of the whole), whose Hessian is the constant banded Gram
    // matrix of the basis' second derivatives. The paper leaves the root DOFs out, as physics
    // determines them; here they count with their subtended mass, the whole body
    // (ROOT_WEIGHT): a kinematic problem does not fix the root at all, and a grip on a bar
    // leaves the body free to spin between the slices (a monkey-bars solution turned four
    // times in two seconds without it). RHO int q^2 dt on every DOF only picks, among equally
    // good motions, the one nearest the zero posture.
    const double ROOT_WEIGHT = 1.0, RHO = 1e-6;
    nlp->obj.G = salto_malloc(7 * (size_t)nlp->ncp * sizeof(double));
    nlp->obj.G0 = salto_malloc(7 * (size_t)nlp->ncp * sizeof(double));
    nlp->obj.w = salto_calloc((size_t)nlp->nv, sizeof(double));
    nlp->msub = salto_calloc((size_t)nlp->nv, sizeof(double));
    if (!nlp->obj.G || !nlp->obj.G0 || !nlp->obj.w || !nlp->msub) goto nomem;
    salto_bspline_gram(&nlp->spline, 2, nlp->obj.G);
    salto_bspline_gram(&nlp->spline, 0, nlp->obj.G0);
    for (int j = nlp->nv - 1; j >= 0; j--) {
        nlp->msub[j] += m->link_inertia[10 * j];
        if (m->link_parent[j] >= 0) nlp->msub[m->link_parent[j]] += nlp->msub[j];
    }
    double wsum = 0.0;
    for (int k = 0; k < p->nobj; k++) {
        if (p->objs[k].type == SALTO_OBJ_ACCELERATION) wsum += p->objs[k].weight;
    }
    for (int j = 0; j < nlp->nv; j++) {
        const double om = j < m->nroot ? ROOT_WEIGHT : nlp->msub[j] / m->mass;
        nlp->obj.w[j] = wsum * om * om;
    }
    nlp->obj.rho = wsum * RHO + nlp->obj.ref_w;
    nlp->obj.dofs = wsum > 0.0 || nlp->obj.ref_w > 0.0 ? nlp->nv : 0;
    if (nlp_time_layout(nlp) != SALTO_OK) goto nomem;
    {
        const salto_status st = nlp_build_hessian_pattern(nlp, err);
        if (st == SALTO_ERR_NOMEM) goto nomem;
        if (st != SALTO_OK) goto fail;
    }

    // evaluation scratch
    nlp->ev.d = salto_data_create(m);
    nlp->ev.J3 = salto_malloc(3 * (size_t)nlp->nv * sizeof(double));
    // rows a block may have: 8 (a 3-D ground contact), or an impact's up to nv + 8
    const size_t maxrows = 8 + (size_t)nlp->nv;
    nlp->ev.dq = salto_malloc(maxrows * (size_t)nlp->nv * sizeof(double));
    nlp->ev.dqd = salto_malloc(maxrows * (size_t)nlp->nv * sizeof(double));
    nlp->ev.dqdd = salto_calloc(maxrows * (size_t)nlp->nv, sizeof(double));
    nlp->ev.Jf = salto_malloc(18 * (size_t)nlp->nv * sizeof(double));
    nlp->ev.sums = salto_malloc(7 * (size_t)nlp->nv * sizeof(double));
    nlp->hess.xs = salto_malloc((size_t)nlp->nx * sizeof(double));
    nlp->hess.acc = -1;
    nlp->hess.Jp = salto_malloc(2 * 8 * 4 * (size_t)nlp->nv * sizeof(double));
    {
        const size_t ns = 3 * (size_t)nlp->nv + NXAUX, nu = 4 * (size_t)nlp->nv + NXAUX;
        nlp->hess.Sacc = salto_malloc(ns * ns * sizeof(double));
        nlp->hess.Sl = salto_malloc(ns * ns * sizeof(double));
        nlp->hess.Tl = salto_malloc(ns * nu * sizeof(double));
    }
    nlp->root.J = salto_malloc(3 * (size_t)nlp->nv * sizeof(double));
    nlp->root.Dv = salto_malloc(3 * (size_t)nlp->nv * sizeof(double));
    nlp->root.Daq = salto_malloc(3 * (size_t)nlp->nv * sizeof(double));
    nlp->root.Daqd = salto_malloc(3 * (size_t)nlp->nv * sizeof(double));
    nlp->root.aJ = salto_malloc(4 * 3 * (size_t)nlp->nv * sizeof(double));
    if (nlp->root.aJ) {
        nlp->root.aV = nlp->root.aJ + 3 * nlp->nv;
        nlp->root.aAq = nlp->root.aV + 3 * nlp->nv;
        nlp->root.aAqd = nlp->root.aAq + 3 * nlp->nv;
    }
    nlp->ev.daux = salto_calloc(maxrows * NXAUX, sizeof(double)); // an impact's rows: nv + 8
    nlp->ev.fq = salto_malloc(3 * (size_t)nlp->nv * sizeof(double));
    nlp->ev.imp = salto_malloc((5 * (size_t)nlp->nv + 32) * sizeof(double));
    nlp->ev.Jt = salto_malloc((size_t)nlp->nv * 3 * (size_t)nlp->nv * sizeof(double));
    nlp->ev.tq = salto_malloc((size_t)nlp->nv * sizeof(double));
    nlp->ev.og = salto_malloc(2 * (size_t)nlp->nv * sizeof(double));
    nlp->ev.tq_under = salto_malloc((size_t)nlp->nv * sizeof(int));
    nlp->ev.wjac = salto_malloc((8 * 6 * 3 * (size_t)nlp->nv + 8 * 3 * (size_t)nlp->nv) * sizeof(double));
    nlp->hess.Ql = salto_malloc((size_t)nlp->nv * (size_t)nlp->nv * sizeof(double));
    nlp->hess.fw = salto_malloc(72 * (size_t)nlp->nv * sizeof(double));
    nlp->hess.map = salto_malloc((size_t)nlp->nv * sizeof(int));
    nlp->hess.map2 = salto_malloc((size_t)nlp->nv * sizeof(int));
    nlp->hess.path = salto_malloc((4 * (size_t)nlp->nv + 2 * NXAUX) * sizeof(int));
    nlp->hess.pv = salto_malloc(6 * (size_t)nlp->nv * sizeof(double));
    nlp->hess.Hf = salto_malloc(9 * (size_t)nlp->nv * (size_t)nlp->nv * sizeof(double));
    nlp->hess.tw = salto_malloc((72 * (size_t)nlp->nv + (size_t)nlp->nv * (size_t)nlp->nv) * sizeof(double));
    nlp->hess.H2 = salto_malloc(9 * (size_t)nlp->nv * (size_t)nlp->nv * sizeof(double));
    nlp->hess.tg = salto_malloc(24 * (size_t)nlp->nv * sizeof(double));
    nlp->hess.Er = salto_malloc((18 * (3 * (size_t)nlp->nv + NXAUX) + 18 * (size_t)nlp->nv) * sizeof(double));
    nlp->hess.Jb = salto_malloc((27 * (size_t)nlp->nv + (size_t)nlp->nv * (size_t)nlp->nv + 6 * NXAUX) * sizeof(double));
    nlp->hess.grp = salto_malloc((size_t)(nlp->nblock + 1) * sizeof(int));
    nlp->hess.grp_at = salto_malloc((size_t)(nlp->nblock + 1) * sizeof(size_t));
    // the Hessian's groups (salto_nlp_eval_hess): runs of blocks at one time and side
    for (int i = 0; i < nlp->nblock;) {
        const block* b = &nlp->blocks[i];
        int i1 = i + 1;
        while (i1 < nlp->nblock && nlp->blocks[i1].t == b->t && nlp->blocks[i1].side == b->side &&
               nlp->blocks[i1].first == b->first) {
            i1++;
        }
        size_t need = 0;
        for (int k = i; k < i1; k++) {
            const size_t nd = (size_t)nlp->blocks[k].ndep;
            const size_t ns = 3 * nd + (size_t)nlp->blocks[k].nxaux;
            if (nlp->blocks[k].con >= 0 && nlp->hess.blk0[k] >= 0) need += ns + ns * ns;
        }
        if (need > nlp->hess.grp_cap) nlp->hess.grp_cap = need;
        i = i1;
    }
    nlp->hess.arena = salto_malloc((nlp->hess.grp_cap + 1) * sizeof(double));
    if (!nlp->ev.d || !nlp->ev.J3 || !nlp->ev.dq || !nlp->ev.dqd || !nlp->ev.dqdd || !nlp->ev.Jf || !nlp->ev.sums ||
        !nlp->hess.xs || !nlp->hess.Jp ||
        !nlp->hess.Sacc || !nlp->hess.Sl || !nlp->hess.Tl || !nlp->hess.Ql || !nlp->hess.fw || !nlp->hess.map || !nlp->hess.map2 || !nlp->hess.path || !nlp->hess.pv || !nlp->hess.Hf || !nlp->hess.tw || !nlp->hess.H2 || !nlp->hess.tg || !nlp->hess.Er || !nlp->hess.Jb || !nlp->hess.grp || !nlp->hess.grp_at || !nlp->hess.arena ||
        !nlp->root.J || !nlp->root.Dv || !nlp->root.Daq || !nlp->root.Daqd || !nlp->root.aJ || !nlp->ev.daux || !nlp->ev.fq ||
        !nlp->ev.imp || !nlp->ev.Jt || !nlp->ev.tq || !nlp->ev.og || !nlp->ev.tq_under || !nlp->ev.wjac) {
        goto nomem;
    }
    return nlp;

nomem:
    SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory building the NLP");
fail:
    salto_nlp_destroy(nlp);
    return NULL;
}



int salto_nlp_nx(const salto_nlp* nlp) { return nlp->nx; }
int salto_nlp_ng(const salto_nlp* nlp) { return nlp->ng; }
int salto_nlp_nnz_jac(const salto_nlp* nlp) { return nlp->nnz_jac; }
int salto_nlp_nnz_hess(const salto_nlp* nlp) { return nlp->nnz_hess; }
const salto_problem_desc* salto_nlp_problem(const salto_nlp* nlp) { return nlp->p; }
const salto_bspline* salto_nlp_spline(const salto_nlp* nlp) { return &nlp->spline; }


void salto_nlp_bounds(const salto_nlp* nlp, double* x_lo, double* x_hi, double* g_lo,
                      double* g_hi) {
    if (x_lo) memcpy(x_lo, nlp->x_lo, (size_t)nlp->nx * sizeof(double));
    if (x_hi) memcpy(x_hi, nlp->x_hi, (size_t)nlp->nx * sizeof(double));
    if (g_lo && nlp->ng) memcpy(g_lo, nlp->g_lo, (size_t)nlp->ng * sizeof(double));
    if (g_hi && nlp->ng) memcpy(g_hi, nlp->g_hi, (size_t)nlp->ng * sizeof(double));
}


void salto_nlp_set_row_bounds(salto_nlp* nlp, int n, const int* rows, const double* lo,
                              const double* hi) {
    for (int k = 0; k < n; k++) {
        if (rows[k] < 0 || rows[k] >= nlp->ng) continue;
        nlp->g_lo[rows[k]] = lo ? lo[k] : -NLP_INF;
        nlp->g_hi[rows[k]] = hi ? hi[k] : NLP_INF;
    }
}


void salto_nlp_jac_pattern(const salto_nlp* nlp, int* rows, int* cols) {
    memcpy(rows, nlp->jac_row, (size_t)nlp->nnz_jac * sizeof(int));
    memcpy(cols, nlp->jac_col, (size_t)nlp->nnz_jac * sizeof(int));
}
