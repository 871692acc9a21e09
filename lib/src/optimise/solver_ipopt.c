// solver_ipopt.c: the adapter to IPOPT's C interface (the only file that includes it)
//
// IPOPT 3.11's C interface takes option names as non-const char* and, unless told otherwise,
// reads ipopt.opt from the working directory; both are handled here: every option is copied
// into a buffer before the call, and option_file_name is set to "" so that no file can change
// results silently.
#include "salto/solver.h"

#include "kkt_ma57.h"

#include <IpStdCInterface.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct ctx {
    salto_nlp* nlp;
    salto_progress_fn progress;
    void* user;
    double t0;
    int n_f, n_g, n_jac, n_h;
    double t_g, t_jac, t_h;
    int last_iter;
} ctx;


static Bool eval_f(Index n, Number* x, Bool new_x, Number* obj, UserDataPtr u) {
    (void)n, (void)new_x;
    ctx* c = u;
    c->n_f++;
    return salto_nlp_eval_f(c->nlp, x, obj) == SALTO_OK;
}


static Bool eval_grad_f(Index n, Number* x, Bool new_x, Number* grad, UserDataPtr u) {
    (void)n, (void)new_x;
    ctx* c = u;
    return salto_nlp_eval_grad(c->nlp, x, grad) == SALTO_OK;
}


static Bool eval_g(Index n, Number* x, Bool new_x, Index m, Number* g, UserDataPtr u) {
    (void)n, (void)new_x, (void)m;
    ctx* c = u;
    c->n_g++;
    const double t0 = salto_now();
    const int ok = salto_nlp_eval_g(c->nlp, x, g) == SALTO_OK;
    c->t_g += salto_now() - t0;
    return ok;
}


static Bool eval_jac_g(Index n, Number* x, Bool new_x, Index m, Index nele, Index* rows,
                       Index* cols, Number* values, UserDataPtr u) {
    (void)n, (void)new_x, (void)m, (void)nele;
    ctx* c = u;
    if (!values) {
        salto_nlp_jac_pattern(c->nlp, rows, cols);
        return 1;
    }
    c->n_jac++;
    const double t0 = salto_now();
    const int ok = salto_nlp_eval_jac(c->nlp, x, values) == SALTO_OK;
    c->t_jac += salto_now() - t0;
    return ok;
}


// the Lagrangian's Hessian (used with hessian_approximation exact)
static Bool eval_h(Index n, Number* x, Bool new_x, Number obj_factor, Index m, Number* lambda,
                   Bool new_lambda, Index nele, Index* rows, Index* cols, Number* values,
                   UserDataPtr u) {
    (void)n, (void)new_x, (void)m, (void)new_lambda, (void)nele;
    ctx* c = u;
    if (!values) {
        salto_nlp_hess_pattern(c->nlp, rows, cols);
        return 1;
    }
    c->n_h++;
    const double t0 = salto_now();
    const int ok = salto_nlp_eval_hess(c->nlp, x, obj_factor, lambda, values) == SALTO_OK;
    c->t_h += salto_now() - t0;
    return ok;
}


static Bool intermediate(Index alg_mod, Index iter, Number obj, Number inf_pr, Number inf_du,
                         Number mu, Number d_norm, Number reg, Number alpha_du, Number alpha_pr,
                         Index ls_trials, UserDataPtr u) {
    (void)alg_mod, (void)mu, (void)d_norm, (void)reg, (void)alpha_du, (void)alpha_pr,
        (void)ls_trials;
    ctx* c = u;
    c->last_iter = iter;
    if (c->progress) {
        salto_solver_progress p = {iter, obj, inf_pr, inf_du, salto_now() - c->t0};
        c->progress(&p, c->user);
    }
    return 1;
}


static void opt_str(IpoptProblem pb, const char* key, const char* val) {
    char k[64], v[128];
    snprintf(k, sizeof k, "%s", key);
    snprintf(v, sizeof v, "%s", val);
    AddIpoptStrOption(pb, k, v);
}


static void opt_num(IpoptProblem pb, const char* key, double val) {
    char k[64];
    snprintf(k, sizeof k, "%s", key);
    AddIpoptNumOption(pb, k, val);
}


static void opt_int(IpoptProblem pb, const char* key, int val) {
    char k[64];
    snprintf(k, sizeof k, "%s", key);
    AddIpoptIntOption(pb, k, val);
}


// A user's option (solver.ipopt in the problem file): an integer, a number or a word, in that
// order of trial, since IPOPT types its options and rejects a value of the wrong type.
static int opt_try(IpoptProblem pb, const salto_solver_option* o) {
    char k[128], v[256];
    snprintf(k, sizeof k, "%s", o->key);
    snprintf(v, sizeof v, "%s", o->value);
    char* end = NULL;
    const long iv = strtol(v, &end, 10);
    if (end != v && *end == '\0' && iv >= -2147483647L && iv <= 2147483647L &&
        AddIpoptIntOption(pb, k, (Index)iv)) {
        return 1;
    }
    const double nv = strtod(v, &end);
    if (end != v && *end == '\0' && AddIpoptNumOption(pb, k, nv)) return 1;
    return AddIpoptStrOption(pb, k, v) ? 1 : 0;
}


