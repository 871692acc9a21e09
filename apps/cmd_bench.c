// cmd_bench.c: salto bench dynamics: timing tables (Fang & Pollard 2003, Figure 5)
//
// Timings use CLOCK_MONOTONIC: one untimed warm-up, then --reps batches of at least a few
// milliseconds each; the table shows the median time per evaluation, the CSV both the
// minimum and the median. Compare methods as ratios within one run: the machines are shared.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#include "cmds.h"
#include "salto/aggregate.h"
#include "salto/character.h"
#include "salto/dynamics.h"
#include "salto/export.h"
#include "salto/kinematics.h"
#include "salto/model.h"
#include "salto/nlp.h"
#include "salto/motion.h"
#include "salto/problem.h"
#include "salto/sim.h"
#include "salto/solver.h"
#include "salto/validate.h"

static void help(void) {
    printf("usage: salto bench dynamics [--quick] [--reps N] [--filter TEXT] [--csv FILE] [--root DIR]\n\n"
           "Times, per evaluation, on serial chains of 3 to 50 links and on the shipped\n"
           "characters: f0 plus its full 6 x 3D Jacobian by the linear-time method, by direct\n"
           "O(D^2) differentiation and by central differences; inverse dynamics (RNEA); forward\n"
           "dynamics (ABA). Prints a table of median nanoseconds and ratios, and fitted growth\n"
           "per DOF (slope and log-log exponent over the chains).\n\n"
           "  --quick     fewer chains, fewer and shorter batches (a smoke test)\n"
           "  --reps N    timed batches per measurement (default 15; --quick: 3)\n"
           "  --filter TEXT  only the models whose name contains TEXT\n"
           "  --csv FILE  also write name,unit,reps,runs_per_rep,min_ns,median_ns\n"
           "  --root DIR  repository root holding data/characters (default: .)\n\n"
           "usage: salto bench nlp [PROBLEM.yaml] [--quick] [--reps N]\n"
           "usage: salto bench paper [--quick] [--reps N] [--only NAMES] [--hessian WHICH]\n"
           "                         [--max-time S] [--no-fig10] [--no-shipped] [--root DIR]\n"
           "usage: salto bench validate [NAME]... [--quick] [--reps N] [--root DIR]\n"
           "usage: salto bench sim [--quick] [--reps N] [--root DIR]\n"
           "usage: salto bench batch [--quick] [--reps N] [--workers N] [--root DIR]\n"
           "(see 'salto bench nlp --help', 'salto bench paper --help', 'salto bench validate --help',\n"
           "'salto bench sim --help', 'salto bench batch --help')\n");
}


typedef struct bench_ctx {
    const salto_model* m;
    salto_data* d;
    double* J;
    double* tau;
} bench_ctx;

typedef void (*bench_fn)(void* ctx);

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


typedef struct timing {
    double min_ns, median_ns;
    int reps, runs;
} timing;


static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}


// --reps N: an integer from 1 to 64, else -1 with a message
static int parse_reps(const char* s) {
    int v;
    return app_parse_int("bench", "--reps", s, 1, 64, &v) ? -1 : v;
}


