// problem_read.c: the loader's reading helpers (numbers, units, names, enumerations, typed
// keys, sites, phase references) and times: "swing.end+0.1" resolved to seconds
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


// ---- reading: helpers ----



salto_status problem_nomem(reader* R) {
    return SALTO_FAIL(R->err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory reading '%s'",
                      R->p->path ? R->p->path : "?");
}


// "a, b, c" from a NULL-terminated list
static void join_names(const char* const* names, char* buf, size_t size) {
    buf[0] = '\0';
    for (int i = 0; names[i]; i++) {
        size_t k = strlen(buf);
        snprintf(buf + k, size - k, "%s%s", i ? ", " : "", names[i]);
    }
}


// "a" or "an" before a word
const char* problem_article(const char* word) {
    return strchr("aeiou", word[0]) ? "an" : "a";
}


static int in_list(const char* s, const char* const* names) {
    for (int i = 0; names[i]; i++) {
        if (strcmp(s, names[i]) == 0) return 1;
    }
    return 0;
}


// n's index in a NULL-terminated list of names (salto_cfg_enum)
salto_status problem_read_enum(reader* R, const salto_cfg_node* n, const char* const* names,
                              const char* what, int* out) {
    return salto_cfg_enum(n, names, what, out, R->err);
}


// keys of a map whose allowed keys depend on its type: a key of another type is "not
// allowed" here, any other key is unknown (did-you-mean over this type's keys)
salto_status problem_check_typed_keys(reader* R, const salto_cfg_node* map,
                                     const char* const* allowed, const char* const* all,
                                     const char* what) {
    salto_status s = salto_cfg_expect(map, SALTO_CFG_MAP, R->err);
    if (s) return s;
    int nallowed = 0;
    while (allowed[nallowed]) nallowed++;
    for (int i = 0; i < map->n; i++) {
        const salto_cfg_node* c = map->child[i];
        if (in_list(c->key, allowed)) continue;
        char list[300];
        join_names(allowed, list, sizeof list);
        if (in_list(c->key, all)) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, c),
                              "'%s' is not allowed for %s (its keys: %s)", c->key, what, list);
        }
        s = SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, c),
                       "unknown key '%s' for %s (its keys: %s)", c->key, what, list);
        const char* close = salto_cfg_suggest(c->key, allowed, nallowed);
        if (close) salto_error_note(R->err, "did you mean '%s'?", close);
        return s;
    }
    return SALTO_OK;
}


// a number with a lower bound: x > lo (strict) or x >= lo
salto_status problem_check_lower(reader* R, const salto_cfg_node* n, double x, double lo,
                                int strict) {
    if (strict ? x > lo : x >= lo) return SALTO_OK;
    char name[300];
    salto_cfg_name(n, name, sizeof name);
    if (lo == 0.0) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n), "%s must be %s, found %g", name,
                          strict ? "positive" : "zero or positive", x);
    }
    return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n), "%s must be %s %g, found %g", name,
                      strict ? "above" : "at least", lo, x);
}


// optional number under key, kept in *out when absent; bounded below by lo
salto_status problem_read_num_opt(reader* R, const salto_cfg_node* map, const char* key,
                                 double lo, int strict, double* out) {
    const salto_cfg_node* n = salto_cfg_child(map, key);
    if (!n) return SALTO_OK;
    double x = 0.0;
    salto_status s = salto_cfg_number(n, &x, R->err);
    if (s) return s;
    s = problem_check_lower(R, n, x, lo, strict);
    if (s) return s;
    *out = x;
    return SALTO_OK;
}


// optional integer under key in [lo, hi], kept in *out when absent
salto_status problem_read_int_opt(reader* R, const salto_cfg_node* map, const char* key, int lo,
                                 int hi, int* out) {
    const salto_cfg_node* n = salto_cfg_child(map, key);
    if (!n) return SALTO_OK;
    int x = 0;
    salto_status s = salto_cfg_int(n, &x, R->err);
    if (s) return s;
    if (x < lo || x > hi) {
        if (hi == 2147483647) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                              "'%s' must be at least %d, found %d", key, lo, x);
        }
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                          "'%s' must be between %d and %d, found %d", key, lo, hi, x);
    }
    *out = x;
    return SALTO_OK;
}


