// problem.c: problem files: reading, resolving names and times, semantic checks
//
// The loader imitates the character loader: the file is read with config.c, every value is
// copied into the description with its source location re-pointed at desc->path (so the
// description outlives the config tree), and each check reports at the value that caused it.
// The character is loaded first, because sites, DOFs and joint limits are looked up by name
// while reading; phases come next, because times ("swing.end+0.1") and phase references are
// resolved to seconds and indices while reading the constraints and the initial guess.
//
// Maps whose keys depend on a 'type' (contacts, constraints, objectives) are checked in two
// steps: a key that belongs to no type is "unknown" (with a did-you-mean note over the keys
// of the given type), a key that belongs to another type is "not allowed" for this one.
#include "salto/problem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/config.h"
#include "salto/data.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"
#include "salto/checks.h"

static const double pi = 3.14159265358979323846;

// times may overshoot [0, duration] by this much (rounding in sums of durations and offsets)
// and are then clamped, s
static const double time_slack = 1e-9;

static const char* const contact_names[] = {"none", "bar", "ground", NULL};
static const char* const constraint_names[] = {
    "site_at",  "site_on_line", "site_on_plane", "site_still",  "pose",
    "velocity", "com_position", "com_velocity",  "joint_limits", "above_ground", "body_still",
    NULL};
static const char* const objective_names[] = {"acceleration", "reference", NULL};
static const char* const guess_names[] = {"interpolate", "motion", NULL};
static const char* const hessian_names[] = {"limited-memory", "exact", NULL};
// in SALTO_FLIGHT_* order
static const char* const flight_row_names[] = {"force", "momentum", NULL};
// in salto_jac_method order (aggregate.h)
static const char* const derivative_names[] = {"linear",     "direct",     "fd-forward",
                                               "fd-central", "richardson", NULL};

// ---- allocation ----

static void free_constraint(salto_constraint_desc* c) {
    salto_free(c->dof);
    salto_free(c->value);
    c->dof = NULL;
    c->value = NULL;
}


void salto_problem_destroy(salto_problem_desc* p) {
    if (!p) return;
    salto_strs_free(p->set, p->nset);
    for (int i = 0; i < p->nphase && p->phases; i++) salto_free(p->phases[i].name);
    salto_free(p->phases);
    for (int i = 0; i < p->ncon && p->cons; i++) free_constraint(&p->cons[i]);
    salto_free(p->cons);
    for (int i = 0; i < p->nobj && p->objs; i++) salto_free(p->objs[i].motion);
    salto_free(p->objs);
    salto_free(p->guess.motion);
    for (int i = 0; i < p->solver.nipopt && p->solver.ipopt; i++) {
        salto_free(p->solver.ipopt[i].key);
        salto_free(p->solver.ipopt[i].value);
    }
    salto_free(p->solver.ipopt);
    salto_free(p->phase_knots);
    salto_free(p->extra_t);
    salto_free(p->extra_ph);
    salto_model_destroy(p->model);
    salto_free(p->character);
    salto_free(p->path);
    salto_free(p);
}

// ---- queries ----

const char* salto_constraint_name(salto_constraint_type t) {
    if (t == SALTO_CON_SITE_HOLD) return "site_hold"; // not for files: not in the list
    if (t == SALTO_CON_BODY_HEADING) return "body_heading";
    if (t == SALTO_CON_BODY_LEVEL) return "body_level";
    if (t == SALTO_CON_COM_PARABOLA) return "com_parabola";
    if (t == SALTO_CON_COM_PARABOLA_VEL) return "com_parabola_velocity";
    return t < SALTO_CON_COUNT ? constraint_names[t] : "?";
}


const char* salto_contact_name(salto_contact_type t) {
    return t <= SALTO_CONTACT_GROUND ? contact_names[t] : "?";
}


int salto_problem_phase_at(const salto_problem_desc* p, double t) {
    if (!p || p->nphase < 1 || !(t >= 0.0) || !(t <= p->duration)) return -1;

    // phase i covers [start_i, start_i + duration_i); the last one also its end
    for (int i = p->nphase - 1; i > 0; i--) {
        if (t >= p->phases[i].start) return i;
    }
    return 0;
}


// intervals of phase i's slices
int salto_problem_phase_intervals(const salto_problem_desc* p, int i) {
    const double share = (p->nslice - 1) * p->phases[i].duration / p->duration;
    const int m = (int)lround(share);
    return m < 1 ? 1 : m;
}


int salto_problem_slices(const salto_problem_desc* p, double* times, int* phases) {
    SALTO_ASSERT(p && p->nslice >= 2 && p->nphase >= 1);
    int n = 0, e = 0; // e: the next extra slice
    for (int i = 0; i < p->nphase; i++) {
        const salto_phase_desc* ph = &p->phases[i];
        const int m = salto_problem_phase_intervals(p, i);
        const double end = i == p->nphase - 1 ? p->duration : p->phases[i + 1].start;
        for (int k = 0; k <= m; k++) {
            // the ends exact: the boundary is the same double in both phases
            const double t = k == 0 ? ph->start : k == m ? end : ph->start + ph->duration * k / m;
            for (; e < p->nextra && p->extra_ph[e] == i && p->extra_t[e] < t; e++, n++) {
                if (times) times[n] = p->extra_t[e];
                if (phases) phases[n] = i;
            }
            if (times) times[n] = t;
            if (phases) phases[n] = i;
            n++;
        }
    }
    return n;
}


