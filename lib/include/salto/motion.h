// motion.h: writing optimised motions (motion.json, motion.csv)
#ifndef SALTO_MOTION_H
#define SALTO_MOTION_H

#include "salto/nlp.h"
#include "salto/solver.h"

// Writes DIR-independent files, each atomically (PATH.tmp, then rename):
// motion.json: the problem as resolved (files, phases, duration, DOF names), the control
// points, frames sampled at the problem's frame rate, and the solver's status and statistics
// (result may be NULL for a motion that was not solved, e.g. an initial guess).
salto_status salto_motion_write_json(const salto_nlp* nlp, const double* x,
                                     const salto_solve_result* result, const char* path,
                                     salto_error* err);

// motion.csv: a header "t,<dof names>" and one row per frame at the problem's frame rate.
salto_status salto_motion_write_csv(const salto_nlp* nlp, const double* x, const char* path,
                                    salto_error* err);

#endif
