// test_kkt.c: salto's KKT factorisation (kkt_sparse.h): inertia against LAPACK's eigenvalues,
// residuals, singular matrices, refactorisation, the order from values
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kkt_mumps.h"
#include "kkt_sparse.h"
#include "test_suites.h"
#include "test_util.h"

// LAPACK's symmetric eigenvalues: the inertia to compare with
void dsyev_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda,
            double* w, double* work, const int* lwork, int* info);

typedef struct inertia3 {
    int pos, neg, zero;
} inertia3;

static inertia3 eig_inertia(int n, const double* A, double tol) {
    double* a = malloc(sizeof(double) * (size_t)n * (size_t)n);
    double* w = malloc(sizeof(double) * (size_t)n);
    const int lwork = 64 * n + 64;
    double* work = malloc(sizeof(double) * (size_t)lwork);
    ck_assert(a && w && work);
    memcpy(a, A, sizeof(double) * (size_t)n * (size_t)n);
    int info = 0;
    dsyev_("N", "L", &n, a, &n, w, work, &lwork, &info);
    ck_assert_int_eq(info, 0);
    inertia3 in = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        if (w[i] > tol) in.pos++;
        else if (w[i] < -tol) in.neg++;
        else in.zero++;
    }
    free(a), free(w), free(work);
    return in;
}


// ---------------------------------------------------------------------------------------------
// the sparse multifrontal LDL'

// a random sparse symmetric matrix as triplets (lower triangle, some entries duplicated, which
// are summed) and densely (column-major). kind 0: indefinite with a tenth of the diagonal
// zero; 1: a KKT matrix [H J'; J -delta I] (H indefinite or not, J of full row rank, delta 0
// or not); 2: kind 1 with a constraint row repeated (singular for delta = 0); 3: kind 0 with
// a column of explicit zeros (singular)
typedef struct sp_matrix {
    int n, ne;
    int* irn;
    int* jcn;
    double* a;
    double* A;
} sp_matrix;

static void sp_add(sp_matrix* M, int i, int j, double v) {
    M->irn[M->ne] = i, M->jcn[M->ne] = j, M->a[M->ne] = v, M->ne++;
    M->A[(size_t)j * M->n + i] += v;
    if (i != j) M->A[(size_t)i * M->n + j] += v;
}

static sp_matrix sp_make(int kind, int n, double density, salto_test_rng* r) {
    sp_matrix M = {n, 0, NULL, NULL, NULL, NULL};
    const int cap = n * n + 4 * n;
    M.irn = malloc(sizeof(int) * (size_t)cap), M.jcn = malloc(sizeof(int) * (size_t)cap);
    M.a = malloc(sizeof(double) * (size_t)cap), M.A = calloc((size_t)n * (size_t)n, sizeof(double));
    ck_assert(M.irn && M.jcn && M.a && M.A);
    if (kind == 0 || kind == 3) {
        for (int j = 0; j < n; j++) {
            if (j % 10 != 3) sp_add(&M, j, j, salto_test_uniform(r, -2.0, 2.0));
            else sp_add(&M, j, j - 1, 0.7); // no zero column
            for (int i = j + 1; i < n; i++) {
                if (salto_test_uniform(r, 0.0, 1.0) < density) sp_add(&M, i, j, salto_test_uniform(r, -1.0, 1.0));
            }
            if (j % 7 == 0 && j + 1 < n) sp_add(&M, j + 1, j, 0.25); // a duplicate or a new entry
        }
        if (kind == 3) { // column n / 2 made of explicit zeros
            const int z = n / 2;
            for (int e = 0; e < M.ne; e++) {
                if (M.irn[e] == z || M.jcn[e] == z) M.a[e] = 0.0;
            }
            for (int i = 0; i < n; i++) M.A[(size_t)z * n + i] = M.A[(size_t)i * n + z] = 0.0;
            sp_add(&M, z, z, 0.0);
        }
    } else {
        const int m = n / 3, nv = n - m;
        const int indef = salto_test_uniform(r, 0.0, 1.0) < 0.5;
        const double delta = salto_test_uniform(r, 0.0, 1.0) < 0.5 ? 0.0 : 1e-8;
        for (int j = 0; j < nv; j++) {
            sp_add(&M, j, j, indef && j % 4 == 1 ? -0.5 : (j % 5 == 2 ? 0.0 : 2.0 + j % 3));
            for (int i = j + 1; i < nv; i++) {
                if (salto_test_uniform(r, 0.0, 1.0) < density) sp_add(&M, i, j, salto_test_uniform(r, -0.5, 0.5));
            }
        }
        for (int c = 0; c < m; c++) {
            const int row = nv + c;
            const int src = kind == 2 && c == m - 1 ? nv - 1 + 0 : -1; // the repeated row's source
            (void)src;
            if (kind == 2 && c == m - 1 && m >= 2) { // a copy of constraint row 0
                for (int e = 0, ne0 = M.ne; e < ne0; e++) {
                    if (M.irn[e] == nv && M.jcn[e] < nv) sp_add(&M, row, M.jcn[e], M.a[e]);
                }
            } else {
                sp_add(&M, row, c % nv, 1.0 + salto_test_uniform(r, 0.0, 1.0)); // full row rank
                for (int j = 0; j < nv; j++) {
                    if (j != c % nv && salto_test_uniform(r, 0.0, 1.0) < density) {
                        sp_add(&M, row, j, salto_test_uniform(r, -1.0, 1.0));
                    }
                }
            }
            sp_add(&M, row, row, kind == 2 ? 0.0 : -delta);
        }
    }
    return M;
}

