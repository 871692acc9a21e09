// linalg.c: Cholesky factorisations for small dense symmetric systems, LU for general ones (linalg.h)
#include "linalg.h"

#include <math.h>
#include <stddef.h>

// LAPACK: Cholesky factorisation with complete pivoting of a positive semi-definite matrix
void dpstrf_(const char* uplo, const int* n, double* a, const int* lda, int* piv, int* rank,
             const double* tol, double* work, int* info);
// LAPACK: LU factorisation with partial pivoting, and the solve with its factors
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info);


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


void salto_sym3_eigen(const double* S, double e[3], double* V) {
    double a[3][3], v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) a[i][j] = S[3 * (i < j ? i : j) + (i < j ? j : i)];
    }
    for (int sweep = 0; sweep < 60; sweep++) {
        const double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
        const double diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];
        if (off == 0.0 || off <= 1e-40 * diag) break;
        for (int p = 0; p < 2; p++) {
            for (int q = p + 1; q < 3; q++) {
                if (a[p][q] == 0.0) continue;
                // the rotation J in the (p, q) plane that zeroes a[p][q] (Golub & Van Loan 8.5.2)
                const double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                const double t = fabs(theta) > 1e150
                                     ? 0.5 / theta
                                     : (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                const double cs = 1.0 / sqrt(t * t + 1.0), sn = t * cs;
                for (int k = 0; k < 3; k++) { // A J, V J
                    const double akp = a[k][p], akq = a[k][q];
                    a[k][p] = cs * akp - sn * akq, a[k][q] = sn * akp + cs * akq;
                    const double vkp = v[k][p], vkq = v[k][q];
                    v[k][p] = cs * vkp - sn * vkq, v[k][q] = sn * vkp + cs * vkq;
                }
                for (int k = 0; k < 3; k++) { // J' (A J)
                    const double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = cs * apk - sn * aqk, a[q][k] = sn * apk + cs * aqk;
                }
                a[p][q] = a[q][p] = 0.0;
            }
        }
    }
    int ord[3] = {0, 1, 2}; // ascending
    for (int i = 0; i < 3; i++) {
        for (int j = i + 1; j < 3; j++) {
            if (a[ord[j]][ord[j]] < a[ord[i]][ord[i]]) {
                const int t = ord[i];
                ord[i] = ord[j], ord[j] = t;
            }
        }
    }
    for (int i = 0; i < 3; i++) e[i] = a[ord[i]][ord[i]];
    if (!V) return;
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++) V[3 * k + i] = v[k][ord[i]];
    }
    // a rotation: the third column the cross product of the first two's sign
    const double det = V[0] * (V[4] * V[8] - V[5] * V[7]) - V[1] * (V[3] * V[8] - V[5] * V[6]) +
                       V[2] * (V[3] * V[7] - V[4] * V[6]);
    if (det < 0.0) {
        for (int k = 0; k < 3; k++) V[3 * k + 2] = -V[3 * k + 2];
    }
}


int salto_lu(double* A, int n, int* piv) {
    if (n <= 0) return 0;
    int info = 0;
    dgetrf_(&n, &n, A, &n, piv, &info); // row-major A is column-major A': its factors
    return info == 0;
}


void salto_lu_solve(const double* LU, int n, const int* piv, double* b) {
    int info = 0, one = 1;
    dgetrs_("T", &n, &one, LU, &n, piv, b, &n, &info); // A x = b through A' = P L U
}
