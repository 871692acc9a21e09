// problem_constraints.c: the constraint list, each by its type (sites, poses, velocities, the
// centre of mass, joint limits, ground, bodies still), and the holds a contact adds
#include "problem_priv.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/config.h"
#include "salto/data.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"


// ---- constraints ----

// the constraint that set DOF k at the same time to another value, if any: -1 when none
static int conflicting_pose(const salto_problem_desc* p, int upto, const salto_constraint_desc* c,
                            int dof, double value, double* other) {
    for (int j = 0; j < upto; j++) {
        const salto_constraint_desc* o = &p->cons[j];
        if (o->type != c->type || !o->has_time || o->time != c->time) continue;
        for (int k = 0; k < o->ndof; k++) {
            if (o->dof[k] == dof && o->value[k] != value) {
                *other = o->value[k];
                return j;
            }
        }
    }
    return -1;
}


// one DOF value of a pose or velocity constraint, read from node vn (in degrees when deg)
static salto_status set_dof_value(reader* R, int icon, int slot, int dof, int deg,
                                  const salto_cfg_node* vn) {
    salto_problem_desc* p = R->p;
    salto_constraint_desc* c = &p->cons[icon];
    const salto_model* m = R->m;
    double x = 0.0;
    salto_status s = salto_cfg_number(vn, &x, R->err);
    if (s) return s;
    const double v = deg ? x * (pi / 180.0) : x;

    // a pose outside the joint limits cannot satisfy a joint_limits constraint
    if (c->type == SALTO_CON_POSE && R->joint_limits_line > 0 && m->link_has_limits[dof]) {
        const double lo = m->link_limits[2 * dof];
        const double hi = m->link_limits[2 * dof + 1];
        if (v < lo || v > hi) {
            const int below = v < lo;
            const double f = deg ? 180.0 / pi : 1.0;
            const char* unit = deg ? "deg"
                                   : (m->link_type[dof] == SALTO_AXIS_REVOLUTE ? "rad" : "m");
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, vn),
                              "pose sets '%s' to %g %s, %s its %s limit %g %s; the joint_limits "
                              "constraint on line %d cannot be met",
                              m->link_name[dof], x, unit, below ? "below" : "above",
                              below ? "lower" : "upper", (below ? lo : hi) * f, unit,
                              R->joint_limits_line);
        }
    }

    // two pose (or velocity) constraints at one time that disagree
    double other = 0.0;
    int j = conflicting_pose(p, icon, c, dof, v, &other);
    if (j >= 0) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, vn),
                          "'%s' is set to %g here but to %g at the same time (%g s) by the %s "
                          "constraint on line %d",
                          m->link_name[dof], v, other, c->time, constraint_names[c->type],
                          p->cons[j].loc.line);
    }
    c->dof[slot] = dof;
    c->value[slot] = v;
    return SALTO_OK;
}


// values | dofs | dofs_deg of a pose or velocity constraint
// the DOF an entry of 'dofs' or 'dofs_deg' (deg) names, revolute under 'dofs_deg', not yet
// in c
static salto_status dof_entry(reader* R, const salto_constraint_desc* c, const salto_cfg_node* e,
                              int deg, int* dof) {
    const salto_model* m = R->m;
    salto_status s = problem_lookup(R, e->key, model_names(m->link_name), m->nv, "DOF", key_at(R, e), dof);
    if (s) return s;
    if (deg && m->link_type[*dof] != SALTO_AXIS_REVOLUTE) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, e),
                          "'dofs_deg' is only for revolute DOFs ('%s' is prismatic; give it under "
                          "'dofs' in %s)",
                          e->key, c->type == SALTO_CON_VELOCITY ? "m/s" : "m");
    }
    for (int k = 0; k < c->ndof; k++) {
        if (c->dof[k] == *dof) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, e),
                              "DOF '%s' is given twice in this %s constraint", e->key,
                              constraint_names[c->type]);
        }
    }
    return SALTO_OK;
}


