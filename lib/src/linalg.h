// linalg.h: the small dense symmetric solves the validator and the simulator share
//
// Row-major n x n matrices. salto_chol factors a symmetric positive definite matrix in place
// (its lower triangle becomes L, A = L L'); salto_pchol factors a positive semi-definite one
// with complete pivoting (LAPACK dpstrf: P' A P = L L', its leading rank columns) so that
// dependent rows (two sites on one rigid foot, a grip stated twice) are found and dropped.
#ifndef SALTO_LINALG_H
#define SALTO_LINALG_H

// 1, or 0 if A is not positive definite (A is then partly overwritten)
int salto_chol(double* A, int n);
// x := A^-1 x with A's factor from salto_chol
void salto_chol_solve(const double* L, int n, double* x);

// The rank of A within rel_tol of its largest diagonal entry (0 for a zero or failed
// factorisation); A becomes the factor, piv (n) the pivots. work: 2 n doubles.
int salto_pchol(double* A, int n, double rel_tol, int* piv, double* work);
// x := the solution of A x = x on the factor's rank leading pivots, the dependent entries of x
// zero. work: n doubles.
void salto_pchol_solve(const double* C, int n, int rank, const int* piv, double* x, double* work);

#endif
