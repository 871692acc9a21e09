// nlp_time.c: free phase timing: a phase's duration as a variable of the NLP
//
// A phase whose duration is free ({min, max} in the problem file) is laid out at its nominal
// (initial) duration D: its knots, slices and blocks sit where they would at D, and the
// spline's control points describe the motion in nominal time s. With the phase's duration d
// the real time runs t = start + (s - start_D) d / D inside it, so with r = D / d
//   q(t) = Q(s),  qd(t) = r Q'(s),  qdd(t) = r^2 Q''(s):
// every block in the phase sees its basis scaled, dN = r dN0 and ddN = r^2 ddN0, and is
// otherwise evaluated as before (its rows, their Jacobian in the control points, their
// curvature in the state are those of the scaled state). What is new is each row's derivative
// in d, by the chain rule through the state:
//   d row / d d = -(1/d) sum_j (d row/d qd_j qd_j + 2 d row/d qdd_j qdd_j),
// exact from the rows' state Jacobian; a chord row (the path P -+ h v between the slices,
// h = h0 / r real seconds) does not depend on d at all, its h v being h0 Q'.
//
// The phase's knots at its boundaries are triple (C0): the pieces on the two sides then scale
// independently, and the velocity is joined by a junction block, one row per DOF,
//   r_L Q'_L(s_b) - r_R Q'_R(s_b) = 0,
// exactly the C1 join a double knot gives at fixed durations. (A double knot under a time scale
// that differs across it would leave the velocity jumping by the ratio of the scales.)
//
// The acceleration objective is sum_k r_k^3 c' Gk c over the phases k (the integral of qdd^2
// dt over phase k is r^3 times the nominal one), its regularisation sum_k c' G0k c / r_k: the
// band nlp_band reads is rebuilt from the phases' Gram matrices whenever a duration changes,
// and the durations' rows of the Hessian are exact. The durations' rows of the constraints'
// Hessian are central differences in d of the blocks' exact gradients (each block's rows
// depend on one duration; two evaluations of the block per Hessian); the junction's are exact.
#include "nlp_priv.h"

#include <math.h>
#include <string.h>

#include "salto/bspline.h"
#include "salto/solver.h"
#include "salto/spatial.h"


// the phase whose time scale block b sees: a physics block's own phase; a constraint's, the
// phase holding its time (the one ending there for a last slice, side < 0); -1 for a junction
static int block_phase(const salto_nlp* nlp, const block* b) {
    if (b->junc) return -1;
    if (b->con < 0) return b->phase;
    const salto_problem_desc* p = nlp->p;
    int ph = salto_problem_phase_at(p, b->t);
    if (ph > 0 && b->side < 0 && b->t == p->phases[ph].start) ph--;
    return ph;
}


// the scratch nlp->tscr: two block gradients (2 (4 nv + NXAUX + 2)), a block's deps' qd and qdd
// (2 nv), a block's rows' duration derivatives (two columns of up to nv + 8 rows)
static double* scr_qd(const salto_nlp* nlp) { return nlp->tscr + 2 * (4 * (size_t)nlp->nv + NXAUX + 2); }
double* nlp_time_dscratch(const salto_nlp* nlp) { return scr_qd(nlp) + 2 * (size_t)nlp->nv; }


static double phase_duration(const salto_nlp* nlp, const double* x, int ph) {
    return nlp->tvar[ph] >= 0 ? x[nlp->tvar[ph]] : nlp->tnom[ph];
}


// the junction's weights: the velocity from the left at the boundary reads control points
// fL + 2, fL + 3 (fL + 3 the one the C0 spline passes through), from the right fL + 3, fL + 4
static void junction_basis(const salto_nlp* nlp, block* b) {
    double N[4], dL[4], dR[4];
    const int fL = salto_bspline_basis_side(&nlp->spline, b->t, -1, N, dL, NULL);
    const int fR = salto_bspline_basis_side(&nlp->spline, b->t, 1, N, dR, NULL);
    SALTO_ASSERT(fR == fL + 3);
    (void)fR;
    b->first = fL + 1;
    for (int k = 0; k < 4; k++) {
        b->jL[k] = k < 3 ? dL[k + 1] : 0.0;
        b->jR[k] = k >= 2 ? dR[k - 2] : 0.0;
        b->N[k] = b->dN[k] = b->ddN[k] = 0.0;
    }
    b->ntc = 0;
    const int L = b->phase - 1, R = b->phase;
    if (nlp->tvar[L] >= 0) b->tc[b->ntc++] = nlp->tvar[L];
    if (nlp->tvar[R] >= 0) b->tc[b->ntc++] = nlp->tvar[R];
}


