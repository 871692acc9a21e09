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

static double seconds[8];
static long calls[8];

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void report(void) {
    for (int k = 0; k < 8; k++) {
        if (calls[k]) {
            fprintf(stderr, "mumps job %d: %ld calls, %.4f s (%.1f us each)\n", k - 2, calls[k],
                    seconds[k], 1e6 * seconds[k] / (double)calls[k]);
        }
    }
}

// DMUMPS_STRUC_C starts with three MUMPS_INTs: sym, par, job
void dmumps_c(void* id) {
    static void (*real)(void*);
    if (!real) {
        *(void**)&real = dlsym(RTLD_NEXT, "dmumps_c");
        if (!real) abort();
        atexit(report);
    }
    const int job = ((const int*)id)[2];
    const double t0 = now();
    real(id);
    if (getenv("MUMPS_CALLS_TRACE") && (job == 2 || job == 3)) fputs(job == 2 ? "F\n" : "S\n", stderr);
    const int k = job + 2 >= 0 && job + 2 < 8 ? job + 2 : 7;
    seconds[k] += now() - t0;
    calls[k]++;
}
