// frames.c: motions from elsewhere, read from CSV, and their C2 interpolation (motion.h)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/config.h"
#include "salto/motion.h"

void salto_frames_destroy(salto_frames* f) {
    if (!f) return;
    for (int j = 0; j < f->ncol; j++) salto_free(f->name[j]);
    salto_free(f->name);
    salto_free(f->col_pos);
    salto_free(f->t);
    salto_free(f->q);
    salto_free(f->m2);
    salto_free(f->map);
    salto_free(f->path);
    salto_free(f);
}


static salto_src_loc loc(const salto_frames* f, int line, int col) {
    salto_src_loc l = {f->path, line, col};
    return l;
}


// grows *buf (capacity *cap doubles) to hold n
static int reserve(double** buf, size_t* cap, size_t n) {
    if (n <= *cap) return 1;
    size_t c = *cap ? *cap : 1024;
    while (c < n) c *= 2;
    double* b = salto_malloc(c * sizeof(double));
    if (!b) return 0;
    if (*buf) memcpy(b, *buf, *cap * sizeof(double));
    salto_free(*buf);
    *buf = b, *cap = c;
    return 1;
}


// the cells of one line split at commas, spaces trimmed: starts and lengths (at most max)
static int split(char* line, char** cell, int* col, int max) {
    int n = 0;
    char* p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        char* end = strchr(p, ',');
        char* stop = end ? end : p + strlen(p);
        char* e = stop;
        while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n')) e--;
        if (n < max) {
            cell[n] = p;
            col[n] = (int)(p - line) + 1;
        }
        n++;
        *e = '\0';
        if (!end) break;
        p = end + 1;
    }
    return n;
}


salto_frames* salto_frames_load_csv(const char* path, salto_error* err) {
    salto_frames* f = salto_calloc(1, sizeof *f);
    if (!f || !(f->path = salto_strdup(path))) {
        salto_frames_destroy(f);
        SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        return NULL;
    }
    FILE* in = fopen(path, "r");
    if (!in) {
        SALTO_FAIL(err, SALTO_ERR_IO, salto_loc_none(), "cannot open '%s': %s", path, strerror(errno));
        salto_frames_destroy(f);
        return NULL;
    }
    enum { max_cols = 512 };
    char* cell[max_cols];
    int col[max_cols];
    char* line = NULL;
    size_t linecap = 0, tcap = 0, qcap = 0;
    int lineno = 0, ok = 1;
    double* row = NULL;
    while (ok && getline(&line, &linecap, in) >= 0) {
        lineno++;
        const char* s = line;
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
        if (*s == '\0' || *s == '#') continue; // blank lines and comments
        const int n = split(line, cell, col, max_cols);
        if (n > max_cols) {
            SALTO_FAIL(err, SALTO_ERR_INVALID, loc(f, lineno, 1), "more than %d columns", max_cols);
            ok = 0;
            break;
        }
        if (!f->name) { // the header: "t" (or "time") and the DOFs' names
            f->ncol = n;
            f->name = salto_calloc((size_t)n, sizeof(char*));
            f->col_pos = salto_calloc((size_t)n, sizeof(int));
            row = salto_malloc((size_t)n * sizeof(double));
            if (!f->name || !f->col_pos || !row) {
                SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
                ok = 0;
                break;
            }
            f->tcol = -1;
            f->header_line = lineno;
            for (int c = 0; c < n && ok; c++) {
                f->col_pos[c] = col[c];
                if (cell[c][0] == '\0') {
                    SALTO_FAIL(err, SALTO_ERR_INVALID, loc(f, lineno, col[c]), "column %d of the header has no name", c + 1);
                    ok = 0;
                } else if (!(f->name[c] = salto_strdup(cell[c]))) {
                    SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
                    ok = 0;
                } else if (strcmp(cell[c], "t") == 0 || strcmp(cell[c], "time") == 0) {
                    f->tcol = c;
                }
                for (int k = 0; ok && k < c; k++) {
                    if (strcmp(f->name[k], f->name[c]) == 0) {
                        SALTO_FAIL(err, SALTO_ERR_INVALID, loc(f, lineno, col[c]), "column '%s' appears twice in the header", cell[c]);
                        ok = 0;
                    }
                }
            }
            if (ok && f->tcol < 0) {
                SALTO_FAIL(err, SALTO_ERR_INVALID, loc(f, lineno, 1), "the header names no time column ('t' or 'time'; salto's motion.csv starts 't,<DOF names>')");
                ok = 0;
            }
            continue;
        }
        if (n != f->ncol) {
            SALTO_FAIL(err, SALTO_ERR_INVALID, loc(f, lineno, n < f->ncol ? col[n - 1] : col[f->ncol]),
                       "%d cells on this line, but the header (line %d) has %d columns", n, f->header_line, f->ncol);
            ok = 0;
            break;
        }
        for (int c = 0; c < n && ok; c++) {
            char* end = NULL;
            errno = 0;
            row[c] = strtod(cell[c], &end);
            if (cell[c][0] == '\0' || *end || !isfinite(row[c])) {
                SALTO_FAIL(err, SALTO_ERR_INVALID, loc(f, lineno, col[c]), "'%s' in column '%s' is not a finite number", cell[c], f->name[c]);
                ok = 0;
            }
        }
        if (!ok) break;
        if (f->nframe > 0 && !(row[f->tcol] > f->t[f->nframe - 1])) {
            SALTO_FAIL(err, SALTO_ERR_INVALID, loc(f, lineno, col[f->tcol]), "time %g does not come after the previous row's %g", row[f->tcol], f->t[f->nframe - 1]);
            ok = 0;
            break;
        }
        const int nq = f->ncol - 1;
        if (!reserve(&f->t, &tcap, (size_t)f->nframe + 1) || !reserve(&f->q, &qcap, (size_t)(f->nframe + 1) * (size_t)nq)) {
            SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
            ok = 0;
            break;
        }
        f->t[f->nframe] = row[f->tcol];
        for (int c = 0, k = 0; c < n; c++) {
            if (c != f->tcol) f->q[(size_t)f->nframe * nq + k++] = row[c];
        }
        f->nframe++;
    }
    free(line);
    salto_free(row);
    fclose(in);
    if (ok && !f->name) {
        SALTO_FAIL(err, SALTO_ERR_INVALID, loc(f, 1, 1), "the file is empty (expected a header 't,<DOF names>' and rows)");
        ok = 0;
    }
    if (ok && f->nframe < 4) {
        SALTO_FAIL(err, SALTO_ERR_INVALID, loc(f, lineno, 1), "%d rows of frames; at least 4 are needed for accelerations", f->nframe);
        ok = 0;
    }
    if (!ok) {
        salto_frames_destroy(f);
        return NULL;
    }
    f->nv = f->ncol - 1;
    return f;
}


