// linalg.c: Cholesky factorisations for small dense symmetric systems (linalg.h)
#include "linalg.h"

#include <math.h>
#include <stddef.h>

// LAPACK: Cholesky factorisation with complete pivoting of a positive semi-definite matrix
void dpstrf_(const char* uplo, const int* n, double* a, const int* lda, int* piv, int* rank,
             const double* tol, double* work, int* info);


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
