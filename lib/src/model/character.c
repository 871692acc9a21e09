// character.c: character descriptions: reading and writing character files, checks
//
// The loader reads the file with config.c, copies every value into the description with its
// source location (re-pointed at desc->path, so the description outlives the config tree),
// and then runs the same checks that descriptions built in code go through
// (salto_character_validate). Checks that only make sense for text (types, unknown or
// missing keys, both 'inertia' and 'radii_of_gyration', 'limits_deg' on a prismatic axis)
// are made while reading; everything a description can hold is checked by the validator.
#include "salto/character.h"

#include "salto/atomic.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "salto/config.h"

static const double pi = 3.14159265358979323846;

static const char* const root_type_names[] = {"free", "planar", "fixed", NULL};
static const char* const axis_type_names[] = {"revolute", "prismatic", NULL};
static const char* const shape_names[] = {"capsule", "box", "sphere", NULL};

// the DOF names the root types add (character-format.md, "Frames and degrees of freedom")
static const char* const free_dofs[] = {"root_x", "root_y", "root_z",
                                        "root_rx", "root_ry", "root_rz"};
static const char* const planar_dofs[] = {"root_x", "root_z", "root_ry"};

// ---- allocation ----

salto_character_desc* salto_character_alloc(int nbody) {
    if (nbody < 0) return NULL;
    salto_character_desc* c = salto_calloc(1, sizeof *c);
    if (!c) return NULL;
    c->path = salto_strdup("");
    if (!c->path) goto fail;
    if (nbody > 0) {
        c->bodies = salto_calloc((size_t)nbody, sizeof *c->bodies);
        if (!c->bodies) goto fail;
    }
    c->nbody = nbody;
    for (int b = 0; b < nbody; b++) c->bodies[b].parent = -1;
    c->gravity[2] = -9.81;
    c->root_type = SALTO_ROOT_FREE;
    c->root_rot_order[0] = 1;
    c->root_rot_order[1] = 0;
    c->root_rot_order[2] = 2;
    return c;

fail:
    salto_character_destroy(c);
    return NULL;
}


static void free_axes(salto_body_desc* b) {
    for (int k = 0; k < b->naxis && b->axes; k++) salto_free(b->axes[k].name);
    salto_free(b->axes);
    b->axes = NULL;
    b->naxis = 0;
}


salto_status salto_character_set_axes(salto_character_desc* c, int b, int naxis) {
    if (!c || b < 0 || b >= c->nbody || naxis < 0) return SALTO_ERR_INVALID;
    salto_body_desc* body = &c->bodies[b];
    free_axes(body);
    if (naxis == 0) return SALTO_OK;
    body->axes = salto_calloc((size_t)naxis, sizeof *body->axes);
    if (!body->axes) return SALTO_ERR_NOMEM;
    body->naxis = naxis;
    return SALTO_OK;
}


void salto_character_destroy(salto_character_desc* c) {
    if (!c) return;
    for (int b = 0; b < c->nbody && c->bodies; b++) {
        salto_body_desc* body = &c->bodies[b];
        salto_free(body->name);
        free_axes(body);
        for (int s = 0; s < body->nsite && body->sites; s++) salto_free(body->sites[s].name);
        salto_free(body->sites);
        salto_free(body->geoms);
    }
    salto_free(c->bodies);
    salto_free(c->name);
    salto_free(c->path);
    salto_free(c);
}

// ---- checks ----

static int finite_n(const double* v, int n) {
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) return 0;
    }
    return 1;
}


static double norm3(const double* v) {
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}


// eigenvalues of a symmetric 3x3 matrix by cyclic Jacobi rotations (Golub & Van Loan,
// section 8.5): A <- J^T A J zeroes a_pq, with t = tan(theta) the smaller root of
// t^2 + 2 t cot(2 theta) - 1 = 0, cot(2 theta) = (a_qq - a_pp) / (2 a_pq)
static void sym3_eigenvalues(const double* S, double e[3]) {
    double a[3][3];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) a[i][j] = S[3 * i + j];
    }
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
        double diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];
        if (off == 0.0 || off <= 1e-40 * diag) break;
        for (int p = 0; p < 2; p++) {
            for (int q = p + 1; q < 3; q++) {
                if (a[p][q] == 0.0) continue;
                double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                double t = fabs(theta) > 1e150
                               ? 0.5 / theta
                               : (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double cs = 1.0 / sqrt(t * t + 1.0);
                double sn = t * cs;

                // columns: A J
                for (int k = 0; k < 3; k++) {
                    double akp = a[k][p];
                    double akq = a[k][q];
                    a[k][p] = cs * akp - sn * akq;
                    a[k][q] = sn * akp + cs * akq;
                }
                // rows: J^T (A J)
                for (int k = 0; k < 3; k++) {
                    double apk = a[p][k];
                    double aqk = a[q][k];
                    a[p][k] = cs * apk - sn * aqk;
                    a[q][k] = sn * apk + cs * aqk;
                }
                a[p][q] = a[q][p] = 0.0;
            }
        }
    }
    e[0] = a[0][0];
    e[1] = a[1][1];
    e[2] = a[2][2];

    // ascending
    for (int i = 0; i < 3; i++) {
        for (int j = i + 1; j < 3; j++) {
            if (e[j] < e[i]) {
                double t = e[i];
                e[i] = e[j];
                e[j] = t;
            }
        }
    }
}


