// motion_read.c: motions as data: motion.json read back, sampled, and any motion given by its
// state sampled into frames (salto_motion_from_state)
//
// motion.json is JSON, which is YAML flow syntax, so it is read with the located YAML reader
// (config.h): every value keeps its file:line:col, and every error points at the value that
// caused it. The shapes of the lists are checked before anything is allocated, so that no
// input, however large or malformed, asks for more memory than the document already holds.
#define _XOPEN_SOURCE 700 // realpath
#include "salto/motion.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/bspline.h"
#include "salto/config.h"
#include "salto/orient.h"

// the keys salto_motion_write_json writes, at the top level and in "solver" (refined_slices,
// the slices refinement added, is a record: the motion is its control points either way)
static const char* const top_keys[] = {
    "format", "problem", "set", "character", "duration", "phases", "ballistic",
    "refined_slices", "dofs", "control_points", "knots", "control", "frame_rate", "frames",
    "solver", "root_chart", NULL};
static const char* const root_chart_keys[] = {"reference", "anchor", NULL};
static const char* const solver_keys[] = {
    "status", "converged", "iterations", "objective", "time", "max_violation",
    "worst_constraint", "evaluations", NULL};
static const char* const evaluation_keys[] = {"f", "g", "jacobian", NULL};

#define MOTION_FORMAT "salto motion 1"

// frame k is sampled at t_k = min(k / rate, duration), as the writer samples it
static double frame_time(double rate, double duration, int k) {
    return fmin((double)k / rate, duration);
}


// frames the writer samples over duration at rate: floor(duration rate + 1e-9) + 1 (as a
// double, so that no input can overflow it)
static double frame_count(double rate, double duration) {
    return floor(duration * rate + 1e-9) + 1.0;
}


void salto_motion_destroy(salto_motion* mo) {
    if (!mo) return;
    if (mo->dof_name) {
        for (int j = 0; j < mo->nv; j++) salto_free(mo->dof_name[j]);
    }
    salto_free(mo->dof_name);
    salto_free(mo->q);
    salto_free(mo->control);
    salto_free(mo->knot);
    salto_free(mo->problem);
    salto_free(mo->character);
    salto_strs_free(mo->ballistic, mo->nballistic);
    salto_strs_free(mo->set, mo->nset);
    salto_free(mo->phase_duration);
    salto_free(mo);
}


// a motion with its arrays allocated (names NULL, values unset); NULL when memory runs out.
// nv >= 1 and nframe >= 1; ncp >= 0; knots: room for ncp + 4 knots.
static salto_motion* motion_alloc(int nv, int nframe, int ncp, int knots) {
    salto_motion* mo = salto_calloc(1, sizeof *mo);
    if (!mo) return NULL;
    mo->nv = nv;
    mo->nframe = nframe;
    mo->ncp = ncp;
    mo->converged = -1;
    mo->dof_name = salto_calloc((size_t)nv, sizeof *mo->dof_name);
    mo->q = salto_malloc((size_t)nframe * (size_t)nv * sizeof(double));
    if (ncp > 0) mo->control = salto_malloc((size_t)nv * (size_t)ncp * sizeof(double));
    if (knots) mo->knot = salto_malloc(((size_t)ncp + 4) * sizeof(double));
    if (!mo->dof_name || !mo->q || (ncp > 0 && !mo->control) || (knots && !mo->knot)) {
        salto_motion_destroy(mo);
        return NULL;
    }
    return mo;
}

// ---- reading ----

// SALTO_ERR_INVALID unless n is a list of len items: "expected <len> <what> for <name>, found
// <description>" at n
static salto_status expect_list(const salto_cfg_node* n, int len, const char* what,
                                salto_error* err) {
    if (n && n->kind == SALTO_CFG_LIST && n->n == len) return SALTO_OK;
    char name[300];
    char found[100];
    salto_cfg_name(n, name, sizeof name);
    salto_cfg_describe(n, found, sizeof found);
    return SALTO_FAIL(err, SALTO_ERR_INVALID, n ? n->loc : salto_loc_none(),
                      "expected a list of %d %s for %s, found %s", len, what, name, found);
}


