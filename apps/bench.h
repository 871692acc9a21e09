// bench.h: what the salto bench files share: the timing of a call, the options every
// benchmark takes, the NLP evaluations two benchmarks time, and each benchmark's entry
//
// The files, one per benchmark (each begins with what it holds):
//   cmd_bench.c       the dispatcher and its help, the timing, the common options
//   bench_dynamics.c  salto bench dynamics: f0 and its Jacobian, RNEA, ABA
//   bench_nlp.c       salto bench nlp: one evaluation of a problem's NLP
//   bench_paper.c     salto bench paper: Fang & Pollard's Figures 7-10
//   bench_validate.c  salto bench validate: the validator
//   bench_sim.c       salto bench sim: the stepping simulator beside MuJoCo
//   bench_batch.c     salto bench batch (declared in cmds.h)
//   bench_zoo.c       salto bench zoo: a folder of problems solved and judged as users run them
//   bench_adaptive.c  salto bench adaptive: Redon et al.'s pendulum, ABA, DCA, adaptive, MuJoCo
//   bench_ragdoll.c   salto bench ragdoll: the particle ragdoll against the articulated one
#ifndef SALTO_APPS_BENCH_H
#define SALTO_APPS_BENCH_H

#include "salto/data.h"
#include "salto/model.h"
#include "salto/nlp.h"

// what is timed: one call on ctx
typedef void (*bench_fn)(void* ctx);

// a measurement: per call, ns; reps timed batches of runs calls each
typedef struct timing {
    double min_ns, median_ns;
    int reps, runs;
} timing;

// what salto bench nlp's evaluations read and write (and Figure 10 of salto bench paper's)
typedef struct nlp_ctx {
    salto_nlp* nlp;
    const salto_model* m;
    salto_data* d;
    double* x;
    double* g;
    double* jac;
    double* grad;
    double* lambda;
    double* hess;
    double* times;
    int ntimes;
} nlp_ctx;


// ---- defined in one file for the others (each documented at its definition) ----

// cmd_bench.c: the help of salto bench (every benchmark's usage, and dynamics' options)
void bench_help(void);
// cmd_bench.c: qsort's order of doubles, ascending
int bench_cmp_double(const void* a, const void* b);
// cmd_bench.c: a solve's cost cells, "-" where unknown: fpi, KKT factorisations an
// iteration; kms, ms a factorisation; mx, MUMPS's time on the same matrices over salto's ("*"
// where it counted another inertia); hj, a Hessian in Jacobians' worth (hess_jac < 0: unknown)
typedef struct {
    char fpi[16], kms[16], mx[16], hj[16];
} bench_cost_cells;
void bench_cost_format(bench_cost_cells* c, int fact, int iterations, double fact_s, double mumps_s,
                       int inertia_differs, double hess_jac);
// cmd_bench.c: --reps N's value (1 to 64), else -1 with a message
int bench_parse_reps(const char* s);
// cmd_bench.c: fn(c) timed: a warm-up, then reps batches of at least batch_s each
timing bench_measure(bench_fn fn, void* c, int reps, double batch_s);
// cmd_bench.c: the same on the thread's CPU clock (salto_cpu_now)
timing bench_measure_cpu(bench_fn fn, void* c, int reps, double batch_s);
// cmd_bench.c: --quick, --reps N or --root DIR at argv[*i]: 1 taken, 0 not one, -1 bad --reps
int bench_shared_opt(int argc, char** argv, int* i, int* quick, int* reps, const char** root);

// bench_nlp.c: the constraint Jacobian at c->x into c->jac (a bench_fn on an nlp_ctx)
void bench_run_nlp_jac(void* ctx);

// each benchmark, from its name on (argv[0]); the exit status as cmds.h's commands return it
int bench_dynamics(int argc, char** argv);
int bench_nlp(int argc, char** argv);
int bench_paper(int argc, char** argv);
int bench_validate(int argc, char** argv);
int bench_sim(int argc, char** argv);
int bench_zoo(int argc, char** argv);
int bench_adaptive(int argc, char** argv);
int bench_ragdoll(int argc, char** argv);

#endif