// entry i of the DOF maps 'dofs' then 'dofs_deg' (either may be NULL), *deg 1 for the latter's
static const salto_cfg_node* dof_map_entry(const salto_cfg_node* dofs, const salto_cfg_node* degs,
                                           int i, int* deg) {
    const int nd = dofs ? dofs->n : 0;
    *deg = i >= nd;
    return i < nd ? dofs->child[i] : degs->child[i - nd];
}


static salto_status read_dof_values(reader* R, int icon, const salto_cfg_node* n) {
    salto_constraint_desc* c = &R->p->cons[icon];
    const salto_model* m = R->m;
    const salto_cfg_node* vals = salto_cfg_child(n, "values");
    const salto_cfg_node* dofs = salto_cfg_child(n, "dofs");
    const salto_cfg_node* degs = salto_cfg_child(n, "dofs_deg");
    const char* what = constraint_names[c->type];
    if (vals && (dofs || degs)) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, dofs ? dofs : degs),
                          "give either 'values' or 'dofs'/'dofs_deg', not both");
    }
    if (!vals && !dofs && !degs) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                          "%s %s constraint needs 'values', 'dofs' or 'dofs_deg'", problem_article(what),
                          what);
    }

    // count and allocate
    int count = 0;
    salto_status s = SALTO_OK;
    if (vals) {
        if (vals->kind != SALTO_CFG_LIST || vals->n != m->nv) {
            // reports the wrong kind or length before writing anything
            double unused[1];
            return salto_cfg_vec(vals, unused, m->nv, R->err);
        }
        count = m->nv;
    } else {
        if (dofs && (s = salto_cfg_expect(dofs, SALTO_CFG_MAP, R->err))) return s;
        if (degs && (s = salto_cfg_expect(degs, SALTO_CFG_MAP, R->err))) return s;
        count = (dofs ? dofs->n : 0) + (degs ? degs->n : 0);
        if (count == 0) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, dofs ? dofs : degs),
                              "%s %s constraint must name at least one DOF", problem_article(what), what);
        }
    }
    c->dof = salto_calloc((size_t)count, sizeof *c->dof);
    c->value = salto_calloc((size_t)count, sizeof *c->value);
    if (!c->dof || !c->value) return problem_nomem(R);

    if (vals) {
        for (int k = 0; k < m->nv; k++) {
            s = set_dof_value(R, icon, k, k, 0, vals->child[k]);
            if (s) return s;
            c->ndof = k + 1;
        }
        return SALTO_OK;
    }
    const int nmap = (dofs ? dofs->n : 0) + (degs ? degs->n : 0);
    for (int i = 0; i < nmap; i++) {
        int deg = 0, dof = -1;
        const salto_cfg_node* e = dof_map_entry(dofs, degs, i, &deg);
        s = dof_entry(R, c, e, deg, &dof);
        if (s) return s;
        s = set_dof_value(R, icon, c->ndof, dof, deg, e);
        if (s) return s;
        c->ndof++;
    }

    // ascending DOF order (insertion sort: a few entries)
    for (int i = 1; i < c->ndof; i++) {
        int d = c->dof[i];
        double v = c->value[i];
        int j = i - 1;
        for (; j >= 0 && c->dof[j] > d; j--) {
            c->dof[j + 1] = c->dof[j];
            c->value[j + 1] = c->value[j];
        }
        c->dof[j + 1] = d;
        c->value[j + 1] = v;
    }
    return SALTO_OK;
}