int salto_problem_add_slices(salto_problem_desc* p, int n, const double* t, const int* ph) {
    const int n0 = salto_problem_slices(p, NULL, NULL);
    double* st = salto_malloc(sizeof(double) * (size_t)(n0 + 1));
    int* sp = salto_malloc(sizeof(int) * (size_t)(n0 + 1));
    double* et = salto_malloc(sizeof(double) * (size_t)(p->nextra + n + 1));
    int* ep = salto_malloc(sizeof(int) * (size_t)(p->nextra + n + 1));
    if (!st || !sp || !et || !ep) {
        salto_free(st), salto_free(sp), salto_free(et), salto_free(ep);
        return -1;
    }
    salto_problem_slices(p, st, sp);
    // merge the old extras with the new ones that qualify, in (phase, time) order
    int ne = 0, added = 0;
    for (int i = 0; i < p->nextra; i++) et[ne] = p->extra_t[i], ep[ne++] = p->extra_ph[i];
    for (int k = 0; k < n; k++) {
        if (ph[k] < 0 || ph[k] >= p->nphase || !isfinite(t[k])) continue;
        const salto_phase_desc* P = &p->phases[ph[k]];
        if (!(t[k] > P->start + 1e-9 && t[k] < P->start + P->duration - 1e-9)) continue;
        int near = 0;
        for (int j = 0; j < n0 && !near; j++) near = fabs(st[j] - t[k]) <= 1e-9;
        for (int j = 0; j < ne && !near; j++) near = fabs(et[j] - t[k]) <= 1e-9;
        if (near) continue;
        int j = ne++;
        for (; j > 0 && (ep[j - 1] > ph[k] || (ep[j - 1] == ph[k] && et[j - 1] > t[k])); j--) {
            et[j] = et[j - 1], ep[j] = ep[j - 1];
        }
        et[j] = t[k], ep[j] = ph[k];
        added++;
    }
    salto_free(st), salto_free(sp);
    salto_free(p->extra_t), salto_free(p->extra_ph);
    p->extra_t = et, p->extra_ph = ep, p->nextra = ne;
    return added;
}


void salto_contact_frame(const double N[3], int planar, double Tx[3], double Ty[3]) {
    if (planar) {
        // in the x-z plane: T_x = y x N (x for N = z), T_y = y
        const double y[3] = {0, 1, 0};
        salto_v3_cross(Tx, y, N);
        memcpy(Ty, y, sizeof y);
        return;
    }
    const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0};
    const double* e = fabs(N[0]) < 0.9 ? ex : ey;
    const double en = salto_v3_dot(e, N);
    for (int k = 0; k < 3; k++) Tx[k] = e[k] - en * N[k];
    const double tn = salto_v3_norm(Tx);
    for (int k = 0; k < 3; k++) Tx[k] /= tn;
    salto_v3_cross(Ty, N, Tx);
}


int salto_problem_junction_mult(const salto_problem_desc* p, int i) {
    if (p->phases[i].contact.impact) return 3;
    return p->junction_c2 ? 1 : 2;
}


// the number of interior knots the phase boundaries take
static int junction_knots(const salto_problem_desc* p) {
    int n = 0;
    for (int i = 1; i < p->nphase; i++) n += salto_problem_junction_mult(p, i);
    return n;
}


// the interior knots strictly inside phase i: given (phase_knots), or by largest remainders:
// phase i gets floor(F d_i / T) of the F free knots, and the F - sum floor(...) phases with the
// largest fractions one more each (ties to the earlier phase): phase i's rank among the
// fractions decides, so nothing needs storing for any number of phases
static int knot_count(const salto_problem_desc* p, const int* given, int i) {
    if (given) return given[i];
    const int F = p->ncp - 4 - junction_knots(p);
    SALTO_ASSERT(F >= 0);
    int floors = 0;
    for (int j = 0; j < p->nphase; j++) floors += (int)floor(F * p->phases[j].duration / p->duration);
    const double share = F * p->phases[i].duration / p->duration;
    const double frac = share - floor(share);
    int rank = 0;
    for (int j = 0; j < p->nphase; j++) {
        const double sj = F * p->phases[j].duration / p->duration;
        const double fj = sj - floor(sj);
        rank += fj > frac || (fj == frac && j < i);
    }
    return (int)floor(share) + (rank < F - floors);
}


void salto_problem_knot_counts(const salto_problem_desc* p, int* counts) {
    SALTO_ASSERT(p && p->nphase >= 1);
    for (int i = 0; i < p->nphase; i++) {
        counts[i] = p->nphase == 1 ? p->ncp - 4 : knot_count(p, p->phase_knots, i);
    }
}


