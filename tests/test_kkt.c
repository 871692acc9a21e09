// test_kkt.c: the KKT solver's pieces (issue 22): the dense Bunch-Kaufman LDL' so far
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kkt_dense.h"
#include "test_suites.h"
#include "test_util.h"

// LAPACK's symmetric eigenvalues: the inertia to compare with
void dsyev_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda,
            double* w, double* work, const int* lwork, int* info);

static kkt_dense_inertia eig_inertia(int n, const double* A, double tol) {
    double* a = malloc(sizeof(double) * (size_t)n * (size_t)n);
    double* w = malloc(sizeof(double) * (size_t)n);
    const int lwork = 64 * n + 64;
    double* work = malloc(sizeof(double) * (size_t)lwork);
    ck_assert(a && w && work);
    memcpy(a, A, sizeof(double) * (size_t)n * (size_t)n);
    int info = 0;
    dsyev_("N", "L", &n, a, &n, w, work, &lwork, &info);
    ck_assert_int_eq(info, 0);
    kkt_dense_inertia in = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        if (w[i] > tol) in.pos++;
        else if (w[i] < -tol) in.neg++;
        else in.zero++;
    }
    free(a), free(w), free(work);
    return in;
}


// the matrices: kind 0 random symmetric, 1 a KKT matrix [H J'; J 0] (H positive definite, J
// full row rank), 2 a singular one B diag(d) B' with a zero in d
static void make_matrix(int kind, int n, salto_test_rng* r, double* A) {
    for (int j = 0; j < n; j++) {
        for (int i = j; i < n; i++) A[j * n + i] = A[i * n + j] = salto_test_uniform(r, -1.0, 1.0);
    }
    if (kind == 1) {
        const int m = n / 3; // the last m rows and columns are the constraints'
        for (int i = n - m; i < n; i++) {
            for (int j = n - m; j < n; j++) A[j * n + i] = 0.0;
        }
        for (int i = 0; i < n - m; i++) A[i * n + i] += n; // H diagonally dominant
    } else if (kind == 2) {
        double* B = malloc(sizeof(double) * (size_t)n * (size_t)n);
        ck_assert_ptr_nonnull(B);
        for (int k = 0; k < n * n; k++) B[k] = salto_test_uniform(r, -1.0, 1.0);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < n; k++) s += B[k * n + i] * (k == 0 ? 0.0 : (k % 2 ? 1.0 : -2.0)) * B[k * n + j];
                A[j * n + i] = s;
            }
        }
        free(B);
    }
}