static void sp_free(sp_matrix* M) { free(M->irn), free(M->jcn), free(M->a), free(M->A); }

// A x = b and the inertia against the eigenvalues, for every kind, several sizes, densities
// and pivot thresholds; the delayed-pivot and 2x2 paths are taken somewhere in the sweep
START_TEST(sparse_ldlt_solves_and_counts) {
    static const int sizes[] = {1, 2, 5, 12, 30, 61, 150};
    static const double us[] = {1e-8, 0.01, 0.5};
    int delayed = 0, twos = 0, cases = 0, singular = 0;
    for (int kind = 0; kind < 4; kind++) {
        for (int si = 0; si < 7; si++) {
            for (int ui = 0; ui < 3; ui++) {
                const int n = sizes[si];
                if (kind >= 1 && n < 3) continue;
                const unsigned seed = 9000u + 1000u * (unsigned)kind + 10u * (unsigned)si + (unsigned)ui;
                salto_test_rng r;
                salto_test_rng_seed(&r, seed);
                const double density = n < 20 ? 0.3 : 4.0 / n;
                sp_matrix M = sp_make(kind, n, density, &r);
                kkt_sparse* f = kkt_sparse_analyse(n, M.ne, M.irn, M.jcn);
                ck_assert_msg(f != NULL, "seed %u: analysis failed", seed);
                kkt_sparse_info info;
                ck_assert_int_eq(kkt_sparse_factor(f, M.a, us[ui], &info), 0);
                delayed += info.delayed, twos += info.two_by_two, cases++, singular += info.zero > 0;
                double amax = 0.0;
                for (int k = 0; k < n * n; k++) amax = fmax(amax, fabs(M.A[k]));
                const inertia3 ev = eig_inertia(n, M.A, 1e-9 * (1.0 + amax) * n);
                ck_assert_int_eq(info.pos + info.neg + info.zero, n);
                const int regular = ev.zero == 0; // a random matrix can be singular too
                if (kind == 3) ck_assert_int_ge(ev.zero, 1);
                if (regular) {
                    ck_assert_msg(info.pos == ev.pos && info.neg == ev.neg && info.zero == 0,
                                  "seed %u, kind %d, n %d, u %g: inertia (%d, %d, %d), eigenvalues (%d, %d, %d)",
                                  seed, kind, n, us[ui], info.pos, info.neg, info.zero, ev.pos, ev.neg, ev.zero);
                } else {
                    // singular: the exact zero column is found; a rank deficiency from rounding
                    // comes out as a tiny pivot with a sign, so only the definite counts bound it
                    ck_assert_msg(info.pos >= ev.pos && info.neg >= ev.neg,
                                  "seed %u, kind %d, n %d: inertia (%d, %d, %d), eigenvalues (%d, %d, %d)",
                                  seed, kind, n, info.pos, info.neg, info.zero, ev.pos, ev.neg, ev.zero);
                    if (kind == 3) ck_assert_msg(info.zero >= 1, "seed %u: the zero column not found", seed);
                }
                if (regular) { // a solve: the residual, relative
                    double* x = malloc(sizeof(double) * (size_t)n);
                    double* b = malloc(sizeof(double) * (size_t)n);
                    ck_assert(x && b);
                    for (int i = 0; i < n; i++) x[i] = salto_test_uniform(&r, -1.0, 1.0);
                    double bmax = 0.0;
                    for (int i = 0; i < n; i++) {
                        double sum = 0.0;
                        for (int j = 0; j < n; j++) sum += M.A[(size_t)j * n + i] * x[j];
                        b[i] = sum, bmax = fmax(bmax, fabs(sum));
                    }
                    double* y = malloc(sizeof(double) * (size_t)n);
                    ck_assert(y);
                    memcpy(y, b, sizeof(double) * (size_t)n);
                    kkt_sparse_solve(f, y);
                    // a pivot that passes 1e-8 only (IPOPT's threshold; any u falls back to it
                    // before delaying a column) lets growth in: one step of refinement, as
                    // IPOPT takes
                    for (int pass = 0; pass < 2; pass++) {
                        double res = 0.0, ymax = 0.0;
                        for (int i = 0; i < n; i++) {
                            double sum = 0.0;
                            for (int j = 0; j < n; j++) sum += M.A[(size_t)j * n + i] * y[j];
                            x[i] = b[i] - sum;
                            res = fmax(res, fabs(sum - b[i])), ymax = fmax(ymax, fabs(y[i]));
                        }
                        if (pass == 0) {
                            kkt_sparse_solve(f, x);
                            for (int i = 0; i < n; i++) y[i] += x[i];
                            continue;
                        }
                        ck_assert_msg(res <= 1e-10 * (bmax + amax * ymax),
                                      "seed %u, kind %d, n %d, u %g: residual %g (|b| %g, |A| %g, |x| %g)",
                                      seed, kind, n, us[ui], res, bmax, amax, ymax);
                    }
                    free(x), free(b), free(y);
                }
                // refactoring with other values reuses the analysis: scaled values, the same inertia
                for (int e = 0; e < M.ne; e++) M.a[e] *= 3.0;
                kkt_sparse_info info2;
                ck_assert_int_eq(kkt_sparse_factor(f, M.a, us[ui], &info2), 0);
                if (regular) {
                    ck_assert_int_eq(info2.pos, info.pos);
                    ck_assert_int_eq(info2.neg, info.neg);
                }
                kkt_sparse_free(f);
                sp_free(&M);
            }
        }
    }
    ck_assert_msg(delayed > 0, "no case delayed a pivot (%d cases)", cases);
    ck_assert_msg(twos > 0, "no case took a 2x2 pivot (%d cases)", cases);
    ck_assert_msg(singular >= 21, "%d of %d cases found singular", singular, cases);
}
END_TEST


