// nlp.c: the spacetime problem as a sparse NLP: layout, bounds, initial guess, evaluations
//
// Each constraint expands into blocks, one per evaluation time (its time, or every slice of
// its phase, or every slice). A block's rows depend on the q (and qd) of a set of DOFs at that
// time; with the four non-zero B-spline basis functions N_k (dN_k for qd) at the time, the
// derivative of a row with respect to control point first + k of DOF j is
//   dr/dq_j N_k + dr/dqd_j dN_k,
// so the Jacobian pattern is (row) x (dep DOFs) x (4 control points), built once. Blocks are
// sorted by time, and the kinematics are computed once per distinct time.
#include "salto/nlp.h"

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
#include "salto/motion.h"
#include "salto/spatial.h"
#include "salto/validate.h"

#define NLP_INF 1e20
#define NXAUX 6 // place variables a block's rows may all depend on (a 3-D flight's c0, v0)

typedef struct block {
    int con;             // constraint index in the problem; -1 for a physics block
    int phase;           // physics block: the phase whose contact it enforces; else -1
    double t;            // evaluation time, s
    int side;            // -1: the limit from the left at t (a phase's last slice), else +1
    int first;           // first control point of the four non-zero basis functions at t
    double N[4], dN[4], ddN[4]; // basis values and first and second time derivatives at t
    int row0, nrows;     // rows [row0, row0 + nrows)
    int diag;            // 1: row r depends on dep[r] only; 0: every row on all deps
    int ndep;            // DOFs the rows depend on
    int dep0;            // first entry in nlp->dep
    int jac0;            // first Jacobian entry
    int comp[3];         // component of each row (0, 1, 2), for names and site rows
    double e[3][3];      // projection direction of each row (on_line, on_plane)
    int link;            // above_ground: link of the point (-1: world); site rows: unused
    double point[3];     // above_ground: the point in the link frame
    double offset;       // above_ground: radius below the point
    int aux[6];          // site_hold, a flight's momentum rows: the variable each row's place
                         //   or constant is, entering with -1 (-1: a fixed target, none)
    double target[3];    //   and the fixed targets
    int er;              // phase whose effective root the rows see (-1: the splines as they are)
    int nxaux;           //   and its place variables, on which every row then depends
    int xaux[NXAUX];
    int nnz;             // Jacobian entries
    int seq;             // the order the blocks were made in (the sort's last tie-break)
    int impact;          // 1: the impact at the start of phase `phase` (a physics block by
                         //   con = -1): N picks q (the control point the C0 spline passes
                         //   through), ddN the velocity's jump u = qd+ - qd- (impact_rows)
} block;

// Fang & Pollard's effective root (Appendix C) in a phase whose contact holds its sites: the
// root's world translation is not read from its splines but follows the first held site, so
// that the site stays exactly at its place P: q_T = a . (P - g), qd_T = -a . g', qdd_T =
// -a . g'', with g, g', g'' the site's position, velocity and acceleration with the
// translation at zero (a translation moves every point alike), a the translation DOFs' world
// axes and P from the hold's rows (place variables and fixed targets).
typedef struct eroot {
    int site;            // the held site, -1 when the phase has no effective root
    int nt;              // translation DOFs (the root's first, prismatic, world-fixed axes)
    int tdof[3];
    double a[3][3];      //   their world axes
    int nr;              // the hold's rows: a_j . P = sum_r c[j][r] place_r
    double c[3][3];
    int aux[3];          //   row r's place variable, or -1 for its fixed target
    double target[3];
    int naux;            // the distinct place variables, ascending
    int auxv[3];
} eroot;

struct salto_nlp {
    const salto_problem_desc* p;
    const salto_model* m;
    salto_bspline spline;
    int nv, ncp, nx, ng, nnz_jac, nnz_hess;
    int planar;              // salto_model_is_planar, once
    int ncpv;                // control-point variables, nv ncp; the contact places follow
    int naux;                //   (site_hold), nx = ncpv + naux
    int* con_aux;            // first place variable of each constraint, -1 for none (ncon)
    int nblock;
    block* blocks;           // (nblock), sorted by time
    int* dep;                // dependency lists of the blocks
    int* jac_row;            // (nnz_jac)
    int* jac_col;            // (nnz_jac)
    double* g_lo;            // (ng)
    double* g_hi;            // (ng)
    double* x_lo;            // (nx)
    double* x_hi;            // (nx)
    double* hess_G;          // banded Gram matrix of second derivatives (7 ncp)
    double* hess_G0;         // banded Gram matrix of values (7 ncp)
    double* obj_w;           // per-DOF objective weight w omega_j^2 (nv)
    double obj_rho;          // weight of the regularisation int q^2 dt (every DOF)
    double ref_w;            // weight of the reference term int (q - q_R)^2 dt (eq. 21)
    double* ref_b;           // its linear part int N_a q_R,j dt                (nv x ncp)
    double ref_c;            // and its constant part sum_j int q_R,j^2 dt
    salto_motion* warm;      // the warm-start motion, or NULL
    double* msub;            // mass of each link's subtree, kg (nv)
    int hess_dofs;           // DOFs with a non-zero objective weight (0 or nv)
    int* hess_row;           // Lagrangian Hessian pattern, lower triangle (nnz_hess)
    int* hess_col;           //                                             (nnz_hess)
    int* hess_obj;           // pattern index of each objective band entry
    int* hess_blk;           // pattern indices of the blocks' dense lower triangles
    int* blk_hess0;          // first entry of each block in hess_blk, -1 if linear (nblock)
    double* xs;              // a copy of x for differences (nx)
    double* Jp;              // a block's Jacobian rows at x + h and x - h (2 x 3 x 4 nv)
    double* Hl;              // a block's dense Hessian (4 nv)^2
    double* Sl;              // its Hessian in the state (3 nv)^2
    double* Tl;              // and that times the state map (3 nv x 4 nv)
    double* Ql;              // the friction cone's qdd-qdd part (nv x nv)
    int* grp;                // the blocks of one time and side whose Hessians are taken together
    size_t* grp_at;          //   and where each one's gradient and state Hessian start in arena
    double* arena;           //   (grp_cap doubles: the largest such group's sum of 3 nd + 9 nd^2)
    size_t grp_cap;
    int hess_linear;         // 1 while the Hessian differences Jacobians: physics rows by the
                             //   linear-time method whatever solver.derivatives says
    // evaluation scratch
    salto_data* d;
    double* J3;              // a point Jacobian, 3 x nv
    double* dq;              // row derivatives of one block (3 x nv)
    double* dqd;             // (8 x nv)
    double* dqdd;            // (8 x nv), physics rows only
    double* Jf;              // the aggregate force's Jacobian, 6 x 3 nv
    double* sums;            // com helper: m, h (3), Hf (3) per link (nv x 7)
    double last_t;           // time of the kinematics in d
    const double* last_x;    // and the x they were computed from
    int have_state;
    int last_er;             // the effective root (phase) of the kinematics in d, -1 for none
    eroot* er;               // per phase                                               (nphase)
    double* erJ;             // at the last er_state: the held site's Jacobian          (3 x nv)
    double* erDv;            //   its velocity's derivative in q                        (3 x nv)
    double* erDaq;           //   its acceleration's in q and qd                        (3 x nv)
    double* erDaqd;          //                                                         (3 x nv)
    double* daux;            // a block's row derivatives in its place variables        (8 x NXAUX)
    double* fq;              // full-width rows for the chain rule                      (3 x nv)
    double* imp;             // an impact's scratch: q, u, rows, a unit jump    (5 nv + 16)
    int* bal;                // per phase: first place variable (c0 then v0, nt each) of a
                             //   ballistic flight's parabola, -1 for none            (nphase)
    int* mom;                // per phase: first place variable of a flight's momentum
                             //   constants (solver.flight_rows: momentum), -1 for none (nphase)
    int bal_nt;              // the root's translation DOFs and their world axes
    int bal_tdof[3];
    double bal_a[3][3];
    int nslice;              // (phase, time) slices, salto_problem_slices
    double* slice_t;         //   their times (nslice)
    int* slice_ph;           //   and phases (nslice)
};


static salto_status build_hessian_pattern(salto_nlp* nlp);


// the physics rows of flight phase ph: f0 (planar n_y, f_x, f_z) or its momentum, a ballistic
// flight's torque or angular momentum about the centre of mass alone (planar: about y)
static int flight_nrows(const salto_nlp* nlp, int ph) {
    return nlp->bal[ph] >= 0 ? (nlp->planar ? 1 : 3) : (nlp->planar ? 3 : 6);
}
static void knots_per_phase(const salto_nlp* nlp, int* n);
static void impact_basis(const salto_nlp* nlp, block* b);


// the place variable of row r of block b (site_hold rows only), -1 for none
static int row_aux(const block* b, int r) { return r < 6 ? b->aux[r] : -1; }




// ---- layout ----

