// bench_dynamics.c: salto bench dynamics: timing tables (Fang & Pollard 2003, Figure 5), and
// with --instructions the instructions of one RNEA and one ABA (what scripts/aba_native.sh
// compares between a -march=native build and a portable one); with --crba the joint-space
// inertia, both triangles and the lower one, on chains of 3 to 200 DOFs (issue 29)
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "bench.h"
#include "cmds.h"
#include "salto/aggregate.h"
#include "salto/character.h"
#include "salto/dynamics.h"
#include "salto/model.h"

typedef struct bench_ctx {
    const salto_model* m;
    salto_data* d;
    double* J;
    double* tau;
} bench_ctx;


static void run_linear(void* ctx) {
    bench_ctx* c = ctx;
    salto_f0_jac(c->m, c->d, SALTO_JAC_LINEAR, NULL, c->J, NULL);
}


static void run_direct(void* ctx) {
    bench_ctx* c = ctx;
    salto_f0_jac(c->m, c->d, SALTO_JAC_DIRECT, NULL, c->J, NULL);
}


static void run_central(void* ctx) {
    bench_ctx* c = ctx;
    salto_f0_jac(c->m, c->d, SALTO_JAC_FD_CENTRAL, NULL, c->J, NULL);
}


static void run_rnea(void* ctx) {
    bench_ctx* c = ctx;
    salto_rnea(c->m, c->d, c->tau);
}


static void run_aba(void* ctx) {
    bench_ctx* c = ctx;
    (void)salto_aba(c->m, c->d, NULL);
}


enum { NMETHOD = 5 };
static const char* const method_names[NMETHOD] = {"f0_jac_linear", "f0_jac_direct",
                                                  "f0_jac_central", "rnea", "aba"};
static const bench_fn method_fns[NMETHOD] = {run_linear, run_direct, run_central, run_rnea, run_aba};


typedef struct row {
    char name[64];
    int nv;
    timing t[NMETHOD];
} row;


static void run_nothing(void* ctx) {
    (void)ctx;
}


// the instructions the processor retires in one call of fn(c), user space only: a forked child
// calls it once untimed (lazy binding, first touches), then again between two SIGSTOPs, and the
// parent single-steps it between them under ptrace; the same with an empty call between the
// stops is subtracted. Exact and repeatable, whatever the instruction set (valgrind cannot run
// the AVX-512 instructions -march=native allows here); a rep-prefixed string instruction counts
// once per iteration, as valgrind counts it. -1 where ptrace is refused or not Linux.
static long steps_between_stops(bench_fn fn, void* c) {
#ifdef __linux__
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0) _exit(3);
        fn(c);
        raise(SIGSTOP);
        fn(c);
        raise(SIGSTOP);
        _exit(0);
    }
    int st = 0;
    long steps = 0;
    if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) steps = -1;
    while (steps >= 0) {
        if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) != 0 || waitpid(pid, &st, 0) != pid ||
            !WIFSTOPPED(st)) {
            steps = -1;
        } else if (WSTOPSIG(st) == SIGSTOP) {
            break;
        } else {
            steps++;
        }
    }
    kill(pid, SIGKILL);
    ptrace(PTRACE_CONT, pid, NULL, NULL);
    waitpid(pid, &st, 0);
    return steps;
#else
    (void)fn, (void)c;
    return -1;
#endif
}


static long count_instructions(bench_fn fn, void* c) {
    const long n = steps_between_stops(fn, c), n0 = steps_between_stops(run_nothing, c);
    return n < 0 || n0 < 0 ? -1 : n - n0;
}


// the model's state for every method: fixed, moderate, seeded pseudo-random
static void bench_state(const salto_model* m, salto_data* d) {
    unsigned s = 12345u;
    for (int i = 0; i < m->nv; i++) {
        s = s * 1103515245u + 12345u;
        d->q[i] = ((double)(s >> 8) / 16777216.0 - 0.5) * 1.6;
        d->qd[i] = ((double)((s * 7u) >> 8) / 16777216.0 - 0.5) * 2.0;
        d->qdd[i] = ((double)((s * 13u) >> 8) / 16777216.0 - 0.5) * 4.0;
        d->tau[i] = ((double)((s * 17u) >> 8) / 16777216.0 - 0.5) * 2.0;
    }
}