// site_in_box, com_in_box: 'min' and 'max', 3-lists of numbers or nulls (an open side), at
// least one number in all, each min below its max
static salto_status read_box(reader* R, salto_constraint_desc* c, const salto_cfg_node* n) {
    const char* key[2] = {"min", "max"};
    double* out[2] = {c->lo, c->hi};
    int any = 0;
    for (int b = 0; b < 2; b++) {
        for (int k = 0; k < 3; k++) out[b][k] = b == 0 ? -INFINITY : INFINITY;
        const salto_cfg_node* vn = salto_cfg_child(n, key[b]);
        if (!vn) continue;
        if (vn->kind != SALTO_CFG_LIST || vn->n != 3) {
            char found[100];
            salto_cfg_describe(vn, found, sizeof found);
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, vn),
                              "expected a list of 3 numbers or nulls for '%s', found %s", key[b], found);
        }
        for (int k = 0; k < 3; k++) {
            if (salto_cfg_is_null(vn->child[k])) continue;
            salto_status s = salto_cfg_number(vn->child[k], &out[b][k], R->err);
            if (s) return s;
            any = 1;
        }
    }
    if (!any) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                          "the box has no side: give 'min' or 'max' with at least one number");
    }
    for (int k = 0; k < 3; k++) {
        if (c->lo[k] > c->hi[k]) {
            const salto_cfg_node* mx = salto_cfg_child(n, "max");
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, mx->child[k]),
                              "the box's %c max, %g, is below its min, %g", "xyz"[k], c->hi[k],
                              c->lo[k]);
        }
    }
    return SALTO_OK;
}


// joint_range: 'dofs' (rad or m) and 'dofs_deg' (deg, revolute DOFs), each DOF to [lo, hi]
// (a null an open side; at least one number; lo at most hi), each DOF once
static salto_status read_dof_ranges(reader* R, salto_constraint_desc* c, const salto_cfg_node* n) {
    const salto_cfg_node* dofs = salto_cfg_child(n, "dofs");
    const salto_cfg_node* degs = salto_cfg_child(n, "dofs_deg");
    salto_status s;
    if (dofs && (s = salto_cfg_expect(dofs, SALTO_CFG_MAP, R->err))) return s;
    if (degs && (s = salto_cfg_expect(degs, SALTO_CFG_MAP, R->err))) return s;
    const int count = (dofs ? dofs->n : 0) + (degs ? degs->n : 0);
    if (count == 0) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, dofs ? dofs : degs ? degs : n),
                          "a joint_range constraint must name at least one DOF under 'dofs' or "
                          "'dofs_deg'");
    }
    c->dof = salto_calloc((size_t)count, sizeof *c->dof);
    c->value = salto_calloc(2 * (size_t)count, sizeof *c->value);
    if (!c->dof || !c->value) return problem_nomem(R);
    for (int i = 0; i < count; i++) {
        int deg = 0, dof = -1;
        const salto_cfg_node* e = dof_map_entry(dofs, degs, i, &deg);
        s = dof_entry(R, c, e, deg, &dof);
        if (s) return s;
        if (e->kind != SALTO_CFG_LIST || e->n != 2) {
            char found[100];
            salto_cfg_describe(e, found, sizeof found);
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, e),
                              "expected [lo, hi] (numbers or nulls) for '%s', found %s", e->key, found);
        }
        double lh[2] = {-INFINITY, INFINITY};
        for (int b = 0; b < 2; b++) {
            if (salto_cfg_is_null(e->child[b])) continue;
            s = salto_cfg_number(e->child[b], &lh[b], R->err);
            if (s) return s;
            if (deg) lh[b] *= pi / 180.0;
        }
        if (!isfinite(lh[0]) && !isfinite(lh[1])) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, e),
                              "the range of '%s' has no side: give lo or hi a number", e->key);
        }
        if (lh[0] > lh[1]) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, e->child[1]),
                              "the range of '%s' ends below its start", e->key);
        }
        c->dof[c->ndof] = dof;
        c->value[2 * c->ndof] = lh[0], c->value[2 * c->ndof + 1] = lh[1];
        c->ndof++;
    }
    return SALTO_OK;
}


