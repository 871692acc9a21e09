// sweep.c: sweep files read into jobs, every job's problem checked, warm-start neighbours
#include "salto/sweep.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "salto/config.h"
#include "salto/nlp.h"
#include "salto/problem.h"

static const char* const measure_names[SALTO_MEASURE_COUNT] = {
    "objective",       "iterations",      "solve_time",       "worst_residual",
    "peak_com_height", "flight_rotation", "peak_joint_torque"};


const char* salto_batch_measure_name(salto_batch_measure k) {
    return (int)k >= 0 && k < SALTO_MEASURE_COUNT ? measure_names[k] : "?";
}


int salto_batch_measure_parse(const char* name) {
    for (int k = 0; name && k < SALTO_MEASURE_COUNT; k++) {
        if (strcmp(measure_names[k], name) == 0) return k;
    }
    return -1;
}


void salto_job_name(int j, char* buf, size_t n) {
    snprintf(buf, n, "job-%03d", j);
}


typedef struct reader {
    salto_sweep* s;
    salto_error* err;
} reader;


static salto_status nomem(reader* R) {
    return SALTO_FAIL(R->err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
}


// a copy of a location whose file name is the sweep's own (the tree's goes with the tree)
static salto_src_loc own_loc(const salto_sweep* s, salto_src_loc l) {
    l.file = s->path;
    return l;
}


// "PATH=VALUE" into a new string
static char* make_set(const char* path, const char* value) {
    const size_t n = strlen(path) + strlen(value) + 2;
    char* out = salto_malloc(n);
    if (out) snprintf(out, n, "%s=%s", path, value);
    return out;
}


static salto_status alloc_values(reader* R, salto_sweep_param* P, int n) {
    P->nvalue = n;
    P->value = salto_calloc((size_t)n, sizeof(double));
    P->set = salto_calloc((size_t)n, sizeof(char*));
    P->loc = salto_calloc((size_t)n, sizeof(salto_src_loc));
    return P->value && P->set && P->loc ? SALTO_OK : nomem(R);
}


// a list of numbers, each kept as written
static salto_status read_list(reader* R, const salto_cfg_node* n, salto_sweep_param* P) {
    if (n->n == 0) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, n->loc, "parameter '%s' has no values",
                          P->path);
    }
    if (alloc_values(R, P, n->n)) return R->err->status;
    for (int k = 0; k < n->n; k++) {
        const salto_cfg_node* v = n->child[k];
        if (salto_cfg_number(v, &P->value[k], R->err)) return R->err->status;
        P->loc[k] = own_loc(R->s, v->loc);
        if (!(P->set[k] = make_set(P->path, v->text))) return nomem(R);
    }
    return SALTO_OK;
}


// {from, to, count} or {from, to, step}: evenly spaced, both ends included
static salto_status read_range(reader* R, const salto_cfg_node* n, salto_sweep_param* P) {
    static const char* const keys[] = {"from", "to", "count", "step", NULL};
    if (salto_cfg_check_keys(n, keys, R->err)) return R->err->status;
    const salto_cfg_node* from = salto_cfg_require(n, "from", R->err);
    const salto_cfg_node* to = from ? salto_cfg_require(n, "to", R->err) : NULL;
    if (!to) return R->err->status;
    double a = 0.0, b = 0.0;
    if (salto_cfg_number(from, &a, R->err) || salto_cfg_number(to, &b, R->err)) {
        return R->err->status;
    }
    const salto_cfg_node* count = salto_cfg_child(n, "count");
    const salto_cfg_node* step = salto_cfg_child(n, "step");
    if (!count == !step) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, n->loc,
                          "a range needs exactly one of 'count' and 'step'");
    }
    int m = 0;
    if (count) {
        if (salto_cfg_int(count, &m, R->err)) return R->err->status;
        if (m < 1 || m > SALTO_SWEEP_MAX_JOBS) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, count->loc,
                              "'count' must be from 1 to %d, not %d", SALTO_SWEEP_MAX_JOBS, m);
        }
        if (m == 1 && a != b) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, count->loc,
                              "a range from %g to %g needs a 'count' of at least 2", a, b);
        }
    } else {
        double h = 0.0;
        if (salto_cfg_number(step, &h, R->err)) return R->err->status;
        // (b - a) / h steps, allowing for the rounding of decimal steps such as 0.1
        const double q = h != 0.0 ? (b - a) / h : -1.0;
        if (!(q >= -1e-9) || !(q < SALTO_SWEEP_MAX_JOBS)) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, step->loc,
                              "a 'step' of %g does not lead from %g to %g in at most %d values",
                              h, a, b, SALTO_SWEEP_MAX_JOBS);
        }
        m = (int)floor(q + 1e-9) + 1;
        b = a + (m - 1) * h;
    }
    if (alloc_values(R, P, m)) return R->err->status;
    for (int k = 0; k < m; k++) {
        // the ends exactly as written, the rest evenly between them
        const double v = k == 0 ? a : k == m - 1 ? b : a + (b - a) * k / (m - 1);
        char text[64];
        snprintf(text, sizeof text, "%.12g", v);
        P->value[k] = v;
        P->loc[k] = own_loc(R->s, n->loc);
        if (!(P->set[k] = make_set(P->path, text))) return nomem(R);
    }
    return SALTO_OK;
}