typedef struct builder {
    salto_nlp* nlp;
    int cap_block;
    int ndep, cap_dep;
    int* dep;
} builder;


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
static int hold_rows(const salto_problem_desc* p, const salto_constraint_desc* cd, int planar,
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


// 1 if a phase containing t (its ends included) holds a site of body on the ground: the hold
// keeps that body's sole on the floor, and clearance rows for its geometry would restate it
// (an active inequality on top of equalities, which stalls the solver)
static int held_on_ground(const salto_problem_desc* p, const salto_model* m, int body, double t) {
    for (int i = 0; i < p->nphase; i++) {
        const salto_phase_desc* ph = &p->phases[i];
        const salto_contact_desc* ct = &ph->contact;
        if (ct->type != SALTO_CONTACT_GROUND || !ct->hold) continue;
        if (t < ph->start - 1e-12 || t > ph->start + ph->duration + 1e-12) continue;
        for (int k = 0; k < ct->nsite; k++) {
            if (m->site_body[ct->site[k]] == body) return 1;
        }
    }
    return 0;
}


// ---- the effective root ----

// the phase whose inside (its ends excluded) holds t; -1 at a boundary or outside
static int phase_inside(const salto_problem_desc* p, double t) {
    const int k = salto_problem_phase_at(p, t);
    if (k < 0) return -1;
    const double t0 = p->phases[k].start, t1 = t0 + p->phases[k].duration;
    return t > t0 + 1e-12 && t < t1 - 1e-12 ? k : -1;
}


// a ballistic flight's parabola rows (the centre of mass, its velocity)
static int is_parabola(salto_constraint_type t) {
    return t == SALTO_CON_COM_PARABOLA || t == SALTO_CON_COM_PARABOLA_VEL;
}


// the phase with an effective root whose inside (its ends excluded) holds t; -1 for none
static int er_phase_at(const salto_nlp* nlp, double t) {
    const int k = phase_inside(nlp->p, t);
    return k >= 0 && nlp->er[k].site >= 0 ? k : -1;
}

// the effective root of every held phase (eroot): the first held site, the root's translation
// DOFs and the hold's rows; none where the root has no world-fixed translation to move (a
// fixed root) or the hold's rows do not span it
static void setup_eroots(salto_nlp* nlp) {
    const salto_problem_desc* p = nlp->p;
    const salto_model* m = nlp->m;
    for (int i = 0; i < p->nphase; i++) {
        eroot* e = &nlp->er[i];
        e->site = -1;
        const salto_contact_desc* ct = &p->phases[i].contact;
        if (ct->type == SALTO_CONTACT_NONE || !ct->hold || ct->nsite == 0 || !ct->effective_root) continue;
        int c = -1;
        for (int k = 0; k < p->ncon && c < 0; k++) {
            const salto_constraint_desc* cd = &p->cons[k];
            if (cd->type == SALTO_CON_SITE_HOLD && cd->hold_phase == i + 1 && cd->site == ct->site[0]) c = k;
        }
        if (c < 0) continue;
        e->nt = salto_model_root_translation(m, e->tdof, e->a);
        if (e->nt != (nlp->planar ? 2 : 3)) continue;
        double rows[3][3];
        int is_aux[3], naux = 0;
        e->nr = hold_rows(p, &p->cons[c], nlp->planar, rows, is_aux, e->target, &naux);
        int ok = 1;
        for (int j = 0; j < e->nt; j++) {
            double sum = 0.0;
            for (int r = 0; r < e->nr; r++) {
                e->c[j][r] = salto_v3_dot(e->a[j], rows[r]);
                sum += e->c[j][r] * e->c[j][r];
            }
            ok &= fabs(sum - 1.0) < 1e-9; // the axis lies in the rows' span
        }
        if (!ok) continue;
        e->naux = 0;
        for (int r = 0; r < e->nr; r++) {
            e->aux[r] = is_aux[r] ? nlp->con_aux[c] + e->naux : -1;
            if (is_aux[r]) e->auxv[e->naux++] = e->aux[r];
        }
        e->site = ct->site[0];
    }
}


static int cmp_int(const void* a, const void* b) {
    const int x = *(const int*)a, y = *(const int*)b;
    return (x > y) - (x < y);
}


// which blocks see an effective root: a physics block of a phase that has one; another block
// strictly inside such a phase that reads the translation, unless it is one of the hold's
// own rows (which tie the splines to the contact) or a pose or velocity (which read the
// splines); those gain the held site's path as dependencies, and the place variables
static salto_status assign_eroots(salto_nlp* nlp, builder* B) {
    const salto_problem_desc* p = nlp->p;
    const salto_model* m = nlp->m;
    int* dep = salto_malloc((size_t)(B->ndep + nlp->nblock * nlp->nv + 1) * sizeof(int));
    if (!dep) return SALTO_ERR_NOMEM;
    int n = 0;
    for (int i = 0; i < nlp->nblock; i++) {
        block* b = &nlp->blocks[i];
        const int* old = B->dep + b->dep0;
        int ph = -1;
        if (b->impact) {
            ph = -1; // at the boundary: the splines as they are
        } else if (b->con < 0) {
            ph = nlp->er[b->phase].site >= 0 ? b->phase : -1;
        } else {
            const salto_constraint_desc* cd = &p->cons[b->con];
            if (cd->hold_phase == 0 && cd->type != SALTO_CON_POSE && cd->type != SALTO_CON_VELOCITY) {
                ph = er_phase_at(nlp, b->t);
            }
        }
        if (ph >= 0) {
            int reads = 0; // does the block read a translation DOF?
            for (int jj = 0; jj < b->ndep && !reads; jj++) {
                for (int t = 0; t < nlp->er[ph].nt; t++) reads |= old[jj] == nlp->er[ph].tdof[t];
            }
            if (!reads) ph = -1;
        }
        const int start = n;
        for (int jj = 0; jj < b->ndep; jj++) dep[n++] = old[jj];
        b->er = ph;
        b->nxaux = 0;
        if (ph >= 0) {
            const eroot* e = &nlp->er[ph];
            b->nxaux = e->naux;
            for (int a = 0; a < e->naux; a++) b->xaux[a] = e->auxv[a];
            if (b->con >= 0) {
                // the held site's path, merged in ascending order
                for (int j = m->site_link[e->site]; j >= 0; j = m->link_parent[j]) dep[n++] = j;
                qsort(dep + start, (size_t)(n - start), sizeof(int), cmp_int);
                int u = start;
                for (int k = start; k < n; k++) {
                    if (k == start || dep[k] != dep[u - 1]) dep[u++] = dep[k];
                }
                n = u;
            }
        }
        if (b->con >= 0 && is_parabola(p->cons[b->con].type)) {
            // the parabola's c0 and v0, on which each row depends
            const int base = nlp->bal[p->cons[b->con].phase];
            b->nxaux = 2 * nlp->bal_nt;
            for (int a = 0; a < b->nxaux; a++) b->xaux[a] = base + a;
        }
        b->dep0 = start;
        b->ndep = n - start;
        SALTO_ASSERT(b->nxaux == 0 || b->nrows <= 8); // nlp->daux holds 8 rows' place derivatives
    }
    salto_free(B->dep);
    B->dep = dep;
    B->ndep = n;
    B->cap_dep = n;
    return SALTO_OK;
}


// The state of phase ph's effective root in nlp->d: d->q, d->qd (and d->qdd at SALTO_FK_ACC)
// hold the splines' values; the translation is replaced by the one that keeps the held site at
// its place under x, and with derivs the site's Jacobian and derivatives are left in erJ, erDv
// (and erDaq, erDaqd) for er_chain. The kinematics in d are then the new state's (at VEL; at
// ACC the caller's dynamics recompute them).
static void er_state(const salto_nlp* nlp, const double* x, int ph, salto_fk_level level,
                     int derivs) {
    const eroot* e = &nlp->er[ph];
    const salto_model* m = nlp->m;
    salto_data* d = nlp->d;
    for (int j = 0; j < e->nt; j++) {
        d->q[e->tdof[j]] = 0.0;
        d->qd[e->tdof[j]] = 0.0;
        if (level == SALTO_FK_ACC) d->qdd[e->tdof[j]] = 0.0;
    }
    salto_fk(m, d, level);
    double g[3], gv[3], ga[3] = {0, 0, 0};
    salto_site_pos(m, d, e->site, g);
    salto_site_vel(m, d, e->site, gv);
    if (level == SALTO_FK_ACC) salto_site_acc(m, d, e->site, ga);
    if (derivs) {
        salto_site_jac(m, d, e->site, nlp->erJ);
        const int acc = level == SALTO_FK_ACC;
        salto_site_motion_deriv(m, d, e->site, nlp->erDv, acc ? nlp->erDaq : NULL,
                                acc ? nlp->erDaqd : NULL);
    }
    for (int j = 0; j < e->nt; j++) {
        double P = 0.0;
        for (int r = 0; r < e->nr; r++) P += e->c[j][r] * (e->aux[r] >= 0 ? x[e->aux[r]] : e->target[r]);
        d->q[e->tdof[j]] = P - salto_v3_dot(e->a[j], g);
        d->qd[e->tdof[j]] = -salto_v3_dot(e->a[j], gv);
        if (level == SALTO_FK_ACC) d->qdd[e->tdof[j]] = -salto_v3_dot(e->a[j], ga);
    }
    if (level != SALTO_FK_ACC) salto_fk(m, d, level);
}


// The chain rule through phase ph's effective root for one row: rq, rqd (and rqdd, may be
// NULL) hold its derivatives with respect to the state it was evaluated at, over all nv DOFs;
// on return they are with respect to the splines' state (the translation's entries zero), and
// raux (the root's naux place variables) has the place derivatives added. After er_state.
static void er_chain(const salto_nlp* nlp, int ph, double* rq, double* rqd, double* rqdd,
                     double* raux) {
    const eroot* e = &nlp->er[ph];
    const int nv = nlp->nv;
    for (int j = 0; j < e->nt; j++) {
        const int t = e->tdof[j];
        const double wq = rq[t], wqd = rqd[t], wqdd = rqdd ? rqdd[t] : 0.0;
        rq[t] = rqd[t] = 0.0;
        if (rqdd) rqdd[t] = 0.0;
        if (wq == 0.0 && wqd == 0.0 && wqdd == 0.0) continue;
        const double* a = e->a[j];
        for (int k = 0; k < nv; k++) {
            int is_t = 0;
            for (int i = 0; i < e->nt; i++) is_t |= e->tdof[i] == k;
            if (is_t) continue;
            const double aJ = a[0] * nlp->erJ[k] + a[1] * nlp->erJ[nv + k] + a[2] * nlp->erJ[2 * nv + k];
            const double aV = a[0] * nlp->erDv[k] + a[1] * nlp->erDv[nv + k] + a[2] * nlp->erDv[2 * nv + k];
            double aAq = 0.0, aAqd = 0.0;
            if (wqdd != 0.0) {
                aAq = a[0] * nlp->erDaq[k] + a[1] * nlp->erDaq[nv + k] + a[2] * nlp->erDaq[2 * nv + k];
                aAqd = a[0] * nlp->erDaqd[k] + a[1] * nlp->erDaqd[nv + k] + a[2] * nlp->erDaqd[2 * nv + k];
            }
            rq[k] -= wq * aJ + wqd * aV + wqdd * aAq;
            rqd[k] -= wqd * aJ + wqdd * aAqd;
            if (rqdd) rqdd[k] -= wqdd * aJ;
        }
        int na = 0;
        for (int r = 0; r < e->nr; r++) {
            if (e->aux[r] >= 0) raux[na++] += wq * e->c[j][r];
        }
    }
}


// the rows of constraint c evaluated at time t (one block, or one per geometry point)
static salto_status add_blocks_at(builder* B, int c, double t, int side) {
    salto_nlp* nlp = B->nlp;
    const salto_constraint_desc* cd = &nlp->p->cons[c];
    const salto_model* m = nlp->m;
    const int planar = nlp->planar;

    if (cd->type == SALTO_CON_ABOVE_GROUND) {
        // every geometry point that could be lowest: capsule ends, sphere centres, box corners
        for (int g = 0; g < m->ngeom; g++) {
            const double* gd = m->geom_data + 7 * g;
            double pts[8][3];
            int npt = 0;
            double off = 0.0;
            if (m->geom_shape[g] == SALTO_GEOM_CAPSULE) {
                memcpy(pts[0], gd, sizeof pts[0]);
                memcpy(pts[1], gd + 3, sizeof pts[1]);
                npt = 2;
                off = gd[6];
            } else if (m->geom_shape[g] == SALTO_GEOM_SPHERE) {
                memcpy(pts[0], gd, sizeof pts[0]);
                npt = 1;
                off = gd[6];
            } else {
                for (int k = 0; k < 8; k++) {
                    for (int a = 0; a < 3; a++) pts[k][a] = gd[a] + ((k >> a) & 1 ? gd[3 + a] : -gd[3 + a]);
                }
                npt = 8;
            }
            const int link = m->geom_link[g];
            if (link < 0) continue; // welded to the world: nothing to constrain
            if (held_on_ground(nlp->p, m, m->geom_body[g], t)) continue;
            for (int k = 0; k < npt; k++) {
                block* b = new_block(B);
                if (!b) return SALTO_ERR_NOMEM;
                b->con = c, b->t = t, b->side = side, b->nrows = 1, b->link = link, b->offset = off;
                memcpy(b->point, pts[k], sizeof b->point);
                b->comp[0] = 2;
                if (push_path(B, b, link)) return SALTO_ERR_NOMEM;
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
    case SALTO_CON_SITE_AT:
    case SALTO_CON_SITE_STILL:
        for (int k = 0; k < 3; k++) {
            if (planar && k == 1) continue;
            b->comp[b->nrows++] = k;
        }
        if (push_path(B, b, m->site_link[cd->site])) return SALTO_ERR_NOMEM;
        break;
    case SALTO_CON_SITE_HOLD: {
        int is_aux[3], naux = 0, a = 0;
        b->nrows = hold_rows(nlp->p, cd, planar, b->e, is_aux, b->target, &naux);
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
    case SALTO_CON_BODY_STILL:
        // the body's angular velocity (planar: about y only)
        for (int k = 0; k < 3; k++) {
            if (!planar || k == 1) b->comp[b->nrows++] = k;
        }
        if (push_path(B, b, m->site_link[cd->site])) return SALTO_ERR_NOMEM;
        break;
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
        memcpy(b->e[0], cd->dir, sizeof b->e[0]);
        b->nrows = 1;
        if (push_path(B, b, m->site_link[cd->site])) return SALTO_ERR_NOMEM;
        break;
    case SALTO_CON_POSE:
    case SALTO_CON_VELOCITY:
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
        // assign_eroots)
        for (int k = 0; k < nlp->bal_nt; k++) {
            b->comp[k] = k;
            memcpy(b->e[k], nlp->bal_a[k], sizeof b->e[k]);
        }
        b->nrows = nlp->bal_nt;
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


static int cmp_block(const void* a, const void* b) {
    const block* x = a;
    const block* y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    if (x->con != y->con) return x->con - y->con;
    if (x->phase != y->phase) return x->phase - y->phase;
    if (x->impact != y->impact) return x->impact - y->impact;
    return x->seq - y->seq; // qsort is not stable: one order for the same problem, always
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
    salto_motion* mo = salto_motion_load_json(path, &inner);
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
        if (!nlp->ref_b) nlp->ref_b = salto_calloc((size_t)nv * ncp, sizeof(double));
        double* q = salto_malloc((size_t)nv * sizeof(double));
        if (!nlp->ref_b || !q) {
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
                    for (int a = 0; a < 4; a++) nlp->ref_b[j * ncp + first + a] += wt * N[a] * q[j];
                    nlp->ref_c += wt * q[j] * q[j];
                }
            }
        }
        nlp->ref_w += w;
        salto_free(q);
        salto_motion_destroy(mo);
    }
    return SALTO_OK;
}


void salto_nlp_destroy(salto_nlp* nlp) {
    if (!nlp) return;
    salto_free(nlp->blocks);
    salto_free(nlp->dep);
    salto_free(nlp->jac_row);
    salto_free(nlp->jac_col);
    salto_free(nlp->g_lo);
    salto_free(nlp->g_hi);
    salto_free(nlp->x_lo);
    salto_free(nlp->x_hi);
    salto_free(nlp->hess_G);
    salto_free(nlp->hess_G0);
    salto_free(nlp->ref_b);
    salto_motion_destroy(nlp->warm);
    salto_free(nlp->hess_row);
    salto_free(nlp->hess_col);
    salto_free(nlp->hess_obj);
    salto_free(nlp->hess_blk);
    salto_free(nlp->blk_hess0);
    salto_free(nlp->xs);
    salto_free(nlp->Jp);
    salto_free(nlp->Hl);
    salto_free(nlp->Sl);
    salto_free(nlp->Tl);
    salto_free(nlp->Ql);
    salto_free(nlp->er);
    salto_free(nlp->bal);
    salto_free(nlp->mom);
    salto_free(nlp->erJ);
    salto_free(nlp->erDv);
    salto_free(nlp->erDaq);
    salto_free(nlp->erDaqd);
    salto_free(nlp->daux);
    salto_free(nlp->fq);
    salto_free(nlp->imp);
    salto_free(nlp->grp);
    salto_free(nlp->grp_at);
    salto_free(nlp->arena);
    salto_free(nlp->obj_w);
    salto_free(nlp->msub);
    salto_free(nlp->J3);
    salto_free(nlp->dq);
    salto_free(nlp->dqd);
    salto_free(nlp->dqdd);
    salto_free(nlp->Jf);
    salto_free(nlp->sums);
    salto_free(nlp->slice_t);
    salto_free(nlp->con_aux);
    salto_free(nlp->slice_ph);
    salto_data_destroy(nlp->d);
    salto_bspline_release(&nlp->spline);
    salto_free(nlp);
}


salto_nlp* salto_nlp_build(const salto_problem_desc* p, salto_error* err) {
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
        double* knots = salto_malloc((size_t)p->ncp * sizeof(double));
        if (!knots) goto nomem;
        // a warm start from a motion with as many control points and its phases' knots
        // (double knots apart): the same knots per phase, so that its control points carry
        // over when only durations changed
        int* counts = NULL;
        if (!p->phase_knots && nlp->warm && !p->junction_c2 && nlp->warm->ncp == p->ncp) {
            counts = salto_malloc((size_t)p->nphase * sizeof(int));
            if (!counts) {
                salto_free(knots);
                goto nomem;
            }
            if (!salto_motion_knot_counts(nlp->warm, p->nphase, counts)) {
                salto_free(counts);
                counts = NULL;
            }
        }
        const int nk = salto_problem_knots_from(p, counts ? counts : p->phase_knots, knots);
        salto_free(counts);
        const salto_status st = nk ? salto_bspline_init_knots(&nlp->spline, p->ncp, p->duration, knots)
                                   : salto_bspline_init(&nlp->spline, p->ncp, p->duration);
        salto_free(knots);
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
    if (!nlp->con_aux || !nlp->bal || !nlp->mom) goto nomem;
    for (int i = 0; i < p->nphase; i++) nlp->bal[i] = nlp->mom[i] = -1;
    nlp->bal_nt = salto_model_root_translation(nlp->m, nlp->bal_tdof, nlp->bal_a);
    for (int c = 0; c < p->ncon; c++) {
        nlp->con_aux[c] = -1;
        if (p->cons[c].type == SALTO_CON_BODY_HEADING) {
            nlp->con_aux[c] = nlp->ncpv + nlp->naux; // the heading
            nlp->naux++;
            continue;
        }
        if (p->cons[c].type == SALTO_CON_COM_PARABOLA) {
            nlp->con_aux[c] = nlp->ncpv + nlp->naux; // c0, v0 along the translation axes
            nlp->naux += 2 * nlp->bal_nt;
            nlp->bal[p->cons[c].phase] = nlp->con_aux[c];
            continue;
        }
        if (p->cons[c].type != SALTO_CON_SITE_HOLD) continue;
        double e[3][3], target[3];
        int is_aux[3], naux = 0;
        hold_rows(p, &p->cons[c], nlp->planar, e, is_aux, target, &naux);
        if (naux == 0) continue;
        nlp->con_aux[c] = nlp->ncpv + nlp->naux;
        nlp->naux += naux;
    }
    // a flight's momentum constants (its angular momentum about the centre of mass, and unless
    // ballistic its linear momentum at the phase's start), one per physics row
    for (int i = 0; p->physics && p->solver.flight_rows == SALTO_FLIGHT_MOMENTUM && i < p->nphase; i++) {
        if (p->phases[i].contact.type != SALTO_CONTACT_NONE) continue;
        nlp->mom[i] = nlp->ncpv + nlp->naux;
        nlp->naux += flight_nrows(nlp, i);
    }
    nlp->nx = nlp->ncpv + nlp->naux;
    nlp->er = salto_calloc((size_t)p->nphase, sizeof(eroot));
    if (!nlp->er) goto nomem;
    setup_eroots(nlp);

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
                break;
            }
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
    if (assign_eroots(nlp, &B) != SALTO_OK) {
        salto_free(B.dep);
        goto nomem;
    }
    nlp->dep = B.dep;
    if (nlp->nblock > 1) qsort(nlp->blocks, (size_t)nlp->nblock, sizeof(block), cmp_block);

    // rows, bases, Jacobian pattern
    long row = 0, nnz = 0;
    for (int i = 0; i < nlp->nblock; i++) {
        block* b = &nlp->blocks[i];
        b->row0 = (int)row;
        row += b->nrows;
        b->first = salto_bspline_basis_side(&nlp->spline, b->t, b->side, b->N, b->dN, b->ddN);
        if (b->impact) impact_basis(nlp, b);
        b->jac0 = (int)nnz;
        b->nnz = 4 * (b->diag ? b->nrows : b->nrows * b->ndep);
        for (int r = 0; r < b->nrows; r++) b->nnz += (row_aux(b, r) >= 0) + b->nxaux;
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
        }
        // bounds: equalities, except the ground clearance (g >= height) and the contact
        // inequalities (see physics_rows)
        for (int r = 0; r < b->nrows; r++) {
            double lo = 0.0, hi = 0.0;
            if (b->con >= 0) {
                const salto_constraint_desc* cd = &p->cons[b->con];
                if (cd->type == SALTO_CON_ABOVE_GROUND) lo = cd->height, hi = NLP_INF;
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
    nlp->hess_G = salto_malloc(7 * (size_t)nlp->ncp * sizeof(double));
    nlp->hess_G0 = salto_malloc(7 * (size_t)nlp->ncp * sizeof(double));
    nlp->obj_w = salto_calloc((size_t)nlp->nv, sizeof(double));
    nlp->msub = salto_calloc((size_t)nlp->nv, sizeof(double));
    if (!nlp->hess_G || !nlp->hess_G0 || !nlp->obj_w || !nlp->msub) goto nomem;
    salto_bspline_gram(&nlp->spline, 2, nlp->hess_G);
    salto_bspline_gram(&nlp->spline, 0, nlp->hess_G0);
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
        nlp->obj_w[j] = wsum * om * om;
    }
    nlp->obj_rho = wsum * RHO + nlp->ref_w;
    nlp->hess_dofs = wsum > 0.0 || nlp->ref_w > 0.0 ? nlp->nv : 0;
    if (build_hessian_pattern(nlp) != SALTO_OK) goto nomem;

    // evaluation scratch
    nlp->d = salto_data_create(m);
    nlp->J3 = salto_malloc(3 * (size_t)nlp->nv * sizeof(double));
    // rows a block may have: 8 (a 3-D ground contact), or an impact's up to nv + 8
    const size_t maxrows = 8 + (size_t)nlp->nv;
    nlp->dq = salto_malloc(maxrows * (size_t)nlp->nv * sizeof(double));
    nlp->dqd = salto_malloc(maxrows * (size_t)nlp->nv * sizeof(double));
    nlp->dqdd = salto_calloc(maxrows * (size_t)nlp->nv, sizeof(double));
    nlp->Jf = salto_malloc(18 * (size_t)nlp->nv * sizeof(double));
    nlp->sums = salto_malloc(7 * (size_t)nlp->nv * sizeof(double));
    nlp->xs = salto_malloc((size_t)nlp->nx * sizeof(double));
    nlp->Jp = salto_malloc(2 * 8 * 4 * (size_t)nlp->nv * sizeof(double));
    {
        const size_t ns = 3 * (size_t)nlp->nv + NXAUX, nu = 4 * (size_t)nlp->nv + NXAUX;
        nlp->Hl = salto_malloc(nu * nu * sizeof(double));
        nlp->Sl = salto_malloc(ns * ns * sizeof(double));
        nlp->Tl = salto_malloc(ns * nu * sizeof(double));
    }
    nlp->erJ = salto_malloc(3 * (size_t)nlp->nv * sizeof(double));
    nlp->erDv = salto_malloc(3 * (size_t)nlp->nv * sizeof(double));
    nlp->erDaq = salto_malloc(3 * (size_t)nlp->nv * sizeof(double));
    nlp->erDaqd = salto_malloc(3 * (size_t)nlp->nv * sizeof(double));
    nlp->daux = salto_calloc(8 * NXAUX, sizeof(double)); // rows with place variables: 8 at most
    nlp->fq = salto_malloc(3 * (size_t)nlp->nv * sizeof(double));
    nlp->imp = salto_malloc((5 * (size_t)nlp->nv + 16) * sizeof(double));
    nlp->Ql = salto_malloc((size_t)nlp->nv * (size_t)nlp->nv * sizeof(double));
    nlp->grp = salto_malloc((size_t)(nlp->nblock + 1) * sizeof(int));
    nlp->grp_at = salto_malloc((size_t)(nlp->nblock + 1) * sizeof(size_t));
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
            if (nlp->blocks[k].con >= 0 && nlp->blk_hess0[k] >= 0) need += ns + ns * ns;
        }
        if (need > nlp->grp_cap) nlp->grp_cap = need;
        i = i1;
    }
    nlp->arena = salto_malloc((nlp->grp_cap + 1) * sizeof(double));
    if (!nlp->d || !nlp->J3 || !nlp->dq || !nlp->dqd || !nlp->dqdd || !nlp->Jf || !nlp->sums ||
        !nlp->xs || !nlp->Jp ||
        !nlp->Hl || !nlp->Sl || !nlp->Tl || !nlp->Ql || !nlp->grp || !nlp->grp_at || !nlp->arena ||
        !nlp->erJ || !nlp->erDv || !nlp->erDaq || !nlp->erDaqd || !nlp->daux || !nlp->fq ||
        !nlp->imp) {
        goto nomem;
    }
    return nlp;

nomem:
    SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory building the NLP");
fail:
    salto_nlp_destroy(nlp);
    return NULL;
}



// ---- the Lagrangian Hessian's pattern ----
//
// Lower triangle of: the objective's band (half-width 3 in each DOF's control points) and,
// for every nonlinear block, the dense square of its variables (four control points of each
// dependency). Pairs are collected, sorted and made unique; each source entry keeps the index
// of its pattern slot.

static int block_linear(const salto_nlp* nlp, const block* b) {
    if (b->con < 0) return 0;
    const salto_constraint_type t = nlp->p->cons[b->con].type;
    return t == SALTO_CON_POSE || t == SALTO_CON_VELOCITY;
}


// variable index of local variable u of block b (dependency u / 4, control point u % 4)
static int block_var(const salto_nlp* nlp, const block* b, int u) {
    if (u >= 4 * b->ndep) return b->xaux[u - 4 * b->ndep]; // the effective root's places
    return nlp->dep[b->dep0 + u / 4] * nlp->ncp + b->first + u % 4;
}


static int cmp_pair(const void* a, const void* b) {
    const long x = *(const long*)a, y = *(const long*)b;
    return (x > y) - (x < y);
}


static int find_pair(const long* pairs, int n, long key) {
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        if (pairs[mid] == key) return mid;
        if (pairs[mid] < key) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}


static salto_status build_hessian_pattern(salto_nlp* nlp) {
    const int ncp = nlp->ncp;
    const long nx = nlp->nx;
    long nobj = nlp->hess_dofs * (4L * ncp - 6);
    long nblk = 0;
    nlp->blk_hess0 = salto_malloc((size_t)(nlp->nblock + 1) * sizeof(int));
    if (!nlp->blk_hess0) return SALTO_ERR_NOMEM;
    for (int i = 0; i < nlp->nblock; i++) {
        const block* b = &nlp->blocks[i];
        if (block_linear(nlp, b)) {
            nlp->blk_hess0[i] = -1;
            continue;
        }
        nlp->blk_hess0[i] = (int)nblk;
        const long nu = 4L * b->ndep + b->nxaux;
        nblk += nu * (nu + 1) / 2;
        if (nblk > INT_MAX / 2) return SALTO_ERR_NOMEM; // more than the pattern can index
    }
    long* pairs = salto_malloc((size_t)(nobj + nblk + 1) * sizeof(long));
    nlp->hess_obj = salto_malloc((size_t)(nobj + 1) * sizeof(int));
    nlp->hess_blk = salto_malloc((size_t)(nblk + 1) * sizeof(int));
    if (!pairs || !nlp->hess_obj || !nlp->hess_blk) {
        salto_free(pairs);
        return SALTO_ERR_NOMEM;
    }
    // key of (r, c), r >= c: r nx + c
    long n = 0;
    for (int j = 0; j < nlp->hess_dofs; j++) {
        for (int a = 0; a < ncp; a++) {
            for (int b = a - 3 < 0 ? 0 : a - 3; b <= a; b++) pairs[n++] = (long)(j * ncp + a) * nx + j * ncp + b;
        }
    }
    for (int i = 0; i < nlp->nblock; i++) {
        const block* b = &nlp->blocks[i];
        if (nlp->blk_hess0[i] < 0) continue;
        const int nu = 4 * b->ndep + b->nxaux;
        for (int u = 0; u < nu; u++) {
            for (int v = 0; v <= u; v++) {
                const long r = block_var(nlp, b, u), c = block_var(nlp, b, v);
                pairs[n++] = r >= c ? r * nx + c : c * nx + r;
            }
        }
    }
    long* sorted = salto_malloc((size_t)(n + 1) * sizeof(long));
    if (!sorted) {
        salto_free(pairs);
        return SALTO_ERR_NOMEM;
    }
    memcpy(sorted, pairs, (size_t)n * sizeof(long));
    if (n > 1) qsort(sorted, (size_t)n, sizeof(long), cmp_pair);
    long m = 0;
    for (long k = 0; k < n; k++) {
        if (m == 0 || sorted[k] != sorted[m - 1]) sorted[m++] = sorted[k];
    }
    nlp->nnz_hess = (int)m;
    nlp->hess_row = salto_malloc((size_t)(m + 1) * sizeof(int));
    nlp->hess_col = salto_malloc((size_t)(m + 1) * sizeof(int));
    if (!nlp->hess_row || !nlp->hess_col) {
        salto_free(pairs);
        salto_free(sorted);
        return SALTO_ERR_NOMEM;
    }
    for (long k = 0; k < m; k++) {
        nlp->hess_row[k] = (int)(sorted[k] / nx);
        nlp->hess_col[k] = (int)(sorted[k] % nx);
    }
    for (long k = 0; k < nobj; k++) nlp->hess_obj[k] = find_pair(sorted, (int)m, pairs[k]);
    for (long k = 0; k < nblk; k++) nlp->hess_blk[k] = find_pair(sorted, (int)m, pairs[nobj + k]);
    salto_free(pairs);
    salto_free(sorted);
    return SALTO_OK;
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


void salto_nlp_jac_pattern(const salto_nlp* nlp, int* rows, int* cols) {
    memcpy(rows, nlp->jac_row, (size_t)nlp->nnz_jac * sizeof(int));
    memcpy(cols, nlp->jac_col, (size_t)nlp->nnz_jac * sizeof(int));
}


// ---- state and kinematics at a time ----

static void er_state(const salto_nlp* nlp, const double* x, int ph, salto_fk_level level,
                     int derivs);


// every DOF's spline state from its four control points from first on and their basis values
// (N, dN, ddN); q, qd, qdd may each be NULL
static void spline_state(const salto_nlp* nlp, const double* x, int first, const double* N,
                         const double* dN, const double* ddN, double* q, double* qd,
                         double* qdd) {
    for (int j = 0; j < nlp->nv; j++) {
        const double* c = x + j * nlp->ncp + first;
        if (q) q[j] = N[0] * c[0] + N[1] * c[1] + N[2] * c[2] + N[3] * c[3];
        if (qd) qd[j] = dN[0] * c[0] + dN[1] * c[1] + dN[2] * c[2] + dN[3] * c[3];
        if (qdd) qdd[j] = ddN[0] * c[0] + ddN[1] * c[1] + ddN[2] * c[2] + ddN[3] * c[3];
    }
}


// the splines' own state at t
static void state_raw(const salto_nlp* nlp, const double* x, double t, double* q, double* qd,
                      double* qdd) {
    double N[4], dN[4], ddN[4];
    const int first = salto_bspline_basis(&nlp->spline, t, N, dN, ddN);
    spline_state(nlp, x, first, N, dN, ddN, q, qd, qdd);
}


int salto_nlp_phase_ballistic(const salto_nlp* nlp, int i) {
    return i >= 0 && i < nlp->p->nphase && nlp->bal[i] >= 0;
}


// the ballistic flight phase whose inside (its ends excluded) holds t; -1 for none
static int bal_phase_at(const salto_nlp* nlp, double t) {
    const int k = phase_inside(nlp->p, t);
    return k >= 0 && nlp->bal[k] >= 0 ? k : -1;
}


// In ballistic flight phase ph at t, with d->q, d->qd, d->qdd the splines' values: the root's
// translation replaced by the one that puts the centre of mass on the phase's parabola,
// q_T = a . (P(tau) - c), qd_T = a . (P'(tau) - c'), qdd_T = a . (g - c''), with c, c', c''
// the centre of mass's motion with the translation at zero (a translation moves every point
// alike) and c'' = f / M + g from the aggregate force f = M (c'' - g).
static void bal_state(const salto_nlp* nlp, const double* x, int ph, double t, int acc) {
    const salto_model* m = nlp->m;
    salto_data* d = nlp->d;
    const int nt = nlp->bal_nt;
    for (int j = 0; j < nt; j++) {
        d->q[nlp->bal_tdof[j]] = d->qd[nlp->bal_tdof[j]] = 0.0;
        if (acc) d->qdd[nlp->bal_tdof[j]] = 0.0;
    }
    double c[3], cv[3], ca[3] = {0, 0, 0};
    if (acc) {
        double f0[6];
        salto_f0_rnea(m, d, f0); // leaves the kinematics at the state (velocities included)
        for (int k = 0; k < 3; k++) ca[k] = f0[3 + k] / m->mass + m->gravity[k];
    } else {
        salto_fk(m, d, SALTO_FK_VEL);
    }
    salto_link_inertias(m, d);
    salto_com(m, d, c, cv);
    const double tau = t - nlp->p->phases[ph].start;
    const double* pl = x + nlp->bal[ph];
    for (int j = 0; j < nt; j++) {
        const double* a = nlp->bal_a[j];
        const double ge = salto_v3_dot(a, m->gravity);
        d->q[nlp->bal_tdof[j]] = pl[j] + pl[nt + j] * tau + 0.5 * ge * tau * tau - salto_v3_dot(a, c);
        d->qd[nlp->bal_tdof[j]] = pl[nt + j] + ge * tau - salto_v3_dot(a, cv);
        if (acc) d->qdd[nlp->bal_tdof[j]] = ge - salto_v3_dot(a, ca);
    }
}


void salto_nlp_state(const salto_nlp* nlp, const double* x, double t, double* q, double* qd,
                     double* qdd) {
    // strictly inside a phase with an effective root or a ballistic flight, its translation
    const int ph = nlp->er ? er_phase_at(nlp, t) : -1;
    const int bph = ph < 0 && nlp->bal ? bal_phase_at(nlp, t) : -1;
    if (ph < 0 && bph < 0) {
        state_raw(nlp, x, t, q, qd, qdd);
        return;
    }
    salto_data* d = nlp->d;
    state_raw(nlp, x, t, d->q, d->qd, d->qdd);
    if (ph >= 0) {
        er_state(nlp, x, ph, qdd ? SALTO_FK_ACC : SALTO_FK_VEL, 0);
    } else {
        bal_state(nlp, x, bph, t, qdd != NULL);
    }
    const size_t n = (size_t)nlp->nv * sizeof(double);
    if (q) memmove(q, d->q, n);
    if (qd) memmove(qd, d->qd, n);
    if (qdd) memmove(qdd, d->qdd, n);
}


// the splines' q and qd (and with acc, qdd) at block b's time into nlp->d, from its basis
static void block_state(salto_nlp* nlp, const double* x, const block* b, int acc) {
    salto_data* d = nlp->d;
    spline_state(nlp, x, b->first, b->N, b->dN, b->ddN, d->q, d->qd, acc ? d->qdd : NULL);
}


// the kinematics (positions and velocities) at block b's time, computed once per time
static void kinematics_at(salto_nlp* nlp, const double* x, const block* b) {
    if (nlp->have_state && nlp->last_t == b->t && nlp->last_x == x && nlp->last_er == b->er) return;
    salto_data* d = nlp->d;
    block_state(nlp, x, b, 0);
    if (b->er >= 0) {
        er_state(nlp, x, b->er, SALTO_FK_VEL, 1);
    } else {
        salto_fk(nlp->m, d, SALTO_FK_VEL); // the inertias only where needed (com_sums)
    }
    nlp->last_t = b->t;
    nlp->last_x = x;
    nlp->last_er = b->er;
    nlp->have_state = 1;
}


// centre of mass helpers: subtree mass, first moment h and linear momentum per link
static void com_sums(salto_nlp* nlp) {
    const salto_model* m = nlp->m;
    salto_data* d = nlp->d;
    salto_link_inertias(m, d);
    double* s = nlp->sums;
    for (int i = 0; i < nlp->nv; i++) {
        const double* I = d->I + 10 * i;
        double h[6];
        salto_si_mul(h, I, d->V + 6 * i);
        double* si = s + 7 * i;
        si[0] = I[0], si[1] = I[1], si[2] = I[2], si[3] = I[3];
        si[4] = h[3], si[5] = h[4], si[6] = h[5];
    }
    for (int i = nlp->nv - 1; i >= 0; i--) {
        const int par = m->link_parent[i];
        if (par < 0) continue;
        for (int k = 0; k < 7; k++) s[7 * par + k] += s[7 * i + k];
    }
}


// the centre of mass c = h / M and its velocity cdot = p_lin / M (may be NULL) after com_sums:
// the root subtrees' sums
static void com_from_sums(const salto_nlp* nlp, double* c, double* cdot) {
    const salto_model* m = nlp->m;
    for (int k = 0; k < 3; k++) {
        c[k] = 0.0;
        if (cdot) cdot[k] = 0.0;
    }
    for (int i = 0; i < nlp->nv; i++) {
        if (m->link_parent[i] >= 0) continue;
        const double* root = nlp->sums + 7 * i;
        for (int k = 0; k < 3; k++) {
            c[k] += root[1 + k] / m->mass;
            if (cdot) cdot[k] += root[4 + k] / m->mass;
        }
    }
}


// the centre of mass's Jacobian (3 x nv) after com_sums: dc/dq_j = (m_sub t_j + s_j x h_sub) / M
static void com_jac(const salto_nlp* nlp, double* J) {
    const salto_model* m = nlp->m;
    const int nv = nlp->nv;
    for (int j = 0; j < nv; j++) {
        const double* S = nlp->d->S + 6 * j;
        const double* sj = nlp->sums + 7 * j;
        double a[3];
        salto_v3_cross(a, S, sj + 1);
        for (int k = 0; k < 3; k++) J[k * nv + j] = (a[k] + sj[0] * S[3 + k]) / m->mass;
    }
}


// ---- physics on the aggregate force (Fang & Pollard 2003, section 4) ----
//
// At a slice, f0 = [n; f] (about the world origin) and its Jacobian in (q, qd, qdd) come from
// the linear-time method. Each row is a function g(f0, c) of the aggregate force and, on the
// ground, of the support centre c(q) (the centroid of the contact sites); its derivatives are
//   dg/dq_j = dg/df0 . df0/dq_j + dg/dc . dc/dq_j,  dg/dqd_j = dg/df0 . df0/dqd_j,  likewise qdd.
// Rows (bounds in salto_nlp_build):
//   flight: f0 = 0 (planar: n_y, f_x, f_z);
//   bar:    s . n_c in [-tau_max, tau_max], n_c = n - p x f about the bar point p;
//   ground: fN = N . f in [0, K]; the friction cone squared, ((mu^2 + 1) fN^2 - |f|^2) / W >= 0
//           (W the weight; with fN >= 0 this is the cone |f_t| <= mu fN, and smooth where the
//           square root of |f_t| is not at zero force);
//           the centre of pressure, d_y fN -+ T_x . n_c >= 0 and d_x fN -+ T_y . n_c >= 0 (planar:
//           the second pair only); the twist, k fN -+ N . n_c >= 0 (3-D only).

// a row as a linear function of f0 and c: value and gradients
typedef struct frow {
    double v;
    double df0[6];
    double dc[3];
} frow;


// the moment of f0 = [n; f] about the point c along a unit axis a, a . (n - c x f), as a row:
// d/dn = a, d/df = -(a x c), d/dc = -(f x a)
static frow moment_row(const double* a, const double* c, const double* n, const double* f) {
    frow m;
    double ac[3], fa[3];
    salto_v3_cross(ac, a, c);
    salto_v3_cross(fa, f, a);
    m.v = salto_v3_dot(a, n) - salto_v3_dot(ac, f);
    for (int k = 0; k < 3; k++) m.df0[k] = a[k], m.df0[3 + k] = -ac[k], m.dc[k] = -fa[k];
    return m;
}


static void physics_rows(const salto_nlp* nlp, const block* b, const double* f0,
                         const double* c, frow* rows) {
    const salto_contact_desc* ct = &nlp->p->phases[b->phase].contact;
    const int planar = nlp->planar;
    memset(rows, 0, (size_t)b->nrows * sizeof(frow));
    const double* n = f0;
    const double* f = f0 + 3;
    if (nlp->bal[b->phase] >= 0) {
        // a ballistic flight: the torque about the centre of mass c along the world axes
        // (planar: y)
        for (int r = 0; r < b->nrows; r++) {
            double a[3] = {0, 0, 0};
            a[planar ? 1 : r] = 1.0;
            rows[r] = moment_row(a, c, n, f);
        }
        return;
    }
    if (ct->type == SALTO_CONTACT_NONE) {
        static const int planar_rows[3] = {1, 3, 5};
        for (int r = 0; r < b->nrows; r++) {
            const int k = planar ? planar_rows[r] : r;
            rows[r].v = f0[k];
            rows[r].df0[k] = 1.0;
        }
        return;
    }
    if (ct->type == SALTO_CONTACT_BAR) {
        // s . (n - p x f) = s . n - (s x p) . f
        double sp[3];
        salto_v3_cross(sp, ct->bar_axis, ct->bar_point);
        rows[0].v = salto_v3_dot(ct->bar_axis, n) - salto_v3_dot(sp, f);
        for (int k = 0; k < 3; k++) rows[0].df0[k] = ct->bar_axis[k], rows[0].df0[3 + k] = -sp[k];
        return;
    }

    // ground: the contact frame N, T_x (world x made normal to N, or y), T_y = N x T_x
    const double* N = ct->normal;
    double Tx[3], Ty[3];
    salto_contact_frame(N, planar, Tx, Ty);
    const double fN = salto_v3_dot(N, f);
    const double mu2 = ct->friction * ct->friction;

    // r0: fN
    rows[0].v = fN;
    for (int k = 0; k < 3; k++) rows[0].df0[3 + k] = N[k];
    // r1: ((mu^2 + 1) fN^2 - |f|^2) / W, with W the character's weight: in newtons, like the
    // other rows, so that neither the solver nor its tolerances see a row in N^2
    const double gn = salto_v3_norm(nlp->m->gravity);
    const double W = nlp->m->mass * (gn > 0 ? gn : 9.81);
    rows[1].v = ((mu2 + 1.0) * fN * fN - salto_v3_dot(f, f)) / W;
    for (int k = 0; k < 3; k++) rows[1].df0[3 + k] = (2.0 * (mu2 + 1.0) * fN * N[k] - 2.0 * f[k]) / W;

    // moments about c along the axes, within their bounds times fN
    const double* axes[3] = {Tx, Ty, N};
    const double bound[3] = {ct->support_half[1], ct->support_half[0], ct->twist_max};
    const int first_axis = planar ? 1 : 0, last_axis = planar ? 1 : 2;
    int r = 2;
    for (int ai = first_axis; ai <= last_axis; ai++) {
        const frow m = moment_row(axes[ai], c, n, f);
        for (int sgn = -1; sgn <= 1; sgn += 2, r++) {
            // bound fN - sgn m >= 0
            rows[r].v = bound[ai] * fN - sgn * m.v;
            for (int k = 0; k < 3; k++) {
                rows[r].df0[k] = -sgn * m.df0[k];
                rows[r].df0[3 + k] = bound[ai] * N[k] - sgn * m.df0[3 + k];
                rows[r].dc[k] = -sgn * m.dc[k];
            }
        }
    }
}


// ---- a flight's momentum rows (solver.flight_rows: momentum) ----
//
// With h = sum_i I_i V_i the spatial momentum about the world origin ([angular; linear], world
// frame), I^C_j and h_j the composite inertia and momentum of link j's subtree, S_j its joint's
// axis and V_p the velocity of its parent:
//   dh/dqd_j = I^C_j S_j,   dh/dq_j = S_j x* h_j - I^C_j (S_j x V_p)
// (a change of q_j moves the subtree rigidly by S_j: each inertia changes by S_j x* I - I S_j x,
// each velocity in it by S_j x (V_i - V_p)). The rows are the angular momentum about the centre
// of mass, L = h_a - c x P with P = h_l, against the phase's constant L0, and the linear
// momentum against gravity's line, P - P0 - M g tau (not in a ballistic flight, whose centre of
// mass is on its parabola by construction), each divided by the phase's duration T so that the
// rows are in newton-metres and newtons: a row's value is the mean force that would make its
// momentum's difference over the phase. f0 = dh/dt (gravity's part aside), so the rows hold
// the momentum's integral of f0 = 0 between any two slices, not only f0 at them.

// the momentum rows' components: planar L_y (, P_x, P_z); else L (, P)
static int momentum_comp(const salto_nlp* nlp, int r) {
    static const int planar[3] = {1, 3, 5};
    return nlp->planar ? planar[r] : r;
}


// component k of the centroidal momentum (L, then P less gravity's impulse over tau) from p0
// = [h_a; P] about the origin and the centre of mass c
static double momentum_part(const salto_model* m, const double* p0, const double* c, int k,
                            double tau) {
    if (k >= 3) return p0[k] - m->mass * m->gravity[k - 3] * tau;
    double cp[3];
    salto_v3_cross(cp, c, p0 + 3);
    return p0[k] - cp[k];
}


// The rows are w h_k - x[aux_k], w = 1/T: the place variables hold the constants divided by T
// (a row's place variable enters with -1, as a hold's place does)
static void eval_momentum(salto_nlp* nlp, const double* x, const block* b, double* g,
                          int want_jac) {
    const salto_model* m = nlp->m;
    const salto_phase_desc* ph = &nlp->p->phases[b->phase];
    salto_data* d = nlp->d;
    const int nv = nlp->nv;
    double* Jp = nlp->Jf; // 6 x 2nv: p0's Jacobian (the aggregate force's is not used here)
    block_state(nlp, x, b, 0);
    salto_p0_jac(m, d, want_jac ? Jp : NULL);
    nlp->have_state = 0;
    double c[3];
    salto_com(m, d, c, NULL);
    const double* P = d->p0 + 3;
    const double w = 1.0 / ph->duration, tau = b->t - ph->start;
    for (int r = 0; r < b->nrows; r++) {
        g[r] = w * momentum_part(m, d->p0, c, momentum_comp(nlp, r), tau) - x[b->aux[r]];
    }
    if (!want_jac) return;
    memset(nlp->dqdd, 0, (size_t)b->nrows * nv * sizeof(double));
    for (int j = 0; j < nv; j++) {
        double dhq[6], dhd[6];
        for (int k = 0; k < 6; k++) dhq[k] = Jp[k * 2 * nv + j], dhd[k] = Jp[k * 2 * nv + nv + j];
        // L = h_a - c x P: dc/dq_j = (dP/dqd_j) / M, c does not depend on qd
        double dc[3], e1[3], e2[3], e3[3];
        for (int k = 0; k < 3; k++) dc[k] = dhd[3 + k] / m->mass;
        salto_v3_cross(e1, dc, P);
        salto_v3_cross(e2, c, dhq + 3);
        salto_v3_cross(e3, c, dhd + 3);
        for (int k = 0; k < 3; k++) dhq[k] -= e1[k] + e2[k], dhd[k] -= e3[k];
        for (int r = 0; r < b->nrows; r++) {
            const int k = momentum_comp(nlp, r);
            nlp->dq[r * nv + j] = w * dhq[k];
            nlp->dqd[r * nv + j] = w * dhd[k];
        }
    }
}


// the physics block's values and derivatives: f0 and its Jacobian at the slice
static void eval_physics(salto_nlp* nlp, const double* x, const block* b, double* g,
                         int want_jac) {
    if (nlp->mom[b->phase] >= 0) {
        eval_momentum(nlp, x, b, g, want_jac);
        return;
    }
    const salto_model* m = nlp->m;
    salto_data* d = nlp->d;
    const int nv = nlp->nv;
    block_state(nlp, x, b, 1);
    if (b->er >= 0) er_state(nlp, x, b->er, SALTO_FK_ACC, want_jac);
    double f0[6];
    if (want_jac) {
        const salto_jac_method how =
            nlp->hess_linear ? SALTO_JAC_LINEAR : (salto_jac_method)nlp->p->solver.derivatives;
        salto_f0_jac(m, d, how, f0, nlp->Jf, NULL);
    } else {
        salto_f0_rnea(m, d, f0); // values only: inverse dynamics, a fraction of the cost
    }
    nlp->have_state = 0; // the kinematics in d are now this slice's, with accelerations

    // support centre: the contact sites' centroid, and its Jacobian (3 x nv in J3); in a
    // ballistic flight the centre of mass
    const salto_contact_desc* ct = &nlp->p->phases[b->phase].contact;
    double c[3] = {0, 0, 0};
    if (nlp->bal[b->phase] >= 0) {
        com_sums(nlp);
        com_from_sums(nlp, c, NULL);
        if (want_jac) com_jac(nlp, nlp->J3);
    } else if (ct->type == SALTO_CONTACT_GROUND) {
        if (want_jac) memset(nlp->J3, 0, 3 * (size_t)nv * sizeof(double));
        double* Js = nlp->sums; // 7 nv >= 3 nv scratch
        for (int s = 0; s < ct->nsite; s++) {
            double xs[3];
            salto_site_pos(m, d, ct->site[s], xs);
            for (int k = 0; k < 3; k++) c[k] += xs[k] / ct->nsite;
            if (!want_jac) continue;
            salto_site_jac(m, d, ct->site[s], Js);
            for (int i = 0; i < 3 * nv; i++) nlp->J3[i] += Js[i] / ct->nsite;
        }
    }
    frow rows[8];
    physics_rows(nlp, b, f0, c, rows);
    for (int r = 0; r < b->nrows; r++) g[r] = rows[r].v;
    if (!want_jac) return;
    const int ncol = 3 * nv;
    // through the effective root: f0's and the support centre's derivatives to the splines' state
    // and the places
    double dfP[6][3], dcP[3][3];
    memset(dfP, 0, sizeof dfP);
    memset(dcP, 0, sizeof dcP);
    if (b->er >= 0) {
        for (int k = 0; k < 6; k++) {
            double* row = nlp->Jf + k * ncol;
            er_chain(nlp, b->er, row, row + nv, row + 2 * nv, dfP[k]);
        }
        if (ct->type == SALTO_CONTACT_GROUND) {
            double* zero = nlp->fq; // the centre does not depend on qd
            for (int k = 0; k < 3; k++) {
                memset(zero, 0, (size_t)nv * sizeof(double));
                er_chain(nlp, b->er, nlp->J3 + k * nv, zero, NULL, dcP[k]);
            }
        }
        for (int r = 0; r < b->nrows; r++) {
            for (int a = 0; a < b->nxaux; a++) {
                double v = 0.0;
                for (int k = 0; k < 6; k++) v += rows[r].df0[k] * dfP[k][a];
                for (int k = 0; k < 3; k++) v += rows[r].dc[k] * dcP[k][a];
                nlp->daux[NXAUX * r + a] = v;
            }
        }
    }
    const int has_c = ct->type == SALTO_CONTACT_GROUND || nlp->bal[b->phase] >= 0;
    for (int r = 0; r < b->nrows; r++) {
        for (int j = 0; j < nv; j++) {
            double a = 0.0, ad = 0.0, add = 0.0;
            for (int k = 0; k < 6; k++) {
                const double w = rows[r].df0[k];
                if (w == 0.0) continue;
                a += w * nlp->Jf[k * ncol + j];
                ad += w * nlp->Jf[k * ncol + nv + j];
                add += w * nlp->Jf[k * ncol + 2 * nv + j];
            }
            if (has_c) {
                for (int k = 0; k < 3; k++) a += rows[r].dc[k] * nlp->J3[k * nv + j];
            }
            nlp->dq[r * nv + j] = a;
            nlp->dqd[r * nv + j] = ad;
            nlp->dqdd[r * nv + j] = add;
        }
    }
}


// ---- the impact at a phase's start ----
//
// The spline is C0 there (a triple knot): q passes through one control point P_j, the velocity
// from the left depends on P_{j-1} and P_j, from the right on P_j and P_{j+1}. The block's four
// columns are P_{j-1} .. P_{j+2}: N picks q, ddN gives the jump u = qd+ - qd-.
static void impact_basis(const salto_nlp* nlp, block* b) {
    double NL[4], dNL[4], ddNL[4], NR[4], dNR[4], ddNR[4];
    const int fl = salto_bspline_basis_side(&nlp->spline, b->t, -1, NL, dNL, ddNL);
    const int fr = salto_bspline_basis_side(&nlp->spline, b->t, 1, NR, dNR, ddNR);
    SALTO_ASSERT(fr == fl + 3 && fr >= 1); // a triple knot: the segments share P_j only
    (void)fl;
    b->first = fr - 1;
    memset(b->N, 0, sizeof b->N);
    b->N[1] = 1.0;
    memset(b->dN, 0, sizeof b->dN);
    // the jump: right minus left, the left's entries for P_{j-1}, P_j its last two
    b->ddN[0] = -dNL[2];
    b->ddN[1] = dNR[0] - dNL[3];
    b->ddN[2] = dNR[1];
    b->ddN[3] = dNR[2];
}


// The impact's rows at q (in nlp->d->q) for the jump u, into g: first the joints' impulses
// that the contact impulse does not explain (an impulse on the contact body travels through
// the joints from it to the root, salto_contact_torques; any other is an impulsive joint
// torque, which no actuator gives), then the contact rows (physics_rows) of the aggregate
// impulse iota, the world's impulse on the character. The generalized impulse M(q) u is
// RNEA(q, 0, u) - RNEA(q, 0, 0): gravity cancels, and every row but the friction cone is
// linear in u. iota and the contact rows' derivatives (rows) are returned when asked for.
static void impact_rows(salto_nlp* nlp, const block* b, const double* u, double* g,
                        double iota_out[6], frow* rows_out) {
    const salto_model* m = nlp->m;
    salto_data* d = nlp->d;
    const int nv = nlp->nv, nj = nv - m->nroot;
    const salto_contact_desc* ct = &nlp->p->phases[b->phase].contact;
    const int body = m->site_link[ct->site[0]];
    double* res = nlp->fq; // nv
    double iota[6];
    salto_impulse(m, d, body, u, res, iota);
    for (int j = 0; j < nj; j++) g[j] = res[m->nroot + j];
    // the contact rows about the sites' centroid (the kinematics of q are in d)
    double c[3] = {0, 0, 0};
    for (int s = 0; s < ct->nsite; s++) {
        double xs[3];
        salto_site_pos(m, d, ct->site[s], xs);
        for (int k = 0; k < 3; k++) c[k] += xs[k] / ct->nsite;
    }
    frow rows[8];
    block pb = *b;
    pb.nrows = b->nrows - nj;
    physics_rows(nlp, &pb, iota, c, rows);
    for (int r = 0; r < pb.nrows; r++) g[nj + r] = rows[r].v;
    if (iota_out) memcpy(iota_out, iota, sizeof iota);
    if (rows_out) memcpy(rows_out, rows, (size_t)pb.nrows * sizeof(frow));
}


// The impact block's values and, with want_jac, its derivatives. By u exactly: the joint rows
// and iota are linear in u (each column is the rows at a unit jump), and the contact rows'
// derivatives in iota (physics_rows) chain them. By q in five-point central differences
// (steps 1e-3 of the variable's scale: fourth order, so truncation and rounding both stay
// near 1e-10 of the rows). The state is q and u, not the splines' (q, qd, qdd): dq holds the
// derivatives by q, dqdd those by u (ddN maps u to the control points), dqd zeros.
static void eval_impact(salto_nlp* nlp, const double* x, const block* b, double* g,
                        int want_jac) {
    const int nv = nlp->nv, nr = b->nrows, nj = nv - nlp->m->nroot;
    salto_data* d = nlp->d;
    double* qb = nlp->imp;
    double* u = nlp->imp + nv;
    double* gk = nlp->imp + 2 * nv; // nv + 8
    for (int j = 0; j < nv; j++) {
        const double* cp = x + j * nlp->ncp + b->first;
        qb[j] = cp[1];
        u[j] = b->ddN[0] * cp[0] + b->ddN[1] * cp[1] + b->ddN[2] * cp[2] + b->ddN[3] * cp[3];
    }
    memcpy(d->q, qb, (size_t)nv * sizeof(double));
    frow rows[8];
    impact_rows(nlp, b, u, g, NULL, rows);
    nlp->have_state = 0;
    if (!want_jac) return;
    // by u_k: the rows at the unit jump e_k
    double* e = nlp->imp + 3 * nv + 8; // nv
    for (int k = 0; k < nv; k++) {
        memset(e, 0, (size_t)nv * sizeof(double));
        e[k] = 1.0;
        double iota_k[6];
        impact_rows(nlp, b, e, gk, iota_k, NULL);
        for (int r = 0; r < nr; r++) {
            double v = 0.0;
            if (r < nj) {
                v = gk[r];
            } else {
                for (int c = 0; c < 6; c++) v += rows[r - nj].df0[c] * iota_k[c];
            }
            nlp->dqdd[r * nv + k] = v;
            nlp->dqd[r * nv + k] = 0.0;
        }
    }
    // by q_k: five points
    for (int k = 0; k < nv; k++) {
        const double h = 1e-3 * fmax(1.0, fabs(qb[k]));
        static const double w[4] = {1.0, -8.0, 8.0, -1.0}, off[4] = {-2.0, -1.0, 1.0, 2.0};
        for (int r = 0; r < nr; r++) nlp->dq[r * nv + k] = 0.0;
        for (int p = 0; p < 4; p++) {
            d->q[k] = qb[k] + off[p] * h;
            impact_rows(nlp, b, u, gk, NULL, NULL);
            for (int r = 0; r < nr; r++) nlp->dq[r * nv + k] += w[p] * gk[r] / (12.0 * h);
        }
        d->q[k] = qb[k];
    }
    nlp->have_state = 0;
}


// rows of block b at x: values g (nrows) and derivatives with respect to the q and qd of its
// deps, dq and dqd (nrows x ndep, row-major)
static void eval_block_rows(salto_nlp* nlp, const double* x, const block* b, double* g,
                            int want_jac);


static void eval_block(salto_nlp* nlp, const double* x, const block* b, double* g, int want_jac) {
    if (want_jac && b->nxaux > 0) memset(nlp->daux, 0, 8 * NXAUX * sizeof(double));
    if (b->impact) {
        eval_impact(nlp, x, b, g, want_jac);
        return;
    }
    if (b->con < 0) {
        eval_physics(nlp, x, b, g, want_jac);
        return;
    }
    eval_block_rows(nlp, x, b, g, want_jac);
    if (!want_jac || b->er < 0) return;
    // through the effective root: each row's derivatives over all DOFs, chained, and back onto
    // the deps (which hold the held site's path)
    const int nv = nlp->nv, nd = b->ndep;
    const int* dep = nlp->dep + b->dep0;
    double* rq = nlp->fq;
    double* rqd = nlp->fq + nv;
    for (int r = 0; r < b->nrows; r++) {
        memset(rq, 0, 2 * (size_t)nv * sizeof(double));
        for (int jj = 0; jj < nd; jj++) rq[dep[jj]] = nlp->dq[r * nd + jj], rqd[dep[jj]] = nlp->dqd[r * nd + jj];
        er_chain(nlp, b->er, rq, rqd, NULL, nlp->daux + NXAUX * r);
        for (int jj = 0; jj < nd; jj++) nlp->dq[r * nd + jj] = rq[dep[jj]], nlp->dqd[r * nd + jj] = rqd[dep[jj]];
    }
}


// the rows of a constraint block (not physics) at the state its kinematics give
static void eval_block_rows(salto_nlp* nlp, const double* x, const block* b, double* g,
                            int want_jac) {
    const salto_model* m = nlp->m;
    const salto_constraint_desc* cd = &nlp->p->cons[b->con];
    salto_data* d = nlp->d;
    const int* dep = nlp->dep + b->dep0;
    const int nd = b->ndep;
    double* dq = nlp->dq;
    double* dqd = nlp->dqd;
    if (want_jac) {
        memset(dq, 0, (size_t)(b->diag ? b->nrows : b->nrows * nd) * sizeof(double));
        memset(dqd, 0, (size_t)(b->diag ? b->nrows : b->nrows * nd) * sizeof(double));
    }

    if (cd->type == SALTO_CON_POSE || cd->type == SALTO_CON_VELOCITY) {
        // linear in the control points: no kinematics
        for (int r = 0; r < b->nrows; r++) {
            const double* c = x + cd->dof[r] * nlp->ncp + b->first;
            const double* w = cd->type == SALTO_CON_POSE ? b->N : b->dN;
            g[r] = w[0] * c[0] + w[1] * c[1] + w[2] * c[2] + w[3] * c[3] - cd->value[r];
            if (want_jac) (cd->type == SALTO_CON_POSE ? dq : dqd)[r] = 1.0;
        }
        return;
    }

    kinematics_at(nlp, x, b);
    switch (cd->type) {
    case SALTO_CON_SITE_HOLD:
    case SALTO_CON_SITE_AT:
    case SALTO_CON_SITE_ON_LINE:
    case SALTO_CON_SITE_ON_PLANE: {
        // e . x_site - e . point for a direction e: a component (site_at) or a projection (on a
        // line or plane); a hold's rows subtract a place variable or a fixed target instead
        double xs[3];
        salto_site_pos(m, d, cd->site, xs);
        if (want_jac) salto_site_jac(m, d, cd->site, nlp->J3);
        for (int r = 0; r < b->nrows; r++) {
            double e[3] = {0, 0, 0};
            if (cd->type == SALTO_CON_SITE_AT) {
                e[b->comp[r]] = 1.0;
            } else {
                memcpy(e, b->e[r], sizeof e);
            }
            const double off = cd->type != SALTO_CON_SITE_HOLD ? salto_v3_dot(e, cd->point)
                               : b->aux[r] >= 0                ? x[b->aux[r]]
                                                               : b->target[r];
            g[r] = salto_v3_dot(e, xs) - off;
            if (!want_jac) continue;
            for (int jj = 0; jj < nd; jj++) {
                const int j = dep[jj];
                dq[r * nd + jj] = e[0] * nlp->J3[j] + e[1] * nlp->J3[nlp->nv + j] +
                                  e[2] * nlp->J3[2 * nlp->nv + j];
            }
        }
        break;
    }
    case SALTO_CON_SITE_STILL: {
        // v = J qd: dv/dqd = J, dv/dq by salto_site_vel_deriv
        double v[3];
        salto_site_vel(m, d, cd->site, v);
        for (int r = 0; r < b->nrows; r++) g[r] = v[b->comp[r]];
        if (!want_jac) break;
        const int nv = nlp->nv;
        salto_site_jac(m, d, cd->site, nlp->J3);
        salto_site_vel_deriv(m, d, cd->site, nlp->fq);
        for (int r = 0; r < b->nrows; r++) {
            const int k = b->comp[r];
            for (int jj = 0; jj < nd; jj++) {
                dq[r * nd + jj] = nlp->fq[k * nv + dep[jj]];
                dqd[r * nd + jj] = nlp->J3[k * nv + dep[jj]];
            }
        }
        break;
    }
    case SALTO_CON_BODY_HEADING: {
        // the angle about N of u = x_site - x_site0 in the frame turned by the heading a:
        // atan2(u . e_y(a), u . e_x(a)) = psi - a near 0, so d/da = -1 exactly; du/dq_j =
        // s_j x u (both sites on one body)
        double x0[3], x1[3], u[3], Tx[3], Ty[3];
        salto_site_pos(m, d, cd->site0, x0);
        salto_site_pos(m, d, cd->site, x1);
        for (int k = 0; k < 3; k++) u[k] = x1[k] - x0[k];
        salto_contact_frame(cd->dir, 0, Tx, Ty);
        const double a = x[b->aux[0]], ca = cos(a), sa = sin(a);
        double ex[3], ey[3];
        for (int k = 0; k < 3; k++) ex[k] = ca * Tx[k] + sa * Ty[k], ey[k] = -sa * Tx[k] + ca * Ty[k];
        const double ux = salto_v3_dot(u, ex), uy = salto_v3_dot(u, ey);
        g[0] = atan2(uy, ux);
        if (!want_jac) break;
        const double r2 = ux * ux + uy * uy;
        for (int jj = 0; jj < nd; jj++) {
            double du[3];
            salto_v3_cross(du, d->S + 6 * dep[jj], u);
            dq[jj] = r2 > 0 ? (ux * salto_v3_dot(du, ey) - uy * salto_v3_dot(du, ex)) / r2 : 0.0;
        }
        break;
    }
    case SALTO_CON_BODY_LEVEL: {
        // with v the body's zero-pose vertical turned with it, u = x_site - x_site0 and N the
        // normal: (v . (N x u)) / |u|, v's part across the line (|u| is constant: both sites
        // on one body); dv/dq_j = s_j x v, du/dq_j = s_j x u
        const int l = m->site_link[cd->site];
        double v[3], x0[3], x1[3], u[3], Nu[3];
        salto_m3_mul_v3(v, d->R + 9 * l, cd->point);
        salto_site_pos(m, d, cd->site0, x0);
        salto_site_pos(m, d, cd->site, x1);
        for (int k = 0; k < 3; k++) u[k] = x1[k] - x0[k];
        const double len = salto_v3_norm(u);
        salto_v3_cross(Nu, cd->dir, u);
        g[0] = len > 0 ? salto_v3_dot(v, Nu) / len : 0.0;
        if (!want_jac) break;
        for (int jj = 0; jj < nd && len > 0; jj++) {
            const double* a = d->S + 6 * dep[jj];
            double av[3], au[3], Nau[3];
            salto_v3_cross(av, a, v);
            salto_v3_cross(au, a, u);
            salto_v3_cross(Nau, cd->dir, au);
            dq[jj] = (salto_v3_dot(av, Nu) + salto_v3_dot(v, Nau)) / len;
        }
        break;
    }
    case SALTO_CON_BODY_STILL: {
        // w = sum_j s_j qd_j over the path; dw/dqd_j = s_j, dw/dq_j = s_j x (w_link - w_parent(j))
        // (the angular part of S_j x U, as for site_still)
        const int l = m->site_link[cd->site];
        const double* Vl = d->V + 6 * l;
        for (int r = 0; r < b->nrows; r++) g[r] = Vl[b->comp[r]];
        if (!want_jac) break;
        for (int jj = 0; jj < nd; jj++) {
            const int j = dep[jj];
            const double* S = d->S + 6 * j;
            const double* Vp = d->V + 6 * m->link_parent[j];
            double U[6], SU[6];
            for (int k = 0; k < 6; k++) U[k] = Vl[k] - Vp[k];
            salto_sv_crossm(SU, S, U);
            for (int r = 0; r < b->nrows; r++) {
                dq[r * nd + jj] = SU[b->comp[r]];
                dqd[r * nd + jj] = S[b->comp[r]];
            }
        }
        break;
    }
    case SALTO_CON_COM_POSITION:
    case SALTO_CON_COM_VELOCITY:
    case SALTO_CON_COM_PARABOLA:
    case SALTO_CON_COM_PARABOLA_VEL: {
        // c = h / M, cdot = p_lin / M; per DOF j (deps are all DOFs, in order):
        // dc/dq_j = dcdot/dqd_j = (m_sub t_j + s_j x h_sub) / M
        // dcdot/dq_j = (s_j x P_sub + m_sub W_lin + W_ang x h_sub) / M, W = V_p x S_j
        // A row is e . c (or e . cdot) minus its target: a component's value, or on a
        // ballistic flight's parabola along the root's translation axis e_r,
        // c0_r + v0_r tau + (e_r . g) tau^2 / 2 (velocity: v0_r + (e_r . g) tau), tau = t - t0
        com_sums(nlp);
        const double M = m->mass;
        double hc[3], pc[3]; // c and cdot
        com_from_sums(nlp, hc, pc);
        const int par = is_parabola(cd->type);
        const int vel = cd->type == SALTO_CON_COM_VELOCITY || cd->type == SALTO_CON_COM_PARABOLA_VEL;
        const double tau = par ? b->t - nlp->p->phases[cd->phase].start : 0.0;
        const int nt = nlp->bal_nt;
        double e[3][3];
        for (int r = 0; r < b->nrows; r++) {
            if (par) {
                memcpy(e[r], b->e[r], sizeof e[r]);
            } else {
                e[r][0] = e[r][1] = e[r][2] = 0.0;
                e[r][b->comp[r]] = 1.0;
            }
            const double val = salto_v3_dot(e[r], vel ? pc : hc);
            double target = cd->vec[b->comp[r]];
            if (par) {
                const double* pl = x + nlp->bal[cd->phase];
                const double ge = salto_v3_dot(e[r], m->gravity);
                target = vel ? pl[nt + r] + ge * tau : pl[r] + pl[nt + r] * tau + 0.5 * ge * tau * tau;
                if (want_jac) {
                    if (!vel) nlp->daux[NXAUX * r + r] = -1.0;
                    nlp->daux[NXAUX * r + nt + r] = vel ? -1.0 : -tau;
                }
            }
            g[r] = val - target;
        }
        if (!want_jac) break;
        const int nv = nlp->nv;
        com_jac(nlp, nlp->J3);
        for (int j = 0; j < nv; j++) {
            const double* S = d->S + 6 * j;
            const double* sj = nlp->sums + 7 * j;
            const double a[3] = {nlp->J3[j], nlp->J3[nv + j], nlp->J3[2 * nv + j]};
            double c2[3] = {0, 0, 0};
            if (vel) {
                double W[6];
                salto_sv_crossm(W, d->V + 6 * m->link_parent[j], S);
                salto_v3_cross(c2, S, sj + 4);
                double t2[3];
                salto_v3_cross(t2, W, sj + 1);
                for (int k = 0; k < 3; k++) c2[k] = (c2[k] + sj[0] * W[3 + k] + t2[k]) / M;
            }
            for (int r = 0; r < b->nrows; r++) {
                if (vel) {
                    dq[r * nd + j] = salto_v3_dot(e[r], c2);
                    dqd[r * nd + j] = salto_v3_dot(e[r], a);
                } else {
                    dq[r * nd + j] = salto_v3_dot(e[r], a);
                }
            }
        }
        break;
    }
    case SALTO_CON_ABOVE_GROUND: {
        // z of the point minus the radius below it
        const double* R = d->R + 9 * b->link;
        const double* pl = d->p + 3 * b->link;
        double xw[3];
        salto_m3_mul_v3(xw, R, b->point);
        for (int k = 0; k < 3; k++) xw[k] += pl[k];
        g[0] = xw[2] - b->offset;
        if (!want_jac) break;
        salto_point_jac(m, d, b->link, xw, nlp->J3);
        for (int jj = 0; jj < nd; jj++) dq[jj] = nlp->J3[2 * nlp->nv + dep[jj]];
        break;
    }
    default:
        break;
    }
}


static int finite_n(const double* v, int n) {
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) return 0;
    }
    return 1;
}