// symmetric (1e-9 relative), positive definite, principal moments satisfy I1 + I2 >= I3
static salto_status check_inertia(const salto_body_desc* b, salto_error* err) {
    const double* I = b->inertia;
    const salto_src_loc l = b->inertia_loc;
    if (!finite_n(I, 9)) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, l, "inertia of body '%s' is not finite",
                          b->name);
    }
    double scale = 0.0;
    for (int i = 0; i < 9; i++) scale = fmax(scale, fabs(I[i]));
    static const int pairs[3][2] = {{1, 3}, {2, 6}, {5, 7}};
    static const char* const pair_names[3] = {"xy", "xz", "yz"};
    for (int k = 0; k < 3; k++) {
        double u = I[pairs[k][0]];
        double v = I[pairs[k][1]];
        if (fabs(u - v) > 1e-9 * scale) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, l,
                              "inertia of body '%s' is not symmetric (%s: %.17g, but %.17g "
                              "below the diagonal)",
                              b->name, pair_names[k], u, v);
        }
    }
    double S[9];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) S[3 * i + j] = 0.5 * (I[3 * i + j] + I[3 * j + i]);
    }
    double e[3];
    sym3_eigenvalues(S, e);
    if (!(e[2] > 0.0) || !(e[0] > 1e-12 * e[2])) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, l,
                          "inertia of body '%s' is not positive definite (principal moments "
                          "%g, %g, %g)",
                          b->name, e[0], e[1], e[2]);
    }
    if (e[0] + e[1] < e[2] - 1e-9 * (e[0] + e[1] + e[2])) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, l,
                          "inertia of body '%s' violates the triangle inequality: principal "
                          "moments %g + %g < %g",
                          b->name, e[0], e[1], e[2]);
    }
    return SALTO_OK;
}


// the names of the DOFs the root adds (count in *n)
static const char* const* root_dofs(salto_root_type t, int* n) {
    if (t == SALTO_ROOT_FREE) {
        *n = 6;
        return free_dofs;
    }
    if (t == SALTO_ROOT_PLANAR) {
        *n = 3;
        return planar_dofs;
    }
    *n = 0;
    return NULL;
}


static salto_status check_structure(const salto_character_desc* c, int* root_out,
                                    salto_error* err) {
    const int nb = c->nbody;
    int root = -1;
    for (int b = 0; b < nb; b++) {
        const salto_body_desc* body = &c->bodies[b];
        if (!body->name || !body->name[0]) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, body->loc, "body %d has no name", b);
        }
        if (strcmp(body->name, "world") == 0) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, body->loc,
                              "'world' is reserved and cannot name a body");
        }
        for (int a = 0; a < b; a++) {
            if (strcmp(c->bodies[a].name, body->name) == 0) {
                return SALTO_FAIL(err, SALTO_ERR_INVALID, body->loc,
                                  "duplicate body name '%s' (first given on line %d)",
                                  body->name, c->bodies[a].loc.line);
            }
        }
        if (body->parent < -1 || body->parent >= nb || body->parent == b) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, body->parent_loc,
                              "body '%s' has an invalid parent (index %d of %d bodies)",
                              body->name, body->parent, nb);
        }
        if (body->parent == -1) {
            if (root >= 0) {
                return SALTO_FAIL(err, SALTO_ERR_INVALID, body->loc,
                                  "more than one root body: '%s' (line %d) and '%s' have no "
                                  "parent",
                                  c->bodies[root].name, c->bodies[root].loc.line, body->name);
            }
            root = b;
        }
    }

    // every body must reach the root by following parents; a body that does not ends in a
    // cycle after at most nbody steps
    for (int b = 0; b < nb; b++) {
        int x = b;
        for (int step = 0; step < nb && x != root; step++) x = c->bodies[x].parent;
        if (x == root) continue;
        char cyc[300];
        int k = snprintf(cyc, sizeof cyc, "'%s'", c->bodies[x].name);
        for (int y = c->bodies[x].parent, m = 0; m < nb && k > 0 && (size_t)k < sizeof cyc;
             y = c->bodies[y].parent, m++) {
            k += snprintf(cyc + k, sizeof cyc - (size_t)k, " -> '%s'", c->bodies[y].name);
            if (y == x) break;
        }
        if (root < 0) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, c->bodies[x].parent_loc,
                              "no root body (one without 'parent'): the parents form a cycle "
                              "%s",
                              cyc);
        }
        return SALTO_FAIL(err, SALTO_ERR_INVALID, c->bodies[x].parent_loc,
                          "cycle among parents: %s", cyc);
    }
    *root_out = root;
    return SALTO_OK;
}


static salto_status check_axis(const salto_body_desc* body, const salto_axis_desc* a,
                               salto_error* err) {
    if (!a->name || !a->name[0]) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, a->loc, "an axis of body '%s' has no name",
                          body->name);
    }
    if (a->type != SALTO_AXIS_REVOLUTE && a->type != SALTO_AXIS_PRISMATIC) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, a->loc, "axis '%s' has an unknown type (%d)",
                          a->name, (int)a->type);
    }
    double n = norm3(a->axis);
    if (!finite_n(a->axis, 3)) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, a->axis_loc, "axis '%s' is not finite",
                          a->name);
    }
    if (n < 1e-12) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, a->axis_loc, "axis '%s' is zero", a->name);
    }
    if (fabs(n - 1.0) > 1e-9) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, a->axis_loc,
                          "axis '%s' is not a unit vector (length %.17g)", a->name, n);
    }
    if (a->has_limits) {
        if (!finite_n(a->limits, 2)) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, a->limits_loc,
                              "limits of axis '%s' are not finite", a->name);
        }
        if (a->limits[0] > a->limits[1]) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, a->limits_loc,
                              "limits of axis '%s': min (%g) is above max (%g)", a->name,
                              a->limits[0], a->limits[1]);
        }
    }
    return SALTO_OK;
}


