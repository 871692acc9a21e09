// test_util.c: fixtures, random states and vector assertions for the suites
#include "test_util.h"

#include "salto/solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "salto/character.h"

const char* const salto_test_characters[] = {
    "data/characters/gymnast7.yaml",
    "data/characters/humanoid22.yaml",
    "data/characters/luxo.yaml",
    NULL,
};


const char* salto_test_root(void) {
    const char* r = getenv("SALTO_ROOT");
    return r && r[0] ? r : ".";
}


const char* salto_test_path(const char* rel) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", salto_test_root(), rel);
    return buf;
}


void salto_test_rng_seed(salto_test_rng* r, uint64_t seed) {
    r->s = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
}


double salto_test_uniform(salto_test_rng* r, double lo, double hi) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return lo + (hi - lo) * ((double)(z >> 11) * 0x1.0p-53);
}


static salto_model* build_or_abort(salto_character_desc* c, const char* what) {
    if (!c) ck_abort_msg("could not make the character %s", what);
    salto_error err = {0};
    salto_model* m = salto_model_build(c, NULL, &err);
    salto_character_destroy(c);
    if (!m) {
        char msg[1024];
        salto_error_format(&err, msg, sizeof msg);
        ck_abort_msg("could not build %s: %s", what, msg);
    }
    return m;
}


salto_model* salto_test_model_random(int nbody, int root_type, unsigned seed) {
    char what[64];
    snprintf(what, sizeof what, "random tree (n %d, root %d, seed %u)", nbody, root_type, seed);
    return build_or_abort(salto_character_random_tree(nbody, (salto_root_type)root_type, seed),
                          what);
}


salto_model* salto_test_model_chain(int n) {
    return build_or_abort(salto_character_chain(n, 0.3, 1.0), "chain");
}


salto_model* salto_test_model_chain_axes(int n, const char* axes) {
    return build_or_abort(salto_character_chain_axes(n, 0.3, 1.0, axes), "chain");
}


salto_model* salto_test_model_file(const char* rel) {
    salto_error err = {0};
    salto_model* m = salto_model_load(salto_test_path(rel), &err);
    if (!m) {
        char msg[1024];
        salto_error_format(&err, msg, sizeof msg);
        ck_abort_msg("could not load %s: %s", rel, msg);
    }
    return m;
}


salto_model* salto_test_model_pick(int k, unsigned seed) {
    switch (k) {
    case 0: return salto_test_model_random(9, SALTO_ROOT_FREE, seed);
    case 1: return salto_test_model_random(7, SALTO_ROOT_PLANAR, seed);
    case 2: return salto_test_model_random(8, SALTO_ROOT_FIXED, seed);
    case 3: return salto_test_model_random(14, SALTO_ROOT_FREE, seed + 1000);
    case 4: return salto_test_model_chain(6);
    default: return salto_test_model_file(salto_test_characters[k - 5]);
    }
}


void salto_test_setup(int i, unsigned state_seed, int maxv, salto_model** m, salto_data** d) {
    *m = salto_test_model_pick(i % SALTO_TEST_NMODEL, (unsigned)i);
    *d = salto_data_create(*m);
    ck_assert_ptr_nonnull(*d);
    ck_assert_int_le((*m)->nv, maxv);
    salto_test_random_state(*m, *d, state_seed, 1.2);
}


void salto_test_teardown(salto_model** m, salto_data** d) {
    salto_data_destroy(*d);
    salto_model_destroy(*m);
    *d = NULL;
    *m = NULL;
}


void salto_test_random_state(const salto_model* m, salto_data* d, unsigned seed, double qmax) {
    salto_test_rng r;
    salto_test_rng_seed(&r, seed);
    for (int i = 0; i < m->nv; i++) {
        d->q[i] = salto_test_uniform(&r, -qmax, qmax);
        d->qd[i] = salto_test_uniform(&r, -2, 2);
        d->qdd[i] = salto_test_uniform(&r, -2, 2);
        d->tau[i] = salto_test_uniform(&r, -2, 2);
    }
}