// an optional string (absent: ""), copied into *out
static salto_status read_path(const salto_cfg_node* root, const char* key, char** out,
                              salto_error* err) {
    const char* s = "";
    const salto_cfg_node* n = salto_cfg_child(root, key);
    if (n && salto_cfg_string(n, &s, err)) return err->status;
    *out = salto_strdup(s);
    if (!*out) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    return SALTO_OK;
}


// a list of strings at key (absent: none): "ballistic", the flights solved on their parabola
// (phase names); "set", the overrides the problem was solved with
static salto_status read_strings(const salto_cfg_node* root, const char* key, char*** out,
                                 int* count, salto_error* err) {
    const salto_cfg_node* n = salto_cfg_child(root, key);
    if (!n) return SALTO_OK;
    if (salto_cfg_expect(n, SALTO_CFG_LIST, err)) return err->status;
    *out = salto_calloc((size_t)n->n + 1, sizeof(char*));
    if (!*out) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    for (int i = 0; i < n->n; i++) {
        const char* s;
        if (salto_cfg_string(n->child[i], &s, err)) return err->status;
        (*out)[i] = salto_strdup(s);
        if (!(*out)[i]) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        *count = i + 1;
    }
    return SALTO_OK;
}


static int root_axes(const salto_motion* mo, int o[3]);


// "root_chart" (absent: the character's own): a turned motion's {"reference": 9 numbers, a
// rotation, "anchor": 3 angles}; its frames, written in the character's chart, are brought
// into the turned one (the angles nearest the last frame's, from the spline's first value)
static salto_status read_root_chart(const salto_cfg_node* root, salto_motion* mo, salto_error* err) {
    const salto_cfg_node* n = salto_cfg_child(root, "root_chart");
    if (!n) return SALTO_OK;
    if (salto_cfg_expect(n, SALTO_CFG_MAP, err) || salto_cfg_check_keys(n, root_chart_keys, err)) return err->status;
    const salto_cfg_node* r = salto_cfg_require(n, "reference", err);
    const salto_cfg_node* a = r ? salto_cfg_require(n, "anchor", err) : NULL;
    if (!a) return err->status;
    if (salto_cfg_expect(r, SALTO_CFG_LIST, err) || salto_cfg_expect(a, SALTO_CFG_LIST, err)) return err->status;
    if (r->n != 9 || a->n != 3) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, r->n != 9 ? r->loc : a->loc,
                          "'root_chart' needs 9 numbers in 'reference' and 3 in 'anchor'");
    }
    for (int k = 0; k < 9; k++) {
        if (salto_cfg_number(r->child[k], &mo->root_ref[k], err)) return err->status;
    }
    for (int k = 0; k < 3; k++) {
        if (salto_cfg_number(a->child[k], &mo->root_anchor[k], err)) return err->status;
    }
    // a rotation: B B' = I, det B = 1
    const double* B = mo->root_ref;
    double worst = 0.0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            const double d = B[3 * i] * B[3 * j] + B[3 * i + 1] * B[3 * j + 1] + B[3 * i + 2] * B[3 * j + 2];
            worst = fmax(worst, fabs(d - (i == j)));
        }
    }
    const double det = B[0] * (B[4] * B[8] - B[5] * B[7]) - B[1] * (B[3] * B[8] - B[5] * B[6]) +
                       B[2] * (B[3] * B[7] - B[4] * B[6]);
    int o[3];
    if (!(worst <= 1e-9) || !(det > 0.0)) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, r->loc, "'root_chart.reference' is not a rotation");
    }
    if (mo->nv < 6 || !root_axes(mo, o) || mo->ncp < 1 || !mo->control) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, n->loc,
                          "'root_chart' needs a free root's DOFs (root_r* as the 4th to 6th) and a spline");
    }
    mo->root_turned = 1;
    double start[3]; // the spline's value at time 0: its first control points
    for (int k = 0; k < 3; k++) start[k] = mo->control[(size_t)(3 + k) * (size_t)mo->ncp];
    salto_euler_frames_rechart(o, NULL, mo->root_ref, start, mo->q, mo->nframe, mo->nv);
    return SALTO_OK;
}