static salto_status check_geom(const salto_body_desc* body, const salto_geom_desc* g,
                               salto_error* err) {
    if (!finite_n(g->a, 3) || !finite_n(g->b, 3) || !isfinite(g->radius)) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, g->loc,
                          "geometry of body '%s' is not finite", body->name);
    }
    switch (g->shape) {
    case SALTO_GEOM_CAPSULE:
    case SALTO_GEOM_SPHERE:
        if (!(g->radius > 0)) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, g->loc,
                              "%s of body '%s' needs a positive radius, found %g",
                              shape_names[g->shape], body->name, g->radius);
        }
        return SALTO_OK;
    case SALTO_GEOM_BOX:
        if (!(g->b[0] > 0 && g->b[1] > 0 && g->b[2] > 0)) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, g->loc,
                              "box of body '%s' needs positive half extents, found [%g, %g, %g]",
                              body->name, g->b[0], g->b[1], g->b[2]);
        }
        return SALTO_OK;
    default:
        return SALTO_FAIL(err, SALTO_ERR_INVALID, g->loc,
                          "geometry of body '%s' has an unknown shape (%d)", body->name,
                          (int)g->shape);
    }
}


// DOF names: unique across the character and distinct from the root's
static salto_status check_dof_names(const salto_character_desc* c, salto_error* err) {
    int nroot = 0;
    const char* const* rn = root_dofs(c->root_type, &nroot);
    for (int b = 0; b < c->nbody; b++) {
        const salto_body_desc* body = &c->bodies[b];
        for (int k = 0; k < body->naxis; k++) {
            const salto_axis_desc* a = &body->axes[k];
            for (int r = 0; r < nroot; r++) {
                if (strcmp(a->name, rn[r]) == 0) {
                    return SALTO_FAIL(err, SALTO_ERR_INVALID, a->loc,
                                      "duplicate DOF name '%s' (the %s root already has it)",
                                      a->name, root_type_names[c->root_type]);
                }
            }
            for (int bb = 0; bb <= b; bb++) {
                const salto_body_desc* other = &c->bodies[bb];
                int kend = bb == b ? k : other->naxis;
                for (int kk = 0; kk < kend; kk++) {
                    if (strcmp(other->axes[kk].name, a->name) == 0) {
                        return SALTO_FAIL(err, SALTO_ERR_INVALID, a->loc,
                                          "duplicate DOF name '%s' (first given on line %d)",
                                          a->name, other->axes[kk].loc.line);
                    }
                }
            }
        }
    }
    return SALTO_OK;
}


static salto_status check_site_names(const salto_character_desc* c, salto_error* err) {
    for (int b = 0; b < c->nbody; b++) {
        const salto_body_desc* body = &c->bodies[b];
        for (int s = 0; s < body->nsite; s++) {
            const salto_site_desc* site = &body->sites[s];
            for (int bb = 0; bb <= b; bb++) {
                const salto_body_desc* other = &c->bodies[bb];
                int send = bb == b ? s : other->nsite;
                for (int ss = 0; ss < send; ss++) {
                    if (strcmp(other->sites[ss].name, site->name) == 0) {
                        return SALTO_FAIL(err, SALTO_ERR_INVALID, site->loc,
                                          "duplicate site name '%s' (first given on line %d)",
                                          site->name, other->sites[ss].loc.line);
                    }
                }
            }
        }
    }
    return SALTO_OK;
}


salto_status salto_character_validate(const salto_character_desc* c, salto_error* err) {
    if (!c) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "no character description");
    }
    if (c->nbody < 1 || !c->bodies) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "the character has no bodies");
    }
    if (c->root_type != SALTO_ROOT_FREE && c->root_type != SALTO_ROOT_PLANAR &&
        c->root_type != SALTO_ROOT_FIXED) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, c->root_loc, "unknown root type (%d)",
                          (int)c->root_type);
    }
    if (!finite_n(c->gravity, 3)) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "gravity is not finite");
    }
    int root = -1;
    salto_status s = check_structure(c, &root, err);
    if (s) return s;

    // the root: no axes of its own, a permutation as rotation order
    const salto_body_desc* rb = &c->bodies[root];
    if (rb->naxis != 0) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, c->root_loc,
                          "the root body '%s' has %d axes; its degrees of freedom come from the "
                          "root type",
                          rb->name, rb->naxis);
    }
    if (c->root_type == SALTO_ROOT_FREE) {
        const int* o = c->root_rot_order;
        int ok = 1;
        for (int i = 0; i < 3; i++) ok = ok && o[i] >= 0 && o[i] <= 2;
        if (!ok || o[0] == o[1] || o[0] == o[2] || o[1] == o[2]) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, c->root_loc,
                              "the root rotation order (%d, %d, %d) is not a permutation of x, y, "
                              "z",
                              o[0], o[1], o[2]);
        }
    }

    for (int b = 0; b < c->nbody; b++) {
        const salto_body_desc* body = &c->bodies[b];
        if (!finite_n(body->joint_pos, 3)) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, body->loc,
                              "joint position of body '%s' is not finite", body->name);
        }
        if (b != root && (body->naxis < 1 || !body->axes)) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, body->loc, "body '%s' has no joint axes",
                              body->name);
        }
        for (int k = 0; k < body->naxis; k++) {
            s = check_axis(body, &body->axes[k], err);
            if (s) return s;
        }
        // two parallel axes of the same type in one joint move the body the same way: the
        // joint would have a redundant degree of freedom and a singular mass matrix
        for (int k = 1; k < body->naxis; k++) {
            const salto_axis_desc* a = &body->axes[k];
            for (int j = 0; j < k; j++) {
                const salto_axis_desc* e = &body->axes[j];
                const double x = a->axis[1] * e->axis[2] - a->axis[2] * e->axis[1];
                const double y = a->axis[2] * e->axis[0] - a->axis[0] * e->axis[2];
                const double z = a->axis[0] * e->axis[1] - a->axis[1] * e->axis[0];
                if (a->type == e->type && x * x + y * y + z * z < 1e-18) {
                    return SALTO_FAIL(err, SALTO_ERR_INVALID, a->axis_loc,
                                      "axis '%s' is parallel to axis '%s' of the same joint: "
                                      "the joint would have a redundant degree of freedom",
                                      a->name, e->name);
                }
            }
        }
        if (!isfinite(body->mass) || !(body->mass > 0)) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, body->mass_loc,
                              "mass of body '%s' must be positive and finite, found %g",
                              body->name, body->mass);
        }
        if (!finite_n(body->com, 3)) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, body->loc,
                              "centre of mass of body '%s' is not finite", body->name);
        }
        s = check_inertia(body, err);
        if (s) return s;
        if (body->nsite < 0 || (body->nsite > 0 && !body->sites) || body->ngeom < 0 ||
            (body->ngeom > 0 && !body->geoms)) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, body->loc,
                              "body '%s' has inconsistent site or geometry counts", body->name);
        }
        for (int i = 0; i < body->nsite; i++) {
            const salto_site_desc* site = &body->sites[i];
            if (!site->name || !site->name[0]) {
                return SALTO_FAIL(err, SALTO_ERR_INVALID, site->loc,
                                  "a site of body '%s' has no name", body->name);
            }
            if (!finite_n(site->pos, 3)) {
                return SALTO_FAIL(err, SALTO_ERR_INVALID, site->loc,
                                  "position of site '%s' is not finite", site->name);
            }
        }
        for (int i = 0; i < body->ngeom; i++) {
            s = check_geom(body, &body->geoms[i], err);
            if (s) return s;
        }
    }
    s = check_dof_names(c, err);
    if (s) return s;
    return check_site_names(c, err);
}

