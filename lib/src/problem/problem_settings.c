// problem_settings.c: the settings sections: objectives, the initial guess, solver, output,
// validation, and the spline (control points and knots per phase)
#include "problem_priv.h"

#include "salto/budget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/config.h"
#include "salto/data.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"


// ---- objective, initial guess, solver, output ----

// a height or travel objective: what is measured (a site, or the centre of mass), along what,
// when (a time, or the mean over a phase's slices), and whether it is maximised
static salto_status read_measure(reader* R, salto_objective_desc* o, const salto_cfg_node* n,
                                 const char* what) {
    const salto_model* m = R->m;
    o->site = -1;
    o->phase = -1;
    o->maximise = 1;
    const salto_cfg_node* sn = salto_cfg_child(n, "site");
    salto_status s = sn ? problem_read_site(R, sn, &o->site) : SALTO_OK;
    if (s) return s;
    s = problem_read_time_or_phase(R, n, what, &o->has_time, &o->time, &o->phase);
    if (s) return s;
    const salto_cfg_node* gn = salto_cfg_child(n, "goal");
    if (gn) {
        static const char* const goals[] = {"min", "max", NULL};
        int goal = 1;
        s = problem_read_enum(R, gn, goals, "goal", &goal);
        if (s) return s;
        o->maximise = goal;
    }
    if (o->type == SALTO_OBJ_HEIGHT) {
        // against gravity
        const double g = salto_v3_norm(m->gravity);
        for (int k = 0; k < 3; k++) o->dir[k] = g > 0.0 ? -m->gravity[k] / g : (k == 2);
        return SALTO_OK;
    }
    const salto_cfg_node* dn = salto_cfg_child(n, "direction");
    o->dir[0] = 1.0, o->dir[1] = 0.0, o->dir[2] = 0.0;
    if (!dn) return SALTO_OK;
    s = problem_read_unit(R, dn, o->dir);
    if (s) return s;
    if (salto_model_is_planar(m) && fabs(o->dir[1]) > 1.0 - 1e-9) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, dn),
                          "a planar character moves in the x-z plane: nothing travels along y");
    }
    return SALTO_OK;
}


// a torque objective's DOFs: every joint DOF with weight 1, or `dofs`, a map from joint DOF
// names to weights (>= 0), those alone
static salto_status read_torque_dofs(reader* R, salto_objective_desc* o, const salto_cfg_node* n) {
    const salto_model* m = R->m;
    const int nj = m->nv - m->nroot;
    if (nj <= 0) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                          "a torque objective needs joints, and the character has none past its root");
    }
    o->dof = salto_malloc((size_t)nj * sizeof(int));
    o->dofw = salto_malloc((size_t)nj * sizeof(double));
    if (!o->dof || !o->dofw) return problem_nomem(R);
    const salto_cfg_node* dn = salto_cfg_child(n, "dofs");
    if (!dn) {
        for (int j = 0; j < nj; j++) o->dof[j] = m->nroot + j, o->dofw[j] = 1.0;
        o->ndof = nj;
        return SALTO_OK;
    }
    salto_status s = salto_cfg_expect(dn, SALTO_CFG_MAP, R->err);
    if (s) return s;
    if (dn->n == 0) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, dn),
                          "'dofs' must name at least one DOF (leave it out for every joint)");
    }
    double* w = salto_calloc((size_t)m->nv, sizeof(double));
    int* given = salto_calloc((size_t)m->nv, sizeof(int));
    if (!w || !given) {
        salto_free(w), salto_free(given);
        return problem_nomem(R);
    }
    for (int i = 0; i < dn->n && s == SALTO_OK; i++) {
        const salto_cfg_node* e = dn->child[i];
        int j = -1;
        s = problem_lookup(R, e->key, model_names(m->link_name), m->nv, "DOF", key_at(R, e), &j);
        if (s) break;
        if (j < m->nroot) {
            s = SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, e),
                           "'%s' is the root's: no joint torque drives it", e->key);
            break;
        }
        s = salto_cfg_number(e, &w[j], R->err);
        if (s) break;
        s = problem_check_lower(R, e, w[j], 0.0, 0);
        given[j] = 1;
    }
    if (s == SALTO_OK) {
        o->ndof = 0;
        for (int j = 0; j < m->nv; j++) {
            if (!given[j]) continue;
            o->dof[o->ndof] = j, o->dofw[o->ndof] = w[j];
            o->ndof++;
        }
    }
    salto_free(w), salto_free(given);
    return s;
}