// called by the layout once a block's basis is set (nlp_layout.c)
void nlp_time_block(salto_nlp* nlp, block* b) {
    memcpy(b->dN0, b->dN, sizeof b->dN0);
    memcpy(b->ddN0, b->ddN, sizeof b->ddN0);
    memcpy(b->sweep0, b->sweep, sizeof b->sweep0);
    b->ow0 = b->ow;
    b->r = 1.0;
    b->ntc = 0;
    b->tph = -1;
    if (nlp->ntv == 0) return;
    if (b->junc) {
        junction_basis(nlp, b);
        return;
    }
    if (b->impact) {
        // the jump u = r_R jR . c - r_L jL . c (nlp_impact_basis set jL, jR): both sides' scales
        const int L = b->phase - 1, R = b->phase;
        if (nlp->tvar[L] >= 0) b->tc[b->ntc++] = nlp->tvar[L];
        if (nlp->tvar[R] >= 0) b->tc[b->ntc++] = nlp->tvar[R];
        return;
    }
    const int ph = block_phase(nlp, b);
    if (ph < 0 || nlp->tvar[ph] < 0) return;
    b->tph = ph;
    // a chord's rows do not depend on d; a height's or travel's are kinematic; a torque's or
    // contact force's objective rows do, and their weight (a time step) too
    if (!b->chord && (!b->obj || b->quad == 1)) b->ntc = 1, b->tc[0] = nlp->tvar[ph];
}


// an impact's jump weights at the two sides' durations
static void impact_scale(const salto_nlp* nlp, block* b, double dL, double dR) {
    const double rL = nlp->tnom[b->phase - 1] / dL, rR = nlp->tnom[b->phase] / dR;
    for (int k = 0; k < 4; k++) b->ddN[k] = rR * b->jR[k] - rL * b->jL[k];
}


// block b scaled to the durations in x
static void block_rescale(const salto_nlp* nlp, block* b, const double* x) {
    if (b->impact && b->ntc > 0) {
        impact_scale(nlp, b, phase_duration(nlp, x, b->phase - 1), phase_duration(nlp, x, b->phase));
    } else if (b->tph >= 0) {
        nlp_block_scale(nlp, b, phase_duration(nlp, x, b->tph));
    }
}


void nlp_block_scale(const salto_nlp* nlp, block* b, double d) {
    if (b->tph < 0) return;
    const double r = nlp->tnom[b->tph] / d;
    for (int k = 0; k < 4; k++) b->dN[k] = r * b->dN0[k], b->ddN[k] = r * r * b->ddN0[k];
    b->sweep[0] = b->sweep0[0] / r, b->sweep[1] = b->sweep0[1] / r;
    if (b->obj && b->quad == 1) b->ow = b->ow0 / r;
    b->r = r;
}


// The duration variables, after every other, and each phase's nominal duration; before the
// blocks (nlp_layout.c)
salto_status nlp_time_setup(salto_nlp* nlp) {
    const salto_problem_desc* p = nlp->p;
    nlp->tvar = salto_malloc((size_t)p->nphase * sizeof(int));
    nlp->tnom = salto_malloc((size_t)p->nphase * sizeof(double));
    nlp->tcur = salto_malloc((size_t)p->nphase * sizeof(double));
    nlp->tband0 = salto_calloc((size_t)p->nphase + 1, sizeof(int));
    if (!nlp->tvar || !nlp->tnom || !nlp->tcur || !nlp->tband0) return SALTO_ERR_NOMEM;
    for (int i = 0; i < p->nphase; i++) {
        nlp->tnom[i] = nlp->tcur[i] = p->phases[i].duration;
        nlp->tvar[i] = p->phases[i].dur_free ? nlp->nx + nlp->ntv++ : -1;
    }
    nlp->nx += nlp->ntv;
    return SALTO_OK;
}