int salto_problem_knots(const salto_problem_desc* p, double* knots) {
    return salto_problem_knots_from(p, p->phase_knots, knots);
}


int salto_problem_knots_from(const salto_problem_desc* p, const int* counts, double* knots) {
    SALTO_ASSERT(p && p->nphase >= 1);
    if (p->nphase == 1) return 0;
    const int K = p->ncp - 4;
    int n = 0;
    for (int i = 0; i < p->nphase; i++) {
        const salto_phase_desc* ph = &p->phases[i];
        if (i > 0) {
            const int mult = salto_problem_junction_mult(p, i);
            for (int r = 0; r < mult; r++) knots[n++] = ph->start;
        }
        const int got = knot_count(p, counts, i);
        for (int k = 1; k <= got; k++) knots[n++] = ph->start + ph->duration * k / (got + 1);
    }
    SALTO_ASSERT(n == K);
    return K;
}

// ---- reading: helpers ----

typedef struct reader {
    salto_problem_desc* p;   // being filled; its path owns the locations' file name
    salto_error* err;
    const salto_model* m;    // p->model, once loaded
    int joint_limits_line;   // line of a joint_limits constraint, 0 when there is none
    const char** phase_names; // borrowed from p->phases, for lookups          (nphase)
} reader;


// the node's location, with the file name owned by the description
static salto_src_loc at(const reader* R, const salto_cfg_node* n) {
    salto_src_loc l = {R->p->path, n->loc.line, n->loc.col};
    return l;
}


static salto_src_loc key_at(const reader* R, const salto_cfg_node* n) {
    salto_src_loc l = {R->p->path, n->key_loc.line, n->key_loc.col};
    return l;
}


// the file itself, for values that were not written (defaults)
static salto_src_loc file_loc(const reader* R) {
    salto_src_loc l = {R->p->path, 0, 0};
    return l;
}


static salto_status nomem(reader* R) {
    return SALTO_FAIL(R->err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory reading '%s'",
                      R->p->path ? R->p->path : "?");
}


