// bench_validate.c: salto bench validate: the validator's time and its split
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cmds.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/nlp.h"
#include "salto/problem.h"
#include "salto/validate.h"

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


int bench_validate(int argc, char** argv) {
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
        const int taken = bench_shared_opt(argc, argv, &i, &quick, &reps, &root);
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
                const timing all = bench_measure(run_val_all, &c, reps, batch_s);
                const timing chk = bench_measure(run_val_checks, &c, reps, batch_s);
                const timing st = bench_measure(run_val_state, &c, reps, batch_s);
                const timing dyn = bench_measure(run_val_dynamics, &c, reps, batch_s);
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