// After the layout (each block's time scale and a junction's weights were set by
// nlp_time_block as its basis was): the objective's Gram matrices by phase, the scratch, and
// the blocks scaled to the initial durations
salto_status nlp_time_layout(salto_nlp* nlp) {
    const salto_problem_desc* p = nlp->p;
    const int ncp = nlp->ncp;
    if (nlp->ntv == 0) return SALTO_OK;
    nlp->Gk = salto_calloc((size_t)p->nphase * 7 * (size_t)ncp, sizeof(double));
    nlp->G0k = salto_calloc((size_t)p->nphase * 7 * (size_t)ncp, sizeof(double));
    nlp->tscr = salto_malloc((2 * (4 * (size_t)nlp->nv + NXAUX + 2) + 4 * (size_t)nlp->nv + 16) * sizeof(double));
    if (!nlp->Gk || !nlp->G0k || !nlp->tscr) return SALTO_ERR_NOMEM;
    for (int i = 0; i < p->nphase; i++) {
        const double t0 = p->phases[i].start, t1 = i + 1 < p->nphase ? p->phases[i + 1].start : p->duration;
        salto_bspline_gram_range(&nlp->spline, 2, t0, t1, nlp->Gk + (size_t)i * 7 * ncp);
        salto_bspline_gram_range(&nlp->spline, 0, t0, t1, nlp->G0k + (size_t)i * 7 * ncp);
    }
    for (int i = 0; i < p->nphase; i++) nlp->tcur[i] = -1.0; // scaled at the first evaluation
    double* x = salto_malloc((size_t)nlp->nx * sizeof(double));
    if (!x) return SALTO_ERR_NOMEM;
    for (int i = 0; i < p->nphase; i++) {
        if (nlp->tvar[i] >= 0) x[nlp->tvar[i]] = nlp->tnom[i];
    }
    nlp_time_update(nlp, x);
    salto_free(x);
    return SALTO_OK;
}


void nlp_time_update(salto_nlp* nlp, const double* x) {
    if (nlp->ntv == 0) return;
    const salto_problem_desc* p = nlp->p;
    int changed = 0;
    for (int i = 0; i < p->nphase; i++) {
        const double d = phase_duration(nlp, x, i);
        if (d != nlp->tcur[i]) nlp->tcur[i] = d, changed = 1;
    }
    if (!changed) return;
    for (int i = 0; i < nlp->nblock + nlp->nobjblk; i++) {
        block* b = &nlp->blocks[i];
        if (b->tph >= 0) nlp_block_scale(nlp, b, nlp->tcur[b->tph]);
        if (b->impact && b->ntc > 0) impact_scale(nlp, b, nlp->tcur[b->phase - 1], nlp->tcur[b->phase]);
    }
    const int n7 = 7 * nlp->ncp;
    for (int e = 0; e < n7; e++) nlp->obj.G[e] = nlp->obj.G0[e] = 0.0;
    for (int i = 0; i < p->nphase; i++) {
        const double r = nlp->tnom[i] / nlp->tcur[i];
        const double* G = nlp->Gk + (size_t)i * n7;
        const double* G0 = nlp->G0k + (size_t)i * n7;
        for (int e = 0; e < n7; e++) nlp->obj.G[e] += r * r * r * G[e], nlp->obj.G0[e] += G0[e] / r;
    }
    nlp->ev.have_state = 0;
}


