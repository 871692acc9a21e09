// batch_png.c: summary.png, a measure of a batch's jobs against the swept parameter(s)
//
// The first parameter is the x axis. A grid's other parameters pick the line: one line per
// combination of their values, in a colour of its own and labelled on the right. Zipped
// parameters move together, so their jobs make one line in job order. Converged jobs are
// filled dots, the others hollow (their best iterate's measure, where there is one); a job
// whose measure is unknown (crashed, missing) leaves a gap in its line.
#include "salto/batch.h"

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"

enum { png_w = 960, png_h = 600, left = 100, right = 250, top = 50, bottom = 80 };

static const double palette[][3] = {
    {0.10, 0.25, 0.65}, {0.85, 0.35, 0.05}, {0.15, 0.55, 0.20}, {0.75, 0.10, 0.15},
    {0.45, 0.25, 0.60}, {0.50, 0.35, 0.20}, {0.85, 0.40, 0.65}, {0.35, 0.35, 0.35},
    {0.65, 0.65, 0.10}, {0.05, 0.60, 0.65}};


// the line a job belongs to: its first job of the same values of the parameters past the first
static int line_of(const salto_sweep* s, int j) {
    if (s->combine == SALTO_SWEEP_ZIP || s->nparam == 1) return 0;
    for (int i = 0; i <= j; i++) {
        int same = 1;
        for (int k = 1; same && k < s->nparam; k++) {
            same = s->job_value[i * s->nparam + k] == s->job_value[j * s->nparam + k];
        }
        if (same) return i;
    }
    return j;
}


// the parameter as a title names it: the path without its leading list ('phases.',
// 'constraints.'), a list index as [k] on its list ("landing.contact.friction",
// "landing_spot.point[0]", "flight.duration"); the last part alone said "0" for a point's x
const char* salto_batch_param_label(const char* path, char* buf, size_t n) {
    const char* p = path;
    if (strncmp(p, "phases.", 7) == 0) p += 7;
    else if (strncmp(p, "constraints.", 12) == 0) p += 12;
    size_t k = 0;
    while (*p && k + 2 < n) {
        const char* dot = strchr(p, '.');
        const size_t len = dot ? (size_t)(dot - p) : strlen(p);
        int index = len > 0;
        for (size_t i = 0; i < len; i++) index &= p[i] >= '0' && p[i] <= '9';
        const int w = index ? snprintf(buf + k, n - k, "[%.*s]", (int)len, p)
                            : snprintf(buf + k, n - k, "%s%.*s", k > 0 ? "." : "", (int)len, p);
        if (w < 0 || (size_t)w >= n - k) break;
        k += (size_t)w;
        p = dot ? dot + 1 : p + len;
    }
    buf[k < n ? k : n - 1] = '\0';
    return buf;
}