// a contact_force or contact_jerk objective's phase: one with a contact, or (none given) every
// such phase, of which the problem must have one
static salto_status read_contact_phases(reader* R, salto_objective_desc* o, const salto_cfg_node* n) {
    const salto_problem_desc* p = R->p;
    o->phase = -1;
    const salto_cfg_node* pn = salto_cfg_child(n, "phase");
    if (pn) {
        salto_status s = problem_read_phase_ref(R, pn, &o->phase);
        if (s) return s;
        if (p->phases[o->phase].contact.type == SALTO_CONTACT_NONE) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, pn),
                              "phase '%s' has no contact: there is no contact force to minimise",
                              p->phases[o->phase].name); // (nor its rate)
        }
        return SALTO_OK;
    }
    for (int i = 0; i < p->nphase; i++) {
        if (p->phases[i].contact.type != SALTO_CONTACT_NONE) return SALTO_OK;
    }
    return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                      "a %s objective needs a phase with a contact, and no phase has one",
                      o->type == SALTO_OBJ_CONTACT_JERK ? "contact_jerk" : "contact_force");
}


// a duration objective: a phase whose duration is free, and the goal (max by default)
static salto_status read_duration_goal(reader* R, salto_objective_desc* o, const salto_cfg_node* n) {
    const salto_problem_desc* p = R->p;
    const salto_cfg_node* pn = salto_cfg_require(n, "phase", R->err);
    if (!pn) return R->err->status;
    salto_status s = problem_read_phase_ref(R, pn, &o->phase);
    if (s) return s;
    if (!p->phases[o->phase].dur_free) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, pn),
                          "phase '%s' has a fixed duration (line %d): a duration objective needs "
                          "it free, 'duration: {min: ..., max: ...}'",
                          p->phases[o->phase].name, p->phases[o->phase].dur_loc.line);
    }
    o->maximise = 1;
    const salto_cfg_node* gn = salto_cfg_child(n, "goal");
    if (gn) {
        static const char* const goals[] = {"min", "max", NULL};
        s = problem_read_enum(R, gn, goals, "goal", &o->maximise);
        if (s) return s;
    }
    return SALTO_OK;
}


salto_status problem_read_objectives(reader* R, const salto_cfg_node* top) {
    salto_problem_desc* p = R->p;
    const salto_cfg_node* list = salto_cfg_child(top, "objective");
    if (!list) {
        // default: acceleration, weight 1
        p->objs = salto_calloc(1, sizeof *p->objs);
        if (!p->objs) return problem_nomem(R);
        p->nobj = 1;
        p->objs[0].type = SALTO_OBJ_ACCELERATION;
        p->objs[0].weight = 1.0;
        p->objs[0].loc = file_loc(R);
        return SALTO_OK;
    }
    salto_status s = salto_cfg_expect(list, SALTO_CFG_LIST, R->err);
    if (s) return s;
    if (list->n == 0) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, list),
                          "'objective' must not be empty (leave it out for the default, "
                          "acceleration with weight 1)");
    }
    p->objs = salto_calloc((size_t)list->n, sizeof *p->objs);
    if (!p->objs) return problem_nomem(R);
    p->nobj = list->n;

    static const char* const all[] = {"type", "weight", "motion", "name", "site", "time",
                                      "phase", "goal", "direction", "dofs", NULL};
    static const char* const keys[8][9] = {
        {"type", "name", "weight", NULL},
        {"type", "name", "weight", "motion", NULL},
        {"type", "name", "weight", "site", "time", "phase", "goal", NULL},
        {"type", "name", "weight", "site", "time", "phase", "goal", "direction", NULL},
        {"type", "name", "weight", "dofs", NULL},
        {"type", "name", "weight", "phase", NULL},
        {"type", "name", "weight", "phase", NULL},
        {"type", "name", "weight", "phase", "goal", NULL}};
    for (int i = 0; i < list->n; i++) {
        const salto_cfg_node* n = list->child[i];
        salto_objective_desc* o = &p->objs[i];
        s = salto_cfg_expect(n, SALTO_CFG_MAP, R->err);
        if (s) return s;
        o->loc = at(R, n);
        o->weight = 1.0;
        const salto_cfg_node* tn = salto_cfg_require(n, "type", R->err);
        if (!tn) return R->err->status;
        int type = 0;
        s = problem_read_enum(R, tn, objective_names, "objective type", &type);
        if (s) return s;
        o->type = (salto_objective_type)type;
        char what[64];
        snprintf(what, sizeof what, "%s %s objective", problem_article(objective_names[type]),
                 objective_names[type]);
        s = problem_check_typed_keys(R, n, keys[type], all, what);
        if (s) return s;
        const salto_cfg_node* nn = NULL;
        s = problem_read_name(R, n, o->name, sizeof o->name, "objective", &nn);
        if (s) return s;
        for (int j = 0; nn && j < i; j++) {
            if (strcmp(p->objs[j].name, o->name) == 0) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, nn),
                                  "the objective name '%s' is given twice (first on line %d)",
                                  o->name, p->objs[j].loc.line);
            }
        }
        s = problem_read_num_opt(R, n, "weight", 0.0, 0, &o->weight);
        if (s) return s;
        if (o->type == SALTO_OBJ_REFERENCE) {
            const salto_cfg_node* mn = salto_cfg_require(n, "motion", R->err);
            if (!mn) return R->err->status;
            s = problem_read_path(R, mn, &o->motion);
            if (s) return s;
        }
        if (o->type == SALTO_OBJ_HEIGHT || o->type == SALTO_OBJ_TRAVEL) {
            s = read_measure(R, o, n, what);
            if (s) return s;
        }
        if (o->type == SALTO_OBJ_TORQUE) {
            s = read_torque_dofs(R, o, n);
            if (s) return s;
        }
        if (o->type == SALTO_OBJ_CONTACT_FORCE || o->type == SALTO_OBJ_CONTACT_JERK) {
            s = read_contact_phases(R, o, n);
            if (s) return s;
        }
        if (o->type == SALTO_OBJ_DURATION) {
            s = read_duration_goal(R, o, n);
            if (s) return s;
        }
        // terms over time that do not yet follow a free phase's time scale
        const int timed = o->type == SALTO_OBJ_REFERENCE || o->type == SALTO_OBJ_CONTACT_JERK;
        for (int k = 0; timed && k < p->nphase; k++) {
            if (!p->phases[k].dur_free) continue;
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, tn),
                              "%s cannot be used yet with a free phase duration (phase '%s', "
                              "line %d): give the phase a fixed duration, or use the "
                              "acceleration, height, travel, torque, contact_force or duration "
                              "terms",
                              what, p->phases[k].name, p->phases[k].dur_loc.line);
        }
    }
    return SALTO_OK;
}


