// linalg.h: the small dense symmetric solves the validator and the simulator share
//
// Row-major n x n matrices. salto_chol factors a symmetric positive definite matrix in place
// (its lower triangle becomes L, A = L L'); salto_pchol factors a positive semi-definite one
// with complete pivoting (LAPACK dpstrf: P' A P = L L', its leading rank columns) so that
// dependent rows (two sites on one rigid foot, a grip stated twice) are found and dropped.
#ifndef SALTO_LINALG_H
#define SALTO_LINALG_H

#include <math.h>

// 1, or 0 if A is not positive definite (A is then partly overwritten). Inline, with
// salto_chol_solve: the simulator solves its 6 x 6 root system once per contact row a step,
// and a call per solve cost 5% of the step.
static inline int salto_chol(double* A, int n) {
    for (int j = 0; j < n; j++) {
        double s = A[n * j + j];
        for (int k = 0; k < j; k++) s -= A[n * j + k] * A[n * j + k];
        if (!(s > 0.0)) return 0;
        const double ljj = sqrt(s);
        A[n * j + j] = ljj;
        for (int i = j + 1; i < n; i++) {
            double t = A[n * i + j];
            for (int k = 0; k < j; k++) t -= A[n * i + k] * A[n * j + k];
            A[n * i + j] = t / ljj;
        }
    }
    return 1;
}

// x := A^-1 x with A's factor from salto_chol
static inline void salto_chol_solve(const double* L, int n, double* x) {
    for (int i = 0; i < n; i++) { // L y = x
        for (int k = 0; k < i; k++) x[i] -= L[n * i + k] * x[k];
        x[i] /= L[n * i + i];
    }
    for (int i = n - 1; i >= 0; i--) { // L' x = y
        for (int k = i + 1; k < n; k++) x[i] -= L[n * k + i] * x[k];
        x[i] /= L[n * i + i];
    }
}

// The rank of A within rel_tol of its largest diagonal entry (0 for a zero or failed
// factorisation); A becomes the factor, piv (n) the pivots. work: 2 n doubles.
int salto_pchol(double* A, int n, double rel_tol, int* piv, double* work);
// x := the solution of A x = x on the factor's rank leading pivots, the dependent entries of x
// zero. work: n doubles.
void salto_pchol_solve(const double* C, int n, int rank, const int* piv, double* x, double* work);

// A general square A (n x n, row-major) factored in place by LAPACK's LU with partial pivoting
// (dgetrf, on A's transpose as its column-major storage is), piv its n pivots: 1, or 0 when a
// pivot is zero (or n is not positive). salto_lu_solve: b := A^-1 b with those factors.
int salto_lu(double* A, int n, int* piv);
void salto_lu_solve(const double* LU, int n, const int* piv, double* b);

// The eigen-decomposition of a symmetric 3 x 3 matrix S (row-major; its upper triangle read) by
// cyclic Jacobi rotations to rounding: S = V diag(e) V', e ascending, V's columns the unit
// eigenvectors with det V = +1 (a rotation; V may be NULL when only e is wanted).
void salto_sym3_eigen(const double* S, double e[3], double* V);

#endif