// "phases" (absent: none): a list of maps, each with the phase's "duration" (> 0, s); their
// other keys (name, start, contact) are a record, not read
static salto_status read_phases(const salto_cfg_node* root, salto_motion* mo, salto_error* err) {
    const salto_cfg_node* n = salto_cfg_child(root, "phases");
    if (!n) return SALTO_OK;
    if (salto_cfg_expect(n, SALTO_CFG_LIST, err)) return err->status;
    mo->phase_duration = salto_calloc((size_t)n->n + 1, sizeof(double));
    if (!mo->phase_duration) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    for (int i = 0; i < n->n; i++) {
        const salto_cfg_node* e = n->child[i];
        if (salto_cfg_expect(e, SALTO_CFG_MAP, err)) return err->status;
        const salto_cfg_node* d = salto_cfg_require(e, "duration", err);
        if (!d || salto_cfg_number(d, &mo->phase_duration[i], err)) return err->status;
        if (!(mo->phase_duration[i] > 0.0) || !isfinite(mo->phase_duration[i])) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, d->loc,
                              "the duration of phase %d must be positive, found %.17g", i + 1,
                              mo->phase_duration[i]);
        }
    }
    mo->nphase = n->n;
    return SALTO_OK;
}


// "refined_slices": a record of the slices refinement added (absent: none), a list of times;
// checked, not kept (the motion is its control points either way)
static salto_status check_refined_slices(const salto_cfg_node* root, salto_error* err) {
    const salto_cfg_node* n = salto_cfg_child(root, "refined_slices");
    if (!n) return SALTO_OK;
    if (salto_cfg_expect(n, SALTO_CFG_LIST, err)) return err->status;
    for (int i = 0; i < n->n; i++) {
        double t;
        if (salto_cfg_number(n->child[i], &t, err)) return err->status;
    }
    return SALTO_OK;
}


// "solver": its keys, and "converged" (true or false) into *converged
static salto_status read_solver(const salto_cfg_node* solver, int* converged, salto_error* err) {
    if (salto_cfg_check_keys(solver, solver_keys, err)) return err->status;
    const salto_cfg_node* ev = salto_cfg_child(solver, "evaluations");
    if (ev && salto_cfg_check_keys(ev, evaluation_keys, err)) return err->status;
    const salto_cfg_node* c = salto_cfg_require(solver, "converged", err);
    if (!c || salto_cfg_bool(c, converged, err)) return err->status;
    return SALTO_OK;
}


// everything but the allocation: the top-level values and the shapes of the lists, so that
// the sizes below are those of lists the document holds
typedef struct motion_shape {
    const salto_cfg_node* dofs;      // list of nv strings
    const salto_cfg_node* frames;    // list of nframe lists of 1 + nv numbers
    const salto_cfg_node* control;   // list of nv lists of ncp numbers, or NULL
    const salto_cfg_node* knots;     // list of ncp + 4 numbers, or NULL
    int nv, nframe, ncp;
    double duration, frame_rate;
    int converged;
} motion_shape;