void salto_test_vec_close(const double* a, const double* b, int n, double atol, double rtol,
                          const char* ctx, const char* file, int line) {
    for (int i = 0; i < n; i++) {
        const double tol = atol + rtol * fmax(fabs(a[i]), fabs(b[i]));
        if (!(fabs(a[i] - b[i]) <= tol)) {
            ck_abort_msg("%s:%d: %s: entry %d differs: %.17g vs %.17g (|diff| %.3g > tol %.3g)",
                         file, line, ctx, i, a[i], b[i], fabs(a[i] - b[i]), tol);
        }
    }
}


double salto_test_maxabs(const double* a, int n) {
    double mx = 0.0;
    for (int i = 0; i < n; i++) mx = fmax(mx, fabs(a[i]));
    return mx;
}


void* salto_test_counting_malloc(size_t n, void* user) {
    salto_test_counter* c = user;
    if (++c->calls == c->fail_at) return NULL;
    void* p = malloc(n);
    if (p) c->live++;
    return p;
}


void salto_test_counting_free(void* p, void* user) {
    salto_test_counter* c = user;
    c->live--;
    free(p);
}


void salto_test_check_bad(const salto_bad_case* bc, const char* path, int loaded,
                          const salto_error* err) {
    char msg[1024];
    salto_error_format(err, msg, sizeof msg);
    ck_assert_msg(!loaded, "%s loaded", bc->file);
    ck_assert_msg(err->status == bc->status, "%s: status %d, expected %d: %s", bc->file,
                  err->status, bc->status, msg);
    char where[4200];
    snprintf(where, sizeof where, "%s:%d:%d: error: ", path, bc->line, bc->col);
    ck_assert_msg(strncmp(msg, where, strlen(where)) == 0, "%s: expected '%s...', got: %s",
                  bc->file, where, msg);
    ck_assert_msg(strstr(err->msg, bc->msg), "%s: '%s' not in: %s", bc->file, bc->msg, msg);
    if (bc->note) {
        ck_assert_str_eq(err->note, bc->note);
    } else {
        ck_assert_msg(err->note[0] == '\0', "%s: unexpected note: %s", bc->file, err->note);
    }
}


salto_status salto_test_write_json(const salto_nlp* nlp, const double* x,
                                   const salto_solve_result* res, const char* path,
                                   salto_error* err) {
    salto_motion* mo = salto_motion_from_nlp(nlp, x);
    if (!mo) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    const salto_status s = salto_motion_write_json(nlp, mo, res, path, err);
    salto_motion_destroy(mo);
    return s;
}


long salto_test_nomem_sweep(const char* path, void* (*load)(const char* path, salto_error* err),
                            void (*destroy)(void* obj)) {
    int succeeded = 0;
    long n = 1;
    for (; n < 100000 && !succeeded; n++) {
        salto_test_counter cnt = {0, 0, n};
        salto_alloc_hooks h = {salto_test_counting_malloc, salto_test_counting_free, &cnt};
        salto_set_alloc_hooks(&h);
        salto_error err = {0};
        void* obj = load(path, &err);
        if (obj) {
            ck_assert_msg(cnt.calls < n, "%s: allocation %ld failed, but loading succeeded", path,
                          n);
            succeeded = 1;
            destroy(obj);
        } else {
            ck_assert_msg(err.status == SALTO_ERR_NOMEM, "%s, allocation %ld: status %d: %s", path,
                          n, err.status, err.msg);
        }
        salto_set_alloc_hooks(NULL);
        ck_assert_msg(cnt.live == 0, "%s, allocation %ld: %ld blocks leaked", path, n, cnt.live);
    }
    ck_assert_msg(succeeded, "%s never loaded", path);
    return n - 1;
}


void salto_test_character_with(const char* name, const char* tail, const char* tag, char* path,
                               size_t n) {
    char src[600];
    snprintf(src, sizeof src, "data/characters/%s.yaml", name);
    FILE* in = fopen(salto_test_path(src), "rb");
    ck_assert_ptr_nonnull(in);
    snprintf(path, n, "/tmp/salto_test_%s_%d_%s.yaml", tag, (int)getpid(), name);
    FILE* out = fopen(path, "wb");
    ck_assert_ptr_nonnull(out);
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0) ck_assert_uint_eq(fwrite(buf, 1, got, out), got);
    fclose(in);
    fputs(tail, out);
    ck_assert_int_eq(fclose(out), 0);
}
