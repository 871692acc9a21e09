// test_base.c: error formatting, first-error-wins, notes and allocation hooks; the short JSON
// numbers and whole-file reads
#define _POSIX_C_SOURCE 200809L // open_memstream
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>
#include <stdio.h>

#include "json_out.h"
#include "linalg.h"
#include "salto/base.h"
#include "salto/budget.h"
#include "test_suites.h"
#include "test_util.h"

static salto_src_loc loc(const char* file, int line, int col) {
    salto_src_loc l = {file, line, col};
    return l;
}


START_TEST(format_with_location) {
    salto_error err = {0};
    salto_status s = SALTO_FAIL(&err, SALTO_ERR_INVALID, loc("walk.yaml", 14, 9),
                                "expected a number for '%s', found '%s'", "mass", "heavy");
    ck_assert_int_eq(s, SALTO_ERR_INVALID);
    ck_assert_int_eq(err.status, SALTO_ERR_INVALID);
    char buf[512];
    salto_error_format(&err, buf, sizeof buf);
    ck_assert_str_eq(buf, "walk.yaml:14:9: error: expected a number for 'mass', found 'heavy'");
    ck_assert_str_eq(err.func, "format_with_location_fn");
    ck_assert_int_gt(err.src_line, 0);
}
END_TEST