salto_status salto_nlp_eval_g(salto_nlp* nlp, const double* x, double* g) {
    nlp->have_state = 0;
    for (int i = 0; i < nlp->nblock; i++) {
        const block* b = &nlp->blocks[i];
        eval_block(nlp, x, b, g + b->row0, 0);
    }
    nlp->have_state = 0;
    return finite_n(g, nlp->ng) ? SALTO_OK : SALTO_ERR_NUMERIC;
}


salto_status salto_nlp_eval_jac(salto_nlp* nlp, const double* x, double* values) {
    double gtmp[16];
    nlp->have_state = 0;
    for (int i = 0; i < nlp->nblock; i++) {
        const block* b = &nlp->blocks[i];
        double* g = b->nrows <= 16 ? gtmp : NULL;
        double* gbig = NULL;
        if (!g) {
            // pose and velocity blocks may be wide; their values are not needed here
            gbig = nlp->J3; // 3 nv >= nrows (a pose lists at most nv DOFs)
            g = gbig;
        }
        eval_block(nlp, x, b, g, 1);
        const int nd = b->ndep;
        double* v = values + b->jac0;
        for (int r = 0; r < b->nrows; r++) {
            const int j0 = b->diag ? r : 0;
            const int j1 = b->diag ? r + 1 : nd;
            for (int jj = j0; jj < j1; jj++) {
                const double a = b->diag ? nlp->dq[r] : nlp->dq[r * nd + jj];
                const double c = b->diag ? nlp->dqd[r] : nlp->dqd[r * nd + jj];
                const double e = b->con < 0 ? nlp->dqdd[r * nd + jj] : 0.0;
                for (int k = 0; k < 4; k++) *v++ = a * b->N[k] + c * b->dN[k] + e * b->ddN[k];
            }
            if (row_aux(b, r) >= 0) *v++ = -1.0;
            for (int a = 0; a < b->nxaux; a++) *v++ = nlp->daux[NXAUX * r + a];
        }
    }
    nlp->have_state = 0;
    return finite_n(values, nlp->nnz_jac) ? SALTO_OK : SALTO_ERR_NUMERIC;
}