static salto_status read_rotation(reader* R, const salto_cfg_node* n) {
    salto_guess_desc* g = &R->p->guess;
    static const char* const keys[] = {"phase", "dof", "angle", "angle_deg", NULL};
    salto_status s = salto_cfg_check_keys(n, keys, R->err);
    if (s) return s;
    const salto_cfg_node* pn = salto_cfg_require(n, "phase", R->err);
    if (!pn) return R->err->status;
    s = problem_read_phase_ref(R, pn, &g->rot_phase);
    if (s) return s;

    // a revolute root DOF
    const salto_cfg_node* dn = salto_cfg_require(n, "dof", R->err);
    if (!dn) return R->err->status;
    const char* name = NULL;
    s = salto_cfg_string(dn, &name, R->err);
    if (s) return s;
    const salto_model* m = R->m;
    s = problem_lookup(R, name, model_names(m->link_name), m->nv, "DOF", at(R, dn), &g->rot_dof);
    if (s) return s;
    if (g->rot_dof >= m->nroot || m->link_type[g->rot_dof] != SALTO_AXIS_REVOLUTE) {
        char roots[100] = "";
        for (int i = 0; i < m->nroot; i++) {
            if (m->link_type[i] != SALTO_AXIS_REVOLUTE) continue;
            size_t k = strlen(roots);
            snprintf(roots + k, sizeof roots - k, "%s'%s'", k ? ", " : "", m->link_name[i]);
        }
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, dn),
                          "the rotation DOF must be a revolute root DOF (%s), not '%s'",
                          roots[0] ? roots : "this character has none", name);
    }

    const salto_cfg_node* an = salto_cfg_child(n, "angle");
    const salto_cfg_node* dg = salto_cfg_child(n, "angle_deg");
    if (an && dg) {
        const salto_cfg_node* later = an->index > dg->index ? an : dg;
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, later),
                          "give either 'angle' or 'angle_deg', not both");
    }
    if (!an && !dg) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                          "missing required key 'angle' (or 'angle_deg') in 'rotation'");
    }
    s = salto_cfg_number(an ? an : dg, &g->rot_angle, R->err);
    if (s) return s;
    if (dg) g->rot_angle *= pi / 180.0;
    // poses that give the DOF a value both before the phase and after it: the guess turns
    // from the one to the other within the phase (nlp_guess.c), so the angle must be their
    // difference
    const salto_problem_desc* p = R->p;
    const double ts = p->phases[g->rot_phase].start, te = ts + p->phases[g->rot_phase].duration;
    const salto_constraint_desc *c0 = NULL, *c1 = NULL;
    double v0 = 0.0, v1 = 0.0;
    salto_problem_pose_bracket(p, g->rot_dof, ts + 1e-12, te - 1e-12, &c0, &v0, &c1, &v1);
    if (c0 && c1 && fabs(v1 - v0 - g->rot_angle) > 1e-9 * (1.0 + fabs(g->rot_angle))) {
        const double deg = 180.0 / pi;
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, an ? an : dg),
                          "the poses turn '%s' by %.6g degrees from t = %.6g s to %.6g s (lines %d "
                          "and %d), but the rotation turns it by %.6g degrees over phase '%s': "
                          "give the later pose the turned value (%.6g degrees), or leave '%s' out "
                          "of one of them",
                          name, (v1 - v0) * deg, c0->time, c1->time, c0->loc.line, c1->loc.line,
                          g->rot_angle * deg, p->phases[g->rot_phase].name,
                          (v0 + g->rot_angle) * deg, name);
    }
    return SALTO_OK;
}


