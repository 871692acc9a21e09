// bench_paper.c: salto bench paper: Fang & Pollard's Figures 7-10
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cmds.h"
#include "salto/kinematics.h"
#include "salto/nlp.h"
#include "salto/problem.h"
#include "salto/solver.h"
#include "salto/validate.h"

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
        // as salto solve's first solve: on a spline by knot spacing, the coarse one first
        if (salto_solve_first(p, nlp, x, NULL, NULL, &res, NULL, &err) != SALTO_OK) {
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
        qsort(times, (size_t)done, sizeof(double), bench_cmp_double);
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


// The file as `salto solve` runs it (the coarse first solve, and any denser solve or refinement,
// included; exact Hessian), once, and the result validated as `salto validate` would (the
// file's own slices and thresholds): one row. 0 when it solved, 1 otherwise (the message
// printed).
static int paper_shipped(const char* name, const char* path, const char* limit) {
    const char* set[2] = {"solver.hessian=exact", limit};
    salto_problem_desc *p = NULL, *p0 = NULL;
    const double t0 = salto_now();
    salto_solver_compare_mumps(1); // MUMPS on the same KKT matrices, timed apart
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
                // the wall time from loading the file to the validated motion, MUMPS's
                // comparison taken out
                const double wall = salto_now() - t0 - res.time_mumps;
                char checks[32];
                snprintf(checks, sizeof checks, "%d of %d", v.npassed, v.njudged);
                const double hess_jac =
                    res.n_eval_h > 0 && res.n_eval_jac > 0 && res.time_jac > 0.0
                        ? (res.time_h / res.n_eval_h) / (res.time_jac / res.n_eval_jac)
                        : -1.0;
                bench_cost_cells cc;
                bench_cost_format(&cc, res.factorisations, res.iterations, res.time_factor,
                                  res.time_mumps, res.mumps_inertia_differs, hess_jac);
                printf("%-24s %6d %6d %7s %7s %7s %7s %9.3f %9.3f  %-13s %s\n", name, ref.rounds,
                       res.iterations, cc.fpi, cc.kms, cc.mx, cc.hj, res.elapsed, wall,
                       res.converged ? "converged" : "NOT converged", checks);
                status = 0;
            }
            salto_validation_free(&v);
        }
    } else if (nlp) {
        fprintf(stderr, "salto bench paper: out of memory\n");
    }
    salto_solver_compare_mumps(0);
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
// (bench_measure, batches of 20 ms), and the time per iteration of IPOPT's first 20 iterations
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
        *out_us = bench_measure(bench_run_nlp_jac, &c, reps, 0.02).median_ns * 1e-3;
    }
    free(J);
    salto_nlp_destroy(nlp);
    salto_problem_destroy(p);
}