static const char* const* model_names(char** names) {
    return (const char* const*)names;
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
static const char* article(const char* word) {
    return strchr("aeiou", word[0]) ? "an" : "a";
}


static int in_list(const char* s, const char* const* names) {
    for (int i = 0; names[i]; i++) {
        if (strcmp(s, names[i]) == 0) return 1;
    }
    return 0;
}


// n's index in a NULL-terminated list of names (salto_cfg_enum)
static salto_status read_enum(reader* R, const salto_cfg_node* n, const char* const* names,
                              const char* what, int* out) {
    return salto_cfg_enum(n, names, what, out, R->err);
}


// keys of a map whose allowed keys depend on its type: a key of another type is "not
// allowed" here, any other key is unknown (did-you-mean over this type's keys)
static salto_status check_typed_keys(reader* R, const salto_cfg_node* map,
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
static salto_status check_lower(reader* R, const salto_cfg_node* n, double x, double lo,
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
static salto_status read_num_opt(reader* R, const salto_cfg_node* map, const char* key,
                                 double lo, int strict, double* out) {
    const salto_cfg_node* n = salto_cfg_child(map, key);
    if (!n) return SALTO_OK;
    double x = 0.0;
    salto_status s = salto_cfg_number(n, &x, R->err);
    if (s) return s;
    s = check_lower(R, n, x, lo, strict);
    if (s) return s;
    *out = x;
    return SALTO_OK;
}


// optional integer under key in [lo, hi], kept in *out when absent
static salto_status read_int_opt(reader* R, const salto_cfg_node* map, const char* key, int lo,
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
static salto_status read_unit(reader* R, const salto_cfg_node* n, double out[3]) {
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
static salto_status read_string(reader* R, const salto_cfg_node* n, char** out) {
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


// a path written in the problem file: absolute as it is, relative to the problem's folder
static salto_status read_path(reader* R, const salto_cfg_node* n, char** out) {
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
    if (!p) return nomem(R);
    memcpy(p, R->p->path, ndir);
    memcpy(p + ndir, rel, nrel + 1);
    *out = p;
    return SALTO_OK;
}


static int is_identifier(const char* s) {
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
static salto_status lookup(reader* R, const char* name, const char* const* names, int count,
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


static salto_status read_site(reader* R, const salto_cfg_node* n, int* out) {
    const char* name = NULL;
    salto_status s = salto_cfg_string(n, &name, R->err);
    if (s) return s;
    return lookup(R, name, model_names(R->m->site_name), R->m->nsite, "site", at(R, n), out);
}


static salto_status read_phase_ref(reader* R, const salto_cfg_node* n, int* out) {
    const char* name = NULL;
    salto_status s = salto_cfg_string(n, &name, R->err);
    if (s) return s;
    return lookup(R, name, R->phase_names, R->p->nphase, "phase", at(R, n), out);
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
static salto_status read_time(reader* R, const salto_cfg_node* n, double* out) {
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
        if (k == 0 || !is_identifier(ident)) return bad_time(R, n);
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

// ---- phases ----

static salto_status read_contact(reader* R, salto_phase_desc* ph, const salto_cfg_node* n) {
    salto_contact_desc* c = &ph->contact;
    c->type = SALTO_CONTACT_NONE;
    c->loc = at(R, n);

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
    s = read_enum(R, tn, contact_names, "contact type", &type);
    if (s) return s;
    c->type = (salto_contact_type)type;

    static const char* const all[] = {"type",     "sites",     "point",     "axis",
                                      "torque_max", "normal",  "friction",  "force_max",
                                      "twist_max", "support",  "height",    "hold",
                                      "effective_root", "impact", NULL};
    static const char* const keys[3][12] = {
        {"type", NULL},
        {"type", "sites", "point", "axis", "torque_max", "hold", "effective_root", NULL},
        {"type", "sites", "normal", "friction", "force_max", "twist_max", "support", "height",
         "hold", "effective_root", "impact", NULL},
    };
    char what[64];
    snprintf(what, sizeof what, "contact type '%s'", contact_names[type]);
    s = check_typed_keys(R, n, keys[type], all, what);
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
    // on the ground by default: without it planted feet strayed 4-7 mm between the knots; on
    // a bar the hold alone keeps hands within 0.6 mm, and the exact root took the dismount
    // from 67 to 187 iterations and to a worse optimum (docs/design.md)
    c->effective_root = c->type == SALTO_CONTACT_GROUND;
    if (c->type == SALTO_CONTACT_NONE) return SALTO_OK;
    const salto_cfg_node* hold = salto_cfg_child(n, "hold");
    if (hold && (s = salto_cfg_bool(hold, &c->hold, R->err))) return s;
    const salto_cfg_node* ern = salto_cfg_child(n, "effective_root");
    if (ern && (s = salto_cfg_bool(ern, &c->effective_root, R->err))) return s;
    const salto_cfg_node* imn = salto_cfg_child(n, "impact");
    if (imn && (s = salto_cfg_bool(imn, &c->impact, R->err))) return s;
    if (c->impact && !c->hold) {
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
        s = read_site(R, sn->child[i], &c->site[i]);
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
    for (int i = 1; i < c->nsite && c->impact; i++) {
        if (R->m->site_body[c->site[i]] != R->m->site_body[c->site[0]]) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, imn),
                              "an impact needs its contact's sites on one body ('%s' and '%s' "
                              "are not): how an impulse shares itself among bodies is not "
                              "modelled",
                              R->m->site_name[c->site[0]], R->m->site_name[c->site[i]]);
        }
    }

    if (c->type == SALTO_CONTACT_BAR) {
        const salto_cfg_node* pn = salto_cfg_require(n, "point", R->err);
        if (!pn) return R->err->status;
        s = salto_cfg_vec(pn, c->bar_point, 3, R->err);
        if (s) return s;
        const salto_cfg_node* an = salto_cfg_require(n, "axis", R->err);
        if (!an) return R->err->status;
        s = read_unit(R, an, c->bar_axis);
        if (s) return s;
        // a planar character moves in the x-z plane: its bars cross it along y
        if (salto_model_is_planar(R->m) && (fabs(c->bar_axis[0]) > 1e-12 || fabs(c->bar_axis[2]) > 1e-12)) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, an),
                              "a planar character's bar must lie along y (axis [0, 1, 0]): it "
                              "moves in the x-z plane");
        }
        return read_num_opt(R, n, "torque_max", 0.0, 0, &c->torque_max);
    }

    // ground
    const salto_cfg_node* nn = salto_cfg_child(n, "normal");
    if (nn && (s = read_unit(R, nn, c->normal))) return s;
    if (nn && salto_model_is_planar(R->m) && fabs(c->normal[1]) > 1e-12) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, nn),
                          "a planar character's ground normal must lie in the x-z plane (no y "
                          "component)");
    }
    s = read_num_opt(R, n, "friction", 0.0, 1, &c->friction);
    if (s) return s;
    s = read_num_opt(R, n, "force_max", 0.0, 1, &c->force_max);
    if (s) return s;
    s = read_num_opt(R, n, "twist_max", 0.0, 0, &c->twist_max);
    if (s) return s;
    const salto_cfg_node* htn = salto_cfg_child(n, "height");
    if (htn && (s = salto_cfg_number(htn, &c->height, R->err))) return s;
    const salto_cfg_node* hn = salto_cfg_child(n, "support");
    if (hn) {
        s = salto_cfg_vec(hn, c->support_half, 2, R->err);
        if (s) return s;
        for (int k = 0; k < 2; k++) {
            s = check_lower(R, hn->child[k], c->support_half[k], 0.0, 0);
            if (s) return s;
        }
    }
    return SALTO_OK;
}


static salto_status read_phases(reader* R, const salto_cfg_node* top) {
    salto_problem_desc* p = R->p;
    const salto_cfg_node* list = salto_cfg_require(top, "phases", R->err);
    if (!list) return R->err->status;
    salto_status s = salto_cfg_expect(list, SALTO_CFG_LIST, R->err);
    if (s) return s;
    if (list->n == 0) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, list), "'phases' must not be empty");
    }
    p->phases = salto_calloc((size_t)list->n, sizeof *p->phases);
    if (!p->phases) return nomem(R);
    p->nphase = list->n;
    R->phase_names = salto_calloc((size_t)list->n, sizeof *R->phase_names);
    if (!R->phase_names) return nomem(R);

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
        s = read_string(R, nn, &ph->name);
        if (s) return s;
        if (!is_identifier(ph->name)) {
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
        s = salto_cfg_number(dn, &ph->duration, R->err);
        if (s) return s;
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
            if (ph->contact.impact && i == 0) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, imn),
                                  "the first phase cannot start with an impact: nothing comes "
                                  "before it to land from");
            }
        } else {
            ph->contact.type = SALTO_CONTACT_NONE;
            ph->contact.loc = ph->loc;
        }

        // an impact after a ballistic flight: that flight's velocity at its end is the
        // parabola's derived one, which the impact's rows (reading the splines) do not see
        if (i > 0 && ph->contact.impact && p->phases[i - 1].ballistic) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, salto_cfg_child(cn, "impact")),
                              "an impact after a ballistic flight ('%s') is not supported: "
                              "turn one of them off",
                              p->phases[i - 1].name);
        }

        // ballistic: flight phases only, off by default (docs/problem-format.md says why)
        ph->ballistic = 0;
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
                          "%s %s constraint needs 'values', 'dofs' or 'dofs_deg'", article(what),
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
                              "%s %s constraint must name at least one DOF", article(what), what);
        }
    }
    c->dof = salto_calloc((size_t)count, sizeof *c->dof);
    c->value = salto_calloc((size_t)count, sizeof *c->value);
    if (!c->dof || !c->value) return nomem(R);

    if (vals) {
        for (int k = 0; k < m->nv; k++) {
            s = set_dof_value(R, icon, k, k, 0, vals->child[k]);
            if (s) return s;
            c->ndof = k + 1;
        }
        return SALTO_OK;
    }
    for (int pass = 0; pass < 2; pass++) {
        const salto_cfg_node* map = pass == 0 ? dofs : degs;
        for (int i = 0; map && i < map->n; i++) {
            const salto_cfg_node* e = map->child[i];
            int dof = -1;
            s = lookup(R, e->key, model_names(m->link_name), m->nv, "DOF", key_at(R, e), &dof);
            if (s) return s;
            if (pass == 1 && m->link_type[dof] != SALTO_AXIS_REVOLUTE) {
                return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, e),
                                  "'dofs_deg' is only for revolute DOFs ('%s' is prismatic; give "
                                  "it under 'dofs' in %s)",
                                  e->key, c->type == SALTO_CON_POSE ? "m" : "m/s");
            }
            for (int k = 0; k < c->ndof; k++) {
                if (c->dof[k] == dof) {
                    return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, e),
                                      "DOF '%s' is given twice in this %s constraint", e->key,
                                      what);
                }
            }
            s = set_dof_value(R, icon, c->ndof, dof, pass == 1, e);
            if (s) return s;
            c->ndof++;
        }
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
        if (tn && pn) {
            const salto_cfg_node* later = tn->index > pn->index ? tn : pn;
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, key_at(R, later),
                              "give either 'time' or 'phase', not both");
        }
        if (!tn && !pn) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                              "%s %s constraint needs 'time' or 'phase'", article(what), what);
        }
        break;
    case SALTO_CON_SITE_STILL:
    case SALTO_CON_BODY_STILL:
        if (!pn) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                              "%s %s constraint needs 'phase' (the %s is still through a whole "
                              "phase)",
                              article(what), what,
                              c->type == SALTO_CON_SITE_STILL ? "site" : "site's body");
        }
        break;
    case SALTO_CON_POSE:
    case SALTO_CON_VELOCITY:
    case SALTO_CON_COM_POSITION:
    case SALTO_CON_COM_VELOCITY:
        if (!tn) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, n),
                              "missing required key 'time' in %s %s constraint", article(what),
                              what);
        }
        break;
    default:
        return SALTO_OK;
    }
    if (tn) {
        salto_status s = read_time(R, tn, &c->time);
        if (s) return s;
        c->has_time = 1;
    }
    if (pn) return read_phase_ref(R, pn, &c->phase);
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
    s = read_enum(R, tn, constraint_names, "constraint type", &type);
    if (s) return s;
    c->type = (salto_constraint_type)type;

    static const char* const all[] = {"type",   "site",  "point",    "direction", "normal",
                                      "time",   "phase", "values",   "dofs",      "dofs_deg",
                                      "value",  "height", NULL};
    static const char* const keys[SALTO_CON_COUNT][7] = {
        {"type", "site", "point", "time", "phase", NULL},
        {"type", "site", "point", "direction", "time", "phase", NULL},
        {"type", "site", "point", "normal", "time", "phase", NULL},
        {"type", "site", "phase", NULL},
        {"type", "time", "values", "dofs", "dofs_deg", NULL},
        {"type", "time", "values", "dofs", "dofs_deg", NULL},
        {"type", "time", "value", NULL},
        {"type", "time", "value", NULL},
        {"type", NULL},
        {"type", "height", NULL},
        {"type", "site", "phase", NULL},
        {"type", NULL}, // site_hold: added by the loader only
    };
    char what[64];
    snprintf(what, sizeof what, "%s %s constraint", article(constraint_names[type]),
             constraint_names[type]);
    s = check_typed_keys(R, n, keys[type], all, what);
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
        s = read_site(R, sn, &c->site);
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
        return read_unit(R, dn, c->dir);
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

