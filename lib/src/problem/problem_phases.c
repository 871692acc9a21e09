// problem_phases.c: the phase list: names, durations, contacts (bar, ground), impacts and
// ballistic flights; phase starts and the total duration
#include "problem_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/config.h"
#include "salto/data.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"


// ---- boxes ----

salto_status problem_read_boxes(reader* R, const salto_cfg_node* top) {
    salto_problem_desc* p = R->p;
    const salto_cfg_node* list = salto_cfg_child(top, "boxes");
    if (!list) return SALTO_OK;
    salto_status s = salto_cfg_expect(list, SALTO_CFG_LIST, R->err);
    if (s || list->n == 0) return s;
    p->boxes = salto_calloc((size_t)list->n, sizeof *p->boxes);
    if (!p->boxes) return problem_nomem(R);
    static const char* const keys[] = {"name", "center", "size", "yaw_deg", "clearance", NULL};
    for (int i = 0; i < list->n; i++) {
        const salto_cfg_node* n = list->child[i];
        salto_box_desc* b = &p->boxes[i];
        p->nbox = i + 1;
        b->loc = at(R, n);
        if ((s = salto_cfg_expect(n, SALTO_CFG_MAP, R->err))) return s;
        if ((s = salto_cfg_check_keys(n, keys, R->err))) return s;
        const salto_cfg_node* nn = NULL;
        if ((s = problem_read_name(R, n, b->name, sizeof b->name, "box", &nn))) return s;
        for (int j = 0; nn && j < i; j++) {
            if (strcmp(p->boxes[j].name, b->name) == 0) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, nn),
                                  "the box name '%s' is given twice (first on line %d)", b->name,
                                  p->boxes[j].loc.line);
            }
        }
        double c[3], size[3];
        const salto_cfg_node* cn = salto_cfg_require(n, "center", R->err);
        if (!cn) return R->err->status;
        if ((s = salto_cfg_vec(cn, c, 3, R->err))) return s;
        const salto_cfg_node* sn = salto_cfg_require(n, "size", R->err);
        if (!sn) return R->err->status;
        if ((s = salto_cfg_vec(sn, size, 3, R->err))) return s;
        for (int k = 0; k < 3; k++) {
            if (!(size[k] > 0.0) || !isfinite(size[k])) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, sn->child[k]),
                                  "a box's size is its full length along x, y and z, each "
                                  "positive: found %g along %c",
                                  size[k], "xyz"[k]);
            }
            b->lo[k] = c[k] - 0.5 * size[k];
            b->hi[k] = c[k] + 0.5 * size[k];
        }
        const salto_cfg_node* yn = salto_cfg_child(n, "yaw_deg");
        if (yn) {
            if ((s = salto_cfg_number(yn, &b->yaw, R->err))) return s;
            if (salto_model_is_planar(R->m) && b->yaw != 0.0) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, yn),
                                  "a planar character's boxes span every y: they cannot turn about z");
            }
            b->yaw *= 3.14159265358979323846 / 180.0;
        }
        b->clearance = SALTO_BOX_CLEARANCE;
        if ((s = problem_read_num_opt(R, n, "clearance", 0.0, 0, &b->clearance))) return s;
    }
    return SALTO_OK;
}


// ---- phases ----