// each row's derivative in each of its durations, after nlp_eval_block(want_jac) on b at x: column t
// (b->tc[t]) at dcol + t nrows
void nlp_time_dcol(salto_nlp* nlp, const double* x, const block* b, double* dcol) {
    const int nd = b->ndep;
    const int* dep = nlp->dep + b->dep0;
    double* qd = scr_qd(nlp);
    double* qdd = qd + nlp->nv;
    if (b->impact) {
        // u = r_R V_R - r_L V_L: du/d d_L = r_L V_L / d_L, du/d d_R = -r_R V_R / d_R, the rows'
        // derivatives in u in dqdd
        for (int t = 0; t < b->ntc; t++) {
            const int left = b->tc[t] == nlp->tvar[b->phase - 1];
            const int ph = left ? b->phase - 1 : b->phase;
            const double d = x[b->tc[t]], rr = nlp->tnom[ph] / d;
            const double* w = left ? b->jL : b->jR;
            for (int jj = 0; jj < nd; jj++) {
                const double* c = x + dep[jj] * nlp->ncp + b->first;
                double V = 0.0;
                for (int k = 0; k < 4; k++) V += w[k] * c[k];
                qd[jj] = left ? rr * V / d : -rr * V / d;
            }
            for (int r = 0; r < b->nrows; r++) {
                double s = 0.0;
                for (int jj = 0; jj < nd; jj++) s += nlp->ev.dqdd[r * nd + jj] * qd[jj];
                dcol[t * b->nrows + r] = s;
            }
        }
        return;
    }
    const double d = x[nlp->tvar[b->tph]];
    for (int jj = 0; jj < nd; jj++) {
        const double* c = x + dep[jj] * nlp->ncp + b->first;
        qd[jj] = qdd[jj] = 0.0;
        for (int k = 0; k < 4; k++) qd[jj] += b->dN[k] * c[k], qdd[jj] += b->ddN[k] * c[k];
    }
    for (int r = 0; r < b->nrows; r++) {
        double s = 0.0;
        if (b->diag) {
            s = nlp->ev.dqd[r] * qd[r];
        } else {
            for (int jj = 0; jj < nd; jj++) {
                s += nlp->ev.dqd[r * nd + jj] * qd[jj];
                if (b->con < 0) s += 2.0 * nlp->ev.dqdd[r * nd + jj] * qdd[jj];
            }
        }
        dcol[r] = -s / d;
    }
    // a ballistic flight's parabola rows also read the real time tau since the flight's start,
    // tau = tau0 d / D: their target c0 + v0 tau + ge tau^2 / 2 (velocity: v0 + ge tau) moves
    // with d by (v0 + ge tau) tau / d (velocity: ge tau / d)
    if (b->con >= 0 && nlp_is_parabola(nlp_cd(nlp, b->con)->type)) {
        const salto_constraint_desc* cd = nlp_cd(nlp, b->con);
        const int vel = cd->type == SALTO_CON_COM_PARABOLA_VEL, nt = nlp->root.bal_nt;
        const double tau = (b->t - nlp->p->phases[cd->phase].start) / b->r;
        const double* pl = x + nlp->bal[cd->phase];
        for (int r = 0; r < b->nrows; r++) {
            const double ge = salto_v3_dot(b->e[r], nlp->m->gravity);
            dcol[r] -= (vel ? ge : pl[nt + r] + ge * tau) * tau / d;
        }
    }
}


// a junction's rows (g, unless NULL) and their Jacobian entries in pattern order (jac, unless
// NULL: per row four control points, then the durations in tc's order)
void nlp_eval_junction(salto_nlp* nlp, const double* x, const block* b, double* g, double* jac) {
    const int L = b->phase - 1, R = b->phase;
    const double dL = phase_duration(nlp, x, L), dR = phase_duration(nlp, x, R);
    const double rL = nlp->tnom[L] / dL, rR = nlp->tnom[R] / dR;
    for (int j = 0; j < nlp->nv; j++) {
        const double* c = x + j * nlp->ncp + b->first;
        double cL = 0.0, cR = 0.0;
        for (int k = 0; k < 4; k++) cL += b->jL[k] * c[k], cR += b->jR[k] * c[k];
        if (g) g[j] = rL * cL - rR * cR;
        if (!jac) continue;
        for (int k = 0; k < 4; k++) *jac++ = rL * b->jL[k] - rR * b->jR[k];
        if (nlp->tvar[L] >= 0) *jac++ = -rL * cL / dL;
        if (nlp->tvar[R] >= 0) *jac++ = rR * cR / dR;
    }
}


// the band's quadratic form sum_j c_j' (wg_j G + w0 G0) c_j over one phase's Gram matrices, and
// with out its gradient in the control points (added, times f)
// row a of phase ph's band, ((wg Gk + w0 G0k) c)_a, for one DOF's control points c
static double band_row_ph(const salto_nlp* nlp, int ph, double wg, double w0, int a, const double* c) {
    const int ncp = nlp->ncp, n7 = 7 * ncp;
    const double* G = nlp->Gk + (size_t)ph * n7;
    const double* G0 = nlp->G0k + (size_t)ph * n7;
    double row = 0.0;
    for (int o = -3; o <= 3; o++) {
        const int b = a + o;
        const int i = 7 * a + 3 + o;
        if (b >= 0 && b < ncp) row += (wg * G[i] + w0 * G0[i]) * c[b];
    }
    return row;
}


// the band's quadratic form sum_j c_j' (wgs w_j Gk + w0 G0k) c_j over phase ph's Gram matrices
static double band_form(const salto_nlp* nlp, const double* x, int ph, double wgs, double w0) {
    double sum = 0.0;
    for (int j = 0; j < nlp->obj.dofs; j++) {
        const double* c = x + j * nlp->ncp;
        for (int a = 0; a < nlp->ncp; a++) sum += c[a] * band_row_ph(nlp, ph, wgs * nlp->obj.w[j], w0, a, c);
    }
    return sum;
}