// Warm start: the problem at path again after its first flight is made 10% longer, on
// the first solve's knots per phase, from its solution's control points, against a cold solve
// of the same; reps of each, median. 0, or 1 when the first solve failed.
static int paper_warm(const char* name, const char* path, const char* limit, int reps) {
    int status = 0;
    const char* set0[1] = {limit};
    salto_problem_desc *p0 = NULL, *p1 = NULL;
    salto_nlp* n0 = app_load_nlp_set(path, 1, set0, &p0);
    salto_nlp* n1 = NULL;
    // the first flight (a phase without contact), 10% longer
    double d0 = 0.0;
    const char* fname = "";
    for (int i = 0; n0 && i < p0->nphase && !(d0 > 0.0); i++) {
        if (p0->phases[i].contact.type == SALTO_CONTACT_NONE) d0 = p0->phases[i].duration, fname = p0->phases[i].name;
    }
    char flight[300];
    snprintf(flight, sizeof flight, "phases.%s.duration=%.6g", fname, 1.1 * d0);
    const char* set1[2] = {limit, flight};
    if (n0 && !(d0 > 0.0)) {
        fprintf(stderr, "salto bench paper: %s has no flight phase\n", path);
        status = 1;
    } else if (n0) {
        // on a spline by control points the re-solve keeps the first problem's knots per
        // phase, so that the warm start can take its control points as they are
        // (salto_problem_knot_counts); on knots by spacing the longer flight gets its own
        // knots, and the warm start maps the solution onto them phase by phase
        salto_error e1 = {0};
        p1 = salto_problem_load_set(path, 2, set1, &e1);
        if (p1 && p1->nphase == p0->nphase && !(p0->knot_spacing > 0.0)) {
            salto_free(p1->phase_knots); // the file's own, if it gives them
            p1->phase_knots = salto_malloc(sizeof(int) * (size_t)p1->nphase);
            if (p1->phase_knots) salto_problem_knot_counts(p0, p1->phase_knots);
        }
        n1 = p1 ? salto_nlp_build(p1, &e1) : NULL;
        if (!n1) app_print_error(&e1);
    }
    double* x0 = n1 ? malloc(sizeof(double) * (size_t)salto_nlp_nx(n0)) : NULL;
    double* x1 = x0 ? malloc(sizeof(double) * (size_t)salto_nlp_nx(n1)) : NULL;
    // the first solve's multipliers, and the re-solve's warm start from them
    salto_multipliers mu0 = {NULL, NULL, NULL}, mu1 = {NULL, NULL, NULL};
    if (x1) {
        const size_t g0 = (size_t)salto_nlp_ng(n0) + 1, v0 = (size_t)salto_nlp_nx(n0);
        const size_t g1 = (size_t)salto_nlp_ng(n1) + 1, v1 = (size_t)salto_nlp_nx(n1);
        mu0.g = malloc(sizeof(double) * g0), mu0.x_lo = malloc(sizeof(double) * v0);
        mu0.x_hi = malloc(sizeof(double) * v0);
        mu1.g = malloc(sizeof(double) * g1), mu1.x_lo = malloc(sizeof(double) * v1);
        mu1.x_hi = malloc(sizeof(double) * v1);
        if (!mu0.g || !mu0.x_lo || !mu0.x_hi || !mu1.g || !mu1.x_lo || !mu1.x_hi) {
            free(x1);
            x1 = NULL;
        }
    }
    salto_solve_result r0, r1;
    salto_error err = {0};
    if (!x1) {
        if (n1) fprintf(stderr, "salto bench paper: out of memory\n");
        status = 1;
    } else {
        salto_nlp_initial_guess(n0, x0);
        double t[64], tc[64], tm[64];
        int it = 0, itc = 0, itm = 0;
        const char *st = "", *stc = "", *stm = "";
        const int nr = reps > 64 ? 64 : reps;
        int ok = salto_solve_first_mult(p0, n0, x0, &mu0, NULL, NULL, &r0, NULL, &err) == SALTO_OK;
        for (int k = 0; ok && k < nr; k++) {
            double t0 = salto_now();
            salto_nlp_guess_from_solution(n1, n0, x0, x1);
            ok = salto_solve(n1, x1, NULL, NULL, &r1, &err) == SALTO_OK;
            t[k] = salto_now() - t0;
            it = r1.iterations;
            st = r1.converged ? "converged" : "NOT converged";
            // and with the first solve's multipliers, mapped like the motion
            t0 = salto_now();
            salto_nlp_guess_from_solution(n1, n0, x0, x1);
            salto_nlp_mult_from_solution(n1, n0, mu0.g, mu0.x_lo, mu0.x_hi, mu1.g, mu1.x_lo, mu1.x_hi);
            ok = ok && salto_solve_mult(n1, x1, &mu1, 1, 0, NULL, NULL, &r1, &err) == SALTO_OK;
            tm[k] = salto_now() - t0;
            itm = r1.iterations;
            stm = r1.converged ? "converged" : "NOT converged";
            salto_nlp_initial_guess(n1, x1);
            ok = ok && salto_solve_first(p1, n1, x1, NULL, NULL, &r1, NULL, &err) == SALTO_OK;
            tc[k] = r1.elapsed;
            itc = r1.iterations;
            stc = r1.converged ? "converged" : "NOT converged";
        }
        if (ok) {
            qsort(t, (size_t)nr, sizeof(double), bench_cmp_double);
            qsort(tc, (size_t)nr, sizeof(double), bench_cmp_double);
            qsort(tm, (size_t)nr, sizeof(double), bench_cmp_double);
            printf("\n%s re-solved with its flight '%s' 10%% longer (%.6g s) %s, median of %d:\n",
                   name, fname, 1.1 * d0, p0->knot_spacing > 0.0 ? "on its own knots by spacing, the "
                   "solution mapped phase by phase" : "on the first solve's knots per phase", nr);
            char from[64];
            snprintf(from, sizeof from, "warm, from the %.6g s solution:", d0);
            printf("  %-31s %-13s %4d iterations %8.3f s\n", "cold, from the initial guess:", stc, itc, tc[nr / 2]);
            printf("  %-31s %-13s %4d iterations %8.3f s\n", from, st, it, t[nr / 2]);
            printf("  %-31s %-13s %4d iterations %8.3f s\n", "  and its multipliers:", stm, itm, tm[nr / 2]);
        } else {
            app_print_error(&err);
            status = 1;
        }
    }
    free(x0), free(x1);
    free(mu0.g), free(mu0.x_lo), free(mu0.x_hi), free(mu1.g), free(mu1.x_lo), free(mu1.x_hi);
    salto_nlp_destroy(n0), salto_nlp_destroy(n1);
    salto_problem_destroy(p0), salto_problem_destroy(p1);
    return status;
}


