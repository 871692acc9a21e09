// mumps_calls.c: counts and times IPOPT's calls into MUMPS (a measuring aid for
// docs/performance.md, not part of salto). IPOPT 3.11 does not time MUMPS's factorisations
// ("LinearSystemFactorization" stays at 0 in its timing statistics), so this library, preloaded,
// wraps dmumps_c and prints at exit how many analyses (job 1), factorisations (job 2) and
// solves (job 3) a run made and how long they took:
//
//   gcc -O2 -shared -fPIC -o /tmp/mumps_calls.so scripts/mumps_calls.c -ldl
//   LD_PRELOAD=/tmp/mumps_calls.so build/apps/salto solve problems/leap.yaml --set solver.refine=0
//
// With MUMPS_CALLS_TRACE set it also prints F (factorisation) and S (solve) as they happen, one
// per line, between salto's iteration lines on standard error.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

// jobs -2 .. 6 in slots 0 .. 8 (MUMPS's jobs: -2 end, -1 init, 1 analyse, 2 factorise, 3 solve,
// 4-6 their combinations); anything else in slot 9
enum { nslot = 10 };
static double seconds[nslot];
static long calls[nslot];
static int trace;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void report(void) {
    for (int k = 0; k < nslot; k++) {
        if (!calls[k]) continue;
        if (k < nslot - 1) {
            fprintf(stderr, "mumps job %d: ", k - 2);
        } else {
            fprintf(stderr, "mumps other jobs: ");
        }
        fprintf(stderr, "%ld calls, %.4f s (%.1f us each)\n", calls[k], seconds[k],
                1e6 * seconds[k] / (double)calls[k]);
    }
}

// DMUMPS_STRUC_C starts with three MUMPS_INTs: sym, par, job
void dmumps_c(void* id) {
    static void (*real)(void*);
    if (!real) {
        *(void**)&real = dlsym(RTLD_NEXT, "dmumps_c");
        if (!real) abort();
        trace = getenv("MUMPS_CALLS_TRACE") != NULL;
        atexit(report);
    }
    const int job = ((const int*)id)[2];
    const double t0 = now();
    real(id);
    if (trace && (job == 2 || job == 3)) fputs(job == 2 ? "F\n" : "S\n", stderr);
    const int k = job + 2 >= 0 && job + 2 < nslot - 1 ? job + 2 : nslot - 1;
    seconds[k] += now() - t0;
    calls[k]++;
}