// the duration objectives' value, and (grad not NULL) the durations' gradient of the whole
// objective (the band's part through the scales, and theirs) added to grad
double nlp_time_objective(const salto_nlp* nlp, const double* x, double* grad) {
    const salto_problem_desc* p = nlp->p;
    double sum = 0.0;
    for (int k = 0; k < p->nobj; k++) {
        const salto_objective_desc* od = &p->objs[k];
        if (od->type != SALTO_OBJ_DURATION) continue;
        const double w = od->maximise ? -od->weight : od->weight;
        sum += w * x[nlp->tvar[od->phase]];
        if (grad) grad[nlp->tvar[od->phase]] += w;
    }
    for (int i = 0; grad && i < p->nphase; i++) {
        if (nlp->tvar[i] < 0 || nlp->obj.dofs == 0) continue;
        const double d = x[nlp->tvar[i]], r = nlp->tnom[i] / d;
        // d/dd [r^3 A + B / r] = (-3 r^3 A + B / r) / d
        grad[nlp->tvar[i]] += band_form(nlp, x, i, -3.0 * r * r * r, nlp->obj.rho / r) / d;
    }
    return sum;
}


// the support of phase ph's Gram matrix: control points a0 .. a1
static void phase_support(const salto_nlp* nlp, int ph, int* a0, int* a1) {
    const double* G0 = nlp->G0k + (size_t)ph * 7 * nlp->ncp;
    *a0 = nlp->ncp, *a1 = -1;
    for (int a = 0; a < nlp->ncp; a++) {
        if (G0[7 * a + 3] != 0.0) {
            if (a < *a0) *a0 = a;
            *a1 = a;
        }
    }
}


// variable u of block b (as nlp_hess.c's block_var)
static long tblock_var(const salto_nlp* nlp, const block* b, int u) {
    if (u >= 4 * b->ndep) return b->xaux[u - 4 * b->ndep];
    return (long)nlp->dep[b->dep0 + u / 4] * nlp->ncp + b->first + u % 4;
}


// The durations' Hessian pairs (key r nx + c, r >= c) into pairs, or their count (pairs NULL):
// the band's (d_k, c) and (d_k, d_k) for each free phase, then each block's (t, u) for its
// duration columns t and its variables u, then (t, t') over its duration columns
long nlp_time_hess_pairs(const salto_nlp* nlp, long* pairs) {
    if (nlp->ntv == 0) return 0;
    const salto_problem_desc* p = nlp->p;
    const long nx = nlp->nx;
    long n = 0;
#define PAIR(r, c) do { const long r_ = (r), c_ = (c); if (pairs) pairs[n] = r_ >= c_ ? r_ * nx + c_ : c_ * nx + r_; n++; } while (0)
    for (int i = 0; i < p->nphase; i++) {
        if (nlp->tvar[i] < 0 || nlp->obj.dofs == 0) continue;
        int a0, a1;
        phase_support(nlp, i, &a0, &a1);
        for (int j = 0; j < nlp->obj.dofs; j++) {
            for (int a = a0; a <= a1; a++) PAIR(nlp->tvar[i], (long)j * nlp->ncp + a);
        }
        PAIR(nlp->tvar[i], nlp->tvar[i]);
    }
    for (int i = 0; i < nlp->nblock + nlp->nobjblk; i++) {
        const block* b = &nlp->blocks[i];
        const int nu = 4 * b->ndep + b->nxaux;
        for (int t = 0; t < b->ntc; t++) {
            for (int u = 0; u < nu; u++) PAIR(b->tc[t], tblock_var(nlp, b, u));
            for (int t2 = 0; t2 < b->ntc; t2++) PAIR(b->tc[t], b->tc[t2]);
        }
    }
#undef PAIR
    return n;
}


