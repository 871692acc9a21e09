// rank.c: the rank of an NLP's constraint Jacobian by SuiteSparse's rank-revealing QR (the only
// file that includes SuiteSparseQR's and CHOLMOD's headers)
//
// The equality rows of the Jacobian (inequalities may depend on each other harmlessly, and at
// zero contact force the friction and pressure rows always do), each scaled to unit length,
// become the columns of J'; a QR factorisation of J' with column pivoting puts the rows that
// depend on the others last: E[rank .. neq - 1].
#include "salto/nlp.h"

#include <SuiteSparseQR_C.h>
#include <math.h>
#include <string.h>

void salto_nlp_nearby_point(const salto_nlp* nlp, const double* x, double* xp) {
    const int nx = salto_nlp_nx(nlp);
    unsigned long long seed = 0x5a17011ULL; // the same nearby point on every machine
    for (int i = 0; i < nx; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        const double u = (double)(seed >> 11) * (2.0 / 9007199254740992.0) - 1.0;
        xp[i] = x[i] + 0.05 * (1.0 + fabs(x[i])) * u;
    }
    double* lo = salto_malloc((size_t)nx * sizeof(double));
    double* hi = salto_malloc((size_t)nx * sizeof(double));
    if (lo && hi) {
        salto_nlp_bounds(nlp, lo, hi, NULL, NULL);
        for (int i = 0; i < nx; i++) xp[i] = fmin(fmax(xp[i], lo[i]), hi[i]);
    }
    salto_free(lo), salto_free(hi);
}


// 1 when equality rows r and q of the Jacobian (values val, pattern sorted by row then column,
// row r's entries from start[r] to start[r + 1]) are parallel: the same columns, and values
// proportional to 1e-9
static int rows_parallel(const int* cols, const double* val, const int* start, int r, int q) {
    const int n = start[r + 1] - start[r];
    if (n == 0 || start[q + 1] - start[q] != n) return 0;
    double rr = 0.0, qq = 0.0, rq = 0.0;
    for (int k = 0; k < n; k++) {
        const int a = start[r] + k, b = start[q] + k;
        if (cols[a] != cols[b]) return 0;
        rr += val[a] * val[a], qq += val[b] * val[b], rq += val[a] * val[b];
    }
    return rr > 0 && qq > 0 && fabs(rq) >= (1.0 - 1e-9) * sqrt(rr * qq);
}


salto_status salto_nlp_restated_rows(salto_nlp* nlp, const double* x, int* dep_rows, int* ndep,
                                     salto_error* err) {
    *ndep = 0;
    int rank = 0, n0 = 0;
    salto_status st = salto_nlp_jac_rank(nlp, x, &rank, dep_rows, &n0, err);
    if (st != SALTO_OK || n0 == 0) return st;
    const int nx = salto_nlp_nx(nlp), ng = salto_nlp_ng(nlp), nnz = salto_nlp_nnz_jac(nlp);
    double* xp = salto_malloc((size_t)nx * sizeof(double));
    int* rows = salto_malloc((size_t)(nnz + 1) * sizeof(int));
    int* cols = salto_malloc((size_t)(nnz + 1) * sizeof(int));
    double* v0 = salto_malloc((size_t)(nnz + 1) * sizeof(double));
    double* v1 = salto_malloc((size_t)(nnz + 1) * sizeof(double));
    int* start = salto_calloc((size_t)ng + 1, sizeof(int));
    double* lo = salto_malloc((size_t)ng * sizeof(double));
    double* hi = salto_malloc((size_t)ng * sizeof(double));
    if (!xp || !rows || !cols || !v0 || !v1 || !start || !lo || !hi) {
        st = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    } else {
        salto_nlp_nearby_point(nlp, x, xp);
        int n1 = 0;
        st = salto_nlp_jac_rank(nlp, xp, &rank, dep_rows, &n1, err);
        if (st == SALTO_OK && n1 > 0) {
            // of the rows dependent there, those that restate one other row exactly: its
            // gradient parallel to theirs at x and at the nearby point (a constraint given
            // twice, a site placed twice); a dependency among several rows (the second foot's
            // hold under a pose that fixes the legs) is left to the solver, which found such
            // rows broken once freed (the zoo's squat jump: a second solve, 57 s against 20)
            salto_nlp_jac_pattern(nlp, rows, cols);
            salto_nlp_bounds(nlp, NULL, NULL, lo, hi);
            for (int e = 0; e < nnz; e++) start[rows[e] + 1]++;
            for (int r = 0; r < ng; r++) start[r + 1] += start[r];
            st = salto_nlp_eval_jac(nlp, x, v0);
            if (st == SALTO_OK) st = salto_nlp_eval_jac(nlp, xp, v1);
            if (st != SALTO_OK) {
                st = SALTO_FAIL(err, st, salto_loc_none(), "the constraint Jacobian is not finite");
            } else {
                for (int k = 0; k < n1; k++) {
                    const int r = dep_rows[k];
                    int twin = 0;
                    for (int q = 0; q < ng && !twin; q++) {
                        if (q == r || lo[q] != hi[q]) continue;
                        twin = rows_parallel(cols, v0, start, r, q) && rows_parallel(cols, v1, start, r, q);
                    }
                    if (twin) dep_rows[(*ndep)++] = r;
                }
            }
        }
    }
    salto_free(xp), salto_free(rows), salto_free(cols), salto_free(v0), salto_free(v1);
    salto_free(start), salto_free(lo), salto_free(hi);
    return st;
}


