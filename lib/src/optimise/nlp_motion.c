// nlp_motion.c: an NLP's variables as a motion: its state as a salto_state_fn, sampled into
// frames (salto_motion_from_nlp) and validated (salto_validate) (nlp.h)
#include "salto/nlp.h"

#include "salto/bspline.h"


void salto_nlp_motion_state(void* ctx, double t, double* q, double* qd, double* qdd) {
    const salto_nlp_motion* nm = ctx;
    salto_nlp_state(nm->nlp, nm->x, t, q, qd, qdd);
}


salto_motion* salto_motion_from_nlp(const salto_nlp* nlp, const double* x) {
    const salto_problem_desc* p = salto_nlp_problem(nlp);
    SALTO_ASSERT(salto_nlp_nx(nlp) >= p->model->nv * p->ncp); // the contact places follow
    salto_nlp_motion nm = {nlp, x};
    return salto_motion_from_state(p, salto_nlp_motion_state, &nm, salto_nlp_spline(nlp), x);
}


salto_status salto_validate(salto_nlp* nlp, const double* x, const salto_validate_opts* opts,
                            salto_validation* v, salto_error* err) {
    salto_nlp_motion nm = {nlp, x};
    return salto_validate_motion(salto_nlp_problem(nlp), salto_nlp_motion_state, &nm, opts, v, err);
}