// the order from values: a KKT matrix's constraint rows (zero diagonals) matched with
// variables, eliminated with them; AMD's order alone (SALTO_KKT_NOMATCH, a measuring aid)
// delays many of them
START_TEST(sparse_ldlt_matching_order_avoids_delays) {
    const unsigned seed = 9900u;
    salto_test_rng r;
    salto_test_rng_seed(&r, seed);
    const int n = 600;
    int delayed[2], neg[2];
    for (int pass = 0; pass < 2; pass++) {
        salto_test_rng_seed(&r, seed);
        sp_matrix M = sp_make(1, n, 6.0 / n, &r);
        for (int e = 0; e < M.ne; e++) { // delta = 0: exact zero diagonals in the constraint block
            if (M.irn[e] == M.jcn[e] && M.irn[e] >= n - n / 3) M.a[e] = 0.0;
        }
        if (pass == 1) setenv("SALTO_KKT_NOMATCH", "1", 1);
        kkt_sparse* f = kkt_sparse_analyse(n, M.ne, M.irn, M.jcn);
        ck_assert_ptr_nonnull(f);
        kkt_sparse_info info;
        ck_assert_int_eq(kkt_sparse_factor(f, M.a, 1e-8, &info), 0);
        unsetenv("SALTO_KKT_NOMATCH");
        delayed[pass] = info.delayed, neg[pass] = info.neg;
        kkt_sparse_free(f);
        sp_free(&M);
    }
    ck_assert_int_eq(neg[0], neg[1]); // the same inertia in either order
    ck_assert_msg(delayed[0] * 4 <= delayed[1] && delayed[1] > 0,
                  "seed %u: %d columns delayed in the matched order, %d in AMD's", seed, delayed[0],
                  delayed[1]);
}
END_TEST