static salto_status read_shape(const salto_cfg_node* root, motion_shape* sh, salto_error* err) {
    // the format first: anything else is better reported as "not a motion file"
    if (salto_cfg_expect(root, SALTO_CFG_MAP, err)) return err->status;
    const salto_cfg_node* n = salto_cfg_require(root, "format", err);
    const char* format = NULL;
    if (!n || salto_cfg_string(n, &format, err)) return err->status;
    if (strcmp(format, MOTION_FORMAT) != 0) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, n->loc,
                          "unsupported format '%.100s' (expected '" MOTION_FORMAT "')", format);
    }
    if (salto_cfg_check_keys(root, top_keys, err)) return err->status;

    n = salto_cfg_require(root, "duration", err);
    if (!n || salto_cfg_number(n, &sh->duration, err)) return err->status;
    if (sh->duration < 0) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, n->loc,
                          "'duration' must not be negative, found %.17g", sh->duration);
    }
    n = salto_cfg_require(root, "frame_rate", err);
    if (!n || salto_cfg_number(n, &sh->frame_rate, err)) return err->status;
    if (!(sh->frame_rate > 0)) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, n->loc,
                          "'frame_rate' must be positive, found %.17g", sh->frame_rate);
    }

    sh->dofs = salto_cfg_require(root, "dofs", err);
    if (!sh->dofs || salto_cfg_expect(sh->dofs, SALTO_CFG_LIST, err)) return err->status;
    sh->nv = sh->dofs->n;
    if (sh->nv < 1) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, sh->dofs->loc,
                          "'dofs' must name at least one DOF");
    }
    for (int j = 0; j < sh->nv; j++) {
        const char* s;
        if (salto_cfg_string(sh->dofs->child[j], &s, err)) return err->status;
    }

    // frames: [t, q_0 .. q_nv-1] each
    sh->frames = salto_cfg_require(root, "frames", err);
    if (!sh->frames || salto_cfg_expect(sh->frames, SALTO_CFG_LIST, err)) return err->status;
    sh->nframe = sh->frames->n;
    if (sh->nframe < 1) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, sh->frames->loc,
                          "'frames' must hold at least one frame");
    }
    char what[64];
    snprintf(what, sizeof what, "numbers (t and %d DOF value%s)", sh->nv, sh->nv == 1 ? "" : "s");
    for (int k = 0; k < sh->nframe; k++) {
        if (expect_list(sh->frames->child[k], 1 + sh->nv, what, err)) return err->status;
    }

    // the spline: "control_points" and "control" together or not at all
    const salto_cfg_node* ncp = salto_cfg_child(root, "control_points");
    sh->control = salto_cfg_child(root, "control");
    if (!ncp && salto_cfg_child(root, "knots")) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_cfg_child(root, "knots")->key_loc,
                          "'knots' is given without 'control_points'");
    }
    if (!ncp != !sh->control) {
        const salto_cfg_node* given = ncp ? ncp : sh->control;
        return SALTO_FAIL(err, SALTO_ERR_INVALID, given->key_loc, "'%s' is given without '%s'",
                          given->key, ncp ? "control" : "control_points");
    }
    sh->ncp = 0;
    if (ncp) {
        if (salto_cfg_int(ncp, &sh->ncp, err)) return err->status;
        if (sh->ncp < 1) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, ncp->loc,
                              "'control_points' must be at least 1, found %d", sh->ncp);
        }
        if (expect_list(sh->control, sh->nv, "lists (one per DOF)", err)) return err->status;
        // the knots (optional: motions from other tools have none)
        sh->knots = salto_cfg_child(root, "knots");
        if (sh->knots && sh->ncp > 2147483647 - 4) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, ncp->loc, "'control_points' is too large");
        }
        if (sh->knots && expect_list(sh->knots, sh->ncp + 4, "numbers (the knots)", err)) {
            return err->status;
        }
        for (int j = 0; j < sh->nv; j++) {
            if (expect_list(sh->control->child[j], sh->ncp, "numbers (the control points)",
                            err)) {
                return err->status;
            }
        }
    }

    sh->converged = -1;
    n = salto_cfg_child(root, "solver");
    if (n && read_solver(n, &sh->converged, err)) return err->status;
    return SALTO_OK;
}