// ---- objective ----

// entry (a, a + o) of DOF j's objective Hessian band, halved: w_j G2 + rho G0
static double band(const salto_nlp* nlp, int j, int a, int o) {
    const int i = 7 * a + 3 + o;
    return nlp->obj_w[j] * nlp->hess_G[i] + nlp->obj_rho * nlp->hess_G0[i];
}


// (band c)_a for DOF j's control points c
static double band_row(const salto_nlp* nlp, int j, int a, const double* c) {
    double row = 0.0;
    for (int o = -3; o <= 3; o++) {
        const int b = a + o;
        if (b >= 0 && b < nlp->ncp) row += band(nlp, j, a, o) * c[b];
    }
    return row;
}


salto_status salto_nlp_eval_f(salto_nlp* nlp, const double* x, double* f) {
    double sum = nlp->ref_c;
    for (int j = 0; j < nlp->nv && nlp->hess_dofs > 0; j++) {
        const double* c = x + j * nlp->ncp;
        for (int a = 0; a < nlp->ncp; a++) {
            sum += c[a] * band_row(nlp, j, a, c);
            if (nlp->ref_b) sum -= 2.0 * nlp->ref_b[j * nlp->ncp + a] * c[a];
        }
    }
    *f = sum;
    return isfinite(sum) ? SALTO_OK : SALTO_ERR_NUMERIC;
}


