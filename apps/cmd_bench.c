// cmd_bench.c: salto bench: the dispatcher and its help, and what the benchmarks (bench_*.c)
// share: the timing of a call and the common options
//
// Timings use CLOCK_MONOTONIC: one untimed warm-up, then --reps batches of at least a few
// milliseconds each; the table shows the median time per evaluation, the CSV both the
// minimum and the median. Compare methods as ratios within one run: the machines are shared.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cmds.h"

void bench_help(void) {
    printf("usage: salto bench dynamics [--quick] [--reps N] [--filter TEXT] [--csv FILE] [--root DIR]\n"
           "                            [--cpu] [--instructions] [--crba]\n\n"
           "Times, per evaluation, on serial chains of 3 to 50 links and on the shipped\n"
           "characters: f0 plus its full 6 x 3D Jacobian by the linear-time method, by direct\n"
           "O(D^2) differentiation and by central differences; inverse dynamics (RNEA); forward\n"
           "dynamics (ABA). Prints a table of median nanoseconds and ratios, and fitted growth\n"
           "per DOF (slope and log-log exponent over the chains).\n\n"
           "  --quick     fewer chains, fewer and shorter batches (a smoke test)\n"
           "  --reps N    timed batches per measurement (default 15; --quick: 3)\n"
           "  --filter TEXT  only the models whose name contains TEXT\n"
           "  --csv FILE  also write name,unit,reps,runs_per_rep,min_ns,median_ns\n"
           "  --root DIR  repository root holding data/characters (default: .)\n"
           "  --cpu       time on the thread's CPU clock instead of the wall clock\n"
           "  --instructions  instead of timing, count the instructions of one RNEA and one ABA\n"
           "              (single-stepped under ptrace, Linux; any instruction set, AVX-512\n"
           "              included; scripts/aba_native.sh compares two builds with it)\n"
           "  --crba      the mass matrix alone, full and lower triangle (salto_crba_lower), on\n"
           "              chains of 3 to 200 links and the characters (with --cpu or\n"
           "              --instructions as above)\n\n"
           "usage: salto bench nlp [PROBLEM.yaml] [--quick] [--reps N]\n"
           "usage: salto bench paper [--quick] [--reps N] [--only NAMES] [--hessian WHICH]\n"
           "                         [--max-time S] [--no-fig10] [--no-shipped] [--root DIR]\n"
           "usage: salto bench validate [NAME]... [--quick] [--reps N] [--root DIR]\n"
           "usage: salto bench sim [--quick] [--reps N] [--root DIR]\n"
           "usage: salto bench batch [--quick] [--reps N] [--workers N] [--root DIR]\n"
           "usage: salto bench zoo [DIR] [--timeout S] [-o OUT]\n"
           "usage: salto bench adaptive [--quick] [--reps N] [--links N]\n"
           "usage: salto bench ragdoll [--quick] [--crowd N]\n"
           "(see 'salto bench nlp --help', 'salto bench paper --help', 'salto bench validate --help',\n"
           "'salto bench sim --help', 'salto bench batch --help', 'salto bench zoo --help',\n"
           "'salto bench adaptive --help', 'salto bench ragdoll --help')\n");
}


int bench_cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}


void bench_cost_format(bench_cost_cells* c, int fact, int iterations, double fact_s, double mumps_s,
                       int inertia_differs, double hess_jac) {
    strcpy(c->fpi, "-"), strcpy(c->kms, "-"), strcpy(c->mx, "-"), strcpy(c->hj, "-");
    if (fact > 0 && iterations > 0) {
        snprintf(c->fpi, sizeof c->fpi, "%.2f", (double)fact / iterations);
        snprintf(c->kms, sizeof c->kms, "%.3f", 1e3 * fact_s / fact);
    }
    if (mumps_s > 0.0 && fact_s > 0.0) {
        snprintf(c->mx, sizeof c->mx, "%.1f%s", mumps_s / fact_s, inertia_differs ? "*" : "");
    }
    if (hess_jac >= 0.0) snprintf(c->hj, sizeof c->hj, "%.1f", hess_jac);
}


