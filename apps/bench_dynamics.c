// bench_dynamics.c: salto bench dynamics: timing tables (Fang & Pollard 2003, Figure 5)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        r->t[k] = bench_measure(method_fns[k], &c, reps, batch_s);
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


int bench_dynamics(int argc, char** argv) {
    int quick = 0, reps = -1;
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