START_TEST(format_without_location) {
    salto_error err = {0};
    SALTO_FAIL(&err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    char buf[512];
    salto_error_format(&err, buf, sizeof buf);
    ck_assert_str_eq(buf, "error: out of memory");

    // a file without a line, a line without a column
    salto_error e2 = {0};
    SALTO_FAIL(&e2, SALTO_ERR_IO, loc("a.yaml", 0, 0), "cannot read");
    salto_error_format(&e2, buf, sizeof buf);
    ck_assert_str_eq(buf, "a.yaml: error: cannot read");
    salto_error e3 = {0};
    SALTO_FAIL(&e3, SALTO_ERR_IO, loc("a.yaml", 3, 0), "bad line");
    salto_error_format(&e3, buf, sizeof buf);
    ck_assert_str_eq(buf, "a.yaml:3: error: bad line");
}
END_TEST


START_TEST(format_with_note) {
    salto_error err = {0};
    SALTO_FAIL(&err, SALTO_ERR_INVALID, loc("c.yaml", 5, 3), "unknown key '%s'", "mas");
    salto_error_note(&err, "did you mean '%s'?", "mass");
    salto_error_note(&err, "a second note is ignored");
    char buf[512];
    salto_error_format(&err, buf, sizeof buf);
    ck_assert_str_eq(buf, "c.yaml:5:3: error: unknown key 'mas'\n"
                          "c.yaml:5:3: note: did you mean 'mass'?");
}
END_TEST


START_TEST(note_needs_an_error) {
    salto_error err = {0};
    salto_error_note(&err, "orphan note");
    ck_assert_int_eq(err.status, SALTO_OK);
    ck_assert_str_eq(err.note, "");
    salto_error_note(NULL, "no error object");
}
END_TEST


START_TEST(first_error_wins) {
    salto_error err = {0};
    SALTO_FAIL(&err, SALTO_ERR_SYNTAX, loc("first.yaml", 1, 2), "first");
    salto_error_note(&err, "first note");
    salto_status s = SALTO_FAIL(&err, SALTO_ERR_NOMEM, loc("second.yaml", 3, 4), "second");
    ck_assert_int_eq(s, SALTO_ERR_SYNTAX); // the recorded status is returned
    ck_assert_int_eq(err.status, SALTO_ERR_SYNTAX);
    ck_assert_str_eq(err.msg, "first");
    ck_assert_str_eq(err.note, "first note");
    ck_assert_str_eq(err.where.file, "first.yaml");
    ck_assert_int_eq(err.where.line, 1);
    ck_assert_int_eq(err.where.col, 2);
}
END_TEST


START_TEST(null_error_object) {
    ck_assert_int_eq(SALTO_FAIL(NULL, SALTO_ERR_IO, salto_loc_none(), "nobody listens"),
                     SALTO_ERR_IO);
}
END_TEST


// the error keeps its own copy of the file name
START_TEST(error_outlives_file_name) {
    char* file = malloc(32);
    strcpy(file, "temporary.yaml");
    salto_error err = {0};
    SALTO_FAIL(&err, SALTO_ERR_INVALID, loc(file, 7, 1), "bad");
    memset(file, 'x', 14);
    free(file);
    char buf[256];
    salto_error_format(&err, buf, sizeof buf);
    ck_assert_str_eq(buf, "temporary.yaml:7:1: error: bad");
}
END_TEST


START_TEST(format_truncates) {
    salto_error err = {0};
    SALTO_FAIL(&err, SALTO_ERR_INVALID, loc("file.yaml", 10, 20), "a long message");
    salto_error_note(&err, "and a note");
    char buf[16];
    memset(buf, '#', sizeof buf);
    salto_error_format(&err, buf, 12);
    ck_assert_int_eq((int)strlen(buf), 11);
    ck_assert_int_eq(buf[12], '#');
    salto_error_format(&err, buf, 0); // writes nothing
    ck_assert_int_eq(buf[0], 'f');

    // a message longer than the buffer in the error
    char big[1000];
    memset(big, 'm', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    salto_error e2 = {0};
    SALTO_FAIL(&e2, SALTO_ERR_INVALID, salto_loc_none(), "%s", big);
    ck_assert_int_eq((int)strlen(e2.msg), (int)sizeof e2.msg - 1);
}
END_TEST

// ---- allocation ----

START_TEST(alloc_hooks) {
    salto_test_counter cnt = {0, 0, 3};
    salto_alloc_hooks h = {salto_test_counting_malloc, salto_test_counting_free, &cnt};
    salto_set_alloc_hooks(&h);
    void* a = salto_malloc(10);
    char* s = salto_strdup("abc");
    void* z = salto_calloc(4, 8); // third call fails
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s, "abc");
    ck_assert_ptr_null(z);
    ck_assert_int_eq(cnt.live, 2);
    salto_free(a);
    salto_free(s);
    salto_free(NULL);
    ck_assert_int_eq(cnt.live, 2 - 2);
    salto_set_alloc_hooks(NULL);

    ck_assert_ptr_null(salto_malloc(0));
    ck_assert_ptr_null(salto_calloc(0, 8));
    ck_assert_ptr_null(salto_calloc((size_t)-1 / 2, 4)); // size overflow
    ck_assert_ptr_null(salto_strdup(NULL));
    double* d = salto_calloc(3, sizeof(double));
    ck_assert_ptr_nonnull(d);
    ck_assert(d[0] == 0.0 && d[1] == 0.0 && d[2] == 0.0);
    salto_free(d);
}
END_TEST


// copies of a list of strings: equal and apart from the originals; out of memory at each of
// its four allocations, nothing kept and nothing leaked; none for n = 0
START_TEST(string_lists) {
    const char* const src[3] = {"a=1", "", "phases.flight.duration=0.66"};
    char** v = NULL;
    ck_assert_int_eq(salto_strs_dup(3, src, &v), 0);
    for (int i = 0; i < 3; i++) {
        ck_assert_str_eq(v[i], src[i]);
        ck_assert_ptr_ne(v[i], src[i]);
    }
    salto_strs_free(v, 3);
    for (int fail = 1; fail <= 4; fail++) {
        salto_test_counter cnt = {0, 0, fail};
        salto_alloc_hooks h = {salto_test_counting_malloc, salto_test_counting_free, &cnt};
        salto_set_alloc_hooks(&h);
        char* dummy = NULL;
        char** w = &dummy; // set to NULL by the failure
        ck_assert_int_eq(salto_strs_dup(3, src, &w), -1);
        ck_assert_ptr_null(w);
        ck_assert_int_eq(cnt.live, 0);
        salto_set_alloc_hooks(NULL);
    }
    ck_assert_int_eq(salto_strs_dup(0, NULL, &v), 0);
    ck_assert_ptr_null(v);
    salto_strs_free(NULL, 3);
}
END_TEST


// a growing array keeps its elements as it grows, never shrinks, and on failure is left as it
// was (nothing leaked)
START_TEST(growing_arrays) {
    int* a = NULL;
    size_t cap = 0;
    for (int n = 1; n <= 1000; n++) {
        ck_assert_int_eq(salto_grow((void**)&a, &cap, (size_t)n, sizeof(int)), 0);
        ck_assert_uint_ge(cap, (size_t)n);
        a[n - 1] = 7 * n;
    }
    for (int n = 1; n <= 1000; n++) ck_assert_int_eq(a[n - 1], 7 * n);
    const size_t was = cap;
    ck_assert_int_eq(salto_grow((void**)&a, &cap, 10, sizeof(int)), 0);
    ck_assert_uint_eq(cap, was);
    salto_test_counter cnt = {0, 0, 1};
    salto_alloc_hooks h = {salto_test_counting_malloc, salto_test_counting_free, &cnt};
    salto_set_alloc_hooks(&h);
    int* keep = a;
    ck_assert_int_eq(salto_grow((void**)&a, &cap, was + 1, sizeof(int)), -1);
    ck_assert_ptr_eq(a, keep);
    ck_assert_uint_eq(cap, was);
    ck_assert_int_eq(cnt.live, 0);
    salto_set_alloc_hooks(NULL);
    ck_assert_int_eq(a[999], 7000);
    salto_free(a);
}
END_TEST


START_TEST(version_string) {
    ck_assert_str_eq(salto_version(), "0.1");
}
END_TEST


// the short JSON numbers of pages: digits significant digits, tiny magnitudes as 0, non-finite
// values as null, no spaces; and salto_read_file's NUL after the text
START_TEST(json_short_numbers_and_read_file) {
    char* buf = NULL;
    size_t n = 0;
    FILE* f = open_memstream(&buf, &n);
    ck_assert_ptr_nonnull(f);
    const double v[5] = {1.23456789, -2e-13, NAN, 1234567.89, 0.5};
    salto_json_nums_g(f, v, 5, 1, 7);
    fputc(' ', f);
    salto_json_nums_g(f, v, 3, 2, 3); // every other one
    fputc(' ', f);
    salto_json_num_g(f, INFINITY, 7);
    fclose(f);
    ck_assert_str_eq(buf, "[1.234568,0,null,1234568,0.5] [1.23,null,0.5] null");
    free(buf);
    // salto_read_file: the text and a terminating NUL not counted
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/view/turned/p.yaml", salto_test_root());
    salto_error err = {0};
    size_t len = 0;
    char* text = salto_read_file(path, &len, &err);
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_gt(len, 0);
    ck_assert_uint_eq(strlen(text), len);
    salto_free(text);
}
END_TEST


// the symmetric 3 x 3 eigen-decomposition: S = V diag(e) V' to rounding, V a rotation, e
// ascending; random matrices, diagonal ones, repeated and nearly repeated eigenvalues, and
// inertia-like scales from 1e-6 to 1e3
START_TEST(sym3_eigen_decomposes) {
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 88u);
    for (int it = 0; it < 3000; it++) {
        double S[9], A[9];
        const double scale = pow(10.0, salto_test_uniform(&rng, -6.0, 3.0));
        for (int k = 0; k < 9; k++) A[k] = salto_test_uniform(&rng, -1.0, 1.0);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) S[3 * i + j] = scale * 0.5 * (A[3 * i + j] + A[3 * j + i]);
        }
        const int kind = it % 5;
        if (kind == 1) S[1] = S[2] = S[5] = S[3] = S[6] = S[7] = 0.0;          // diagonal
        if (kind == 2) S[4] = S[0], S[1] = S[3] = S[2] = S[6] = S[5] = S[7] = 0.0; // repeated
        if (kind == 3) S[1] = S[3] = 1e-13 * scale;                            // nearly
        double e[3], V[9];
        salto_sym3_eigen(S, e, V);
        ck_assert_msg(e[0] <= e[1] && e[1] <= e[2], "it %d: not ascending", it);
        double big = 0.0;
        for (int k = 0; k < 9; k++) big = fmax(big, fabs(S[k]));
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                double r = 0.0, o = 0.0;
                for (int k = 0; k < 3; k++) r += V[3 * i + k] * e[k] * V[3 * j + k], o += V[3 * k + i] * V[3 * k + j];
                ck_assert_msg(fabs(r - S[3 * i + j]) <= 1e-14 * big, "it %d: S[%d][%d] %.17g back as %.17g",
                              it, i, j, S[3 * i + j], r);
                ck_assert_msg(fabs(o - (i == j)) <= 1e-14, "it %d: V'V [%d][%d] = %.17g", it, i, j, o);
            }
        }
        const double det = V[0] * (V[4] * V[8] - V[5] * V[7]) - V[1] * (V[3] * V[8] - V[5] * V[6]) +
                           V[2] * (V[3] * V[7] - V[4] * V[6]);
        ck_assert_msg(fabs(det - 1.0) < 1e-14, "it %d: det V = %.17g", it, det);
    }
}
END_TEST


