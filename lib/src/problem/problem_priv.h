// problem_priv.h: what the problem loader's files share: the reader, the names of the
// enumerations, the location helpers, and the functions one file defines for the others
//
// The files, one per part of a problem file (each begins with what it holds):
//   problem.c              allocation, queries, the character, the whole file (salto_problem_load)
//   problem_read.c         reading helpers shared by every section, and times ("swing.end+0.1")
//   problem_phases.c       phases and their contacts
//   problem_constraints.c  constraints, and the holds a contact adds
//   problem_settings.c     objectives, the initial guess, solver, output, validation, the spline
//   problem_react.c        reactions for salto play --react
//   checks.c               the check kinds' names, units and thresholds (checks.h)
#ifndef SALTO_PROBLEM_PRIV_H
#define SALTO_PROBLEM_PRIV_H

#include "salto/problem.h"

#include "salto/config.h"

static const double pi = 3.14159265358979323846;

// times may overshoot [0, duration] by this much (rounding in sums of durations and offsets)
// and are then clamped, s
static const double time_slack = 1e-9;

static const char* const contact_names[] = {"none", "bar", "ground", NULL};

static const char* const constraint_names[] = {
    "site_at",  "site_on_line", "site_on_plane", "site_still",  "pose",
    "velocity", "com_position", "com_velocity",  "joint_limits", "above_ground", "body_still",
    "site_above", "com_above", "site_in_box", "com_in_box", "joint_range", "clear_bar", NULL};

static const char* const objective_names[] = {"acceleration", "reference", "height", "travel", "torque", "contact_force", "contact_jerk", "duration", NULL};

static const char* const guess_names[] = {"interpolate", "motion", NULL};

static const char* const hessian_names[] = {"limited-memory", "exact", NULL};

// in SALTO_FLIGHT_* order
static const char* const flight_row_names[] = {"force", "momentum", "momentum_ends", NULL};
static const char* const linear_solver_names[] = {"salto", "mumps", NULL};

// in salto_filmstrip_view order
static const char* const filmstrip_view_names[] = {"side", "front", "top", NULL};

// in salto_jac_method order (aggregate.h)
static const char* const derivative_names[] = {"linear",     "direct",     "fd-forward",
                                               "fd-central", "richardson", NULL};

// the loader's state while it reads one problem file
typedef struct reader {
    salto_problem_desc* p;   // being filled; its path owns the locations' file name
    salto_error* err;
    const salto_model* m;    // p->model, once loaded
    int joint_limits_line;   // line of a joint_limits constraint, 0 when there is none
    const char** phase_names; // borrowed from p->phases, for lookups          (nphase)
} reader;


// the node's location, with the file name owned by the description
static inline salto_src_loc at(const reader* R, const salto_cfg_node* n) {
    salto_src_loc l = {R->p->path, n->loc.line, n->loc.col};
    return l;
}

static inline salto_src_loc key_at(const reader* R, const salto_cfg_node* n) {
    salto_src_loc l = {R->p->path, n->key_loc.line, n->key_loc.col};
    return l;
}

// the file itself, for values that were not written (defaults)
static inline salto_src_loc file_loc(const reader* R) {
    salto_src_loc l = {R->p->path, 0, 0};
    return l;
}

static inline const char* const* model_names(char** names) {
    return (const char* const*)names;
}


// ---- defined in one file for the others (each documented at its definition) ----

// problem.c: allocation, the character, the whole file
int problem_junction_knots(const salto_problem_desc* p);

// problem_read.c: reading helpers and times
salto_status problem_nomem(reader* R);
const char* problem_article(const char* word);
salto_status problem_read_enum(reader* R, const salto_cfg_node* n, const char* const* names,
                               const char* what, int* out);
salto_status problem_check_typed_keys(reader* R, const salto_cfg_node* map,
                                      const char* const* allowed, const char* const* all,
                                      const char* what);
salto_status problem_check_lower(reader* R, const salto_cfg_node* n, double x, double lo,
                                 int strict);
salto_status problem_read_num_opt(reader* R, const salto_cfg_node* map, const char* key, double lo,
                                  int strict, double* out);
salto_status problem_read_int_opt(reader* R, const salto_cfg_node* map, const char* key, int lo,
                                  int hi, int* out);
salto_status problem_read_unit(reader* R, const salto_cfg_node* n, double out[3]);
salto_status problem_read_string(reader* R, const salto_cfg_node* n, char** out);
salto_status problem_read_path(reader* R, const salto_cfg_node* n, char** out);
int problem_is_identifier(const char* s);
// a bar's `point` and unit `axis` in map n (a bar contact's, a clear_bar's): along y for a
// planar character
salto_status problem_read_bar_line(reader* R, const salto_cfg_node* n, double point[3],
                                   double axis[3]);
salto_status problem_lookup(reader* R, const char* name, const char* const* names, int count,
                            const char* what, salto_src_loc loc, int* out);
salto_status problem_read_site(reader* R, const salto_cfg_node* n, int* out);
salto_status problem_read_phase_ref(reader* R, const salto_cfg_node* n, int* out);
salto_status problem_read_time(reader* R, const salto_cfg_node* n, double* out);
// exactly one of map n's 'time' and 'phase' (what names the map in the message: "a height
// objective"): the time into *time and *has_time 1, or the phase into *phase
salto_status problem_read_time_or_phase(reader* R, const salto_cfg_node* n, const char* what,
                                        int* has_time, double* time, int* phase);

// problem_phases.c: boxes, phases and contacts
salto_status problem_read_boxes(reader* R, const salto_cfg_node* top);
salto_status problem_read_phases(reader* R, const salto_cfg_node* top);

// problem_constraints.c: constraints and holds
salto_status problem_read_constraints(reader* R, const salto_cfg_node* top);
salto_status problem_add_holds(reader* R);

// problem_settings.c: objectives, initial guess, solver, output, validation, spline
salto_status problem_read_objectives(reader* R, const salto_cfg_node* top);
salto_status problem_read_guess(reader* R, const salto_cfg_node* top);
salto_status problem_read_solver(reader* R, const salto_cfg_node* top);
salto_status problem_read_output(reader* R, const salto_cfg_node* top);
salto_status problem_read_validation(reader* R, const salto_cfg_node* top);
salto_status problem_read_spline(reader* R, const salto_cfg_node* top);
salto_status problem_note_size_loc(reader* R, const salto_cfg_node* top);
salto_status problem_check_values(reader* R);

// problem_react.c: the reactions (salto play --react)
salto_status problem_read_reactions(reader* R, const salto_cfg_node* top);

salto_status problem_read_name(reader* R, const salto_cfg_node* n, char* out, size_t cap,
                               const char* kind, const salto_cfg_node** node);

#endif
