// linalg.c: Cholesky factorisations for small dense symmetric systems (linalg.h)
#include "linalg.h"

#include <math.h>
#include <stddef.h>

// LAPACK: Cholesky factorisation with complete pivoting of a positive semi-definite matrix
void dpstrf_(const char* uplo, const int* n, double* a, const int* lda, int* piv, int* rank,
             const double* tol, double* work, int* info);


int salto_chol(double* A, int n) {
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


void salto_chol_solve(const double* L, int n, double* x) {
    for (int i = 0; i < n; i++) { // L y = x
        for (int k = 0; k < i; k++) x[i] -= L[n * i + k] * x[k];
        x[i] /= L[n * i + i];
    }
    for (int i = n - 1; i >= 0; i--) { // L' x = y
        for (int k = i + 1; k < n; k++) x[i] -= L[n * k + i] * x[k];
        x[i] /= L[n * i + i];
    }
}


int salto_pchol(double* A, int n, double rel_tol, int* piv, double* work) {
    if (n <= 0) return 0;
    double amax = 0.0;
    for (int a = 0; a < n; a++) amax = fmax(amax, A[n * a + a]);
    // A is symmetric, so its row-major storage is its column-major one: dpstrf's lower
    // triangle, L(i, j) = A[i + n j]
    int rank = 0, info = 0;
    const double tol = rel_tol * amax;
    dpstrf_("L", &n, A, &n, piv, &rank, &tol, work, &info);
    return info < 0 ? 0 : rank;
}


void salto_pchol_solve(const double* C, int n, int rank, const int* piv, double* x, double* work) {
    double* y = work;
    for (int i = 0; i < rank; i++) { // L y = P' x
        double v = x[piv[i] - 1];
        for (int k = 0; k < i; k++) v -= C[i + (size_t)n * k] * y[k];
        y[i] = v / C[i + (size_t)n * i];
    }
    for (int i = 0; i < n; i++) x[i] = 0.0;
    for (int i = rank - 1; i >= 0; i--) { // L' z = y, x = P z
        double v = y[i];
        for (int k = i + 1; k < rank; k++) v -= C[k + (size_t)n * i] * y[k];
        y[i] = v / C[i + (size_t)n * i];
        x[piv[i] - 1] = y[i];
    }
}
