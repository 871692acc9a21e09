// kkt_sparse.h: salto's sparse symmetric-indefinite LDL' for IPOPT's augmented system (issue 22)
//
// P S A S P' = L D L': S a symmetric equilibration (every row's largest entry near 1), P a
// fill-reducing order (AMD, through CHOLMOD's supernodal analysis, which also gives the
// assembly tree and relaxed supernodes), L unit lower triangular, D block diagonal with 1x1
// and 2x2 blocks. The numeric phase is multifrontal: each supernode's front is assembled from
// the matrix's entries and its children's contribution blocks, and its fully summed columns
// are eliminated with threshold pivoting (a 1x1 pivot where the diagonal is at least u times
// the column's largest entry, else a 2x2 that passes the same bound; where none passes u, the
// same at 1e-8, IPOPT's own threshold); the columns that no pivot passes are delayed to the
// parent's front. The order is AMD's, made at the first factorisation from its values so that
// a row with a zero diagonal (a constraint's) is eliminated with a matched neighbour. The inertia is exact (counted from D's blocks), a
// pivot of at most 1e-20 (of the equilibrated matrix) is a zero eigenvalue, and the dense
// kernels are plain C (no BLAS), so every machine and build factors with the same rounding:
// the file is compiled without contraction into fused multiply-adds.
#ifndef SALTO_KKT_SPARSE_H
#define SALTO_KKT_SPARSE_H

#include <stddef.h>

typedef struct kkt_sparse kkt_sparse;

typedef struct kkt_sparse_info {
    int pos, neg, zero; // the inertia (zero: pivots of at most 1e-20, and exactly zero columns)
    int delayed;        // columns delayed to a parent's front, summed over the fronts
    int two_by_two;     // 2x2 pivots
    int max_front;      // the largest front's order
    size_t factor_entries; // entries of L (below the diagonal, as stored)
    double flops;       // multiply-adds of the numeric phase, counted
} kkt_sparse_info;

// A solver for the symmetric n x n pattern given as ne triplets (0-based rows irn and columns
// jcn, either triangle, duplicates allowed: they are summed), copied. The order and the
// symbolic analysis wait for the first factorisation, whose values they use. NULL if out of
// memory or an index is out of range.
kkt_sparse* kkt_sparse_analyse(int n, int ne, const int* irn, const int* jcn);

// Factors the matrix whose triplet values are a (the pattern given to kkt_sparse_analyse)
// with pivot threshold u (0 < u <= 0.5; below 1e-12 counts as 1e-12; a pivot that passes
// only 1e-8 is taken before a column is delayed). The first call also orders the matrix from
// its values (zero diagonals matched with neighbours) and makes the symbolic analysis; later
// calls keep them. Returns 0, or -1 if out of memory. info may be NULL.
int kkt_sparse_factor(kkt_sparse* f, const double* a, double u, kkt_sparse_info* info);

// The factor's entries and multiply-adds predicted from the pattern alone (AMD's order, no
// pivoting, no delays), without factoring: what a factorisation will cost before it is made.
// Returns 0, or -1 if out of memory. The first kkt_sparse_factor still orders from the values.
int kkt_sparse_predict(kkt_sparse* f, double* factor_entries, double* flops);

// Solves A x = b in place with the last factorisation (the unknowns of zero pivots come out 0).
void kkt_sparse_solve(const kkt_sparse* f, double* b);

// The pattern given to the analysis (0-based rows and columns, ne each).
void kkt_sparse_pattern(const kkt_sparse* f, int* irn, int* jcn);

void kkt_sparse_free(kkt_sparse* f);

#endif
