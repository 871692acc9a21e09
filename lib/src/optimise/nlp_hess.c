// nlp_hess.c: the Lagrangian Hessian: its pattern (the objective's band and each nonlinear
// block's dense square) and its values, the constraints' curvature block by block in the
// state of the block's time
#include "nlp_priv.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/aggregate.h"
#include "salto/bspline.h"
#include "salto/budget.h"
#include "salto/data.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"


// ---- the Lagrangian Hessian's pattern ----
//
// Lower triangle of: the objective's nlp_band (half-width 3 in each DOF's control points) and,
// for every nonlinear block, the dense square of its variables (four control points of each
// dependency). Pairs are collected, sorted and made unique; each source entry keeps the index
// of its pattern slot.

static int block_linear(const salto_nlp* nlp, const block* b) {
    if (b->junc) return 1; // bilinear in c and the durations: nlp_time_hess
    if (b->con < 0) return 0;
    const salto_constraint_type t = nlp_cd(nlp, b->con)->type;
    return t == SALTO_CON_POSE || t == SALTO_CON_VELOCITY || t == SALTO_CON_JOINT_RANGE;
}


// variable index of local variable u of block b (dependency u / 4, control point u % 4)
static int block_var(const salto_nlp* nlp, const block* b, int u) {
    if (u >= 4 * b->ndep) return b->xaux[u - 4 * b->ndep]; // the effective root's places
    return nlp->dep[b->dep0 + u / 4] * nlp->ncp + b->first + u % 4;
}


// The memory the NLP holds once built, estimated from its sizes (bytes): the blocks, the
// Jacobian's pattern, the rows' and variables' arrays, the Hessian's slots (npair of them, one
// int each) and pattern (nhess entries), and the evaluation scratch, which grows as the square
// of the DOFs (about 54 nv^2 doubles: the Hessian's state blocks). Checked against what the
// build allocates through salto_malloc (tests/test_nlp.c, nlp_memory_estimate).
static double steady_bytes(const salto_nlp* nlp, double npair, double nhess) {
    const double nv = nlp->nv, nball = nlp->nblock + nlp->nobjblk;
    return (double)sizeof(block) * nball + 8.0 * nlp->nnz_jac + 32.0 * (nlp->ng + nlp->nobjrow) +
           48.0 * nlp->nx + 4.0 * npair + 8.0 * nhess + 8.0 * (60.0 * nv * nv + 600.0 * nv) +
           64.0 * nlp->nslice + 56.0 * nlp->ncp + 65536.0;
}


// What the solve adds to the built NLP (bytes): IPOPT's vectors and matrices and the KKT
// system's factor, which grow with the non-zeros of the Jacobian and the Hessian and with the
// rows and variables. Measured with salto's own KKT factorisation on back_tuck, leap, luxo_jump
// and monkey_bars from 8e5 to 3e6 non-zeros: 134 to 173 bytes per non-zero (peak resident
// memory over three iterations less the built NLP's, 2026-11-28); 200 taken.
static double solve_bytes(const salto_nlp* nlp) {
    return 200.0 * ((double)nlp->nnz_jac + nlp->nnz_hess) + 120.0 * ((double)nlp->nx + nlp->ng);
}


double salto_nlp_memory(const salto_nlp* nlp, int solve) {
    return solve ? nlp->mem_steady + solve_bytes(nlp) : nlp->mem_build;
}


salto_status salto_nlp_check_memory(const salto_nlp* nlp, salto_error* err) {
    char what[512];
    snprintf(what, sizeof what, "%s: solving its NLP (%d variables, %d constraints, %d + %d "
             "non-zeros)", nlp->p->path, nlp->nx, nlp->ng, nlp->nnz_jac, nlp->nnz_hess);
    return salto_budget_check(salto_nlp_memory(nlp, 1), salto_loc_none(), what, err);
}


// a pattern past what ints index (under no memory limit, salto --max-memory none): bad input,
// not memory running out
static salto_status too_many_entries(const salto_nlp* nlp, salto_error* err) {
    return SALTO_FAIL(err, SALTO_ERR_INVALID, nlp->p->size_loc,
                      "the NLP's Hessian has over a billion entries to index (%d slices, %d "
                      "control points per DOF, %d DOFs): use fewer slices or control points",
                      nlp->nslice, nlp->ncp, nlp->nv);
}


salto_status nlp_build_hessian_pattern(salto_nlp* nlp, salto_error* err) {
    const int ncp = nlp->ncp;
    const long nx = nlp->nx;
    long nobj = nlp->obj.dofs * (4L * ncp - 6);
    long nblk = 0;
    const int nball = nlp->nblock + nlp->nobjblk; // the objective's blocks too
    nlp->hess.blk0 = salto_malloc((size_t)(nball + 1) * sizeof(int));
    if (!nlp->hess.blk0) return SALTO_ERR_NOMEM;
    for (int i = 0; i < nball; i++) {
        const block* b = &nlp->blocks[i];
        if (block_linear(nlp, b)) {
            nlp->hess.blk0[i] = -1;
            continue;
        }
        nlp->hess.blk0[i] = (int)nblk;
        const long nu = 4L * b->ndep + b->nxaux;
        nblk += nu * (nu + 1) / 2;
        if (nblk > INT_MAX / 2) return too_many_entries(nlp, err); // more than the pattern indexes
    }
    // a contact_jerk pair's cross terms: its first block's variables by its second's
    long njk = 0;
    nlp->hess.jk0 = salto_malloc((size_t)(nlp->njk + 1) * sizeof(long));
    if (!nlp->hess.jk0) return SALTO_ERR_NOMEM;
    for (int q = 0; q < nlp->njk; q++) {
        const block* a = &nlp->blocks[nlp->jk_a[q]];
        const block* b = &nlp->blocks[nlp->jk_b[q]];
        nlp->hess.jk0[q] = njk;
        njk += (4L * a->ndep + a->nxaux) * (4L * b->ndep + b->nxaux);
        if (nblk + njk > INT_MAX / 2) return too_many_entries(nlp, err);
    }
    const long ntime = nlp_time_hess_pairs(nlp, NULL);
    // the memory the pattern's sort takes while it runs (the pairs, two keys and two places
    // each: 32 bytes a pair), checked with the NLP's before it is allocated
    {
        const double npair = (double)(nobj + nblk + njk + ntime);
        nlp->mem_build = steady_bytes(nlp, npair, npair) + 32.0 * npair;
        char what[512];
        snprintf(what, sizeof what, "%s: building its NLP (%d slices, %d control points per DOF, "
                 "%d DOFs, %.0f Hessian entries to sort)", nlp->p->path, nlp->nslice, nlp->ncp,
                 nlp->nv, npair);
        if (salto_budget_check(nlp->mem_build, salto_loc_none(), what, err) != SALTO_OK) {
            return SALTO_ERR_INVALID;
        }
    }
    long* pairs = salto_malloc((size_t)(nobj + nblk + njk + ntime + 1) * sizeof(long));
    nlp->hess.obj = salto_malloc((size_t)(nobj + 1) * sizeof(int));
    nlp->hess.blk = salto_malloc((size_t)(nblk + 1) * sizeof(int));
    nlp->hess.jk = salto_malloc((size_t)(njk + 1) * sizeof(int));
    if (!pairs || !nlp->hess.obj || !nlp->hess.blk || !nlp->hess.jk) {
        salto_free(pairs);
        return SALTO_ERR_NOMEM;
    }
    // key of (r, c), r >= c: r nx + c
    long n = 0;
    for (int j = 0; j < nlp->obj.dofs; j++) {
        for (int a = 0; a < ncp; a++) {
            for (int b = a - 3 < 0 ? 0 : a - 3; b <= a; b++) pairs[n++] = (long)(j * ncp + a) * nx + j * ncp + b;
        }
    }
    for (int i = 0; i < nball; i++) {
        const block* b = &nlp->blocks[i];
        if (nlp->hess.blk0[i] < 0) continue;
        const int nu = 4 * b->ndep + b->nxaux;
        for (int u = 0; u < nu; u++) {
            for (int v = 0; v <= u; v++) {
                const long r = block_var(nlp, b, u), c = block_var(nlp, b, v);
                pairs[n++] = r >= c ? r * nx + c : c * nx + r;
            }
        }
    }
    for (int q = 0; q < nlp->njk; q++) {
        const block* a = &nlp->blocks[nlp->jk_a[q]];
        const block* b = &nlp->blocks[nlp->jk_b[q]];
        const int nua = 4 * a->ndep + a->nxaux, nub = 4 * b->ndep + b->nxaux;
        for (int u = 0; u < nua; u++) {
            for (int v = 0; v < nub; v++) {
                const long r = block_var(nlp, a, u), c = block_var(nlp, b, v);
                pairs[n++] = r >= c ? r * nx + c : c * nx + r;
            }
        }
    }
    n += nlp_time_hess_pairs(nlp, pairs + n);
    // sorted by a radix sort that carries each pair's place (16 bits a pass, as many passes as
    // the largest key needs), then made unique: each place's slot is its key's rank
    long* key = salto_malloc((size_t)(n + 1) * sizeof(long));
    long* key2 = salto_malloc((size_t)(n + 1) * sizeof(long));
    int* at = salto_malloc((size_t)(n + 1) * sizeof(int));
    int* at2 = salto_malloc((size_t)(n + 1) * sizeof(int));
    int* count = salto_malloc(65537 * sizeof(int));
    if (!key || !key2 || !at || !at2 || !count) {
        salto_free(pairs), salto_free(key), salto_free(key2), salto_free(at), salto_free(at2);
        salto_free(count);
        return SALTO_ERR_NOMEM;
    }
    long kmax = 0;
    for (long k = 0; k < n; k++) key[k] = pairs[k], at[k] = (int)k, kmax = pairs[k] > kmax ? pairs[k] : kmax;
    for (int shift = 0; shift < 63 && (kmax >> shift) > 0; shift += 16) {
        memset(count, 0, 65537 * sizeof(int));
        for (long k = 0; k < n; k++) count[((key[k] >> shift) & 0xffff) + 1]++;
        for (int d = 0; d < 65536; d++) count[d + 1] += count[d];
        for (long k = 0; k < n; k++) {
            const int dst = count[(key[k] >> shift) & 0xffff]++;
            key2[dst] = key[k], at2[dst] = at[k];
        }
        long* tk = key;
        key = key2, key2 = tk;
        int* ta = at;
        at = at2, at2 = ta;
    }
    int* slot = at2; // the slot of each pair, by its place
    long m = 0;
    for (long k = 0; k < n; k++) {
        if (m == 0 || key[k] != key[m - 1]) key[m++] = key[k];
        slot[at[k]] = (int)(m - 1);
    }
    nlp->nnz_hess = (int)m;
    nlp->hess.row = salto_malloc((size_t)(m + 1) * sizeof(int));
    nlp->hess.col = salto_malloc((size_t)(m + 1) * sizeof(int));
    salto_status st = SALTO_ERR_NOMEM;
    if (nlp->hess.row && nlp->hess.col) {
        for (long k = 0; k < m; k++) {
            nlp->hess.row[k] = (int)(key[k] / nx);
            nlp->hess.col[k] = (int)(key[k] % nx);
        }
        for (long k = 0; k < nobj; k++) nlp->hess.obj[k] = slot[k];
        for (long k = 0; k < nblk; k++) nlp->hess.blk[k] = slot[nobj + k];
        for (long k = 0; k < njk; k++) nlp->hess.jk[k] = slot[nobj + nblk + k];
        st = nlp_time_hess_slots(nlp, slot + nobj + nblk + njk);
        nlp->mem_steady = steady_bytes(nlp, (double)n, (double)m);
    }
    salto_free(pairs), salto_free(key), salto_free(key2), salto_free(at), salto_free(at2);
    salto_free(count);
    return st;
}


void salto_nlp_hess_pattern(const salto_nlp* nlp, int* rows, int* cols) {
    memcpy(rows, nlp->hess.row, (size_t)nlp->nnz_hess * sizeof(int));
    memcpy(cols, nlp->hess.col, (size_t)nlp->nnz_hess * sizeof(int));
}