// --reps N: an integer from 1 to 64, else -1 with a message
int bench_parse_reps(const char* s) {
    int v;
    return app_parse_int("bench", "--reps", s, 1, 64, &v) ? -1 : v;
}


// warm-up, size the batch to last at least batch_s, then time reps batches on the clock now
static timing measure(bench_fn fn, void* c, int reps, double batch_s, double (*now)(void)) {
    timing t = {0, 0, reps, 1};
    fn(c);
    int runs = 1;
    for (;;) {
        const double t0 = now();
        for (int k = 0; k < runs; k++) fn(c);
        const double dt = now() - t0;
        if (dt >= batch_s || runs >= (1 << 26)) break;
        runs = dt > 0 ? (int)fmin((double)(1 << 26), runs * fmax(2.0, 1.2 * batch_s / dt)) : runs * 10;
    }
    double samples[64];
    if (reps > 64) reps = 64;
    for (int r = 0; r < reps; r++) {
        const double t0 = now();
        for (int k = 0; k < runs; k++) fn(c);
        samples[r] = (now() - t0) / runs * 1e9;
    }
    qsort(samples, (size_t)reps, sizeof(double), bench_cmp_double);
    t.min_ns = samples[0];
    t.median_ns = reps % 2 ? samples[reps / 2] : 0.5 * (samples[reps / 2 - 1] + samples[reps / 2]);
    t.reps = reps;
    t.runs = runs;
    return t;
}


timing bench_measure(bench_fn fn, void* c, int reps, double batch_s) {
    return measure(fn, c, reps, batch_s, salto_now);
}


timing bench_measure_cpu(bench_fn fn, void* c, int reps, double batch_s) {
    return measure(fn, c, reps, batch_s, salto_cpu_now);
}


// the options every benchmark of problems shares (--quick, --reps N, --root DIR) at argv[*i]:
// 1 when taken (*i moved past its value), 0 when not one of them, -1 for a bad --reps
int bench_shared_opt(int argc, char** argv, int* i, int* quick, int* reps, const char** root) {
    if (strcmp(argv[*i], "--quick") == 0) {
        *quick = 1;
        return 1;
    }
    if (strcmp(argv[*i], "--reps") == 0 && *i + 1 < argc) {
        *reps = bench_parse_reps(argv[++*i]);
        return *reps < 0 ? -1 : 1;
    }
    if (strcmp(argv[*i], "--root") == 0 && *i + 1 < argc) {
        *root = argv[++*i];
        return 1;
    }
    return 0;
}


int cmd_bench(int argc, char** argv) {
    if (argc < 2 || app_is_help(argv[1])) {
        if (argc < 2) {
            fprintf(stderr, "usage: salto bench dynamics|nlp|paper|validate|sim|batch|zoo|adaptive|ragdoll [options] (see 'salto bench --help')\n");
            return 2;
        }
        bench_help();
        return 0;
    }
    if (strcmp(argv[1], "dynamics") == 0) return bench_dynamics(argc - 1, argv + 1);
    if (strcmp(argv[1], "nlp") == 0) return bench_nlp(argc - 1, argv + 1);
    if (strcmp(argv[1], "paper") == 0) return bench_paper(argc - 1, argv + 1);
    if (strcmp(argv[1], "validate") == 0) return bench_validate(argc - 1, argv + 1);
    if (strcmp(argv[1], "sim") == 0) return bench_sim(argc - 1, argv + 1);
    if (strcmp(argv[1], "batch") == 0) return bench_batch(argc - 1, argv + 1);
    if (strcmp(argv[1], "zoo") == 0) return bench_zoo(argc - 1, argv + 1);
    if (strcmp(argv[1], "adaptive") == 0) return bench_adaptive(argc - 1, argv + 1);
    if (strcmp(argv[1], "ragdoll") == 0) return bench_ragdoll(argc - 1, argv + 1);
    fprintf(stderr, "salto bench: unknown benchmark '%s' (available: dynamics, nlp, paper, validate, sim, batch, zoo, adaptive, ragdoll)\n",
            argv[1]);
    return 2;
}