// ---- reading ----

typedef struct reader {
    salto_character_desc* c; // being filled; its path owns the locations' file name
    salto_error* err;
} reader;


// the node's location, with the file name owned by the description
static salto_src_loc at(const reader* R, const salto_cfg_node* n) {
    salto_src_loc l = {R->c->path, n->loc.line, n->loc.col};
    return l;
}


static salto_src_loc key_at(const reader* R, const salto_cfg_node* n) {
    salto_src_loc l = {R->c->path, n->key_loc.line, n->key_loc.col};
    return l;
}


static salto_status nomem(reader* R) {
    return SALTO_FAIL(R->err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory reading '%s'",
                      R->c->path ? R->c->path : "?");
}


// a string copied into the description (non-empty)
static salto_status read_name(reader* R, const salto_cfg_node* n, char** out) {
    const char* s = NULL;
    salto_status st = salto_cfg_string(n, &s, R->err);
    if (st) return st;
    if (!s[0]) {
        char name[300];
        salto_cfg_name(n, name, sizeof name);
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n), "%s must not be empty", name);
    }
    *out = salto_strdup(s);
    return *out ? SALTO_OK : nomem(R);
}


// n's index in a NULL-terminated list of names (salto_cfg_enum)
static salto_status read_enum(reader* R, const salto_cfg_node* n, const char* const* names,
                              const char* what, int* out) {
    return salto_cfg_enum(n, names, what, out, R->err);
}


// optional 3-vector
static salto_status read_vec3_opt(reader* R, const salto_cfg_node* map, const char* key,
                                  double* out) {
    const salto_cfg_node* n = salto_cfg_child(map, key);
    return n ? salto_cfg_vec(n, out, 3, R->err) : SALTO_OK;
}


static salto_status read_root_joint(reader* R, salto_body_desc* body,
                                    const salto_cfg_node* bnode) {
    salto_character_desc* c = R->c;
    const salto_cfg_node* j = salto_cfg_require(bnode, "joint", R->err);
    if (!j) return R->err->status;
    salto_status s = salto_cfg_expect(j, SALTO_CFG_MAP, R->err);
    if (s) return s;
    const salto_cfg_node* axes = salto_cfg_child(j, "axes");
    if (axes) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, axes),
                          "the root joint takes no 'axes' (its degrees of freedom come from its "
                          "'type')");
    }
    static const char* const keys[] = {"type", "rotation_order", "position", NULL};
    s = salto_cfg_check_keys(j, keys, R->err);
    if (s) return s;
    c->root_loc = at(R, j);

    const salto_cfg_node* t = salto_cfg_require(j, "type", R->err);
    if (!t) return R->err->status;
    int type = 0;
    s = read_enum(R, t, root_type_names, "root joint type", &type);
    if (s) return s;
    c->root_type = (salto_root_type)type;

    const salto_cfg_node* ro = salto_cfg_child(j, "rotation_order");
    if (ro) {
        if (c->root_type != SALTO_ROOT_FREE) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, ro),
                              "'rotation_order' is only allowed for a free root");
        }
        if (ro->kind != SALTO_CFG_LIST || ro->n != 3) {
            char found[100];
            salto_cfg_describe(ro, found, sizeof found);
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, ro),
                              "expected a list of 3 axes (x, y, z) for 'rotation_order', found %s",
                              found);
        }
        static const char* const letters[] = {"x", "y", "z", NULL};
        for (int i = 0; i < 3; i++) {
            int k = 0;
            s = read_enum(R, ro->child[i], letters, "rotation axis", &k);
            if (s) return s;
            for (int m = 0; m < i; m++) {
                if (c->root_rot_order[m] == k) {
                    return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, ro->child[i]),
                                      "rotation axis '%s' appears twice in 'rotation_order'",
                                      letters[k]);
                }
            }
            c->root_rot_order[i] = k;
        }
    }
    return read_vec3_opt(R, j, "position", body->joint_pos);
}