// IPOPT prints a line on stdout for every trial of the wrong type: stdout is closed meanwhile
// (salto reports a rejected option itself, with its place in the problem file)
static int opt_user(IpoptProblem pb, const salto_solver_option* o) {
    fflush(stdout);
    const int saved = dup(STDOUT_FILENO);
    const int null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0) dup2(null, STDOUT_FILENO);
    const int ok = opt_try(pb, o);
    fflush(stdout);
    if (saved >= 0 && null >= 0) dup2(saved, STDOUT_FILENO);
    if (saved >= 0) close(saved);
    if (null >= 0) close(null);
    return ok;
}


static const char* status_name(int s) {
    switch (s) {
    case Solve_Succeeded: return "Solve_Succeeded";
    case Solved_To_Acceptable_Level: return "Solved_To_Acceptable_Level";
    case Infeasible_Problem_Detected: return "Infeasible_Problem_Detected";
    case Search_Direction_Becomes_Too_Small: return "Search_Direction_Becomes_Too_Small";
    case Diverging_Iterates: return "Diverging_Iterates";
    case User_Requested_Stop: return "User_Requested_Stop";
    case Feasible_Point_Found: return "Feasible_Point_Found";
    case Maximum_Iterations_Exceeded: return "Maximum_Iterations_Exceeded";
    case Restoration_Failed: return "Restoration_Failed";
    case Error_In_Step_Computation: return "Error_In_Step_Computation";
    case Maximum_CpuTime_Exceeded: return "Maximum_CpuTime_Exceeded";
    case Not_Enough_Degrees_Of_Freedom: return "Not_Enough_Degrees_Of_Freedom";
    case Invalid_Problem_Definition: return "Invalid_Problem_Definition";
    case Invalid_Option: return "Invalid_Option";
    case Invalid_Number_Detected: return "Invalid_Number_Detected";
    case Unrecoverable_Exception: return "Unrecoverable_Exception";
    case NonIpopt_Exception_Thrown: return "NonIpopt_Exception_Thrown";
    case Insufficient_Memory: return "Insufficient_Memory";
    case Internal_Error: return "Internal_Error";
    default: return "unknown status";
    }
}


static _Thread_local int compare_mumps;

void salto_solver_compare_mumps(int on) { compare_mumps = on != 0; }

int salto_blas1_linked(void); // blas1.c: IPOPT's vector BLAS, the same on every machine


// One BLAS thread unless the user asked for more: MUMPS factors matrices of a few hundred
// rows, where OpenBLAS's worker threads only spin and yield (measured: a third of the dismount's
// solve time on this 2-core machine). Looked up at run time, so that any BLAS links.
static void blas_one_thread(void) {
    if (!salto_blas1_linked()) return;
    if (getenv("OPENBLAS_NUM_THREADS") || getenv("OMP_NUM_THREADS")) return;
    void (*set)(int) = NULL;
    void* sym = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    memcpy(&set, &sym, sizeof set); // object to function pointer without a cast warning
    if (set) set(1);
}


salto_status salto_solve(salto_nlp* nlp, double* x, salto_progress_fn progress, void* user,
                         salto_solve_result* result, salto_error* err) {
    return salto_solve_mult(nlp, x, NULL, 0, 0, progress, user, result, err);
}