// --instructions: one row, the instructions of one RNEA and one ABA on m; 0 when they could not
// be counted
static int count_model(const salto_model* m, const char* name) {
    salto_data* d = salto_data_create(m);
    double* tau = malloc(sizeof(double) * (size_t)m->nv);
    long n_rnea = -1, n_aba = -1;
    if (d && tau) {
        bench_state(m, d);
        bench_ctx c = {m, d, NULL, tau};
        n_rnea = count_instructions(run_rnea, &c);
        n_aba = count_instructions(run_aba, &c);
    }
    salto_data_destroy(d);
    free(tau);
    if (n_rnea < 0 || n_aba < 0) return 0;
    printf("%-22s %4d %12ld %12ld %12.0f\n", name, m->nv, n_rnea, n_aba, (double)n_aba / m->nv);
    return 1;
}


static int bench_model(const salto_model* m, const char* name, int reps, double batch_s, int cpu,
                       row* r, FILE* csv) {
    salto_data* d = salto_data_create(m);
    double* J = malloc(sizeof(double) * (size_t)(18 * m->nv));
    double* tau = malloc(sizeof(double) * (size_t)m->nv);
    if (!d || !J || !tau) {
        salto_data_destroy(d);
        free(J);
        free(tau);
        return 0;
    }
    bench_state(m, d); // the same for every method
    bench_ctx c = {m, d, J, tau};
    snprintf(r->name, sizeof r->name, "%s", name);
    r->nv = m->nv;
    for (int k = 0; k < NMETHOD; k++) {
        r->t[k] = cpu ? bench_measure_cpu(method_fns[k], &c, reps, batch_s)
                      : bench_measure(method_fns[k], &c, reps, batch_s);
        if (csv) {
            fprintf(csv, "%s/%s,eval,%d,%d,%.1f,%.1f\n", method_names[k], name, r->t[k].reps,
                    r->t[k].runs, r->t[k].min_ns, r->t[k].median_ns);
        }
    }
    salto_data_destroy(d);
    free(J);
    free(tau);
    return 1;
}


static void print_row(const row* r) {
    const double* lin = &r->t[0].median_ns;
    printf("%-22s %4d %10.0f %10.0f %11.0f %8.0f %8.0f %9.1f %9.1f\n", r->name, r->nv, *lin,
           r->t[1].median_ns, r->t[2].median_ns, r->t[3].median_ns, r->t[4].median_ns,
           r->t[1].median_ns / *lin, r->t[2].median_ns / *lin);
}


// least squares y = a + b x
static void fit_line(const double* x, const double* y, int n, double* a, double* b) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
    const double den = n * sxx - sx * sx;
    *b = den != 0 ? (n * sxy - sx * sy) / den : 0;
    *a = (sy - *b * sx) / n;
}


// the models: serial chains (salto gen chain N) and the shipped characters
static const int chains_full[] = {3, 5, 8, 10, 15, 20, 25, 30, 40, 50};
static const int chains_quick[] = {3, 10, 50};
static const char* const chars[] = {"gymnast7", "luxo", "humanoid22"};


// chain N (0.3 m, 1 kg a link) or the shipped character name under root; NULL with a message
static salto_model* load_model(int chain, const char* name, const char* root) {
    salto_error err = {0};
    salto_model* m = NULL;
    if (chain > 0) {
        salto_character_desc* c = salto_character_chain(chain, 0.3, 1.0);
        m = c ? salto_model_build(c, NULL, &err) : NULL;
        salto_character_destroy(c);
    } else {
        char path[4200];
        snprintf(path, sizeof path, "%s/data/characters/%s.yaml", root, name);
        m = salto_model_load(path, &err);
    }
    if (!m) app_print_error(&err);
    return m;
}


// ---- salto bench dynamics --crba: the joint-space inertia on long chains (issue 29) ----

typedef struct crba_ctx {
    const salto_model* m;
    salto_data* d;
    double* M;
} crba_ctx;


static void run_crba(void* ctx) {
    crba_ctx* c = ctx;
    salto_crba(c->m, c->d, c->M);
}


static void run_crba_lower(void* ctx) {
    crba_ctx* c = ctx;
    salto_crba_lower(c->m, c->d, c->M);
}


static const int crba_chains[] = {3, 10, 20, 50, 100, 200};
static const int crba_chains_quick[] = {3, 50};


// one row: the full matrix and its lower triangle, in ns (median; thread CPU time with cpu) or,
// with instructions, in instructions per call; 0 when the model could not be measured
static int crba_row(const salto_model* m, const char* name, int reps, double batch_s, int cpu,
                    int instructions) {
    salto_data* d = salto_data_create(m);
    double* M = calloc((size_t)m->nv * (size_t)m->nv, sizeof(double));
    int ok = d && M;
    if (ok) {
        bench_state(m, d);
        crba_ctx c = {m, d, M};
        double full, lower;
        if (instructions) {
            full = (double)count_instructions(run_crba, &c);
            lower = (double)count_instructions(run_crba_lower, &c);
            ok = full >= 0 && lower >= 0;
        } else {
            full = (cpu ? bench_measure_cpu : bench_measure)(run_crba, &c, reps, batch_s).median_ns;
            lower = (cpu ? bench_measure_cpu : bench_measure)(run_crba_lower, &c, reps, batch_s)
                        .median_ns;
        }
        if (ok) {
            printf("%-22s %4d %12.0f %12.0f %9.2f %10.1f\n", name, m->nv, full, lower, lower / full,
                   full / ((double)m->nv * m->nv));
        }
    }
    salto_data_destroy(d);
    free(M);
    return ok;
}


