// cmd_solve.c: salto solve PROBLEM [-o DIR]: optimise a motion and write it out
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "salto/motion.h"
#include "salto/nlp.h"
#include "salto/solver.h"
#include "salto/validate.h"

static void help(void) {
    printf("usage: salto solve PROBLEM.yaml [-o DIR] [--quiet] [--set PATH=VALUE]...\n"
           "                   [--view side|front|top]\n\n"
           "Optimises the motion a problem file describes (docs/problem-format.md) with IPOPT:\n"
           "one progress line per iteration on stderr (iteration, objective, constraint\n"
           "violation, elapsed time), then a summary (status, iterations, time, the worst\n"
           "constraint with its name and time). Writes, each atomically, into DIR (default\n"
           "out/<problem name>):\n"
           "  motion.json    the problem as resolved, control points, frames, solver statistics\n"
           "  motion.csv     time and every DOF at the problem's frame rate\n"
           "  motion.bvh     the motion on the character's skeleton (Blender and other readers)\n"
           "  filmstrip.png  poses at evenly spaced times side by side, seen from the side,\n"
           "                 the front or above (output.filmstrip_view, --view), with the\n"
           "                 ground, boxes, bars and contacts\n"
           "Then it validates what it wrote as 'salto validate' does (the checks between the\n"
           "slices and the re-simulation, with the problem's validation settings) and says in\n"
           "its last line whether the motion is physical, naming the worst failing check.\n"
           "Exit status: 0 when IPOPT reports success and every check passes; 1 when IPOPT\n"
           "stops without success (the best iterate is still written, marked as not\n"
           "converged) or a check fails; 2 for bad input.\n\n"
           "  -o DIR    where to write the motion\n"
           "  --quiet   no progress lines\n"
           "  --set PATH=VALUE\n"
           "            change one value of the problem file before reading it, by its dotted\n"
           "            path (list elements by name or index; missing keys are added; a YAML\n"
           "            flow value like [1, 2] replaces a list or map, null drops one):\n"
           "            --set phases.flight.duration=0.66 --set solver.hessian=limited-memory\n"
           "  --view V  filmstrip.png seen from the side (x to the right, z up), the front (y\n"
           "            to the right, z up) or above (x to the right, y up), in place of the\n"
           "            problem's output.filmstrip_view (the motion is the same)\n");
}


static void progress(const salto_solver_progress* p, void* user) {
    (void)user;
    fprintf(stderr, "iter %4d  objective %14.7e  violation %9.2e  %8.3f s\n", p->iter,
            p->objective, p->inf_pr, p->elapsed);
}


typedef struct violation {
    int row;
    double amount;
} violation;


static int cmp_violation(const void* a, const void* b) {
    const double x = ((const violation*)a)->amount, y = ((const violation*)b)->amount;
    return (x < y) - (x > y);
}


// after a failed solve: the constraints that remain violated, largest first
static void report_violations(salto_nlp* nlp, const double* x, double tol) {
    const int ng = salto_nlp_ng(nlp);
    double* g = malloc(sizeof(double) * (size_t)(ng + 1));
    double* lo = malloc(sizeof(double) * (size_t)(ng + 1));
    double* hi = malloc(sizeof(double) * (size_t)(ng + 1));
    violation* v = malloc(sizeof(violation) * (size_t)(ng + 1));
    if (!g || !lo || !hi || !v || salto_nlp_eval_g(nlp, x, g) != SALTO_OK) {
        free(g), free(lo), free(hi), free(v);
        return;
    }
    salto_nlp_bounds(nlp, NULL, NULL, lo, hi);
    int n = 0;
    for (int r = 0; r < ng; r++) {
        const double a = fmax(fmax(lo[r] - g[r], g[r] - hi[r]), 0.0);
        if (a > tol) v[n].row = r, v[n].amount = a, n++;
    }
    qsort(v, (size_t)n, sizeof(violation), cmp_violation);
    if (n > 0) fprintf(stderr, "%d constraint rows remain violated (by more than %g):\n", n, tol);
    for (int k = 0; k < n && k < 10; k++) {
        char name[600];
        salto_nlp_row_name(nlp, v[k].row, name, sizeof name);
        fprintf(stderr, "  %.3e  %s\n", v[k].amount, name);
    }
    if (n > 10) fprintf(stderr, "  ... and %d more\n", n - 10);
    free(g), free(lo), free(hi), free(v);
}