// a non-zero 3-vector, normalised
salto_status problem_read_unit(reader* R, const salto_cfg_node* n, double out[3]) {
    salto_status s = salto_cfg_vec(n, out, 3, R->err);
    if (s) return s;
    double len = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
    if (!(len > 1e-12) || !isfinite(len)) {
        char name[300];
        salto_cfg_name(n, name, sizeof name);
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n), "%s must not be zero", name);
    }
    for (int i = 0; i < 3; i++) out[i] /= len;
    return SALTO_OK;
}


// a non-empty string copied into the description
salto_status problem_read_string(reader* R, const salto_cfg_node* n, char** out) {
    const char* s = NULL;
    salto_status st = salto_cfg_string(n, &s, R->err);
    if (st) return st;
    if (!s[0]) {
        char name[300];
        salto_cfg_name(n, name, sizeof name);
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n), "%s must not be empty", name);
    }
    *out = salto_strdup(s);
    return *out ? SALTO_OK : problem_nomem(R);
}


// a path written in the problem file: absolute as it is, relative to the problem's folder
salto_status problem_read_path(reader* R, const salto_cfg_node* n, char** out) {
    const char* rel = NULL;
    salto_status s = salto_cfg_string(n, &rel, R->err);
    if (s) return s;
    if (!rel[0]) {
        char name[300];
        salto_cfg_name(n, name, sizeof name);
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n), "%s must not be empty", name);
    }
    const char* slash = strrchr(R->p->path, '/');
    size_t ndir = rel[0] == '/' || !slash ? 0 : (size_t)(slash - R->p->path) + 1;
    size_t nrel = strlen(rel);
    char* p = salto_malloc(ndir + nrel + 1);
    if (!p) return problem_nomem(R);
    memcpy(p, R->p->path, ndir);
    memcpy(p + ndir, rel, nrel + 1);
    *out = p;
    return SALTO_OK;
}


salto_status problem_read_bar_line(reader* R, const salto_cfg_node* n, double point[3],
                                   double axis[3]) {
    const salto_cfg_node* pn = salto_cfg_require(n, "point", R->err);
    if (!pn) return R->err->status;
    salto_status s = salto_cfg_vec(pn, point, 3, R->err);
    if (s) return s;
    const salto_cfg_node* an = salto_cfg_require(n, "axis", R->err);
    if (!an) return R->err->status;
    if ((s = problem_read_unit(R, an, axis))) return s;
    // a planar character moves in the x-z plane: its bars cross it along y
    if (salto_model_is_planar(R->m) && (fabs(axis[0]) > 1e-12 || fabs(axis[2]) > 1e-12)) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, an),
                          "a planar character's bar must lie along y (axis [0, 1, 0]): it "
                          "moves in the x-z plane");
    }
    return SALTO_OK;
}


int problem_is_identifier(const char* s) {
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return 0;
    for (s++; *s; s++) {
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_')) {
            return 0;
        }
    }
    return 1;
}


// index of a name in a list of n names, -1 when absent
static int find(const char* const* names, int n, const char* name) {
    for (int i = 0; i < n; i++) {
        if (names[i] && strcmp(names[i], name) == 0) return i;
    }
    return -1;
}


// a name from a list (sites, DOFs, phases) at n, or an error with a suggestion; loc is where
// to report (the value, or the key when the name is a key)
salto_status problem_lookup(reader* R, const char* name, const char* const* names, int count,
                           const char* what, salto_src_loc loc, int* out) {
    int i = find(names, count, name);
    if (i >= 0) {
        *out = i;
        return SALTO_OK;
    }
    salto_status s = SALTO_FAIL(R->err, SALTO_ERR_INVALID, loc, "unknown %s '%s'", what, name);
    const char* close = salto_cfg_suggest(name, names, count);
    if (close) salto_error_note(R->err, "did you mean '%s'?", close);
    return s;
}