// The chains (chains[0..nchain)) and then the shipped characters whose name contains filter,
// each loaded and handed to one(m, name, ctx); 2 if one does not load, 1 if a row fails, else 0
static int each_model(const int* chains, int nchain, const char* filter, const char* root,
                      int (*one)(const salto_model* m, const char* name, void* ctx), void* ctx) {
    const int nmodel = nchain + (int)(sizeof chars / sizeof chars[0]);
    int status = 0;
    for (int k = 0; k < nmodel; k++) {
        const int chain = k < nchain ? chains[k] : 0;
        char name[64];
        if (chain > 0) {
            snprintf(name, sizeof name, "chain%d", chain);
        } else {
            snprintf(name, sizeof name, "%s", chars[k - nchain]);
        }
        if (!strstr(name, filter)) continue;
        salto_model* m = load_model(chain, name, root);
        if (!m) {
            status = 2;
            continue;
        }
        if (!one(m, name, ctx)) status = 1;
        salto_model_destroy(m);
    }
    return status;
}


typedef struct crba_opts {
    int reps;
    double batch_s;
    int cpu, instructions;
} crba_opts;


static int crba_one(const salto_model* m, const char* name, void* ctx) {
    const crba_opts* c = ctx;
    if (crba_row(m, name, c->reps, c->batch_s, c->cpu, c->instructions)) return 1;
    fprintf(stderr, "salto bench dynamics: cannot measure CRBA on %s\n", name);
    return 0;
}


static int count_one(const salto_model* m, const char* name, void* ctx) {
    (void)ctx;
    if (count_model(m, name)) return 1;
    fprintf(stderr, "salto bench dynamics: cannot count instructions on %s (ptrace refused, or "
                    "not Linux)\n", name);
    return 0;
}


// salto bench dynamics --crba: CRBA (salto_crba, both triangles) and salto_crba_lower on the
// chains of 3 to 200 DOFs and the shipped characters (no CSV: --csv is the main table's)
static int bench_crba(int quick, const char* filter, const char* root, int reps, double batch_s,
                      int cpu, int instructions) {
    if (instructions) {
        printf("salto bench dynamics --crba: instructions per evaluation (one call\n"
               "single-stepped, less an empty call; user space)\n\n");
    } else {
        printf("salto bench dynamics --crba: median ns per evaluation "
               "(%d batches of >= %.1f ms%s)\n\n",
               reps, batch_s * 1e3, cpu ? ", thread CPU time" : "");
    }
    printf("%-22s %4s %12s %12s %9s %10s\n", "model", "D", "CRBA full", "CRBA lower", "low/full",
           "full/D^2");
    crba_opts c = {reps, batch_s, cpu, instructions};
    const int nchain = quick ? 2 : (int)(sizeof crba_chains / sizeof crba_chains[0]);
    return each_model(quick ? crba_chains_quick : crba_chains, nchain, filter, root, crba_one, &c);
}


// salto bench dynamics --instructions: the instructions table over the models
static int count_dynamics(int quick, const char* filter, const char* root) {
    printf("salto bench dynamics: instructions per evaluation (one call single-stepped, less an\n"
           "empty call; user space)\n\n");
    printf("%-22s %4s %12s %12s %12s\n", "model", "D", "RNEA", "ABA", "ABA/D");
    const int nchain = quick ? 3 : (int)(sizeof chains_full / sizeof chains_full[0]);
    return each_model(quick ? chains_quick : chains_full, nchain, filter, root, count_one, NULL);
}


