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
    for (int j = 0; f->name && j < f->ncol; j++) salto_free(f->name[j]);
    salto_free(f->name);
    salto_free(f->col_pos);
    salto_free(f->t);
    salto_free(f->q);
    salto_free(f->m2);
    salto_free(f->piece);
    salto_free(f->pend);
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


// the cells of one line split at commas, spaces around them trimmed, a cell in double quotes
// unquoted ("" inside for a quote, RFC 4180, as motion.csv writes a name holding a comma or
// a quote): starts, columns (1-based) and count (cells beyond max counted, not stored); -1
// for a quote left open (*bad: its column)
static int split(char* line, char** cell, int* col, int max, int* bad) {
    int n = 0;
    char* p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        char* start = p;
        char* stop;
        int more;
        if (*p == '"') { // quoted: unquote in place
            char* w = p;
            char* r = p + 1;
            for (;;) {
                if (*r == '\0' || *r == '\n' || *r == '\r') {
                    *bad = (int)(start - line) + 1;
                    return -1;
                }
                if (*r == '"' && r[1] == '"') {
                    *w++ = '"', r += 2;
                } else if (*r == '"') {
                    r++;
                    break;
                } else {
                    *w++ = *r++;
                }
            }
            *w = '\0';
            while (*r == ' ' || *r == '\t' || *r == '\r' || *r == '\n') r++;
            stop = r;
            if (*stop != ',' && *stop != '\0') {
                *bad = (int)(stop - line) + 1;
                return -1;
            }
            more = *stop == ',';
        } else {
            char* end = strchr(p, ',');
            stop = end ? end : p + strlen(p);
            char* e = stop;
            while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n')) e--;
            more = *stop == ',';
            *e = '\0';
        }
        if (n < max) {
            cell[n] = start;
            col[n] = (int)(start - line) + 1;
        }
        n++;
        if (!more) break;
        *stop = '\0';
        p = stop + 1;
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
        int bad = 0;
        const int n = split(line, cell, col, max_cols, &bad);
        if (n < 0) {
            SALTO_FAIL(err, SALTO_ERR_INVALID, loc(f, lineno, bad), "a quoted cell is not closed, or text follows its closing quote");
            ok = 0;
            break;
        }
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
// column; then one piece of splines over the whole motion
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
    return salto_frames_fit(f, 0, NULL, err);
}


// the not-a-knot cubic spline's second derivatives M (n x nq, stride nq) through n >= 4 rows
// of values y (stride nq) at times t: the interior rows
// h_{i-1} M_{i-1} + 2 (h_{i-1} + h_i) M_i + h_i M_{i+1} = 6 (d_i - d_{i-1}), the third
// derivative continuous at t_1 and t_{n-2} (M_0 and M_{n-1} substituted into rows 1 and n-2,
// which keeps the system tridiagonal: Thomas); scratch a (4 n)
static void not_a_knot(const double* t, const double* y, int n, int nq, double* M, double* a) {
    double *lo = a, *di = a + n, *up = a + 2 * n, *r = a + 3 * n;
    const int nu = n - 2; // unknowns M_1 .. M_{n-2}
    const double h0 = t[1] - t[0], h1 = t[2] - t[1];
    const double hl = t[n - 1] - t[n - 2], hl1 = t[n - 2] - t[n - 3];
    for (int k = 0; k < nq; k++) {
        for (int i = 1; i <= nu; i++) {
            const double g0 = t[i] - t[i - 1], g1 = t[i + 1] - t[i];
            const double y0 = y[(size_t)(i - 1) * nq + k], y1 = y[(size_t)i * nq + k], y2 = y[(size_t)(i + 1) * nq + k];
            lo[i] = g0, di[i] = 2.0 * (g0 + g1), up[i] = g1;
            r[i] = 6.0 * ((y2 - y1) / g1 - (y1 - y0) / g0);
        }
        // M_0 = (1 + h0/h1) M_1 - (h0/h1) M_2,  M_{n-1} = (1 + hl/hl1) M_{n-2} - (hl/hl1) M_{n-3}
        di[1] += h0 * (1.0 + h0 / h1);
        up[1] -= h0 * h0 / h1;
        di[nu] += hl * (1.0 + hl / hl1);
        lo[nu] -= hl * hl / hl1;
        for (int i = 2; i <= nu; i++) {
            const double w = lo[i] / di[i - 1];
            di[i] -= w * up[i - 1];
            r[i] -= w * r[i - 1];
        }
        M[(size_t)nu * nq + k] = r[nu] / di[nu];
        for (int i = nu - 1; i >= 1; i--) M[(size_t)i * nq + k] = (r[i] - up[i] * M[(size_t)(i + 1) * nq + k]) / di[i];
        M[k] = (1.0 + h0 / h1) * M[(size_t)nq + k] - h0 / h1 * M[(size_t)2 * nq + k];
        M[(size_t)(n - 1) * nq + k] = (1.0 + hl / hl1) * M[(size_t)(n - 2) * nq + k] - hl / hl1 * M[(size_t)(n - 3) * nq + k];
    }
}