static salto_status read_constraints(reader* R, const salto_cfg_node* top) {
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
    if (!p->cons) return nomem(R);
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
        if (c->type != SALTO_CONTACT_NONE && c->hold) n += 4 * c->nsite;
        if (ballistic_phase(p, i)) n += 2; // the parabola, and its velocity at the ends
    }
    return n;
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


static salto_status add_holds(reader* R) {
    salto_problem_desc* p = R->p;
    const salto_model* m = R->m;
    salto_data* zero = NULL; // the character in its zero pose, for body_level
    if (!p->cons && hold_count(p) > 0) {
        p->cons = salto_calloc((size_t)hold_count(p), sizeof *p->cons);
        if (!p->cons) return nomem(R);
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
                    for (int a = 0; a < 3; a++) c->point[a] = ct->height * ct->normal[a];
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
                    if (!(zero = salto_data_create(m))) return nomem(R);
                    salto_fk(m, zero, SALTO_FK_POS);
                }
                salto_m3t_mul_v3(c->point, zero->R + 9 * m->site_link[site], ct->normal);
            }
        }
    }
    salto_data_destroy(zero);
    return SALTO_OK;
}

// ---- objective, initial guess, solver, output ----

static salto_status read_objectives(reader* R, const salto_cfg_node* top) {
    salto_problem_desc* p = R->p;
    const salto_cfg_node* list = salto_cfg_child(top, "objective");
    if (!list) {
        // default: acceleration, weight 1
        p->objs = salto_calloc(1, sizeof *p->objs);
        if (!p->objs) return nomem(R);
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
    if (!p->objs) return nomem(R);
    p->nobj = list->n;

    static const char* const all[] = {"type", "weight", "motion", NULL};
    static const char* const keys[2][4] = {{"type", "weight", NULL},
                                           {"type", "weight", "motion", NULL}};
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
        s = read_enum(R, tn, objective_names, "objective type", &type);
        if (s) return s;
        o->type = (salto_objective_type)type;
        char what[64];
        snprintf(what, sizeof what, "%s %s objective", article(objective_names[type]),
                 objective_names[type]);
        s = check_typed_keys(R, n, keys[type], all, what);
        if (s) return s;
        s = read_num_opt(R, n, "weight", 0.0, 0, &o->weight);
        if (s) return s;
        if (o->type == SALTO_OBJ_REFERENCE) {
            const salto_cfg_node* mn = salto_cfg_require(n, "motion", R->err);
            if (!mn) return R->err->status;
            s = read_path(R, mn, &o->motion);
            if (s) return s;
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
    s = read_phase_ref(R, pn, &g->rot_phase);
    if (s) return s;

    // a revolute root DOF
    const salto_cfg_node* dn = salto_cfg_require(n, "dof", R->err);
    if (!dn) return R->err->status;
    const char* name = NULL;
    s = salto_cfg_string(dn, &name, R->err);
    if (s) return s;
    const salto_model* m = R->m;
    s = lookup(R, name, model_names(m->link_name), m->nv, "DOF", at(R, dn), &g->rot_dof);
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
    return SALTO_OK;
}


static salto_status read_guess(reader* R, const salto_cfg_node* top) {
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
    if (tn && (s = read_enum(R, tn, guess_names, "initial guess type", &type))) return s;
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
        return read_path(R, mn, &g->motion);
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


static salto_status read_solver(reader* R, const salto_cfg_node* top) {
    salto_solver_desc* sv = &R->p->solver;
    sv->tolerance = 1e-6;
    sv->max_iterations = 1000;
    sv->hessian_exact = 1;
    sv->max_cpu_time = 600.0;
    sv->print_level = 0;
    sv->derivatives = 0;
    sv->refine = 0;
    sv->refine_fraction = 0.5;
    sv->refine_max_iterations = 0;
    sv->flight_rows = SALTO_FLIGHT_FORCE;
    const salto_cfg_node* n = salto_cfg_child(top, "solver");
    if (!n) return SALTO_OK;
    static const char* const keys[] = {"tolerance",   "max_iterations", "hessian", "derivatives",
                                       "max_cpu_time", "print_level",   "refine",  "refine_fraction",
                                       "flight_rows",  "refine_max_iterations", "ipopt", NULL};
    salto_status s = salto_cfg_check_keys(n, keys, R->err);
    if (s) return s;
    s = read_num_opt(R, n, "tolerance", 0.0, 1, &sv->tolerance);
    if (s) return s;
    s = read_int_opt(R, n, "max_iterations", 0, 2147483647, &sv->max_iterations);
    if (s) return s;
    const salto_cfg_node* hn = salto_cfg_child(n, "hessian");
    if (hn && (s = read_enum(R, hn, hessian_names, "hessian", &sv->hessian_exact))) return s;
    const salto_cfg_node* dn = salto_cfg_child(n, "derivatives");
    if (dn && (s = read_enum(R, dn, derivative_names, "derivatives", &sv->derivatives))) return s;
    s = read_num_opt(R, n, "max_cpu_time", 0.0, 1, &sv->max_cpu_time);
    if (s) return s;
    s = read_int_opt(R, n, "print_level", 0, 12, &sv->print_level);
    if (s) return s;
    s = read_int_opt(R, n, "refine", 0, 100, &sv->refine);
    if (s) return s;
    s = read_num_opt(R, n, "refine_fraction", 0.0, 1, &sv->refine_fraction);
    if (s) return s;
    s = read_int_opt(R, n, "refine_max_iterations", 0, 2147483647, &sv->refine_max_iterations);
    if (s) return s;
    const salto_cfg_node* fn = salto_cfg_child(n, "flight_rows");
    if (fn && (s = read_enum(R, fn, flight_row_names, "flight_rows", &sv->flight_rows))) return s;
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


static salto_status read_output(reader* R, const salto_cfg_node* top) {
    salto_output_desc* o = &R->p->output;
    o->frame_rate = 60.0;
    o->filmstrip_frames = 8;
    const salto_cfg_node* n = salto_cfg_child(top, "output");
    if (n) {
        static const char* const keys[] = {"frame_rate", "filmstrip_frames", NULL};
        salto_status s = salto_cfg_check_keys(n, keys, R->err);
        if (s) return s;
        s = read_num_opt(R, n, "frame_rate", 0.0, 1, &o->frame_rate);
        if (s) return s;
        s = read_int_opt(R, n, "filmstrip_frames", 1, 64, &o->filmstrip_frames);
        if (s) return s;
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
static salto_status read_validation(reader* R, const salto_cfg_node* top) {
    salto_validation_desc* v = &R->p->validation;
    v->density = 0, v->integrator = -1, v->step = 0.0;
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) v->threshold[k] = -1.0;
    const salto_cfg_node* n = salto_cfg_child(top, "validation");
    if (!n) return SALTO_OK;
    v->loc = at(R, n);
    static const char* const keys[] = {"density", "integrator", "step", "thresholds", NULL};
    salto_status s = salto_cfg_check_keys(n, keys, R->err);
    if (s) return s;
    if ((s = read_int_opt(R, n, "density", 1, 10000, &v->density))) return s;
    const char* integrators[SALTO_INTEGRATOR_COUNT + 1];
    for (int k = 0; k < SALTO_INTEGRATOR_COUNT; k++) integrators[k] = salto_integrator_name((salto_integrator)k);
    integrators[SALTO_INTEGRATOR_COUNT] = NULL;
    const salto_cfg_node* in = salto_cfg_child(n, "integrator");
    if (in && (s = read_enum(R, in, integrators, "integrator", &v->integrator))) return s;
    if ((s = read_num_opt(R, n, "step", 0.0, 1, &v->step))) return s;
    const salto_cfg_node* tn = salto_cfg_child(n, "thresholds");
    if (!tn) return SALTO_OK;
    const char* names[SALTO_CHECK_COUNT + 1];
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) names[k] = salto_check_name((salto_check_kind)k);
    names[SALTO_CHECK_COUNT] = NULL;
    if ((s = salto_cfg_expect(tn, SALTO_CFG_MAP, R->err))) return s;
    if ((s = salto_cfg_check_keys(tn, names, R->err))) return s;
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) {
        if ((s = read_num_opt(R, tn, names[k], 0.0, 0, &v->threshold[k]))) return s;
    }
    return SALTO_OK;
}


static salto_status read_spline(reader* R, const salto_cfg_node* top) {
    salto_problem_desc* p = R->p;
    p->ncp = 20;
    const salto_cfg_node* n = salto_cfg_child(top, "spline");
    int nslice = 0;
    if (n) {
        static const char* const keys[] = {"control_points", "slices", "junctions", "phase_knots",
                                           NULL};
        salto_status s = salto_cfg_check_keys(n, keys, R->err);
        if (s) return s;
        s = read_int_opt(R, n, "control_points", 4, 2147483647, &p->ncp);
        if (s) return s;
        s = read_int_opt(R, n, "slices", 2, 2147483647, &nslice);
        if (s) return s;
        const salto_cfg_node* jn = salto_cfg_child(n, "junctions");
        if (jn) {
            static const char* const names[] = {"C1", "C2", NULL};
            int k = 0;
            s = salto_cfg_enum(jn, names, "junction continuity", &k, R->err);
            if (s) return s;
            p->junction_c2 = k;
        }
    }
    p->nslice = nslice ? nslice : p->ncp;
    // sizes the NLP can index with ints and hold in memory: a million control points in all,
    // a hundred thousand slices
    const salto_cfg_node* cpn = n ? salto_cfg_child(n, "control_points") : NULL;
    const salto_cfg_node* sln = n ? salto_cfg_child(n, "slices") : NULL;
    if ((long)p->ncp * R->m->nv > 1000000L) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, cpn ? at(R, cpn) : file_loc(R),
                          "%d control points per DOF for %d DOFs are too many (at most 1000000 "
                          "in all)",
                          p->ncp, R->m->nv);
    }
    if (p->nslice > 100000) {
        const salto_cfg_node* w = sln ? sln : cpn;
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, w ? at(R, w) : file_loc(R),
                          "%d slices are too many (at most 100000)", p->nslice);
    }
    // every phase boundary takes one or two knots
    const int need = 4 + junction_knots(p);
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
        if (!p->phase_knots) return nomem(R);
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
    return SALTO_OK;
}