// The Lagrangian's curvature, block by block, in state space. Every row of a block is a
// function r(q, qd, qdd) of the state of its deps at the block's time, and the state is linear
// in the control points, s = W c with W = [N; dN; ddN] per DOF; so the block's Hessian in the
// control points is W^T S W with S the Hessian of psi = sum_r lambda_r r in the state. The
// rows are linear in f0 or, for the friction cone, quadratic, and f0 is linear in qdd (f0 =
// M qdd + h(q, qd)): S's qdd-qdd part is the cone's, exact from df0/dqdd, and its q columns
// come from forward differences of the analytic state gradient of psi; its qd columns follow
// from the rows' structure (hess_physics, hess_group): ndep + 1 gradient evaluations per block
// (and one per place) instead of 8 ndep Jacobian evaluations for central differences in the
// 4 ndep control points. A state perturbation e is made exactly by moving the DOF's four
// control points by the least-norm d with W d = e.

// the state gradient of psi = sum_r lambda_r r at xs into G (3 nd: q, qd, qdd of the deps);
// physics rows differentiated by the linear-time method whatever the run's choice
static void block_state_grad_cached(salto_nlp* nlp, const double* xs, const block* b,
                                    const double* lambda, double* G);


static void block_state_grad(salto_nlp* nlp, const double* xs, const block* b,
                             const double* lambda, double* G) {
    nlp->ev.have_state = 0;
    block_state_grad_cached(nlp, xs, b, lambda, G);
}