salto_status salto_frames_fit(salto_frames* f, int nbreak, const double* breaks,
                              salto_error* err) {
    const int n = f->nframe, nq = f->nv;
    salto_free(f->piece), salto_free(f->pend), salto_free(f->m2);
    f->piece = NULL, f->pend = NULL, f->m2 = NULL, f->npiece = 0;
    // piece p spans [breaks[p-1], breaks[p]] (the motion's ends outside), its rows those inside
    // plus, where a break falls between rows, the first row beyond it
    // (a row within 1e-4 of the shortest row interval from a break is at it: a BVH's frame time
    // is written rounded, and its rounding adds up frame by frame)
    double hmin = INFINITY;
    for (int i = 1; i < n; i++) hmin = fmin(hmin, f->t[i] - f->t[i - 1]);
    const double tol = 1e-4 * hmin + 1e-9 * (1.0 + fabs(f->t[n - 1]));
    f->piece = salto_malloc((size_t)(nbreak + 1) * 3 * sizeof(int));
    f->pend = salto_malloc((size_t)(nbreak + 1) * sizeof(double));
    if (!f->piece || !f->pend) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    int total = 0;
    for (int p = 0; p <= nbreak; p++) {
        const double lo = p > 0 ? breaks[p - 1] : -INFINITY, hi = p < nbreak ? breaks[p] : INFINITY;
        int first = 0, last = n - 1;
        while (first < n - 1 && f->t[first + 1] <= lo + tol) first++; // the last row at or before lo
        while (last > 0 && f->t[last - 1] >= hi - tol) last--;        // the first row at or after hi
        if (last - first + 1 < 4) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, loc(f, f->header_line, 1),
                              "%d rows of frames span the phase from %g to %g s; at least 4 are "
                              "needed for its accelerations (the motion is interpolated phase by "
                              "phase, so that an acceleration may jump where a contact changes)",
                              last - first + 1, p > 0 ? lo : f->t[0], p < nbreak ? hi : f->t[n - 1]);
        }
        f->piece[3 * p] = first, f->piece[3 * p + 1] = last, f->piece[3 * p + 2] = total;
        f->pend[p] = hi;
        total += last - first + 1;
    }
    f->npiece = nbreak + 1;
    f->m2 = salto_calloc((size_t)total * nq, sizeof(double));
    double* a = salto_malloc((size_t)n * 4 * sizeof(double));
    if (!f->m2 || !a) {
        salto_free(a);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    for (int p = 0; p < f->npiece; p++) {
        const int first = f->piece[3 * p], cnt = f->piece[3 * p + 1] - first + 1;
        not_a_knot(f->t + first, f->q + (size_t)first * nq, cnt, nq, f->m2 + (size_t)f->piece[3 * p + 2] * nq, a);
    }
    salto_free(a);
    return SALTO_OK;
}


void salto_frames_state(const salto_frames* f, double t, double* q, double* qd, double* qdd,
                        int nv) {
    const int nq = f->nv;
    int p = 0; // the piece holding t: the first whose end is after t
    while (p < f->npiece - 1 && t >= f->pend[p]) p++;
    const int first = f->piece[3 * p], n = f->piece[3 * p + 1] - first + 1;
    const double* ft = f->t + first;
    const double* fq = f->q + (size_t)first * nq;
    const double* m2 = f->m2 + (size_t)f->piece[3 * p + 2] * nq;
    int lo = 0, hi = n - 1; // the interval [t_i, t_{i+1}] holding t (the end ones extended)
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (ft[mid] <= t) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    const int i = lo;
    const double h = ft[i + 1] - ft[i];
    const double A = (ft[i + 1] - t) / h, B = (t - ft[i]) / h;
    for (int j = 0; j < nv; j++) {
        const int k = f->map[j];
        const double y0 = fq[(size_t)i * nq + k], y1 = fq[(size_t)(i + 1) * nq + k];
        const double M0 = m2[(size_t)i * nq + k], M1 = m2[(size_t)(i + 1) * nq + k];
        if (q) q[j] = A * y0 + B * y1 + ((A * A * A - A) * M0 + (B * B * B - B) * M1) * h * h / 6.0;
        if (qd) qd[j] = (y1 - y0) / h + ((1.0 - 3.0 * A * A) * M0 + (3.0 * B * B - 1.0) * M1) * h / 6.0;
        if (qdd) qdd[j] = A * M0 + B * M1;
    }
}


salto_status salto_frames_fit_problem(salto_frames* f, const salto_problem_desc* p,
                                      salto_error* err) {
    // the phases and the motion span the same time: from 0 to the phases' end, the motion
    // allowed to stop short of it by at most its last frame interval (tol: a BVH's frame time
    // is written to 9 decimals, and its rounding adds up frame by frame)
    const double T = p->duration, t0 = f->t[0], t1 = f->t[f->nframe - 1];
    const double last = t1 - f->t[f->nframe - 2], tol = 1e-9 * (1.0 + T + f->nframe);
    const salto_src_loc where = loc(f, 0, 0);
    if (t0 > tol || t0 < -tol) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, where, "the motion starts at t = %g s, but the "
                          "phases of '%s' start at 0 s", t0, p->path);
    }
    if (t1 > T + tol) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, where, "the motion runs to t = %g s, but the "
                          "phases of '%s' end at %g s: the phase list does not cover the motion",
                          t1, p->path, T);
    }
    if (t1 < T - last - tol) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, where, "the motion ends at t = %g s, but the "
                          "phases of '%s' go on to %g s", t1, p->path, T);
    }
    double* breaks = salto_malloc(sizeof(double) * (size_t)(p->nphase > 1 ? p->nphase - 1 : 1));
    if (!breaks) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    for (int i = 1; i < p->nphase; i++) breaks[i - 1] = p->phases[i].start;
    const salto_status s = salto_frames_fit(f, p->nphase - 1, breaks, err);
    salto_free(breaks);
    return s;
}
