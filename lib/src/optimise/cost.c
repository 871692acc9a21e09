// cost.c: what an iteration of a problem's solve costs, measured at its initial guess
// (salto_nlp_cost, solver.h; salto check prints it)
//
// The parts an IPOPT iteration repeats: the constraints and the objective, their Jacobian and
// gradient, the Lagrangian Hessian (at unit multipliers: every block's curvature is taken),
// and the KKT system's factorisation and solves. The KKT matrix is assembled as IPOPT
// assembles its augmented system at its first factorisation (below), from the Hessian's and
// the Jacobian's patterns, and factored by salto's LDL' (kkt_sparse.h) as in a solve. Each
// part is timed in the calling thread's CPU time, the median of a few runs.
#include "salto/solver.h"

#include <stdlib.h>
#include <string.h>

#include "kkt_sparse.h"
#include "salto/base.h"
#include "salto/nlp.h"

enum { REPS = 5 };
#define SLOW_FACTOR 1.0 // s: a factorisation measured once
#define COST_MAX_FLOPS 1e10 // multiply-adds: a factorisation predicted above is not made
#define COST_RATE 1e9       //   and its time predicted at this rate (the plain-C kernels make
                            //   0.9e9 to 1.3e9 a second here: the back tuck, luxo at 1e5 slices)

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

// the median of REPS times (sorted in place)
static double median(double* t) {
    qsort(t, REPS, sizeof(double), cmp_double);
    return t[REPS / 2];
}

// the inequality rows (IPOPT gives each a slack) into slack_row (ng); their count, or -1 if out
// of memory
static int slack_rows(const salto_nlp* nlp, int* slack_row) {
    const int nx = salto_nlp_nx(nlp), ng = salto_nlp_ng(nlp);
    double* glo = malloc(sizeof(double) * (size_t)(ng > 0 ? ng : 1));
    double* ghi = malloc(sizeof(double) * (size_t)(ng > 0 ? ng : 1));
    double* xlo = malloc(sizeof(double) * (size_t)nx);
    double* xhi = malloc(sizeof(double) * (size_t)nx);
    int nslack = -1;
    if (glo && ghi && xlo && xhi) {
        salto_nlp_bounds(nlp, xlo, xhi, glo, ghi);
        nslack = 0;
        for (int r = 0; r < ng; r++) {
            if (glo[r] < ghi[r]) slack_row[nslack++] = r;
        }
    }
    free(glo), free(ghi), free(xlo), free(xhi);
    return nslack;
}


// The KKT matrix's pattern as IPOPT assembles it at its first factorisation: [H + I, J'; J, 0]
// over x and the constraints' multipliers, and for each inequality row a slack s with diagonal
// 1 and -1 in its row (IPOPT's d(x) - s = 0); 0-based lower triangle, into ir and jc (nnz_hess +
// nnz_jac + nx + 2 nslack + ng); a (may be NULL) gets the constant entries after the Hessian's
// and the Jacobian's
static void kkt_pattern(const salto_nlp* nlp, const int* slack_row, int nslack, int* ir, int* jc,
                        double* a) {
    const int nx = salto_nlp_nx(nlp), ng = salto_nlp_ng(nlp);
    const int nj = salto_nlp_nnz_jac(nlp), nh = salto_nlp_nnz_hess(nlp);
    salto_nlp_hess_pattern(nlp, ir, jc);
    salto_nlp_jac_pattern(nlp, ir + nh, jc + nh);
    for (int e = 0; e < nj; e++) ir[nh + e] += nx + nslack;
    int at = nh + nj;
    for (int i = 0; i < nx; i++, at++) ir[at] = jc[at] = i, a ? a[at] = 1.0 : 0.0;
    for (int q = 0; q < nslack; q++) {
        const int sv = nx + q, row = nx + nslack + slack_row[q];
        ir[at] = jc[at] = sv;
        if (a) a[at] = 1.0;
        at++;
        ir[at] = row, jc[at] = sv;
        if (a) a[at] = -1.0;
        at++;
    }
    for (int r = 0; r < ng; r++, at++) ir[at] = jc[at] = nx + nslack + r, a ? a[at] = 0.0 : 0.0;
}


salto_status salto_nlp_kkt_predict(const salto_nlp* nlp, double* flops, double* factor_entries) {
    const int nx = salto_nlp_nx(nlp), ng = salto_nlp_ng(nlp);
    const int nj = salto_nlp_nnz_jac(nlp), nh = salto_nlp_nnz_hess(nlp);
    int* slack_row = malloc(sizeof(int) * (size_t)(ng > 0 ? ng : 1));
    const int nslack = slack_row ? slack_rows(nlp, slack_row) : -1;
    const int n = nx + nslack + ng, ne = nh + nj + nx + 2 * nslack + ng;
    int* ir = nslack >= 0 ? malloc(sizeof(int) * (size_t)ne) : NULL;
    int* jc = nslack >= 0 ? malloc(sizeof(int) * (size_t)ne) : NULL;
    salto_status st = SALTO_ERR_NOMEM;
    if (ir && jc) {
        kkt_pattern(nlp, slack_row, nslack, ir, jc, NULL);
        kkt_sparse* f = kkt_sparse_analyse(n, ne, ir, jc);
        if (f && kkt_sparse_predict(f, factor_entries, flops) == 0) st = SALTO_OK;
        kkt_sparse_free(f);
    }
    free(slack_row), free(ir), free(jc);
    return st;
}