static salto_status read_axis(reader* R, salto_axis_desc* a, const salto_cfg_node* n) {
    salto_status s = salto_cfg_expect(n, SALTO_CFG_MAP, R->err);
    if (s) return s;
    static const char* const keys[] = {"name", "type", "axis", "limits", "limits_deg", NULL};
    s = salto_cfg_check_keys(n, keys, R->err);
    if (s) return s;
    a->loc = at(R, n);

    const salto_cfg_node* name = salto_cfg_require(n, "name", R->err);
    if (!name) return R->err->status;
    s = read_name(R, name, &a->name);
    if (s) return s;

    const salto_cfg_node* t = salto_cfg_require(n, "type", R->err);
    if (!t) return R->err->status;
    int type = 0;
    s = read_enum(R, t, axis_type_names, "axis type", &type);
    if (s) return s;
    a->type = (salto_axis_type)type;

    // unit axis; a length within 1e-12 of one is kept as written, so that a saved file
    // reads back bit for bit
    const salto_cfg_node* ax = salto_cfg_require(n, "axis", R->err);
    if (!ax) return R->err->status;
    s = salto_cfg_vec(ax, a->axis, 3, R->err);
    if (s) return s;
    a->axis_loc = at(R, ax);
    double len = norm3(a->axis);
    if (len < 1e-12) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, a->axis_loc, "axis '%s' is zero", a->name);
    }
    if (fabs(len - 1.0) > 1e-12) {
        for (int i = 0; i < 3; i++) a->axis[i] /= len;
    }

    const salto_cfg_node* lim = salto_cfg_child(n, "limits");
    const salto_cfg_node* deg = salto_cfg_child(n, "limits_deg");
    if (lim && deg) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, deg),
                          "give either 'limits' or 'limits_deg', not both");
    }
    if (deg && a->type != SALTO_AXIS_REVOLUTE) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, deg),
                          "'limits_deg' is only allowed for revolute axes (axis '%s' is "
                          "prismatic; give 'limits' in metres)",
                          a->name);
    }
    if (lim || deg) {
        const salto_cfg_node* ln = lim ? lim : deg;
        s = salto_cfg_vec(ln, a->limits, 2, R->err);
        if (s) return s;
        a->limits_loc = at(R, ln);
        if (a->limits[0] > a->limits[1]) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, a->limits_loc,
                              "limits of axis '%s': min (%g) is above max (%g)", a->name,
                              a->limits[0], a->limits[1]);
        }
        if (deg) {
            a->limits[0] *= pi / 180.0;
            a->limits[1] *= pi / 180.0;
        }
        a->has_limits = 1;
    }
    return SALTO_OK;
}


static salto_status read_joint(reader* R, salto_character_desc* c, int b,
                               const salto_cfg_node* bnode) {
    salto_body_desc* body = &c->bodies[b];
    const salto_cfg_node* j = salto_cfg_require(bnode, "joint", R->err);
    if (!j) return R->err->status;
    salto_status s = salto_cfg_expect(j, SALTO_CFG_MAP, R->err);
    if (s) return s;
    static const char* const root_only[] = {"type", "rotation_order"};
    for (int i = 0; i < 2; i++) {
        const salto_cfg_node* t = salto_cfg_child(j, root_only[i]);
        if (t) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, t),
                              "'%s' is only allowed on the root joint; give this joint's "
                              "degrees of freedom in 'axes'",
                              root_only[i]);
        }
    }
    static const char* const keys[] = {"position", "axes", NULL};
    s = salto_cfg_check_keys(j, keys, R->err);
    if (s) return s;
    s = read_vec3_opt(R, j, "position", body->joint_pos);
    if (s) return s;

    const salto_cfg_node* axes = salto_cfg_require(j, "axes", R->err);
    if (!axes) return R->err->status;
    s = salto_cfg_expect(axes, SALTO_CFG_LIST, R->err);
    if (s) return s;
    if (axes->n == 0) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, axes),
                          "'axes' of body '%s' must not be empty", body->name);
    }
    s = salto_character_set_axes(c, b, axes->n);
    if (s) return nomem(R);
    for (int k = 0; k < axes->n; k++) {
        s = read_axis(R, &body->axes[k], axes->child[k]);
        if (s) return s;
    }
    return SALTO_OK;
}


// inertia: 3 numbers (diagonal), 6 numbers (xx yy zz xy xz yz) or a 3x3 nested list
static salto_status read_inertia(reader* R, salto_body_desc* body, const salto_cfg_node* n) {
    double* I = body->inertia;
    memset(I, 0, 9 * sizeof(double));
    salto_status s;
    if (n->kind == SALTO_CFG_LIST && n->n == 3 && n->child[0]->kind == SALTO_CFG_LIST) {
        for (int i = 0; i < 3; i++) {
            s = salto_cfg_vec(n->child[i], I + 3 * i, 3, R->err);
            if (s) return s;
        }
        return SALTO_OK;
    }
    if (n->kind == SALTO_CFG_LIST && n->n == 3) {
        double d[3];
        s = salto_cfg_vec(n, d, 3, R->err);
        if (s) return s;
        I[0] = d[0], I[4] = d[1], I[8] = d[2];
        return SALTO_OK;
    }
    if (n->kind == SALTO_CFG_LIST && n->n == 6) {
        double v[6];
        s = salto_cfg_vec(n, v, 6, R->err);
        if (s) return s;
        I[0] = v[0], I[4] = v[1], I[8] = v[2];
        I[1] = I[3] = v[3];
        I[2] = I[6] = v[4];
        I[5] = I[7] = v[5];
        return SALTO_OK;
    }
    char found[100];
    salto_cfg_describe(n, found, sizeof found);
    return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                      "expected 3 numbers (diagonal), 6 numbers (xx yy zz xy xz yz) or a 3x3 "
                      "nested list for 'inertia', found %s",
                      found);
}