// KKT matrices IPOPT handed to the factorisation, dumped from the shipped dismount's solve and
// the paper's held dismount (SALTO_KKT_DUMP, kkt_ma57.c: n, ne as int32, the 1-based rows and
// columns, the values as float64): the inertia against LAPACK's eigenvalues, a solve's
// residual after one refinement step
START_TEST(sparse_ldlt_dumped_kkt_matrices) {
    static const char* const files[] = {"tests/data/kkt/highbar_dismount_held.kkt",
                                         "tests/data/kkt/highbar_dismount.kkt"};
    const char* rel = files[_i];
    FILE* fp = fopen(salto_test_path(rel), "rb");
    ck_assert_msg(fp != NULL, "%s: cannot open", rel);
    int n = 0, ne = 0;
    ck_assert_int_eq(fread(&n, sizeof(int), 1, fp), 1);
    ck_assert_int_eq(fread(&ne, sizeof(int), 1, fp), 1);
    ck_assert(n > 0 && n < 5000 && ne > 0);
    int* irn = malloc(sizeof(int) * (size_t)ne);
    int* jcn = malloc(sizeof(int) * (size_t)ne);
    double* a = malloc(sizeof(double) * (size_t)ne);
    double* A = calloc((size_t)n * (size_t)n, sizeof(double));
    ck_assert(irn && jcn && a && A);
    ck_assert_int_eq((int)fread(irn, sizeof(int), (size_t)ne, fp), ne);
    ck_assert_int_eq((int)fread(jcn, sizeof(int), (size_t)ne, fp), ne);
    ck_assert_int_eq((int)fread(a, sizeof(double), (size_t)ne, fp), ne);
    fclose(fp);
    for (int e = 0; e < ne; e++) {
        irn[e]--, jcn[e]--;
        A[(size_t)jcn[e] * n + irn[e]] += a[e];
        if (irn[e] != jcn[e]) A[(size_t)irn[e] * n + jcn[e]] += a[e];
    }
    kkt_sparse* f = kkt_sparse_analyse(n, ne, irn, jcn);
    ck_assert_ptr_nonnull(f);
    kkt_sparse_info info;
    ck_assert_int_eq(kkt_sparse_factor(f, a, 1e-8, &info), 0);
    double amax = 0.0;
    for (size_t k = 0; k < (size_t)n * n; k++) amax = fmax(amax, fabs(A[k]));
    // the eigenvalues of S A S, S the rows' equilibration: the same inertia (Sylvester), and
    // well enough conditioned that each eigenvalue's sign is clear (IPOPT's barrier terms make
    // A itself span twelve orders)
    double* As = malloc(sizeof(double) * (size_t)n * (size_t)n);
    double* sc = malloc(sizeof(double) * (size_t)n);
    ck_assert(As && sc);
    for (int i = 0; i < n; i++) {
        double m = 0.0;
        for (int j = 0; j < n; j++) m = fmax(m, fabs(A[(size_t)j * n + i]));
        sc[i] = m > 0.0 ? 1.0 / sqrt(m) : 1.0;
    }
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < n; i++) As[(size_t)j * n + i] = A[(size_t)j * n + i] * sc[i] * sc[j];
    }
    const inertia3 ev = eig_inertia(n, As, 1e-12);
    free(As), free(sc);
    ck_assert_msg(ev.zero == 0, "%s: %d eigenvalues of the equilibrated matrix near zero", rel, ev.zero);
    ck_assert_msg(info.pos == ev.pos && info.neg == ev.neg && info.zero == 0,
                  "%s: inertia (%d, %d, %d), eigenvalues (%d, %d)", rel, info.pos, info.neg,
                  info.zero, ev.pos, ev.neg);
    // A x = b for x of ones: the residual after one refinement step, relative
    double* x = malloc(sizeof(double) * (size_t)n);
    double* b = malloc(sizeof(double) * (size_t)n);
    double* r = malloc(sizeof(double) * (size_t)n);
    ck_assert(x && b && r);
    for (int i = 0; i < n; i++) {
        double sum = 0.0;
        for (int j = 0; j < n; j++) sum += A[(size_t)j * n + i];
        b[i] = sum;
    }
    memcpy(x, b, sizeof(double) * (size_t)n);
    kkt_sparse_solve(f, x);
    double res = 0.0, bmax = 0.0;
    for (int pass = 0; pass < 2; pass++) {
        res = 0.0;
        for (int i = 0; i < n; i++) {
            double sum = 0.0;
            for (int j = 0; j < n; j++) sum += A[(size_t)j * n + i] * x[j];
            r[i] = b[i] - sum, res = fmax(res, fabs(r[i])), bmax = fmax(bmax, fabs(b[i]));
        }
        if (pass == 0) {
            kkt_sparse_solve(f, r);
            for (int i = 0; i < n; i++) x[i] += r[i];
        }
    }
    ck_assert_msg(res <= 1e-9 * (bmax + amax), "%s: residual %g (|b| %g, |A| %g)", rel, res, bmax, amax);
    kkt_sparse_free(f);
    free(irn), free(jcn), free(a), free(A), free(x), free(b), free(r);
}
END_TEST