salto_status problem_read_guess(reader* R, const salto_cfg_node* top) {
    salto_guess_desc* g = &R->p->guess;
    g->type = SALTO_GUESS_INTERPOLATE;
    g->rot_phase = -1;
    g->rot_dof = -1;
    g->ballistic = 0;
    g->loc = file_loc(R);
    const salto_cfg_node* n = salto_cfg_child(top, "initial_guess");
    if (!n) return SALTO_OK;
    static const char* const keys[] = {"type", "motion", "rotation", "ballistic", NULL};
    salto_status s = salto_cfg_check_keys(n, keys, R->err);
    if (s) return s;
    const salto_cfg_node* bn = salto_cfg_child(n, "ballistic");
    if (bn && (s = salto_cfg_bool(bn, &g->ballistic, R->err))) return s;
    g->loc = at(R, n);
    const salto_cfg_node* tn = salto_cfg_child(n, "type");
    int type = 0;
    if (tn && (s = problem_read_enum(R, tn, guess_names, "initial guess type", &type))) return s;
    g->type = (salto_guess_type)type;

    const salto_cfg_node* mn = salto_cfg_child(n, "motion");
    const salto_cfg_node* rn = salto_cfg_child(n, "rotation");
    if (rn && salto_cfg_is_null(rn)) rn = NULL; // "rotation: null" (or --set ...=null): none
    if (g->type == SALTO_GUESS_MOTION) {
        if (!mn) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                              "missing required key 'motion' in 'initial_guess' (type: motion)");
        }
        if (rn) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, rn),
                              "'rotation' is only allowed with type: interpolate");
        }
        return problem_read_path(R, mn, &g->motion);
    }
    if (mn) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, mn),
                          "'motion' is only allowed with type: motion");
    }
    if (rn) {
        s = salto_cfg_expect(rn, SALTO_CFG_MAP, R->err);
        if (s) return s;
        return read_rotation(R, rn);
    }
    return SALTO_OK;
}


salto_status problem_read_solver(reader* R, const salto_cfg_node* top) {
    salto_solver_desc* sv = &R->p->solver;
    sv->tolerance = 1e-6;
    sv->max_iterations = 1000;
    sv->hessian_exact = 1;
    sv->linear_solver = SALTO_LINEAR_SALTO;
    sv->max_cpu_time = 600.0;
    sv->print_level = 0;
    sv->derivatives = 0;
    sv->refine = 0;
    sv->refine_fraction = 0.5;
    sv->refine_max_iterations = 0;
    sv->refine_time = 0.0;
    // the spline by knot spacing (the default) holds a flight's momentum, and f0 at its ends;
    // control points given keep the paper's f0 = 0 at the slices (read after the spline)
    sv->flight_rows = R->p->knot_spacing > 0.0 && R->p->physics ? SALTO_FLIGHT_MOMENTUM_ENDS
                                                                 : SALTO_FLIGHT_FORCE;
    const salto_cfg_node* n = salto_cfg_child(top, "solver");
    if (!n) return SALTO_OK;
    static const char* const keys[] = {"tolerance",   "max_iterations", "hessian", "derivatives",
                                       "max_cpu_time", "print_level",   "refine",  "refine_fraction",
                                       "flight_rows",  "refine_max_iterations", "refine_time",
                                       "linear_solver", "ipopt",       NULL};
    salto_status s = salto_cfg_check_keys(n, keys, R->err);
    if (s) return s;
    s = problem_read_num_opt(R, n, "tolerance", 0.0, 1, &sv->tolerance);
    if (s) return s;
    s = problem_read_int_opt(R, n, "max_iterations", 0, 2147483647, &sv->max_iterations);
    if (s) return s;
    const salto_cfg_node* hn = salto_cfg_child(n, "hessian");
    if (hn && (s = problem_read_enum(R, hn, hessian_names, "hessian", &sv->hessian_exact))) return s;
    const salto_cfg_node* dn = salto_cfg_child(n, "derivatives");
    if (dn && (s = problem_read_enum(R, dn, derivative_names, "derivatives", &sv->derivatives))) return s;
    s = problem_read_num_opt(R, n, "max_cpu_time", 0.0, 1, &sv->max_cpu_time);
    if (s) return s;
    s = problem_read_int_opt(R, n, "print_level", 0, 12, &sv->print_level);
    if (s) return s;
    s = problem_read_int_opt(R, n, "refine", 0, 100, &sv->refine);
    if (s) return s;
    s = problem_read_num_opt(R, n, "refine_fraction", 0.0, 1, &sv->refine_fraction);
    if (s) return s;
    s = problem_read_int_opt(R, n, "refine_max_iterations", 0, 2147483647, &sv->refine_max_iterations);
    if (s) return s;
    s = problem_read_num_opt(R, n, "refine_time", 0.0, 0, &sv->refine_time);
    if (s) return s;
    const salto_cfg_node* fn = salto_cfg_child(n, "flight_rows");
    if (fn && (s = problem_read_enum(R, fn, flight_row_names, "flight_rows", &sv->flight_rows))) return s;
    const salto_cfg_node* ln = salto_cfg_child(n, "linear_solver");
    if (ln && (s = problem_read_enum(R, ln, linear_solver_names, "linear_solver", &sv->linear_solver))) return s;
    // any other IPOPT option, passed through by name: IPOPT checks names and values when the
    // solve starts, and a rejected one is reported at its line here
    const salto_cfg_node* on = salto_cfg_child(n, "ipopt");
    if (!on) return SALTO_OK;
    if ((s = salto_cfg_expect(on, SALTO_CFG_MAP, R->err))) return s;
    sv->ipopt = salto_calloc((size_t)(on->n > 0 ? on->n : 1), sizeof *sv->ipopt);
    if (!sv->ipopt) return SALTO_FAIL(R->err, SALTO_ERR_NOMEM, at(R, on), "out of memory");
    for (int i = 0; i < on->n; i++) {
        const salto_cfg_node* v = on->child[i];
        if (v->kind != SALTO_CFG_SCALAR || v->text[0] == '\0') {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, v),
                              "solver.ipopt.%s: expected a number or a word", v->key);
        }
        salto_solver_option* o = &sv->ipopt[sv->nipopt];
        o->key = salto_strdup(v->key);
        o->value = salto_strdup(v->text);
        o->loc = at(R, v);
        if (!o->key || !o->value) {
            salto_free(o->key), salto_free(o->value);
            return SALTO_FAIL(R->err, SALTO_ERR_NOMEM, at(R, v), "out of memory");
        }
        sv->nipopt++;
    }
    return SALTO_OK;
}


