// frames.c: motions from elsewhere, read from CSV, and their C2 interpolation (motion.h)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/bspline.h"
#include "salto/config.h"
#include "salto/kinematics.h"
#include "salto/motion.h"
#include "salto/spatial.h"

#include "linalg.h"

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
    for (int p = 0; f->spl && p < f->npiece; p++) salto_bspline_release(&f->spl[p]);
    salto_free(f->spl);
    salto_free(f->exact);
    salto_free(f->ctrl);
    salto_free(f->derive);
    salto_free(f->derive_site);
    salto_free(f->derive_P);
    salto_data_destroy(f->d);
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
    for (int p = 0; f->spl && p < f->npiece; p++) salto_bspline_release(&f->spl[p]);
    salto_free(f->spl), salto_free(f->exact), salto_free(f->ctrl);
    f->spl = NULL, f->exact = NULL, f->ctrl = NULL, f->ctrl_stride = 0;
    salto_free(f->derive), salto_free(f->derive_site), salto_free(f->derive_P);
    f->derive = NULL, f->derive_site = NULL, f->derive_P = NULL;
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


// The root's translation that piece p derives, at time t (its DOFs f->tdof, into T): the other
// DOFs from their exact splines, the translation at zero, then T = a . (P - g) with g the held
// site (derive 1) or the centre of mass (2: P on the parabola), as salto solve derives it.
static void derived_translation(const salto_frames* f, int p, double t, double T[3]) {
    const salto_model* m = f->model;
    salto_data* d = f->d;
    const int nv = m->nv;
    const double t0 = p > 0 ? f->pend[p - 1] : 0.0;
    for (int j = 0; j < nv; j++) {
        d->q[j] = 0.0;
        if (f->exact[(size_t)p * nv + j]) {
            salto_bspline_eval(&f->spl[p], f->ctrl + ((size_t)p * nv + j) * f->ctrl_stride, t - t0,
                               &d->q[j], NULL, NULL);
        }
    }
    for (int k = 0; k < f->nt; k++) d->q[f->tdof[k]] = 0.0;
    salto_fk(m, d, SALTO_FK_POS);
    const double* P = f->derive_P + 6 * p;
    double g[3], place[3];
    if (f->derive[p] == 1) {
        salto_site_pos(m, d, f->derive_site[p], g);
        for (int i = 0; i < 3; i++) place[i] = P[i];
    } else {
        salto_link_inertias(m, d);
        salto_com(m, d, g, NULL);
        const double tau = t - t0;
        for (int i = 0; i < 3; i++) place[i] = P[i] + P[3 + i] * tau + 0.5 * m->gravity[i] * tau * tau;
    }
    for (int k = 0; k < f->nt; k++) {
        T[k] = f->tax[k][0] * (place[0] - g[0]) + f->tax[k][1] * (place[1] - g[1]) + f->tax[k][2] * (place[2] - g[2]);
    }
}


// the derived translation's value and first two derivatives at t by second-order differences
// inside piece p's phase [t0, t1] (central, or one-sided within a step of its ends)
static void derived_state(const salto_frames* f, int p, double t, double* q, double* qd,
                          double* qdd) {
    const double t0 = p > 0 ? f->pend[p - 1] : 0.0;
    const double t1 = p < f->npiece - 1 ? f->pend[p] : f->t[f->nframe - 1];
    const double h = 1e-4 * (t1 - t0);
    double T0[3], Ta[3], Tb[3], Tc[3];
    derived_translation(f, p, t, T0);
    const int central = t - h >= t0 && t + h <= t1;
    const double dir = central ? 0.0 : (t - h < t0 ? 1.0 : -1.0);
    if (central) {
        derived_translation(f, p, t + h, Ta);
        derived_translation(f, p, t - h, Tb);
    } else {
        derived_translation(f, p, t + dir * h, Ta);
        derived_translation(f, p, t + 2.0 * dir * h, Tb);
        derived_translation(f, p, t + 3.0 * dir * h, Tc);
    }
    for (int k = 0; k < f->nt; k++) {
        const int j = f->tdof[k];
        if (q) q[j] = T0[k];
        if (central) {
            if (qd) qd[j] = (Ta[k] - Tb[k]) / (2.0 * h);
            if (qdd) qdd[j] = (Ta[k] - 2.0 * T0[k] + Tb[k]) / (h * h);
        } else {
            if (qd) qd[j] = dir * (-3.0 * T0[k] + 4.0 * Ta[k] - Tb[k]) / (2.0 * h);
            if (qdd) qdd[j] = (2.0 * T0[k] - 5.0 * Ta[k] + 4.0 * Tb[k] - Tc[k]) / (h * h);
        }
    }
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
    const double t0 = p > 0 ? f->pend[p - 1] : 0.0; // the piece's phase starts there
    for (int j = 0; j < nv; j++) {
        if (f->exact && f->exact[(size_t)p * nv + j]) {
            // the problem's own spline passes through this DOF's frames here: it is the motion
            salto_bspline_eval(&f->spl[p], f->ctrl + ((size_t)p * nv + j) * f->ctrl_stride, t - t0,
                               q ? q + j : NULL, qd ? qd + j : NULL, qdd ? qdd + j : NULL);
            continue;
        }
        const int k = f->map[j];
        const double y0 = fq[(size_t)i * nq + k], y1 = fq[(size_t)(i + 1) * nq + k];
        const double M0 = m2[(size_t)i * nq + k], M1 = m2[(size_t)(i + 1) * nq + k];
        if (q) q[j] = A * y0 + B * y1 + ((A * A * A - A) * M0 + (B * B * B - B) * M1) * h * h / 6.0;
        if (qd) qd[j] = (y1 - y0) / h + ((1.0 - 3.0 * A * A) * M0 + (3.0 * B * B - 1.0) * M1) * h / 6.0;
        if (qdd) qdd[j] = A * M0 + B * M1;
    }
    if (f->derive && f->derive[p] && nv == f->model->nv) derived_state(f, p, t, q, qd, qdd);
}