// the values: names, frames (with their times checked) and control points, into mo
static salto_status read_values(const motion_shape* sh, salto_motion* mo, salto_error* err) {
    mo->frame_rate = sh->frame_rate;
    mo->duration = sh->duration;
    mo->converged = sh->converged;
    for (int j = 0; j < sh->nv; j++) {
        mo->dof_name[j] = salto_strdup(sh->dofs->child[j]->text);
        if (!mo->dof_name[j]) {
            return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        }
    }
    for (int k = 0; k < sh->nframe; k++) {
        const salto_cfg_node* f = sh->frames->child[k];
        double t;
        if (salto_cfg_number(f->child[0], &t, err)) return err->status;
        const double tk = frame_time(sh->frame_rate, sh->duration, k);
        if (!(fabs(t - tk) <= 1e-9)) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, f->child[0]->loc,
                              "frame %d is at t = %.9g s, but at %.9g frames per second over "
                              "%.9g s it must be at %.9g s",
                              k, t, sh->frame_rate, sh->duration, tk);
        }
        for (int j = 0; j < sh->nv; j++) {
            if (salto_cfg_number(f->child[1 + j], &mo->q[k * sh->nv + j], err)) {
                return err->status;
            }
        }
    }
    // every time matched, so a wrong count is a list that ends early (or a duration that
    // ends late); report it at the list
    const double want = frame_count(sh->frame_rate, sh->duration);
    if ((double)sh->nframe != want) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, sh->frames->loc,
                          "'frames' holds %d frame%s, but %.9g s at %.9g frames per second "
                          "takes %.9g",
                          sh->nframe, sh->nframe == 1 ? "" : "s", sh->duration,
                          sh->frame_rate, want);
    }
    for (int a = 0; sh->knots && a < sh->ncp + 4; a++) {
        const salto_cfg_node* k = sh->knots->child[a];
        if (salto_cfg_number(k, &mo->knot[a], err)) return err->status;
        if (a > 0 && !(mo->knot[a] >= mo->knot[a - 1])) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, k->loc,
                              "knot %d (%.9g) is below the one before it (%.9g): knots must not "
                              "decrease",
                              a, mo->knot[a], mo->knot[a - 1]);
        }
    }
    for (int j = 0; j < (sh->ncp > 0 ? sh->nv : 0); j++) {
        const salto_cfg_node* row = sh->control->child[j];
        for (int a = 0; a < sh->ncp; a++) {
            if (salto_cfg_number(row->child[a], &mo->control[j * sh->ncp + a], err)) {
                return err->status;
            }
        }
    }
    return SALTO_OK;
}


salto_motion* salto_motion_load_json(const char* path, salto_error* err) {
    salto_error local = {0};
    if (!err) err = &local;
    salto_cfg* cfg = salto_cfg_load(path, err);
    if (!cfg) return NULL;

    motion_shape sh = {0};
    salto_motion* mo = NULL;
    if (read_shape(salto_cfg_root(cfg), &sh, err) == SALTO_OK) {
        mo = motion_alloc(sh.nv, sh.nframe, sh.ncp, sh.knots != NULL);
        if (!mo) {
            SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory reading '%s'",
                       path);
        } else if (read_path(salto_cfg_root(cfg), "problem", &mo->problem, err) ||
                   read_path(salto_cfg_root(cfg), "character", &mo->character, err) ||
                   read_strings(salto_cfg_root(cfg), "ballistic", &mo->ballistic, &mo->nballistic, err) ||
                   read_strings(salto_cfg_root(cfg), "set", &mo->set, &mo->nset, err) ||
                   read_phases(salto_cfg_root(cfg), mo, err) ||
                   check_refined_slices(salto_cfg_root(cfg), err) ||
                   read_values(&sh, mo, err) || read_root_chart(salto_cfg_root(cfg), mo, err)) {
            salto_motion_destroy(mo);
            mo = NULL;
        }
    }
    salto_cfg_destroy(cfg);
    return mo;
}

// ---- sampling ----