salto_status problem_read_output(reader* R, const salto_cfg_node* top) {
    salto_output_desc* o = &R->p->output;
    o->frame_rate = 60.0;
    o->filmstrip_frames = 8;
    o->filmstrip_view = SALTO_FILMSTRIP_SIDE;
    const salto_cfg_node* n = salto_cfg_child(top, "output");
    if (n) {
        static const char* const keys[] = {"frame_rate", "filmstrip_frames", "filmstrip_view",
                                           NULL};
        salto_status s = salto_cfg_check_keys(n, keys, R->err);
        if (s) return s;
        s = problem_read_num_opt(R, n, "frame_rate", 0.0, 1, &o->frame_rate);
        if (s) return s;
        s = problem_read_int_opt(R, n, "filmstrip_frames", 1, 64, &o->filmstrip_frames);
        if (s) return s;
        const salto_cfg_node* vn = salto_cfg_child(n, "filmstrip_view");
        if (vn && (s = problem_read_enum(R, vn, filmstrip_view_names, "filmstrip_view",
                                         &o->filmstrip_view))) {
            return s;
        }
    }
    // the output files hold every frame: keep them to a million
    const double frames = floor(R->p->duration * o->frame_rate + 1e-9) + 1.0;
    if (frames > 1e6) {
        const salto_cfg_node* fr = n ? salto_cfg_child(n, "frame_rate") : NULL;
        // at the rate if it was given, else at the phases that make the motion long
        const salto_cfg_node* where = fr ? fr : salto_cfg_child(top, "phases");
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, where ? at(R, where) : file_loc(R),
                          "at %g frames per second the %g s motion takes %.0f frames; at most "
                          "1000000 are written (lower output.frame_rate)",
                          o->frame_rate, R->p->duration, frames);
    }
    return SALTO_OK;
}


// validation: {density, integrator, step, thresholds: {CHECK: VALUE, ...}}
salto_status problem_read_validation(reader* R, const salto_cfg_node* top) {
    salto_validation_desc* v = &R->p->validation;
    v->density = 0, v->integrator = -1, v->step = 0.0;
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) v->threshold[k] = -1.0;
    const salto_cfg_node* n = salto_cfg_child(top, "validation");
    if (!n) return SALTO_OK;
    v->loc = at(R, n);
    static const char* const keys[] = {"density", "integrator", "step", "thresholds", NULL};
    salto_status s = salto_cfg_check_keys(n, keys, R->err);
    if (s) return s;
    if ((s = problem_read_int_opt(R, n, "density", 1, 10000, &v->density))) return s;
    const char* integrators[SALTO_INTEGRATOR_COUNT + 1];
    for (int k = 0; k < SALTO_INTEGRATOR_COUNT; k++) integrators[k] = salto_integrator_name((salto_integrator)k);
    integrators[SALTO_INTEGRATOR_COUNT] = NULL;
    const salto_cfg_node* in = salto_cfg_child(n, "integrator");
    if (in && (s = problem_read_enum(R, in, integrators, "integrator", &v->integrator))) return s;
    if ((s = problem_read_num_opt(R, n, "step", 0.0, 1, &v->step))) return s;
    if (v->step > 0.0 && R->p->duration / v->step > SALTO_VALIDATE_MAX_STEPS) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, salto_cfg_child(n, "step")),
                          "a re-simulation step of %g s makes %.2g steps over the motion's %g s: at "
                          "most %g (salto validate --max-steps allows more)", v->step,
                          R->p->duration / v->step, R->p->duration, SALTO_VALIDATE_MAX_STEPS);
    }
    const salto_cfg_node* tn = salto_cfg_child(n, "thresholds");
    if (!tn) return SALTO_OK;
    const char* names[SALTO_CHECK_COUNT + 1];
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) names[k] = salto_check_name((salto_check_kind)k);
    names[SALTO_CHECK_COUNT] = NULL;
    if ((s = salto_cfg_expect(tn, SALTO_CFG_MAP, R->err))) return s;
    if ((s = salto_cfg_check_keys(tn, names, R->err))) return s;
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) {
        if ((s = problem_read_num_opt(R, tn, names[k], 0.0, 0, &v->threshold[k]))) return s;
    }
    return SALTO_OK;
}


