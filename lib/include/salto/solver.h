// solver.h: solving a salto NLP with IPOPT (the adapter in solver_ipopt.c)
#ifndef SALTO_SOLVER_H
#define SALTO_SOLVER_H

#include "salto/nlp.h"

// One line of progress, reported after every iteration.
typedef struct salto_solver_progress {
    int iter;          // iteration number
    double objective;  // objective value
    double inf_pr;     // constraint violation
    double inf_du;     // dual infeasibility
    double elapsed;    // wall time since the solve started, s
} salto_solver_progress;

typedef void (*salto_progress_fn)(const salto_solver_progress* p, void* user);

typedef struct salto_solve_result {
    int converged;         // 1 when IPOPT reports success
    int status;            // IPOPT's return status (ApplicationReturnStatus)
    char status_name[64];  // its name
    int iterations;
    double objective;
    double elapsed;        // s
    double max_violation;  // largest constraint violation at the returned x
    int worst_row;         // its row (-1 when there are no constraints)
    int n_eval_f, n_eval_g, n_eval_jac, n_eval_h;  // callback counts
    double time_g, time_jac, time_h;  // wall time in salto's constraint, Jacobian and Hessian
                                      // evaluations, s (the rest of elapsed is IPOPT's)
} salto_solve_result;

// Solves the NLP from the starting point x (nx), in place: x receives the best iterate even
// when IPOPT stops without success. Every option is set in code; IPOPT's options file in the
// working directory is not read. progress may be NULL. Returns SALTO_OK when IPOPT ran (see
// result->converged), SALTO_ERR_SOLVER with err filled when it could not start.
salto_status salto_solve(salto_nlp* nlp, double* x, salto_progress_fn progress, void* user,
                         salto_solve_result* result, salto_error* err);

#endif
