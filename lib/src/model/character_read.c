// character_read.c: a character file read into a description: the top level, each body's
// joint and axes, mass properties, sites and geometry, and the parents by name
#include "character_priv.h"

#include <math.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

// the node's location, with the file name owned by the description
static salto_src_loc at(const reader* R, const salto_cfg_node* n) {
    salto_src_loc l = {R->path ? R->path : R->c->path, n->loc.line, n->loc.col};
    return l;
}


static salto_src_loc key_at(const reader* R, const salto_cfg_node* n) {
    salto_src_loc l = {R->path ? R->path : R->c->path, n->key_loc.line, n->key_loc.col};
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
    double len = character_norm3(a->axis);
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


// torque_limits: a map from DOF names (joints, not the root's) to a limit: a number L for
// [-L, L], [lo, hi], or {limit: L or [lo, hi], slope: k} for tau + k qd within it
static salto_status read_torque_limits(reader* R, const salto_cfg_node* tl) {
    salto_character_desc* c = R->c;
    salto_status s = salto_cfg_expect(tl, SALTO_CFG_MAP, R->err);
    if (s) return s;
    for (int i = 0; i < tl->n; i++) {
        const salto_cfg_node* n = tl->child[i];
        const char* dof = n->key;
        salto_axis_desc* a = NULL;
        int root_dof = 0;
        for (int b = 0; b < c->nbody && !a; b++) {
            for (int k = 0; k < c->bodies[b].naxis && !a; k++) {
                if (strcmp(c->bodies[b].axes[k].name, dof) == 0) a = &c->bodies[b].axes[k];
            }
        }
        static const char* const root_names[] = {"root_x", "root_y", "root_z", "root_rx", "root_ry",
                                                 "root_rz"};
        for (int k = 0; k < 6 && !a; k++) root_dof |= strcmp(dof, root_names[k]) == 0;
        if (!a) {
            if (root_dof) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, n),
                                  "'%s' is the root's: nothing drives it, so it has no torque to "
                                  "limit (give limits to joints' DOFs)",
                                  dof);
            }
            s = SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, n),
                           "torque_limits: no joint DOF is named '%s'", dof);
            int na = 0;
            for (int b = 0; b < c->nbody; b++) na += c->bodies[b].naxis;
            const char** names = salto_malloc((size_t)(na + 1) * sizeof(char*));
            if (names) {
                na = 0;
                for (int b = 0; b < c->nbody; b++) {
                    for (int k = 0; k < c->bodies[b].naxis; k++) names[na++] = c->bodies[b].axes[k].name;
                }
                const char* close = salto_cfg_suggest(dof, names, na);
                if (close) salto_error_note(R->err, "did you mean '%s'?", close);
                salto_free(names);
            }
            return s;
        }
        a->torque_loc = at(R, n);
        const salto_cfg_node* ln = n;
        if (n->kind == SALTO_CFG_MAP) {
            static const char* const keys[] = {"limit", "slope", NULL};
            s = salto_cfg_check_keys(n, keys, R->err);
            if (s) return s;
            ln = salto_cfg_require(n, "limit", R->err);
            if (!ln) return R->err->status;
            const salto_cfg_node* sn = salto_cfg_child(n, "slope");
            if (sn) {
                s = salto_cfg_number(sn, &a->torque_slope, R->err);
                if (s) return s;
                if (!(a->torque_slope >= 0.0) || !isfinite(a->torque_slope)) {
                    return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, sn),
                                      "the slope of '%s' must be zero or positive, found %g", dof,
                                      a->torque_slope);
                }
            }
        }
        if (ln->kind == SALTO_CFG_LIST) {
            s = salto_cfg_vec(ln, a->torque, 2, R->err);
            if (s) return s;
        } else {
            double L = 0.0;
            s = salto_cfg_number(ln, &L, R->err);
            if (s) return s;
            a->torque[0] = -L, a->torque[1] = L;
        }
        a->has_torque = 1;
        if (!(a->torque[0] < a->torque[1]) || !isfinite(a->torque[0]) || !isfinite(a->torque[1])) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, ln),
                              "the torque limit of '%s' must be a positive number or [lo, hi] with "
                              "lo < hi, found [%g, %g]",
                              dof, a->torque[0], a->torque[1]);
        }
        if (a->torque[0] > 0.0 || a->torque[1] < 0.0) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, ln),
                              "the torque limit of '%s', [%g, %g], does not contain zero: the joint "
                              "could never rest",
                              dof, a->torque[0], a->torque[1]);
        }
    }
    return SALTO_OK;
}