static salto_status read_mass_properties(reader* R, salto_body_desc* body,
                                         const salto_cfg_node* bnode) {
    const salto_cfg_node* m = salto_cfg_require(bnode, "mass", R->err);
    if (!m) return R->err->status;
    salto_status s = salto_cfg_number(m, &body->mass, R->err);
    if (s) return s;
    body->mass_loc = at(R, m);
    if (!(body->mass > 0)) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, body->mass_loc,
                          "mass of body '%s' must be positive, found %g", body->name,
                          body->mass);
    }
    s = read_vec3_opt(R, bnode, "com", body->com);
    if (s) return s;

    const salto_cfg_node* in = salto_cfg_child(bnode, "inertia");
    const salto_cfg_node* rg = salto_cfg_child(bnode, "radii_of_gyration");
    if (in && rg) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, rg),
                          "give either 'inertia' or 'radii_of_gyration', not both");
    }
    if (!in && !rg) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, bnode),
                          "missing required key 'inertia' (or 'radii_of_gyration') in body '%s'",
                          body->name);
    }
    if (in) {
        body->inertia_loc = at(R, in);
        return read_inertia(R, body, in);
    }

    // I = diag(m kx^2, m ky^2, m kz^2)
    body->inertia_loc = at(R, rg);
    double k[3];
    s = salto_cfg_vec(rg, k, 3, R->err);
    if (s) return s;
    for (int i = 0; i < 3; i++) {
        if (!(k[i] > 0)) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, rg->child[i]),
                              "radii of gyration of body '%s' must be positive, found %g",
                              body->name, k[i]);
        }
    }
    memset(body->inertia, 0, 9 * sizeof(double));
    for (int i = 0; i < 3; i++) body->inertia[4 * i] = body->mass * k[i] * k[i];
    return SALTO_OK;
}


static salto_status read_sites(reader* R, salto_body_desc* body, const salto_cfg_node* bnode) {
    const salto_cfg_node* sn = salto_cfg_child(bnode, "sites");
    if (!sn) return SALTO_OK;
    salto_status s = salto_cfg_expect(sn, SALTO_CFG_LIST, R->err);
    if (s || sn->n == 0) return s;
    body->sites = salto_calloc((size_t)sn->n, sizeof *body->sites);
    if (!body->sites) return nomem(R);
    body->nsite = sn->n;
    static const char* const keys[] = {"name", "position", NULL};
    for (int i = 0; i < sn->n; i++) {
        const salto_cfg_node* n = sn->child[i];
        salto_site_desc* site = &body->sites[i];
        s = salto_cfg_check_keys(n, keys, R->err);
        if (s) return s;
        site->loc = at(R, n);
        const salto_cfg_node* name = salto_cfg_require(n, "name", R->err);
        if (!name) return R->err->status;
        s = read_name(R, name, &site->name);
        if (s) return s;
        const salto_cfg_node* pos = salto_cfg_require(n, "position", R->err);
        if (!pos) return R->err->status;
        s = salto_cfg_vec(pos, site->pos, 3, R->err);
        if (s) return s;
    }
    return SALTO_OK;
}


static salto_status read_geometry(reader* R, salto_body_desc* body,
                                  const salto_cfg_node* bnode) {
    const salto_cfg_node* gn = salto_cfg_child(bnode, "geometry");
    if (!gn) return SALTO_OK;
    salto_status s = salto_cfg_expect(gn, SALTO_CFG_LIST, R->err);
    if (s || gn->n == 0) return s;
    body->geoms = salto_calloc((size_t)gn->n, sizeof *body->geoms);
    if (!body->geoms) return nomem(R);
    body->ngeom = gn->n;
    static const char* const keys[3][5] = {
        {"type", "from", "to", "radius", NULL},
        {"type", "center", "half_extents", NULL, NULL},
        {"type", "center", "radius", NULL, NULL},
    };
    for (int i = 0; i < gn->n; i++) {
        const salto_cfg_node* n = gn->child[i];
        salto_geom_desc* g = &body->geoms[i];
        s = salto_cfg_expect(n, SALTO_CFG_MAP, R->err);
        if (s) return s;
        g->loc = at(R, n);
        const salto_cfg_node* t = salto_cfg_require(n, "type", R->err);
        if (!t) return R->err->status;
        int shape = 0;
        s = read_enum(R, t, shape_names, "geometry type", &shape);
        if (s) return s;
        g->shape = (salto_geom_shape)shape;
        s = salto_cfg_check_keys(n, keys[shape], R->err);
        if (s) return s;

        // a: capsule 'from', box and sphere 'center' (default origin); b: capsule 'to', box
        // 'half_extents'
        const char* a_key = g->shape == SALTO_GEOM_CAPSULE ? "from" : "center";
        const salto_cfg_node* an = g->shape == SALTO_GEOM_CAPSULE
                                       ? salto_cfg_require(n, a_key, R->err)
                                       : salto_cfg_child(n, a_key);
        if (R->err->status) return R->err->status;
        if (an && (s = salto_cfg_vec(an, g->a, 3, R->err))) return s;
        if (g->shape != SALTO_GEOM_SPHERE) {
            const char* b_key = g->shape == SALTO_GEOM_CAPSULE ? "to" : "half_extents";
            const salto_cfg_node* bn = salto_cfg_require(n, b_key, R->err);
            if (!bn) return R->err->status;
            s = salto_cfg_vec(bn, g->b, 3, R->err);
            if (s) return s;
            if (g->shape == SALTO_GEOM_BOX) {
                for (int k = 0; k < 3; k++) {
                    if (!(g->b[k] > 0)) {
                        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, bn->child[k]),
                                          "half extents of a box must be positive, found %g",
                                          g->b[k]);
                    }
                }
            }
        }
        if (g->shape != SALTO_GEOM_BOX) {
            const salto_cfg_node* rn = salto_cfg_require(n, "radius", R->err);
            if (!rn) return R->err->status;
            s = salto_cfg_number(rn, &g->radius, R->err);
            if (s) return s;
            if (!(g->radius > 0)) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, rn),
                                  "radius of a %s must be positive, found %g",
                                  shape_names[shape], g->radius);
            }
        }
    }
    return SALTO_OK;
}