// the general LU (salto_lu, LAPACK dgetrf on the row-major matrix): A x = b solved to
// rounding for random non-symmetric matrices of 1 to 40 rows (the simulator's subspace step
// solves systems of that size), b recovered as A x; a singular matrix (a zero column) refused
START_TEST(lu_solves) {
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 91u);
    enum { N = 40 };
    static double A[N * N], LU[N * N];
    double x[N], b[N];
    int piv[N];
    for (int it = 0; it < 200; it++) {
        const int n = 1 + it % N;
        for (int k = 0; k < n * n; k++) A[k] = salto_test_uniform(&rng, -1.0, 1.0);
        for (int i = 0; i < n; i++) A[n * i + i] += (it % 3) ? 0.0 : n; // some well conditioned
        for (int i = 0; i < n; i++) b[i] = salto_test_uniform(&rng, -1.0, 1.0);
        memcpy(LU, A, sizeof(double) * (size_t)(n * n));
        memcpy(x, b, sizeof(double) * (size_t)n);
        ck_assert_msg(salto_lu(LU, n, piv), "seed 91, it %d (n %d): factorisation refused", it, n);
        salto_lu_solve(LU, n, piv, x);
        double big = 0.0, err = 0.0;
        for (int i = 0; i < n; i++) {
            double r = 0.0, a = 0.0;
            for (int j = 0; j < n; j++) r += A[n * i + j] * x[j], a += fabs(A[n * i + j] * x[j]);
            err = fmax(err, fabs(r - b[i]));
            big = fmax(big, a + fabs(b[i]));
        }
        ck_assert_msg(err <= 1e-12 * big, "seed 91, it %d (n %d): A x - b %.3g of %.3g", it, n, err, big);
    }
    for (int k = 0; k < 9; k++) A[k] = salto_test_uniform(&rng, -1.0, 1.0);
    A[1] = A[4] = A[7] = 0.0; // column 1 zero
    ck_assert_int_eq(salto_lu(A, 3, piv), 0);
}
END_TEST


