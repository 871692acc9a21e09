// character_check.c: the checks every character description goes through, read from a file
// or built in code (salto_character_validate): structure, axes, mass properties, sites,
// geometry and names
#include "character_priv.h"

#include <math.h>
#include <string.h>

#include "linalg.h"

// the DOF names the root types add (character-format.md, "Frames and degrees of freedom")
static const char* const free_dofs[] = {"root_x", "root_y", "root_z",
                                        "root_rx", "root_ry", "root_rz"};
static const char* const planar_dofs[] = {"root_x", "root_z", "root_ry"};

static int finite_n(const double* v, int n) {
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) return 0;
    }
    return 1;
}


double character_norm3(const double* v) {
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
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
    salto_sym3_eigen(S, e, NULL);
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
    double n = character_norm3(a->axis);
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
    if (a->has_torque && (!(a->torque[0] <= 0.0 && a->torque[1] >= 0.0 && a->torque[0] < a->torque[1]) ||
                          !finite_n(a->torque, 2) || !(a->torque_slope >= 0.0) ||
                          !isfinite(a->torque_slope))) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, a->torque_loc,
                          "the torque limit of '%s' must be [lo, hi], finite, lo < hi, containing "
                          "zero, with a slope >= 0",
                          a->name);
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
    const double gn = hypot(hypot(c->gravity[0], c->gravity[1]), c->gravity[2]);
    if (!(gn <= SALTO_GRAVITY_MAX)) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "gravity of %g m/s^2: at most "
                          "%g (a hundred g)", gn, SALTO_GRAVITY_MAX);
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
        if (!(body->mass >= SALTO_MASS_MIN && body->mass <= SALTO_MASS_MAX)) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, body->mass_loc,
                              "mass of body '%s' must be from %g to %g kg (a milligram to a "
                              "thousand tonnes), found %g", body->name, SALTO_MASS_MIN,
                              SALTO_MASS_MAX, body->mass);
        }
        if (!finite_n(body->com, 3)) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, body->loc,
                              "centre of mass of body '%s' is not finite", body->name);
        }
        const double* far3[2] = {body->joint_pos, body->com};
        static const char* const far_what[2] = {"joint centre", "centre of mass"};
        for (int k = 0; k < 2; k++) {
            const double d = hypot(hypot(far3[k][0], far3[k][1]), far3[k][2]);
            if (!(d <= SALTO_LENGTH_MAX)) {
                return SALTO_FAIL(err, SALTO_ERR_INVALID, body->loc, "the %s of body '%s' is %g m "
                                  "from its frame's origin: at most %g", far_what[k], body->name,
                                  d, SALTO_LENGTH_MAX);
            }
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
            const double dx = hypot(hypot(site->pos[0], site->pos[1]), site->pos[2]);
            if (!(dx <= SALTO_LENGTH_MAX)) {
                return SALTO_FAIL(err, SALTO_ERR_INVALID, site->loc, "site '%s' is %g m from its "
                                  "body's origin: at most %g", site->name, dx, SALTO_LENGTH_MAX);
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