// parent names to indices; -1 for none or 'world'
static salto_status read_parents(reader* R, const salto_cfg_node* bodies) {
    salto_character_desc* c = R->c;
    const char** names = salto_calloc((size_t)c->nbody, sizeof *names);
    if (!names) return nomem(R);
    for (int b = 0; b < c->nbody; b++) names[b] = c->bodies[b].name;

    salto_status s = SALTO_OK;
    for (int b = 0; b < c->nbody && !s; b++) {
        salto_body_desc* body = &c->bodies[b];
        const salto_cfg_node* p = salto_cfg_child(bodies->child[b], "parent");
        body->parent = -1;
        body->parent_loc = body->loc;
        if (!p) continue;
        const char* pname = NULL;
        s = salto_cfg_string(p, &pname, R->err);
        if (s) break;
        body->parent_loc = at(R, p);
        if (strcmp(pname, "world") == 0) continue;
        for (int a = 0; a < c->nbody && body->parent < 0; a++) {
            if (strcmp(names[a], pname) == 0) body->parent = a;
        }
        if (body->parent < 0) {
            s = SALTO_FAIL(R->err, SALTO_ERR_INVALID, body->parent_loc,
                           "unknown parent '%s' of body '%s'", pname, body->name);
            const char* close = salto_cfg_suggest(pname, names, c->nbody);
            if (close) salto_error_note(R->err, "did you mean '%s'?", close);
        }
    }
    salto_free(names);
    return s;
}


static salto_status read_character(reader* R, const salto_cfg* cfg, const char* path) {
    const salto_cfg_node* top = salto_cfg_root(cfg);
    salto_error* err = R->err;
    static const char* const keys[] = {"name", "source", "gravity", "bodies", NULL};
    salto_status s = salto_cfg_check_keys(top, keys, err);
    if (s) return s;
    const salto_cfg_node* name = salto_cfg_require(top, "name", err);
    if (!name) return err->status;
    const salto_cfg_node* source = salto_cfg_child(top, "source");
    const char* unused = NULL;
    if (source && (s = salto_cfg_string(source, &unused, err))) return s;
    const salto_cfg_node* bodies = salto_cfg_require(top, "bodies", err);
    if (!bodies) return err->status;
    s = salto_cfg_expect(bodies, SALTO_CFG_LIST, err);
    if (s) return s;
    if (bodies->n == 0) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, bodies->loc, "'bodies' must not be empty");
    }

    // the description, with the path that its locations point at
    R->c = salto_character_alloc(bodies->n);
    if (!R->c) {
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory reading '%s'",
                          path);
    }
    salto_character_desc* c = R->c;
    salto_free(c->path);
    c->path = salto_strdup(path);
    if (!c->path) return nomem(R);

    s = read_name(R, name, &c->name);
    if (s) return s;
    s = read_vec3_opt(R, top, "gravity", c->gravity);
    if (s) return s;

    // names first: parents refer to them
    static const char* const body_keys[] = {"name", "parent", "joint", "mass", "com",
                                            "inertia", "radii_of_gyration", "sites",
                                            "geometry", NULL};
    for (int b = 0; b < c->nbody; b++) {
        const salto_cfg_node* bn = bodies->child[b];
        s = salto_cfg_check_keys(bn, body_keys, err);
        if (s) return s;
        c->bodies[b].loc = at(R, bn);
        const salto_cfg_node* bname = salto_cfg_require(bn, "name", err);
        if (!bname) return err->status;
        s = read_name(R, bname, &c->bodies[b].name);
        if (s) return s;
    }
    s = read_parents(R, bodies);
    if (s) return s;

    // the first root's joint sets the root type; a second root is reported here, at its
    // entry, before its joint is read as a root joint
    int root = -1;
    for (int b = 0; b < c->nbody; b++) {
        if (c->bodies[b].parent >= 0) continue;
        if (root >= 0) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, c->bodies[b].loc,
                              "more than one root body: '%s' (line %d) and '%s' have no parent",
                              c->bodies[root].name, c->bodies[root].loc.line,
                              c->bodies[b].name);
        }
        root = b;
    }
    for (int b = 0; b < c->nbody; b++) {
        const salto_cfg_node* bn = bodies->child[b];
        salto_body_desc* body = &c->bodies[b];
        s = b == root ? read_root_joint(R, body, bn) : read_joint(R, c, b, bn);
        if (s) return s;
        s = read_mass_properties(R, body, bn);
        if (s) return s;
        s = read_sites(R, body, bn);
        if (s) return s;
        s = read_geometry(R, body, bn);
        if (s) return s;
    }
    return SALTO_OK;
}


salto_character_desc* salto_character_load(const char* path, salto_error* err) {
    salto_error local = {0};
    if (!err) err = &local;
    salto_cfg* cfg = salto_cfg_load(path, err);
    if (!cfg) return NULL;
    reader R = {NULL, err};
    salto_status s = read_character(&R, cfg, path);
    salto_cfg_destroy(cfg);
    if (!s) s = salto_character_validate(R.c, err);
    if (s) {
        salto_character_destroy(R.c);
        return NULL;
    }
    return R.c;
}