// com_position, com_velocity: a 3-list of numbers or nulls
static salto_status read_masked(reader* R, salto_constraint_desc* c, const salto_cfg_node* n) {
    const salto_cfg_node* vn = salto_cfg_require(n, "value", R->err);
    if (!vn) return R->err->status;
    if (vn->kind != SALTO_CFG_LIST || vn->n != 3) {
        char found[100];
        salto_cfg_describe(vn, found, sizeof found);
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, vn),
                          "expected a list of 3 numbers or nulls for 'value', found %s", found);
    }
    int any = 0;
    for (int k = 0; k < 3; k++) {
        const salto_cfg_node* e = vn->child[k];
        if (salto_cfg_is_null(e)) continue;
        salto_status s = salto_cfg_number(e, &c->vec[k], R->err);
        if (s) return s;
        c->mask[k] = 1;
        any = 1;
    }
    if (!any) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, vn),
                          "every component of 'value' is null: the constraint constrains "
                          "nothing");
    }
    // a planar character's centre of mass moves in the x-z plane: y alone says nothing
    if (salto_model_is_planar(R->m) && !c->mask[0] && !c->mask[2]) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, vn),
                          "only y is given, but a planar character's centre of mass moves in "
                          "the x-z plane: the constraint constrains nothing");
    }
    return SALTO_OK;
}


// when: 'time' or 'phase' as the type allows
static salto_status read_when(reader* R, salto_constraint_desc* c, const salto_cfg_node* n) {
    const salto_cfg_node* tn = salto_cfg_child(n, "time");
    const salto_cfg_node* pn = salto_cfg_child(n, "phase");
    const char* what = constraint_names[c->type];
    c->has_time = 0;
    c->phase = -1;
    switch (c->type) {
    case SALTO_CON_SITE_AT:
    case SALTO_CON_SITE_ON_LINE:
    case SALTO_CON_SITE_ON_PLANE:
    case SALTO_CON_SITE_ABOVE:
    case SALTO_CON_COM_ABOVE:
    case SALTO_CON_SITE_IN_BOX:
    case SALTO_CON_COM_IN_BOX:
    case SALTO_CON_JOINT_RANGE: {
        char which[64];
        snprintf(which, sizeof which, "%s %s constraint", problem_article(what), what);
        return problem_read_time_or_phase(R, n, which, &c->has_time, &c->time, &c->phase);
    }
    case SALTO_CON_SITE_STILL:
    case SALTO_CON_BODY_STILL:
        if (!pn) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                              "%s %s constraint needs 'phase' (the %s is still through a whole "
                              "phase)",
                              problem_article(what), what,
                              c->type == SALTO_CON_SITE_STILL ? "site" : "site's body");
        }
        break;
    case SALTO_CON_POSE:
    case SALTO_CON_VELOCITY:
    case SALTO_CON_COM_POSITION:
    case SALTO_CON_COM_VELOCITY:
        if (!tn) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                              "missing required key 'time' in %s %s constraint", problem_article(what),
                              what);
        }
        break;
    default:
        return SALTO_OK;
    }
    if (tn) {
        salto_status s = problem_read_time(R, tn, &c->time);
        if (s) return s;
        c->has_time = 1;
    }
    if (pn) return problem_read_phase_ref(R, pn, &c->phase);
    return SALTO_OK;
}


// the constraint's optional name, unique among the constraints
static salto_status read_name(reader* R, int icon, const salto_cfg_node* n) {
    salto_constraint_desc* c = &R->p->cons[icon];
    const salto_cfg_node* nn = NULL;
    salto_status s = problem_read_name(R, n, c->name, sizeof c->name, "constraint", &nn);
    if (s || !nn) return s;
    for (int j = 0; j < icon; j++) {
        if (strcmp(R->p->cons[j].name, c->name) == 0) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, nn),
                              "the constraint name '%s' is given twice (first on line %d)", c->name,
                              R->p->cons[j].loc.line);
        }
    }
    return SALTO_OK;
}