// P' L D L' P = A, A x = b, and the inertia against the eigenvalues, for every kind and size
START_TEST(dense_ldlt_factors_solves_and_counts) {
    static const int sizes[] = {1, 2, 3, 5, 8, 13, 40};
    for (int kind = 0; kind < 3; kind++) {
        for (int s = 0; s < 7; s++) {
            const int n = sizes[s];
            if (kind == 2 && n < 2) continue;
            const unsigned seed = 7000u + 100u * (unsigned)kind + (unsigned)n;
            salto_test_rng r;
            salto_test_rng_seed(&r, seed);
            double* A = malloc(sizeof(double) * (size_t)n * (size_t)n);
            double* F = malloc(sizeof(double) * (size_t)n * (size_t)n);
            int* perm = malloc(sizeof(int) * (size_t)n);
            int* piv = malloc(sizeof(int) * (size_t)n);
            double* x = malloc(sizeof(double) * (size_t)n);
            double* b = malloc(sizeof(double) * (size_t)n);
            ck_assert(A && F && perm && piv && x && b);
            make_matrix(kind, n, &r, A);
            memcpy(F, A, sizeof(double) * (size_t)n * (size_t)n);
            kkt_dense_inertia in;
            kkt_dense_factor(n, F, n, perm, piv, &in);
            double amax = 0.0;
            for (int k = 0; k < n * n; k++) amax = fmax(amax, fabs(A[k]));
            // the inertia: the eigenvalues' signs (a singular matrix's zero eigenvalue comes out
            // of the factorisation as a tiny pivot, not an exact zero: counted with its sign,
            // so only the definite counts are compared there)
            const kkt_dense_inertia ev = eig_inertia(n, A, 1e-9 * amax * n);
            ck_assert_int_eq(in.pos + in.neg + in.zero, n);
            if (kind < 2) {
                ck_assert_msg(in.pos == ev.pos && in.neg == ev.neg && in.zero == 0,
                              "seed %u, kind %d, n %d: LDL' inertia (%d, %d, %d), eigenvalues (%d, %d, %d)",
                              seed, kind, n, in.pos, in.neg, in.zero, ev.pos, ev.neg, ev.zero);
            } else {
                ck_assert_msg(in.pos >= ev.pos && in.neg >= ev.neg && ev.zero == 1,
                              "seed %u, n %d: LDL' inertia (%d, %d, %d), eigenvalues (%d, %d, %d)",
                              seed, n, in.pos, in.neg, in.zero, ev.pos, ev.neg, ev.zero);
            }
            if (kind == 1) ck_assert_int_eq(in.neg, n / 3);
            // P' L D L' P against A, entry by entry: (L D L')_ij = sum_k L_ik (D L')_kj
            double worst = 0.0;
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    double sum = 0.0;
                    for (int k = 0; k < n; k++) {
                        const double lik = i == k ? 1.0 : (i > k && !(piv[k] == 2 && i == k + 1) ? F[k * n + i] : 0.0);
                        if (lik == 0.0) continue;
                        // (D L')_kj: D's block at k times L' column j
                        double dl = 0.0;
                        int k0 = k, s2 = 1;
                        if (piv[k] == 0) k0 = k - 1, s2 = 2;
                        else if (piv[k] == 2) s2 = 2;
                        for (int c = k0; c < k0 + s2; c++) {
                            const double dkc = c == k ? F[k * n + k] : (c > k ? F[k * n + c] : F[c * n + k]);
                            const double ljc = j == c ? 1.0 : (j > c && !(piv[c] == 2 && j == c + 1) ? F[c * n + j] : 0.0);
                            dl += dkc * ljc;
                        }
                        sum += lik * dl;
                    }
                    worst = fmax(worst, fabs(sum - A[perm[j] * n + perm[i]]));
                }
            }
            ck_assert_msg(worst <= 1e-12 * (1.0 + amax) * n, "seed %u, kind %d, n %d: P'LDL'P - A off by %g",
                          seed, kind, n, worst);
            // a solve (not for the singular kind)
            if (kind < 2) {
                for (int i = 0; i < n; i++) x[i] = salto_test_uniform(&r, -1.0, 1.0);
                for (int i = 0; i < n; i++) {
                    double sum = 0.0;
                    for (int j = 0; j < n; j++) sum += A[j * n + i] * x[j];
                    b[i] = sum;
                }
                kkt_dense_solve(n, F, n, perm, piv, b);
                double err = 0.0;
                for (int i = 0; i < n; i++) err = fmax(err, fabs(b[i] - x[i]));
                ck_assert_msg(err <= 1e-8, "seed %u, kind %d, n %d: solve off by %g", seed, kind, n, err);
            }
            free(A), free(F), free(perm), free(piv), free(x), free(b);
        }
    }
}
END_TEST


// a zero column is a zero pivot (counted, its unknown left at 0), the rest factored
START_TEST(dense_ldlt_zero_column) {
    const int n = 3;
    double A[9] = {2, 0, 1, 0, 0, 0, 1, 0, -3};
    int perm[3], piv[3];
    kkt_dense_inertia in;
    kkt_dense_factor(n, A, n, perm, piv, &in);
    ck_assert_int_eq(in.zero, 1);
    ck_assert_int_eq(in.pos, 1);
    ck_assert_int_eq(in.neg, 1);
}
END_TEST


Suite* kkt_suite(void) {
    Suite* s = suite_create("kkt");
    TCase* tc = tcase_create("dense");
    tcase_add_test(tc, dense_ldlt_factors_solves_and_counts);
    tcase_add_test(tc, dense_ldlt_zero_column);
    suite_add_tcase(s, tc);
    return s;
}