// the root's rotation order from the motion's DOF names 3, 4, 5 (root_rx: 0, root_ry: 1,
// root_rz: 2); 0 when they are not those
static int root_axes(const salto_motion* mo, int o[3]) {
    for (int a = 0; a < 3; a++) {
        const char* nm = mo->dof_name[3 + a];
        if (!nm || strlen(nm) != 7 || strncmp(nm, "root_r", 6) != 0 || nm[6] < 'x' || nm[6] > 'z') return 0;
        o[a] = nm[6] - 'x';
    }
    return o[0] != o[1] && o[1] != o[2] && o[0] != o[2];
}


double salto_motion_frame_time(const salto_motion* mo, int k) {
    return frame_time(mo->frame_rate, mo->duration, k);
}

// Linear interpolation between the frames around t, clamped to [0, duration]:
// q(t) = (1 - w) q_k + w q_k+1 with w = (t - t_k) / (t_k+1 - t_k); at a frame time, the
// frame exactly.
void salto_motion_sample(const salto_motion* mo, double t, double* q) {
    SALTO_ASSERT(mo && q);
    const int nv = mo->nv;
    const int last = mo->nframe - 1;
    if (!(t > 0)) t = 0; // NaN too
    if (t > mo->duration) t = mo->duration;

    // the frame at or before t: floor(t rate), corrected for rounding in either direction
    const double u = floor(t * mo->frame_rate);
    int k = u < 0 ? 0 : u > (double)last ? last : (int)u;
    if (k > 0 && t < frame_time(mo->frame_rate, mo->duration, k)) k--;
    if (k < last && t >= frame_time(mo->frame_rate, mo->duration, k + 1)) k++;
    const double* q0 = mo->q + (size_t)k * (size_t)nv;
    if (k >= last || t == frame_time(mo->frame_rate, mo->duration, k)) {
        // at a frame: the frame itself (also its signed zeros)
        memcpy(q, q0, (size_t)nv * sizeof(double));
        return;
    }
    const double t0 = frame_time(mo->frame_rate, mo->duration, k);
    const double t1 = frame_time(mo->frame_rate, mo->duration, k + 1);
    const double* q1 = q0 + nv;
    const double w = t1 > t0 ? (t - t0) / (t1 - t0) : 1.0;
    for (int j = 0; j < nv; j++) q[j] = (1.0 - w) * q0[j] + w * q1[j];
}

int salto_motion_problem_overrides(const salto_motion* mo, const char** out) {
    int n = 0;
    for (int i = 0; i < mo->nset; i++) {
        const char* s = mo->set[i];
        if (strncmp(s, "initial_guess", 13) == 0 && (s[13] == '.' || s[13] == '=')) continue;
        out[n++] = s;
    }
    return n;
}


// ---- from an NLP ----

// a copy of path made absolute and without "..", so that the motion finds its problem from
// any folder; the path as it is when it does not resolve ("" for none)
static char* whole_path(const char* path) {
    char buf[PATH_MAX];
    if (path && *path && realpath(path, buf)) return salto_strdup(buf);
    return salto_strdup(path ? path : "");
}


