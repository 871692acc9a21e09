// bench_nlp.c: salto bench nlp: one evaluation of a problem's NLP, and how its time splits
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cmds.h"
#include "salto/kinematics.h"
#include "salto/nlp.h"
#include "salto/problem.h"

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

static void run_nlp_f(void* ctx) {
    nlp_ctx* c = ctx;
    double f;
    salto_nlp_eval_f(c->nlp, c->x, &f);
}

static void run_nlp_g(void* ctx) {
    nlp_ctx* c = ctx;
    salto_nlp_eval_g(c->nlp, c->x, c->g);
}

void bench_run_nlp_jac(void* ctx) {
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


int bench_nlp(int argc, char** argv) {
    int quick = 0, reps = -1;
    const char* path = "problems/reach3d.yaml";
    const char** set = calloc((size_t)argc, sizeof *set);
    int nset = 0;
    if (!set) return 1;
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            free(set);
            printf("usage: salto bench nlp [PROBLEM.yaml] [--set PATH=VALUE]... [--quick] [--reps N]\n\n"
                   "Times one full evaluation of the constraints and their Jacobian, and of the\n"
                   "objective and its gradient, for a problem (default problems/reach3d.yaml, the 22-DOF\n"
                   "humanoid), each call alone, and how their time splits between B-spline\n"
                   "states and forward kinematics (each call redoes both at every evaluation\n"
                   "time) and the rest (constraint rows, derivatives, scatter); and of the\n"
                   "exact Lagrangian Hessian, with multiplier r sin(1.7 r + 0.3) (none zero).\n"
                   "All at the problem's initial guess. --set changes one value of the file\n"
                   "before reading it, as for 'salto solve'.\n");
            return 0;
        } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
            set[nset++] = argv[++i];
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            if ((reps = bench_parse_reps(argv[++i])) < 0) {
                free(set);
                return 2;
            }
        } else if (argv[i][0] != '-') {
            path = argv[i];
        } else {
            fprintf(stderr, "salto bench nlp: unknown or incomplete option '%s'\n", argv[i]);
            free(set);
            return 2;
        }
    }
    if (reps < 0) reps = quick ? 3 : 15;
    const double batch_s = quick ? 2e-4 : 5e-3;
    salto_problem_desc* p = NULL;
    salto_nlp* nlp = app_load_nlp_set(path, nset, set, &p);
    free(set);
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

    const timing tc = bench_measure(run_nlp_cons, &c, reps, batch_s);
    const timing tv = bench_measure(run_nlp_g, &c, reps, batch_s);
    const timing tj = bench_measure(bench_run_nlp_jac, &c, reps, batch_s);
    const timing tf = bench_measure(run_nlp_f, &c, reps, batch_s);
    const timing tg = bench_measure(run_nlp_grad, &c, reps, batch_s);
    const timing ts = bench_measure(run_nlp_spline, &c, reps, batch_s);
    const timing tk = bench_measure(run_nlp_kin, &c, reps, batch_s);
    const timing th = bench_measure(run_nlp_hess, &c, reps, batch_s);
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
    printf("%-44s %12.2f\n", "objective", tf.median_ns * 1e-3);
    printf("%-44s %12.2f\n", "objective gradient", tg.median_ns * 1e-3);
    printf("%-44s %12.2f\n", "Lagrangian Hessian (exact)", th.median_ns * 1e-3);
done:
    free(c.x), free(c.grad), free(c.g), free(c.jac), free(c.times), free(c.lambda), free(c.hess);
    salto_data_destroy(c.d);
    salto_nlp_destroy(nlp);
    salto_problem_destroy(p);
    return status;
}