salto_status salto_nlp_eval_grad(salto_nlp* nlp, const double* x, double* grad) {
    for (int j = 0; j < nlp->nv; j++) {
        const double* c = x + j * nlp->ncp;
        for (int a = 0; a < nlp->ncp; a++) {
            double gr = nlp->hess_dofs > 0 ? 2.0 * band_row(nlp, j, a, c) : 0.0;
            if (nlp->ref_b) gr -= 2.0 * nlp->ref_b[j * nlp->ncp + a];
            grad[j * nlp->ncp + a] = gr;
        }
    }
    for (int i = nlp->ncpv; i < nlp->nx; i++) grad[i] = 0.0; // the places are not in f
    return finite_n(grad, nlp->nx) ? SALTO_OK : SALTO_ERR_NUMERIC;
}


void salto_nlp_hess_pattern(const salto_nlp* nlp, int* rows, int* cols) {
    memcpy(rows, nlp->hess_row, (size_t)nlp->nnz_hess * sizeof(int));
    memcpy(cols, nlp->hess_col, (size_t)nlp->nnz_hess * sizeof(int));
}


// The Lagrangian's curvature, block by block, in state space. Every row of a block is a
// function r(q, qd, qdd) of the state of its deps at the block's time, and the state is linear
// in the control points, s = W c with W = [N; dN; ddN] per DOF; so the block's Hessian in the
// control points is W^T S W with S the Hessian of psi = sum_r lambda_r r in the state. The
// rows are linear in f0 or, for the friction cone, quadratic, and f0 is linear in qdd (f0 =
// M qdd + h(q, qd)): S's qdd-qdd part is the cone's, exact from df0/dqdd, and its columns
// for q and qd come from forward differences of the analytic state gradient of psi: 2 ndep + 1
// gradient evaluations per block instead of 8 ndep Jacobian evaluations for central
// differences in the 4 ndep control points. A state perturbation e is made exactly by moving
// the DOF's four control points by the least-norm d with W d = e.