// IPOPT's level-1 BLAS as salto defines it (blas1.c): against plain loops, strided and
// backwards, the norm without overflow or underflow at the ends of the range
double ddot_(const int* n, const double* x, const int* incx, const double* y, const int* incy);
double dnrm2_(const int* n, const double* x, const int* incx);
double dasum_(const int* n, const double* x, const int* incx);
void daxpy_(const int* n, const double* a, const double* x, const int* incx, double* y, const int* incy);
void dscal_(const int* n, const double* a, double* x, const int* incx);
void dcopy_(const int* n, const double* x, const int* incx, double* y, const int* incy);
int idamax_(const int* n, const double* x, const int* incx);

START_TEST(blas1_against_loops) {
    salto_test_rng r;
    salto_test_rng_seed(&r, 9950u);
    enum { N = 37 };
    double x[2 * N], y[2 * N], y0[2 * N];
    for (int i = 0; i < 2 * N; i++) x[i] = salto_test_uniform(&r, -2, 2), y[i] = y0[i] = salto_test_uniform(&r, -2, 2);
    const int n = N, one = 1, two = 2, mtwo = -2, zero = 0;
    double dot = 0.0, asum = 0.0, ss = 0.0;
    int imax = 0;
    for (int i = 0; i < N; i++) {
        dot += x[i] * y[i], asum += fabs(x[i]), ss += x[i] * x[i];
        if (fabs(x[i]) > fabs(x[imax])) imax = i;
    }
    ck_assert_double_eq_tol(ddot_(&n, x, &one, y, &one), dot, 1e-13);
    ck_assert_double_eq_tol(dasum_(&n, x, &one), asum, 1e-13);
    ck_assert_double_eq_tol(dnrm2_(&n, x, &one), sqrt(ss), 1e-13);
    ck_assert_int_eq(idamax_(&n, x, &one), imax + 1);
    ck_assert_double_eq(ddot_(&zero, x, &one, y, &one), 0.0);
    // strided, and backwards: x(1 + (N - 1 - i) 2) pairs with y(1 + i 2) when incx = -2
    double dots = 0.0, dotb = 0.0;
    for (int i = 0; i < N; i++) dots += x[2 * i] * y[2 * i], dotb += x[2 * (N - 1 - i)] * y[2 * i];
    ck_assert_double_eq_tol(ddot_(&n, x, &two, y, &two), dots, 1e-13);
    ck_assert_double_eq_tol(ddot_(&n, x, &mtwo, y, &two), dotb, 1e-13);
    const double a = 0.75;
    daxpy_(&n, &a, x, &one, y, &one);
    for (int i = 0; i < N; i++) ck_assert_double_eq_tol(y[i], y0[i] + a * x[i], 1e-15);
    for (int i = N; i < 2 * N; i++) ck_assert_double_eq(y[i], y0[i]);
    dcopy_(&n, x, &mtwo, y, &one);
    for (int i = 0; i < N; i++) ck_assert_double_eq(y[i], x[2 * (N - 1 - i)]);
    dscal_(&n, &a, y, &one);
    for (int i = 0; i < N; i++) ck_assert_double_eq_tol(y[i], a * x[2 * (N - 1 - i)], 1e-15);
    // the norm at the ends of the range: scaled, no overflow or underflow
    double big[3] = {3e200, 4e200, 0.0}, tiny[3] = {3e-200, 4e-200, 0.0};
    const int three = 3;
    ck_assert_double_eq_tol(dnrm2_(&three, big, &one) / 5e200, 1.0, 1e-14);
    ck_assert_double_eq_tol(dnrm2_(&three, tiny, &one) / 5e-200, 1.0, 1e-14);
}
END_TEST


