// kkt_dense.h: the dense symmetric-indefinite LDL' that the KKT solver's fronts will be built
// on (issue 22): Bunch-Kaufman pivoting, 1x1 and 2x2 blocks, exact inertia, no BLAS (the same
// rounding whichever OpenBLAS kernel a machine gets)
//
// Work in progress (branch wip/issue22-kkt): the full factorisation of one dense matrix; the
// partial factorisation of a front (its fully summed columns only, with delayed pivots) and
// the sparse multifrontal driver are still to come.
#ifndef SALTO_KKT_DENSE_H
#define SALTO_KKT_DENSE_H

typedef struct kkt_dense_inertia {
    int pos, neg, zero; // D's eigenvalues by sign (zero: a pivot of exactly zero)
} kkt_dense_inertia;

// Factors the symmetric n x n matrix A (column-major, leading dimension lda, both triangles
// read, overwritten) as P A P' = L D L': L unit lower triangular (below A's diagonal), D block
// diagonal with 1x1 and 2x2 blocks (on A's diagonal and first subdiagonal), P the permutation
// perm (perm[i]: the original index of row i). piv[i] = 1 for a 1x1 block at i, 2 at the
// first row of a 2x2 block (0 at its second). Bunch-Kaufman's choice with alpha =
// (1 + sqrt 17) / 8: a 1x1 pivot where the diagonal dominates its column enough, else a 2x2
// with the column's largest entry. A column that is exactly zero is a zero 1x1 pivot (counted
// in inertia->zero; the solve then leaves that unknown at 0).
void kkt_dense_factor(int n, double* A, int lda, int* perm, int* piv, kkt_dense_inertia* inertia);

// Solves A x = b in place (b: n) with the factors of kkt_dense_factor.
void kkt_dense_solve(int n, const double* F, int lda, const int* perm, const int* piv, double* b);

#endif