// the state gradient of psi = sum_r lambda_r r at xs into G (3 nd: q, qd, qdd of the deps);
// physics rows differentiated by the linear-time method whatever the run's choice
static void block_state_grad_cached(salto_nlp* nlp, const double* xs, const block* b,
                                    const double* lambda, double* G);


static void block_state_grad(salto_nlp* nlp, const double* xs, const block* b,
                             const double* lambda, double* G) {
    nlp->have_state = 0;
    block_state_grad_cached(nlp, xs, b, lambda, G);
}


// the same, reusing the kinematics in nlp->d when they are already at b's time and xs (the
// caller resets have_state whenever xs changes)
static void block_state_grad_cached(salto_nlp* nlp, const double* xs, const block* b,
                                    const double* lambda, double* G) {
    double g[16];
    nlp->hess_linear = 1;
    eval_block(nlp, xs, b, g, 1);
    nlp->hess_linear = 0;
    const int nd = b->ndep;
    for (int k = 0; k < 3 * nd + b->nxaux; k++) G[k] = 0.0;
    for (int r = 0; r < b->nrows; r++) {
        const double l = lambda[b->row0 + r];
        if (l == 0.0) continue;
        for (int jj = 0; jj < nd; jj++) {
            G[jj] += l * nlp->dq[r * nd + jj];
            G[nd + jj] += l * nlp->dqd[r * nd + jj];
            if (b->con < 0) G[2 * nd + jj] += l * nlp->dqdd[r * nd + jj];
        }
        for (int a = 0; a < b->nxaux; a++) G[3 * nd + a] += l * nlp->daux[NXAUX * r + a];
    }
}


// least-norm moves d0, d1 (4 each) of one DOF's control points that change q (d0) or qd (d1)
// by one and leave the other two state components unchanged: d = W^T (W W^T)^-1 e
static int state_moves(const block* b, double* d0, double* d1) {
    const double* W[3] = {b->N, b->dN, b->ddN};
    double A[3][3];
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++) {
            A[i][k] = 0.0;
            for (int c = 0; c < 4; c++) A[i][k] += W[i][c] * W[k][c];
        }
    }
    // inverse of the symmetric 3 x 3 Gram matrix by cofactors: columns 0 and 1 are needed
    const double c00 = A[1][1] * A[2][2] - A[1][2] * A[2][1];
    const double c01 = A[1][2] * A[2][0] - A[1][0] * A[2][2];
    const double c02 = A[1][0] * A[2][1] - A[1][1] * A[2][0];
    const double det = A[0][0] * c00 + A[0][1] * c01 + A[0][2] * c02;
    if (!(fabs(det) > 0.0) || !isfinite(det)) return 0;
    const double c11 = A[0][0] * A[2][2] - A[0][2] * A[2][0];
    const double c12 = A[0][1] * A[2][0] - A[0][0] * A[2][1];
    const double inv0[3] = {c00 / det, c01 / det, c02 / det}; // column 0 (= row 0)
    const double inv1[3] = {c01 / det, c11 / det, c12 / det}; // column 1
    for (int c = 0; c < 4; c++) {
        d0[c] = d1[c] = 0.0;
        for (int i = 0; i < 3; i++) d0[c] += W[i][c] * inv0[i], d1[c] += W[i][c] * inv1[i];
    }
    return 1;
}


// A block's Hessian from its state Hessian S (ns x ns, row-major; the q and qd columns filled
// by differences, the qdd rows with them): symmetrised (the q, qd part averaged, the qdd rows
// mirrored, the qdd-qdd part Q or zero), mapped to the control points as W^T S W and added to
// the Lagrangian Hessian's values
static void block_hess_finish(salto_nlp* nlp, int i, double* S, const double* Q, double* values) {
    const block* b = &nlp->blocks[i];
    const int nd = b->ndep, na = b->nxaux, ns = 3 * nd + na, nu = 4 * nd + na;
    double* T = nlp->Tl; // ns x nu: S W
    double* H = nlp->Hl; // nu x nu: W^T S W
    // the differenced components: q, qd (first 2 nd) and the places (last na); qdd between
#define DIFFED(a) ((a) < 2 * nd || (a) >= 3 * nd)
    for (int a = 0; a < ns; a++) {
        if (!DIFFED(a)) continue;
        for (int c = 0; c < a; c++) {
            if (!DIFFED(c)) continue;
            const double m = 0.5 * (S[a * ns + c] + S[c * ns + a]);
            S[a * ns + c] = S[c * ns + a] = m;
        }
    }
    for (int a = 2 * nd; a < 3 * nd; a++) {
        for (int c = 0; c < ns; c++) {
            if (DIFFED(c)) S[c * ns + a] = S[a * ns + c];
        }
        for (int c = 2 * nd; c < 3 * nd; c++) S[a * ns + c] = Q ? Q[(a - 2 * nd) * nd + (c - 2 * nd)] : 0.0;
    }
#undef DIFFED
    // T = S W (W maps the local control points u = 4 jj + k to the state, and the places to
    // themselves), H = W^T T
    const double* Wk[3] = {b->N, b->dN, b->ddN};
    for (int a = 0; a < ns; a++) {
        const double* Sa = S + a * ns;
        for (int jj = 0; jj < nd; jj++) {
            const double s0 = Sa[jj], s1 = Sa[nd + jj], s2 = Sa[2 * nd + jj];
            for (int k = 0; k < 4; k++) {
                T[a * nu + 4 * jj + k] = s0 * b->N[k] + s1 * b->dN[k] + s2 * b->ddN[k];
            }
        }
        for (int m = 0; m < na; m++) T[a * nu + 4 * nd + m] = Sa[3 * nd + m];
    }
    for (int u = 0; u < nu; u++) {
        for (int v = 0; v <= u; v++) {
            double sum = 0.0;
            if (u < 4 * nd) {
                const int jj = u / 4, k = u % 4;
                for (int kind = 0; kind < 3; kind++) sum += Wk[kind][k] * T[(kind * nd + jj) * nu + v];
            } else {
                sum = T[(3 * nd + u - 4 * nd) * nu + v];
            }
            H[u * nu + v] = sum;
        }
    }
    int k = nlp->blk_hess0[i];
    for (int u = 0; u < nu; u++) {
        for (int v = 0; v <= u; v++, k++) values[nlp->hess_blk[k]] += H[u * nu + v];
    }
}


// the forward-difference step for the state component of DOF j (kind 0: q, 1: qd) at block b
static double hess_step(const salto_nlp* nlp, const double* xs, const block* b, int j, int kind) {
    const double* c = xs + j * nlp->ncp + b->first;
    const double* w = kind == 0 ? b->N : b->dN;
    return 1e-7 * fmax(1.0, fabs(w[0] * c[0] + w[1] * c[1] + w[2] * c[2] + w[3] * c[3]));
}


static int block_has_lambda(const block* b, const double* lambda) {
    for (int r = 0; r < b->nrows; r++) {
        if (lambda[b->row0 + r] != 0.0) return 1;
    }
    return 0;
}


// the physics block i: the aggregate force's state Hessian, its own differences
static salto_status hess_physics(salto_nlp* nlp, int i, const double* lambda, double* values) {
    const block* b = &nlp->blocks[i];
    const int nd = b->ndep, ns = 3 * nd + b->nxaux;
    const int* dep = nlp->dep + b->dep0;
    double d[2][4];
    if (!state_moves(b, d[0], d[1])) return SALTO_ERR_NUMERIC;
    double* G0 = nlp->Jp;
    double* G1 = nlp->Jp + ns;
    double* S = nlp->Sl;
    block_state_grad(nlp, nlp->xs, b, lambda, G0);
    // the one row that is not linear in qdd: the squared friction cone, quadratic in f, so its
    // qdd-qdd curvature is exact from the f rows of the aggregate force's Jacobian F = df/dqdd
    // at x: lambda (2 / W) ((mu^2 + 1) (N F)^T (N F) - F^T F)
    double* Q = NULL;
    if (nlp->p->phases[b->phase].contact.type == SALTO_CONTACT_GROUND && lambda[b->row0 + 1] != 0.0) {
        Q = nlp->Ql;
        const salto_contact_desc* ct = &nlp->p->phases[b->phase].contact;
        const double gn = salto_v3_norm(nlp->m->gravity);
        const double W = nlp->m->mass * (gn > 0 ? gn : 9.81);
        const double w = lambda[b->row0 + 1] * 2.0 / W, mu2 = ct->friction * ct->friction;
        const int ncol = 3 * nlp->nv;
        const double* F[3] = {nlp->Jf + 3 * ncol + 2 * nlp->nv, nlp->Jf + 4 * ncol + 2 * nlp->nv,
                              nlp->Jf + 5 * ncol + 2 * nlp->nv};
        const double* Nn = ct->normal;
        for (int a = 0; a < nd; a++) {
            const double na = Nn[0] * F[0][a] + Nn[1] * F[1][a] + Nn[2] * F[2][a];
            for (int c = 0; c <= a; c++) {
                const double nc = Nn[0] * F[0][c] + Nn[1] * F[1][c] + Nn[2] * F[2][c];
                const double ff = F[0][a] * F[0][c] + F[1][a] * F[1][c] + F[2][a] * F[2][c];
                Q[a * nd + c] = Q[c * nd + a] = w * ((mu2 + 1.0) * na * nc - ff);
            }
        }
    }
    // columns q_jj (kind 0) and qd_jj (kind 1) of S by forward differences
    for (int kind = 0; kind < 2; kind++) {
        for (int jj = 0; jj < nd; jj++) {
            double* c = nlp->xs + dep[jj] * nlp->ncp + b->first;
            const double c0[4] = {c[0], c[1], c[2], c[3]};
            const double h = hess_step(nlp, nlp->xs, b, dep[jj], kind);
            for (int k = 0; k < 4; k++) c[k] = c0[k] + h * d[kind][k];
            block_state_grad(nlp, nlp->xs, b, lambda, G1);
            for (int k = 0; k < 4; k++) c[k] = c0[k];
            const int col = kind * nd + jj;
            for (int a = 0; a < ns; a++) S[a * ns + col] = (G1[a] - G0[a]) / h;
        }
    }
    for (int m = 0; m < b->nxaux; m++) {
        double* xa = nlp->xs + b->xaux[m];
        const double x0 = *xa, h = 1e-7 * fmax(1.0, fabs(x0));
        *xa = x0 + h;
        block_state_grad(nlp, nlp->xs, b, lambda, G1);
        *xa = x0;
        const int col = 3 * nd + m;
        for (int a = 0; a < ns; a++) S[a * ns + col] = (G1[a] - G0[a]) / h;
    }
    block_hess_finish(nlp, i, S, Q, values);
    return SALTO_OK;
}


// lambda . g of an impact block at (q, u)
static double impact_lagrangian(salto_nlp* nlp, const block* b, const double* lambda,
                                const double* q, const double* u) {
    double* g = nlp->imp + 2 * nlp->nv;
    memcpy(nlp->d->q, q, (size_t)nlp->nv * sizeof(double));
    impact_rows(nlp, b, u, g, NULL, NULL);
    double sum = 0.0;
    for (int r = 0; r < b->nrows; r++) sum += lambda[b->row0 + r] * g[r];
    return sum;
}