static salto_status read_params(reader* R, const salto_cfg_node* n) {
    salto_sweep* s = R->s;
    if (salto_cfg_expect(n, SALTO_CFG_MAP, R->err)) return R->err->status;
    if (n->n == 0) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, n->loc, "'parameters' names no parameter");
    }
    if (n->n > SALTO_SWEEP_MAX_PARAMS) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, n->child[SALTO_SWEEP_MAX_PARAMS]->key_loc,
                          "more than %d parameters", SALTO_SWEEP_MAX_PARAMS);
    }
    s->params = salto_calloc((size_t)n->n, sizeof(salto_sweep_param));
    if (!s->params) return nomem(R);
    for (int k = 0; k < n->n; k++) {
        const salto_cfg_node* v = n->child[k];
        salto_sweep_param* P = &s->params[k];
        s->nparam = k + 1;
        P->key_loc = own_loc(s, v->key_loc);
        if (!(P->path = salto_strdup(v->key))) return nomem(R);
        if (!v->key[0] || strchr(v->key, '=') || v->key[0] == '.' || strstr(v->key, "..") ||
            v->key[strlen(v->key) - 1] == '.') {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, v->key_loc,
                              "'%s' is not a dotted path into the problem (such as "
                              "phases.flight.duration)",
                              v->key);
        }
        salto_status st = v->kind == SALTO_CFG_LIST  ? read_list(R, v, P)
                          : v->kind == SALTO_CFG_MAP ? read_range(R, v, P)
                                                     : SALTO_ERR_INVALID;
        if (st == SALTO_ERR_INVALID && v->kind == SALTO_CFG_SCALAR) {
            char what[160];
            salto_cfg_describe(v, what, sizeof what);
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, v->loc,
                              "expected a list of values or a range {from, to, count} for '%s', "
                              "found %s",
                              v->key, what);
        }
        if (st) return st;
    }
    return SALTO_OK;
}


// the jobs: a grid (the last parameter fastest) or the lists zipped
static salto_status make_jobs(reader* R, const salto_cfg_node* params) {
    salto_sweep* s = R->s;
    if (s->combine == SALTO_SWEEP_ZIP) {
        for (int k = 1; k < s->nparam; k++) {
            if (s->params[k].nvalue != s->params[0].nvalue) {
                salto_fail(R->err, SALTO_ERR_INVALID, params->child[k]->loc, __func__, __LINE__,
                           "zipped parameters need as many values each: '%s' has %d, '%s' %d",
                           s->params[k].path, s->params[k].nvalue, s->params[0].path,
                           s->params[0].nvalue);
                salto_error_note(R->err, "'%s' is at line %d", s->params[0].path,
                                 s->params[0].key_loc.line);
                return R->err->status;
            }
        }
        s->njob = s->params[0].nvalue;
    } else {
        double n = 1.0;
        for (int k = 0; k < s->nparam; k++) n *= s->params[k].nvalue;
        if (n > SALTO_SWEEP_MAX_JOBS) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, params->loc,
                              "the grid has %.0f jobs, more than %d", n, SALTO_SWEEP_MAX_JOBS);
        }
        s->njob = (int)n;
    }
    s->job_value = salto_calloc((size_t)s->njob * (size_t)s->nparam, sizeof(int));
    if (!s->job_value) return nomem(R);
    for (int j = 0; j < s->njob; j++) {
        int rest = j;
        for (int k = s->nparam - 1; k >= 0; k--) {
            int* v = &s->job_value[j * s->nparam + k];
            if (s->combine == SALTO_SWEEP_ZIP) {
                *v = j;
            } else {
                *v = rest % s->params[k].nvalue;
                rest /= s->params[k].nvalue;
            }
        }
    }
    return SALTO_OK;
}


