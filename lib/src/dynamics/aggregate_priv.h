// aggregate_priv.h: the baseline Jacobian methods (aggregate_baseline.c) that salto_f0_jac
// (aggregate.c) dispatches to; the baselines use only the public dynamics, never aggregate.c
#ifndef SALTO_AGGREGATE_PRIV_H
#define SALTO_AGGREGATE_PRIV_H

#include "salto/aggregate.h"

// f0's Jacobian by direct O(D^2) differentiation of the body-frame RNEA, and the doubles of
// d->work it needs
void salto_f0_jac_direct(const salto_model* m, salto_data* d, double* J);
int salto_f0_jac_direct_work(const salto_model* m);
// f0's Jacobian by finite differences (forward, central or Richardson: method)
void salto_f0_jac_fd(const salto_model* m, salto_data* d, salto_jac_method method, double* J);

#endif
