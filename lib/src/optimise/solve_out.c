// solve_out.c: motion.json, a solved motion with its problem as resolved and the solver's
// statistics (solver.h); motion_read.c reads it back
#include "salto/solver.h"

#include "salto/atomic.h"
#include "salto/motion.h"
#include "json_out.h"

#include <math.h>
#include <stdio.h>


salto_status salto_motion_write_json(const salto_nlp* nlp, const salto_motion* mo,
                                     const salto_solve_result* result, const char* path,
                                     salto_error* err) {
    const salto_problem_desc* p = salto_nlp_problem(nlp);
    const int nv = mo->nv;
    salto_atomic a;
    salto_status s = salto_atomic_open(&a, path, 1, err);
    if (s) return s;
    FILE* f = a.f;

    fputs("{\n  \"format\": \"salto motion 1\",\n  \"problem\": ", f);
    salto_json_str(f, mo->problem);
    if (mo->nset > 0) {
        // the overrides the problem was solved with: salto validate and play apply them again
        fputs(",\n  \"set\": ", f);
        salto_json_strs(f, mo->set, mo->nset);
    }
    fputs(",\n  \"character\": ", f);
    salto_json_str(f, mo->character);
    fputs(",\n  \"duration\": ", f);
    salto_json_num(f, mo->duration);
    fputs(",\n  \"phases\": [", f);
    for (int i = 0; i < p->nphase; i++) {
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        salto_json_str(f, p->phases[i].name);
        fputs(", \"start\": ", f);
        salto_json_num(f, p->phases[i].start);
        fputs(", \"duration\": ", f);
        salto_json_num(f, p->phases[i].duration);
        fprintf(f, ", \"contact\": \"%s\"}", salto_contact_name(p->phases[i].contact.type));
    }
    fputs("\n  ]", f);
    // the ballistic flights (written only when there are some, so that other motions read as
    // before)
    int nbal = 0;
    for (int i = 0; i < p->nphase; i++) {
        if (!salto_nlp_phase_ballistic(nlp, i)) continue;
        fputs(nbal++ ? ", " : ",\n  \"ballistic\": [", f);
        salto_json_str(f, p->phases[i].name);
    }
    if (nbal) fputc(']', f);
    if (p->nextra > 0) {
        // slices refinement added (salto_solve_refined): the constraints the motion obeys
        fputs(",\n  \"refined_slices\": ", f);
        salto_json_nums(f, p->extra_t, p->nextra, 1);
    }
    fputs(",\n  \"dofs\": ", f);
    salto_json_strs(f, mo->dof_name, nv);
    if (mo->ncp > 0) {
        fprintf(f, ",\n  \"control_points\": %d", mo->ncp);
        if (mo->knot) {
            fputs(",\n  \"knots\": ", f);
            salto_json_nums(f, mo->knot, mo->ncp + 4, 1);
        }
        fputs(",\n  \"control\": [", f);
        for (int j = 0; j < nv; j++) {
            fputs(j ? ",\n    " : "\n    ", f);
            salto_json_nums(f, mo->control + (size_t)j * (size_t)mo->ncp, mo->ncp, 1);
        }
        fputs("\n  ]", f);
    }
    if (mo->root_turned) {
        // the chart the control points' root angles are in; the frames are the character's
        fputs(",\n  \"root_chart\": {\"reference\": ", f);
        salto_json_nums(f, mo->root_ref, 9, 1);
        fputs(", \"anchor\": ", f);
        salto_json_nums(f, mo->root_anchor, 3, 1);
        fputc('}', f);
    }
    fputs(",\n  \"frame_rate\": ", f);
    salto_json_num(f, mo->frame_rate);
    fputs(",\n  \"frames\": [", f);
    double* cq = mo->root_turned ? salto_motion_character_q(mo) : NULL;
    const double* fq = cq ? cq : mo->q;
    for (int k = 0; k < mo->nframe; k++) {
        fputs(k ? ",\n    [" : "\n    [", f);
        salto_json_num(f, salto_motion_frame_time(mo, k));
        for (int j = 0; j < nv; j++) {
            fputs(", ", f);
            const double v = fq[(size_t)k * (size_t)nv + (size_t)j];
            salto_json_num(f, cq && fabs(v) < SALTO_MOTION_ZERO ? 0.0 : v);
        }
        fputc(']', f);
    }
    salto_free(cq);
    fputs("\n  ]", f);
    if (result) {
        fprintf(f, ",\n  \"solver\": {\"status\": ");
        salto_json_str(f, result->status_name);
        fprintf(f, ", \"converged\": %s, \"iterations\": %d, \"objective\": ",
                result->converged ? "true" : "false", result->iterations);
        salto_json_num(f, result->objective);
        fputs(", \"time\": ", f);
        salto_json_num(f, result->elapsed);
        fputs(", \"max_violation\": ", f);
        salto_json_num(f, result->max_violation);
        if (result->worst_row >= 0) {
            char name[512];
            salto_nlp_row_name(nlp, result->worst_row, name, sizeof name);
            fputs(", \"worst_constraint\": ", f);
            salto_json_str(f, name);
        }
        fprintf(f, ", \"evaluations\": {\"f\": %d, \"g\": %d, \"jacobian\": %d}}",
                result->n_eval_f, result->n_eval_g, result->n_eval_jac);
    }
    fputs("\n}\n", f);
    return salto_atomic_commit(&a, err);
}


void salto_print_cost(FILE* f, const salto_solve_result* r) {
    fprintf(f, "cost: %d iterations", r->iterations);
    if (r->factorisations > 0) {
        fprintf(f, ", %d factorisations of the %d-row KKT system (%.2f an iteration), %.3f s (%.3f ms "
                   "each) and %.3f s of solves",
                r->factorisations, r->kkt_order,
                r->iterations > 0 ? (double)r->factorisations / r->iterations : 0.0, r->time_factor,
                1e3 * r->time_factor / r->factorisations, r->time_kkt_solve);
    } else {
        fprintf(f, ", the KKT systems by MUMPS (not timed)");
    }
    if (r->n_eval_h > 0 && r->n_eval_jac > 0 && r->time_jac > 0.0) {
        fprintf(f, "; Hessian %.3f s, %.1f Jacobians' worth each", r->time_h,
                (r->time_h / r->n_eval_h) / (r->time_jac / r->n_eval_jac));
    }
    if (r->mumps_compared > 0) {
        fprintf(f, "; MUMPS on the same %d matrices %.3f s (%.1fx salto's)", r->mumps_compared,
                r->time_mumps, r->time_factor > 0.0 ? r->time_mumps / r->time_factor : 0.0);
        if (r->mumps_inertia_differs > 0) {
            fprintf(f, ", other inertia on %d", r->mumps_inertia_differs);
        } else {
            fprintf(f, ", the same inertia");
        }
    }
    fprintf(f, "\n");
}