// The validation of the solved motion x, as salto validate judges it by default (the problem's
// validation settings): one line, naming the worst failing check (the largest violation over
// its threshold) and how many others fail. Returns 1 when every judged check passes, 0 when
// one fails, -1 when the validation could not run (its error printed).
static int report_validation(salto_nlp* nlp, const double* x, const char* dir) {
    const salto_problem_desc* p = salto_nlp_problem(nlp);
    salto_validate_opts o;
    salto_validate_opts_from_problem(&o, p);
    salto_validation v;
    salto_error err = {0};
    if (salto_validate(nlp, x, &o, &v, &err) != SALTO_OK) {
        app_print_error(&err);
        fprintf(stderr, "validation: could not run\n");
        return -1;
    }
    const int pass = v.pass;
    if (pass) {
        fprintf(stderr, "validation: %d of %d checks pass at %d samples: %s\n", v.npassed,
                v.njudged, v.nsample, salto_validation_verdict(p, &v));
    } else {
        double wr = 0.0;
        const salto_check* w = salto_validation_worst(&v, &wr);
        const int nfail = v.njudged - v.npassed;
        fprintf(stderr, "validation: %d of %d checks pass: NOT PHYSICAL", v.npassed, v.njudged);
        if (w) {
            const char* at = salto_check_at(p->model, w);
            fprintf(stderr, ": the worst, %s in phase '%s'%s%s%s, is %.3g %s at t = %.3f s "
                            "against %.3g (%.1f times)",
                    salto_check_name(w->kind), p->phases[w->phase].name, at ? " (" : "",
                    at ? at : "", at ? ")" : "", w->worst, salto_check_unit(w->kind),
                    w->worst_time, w->threshold, wr);
            if (nfail > 1) fprintf(stderr, "; %d more fail", nfail - 1);
        }
        fprintf(stderr, "; 'salto validate %s/motion.json' shows every check\n", dir);
    }
    salto_validation_free(&v);
    return pass;
}


// a factorisation predicted over this many multiply-adds (seconds, at about 1e9 a second) is
// warned of before the solve
#define SOLVE_WARN_FLOPS 2e9

int cmd_solve(int argc, char** argv) {
    return app_solve(argc, argv, 1);
}


