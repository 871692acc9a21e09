// test_util.h: fixtures (models from data/ and generated trees), random states, assertions
#ifndef SALTO_TEST_UTIL_H
#define SALTO_TEST_UTIL_H

#include <check.h>
#include <stdint.h>

#include "salto/data.h"
#include "salto/model.h"

// repository root, from the SALTO_ROOT environment variable (set by CTest), or "."
const char* salto_test_root(void);

// "<root>/<rel>" in a static buffer (overwritten by the next call)
const char* salto_test_path(const char* rel);

// A character file in /tmp: data/characters/NAME.yaml with tail appended (a torque_limits map,
// say), written to path (n bytes, named after tag and the process); aborts the test on failure
void salto_test_character_with(const char* name, const char* tail, const char* tag, char* path,
                               size_t n);

// deterministic generator (splitmix64); every test prints its seed on failure
typedef struct salto_test_rng {
    uint64_t s;
} salto_test_rng;

void salto_test_rng_seed(salto_test_rng* r, uint64_t seed);
double salto_test_uniform(salto_test_rng* r, double lo, double hi);

// fixture models; each aborts the test (ck_abort) if it cannot be built
salto_model* salto_test_model_random(int nbody, int root_type, unsigned seed);
salto_model* salto_test_model_chain(int n);
// a chain of n links (0.3 m, 1 kg) whose axes follow the pattern ("y": a planar pendulum)
salto_model* salto_test_model_chain_axes(int n, const char* axes);
salto_model* salto_test_model_file(const char* rel); // path relative to the root

// the models the consistency and derivative tests sweep: random trees with branches of each
// root type (free, planar, fixed, and a larger free one), a serial chain, and the shipped
// characters; k in [0, SALTO_TEST_NMODEL), seed varies the random trees
enum { SALTO_TEST_NMODEL = 8 };
salto_model* salto_test_model_pick(int k, unsigned seed);

// model i % SALTO_TEST_NMODEL of the sweep (random trees seeded with i) and data in the
// random state state_seed with angles up to qmax; aborts the test if nv > maxv
void salto_test_setup(int i, unsigned state_seed, int maxv, salto_model** m, salto_data** d);
void salto_test_teardown(salto_model** m, salto_data** d); // destroys both, sets them NULL

// fills q, qd, qdd, tau with uniform values: q in [-qmax, qmax], the others in [-2, 2]
void salto_test_random_state(const salto_model* m, salto_data* d, unsigned seed, double qmax);

// the shipped characters (relative paths), NULL-terminated
extern const char* const salto_test_characters[];

// |a - b| <= atol + rtol max(|a|, |b|) for each of n entries; on failure report the index,
// both values and the context string
#define ck_assert_vec_close(a, b, n, atol, rtol, ctx) \
    salto_test_vec_close((a), (b), (n), (atol), (rtol), (ctx), __FILE__, __LINE__)
void salto_test_vec_close(const double* a, const double* b, int n, double atol, double rtol,
                          const char* ctx, const char* file, int line);

// allocation hooks for tests (install with salto_set_alloc_hooks, user = the counter): count
// the calls and the blocks alive, and make call number fail_at fail (0: none)
typedef struct salto_test_counter {
    long calls;
    long live;
    long fail_at;
} salto_test_counter;

void* salto_test_counting_malloc(size_t n, void* user);
void salto_test_counting_free(void* p, void* user);

// a broken input file and the error it must give: status, file:line:col (the path as given)
// and a substring of the message, and the whole note (NULL: none)
typedef struct salto_bad_case {
    const char* file;
    salto_status status;
    int line, col;
    const char* msg;
    const char* note;
} salto_bad_case;

// checks that loading path failed (loaded is 0) with the error bc describes
void salto_test_check_bad(const salto_bad_case* bc, const char* path, int loaded,
                          const salto_error* err);

// largest absolute entry
double salto_test_maxabs(const double* a, int n);

// Makes allocation n of load(path) fail for n = 1, 2, ... until loading succeeds: every
// failure must be a clean SALTO_ERR_NOMEM with nothing leaked (destroy releases a success).
// Returns the number of failure points exercised.
long salto_test_nomem_sweep(const char* path, void* (*load)(const char* path, salto_error* err),
                            void (*destroy)(void* obj));

// motion.json of the NLP's x at path (salto_motion_from_nlp, then salto_motion_write_json)
struct salto_nlp;
struct salto_solve_result;
salto_status salto_test_write_json(const struct salto_nlp* nlp, const double* x,
                                   const struct salto_solve_result* res, const char* path,
                                   salto_error* err);

#endif