static salto_status read_constraint(reader* R, int icon, const salto_cfg_node* n) {
    salto_problem_desc* p = R->p;
    salto_constraint_desc* c = &p->cons[icon];
    salto_status s = salto_cfg_expect(n, SALTO_CFG_MAP, R->err);
    if (s) return s;
    c->loc = at(R, n);
    c->site = -1;
    c->phase = -1;
    const salto_cfg_node* tn = salto_cfg_require(n, "type", R->err);
    if (!tn) return R->err->status;
    int type = 0;
    s = problem_read_enum(R, tn, constraint_names, "constraint type", &type);
    if (s) return s;
    c->type = (salto_constraint_type)type;

    static const char* const all[] = {"type",   "site",  "point",    "direction", "normal",
                                      "time",   "phase", "values",   "dofs",      "dofs_deg",
                                      "value",  "height", "name", "min", "max", "axis",
                                      "radius", NULL};
    static const char* const keys[SALTO_CON_COUNT][8] = {
        {"type", "name", "site", "point", "time", "phase", NULL},
        {"type", "name", "site", "point", "direction", "time", "phase", NULL},
        {"type", "name", "site", "point", "normal", "time", "phase", NULL},
        {"type", "name", "site", "phase", NULL},
        {"type", "name", "time", "values", "dofs", "dofs_deg", NULL},
        {"type", "name", "time", "values", "dofs", "dofs_deg", NULL},
        {"type", "name", "time", "value", NULL},
        {"type", "name", "time", "value", NULL},
        {"type", "name", NULL},
        {"type", "name", "height", NULL},
        {"type", "name", "site", "phase", NULL},
        {"type", "name", "site", "point", "normal", "time", "phase", NULL},
        {"type", "name", "point", "normal", "time", "phase", NULL},
        {"type", "name", "site", "min", "max", "time", "phase", NULL},
        {"type", "name", "min", "max", "time", "phase", NULL},
        {"type", "name", "dofs", "dofs_deg", "time", "phase", NULL},
        {"type", "name", "point", "axis", "radius", NULL},
        // the rest are added by the loader only
    };
    char what[64];
    snprintf(what, sizeof what, "%s %s constraint", problem_article(constraint_names[type]),
             constraint_names[type]);
    s = problem_check_typed_keys(R, n, keys[type], all, what);
    if (s) return s;
    s = read_name(R, icon, n);
    if (s) return s;
    s = read_when(R, c, n);
    if (s) return s;

    switch (c->type) {
    case SALTO_CON_SITE_AT:
    case SALTO_CON_SITE_ON_LINE:
    case SALTO_CON_SITE_ON_PLANE:
    case SALTO_CON_SITE_STILL:
    case SALTO_CON_BODY_STILL: {
        const salto_cfg_node* sn = salto_cfg_require(n, "site", R->err);
        if (!sn) return R->err->status;
        s = problem_read_site(R, sn, &c->site);
        if (s) return s;
        if (c->type == SALTO_CON_SITE_STILL || c->type == SALTO_CON_BODY_STILL) return SALTO_OK;
        const salto_cfg_node* pn = salto_cfg_require(n, "point", R->err);
        if (!pn) return R->err->status;
        s = salto_cfg_vec(pn, c->point, 3, R->err);
        if (s) return s;
        if (c->type == SALTO_CON_SITE_AT) return SALTO_OK;
        const char* dkey = c->type == SALTO_CON_SITE_ON_LINE ? "direction" : "normal";
        const salto_cfg_node* dn = salto_cfg_require(n, dkey, R->err);
        if (!dn) return R->err->status;
        return problem_read_unit(R, dn, c->dir);
    }
    case SALTO_CON_SITE_ABOVE:
    case SALTO_CON_COM_ABOVE: {
        // the point and, by default upwards, the normal of the plane the site or the centre
        // of mass must stay on the far side of (below: a downward normal)
        if (c->type == SALTO_CON_SITE_ABOVE) {
            const salto_cfg_node* sn = salto_cfg_require(n, "site", R->err);
            if (!sn) return R->err->status;
            s = problem_read_site(R, sn, &c->site);
            if (s) return s;
        }
        const salto_cfg_node* pn = salto_cfg_require(n, "point", R->err);
        if (!pn) return R->err->status;
        s = salto_cfg_vec(pn, c->point, 3, R->err);
        if (s) return s;
        const salto_cfg_node* dn = salto_cfg_child(n, "normal");
        c->dir[0] = 0.0, c->dir[1] = 0.0, c->dir[2] = 1.0;
        return dn ? problem_read_unit(R, dn, c->dir) : SALTO_OK;
    }
    case SALTO_CON_SITE_IN_BOX:
    case SALTO_CON_COM_IN_BOX:
        if (c->type == SALTO_CON_SITE_IN_BOX) {
            const salto_cfg_node* sn = salto_cfg_require(n, "site", R->err);
            if (!sn) return R->err->status;
            s = problem_read_site(R, sn, &c->site);
            if (s) return s;
        }
        return read_box(R, c, n);
    case SALTO_CON_JOINT_RANGE:
        return read_dof_ranges(R, c, n);
    case SALTO_CON_CLEAR_BAR: {
        // the bar's axis line and radius (default a high bar's, 28 mm across)
        if ((s = problem_read_bar_line(R, n, c->point, c->dir))) return s;
        c->height = 0.014;
        return problem_read_num_opt(R, n, "radius", 0.0, 1, &c->height);
    }
    case SALTO_CON_POSE:
    case SALTO_CON_VELOCITY:
        return read_dof_values(R, icon, n);
    case SALTO_CON_COM_POSITION:
    case SALTO_CON_COM_VELOCITY:
        return read_masked(R, c, n);
    case SALTO_CON_JOINT_LIMITS:
        for (int j = 0; j < icon; j++) {
            if (p->cons[j].type == SALTO_CON_JOINT_LIMITS) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                                  "joint_limits is given twice (first on line %d)",
                                  p->cons[j].loc.line);
            }
        }
        return SALTO_OK;
    case SALTO_CON_ABOVE_GROUND: {
        const salto_cfg_node* hn = salto_cfg_child(n, "height");
        if (hn) return salto_cfg_number(hn, &c->height, R->err);
        return SALTO_OK;
    }
    default:
        return SALTO_OK;
    }
}