// Phase by phase, the least-squares fit of each DOF's frames in the phase by the cubic spline
// on the knots p's spline has inside it; where it passes through every frame (to 1e-7 of
// the values' scale), the DOF is that spline in that piece (f->exact). SALTO_ERR_NOMEM only:
// a phase that cannot be fitted (too few frames, knots a frame does not separate) keeps the
// interpolation.
static salto_status fit_exact(salto_frames* f, const salto_problem_desc* p) {
    const int nv = f->nv, ncp = p->ncp, nint = ncp - 4;
    // the interior knots of the spline salto solve builds for p
    salto_bspline whole;
    const salto_status sw = salto_problem_spline(p, NULL, &whole);
    if (sw == SALTO_ERR_NOMEM) return sw;
    if (sw != SALTO_OK) return SALTO_OK; // no spline to fit: the interpolation stays
    double* knots = salto_malloc((size_t)(nint > 0 ? nint : 1) * sizeof(double));
    if (!knots) {
        salto_bspline_release(&whole);
        return SALTO_ERR_NOMEM;
    }
    for (int a = 0; a < nint; a++) knots[a] = salto_bspline_knot(&whole, 4 + a);
    salto_bspline_release(&whole);
    f->ctrl_stride = ncp; // a phase's spline never has more control points than the whole
    f->spl = salto_calloc((size_t)f->npiece, sizeof *f->spl);
    f->exact = salto_calloc((size_t)f->npiece * nv, sizeof *f->exact);
    f->ctrl = salto_calloc((size_t)f->npiece * nv * ncp, sizeof *f->ctrl);
    double* in = salto_malloc((size_t)(nint > 0 ? nint : 1) * sizeof(double));
    double* A = salto_malloc((size_t)ncp * ncp * sizeof(double));
    double* B = salto_malloc((size_t)ncp * nv * sizeof(double));
    double* c = salto_malloc((size_t)ncp * sizeof(double));
    if (!f->spl || !f->exact || !f->ctrl || !in || !A || !B || !c) {
        salto_free(knots), salto_free(in), salto_free(A), salto_free(B), salto_free(c);
        return SALTO_ERR_NOMEM;
    }
    // a frame within 1e-4 of the shortest frame interval from a phase's end is at it (a BVH's
    // frame time is written rounded), as salto_frames_fit takes it
    double hmin = INFINITY;
    for (int r = 1; r < f->nframe; r++) hmin = fmin(hmin, f->t[r] - f->t[r - 1]);
    for (int ph = 0; ph < f->npiece && ph < p->nphase; ph++) {
        const double a = p->phases[ph].start, d = p->phases[ph].duration, b = a + d;
        const double tol_t = 1e-4 * hmin + 1e-9 * (1.0 + b);
        int n_in = 0;
        for (int k = 0; k < nint; k++) {
            if (knots[k] > a + tol_t && knots[k] < b - tol_t) in[n_in++] = knots[k] - a;
        }
        const int m = n_in + 4;
        const salto_status st = n_in > 0 ? salto_bspline_init_knots(&f->spl[ph], m, d, in)
                                         : salto_bspline_init(&f->spl[ph], 4, d);
        if (st == SALTO_ERR_NOMEM) {
            salto_free(knots), salto_free(in), salto_free(A), salto_free(B), salto_free(c);
            return st;
        }
        if (st != SALTO_OK) continue;
        // the normal equations over the phase's frames (its ends included)
        memset(A, 0, (size_t)m * m * sizeof(double));
        memset(B, 0, (size_t)m * nv * sizeof(double));
        int rows = 0;
        for (int r = 0; r < f->nframe; r++) {
            if (f->t[r] < a - tol_t || f->t[r] > b + tol_t) continue;
            double N[4];
            const int first = salto_bspline_basis(&f->spl[ph], f->t[r] - a, N, NULL, NULL);
            for (int u = 0; u < 4; u++) {
                for (int v = 0; v < 4; v++) A[(first + u) * m + first + v] += N[u] * N[v];
                for (int j = 0; j < nv; j++) B[(first + u) * nv + j] += N[u] * f->q[(size_t)r * nv + f->map[j]];
            }
            rows++;
        }
        // the frames must pin the spline: every pivot of the normal equations well above zero
        double dmax = 0.0;
        for (int u = 0; u < m; u++) dmax = fmax(dmax, A[u * m + u]);
        if (rows < m + 2 || !salto_chol(A, m)) continue;
        int pinned = 1;
        for (int u = 0; u < m; u++) pinned &= A[u * m + u] * A[u * m + u] > 1e-12 * dmax;
        if (!pinned) continue;
        for (int j = 0; j < nv; j++) {
            for (int u = 0; u < m; u++) c[u] = B[u * nv + j];
            salto_chol_solve(A, m, c);
            double worst = 0.0, scale = 0.0;
            for (int r = 0; r < f->nframe; r++) {
                if (f->t[r] < a - tol_t || f->t[r] > b + tol_t) continue;
                double qv;
                salto_bspline_eval(&f->spl[ph], c, f->t[r] - a, &qv, NULL, NULL);
                const double y = f->q[(size_t)r * nv + f->map[j]];
                worst = fmax(worst, fabs(qv - y));
                scale = fmax(scale, fabs(y));
            }
            if (worst <= 1e-6 * (1.0 + scale)) {
                f->exact[(size_t)ph * nv + j] = 1;
                memcpy(f->ctrl + ((size_t)ph * nv + j) * ncp, c, (size_t)m * sizeof(double));
            }
        }
    }
    salto_free(knots), salto_free(in), salto_free(A), salto_free(B), salto_free(c);
    return SALTO_OK;
}