// ---- writing ----

static void put_num(FILE* f, double x) {
    fprintf(f, "%.17g", x);
}


static void put_vec(FILE* f, const double* v, int n) {
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        if (i) fputs(", ", f);
        put_num(f, v[i]);
    }
    fputc(']', f);
}


// plain when the text cannot be mistaken for anything else; double-quoted otherwise
static void put_str(FILE* f, const char* s) {
    int plain = s[0] && (s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') ||
                         (s[0] >= 'a' && s[0] <= 'z'));
    for (const char* p = s; *p && plain; p++) {
        unsigned char ch = (unsigned char)*p;
        plain = (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                ch == '_' || ch == '-' || ch == '.';
    }
    if (plain && (!strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"))) plain = 0;
    if (plain) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char* p = s; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '"' || ch == '\\') {
            fputc('\\', f);
            fputc(ch, f);
        } else if (ch < 0x20 || ch == 0x7f) {
            fprintf(f, "\\x%02x", ch);
        } else {
            fputc(ch, f);
        }
    }
    fputc('"', f);
}


static void write_body(FILE* f, const salto_character_desc* c, int b) {
    static const char* const letters[] = {"x", "y", "z"};
    const salto_body_desc* body = &c->bodies[b];
    fputs("  - name: ", f);
    put_str(f, body->name);
    fputc('\n', f);
    if (body->parent >= 0) {
        fputs("    parent: ", f);
        put_str(f, c->bodies[body->parent].name);
        fputc('\n', f);
    }
    fputs("    joint:\n", f);
    if (body->parent < 0) {
        fprintf(f, "      type: %s\n", root_type_names[c->root_type]);
        if (c->root_type == SALTO_ROOT_FREE) {
            fprintf(f, "      rotation_order: [%s, %s, %s]\n", letters[c->root_rot_order[0]],
                    letters[c->root_rot_order[1]], letters[c->root_rot_order[2]]);
        }
    }
    fputs("      position: ", f);
    put_vec(f, body->joint_pos, 3);
    fputc('\n', f);
    if (body->parent >= 0) {
        fputs("      axes:\n", f);
        for (int k = 0; k < body->naxis; k++) {
            const salto_axis_desc* a = &body->axes[k];
            fputs("        - {name: ", f);
            put_str(f, a->name);
            fprintf(f, ", type: %s, axis: ", axis_type_names[a->type]);
            put_vec(f, a->axis, 3);
            if (a->has_limits) {
                fputs(", limits: ", f);
                put_vec(f, a->limits, 2);
            }
            fputs("}\n", f);
        }
    }
    fputs("    mass: ", f);
    put_num(f, body->mass);
    fputs("\n    com: ", f);
    put_vec(f, body->com, 3);

    // the 6-number form when the matrix is exactly symmetric, else the full 3x3
    const double* I = body->inertia;
    fputs("\n    inertia: ", f);
    if (I[1] == I[3] && I[2] == I[6] && I[5] == I[7]) {
        double v[6] = {I[0], I[4], I[8], I[1], I[2], I[5]};
        put_vec(f, v, 6);
    } else {
        fputc('[', f);
        for (int i = 0; i < 3; i++) {
            if (i) fputs(", ", f);
            put_vec(f, I + 3 * i, 3);
        }
        fputc(']', f);
    }
    fputc('\n', f);
    if (body->nsite > 0) {
        fputs("    sites:\n", f);
        for (int i = 0; i < body->nsite; i++) {
            fputs("      - {name: ", f);
            put_str(f, body->sites[i].name);
            fputs(", position: ", f);
            put_vec(f, body->sites[i].pos, 3);
            fputs("}\n", f);
        }
    }
    if (body->ngeom > 0) {
        fputs("    geometry:\n", f);
        for (int i = 0; i < body->ngeom; i++) {
            const salto_geom_desc* g = &body->geoms[i];
            fprintf(f, "      - {type: %s, ", shape_names[g->shape]);
            switch (g->shape) {
            case SALTO_GEOM_CAPSULE:
                fputs("from: ", f);
                put_vec(f, g->a, 3);
                fputs(", to: ", f);
                put_vec(f, g->b, 3);
                fputs(", radius: ", f);
                put_num(f, g->radius);
                break;
            case SALTO_GEOM_BOX:
                fputs("center: ", f);
                put_vec(f, g->a, 3);
                fputs(", half_extents: ", f);
                put_vec(f, g->b, 3);
                break;
            default:
                fputs("center: ", f);
                put_vec(f, g->a, 3);
                fputs(", radius: ", f);
                put_num(f, g->radius);
                break;
            }
            fputs("}\n", f);
        }
    }
}


salto_status salto_character_save(const salto_character_desc* c, const char* path,
                                  salto_error* err) {
    if (!path || !path[0]) {
        return SALTO_FAIL(err, SALTO_ERR_IO, salto_loc_none(), "no file name given");
    }
    salto_status s = salto_character_validate(c, err);
    if (s) return s;

    salto_atomic a;
    s = salto_atomic_open(&a, path, 1, err);
    if (s) return s;
    FILE* f = a.f;

    fprintf(f, "# character file written by salto %s\n", salto_version());
    fputs("name: ", f);
    put_str(f, c->name && c->name[0] ? c->name : "unnamed");
    fputs("\ngravity: ", f);
    put_vec(f, c->gravity, 3);
    fputs("\nbodies:\n", f);
    for (int b = 0; b < c->nbody; b++) write_body(f, c, b);

    return salto_atomic_commit(&a, err);
}