int app_solve(int argc, char** argv, int verdict) {
    const char* path = NULL;
    const char* dir = NULL;
    int quiet = 0, nset = 0, view = -1; // view: a salto_filmstrip_view, -1: the problem's
    const char** set = calloc((size_t)argc, sizeof *set); // at most one per argument
    if (!set) {
        fprintf(stderr, "salto solve: out of memory\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            help();
            free(set);
            return 0;
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
            set[nset++] = argv[++i];
        } else if (strcmp(argv[i], "--view") == 0 && i + 1 < argc) {
            view = salto_filmstrip_view_parse(argv[++i]);
            if (view < 0) {
                fprintf(stderr, "salto solve: --view needs side, front or top, not '%s'\n",
                        argv[i]);
                free(set);
                return 2;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "salto solve: unknown or incomplete option '%s'\n", argv[i]);
            free(set);
            return 2;
        } else if (!path) {
            path = argv[i];
        } else {
            fprintf(stderr, "salto solve: unexpected argument '%s'\n", argv[i]);
            free(set);
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "usage: salto solve PROBLEM.yaml [-o DIR] (see 'salto solve --help')\n");
        free(set);
        return 2;
    }
    char dirbuf[4096];
    if (!dir) {
        app_default_dir(path, dirbuf, sizeof dirbuf);
        dir = dirbuf;
    }

    salto_error err = {0};
    salto_problem_desc* p = NULL;
    salto_nlp* nlp = app_load_nlp_set(path, nset, set, &p);
    free(set);
    if (!nlp) return 2;
    if (app_check_output_dir("salto solve", dir) != 0) { // before the solve, not after
        salto_nlp_destroy(nlp);
        salto_problem_destroy(p);
        return 2;
    }
    const int nx = salto_nlp_nx(nlp);
    double* x = salto_malloc((size_t)nx * sizeof(double));
    if (!x) {
        fprintf(stderr, "salto solve: out of memory\n");
        salto_nlp_destroy(nlp);
        salto_problem_destroy(p);
        return 1;
    }
    salto_nlp_initial_guess(nlp, x);
    char spl[256];
    salto_problem_spline_summary(p, spl, sizeof spl);
    fprintf(stderr, "%s: %d variables, %d constraints, %d Jacobian non-zeros; %s\n", path, nx,
            salto_nlp_ng(nlp), salto_nlp_nnz_jac(nlp), spl);

    // the time a factorisation will take, predicted from the KKT pattern (milliseconds to
    // make): warned of when it is seconds, before the solve makes hundreds
    {
        double fl = 0.0, lnz = 0.0;
        if (salto_nlp_kkt_predict(nlp, &fl, &lnz) == SALTO_OK && fl > SOLVE_WARN_FLOPS) {
            fprintf(stderr, "salto solve: warning: each KKT factorisation is predicted at %.2g "
                            "multiply-adds (about %.0f s; an iteration makes two or three, a "
                            "solve tens to hundreds of iterations): fewer slices or control "
                            "points make it faster ('salto check' measures an iteration)\n",
                    fl, fl / 1e9);
        }
    }
    salto_solve_result res;
    salto_refine_result ref;
    int status = 0;
    // SALTO_KKT_COMPARE (salto bench zoo sets it): MUMPS factors every KKT matrix too, timed
    // apart, for the cost line's comparison
    const char* cmp = getenv("SALTO_KKT_COMPARE");
    salto_solver_compare_mumps(cmp && *cmp && strcmp(cmp, "0") != 0);
    if (salto_solve_timed(&p, &nlp, &x, quiet ? NULL : progress, NULL, &res, &ref, &err) !=
        SALTO_OK) {
        app_print_error(&err);
        status = err.status == SALTO_ERR_INVALID ? 2 : 1; // a rejected solver.ipopt option
    } else {
        fprintf(stderr, "%s after %d iterations in %.3f s; objective %.7e\n", res.status_name,
                res.iterations, res.elapsed, res.objective);
        if (ref.freed > 0) {
            // constraints that restate others: freed, so that the solver is not stalled by them
            fprintf(stderr, "note: %d equality row%s restated another row exactly (a constraint "
                            "given twice, a site placed twice) and %s not enforced:\n",
                    ref.freed, ref.freed == 1 ? "" : "s", ref.freed == 1 ? "was" : "were");
            for (int k = 0; k < ref.freed && k < 3; k++) fprintf(stderr, "  %s\n", ref.freed_row[k]);
            if (ref.freed > 3) fprintf(stderr, "  ... and %d more ('salto check' lists them)\n", ref.freed - 3);
        }
        if (ref.restored > 0) {
            fprintf(stderr, "note: %d equality row%s depended on the others at the start and near "
                            "it, but the motion solved without %s broke %s: enforced again, and "
                            "the solve started over ('salto check' lists them)\n",
                    ref.restored, ref.restored == 1 ? "" : "s", ref.restored == 1 ? "it" : "them",
                    ref.restored == 1 ? "it" : "them");
        }
        if (ref.timed) {
            // the free durations: what the first stage chose, then pinned for the rest
            fprintf(stderr, "of which the first solve, with the phase durations free: %s after %d "
                            "iterations in %.3f s; durations chosen:",
                    ref.timed_status, ref.timed_iterations, ref.timed_elapsed);
            for (int i = 0, k = 0; i < p->nphase; i++) {
                const salto_phase_desc* ph = &p->phases[i];
                if (!ph->dur_free || !(ph->dur_lo < ph->dur_hi)) continue;
                fprintf(stderr, "%s %s %.4f s (in [%g, %g])", k++ ? "," : "", ph->name, ph->duration,
                        ph->dur_lo, ph->dur_hi);
            }
            fprintf(stderr, "\n");
        }
        if (ref.warmup_status[0]) {
            fprintf(stderr, "of which the first solve, on %d control points for the initial guess: "
                            "%s after %d iterations in %.3f s\n",
                    SALTO_WARMUP_CONTROL_POINTS, ref.warmup_status, ref.warmup_iterations,
                    ref.warmup_elapsed);
        }
        if (ref.rounds > 0 || ref.pending > 0) {
            fprintf(stderr, "refinement%s: %d slices added in %d re-solves (first solve %d iterations, "
                            "%.3f s)",
                    ref.auto_refined ? " (the motion failed its validation)" : "", ref.added,
                    ref.rounds, ref.first_iterations, ref.first_elapsed);
            if (ref.undone > 0) {
                if (ref.undone == 1) {
                    fprintf(stderr, "; 1 re-solve did not converge (%s) and was undone",
                            ref.failed_status);
                } else {
                    fprintf(stderr, "; %d re-solves did not converge (the last: %s) and were undone",
                            ref.undone, ref.failed_status);
                }
            }
            if (ref.out_of_time) {
                fprintf(stderr, "; stopped at its time budget (solver.refine_time, %g s)",
                        p->solver.refine_time);
            }
            if (ref.stalled && ref.kept_earlier) {
                fprintf(stderr, "; stopped at a round that did not help, and kept the best motion "
                                "before it (%d slices added)",
                        ref.added);
            } else if (ref.stalled) {
                fprintf(stderr, "; stopped at a round that did not help");
            } else if (ref.kept_earlier) {
                fprintf(stderr, "; a later round's motion was worse, so an earlier one is kept (%d "
                                "slices added)",
                        ref.added);
            }
            if (ref.pending > 0) {
                if (ref.pending == 1) {
                    fprintf(stderr, "; 1 place still violated, at %.2f x its validation threshold "
                                    "(salto validate locates it)",
                            ref.worst_ratio);
                } else {
                    fprintf(stderr, "; %d places still violated, the worst at %.2f x its "
                                    "validation threshold (salto validate locates them)",
                            ref.pending, ref.worst_ratio);
                }
            }
            if (ref.auto_undone) {
                fprintf(stderr, "; its motion still failed, so the first went on to a denser solve");
            }
            fprintf(stderr, "\n");
        }
        if (ref.denser_status[0]) {
            // why it ran, and what came of it
            const char* why = ref.denser_after_limit ? "the solve did not converge"
                                                     : "the motion failed its validation";
            const char* kept = ref.denser_after_limit ? "it converged and is kept"
                                                      : "its motion validates better and is kept";
            const char* not_kept = ref.denser_after_limit
                                       ? "it did not converge either, so the first is kept"
                                       : "its motion does not validate better, so the first is kept";
            fprintf(stderr, "and a denser solve, %d slices a segment, as %s: %s after %d "
                            "iterations in %.3f s; %s\n",
                    ref.denser_slices_per_segment, why, ref.denser_status, ref.denser_iterations,
                    ref.denser_elapsed, ref.denser_kept ? kept : not_kept);
        }
        if (ref.finer_status[0]) {
            fprintf(stderr, "and a finer solve, knots every %g s, as the motion failed %d check%s: %s "
                            "after %d iterations in %.3f s; %s\n",
                    ref.finer_spacing, ref.finer_failing[0], ref.finer_failing[0] == 1 ? "" : "s",
                    ref.finer_status, ref.finer_iterations, ref.finer_elapsed,
                    ref.finer_kept ? "its motion validates better and is kept"
                                   : "its motion does not validate better, so the first is kept");
        }
        if (ref.turned_status[0]) {
            char why[96];
            if (ref.turned_failing[0] >= 0) {
                snprintf(why, sizeof why, "the motion failed %d check%s", ref.turned_failing[0],
                         ref.turned_failing[0] == 1 ? "" : "s");
            } else {
                snprintf(why, sizeof why, "the solve did not converge");
            }
            fprintf(stderr, "and a turned solve, the root's angles in a turned chart (its middle angle's "
                            "|sin| at most %.2f along the motion, %.2f in the character's chart), as %s: "
                            "%s after %d iterations in %.3f s; %s\n",
                    ref.turned_tilt[1], ref.turned_tilt[0], why, ref.turned_status, ref.turned_iterations,
                    ref.turned_elapsed,
                    ref.turned_kept ? "its motion is better and is kept" : "its motion is not better, so the first is kept");
        }
        fprintf(stderr, "time: constraints %.3f s (%d), Jacobian %.3f s (%d), Hessian %.3f s (%d), "
                        "IPOPT and the rest %.3f s\n",
                res.time_g, res.n_eval_g, res.time_jac, res.n_eval_jac, res.time_h, res.n_eval_h,
                res.elapsed - res.time_g - res.time_jac - res.time_h);
        salto_print_cost(stderr, &res);
        if (res.worst_row >= 0) {
            char name[600];
            salto_nlp_row_name(nlp, res.worst_row, name, sizeof name);
            fprintf(stderr, "worst constraint: %.3e, %s\n", res.max_violation, name);
        }
        // each objective term's part, when there are several
        if (p->nobj > 1) {
            static const char* const kind[] = {"acceleration", "reference", "height", "travel",
                                               "torque", "contact_force", "contact_jerk", "duration"};
            fprintf(stderr, "objective terms:");
            for (int k = 0; k < p->nobj; k++) {
                const salto_objective_desc* od = &p->objs[k];
                fprintf(stderr, "%s %s%s%s%s %.6g", k ? "," : "", kind[od->type], od->name[0] ? " '" : "",
                        od->name, od->name[0] ? "'" : "", salto_nlp_objective_term(nlp, x, k));
            }
            fprintf(stderr, "\n");
        }
        // what the height and travel terms reached
        for (int k = 0; k < p->nobj; k++) {
            const salto_objective_desc* od = &p->objs[k];
            if (od->type != SALTO_OBJ_HEIGHT && od->type != SALTO_OBJ_TRAVEL) continue;
            char who[120], when[120];
            if (od->site >= 0) {
                snprintf(who, sizeof who, "site '%s'", p->model->site_name[od->site]);
            } else {
                snprintf(who, sizeof who, "the centre of mass");
            }
            if (od->has_time) {
                snprintf(when, sizeof when, "at t = %.3f s", od->time);
            } else {
                snprintf(when, sizeof when, "mean over phase '%s'", p->phases[od->phase].name);
            }
            fprintf(stderr, "objective %s%s%s(%s, weight %g): %s of %s %.4f m %s\n",
                    od->name[0] ? "'" : "", od->name, od->name[0] ? "' " : "",
                    od->maximise ? "maximised" : "minimised", od->weight,
                    od->type == SALTO_OBJ_HEIGHT ? "height" : "travel", who,
                    salto_nlp_objective_measure(nlp, x, k), when);
        }
        int dsite = -1, dphase = -1;
        double dtime = 0.0;
        const double drift = salto_nlp_contact_drift(nlp, x, 10, &dsite, &dphase, &dtime);
        if (dsite >= 0) {
            fprintf(stderr, "contact drift (held sites, 10 x slice density): %.3f mm, '%s' in phase "
                            "'%s' at t = %.3f s\n",
                    drift * 1e3, p->model->site_name[dsite], p->phases[dphase].name, dtime);
        }
        if (!res.converged) {
            status = 1;
            report_violations(nlp, x, p->solver.tolerance);
        }

        // the best iterate is written either way, marked in motion.json
        char json[4200], csv[4200], bvh[4200], png[4200];
        snprintf(json, sizeof json, "%s/motion.json", dir);
        snprintf(csv, sizeof csv, "%s/motion.csv", dir);
        snprintf(bvh, sizeof bvh, "%s/motion.bvh", dir);
        snprintf(png, sizeof png, "%s/filmstrip.png", dir);
        salto_motion* mo = salto_motion_from_nlp(nlp, x);
        if (!mo) {
            fprintf(stderr, "salto solve: out of memory\n");
            status = 1;
        } else if (app_make_dirs(dir) != 0) {
            fprintf(stderr, "salto solve: cannot create '%s': %s\n", dir, strerror(errno));
            status = 2;
        } else if (salto_motion_write_json(nlp, mo, &res, json, &err) != SALTO_OK ||
                   salto_motion_write_csv(mo, csv, &err) != SALTO_OK ||
                   salto_motion_write_bvh(p->model, mo, bvh, &err) != SALTO_OK ||
                   salto_motion_write_filmstrip(p, mo, p->output.filmstrip_frames,
                                                view >= 0 ? view : p->output.filmstrip_view, png,
                                                &err) != SALTO_OK) {
            app_print_error(&err);
            status = 2;
        } else {
            fprintf(stderr, "wrote %s/: motion.json, motion.csv, motion.bvh, filmstrip.png%s\n",
                    dir, res.converged ? "" : " (not converged)");
            // "Solve_Succeeded" is not the last word: the motion written, judged between the
            // slices and re-simulated
            if (verdict) {
                const int valid = report_validation(nlp, x, dir);
                if (valid <= 0 && status == 0) status = 1;
            }
        }
        salto_motion_destroy(mo);
    }
    salto_free(x);
    salto_nlp_destroy(nlp);
    salto_problem_destroy(p);
    return status;
}