int bench_dynamics(int argc, char** argv) {
    int quick = 0, reps = -1, cpu = 0, instructions = 0, crba = 0;
    const char* csv_path = NULL;
    const char* root = ".";
    const char* filter = "";
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            bench_help();
            return 0;
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            if ((reps = bench_parse_reps(argv[++i])) < 0) return 2;
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv_path = argv[++i];
        } else if (strcmp(argv[i], "--cpu") == 0) {
            cpu = 1;
        } else if (strcmp(argv[i], "--instructions") == 0) {
            instructions = 1;
        } else if (strcmp(argv[i], "--crba") == 0) {
            crba = 1;
        } else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) {
            filter = argv[++i];
        } else if (strcmp(argv[i], "--root") == 0 && i + 1 < argc) {
            root = argv[++i];
        } else {
            fprintf(stderr, "salto bench dynamics: unknown or incomplete option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (reps < 0) reps = quick ? 3 : 15;
    const double batch_s = quick ? 2e-4 : 5e-3;
    if (crba) return bench_crba(quick, filter, root, reps, batch_s, cpu, instructions);
    if (instructions) return count_dynamics(quick, filter, root);

    FILE* csv = NULL;
    char csv_tmp[4200];
    if (csv_path) {
        snprintf(csv_tmp, sizeof csv_tmp, "%s.tmp", csv_path);
        csv = fopen(csv_tmp, "w");
        if (!csv) {
            fprintf(stderr, "salto bench: cannot write '%s'\n", csv_tmp);
            return 2;
        }
        fprintf(csv, "name,unit,reps,runs_per_rep,min_ns,median_ns\n");
    }

    const int* chains = quick ? chains_quick : chains_full;
    const int nchain = quick ? 3 : (int)(sizeof chains_full / sizeof chains_full[0]);

    printf("salto bench dynamics: median ns per evaluation (%d batches of >= %.1f ms%s)\n", reps,
           batch_s * 1e3, cpu ? ", thread CPU time" : "");
    printf("f0+J: f0 and its full 6 x 3D Jacobian in (q, qd, qdd)\n\n");
    printf("%-22s %4s %10s %10s %11s %8s %8s %9s %9s\n", "model", "D", "f0+J lin", "f0+J dir",
           "f0+J cdiff", "RNEA", "ABA", "dir/lin", "cdiff/lin");

    row rows[16];
    int status = 0;
    double xs[16], ylin[16], ydir[16];
    int ndone = 0;
    for (int k = 0; k < nchain; k++) {
        char name[64];
        snprintf(name, sizeof name, "chain%d", chains[k]);
        if (!strstr(name, filter)) continue;
        salto_model* m = load_model(chains[k], name, root);
        if (!m) {
            status = 1;
            continue;
        }
        if (bench_model(m, name, reps, batch_s, cpu, &rows[ndone], csv)) print_row(&rows[ndone]);
        xs[ndone] = m->nv;
        ylin[ndone] = rows[ndone].t[0].median_ns;
        ydir[ndone] = rows[ndone].t[1].median_ns;
        ndone++;
        salto_model_destroy(m);
    }
    for (size_t k = 0; k < sizeof chars / sizeof chars[0]; k++) {
        if (!strstr(chars[k], filter)) continue;
        salto_model* m = load_model(0, chars[k], root);
        if (!m) {
            status = 2;
            continue;
        }
        row r;
        if (bench_model(m, chars[k], reps, batch_s, cpu, &r, csv)) print_row(&r);
        salto_model_destroy(m);
    }

    // growth over the chains: slope per DOF, and the exponent of a log-log fit for D >= 10
    if (ndone >= 2) {
        double a, b, lx[16], ll[16], ld[16];
        int nl = 0;
        for (int k = 0; k < ndone; k++) {
            if (xs[k] < 10) continue;
            lx[nl] = log(xs[k]), ll[nl] = log(ylin[k]), ld[nl] = log(ydir[k]);
            nl++;
        }
        printf("\ngrowth over the chains:\n");
        fit_line(xs, ylin, ndone, &a, &b);
        printf("  linear method: %.1f ns per DOF (+ %.0f ns)", b, a);
        if (nl >= 2) {
            fit_line(lx, ll, nl, &a, &b);
            printf(", log-log exponent %.2f", b);
        }
        fit_line(xs, ydir, ndone, &a, &b);
        printf("\n  direct method: %.1f ns per DOF (+ %.0f ns)", b, a);
        if (nl >= 2) {
            fit_line(lx, ld, nl, &a, &b);
            printf(", log-log exponent %.2f", b);
        }
        printf("\n");
        for (int k = 0; k < ndone; k++) {
            if (rows[k].t[0].median_ns < rows[k].t[1].median_ns) {
                printf("  linear faster than direct from %d DOF on in this run\n", rows[k].nv);
                break;
            }
        }
    }

    if (csv) {
        const int bad = fclose(csv) != 0;
        if (bad || rename(csv_tmp, csv_path) != 0) {
            fprintf(stderr, "salto bench: cannot write '%s'\n", csv_path);
            remove(csv_tmp);
            return 2;
        }
    }
    return status;
}