// the frames' columns in the model's DOF order (f->map), every DOF present and no other
// column; then the interpolating cubic splines' second derivatives (not-a-knot ends)
salto_status salto_frames_bind(salto_frames* f, const salto_model* m, salto_error* err) {
    salto_free(f->map);
    f->map = salto_malloc((size_t)m->nv * sizeof(int));
    if (!f->map) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    for (int c = 0; c < f->ncol; c++) { // every column a DOF of the character
        if (c == f->tcol) continue;
        int found = 0;
        for (int j = 0; j < m->nv && !found; j++) found = strcmp(f->name[c], m->link_name[j]) == 0;
        if (!found) {
            SALTO_FAIL(err, SALTO_ERR_INVALID, loc(f, f->header_line, f->col_pos[c]),
                       "column '%s' is not a DOF of the character '%s'", f->name[c], m->name);
            const char* near = salto_cfg_suggest(f->name[c], (const char* const*)m->link_name, m->nv);
            if (near) snprintf(err->note, sizeof err->note, "did you mean '%s'?", near);
            return err->status;
        }
    }
    for (int j = 0; j < m->nv; j++) { // every DOF a column
        f->map[j] = -1;
        for (int c = 0, k = 0; c < f->ncol; c++) {
            if (c == f->tcol) continue;
            if (strcmp(f->name[c], m->link_name[j]) == 0) f->map[j] = k;
            k++;
        }
        if (f->map[j] < 0) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, loc(f, f->header_line, 1),
                              "the header has no column for DOF '%s' of the character '%s' "
                              "(every DOF needs one, in radians or metres)",
                              m->link_name[j], m->name);
        }
    }
    // second derivatives M of the not-a-knot cubic spline through each column: the interior
    // rows h_{i-1} M_{i-1} + 2 (h_{i-1} + h_i) M_i + h_i M_{i+1} = 6 (d_i - d_{i-1}), and the
    // third derivative continuous at t_1 and t_{n-2}; the end rows eliminated into their
    // neighbours so that the system is tridiagonal (Thomas)
    const int n = f->nframe, nq = f->nv;
    salto_free(f->m2);
    f->m2 = salto_calloc((size_t)n * nq, sizeof(double));
    double* a = salto_malloc((size_t)n * 4 * sizeof(double));
    if (!f->m2 || !a) {
        salto_free(a);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    double *lo = a, *di = a + n, *up = a + 2 * n, *r = a + 3 * n;
    const double* t = f->t;
    for (int k = 0; k < nq; k++) {
        // unknowns M_1 .. M_{n-2}; M_0 and M_{n-1} from not-a-knot:
        //   M_0 = M_1 + h0 / h1 (M_1 - M_2),  M_{n-1} = M_{n-2} + hL / hL1 (M_{n-2} - M_{n-3})
        const int nu = n - 2;
        for (int i = 1; i <= nu; i++) {
            const double h0 = t[i] - t[i - 1], h1 = t[i + 1] - t[i];
            const double y0 = f->q[(size_t)(i - 1) * nq + k], y1 = f->q[(size_t)i * nq + k], y2 = f->q[(size_t)(i + 1) * nq + k];
            lo[i] = h0, di[i] = 2.0 * (h0 + h1), up[i] = h1;
            r[i] = 6.0 * ((y2 - y1) / h1 - (y1 - y0) / h0);
        }
        const double h0 = t[1] - t[0], h1 = t[2] - t[1];
        const double hl = t[n - 1] - t[n - 2], hl1 = t[n - 2] - t[n - 3];
        // (n >= 4: at least two unknowns) row 1's h0 M_0 and row nu's hl M_{n-1} substituted
        di[1] += h0 * (1.0 + h0 / h1);
        up[1] -= h0 * h0 / h1;
        di[nu] += hl * (1.0 + hl / hl1);
        lo[nu] -= hl * hl / hl1;
        for (int i = 2; i <= nu; i++) { // forward elimination
            const double w = lo[i] / di[i - 1];
            di[i] -= w * up[i - 1];
            r[i] -= w * r[i - 1];
        }
        double* M = f->m2;
        M[(size_t)nu * nq + k] = r[nu] / di[nu];
        for (int i = nu - 1; i >= 1; i--) M[(size_t)i * nq + k] = (r[i] - up[i] * M[(size_t)(i + 1) * nq + k]) / di[i];
        M[k] = (1.0 + h0 / h1) * M[(size_t)nq + k] - h0 / h1 * M[(size_t)2 * nq + k];
        M[(size_t)(n - 1) * nq + k] = (1.0 + hl / hl1) * M[(size_t)(n - 2) * nq + k] - hl / hl1 * M[(size_t)(n - 3) * nq + k];
    }
    salto_free(a);
    return SALTO_OK;
}


void salto_frames_state(const salto_frames* f, double t, double* q, double* qd, double* qdd,
                        int nv) {
    const int n = f->nframe, nq = f->nv;
    int lo = 0, hi = n - 1; // the interval [t_i, t_{i+1}] holding t (the end ones extended)
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (f->t[mid] <= t) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    const int i = lo;
    const double h = f->t[i + 1] - f->t[i];
    const double A = (f->t[i + 1] - t) / h, B = (t - f->t[i]) / h;
    for (int j = 0; j < nv; j++) {
        const int k = f->map[j];
        const double y0 = f->q[(size_t)i * nq + k], y1 = f->q[(size_t)(i + 1) * nq + k];
        const double M0 = f->m2[(size_t)i * nq + k], M1 = f->m2[(size_t)(i + 1) * nq + k];
        if (q) q[j] = A * y0 + B * y1 + ((A * A * A - A) * M0 + (B * B * B - B) * M1) * h * h / 6.0;
        if (qd) qd[j] = (y1 - y0) / h + ((1.0 - 3.0 * A * A) * M0 + (3.0 * B * B - 1.0) * M1) * h / 6.0;
        if (qdd) qdd[j] = A * M0 + B * M1;
    }
}