static salto_status read_contact(reader* R, salto_phase_desc* ph, const salto_cfg_node* n) {
    salto_contact_desc* c = &ph->contact;
    c->type = SALTO_CONTACT_NONE;
    c->loc = at(R, n);
    c->box = -1;
    for (int k = 0; k < 8; k++) c->site_box[k] = -1;

    // the scalar 'none'
    if (n->kind == SALTO_CFG_SCALAR) {
        if (!n->quoted && strcmp(n->text, "none") == 0) return SALTO_OK;
        char found[100];
        salto_cfg_describe(n, found, sizeof found);
        salto_status s = SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                                    "expected 'none' or a map for 'contact', found %s", found);
        if (!n->quoted && (strcmp(n->text, "bar") == 0 || strcmp(n->text, "ground") == 0)) {
            salto_error_note(R->err, "a %s contact is a map: {type: %s, sites: [...], ...}",
                             n->text, n->text);
        }
        return s;
    }
    salto_status s = salto_cfg_expect(n, SALTO_CFG_MAP, R->err);
    if (s) return s;
    const salto_cfg_node* tn = salto_cfg_require(n, "type", R->err);
    if (!tn) return R->err->status;
    int type = 0;
    s = problem_read_enum(R, tn, contact_names, "contact type", &type);
    if (s) return s;
    c->type = (salto_contact_type)type;

    static const char* const all[] = {"type",     "sites",     "point",     "axis",
                                      "torque_max", "normal",  "friction",  "force_max",
                                      "twist_max", "support",  "height",    "hold",
                                      "effective_root", "impact", "on", NULL};
    static const char* const keys[3][13] = {
        {"type", NULL},
        {"type", "sites", "point", "axis", "torque_max", "hold", "effective_root", NULL},
        {"type", "sites", "normal", "friction", "force_max", "twist_max", "support", "height",
         "hold", "effective_root", "impact", "on", NULL},
    };
    char what[64];
    snprintf(what, sizeof what, "contact type '%s'", contact_names[type]);
    s = problem_check_typed_keys(R, n, keys[type], all, what);
    if (s) return s;

    // defaults
    c->torque_max = 1e9;
    c->normal[2] = 1.0;
    c->friction = 1.0;
    c->force_max = 1e5;
    c->twist_max = 0.1;
    c->support_half[0] = 0.1;
    c->support_half[1] = 0.05;
    c->hold = 1;
    c->box = -1;
    for (int k = 0; k < 8; k++) c->site_box[k] = -1;
    // on the ground by default: without it planted feet strayed 4-7 mm between the knots; on
    // a bar the hold alone keeps hands within 0.6 mm, and the exact root took the dismount
    // from 67 to 187 iterations and to a worse optimum (docs/design.md)
    c->effective_root = c->type == SALTO_CONTACT_GROUND;
    // an impact: not given (-1), a ground landing after a flight follows the spline
    // (problem_read_spline)
    c->impact = c->type == SALTO_CONTACT_GROUND ? -1 : 0;
    if (c->type == SALTO_CONTACT_NONE) return SALTO_OK;
    const salto_cfg_node* hold = salto_cfg_child(n, "hold");
    if (hold && (s = salto_cfg_bool(hold, &c->hold, R->err))) return s;
    const salto_cfg_node* ern = salto_cfg_child(n, "effective_root");
    if (ern && (s = salto_cfg_bool(ern, &c->effective_root, R->err))) return s;
    const salto_cfg_node* imn = salto_cfg_child(n, "impact");
    if (imn && (s = salto_cfg_bool(imn, &c->impact, R->err))) return s;
    if (c->impact == 1 && !c->hold) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, imn),
                          "an impact lands on held sites: 'impact: true' needs 'hold: true'");
    }

    // sites: 1..8 distinct names
    const salto_cfg_node* sn = salto_cfg_require(n, "sites", R->err);
    if (!sn) return R->err->status;
    s = salto_cfg_expect(sn, SALTO_CFG_LIST, R->err);
    if (s) return s;
    if (sn->n < 1 || sn->n > 8) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, sn),
                          "'sites' needs 1 to 8 site names, found %d", sn->n);
    }
    for (int i = 0; i < sn->n; i++) {
        s = problem_read_site(R, sn->child[i], &c->site[i]);
        if (s) return s;
        for (int j = 0; j < i; j++) {
            if (c->site[j] == c->site[i]) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, sn->child[i]),
                                  "site '%s' is listed twice in 'sites'",
                                  R->m->site_name[c->site[i]]);
            }
        }
    }
    c->nsite = sn->n;
    const int nlink = salto_contact_links(R->m, c, NULL, NULL);
    if (c->impact == 1 && nlink > salto_impact_max_links(R->m)) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, imn),
                          "an impact shares its impulse among at most %d links (%s), and "
                          "these sites are on %d",
                          salto_impact_max_links(R->m),
                          salto_model_is_planar(R->m) ? "a planar character" : "in 3-D", nlink);
    }

    if (c->type == SALTO_CONTACT_BAR) {
        if ((s = problem_read_bar_line(R, n, c->bar_point, c->bar_axis))) return s;
        return problem_read_num_opt(R, n, "torque_max", 0.0, 0, &c->torque_max);
    }

    // ground
    const salto_cfg_node* nn = salto_cfg_child(n, "normal");
    if (nn && (s = problem_read_unit(R, nn, c->normal))) return s;
    if (nn && salto_model_is_planar(R->m) && fabs(c->normal[1]) > 1e-12) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, nn),
                          "a planar character's ground normal must lie in the x-z plane (no y "
                          "component)");
    }
    s = problem_read_num_opt(R, n, "friction", 0.0, 1, &c->friction);
    if (s) return s;
    if (c->friction > SALTO_FRICTION_MAX) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, salto_cfg_child(n, "friction")),
                          "a friction coefficient of %g: at most %g (rubber on concrete is "
                          "about 1; 5 to 10 already stops any slip)", c->friction,
                          SALTO_FRICTION_MAX);
    }
    s = problem_read_num_opt(R, n, "force_max", 0.0, 1, &c->force_max);
    if (s) return s;
    s = problem_read_num_opt(R, n, "twist_max", 0.0, 0, &c->twist_max);
    if (s) return s;
    const salto_cfg_node* htn = salto_cfg_child(n, "height");
    if (htn && (s = salto_cfg_number(htn, &c->height, R->err))) return s;
    const salto_cfg_node* on = salto_cfg_child(n, "on");
    if (on) {
        // standing on a box: its top face is the ground, for every site or (a list) for each
        // site its own (`floor`: the contact's plane)
        const int list = on->kind == SALTO_CFG_LIST;
        const salto_cfg_node* both = htn && !list ? htn : nn;
        if (both) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, both),
                              "'on' puts the ground on the box's top face (its height, normal "
                              "+z): drop '%s'",
                              both == htn ? "height" : "normal");
        }
        if (list && on->n != c->nsite) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, on),
                              "'on' as a list names a box (or 'floor') for each of the %d sites, "
                              "found %d",
                              c->nsite, on->n);
        }
        const char* names[64];
        const int nb = R->p->nbox < 64 ? R->p->nbox : 64;
        for (int i = 0; i < nb; i++) names[i] = R->p->boxes[i].name;
        int one_box = 1;
        for (int k = 0; k < (list ? on->n : 1); k++) {
            const salto_cfg_node* e = list ? on->child[k] : on;
            const char* name = NULL;
            if ((s = salto_cfg_string(e, &name, R->err))) return s;
            if (list && strcmp(name, "floor") == 0) {
                one_box = 0;
                continue;
            }
            if (nb == 0) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, e),
                                  "there is no box '%s': the problem has no 'boxes'", name);
            }
            int b = -1;
            if ((s = problem_lookup(R, name, names, nb, "box", at(R, e), &b))) return s;
            if (list) {
                c->site_box[k] = b;
            } else {
                for (int j = 0; j < c->nsite; j++) c->site_box[j] = b;
            }
        }
        // one box under every site: the contact's own plane is its top
        for (int k = 1; k < c->nsite && one_box; k++) one_box = c->site_box[k] == c->site_box[0];
        if (one_box && htn) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, htn),
                              "'on' puts every site on a box's top face (its height, normal +z): "
                              "drop 'height'");
        }
        if (one_box) {
            c->box = c->site_box[0];
            c->height = R->p->boxes[c->box].hi[2];
        }
    }
    const salto_cfg_node* hn = salto_cfg_child(n, "support");
    if (hn) {
        s = salto_cfg_vec(hn, c->support_half, 2, R->err);
        if (s) return s;
        for (int k = 0; k < 2; k++) {
            s = problem_check_lower(R, hn->child[k], c->support_half[k], 0.0, 0);
            if (s) return s;
        }
    }
    return SALTO_OK;
}