// The spline by knot spacing (spline.knot_spacing, not with control_points or phase_knots):
// each phase cut into segments of at most knot_spacing seconds (at least SPLINE_MIN_SEGMENTS),
// and slices_per_segment slices in every segment (SPLINE_SLICES_PER_SEGMENT unless given),
// aligned with the knots, so that the physics rows hold at each knot and inside every cubic
// piece, whatever the phases' durations. The default spline uses it (problem.warmup), with
// two slices a segment and a first solve on a coarse spline for the guess
#define SPLINE_SLICES_PER_SEGMENT SALTO_DEFAULT_SLICES_PER_SEGMENT
#define SPLINE_MIN_SEGMENTS 2

static salto_status spline_auto_knots(reader* R, const salto_cfg_node* top,
                                      const salto_cfg_node* n) {
    salto_problem_desc* p = R->p;
    const double h = p->knot_spacing;
    long total = 4 + problem_junction_knots(p);
    int* counts = salto_calloc((size_t)p->nphase, sizeof(int));
    if (!counts) return problem_nomem(R);
    for (int i = 0; i < p->nphase; i++) {
        const double segs = ceil(p->phases[i].duration / h - 1e-9);
        const int nseg = segs < SPLINE_MIN_SEGMENTS ? SPLINE_MIN_SEGMENTS
                         : segs > 1e6                ? 1000000
                                                     : (int)segs;
        counts[i] = nseg - 1;
        total += counts[i];
    }
    if (total * R->m->nv > 1000000L) {
        salto_free(counts);
        const salto_cfg_node* w = n ? salto_cfg_child(n, "knot_spacing") : NULL;
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, w ? w : salto_cfg_child(top, "phases")),
                          "a knot every %g s over %g s makes %ld control points per DOF for %d "
                          "DOFs, too many (at most 1000000 in all)",
                          h, p->duration, total, R->m->nv);
    }
    p->ncp = (int)total;
    p->phase_knots = counts; // a single phase's spline is uniform whatever its count says
    return SALTO_OK;
}