// the slots of those pairs, in the same order
salto_status nlp_time_hess_slots(salto_nlp* nlp, const int* slot) {
    if (nlp->ntv == 0) return SALTO_OK;
    const salto_problem_desc* p = nlp->p;
    const long n = nlp_time_hess_pairs(nlp, NULL);
    nlp->tslot = salto_malloc((size_t)(n + 1) * sizeof(int));
    nlp->tb0 = salto_malloc((size_t)(nlp->nblock + nlp->nobjblk + 1) * sizeof(int));
    if (!nlp->tslot || !nlp->tb0) return SALTO_ERR_NOMEM;
    memcpy(nlp->tslot, slot, (size_t)n * sizeof(int));
    long k = 0;
    for (int i = 0; i < p->nphase; i++) {
        nlp->tband0[i] = (int)k;
        if (nlp->tvar[i] < 0 || nlp->obj.dofs == 0) continue;
        int a0, a1;
        phase_support(nlp, i, &a0, &a1);
        k += (long)nlp->obj.dofs * (a1 - a0 + 1) + 1;
    }
    nlp->tband0[p->nphase] = (int)k;
    for (int i = 0; i < nlp->nblock + nlp->nobjblk; i++) {
        const block* b = &nlp->blocks[i];
        nlp->tb0[i] = b->ntc > 0 ? (int)k : -1;
        k += (long)b->ntc * (4 * b->ndep + b->nxaux + b->ntc);
    }
    SALTO_ASSERT(k == n);
    return SALTO_OK;
}


// block b's gradient of sum_r lam_r row_r in its variables (4 ndep + nxaux) and its durations
// (the last ntc) into G, at x (b scaled to x's durations) (an objective block's: of ow sum_r
// rw_r row_r^2 times lambda[0], its weight's duration dependence included)
static void block_grad(salto_nlp* nlp, const double* x, const block* b, const double* lambda,
                       double* G) {
    double gtmp[16];
    double* g = b->nrows <= 16 ? gtmp : nlp->ev.J3;
    nlp->ev.have_state = 0;
    nlp_eval_block(nlp, x, b, g, 1);
    const int nd = b->ndep, nu = 4 * nd + b->nxaux;
    double* dc = nlp_time_dscratch(nlp);
    for (int u = 0; u < nu + b->ntc; u++) G[u] = 0.0;
    nlp_time_dcol(nlp, x, b, dc);
    double S = 0.0;
    for (int r = 0; r < b->nrows; r++) {
        const double rw = b->rw ? b->rw[r] : 1.0;
        const double l = b->obj ? lambda[0] * 2.0 * b->ow * rw * g[r] : lambda[b->row0 + r];
        if (b->obj) S += rw * g[r] * g[r];
        if (l == 0.0) continue;
        const int j0 = b->diag ? r : 0, j1 = b->diag ? r + 1 : nd;
        for (int jj = j0; jj < j1; jj++) {
            const double a = b->diag ? nlp->ev.dq[r] : nlp->ev.dq[r * nd + jj];
            const double c = b->diag ? nlp->ev.dqd[r] : nlp->ev.dqd[r * nd + jj];
            const double e = b->con < 0 ? nlp->ev.dqdd[r * nd + jj] : 0.0;
            for (int k = 0; k < 4; k++) G[4 * jj + k] += l * (a * b->N[k] + c * b->dN[k] + e * b->ddN[k]);
        }
        for (int a = 0; a < b->nxaux; a++) G[4 * nd + a] += l * nlp->ev.daux[NXAUX * r + a];
        for (int t = 0; t < b->ntc; t++) G[nu + t] += l * dc[t * b->nrows + r];
    }
    // d (ow0 d / D) / dd = ow / d
    if (b->obj) G[nu] += lambda[0] * b->ow / x[b->tc[0]] * S;
    nlp->ev.have_state = 0;
}


