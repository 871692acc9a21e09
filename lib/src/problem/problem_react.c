// problem_react.c: reactions (salto play --react): a problem file's `reactions` list, a file
// holding one, or one reaction written on the command line
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem_priv.h"
#include "salto/kinematics.h"

static const char* const reaction_keys[] = {"time",      "body",     "point",     "force",
                                            "impulse",   "push",     "simulate",  "importance",
                                            "duration",  "blend_in", "blend_out", "stiffness",
                                            "damping",   NULL};


void salto_reactions_free(salto_reaction_desc* r, int n) {
    if (!r) return;
    for (int i = 0; i < n; i++) {
        salto_free(r[i].simulated);
        salto_free(r[i].importance);
    }
    salto_free(r);
}


static salto_status read_body(reader* R, const salto_cfg_node* n, int* out) {
    const char* name = NULL;
    salto_status s = salto_cfg_string(n, &name, R->err);
    if (s) return s;
    return problem_lookup(R, name, model_names(R->m->body_name), R->m->nbody, "body", at(R, n), out);
}


// a body that can be simulated: moving, and not the root (the reaction's base)
static int simulable(const salto_model* m, int b) {
    return m->body_parent[b] >= 0 && m->body_link[b] >= 0;
}

static salto_status check_simulable(reader* R, const salto_cfg_node* n, int b) {
    const salto_model* m = R->m;
    if (m->body_parent[b] < 0) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                          "'%s' is the root: it follows the motion (the reaction's base); "
                          "simulate bodies below it", m->body_name[b]);
    }
    if (m->body_link[b] < 0) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                          "'%s' is welded to the world: it has no joint to simulate", m->body_name[b]);
    }
    return SALTO_OK;
}


// the body's centre of mass in its own frame (its massive link's inertia; origin if massless)
static void body_com(const salto_model* m, int b, double c[3]) {
    c[0] = c[1] = c[2] = 0.0;
    const int l = m->body_link[b];
    if (l >= 0 && m->link_massive[l] && m->link_inertia[10 * l] > 0.0) {
        memcpy(c, m->link_inertia + 10 * l + 1, 3 * sizeof(double));
    }
}