salto_status problem_read_spline(reader* R, const salto_cfg_node* top) {
    salto_problem_desc* p = R->p;
    p->ncp = 20;
    const salto_cfg_node* n = salto_cfg_child(top, "spline");
    int nslice = 0;
    const salto_cfg_node* cpn = n ? salto_cfg_child(n, "control_points") : NULL;
    const salto_cfg_node* sln = n ? salto_cfg_child(n, "slices") : NULL;
    const salto_cfg_node* pkn = n ? salto_cfg_child(n, "phase_knots") : NULL;
    const salto_cfg_node* ksn = n ? salto_cfg_child(n, "knot_spacing") : NULL;
    const salto_cfg_node* spn = n ? salto_cfg_child(n, "slices_per_segment") : NULL;
    p->knot_spacing = 0.0;
    // aligned slices by default with knots by spacing; control points (given) keep their
    // slices shared out by duration (as many as control points) unless told
    p->slices_per_segment = ksn && !sln ? SPLINE_SLICES_PER_SEGMENT : 0;
    // none of the spline's layout given, with physics: the default spline, knots every
    // 0.05 s with 2 slices in each segment, solved from a first solve on 20 control points
    // (docs/problem-format.md, "Spline"; measured on the problem zoo, docs/performance.md); a
    // kinematic problem keeps 20 control points and 20 slices
    if (!cpn && !sln && !pkn && !ksn && !spn && p->physics) {
        p->knot_spacing = SALTO_DEFAULT_KNOT_SPACING;
        p->slices_per_segment = SALTO_DEFAULT_SLICES_PER_SEGMENT;
    }
    // the formulation the file left to the defaults (not given: -1), which follow the spline:
    // with knots by spacing and physics a flight is ballistic and a ground contact right after
    // a flight starts with an impact where its held sites are on one link (on two feet an
    // impact is allowed, impact: true, but a held landing solved two to six times faster on the
    // zoo's jumps, both passing); with control points given, neither (the paper's formulation).
    // Decided here, before the knots: an impact's boundary is a triple knot. (The flights' rows
    // follow the spline too: problem_read_solver.)
    const int by_spacing = (ksn || p->knot_spacing > 0.0) && p->physics;
    for (int i = 0; i < p->nphase; i++) {
        salto_phase_desc* ph = &p->phases[i];
        salto_contact_desc* c = &ph->contact;
        if (ph->ballistic < 0) ph->ballistic = by_spacing && c->type == SALTO_CONTACT_NONE;
        if (c->impact >= 0) continue;
        c->impact = by_spacing && i > 0 && p->phases[i - 1].contact.type == SALTO_CONTACT_NONE && c->hold &&
                    salto_contact_links(R->m, c, NULL, NULL) == 1;
    }
    if (n) {
        static const char* const keys[] = {"control_points", "slices",  "junctions",
                                           "phase_knots",    "knot_spacing", "slices_per_segment",
                                           "coarse_first",   NULL};
        salto_status s = salto_cfg_check_keys(n, keys, R->err);
        if (s) return s;
        if (ksn && (cpn || pkn)) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, ksn),
                              "'knot_spacing' places the knots itself: give it or '%s', not both",
                              cpn ? "control_points" : "phase_knots");
        }
        if (spn && sln) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, spn),
                              "give 'slices' (shared out by duration) or 'slices_per_segment' "
                              "(aligned with the knots), not both");
        }
        s = problem_read_int_opt(R, n, "control_points", 4, 2147483647, &p->ncp);
        if (s) return s;
        s = problem_read_int_opt(R, n, "slices", 2, 2147483647, &nslice);
        if (s) return s;
        s = problem_read_int_opt(R, n, "slices_per_segment", 1, 1000, &p->slices_per_segment);
        if (s) return s;
        if (ksn) {
            s = problem_read_num_opt(R, n, "knot_spacing", 0.0, 1, &p->knot_spacing);
            if (s) return s;
        }
        const salto_cfg_node* jn = salto_cfg_child(n, "junctions");
        if (jn) {
            static const char* const names[] = {"C1", "C2", NULL};
            int k = 0;
            s = salto_cfg_enum(jn, names, "junction continuity", &k, R->err);
            if (s) return s;
            p->junction_c2 = k;
        }
    }
    if (p->knot_spacing > 0.0) {
        salto_status s = spline_auto_knots(R, top, n);
        if (s) return s;
    }
    // the first solve on a coarse spline: by default with the knots by spacing (given or the
    // default), not with control points given (the shipped problems keep their solves)
    p->warmup = p->knot_spacing > 0.0 && p->physics;
    const salto_cfg_node* cfn = n ? salto_cfg_child(n, "coarse_first") : NULL;
    if (cfn) {
        salto_status s = salto_cfg_bool(cfn, &p->warmup, R->err);
        if (s) return s;
    }
    p->nslice = nslice ? nslice : p->ncp;
    // sizes the NLP can index with ints and hold in memory: a million control points in all,
    // a hundred thousand slices
    if ((long)p->ncp * R->m->nv > 1000000L) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, cpn ? at(R, cpn) : file_loc(R),
                          "%d control points per DOF for %d DOFs are too many (at most 1000000 "
                          "in all)",
                          p->ncp, R->m->nv);
    }
    if (p->nslice > SALTO_MAX_SLICES) {
        const salto_cfg_node* w = sln ? sln : cpn;
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, w ? at(R, w) : file_loc(R),
                          "%d slices are too many (at most 100000)", p->nslice);
    }
    // every phase boundary takes one or two knots
    const int need = 4 + problem_junction_knots(p);
    if (p->ncp < need) {
        const salto_cfg_node* cp = n ? salto_cfg_child(n, "control_points") : NULL;
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, cp ? at(R, cp) : at(R, salto_cfg_child(top, "phases")),
                          "%d control points are too few for %d phases: each phase boundary "
                          "takes %s knot%s, so at least %d are needed",
                          p->ncp, p->nphase, p->junction_c2 ? "a" : "a double",
                          need > 4 + (p->junction_c2 ? 1 : 2) * (p->nphase - 1)
                              ? " (a triple one into an impact)"
                              : "",
                          need);
    }
    // the knots inside each phase, given: one count per phase, adding up to what is left
    const salto_cfg_node* kn = n ? salto_cfg_child(n, "phase_knots") : NULL;
    if (kn) {
        salto_status s = salto_cfg_expect(kn, SALTO_CFG_LIST, R->err);
        if (s) return s;
        const int F = p->ncp - need;
        if (kn->n != p->nphase) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, kn),
                              "'phase_knots' needs one count per phase (%d), found %d",
                              p->nphase, kn->n);
        }
        p->phase_knots = salto_calloc((size_t)p->nphase, sizeof(int));
        if (!p->phase_knots) return problem_nomem(R);
        int sum = 0;
        for (int i = 0; i < kn->n; i++) {
            if ((s = salto_cfg_int(kn->child[i], &p->phase_knots[i], R->err))) return s;
            if (p->phase_knots[i] < 0 || p->phase_knots[i] > F) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, kn->child[i]),
                                  "a phase's knot count must be in 0..%d, found %d", F,
                                  p->phase_knots[i]);
            }
            sum += p->phase_knots[i];
        }
        if (sum != F) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, kn),
                              "'phase_knots' add up to %d, but %d control points over %d phases "
                              "leave %d interior knots to place",
                              sum, p->ncp, p->nphase, F);
        }
    }
    if (p->slices_per_segment > 0) {
        // the aligned slices' count, for what reads it: reported at the key that asked for
        // them, or for the default spline at the phases
        const long total = salto_problem_align_slices(p, p->slices_per_segment);
        if (total > SALTO_MAX_SLICES) {
            const salto_cfg_node* w = spn ? spn : ksn ? ksn : salto_cfg_child(top, "phases");
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, w),
                              "%ld slices are too many (at most %d)%s", total, SALTO_MAX_SLICES,
                              spn || ksn ? ""
                                         : ": the default spline puts 2 in every 0.05 s; give "
                                           "'spline' settings for a motion this long");
        }
    }
    return SALTO_OK;
}