void nlp_time_hess(salto_nlp* nlp, const double* x, double obj_factor, const double* lambda,
                   double* values) {
    if (nlp->ntv == 0) return;
    const salto_problem_desc* p = nlp->p;
    const int ncp = nlp->ncp;
    // the band's: d2/dd dc of (r^3 A + B / r) = (2 / d) (-3 r^3 G + G0 / r) c, d2/dd2 = 12 r^3 A / d^2
    for (int i = 0; i < p->nphase && obj_factor != 0.0; i++) {
        if (nlp->tvar[i] < 0 || nlp->obj.dofs == 0) continue;
        const double d = x[nlp->tvar[i]], r = nlp->tnom[i] / d;
        int a0, a1;
        phase_support(nlp, i, &a0, &a1);
        const int* slot = nlp->tslot + nlp->tband0[i];
        double A = 0.0; // sum_j w_j c_j' Gk c_j
        int k = 0;
        for (int j = 0; j < nlp->obj.dofs; j++) {
            const double* c = x + j * ncp;
            const double wg = -3.0 * r * r * r * nlp->obj.w[j], w0 = nlp->obj.rho / r;
            for (int a = a0; a <= a1; a++, k++) {
                values[slot[k]] += obj_factor * 2.0 * band_row_ph(nlp, i, wg, w0, a, c) / d;
                A += nlp->obj.w[j] * c[a] * band_row_ph(nlp, i, 1.0, 0.0, a, c);
            }
        }
        values[slot[k]] += obj_factor * 12.0 * r * r * r * A / (d * d);
    }
    double* hx = nlp->hess.xs;
    memcpy(hx, x, (size_t)nlp->nx * sizeof(double));
    for (int i = 0; i < nlp->nblock + nlp->nobjblk; i++) {
        block* b = &nlp->blocks[i];
        if (b->ntc == 0) continue;
        int any = 0;
        if (b->obj) {
            any = obj_factor != 0.0 && b->ow != 0.0;
        } else {
            for (int r = 0; lambda && r < b->nrows && !any; r++) any = lambda[b->row0 + r] != 0.0;
        }
        if (!any) continue;
        const int* slot = nlp->tslot + nlp->tb0[i];
        const int nu = 4 * b->ndep + b->nxaux;
        if (b->junc) {
            // exact: row j = rL cL - rR cR
            const int L = b->phase - 1, R = b->phase;
            const double dL = phase_duration(nlp, x, L), dR = phase_duration(nlp, x, R);
            const double rL = nlp->tnom[L] / dL, rR = nlp->tnom[R] / dR;
            for (int t = 0; t < b->ntc; t++) {
                const int left = b->tc[t] == nlp->tvar[L];
                double dd = 0.0;
                for (int j = 0; j < nlp->nv; j++) {
                    const double l = lambda[b->row0 + j];
                    const double* c = x + j * ncp + b->first;
                    double cL = 0.0, cR = 0.0;
                    for (int k = 0; k < 4; k++) cL += b->jL[k] * c[k], cR += b->jR[k] * c[k];
                    for (int k = 0; k < 4; k++) {
                        values[slot[t * (nu + b->ntc) + 4 * j + k]] +=
                            left ? l * (-rL / dL) * b->jL[k] : l * (rR / dR) * b->jR[k];
                    }
                    dd += left ? l * 2.0 * rL * cL / (dL * dL) : -l * 2.0 * rR * cR / (dR * dR);
                }
                values[slot[t * (nu + b->ntc) + nu + t]] += dd;
            }
            continue;
        }
        // central differences in each duration of the block's exact gradient
        const double* lw = b->obj ? &obj_factor : lambda;
        for (int t = 0; t < b->ntc; t++) {
            const int tv = b->tc[t];
            if (nlp->x_lo[tv] == nlp->x_hi[tv]) continue; // pinned: IPOPT takes it as a parameter
            const double d0 = x[tv], h = 1e-6 * d0;
            double* Gp = nlp->tscr;
            double* Gm = Gp + nu + 2;
            hx[tv] = d0 + h;
            block_rescale(nlp, b, hx);
            block_grad(nlp, hx, b, lw, Gp);
            hx[tv] = d0 - h;
            block_rescale(nlp, b, hx);
            block_grad(nlp, hx, b, lw, Gm);
            hx[tv] = d0;
            block_rescale(nlp, b, hx);
            // each pair of durations once: (t, t2) and (t2, t) share a slot
            for (int u = 0; u <= nu + t; u++) {
                values[slot[t * (nu + b->ntc) + u]] += (Gp[u] - Gm[u]) / (2.0 * h);
            }
        }
    }
    nlp->ev.have_state = 0;
}


double salto_nlp_phase_duration(const salto_nlp* nlp, const double* x, int i) {
    SALTO_ASSERT(i >= 0 && i < nlp->p->nphase);
    return x && nlp->tvar[i] >= 0 ? x[nlp->tvar[i]] : nlp->tnom[i];
}


void salto_nlp_set_phase_duration(const salto_nlp* nlp, double* x, int i, double d) {
    SALTO_ASSERT(i >= 0 && i < nlp->p->nphase);
    const int v = nlp->tvar[i];
    if (v >= 0) x[v] = fmin(fmax(d, nlp->x_lo[v]), nlp->x_hi[v]);
}