static salto_status read_sweep(reader* R, const salto_cfg* cfg) {
    static const char* const keys[] = {"problem", "parameters", "combine", "warm_start",
                                       "validate", "timeout", "plot", NULL};
    static const char* const combines[] = {"grid", "zip", NULL};
    salto_sweep* s = R->s;
    const salto_cfg_node* root = salto_cfg_root(cfg);
    if (salto_cfg_expect(root, SALTO_CFG_MAP, R->err)) return R->err->status;
    if (salto_cfg_check_keys(root, keys, R->err)) return R->err->status;

    // the base problem, relative to the sweep file's folder
    const salto_cfg_node* n = salto_cfg_require(root, "problem", R->err);
    const char* rel = NULL;
    if (!n || salto_cfg_string(n, &rel, R->err)) return R->err->status;
    const char* slash = strrchr(s->path, '/');
    const size_t ndir = rel[0] == '/' || !slash ? 0 : (size_t)(slash - s->path) + 1;
    s->problem = salto_malloc(ndir + strlen(rel) + 1);
    if (!s->problem) return nomem(R);
    memcpy(s->problem, s->path, ndir);
    strcpy(s->problem + ndir, rel);
    s->problem_loc = own_loc(s, n->loc);

    if ((n = salto_cfg_child(root, "combine"))) {
        int c = 0;
        if (salto_cfg_enum(n, combines, "combination", &c, R->err)) return R->err->status;
        s->combine = (salto_sweep_combine)c;
    }
    if ((n = salto_cfg_child(root, "warm_start")) && salto_cfg_bool(n, &s->warm_start, R->err)) {
        return R->err->status;
    }
    if ((n = salto_cfg_child(root, "validate")) && salto_cfg_bool(n, &s->validate, R->err)) {
        return R->err->status;
    }
    if ((n = salto_cfg_child(root, "timeout"))) {
        if (salto_cfg_number(n, &s->timeout, R->err)) return R->err->status;
        if (!(s->timeout > 0.0)) {
            return SALTO_FAIL(R->err, SALTO_ERR_INVALID, n->loc,
                              "'timeout' must be a time in seconds > 0, not %g", s->timeout);
        }
    }
    const char* plot = salto_batch_measure_name(SALTO_MEASURE_OBJECTIVE);
    if ((n = salto_cfg_child(root, "plot"))) {
        const char* names[SALTO_MEASURE_COUNT + 1];
        for (int k = 0; k < SALTO_MEASURE_COUNT; k++) {
            names[k] = salto_batch_measure_name((salto_batch_measure)k);
        }
        names[SALTO_MEASURE_COUNT] = NULL;
        int k = 0;
        if (salto_cfg_enum(n, names, "measure", &k, R->err)) return R->err->status;
        plot = names[k];
        s->plot_loc = own_loc(s, n->loc);
    }
    if (!(s->plot = salto_strdup(plot))) return nomem(R);

    const salto_cfg_node* params = salto_cfg_require(root, "parameters", R->err);
    if (!params || read_params(R, params)) return R->err->status;
    return make_jobs(R, params);
}


salto_sweep* salto_sweep_load(const char* path, salto_error* err) {
    salto_cfg* cfg = salto_cfg_load(path, err);
    if (!cfg) return NULL;
    salto_sweep* s = salto_calloc(1, sizeof *s);
    if (!s || !(s->path = salto_strdup(path))) {
        SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        salto_free(s);
        salto_cfg_destroy(cfg);
        return NULL;
    }
    reader R = {s, err};
    const salto_status st = read_sweep(&R, cfg);
    salto_cfg_destroy(cfg);
    if (st != SALTO_OK) {
        salto_sweep_destroy(s);
        return NULL;
    }
    return s;
}


void salto_sweep_destroy(salto_sweep* s) {
    if (!s) return;
    for (int k = 0; k < s->nparam; k++) {
        salto_sweep_param* P = &s->params[k];
        for (int v = 0; P->set && v < P->nvalue; v++) salto_free(P->set[v]);
        salto_free(P->set);
        salto_free(P->value);
        salto_free(P->loc);
        salto_free(P->path);
    }
    salto_free(s->params);
    salto_free(s->job_value);
    salto_free(s->plot);
    salto_free(s->problem);
    salto_free(s->path);
    salto_free(s);
}


void salto_sweep_job_set(const salto_sweep* s, int j, const char** set) {
    for (int k = 0; k < s->nparam; k++) {
        set[k] = s->params[k].set[s->job_value[j * s->nparam + k]];
    }
}


double salto_sweep_job_value(const salto_sweep* s, int j, int k) {
    return s->params[k].value[s->job_value[j * s->nparam + k]];
}


// ---- checks ----