static salto_status read_one(reader* R, const salto_cfg_node* n, salto_reaction_desc* r) {
    const salto_model* m = R->m;
    salto_status s = problem_check_typed_keys(R, n, reaction_keys, reaction_keys, "a reaction");
    if (s) return s;
    r->line = n->loc.line;
    r->push = 0.05, r->duration = 0.3, r->blend_in = 0.05, r->blend_out = 0.5;
    r->stiffness = 36.0, r->damping = 12.0;
    const salto_cfg_node* tn = salto_cfg_require(n, "time", R->err);
    if (!tn) return R->err->status;
    if ((s = problem_read_time(R, tn, &r->time))) return s;
    const salto_cfg_node* bn = salto_cfg_require(n, "body", R->err);
    if (!bn) return R->err->status;
    if ((s = read_body(R, bn, &r->body))) return s;
    if (m->body_link[r->body] < 0) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, bn),
                          "'%s' is welded to the world: a force on it moves nothing",
                          m->body_name[r->body]);
    }
    const salto_cfg_node* fn = salto_cfg_child(n, "force");
    const salto_cfg_node* in = salto_cfg_child(n, "impulse");
    if ((fn != NULL) == (in != NULL)) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                          "a reaction needs exactly one of 'force' (N) and 'impulse' (N s)");
    }
    r->impulse = in != NULL;
    if ((s = salto_cfg_vec(fn ? fn : in, r->force, 3, R->err))) return s;
    const double mag = hypot(hypot(r->force[0], r->force[1]), r->force[2]);
    if (!(mag <= 1e6)) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, fn ? fn : in),
                          "a%s of %g %s is beyond any hit: at most 1e6", in ? "n impulse" : " force",
                          mag, in ? "N s" : "N");
    }
    if (in && salto_cfg_child(n, "push")) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, salto_cfg_child(n, "push")),
                          "'push' is how long a force acts: an impulse acts at once");
    }
    body_com(m, r->body, r->point);
    const salto_cfg_node* pn = salto_cfg_child(n, "point");
    if (pn && (s = salto_cfg_vec(pn, r->point, 3, R->err))) return s;
    if ((s = problem_read_num_opt(R, n, "push", 0.0, 1, &r->push))) return s;
    if ((s = problem_read_num_opt(R, n, "duration", 0.0, 1, &r->duration))) return s;
    if ((s = problem_read_num_opt(R, n, "blend_in", 0.0, 0, &r->blend_in))) return s;
    if ((s = problem_read_num_opt(R, n, "blend_out", 0.0, 0, &r->blend_out))) return s;
    if ((s = problem_read_num_opt(R, n, "stiffness", 0.0, 0, &r->stiffness))) return s;
    if ((s = problem_read_num_opt(R, n, "damping", 0.0, 0, &r->damping))) return s;
    if (r->blend_in > r->duration) {
        const salto_cfg_node* k = salto_cfg_child(n, "blend_in");
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, k ? k : n),
                          "'blend_in' (%g s) must not pass 'duration' (%g s): the weight must "
                          "reach 1 before the blend-out", r->blend_in, r->duration);
    }

    // the simulated bodies: a body and its subtree, or a list of bodies
    r->simulated = salto_calloc((size_t)m->nbody, 1);
    r->importance = salto_calloc((size_t)m->nbody, sizeof(double));
    if (!r->simulated || !r->importance) return problem_nomem(R);
    const salto_cfg_node* sn = salto_cfg_child(n, "simulate");
    if (!sn) {
        // the path from the root's child to the pushed body, and the pushed body's subtree
        for (int b = r->body; b >= 0; b = m->body_parent[b]) r->simulated[b] = simulable(m, b);
        for (int b = 0; b < m->nbody; b++) {
            for (int a = b; a >= 0; a = m->body_parent[a]) {
                if (a == r->body) r->simulated[b] = simulable(m, b);
            }
        }
    } else if (sn->kind == SALTO_CFG_LIST) {
        if (sn->n == 0) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, sn),
                              "'simulate' lists no body: name at least one");
        }
        for (int k = 0; k < sn->n; k++) {
            int b = -1;
            if ((s = read_body(R, sn->child[k], &b))) return s;
            if ((s = check_simulable(R, sn->child[k], b))) return s;
            if (r->simulated[b]) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, sn->child[k]),
                                  "'%s' is listed twice", m->body_name[b]);
            }
            r->simulated[b] = 1;
        }
    } else {
        int top = -1;
        if ((s = read_body(R, sn, &top))) return s;
        if ((s = check_simulable(R, sn, top))) return s;
        for (int b = 0; b < m->nbody; b++) {
            for (int a = b; a >= 0; a = m->body_parent[a]) {
                if (a == top) r->simulated[b] = simulable(m, b);
            }
        }
    }
    // the force must reach a simulated joint: on a simulated body or one carried by one
    int carried = 0;
    for (int b = r->body; b >= 0; b = m->body_parent[b]) carried |= r->simulated[b];
    if (!carried) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, sn ? sn : bn),
                          "no simulated joint carries '%s': the %s would change nothing (simulate "
                          "'%s' or a body above it)", m->body_name[r->body],
                          r->impulse ? "impulse" : "force", m->body_name[r->body]);
    }
    for (int b = 0; b < m->nbody; b++) r->importance[b] = r->simulated[b] ? 1.0 : 0.0;
    const salto_cfg_node* wn = salto_cfg_child(n, "importance");
    if (wn) {
        if ((s = salto_cfg_expect(wn, SALTO_CFG_MAP, R->err))) return s;
        for (int k = 0; k < wn->n; k++) {
            const salto_cfg_node* c = wn->child[k];
            int b = -1;
            if ((s = problem_lookup(R, c->key, model_names(m->body_name), m->nbody, "body",
                                    key_at(R, c), &b))) {
                return s;
            }
            if (!r->simulated[b]) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, c),
                                  "'%s' is not simulated: its weight is 0 (the motion's)",
                                  m->body_name[b]);
            }
            double w = 0.0;
            if ((s = salto_cfg_number(c, &w, R->err))) return s;
            if (!(w >= 0.0 && w <= 1.0)) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, c),
                                  "importance.%s must be in [0, 1], found %g", c->key, w);
            }
            r->importance[b] = w;
        }
    }
    return SALTO_OK;
}