static int hold_count(const salto_problem_desc* p);

salto_status problem_read_constraints(reader* R, const salto_cfg_node* top) {
    salto_problem_desc* p = R->p;
    const salto_cfg_node* list = salto_cfg_child(top, "constraints");
    if (!list) return SALTO_OK;
    salto_status s = salto_cfg_expect(list, SALTO_CFG_LIST, R->err);
    if (s || list->n == 0) return s;

    // a joint_limits constraint anywhere in the list bounds every pose
    for (int i = 0; i < list->n; i++) {
        const salto_cfg_node* tn = salto_cfg_child(list->child[i], "type");
        if (tn && tn->kind == SALTO_CFG_SCALAR && strcmp(tn->text, "joint_limits") == 0 &&
            !R->joint_limits_line) {
            R->joint_limits_line = list->child[i]->loc.line;
        }
    }

    p->cons = salto_calloc((size_t)list->n + (size_t)hold_count(p), sizeof *p->cons);
    if (!p->cons) return problem_nomem(R);
    for (int i = 0; i < list->n; i++) {
        p->ncon = i + 1; // so that destroy frees what this one allocates
        s = read_constraint(R, i, list->child[i]);
        if (s) return s;
    }
    return SALTO_OK;
}


// 1 when flight phase i's centre of mass follows its parabola exactly: asked for, physics
// on, and a root that translates freely in the character's space (the parabola moves it)
static int ballistic_phase(const salto_problem_desc* p, int i) {
    const salto_phase_desc* ph = &p->phases[i];
    if (!p->physics || !ph->ballistic || ph->contact.type != SALTO_CONTACT_NONE) return 0;
    int tdof[3];
    double axes[3][3];
    const salto_model* m = p->model;
    return salto_model_root_translation(m, tdof, axes) == (salto_model_is_planar(m) ? 2 : 3);
}