salto_motion* salto_motion_from_state(const salto_problem_desc* p, salto_state_fn state,
                                      void* ctx, const salto_bspline* spline,
                                      const double* control) {
    const salto_model* m = p->model;
    const double rate = p->output.frame_rate;
    const int nframe = (int)frame_count(rate, p->duration);
    salto_motion* mo = motion_alloc(m->nv, nframe, p->ncp, 1);
    if (!mo) return NULL;
    mo->frame_rate = rate;
    mo->duration = p->duration;
    mo->problem = whole_path(p->path);
    mo->character = whole_path(p->character);
    int ok = mo->problem && mo->character;
    for (int j = 0; j < m->nv && ok; j++) {
        mo->dof_name[j] = salto_strdup(m->link_name[j]);
        ok = mo->dof_name[j] != NULL;
    }
    if (ok) {
        ok = salto_strs_dup(p->nset, (const char* const*)p->set, &mo->set) == 0;
        if (ok) mo->nset = p->nset > 0 ? p->nset : 0;
    }
    if (ok) {
        // the phases' durations, as motion.json records them
        mo->phase_duration = salto_malloc((size_t)p->nphase * sizeof(double));
        ok = mo->phase_duration != NULL;
        for (int i = 0; ok && i < p->nphase; i++) mo->phase_duration[i] = p->phases[i].duration;
        if (ok) mo->nphase = p->nphase;
    }
    if (!ok) {
        salto_motion_destroy(mo);
        return NULL;
    }
    if (p->ncp > 0) memcpy(mo->control, control, (size_t)m->nv * (size_t)p->ncp * sizeof(double));
    for (int a = 0; a < p->ncp + 4; a++) mo->knot[a] = salto_bspline_knot(spline, a);
    mo->root_turned = p->root_turned;
    memcpy(mo->root_ref, p->root_ref, sizeof mo->root_ref);
    memcpy(mo->root_anchor, p->root_anchor, sizeof mo->root_anchor);
    for (int k = 0; k < nframe; k++) {
        double* q = mo->q + (size_t)k * m->nv;
        state(ctx, frame_time(rate, p->duration, k), q, NULL, NULL);
        // rounding noise about zero (an effective root's 1e-31 m) is written as the zero it is
        for (int j = 0; j < m->nv; j++) {
            if (fabs(q[j]) < SALTO_MOTION_ZERO) q[j] = 0.0;
        }
    }
    return mo;
}


double* salto_motion_character_q(const salto_motion* mo) {
    const size_t n = (size_t)mo->nframe * (size_t)mo->nv;
    double* q = salto_malloc((n ? n : 1) * sizeof(double));
    if (!q) return NULL;
    memcpy(q, mo->q, n * sizeof(double));
    // the order: the DOF names' axes (root_rx, root_ry, root_rz in rotation order)
    int o[3];
    if (!mo->root_turned || mo->nv < 6 || !root_axes(mo, o)) return q;
    salto_euler_frames_rechart(o, mo->root_ref, NULL, mo->root_anchor, q, mo->nframe, mo->nv);
    return q;
}


// the motion's root angles at t (its chart's), and their rates by central differences of its
// frames over a frame's time
static void motion_root_path(void* ctx, double t, double q[3], double qd[3]) {
    const salto_motion* mo = ctx;
    double* f = salto_malloc(3 * (size_t)mo->nv * sizeof(double));
    if (!f) {
        q[0] = q[1] = q[2] = qd[0] = qd[1] = qd[2] = 0.0;
        return;
    }
    const double h = 1.0 / mo->frame_rate;
    const double ta = fmax(0.0, t - h), tb = fmin(mo->duration, t + h);
    salto_motion_sample(mo, t, f);
    salto_motion_sample(mo, ta, f + mo->nv);
    salto_motion_sample(mo, tb, f + 2 * mo->nv);
    for (int a = 0; a < 3; a++) {
        q[a] = f[3 + a];
        qd[a] = tb > ta ? (f[2 * mo->nv + 3 + a] - f[mo->nv + 3 + a]) / (tb - ta) : 0.0;
    }
    salto_free(f);
}


salto_status salto_motion_turn_problem(const salto_motion* mo, salto_problem_desc* p, salto_error* err) {
    if (!mo->root_turned) return SALTO_OK;
    return salto_problem_turn_root(p, mo->root_ref, mo->root_anchor, motion_root_path, (void*)mo, err);
}


int salto_motion_knot_counts(const salto_motion* mo, int nphase, int* counts) {
    if (!mo->knot || mo->ncp < 4) return 0;
    int ph = 0;
    counts[0] = 0;
    for (int a = 4; a < mo->ncp;) {
        if (a + 1 < mo->ncp && mo->knot[a + 1] == mo->knot[a]) {
            // a boundary: a double knot, or a triple one into an impact
            if (++ph >= nphase) return 0;
            counts[ph] = 0;
            const double k = mo->knot[a];
            while (a < mo->ncp && mo->knot[a] == k) a++;
        } else {
            counts[ph]++;
            a++;
        }
    }
    return ph == nphase - 1;
}