// the `reactions` list under top into *out, *n
static salto_status read_list(reader* R, const salto_cfg_node* top, salto_reaction_desc** out,
                              int* n) {
    *out = NULL, *n = 0;
    const salto_cfg_node* list = salto_cfg_child(top, "reactions");
    if (!list) return SALTO_OK;
    salto_status s = salto_cfg_expect(list, SALTO_CFG_LIST, R->err);
    if (s) return s;
    if (list->n == 0) return SALTO_OK;
    salto_reaction_desc* r = salto_calloc((size_t)list->n, sizeof *r);
    if (!r) return problem_nomem(R);
    for (int i = 0; i < list->n; i++) {
        s = read_one(R, list->child[i], &r[i]);
        if (s) {
            salto_reactions_free(r, list->n);
            return s;
        }
    }
    *out = r, *n = list->n;
    return SALTO_OK;
}


salto_status problem_read_reactions(reader* R, const salto_cfg_node* top) {
    return read_list(R, top, &R->p->reactions, &R->p->nreaction);
}


// reads the `reactions` of cfg for p, locations naming `name`
static salto_status read_cfg(const salto_problem_desc* p, const salto_cfg* cfg, const char* name,
                             salto_reaction_desc** out, int* n, salto_error* err) {
    const salto_cfg_node* top = salto_cfg_root(cfg);
    salto_problem_desc view = *p; // the problem, its locations in this file
    view.path = (char*)name;
    const char** names = salto_calloc((size_t)(p->nphase > 0 ? p->nphase : 1), sizeof *names);
    if (!names) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    for (int i = 0; i < p->nphase; i++) names[i] = p->phases[i].name;
    reader R = {&view, err, p->model, 0, names};
    salto_status s = salto_cfg_expect(top, SALTO_CFG_MAP, err);
    if (!s && !salto_cfg_child(top, "reactions")) {
        salto_src_loc l = {name, top->loc.line, top->loc.col};
        s = SALTO_FAIL(err, SALTO_ERR_INVALID, l, "no 'reactions' list here");
    }
    if (!s) s = read_list(&R, top, out, n);
    salto_free(names);
    return s;
}


salto_status salto_reactions_load(const salto_problem_desc* p, const char* path,
                                  salto_reaction_desc** out, int* n, salto_error* err) {
    *out = NULL, *n = 0;
    salto_cfg* cfg = salto_cfg_load(path, err);
    if (!cfg) return err->status;
    const salto_status s = read_cfg(p, cfg, salto_cfg_file(cfg), out, n, err);
    salto_cfg_destroy(cfg);
    return s;
}


// the short form's fields: a name, numbers, a time ([A-Za-z0-9_.+-]: seconds or PHASE.start +
// 0.1 without spaces); the first character that does not belong, or NULL
static const char* bad_char(const char* s, size_t n, const char* extra) {
    for (size_t i = 0; i < n; i++) {
        const char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              strchr(extra, c))) {
            return s + i;
        }
    }
    return NULL;
}