// The hold of a contact phase (contact.hold, on by default): each contact site is in place at
// every knot of the spline in the phase, its ends included (site_hold: on the bar's axis or
// the ground plane, at a place along them that is a variable of the NLP), and still at the
// phase's two ends (site_still). Two points of one rigid body held in place and still would
// say some things twice, so a second site on a body is only kept on the ground plane
// (site_on_plane) and keeps the body from turning (body_still); a third is only kept on the
// plane. A boundary shared with a phase that holds the same site is held once.
// For a coordinate of the spline itself these n + 3 conditions on n segments are exactly its
// n + 3 control points, and they pin it to a constant (the clamped interpolating spline of a
// constant is that constant); for a site, which moves with several coordinates, the rest
// between the knots is the interpolation error. More conditions (velocities at every knot, or
// positions between the knots) over-determine the spline, and IPOPT then stalls or refuses.
static int hold_count(const salto_problem_desc* p) {
    int n = 0;
    for (int i = 0; i < p->nphase; i++) {
        const salto_contact_desc* c = &p->phases[i].contact;
        if (c->type != SALTO_CONTACT_NONE && c->hold) n += 5 * c->nsite; // at most
        if (ballistic_phase(p, i)) n += 2; // the parabola, and its velocity at the ends
    }
    return n + p->nbox; // each box's clearance
}


// 1 if phase i - 1 holds site (so that phase i's hold starts where that one ends)
static int held_before(const salto_problem_desc* p, int i, int site) {
    if (i == 0) return 0;
    const salto_contact_desc* prev = &p->phases[i - 1].contact;
    if (prev->type == SALTO_CONTACT_NONE || !prev->hold) return 0;
    for (int k = 0; k < prev->nsite; k++) {
        if (prev->site[k] == site) return 1;
    }
    return 0;
}