// bad input: an index out of range is refused
START_TEST(sparse_ldlt_refuses_bad_indices) {
    const int irn[2] = {0, 3}, jcn[2] = {0, 1};
    ck_assert_ptr_null(kkt_sparse_analyse(3, 2, irn, jcn));
    ck_assert_ptr_null(kkt_sparse_analyse(0, 0, irn, jcn));
}
END_TEST


// The MUMPS comparison (kkt_mumps.c, SALTO_KKT_COMPARE): its negative eigenvalues are the
// eigenvalues' on regular KKT-shaped matrices, the analysis on the first factorisation's values
// (as IPOPT's interface runs it: its permutation and scaling read them; run on unset values it
// read the heap, NaNs at times, and factored the zoo's twist dismount 400 times slower), and
// a later factorisation of other values reuses that analysis
START_TEST(mumps_comparison_counts) {
    int compared = 0;
    for (int si = 0; si < 4; si++) {
        static const int sizes[] = {5, 12, 30, 61};
        const int n = sizes[si];
        const unsigned seed = 9700u + (unsigned)si;
        salto_test_rng r;
        salto_test_rng_seed(&r, seed);
        sp_matrix M = sp_make(1, n, n < 20 ? 0.3 : 4.0 / n, &r);
        // MUMPS takes IPOPT's 1-based triplets
        int* ir = malloc(sizeof(int) * (size_t)M.ne);
        int* jc = malloc(sizeof(int) * (size_t)M.ne);
        ck_assert(ir && jc);
        for (int e = 0; e < M.ne; e++) ir[e] = M.irn[e] + 1, jc[e] = M.jcn[e] + 1;
        kkt_mumps* k = kkt_mumps_analyse(n, M.ne, ir, jc);
        free(ir), free(jc);
        ck_assert_msg(k != NULL, "seed %u: no MUMPS", seed);
        for (int round = 0; round < 2; round++) {
            if (round) { // other values on the same pattern
                for (int e = 0; e < M.ne; e++) {
                    const double v = M.a[e] * 1.5;
                    M.A[(size_t)M.jcn[e] * n + M.irn[e]] += v - M.a[e];
                    if (M.irn[e] != M.jcn[e]) M.A[(size_t)M.irn[e] * n + M.jcn[e]] += v - M.a[e];
                    M.a[e] = v;
                }
            }
            double amax = 0.0;
            for (int q = 0; q < n * n; q++) amax = fmax(amax, fabs(M.A[q]));
            const inertia3 ev = eig_inertia(n, M.A, 1e-9 * (1.0 + amax) * n);
            if (ev.zero) continue;
            int neg = -1;
            const int st = kkt_mumps_factor(k, M.a, &neg);
            ck_assert_msg(st == 0, "seed %u, round %d, n %d: MUMPS status %d (eigenvalues %d+ %d-)", seed, round, n, st, ev.pos, ev.neg);
            ck_assert_msg(neg == ev.neg, "seed %u, round %d: MUMPS %d negative, the eigenvalues %d", seed, round, neg, ev.neg);
            compared++;
        }
        kkt_mumps_free(k);
        sp_free(&M);
    }
    ck_assert_int_ge(compared, 4);
}
END_TEST


Suite* kkt_suite(void) {
    Suite* s = suite_create("kkt");
    TCase* ts = tcase_create("sparse");
    tcase_add_test(ts, sparse_ldlt_solves_and_counts);
    tcase_add_test(ts, sparse_ldlt_refuses_bad_indices);
    tcase_add_test(ts, sparse_ldlt_matching_order_avoids_delays);
    tcase_add_loop_test(ts, sparse_ldlt_dumped_kkt_matrices, 0, 2);
    tcase_add_test(ts, blas1_against_loops);
    tcase_add_test(ts, mumps_comparison_counts);
    suite_add_tcase(s, ts);
    return s;
}