salto_status salto_nlp_jac_rank(salto_nlp* nlp, const double* x, int* rank, int* dep_rows,
                                int* ndep, salto_error* err) {
    const int nx = salto_nlp_nx(nlp), ng = salto_nlp_ng(nlp), nnz = salto_nlp_nnz_jac(nlp);
    *rank = 0;
    *ndep = 0;
    if (ng == 0) return SALTO_OK;
    int* rows = salto_malloc((size_t)nnz * sizeof(int));
    int* cols = salto_malloc((size_t)nnz * sizeof(int));
    double* val = salto_malloc((size_t)nnz * sizeof(double));
    double* norm = salto_calloc((size_t)ng, sizeof(double));
    double* lo = salto_malloc((size_t)ng * sizeof(double));
    double* hi = salto_malloc((size_t)ng * sizeof(double));
    int* col_of = salto_malloc((size_t)ng * sizeof(int)); // equality row -> column of J'
    int* row_of = salto_malloc((size_t)ng * sizeof(int)); // column of J' -> row
    if (!rows || !cols || !val || !norm || !lo || !hi || !col_of || !row_of) {
        salto_free(rows), salto_free(cols), salto_free(val), salto_free(norm);
        salto_free(lo), salto_free(hi), salto_free(col_of), salto_free(row_of);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    salto_nlp_bounds(nlp, NULL, NULL, lo, hi);
    int neq = 0;
    for (int r = 0; r < ng; r++) {
        col_of[r] = lo[r] == hi[r] ? neq : -1;
        if (col_of[r] >= 0) row_of[neq++] = r;
    }
    salto_nlp_jac_pattern(nlp, rows, cols);
    salto_status st = salto_nlp_eval_jac(nlp, x, val);
    if (st != SALTO_OK || neq == 0) {
        salto_free(rows), salto_free(cols), salto_free(val), salto_free(norm);
        salto_free(lo), salto_free(hi), salto_free(col_of), salto_free(row_of);
        if (st == SALTO_OK) return SALTO_OK;
        return SALTO_FAIL(err, st, salto_loc_none(),
                          "the constraint Jacobian is not finite at the initial guess");
    }
    int nnz_eq = 0;
    for (int e = 0; e < nnz; e++) nnz_eq += col_of[rows[e]] >= 0;
    for (int e = 0; e < nnz; e++) norm[rows[e]] += val[e] * val[e];

    cholmod_common cc;
    cholmod_l_start(&cc);
    cc.print = 0;
    // J' (nx x ng) in compressed columns: the pattern is sorted by row, then column
    cholmod_sparse* A = cholmod_l_allocate_sparse((size_t)nx, (size_t)neq, (size_t)nnz_eq + 1,
                                                  1, 1, 0, CHOLMOD_REAL, &cc);
    if (!A) {
        cholmod_l_finish(&cc);
        salto_free(rows), salto_free(cols), salto_free(val), salto_free(norm);
        salto_free(lo), salto_free(hi), salto_free(col_of), salto_free(row_of);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    SuiteSparse_long* Ap = A->p;
    SuiteSparse_long* Ai = A->i;
    double* Ax = A->x;
    memset(Ap, 0, (size_t)(neq + 1) * sizeof(SuiteSparse_long));
    for (int e = 0; e < nnz; e++) {
        if (col_of[rows[e]] >= 0) Ap[col_of[rows[e]] + 1]++;
    }
    for (int c = 0; c < neq; c++) Ap[c + 1] += Ap[c];
    for (int e = 0, k = 0; e < nnz; e++) {
        if (col_of[rows[e]] < 0) continue;
        const double sc = norm[rows[e]] > 0 ? 1.0 / sqrt(norm[rows[e]]) : 0.0;
        Ai[k] = cols[e];
        Ax[k] = val[e] * sc;
        k++;
    }

    cholmod_sparse* R = NULL;
    SuiteSparse_long* E = NULL;
    const SuiteSparse_long r = SuiteSparseQR_C(SPQR_ORDERING_DEFAULT, 1e-9, 0, 0, A, NULL, NULL,
                                               NULL, NULL, &R, &E, NULL, NULL, NULL, &cc);
    if (r < 0) {
        st = SALTO_FAIL(err, SALTO_ERR_NUMERIC, salto_loc_none(),
                        "the rank-revealing QR of the constraint Jacobian failed");
    } else {
        *rank = (int)r;
        for (SuiteSparse_long k = r; k < neq; k++) {
            dep_rows[(*ndep)++] = row_of[E ? (int)E[k] : (int)k];
        }
        // equality rows with no entries at all are dependent whatever their place in E
        for (int q = 0; q < ng; q++) {
            if (col_of[q] < 0 || norm[q] > 0) continue;
            int listed = 0;
            for (int k = 0; k < *ndep; k++) listed |= dep_rows[k] == q;
            if (!listed) dep_rows[(*ndep)++] = q;
        }
    }
    cholmod_l_free_sparse(&R, &cc);
    if (E) cholmod_l_free((size_t)neq, sizeof(SuiteSparse_long), E, &cc);
    cholmod_l_free_sparse(&A, &cc);
    cholmod_l_finish(&cc);
    salto_free(rows), salto_free(cols), salto_free(val), salto_free(norm);
    salto_free(lo), salto_free(hi), salto_free(col_of), salto_free(row_of);
    return st;
}