// the same, reusing the kinematics in nlp->ev.d when they are already at b's time and xs (the
// caller resets have_state whenever xs changes)
static void block_state_grad_cached(salto_nlp* nlp, const double* xs, const block* b,
                                    const double* lambda, double* G) {
    double g[16];
    nlp->hess.linear = 1;
    nlp_eval_block(nlp, xs, b, g, 1);
    nlp->hess.linear = 0;
    const int nd = b->ndep;
    for (int k = 0; k < 3 * nd + b->nxaux; k++) G[k] = 0.0;
    for (int r = 0; r < b->nrows; r++) {
        const double l = lambda[b->row0 + r];
        if (l == 0.0) continue;
        for (int jj = 0; jj < nd; jj++) {
            G[jj] += l * nlp->ev.dq[r * nd + jj];
            G[nd + jj] += l * nlp->ev.dqd[r * nd + jj];
            if (b->con < 0) G[2 * nd + jj] += l * nlp->ev.dqdd[r * nd + jj];
        }
        for (int a = 0; a < b->nxaux; a++) G[3 * nd + a] += l * nlp->ev.daux[NXAUX * r + a];
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
    double* T = nlp->hess.Tl; // ns x nu: S W
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
    // themselves), then H = W^T T added to the Lagrangian Hessian's lower triangle as it is
    // made. A kind of state (q, qd, qdd) whose rows of S are all zero (qdd for kinematic rows
    // and momentum rows, qd for an impact) drops out of both products, and a row of T serves
    // only the control points of its own DOF, so only its columns up to them are made.
    int used[3];
    for (int kind = 0; kind < 3; kind++) {
        used[kind] = 0;
        for (int a = kind * nd; a < (kind + 1) * nd && !used[kind]; a++) {
            for (int c = 0; c < ns && !used[kind]; c++) used[kind] = S[a * ns + c] != 0.0;
        }
    }
    const double* Wk[3] = {b->N, b->dN, b->ddN};
    for (int a = 0; a < ns; a++) {
        const int kind = a < 3 * nd ? a / nd : -1; // -1: a place's row, wanted whole
        if (kind >= 0 && !used[kind]) continue;
        const int ncols = kind >= 0 ? a % nd + 1 : nd; // DOFs whose columns are wanted
        const double* Sa = S + a * ns;
        double* Ta = T + a * nu;
        for (int jj = 0; jj < ncols; jj++) {
            double t[4] = {0, 0, 0, 0};
            for (int kd = 0; kd < 3; kd++) {
                if (!used[kd]) continue;
                const double sv = Sa[kd * nd + jj];
                for (int k = 0; k < 4; k++) t[k] += sv * Wk[kd][k];
            }
            for (int k = 0; k < 4; k++) Ta[4 * jj + k] = t[k];
        }
        if (kind < 0) {
            for (int m = 0; m < na; m++) Ta[4 * nd + m] = Sa[3 * nd + m];
        }
    }
    int k = nlp->hess.blk0[i];
    const int* slot = nlp->hess.blk;
    for (int u = 0; u < nu; u++) {
        if (u < 4 * nd) {
            const int jj = u / 4, kk = u % 4;
            double w[3];
            const double* Tr[3];
            int nk = 0;
            for (int kd = 0; kd < 3; kd++) {
                if (!used[kd]) continue;
                w[nk] = Wk[kd][kk];
                Tr[nk++] = T + (kd * nd + jj) * nu;
            }
            for (int v = 0; v <= u; v++, k++) {
                double sum = 0.0;
                for (int n = 0; n < nk; n++) sum += w[n] * Tr[n][v];
                values[slot[k]] += sum;
            }
        } else {
            const double* Tr = T + (3 * nd + u - 4 * nd) * nu;
            for (int v = 0; v <= u; v++, k++) values[slot[k]] += Tr[v];
        }
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


// Add sign * d2(w . x)/dq dq to the q-q part of the state Hessian S (ns x ns, the state slots of
// the deps through map: DOF -> local index, -1 where the block does not read the DOF), for a
// point x fixed on link l (world coordinates, kinematics in d). For a and b on l's path, a
// an ancestor of b or b itself, d2x/dq_a dq_b = w_a x t_b(x) with S = [w; v] and t_b(x) =
// v_b + w_b x x the point's velocity under S_b (moving q_a turns S_b and x about S_a; the
// pair is symmetric by the Jacobi identity).
void nlp_point_hess_add(const salto_nlp* nlp, double* S, int ns, const int* map, int l,
                        const double* x, const double* w, double sign) {
    const salto_model* m = nlp->m;
    const salto_data* d = nlp->ev.d;
    for (int bj = l; bj >= 0; bj = m->link_parent[bj]) {
        const int jb = map[bj];
        if (jb < 0) continue;
        const double* Sb = d->S + 6 * bj;
        double t[3];
        salto_v3_cross(t, Sb, x);
        for (int k = 0; k < 3; k++) t[k] += Sb[3 + k];
        for (int aj = bj; aj >= 0; aj = m->link_parent[aj]) {
            const int ja = map[aj];
            if (ja < 0) continue;
            double c[3];
            salto_v3_cross(c, d->S + 6 * aj, t);
            const double v = sign * salto_v3_dot(w, c);
            S[ja * ns + jb] += v;
            if (ja != jb) S[jb * ns + ja] += v;
        }
    }
}


static void add_sym(double* S, int ns, int a, int b, double v) {
    S[a * ns + b] += v;
    if (a != b) S[b * ns + a] += v;
}


// the links of l's path, root first, into path (at most nv); returns their number
static int link_path(const salto_model* m, int l, int* path) {
    int n = 0;
    for (int j = l; j >= 0; j = m->link_parent[j]) n++;
    int k = n;
    for (int j = l; j >= 0; j = m->link_parent[j]) path[--k] = j;
    return n;
}


// Add sign * the state Hessian of w . x' for a point x fixed on link l (x' = sum_j t_j(x) qd_j
// over l's path; kinematics with velocities in d), the q slots map[j] and the qd slots off +
// map[j]. With Om_a the angular velocity of a's parent and tau_a = sum_{j >= a} t_j qd_j (the
// point's velocity from a on): dx'/dq_a = Om_a x t_a + w_a x tau_a, so for a <= b on the path
//   q_a q_b  = w . (Om_a x (w_a x t_b) + w_a x ((Om_b - Om_a) x t_b + w_b x tau_b))
//   q_a qd_j = w . (w_min x t_max), the point's Hessian (dx'/dqd_j = t_j)
static void vel_point_hess_add(const salto_nlp* nlp, double* S, int ns, const int* map, int off,
                               int l, const double* x, const double* w, double sign) {
    const salto_model* m = nlp->m;
    const salto_data* d = nlp->ev.d;
    int* path = nlp->hess.path;
    double* t = nlp->hess.pv;           // 3 per path link: t_a(x)
    double* tau = t + 3 * (size_t)nlp->nv; // tau_a
    const int n = link_path(m, l, path);
    for (int k = 0; k < n; k++) {
        const double* Sa = d->S + 6 * path[k];
        salto_v3_cross(t + 3 * k, Sa, x);
        for (int c = 0; c < 3; c++) t[3 * k + c] += Sa[3 + c];
    }
    double acc[3] = {0, 0, 0};
    for (int k = n - 1; k >= 0; k--) {
        const double qd = d->qd[path[k]];
        for (int c = 0; c < 3; c++) acc[c] += t[3 * k + c] * qd, tau[3 * k + c] = acc[c];
    }
    for (int ka = 0; ka < n; ka++) {
        const int a = path[ka], ma = map[a];
        if (ma < 0) continue;
        const double* wa = d->S + 6 * a;
        const double* Oa = d->V + 6 * m->link_parent[a]; // angular part first; the world's at -1
        for (int kb = ka; kb < n; kb++) {
            const int bj = path[kb], mb = map[bj];
            if (mb < 0) continue;
            const double* wb = d->S + 6 * bj;
            const double* Ob = d->V + 6 * m->link_parent[bj];
            double u1[3], u2[3], dO[3], u3[3], u4[3];
            salto_v3_cross(u1, wa, t + 3 * kb); // w_a x t_b: also the q-qd entry
            salto_v3_cross(u2, Oa, u1);
            for (int c = 0; c < 3; c++) dO[c] = Ob[c] - Oa[c];
            salto_v3_cross(u3, dO, t + 3 * kb);
            salto_v3_cross(u4, wb, tau + 3 * kb);
            for (int c = 0; c < 3; c++) u3[c] += u4[c];
            salto_v3_cross(u4, wa, u3);
            add_sym(S, ns, ma, mb, sign * (salto_v3_dot(w, u2) + salto_v3_dot(w, u4)));
            const double h = sign * salto_v3_dot(w, u1); // q_a qd_b and q_b qd_a
            add_sym(S, ns, ma, off + mb, h);
            if (ka != kb) add_sym(S, ns, mb, off + ma, h);
        }
    }
}


// Add the state Hessian of w . omega_l (a body's angular velocity, sum_j w_j qd_j over its
// path): with rho_b = sum_{j >= b} w_j qd_j, for a <= b on the path q_a q_b = w . (w_a x (w_b x
// rho_b)), and q_a qd_j = w . (w_a x w_j) for a strictly before j
static void angvel_hess_add(const salto_nlp* nlp, double* S, int ns, const int* map, int off, int l,
                            const double* w) {
    const salto_model* m = nlp->m;
    const salto_data* d = nlp->ev.d;
    int* path = nlp->hess.path;
    double* rho = nlp->hess.pv;
    const int n = link_path(m, l, path);
    double acc[3] = {0, 0, 0};
    for (int k = n - 1; k >= 0; k--) {
        const double* Sk = d->S + 6 * path[k];
        const double qd = d->qd[path[k]];
        for (int c = 0; c < 3; c++) acc[c] += Sk[c] * qd, rho[3 * k + c] = acc[c];
    }
    for (int ka = 0; ka < n; ka++) {
        const int a = path[ka], ma = map[a];
        if (ma < 0) continue;
        const double* wa = d->S + 6 * a;
        for (int kb = ka; kb < n; kb++) {
            const int bj = path[kb], mb = map[bj];
            if (mb < 0) continue;
            const double* wb = d->S + 6 * bj;
            double u1[3], u2[3];
            salto_v3_cross(u1, wb, rho + 3 * kb);
            salto_v3_cross(u2, wa, u1);
            add_sym(S, ns, ma, mb, salto_v3_dot(w, u2));
            if (kb > ka) {
                salto_v3_cross(u1, wa, wb);
                add_sym(S, ns, ma, off + mb, salto_v3_dot(w, u1));
            }
        }
    }
}


// The Hessian of a row phi(u, v) of two free vectors fixed on link l (turning with it: du/dq_a
// = w_a x u, d2u/dq_a dq_b = w_a x (w_b x u) for a <= b), given phi's gradient (gu, gv) and
// its Hessian in u and v (Huu, Huv, Hvv, 3 x 3 row-major; NULL: zero)
static void freevec_hess_add(const salto_nlp* nlp, double* S, int ns, const int* map, int l,
                             const double* u, const double* v, const double* gu, const double* gv,
                             const double* Huu, const double* Huv, const double* Hvv) {
    const salto_model* m = nlp->m;
    const salto_data* d = nlp->ev.d;
    int* path = nlp->hess.path;
    const int n = link_path(m, l, path);
    for (int ka = 0; ka < n; ka++) {
        const int a = path[ka], ma = map[a];
        if (ma < 0) continue;
        const double* wa = d->S + 6 * a;
        double ua[3], va[3];
        salto_v3_cross(ua, wa, u);
        salto_v3_cross(va, wa, v);
        for (int kb = ka; kb < n; kb++) {
            const int bj = path[kb], mb = map[bj];
            if (mb < 0) continue;
            const double* wb = d->S + 6 * bj;
            double ub[3], vb[3], t1[3], uab[3], vab[3];
            salto_v3_cross(ub, wb, u);
            salto_v3_cross(vb, wb, v);
            salto_v3_cross(uab, wa, ub);
            salto_v3_cross(vab, wa, vb);
            double h = salto_v3_dot(gu, uab) + salto_v3_dot(gv, vab);
            if (Huu) {
                salto_m3_mul_v3(t1, Huu, ub);
                h += salto_v3_dot(ua, t1);
            }
            if (Hvv) {
                salto_m3_mul_v3(t1, Hvv, vb);
                h += salto_v3_dot(va, t1);
            }
            if (Huv) {
                salto_m3_mul_v3(t1, Huv, vb);
                h += salto_v3_dot(ua, t1);
                salto_m3_mul_v3(t1, Huv, va);
                h += salto_v3_dot(ub, t1);
            }
            add_sym(S, ns, ma, mb, h);
        }
    }
}


// Add the Hessian of w . c, the centre of mass (after nlp_com_sums: each subtree's mass m_b and
// first moment h_b): for a an ancestor of b or b itself, w . (w_a x (m_b v_b + w_b x h_b)) / M
static void com_hess_add(const salto_nlp* nlp, double* S, int ns, const int* map, const double* w,
                         double sign) {
    const salto_model* m = nlp->m;
    const salto_data* d = nlp->ev.d;
    for (int bj = 0; bj < nlp->nv; bj++) {
        const int mb = map[bj];
        if (mb < 0) continue;
        const double* sb = nlp->ev.sums + 7 * bj;
        const double* Sb = d->S + 6 * bj;
        double tb[3];
        salto_v3_cross(tb, Sb, sb + 1);
        for (int c = 0; c < 3; c++) tb[c] = (tb[c] + sb[0] * Sb[3 + c]) / m->mass;
        for (int a = bj; a >= 0; a = m->link_parent[a]) {
            const int ma = map[a];
            if (ma < 0) continue;
            double u[3];
            salto_v3_cross(u, d->S + 6 * a, tb);
            add_sym(S, ns, ma, mb, sign * salto_v3_dot(w, u));
        }
    }
}


// the point rows' Hessian summed at this time into S, physics block i's state Hessian
static void add_merged(const salto_nlp* nlp, int i, double* S) {
    if (nlp->hess.acc != i || !nlp->hess.acc_used) return;
    const block* b = &nlp->blocks[i];
    const size_t ns = 3 * (size_t)b->ndep + (size_t)b->nxaux;
    for (size_t k = 0; k < ns * ns; k++) S[k] += nlp->hess.Sacc[k];
}


// The rows' weights on f0 and the support centre at (f0, c), mu = sum_r lambda_r dg_r/df0 and
// nu = sum_r lambda_r dg_r/dc, and their curvature Pff, Pfc (nlp_physics_curvature)
static void rows_weights(const salto_nlp* nlp, const block* b, const double* lambda,
                         const double* f0, const double* c, double mu[6], double nu[3],
                         double Pff[6][6], double Pfc[6][3]) {
    frow rows[8];
    nlp_physics_rows(nlp, b, f0, c, rows);
    nlp_rows_weights(rows, b->nrows, lambda + b->row0, mu, nu);
    nlp_physics_curvature(nlp, b, lambda + b->row0, Pff, Pfc);
}


// S (ns x ns, the state's n3 = 3 nv first) += Jf' Pfc Jc and its transpose: the rows' f0-c
// curvature (Jf 6 x n3, Jc 3 x nv: the centre depends on q alone)
static void add_fc_cross(double* S, int ns, const double* Jf, int n3, const double* Jc, int nv,
                         double Pfc[6][3]) {
    for (int a = 0; a < n3; a++) {
        double fa[3] = {0, 0, 0}; // (Jf' Pfc)_a
        for (int k = 0; k < 6; k++) {
            for (int l = 0; l < 3; l++) fa[l] += Jf[k * n3 + a] * Pfc[k][l];
        }
        for (int q = 0; q < nv; q++) {
            const double v = fa[0] * Jc[q] + fa[1] * Jc[nv + q] + fa[2] * Jc[2 * nv + q];
            S[a * ns + q] += v;
            S[q * ns + a] += v;
        }
    }
}


// Block i's full-state Hessian H (n3 x n3: q, qd, qdd of every DOF, the translation's
// included) through its effective root: S = E' H E over the splines' state and the places,
// E the translation's rows (nlp_er_chain's products, at the state nlp_er_state left), and
// the translation's own second-order term chi = w . (q_T, qd_T, qdd_T)(splines, places) with
// the full-state gradient's translation weights wq, wv, wa: its qd-qd block exact (a point
// Hessian of the held site), its q columns central differences of its gradient over the held
// site's path. Then into the Lagrangian Hessian's values (block_hess_finish).
static salto_status er_finish(salto_nlp* nlp, int i, double* H, const double* wq, const double* wv,
                              const double* wa, int to_acc, double* values) {
    const block* b = &nlp->blocks[i];
    const salto_model* m = nlp->m;
    const salto_data* d = nlp->ev.d;
    const int nv = nlp->nv, na = b->nxaux, n3 = 3 * nv, ns = n3 + na;
    const eroot* e = &nlp->root.er[b->er];
    double* S = nlp->hess.Sl;    // ns x ns, the splines' state's and the places'
    double* Er = nlp->hess.Er;   // 9 x ns: the rows of E for the translation's q, qd, qdd
    double* Y = Er + 9 * ns;     // 9 x ns: H's translation rows times E
    int* isT = nlp->hess.map;    // nv
    // E's translation rows over the splines' state and the places (nlp_er_chain's products)
    for (int j = 0; j < nv; j++) isT[j] = 0;
    for (int t = 0; t < e->nt; t++) isT[e->tdof[t]] = 1;
    memset(Er, 0, 9 * (size_t)ns * sizeof(double));
    for (int t = 0; t < e->nt; t++) {
        const double* aJ = nlp->root.aJ + t * nv;
        const double* aV = nlp->root.aV + t * nv;
        const double* aAq = nlp->root.aAq + t * nv;
        const double* aAqd = nlp->root.aAqd + t * nv;
        double* rq = Er + (3 * t) * ns;
        double* rqd = Er + (3 * t + 1) * ns;
        double* rqdd = Er + (3 * t + 2) * ns;
        for (int k = 0; k < nv; k++) {
            rq[k] = -aJ[k];
            rqd[k] = -aV[k], rqd[nv + k] = -aJ[k];
            rqdd[k] = -aAq[k], rqdd[nv + k] = -aAqd[k], rqdd[2 * nv + k] = -aJ[k];
        }
        int a = 0;
        for (int r = 0; r < e->nr; r++) {
            if (e->aux[r] >= 0) rq[n3 + a++] += e->c[t][r];
        }
    }
    // the full state's index of E's translation row 3 t + kind
#define TROW(t, kind) ((kind) * nv + e->tdof[t])
    // Y = H's translation rows times E: H[row][v] for v a splines' entry (not the
    // translation's), plus sum over the translation rows b of H[row][b] Er[b][v]
    const int nT = 3 * e->nt;
    for (int tr = 0; tr < nT; tr++) {
        const int row = TROW(tr / 3, tr % 3);
        double* y = Y + tr * ns;
        for (int v = 0; v < ns; v++) {
            double s = 0.0;
            if (v < n3 && !isT[v % nv]) s = H[row * n3 + v];
            for (int tb = 0; tb < nT; tb++) s += H[row * n3 + TROW(tb / 3, tb % 3)] * Er[tb * ns + v];
            y[v] = s;
        }
    }
    // S = E' H E = [u, v splines'] H[u][v] + [u splines'] sum_b H[u][b] Er[b][v]
    //             + sum_a Er[a][u] Y[a][v]   (a, b over the translation's rows); E's rows are
    //             non-zero only on the held site's path and the places (nz)
    int* nz = nlp->hess.path; // up to ns entries: reuse path's nv and map2's nv
    int nnz = 0;
    for (int v = 0; v < ns; v++) {
        int any = 0;
        for (int tr = 0; tr < nT && !any; tr++) any = Er[tr * ns + v] != 0.0;
        if (any) nz[nnz++] = v;
    }
    for (int u = 0; u < ns; u++) {
        const int ru = u < n3 && !isT[u % nv];
        double* Su = S + (size_t)u * ns;
        if (ru) {
            const double* Hu = H + (size_t)u * n3;
            for (int v = 0; v < n3; v++) Su[v] = isT[v % nv] ? 0.0 : Hu[v];
            for (int v = n3; v < ns; v++) Su[v] = 0.0;
            double hT[9];
            for (int tr = 0; tr < nT; tr++) hT[tr] = Hu[TROW(tr / 3, tr % 3)];
            for (int k = 0; k < nnz; k++) {
                const int v = nz[k];
                double sum = 0.0;
                for (int tr = 0; tr < nT; tr++) sum += hT[tr] * Er[tr * ns + v];
                Su[v] += sum;
            }
        } else {
            for (int v = 0; v < ns; v++) Su[v] = 0.0;
        }
    }
    for (int k = 0; k < nnz; k++) {
        const int u = nz[k];
        double* Su = S + (size_t)u * ns;
        for (int tr = 0; tr < nT; tr++) {
            const double eu = Er[tr * ns + u];
            if (eu == 0.0) continue;
            const double* y = Y + tr * ns;
            for (int v = 0; v < ns; v++) Su[v] += eu * y[v];
        }
    }
#undef TROW
    // chi's qd-qd block: -2 sum_t wa_t a_t . H_g
    {
        double w[3] = {0, 0, 0};
        for (int t = 0; t < e->nt; t++) {
            for (int k = 0; k < 3; k++) w[k] -= 2.0 * wa[t] * e->a[t][k];
        }
        double* Sqd = S + (size_t)nv * ns + nv; // the qd-qd block, row stride ns
        int* id = nlp->hess.map2;
        for (int j = 0; j < nv; j++) id[j] = isT[j] ? -1 : j;
        double g[3];
        salto_site_pos(m, d, e->site, g);
        nlp_point_hess_add(nlp, Sqd, ns, id, m->site_link[e->site], g, w, 1.0);
    }
    // chi's q columns: central differences of its gradient over the held site's path
    double dmv[2][4];
    if (!state_moves(b, dmv[0], dmv[1])) return SALTO_ERR_NUMERIC;
    double* Gp = nlp->hess.Jp;
    double* Gm = Gp + n3;
    for (int k = m->site_link[e->site]; k >= 0; k = m->link_parent[k]) {
        if (isT[k]) continue;
        double* cp = nlp->hess.xs + k * nlp->ncp + b->first;
        const double c0[4] = {cp[0], cp[1], cp[2], cp[3]};
        const double h = 1e-6 * fmax(1.0, fabs(d->q[k]));
        for (int side = 0; side < 2; side++) {
            double* G = side == 0 ? Gp : Gm;
            const double hs = side == 0 ? h : -h;
            for (int q = 0; q < 4; q++) cp[q] = c0[q] + hs * dmv[0][q];
            nlp_block_state(nlp, nlp->hess.xs, b, 1);
            nlp_er_state(nlp, nlp->hess.xs, b->er, SALTO_FK_ACC, 1);
            memset(G, 0, (size_t)n3 * sizeof(double));
            for (int t = 0; t < e->nt; t++) {
                const double* aJ = nlp->root.aJ + t * nv;
                const double* aV = nlp->root.aV + t * nv;
                const double* aAq = nlp->root.aAq + t * nv;
                const double* aAqd = nlp->root.aAqd + t * nv;
                for (int j = 0; j < nv; j++) {
                    G[j] -= wq[t] * aJ[j] + wv[t] * aV[j] + wa[t] * aAq[j];
                    G[nv + j] -= wv[t] * aJ[j] + wa[t] * aAqd[j];
                    G[2 * nv + j] -= wa[t] * aJ[j];
                }
            }
        }
        for (int q = 0; q < 4; q++) cp[q] = c0[q];
        for (int a = 0; a < n3; a++) {
            if (isT[a % nv]) continue;
            const double v = (Gp[a] - Gm[a]) / (2.0 * h);
            S[a * ns + k] += v;
            if (a >= nv) S[k * ns + a] += v; // the q rows of the qd and qdd columns
        }
    }
    nlp->ev.have_state = 0;
    // the qdd-qdd block (the friction cone's) as block_hess_finish takes it
    double* Q = nlp->hess.Ql;
    for (int a = 0; a < nv; a++) {
        for (int c2 = 0; c2 < nv; c2++) Q[a * nv + c2] = S[(2 * nv + a) * ns + 2 * nv + c2];
    }
    if (to_acc) { // into the physics block's at this time, mapped with it
        for (size_t k = 0; k < (size_t)ns * (size_t)ns; k++) nlp->hess.Sacc[k] += S[k];
        nlp->hess.acc_used = 1;
        return SALTO_OK;
    }
    add_merged(nlp, i, S);
    block_hess_finish(nlp, i, S, Q, values);
    return SALTO_OK;
}


// Physics rows through the effective root (a held contact's: the root's translation q_T = P -
// a . g(q), qd_T = -a . g', qdd_T = -a . g'' for the held site g). With Phi(s) the rows'
// Lagrangian on the full state s (the translation's entries included), s = s(r) of the
// splines' state r and the places, the Hessian is
//   E' H E + sum_t (dPhi/dq_T,t d2 q_T,t + dPhi/dqd_T,t d2 qd_T,t + dPhi/dqdd_T,t d2 qdd_T,t)
// with E = ds/dr. H is exact: mu . f0's (salto_f0_hess) and the rows' curvature in f0 and the
// support centre c (J' Pff J and the cross terms, nu . the sites' point Hessians). The second
// term is chi = -sum_t a_t . (w_q g + w_v g' + w_a g'') with the weights dPhi/ds_T frozen: its
// qd-qd block is w_a's point Hessian twice (g'' = J qdd + qd' H_g qd), and its q columns
// central differences of its exact gradient (the effective root's chain, nlp_er_chain's) over
// the DOFs of the held site's path: 2 depth evaluations of the site's kinematics instead of
// D + 1 of the whole rows' gradient.
static salto_status hess_physics_er(salto_nlp* nlp, int i, const double* lambda, double* values) {
    const block* b = &nlp->blocks[i];
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    const int nv = nlp->nv, na = b->nxaux, n3 = 3 * nv, ns = n3 + na;
    const eroot* e = &nlp->root.er[b->er];
    const salto_contact_desc* ct = &nlp->p->phases[b->phase].contact;
    double* H = nlp->hess.Hf;    // n3 x n3, the full state's
    double* Jf = nlp->hess.Jb;   // 6 x n3
    double* Jc = Jf + 6 * n3;    // 3 x nv
    // the full state at b, and the effective root's axis products (root.aJ and the rest)
    nlp_block_state(nlp, nlp->hess.xs, b, 1);
    nlp_er_state(nlp, nlp->hess.xs, b->er, SALTO_FK_ACC, 1);
    double f0[6], c[3] = {0, 0, 0};
    salto_f0_jac(m, d, SALTO_JAC_LINEAR, f0, Jf, NULL);
    if (ct->type == SALTO_CONTACT_GROUND) {
        nlp_support_centre(nlp, ct, c, Jc);
    } else {
        memset(Jc, 0, 3 * (size_t)nv * sizeof(double));
    }
    double mu[6], nu[3], Pff[6][6], Pfc[6][3];
    rows_weights(nlp, b, lambda, f0, c, mu, nu, Pff, Pfc);
    // the full state's gradient of Phi at the translation (its weights in chi)
    double wq[3], wv[3], wa[3];
    for (int t = 0; t < e->nt; t++) {
        const int T = e->tdof[t];
        wq[t] = wv[t] = wa[t] = 0.0;
        for (int k = 0; k < 6; k++) {
            wq[t] += mu[k] * Jf[k * n3 + T];
            wv[t] += mu[k] * Jf[k * n3 + nv + T];
            wa[t] += mu[k] * Jf[k * n3 + 2 * nv + T];
        }
        for (int k = 0; k < 3; k++) wq[t] += nu[k] * Jc[k * nv + T];
    }
    // H: mu . f0's, then J' Pff J, the f0-c cross terms and nu . c's point Hessians
    salto_f0_hess(m, d, mu, H, nlp->hess.fw);
    int curved = 0, crossed = 0;
    for (int k = 0; k < 6; k++) {
        for (int l = 0; l < 6; l++) curved |= Pff[k][l] != 0.0;
        for (int l = 0; l < 3; l++) crossed |= Pfc[k][l] != 0.0;
    }
    if (curved || crossed) {
        double* PJ = nlp->hess.Er + 18 * (size_t)ns; // 6 x n3: Pff Jf + Pfc Jc
        for (int k = 0; k < 6; k++) {
            for (int a = 0; a < n3; a++) {
                double v = 0.0;
                for (int l = 0; l < 6; l++) v += Pff[k][l] * Jf[l * n3 + a];
                PJ[k * n3 + a] = v;
            }
        }
        for (int a = 0; a < n3; a++) {
            for (int cc = 0; cc < n3; cc++) {
                double v = 0.0;
                for (int k = 0; k < 6; k++) v += Jf[k * n3 + a] * PJ[k * n3 + cc];
                H[a * n3 + cc] += v;
            }
        }
        if (crossed) add_fc_cross(H, n3, Jf, n3, Jc, nv, Pfc);
    }
    if (ct->type == SALTO_CONTACT_GROUND && (nu[0] != 0.0 || nu[1] != 0.0 || nu[2] != 0.0)) {
        int* id = nlp->hess.map2;
        for (int j = 0; j < nv; j++) id[j] = j;
        const double w[3] = {nu[0] / ct->nsite, nu[1] / ct->nsite, nu[2] / ct->nsite};
        for (int s = 0; s < ct->nsite; s++) {
            double xs[3];
            salto_site_pos(m, d, ct->site[s], xs);
            nlp_point_hess_add(nlp, H, n3, id, m->site_link[ct->site[s]], xs, w, 1.0);
        }
    }
    return er_finish(nlp, i, H, wq, wv, wa, 0, values);
}


// The physics block i: the state Hessian of lambda . g by differences of its state gradient.
//
// Where the block depends on every DOF in order (always, in practice), only the q columns (and
// the places') are differenced; the qd and qdd columns follow from the rows' structure. f0 is
// the time derivative of the spatial momentum h = A(q) qd, gravity's part aside (also through
// the effective root, whose translation is a function of q and the places: h stays linear in
// qd), and each row is a function of f0 and the support centre c(q). With mu = d(lambda .
// g)/df0 held fixed, psi = mu . h, M = d(A' mu)/dq (M_jl = d/dq_l of the qdd gradient):
//   mu . f0 = (d psi/dq) . qd + (d psi/dqd) . qdd + mu . gravity(q), so
//   d2/dqd2 = M + M',  d2/dqd dqdd = 0,  d2/dqdd2 = 0.
// mu itself moves with f0 and c through the rows' curvature Pff = d2(lambda . g)/df0 df0 and
// Pfc = d2/df0 dc (the friction cone, the moments about c): the q columns' qdd rows hold
// d/dq_l (mu . A_j) = M_jl + (Pff df0/dq_l + Pfc dc/dq_l) . A_j, and the curvature adds
// J' Pff J to the qd and qdd blocks (J = df0/d(qd, qdd)). A flight's momentum rows are linear
// in qd and free of qdd: their qd and qdd blocks are zero. Half the differences of taking
// the qd columns by differences too, and the same Hessian within the differences' error.
static salto_status hess_physics(salto_nlp* nlp, int i, const double* lambda, double* values) {
    const block* b = &nlp->blocks[i];
    const int nd = b->ndep, ns = 3 * nd + b->nxaux, nv = nlp->nv, ncol = 3 * nv;
    const int* dep = nlp->dep + b->dep0;
    double d[2][4];
    if (!state_moves(b, d[0], d[1])) return SALTO_ERR_NUMERIC;
    double* G0 = nlp->hess.Jp;
    double* G1 = nlp->hess.Jp + ns;
    double* S = nlp->hess.Sl;
    const int momentum = nlp->mom[b->phase] >= 0 && !b->force;
    // SALTO_HESS_FULL_FD (a measuring aid): the qd columns by differences too, as before
    static int full_fd = -1;
    if (full_fd < 0) full_fd = getenv("SALTO_HESS_FULL_FD") != NULL;
    int structured = nd == nv && !full_fd;
    for (int jj = 0; jj < nd && structured; jj++) structured = dep[jj] == jj;
    // Rows linear in f0 alone (a bar's torque, a free flight's f0 = 0) on the splines' own
    // state: the state Hessian is that of mu . f0 with mu = sum_r lambda_r dg_r/df0 fixed,
    // exact, in O(nv depth) (salto_f0_hess), with no differences at all
    const salto_contact_type ctype = nlp->p->phases[b->phase].contact.type;
    if (structured && !momentum && b->er < 0 && b->nxaux == 0 && nlp->bal[b->phase] < 0 &&
        (ctype == SALTO_CONTACT_BAR || ctype == SALTO_CONTACT_NONE)) {
        static const double f00[6] = {0, 0, 0, 0, 0, 0}, c00[3] = {0, 0, 0};
        frow rows[8];
        nlp_physics_rows(nlp, b, f00, c00, rows); // their df0 are constants
        double mu[6];
        nlp_rows_weights(rows, b->nrows, lambda + b->row0, mu, NULL);
        nlp_block_state(nlp, nlp->hess.xs, b, 1);
        salto_f0_hess(nlp->m, nlp->ev.d, mu, S, nlp->hess.fw);
        nlp->ev.have_state = 0;
        add_merged(nlp, i, S);
        block_hess_finish(nlp, i, S, NULL, values);
        return SALTO_OK;
    }
    // a flight's momentum rows, w h_k less a place variable with h = p0 less c x P in its
    // angular part: psi = mu . p0 - mu_a . (c x P) for mu the rows' weights (lambda w on each
    // component), exact from p0's second derivatives (salto_p0_hess, weighted by mu less
    // [0; mu_a x c]), the centre of mass's (weighted by P x mu_a) and the cross terms
    // J_c' B J_P (B_ij = mu_a . (e_i x e_j)) with its transpose
    if (structured && momentum) {
        const salto_model* m = nlp->m;
        salto_data* dd = nlp->ev.d;
        nlp_block_state(nlp, nlp->hess.xs, b, 0);
        double* Jp = nlp->hess.Jb;          // 6 x 2 nv
        double* Jc = Jp + 12 * (size_t)nv;  // 3 x nv
        double* H2 = nlp->hess.Hf;          // 2 nv x 2 nv
        salto_p0_jac(m, dd, Jp);
        nlp_com_sums(nlp);
        double c[3];
        nlp_com_from_sums(nlp, c, NULL);
        nlp_com_jac(nlp, Jc);
        const double* P = dd->p0 + 3;
        const double wT = 1.0 / nlp->p->phases[b->phase].duration;
        double mu[6] = {0, 0, 0, 0, 0, 0};
        for (int r = 0; r < b->nrows; r++) mu[nlp_momentum_comp(nlp, r)] += lambda[b->row0 + r] * wT;
        double mu2[6], ac[3], pa[3];
        salto_v3_cross(ac, mu, c);
        salto_v3_cross(pa, P, mu);
        for (int k = 0; k < 3; k++) mu2[k] = mu[k], mu2[3 + k] = mu[3 + k] - ac[k];
        salto_p0_hess(m, dd, mu2, H2, nlp->hess.fw);
        memset(S, 0, (size_t)ns * (size_t)ns * sizeof(double));
        const int n2 = 2 * nv;
        for (int a = 0; a < n2; a++) {
            for (int cc = 0; cc < n2; cc++) S[a * ns + cc] = H2[a * n2 + cc];
        }
        int* id = nlp->hess.map2;
        for (int j = 0; j < nv; j++) id[j] = j;
        com_hess_add(nlp, S, ns, id, pa, -1.0);
        double B[3][3];
        for (int i2 = 0; i2 < 3; i2++) {
            for (int j2 = 0; j2 < 3; j2++) {
                double ei[3] = {0, 0, 0}, ej[3] = {0, 0, 0}, x[3];
                ei[i2] = 1.0, ej[j2] = 1.0;
                salto_v3_cross(x, ei, ej);
                B[i2][j2] = salto_v3_dot(mu, x);
            }
        }
        for (int u = 0; u < nv; u++) {
            double cb[3]; // (J_c' B)_u
            for (int j2 = 0; j2 < 3; j2++) {
                cb[j2] = Jc[u] * B[0][j2] + Jc[nv + u] * B[1][j2] + Jc[2 * nv + u] * B[2][j2];
            }
            for (int v = 0; v < n2; v++) {
                const double val = cb[0] * Jp[3 * n2 + v] + cb[1] * Jp[4 * n2 + v] + cb[2] * Jp[5 * n2 + v];
                S[u * ns + v] -= val;
                S[v * ns + u] -= val;
            }
        }
        nlp->ev.have_state = 0;
        add_merged(nlp, i, S);
        block_hess_finish(nlp, i, S, NULL, values);
        return SALTO_OK;
    }
    // a ballistic flight's rows, f0's moments about the centre of mass c: mu . f0's Hessian,
    // the rows' f0-c curvature J_f' Pfc J_c with its transpose, and nu . c's
    if (structured && !momentum && b->er < 0 && b->nxaux == 0 && nlp->bal[b->phase] >= 0) {
        const salto_model* m = nlp->m;
        salto_data* dd = nlp->ev.d;
        const int n3 = 3 * nv;
        double* Jf = nlp->hess.Jb;          // 6 x 3 nv
        double* Jc = Jf + 18 * (size_t)nv;  // 3 x nv
        nlp_block_state(nlp, nlp->hess.xs, b, 1);
        double f0[6], c[3];
        salto_f0_jac(m, dd, SALTO_JAC_LINEAR, f0, Jf, NULL);
        nlp_com_sums(nlp);
        nlp_com_from_sums(nlp, c, NULL);
        nlp_com_jac(nlp, Jc);
        double mu[6], nu[3], Pff[6][6], Pfc[6][3];
        rows_weights(nlp, b, lambda, f0, c, mu, nu, Pff, Pfc);
        salto_f0_hess(m, dd, mu, S, nlp->hess.fw); // ns = 3 nv here
        add_fc_cross(S, ns, Jf, n3, Jc, nv, Pfc);
        int* id = nlp->hess.map2;
        for (int j = 0; j < nv; j++) id[j] = j;
        com_hess_add(nlp, S, ns, id, nu, 1.0);
        nlp->ev.have_state = 0;
        add_merged(nlp, i, S);
        block_hess_finish(nlp, i, S, NULL, values);
        return SALTO_OK;
    }
    // rows on f0 and the support centre through the effective root: hess_physics_er
    if (structured && !momentum && b->er >= 0 && nlp->bal[b->phase] < 0 &&
        (ctype == SALTO_CONTACT_GROUND || ctype == SALTO_CONTACT_BAR)) {
        return hess_physics_er(nlp, i, lambda, values);
    }
    block_state_grad(nlp, nlp->hess.xs, b, lambda, G0);
    // the rows' curvature in (f0, c), and f0's and c's Jacobians at x
    double Pff[6][6], Pfc[6][3];
    double* Jf = nlp->hess.Jb; // 6 x 3 nv
    double* Jc = Jf + 18 * nv; // 3 x nv
    double* M = Jc + 3 * nv;   // nd x nd
    double* Q = NULL;
    if (!momentum) {
        nlp_physics_curvature(nlp, b, lambda + b->row0, Pff, Pfc);
        memcpy(Jf, nlp->ev.Jf, 18 * (size_t)nv * sizeof(double));
        const salto_contact_desc* ct = &nlp->p->phases[b->phase].contact;
        if (ct->type == SALTO_CONTACT_GROUND || nlp->bal[b->phase] >= 0) {
            memcpy(Jc, nlp->ev.J3, 3 * (size_t)nv * sizeof(double));
        } else {
            memset(Jc, 0, 3 * (size_t)nv * sizeof(double));
        }
        int curved = 0;
        for (int k = 0; k < 6; k++) {
            for (int m = 0; m < 6; m++) curved |= Pff[k][m] != 0.0;
        }
        // the qdd-qdd block: J_qdd' Pff J_qdd (the friction cone's)
        if (curved) {
            Q = nlp->hess.Ql;
            for (int a = 0; a < nd; a++) {
                double pa[6];
                for (int k = 0; k < 6; k++) {
                    pa[k] = 0.0;
                    for (int m = 0; m < 6; m++) pa[k] += Pff[k][m] * Jf[m * ncol + 2 * nv + dep[a]];
                }
                for (int c = 0; c <= a; c++) {
                    double v = 0.0;
                    for (int k = 0; k < 6; k++) v += pa[k] * Jf[k * ncol + 2 * nv + dep[c]];
                    Q[a * nd + c] = Q[c * nd + a] = v;
                }
            }
        }
    }
    // columns q_jj (kind 0) and, unless structured, qd_jj (kind 1) by forward differences
    for (int kind = 0; kind < (structured ? 1 : 2); kind++) {
        for (int jj = 0; jj < nd; jj++) {
            double* c = nlp->hess.xs + dep[jj] * nlp->ncp + b->first;
            const double c0[4] = {c[0], c[1], c[2], c[3]};
            const double h = hess_step(nlp, nlp->hess.xs, b, dep[jj], kind);
            for (int k = 0; k < 4; k++) c[k] = c0[k] + h * d[kind][k];
            block_state_grad(nlp, nlp->hess.xs, b, lambda, G1);
            for (int k = 0; k < 4; k++) c[k] = c0[k];
            const int col = kind * nd + jj;
            for (int a = 0; a < ns; a++) S[a * ns + col] = (G1[a] - G0[a]) / h;
        }
    }
    for (int m = 0; m < b->nxaux; m++) {
        double* xa = nlp->hess.xs + b->xaux[m];
        const double x0 = *xa, h = 1e-7 * fmax(1.0, fabs(x0));
        *xa = x0 + h;
        block_state_grad(nlp, nlp->hess.xs, b, lambda, G1);
        *xa = x0;
        const int col = 3 * nd + m;
        for (int a = 0; a < ns; a++) S[a * ns + col] = (G1[a] - G0[a]) / h;
    }
    if (structured) {
        if (!momentum) {
            // M_jl = S(qdd_j, q_l) - (Pff df0/dq_l + Pfc dc/dq_l) . A_j
            for (int l = 0; l < nd; l++) {
                double dmu[6];
                for (int k = 0; k < 6; k++) {
                    dmu[k] = 0.0;
                    for (int m = 0; m < 6; m++) dmu[k] += Pff[k][m] * Jf[m * ncol + l];
                    for (int m = 0; m < 3; m++) dmu[k] += Pfc[k][m] * Jc[m * nv + l];
                }
                for (int j = 0; j < nd; j++) {
                    double corr = 0.0;
                    for (int k = 0; k < 6; k++) corr += dmu[k] * Jf[k * ncol + 2 * nv + j];
                    M[j * nd + l] = S[(2 * nd + j) * ns + l] - corr;
                }
            }
        }
        for (int jj = 0; jj < nd; jj++) {
            const int col = nd + jj;
            for (int a = 0; a < nd; a++) S[a * ns + col] = S[col * ns + a]; // q rows: symmetry
            for (int a = 0; a < b->nxaux; a++) S[(3 * nd + a) * ns + col] = S[col * ns + 3 * nd + a];
            double pj[6] = {0, 0, 0, 0, 0, 0}; // Pff J_qd_jj
            if (!momentum) {
                for (int k = 0; k < 6; k++) {
                    for (int m = 0; m < 6; m++) pj[k] += Pff[k][m] * Jf[m * ncol + nv + jj];
                }
            }
            for (int kk = 0; kk < nd; kk++) {
                double vd = 0.0, vdd = 0.0;
                if (!momentum) {
                    vd = M[kk * nd + jj] + M[jj * nd + kk];
                    for (int k = 0; k < 6; k++) {
                        vd += Jf[k * ncol + nv + kk] * pj[k];
                        vdd += Jf[k * ncol + 2 * nv + kk] * pj[k];
                    }
                }
                S[(nd + kk) * ns + col] = vd;
                S[(2 * nd + kk) * ns + col] = vdd;
            }
        }
    }
    add_merged(nlp, i, S);
    block_hess_finish(nlp, i, S, Q, values);
    return SALTO_OK;
}


// The exact state gradient of psi = lambda . g of an impact block at (q, u, xi) into G (ns
// slots: q_j at j, u_j at the qdd slot 2 nv + j, xi_a at the place slot 3 nv + a, the qd
// slots zero). The joint rows are lam . res (salto_impulse_shared) and the contact rows
// functions of iota and the sites' centroid c: with mu = d psi/d iota and nu = d psi/dc at
// this point, salto_impulse_grad gives the rest in O(nv), and nu . dc/dq is added.
static void impact_state_grad(salto_nlp* nlp, const block* b, const double* lambda,
                              const double* q, const double* u, const double* xi, double* lam,
                              double* G) {
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    const int nv = nlp->nv, nr = m->nroot, nj = nv - nr, na = b->nxaux;
    const salto_contact_desc* ct = &nlp->p->phases[b->phase].contact;
    int link[8];
    const int nl = nlp_impact_links(nlp, b->phase, link);
    double* g = nlp->ev.imp + 2 * nv; // nv + 8
    frow rows[8];
    memcpy(d->q, q, (size_t)nv * sizeof(double));
    nlp_impact_rows(nlp, b, u, xi, g, NULL, rows);
    double mu[6], nu[3];
    nlp_rows_weights(rows, b->nrows - nj, lambda + b->row0 + nj, mu, nu);
    for (int j = 0; j < nv; j++) lam[j] = j < nr ? 0.0 : lambda[b->row0 + j - nr];
    // the shares as spatial impulses (nlp_impact_rows': a planar character's n_y, f_x, f_z)
    static const int planar_comp[3] = {1, 3, 5};
    const int w = nlp_impulse_width(nlp);
    double xi6[6 * 7] = {0}, gxi6[6 * 7];
    for (int l = 1; xi && l < nl; l++) {
        for (int c = 0; c < w; c++) xi6[6 * (l - 1) + (w == 3 ? planar_comp[c] : c)] = xi[w * (l - 1) + c];
    }
    salto_impulse_grad(m, d, nl, link, xi6, u, lam, mu, G, G + 2 * nv, gxi6);
    for (int j = 0; j < nv; j++) G[nv + j] = 0.0;
    for (int a = 0; a < na; a++) G[3 * nv + a] = gxi6[6 * (a / w) + (w == 3 ? planar_comp[a % w] : a % w)];
    if (nu[0] != 0.0 || nu[1] != 0.0 || nu[2] != 0.0) {
        double* Js = nlp->ev.sums; // 3 nv; d holds q's kinematics
        for (int s = 0; s < ct->nsite; s++) {
            salto_site_jac(m, d, ct->site[s], Js);
            for (int j = 0; j < nv; j++) {
                G[j] += (nu[0] * Js[j] + nu[1] * Js[nv + j] + nu[2] * Js[2 * nv + j]) / ct->nsite;
            }
        }
    }
}


// An impact block's curvature in its state (q, u, xi): the q columns by central differences
// of the exact state gradient (impact_state_grad, 2 nv evaluations of O(nv) each; steps 5e-6
// of each q's scale), the (u, xi) block from the rows' structure (below), u in the state's qdd
// slots and the shared impulses xi in its place slots, mapped to the control points by
// block_hess_finish.
static salto_status hess_impact(salto_nlp* nlp, int i, const double* lambda, double* values) {
    const block* b = &nlp->blocks[i];
    const int nv = nlp->nv, na = b->nxaux, ns = 3 * nv + na;
    double* v = nlp->hess.Jp; // q, u, xi; then the gradients at +h and -h, and lam: 9 nv + 3 na
    double* Gp = v + 2 * nv + na;
    double* Gm = Gp + ns;
    double* lam = Gm + ns;
    SALTO_ASSERT(9 * nv + 3 * na <= 2 * 8 * 4 * nv);
    for (int j = 0; j < nv; j++) {
        const double* cp = nlp->hess.xs + j * nlp->ncp + b->first;
        v[j] = cp[1];
        v[nv + j] = b->ddN[0] * cp[0] + b->ddN[1] * cp[1] + b->ddN[2] * cp[2] + b->ddN[3] * cp[3];
    }
    for (int a = 0; a < na; a++) v[2 * nv + a] = nlp->hess.xs[b->xaux[a]];
    const double* xi = na > 0 ? v + 2 * nv : NULL;
    double* S = nlp->hess.Sl;
    double* Q = nlp->hess.Ql;
    memset(S, 0, (size_t)ns * (size_t)ns * sizeof(double));
    // For a fixed q the rows are linear in (u, xi), but for the friction cone, quadratic in the
    // impulse iota, which is linear in u: the (u, xi) block is the cone's curvature in u and
    // zero elsewhere, exact from iota's unit-jump columns
    {
        const int nj = nv - nlp->m->nroot;
        block pb = *b;
        pb.nrows = b->nrows - nj;
        double Pff[6][6], Pfc[6][3];
        nlp_physics_curvature(nlp, &pb, lambda + b->row0 + nj, Pff, Pfc);
        double* iot = nlp->hess.Jb; // nv x 6: iota of each unit jump
        double* e = nlp->hess.Jb + 6 * (size_t)nv;
        double* gk = nlp->ev.imp + 2 * nv;
        memcpy(nlp->ev.d->q, v, (size_t)nv * sizeof(double)); // the rows leave q as it is
        for (int k = 0; k < nv; k++) {
            memset(e, 0, (size_t)nv * sizeof(double));
            e[k] = 1.0;
            nlp_impact_rows(nlp, b, e, NULL, gk, iot + 6 * k, NULL);
        }
        for (int k = 0; k < nv; k++) {
            for (int l = 0; l <= k; l++) {
                double h2 = 0.0;
                for (int m = 0; m < 6; m++) {
                    for (int n = 0; n < 6; n++) h2 += iot[6 * k + m] * Pff[m][n] * iot[6 * l + n];
                }
                const int sa = 2 * nv + k, sc = 2 * nv + l;
                S[sa * ns + sc] = S[sc * ns + sa] = h2;
                Q[k * nv + l] = Q[l * nv + k] = h2;
            }
        }
    }
    // the q columns: every row of the state (q, u, xi), differenced
    for (int k = 0; k < nv; k++) {
        const double q0 = v[k], h = 5e-6 * fmax(1.0, fabs(q0));
        v[k] = q0 + h;
        impact_state_grad(nlp, b, lambda, v, v + nv, xi, lam, Gp);
        v[k] = q0 - h;
        impact_state_grad(nlp, b, lambda, v, v + nv, xi, lam, Gm);
        v[k] = q0;
        for (int a = 0; a < ns; a++) {
            if (a >= nv && a < 2 * nv) continue; // the qd slots
            S[a * ns + k] = (Gp[a] - Gm[a]) / (2.0 * h);
        }
    }
    // the places' rows of the q columns into their columns too (block_hess_finish averages
    // the differenced pairs and mirrors the qdd rows)
    for (int k = 0; k < nv; k++) {
        for (int a = 3 * nv; a < ns; a++) S[k * ns + a] = S[a * ns + k];
    }
    memcpy(nlp->ev.d->q, v, (size_t)nv * sizeof(double));
    nlp->ev.have_state = 0;
    block_hess_finish(nlp, i, S, Q, values);
    return SALTO_OK;
}


// S += lr J' H6 J for the six rows of J (a segment's two ends, world) in Jc, each over (q, qd,
// places) of width 2 nv + NXAUX: over J's columns that are not zero (the q and qd of the point's
// path, through an effective root the held site's too, and the places), each at its slot in S
// (q: map[j], qd: off + map[j], places: aux0 + a, na of them)
static void jhj_add(const salto_nlp* nlp, const double* Jc, const double* H6, double lr, double* S,
                    int ns, const int* map, int off, int na, int aux0) {
    const int nv = nlp->nv, wdt = 2 * nv + NXAUX;
    int* col = nlp->hess.path;
    int* slt = col + 2 * nv + NXAUX;
    int nu = 0;
    for (int c = 0; c < 2 * nv + na; c++) {
        const int j = c < nv ? c : c - nv;
        if (c < 2 * nv && map[j] < 0) continue;
        int nz = 0;
        for (int r = 0; r < 6 && !nz; r++) nz = Jc[(size_t)r * wdt + c] != 0.0;
        if (!nz) continue;
        col[nu] = c;
        slt[nu++] = c < nv ? map[j] : c < 2 * nv ? off + map[j] : aux0 + (c - 2 * nv);
    }
    for (int u1 = 0; u1 < nu; u1++) {
        double hj[6];
        for (int r = 0; r < 6; r++) {
            double acc = 0.0;
            for (int c = 0; c < 6; c++) acc += H6[6 * r + c] * Jc[(size_t)c * wdt + col[u1]];
            hj[r] = lr * acc;
        }
        for (int u2 = 0; u2 < nu; u2++) {
            double val = 0.0;
            for (int r = 0; r < 6; r++) val += Jc[(size_t)r * wdt + col[u2]] * hj[r];
            S[(size_t)slt[u2] * ns + slt[u1]] += val;
        }
    }
}


// A chord row (clear_box, b->chord): D(a, b) with a = P - hb v, b = P + hf v for a point P on
// one link and its velocity v. Its state Hessian: J' H6 J with J the ends' Jacobians in q and qd
// (through the effective root where the block sees one, the places included), plus P's point
// Hessian weighted by dD/da + dD/db and v's state Hessian (vel_point_hess_add) by
// hf dD/db - hb dD/da; through an effective root the held site's own Hessians, weighted
// likewise along the translation axes, are taken off (the root moves the point by -a . g and
// its velocity by -a . g'). Multiplied by the row's multiplier lr into S.
static void chord_hess(salto_nlp* nlp, const block* b, double lr, double* S, int ns,
                       const int* map, int off, int merged) {
    const salto_model* m = nlp->m;
    const salto_data* d = nlp->ev.d;
    const salto_constraint_desc* cd = nlp_cd(nlp, b->con);
    const int nv = nlp->nv;
    const double hb = b->sweep[0], hf = b->sweep[1];
    double P[3], v[3], xa[3], xb[3], ga[3], gb[3], H6[36], wp[3], wv[3];
    nlp_chord(nlp, b, P, v, xa, xb);
    nlp_clear_distance(nlp, cd, xa, xb, b->offset, ga, gb, H6);
    for (int k = 0; k < 3; k++) wp[k] = lr * (ga[k] + gb[k]), wv[k] = lr * (hf * gb[k] - hb * ga[k]);
    nlp_point_hess_add(nlp, S, ns, map, b->link, P, wp, 1.0);
    vel_point_hess_add(nlp, S, ns, map, off, b->link, P, wv, 1.0);
    if (b->er >= 0) {
        const eroot* e = &nlp->root.er[b->er];
        double wgp[3] = {0, 0, 0}, wgv[3] = {0, 0, 0}, g[3];
        for (int k = 0; k < e->nt; k++) {
            const double sp = salto_v3_dot(wp, e->a[k]), sv = salto_v3_dot(wv, e->a[k]);
            for (int c = 0; c < 3; c++) wgp[c] += sp * e->a[k][c], wgv[c] += sv * e->a[k][c];
        }
        salto_site_pos(m, d, e->site, g);
        nlp_point_hess_add(nlp, S, ns, map, m->site_link[e->site], g, wgp, -1.0);
        vel_point_hess_add(nlp, S, ns, map, off, m->site_link[e->site], g, wgv, -1.0);
    }
    // J: the six rows of (a, b), each over (q, qd, places)
    const int na = merged ? nlp->blocks[nlp->hess.acc].nxaux : b->nxaux;
    const int aux0 = 3 * (merged ? nv : b->ndep);
    const int wdt = 2 * nv + NXAUX;
    double* Jc = nlp->hess.Jb;
    double* J3 = nlp->ev.J3;
    double* Dv = nlp->ev.fq;
    salto_point_jac(m, d, b->link, P, J3);
    salto_point_motion_deriv(m, d, b->link, P, Dv, NULL, NULL);
    for (int e = 0; e < 2; e++) {
        const double h = e ? hf : -hb;
        for (int k = 0; k < 3; k++) {
            double* row = Jc + (size_t)(3 * e + k) * wdt;
            for (int j = 0; j < nv; j++) {
                row[j] = J3[(size_t)k * nv + j] + h * Dv[(size_t)k * nv + j];
                row[nv + j] = h * J3[(size_t)k * nv + j];
            }
            for (int a = 0; a < NXAUX; a++) row[2 * nv + a] = 0.0;
            if (b->er >= 0) nlp_er_chain(nlp, b->er, row, row + nv, NULL, row + 2 * nv);
        }
    }
    jhj_add(nlp, Jc, H6, lr, S, ns, map, off, na, aux0);
}


// The kinematic rows whose Hessian is exact, in O(depth^2): e . x of a point fixed on a link
// (above_ground's points, a site at a point, on a line or a plane, or held there) and of the
// centre of mass (com_position, a ballistic flight's parabola), a site's velocity (site_still),
// a body's angular velocity (body_still), and the two rows of a second held site (its body's
// heading and level, functions of free vectors turning with the body). Through the effective
// root, whose translation is P - a . g(q) for the held site g (and its velocity -a . g'), a
// point's or the centre of mass's row less the same for g with the weight sum_t (w . a_t) a_t;
// the angles and the angular velocity do not see the translation. No differences. Returns 0
// for any other kind of row.
static int hess_kin_rows(salto_nlp* nlp, int i, const double* lambda, double* values) {
    const block* b = &nlp->blocks[i];
    const salto_constraint_desc* cd = nlp_cd(nlp, b->con);
    const salto_model* m = nlp->m;
    const int t = cd->type;
    const int point = t == SALTO_CON_ABOVE_GROUND || t == SALTO_CON_SITE_AT ||
                      t == SALTO_CON_SITE_ON_LINE || t == SALTO_CON_SITE_ON_PLANE ||
                      t == SALTO_CON_SITE_HOLD || t == SALTO_CON_SITE_ABOVE ||
                      t == SALTO_CON_SITE_IN_BOX;
    const int com = t == SALTO_CON_COM_POSITION || t == SALTO_CON_COM_PARABOLA ||
                    t == SALTO_CON_COM_ABOVE || t == SALTO_CON_COM_IN_BOX;
    if (!point && !com && t != SALTO_CON_SITE_STILL && t != SALTO_CON_BODY_STILL &&
        t != SALTO_CON_BODY_LEVEL && t != SALTO_CON_BODY_HEADING && t != SALTO_CON_CLEAR_BAR &&
        t != SALTO_CON_CLEAR_BOX)
        return 0;
    // where a physics block at this time reads every DOF, its square holds these rows', and
    // they are summed into its state Hessian (one map to the control points for them all);
    // otherwise mapped on their own
    const int merged = nlp->hess.acc >= 0;
    int nd = b->ndep, ns = 3 * nd + b->nxaux, off = nd;
    double* S = nlp->hess.Sl;
    int* map = nlp->hess.map;
    if (merged) {
        ns = 3 * nlp->nv + nlp->blocks[nlp->hess.acc].nxaux;
        off = nlp->nv;
        S = nlp->hess.Sacc;
        for (int j = 0; j < nlp->nv; j++) map[j] = j;
        nlp->hess.acc_used = 1;
    } else {
        memset(S, 0, (size_t)ns * (size_t)ns * sizeof(double));
        for (int j = 0; j < nlp->nv; j++) map[j] = -1;
        for (int jj = 0; jj < nd; jj++) map[nlp->dep[b->dep0 + jj]] = jj;
    }
    nlp_kinematics_at(nlp, nlp->hess.xs, b);
    const salto_data* d = nlp->ev.d;
    double w[3] = {0, 0, 0}, x[3];
    for (int r = 0; r < b->nrows; r++) {
        const double lr = lambda[b->row0 + r];
        if (t == SALTO_CON_SITE_AT || t == SALTO_CON_SITE_STILL || t == SALTO_CON_BODY_STILL ||
            t == SALTO_CON_COM_POSITION || t == SALTO_CON_SITE_IN_BOX || t == SALTO_CON_COM_IN_BOX) {
            w[b->comp[r]] += lr;
        } else if (t == SALTO_CON_ABOVE_GROUND) {
            w[2] += lr;
        } else if (t != SALTO_CON_BODY_LEVEL && t != SALTO_CON_BODY_HEADING) {
            for (int k = 0; k < 3; k++) w[k] += lr * b->e[r][k];
        }
    }
    int translated = 0; // 1: a position that sees the effective root's translation; 2: a velocity
    if (t == SALTO_CON_CLEAR_BOX && b->chord) {
        chord_hess(nlp, b, lambda[b->row0], S, ns, map, off, merged);
    } else if (t == SALTO_CON_CLEAR_BAR || t == SALTO_CON_CLEAR_BOX) {
        // d(a(q), b(q)) for the segment's ends on one link: the ends' point Hessians weighted by
        // the gradients, and J' H6 J with J the ends' Jacobians (through the effective root
        // where the block sees one: E's chain of each row of J, the places included)
        const double lr = lambda[b->row0];
        double xa[3], xb[3], ga[3], gb[3], H6[36];
        nlp_bar_segment(nlp, b, xa, xb);
        nlp_clear_distance(nlp, cd, xa, xb, b->offset, ga, gb, H6);
        for (int k = 0; k < 3; k++) ga[k] *= lr, gb[k] *= lr, w[k] = ga[k] + gb[k];
        nlp_point_hess_add(nlp, S, ns, map, b->link, xa, ga, 1.0);
        nlp_point_hess_add(nlp, S, ns, map, b->link, xb, gb, 1.0);
        const int nv = nlp->nv;
        const int na = merged ? nlp->blocks[nlp->hess.acc].nxaux : b->nxaux;
        const int aux0 = 3 * (merged ? nv : nd);
        double* Jc = nlp->hess.Jb; // 6 rows of (q, qd: zero, places), as a chord's
        const int wdt = 2 * nv + NXAUX;
        for (int e = 0; e < 2; e++) {
            salto_point_jac(m, d, b->link, e ? xb : xa, nlp->ev.J3);
            for (int k = 0; k < 3; k++) {
                double* row = Jc + (size_t)(3 * e + k) * wdt;
                memcpy(row, nlp->ev.J3 + (size_t)k * nv, (size_t)nv * sizeof(double));
                memset(row + nv, 0, (size_t)(nv + NXAUX) * sizeof(double));
                if (b->er >= 0) nlp_er_chain(nlp, b->er, row, row + nv, NULL, row + 2 * nv);
            }
        }
        jhj_add(nlp, Jc, H6, lr, S, ns, map, off, na, aux0);
        translated = 1;
    } else if (point) {
        int l;
        if (t == SALTO_CON_ABOVE_GROUND) {
            l = b->link;
            salto_m3_mul_v3(x, d->R + 9 * l, b->point);
            for (int k = 0; k < 3; k++) x[k] += d->p[3 * l + k];
        } else {
            l = m->site_link[cd->site];
            salto_site_pos(m, d, cd->site, x);
        }
        if (l >= 0) nlp_point_hess_add(nlp, S, ns, map, l, x, w, 1.0);
        translated = 1;
    } else if (com) {
        nlp_com_sums(nlp);
        com_hess_add(nlp, S, ns, map, w, 1.0);
        translated = 1;
    } else if (t == SALTO_CON_SITE_STILL) {
        const int l = m->site_link[cd->site];
        salto_site_pos(m, d, cd->site, x);
        if (l >= 0) vel_point_hess_add(nlp, S, ns, map, off, l, x, w, 1.0);
        translated = 2;
    } else if (t == SALTO_CON_BODY_STILL) {
        angvel_hess_add(nlp, S, ns, map, off, m->site_link[cd->site], w);
    } else {
        // u from site0 to site (one body), and for the level the body's zero-pose vertical v
        const int l = m->site_link[cd->site];
        const double lr = lambda[b->row0];
        double x0[3], u[3];
        salto_site_pos(m, d, cd->site0, x0);
        salto_site_pos(m, d, cd->site, x);
        for (int k = 0; k < 3; k++) u[k] = x[k] - x0[k];
        if (t == SALTO_CON_BODY_LEVEL) {
            // phi = v . (N x u) / |u|: gu = (v x N) / |u|, gv = (N x u) / |u|, Huv = [N x]' / |u|
            const double len = salto_v3_norm(u);
            if (len > 0.0 && l >= 0) {
                double v[3], gu[3], gv[3], Huv[9];
                salto_m3_mul_v3(v, d->R + 9 * l, cd->point);
                salto_v3_cross(gu, v, cd->dir);
                salto_v3_cross(gv, cd->dir, u);
                const double* N = cd->dir;
                const double Nx[9] = {0, -N[2], N[1], N[2], 0, -N[0], -N[1], N[0], 0};
                for (int k = 0; k < 3; k++) gu[k] *= lr / len, gv[k] *= lr / len;
                for (int r = 0; r < 3; r++) {
                    for (int c = 0; c < 3; c++) Huv[3 * r + c] = lr * Nx[3 * c + r] / len;
                }
                freevec_hess_add(nlp, S, ns, map, l, u, v, gu, gv, NULL, Huv, NULL);
            }
        } else {
            // psi = atan2(u . Ty, u . Tx) (the heading less the place variable)
            double Tx[3], Ty[3];
            salto_contact_frame(cd->dir, 0, Tx, Ty);
            const double X = salto_v3_dot(u, Tx), Y = salto_v3_dot(u, Ty), r2 = X * X + Y * Y;
            if (r2 > 0.0 && l >= 0) {
                const double pX = -Y / r2, pY = X / r2, r4 = r2 * r2;
                const double pXX = 2.0 * X * Y / r4, pYY = -pXX, pXY = (Y * Y - X * X) / r4;
                double gu[3], Huu[9];
                const double zero[3] = {0, 0, 0};
                for (int k = 0; k < 3; k++) gu[k] = lr * (pX * Tx[k] + pY * Ty[k]);
                for (int r = 0; r < 3; r++) {
                    for (int c = 0; c < 3; c++) {
                        Huu[3 * r + c] = lr * (pXX * Tx[r] * Tx[c] + pXY * (Tx[r] * Ty[c] + Ty[r] * Tx[c]) +
                                               pYY * Ty[r] * Ty[c]);
                    }
                }
                freevec_hess_add(nlp, S, ns, map, l, u, zero, gu, zero, Huu, NULL, NULL);
            }
        }
    }
    if (translated && b->er >= 0) {
        const eroot* e = &nlp->root.er[b->er];
        double wg[3] = {0, 0, 0}, g[3];
        for (int k = 0; k < e->nt; k++) {
            const double sk = salto_v3_dot(w, e->a[k]);
            for (int c = 0; c < 3; c++) wg[c] += sk * e->a[k][c];
        }
        salto_site_pos(m, d, e->site, g);
        if (translated == 1) {
            nlp_point_hess_add(nlp, S, ns, map, m->site_link[e->site], g, wg, -1.0);
        } else {
            vel_point_hess_add(nlp, S, ns, map, off, m->site_link[e->site], g, wg, -1.0);
        }
    }
    if (!merged) block_hess_finish(nlp, i, S, NULL, values);
    return 1;
}


// A torque block (nlp_torque.c): its rows' Hessian in the full state, exact
// (nlp_torque_hess), through the effective root where the phase has one
static salto_status hess_torque(salto_nlp* nlp, int i, const double* lambda, double* values) {
    const block* b = &nlp->blocks[i];
    const int n3 = 3 * nlp->nv;
    double* H = nlp->hess.Hf;
    double wq[3], wv[3], wa[3];
    nlp_torque_hess(nlp, b, lambda + b->row0, NULL, H, wq, wv, wa);
    nlp->ev.have_state = 0;
    // summed into the physics block's at this time (the same state and places: one map to the
    // control points for both), or mapped on its own
    const int acc = nlp->hess.acc;
    int to_acc = acc >= 0 && nlp->blocks[acc].er == b->er && nlp->blocks[acc].nxaux == b->nxaux;
    for (int a = 0; to_acc && a < b->nxaux; a++) to_acc = nlp->blocks[acc].xaux[a] == b->xaux[a];
    if (b->er >= 0) return er_finish(nlp, i, H, wq, wv, wa, to_acc, values);
    SALTO_ASSERT(b->ndep == nlp->nv && b->nxaux == 0);
    if (to_acc) {
        for (size_t e = 0; e < (size_t)n3 * (size_t)n3; e++) nlp->hess.Sacc[e] += H[e];
        nlp->hess.acc_used = 1;
        return SALTO_OK;
    }
    memcpy(nlp->hess.Sl, H, (size_t)n3 * (size_t)n3 * sizeof(double));
    block_hess_finish(nlp, i, nlp->hess.Sl, NULL, values);
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
    int* mem = nlp->hess.grp;
    size_t* at = nlp->hess.grp_at;
    for (int i = i0; i < i1; i++) {
        const block* b = &nlp->blocks[i];
        if (b->con < 0 || nlp->hess.blk0[i] < 0 || !block_has_lambda(b, lambda)) continue;
        if (hess_kin_rows(nlp, i, lambda, values)) continue;
        mem[nmem] = i;
        at[nmem] = off;
        const size_t ns = 3 * (size_t)b->ndep + (size_t)b->nxaux;
        off += ns + ns * ns;
        nmem++;
    }
    if (nmem == 0) return SALTO_OK;
    SALTO_ASSERT(off <= nlp->hess.grp_cap);
    double* G1 = nlp->hess.Jp;
    nlp->ev.have_state = 0;
    for (int m = 0; m < nmem; m++) {
        const block* b = &nlp->blocks[mem[m]];
        block_state_grad_cached(nlp, nlp->hess.xs, b, lambda, nlp->hess.arena + at[m]);
    }
    // every DOF some member depends on, each state component once
    for (int j = 0; j < nlp->nv; j++) {
        int used = 0;
        for (int m = 0; m < nmem && !used; m++) {
            const block* b = &nlp->blocks[mem[m]];
            for (int jj = 0; jj < b->ndep; jj++) used |= nlp->dep[b->dep0 + jj] == j;
        }
        if (!used) continue;
        for (int kind = 0; kind < 1; kind++) { // q only: the qd columns follow (below)
            double* c = nlp->hess.xs + j * nlp->ncp + b0->first;
            const double c0[4] = {c[0], c[1], c[2], c[3]};
            const double h = hess_step(nlp, nlp->hess.xs, b0, j, kind);
            for (int k = 0; k < 4; k++) c[k] = c0[k] + h * d[kind][k];
            nlp->ev.have_state = 0;
            for (int m = 0; m < nmem; m++) {
                const block* b = &nlp->blocks[mem[m]];
                int jj = -1;
                for (int q = 0; q < b->ndep; q++) {
                    if (nlp->dep[b->dep0 + q] == j) jj = q;
                }
                if (jj < 0) continue;
                const int nd = b->ndep, ns = 3 * nd + b->nxaux;
                const double* G0 = nlp->hess.arena + at[m];
                double* S = nlp->hess.arena + at[m] + ns;
                block_state_grad_cached(nlp, nlp->hess.xs, b, lambda, G1);
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
            double* xa = nlp->hess.xs + var;
            const double x0 = *xa, h = 1e-7 * fmax(1.0, fabs(x0));
            *xa = x0 + h;
            nlp->ev.have_state = 0;
            for (int q = m; q < nmem; q++) {
                const block* b = &nlp->blocks[mem[q]];
                int col = -1;
                for (int a2 = 0; a2 < b->nxaux; a2++) {
                    if (b->xaux[a2] == var) col = 3 * b->ndep + a2;
                }
                if (col < 0) continue;
                const int ns = 3 * b->ndep + b->nxaux;
                const double* G0 = nlp->hess.arena + at[q];
                double* S = nlp->hess.arena + at[q] + ns;
                block_state_grad_cached(nlp, nlp->hess.xs, b, lambda, G1);
                for (int r = 0; r < ns; r++) S[r * ns + col] = (G1[r] - G0[r]) / h;
            }
            *xa = x0;
        }
    }
    nlp->ev.have_state = 0;
    // every kinematic row is a function of q (and the places) or linear in qd (a site's, the
    // centre of mass's, a body's velocity, J(q) qd, also through the effective root), and none
    // reads qdd: the qd columns are the q columns' qd rows (and the places'), the qd-qd block
    // zero
    for (int m = 0; m < nmem; m++) {
        const block* b = &nlp->blocks[mem[m]];
        const int nd = b->ndep, ns = 3 * nd + b->nxaux;
        double* S = nlp->hess.arena + at[m] + ns;
        for (int jj = 0; jj < nd; jj++) {
            const int col = nd + jj;
            for (int a = 0; a < nd; a++) S[a * ns + col] = S[col * ns + a];
            for (int a = nd; a < 3 * nd; a++) S[a * ns + col] = 0.0;
            for (int a = 0; a < b->nxaux; a++) S[(3 * nd + a) * ns + col] = S[col * ns + 3 * nd + a];
        }
    }
    for (int m = 0; m < nmem; m++) {
        const block* b = &nlp->blocks[mem[m]];
        block_hess_finish(nlp, mem[m], nlp->hess.arena + at[m] + 3 * b->ndep + b->nxaux, NULL, values);
    }
    return SALTO_OK;
}


// the rows' Jacobian in the variables of block b (its local order: four control points of each
// dependency, then the places), at x, into J (nrows x nu, nu returned)
static int block_var_jac(salto_nlp* nlp, const double* x, const block* b, double* J) {
    double g[3];
    nlp_eval_block(nlp, x, b, g, 1);
    const int nd = b->ndep, nu = 4 * nd + b->nxaux;
    for (int r = 0; r < b->nrows; r++) {
        double* Jr = J + (size_t)r * nu;
        for (int jj = 0; jj < nd; jj++) {
            const double a = nlp->ev.dq[r * nd + jj], c = nlp->ev.dqd[r * nd + jj];
            const double e = b->con < 0 ? nlp->ev.dqdd[r * nd + jj] : 0.0;
            for (int k = 0; k < 4; k++) Jr[4 * jj + k] = a * b->N[k] + c * b->dN[k] + e * b->ddN[k];
        }
        for (int a = 0; a < b->nxaux; a++) Jr[4 * nd + a] = nlp->ev.daux[NXAUX * r + a];
    }
    return nu;
}


// the contact_jerk pairs' cross terms: -2 obj_factor w (J_a' J_b + J_b' J_a) for each pair; an
// entry whose two variables are one (the same control point) takes both halves. Each block's
// Jacobian once (nlp->jk_J), though most are in two pairs
static void jerk_cross_hess(salto_nlp* nlp, const double* x, double obj_factor, double* values) {
    const size_t w = 3 * (4 * (size_t)nlp->nv + NXAUX);
    for (int i = nlp->nblock; i < nlp->nblock + nlp->nobjblk; i++) {
        if (nlp->blocks[i].quad == 2) block_var_jac(nlp, x, &nlp->blocks[i], nlp->jk_J + w * (size_t)(i - nlp->nblock));
    }
    for (int q = 0; q < nlp->njk; q++) {
        const block* a = &nlp->blocks[nlp->jk_a[q]];
        const block* b = &nlp->blocks[nlp->jk_b[q]];
        const double* Ja = nlp->jk_J + w * (size_t)(nlp->jk_a[q] - nlp->nblock);
        const double* Jb = nlp->jk_J + w * (size_t)(nlp->jk_b[q] - nlp->nblock);
        const int nua = 4 * a->ndep + a->nxaux, nub = 4 * b->ndep + b->nxaux;
        const double c = -2.0 * obj_factor * nlp->jk_w[q];
        const int* slot = nlp->hess.jk + nlp->hess.jk0[q];
        for (int u = 0; u < nua; u++) {
            const int vu = block_var(nlp, a, u);
            for (int v = 0; v < nub; v++) {
                double s = 0.0;
                for (int r = 0; r < a->nrows; r++) s += Ja[(size_t)r * nua + u] * Jb[(size_t)r * nub + v];
                if (s == 0.0) continue;
                values[slot[(size_t)u * nub + v]] += (vu == block_var(nlp, b, v) ? 2.0 : 1.0) * c * s;
            }
        }
    }
    nlp->ev.have_state = 0;
}


salto_status salto_nlp_eval_hess(salto_nlp* nlp, const double* x, double obj_factor,
                                 const double* lambda, double* values) {
    nlp_time_update(nlp, x);
    memset(values, 0, (size_t)nlp->nnz_hess * sizeof(double));
    const double* lambda_g = lambda; // the constraints' alone (nlp_time_hess)
    // the objective's constant band
    int e = 0;
    for (int j = 0; j < nlp->obj.dofs; j++) {
        for (int a = 0; a < nlp->ncp; a++) {
            for (int b = a - 3 < 0 ? 0 : a - 3; b <= a; b++, e++) {
                values[nlp->hess.obj[e]] += obj_factor * 2.0 * nlp_band(nlp, j, a, b - a);
            }
        }
    }
    // the objective's height and travel rows join the constraints' as rows past ng, each
    // weighted by obj_factor times its weight in the objective
    if (nlp->nobjblk > 0) {
        double* lx = nlp->lam_ext;
        if (lambda) {
            memcpy(lx, lambda, (size_t)nlp->ng * sizeof(double));
        } else {
            memset(lx, 0, (size_t)nlp->ng * sizeof(double));
        }
        for (int i = nlp->nblock; i < nlp->nblock + nlp->nobjblk; i++) {
            const block* b = &nlp->blocks[i];
            for (int r = 0; r < b->nrows; r++) lx[b->row0 + r] = b->quad ? 0.0 : obj_factor * b->ow;
        }
        lambda = lx;
    }
    if (!lambda) {
        nlp_time_hess(nlp, x, obj_factor, NULL, values);
        return SALTO_OK;
    }

    memcpy(nlp->hess.xs, x, (size_t)nlp->nx * sizeof(double));
    salto_status st = SALTO_OK;
    for (int i = 0; i < nlp->nblock && st == SALTO_OK;) {
        // the run of blocks at this time and side, on the same control points
        const block* b = &nlp->blocks[i];
        int i1 = i + 1;
        while (i1 < nlp->nblock && nlp->blocks[i1].t == b->t && nlp->blocks[i1].side == b->side &&
               nlp->blocks[i1].first == b->first) {
            i1++;
        }
        // a physics block here that reads every DOF, in order, takes the point rows' curvature
        nlp->hess.acc = -1;
        nlp->hess.acc_used = 0;
        int kc = -1; // the first constraint block
        for (int k = i; k < i1; k++) {
            const block* bk = &nlp->blocks[k];
            if (bk->con >= 0) {
                if (kc < 0) kc = k;
                continue;
            }
            if (bk->impact || bk->torque || nlp->hess.blk0[k] < 0 || bk->ndep != nlp->nv || nlp->hess.acc >= 0) continue;
            int inorder = 1;
            for (int jj = 0; jj < bk->ndep && inorder; jj++) inorder = nlp->dep[bk->dep0 + jj] == jj;
            if (!inorder) continue;
            const size_t ns = 3 * (size_t)bk->ndep + (size_t)bk->nxaux;
            memset(nlp->hess.Sacc, 0, ns * ns * sizeof(double));
            nlp->hess.acc = k;
        }
        if (kc >= 0) st = hess_group(nlp, kc, i1, lambda, values);
        int acc_done = 0;
        // the torque rows first: their state Hessian joins the physics block's before it is mapped
        for (int pass = 0; pass < 2; pass++) {
            for (int k = i; k < i1 && st == SALTO_OK; k++) {
                const block* bk = &nlp->blocks[k];
                if (bk->con >= 0 || nlp->hess.blk0[k] < 0 || bk->torque != (pass == 0) ||
                    !block_has_lambda(bk, lambda)) {
                    continue;
                }
                st = bk->impact   ? hess_impact(nlp, k, lambda, values)
                     : bk->torque ? hess_torque(nlp, k, lambda, values)
                                  : hess_physics(nlp, k, lambda, values);
                acc_done |= k == nlp->hess.acc;
            }
        }
        if (st == SALTO_OK && nlp->hess.acc >= 0 && nlp->hess.acc_used && !acc_done) {
            block_hess_finish(nlp, nlp->hess.acc, nlp->hess.Sacc, NULL, values);
        }
        nlp->hess.acc = -1;
        i = i1;
    }
    // the objective's rows (kinematic: a site's or the centre of mass's place), each on its own
    nlp->ev.have_state = 0;
    const int jerk = nlp->njk > 0 && obj_factor != 0.0;
    if (jerk) nlp_jerk_rows(nlp, x, -1, 1); // each row's weight in the contact_jerk terms
    for (int i = nlp->nblock; i < nlp->nblock + nlp->nobjblk && st == SALTO_OK; i++) {
        const block* b = &nlp->blocks[i];
        nlp->hess.acc = -1;
        if (b->quad) { // quadratic in its rows (a torque, contact_force or contact_jerk objective's)
            if (obj_factor == 0.0 || b->ow == 0.0) continue;
            double wq[3], wv[3], wa[3];
            double* H = nlp->hess.Hf;
            if (b->torque) {
                nlp_torque_obj_hess(nlp, b, obj_factor, H, wq, wv, wa);
            } else if (b->quad == 2) {
                // its rows' curvature by their weights in the terms, and 2 w J' J for each
                // pair it is in (the pairs' cross terms below)
                double mu[3], gn = 0.0;
                const double* jc = nlp->jk_c + 3 * (size_t)(i - nlp->nblock);
                for (int r = 0; r < b->nrows; r++) mu[r] = obj_factor * jc[r];
                for (int q = 0; q < nlp->njk; q++) {
                    if (nlp->jk_a[q] == i || nlp->jk_b[q] == i) gn += 2.0 * obj_factor * nlp->jk_w[q];
                }
                nlp_force_rows_hess(nlp, b, mu, gn, H, wq, wv, wa);
            } else {
                nlp_force_obj_hess(nlp, b, obj_factor, H, wq, wv, wa);
            }
            nlp->ev.have_state = 0;
            if (b->er >= 0) {
                st = er_finish(nlp, i, H, wq, wv, wa, 0, values);
            } else {
                // the Gauss-Newton part has a qdd-qdd block (block_hess_finish's Q)
                const int nv = nlp->nv;
                const size_t n3 = 3 * (size_t)nv;
                for (int a = 0; a < nv; a++) {
                    for (int c = 0; c < nv; c++) nlp->hess.Ql[a * nv + c] = H[(2 * (size_t)nv + a) * n3 + 2 * nv + c];
                }
                memcpy(nlp->hess.Sl, H, n3 * n3 * sizeof(double));
                block_hess_finish(nlp, i, nlp->hess.Sl, nlp->hess.Ql, values);
            }
            continue;
        }
        if (!block_has_lambda(b, lambda)) continue;
        if (!hess_kin_rows(nlp, i, lambda, values)) st = SALTO_ERR_NUMERIC; // cannot happen
    }
    nlp->ev.have_state = 0;
    if (jerk && st == SALTO_OK) jerk_cross_hess(nlp, x, obj_factor, values);
    if (st != SALTO_OK) return st;
    nlp_time_hess(nlp, x, obj_factor, lambda_g ? lambda : NULL, values);
    return nlp_finite_n(values, nlp->nnz_hess) ? SALTO_OK : SALTO_ERR_NUMERIC;
}