// ---- the character ----

static salto_status read_model(reader* R, const salto_cfg_node* top) {
    salto_problem_desc* p = R->p;
    const salto_cfg_node* cn = salto_cfg_require(top, "character", R->err);
    if (!cn) return R->err->status;
    salto_status s = read_path(R, cn, &p->character);
    if (s) return s;

    // the character's own errors point into the character file and pass through unchanged;
    // a file that cannot be read is reported at 'character:' in the problem file
    salto_error cerr = {0};
    p->model = salto_model_load(p->character, &cerr);
    if (!p->model) {
        if (cerr.status == SALTO_ERR_IO && !cerr.where.file) {
            return SALTO_FAIL(R->err, SALTO_ERR_IO, at(R, cn), "cannot load the character: %s",
                              cerr.msg);
        }
        if (R->err && R->err->status == SALTO_OK) {
            *R->err = cerr;
            if (R->err->where.file) R->err->where.file = R->err->file_buf;
        }
        return cerr.status;
    }
    R->m = p->model;

    const salto_cfg_node* gn = salto_cfg_child(top, "gravity");
    if (gn) return salto_cfg_vec(gn, p->model->gravity, 3, R->err);
    return SALTO_OK;
}


static salto_status read_problem(reader* R, const salto_cfg* cfg) {
    const salto_cfg_node* top = salto_cfg_root(cfg);
    static const char* const keys[] = {"character", "gravity",       "physics", "phases",
                                       "spline",    "constraints",   "objective",
                                       "initial_guess", "solver",    "output",  "validation",
                                       NULL};
    salto_status s = salto_cfg_check_keys(top, keys, R->err);
    if (s) return s;
    R->p->physics = 1;
    const salto_cfg_node* phys = salto_cfg_child(top, "physics");
    if (phys && (s = salto_cfg_bool(phys, &R->p->physics, R->err))) return s;
    s = read_model(R, top);
    if (s) return s;
    s = read_phases(R, top);
    if (s) return s;
    s = read_spline(R, top);
    if (s) return s;
    s = read_constraints(R, top);
    if (s) return s;
    s = add_holds(R);
    if (s) return s;
    s = read_objectives(R, top);
    if (s) return s;
    s = read_guess(R, top);
    if (s) return s;
    s = read_solver(R, top);
    if (s) return s;
    s = read_validation(R, top);
    if (s) return s;
    return read_output(R, top);
}


