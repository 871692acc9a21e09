// batch.c: job results (result.json), their measures, and the summary files (batch.h)
//
// A result is read back through the YAML reader (JSON is YAML), so that a result.json that a
// later run finds is judged by the same located checks as any input; one that does not read,
// or that was written for another job, is not trusted and the job runs again.
#include "salto/batch.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_out.h"
#include "salto/atomic.h"
#include "salto/config.h"
#include "salto/data.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"

static const char* const status_names[SALTO_JOB_STATUS_COUNT] = {
    "converged", "not_converged", "failed", "crashed", "timeout", "environment", "missing"};
static const char* const validation_names[SALTO_JOB_VALID_COUNT] = {"", "pass", "fail", "error"};


static int lookup(const char* const* names, int n, const char* name) {
    for (int k = 0; name && k < n; k++) {
        if (strcmp(names[k], name) == 0) return k;
    }
    return -1;
}


const char* salto_job_status_name(salto_job_status s) {
    return (int)s >= 0 && s < SALTO_JOB_STATUS_COUNT ? status_names[s] : "?";
}


int salto_job_status_parse(const char* name) {
    return lookup(status_names, SALTO_JOB_STATUS_COUNT, name);
}


const char* salto_job_validation_name(salto_job_validation v) {
    return (int)v >= 0 && v < SALTO_JOB_VALID_COUNT ? validation_names[v] : "?";
}


int salto_job_validation_parse(const char* name) {
    return lookup(validation_names, SALTO_JOB_VALID_COUNT, name);
}


void salto_job_result_init(salto_job_result* r, int job) {
    memset(r, 0, sizeof *r);
    r->job = job;
    r->status = SALTO_JOB_MISSING;
    r->exit_code = -1;
    for (int k = 0; k < SALTO_MEASURE_COUNT; k++) r->measure[k] = NAN;
    r->validation = SALTO_JOB_VALID_NONE;
    r->warm_from = -1;
}


int salto_job_fine(const salto_job_result* r, int validate) {
    return r->status == SALTO_JOB_CONVERGED && (!validate || r->validation == SALTO_JOB_VALID_PASS);
}


// ---- measures of a motion ----