// warm-up, size the batch to last at least batch_s, then time reps batches
static timing measure(bench_fn fn, void* c, int reps, double batch_s) {
    timing t = {0, 0, reps, 1};
    fn(c);
    int runs = 1;
    for (;;) {
        const double t0 = salto_now();
        for (int k = 0; k < runs; k++) fn(c);
        const double dt = salto_now() - t0;
        if (dt >= batch_s || runs >= (1 << 26)) break;
        runs = dt > 0 ? (int)fmin((double)(1 << 26), runs * fmax(2.0, 1.2 * batch_s / dt)) : runs * 10;
    }
    double samples[64];
    if (reps > 64) reps = 64;
    for (int r = 0; r < reps; r++) {
        const double t0 = salto_now();
        for (int k = 0; k < runs; k++) fn(c);
        samples[r] = (salto_now() - t0) / runs * 1e9;
    }
    qsort(samples, (size_t)reps, sizeof(double), cmp_double);
    t.min_ns = samples[0];
    t.median_ns = reps % 2 ? samples[reps / 2] : 0.5 * (samples[reps / 2 - 1] + samples[reps / 2]);
    t.reps = reps;
    t.runs = runs;
    return t;
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


static int bench_model(const salto_model* m, const char* name, int reps, double batch_s, row* r,
                       FILE* csv) {
    salto_data* d = salto_data_create(m);
    double* J = malloc(sizeof(double) * (size_t)(18 * m->nv));
    double* tau = malloc(sizeof(double) * (size_t)m->nv);
    if (!d || !J || !tau) {
        salto_data_destroy(d);
        free(J);
        free(tau);
        return 0;
    }
    // a fixed, moderate state (seeded pseudo-random), the same for every method
    unsigned s = 12345u;
    for (int i = 0; i < m->nv; i++) {
        s = s * 1103515245u + 12345u;
        d->q[i] = ((double)(s >> 8) / 16777216.0 - 0.5) * 1.6;
        d->qd[i] = ((double)((s * 7u) >> 8) / 16777216.0 - 0.5) * 2.0;
        d->qdd[i] = ((double)((s * 13u) >> 8) / 16777216.0 - 0.5) * 4.0;
        d->tau[i] = ((double)((s * 17u) >> 8) / 16777216.0 - 0.5) * 2.0;
    }
    bench_ctx c = {m, d, J, tau};
    snprintf(r->name, sizeof r->name, "%s", name);
    r->nv = m->nv;
    for (int k = 0; k < NMETHOD; k++) {
        r->t[k] = measure(method_fns[k], &c, reps, batch_s);
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


static int bench_dynamics(int argc, char** argv) {
    int quick = 0, reps = -1;
    const char* csv_path = NULL;
    const char* root = ".";
    const char* filter = "";
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            help();
            return 0;
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            if ((reps = parse_reps(argv[++i])) < 0) return 2;
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv_path = argv[++i];
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

    static const int chains_full[] = {3, 5, 8, 10, 15, 20, 25, 30, 40, 50};
    static const int chains_quick[] = {3, 10, 50};
    const int* chains = quick ? chains_quick : chains_full;
    const int nchain = quick ? 3 : (int)(sizeof chains_full / sizeof chains_full[0]);
    static const char* const chars[] = {"gymnast7", "luxo", "humanoid22"};

    printf("salto bench dynamics: median ns per evaluation (%d batches of >= %.1f ms)\n", reps,
           batch_s * 1e3);
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
        salto_character_desc* c = salto_character_chain(chains[k], 0.3, 1.0);
        salto_error err = {0};
        salto_model* m = c ? salto_model_build(c, NULL, &err) : NULL;
        salto_character_destroy(c);
        if (!m) {
            app_print_error(&err);
            status = 1;
            continue;
        }
        if (bench_model(m, name, reps, batch_s, &rows[ndone], csv)) print_row(&rows[ndone]);
        xs[ndone] = m->nv;
        ylin[ndone] = rows[ndone].t[0].median_ns;
        ydir[ndone] = rows[ndone].t[1].median_ns;
        ndone++;
        salto_model_destroy(m);
    }
    for (size_t k = 0; k < sizeof chars / sizeof chars[0]; k++) {
        if (!strstr(chars[k], filter)) continue;
        char path[4200];
        snprintf(path, sizeof path, "%s/data/characters/%s.yaml", root, chars[k]);
        salto_error err = {0};
        salto_model* m = salto_model_load(path, &err);
        if (!m) {
            app_print_error(&err);
            status = 2;
            continue;
        }
        row r;
        if (bench_model(m, chars[k], reps, batch_s, &r, csv)) print_row(&r);
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


// ---- salto bench nlp ----

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

static void run_nlp_cons(void* ctx) {
    nlp_ctx* c = ctx;
    salto_nlp_eval_g(c->nlp, c->x, c->g);
    salto_nlp_eval_jac(c->nlp, c->x, c->jac);
}

static void run_nlp_grad(void* ctx) {
    nlp_ctx* c = ctx;
    salto_nlp_eval_grad(c->nlp, c->x, c->grad);
}

static void run_nlp_hess(void* ctx) {
    nlp_ctx* c = ctx;
    salto_nlp_eval_hess(c->nlp, c->x, 1.0, c->lambda, c->hess);
}

static void run_nlp_g(void* ctx) {
    nlp_ctx* c = ctx;
    salto_nlp_eval_g(c->nlp, c->x, c->g);
}

static void run_nlp_jac(void* ctx) {
    nlp_ctx* c = ctx;
    salto_nlp_eval_jac(c->nlp, c->x, c->jac);
}

// the parts, as the two calls do them: each evaluates the B-spline states and the forward
// kinematics (positions and velocities) once per evaluation time
static void run_nlp_spline(void* ctx) {
    nlp_ctx* c = ctx;
    for (int call = 0; call < 2; call++) {
        for (int k = 0; k < c->ntimes; k++) {
            salto_nlp_state(c->nlp, c->x, c->times[k], c->d->q, c->d->qd, NULL);
        }
    }
}

static void run_nlp_kin(void* ctx) {
    nlp_ctx* c = ctx;
    for (int call = 0; call < 2; call++) {
        for (int k = 0; k < c->ntimes; k++) salto_fk(c->m, c->d, SALTO_FK_VEL);
    }
}


static int bench_nlp(int argc, char** argv) {
    int quick = 0, reps = -1;
    const char* path = "problems/reach3d.yaml";
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            printf("usage: salto bench nlp [PROBLEM.yaml] [--quick] [--reps N]\n\n"
                   "Times one full evaluation of the constraints and their Jacobian, and of the\n"
                   "objective gradient, for a problem (default problems/reach3d.yaml, the 22-DOF\n"
                   "humanoid), each call alone, and how their time splits between B-spline\n"
                   "states and forward kinematics (each call redoes both at every evaluation\n"
                   "time) and the rest (constraint rows, derivatives, scatter); and of the\n"
                   "exact Lagrangian Hessian, with multiplier r sin(1.7 r + 0.3) (none zero).\n"
                   "All at the problem's initial guess.\n");
            return 0;
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            if ((reps = parse_reps(argv[++i])) < 0) return 2;
        } else if (argv[i][0] != '-') {
            path = argv[i];
        } else {
            fprintf(stderr, "salto bench nlp: unknown or incomplete option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (reps < 0) reps = quick ? 3 : 15;
    const double batch_s = quick ? 2e-4 : 5e-3;
    salto_problem_desc* p = NULL;
    salto_nlp* nlp = app_load_nlp(path, &p);
    if (!nlp) return 2;
    nlp_ctx c = {.nlp = nlp, .m = p->model, .d = salto_data_create(p->model)};
    const int nx = salto_nlp_nx(nlp), ng = salto_nlp_ng(nlp);
    c.x = malloc(sizeof(double) * (size_t)nx);
    c.grad = malloc(sizeof(double) * (size_t)nx);
    c.g = malloc(sizeof(double) * (size_t)(ng + 1));
    c.jac = malloc(sizeof(double) * (size_t)(salto_nlp_nnz_jac(nlp) + 1));
    c.times = malloc(sizeof(double) * (size_t)(ng + 1));
    c.lambda = malloc(sizeof(double) * (size_t)(ng + 1));
    c.hess = malloc(sizeof(double) * (size_t)(salto_nlp_nnz_hess(nlp) + 1));
    int status = 0;
    if (!c.d || !c.x || !c.grad || !c.g || !c.jac || !c.times || !c.lambda || !c.hess) {
        fprintf(stderr, "salto bench: out of memory\n");
        status = 1;
        goto done;
    }
    salto_nlp_initial_guess(nlp, c.x);
    c.ntimes = salto_nlp_eval_times(nlp, c.times);
    for (int r = 0; r < ng; r++) c.lambda[r] = sin(1.7 * r + 0.3); // every row weighted, none 0

    const timing tc = measure(run_nlp_cons, &c, reps, batch_s);
    const timing tv = measure(run_nlp_g, &c, reps, batch_s);
    const timing tj = measure(run_nlp_jac, &c, reps, batch_s);
    const timing tg = measure(run_nlp_grad, &c, reps, batch_s);
    const timing ts = measure(run_nlp_spline, &c, reps, batch_s);
    const timing tk = measure(run_nlp_kin, &c, reps, batch_s);
    const timing th = measure(run_nlp_hess, &c, reps, batch_s);
    printf("salto bench nlp: %s, median of %d batches of >= %.1f ms\n", path, reps, batch_s * 1e3);
    printf("%d DOFs, %d variables, %d constraints at %d times, %d Jacobian and %d Hessian "
           "non-zeros\n\n",
           p->model->nv, nx, ng, c.ntimes, salto_nlp_nnz_jac(nlp), salto_nlp_nnz_hess(nlp));
    printf("%-44s %12s\n", "evaluation", "median us");
    printf("%-44s %12.2f\n", "constraints and their Jacobian", tc.median_ns * 1e-3);
    printf("%-44s %12.2f\n", "  constraints alone", tv.median_ns * 1e-3);
    printf("%-44s %12.2f\n", "  Jacobian alone", tj.median_ns * 1e-3);
    printf("%-44s %12.2f\n", "  of both: B-spline states (2 per time)", ts.median_ns * 1e-3);
    printf("%-44s %12.2f\n", "  of both: kinematics (2 fk per time)", tk.median_ns * 1e-3);
    printf("%-44s %12.2f\n", "  of both: the rest (rows, derivatives)",
           (tc.median_ns - ts.median_ns - tk.median_ns) * 1e-3);
    printf("%-44s %12.2f\n", "objective gradient", tg.median_ns * 1e-3);
    printf("%-44s %12.2f\n", "Lagrangian Hessian (exact)", th.median_ns * 1e-3);
done:
    free(c.x), free(c.grad), free(c.g), free(c.jac), free(c.times), free(c.lambda), free(c.hess);
    salto_data_destroy(c.d);
    salto_nlp_destroy(nlp);
    salto_problem_destroy(p);
    return status;
}


// ---- salto bench paper: Fang & Pollard's Figures 7-10 ----

typedef struct paper_run {
    int ok;              // the problem loaded and IPOPT ran
    int converged;
    char status[64];
    int iterations;
    double total;        // s, median over the repetitions
    double viol;         // worst constraint violation at the result
    double drift;        // worst held-site drift at ten times the slice density, m
    double peak_com;     // highest centre of mass over the motion, m (sampled at 200 Hz)
    int nv, nx, ng, nnz;
} paper_run;


static double peak_com(const salto_nlp* nlp, const salto_problem_desc* p, const double* x) {
    salto_data* d = salto_data_create(p->model);
    if (!d) return NAN;
    const int n = (int)ceil(p->duration * 200.0);
    double best = -INFINITY;
    for (int k = 0; k <= n; k++) {
        salto_nlp_state(nlp, x, p->duration * k / n, d->q, d->qd, NULL);
        salto_fk(p->model, d, SALTO_FK_VEL);
        salto_link_inertias(p->model, d);
        double c[3], v[3];
        salto_com(p->model, d, c, v);
        best = fmax(best, c[2]);
    }
    salto_data_destroy(d);
    return best;
}


// solves path (with overrides) reps times from its initial guess: the median time, and the
// last solve's figures
static paper_run paper_solve(const char* path, int nset, const char* const* set, int reps) {
    paper_run r;
    memset(&r, 0, sizeof r);
    salto_problem_desc* p = NULL;
    salto_nlp* nlp = app_load_nlp_set(path, nset, set, &p);
    if (!nlp) return r;
    const int nx = salto_nlp_nx(nlp);
    double* x = malloc(sizeof(double) * (size_t)nx);
    double times[64];
    int done = 0;
    if (reps > 64) reps = 64;
    for (int k = 0; x && k < reps; k++) {
        salto_nlp_initial_guess(nlp, x);
        salto_solve_result res;
        salto_error err = {0};
        if (salto_solve(nlp, x, NULL, NULL, &res, &err) != SALTO_OK) {
            app_print_error(&err);
            break;
        }
        times[done++] = res.elapsed;
        r.ok = 1;
        r.converged = res.converged;
        snprintf(r.status, sizeof r.status, "%s", res.status_name);
        r.iterations = res.iterations;
        r.viol = res.max_violation;
    }
    if (r.ok) {
        qsort(times, (size_t)done, sizeof(double), cmp_double);
        r.total = times[done / 2];
        r.drift = salto_nlp_contact_drift(nlp, x, 10, NULL, NULL, NULL);
        r.peak_com = peak_com(nlp, p, x);
        r.nv = p->model->nv;
        r.nx = nx;
        r.ng = salto_nlp_ng(nlp);
        r.nnz = salto_nlp_nnz_jac(nlp);
    }
    free(x);
    salto_nlp_destroy(nlp);
    salto_problem_destroy(p);
    return r;
}


// whether name is a whole name of the comma-separated list only (all names when only is NULL)
static int paper_listed(const char* only, const char* name) {
    if (!only) return 1;
    const size_t len = strlen(name);
    for (const char* s = only; (s = strstr(s, name)) != NULL; s += len)
        if ((s == only || s[-1] == ',') && (s[len] == '\0' || s[len] == ',')) return 1;
    return 0;
}


// The file as `salto solve` runs it (its refinement rounds included, exact Hessian), once, and
// the result validated as `salto validate` would (the file's own slices and thresholds): one
// row. 0 when it solved, 1 otherwise (the message printed).
static int paper_shipped(const char* name, const char* path, const char* limit) {
    const char* set[2] = {"solver.hessian=exact", limit};
    salto_problem_desc *p = NULL, *p0 = NULL;
    salto_nlp* nlp = app_load_nlp_set(path, 2, set, &p);
    salto_nlp* nlp0 = NULL;
    double* x = nlp ? malloc(sizeof(double) * (size_t)salto_nlp_nx(nlp)) : NULL;
    int status = 1;
    salto_error err = {0};
    salto_solve_result res;
    salto_refine_result ref;
    salto_validation v = {0};
    if (x) {
        salto_nlp_initial_guess(nlp, x);
        // validated on the file's own slices, as `salto validate` would (refinement adds to p's)
        if (salto_solve_refined(p, &nlp, x, NULL, NULL, &res, &ref, &err) == SALTO_OK &&
            (nlp0 = app_load_nlp_set(path, 2, set, &p0)) != NULL) {
            salto_validate_opts o;
            salto_validate_opts_from_problem(&o, p0);
            if (salto_validate(nlp0, x, &o, &v, &err) == SALTO_OK) {
                char checks[32];
                snprintf(checks, sizeof checks, "%d of %d", v.npassed, v.njudged);
                printf("%-24s %6d %7d %7d %6d %9.3f  %-13s %s\n", name, p0->solver.refine,
                       ref.rounds, ref.added, res.iterations, res.elapsed,
                       res.converged ? "converged" : "NOT converged", checks);
                status = 0;
            }
            salto_validation_free(&v);
        }
    } else if (nlp) {
        fprintf(stderr, "salto bench paper: out of memory\n");
    }
    if (status && err.status != SALTO_OK) app_print_error(&err);
    free(x);
    salto_nlp_destroy(nlp), salto_nlp_destroy(nlp0);
    salto_problem_destroy(p), salto_problem_destroy(p0);
    return status;
}


static void paper_row(const char* name, const char* hess, const paper_run* r) {
    if (!r->ok) {
        printf("%-24s %-14s (could not be solved: see the message above)\n", name, hess);
        return;
    }
    const double per = r->iterations > 0 ? r->total / r->iterations : 0.0;
    printf("%-24s %3d %5d %6d %7d  %-14s %-28s %5d %9.2f %9.3f %9.1e %8.3f %7.3f\n", name, r->nv,
           r->nx, r->ng, r->nnz, hess, r->status, r->iterations, per * 1e3, r->total, r->viol,
           r->drift * 1e3, r->peak_com);
}


// Figure 10: the constraint Jacobian by each derivative method at x, against the linear-time
// method: mean relative error over the entries that matter, the median time of one call
// (measure, batches of 20 ms), and the time per iteration of IPOPT's first 20 iterations
static void fig10_row(const char* path, const char* method, double* x, const double* ref,
                      int nnz, int reps, double* out_err, double* out_us, double* out_iter_ms) {
    char opt[64];
    snprintf(opt, sizeof opt, "solver.derivatives=%s", method);
    const char* set[2] = {opt, "solver.max_iterations=20"};
    salto_problem_desc* p = NULL;
    salto_nlp* nlp = app_load_nlp_set(path, 2, set, &p);
    *out_err = NAN, *out_us = NAN, *out_iter_ms = NAN;
    if (!nlp) return;
    // the time per iteration of IPOPT's first 20 iterations from the initial guess, as the
    // paper times its iterations (the Hessian is the same for every method)
    {
        double* xi = malloc(sizeof(double) * (size_t)salto_nlp_nx(nlp));
        salto_solve_result res;
        salto_error err = {0};
        if (xi) {
            salto_nlp_initial_guess(nlp, xi);
            if (salto_solve(nlp, xi, NULL, NULL, &res, &err) == SALTO_OK && res.iterations > 0) {
                *out_iter_ms = 1e3 * res.elapsed / res.iterations;
            }
        }
        free(xi);
    }
    double* J = malloc(sizeof(double) * (size_t)(nnz + 1));
    double scale = 0.0;
    for (int e = 0; e < nnz; e++) scale = fmax(scale, fabs(ref[e]));
    if (J && salto_nlp_eval_jac(nlp, x, J) == SALTO_OK) {
        double sum = 0.0;
        int n = 0;
        for (int e = 0; e < nnz; e++) {
            if (fabs(ref[e]) <= 1e-9 * scale) continue;
            sum += fabs(J[e] - ref[e]) / fabs(ref[e]);
            n++;
        }
        *out_err = n ? 100.0 * sum / n : 0.0;
        nlp_ctx c = {.nlp = nlp, .m = p->model, .x = x, .jac = J};
        *out_us = measure(run_nlp_jac, &c, reps, 0.02).median_ns * 1e-3;
    }
    free(J);
    salto_nlp_destroy(nlp);
    salto_problem_destroy(p);
}


// the options every benchmark of problems shares (--quick, --reps N, --root DIR) at argv[*i]:
// 1 when taken (*i moved past its value), 0 when not one of them, -1 for a bad --reps
static int shared_opt(int argc, char** argv, int* i, int* quick, int* reps, const char** root) {
    if (strcmp(argv[*i], "--quick") == 0) {
        *quick = 1;
        return 1;
    }
    if (strcmp(argv[*i], "--reps") == 0 && *i + 1 < argc) {
        *reps = parse_reps(argv[++*i]);
        return *reps < 0 ? -1 : 1;
    }
    if (strcmp(argv[*i], "--root") == 0 && *i + 1 < argc) {
        *root = argv[++*i];
        return 1;
    }
    return 0;
}


// Warm start: the dismount at path (flight 0.6 s) again after its flight is made 10% longer, on
// the first solve's knots per phase, from its solution's control points, against a cold solve
// of the same; reps of each, median. 0, or 1 when the first solve failed.
static int paper_warm(const char* name, const char* path, const char* limit, int reps) {
    int status = 0;
    const char* set0[1] = {limit};
    salto_problem_desc *p0 = NULL, *p1 = NULL;
    salto_nlp* n0 = app_load_nlp_set(path, 1, set0, &p0);
    salto_nlp* n1 = NULL;
    // the phase named flight, 10% longer
    double d0 = 0.0;
    for (int i = 0; n0 && i < p0->nphase; i++) {
        if (strcmp(p0->phases[i].name, "flight") == 0) d0 = p0->phases[i].duration;
    }
    char flight[64];
    snprintf(flight, sizeof flight, "phases.flight.duration=%.6g", 1.1 * d0);
    const char* set1[2] = {limit, flight};
    if (n0 && !(d0 > 0.0)) {
        fprintf(stderr, "salto bench paper: %s has no phase named 'flight'\n", path);
        status = 1;
    } else if (n0) {
        // the re-solve keeps the first problem's knots per phase, so that the warm start
        // can take its control points as they are (salto_problem_knot_counts)
        salto_error e1 = {0};
        p1 = salto_problem_load_set(path, 2, set1, &e1);
        if (p1 && p1->nphase == p0->nphase) {
            salto_free(p1->phase_knots); // the file's own, if it gives them
            p1->phase_knots = salto_malloc(sizeof(int) * (size_t)p1->nphase);
            if (p1->phase_knots) salto_problem_knot_counts(p0, p1->phase_knots);
        }
        n1 = p1 ? salto_nlp_build(p1, &e1) : NULL;
        if (!n1) app_print_error(&e1);
    }
    double* x0 = n1 ? malloc(sizeof(double) * (size_t)salto_nlp_nx(n0)) : NULL;
    double* x1 = x0 ? malloc(sizeof(double) * (size_t)salto_nlp_nx(n1)) : NULL;
    salto_solve_result r0, r1;
    salto_error err = {0};
    if (!x1) {
        if (n1) fprintf(stderr, "salto bench paper: out of memory\n");
        status = 1;
    } else {
        salto_nlp_initial_guess(n0, x0);
        double t[64], tc[64];
        int it = 0, itc = 0;
        const char *st = "", *stc = "";
        const int nr = reps > 64 ? 64 : reps;
        int ok = salto_solve(n0, x0, NULL, NULL, &r0, &err) == SALTO_OK;
        for (int k = 0; ok && k < nr; k++) {
            const double t0 = salto_now();
            salto_nlp_guess_from_solution(n1, n0, x0, x1);
            ok = salto_solve(n1, x1, NULL, NULL, &r1, &err) == SALTO_OK;
            t[k] = salto_now() - t0;
            it = r1.iterations;
            st = r1.converged ? "converged" : "NOT converged";
            salto_nlp_initial_guess(n1, x1);
            ok = ok && salto_solve(n1, x1, NULL, NULL, &r1, &err) == SALTO_OK;
            tc[k] = r1.elapsed;
            itc = r1.iterations;
            stc = r1.converged ? "converged" : "NOT converged";
        }
        if (ok) {
            qsort(t, (size_t)nr, sizeof(double), cmp_double);
            qsort(tc, (size_t)nr, sizeof(double), cmp_double);
            printf("\n%s re-solved with its flight 10%% longer (%.6g s) on the first "
                   "solve's knots per phase, median of %d:\n", name, 1.1 * d0, nr);
            char from[64];
            snprintf(from, sizeof from, "warm, from the %.6g s solution:", d0);
            printf("  %-31s %-13s %4d iterations %8.3f s\n", "cold, from the initial guess:", stc, itc, tc[nr / 2]);
            printf("  %-31s %-13s %4d iterations %8.3f s\n", from, st, it, t[nr / 2]);
        } else {
            app_print_error(&err);
            status = 1;
        }
    }
    free(x0), free(x1);
    salto_nlp_destroy(n0), salto_nlp_destroy(n1);
    salto_problem_destroy(p0), salto_problem_destroy(p1);
    return status;
}


static int bench_paper(int argc, char** argv) {
    int quick = 0, reps = -1, fig10 = 1, shipped = 1;
    const char* root = ".";
    const char* only = NULL;
    const char* which = "both";
    double max_time = 120.0;
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            printf("usage: salto bench paper [--quick] [--reps N] [--only NAMES] [--hessian WHICH]\n"
                   "                         [--max-time S] [--no-fig10] [--no-shipped] [--root DIR]\n\n"
                   "Solves every problem of Fang & Pollard's section 6 that salto ships (and its\n"
                   "own back tuck), and the paper's own dismounts with their held landing\n"
                   "(data/paper/, not physical: to compare with the paper's timings), from the\n"
                   "automatic initial guess, with each Hessian strategy, and prints the paper's\n"
                   "Figures 7-9 as one table: DOF, variables, constraints, Jacobian non-zeros,\n"
                   "strategy, IPOPT's status, iterations, time per iteration and in all (the\n"
                   "median of N solves), the worst constraint violation, the worst drift of a\n"
                   "held contact site at ten times the slice density and the peak centre-of-mass\n"
                   "height. Then each shipped problem once as `salto solve` runs it (with the\n"
                   "refinement rounds its file asks for, exact Hessian) and how many of\n"
                   "`salto validate`'s checks its result passes. Then warm-started re-solves of\n"
                   "the two 0.6 s dismounts (the shipped one and the paper's) after lengthening\n"
                   "their flight by 10%%, and Figure 10 on the leap from peg to peg: with each\n"
                   "derivative method, the time per iteration of IPOPT's first 20 iterations, the\n"
                   "time of one constraint Jacobian and its mean relative error against the\n"
                   "linear-time method (at a point near the initial guess).\n\n"
                   "  --quick        the 0.6 s dismounts only (the shipped one and the paper's),\n"
                   "                 exact Hessian, one solve a row, no Figure 10: their table\n"
                   "                 rows, the shipped one as `salto solve` runs it and both\n"
                   "                 warm re-solves (a smoke test)\n"
                   "  --reps N       solves per row, median time (default 3; --quick: 1)\n"
                   "  --only NAMES   comma-separated problem names (from problems/ and data/paper/)\n"
                   "  --hessian WHICH  exact, limited-memory or both (default both)\n"
                   "  --max-time S   IPOPT's CPU-time limit per solve (default 120)\n"
                   "  --no-fig10     skip Figure 10\n"
                   "  --no-shipped   skip the table of the shipped files as `salto solve` runs them\n"
                   "  --root DIR     repository root holding problems/ and data/paper/\n"
                   "                 (default: .)\n");
            return 0;
        }
        const int taken = shared_opt(argc, argv, &i, &quick, &reps, &root);
        if (taken < 0) return 2;
        if (taken) {
            continue;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--hessian") == 0 && i + 1 < argc) {
            which = argv[++i];
            if (strcmp(which, "exact") && strcmp(which, "limited-memory") && strcmp(which, "both")) {
                fprintf(stderr, "salto bench paper: --hessian takes exact, limited-memory or both\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--max-time") == 0 && i + 1 < argc) {
            char* end = NULL;
            max_time = strtod(argv[++i], &end);
            if (!end || *end || !(max_time > 0)) {
                fprintf(stderr, "salto bench paper: --max-time takes a positive number of seconds\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--no-fig10") == 0) {
            fig10 = 0;
        } else if (strcmp(argv[i], "--no-shipped") == 0) {
            shipped = 0;
        } else {
            fprintf(stderr, "salto bench paper: unknown or incomplete option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (reps < 0) reps = quick ? 1 : 3;
    if (quick) {
        if (!only) only = "highbar_dismount,highbar_dismount_held";
        if (strcmp(which, "both") == 0) which = "exact";
        fig10 = 0;
    }
    // the shipped problems, and the paper's own dismounts (their C1 landing: reference data, not
    // physical, kept to compare with the paper's timings like for like); the warm re-solve is
    // timed on the two 0.6 s dismounts
    static const struct {
        const char* name;
        const char* folder;
        int shipped, warm;
    } probs[] = {{"highbar_dismount", "problems", 1, 1},
                 {"highbar_dismount_08", "problems", 1, 0},
                 {"highbar_dismount_held", "data/paper", 0, 1},
                 {"highbar_dismount_held_08", "data/paper", 0, 0},
                 {"monkey_bars", "problems", 1, 0},
                 {"leap", "problems", 1, 0},
                 {"leap_pegs", "problems", 1, 0},
                 {"luxo_jump", "problems", 1, 0},
                 {"back_tuck", "problems", 1, 0}};
    const int nprob = (int)(sizeof probs / sizeof probs[0]);
    char paths[sizeof probs / sizeof probs[0]][4200];
    for (int k = 0; k < nprob; k++) {
        snprintf(paths[k], sizeof paths[k], "%s/%s/%s.yaml", root, probs[k].folder, probs[k].name);
    }
    static const char* const hess[] = {"exact", "limited-memory"};
    char limit[64];
    snprintf(limit, sizeof limit, "solver.max_cpu_time=%g", max_time);

    printf("salto bench paper: each row the median of %d solve(s) from the initial guess; one "
           "BLAS thread\n", reps);
    printf("%-24s %3s %5s %6s %7s  %-14s %-28s %5s %9s %9s %9s %8s %7s\n", "problem", "DOF",
           "vars", "cons", "jac nnz", "Hessian", "IPOPT status", "iters", "ms/iter", "total s",
           "violation", "drift mm", "peak m");
    int status = 0, converged_all[2] = {1, 1};
    double total_all[2] = {0, 0};
    int ran[2] = {0, 0};
    for (int k = 0; k < nprob; k++) {
        if (!paper_listed(only, probs[k].name)) continue;
        for (int h = 0; h < 2; h++) {
            if (strcmp(which, "both") != 0 && strcmp(which, hess[h]) != 0) continue;
            char hopt[64];
            snprintf(hopt, sizeof hopt, "solver.hessian=%s", hess[h]);
            const char* set[2] = {hopt, limit};
            const paper_run r = paper_solve(paths[k], 2, set, reps);
            paper_row(probs[k].name, hess[h], &r);
            fflush(stdout);
            if (!r.ok) status = 1;
            converged_all[h] &= r.converged;
            total_all[h] += r.total;
            ran[h] = 1;
        }
    }
    for (int h = 0; h < 2; h++) {
        if (!ran[h]) continue;
        printf("%s Hessian: %s, %.3f s in all\n", hess[h],
               converged_all[h] ? "converged on every problem" : "did NOT converge on every problem",
               total_all[h]);
    }

    // the shipped files as `salto solve` runs them, and their validation
    int any_shipped = 0;
    for (int k = 0; k < nprob; k++) any_shipped |= probs[k].shipped && paper_listed(only, probs[k].name);
    if (shipped && any_shipped) {
        printf("\nthe shipped problems as `salto solve` runs them (the file's refinement included, "
               "exact Hessian), once, and `salto validate`'s checks on the result:\n");
        printf("%-24s %6s %7s %7s %6s %9s  %-13s %s\n", "problem", "refine", "rounds", "slices",
               "iters", "total s", "status", "checks");
        for (int k = 0; k < nprob; k++) {
            if (!probs[k].shipped || !paper_listed(only, probs[k].name)) continue;
            if (paper_shipped(probs[k].name, paths[k], limit)) status = 1;
            fflush(stdout);
        }
    }

    // warm starts after a 10% longer flight
    for (int k = 0; k < nprob; k++) {
        if (!probs[k].warm || !paper_listed(only, probs[k].name)) continue;
        if (paper_warm(probs[k].name, paths[k], limit, reps)) status = 1;
        fflush(stdout);
    }

    // Figure 10 on the leap from peg to peg, at a point near its initial guess
    if (fig10) {
        char path[4200];
        snprintf(path, sizeof path, "%s/problems/leap_pegs.yaml", root);
        salto_problem_desc* p = NULL;
        salto_nlp* nlp = app_load_nlp(path, &p);
        if (!nlp) return 2;
        const int nx = salto_nlp_nx(nlp), nnz = salto_nlp_nnz_jac(nlp);
        double* x = malloc(sizeof(double) * (size_t)nx);
        double* ref = malloc(sizeof(double) * (size_t)(nnz + 1));
        if (x && ref) {
            // a point away from the symmetric initial guess: the guess with a smooth change
            salto_nlp_initial_guess(nlp, x);
            for (int i = 0; i < nx; i++) x[i] += 0.05 * sin(1.7 * i);
            salto_nlp_eval_jac(nlp, x, ref);
            static const char* const meth[] = {"linear", "direct", "fd-forward", "fd-central", "richardson"};
            static const char* const label[] = {"our method (linear)", "direct", "NR1 (forward)",
                                                "NR2 (central)", "NR3 (Richardson 6)"};
            printf("\nFigure 10: leap_pegs (%d DOF, %d variables, %d Jacobian non-zeros), the "
                   "constraint Jacobian by each method\n", p->model->nv, nx, nnz);
            printf("%-22s %12s %14s %14s %18s\n", "method", "ms per iter", "Jacobian us",
                   "vs linear", "mean rel. error %");
            double base = NAN, e0, us0, it0;
            fig10_row(path, meth[0], x, ref, nnz, 1, &e0, &us0, &it0); // warm-up, not shown
            for (int k = 0; k < 5; k++) {
                double e, us, it;
                fig10_row(path, meth[k], x, ref, nnz, quick ? 3 : 9, &e, &us, &it);
                if (k == 0) base = us;
                printf("%-22s %12.2f %14.1f %14.2f %18.2e\n", label[k], it, us, us / base, e);
            }
        }
        free(x), free(ref);
        salto_nlp_destroy(nlp);
        salto_problem_destroy(p);
    }
    return status;
}


// ---- salto bench validate: the validator's time and its split ----

typedef struct val_ctx {
    salto_nlp* nlp;
    const double* x;
    const salto_model* m;
    salto_data* d;
    const double* t;     // the validator's sample times
    int n;
    salto_validate_opts opts;
} val_ctx;


// the motion's state at every sample (salto_nlp_state: the derived translations included)
static void run_val_state(void* ctx) {
    val_ctx* c = ctx;
    for (int k = 0; k < c->n; k++) salto_nlp_state(c->nlp, c->x, c->t[k], c->d->q, c->d->qd, c->d->qdd);
}


// and the dynamics the checks read: RNEA (kinematics, f0) and the link inertias
static void run_val_dynamics(void* ctx) {
    val_ctx* c = ctx;
    for (int k = 0; k < c->n; k++) {
        salto_nlp_state(c->nlp, c->x, c->t[k], c->d->q, c->d->qd, c->d->qdd);
        salto_rnea(c->m, c->d, NULL);
        salto_link_inertias(c->m, c->d);
    }
}


static void run_val_all(void* ctx) {
    val_ctx* c = ctx;
    salto_validation v;
    salto_error err = {0};
    if (salto_validate(c->nlp, c->x, &c->opts, &v, &err) == SALTO_OK) salto_validation_free(&v);
}


// the checks without the re-simulation
static void run_val_checks(void* ctx) {
    val_ctx* c = ctx;
    const salto_integrator keep = c->opts.integrator;
    c->opts.integrator = SALTO_INTEGRATOR_NONE;
    run_val_all(ctx);
    c->opts.integrator = keep;
}


static int bench_validate(int argc, char** argv) {
    int quick = 0, reps = -1, nname = 0;
    const char* root = ".";
    const char* names[16];
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            printf("usage: salto bench validate [NAME]... [--quick] [--reps N] [--root DIR]\n\n"
                   "Times salto validate's work on shipped problems (default: the seven with\n"
                   "physics) at the default density and re-simulation (RK4 at the sample\n"
                   "spacing), on each problem's initial guess (the cost does not depend on the\n"
                   "motion's values, unless a re-simulation breaks down early: 'broke' counts\n"
                   "the phases where it did), and splits it: the motion's state at every sample,\n"
                   "the dynamics the checks read (RNEA and the link inertias), the checks with the\n"
                   "rest, and the re-simulation (each a difference of two timings, so noise can\n"
                   "tip a small one below zero). Median of N timed batches after a warm-up; files\n"
                   "are not written.\n\n"
                   "  NAME        a problem in problems/ (without .yaml)\n"
                   "  --quick     the dismount only, short batches (a smoke test)\n"
                   "  --reps N    timed batches (default 7; --quick: 1)\n"
                   "  --root DIR  repository root holding problems/ (default: .)\n");
            return 0;
        }
        const int taken = shared_opt(argc, argv, &i, &quick, &reps, &root);
        if (taken < 0) return 2;
        if (taken) {
            continue;
        } else if (argv[i][0] != '-' && nname < 16) {
            names[nname++] = argv[i];
        } else {
            fprintf(stderr, "salto bench validate: unknown or incomplete option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (reps < 0) reps = quick ? 1 : 7;
    if (nname == 0) {
        static const char* const all[] = {"highbar_dismount", "highbar_dismount_08", "monkey_bars",
                                          "leap", "leap_pegs", "luxo_jump", "back_tuck"};
        nname = quick ? 1 : 7;
        for (int k = 0; k < nname; k++) names[k] = all[k];
    }
    const double batch_s = quick ? 0.02 : 0.3;
    printf("salto bench validate: median of %d batch(es) of at least %.2f s, default density, one "
           "thread\n", reps, batch_s);
    printf("%-20s %3s %7s %10s %10s %10s %10s %10s %6s\n", "problem", "DOF", "samples", "total ms",
           "state ms", "dynamics", "checks ms", "resim ms", "broke");
    int status = 0;
    for (int k = 0; k < nname; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/problems/%s.yaml", root, names[k]);
        salto_problem_desc* p = NULL;
        salto_nlp* nlp = app_load_nlp(path, &p);
        if (!nlp) {
            status = 2;
            continue;
        }
        const int nx = salto_nlp_nx(nlp);
        double* x = malloc((size_t)nx * sizeof(double));
        salto_data* d = salto_data_create(p->model);
        salto_validation v = {0};
        salto_error err = {0};
        val_ctx c = {nlp, x, p->model, d, NULL, 0, {0}};
        salto_validate_opts_default(&c.opts);
        if (!x || !d) {
            fprintf(stderr, "salto bench validate: out of memory\n");
            status = 1;
        } else {
            salto_nlp_initial_guess(nlp, x);
            if (salto_validate(nlp, x, &c.opts, &v, &err) != SALTO_OK) {
                app_print_error(&err);
                status = 1;
            } else {
                c.t = v.t;
                c.n = v.nsample;
                int broke = 0;
                for (int i = 0; i < p->nphase; i++) broke += !isnan(v.resim_stop[i]);
                const timing all = measure(run_val_all, &c, reps, batch_s);
                const timing chk = measure(run_val_checks, &c, reps, batch_s);
                const timing st = measure(run_val_state, &c, reps, batch_s);
                const timing dyn = measure(run_val_dynamics, &c, reps, batch_s);
                printf("%-20s %3d %7d %10.3f %10.3f %10.3f %10.3f %10.3f %6d\n", names[k],
                       p->model->nv, v.nsample, all.median_ns * 1e-6, st.median_ns * 1e-6,
                       (dyn.median_ns - st.median_ns) * 1e-6, (chk.median_ns - dyn.median_ns) * 1e-6,
                       (all.median_ns - chk.median_ns) * 1e-6, broke);
                salto_validation_free(&v);
            }
        }
        salto_data_destroy(d);
        free(x);
        salto_nlp_destroy(nlp);
        salto_problem_destroy(p);
    }
    return status;
}


// ---- salto bench sim: the stepping simulator's steps per second, and MuJoCo's ----

typedef struct sim_ctx {
    const salto_model* m;
    salto_sim* sim;            // salto (NULL: MuJoCo)
    mjModel* mm;
    mjData* md;
    const double* q0;          // the scenario's start (nv)
    const double* gain;        // MuJoCo's joint servos: kp = 400 M_jj, kd = 40 M_jj (nv)
    int steps;                 // steps per call
    int max_contacts;
} sim_ctx;


// a call: the scenario from its start, steps steps
static void run_sim(void* ctx) {
    sim_ctx* c = ctx;
    const int nv = c->m->nv;
    double zero[64] = {0};
    if (c->sim) {
        salto_sim_set_state(c->sim, c->q0, zero);
        salto_sim_track(c->sim, zero, zero, zero, 400.0, 40.0);
        salto_error err = {0};
        for (int k = 0; k < c->steps; k++) {
            if (salto_sim_step(c->sim, &err) != SALTO_OK) break;
            const int nc = salto_sim_contacts(c->sim, NULL);
            if (nc > c->max_contacts) c->max_contacts = nc;
        }
        return;
    }
    mj_resetData(c->mm, c->md);
    for (int j = 0; j < nv; j++) c->md->qpos[j] = c->q0[j];
    for (int k = 0; k < c->steps; k++) {
        for (int j = c->m->nroot; j < nv; j++) { // joint servos to the zero pose
            c->md->qfrc_applied[j] = c->gain[j] * (400.0 * -c->md->qpos[j] - 40.0 * c->md->qvel[j]);
        }
        mj_step(c->mm, c->md);
        if (c->md->ncon > c->max_contacts) c->max_contacts = c->md->ncon;
    }
}


static int bench_sim(int argc, char** argv) {
    int quick = 0, reps = -1;
    const char* root = ".";
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            printf("usage: salto bench sim [--quick] [--reps N] [--root DIR]\n\n"
                   "Times the stepping simulator (docs/simulation.md) on the 22-DOF humanoid at 1 ms\n"
                   "steps, its joints holding the zero pose by tracking (kp 400, kd 40): standing on\n"
                   "both soles, and landing (dropped from 0.2 m, 0.4 s). salto as it runs by\n"
                   "default (with every joint tracked, the contact problem reduced to the root's\n"
                   "DOFs), and with the full constraint matrix by either method (the delta method,\n"
                   "a full pass per test force), beside MuJoCo (libmujoco, the character exported\n"
                   "by 'salto export --format mjcf', joint servos with gains scaled by the\n"
                   "joint-space inertia's diagonal, its own contacts). Prints microseconds per\n"
                   "step, steps per second, times faster than real time, and the ratio to MuJoCo;\n"
                   "median of N timed batches after a warm-up, one thread.\n\n"
                   "  --quick     short batches (a smoke test)\n"
                   "  --reps N    timed batches (default 7; --quick: 1)\n"
                   "  --root DIR  repository root holding data/characters (default: .)\n");
            return 0;
        }
        const int taken = shared_opt(argc, argv, &i, &quick, &reps, &root);
        if (taken < 0) return 2;
        if (!taken) {
            fprintf(stderr, "salto bench sim: unknown or incomplete option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (reps < 0) reps = quick ? 1 : 7;
    const double batch_s = quick ? 0.02 : 0.3;
    char path[4096], xml[64];
    snprintf(path, sizeof path, "%s/data/characters/humanoid22.yaml", root);
    salto_error err = {0};
    salto_model* m = salto_model_load(path, &err);
    if (!m) {
        app_print_error(&err);
        return 2;
    }
    const int nv = m->nv;
    snprintf(xml, sizeof xml, "/tmp/salto_bench_sim_XXXXXX");
    const int fd = mkstemp(xml);
    char mjerr[1000] = "";
    mjModel* mm = NULL;
    if (fd >= 0) {
        close(fd);
        if (salto_export_mjcf(m, xml, &err) == SALTO_OK) mm = mj_loadXML(xml, NULL, mjerr, sizeof mjerr);
        remove(xml);
    }
    if (!mm) {
        fprintf(stderr, "salto bench sim: MuJoCo could not load the exported humanoid: %s%s\n", mjerr, err.msg);
        salto_model_destroy(m);
        return 1;
    }
    mjData* md = mj_makeData(mm);
    salto_data* d = salto_data_create(m);
    double* M = malloc((size_t)nv * nv * sizeof(double));
    double gain[64] = {0}, stand[64] = {0}, drop[64] = {0};
    int status = 0;
    if (!md || !d || !M || nv > 64) {
        fprintf(stderr, "salto bench sim: out of memory\n");
        status = 1;
        goto done;
    }
    salto_crba(m, d, M); // at the zero pose
    for (int j = 0; j < nv; j++) gain[j] = M[(size_t)j * nv + j];
    drop[2] = 0.2; // root_z
    printf("salto bench sim: humanoid22 (%d DOFs), 1 ms steps, median of %d batch(es) of at least "
           "%.2f s, one thread\n", nv, reps, batch_s);
    printf("%-9s %-24s %8s %10s %12s %10s %10s\n", "scenario", "engine", "contacts", "us/step",
           "steps/s", "x realtime", "vs MuJoCo");
    const struct { const char* name; const double* q0; int steps; } scen[2] = {
        {"standing", stand, 200}, {"landing", drop, 400}};
    for (int sc = 0; sc < 2; sc++) {
        double mj_us = 0.0;
        for (int e = 3; e >= 0; e--) { // MuJoCo first, for the ratio
            salto_sim_opts o;
            salto_sim_opts_default(&o);
            o.method = e == 2 ? SALTO_CONSTRAINT_TEST_FORCES : SALTO_CONSTRAINT_ABA_DELTA;
            o.reduced = e == 0;
            sim_ctx c = {m, e < 3 ? salto_sim_create(m, &o) : NULL, mm, md, scen[sc].q0, gain,
                         quick ? scen[sc].steps / 4 : scen[sc].steps, 0};
            if (e < 3 && !c.sim) {
                fprintf(stderr, "salto bench sim: out of memory\n");
                status = 1;
                goto done;
            }
            const timing t = measure(run_sim, &c, reps, batch_s);
            const double us = t.median_ns * 1e-3 / c.steps;
            if (e == 3) mj_us = us;
            static const char* const names[4] = {"salto (reduced)", "salto (full, delta 4.3)",
                                                 "salto (full, tests 4.2)", "MuJoCo 2.2.2"};
            printf("%-9s %-24s %8d %10.2f %12.0f %10.1f %10.2f\n", scen[sc].name, names[e],
                   c.max_contacts, us, 1e6 / us, 1e3 / us, us / mj_us);
            salto_sim_destroy(c.sim);
        }
    }
done:
    free(M);
    salto_data_destroy(d);
    if (md) mj_deleteData(md);
    mj_deleteModel(mm);
    salto_model_destroy(m);
    return status;
}

int cmd_bench(int argc, char** argv) {
    if (argc < 2 || app_is_help(argv[1])) {
        if (argc < 2) {
            fprintf(stderr, "usage: salto bench dynamics|nlp|paper|validate|sim|batch [options] (see 'salto bench --help')\n");
            return 2;
        }
        help();
        return 0;
    }
    if (strcmp(argv[1], "dynamics") == 0) return bench_dynamics(argc - 1, argv + 1);
    if (strcmp(argv[1], "nlp") == 0) return bench_nlp(argc - 1, argv + 1);
    if (strcmp(argv[1], "paper") == 0) return bench_paper(argc - 1, argv + 1);
    if (strcmp(argv[1], "validate") == 0) return bench_validate(argc - 1, argv + 1);
    if (strcmp(argv[1], "sim") == 0) return bench_sim(argc - 1, argv + 1);
    if (strcmp(argv[1], "batch") == 0) return bench_batch(argc - 1, argv + 1);
    fprintf(stderr, "salto bench: unknown benchmark '%s' (available: dynamics, nlp, paper, validate, sim, batch)\n",
            argv[1]);
    return 2;
}