// An impact block's curvature: second central differences of lambda . g over its state (q, u)
// (steps 1e-4 of each variable's scale), u in the state's qdd slots, mapped to the control
// points by block_hess_finish. 2 (2 nv)^2 evaluations of the rows: a few milliseconds for the
// humanoid, once per impact and Hessian.
static salto_status hess_impact(salto_nlp* nlp, int i, const double* lambda, double* values) {
    const block* b = &nlp->blocks[i];
    const int nv = nlp->nv, ns = 3 * nv, n2 = 2 * nv;
    double* v = nlp->Jp; // (q, u): 2 nv <= 2 x 8 x 4 nv
    double* hv = v + n2;
    for (int j = 0; j < nv; j++) {
        const double* cp = nlp->xs + j * nlp->ncp + b->first;
        v[j] = cp[1];
        v[nv + j] = b->ddN[0] * cp[0] + b->ddN[1] * cp[1] + b->ddN[2] * cp[2] + b->ddN[3] * cp[3];
    }
    for (int a = 0; a < n2; a++) hv[a] = 1e-4 * fmax(1.0, fabs(v[a]));
    double* S = nlp->Sl;
    double* Q = nlp->Ql;
    memset(S, 0, (size_t)ns * (size_t)ns * sizeof(double));
    const double L0 = impact_lagrangian(nlp, b, lambda, v, v + nv);
    for (int a = 0; a < n2; a++) {
        const double va = v[a];
        for (int c = 0; c <= a; c++) {
            const double vc = v[c];
            double h2;
            if (a == c) {
                v[a] = va + hv[a];
                const double lp = impact_lagrangian(nlp, b, lambda, v, v + nv);
                v[a] = va - hv[a];
                const double lm = impact_lagrangian(nlp, b, lambda, v, v + nv);
                v[a] = va;
                h2 = (lp - 2.0 * L0 + lm) / (hv[a] * hv[a]);
            } else {
                double l[4];
                for (int k = 0; k < 4; k++) {
                    v[a] = va + (k < 2 ? hv[a] : -hv[a]);
                    v[c] = vc + (k % 2 == 0 ? hv[c] : -hv[c]);
                    l[k] = impact_lagrangian(nlp, b, lambda, v, v + nv);
                }
                v[a] = va, v[c] = vc;
                h2 = (l[0] - l[1] - l[2] + l[3]) / (4.0 * hv[a] * hv[c]);
            }
            // state slots: q_j at j, u_j at the qdd slot 2 nv + j
            const int sa = a < nv ? a : nv + a, sc = c < nv ? c : nv + c;
            S[sa * ns + sc] = S[sc * ns + sa] = h2;
            if (a >= nv && c >= nv) Q[(a - nv) * nv + (c - nv)] = Q[(c - nv) * nv + (a - nv)] = h2;
        }
    }
    memcpy(nlp->d->q, v, (size_t)nv * sizeof(double));
    nlp->have_state = 0;
    block_hess_finish(nlp, i, S, Q, values);
    return SALTO_OK;
}


// the other nonlinear blocks at one time on one side, [i0, i1): one forward-kinematics pass per
// perturbation serves every block that depends on the perturbed DOF
static salto_status hess_group(salto_nlp* nlp, int i0, int i1, const double* lambda,
                               double* values) {
    const block* b0 = &nlp->blocks[i0];
    double d[2][4];
    if (!state_moves(b0, d[0], d[1])) return SALTO_ERR_NUMERIC;
    // members, and their gradients and state Hessians in the arena
    int nmem = 0;
    size_t off = 0;
    int* mem = nlp->grp;
    size_t* at = nlp->grp_at;
    for (int i = i0; i < i1; i++) {
        const block* b = &nlp->blocks[i];
        if (b->con < 0 || nlp->blk_hess0[i] < 0 || !block_has_lambda(b, lambda)) continue;
        mem[nmem] = i;
        at[nmem] = off;
        const size_t ns = 3 * (size_t)b->ndep + (size_t)b->nxaux;
        off += ns + ns * ns;
        nmem++;
    }
    if (nmem == 0) return SALTO_OK;
    SALTO_ASSERT(off <= nlp->grp_cap);
    double* G1 = nlp->Jp;
    nlp->have_state = 0;
    for (int m = 0; m < nmem; m++) {
        const block* b = &nlp->blocks[mem[m]];
        block_state_grad_cached(nlp, nlp->xs, b, lambda, nlp->arena + at[m]);
    }
    // every DOF some member depends on, each state component once
    for (int j = 0; j < nlp->nv; j++) {
        int used = 0;
        for (int m = 0; m < nmem && !used; m++) {
            const block* b = &nlp->blocks[mem[m]];
            for (int jj = 0; jj < b->ndep; jj++) used |= nlp->dep[b->dep0 + jj] == j;
        }
        if (!used) continue;
        for (int kind = 0; kind < 2; kind++) {
            double* c = nlp->xs + j * nlp->ncp + b0->first;
            const double c0[4] = {c[0], c[1], c[2], c[3]};
            const double h = hess_step(nlp, nlp->xs, b0, j, kind);
            for (int k = 0; k < 4; k++) c[k] = c0[k] + h * d[kind][k];
            nlp->have_state = 0;
            for (int m = 0; m < nmem; m++) {
                const block* b = &nlp->blocks[mem[m]];
                int jj = -1;
                for (int q = 0; q < b->ndep; q++) {
                    if (nlp->dep[b->dep0 + q] == j) jj = q;
                }
                if (jj < 0) continue;
                const int nd = b->ndep, ns = 3 * nd + b->nxaux;
                const double* G0 = nlp->arena + at[m];
                double* S = nlp->arena + at[m] + ns;
                block_state_grad_cached(nlp, nlp->xs, b, lambda, G1);
                const int col = kind * nd + jj;
                for (int a = 0; a < ns; a++) S[a * ns + col] = (G1[a] - G0[a]) / h;
            }
            for (int k = 0; k < 4; k++) c[k] = c0[k];
        }
    }
    // the effective root's places, each once
    for (int m = 0; m < nmem; m++) {
        const block* bm = &nlp->blocks[mem[m]];
        for (int a = 0; a < bm->nxaux; a++) {
            const int var = bm->xaux[a];
            int seen = 0; // perturbed already, for an earlier member
            for (int q = 0; q < m && !seen; q++) {
                const block* bq = &nlp->blocks[mem[q]];
                for (int a2 = 0; a2 < bq->nxaux; a2++) seen |= bq->xaux[a2] == var;
            }
            if (seen) continue;
            double* xa = nlp->xs + var;
            const double x0 = *xa, h = 1e-7 * fmax(1.0, fabs(x0));
            *xa = x0 + h;
            nlp->have_state = 0;
            for (int q = m; q < nmem; q++) {
                const block* b = &nlp->blocks[mem[q]];
                int col = -1;
                for (int a2 = 0; a2 < b->nxaux; a2++) {
                    if (b->xaux[a2] == var) col = 3 * b->ndep + a2;
                }
                if (col < 0) continue;
                const int ns = 3 * b->ndep + b->nxaux;
                const double* G0 = nlp->arena + at[q];
                double* S = nlp->arena + at[q] + ns;
                block_state_grad_cached(nlp, nlp->xs, b, lambda, G1);
                for (int r = 0; r < ns; r++) S[r * ns + col] = (G1[r] - G0[r]) / h;
            }
            *xa = x0;
        }
    }
    nlp->have_state = 0;
    for (int m = 0; m < nmem; m++) {
        const block* b = &nlp->blocks[mem[m]];
        block_hess_finish(nlp, mem[m], nlp->arena + at[m] + 3 * b->ndep + b->nxaux, NULL, values);
    }
    return SALTO_OK;
}


salto_status salto_nlp_eval_hess(salto_nlp* nlp, const double* x, double obj_factor,
                                 const double* lambda, double* values) {
    memset(values, 0, (size_t)nlp->nnz_hess * sizeof(double));
    // the objective's constant band
    int e = 0;
    for (int j = 0; j < nlp->hess_dofs; j++) {
        for (int a = 0; a < nlp->ncp; a++) {
            for (int b = a - 3 < 0 ? 0 : a - 3; b <= a; b++, e++) {
                values[nlp->hess_obj[e]] += obj_factor * 2.0 * band(nlp, j, a, b - a);
            }
        }
    }
    if (!lambda) return SALTO_OK;

    memcpy(nlp->xs, x, (size_t)nlp->nx * sizeof(double));
    salto_status st = SALTO_OK;
    for (int i = 0; i < nlp->nblock && st == SALTO_OK;) {
        const block* b = &nlp->blocks[i];
        if (b->con < 0) {
            if (nlp->blk_hess0[i] >= 0 && block_has_lambda(b, lambda)) {
                st = b->impact ? hess_impact(nlp, i, lambda, values)
                               : hess_physics(nlp, i, lambda, values);
            }
            i++;
            continue;
        }
        // the run of blocks at this time and side (physics blocks among them are skipped)
        int i1 = i + 1;
        while (i1 < nlp->nblock && nlp->blocks[i1].t == b->t && nlp->blocks[i1].side == b->side &&
               nlp->blocks[i1].first == b->first) {
            i1++;
        }
        st = hess_group(nlp, i, i1, lambda, values);
        for (int k = i; k < i1 && st == SALTO_OK; k++) {
            const block* bk = &nlp->blocks[k];
            if (bk->con < 0 && nlp->blk_hess0[k] >= 0 && block_has_lambda(bk, lambda)) {
                st = hess_physics(nlp, k, lambda, values);
            }
        }
        i = i1;
    }
    nlp->have_state = 0;
    if (st != SALTO_OK) return st;
    return finite_n(values, nlp->nnz_hess) ? SALTO_OK : SALTO_ERR_NUMERIC;
}


// ---- initial guess ----

// piecewise-linear interpolation of DOF j's pose keyframes at t (0 without keyframes)
static double keyframe_value(const salto_problem_desc* p, int j, double t) {
    double t0 = -1.0, v0 = 0.0, t1 = -1.0, v1 = 0.0;
    int have0 = 0, have1 = 0;
    for (int c = 0; c < p->ncon; c++) {
        const salto_constraint_desc* cd = &p->cons[c];
        if (cd->type != SALTO_CON_POSE) continue;
        for (int k = 0; k < cd->ndof; k++) {
            if (cd->dof[k] != j) continue;
            if (cd->time <= t && (!have0 || cd->time >= t0)) t0 = cd->time, v0 = cd->value[k], have0 = 1;
            if (cd->time >= t && (!have1 || cd->time <= t1)) t1 = cd->time, v1 = cd->value[k], have1 = 1;
        }
    }
    if (have0 && have1) return t1 > t0 ? v0 + (v1 - v0) * (t - t0) / (t1 - t0) : v0;
    if (have0) return v0;
    if (have1) return v1;
    return 0.0;
}


// a ballistic flight's c0 and v0: the least-squares parabola through the splines' centre of
// mass at the phase's knots (its ends included), along each translation axis a:
// a . c(t_k) - (a . g) tau_k^2 / 2 = c0 + v0 tau_k
static void init_parabola(const salto_nlp* nlp, double* x, int ph) {
    const salto_problem_desc* p = nlp->p;
    const salto_model* m = nlp->m;
    salto_data* d = nlp->d;
    const int nt = nlp->bal_nt;
    const double t0 = p->phases[ph].start, t1 = t0 + p->phases[ph].duration;
    double s1 = 0, st = 0, stt = 0, sy[3] = {0, 0, 0}, sty[3] = {0, 0, 0}, prev = -1.0;
    for (int j = 3; j <= nlp->ncp; j++) {
        const double t = salto_bspline_knot(&nlp->spline, j);
        if (t == prev || t < t0 - 1e-12 || t > t1 + 1e-12) continue;
        prev = t;
        state_raw(nlp, x, t, d->q, d->qd, NULL);
        salto_fk(m, d, SALTO_FK_VEL);
        salto_link_inertias(m, d);
        double c[3];
        salto_com(m, d, c, NULL);
        const double tau = t - t0;
        s1 += 1.0, st += tau, stt += tau * tau;
        for (int k = 0; k < nt; k++) {
            const double y = salto_v3_dot(nlp->bal_a[k], c) -
                             0.5 * salto_v3_dot(nlp->bal_a[k], m->gravity) * tau * tau;
            sy[k] += y, sty[k] += tau * y;
        }
    }
    const double det = s1 * stt - st * st;
    double* pl = x + nlp->bal[ph];
    for (int k = 0; k < nt; k++) {
        pl[nt + k] = det > 0 ? (s1 * sty[k] - st * sy[k]) / det : 0.0;
        pl[k] = s1 > 0 ? (sy[k] - pl[nt + k] * st) / s1 : 0.0;
    }
}


// a flight's momentum constants: the mean over the phase's slices of the splines' momentum
// (the linear part with gravity's line taken off), divided by the phase's duration as the
// rows read them, so that the rows start balanced
static void init_momentum(const salto_nlp* nlp, double* x, int ph) {
    const salto_problem_desc* p = nlp->p;
    const salto_model* m = nlp->m;
    salto_data* d = nlp->d;
    const int nr = flight_nrows(nlp, ph);
    double* h0 = x + nlp->mom[ph];
    for (int r = 0; r < nr; r++) h0[r] = 0.0;
    int n = 0;
    for (int k = 0; k < nlp->nslice; k++) {
        if (nlp->slice_ph[k] != ph) continue;
        const double t = nlp->slice_t[k];
        state_raw(nlp, x, t, d->q, d->qd, NULL);
        salto_p0_jac(m, d, NULL); // the momentum into d->p0, as eval_momentum has it
        double c[3];
        salto_com(m, d, c, NULL);
        for (int r = 0; r < nr; r++) {
            h0[r] += momentum_part(m, d->p0, c, momentum_comp(nlp, r), t - p->phases[ph].start);
        }
        n++;
    }
    for (int r = 0; r < nr && n > 0; r++) h0[r] /= n * p->phases[ph].duration;
}


// the contact places of the holds: where the sites are at the phase's start under x; the
// flights' momentum constants
static void init_places(const salto_nlp* nlp, double* x) {
    const salto_problem_desc* p = nlp->p;
    salto_data* d = nlp->d;
    for (int i = 0; i < p->nphase; i++) {
        if (nlp->mom[i] >= 0) init_momentum(nlp, x, i);
    }
    for (int c = 0; c < p->ncon; c++) {
        const salto_constraint_desc* cd = &p->cons[c];
        if (nlp->con_aux[c] < 0) continue;
        if (cd->type == SALTO_CON_COM_PARABOLA) {
            init_parabola(nlp, x, cd->phase);
            continue;
        }
        if (cd->type == SALTO_CON_BODY_HEADING) {
            double x0[3], x1[3], Tx[3], Ty[3];
            state_raw(nlp, x, p->phases[cd->hold_phase - 1].start, d->q, NULL, NULL);
            salto_fk(nlp->m, d, SALTO_FK_POS);
            salto_site_pos(nlp->m, d, cd->site0, x0);
            salto_site_pos(nlp->m, d, cd->site, x1);
            for (int k = 0; k < 3; k++) x1[k] -= x0[k];
            salto_contact_frame(cd->dir, 0, Tx, Ty);
            x[nlp->con_aux[c]] = atan2(salto_v3_dot(x1, Ty), salto_v3_dot(x1, Tx));
            continue;
        }
        double e[3][3], target[3], xs[3];
        int is_aux[3], naux = 0;
        const int nr = hold_rows(p, cd, nlp->planar, e, is_aux, target, &naux);
        state_raw(nlp, x, p->phases[cd->hold_phase - 1].start, d->q, NULL, NULL);
        salto_fk(nlp->m, d, SALTO_FK_POS);
        salto_site_pos(nlp->m, d, cd->site, xs);
        int a = 0;
        for (int r = 0; r < nr; r++) {
            if (is_aux[r]) x[nlp->con_aux[c] + a++] = salto_v3_dot(e[r], xs);
        }
    }
}


// The root's vertical DOF: the translation DOF along gravity, -1 if there is none; *sign is
// +1 when its positive direction is up.
static int vertical_root_dof(const salto_model* m, double* sign) {
    const double gn = salto_v3_norm(m->gravity);
    if (!(gn > 0.0)) return -1;
    int tdof[3];
    double axes[3][3];
    const int nt = salto_model_root_translation(m, tdof, axes);
    for (int k = 0; k < nt; k++) {
        const double c = salto_v3_dot(axes[k], m->gravity);
        if (fabs(c) >= 0.999 * gn) {
            *sign = c < 0 ? 1.0 : -1.0;
            return tdof[k];
        }
    }
    return -1;
}