salto_status salto_solve_mult(salto_nlp* nlp, double* x, salto_multipliers* mult, int warm,
                              int max_iterations, salto_progress_fn progress, void* user,
                              salto_solve_result* result, salto_error* err) {
    const salto_problem_desc* p = salto_nlp_problem(nlp);
    const int nx = salto_nlp_nx(nlp), ng = salto_nlp_ng(nlp);
    memset(result, 0, sizeof *result);
    result->worst_row = -1;
    const salto_status mst = salto_nlp_check_memory(nlp, err);
    if (mst != SALTO_OK) return mst;

    double* x_lo = salto_malloc((size_t)nx * sizeof(double));
    double* x_hi = salto_malloc((size_t)nx * sizeof(double));
    double* g_lo = salto_malloc((size_t)(ng + 1) * sizeof(double));
    double* g_hi = salto_malloc((size_t)(ng + 1) * sizeof(double));
    double* g = salto_malloc((size_t)(ng + 1) * sizeof(double));
    if (!x_lo || !x_hi || !g_lo || !g_hi || !g) {
        salto_free(x_lo), salto_free(x_hi), salto_free(g_lo), salto_free(g_hi), salto_free(g);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    salto_nlp_bounds(nlp, x_lo, x_hi, g_lo, g_hi);
    blas_one_thread();

    IpoptProblem pb = CreateIpoptProblem(nx, x_lo, x_hi, ng, g_lo, g_hi, salto_nlp_nnz_jac(nlp),
                                         salto_nlp_nnz_hess(nlp), 0, eval_f, eval_g,
                                         eval_grad_f, eval_jac_g, eval_h);
    if (!pb) {
        salto_free(x_lo), salto_free(x_hi), salto_free(g_lo), salto_free(g_hi), salto_free(g);
        return SALTO_FAIL(err, SALTO_ERR_SOLVER, salto_loc_none(), "IPOPT rejected the problem");
    }
    opt_str(pb, "option_file_name", "");
    opt_str(pb, "sb", "yes");
    opt_int(pb, "print_level", p->solver.print_level);
    opt_num(pb, "tol", p->solver.tolerance);
    opt_int(pb, "max_iter", max_iterations > 0 && max_iterations < p->solver.max_iterations
                                ? max_iterations
                                : p->solver.max_iterations);
    opt_num(pb, "max_cpu_time", p->solver.max_cpu_time);
    opt_str(pb, "hessian_approximation", p->solver.hessian_exact ? "exact" : "limited-memory");
    // salto's own factorisation behind IPOPT's MA57 driver (kkt_ma57.h), or MUMPS
    // (solver.linear_solver); SALTO_KKT=mumps or salto overrides it (a measuring aid)
    const char* kkt = getenv("SALTO_KKT");
    const int own_kkt = kkt && (strcmp(kkt, "salto") == 0 || strcmp(kkt, "mumps") == 0)
                            ? strcmp(kkt, "salto") == 0
                            : p->solver.linear_solver == SALTO_LINEAR_SALTO;
    kkt_ma57_stats kst;
    if (own_kkt) {
        opt_str(pb, "linear_solver", "ma57");
    } else {
        opt_str(pb, "linear_solver", "mumps");
    }
    opt_str(pb, "mu_strategy", "adaptive");
    if (warm && mult) {
        // from a solution and its multipliers (a refinement's re-solve): the point and the
        // multipliers pushed from their bounds by 1e-3. No initial barrier parameter: IPOPT's
        // mu_init serves the monotone update only, and the adaptive one chooses its own
        // (leap_pegs refined with mu_init 1e-1 and 1e-3: the same iterations to the last)
        opt_str(pb, "warm_start_init_point", "yes");
        const double push = 1e-3;
        opt_num(pb, "warm_start_bound_push", push);
        opt_num(pb, "warm_start_bound_frac", push);
        opt_num(pb, "warm_start_slack_bound_push", push);
        opt_num(pb, "warm_start_slack_bound_frac", push);
        opt_num(pb, "warm_start_mult_bound_push", push);
    }
    for (int i = 0; i < p->solver.nipopt; i++) {
        if (!opt_user(pb, &p->solver.ipopt[i])) {
            const salto_solver_option* o = &p->solver.ipopt[i];
            FreeIpoptProblem(pb);
            salto_free(x_lo), salto_free(x_hi), salto_free(g_lo), salto_free(g_hi), salto_free(g);
            return SALTO_FAIL(err, SALTO_ERR_INVALID, o->loc,
                              "solver.ipopt: IPOPT rejects option '%s' with value '%s' (see "
                              "IPOPT's options reference for its names and types)",
                              o->key, o->value);
        }
    }

    ctx c = {nlp, progress, user, salto_now(), 0, 0, 0, 0, 0.0, 0.0, 0.0, 0};
    SetIntermediateCallback(pb, intermediate);
    double obj = 0.0;
    if (own_kkt) kkt_ma57_begin(&kst, compare_mumps);
    const enum ApplicationReturnStatus st =
        IpoptSolve(pb, x, g, &obj, mult ? mult->g : NULL, mult ? mult->x_lo : NULL,
                   mult ? mult->x_hi : NULL, &c);
    FreeIpoptProblem(pb);
    if (own_kkt) kkt_ma57_end();
    result->status = (int)st;
    snprintf(result->status_name, sizeof result->status_name, "%s", status_name((int)st));
    result->converged = st == Solve_Succeeded || st == Solved_To_Acceptable_Level;
    result->iterations = c.last_iter;
    result->elapsed = salto_now() - c.t0;
    result->n_eval_f = c.n_f;
    result->n_eval_g = c.n_g;
    result->n_eval_jac = c.n_jac;
    result->n_eval_h = c.n_h;
    result->time_g = c.t_g;
    result->time_jac = c.t_jac;
    result->time_h = c.t_h;
    if (own_kkt) {
        result->factorisations = kst.factorisations, result->kkt_order = kst.n;
        result->time_factor = kst.factor_s, result->time_kkt_solve = kst.solve_s;
        result->mumps_compared = kst.compared, result->mumps_inertia_differs = kst.inertia_differs;
        result->time_mumps = kst.mumps_s;
        result->elapsed -= kst.mumps_s; // the comparison is not the solve's
    }
    salto_nlp_eval_f(nlp, x, &result->objective);

    // the worst constraint at the returned point
    if (ng > 0 && salto_nlp_eval_g(nlp, x, g) == SALTO_OK) {
        for (int r = 0; r < ng; r++) {
            const double v = fmax(fmax(g_lo[r] - g[r], g[r] - g_hi[r]), 0.0);
            if (result->worst_row < 0 || v > result->max_violation) {
                result->max_violation = v;
                result->worst_row = r;
            }
        }
    }
    salto_free(x_lo), salto_free(x_hi), salto_free(g_lo), salto_free(g_hi), salto_free(g);
    return SALTO_OK;
}