salto_status problem_add_holds(reader* R) {
    salto_problem_desc* p = R->p;
    const salto_model* m = R->m;
    salto_data* zero = NULL; // the character in its zero pose, for body_level
    if (!p->cons && hold_count(p) > 0) {
        p->cons = salto_calloc((size_t)hold_count(p), sizeof *p->cons);
        if (!p->cons) return problem_nomem(R);
    }
    for (int i = 0; i < p->nphase; i++) {
        const salto_phase_desc* ph = &p->phases[i];
        const salto_contact_desc* ct = &ph->contact;
        if (ballistic_phase(p, i)) {
            // the centre of mass on its parabola: at every knot of the flight, and its
            // velocity at the two ends (n + 3 conditions on n segments, as for a hold)
            for (int k = 0; k < 2; k++) {
                salto_constraint_desc* c = &p->cons[p->ncon++];
                memset(c, 0, sizeof *c);
                c->type = k == 0 ? SALTO_CON_COM_PARABOLA : SALTO_CON_COM_PARABOLA_VEL;
                c->phase = i;
                c->at_knots = k == 0 ? 1 : 2;
                c->loc = ph->loc;
                c->hold_phase = i + 1;
            }
        }
        if (ct->type == SALTO_CONTACT_NONE || !ct->hold) continue;
        for (int k = 0; k < ct->nsite; k++) {
            const int site = ct->site[k];
            // the earlier sites of this contact on the same body: the first one holds the
            // body in place; the second adds only what the first leaves free (the body's
            // height off the ground, and its turning); a third, its height
            int same_body = 0;
            for (int j = 0; j < k; j++) same_body += m->site_link[ct->site[j]] == m->site_link[site];
            // a site the phase before holds too: its rows at the shared boundary are there
            const int skip_start = held_before(p, i, site);
            salto_constraint_desc* c;
            if (!same_body || ct->type == SALTO_CONTACT_GROUND) {
                // in place at every knot of the phase: on the bar's axis or on the ground, at
                // a place along the bar or the ground that the solver chooses (site_hold); a
                // second site on a body: on the ground only
                c = &p->cons[p->ncon++];
                memset(c, 0, sizeof *c);
                c->type = same_body ? SALTO_CON_SITE_ON_PLANE : SALTO_CON_SITE_HOLD;
                c->site = site;
                c->phase = i;
                c->at_knots = 1;
                c->skip_start = skip_start;
                c->loc = ct->loc;
                c->hold_phase = i + 1;
                if (ct->type == SALTO_CONTACT_BAR) {
                    memcpy(c->point, ct->bar_point, sizeof c->point);
                    memcpy(c->dir, ct->bar_axis, sizeof c->dir);
                } else {
                    // the site's own ground: its box's top, or the contact's plane
                    const double h = salto_contact_site_height(p, ct, k);
                    for (int a = 0; a < 3; a++) c->point[a] = h * ct->normal[a];
                    memcpy(c->dir, ct->normal, sizeof c->dir);
                }
            }
            // still at the phase's ends: the site, or for the second site on a body the body's
            // turning
            if (same_body > 1) continue;
            // in 3-D on the ground the sites on the plane leave the body free to turn about
            // the normal: its heading is held too (below)
            const int yaw = same_body == 1 && ct->type == SALTO_CONTACT_GROUND &&
                            !salto_model_is_planar(m);
            c = &p->cons[p->ncon++];
            memset(c, 0, sizeof *c);
            c->type = same_body ? SALTO_CON_BODY_STILL : SALTO_CON_SITE_STILL;
            c->site = site;
            c->phase = i;
            c->at_knots = 2; // the phase's ends only
            c->skip_start = skip_start;
            c->loc = ct->loc;
            c->hold_phase = i + 1;
            int axis = -1; // the normal's world axis, if it is one
            for (int a = 0; a < 3; a++) axis = fabs(ct->normal[a]) == 1.0 ? a : axis;
            if (yaw && axis >= 0) {
                // with the sole level only within a band (the level rows below), its rolling
                // is not held still either: the body turns still about the normal only, and
                // the site is still along it (with the first site still, its pitching; the
                // body's three turning rates with both heels' velocities were dependent on
                // the humanoid, whose ankles cannot roll)
                c->mask[axis] = 1;
                salto_constraint_desc* sv = &p->cons[p->ncon++];
                *sv = *c;
                sv->type = SALTO_CON_SITE_STILL;
            }
            if (yaw) {
                // and its heading on the ground, at every knot: the angle about the normal of
                // the direction from the first site, a place variable (turning still at the
                // knots was not enough: the foot turned between them, 6 mm at the toe)
                c = &p->cons[p->ncon++];
                *c = p->cons[p->ncon - 2];
                c->type = SALTO_CON_BODY_HEADING;
                c->site0 = site;
                for (int j = k - 1; j >= 0; j--) {
                    if (m->site_link[ct->site[j]] == m->site_link[site]) c->site0 = ct->site[j];
                }
                memcpy(c->dir, ct->normal, sizeof c->dir);
                c->at_knots = 1;
                // and level across that direction at every knot (the sole flat, not rolled
                // onto an edge: the two sites leave the body free to turn about their line;
                // the leaps' feet landed rolled, a sole corner 6 mm under the floor)
                c = &p->cons[p->ncon++];
                *c = p->cons[p->ncon - 2];
                c->type = SALTO_CON_BODY_LEVEL;
                // its level: the body's vertical in the character's zero pose, in the link's
                // frame, into point (the zero pose's kinematics made once, when first needed)
                if (!zero) {
                    if (!(zero = salto_data_create(m))) return problem_nomem(R);
                    salto_fk(m, zero, SALTO_FK_POS);
                }
                salto_m3t_mul_v3(c->point, zero->R + 9 * m->site_link[site], ct->normal);
            }
        }
    }
    salto_data_destroy(zero);
    // each box keeps the body out, at every slice
    for (int i = 0; i < p->nbox; i++) {
        salto_constraint_desc* c = &p->cons[p->ncon++];
        memset(c, 0, sizeof *c);
        c->type = SALTO_CON_CLEAR_BOX;
        c->box = i;
        c->phase = -1;
        memcpy(c->lo, p->boxes[i].lo, sizeof c->lo);
        memcpy(c->hi, p->boxes[i].hi, sizeof c->hi);
        c->height = p->boxes[i].clearance;
        c->loc = p->boxes[i].loc;
    }
    return SALTO_OK;
}