salto_status problem_read_site(reader* R, const salto_cfg_node* n, int* out) {
    const char* name = NULL;
    salto_status s = salto_cfg_string(n, &name, R->err);
    if (s) return s;
    return problem_lookup(R, name, model_names(R->m->site_name), R->m->nsite, "site", at(R, n), out);
}


salto_status problem_read_phase_ref(reader* R, const salto_cfg_node* n, int* out) {
    const char* name = NULL;
    salto_status s = salto_cfg_string(n, &name, R->err);
    if (s) return s;
    return problem_lookup(R, name, R->phase_names, R->p->nphase, "phase", at(R, n), out);
}

// ---- times ----

// plain unsigned decimal: digits [. digits] [(e|E) [+-] digits], a digit before or after
// the point; returns the length matched, 0 if none
static size_t unsigned_decimal(const char* s) {
    const char* p = s;
    int ndig = 0;
    while (*p >= '0' && *p <= '9') p++, ndig++;
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') p++, ndig++;
    }
    if (!ndig) return 0;
    if (*p == 'e' || *p == 'E') {
        const char* q = p + 1;
        if (*q == '+' || *q == '-') q++;
        if (*q >= '0' && *q <= '9') {
            while (*q >= '0' && *q <= '9') q++;
            p = q;
        }
    }
    return (size_t)(p - s);
}


static salto_status bad_time(reader* R, const salto_cfg_node* n) {
    return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                      "bad time '%s': expected seconds, 'start', 'end', 'PHASE.start' or "
                      "'PHASE.end', optionally followed by +OFFSET or -OFFSET (seconds)",
                      n->text);
}


// a time: seconds, or start | end | PHASE.start | PHASE.end [(+|-) OFFSET], in [0, duration]
salto_status problem_read_time(reader* R, const salto_cfg_node* n, double* out) {
    const salto_problem_desc* p = R->p;
    if (n->kind != SALTO_CFG_SCALAR || salto_cfg_is_null(n)) {
        char name[300];
        char found[100];
        salto_cfg_name(n, name, sizeof name);
        salto_cfg_describe(n, found, sizeof found);
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                          "expected a time (seconds, 'start', 'end', 'PHASE.start' or "
                          "'PHASE.end') for %s, found %s",
                          name, found);
    }
    const char* text = n->text;
    double t = 0.0;
    const char c0 = text[0];
    if (!n->quoted && ((c0 >= '0' && c0 <= '9') || c0 == '.' || c0 == '+' || c0 == '-')) {
        // a number of seconds
        salto_status s = salto_cfg_number(n, &t, R->err);
        if (s) return s;
    } else {
        // the base: an identifier, then '.start' or '.end' for a phase
        const char* q = text;
        char ident[128];
        size_t k = 0;
        while (((*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') ||
                (*q >= '0' && *q <= '9') || *q == '_') &&
               k + 1 < sizeof ident) {
            ident[k++] = *q++;
        }
        ident[k] = '\0';
        if (k == 0 || !problem_is_identifier(ident)) return bad_time(R, n);
        if (*q == '.') {
            q++;
            char which[16];
            size_t w = 0;
            while (((*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z')) && w + 1 < sizeof which) {
                which[w++] = *q++;
            }
            which[w] = '\0';
            int ph = find(R->phase_names, p->nphase, ident);
            if (ph < 0) {
                salto_status s = SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                                            "unknown phase '%s' in time '%s'", ident, text);
                const char* best = salto_cfg_suggest(ident, R->phase_names, p->nphase);
                if (best) salto_error_note(R->err, "did you mean '%s.%s'?", best, which);
                return s;
            }
            if (strcmp(which, "start") == 0) {
                t = p->phases[ph].start;
            } else if (strcmp(which, "end") == 0) {
                t = ph == p->nphase - 1 ? p->duration : p->phases[ph + 1].start;
            } else {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                                  "bad time '%s': expected 'start' or 'end' after '%s.'", text,
                                  ident);
            }
        } else if (strcmp(ident, "start") == 0) {
            t = 0.0;
        } else if (strcmp(ident, "end") == 0) {
            t = p->duration;
        } else {
            if (find(R->phase_names, p->nphase, ident) >= 0) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                                  "bad time '%s': '%s' is a phase; give '%s.start' or '%s.end'",
                                  text, ident, ident, ident);
            }
            salto_status s = bad_time(R, n);
            static const char* const ends[] = {"start", "end"};
            const char* close = salto_cfg_suggest(ident, ends, 2);
            if (close) salto_error_note(R->err, "did you mean '%s'?", close);
            return s;
        }

        // the offset: (+|-) seconds, spaces allowed around the sign
        while (*q == ' ') q++;
        if (*q) {
            if (*q != '+' && *q != '-') return bad_time(R, n);
            double sign = *q == '-' ? -1.0 : 1.0;
            q++;
            while (*q == ' ') q++;
            size_t len = unsigned_decimal(q);
            if (len == 0) return bad_time(R, n);
            char num[64];
            if (len >= sizeof num) return bad_time(R, n);
            memcpy(num, q, len);
            num[len] = '\0';
            q += len;
            while (*q == ' ') q++;
            if (*q) return bad_time(R, n);
            double off = strtod(num, NULL);
            if (!isfinite(off)) return bad_time(R, n);
            t += sign * off;
        }
    }

    // within the problem's span (rounding in sums is forgiven and clamped)
    if (!(t >= -time_slack) || !(t <= p->duration + time_slack)) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                          "time '%s' (%g s) is outside the problem's span [0, %g] s", text, t,
                          p->duration);
    }
    *out = fmin(fmax(t, 0.0), p->duration);
    return SALTO_OK;
}