// sizes read (salto --max-memory, SALTO_MAX_MEMORY) and written (the estimates' messages); the
// limit set, back to the default, and the check's message and note
START_TEST(sizes_read_and_written) {
    static const struct { const char* s; double v; } good[] = {
        {"4G", 4294967296.0}, {"512M", 536870912.0}, {"100k", 102400.0}, {"2.5GiB", 2684354560.0},
        {"8 GB", 8589934592.0}, {" 1e9", 1e9}, {"1e9B", 1e9}, {"12B", 12.0}, {"1P", 1125899906842624.0},
        {"8G ", 8589934592.0}, {"none", INFINITY}, {"Unlimited", INFINITY},
    };
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
        double v = 0.0;
        ck_assert_msg(salto_parse_size(good[k].s, &v) == 0 && v == good[k].v, "'%s': %g", good[k].s, v);
    }
    static const char* const bad[] = {"", "G", "-1G", "0", "0.5", "1e-300", "1e400", "nan", "inf",
                                      "0x1e", "0x1p30", "8X", "8Gx", "1e300T", "12 B B", NULL};
    for (int k = 0; bad[k]; k++) {
        double v = -1.0;
        ck_assert_msg(salto_parse_size(bad[k], &v) == -1 && v == -1.0, "'%s' read as %g", bad[k], v);
    }
    static const struct { double v; const char* s; } out[] = {
        {12.0, "12 B"}, {1023.0, "1023 B"}, {1023.9 * 1024.0, "1.0 MiB"}, {99.7 * 1048576.0, "100 MiB"},
        {1.94 * 1073741824.0, "1.9 GiB"}, {9.96 * 1073741824.0, "10 GiB"}, {INFINITY, "no limit"},
    };
    for (size_t k = 0; k < sizeof out / sizeof out[0]; k++) {
        char buf[32];
        salto_format_bytes(out[k].v, buf, sizeof buf);
        ck_assert_msg(strcmp(buf, out[k].s) == 0, "%g bytes: '%s', not '%s'", out[k].v, buf, out[k].s);
    }
    salto_set_memory_limit(1048576.0);
    ck_assert(salto_memory_limit() == 1048576.0);
    salto_error err = {0};
    ck_assert_int_eq(salto_budget_check(1048576.0, salto_loc_none(), "x", &err), SALTO_OK);
    ck_assert_int_eq(salto_budget_check(2e6, salto_loc_none(), "the thing", &err), SALTO_ERR_INVALID);
    ck_assert_str_eq(err.msg, "the thing needs about 1.9 MiB of memory (estimated before allocating "
                              "it), more than the limit of 1.0 MiB");
    ck_assert_msg(strstr(err.note, "the limit was set") != NULL, "%s", err.note);
    salto_set_memory_limit(0.0);
    ck_assert(salto_memory_limit() > 0.0 && salto_memory_limit() <= SALTO_MEMORY_LIMIT_DEFAULT);
}
END_TEST

Suite* base_suite(void) {
    Suite* s = suite_create("base");
    TCase* tc = tcase_create("errors");
    tcase_add_test(tc, format_with_location);
    tcase_add_test(tc, format_without_location);
    tcase_add_test(tc, format_with_note);
    tcase_add_test(tc, note_needs_an_error);
    tcase_add_test(tc, first_error_wins);
    tcase_add_test(tc, null_error_object);
    tcase_add_test(tc, error_outlives_file_name);
    tcase_add_test(tc, format_truncates);
    tcase_add_test(tc, json_short_numbers_and_read_file);
    tcase_add_test(tc, lu_solves);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_add_test(tc, alloc_hooks);
    tcase_add_test(tc, string_lists);
    tcase_add_test(tc, growing_arrays);
    tcase_add_test(tc, version_string);
    tcase_add_test(tc, sym3_eigen_decomposes);
    tcase_add_test(tc, sizes_read_and_written);
    suite_add_tcase(s, tc);
    return s;
}