salto_status salto_batch_write_png(const char* path, const salto_sweep* s,
                                   const salto_job_result* results, salto_batch_measure measure,
                                   salto_error* err) {
    cairo_t* cr = salto_draw_canvas(png_w, png_h, path, err);
    if (!cr) return SALTO_ERR_NOMEM; // (err, if given, says why)

    // the ranges, padded; a single value gets a unit-wide axis around it
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (int j = 0; j < s->njob; j++) {
        const double x = salto_sweep_job_value(s, j, 0), y = results[j].measure[measure];
        xlo = fmin(xlo, x), xhi = fmax(xhi, x);
        if (isfinite(y)) ylo = fmin(ylo, y), yhi = fmax(yhi, y);
    }
    if (!(xhi > xlo)) xlo -= 0.5, xhi += 0.5;
    if (!isfinite(ylo)) ylo = 0.0, yhi = 1.0;
    if (!(yhi > ylo)) {
        const double w = fabs(ylo) > 0 ? 0.05 * fabs(ylo) : 0.5;
        ylo -= w, yhi += w;
    }
    const double xpad = 0.05 * (xhi - xlo), ypad = 0.08 * (yhi - ylo);
    xlo -= xpad, xhi += xpad, ylo -= ypad, yhi += ypad;
    const double u0 = left, u1 = png_w - right, v0 = png_h - bottom, v1 = top;
#define U(x) (u0 + (u1 - u0) * ((x) - xlo) / (xhi - xlo))
#define V(y) (v0 + (v1 - v0) * ((y) - ylo) / (yhi - ylo))

    // frame, ticks and labels
    cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
    cairo_set_line_width(cr, 1.0);
    cairo_rectangle(cr, u0, v1, u1 - u0, v0 - v1);
    cairo_stroke(cr);
    char label[300];
    for (int t = 0; t <= 4; t++) {
        const double x = xlo + xpad + (xhi - xlo - 2 * xpad) * t / 4.0;
        const double y = ylo + ypad + (yhi - ylo - 2 * ypad) * t / 4.0;
        cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
        cairo_move_to(cr, U(x), v0);
        cairo_line_to(cr, U(x), v0 + 5);
        cairo_move_to(cr, u0 - 5, V(y));
        cairo_line_to(cr, u0, V(y));
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        snprintf(label, sizeof label, "%.4g", x);
        salto_draw_text(cr, label, 10.0, U(x), v0 + 20);
        snprintf(label, sizeof label, "%.4g", y);
        salto_draw_text(cr, label, 10.0, 0.5 * u0, V(y) + 4);
    }
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    salto_draw_text(cr, s->params[0].path, 11.0, 0.5 * (u0 + u1), v0 + 48);
    char n0[200], n1[200];
    if (s->nparam == 1 || s->combine == SALTO_SWEEP_ZIP) {
        snprintf(label, sizeof label, "%s against %s", salto_batch_measure_name(measure),
                 salto_batch_param_label(s->params[0].path, n0, sizeof n0));
    } else {
        snprintf(label, sizeof label, "%s against %s, one line per %s%s",
                 salto_batch_measure_name(measure), salto_batch_param_label(s->params[0].path, n0, sizeof n0),
                 salto_batch_param_label(s->params[1].path, n1, sizeof n1), s->nparam > 2 ? " and ..." : "");
    }
    salto_draw_text(cr, label, 13.0, 0.5 * (u0 + u1), top - 20);

    // one line per combination of the other parameters, with its label on the right
    int nline = 0;
    for (int j = 0; j < s->njob; j++) {
        if (line_of(s, j) != j) continue;
        const double* c = palette[nline % (int)(sizeof palette / sizeof palette[0])];
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        cairo_set_line_width(cr, 1.5);
        int pen = 0;
        for (int i = j; i < s->njob; i++) {
            if (line_of(s, i) != j) continue;
            const double y = results[i].measure[measure];
            if (!isfinite(y)) {
                if (pen) cairo_stroke(cr);
                pen = 0;
                continue;
            }
            const double x = salto_sweep_job_value(s, i, 0);
            if (pen) {
                cairo_line_to(cr, U(x), V(y));
            } else {
                cairo_move_to(cr, U(x), V(y));
                pen = 1;
            }
        }
        if (pen) cairo_stroke(cr);
        for (int i = j; i < s->njob; i++) {
            const double y = results[i].measure[measure];
            if (line_of(s, i) != j || !isfinite(y)) continue;
            cairo_new_sub_path(cr);
            cairo_arc(cr, U(salto_sweep_job_value(s, i, 0)), V(y), 4.0, 0, 2 * 3.14159265358979);
            if (results[i].status == SALTO_JOB_CONVERGED) {
                cairo_fill(cr);
            } else {
                cairo_set_source_rgb(cr, 1, 1, 1);
                cairo_fill_preserve(cr);
                cairo_set_source_rgb(cr, c[0], c[1], c[2]);
                cairo_stroke(cr);
            }
        }
        if (s->nparam > 1 && nline < 24) {
            int len = 0;
            label[0] = '\0';
            for (int k = 1; k < s->nparam && len >= 0 && (size_t)len < sizeof label; k++) {
                char nk[200];
                len += snprintf(label + len, sizeof label - (size_t)len, "%s%s %.4g",
                                k > 1 ? ", " : "", salto_batch_param_label(s->params[k].path, nk, sizeof nk),
                                salto_sweep_job_value(s, j, k));
            }
            const double v = top + 10 + 20 * nline;
            cairo_move_to(cr, u1 + 12, v - 4);
            cairo_line_to(cr, u1 + 32, v - 4);
            cairo_stroke(cr);
            salto_draw_text(cr, s->combine == SALTO_SWEEP_ZIP ? "zipped" : label, 10.0,
                            u1 + 40 + 0.5 * (right - 50), v);
        }
        nline++;
    }
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    salto_draw_text(cr, "filled: converged   hollow: not converged", 9.0, 0.5 * (u0 + u1),
                    png_h - 10);
#undef U
#undef V
    return salto_write_png(cr, path, err);
}