// The lift of the ballistic guess at t: in a flight phase [t0, t1], the parabola
// (|g| / 2) (t - t0) (t1 - t) along -g, whose second derivative is gravity's; 0 elsewhere.
static double ballistic_lift(const salto_problem_desc* p, double t, double sign) {
    const double gn = salto_v3_norm(p->model->gravity);
    for (int i = 0; i < p->nphase; i++) {
        const salto_phase_desc* ph = &p->phases[i];
        if (ph->contact.type != SALTO_CONTACT_NONE) continue;
        const double t0 = ph->start, t1 = ph->start + ph->duration;
        if (t > t0 && t < t1) return sign * 0.5 * gn * (t - t0) * (t1 - t);
    }
    return 0.0;
}


// a guess's control points kept inside the variable bounds, and the contact places where the
// sites are at each phase's start
static void finish_guess(const salto_nlp* nlp, double* x) {
    for (int i = 0; i < nlp->ncpv; i++) x[i] = fmin(fmax(x[i], nlp->x_lo[i]), nlp->x_hi[i]);
    init_places(nlp, x);
}


int salto_nlp_has_motion_spline(const salto_nlp* nlp, const salto_motion* mo) {
    if (mo->ncp != nlp->ncp || !mo->control || !mo->knot) return 0;
    for (int a = 0; a < nlp->ncp + 4; a++) {
        if (fabs(mo->knot[a] - salto_bspline_knot(&nlp->spline, a)) > 1e-12) return 0;
    }
    return 1;
}


void salto_nlp_guess_from_motion(const salto_nlp* nlp, const salto_motion* mo, double* x) {
    const salto_problem_desc* p = nlp->p;
    // its control points when the spline is the same (the same knots: phase durations move
    // them) or has as many knots in every phase (durations changed, the layout kept; up to 64
    // phases), else its frames sampled at the Greville abscissae (played over this duration)
    int same = mo->ncp == nlp->ncp && mo->control && mo->knot;
    if (same && !salto_nlp_has_motion_spline(nlp, mo)) {
        int c0[64], c1[64];
        same = p->nphase > 1 && p->nphase <= 64 && !p->junction_c2 &&
               salto_motion_knot_counts(mo, p->nphase, c0);
        if (same) knots_per_phase(nlp, c1);
        for (int i = 0; same && i < p->nphase; i++) same = c0[i] == c1[i];
    }
    if (same) {
        memcpy(x, mo->control, (size_t)nlp->ncpv * sizeof(double));
    } else {
        double* q = nlp->J3; // scratch of 3 nv doubles
        for (int a = 0; a < nlp->ncp; a++) {
            const double t = salto_bspline_greville(&nlp->spline, a);
            salto_motion_sample(mo, t * mo->duration / p->duration, q);
            for (int j = 0; j < nlp->nv; j++) x[j * nlp->ncp + a] = q[j];
        }
    }
    finish_guess(nlp, x);
}


// the number of interior knots strictly inside each phase of an NLP's spline, into n (nphase)
static void knots_per_phase(const salto_nlp* nlp, int* n) {
    const salto_problem_desc* p = nlp->p;
    for (int i = 0; i < p->nphase; i++) n[i] = 0;
    for (int a = 4; a < nlp->ncp; a++) {
        const double u = salto_bspline_knot(&nlp->spline, a);
        for (int i = 0; i < p->nphase; i++) {
            const double t0 = p->phases[i].start, t1 = t0 + p->phases[i].duration;
            if (u > t0 + 1e-12 && u < t1 - 1e-12) n[i]++;
        }
    }
}


void salto_nlp_guess_from_solution(const salto_nlp* nlp, const salto_nlp* prev,
                                   const double* xprev, double* x) {
    const salto_problem_desc* p = nlp->p;
    const salto_problem_desc* pp = prev->p;
    const int by_phase = pp->nphase == p->nphase;
    // the same number of knots in every phase: the splines differ only by each phase's
    // stretch, and the control points carry over as they are
    int same = by_phase && prev->ncp == nlp->ncp && prev->nv == nlp->nv && p->nphase <= 64;
    if (same) {
        int n0[64], n1[64];
        knots_per_phase(nlp, n1);
        knots_per_phase(prev, n0);
        for (int i = 0; i < p->nphase; i++) same &= n0[i] == n1[i];
    }
    if (same) {
        memcpy(x, xprev, (size_t)nlp->ncpv * sizeof(double));
    } else {
        // else its values at this spline's Greville abscissae, as control points (the
        // variation-diminishing approximation: smoother than interpolating there, and
        // measured to start the dismount's re-solve 15 iterations closer)
        double* q = nlp->J3; // scratch of 3 nv doubles
        for (int a = 0; a < nlp->ncp; a++) {
            const double t = salto_bspline_greville(&nlp->spline, a);
            double tp = t * pp->duration / p->duration;
            if (by_phase) {
                // the same fraction of the same phase
                int i = salto_problem_phase_at(p, t);
                if (i < 0) i = t <= 0 ? 0 : p->nphase - 1;
                const double s = (t - p->phases[i].start) / p->phases[i].duration;
                tp = pp->phases[i].start + s * pp->phases[i].duration;
            }
            tp = fmin(fmax(tp, 0.0), pp->duration);
            state_raw(prev, xprev, tp, q, NULL, NULL);
            for (int j = 0; j < nlp->nv; j++) x[j * nlp->ncp + a] = q[j];
        }
    }
    finish_guess(nlp, x);
}


void salto_nlp_initial_guess(const salto_nlp* nlp, double* x) {
    const salto_problem_desc* p = nlp->p;
    const salto_guess_desc* gd = &p->guess;
    if (nlp->warm) {
        salto_nlp_guess_from_motion(nlp, nlp->warm, x);
        return;
    }
    double zsign = 0.0;
    const int jz = gd->ballistic && p->physics ? vertical_root_dof(nlp->m, &zsign) : -1;
    for (int a = 0; a < nlp->ncp; a++) {
        const double t = salto_bspline_greville(&nlp->spline, a);
        for (int j = 0; j < nlp->nv; j++) {
            double v = keyframe_value(p, j, t);
            if (j == jz) v += ballistic_lift(p, t, zsign);
            if (gd->rot_phase >= 0 && j == gd->rot_dof) {
                // whole-body rotation over the phase, in proportion to the time in it
                const salto_phase_desc* ph = &p->phases[gd->rot_phase];
                double s = (t - ph->start) / ph->duration;
                s = s < 0 ? 0 : s > 1 ? 1 : s;
                v += gd->rot_angle * s;
            }
            // inside the variable bounds
            const int i = j * nlp->ncp + a;
            if (v < nlp->x_lo[i]) v = nlp->x_lo[i];
            if (v > nlp->x_hi[i]) v = nlp->x_hi[i];
            x[i] = v;
        }
    }
    init_places(nlp, x);
}


// ---- names ----

static int row_block(const salto_nlp* nlp, int r) {
    int lo = 0, hi = nlp->nblock - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (nlp->blocks[mid].row0 <= r) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}


int salto_nlp_eval_times(const salto_nlp* nlp, double* times) {
    int n = 0;
    for (int i = 0; i < nlp->nblock; i++) {
        const double t = nlp->blocks[i].t;
        if (i > 0 && t == nlp->blocks[i - 1].t) continue;
        if (times) times[n] = t;
        n++;
    }
    return n;
}


double salto_nlp_row_time(const salto_nlp* nlp, int r) {
    return nlp->blocks[row_block(nlp, r)].t;
}


// the same block in two NLPs built on one problem's constraints (slices may differ)
static int same_block(const block* a, const block* b) {
    return a->t == b->t && a->con == b->con && a->phase == b->phase && a->side == b->side &&
           a->impact == b->impact &&
           a->nrows == b->nrows && a->link == b->link && a->point[0] == b->point[0] &&
           a->point[1] == b->point[1] && a->point[2] == b->point[2];
}


int salto_nlp_map_rows(const salto_nlp* from, const salto_nlp* to, int* map) {
    for (int r = 0; r < to->ng; r++) map[r] = -1;
    // both block lists are sorted by time, constraint and phase: walk them together
    int matched = 0, i = 0;
    for (int j = 0; j < to->nblock; j++) {
        const block* b = &to->blocks[j];
        while (i < from->nblock && (from->blocks[i].t < b->t ||
                                    (from->blocks[i].t == b->t && !same_block(&from->blocks[i], b) &&
                                     cmp_block(&from->blocks[i], b) < 0))) {
            i++;
        }
        if (i < from->nblock && same_block(&from->blocks[i], b)) {
            for (int r = 0; r < b->nrows; r++) map[b->row0 + r] = from->blocks[i].row0 + r;
            matched += b->nrows;
            i++;
        }
    }
    return matched;
}


void salto_nlp_row_name(const salto_nlp* nlp, int r, char* buf, size_t n) {
    const block* b = &nlp->blocks[row_block(nlp, r)];
    if (b->con < 0) {
        // physics: the phase's contact and the row's meaning
        static const char* const flight3[6] = {"n_x", "n_y", "n_z", "f_x", "f_y", "f_z"};
        static const char* const flight2[3] = {"n_y", "f_x", "f_z"};
        static const char* const ground3[8] = {"normal force", "friction cone",
                                               "centre of pressure -T_x", "centre of pressure +T_x",
                                               "centre of pressure -T_y", "centre of pressure +T_y",
                                               "twist -", "twist +"};
        static const char* const ground2[4] = {"normal force", "friction cone",
                                               "centre of pressure -x", "centre of pressure +x"};
        const salto_phase_desc* ph = &nlp->p->phases[b->phase];
        int k = r - b->row0;
        const int planar = nlp->planar;
        if (b->impact) {
            const int nj = nlp->nv - nlp->m->nroot;
            char what[160];
            if (k < nj) {
                snprintf(what, sizeof what, "impulsive torque at '%s'",
                         nlp->m->link_name[nlp->m->nroot + k]);
            } else {
                k -= nj;
                snprintf(what, sizeof what, "%s of the impulse",
                         (planar ? ground2 : ground3)[k]);
            }
            snprintf(buf, n, "impact %s at the start of phase '%s', t = %.3f s (%s:%d:%d)", what,
                     ph->name, b->t, ph->contact.loc.file ? ph->contact.loc.file : "?",
                     ph->contact.loc.line, ph->contact.loc.col);
            return;
        }
        static const char* const com3[3] = {"torque about the centre of mass x",
                                            "torque about the centre of mass y",
                                            "torque about the centre of mass z"};
        static const char* const mom[6] = {
            "angular momentum x", "angular momentum y", "angular momentum z",
            "linear momentum x",  "linear momentum y",  "linear momentum z"};
        const int momentum = nlp->mom[b->phase] >= 0;
        const char* what = ph->contact.type == SALTO_CONTACT_BAR      ? "torque about the bar"
                           : ph->contact.type == SALTO_CONTACT_GROUND ? (planar ? ground2 : ground3)[k]
                           : momentum                                 ? mom[momentum_comp(nlp, k)]
                           : nlp->bal[b->phase] >= 0                  ? com3[planar ? 1 : k]
                                                                      : (planar ? flight2 : flight3)[k];
        const char* kind = ph->contact.type == SALTO_CONTACT_BAR      ? "bar"
                           : ph->contact.type == SALTO_CONTACT_GROUND ? "ground"
                           : momentum                                 ? "flight"
                                                                      : "flight f0";
        snprintf(buf, n, "%s %s in phase '%s' at t = %.3f s (%s:%d:%d)", kind, what, ph->name, b->t,
                 ph->loc.file ? ph->loc.file : "?", ph->loc.line, ph->loc.col);
        return;
    }
    const salto_constraint_desc* cd = &nlp->p->cons[b->con];
    const salto_model* m = nlp->m;
    const int k = r - b->row0;
    static const char* const axis[3] = {"x", "y", "z"};
    char what[160];
    switch (cd->type) {
    case SALTO_CON_SITE_AT:
    case SALTO_CON_SITE_STILL:
        snprintf(what, sizeof what, "'%s' %s", m->site_name[cd->site], axis[b->comp[k]]);
        break;
    case SALTO_CON_BODY_STILL:
        snprintf(what, sizeof what, "'%s' turning about %s", m->site_name[cd->site],
                 axis[b->comp[k]]);
        break;
    case SALTO_CON_BODY_HEADING:
        snprintf(what, sizeof what, "'%s' heading from '%s' about the normal",
                 m->site_name[cd->site], m->site_name[cd->site0]);
        break;
    case SALTO_CON_BODY_LEVEL:
        snprintf(what, sizeof what, "'%s' level across the line from '%s'",
                 m->site_name[cd->site], m->site_name[cd->site0]);
        break;
    case SALTO_CON_SITE_HOLD: {
        const int bar = nlp->p->phases[cd->hold_phase - 1].contact.type == SALTO_CONTACT_BAR;
        const int planar = nlp->planar;
        static const char* const bar3[3] = {"across the bar", "across the bar", "along the bar"};
        static const char* const ground3[3] = {"along T_x", "along T_y", "off the ground"};
        static const char* const ground2[2] = {"along x", "off the ground"};
        const char* w = bar ? (planar ? axis[b->comp[k] == 0 ? 0 : 2] : bar3[k])
                            : (planar ? ground2[k] : ground3[k]);
        snprintf(what, sizeof what, "'%s' %s", m->site_name[cd->site], w);
        break;
    }
    case SALTO_CON_SITE_ON_LINE:
    case SALTO_CON_SITE_ON_PLANE:
        snprintf(what, sizeof what, "'%s'", m->site_name[cd->site]);
        break;
    case SALTO_CON_POSE:
    case SALTO_CON_VELOCITY:
        snprintf(what, sizeof what, "'%s'", m->link_name[cd->dof[k]]);
        break;
    case SALTO_CON_COM_POSITION:
    case SALTO_CON_COM_VELOCITY:
        snprintf(what, sizeof what, "%s", axis[b->comp[k]]);
        break;
    case SALTO_CON_COM_PARABOLA:
    case SALTO_CON_COM_PARABOLA_VEL:
        snprintf(what, sizeof what, "along '%s'", m->link_name[nlp->bal_tdof[k]]);
        break;
    case SALTO_CON_ABOVE_GROUND:
        snprintf(what, sizeof what, "body '%s'", m->body_name[m->link_body[b->link]]);
        break;
    default:
        what[0] = '\0';
        break;
    }
    char hold[120] = "";
    if (cd->hold_phase > 0) {
        snprintf(hold, sizeof hold, "%s of phase '%s': ", is_parabola(cd->type) ? "flight" : "hold",
                 nlp->p->phases[cd->hold_phase - 1].name);
    }
    snprintf(buf, n, "%s%s %s at t = %.3f s (%s:%d:%d)", hold, salto_constraint_name(cd->type), what, b->t,
             cd->loc.file ? cd->loc.file : "?", cd->loc.line, cd->loc.col);
}


// ---- contact drift ----

double salto_nlp_contact_drift(const salto_nlp* nlp, const double* x, int density, int* site,
                               int* phase, double* time) {
    const salto_problem_desc* p = nlp->p;
    const salto_model* m = nlp->m;
    salto_data* d = nlp->d;
    const int n = (density > 0 ? density : 10) * (nlp->nslice > 1 ? nlp->nslice : 2);
    double worst = 0.0;
    if (site) *site = -1;
    if (phase) *phase = -1;
    if (time) *time = 0.0;
    for (int ph = 0; ph < p->nphase; ph++) {
        const salto_contact_desc* ct = &p->phases[ph].contact;
        if (ct->type == SALTO_CONTACT_NONE || !ct->hold) continue;
        const double t0 = p->phases[ph].start, T = p->phases[ph].duration;
        double ref[8][3];
        for (int k = 0; k <= n; k++) {
            const double t = k == n ? t0 + T : t0 + T * k / n;
            // the limit from inside the phase at its ends (the spline is continuous in q)
            salto_nlp_state(nlp, x, t, d->q, NULL, NULL);
            salto_fk(m, d, SALTO_FK_POS);
            for (int s = 0; s < ct->nsite && s < 8; s++) {
                double pos[3];
                salto_site_pos(m, d, ct->site[s], pos);
                if (k == 0) memcpy(ref[s], pos, sizeof pos);
                const double dx = pos[0] - ref[s][0], dy = pos[1] - ref[s][1], dz = pos[2] - ref[s][2];
                const double dist = sqrt(dx * dx + dy * dy + dz * dz);
                if (dist > worst) {
                    worst = dist;
                    if (site) *site = ct->site[s];
                    if (phase) *phase = ph;
                    if (time) *time = t;
                }
            }
        }
    }
    return worst; // the evaluations reset their kinematics cache on entry: d is free scratch
}
