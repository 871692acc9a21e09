// sim_solve.c: the constraint rows' values and targets, their matrix K from test forces or
// the delta method, projected Gauss-Seidel, impacts (sim.c's step (2)) and the accelerations
// with the constraint forces (step (3)), tracked joints through the root's reduced system
#include "sim_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/problem.h" // salto_contact_frame
#include "salto/spatial.h"

#include "linalg.h"


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
            sim_point_acc(s->m, s->d, r->link, x, v);
        } else {
            sim_point_vel(s->d, r->link, x, v);
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
double sim_last_multiplier(const salto_sim* s, long key) {
    for (int k = 0; k < s->nprev; k++) {
        if (s->prev_key[k] == key) return s->prev_lambda[k];
    }
    return 0.0;
}


// row r's bounds [lo, hi] at the multipliers L (a tangent's from its normal's; pos_of gives a
// row's position in L, -1 if it is not there)
static void row_bounds(const salto_sim* s, const row* r, const int* pos_of, const double* L,
                       double* lo, double* hi) {
    if (r->kind == row_tangent) {
        const int pn = pos_of[r->normal];
        const double lim = pn >= 0 ? s->o.friction * L[pn] : 0.0;
        *lo = -lim, *hi = lim;
    } else if (r->kind == row_grip) {
        *lo = -r->bound, *hi = r->bound;
    } else if (r->kind == row_track || r->kind == row_hold) {
        *lo = -INFINITY, *hi = INFINITY;
    } else {
        *lo = 0.0, *hi = INFINITY;
    }
}


// a row the solve leaves at 0: a direction the system cannot move, or a row with no target
static int row_idle(double kaa, double target) {
    return !(kaa > 1e-12) || target == -INFINITY;
}


// The natural residual of L, max over the rows of K_aa |P(L_a - w_a / K_aa) - L_a| h, w_a the
// row's miss of its target at L and P the projection on its bounds at L: what a sweep from L
// would change first (Jacobi: L itself unchanged), m/s or rad/s as pgs_core's
static double natural_residual(const salto_sim* s, int n, const int* idx, const double* K,
                               int ld, const double* now, const double* target,
                               const int* pos_of, const double* L, double h) {
    double res = 0.0;
    for (int a = 0; a < n; a++) {
        const row* r = &s->rows[idx[a]];
        const double kaa = K[(size_t)ld * a + a];
        if (row_idle(kaa, target[a])) continue;
        double w = now[a] - target[a], lo, hi;
        for (int k = 0; k < n; k++) w += K[(size_t)ld * k + a] * L[k];
        row_bounds(s, r, pos_of, L, &lo, &hi);
        const double v = fmin(fmax(L[a] - w / kaa, lo), hi); // (fmin, fmax drop a NaN)
        if (isnan(w) || isnan(v)) return NAN;
        res = fmax(res, kaa * fabs(v - L[a]) * h);
    }
    return res;
}


// One subspace step (after Silcowitz, Niebe and Erleben's PGS-SM): the rows strictly inside
// their bounds are free; a tangent on the edge of its friction cone slides, its multiplier
// sigma mu L_n following its normal's (sigma its side); the others (normals at 0 and their
// tangents) are held at their values. The free rows' equations
//   sum_j K_aj L_j + sum_t K_at sigma_t mu L_n(t) = target_a - now_a - (held rows' share)
// are solved exactly (a dense LU; not symmetric once tangents slide), and the result projected
// on the bounds (unilateral rows first, then the tangents on their normals' new cones). The
// matrix is singular when contacts are redundant (a flat foot's four corners on the foot's six
// DOFs): it is solved with a shift eps I (eps 1e-9 of its largest diagonal entry) and one step
// of refinement on the unshifted matrix, which for a symmetric one tends to the least-norm
// solution (the redundant corners share the load evenly) rather than one of the many others.
// Taken when it lowers the natural residual below *res (which it then holds); returns whether
// it was taken.
static int subspace_step(salto_sim* s, int n, const int* idx, const double* K, int ld,
                         const double* now, const double* target, const int* pos_of, double* L,
                         double h, double* res) {
    int* F = s->sm_free;                 // the free rows' positions (nf)
    int* in = F + n;                     // each row's place in F, -1 if held; for a sliding
                                         //   tangent -2 (its multiplier follows its normal)
    double* A = s->sm_work;              // the system, then its factor (nf x nf)
    double* x = A + (size_t)n * n;       // (nf)
    double* b = x + n;                   // the right-hand side (nf)
    double* Lc = b + n;                  // the candidate (n)
    int* piv = in + n;                   // the LU's pivots (nf)
    const double mu = s->o.friction;
    int nf = 0;
    for (int a = 0; a < n; a++) {
        const row* r = &s->rows[idx[a]];
        double lo, hi;
        Lc[a] = L[a], in[a] = -1;
        if (row_idle(K[(size_t)ld * a + a], target[a])) continue;
        row_bounds(s, r, pos_of, L, &lo, &hi);
        if (L[a] > lo && L[a] < hi) {
            in[a] = nf, F[nf++] = a, Lc[a] = 0.0;
        } else if (r->kind == row_tangent && hi > 0.0) {
            in[a] = -2, Lc[a] = 0.0;
        }
    }
    for (int t = 0; t < n; t++) { // a sliding tangent rides on its normal, free (above 0)
        if (in[t] == -2 && in[pos_of[s->rows[idx[t]].normal]] < 0) in[t] = -1, Lc[t] = L[t];
    }
    if (nf == 0) return 0;
    for (int i = 0; i < nf; i++) {
        const int a = F[i];
        double v = target[a] - now[a];
        for (int k = 0; k < n; k++) v -= K[(size_t)ld * k + a] * Lc[k];
        b[i] = v;
        for (int j = 0; j < nf; j++) A[(size_t)nf * i + j] = K[(size_t)ld * F[j] + a];
    }
    for (int t = 0; t < n; t++) {
        if (in[t] != -2) continue;
        const row* r = &s->rows[idx[t]];
        const int pn = pos_of[r->normal], j = in[pn];
        const double sig = L[t] > 0.0 ? mu : -mu;
        for (int i = 0; i < nf; i++) A[(size_t)nf * i + j] += sig * K[(size_t)ld * t + F[i]];
    }
    double dmax = 0.0;
    for (int i = 0; i < nf; i++) dmax = fmax(dmax, fabs(A[(size_t)nf * i + i]));
    double* A0 = Lc + n;                 // the unshifted matrix, for the refinement (nf x nf)
    memcpy(A0, A, (size_t)nf * nf * sizeof(double));
    const double eps = 1e-9 * dmax;
    for (int i = 0; i < nf; i++) A[(size_t)nf * i + i] += eps;
    s->stats.pgs_subspace++;
    if (!salto_lu(A, nf, piv)) return 0;
    memcpy(x, b, (size_t)nf * sizeof(double));
    salto_lu_solve(A, nf, piv, x);
    for (int i = 0; i < nf; i++) { // the refinement's right-hand side, unshifted
        double v = b[i];
        for (int j = 0; j < nf; j++) v -= A0[(size_t)nf * i + j] * x[j];
        b[i] = v;
    }
    salto_lu_solve(A, nf, piv, b);
    for (int i = 0; i < nf; i++) Lc[F[i]] = x[i] + b[i];
    for (int pass = 0; pass < 2; pass++) { // onto the bounds: the tangents' after their normals
        for (int a = 0; a < n; a++) {
            const row* r = &s->rows[idx[a]];
            if ((r->kind == row_tangent) != pass || r->kind == row_track || r->kind == row_hold) continue;
            if (row_idle(K[(size_t)ld * a + a], target[a])) continue;
            double lo, hi;
            row_bounds(s, r, pos_of, Lc, &lo, &hi);
            if (in[a] == -2) Lc[a] = L[a] > 0.0 ? hi : lo; // sliding: on its normal's new cone
            Lc[a] = fmin(fmax(Lc[a], lo), hi);
        }
    }
    const double rc = natural_residual(s, n, idx, K, ld, now, target, pos_of, Lc, h);
    if (!(rc < *res)) return 0;
    memcpy(L, Lc, (size_t)n * sizeof(double));
    *res = rc;
    return 1;
}


// the sweeps before the first subspace step, and between two; the exact solve's rounds, and
// the most rows it takes on
enum { subspace_first = 3, subspace_every = 5, exact_rounds = 10, exact_max_rows = 96 };


// The box QP min 1/2 L' K L + (now - target)' L, lo <= L <= hi (fixed bounds; K symmetric
// positive semi-definite), by a primal active-set method: the rows held at a bound (W 1 at
// lo, 2 at hi; 3 idle, fixed at 0) stay there; the free rows take the Newton step
// d = -(K_FF + eps I)^-1 g_F (eps 1e-10 of the largest diagonal entry: K_FF is singular when
// contacts are redundant, and a direction along which the objective only falls then runs to
// a bound), cut where it first meets a free row's bound (the ratio test), which row is then
// held; at the face's minimum (every free row's miss g_a h within tol) the held row pulling
// inward hardest is let go. Stops when the natural residual at the fixed bounds is within
// tol, or *solves (the factorisations, counted on) reaches max_solves; returns 0, or -1 when a
// factorisation failed or the gradient is not finite. lo and hi hold the bounds, W and F
// n ints each, A n x n doubles, d and g n each.
static int box_qp(int n, const double* K, int ld, const double* c, const double* lo,
                  const double* hi, int* W, int* F, double* A, double* d, double* g, double* L,
                  double h, double tol, int max_solves, int* solves) {
    for (int a = 0; a < n; a++) { // the rows at a bound with the gradient pushing out are held
        if (W[a]) continue;
        double v = c[a];
        for (int k = 0; k < n; k++) v += K[(size_t)ld * k + a] * L[k];
        if (lo[a] == hi[a]) {
            W[a] = 1, L[a] = lo[a];
        } else if (L[a] <= lo[a] && v > 0.0) {
            W[a] = 1;
        } else if (L[a] >= hi[a] && v < 0.0) {
            W[a] = 2;
        }
    }
    int stuck = -1, released = -1; // a row let go and held again at once (a zero step, the
    for (;;) {                         //   shifted Newton step pointing out): not let go again
                                       //   until a step moves
        double res = 0.0, free_res = 0.0;
        int nf = 0;
        for (int a = 0; a < n; a++) {
            g[a] = 0.0;
            if (W[a] == 3) continue;
            double v = c[a];
            for (int k = 0; k < n; k++) v += K[(size_t)ld * k + a] * L[k];
            if (!isfinite(v)) return -1;
            g[a] = v;
            const double kaa = K[(size_t)ld * a + a];
            res = fmax(res, kaa * fabs(fmin(fmax(L[a] - v / kaa, lo[a]), hi[a]) - L[a]) * h);
            if (!W[a]) F[nf++] = a, free_res = fmax(free_res, fabs(v) * h);
        }
        if (res <= tol) return 0;
        if (free_res <= tol) { // the face's minimum: let go of the row pulling inward hardest
            int best = -1;
            double pull = 0.0;
            for (int a = 0; a < n; a++) {
                const double p = W[a] == 1 && lo[a] < hi[a] ? -g[a] : W[a] == 2 ? g[a] : 0.0;
                if (p > pull && a != stuck) pull = p, best = a;
            }
            if (best < 0) return 0;
            W[best] = 0, released = best;
            continue;
        }
        if (*solves >= max_solves) return 0;
        double dmax = 0.0;
        for (int i = 0; i < nf; i++) {
            for (int j = 0; j < nf; j++) A[(size_t)nf * i + j] = K[(size_t)ld * F[j] + F[i]];
            dmax = fmax(dmax, A[(size_t)nf * i + i]);
        }
        for (int i = 0; i < nf; i++) A[(size_t)nf * i + i] += 1e-10 * dmax;
        ++*solves;
        if (!salto_chol(A, nf)) return -1;
        for (int i = 0; i < nf; i++) d[i] = -g[F[i]];
        salto_chol_solve(A, nf, d);
        double amax = 1.0;
        int block = -1, side = 0;
        for (int i = 0; i < nf; i++) {
            const int a = F[i];
            if (d[i] > 0.0 && hi[a] < INFINITY && (hi[a] - L[a]) < amax * d[i]) {
                amax = fmax((hi[a] - L[a]) / d[i], 0.0), block = a, side = 2;
            } else if (d[i] < 0.0 && lo[a] > -INFINITY && (lo[a] - L[a]) > amax * d[i]) {
                amax = fmax((lo[a] - L[a]) / d[i], 0.0), block = a, side = 1;
            }
        }
        for (int i = 0; i < nf; i++) L[F[i]] += amax * d[i];
        if (block >= 0) W[block] = side, L[block] = side == 1 ? lo[block] : hi[block];
        stuck = amax > 0.0 ? -1 : block == released ? block : stuck;
        released = -1;
    }
}


// The contact problem solved exactly, friction apart: with the friction bounds frozen at
// mu times the normals' multipliers of the moment, the problem is the box QP above (its
// optimality conditions are the rows' complementarity conditions); solved, the normals move,
// so the bounds are frozen again at the new ones and the QP solved from where it stopped, up
// to exact_rounds times (the fixed point usually settles in two to ten; where friction and
// redundant contacts or a joint at its limit fight, it may not; stopping after two rounds
// without a tenth's progress was tried: it left a long jump's replay 2.1 m/s off where ten
// rounds reach 0.017 m/s), with at most 3 n + 8
// factorisations in all (each O(n^3): the solve is meant for the tens of rows a character's
// feet and hands give, and pgs_core calls it for at most exact_max_rows). L ends at the best
// natural residual seen, returned in *res (which holds L's on entry); returns the
// factorisations made.
static int exact_solve(salto_sim* s, int n, const int* idx, const double* K, int ld,
                       const double* now, const double* target, const int* pos_of, double* L,
                       double h, double* res) {
    double* A = s->sm_work;              // (n x n)
    double* c = A + (size_t)n * n;       // now - target (n)
    double* lo = c + n;                  // the frozen bounds (n, n)
    double* hi = lo + n;
    double* d = hi + n;                  // (n)
    double* g = d + n;                   // (n)
    double* best = g + n;                // the best L so far (n)
    int* W = s->sm_free;                 // (n)
    int* F = W + n;                      // (n)
    int solves = 0;
    memcpy(best, L, (size_t)n * sizeof(double));
    for (int round = 0; round < exact_rounds && *res > s->o.tolerance && solves < 3 * n + 8; round++) {
        for (int a = 0; a < n; a++) {
            const row* r = &s->rows[idx[a]];
            W[a] = 0, c[a] = 0.0;
            if (row_idle(K[(size_t)ld * a + a], target[a])) {
                W[a] = 3, L[a] = 0.0, lo[a] = hi[a] = 0.0;
                continue;
            }
            c[a] = now[a] - target[a];
            row_bounds(s, r, pos_of, L, &lo[a], &hi[a]);
            if (r->kind != row_track && r->kind != row_hold) L[a] = fmin(fmax(L[a], lo[a]), hi[a]);
        }
        if (box_qp(n, K, ld, c, lo, hi, W, F, A, d, g, L, h, 0.1 * s->o.tolerance, 3 * n + 8, &solves) < 0) {
            break;
        }
        const double rn = natural_residual(s, n, idx, K, ld, now, target, pos_of, L, h);
        if (rn < *res) {
            *res = rn;
            memcpy(best, L, (size_t)n * sizeof(double));
        }
    }
    memcpy(L, best, (size_t)n * sizeof(double));
    return solves;
}



// projected Gauss-Seidel on n rows idx[] of the system (matrix K with stride ld, indexed by
// position in idx): L with now + K L >= target on normal and limit rows (complementary to
// L >= 0), = target on the others, tangent rows within |L| <= mu L_normal (pos_of gives a
// row's position in idx, -1 if it is not there). L starts as given.
//
// The stopping test is on the residual, not on the multipliers: a sweep's residual is the
// largest change it made to any row's velocity, K_aa |dL_a| h (h the step for the
// acceleration problem, 1 for impulses), m/s (rad/s on joint rows): the projected update of
// row a is exactly what it still misses of its target, or of complementarity, at the
// multipliers of that moment (the natural residual, scaled by K_aa). The multipliers
// themselves need not converge: standing on two soles gives 8 contacts (24 rows) on what the
// reduced problem makes a rank-6 matrix, so the forces are not unique and Gauss-Seidel moves
// them along the null space of K for hundreds of sweeps while every velocity is already
// exact (the old test, on the multipliers' relative change, ran to the sweep cap on nearly
// every step standing).
//
// Gauss-Seidel alone crawls where the problem is badly conditioned: redundant rows of very
// different K_aa coupled (a foot landing flat: its corners' normal rows, K_aa 0.43 and 5.4,
// took the 100 sweeps with the residual still 5e-3 m/s), or a joint at its limit in the loop
// two planted feet close (the squat under PD: the matrix's nonzero eigenvalues from 5e-4 to
// 144, 9,000 sweeps to 1e-7 m/s). After subspace_first sweeps a subspace step solves the rows
// then inside their bounds exactly; if that is not enough, the exact solve (active-set box QP
// within the friction cone frozen, refrozen up to exact_rounds times) solves the problem
// itself; if neither meets the tolerance, Gauss-Seidel goes on from the best point, with a
// subspace step every subspace_every sweeps (the interval doubling after each that fails).
// The solve stops when a sweep's residual, or the natural residual after a subspace step or
// the exact solve, is within the tolerance. Records the sweeps, the subspace solves (the
// factorisations of both) and the final residual in the stats.
static void pgs_core(salto_sim* s, int n, const int* idx, const double* K, int ld,
                     const double* now, const double* target, const int* pos_of, double* L,
                     double h) {
    int sweeps = 0, next_subspace = subspace_first, every = subspace_every;
    double res = 0.0;
    salto_sim_stats* st = &s->stats;
    while (sweeps < s->o.max_iterations) {
        res = 0.0;
        for (int a = 0; a < n; a++) {
            const row* r = &s->rows[idx[a]];
            const double kaa = K[(size_t)ld * a + a];
            if (row_idle(kaa, target[a])) { // immovable direction, or inactive
                L[a] = 0.0;
                continue;
            }
            double w = now[a] - target[a];
            for (int k = 0; k < n; k++) w += K[(size_t)ld * k + a] * L[k];
            double v = L[a] - w / kaa;
            if (r->kind != row_track && r->kind != row_hold) {
                double lo, hi;
                row_bounds(s, r, pos_of, L, &lo, &hi);
                v = fmin(fmax(v, lo), hi);
            }
            res = fmax(res, kaa * fabs(v - L[a]) * h);
            L[a] = v;
        }
        sweeps++;
        if (res <= s->o.tolerance) break;
        if (sweeps == next_subspace && sweeps < s->o.max_iterations && n > 1) {
            double rn = natural_residual(s, n, idx, K, ld, now, target, pos_of, L, h);
            const int taken = subspace_step(s, n, idx, K, ld, now, target, pos_of, L, h, &rn);
            if (rn > s->o.tolerance && sweeps == subspace_first && n <= exact_max_rows) {
                st->pgs_subspace += exact_solve(s, n, idx, K, ld, now, target, pos_of, L, h, &rn);
            }
            if (rn <= s->o.tolerance) {
                res = rn;
                break;
            }
            if (!taken) {
                every *= 2; // no better: the free set is still changing, or there is no exact
            }           //   solution to find (a sliding foot's friction can make it so)
            next_subspace += every;
        }
    }
    st->pgs_sweeps += sweeps;
    st->pgs_solves++;
    if (res > s->o.tolerance) st->pgs_capped++;
    st->step_sweeps += sweeps;
    st->step_residual = fmax(st->step_residual, res);
    st->max_residual = fmax(st->max_residual, res);
}


// The constraint multipliers s->lambda for K, now, target. Bilateral rows (tracking, holds)
// are eliminated exactly first (Schur complement through a pivoted Cholesky factorisation of
// their block): lambda_B = K_BB^-1 (target_B - now_B - K_BU lambda_U); projected Gauss-Seidel
// then solves the unilateral rows (contacts, limits) on S = K_UU - K_UB K_BB^-1 K_BU, where it
// converges as on a plain contact problem (Gauss-Seidel over stiff bilateral rows coupled to
// contacts crawls). warm: the unilateral rows start from the last step's multipliers.
static void pgs(salto_sim* s, int warm, double h) {
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
        Lu[u] = warm ? sim_last_multiplier(s, s->rows[iu[u]].key) : 0.0;
    }
    if (nu > 0) pgs_core(s, nu, iu, S, nu, nowu, tgtu, pos, Lu, h);
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


// A touching point approaching slower than this (m/s), or a joint turning into its limit
// slower (rad/s), is resting contact: the acceleration solve's -2 w v stops it within the
// step's correction, micrometres deep at most, without a velocity-level solve of its own (at
// rest the solver's residual leaves such speeds, about opts tolerance, on most steps)
static const double slow_approach = 1e-5;

// impacts at the state: impulses for touching points approaching the ground and joints moving
// into a limit; qd changed in place. Returns whether any impulse acted.
salto_status sim_impacts(salto_sim* s, int* any) {
    *any = 0;
    const int n = s->nrow, nv = s->m->nv;
    if (n == 0) return SALTO_OK;
    row_values(s, 0, s->now); // velocities
    int approaching = 0;
    for (int i = 0; i < n; i++) {
        const row* r = &s->rows[i];
        if (r->kind == row_tangent || r->kind == row_track || r->kind == row_hold || r->kind == row_grip) continue;
        if (r->gap >= -1e-9 && s->now[i] < -slow_approach) approaching = 1;
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
            s->target[i] = -INFINITY; // not touching, or separating: no impulse needed (unless
                                      //   the others' impulses drive it in: below)
        } else if (r->kind == row_normal) {
            s->target[i] = -v > s->o.bounce_speed ? -s->o.restitution * v : 0.0;
        } else {
            s->target[i] = 0.0; // joints stop at their limits
        }
    }
    // A touching point or a joint at its limit left out as separating can be driven in by the
    // impulses elsewhere (a joint stopped at its limit swings a foot's toes into the floor, an
    // arm stopped on a box presses its edge down). In an inelastic impact such points are then
    // held from approaching too and the impulses solved again; left out, they sank at 0.1 to
    // 0.25 m/s, collided on the next step and set off the joint again (a PD squat's toes went
    // 2.6 mm deep that way). With a point bouncing they are left to collide on their own the
    // next step, a sequence of impacts: held at 0 in the same solve as the bounce, they stop the
    // body's turn short (a lamp landing on its base rocked onto one edge: its replayed root
    // strayed 22 mm from the motion instead of 1 mm; the dismount's joints 0.014 rad on average
    // instead of 0.008).
    int elastic = 0;
    for (int i = 0; i < n; i++) elastic |= s->rows[i].kind == row_normal && s->target[i] > 0.0;
    for (int pass = 0; pass < 4; pass++) { // the first solve and up to 3 more
        pgs(s, 0, 1.0);
        if (elastic || pass == 3) break;
        int more = 0;
        for (int i = 0; i < n; i++) {
            const row* r = &s->rows[i];
            if ((r->kind != row_normal && r->kind != row_limit) || r->gap < -1e-9 || s->target[i] != -INFINITY) continue;
            double v = s->now[i];
            for (int k = 0; k < n; k++) v += s->K[(size_t)n * k + i] * s->lambda[k];
            if (v < -slow_approach) s->target[i] = 0.0, more = 1;
        }
        if (!more) break;
    }
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
        L[u] = sim_last_multiplier(s, s->rows[idx[u]].key);
    }
    if (nu > 0) pgs_core(s, nu, idx, Kr, nu, nowr, tgt, pos, L, h);
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


salto_status sim_accelerations(salto_sim* s, double h) {
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
    pgs(s, 1, h);
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