// A free duration, {min, max, initial}: min > 0, max >= min, initial in [min, max] (default
// their mean), as the phase's nominal duration
static salto_status read_free_duration(reader* R, salto_phase_desc* ph, const salto_cfg_node* dn) {
    static const char* const keys[] = {"min", "max", "initial", NULL};
    salto_status s = salto_cfg_check_keys(dn, keys, R->err);
    if (s) return s;
    const salto_cfg_node* mn = salto_cfg_require(dn, "min", R->err);
    if (!mn) return R->err->status;
    const salto_cfg_node* xn = salto_cfg_require(dn, "max", R->err);
    if (!xn) return R->err->status;
    if ((s = salto_cfg_number(mn, &ph->dur_min, R->err)) || (s = salto_cfg_number(xn, &ph->dur_max, R->err))) return s;
    if (!(ph->dur_min > 0.0) || !isfinite(ph->dur_min)) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, mn),
                          "the shortest duration of phase '%s' must be positive, found %g s",
                          ph->name, ph->dur_min);
    }
    if (!(ph->dur_max >= ph->dur_min) || !isfinite(ph->dur_max)) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, xn),
                          "the longest duration of phase '%s' (%g s) is less than its shortest "
                          "(%g s)",
                          ph->name, ph->dur_max, ph->dur_min);
    }
    ph->duration = 0.5 * (ph->dur_min + ph->dur_max);
    const salto_cfg_node* in = salto_cfg_child(dn, "initial");
    if (in) {
        if ((s = salto_cfg_number(in, &ph->duration, R->err))) return s;
        if (!(ph->duration >= ph->dur_min && ph->duration <= ph->dur_max)) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, in),
                              "the initial duration of phase '%s' (%g s) is outside [%g, %g] s",
                              ph->name, ph->duration, ph->dur_min, ph->dur_max);
        }
    }
    ph->dur_free = 1;
    return SALTO_OK;
}