// BODY:FX,FY,FZ@T[:PUSH] checked field by field and written as a YAML flow map into text (cap);
// errors at where (the spec, no line)
static salto_status short_form(const char* spec, salto_src_loc where, char* text, size_t cap,
                               salto_error* err) {
    const char* colon = strchr(spec, ':');
    const char* at = colon ? strchr(colon, '@') : NULL;
    const char* tail = at ? strchr(at, ':') : NULL;
    if (!colon || !at || colon == spec) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, where,
                          "not a file, and a reaction is FILE, a YAML map {body: B, force: [FX, "
                          "FY, FZ], time: T, ...} or BODY:FX,FY,FZ@T[:PUSH]");
    }
    const char* end = spec + strlen(spec);
    const char* bad = bad_char(spec, (size_t)(colon - spec), "_.-");
    if (!bad) bad = bad_char(colon + 1, (size_t)(at - colon - 1), ",.+-eE");
    if (!bad) bad = bad_char(at + 1, (size_t)((tail ? tail : end) - at - 1), "_.+-");
    if (!bad && tail) bad = bad_char(tail + 1, (size_t)(end - tail - 1), ".+-eE");
    if (bad) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, where,
                          "'%c' (character %d) does not belong in BODY:FX,FY,FZ@T[:PUSH] (a "
                          "body's name, three numbers, a time, seconds; other settings need the "
                          "YAML map form)", *bad, (int)(bad - spec) + 1);
    }
    int commas = 0;
    for (const char* c = colon + 1; c < at; c++) commas += *c == ',';
    if (commas != 2) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, where,
                          "the force needs three numbers, FX,FY,FZ (newtons, world frame)");
    }
    if (tail) {
        snprintf(text, cap, "reactions:\n- {body: %.*s, force: [%.*s], time: %.*s, push: %s}\n",
                 (int)(colon - spec), spec, (int)(at - colon - 1), colon + 1,
                 (int)(tail - at - 1), at + 1, tail + 1);
    } else {
        snprintf(text, cap, "reactions:\n- {body: %.*s, force: [%.*s], time: %s}\n",
                 (int)(colon - spec), spec, (int)(at - colon - 1), colon + 1, at + 1);
    }
    return SALTO_OK;
}


salto_status salto_reactions_parse(const salto_problem_desc* p, const char* spec,
                                   salto_reaction_desc** out, int* n, salto_error* err) {
    *out = NULL, *n = 0;
    const size_t len = strlen(spec);
    const size_t cap = len + 80;
    char* text = salto_malloc(cap);
    if (!text) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    const char* s = spec;
    while (*s == ' ') s++;
    const int map = *s == '{';
    // errors name the spec: a map's at its own lines and columns, the short form's without a
    // place (its text is not what was parsed)
    char name[300];
    if (map) snprintf(name, sizeof name, "--react");
    else snprintf(name, sizeof name, "--react '%.200s'", spec);
    const salto_src_loc where = {name, 0, 0};
    if (map) {
        // a flow map: as written, after "- " on the text's second line (its line 1)
        snprintf(text, cap, "reactions:\n- %s\n", spec);
    } else if (short_form(spec, where, text, cap, err) != SALTO_OK) {
        salto_free(text);
        return err->status;
    }
    salto_cfg* cfg = salto_cfg_parse(text, strlen(text), name, err);
    salto_status st = cfg ? SALTO_OK : err->status;
    if (cfg) {
        // exactly one reaction, a map: nothing else written around it
        const salto_cfg_node* top = salto_cfg_root(cfg);
        const salto_cfg_node* list = top && top->kind == SALTO_CFG_MAP && top->n == 1
                                         ? salto_cfg_child(top, "reactions") : NULL;
        if (!list || list->kind != SALTO_CFG_LIST || list->n != 1 ||
            list->child[0]->kind != SALTO_CFG_MAP) {
            st = SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(),
                            "--react: one reaction, a YAML map {body: B, force: [FX, FY, FZ], "
                            "time: T, ...}, and nothing after it");
        } else {
            st = read_cfg(p, cfg, name, out, n, err);
        }
    }
    salto_free(text);
    salto_cfg_destroy(cfg);
    if (st == SALTO_OK) {
        for (int i = 0; i < *n; i++) (*out)[i].line = 0; // (not from a file)
    } else if (map && err->where.line >= 2) {
        int lines = 1; // the spec's own lines
        for (const char* c = spec; *c; c++) lines += *c == '\n' && c[1];
        const int line = err->where.line - 1;
        if (line > lines) { // past its end (an unclosed map): its last line
            err->where.line = lines, err->where.col = 0;
        } else {
            err->where.line = line;
            if (line == 1) err->where.col = err->where.col > 2 ? err->where.col - 2 : 0;
        }
    } else if (!map) {
        err->where.line = 0, err->where.col = 0;
    }
    return st;
}