int bench_paper(int argc, char** argv) {
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
                   "automatic initial guess (on a spline by knot spacing through the coarse first\n"
                   "solve `salto solve` makes, counted in), with each Hessian strategy, and prints\n"
                   "the paper's Figures 7-9 as one table: DOF, variables, constraints, Jacobian\n"
                   "non-zeros, strategy, IPOPT's status, iterations, time per iteration and in all\n"
                   "(the median of N solves), the worst constraint violation, the worst drift of a\n"
                   "held contact site at ten times the slice density and the peak centre-of-mass\n"
                   "height. Then each shipped problem once as `salto solve` runs it (the coarse\n"
                   "first solve, and any denser solve or refinement, included; exact Hessian) and\n"
                   "how many of `salto validate`'s checks its result passes. Then warm-started\n"
                   "re-solves of the two 0.6 s dismounts (the shipped one and the paper's) and\n"
                   "the leap after lengthening their first flight by 10%%, from the motion mapped\n"
                   "phase by phase, and from it with the first solve's multipliers mapped with\n"
                   "the rows; and Figure 10 on the leap from peg to peg:\n"
                   "with each derivative method, the time per iteration of IPOPT's first 20\n"
                   "iterations, the time of one constraint Jacobian and its mean relative error\n"
                   "against the linear-time method (at a point near the initial guess).\n\n"
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
        const int taken = bench_shared_opt(argc, argv, &i, &quick, &reps, &root);
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
                 {"leap", "problems", 1, 1},
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

    printf("salto bench paper: each row the median of %d solve(s) from the initial guess (a spline "
           "by knot spacing after its coarse first solve, counted in); one BLAS thread\n", reps);
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
        printf("\nthe shipped problems as `salto solve` runs them (its coarse first solve and any "
               "denser solve or refinement included, exact Hessian), once, and `salto validate`'s checks on the result\n"
               "(fact/it: KKT factorisations an iteration; KKT ms: salto's, each; MUMPS x: MUMPS's time on the "
               "same matrices over salto's, * where it counted another inertia; Hess J: a Hessian in Jacobians' "
               "worth; solve s: IPOPT's solves; wall s: from loading the file to the validated motion, MUMPS's "
               "comparison taken out):\n");
        printf("%-24s %6s %6s %7s %7s %7s %7s %9s %9s  %-13s %s\n", "problem", "rounds", "iters",
               "fact/it", "KKT ms", "MUMPS x", "Hess J", "solve s", "wall s", "status", "checks");
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