salto_status problem_read_phases(reader* R, const salto_cfg_node* top) {
    salto_problem_desc* p = R->p;
    const salto_cfg_node* list = salto_cfg_require(top, "phases", R->err);
    if (!list) return R->err->status;
    salto_status s = salto_cfg_expect(list, SALTO_CFG_LIST, R->err);
    if (s) return s;
    if (list->n == 0) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, list), "'phases' must not be empty");
    }
    p->phases = salto_calloc((size_t)list->n, sizeof *p->phases);
    if (!p->phases) return problem_nomem(R);
    p->nphase = list->n;
    R->phase_names = salto_calloc((size_t)list->n, sizeof *R->phase_names);
    if (!R->phase_names) return problem_nomem(R);

    static const char* const keys[] = {"name", "duration", "contact", "ballistic", NULL};
    double t = 0.0;
    for (int i = 0; i < list->n; i++) {
        const salto_cfg_node* n = list->child[i];
        salto_phase_desc* ph = &p->phases[i];
        s = salto_cfg_check_keys(n, keys, R->err);
        if (s) return s;
        ph->loc = at(R, n);

        // name: an identifier, unique
        const salto_cfg_node* nn = salto_cfg_require(n, "name", R->err);
        if (!nn) return R->err->status;
        s = problem_read_string(R, nn, &ph->name);
        if (s) return s;
        if (!problem_is_identifier(ph->name)) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, nn),
                              "phase name '%s' is not an identifier (letters, digits and '_', "
                              "not starting with a digit)",
                              ph->name);
        }
        for (int j = 0; j < i; j++) {
            if (strcmp(p->phases[j].name, ph->name) == 0) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, nn),
                                  "duplicate phase name '%s' (first given on line %d)", ph->name,
                                  p->phases[j].loc.line);
            }
        }
        R->phase_names[i] = ph->name;

        // duration > 0; start = sum of the previous durations
        const salto_cfg_node* dn = salto_cfg_require(n, "duration", R->err);
        if (!dn) return R->err->status;
        ph->dur_loc = at(R, dn);
        if (dn->kind == SALTO_CFG_MAP) {
            s = read_free_duration(R, ph, dn);
            if (s) return s;
        } else {
            s = salto_cfg_number(dn, &ph->duration, R->err);
            if (s) return s;
        }
        if (!(ph->duration > 0)) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, dn),
                              "duration of phase '%s' must be positive, found %g s", ph->name,
                              ph->duration);
        }
        ph->start = t;
        t += ph->duration;
        if (!isfinite(t)) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, dn),
                              "the phase durations add up to more than a double can hold");
        }

        const salto_cfg_node* cn = salto_cfg_child(n, "contact");
        if (cn) {
            s = read_contact(R, ph, cn);
            if (s) return s;
            const salto_cfg_node* imn = salto_cfg_child(cn, "impact");
            if (ph->contact.impact == 1 && i == 0) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, imn),
                                  "the first phase cannot start with an impact: nothing comes "
                                  "before it to land from");
            }
        } else {
            ph->contact.type = SALTO_CONTACT_NONE;
            ph->contact.loc = ph->loc;
            ph->contact.box = -1;
            for (int k = 0; k < 8; k++) ph->contact.site_box[k] = -1;
        }

        // ballistic: flight phases only; not given (-1), it follows the spline (problem_read_spline)
        ph->ballistic = -1;
        const salto_cfg_node* bn = salto_cfg_child(n, "ballistic");
        if (bn) {
            if (ph->contact.type != SALTO_CONTACT_NONE) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, bn),
                                  "'ballistic' is for flight phases (no contact); phase '%s' "
                                  "has a contact",
                                  ph->name);
            }
            s = salto_cfg_bool(bn, &ph->ballistic, R->err);
            if (s) return s;
        }
    }
    p->duration = t;
    return SALTO_OK;
}