salto_status problem_read_time_or_phase(reader* R, const salto_cfg_node* n, const char* what,
                                        int* has_time, double* time, int* phase) {
    const salto_cfg_node* tn = salto_cfg_child(n, "time");
    const salto_cfg_node* pn = salto_cfg_child(n, "phase");
    *has_time = 0;
    *phase = -1;
    if (tn && pn) {
        const salto_cfg_node* later = tn->index > pn->index ? tn : pn;
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, later),
                          "give either 'time' or 'phase', not both");
    }
    if (!tn && !pn) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n), "%s needs 'time' or 'phase'", what);
    }
    if (pn) return problem_read_phase_ref(R, pn, phase);
    salto_status s = problem_read_time(R, tn, time);
    if (s == SALTO_OK) *has_time = 1;
    return s;
}


// An optional 'name' of n (a constraint, an objective) into out (cap bytes; "" without one):
// letters, digits, '_' and '-', starting with a letter or '_' (a path segment of --set and of
// sweeps, which a digit would make a list index); *node (may be NULL) receives its node
salto_status problem_read_name(reader* R, const salto_cfg_node* n, char* out, size_t cap,
                               const char* kind, const salto_cfg_node** node) {
    out[0] = '\0';
    const salto_cfg_node* nn = salto_cfg_child(n, "name");
    if (node) *node = nn;
    if (!nn) return SALTO_OK;
    if (nn->kind != SALTO_CFG_SCALAR || !nn->text || !nn->text[0]) {
        char found[100];
        salto_cfg_describe(nn, found, sizeof found);
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, nn), "expected a name for 'name', found %s",
                          found);
    }
    const char* t = nn->text;
    const size_t len = strlen(t);
    int ok = len < cap && (isalpha((unsigned char)t[0]) || t[0] == '_');
    for (size_t k = 0; ok && k < len; k++) {
        ok = isalnum((unsigned char)t[k]) || t[k] == '_' || t[k] == '-';
    }
    if (!ok) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, nn),
                          "'%s' is not a %s name: letters, digits, '_' and '-', starting with a "
                          "letter or '_', at most %d characters (--set and sweeps address the %s "
                          "by it)",
                          t, kind, (int)cap - 1, kind);
    }
    memcpy(out, t, len + 1);
    return SALTO_OK;
}
