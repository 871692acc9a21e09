// motion.c: writing optimised motions as JSON and CSV, atomically
#include "salto/motion.h"

#include "salto/bspline.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

// opens PATH.tmp for writing; the caller finishes with close_atomic
static FILE* open_atomic(const char* path, char* tmp, size_t n, salto_error* err) {
    snprintf(tmp, n, "%s.tmp", path);
    FILE* f = fopen(tmp, "w");
    if (!f) {
        SALTO_FAIL(err, SALTO_ERR_IO, salto_loc_none(), "cannot write '%s': %s", tmp,
                   strerror(errno));
    }
    return f;
}


static salto_status close_atomic(FILE* f, const char* tmp, const char* path, salto_error* err) {
    const int bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        remove(tmp);
        return SALTO_FAIL(err, SALTO_ERR_IO, salto_loc_none(), "cannot write '%s'", path);
    }
    return SALTO_OK;
}


// a JSON string literal (names and paths: escape quotes, backslashes and control characters)
static void json_str(FILE* f, const char* s) {
    fputc('"', f);
    for (; s && *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}


// a JSON number (non-finite values become null)
static void json_num(FILE* f, double v) {
    if (isfinite(v)) {
        fprintf(f, "%.17g", v);
    } else {
        fputs("null", f);
    }
}


static int frame_count(const salto_problem_desc* p) {
    return (int)floor(p->duration * p->output.frame_rate + 1e-9) + 1;
}


salto_status salto_motion_write_json(const salto_nlp* nlp, const double* x,
                                     const salto_solve_result* result, const char* path,
                                     salto_error* err) {
    const salto_problem_desc* p = salto_nlp_problem(nlp);
    const salto_model* m = p->model;
    char tmp[4200];
    FILE* f = open_atomic(path, tmp, sizeof tmp, err);
    if (!f) return err->status;
    const int nv = m->nv;

    fputs("{\n  \"format\": \"salto motion 1\",\n  \"problem\": ", f);
    json_str(f, p->path);
    fputs(",\n  \"character\": ", f);
    json_str(f, p->character);
    fputs(",\n  \"duration\": ", f);
    json_num(f, p->duration);
    fputs(",\n  \"phases\": [", f);
    for (int i = 0; i < p->nphase; i++) {
        static const char* const contact[3] = {"none", "bar", "ground"};
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        json_str(f, p->phases[i].name);
        fputs(", \"start\": ", f);
        json_num(f, p->phases[i].start);
        fputs(", \"duration\": ", f);
        json_num(f, p->phases[i].duration);
        fprintf(f, ", \"contact\": \"%s\"}", contact[p->phases[i].contact.type]);
    }
    fputs("\n  ],\n  \"dofs\": [", f);
    for (int j = 0; j < nv; j++) {
        if (j) fputs(", ", f);
        json_str(f, m->link_name[j]);
    }
    fprintf(f, "],\n  \"control_points\": %d,\n  \"knots\": [", p->ncp);
    const salto_bspline* sp = salto_nlp_spline(nlp);
    for (int a = 0; a < p->ncp + 4; a++) {
        if (a) fputs(", ", f);
        json_num(f, salto_bspline_knot(sp, a));
    }
    fputs("],\n  \"control\": [", f);
    for (int j = 0; j < nv; j++) {
        fputs(j ? ",\n    [" : "\n    [", f);
        for (int a = 0; a < p->ncp; a++) {
            if (a) fputs(", ", f);
            json_num(f, x[j * p->ncp + a]);
        }
        fputc(']', f);
    }
    fputs("\n  ],\n  \"frame_rate\": ", f);
    json_num(f, p->output.frame_rate);
    fputs(",\n  \"frames\": [", f);
    double* q = salto_malloc((size_t)nv * sizeof(double));
    if (!q) {
        fclose(f);
        remove(tmp);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    const int nf = frame_count(p);
    for (int k = 0; k < nf; k++) {
        const double t = fmin((double)k / p->output.frame_rate, p->duration);
        salto_nlp_state(nlp, x, t, q, NULL, NULL);
        fputs(k ? ",\n    [" : "\n    [", f);
        json_num(f, t);
        for (int j = 0; j < nv; j++) {
            fputs(", ", f);
            json_num(f, q[j]);
        }
        fputc(']', f);
    }
    salto_free(q);
    fputs("\n  ]", f);
    if (result) {
        fprintf(f, ",\n  \"solver\": {\"status\": ");
        json_str(f, result->status_name);
        fprintf(f, ", \"converged\": %s, \"iterations\": %d, \"objective\": ",
                result->converged ? "true" : "false", result->iterations);
        json_num(f, result->objective);
        fputs(", \"time\": ", f);
        json_num(f, result->elapsed);
        fputs(", \"max_violation\": ", f);
        json_num(f, result->max_violation);
        if (result->worst_row >= 0) {
            char name[512];
            salto_nlp_row_name(nlp, result->worst_row, name, sizeof name);
            fputs(", \"worst_constraint\": ", f);
            json_str(f, name);
        }
        fprintf(f, ", \"evaluations\": {\"f\": %d, \"g\": %d, \"jacobian\": %d}}",
                result->n_eval_f, result->n_eval_g, result->n_eval_jac);
    }
    fputs("\n}\n", f);
    return close_atomic(f, tmp, path, err);
}


salto_status salto_motion_write_csv(const salto_nlp* nlp, const double* x, const char* path,
                                    salto_error* err) {
    const salto_problem_desc* p = salto_nlp_problem(nlp);
    const salto_model* m = p->model;
    char tmp[4200];
    FILE* f = open_atomic(path, tmp, sizeof tmp, err);
    if (!f) return err->status;
    fputs("t", f);
    for (int j = 0; j < m->nv; j++) fprintf(f, ",%s", m->link_name[j]);
    fputc('\n', f);
    double* q = salto_malloc((size_t)m->nv * sizeof(double));
    if (!q) {
        fclose(f);
        remove(tmp);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    const int nf = frame_count(p);
    for (int k = 0; k < nf; k++) {
        const double t = fmin((double)k / p->output.frame_rate, p->duration);
        salto_nlp_state(nlp, x, t, q, NULL, NULL);
        fprintf(f, "%.9g", t);
        for (int j = 0; j < m->nv; j++) fprintf(f, ",%.17g", q[j]);
        fputc('\n', f);
    }
    salto_free(q);
    return close_atomic(f, tmp, path, err);
}