// loads the base problem with set and builds its NLP; err filled on failure
static salto_status try_problem(const salto_sweep* s, int nset, const char* const* set,
                                salto_error* err) {
    salto_problem_desc* p = salto_problem_load_set(s->problem, nset, set, err);
    salto_nlp* nlp = p ? salto_nlp_build(p, err) : NULL;
    salto_nlp_destroy(nlp);
    salto_problem_destroy(p);
    return err->status;
}


// err: the problem's error e, reported at where in the sweep file about what
static salto_status relocate(salto_error* err, const salto_error* e, salto_src_loc where,
                             const char* what) {
    if (e->status == SALTO_ERR_NOMEM) {
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    salto_fail(err, e->status == SALTO_ERR_IO ? SALTO_ERR_IO : SALTO_ERR_INVALID, where,
               __func__, __LINE__, "%s: %s", what, e->msg);
    if (e->where.file && e->where.line > 0) {
        salto_error_note(err, "reported at %s:%d:%d%s%s", e->where.file, e->where.line,
                         e->where.col, e->note[0] ? "; " : "", e->note);
    } else if (e->where.file) {
        salto_error_note(err, "reported about %s%s%s", e->where.file, e->note[0] ? "; " : "",
                         e->note);
    } else if (e->note[0]) {
        salto_error_note(err, "%s", e->note);
    }
    return err->status;
}


salto_status salto_sweep_check(const salto_sweep* s, salto_error* err) {
    // the base problem alone: an error is the problem file's own
    salto_error e = {0};
    if (try_problem(s, 0, NULL, &e) != SALTO_OK) {
        return relocate(err, &e, s->problem_loc, "the base problem does not load");
    }
    // each path alone, with its first value
    char what[600];
    for (int k = 0; k < s->nparam; k++) {
        const char* one = s->params[k].set[0];
        memset(&e, 0, sizeof e);
        if (try_problem(s, 1, &one, &e) != SALTO_OK) {
            snprintf(what, sizeof what, "parameter '%.200s' (set to %.100s)", s->params[k].path,
                     strchr(one, '=') + 1);
            return relocate(err, &e, s->params[k].key_loc, what);
        }
    }
    // every job
    const char** set = salto_calloc((size_t)s->nparam, sizeof(char*));
    if (!set) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    for (int j = 0; j < s->njob; j++) {
        salto_sweep_job_set(s, j, set);
        memset(&e, 0, sizeof e);
        if (try_problem(s, s->nparam, set, &e) == SALTO_OK) continue;
        if (e.status == SALTO_ERR_NOMEM) break;
        // the value at fault: the first that fails alone, else the job's first
        int at = 0;
        for (int k = 0; k < s->nparam && s->nparam > 1; k++) {
            salto_error e1 = {0};
            if (try_problem(s, 1, &set[k], &e1) != SALTO_OK) {
                at = k;
                break;
            }
        }
        char job[64];
        salto_job_name(j, job, sizeof job);
        int len = snprintf(what, sizeof what, "%s (", job);
        for (int k = 0; k < s->nparam && len > 0 && (size_t)len < sizeof what; k++) {
            len += snprintf(what + len, sizeof what - (size_t)len, "%s%s", k ? ", " : "", set[k]);
        }
        if (len > 0 && (size_t)len < sizeof what) {
            snprintf(what + len, sizeof what - (size_t)len, ")");
        }
        const salto_sweep_param* P = &s->params[at];
        relocate(err, &e, P->loc[s->job_value[j * s->nparam + at]], what);
        break;
    }
    salto_free(set);
    if (e.status == SALTO_ERR_NOMEM) {
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    return err->status;
}


// the spread of parameter k's values (0 for a single value)
static double spread(const salto_sweep_param* P) {
    double lo = P->value[0], hi = P->value[0];
    for (int v = 1; v < P->nvalue; v++) lo = fmin(lo, P->value[v]), hi = fmax(hi, P->value[v]);
    return hi - lo;
}


int salto_sweep_neighbour(const salto_sweep* s, int j) {
    int best = -1;
    double best_d = INFINITY, w[SALTO_SWEEP_MAX_PARAMS];
    for (int k = 0; k < s->nparam; k++) w[k] = spread(&s->params[k]);
    for (int i = 0; i < j; i++) {
        // d = sum_k ((v_ik - v_jk) / spread_k)^2
        double d = 0.0;
        for (int k = 0; k < s->nparam; k++) {
            if (!(w[k] > 0.0)) continue;
            const double x = (salto_sweep_job_value(s, i, k) - salto_sweep_job_value(s, j, k)) / w[k];
            d += x * x;
        }
        if (d <= best_d * (1.0 + 1e-12)) best = i, best_d = d; // the latest on ties
    }
    return best;
}