salto_status salto_job_measure(const salto_problem_desc* p, salto_state_fn state, void* ctx,
                               int density, salto_job_result* r, salto_error* err) {
    const salto_model* m = p->model;

    // the samples and the joints' peak torques: the validator's, without re-simulation
    salto_validate_opts o;
    salto_validate_opts_default(&o);
    o.density = density > 0 ? density : o.density;
    o.integrator = SALTO_INTEGRATOR_NONE;
    salto_validation v;
    if (salto_validate_motion(p, state, ctx, &o, &v, err) != SALTO_OK) return err->status;
    double tau = 0.0;
    for (int j = m->nroot; j < m->nv; j++) tau = fmax(tau, fabs(v.tau_peak[j]));

    salto_data* d = salto_data_create(m);
    if (!d) {
        salto_validation_free(&v);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    // "up" is -g (z when there is no gravity)
    double up[3] = {0, 0, 1};
    const double g = salto_v3_norm(m->gravity);
    if (g > 0) up[0] = -m->gravity[0] / g, up[1] = -m->gravity[1] / g, up[2] = -m->gravity[2] / g;
    const int root_link = m->nbody > 0 ? m->body_link[0] : -1;

    // peak centre-of-mass height; flight rotation = | sum over flight phases of the integral
    // of the root's angular velocity | (trapezoids between samples of one phase)
    double peak = -INFINITY, rot[3] = {0, 0, 0}, w_prev[3] = {0, 0, 0};
    for (int k = 0; k < v.nsample; k++) {
        state(ctx, v.t[k], d->q, d->qd, d->qdd);
        salto_fk(m, d, SALTO_FK_VEL);
        salto_link_inertias(m, d);
        double c[3], cd[3];
        salto_com(m, d, c, cd);
        peak = fmax(peak, salto_v3_dot(c, up));
        double w[3] = {0, 0, 0};
        if (root_link >= 0) memcpy(w, d->V + 6 * root_link, sizeof w);
        const int flight = p->phases[v.phase[k]].contact.type == SALTO_CONTACT_NONE;
        if (flight && k > 0 && v.phase[k - 1] == v.phase[k]) {
            const double h = v.t[k] - v.t[k - 1];
            for (int a = 0; a < 3; a++) rot[a] += 0.5 * h * (w[a] + w_prev[a]);
        }
        memcpy(w_prev, w, sizeof w);
    }
    r->measure[SALTO_MEASURE_PEAK_COM_HEIGHT] = v.nsample > 0 ? peak : NAN;
    const double deg = 180.0 / 3.14159265358979323846;
    r->measure[SALTO_MEASURE_FLIGHT_ROTATION] =
        salto_v3_norm(rot) * deg;
    r->measure[SALTO_MEASURE_PEAK_JOINT_TORQUE] = m->nv > m->nroot ? tau : NAN;
    salto_data_destroy(d);
    salto_validation_free(&v);
    return SALTO_OK;
}


// ---- what salto solve and salto validate wrote ----

static int file_exists(const char* path) {
    FILE* f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}


// an optional number in a map (null or missing: NAN)
static salto_status opt_number(const salto_cfg_node* map, const char* key, double* out,
                               salto_error* err) {
    const salto_cfg_node* n = salto_cfg_child(map, key);
    *out = NAN;
    if (!n || salto_cfg_is_null(n)) return SALTO_OK;
    return salto_cfg_number(n, out, err);
}


salto_status salto_job_read_outputs(const char* dir, int validate, salto_job_result* r,
                                    salto_error* err) {
    char path[4200];
    snprintf(path, sizeof path, "%s/motion.json", dir);
    if (!file_exists(path)) {
        r->status = SALTO_JOB_MISSING;
        return SALTO_OK;
    }
    salto_cfg* cfg = salto_cfg_load(path, err);
    if (!cfg) return err->status;
    const salto_cfg_node* solver = salto_cfg_require(salto_cfg_root(cfg), "solver", err);
    const salto_cfg_node* conv = solver ? salto_cfg_require(solver, "converged", err) : NULL;
    int converged = 0, iterations = 0;
    const salto_cfg_node* it = conv ? salto_cfg_require(solver, "iterations", err) : NULL;
    if (!it || salto_cfg_bool(conv, &converged, err) || salto_cfg_int(it, &iterations, err) ||
        opt_number(solver, "objective", &r->measure[SALTO_MEASURE_OBJECTIVE], err) ||
        opt_number(solver, "time", &r->measure[SALTO_MEASURE_SOLVE_TIME], err) ||
        opt_number(solver, "max_violation", &r->measure[SALTO_MEASURE_WORST_RESIDUAL], err)) {
        salto_cfg_destroy(cfg);
        return err->status;
    }
    salto_cfg_destroy(cfg);
    r->status = converged ? SALTO_JOB_CONVERGED : SALTO_JOB_NOT_CONVERGED;
    r->measure[SALTO_MEASURE_ITERATIONS] = iterations;

    r->validation = SALTO_JOB_VALID_NONE;
    if (!validate) return SALTO_OK;
    snprintf(path, sizeof path, "%s/validation.json", dir);
    // a validation that did not run or did not finish is the row's verdict, not an error
    salto_error e = {0};
    cfg = file_exists(path) ? salto_cfg_load(path, &e) : NULL;
    const salto_cfg_node* pass = cfg ? salto_cfg_child(salto_cfg_root(cfg), "pass") : NULL;
    int ok = 0;
    if (pass && salto_cfg_bool(pass, &ok, &e) == SALTO_OK) {
        r->validation = ok ? SALTO_JOB_VALID_PASS : SALTO_JOB_VALID_FAIL;
    } else {
        r->validation = SALTO_JOB_VALID_ERROR;
    }
    salto_cfg_destroy(cfg);
    return SALTO_OK;
}


// ---- result.json ----

salto_status salto_job_result_write(const char* path, const salto_sweep* s,
                                    const salto_job_result* r, salto_error* err) {
    salto_atomic a;
    salto_status st = salto_atomic_open(&a, path, 1, err);
    if (st) return st;
    FILE* f = a.f;
    char name[64];
    salto_job_name(r->job, name, sizeof name);
    fprintf(f, "{\n  \"format\": \"salto batch job 1\",\n  \"job\": %d,\n  \"name\": ", r->job);
    salto_json_str(f, name);
    fputs(",\n  \"problem\": ", f);
    salto_json_str(f, s->problem);
    fputs(",\n  \"set\": [", f);
    const char** set = salto_calloc((size_t)s->nparam + 1, sizeof(char*));
    if (!set) {
        salto_atomic_abort(&a);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    salto_sweep_job_set(s, r->job, set);
    for (int k = 0; k < s->nparam; k++) {
        fputs(k ? ", " : "", f);
        salto_json_str(f, set[k]);
    }
    salto_free(set);
    fputs("],\n  \"status\": ", f);
    salto_json_str(f, salto_job_status_name(r->status));
    fprintf(f, ",\n  \"exit_code\": %d,\n  \"signal\": %d", r->exit_code, r->signal);
    for (int k = 0; k < SALTO_MEASURE_COUNT; k++) {
        fprintf(f, ",\n  \"%s\": ", salto_batch_measure_name((salto_batch_measure)(k)));
        salto_json_num(f, r->measure[k]);
    }
    fputs(",\n  \"validation\": ", f);
    salto_json_str(f, salto_job_validation_name(r->validation));
    fprintf(f, ",\n  \"warm_from\": %d\n}\n", r->warm_from);
    return salto_atomic_commit(&a, err);
}


salto_status salto_job_result_read(const char* path, const salto_sweep* s, int j,
                                   salto_job_result* r, salto_error* err) {
    salto_cfg* cfg = salto_cfg_load(path, err);
    if (!cfg) return err->status;
    salto_job_result_init(r, j);
    const salto_cfg_node* root = salto_cfg_root(cfg);
    const salto_cfg_node* n = NULL;
    const char* text = NULL;
    int job = -1;
    if (salto_cfg_expect(root, SALTO_CFG_MAP, err) ||
        !(n = salto_cfg_require(root, "job", err)) || salto_cfg_int(n, &job, err)) {
        goto done;
    }
    if (job != j) {
        SALTO_FAIL(err, SALTO_ERR_INVALID, n->loc, "the result of job %d, not of job %d", job, j);
        goto done;
    }
    // the same base problem and overrides as the job has now
    if (!(n = salto_cfg_require(root, "problem", err)) || salto_cfg_string(n, &text, err)) {
        goto done;
    }
    if (strcmp(text, s->problem) != 0) {
        SALTO_FAIL(err, SALTO_ERR_INVALID, n->loc, "a result for the problem '%s', not '%s'", text,
                   s->problem);
        goto done;
    }
    if (!(n = salto_cfg_require(root, "set", err)) || salto_cfg_expect(n, SALTO_CFG_LIST, err)) {
        goto done;
    }
    {
        const char* set[SALTO_SWEEP_MAX_PARAMS];
        int same = n->n == s->nparam;
        if (same) salto_sweep_job_set(s, j, set);
        for (int k = 0; same && k < n->n; k++) {
            same = n->child[k]->kind == SALTO_CFG_SCALAR && strcmp(n->child[k]->text, set[k]) == 0;
        }
        if (!same) {
            SALTO_FAIL(err, SALTO_ERR_INVALID, n->loc,
                       "a result for other values of the parameters");
            goto done;
        }
    }
    int k = -1;
    if (!(n = salto_cfg_require(root, "status", err)) || salto_cfg_string(n, &text, err)) goto done;
    if ((k = salto_job_status_parse(text)) < 0) {
        SALTO_FAIL(err, SALTO_ERR_INVALID, n->loc, "unknown job status '%s'", text);
        goto done;
    }
    if (k == SALTO_JOB_ENVIRONMENT || k == SALTO_JOB_MISSING) {
        // a job that did not finish has no result (the batch writes none for it)
        SALTO_FAIL(err, SALTO_ERR_INVALID, n->loc, "'%s' is not the status of a finished job",
                   text);
        goto done;
    }
    r->status = (salto_job_status)k;
    if (!(n = salto_cfg_require(root, "exit_code", err)) || salto_cfg_int(n, &r->exit_code, err) ||
        !(n = salto_cfg_require(root, "signal", err)) || salto_cfg_int(n, &r->signal, err) ||
        !(n = salto_cfg_require(root, "warm_from", err)) || salto_cfg_int(n, &r->warm_from, err)) {
        goto done;
    }
    for (int m = 0; m < SALTO_MEASURE_COUNT; m++) {
        if (!salto_cfg_require(root, salto_batch_measure_name((salto_batch_measure)(m)), err) ||
            opt_number(root, salto_batch_measure_name((salto_batch_measure)(m)), &r->measure[m], err)) {
            goto done;
        }
    }
    if (!(n = salto_cfg_require(root, "validation", err))) goto done;
    text = n->kind == SALTO_CFG_SCALAR ? n->text : NULL;
    if ((k = salto_job_validation_parse(text)) < 0) {
        SALTO_FAIL(err, SALTO_ERR_INVALID, n->loc, "unknown validation result");
        goto done;
    }
    r->validation = (salto_job_validation)k;
done:
    salto_cfg_destroy(cfg);
    return err->status;
}


// ---- summary.csv and summary.json ----

// a CSV number: empty when unknown
static void csv_num(FILE* f, double v) {
    if (isfinite(v)) fprintf(f, "%.10g", v);
}


static salto_status write_csv(const char* path, const salto_sweep* s, const salto_job_result* rs,
                              salto_error* err) {
    salto_atomic a;
    salto_status st = salto_atomic_open(&a, path, 1, err);
    if (st) return st;
    FILE* f = a.f;
    fputs("job", f);
    for (int k = 0; k < s->nparam; k++) {
        fputc(',', f);
        salto_csv_field(f, s->params[k].path);
    }
    fputs(",status", f);
    for (int k = 0; k < SALTO_MEASURE_COUNT; k++) fprintf(f, ",%s", salto_batch_measure_name((salto_batch_measure)(k)));
    fputs(",validation,warm_start\n", f);
    for (int j = 0; j < s->njob; j++) {
        const salto_job_result* r = &rs[j];
        char name[64];
        salto_job_name(j, name, sizeof name);
        fputs(name, f);
        const char* set[SALTO_SWEEP_MAX_PARAMS];
        salto_sweep_job_set(s, j, set);
        for (int k = 0; k < s->nparam; k++) {
            fputc(',', f);
            salto_csv_field(f, strchr(set[k], '=') + 1); // the value as given to the solver
        }
        fprintf(f, ",%s", salto_job_status_name(r->status));
        for (int k = 0; k < SALTO_MEASURE_COUNT; k++) {
            fputc(',', f);
            csv_num(f, r->measure[k]);
        }
        fprintf(f, ",%s,", salto_job_validation_name(r->validation));
        if (r->warm_from >= 0) {
            salto_job_name(r->warm_from, name, sizeof name);
            fputs(name, f);
        }
        fputc('\n', f);
    }
    return salto_atomic_commit(&a, err);
}


static salto_status write_json(const char* path, const salto_sweep* s, const salto_job_result* rs,
                               salto_error* err) {
    salto_atomic a;
    salto_status st = salto_atomic_open(&a, path, 1, err);
    if (st) return st;
    FILE* f = a.f;
    fputs("{\n  \"format\": \"salto batch summary 1\",\n  \"sweep\": ", f);
    salto_json_str(f, s->path);
    fputs(",\n  \"problem\": ", f);
    salto_json_str(f, s->problem);
    fputs(",\n  \"parameters\": [", f);
    for (int k = 0; k < s->nparam; k++) {
        fputs(k ? ", " : "", f);
        salto_json_str(f, s->params[k].path);
    }
    int count[SALTO_JOB_STATUS_COUNT] = {0};
    for (int j = 0; j < s->njob; j++) count[rs[j].status]++;
    fputs("],\n  \"counts\": {", f);
    for (int k = 0; k < SALTO_JOB_STATUS_COUNT; k++) {
        fprintf(f, "%s\"%s\": %d", k ? ", " : "", status_names[k], count[k]);
    }
    fputs("},\n  \"jobs\": [\n", f);
    for (int j = 0; j < s->njob; j++) {
        const salto_job_result* r = &rs[j];
        char name[64];
        salto_job_name(j, name, sizeof name);
        fprintf(f, "    {\"job\": \"%s\", \"parameters\": {", name);
        for (int k = 0; k < s->nparam; k++) {
            fputs(k ? ", " : "", f);
            salto_json_str(f, s->params[k].path);
            fputs(": ", f);
            salto_json_num(f, salto_sweep_job_value(s, j, k));
        }
        fputs("}, \"status\": ", f);
        salto_json_str(f, salto_job_status_name(r->status));
        for (int k = 0; k < SALTO_MEASURE_COUNT; k++) {
            fprintf(f, ", \"%s\": ", salto_batch_measure_name((salto_batch_measure)(k)));
            salto_json_num(f, r->measure[k]);
        }
        fputs(", \"validation\": ", f);
        if (r->validation == SALTO_JOB_VALID_NONE) {
            fputs("null", f);
        } else {
            salto_json_str(f, salto_job_validation_name(r->validation));
        }
        fputs(", \"warm_start\": ", f);
        if (r->warm_from >= 0) {
            salto_job_name(r->warm_from, name, sizeof name);
            salto_json_str(f, name);
        } else {
            fputs("null", f);
        }
        fprintf(f, "}%s\n", j + 1 < s->njob ? "," : "");
    }
    fputs("  ]\n}\n", f);
    return salto_atomic_commit(&a, err);
}


salto_status salto_batch_write_summary(const char* dir, const salto_sweep* s,
                                       const salto_job_result* results, salto_error* err) {
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    if (write_csv(path, s, results, err)) return err->status;
    snprintf(path, sizeof path, "%s/summary.json", dir);
    return write_json(path, s, results, err);
}
