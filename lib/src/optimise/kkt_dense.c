// kkt_dense.c: dense symmetric-indefinite LDL' by Bunch-Kaufman pivoting (kkt_dense.h)
#include "kkt_dense.h"

#include <math.h>

#include "salto/base.h"

#define A_(i, j) A[(size_t)(j) * (size_t)lda + (size_t)(i)]

// swaps rows and columns p and q (p < q) of the symmetric matrix, and their perm entries
static void sym_swap(int n, double* A, int lda, int* perm, int p, int q) {
    if (p == q) return;
    for (int i = 0; i < n; i++) { // columns
        const double t = A_(i, p);
        A_(i, p) = A_(i, q);
        A_(i, q) = t;
    }
    for (int j = 0; j < n; j++) { // rows
        const double t = A_(p, j);
        A_(p, j) = A_(q, j);
        A_(q, j) = t;
    }
    const int t = perm[p];
    perm[p] = perm[q];
    perm[q] = t;
}


// the signs of a 2x2 symmetric block's eigenvalues into the inertia
static void count_2x2(double a, double b, double c, kkt_dense_inertia* in) {
    const double det = a * c - b * b, tr = a + c;
    if (det < 0.0) {
        in->pos++, in->neg++;
    } else if (det > 0.0) {
        if (tr > 0.0) in->pos += 2;
        else in->neg += 2;
    } else {
        in->zero++;
        if (tr > 0.0) in->pos++;
        else if (tr < 0.0) in->neg++;
        else in->zero++;
    }
}


void kkt_dense_factor(int n, double* A, int lda, int* perm, int* piv, kkt_dense_inertia* in) {
    const double alpha = (1.0 + sqrt(17.0)) / 8.0;
    in->pos = in->neg = in->zero = 0;
    for (int i = 0; i < n; i++) perm[i] = i, piv[i] = 0;
    int k = 0;
    while (k < n) {
        const double absakk = fabs(A_(k, k));
        int imax = k;
        double colmax = 0.0;
        for (int i = k + 1; i < n; i++) {
            if (fabs(A_(i, k)) > colmax) colmax = fabs(A_(i, k)), imax = i;
        }
        if (absakk == 0.0 && colmax == 0.0) { // a zero column: a zero pivot
            piv[k] = 1;
            in->zero++;
            k++;
            continue;
        }
        int size = 1, kp = k;
        if (absakk < alpha * colmax) {
            double rowmax = 0.0; // the largest off-diagonal entry in row imax
            for (int j = k; j < n; j++) {
                if (j != imax && fabs(A_(imax, j)) > rowmax) rowmax = fabs(A_(imax, j));
            }
            if (absakk * rowmax >= alpha * colmax * colmax) {
                kp = k; // the diagonal, after all
            } else if (fabs(A_(imax, imax)) >= alpha * rowmax) {
                kp = imax; // 1x1 on imax's diagonal
            } else {
                size = 2, kp = imax; // 2x2 on k and imax (moved to k + 1)
            }
        }
        if (size == 1) {
            sym_swap(n, A, lda, perm, k, kp);
            const double d = A_(k, k);
            piv[k] = 1;
            if (d > 0.0) in->pos++;
            else if (d < 0.0) in->neg++;
            else in->zero++;
            // the Schur complement (both triangles), then the column of L
            for (int j = k + 1; j < n; j++) {
                const double ljd = A_(j, k) / d; // l_j
                for (int i = k + 1; i < n; i++) A_(i, j) -= A_(i, k) * ljd;
            }
            for (int i = k + 1; i < n; i++) A_(i, k) /= d, A_(k, i) = 0.0;
            k++;
        } else {
            sym_swap(n, A, lda, perm, k + 1, kp);
            const double a = A_(k, k), b = A_(k + 1, k), c = A_(k + 1, k + 1);
            const double det = a * c - b * b; // < 0 for Bunch-Kaufman's choice (|b| dominant)
            piv[k] = 2, piv[k + 1] = 0;
            count_2x2(a, b, c, in);
            // W = [A_ik, A_i,k+1] D^-1 for every later row i, then A_ij -= W_i . [A_jk, A_j,k+1]
            for (int j = k + 2; j < n; j++) {
                const double x = A_(j, k), y = A_(j, k + 1);
                const double w0 = (c * x - b * y) / det, w1 = (a * y - b * x) / det; // D^-1 [x; y]
                for (int i = k + 2; i < n; i++) A_(i, j) -= A_(i, k) * w0 + A_(i, k + 1) * w1;
            }
            for (int i = k + 2; i < n; i++) {
                const double x = A_(i, k), y = A_(i, k + 1);
                A_(i, k) = (c * x - b * y) / det;
                A_(i, k + 1) = (a * y - b * x) / det;
                A_(k, i) = A_(k + 1, i) = 0.0;
            }
            A_(k, k + 1) = 0.0;
            k += 2;
        }
    }
}


void kkt_dense_solve(int n, const double* A, int lda, const int* perm, const int* piv, double* b) {
    // y = P b (a scratch copy: on the stack for small n)
    double tmp[512];
    double* heap = n > 512 ? salto_malloc((size_t)n * sizeof(double)) : NULL;
    double* y = n > 512 ? heap : tmp;
    if (!y) return;
    for (int i = 0; i < n; i++) y[i] = b[perm[i]];
    // L z = y
    for (int k = 0; k < n; k++) {
        const int s = piv[k] == 2 ? 2 : 1;
        if (piv[k] == 0) continue; // the second row of a 2x2 block: done with its first
        for (int c = k; c < k + s; c++) {
            for (int i = k + s; i < n; i++) y[i] -= A_(i, c) * y[c];
        }
        k += s - 1;
    }
    // D w = z
    for (int k = 0; k < n; k++) {
        if (piv[k] == 1) {
            y[k] = A_(k, k) != 0.0 ? y[k] / A_(k, k) : 0.0;
        } else if (piv[k] == 2) {
            const double a = A_(k, k), bb = A_(k + 1, k), c = A_(k + 1, k + 1);
            const double det = a * c - bb * bb, x = y[k], z = y[k + 1];
            y[k] = (c * x - bb * z) / det;
            y[k + 1] = (a * z - bb * x) / det;
            k++;
        }
    }
    // L' v = w
    for (int k = n - 1; k >= 0; k--) {
        if (piv[k] == 0) continue; // handled with the first row of its block (below)
        const int s = piv[k] == 2 ? 2 : 1;
        for (int c = k; c < k + s; c++) {
            double sum = 0.0;
            for (int i = k + s; i < n; i++) sum += A_(i, c) * y[i];
            y[c] -= sum;
        }
    }
    for (int i = 0; i < n; i++) b[perm[i]] = y[i];
    salto_free(heap);
}