salto_problem_desc* salto_problem_load(const char* path, salto_error* err) {
    return salto_problem_load_set(path, 0, NULL, err);
}


salto_problem_desc* salto_problem_load_set(const char* path, int nset, const char* const* set,
                                           salto_error* err) {
    salto_error local = {0};
    if (!err) err = &local;
    salto_cfg* cfg = salto_cfg_load(path, err);
    if (!cfg) return NULL;
    for (int i = 0; i < nset; i++) {
        const char* eq = strchr(set[i], '=');
        char key[512];
        const size_t len = eq ? (size_t)(eq - set[i]) : 0;
        if (!eq || len == 0 || len >= sizeof key) {
            SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(),
                       "'%s': an override is PATH=VALUE, such as phases.flight.duration=0.7",
                       set[i]);
            salto_cfg_destroy(cfg);
            return NULL;
        }
        memcpy(key, set[i], len);
        key[len] = '\0';
        if (salto_cfg_set(cfg, key, eq + 1, err) != SALTO_OK) {
            salto_cfg_destroy(cfg);
            return NULL;
        }
    }
    reader R = {NULL, err, NULL, 0, NULL};
    R.p = salto_calloc(1, sizeof *R.p);
    salto_status s = SALTO_OK;
    int copied = R.p != NULL;
    if (R.p) R.p->path = salto_strdup(path);
    if (R.p) {
        // the overrides, kept so that what was solved can be said (motion.json's "set")
        copied = salto_strs_dup(nset, set, &R.p->set) == 0;
        if (copied) R.p->nset = nset > 0 ? nset : 0;
    }
    if (!R.p || !R.p->path || !copied) {
        s = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory reading '%s'",
                       path);
    } else {
        s = read_problem(&R, cfg);
    }
    salto_cfg_destroy(cfg);
    salto_free(R.phase_names);
    if (s) {
        salto_problem_destroy(R.p);
        return NULL;
    }
    return R.p;
}