// A file with `extends: BASE` (relative to its folder): the base character, renamed by its
// `name` if it has one, its torque limits replaced by the file's `torque_limits` if it has them
static salto_status read_extension(reader* R, const salto_cfg_node* top, const salto_cfg_node* en,
                                   const char* path) {
    salto_error* err = R->err;
    salto_status s;
    for (int i = 0; i < top->n; i++) {
        const char* k = top->child[i]->key;
        if (strcmp(k, "name") && strcmp(k, "source") && strcmp(k, "extends") && strcmp(k, "torque_limits")) {
            const salto_src_loc kl = {path, top->child[i]->key_loc.line, top->child[i]->key_loc.col};
            return SALTO_FAIL(err, SALTO_ERR_INVALID, kl,
                              "'%s' is not allowed in a character that extends another (its keys: "
                              "name, source, extends, torque_limits)",
                              k);
        }
    }
    const char* rel = NULL;
    if ((s = salto_cfg_string(en, &rel, err))) return s;
    const salto_src_loc here = {path, en->loc.line, en->loc.col};
    if (!rel[0]) return SALTO_FAIL(err, SALTO_ERR_INVALID, here, "'extends' must name a character file");
    if (R->depth >= 8) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, here,
                          "more than 8 files extend one another (does '%s' extend itself?)", rel);
    }
    const char* slash = strrchr(path, '/');
    const size_t ndir = rel[0] == '/' || !slash ? 0 : (size_t)(slash - path) + 1, nrel = strlen(rel);
    char* base = salto_malloc(ndir + nrel + 1);
    if (!base) return nomem(R);
    memcpy(base, path, ndir);
    memcpy(base + ndir, rel, nrel + 1);
    salto_error inner = {0};
    salto_cfg* cfg = salto_cfg_load(base, &inner);
    reader B = {NULL, &inner, NULL, R->depth + 1};
    s = cfg ? character_read_character(&B, cfg, base) : inner.status;
    salto_cfg_destroy(cfg);
    salto_free(base);
    if (s == SALTO_ERR_IO) {
        salto_character_destroy(B.c);
        return SALTO_FAIL(err, SALTO_ERR_IO, here, "cannot read the character it extends: %s", inner.msg);
    }
    if (s) {
        salto_character_destroy(B.c);
        // the base's own error, and where this file names it
        *err = inner;
        if (inner.where.file == inner.file_buf) err->where.file = err->file_buf;
        if (!err->note[0] && (!err->where.file || strcmp(err->where.file, path) != 0)) {
            salto_error_note(err, "in the character that %s:%d:%d extends", path, en->loc.line,
                             en->loc.col);
        }
        return s;
    }
    R->c = B.c;
    salto_character_desc* c = R->c;
    c->ext_path = salto_strdup(path);
    if (!c->ext_path) return nomem(R);
    R->path = c->ext_path;
    const salto_cfg_node* name = salto_cfg_child(top, "name");
    if (name) {
        char* nm = NULL;
        if ((s = read_name(R, name, &nm))) return s;
        salto_free(c->name);
        c->name = nm;
    }
    const salto_cfg_node* source = salto_cfg_child(top, "source");
    const char* unused = NULL;
    if (source && (s = salto_cfg_string(source, &unused, err))) return s;
    const salto_cfg_node* tl = salto_cfg_child(top, "torque_limits");
    if (!tl) return SALTO_OK;
    for (int b = 0; b < c->nbody; b++) {
        for (int k = 0; k < c->bodies[b].naxis; k++) {
            salto_axis_desc* a = &c->bodies[b].axes[k];
            a->has_torque = 0, a->torque[0] = a->torque[1] = 0.0, a->torque_slope = 0.0;
        }
    }
    return read_torque_limits(R, tl);
}


salto_status character_read_character(reader* R, const salto_cfg* cfg, const char* path) {
    const salto_cfg_node* top = salto_cfg_root(cfg);
    salto_error* err = R->err;
    const salto_cfg_node* en = top && top->kind == SALTO_CFG_MAP ? salto_cfg_child(top, "extends") : NULL;
    if (en) return read_extension(R, top, en, path);
    static const char* const keys[] = {"name", "source", "gravity", "bodies", "torque_limits", NULL};
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
    const salto_cfg_node* gnode = salto_cfg_child(top, "gravity");
    const double gn = hypot(hypot(c->gravity[0], c->gravity[1]), c->gravity[2]);
    if (gnode && !(gn <= SALTO_GRAVITY_MAX)) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, gnode), "gravity of %g m/s^2: at most "
                          "%g (a hundred g)", gn, SALTO_GRAVITY_MAX);
    }

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
    const salto_cfg_node* tl = salto_cfg_child(top, "torque_limits");
    return tl ? read_torque_limits(R, tl) : SALTO_OK;
}