// where a size too large is reported: the key that set the spline's size, else the phases
salto_status problem_note_size_loc(reader* R, const salto_cfg_node* top) {
    const salto_cfg_node* sp = salto_cfg_child(top, "spline");
    const salto_cfg_node* w = NULL;
    static const char* const keys[] = {"slices", "slices_per_segment", "knot_spacing",
                                       "control_points", NULL};
    for (int k = 0; sp && !w && keys[k]; k++) w = salto_cfg_child(sp, keys[k]);
    if (!w) w = salto_cfg_child(top, "phases");
    if (w) R->p->size_loc = at(R, w);
    return SALTO_OK;
}


salto_status salto_problem_check_memory(const salto_problem_desc* p, salto_error* err) {
    if (!p->physics) return SALTO_OK;
    const int nv = p->model->nv;
    long slices = 0;
    for (int i = 0; i < p->nphase; i++) slices += salto_problem_phase_intervals(p, i) + 1L;
    const double nu = 4.0 * nv, pairs = (double)slices * nu * (nu + 1.0) / 2.0;
    const double bytes = 36.0 * pairs + 8.0 * 60.0 * (double)nv * nv;
    char what[256];
    snprintf(what, sizeof what, "the NLP of %ld slices over %d control points per DOF for %d "
             "DOFs", slices, p->ncp, nv);
    return salto_budget_check(bytes, p->size_loc, what, err);
}

// The values the constraints and boxes give, within SALTO_VALUE_MAX in magnitude (open sides,
// infinite, aside): a root placed 1e308 m away read as a number and ended in IPOPT's
// Invalid_Number_Detected without naming it
static int far_value(double v) {
    return isfinite(v) && fabs(v) > SALTO_VALUE_MAX;
}


salto_status problem_check_values(reader* R) {
    const salto_problem_desc* p = R->p;
    for (int i = 0; i < p->ncon; i++) {
        const salto_constraint_desc* c = &p->cons[i];
        if (c->hold_phase) continue; // the holds' values come from the phase
        double bad = NAN;
        const double h3 = hypot(hypot(c->point[0], c->point[1]), c->point[2]);
        if (far_value(h3)) bad = h3;
        const int nval = c->type == SALTO_CON_JOINT_RANGE ? 2 * c->ndof : c->ndof;
        for (int k = 0; c->value && k < nval; k++) {
            if (far_value(c->value[k])) bad = c->value[k];
        }
        for (int k = 0; k < 3; k++) {
            if (c->mask[k] && far_value(c->vec[k])) bad = c->vec[k];
            if (far_value(c->lo[k])) bad = c->lo[k];
            if (far_value(c->hi[k])) bad = c->hi[k];
        }
        if (far_value(c->height)) bad = c->height;
        if (!isnan(bad)) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, c->loc,
                              "%s constraint%s%s%s: a value of %g; salto works in metres, radians "
                              "and seconds, and takes at most %g in magnitude",
                              salto_constraint_name(c->type), c->name[0] ? " '" : "", c->name,
                              c->name[0] ? "'" : "", bad, SALTO_VALUE_MAX);
        }
    }
    for (int b = 0; b < p->nbox; b++) {
        const salto_box_desc* bx = &p->boxes[b];
        for (int k = 0; k < 3; k++) {
            const double v = far_value(bx->lo[k]) ? bx->lo[k] : far_value(bx->hi[k]) ? bx->hi[k] : NAN;
            if (!isnan(v)) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, bx->loc,
                                  "a box's corner at %g m: at most %g m from the origin", v,
                                  SALTO_VALUE_MAX);
            }
        }
    }
    return SALTO_OK;
}