salto_status salto_nlp_cost(salto_nlp* nlp, const double* x, salto_cost* out) {
    memset(out, 0, sizeof *out);
    const int nx = salto_nlp_nx(nlp), ng = salto_nlp_ng(nlp);
    const int nj = salto_nlp_nnz_jac(nlp), nh = salto_nlp_nnz_hess(nlp);
    int* slack_row = malloc(sizeof(int) * (size_t)(ng > 0 ? ng : 1));
    const int nslack = slack_row ? slack_rows(nlp, slack_row) : 0;
    const int n = nx + nslack + ng, ne = nh + nj + nx + 2 * nslack + ng;
    double* g = malloc(sizeof(double) * (size_t)(ng > 0 ? ng : 1));
    double* grad = malloc(sizeof(double) * (size_t)nx);
    double* lam = malloc(sizeof(double) * (size_t)(ng > 0 ? ng : 1));
    int* ir = malloc(sizeof(int) * (size_t)ne);
    int* jc = malloc(sizeof(int) * (size_t)ne);
    double* a = malloc(sizeof(double) * (size_t)ne);
    double* b = malloc(sizeof(double) * (size_t)n);
    salto_status st = SALTO_ERR_NOMEM;
    kkt_sparse* f = NULL;
    if (!g || !grad || !lam || !ir || !jc || !a || !b || !slack_row) goto done;
    for (int r = 0; r < ng; r++) lam[r] = 1.0;
    double t[REPS];
    // the constraints and the objective
    for (int k = 0; k < REPS; k++) {
        const double t0 = salto_cpu_now();
        double obj;
        st = salto_nlp_eval_g(nlp, x, g);
        if (st == SALTO_OK) st = salto_nlp_eval_f(nlp, x, &obj);
        t[k] = salto_cpu_now() - t0;
        if (st) goto done;
    }
    out->t_values = median(t);
    // their derivatives (the Jacobian's values into a's tail)
    double* jv = a + nh;
    for (int k = 0; k < REPS; k++) {
        const double t0 = salto_cpu_now();
        st = salto_nlp_eval_jac(nlp, x, jv);
        if (st == SALTO_OK) st = salto_nlp_eval_grad(nlp, x, grad);
        t[k] = salto_cpu_now() - t0;
        if (st) goto done;
    }
    out->t_jacobian = median(t);
    // the Hessian
    for (int k = 0; k < REPS; k++) {
        const double t0 = salto_cpu_now();
        st = salto_nlp_eval_hess(nlp, x, 1.0, lam, a);
        t[k] = salto_cpu_now() - t0;
        if (st) goto done;
    }
    out->t_hessian = median(t);
    // the KKT matrix as IPOPT assembles it at its first factorisation: [H + I, J'; J, 0] over
    // x and the constraints' multipliers, and for each inequality row a slack s with diagonal
    // 1 and -1 in its row (IPOPT's d(x) - s = 0); 0-based lower triangle
    if (nslack < 0) goto done;
    kkt_pattern(nlp, slack_row, nslack, ir, jc, a);
    st = SALTO_ERR_NOMEM;
    f = kkt_sparse_analyse(n, ne, ir, jc);
    if (!f) goto done;
    kkt_sparse_info info = {0};
    out->kkt_order = n;
    out->kkt_entries = ne;
    // a factorisation predicted to take longer than COST_MAX_FLOPS is not made: salto check
    // reports the prediction (at COST_RATE multiply-adds a second) instead of waiting minutes
    double plnz = 0.0, pfl = 0.0;
    if (kkt_sparse_predict(f, &plnz, &pfl) != 0) goto done;
    if (pfl > COST_MAX_FLOPS) {
        out->predicted = 1;
        out->factor_entries = plnz, out->flops = pfl;
        out->t_factor = pfl / COST_RATE;
        out->t_solve = 4.0 * plnz / COST_RATE;
        st = SALTO_OK;
        goto done;
    }
    const double tf0 = salto_cpu_now();
    if (kkt_sparse_factor(f, a, 1e-8, &info) != 0) goto done; // the first orders the matrix
    const double tf = salto_cpu_now() - tf0;
    if (tf > SLOW_FACTOR) {
        // a factorisation this slow is measured once (its ordering's share is small next to
        // it): salto check on a large NLP should not take five more
        out->t_factor = tf;
    } else {
        for (int k = 0; k < REPS; k++) {
            const double t0 = salto_cpu_now();
            if (kkt_sparse_factor(f, a, 1e-8, &info) != 0) goto done;
            t[k] = salto_cpu_now() - t0;
        }
        out->t_factor = median(t);
    }
    for (int k = 0; k < REPS; k++) {
        for (int i = 0; i < n; i++) b[i] = 1.0;
        const double t0 = salto_cpu_now();
        kkt_sparse_solve(f, b);
        t[k] = salto_cpu_now() - t0;
    }
    out->t_solve = median(t);
    out->kkt_order = n;
    out->kkt_entries = ne;
    out->factor_entries = (double)info.factor_entries;
    out->flops = info.flops;
    out->max_front = info.max_front;
    st = SALTO_OK;
done:
    kkt_sparse_free(f);
    free(g), free(grad), free(lam), free(ir), free(jc), free(a), free(b), free(slack_row);
    return st;
}