// Where p derives the root's translation in a phase (a held site's effective root, a ballistic
// flight) and every other DOF of the piece is exact: the place (the held site at the phase's
// first frame inside it; the parabola's c0 and v0 by least squares over its frames' centre of
// mass), kept when the translation so derived matches every frame inside the phase.
// SALTO_ERR_NOMEM only.
static salto_status fit_derived(salto_frames* f, const salto_problem_desc* p) {
    const salto_model* m = p->model;
    const int nv = m->nv;
    if (nv != f->nv) return SALTO_OK;
    f->model = m;
    f->nt = salto_model_root_translation(m, f->tdof, f->tax);
    if (f->nt != (salto_model_is_planar(m) ? 2 : 3)) return SALTO_OK;
    if (!f->d) f->d = salto_data_create(m);
    f->derive = salto_calloc((size_t)f->npiece, sizeof *f->derive);
    f->derive_site = salto_calloc((size_t)f->npiece, sizeof *f->derive_site);
    f->derive_P = salto_calloc((size_t)f->npiece * 6, sizeof *f->derive_P);
    if (!f->d || !f->derive || !f->derive_site || !f->derive_P) return SALTO_ERR_NOMEM;
    salto_data* d = f->d;
    double hmin = INFINITY;
    for (int r = 1; r < f->nframe; r++) hmin = fmin(hmin, f->t[r] - f->t[r - 1]);
    for (int ph = 0; ph < f->npiece && ph < p->nphase; ph++) {
        const salto_phase_desc* P = &p->phases[ph];
        const salto_contact_desc* ct = &P->contact;
        int mode = 0;
        if (ct->type != SALTO_CONTACT_NONE && ct->hold && ct->effective_root && ct->nsite > 0) mode = 1;
        if (ct->type == SALTO_CONTACT_NONE && P->ballistic && p->physics) mode = 2;
        if (!mode) continue;
        int others = 1, mine = 1;
        for (int j = 0; j < nv; j++) {
            int is_t = 0;
            for (int k = 0; k < f->nt; k++) is_t |= f->tdof[k] == j;
            if (is_t) mine &= f->exact[(size_t)ph * nv + j];
            else others &= f->exact[(size_t)ph * nv + j];
        }
        if (!others || mine) continue; // nothing to derive from, or nothing to derive
        const double a = P->start, b = a + P->duration, tol_t = 1e-4 * hmin + 1e-9 * (1.0 + b);
        double* place = f->derive_P + 6 * ph;
        int first = -1, n = 0;
        double St = 0, Stt = 0, Sy[3] = {0, 0, 0}, Sty[3] = {0, 0, 0};
        // the frames strictly inside the phase: one at a boundary may have been written as
        // the other phase's state (the same, but for the constraint tolerance, at a solution)
        for (int r = 0; r < f->nframe; r++) {
            if (f->t[r] <= a + tol_t || f->t[r] >= b - tol_t) continue;
            if (first < 0) first = r;
            for (int j = 0; j < nv; j++) d->q[j] = f->q[(size_t)r * nv + f->map[j]];
            salto_fk(m, d, SALTO_FK_POS);
            if (mode == 1) {
                if (r == first) salto_site_pos(m, d, salto_problem_root_site(p, ph), place);
            } else {
                double c[3];
                salto_link_inertias(m, d);
                salto_com(m, d, c, NULL);
                const double tau = f->t[r] - a;
                for (int i = 0; i < 3; i++) {
                    const double y = c[i] - 0.5 * m->gravity[i] * tau * tau;
                    Sy[i] += y, Sty[i] += tau * y;
                }
                St += tau, Stt += tau * tau;
            }
            n++;
        }
        if (n < 4) continue;
        if (mode == 2) {
            const double det = (double)n * Stt - St * St;
            if (!(fabs(det) > 0.0)) continue;
            for (int i = 0; i < 3; i++) {
                place[i] = (Stt * Sy[i] - St * Sty[i]) / det;           // c0
                place[3 + i] = ((double)n * Sty[i] - St * Sy[i]) / det; // v0
            }
        }
        f->derive[ph] = mode;
        f->derive_site[ph] = mode == 1 ? salto_problem_root_site(p, ph) : -1;
        // kept only where the translation so derived is the frames'
        double worst = 0.0, scale = 0.0;
        for (int r = 0; r < f->nframe; r++) {
            if (f->t[r] <= a + tol_t || f->t[r] >= b - tol_t) continue;
            double T[3];
            derived_translation(f, ph, f->t[r], T);
            for (int k = 0; k < f->nt; k++) {
                const double y = f->q[(size_t)r * nv + f->map[f->tdof[k]]];
                worst = fmax(worst, fabs(T[k] - y));
                scale = fmax(scale, fabs(y));
            }
        }
        if (!(worst <= 1e-6 * (1.0 + scale))) f->derive[ph] = 0;
    }
    return SALTO_OK;
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
    salto_status s = salto_frames_fit(f, p->nphase - 1, breaks, err);
    salto_free(breaks);
    if (s == SALTO_OK && (fit_exact(f, p) != SALTO_OK || fit_derived(f, p) != SALTO_OK)) {
        s = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    return s;
}


salto_motion* salto_motion_load_csv(const char* path, const salto_model* m, salto_error* inner) {
    salto_frames* f = salto_frames_load_csv(path, inner);
    if (!f) return NULL;
    salto_motion* mo = NULL;
    if (salto_frames_bind(f, m, inner) == SALTO_OK) {
        const int nf = f->nframe, nv = m->nv;
        const double dt = (f->t[nf - 1] - f->t[0]) / (nf - 1);
        int even = dt > 0.0;
        // (to 1e-4 of a frame, and the times' own rounding: motion.csv writes 9 digits)
        for (int k = 1; even && k < nf; k++) {
            even = fabs(f->t[k] - f->t[0] - k * dt) <= 1e-4 * dt + 1e-8 * fabs(f->t[k]);
        }
        if (!even) {
            const salto_src_loc l = {path, 0, 0};
            SALTO_FAIL(inner, SALTO_ERR_INVALID, l, "a reference's frames must be evenly spaced in time");
        } else if ((mo = salto_calloc(1, sizeof *mo)) != NULL) {
            mo->nv = nv, mo->nframe = nf, mo->frame_rate = 1.0 / dt, mo->duration = (nf - 1) * dt;
            mo->converged = -1;
            mo->q = salto_malloc(sizeof(double) * (size_t)nf * (size_t)nv);
            mo->problem = salto_strdup(""), mo->character = salto_strdup("");
            const int dup = salto_strs_dup(nv, (const char* const*)m->link_name, &mo->dof_name);
            if (!mo->q || !mo->problem || !mo->character || dup != 0) {
                salto_motion_destroy(mo);
                mo = NULL;
                SALTO_FAIL(inner, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
            } else {
                for (int k = 0; k < nf; k++) {
                    for (int j = 0; j < nv; j++) mo->q[(size_t)k * nv + j] = f->q[(size_t)k * f->nv + f->map[j]];
                }
            }
        } else {
            SALTO_FAIL(inner, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        }
    }
    salto_frames_destroy(f);
    return mo;
}
