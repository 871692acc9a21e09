// validate_out.c: validation.json and residuals.png (validate.h), each written atomically
#include "salto/validate.h"

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "json_out.h"
#include "salto/atomic.h"

salto_status salto_validation_write_json(const salto_problem_desc* p, const salto_validation* v,
                                         const char* motion_path, const char* path,
                                         salto_error* err) {
    const salto_model* m = p->model;
    salto_atomic a;
    salto_status s = salto_atomic_open(&a, path, 1, err);
    if (s) return s;
    FILE* f = a.f;
    fputs("{\n  \"motion\": ", f);
    salto_json_str(f, motion_path);
    fputs(",\n  \"problem\": ", f);
    salto_json_str(f, p->path);
    fprintf(f, ",\n  \"pass\": %s,\n  \"resimulation\": {\"integrator\": ", v->pass ? "true" : "false");
    salto_json_str(f, salto_integrator_name(v->integrator));
    fputs(", \"step\": ", f);
    salto_json_num(f, v->step);
    fputs(", \"broke_down\": {", f);
    for (int i = 0, n = 0; v->resim_stop && i < p->nphase; i++) {
        if (isnan(v->resim_stop[i])) continue;
        fputs(n++ ? ", " : "", f);
        salto_json_str(f, p->phases[i].name);
        fputs(": ", f);
        salto_json_num(f, v->resim_stop[i]);
    }
    fputs("}},\n  \"phases\": [", f);
    for (int i = 0; i < p->nphase; i++) {
        fputs(i ? ", " : "", f);
        salto_json_str(f, p->phases[i].name);
    }
    fputs("],\n  \"checks\": [\n", f);
    for (int c = 0; c < v->ncheck; c++) {
        const salto_check* k = &v->check[c];
        fputs("    {\"check\": ", f);
        salto_json_str(f, salto_check_name(k->kind));
        fputs(", \"phase\": ", f);
        salto_json_str(f, p->phases[k->phase].name);
        fputs(", \"unit\": ", f);
        salto_json_str(f, salto_check_unit(k->kind));
        fputs(", \"worst\": ", f);
        salto_json_num(f, k->worst);
        fputs(", \"time\": ", f);
        salto_json_num(f, k->worst_time);
        fputs(", \"rms\": ", f);
        salto_json_num(f, k->rms);
        fputs(", \"threshold\": ", f);
        salto_json_num(f, k->threshold);
        fprintf(f, ", \"samples\": %d, \"pass\": %s, \"judged\": %s", k->nsample,
                k->pass ? "true" : "false", k->judged ? "true" : "false");
        const char* at = salto_check_at(m, k);
        if (at) {
            fputs(", \"at\": ", f);
            salto_json_str(f, at);
        }
        fprintf(f, "}%s\n", c + 1 < v->ncheck ? "," : "");
    }
    // joint torques: per DOF its peak and when, and the whole profile in the series
    fputs("  ],\n  \"torque\": {\"dofs\": ", f);
    salto_json_strs(f, m->link_name, v->nv);
    fprintf(f, ", \"root_dofs\": %d, \"unit\": \"N m or N\",\n    \"peak\": ", m->nroot);
    salto_json_nums(f, v->tau_peak, v->nv, 1);
    fputs(",\n    \"peak_time\": ", f);
    salto_json_nums(f, v->tau_peak_time, v->nv, 1);
    fputs("},\n  \"series\": {\n    \"t\": ", f);
    salto_json_nums(f, v->t, v->nsample, 1);
    fputs(",\n    \"phase\": ", f);
    salto_json_ints(f, v->phase, v->nsample);
    fputs(",\n    \"f0\": ", f);
    salto_json_rows(f, v->f0, v->nsample, 6, ", ");
    fputs(",\n    \"tau\": ", f);
    salto_json_rows(f, v->tau, v->nsample, v->nv, ", ");
    for (int kind = 0; kind < SALTO_CHECK_COUNT; kind++) { // NAN (does not apply): null
        fputs(",\n    ", f);
        salto_json_str(f, salto_check_name((salto_check_kind)kind));
        fputs(": ", f);
        salto_json_nums(f, v->violation + kind, v->nsample, SALTO_CHECK_COUNT);
    }
    fputs("\n  }\n}\n", f);
    return salto_atomic_commit(&a, err);
}


// ---- residuals.png ----
//
// One panel per check that applies somewhere: its violation against time on a log scale
// from threshold / 1e4 to the larger of 10 thresholds and the worst value, the threshold as a
// red line, the phases as alternating bands named at the top, the time in seconds along the
// bottom; zero violations sit on the panel's floor.

enum { png_width = 1000, panel_h = 110, top_h = 24, left_w = 150, right_w = 20 };


// the picture's x of time t
static double time_x(const salto_problem_desc* p, double t) {
    const double T = p->duration > 0 ? p->duration : 1.0;
    return left_w + (png_width - right_w - left_w) * t / T;
}


enum { axis_h = 30 }; // the time axis under the panels


// the time axis at height y: ticks at the roundest step that makes at most 12
// (salto_draw_step), labelled in seconds, and "t (s)" in the left margin
static void time_axis(cairo_t* cr, const salto_problem_desc* p, double y) {
    const double T = p->duration > 0 ? p->duration : 1.0;
    const double step = salto_draw_step(T / 12.0);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 1.0);
    cairo_move_to(cr, left_w, y);
    cairo_line_to(cr, png_width - right_w, y);
    cairo_stroke(cr);
    for (int k = 0; k * step <= T * (1.0 + 1e-9); k++) {
        const double t = k * step, x = time_x(p, t);
        cairo_move_to(cr, x, y);
        cairo_line_to(cr, x, y + 5);
        cairo_stroke(cr);
        char label[32];
        snprintf(label, sizeof label, "%g", t);
        salto_draw_text(cr, label, 9.0, x, y + 17);
    }
    salto_draw_text(cr, "t (s)", 10.0, 0.5 * left_w, y + 17);
}


// a white picture with panels_h px of panels between the phases' names at the top and the time
// axis at the bottom, the phases as alternating bands across the panels; NULL with err filled
// when cairo cannot make one
static cairo_t* time_canvas(const salto_problem_desc* p, int panels_h, const char* path,
                            salto_error* err) {
    const int H = top_h + panels_h + axis_h;
    cairo_t* cr = salto_draw_canvas(png_width, H, path, err);
    if (!cr) return NULL;
    for (int i = 0; i < p->nphase; i++) {
        const double u0 = time_x(p, p->phases[i].start);
        const double u1 = time_x(p, p->phases[i].start + p->phases[i].duration);
        const double shade = i % 2 ? 0.93 : 0.97;
        cairo_set_source_rgb(cr, shade, shade, shade);
        cairo_rectangle(cr, u0, top_h, u1 - u0, panels_h);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        salto_draw_text(cr, p->phases[i].name, 10.0, 0.5 * (u0 + u1), top_h - 8);
    }
    time_axis(cr, p, top_h + panels_h + 4);
    return cr;
}



salto_status salto_validation_write_png(const salto_problem_desc* p, const salto_validation* v,
                                        const char* path, salto_error* err) {
    int kinds[SALTO_CHECK_COUNT], nk = 0;
    double worst[SALTO_CHECK_COUNT], thr[SALTO_CHECK_COUNT];
    for (int kind = 0; kind < SALTO_CHECK_COUNT; kind++) {
        int used = 0;
        worst[kind] = 0.0, thr[kind] = 0.0;
        for (int c = 0; c < v->ncheck; c++) {
            if (v->check[c].kind != (salto_check_kind)kind) continue;
            used = 1;
            worst[kind] = fmax(worst[kind], v->check[c].worst);
            thr[kind] = v->check[c].threshold;
        }
        if (used) kinds[nk++] = kind;
    }
    cairo_t* cr = time_canvas(p, panel_h * (nk > 0 ? nk : 1), path, err);
    if (!cr) return SALTO_ERR_NOMEM;
    const double x0 = left_w, x1 = png_width - right_w;
#define U(t) time_x(p, (t))
    for (int q = 0; q < nk; q++) {
        const int kind = kinds[q];
        const double top = top_h + q * panel_h + 8, bottom = top_h + (q + 1) * panel_h - 8;
        const double th = thr[kind] > 0 ? thr[kind] : 1e-12;
        const double lo = log10(th) - 4.0, hi = fmax(log10(th) + 1.0, log10(fmax(worst[kind], 1e-300)) + 0.2);
#define V(e) (bottom - (bottom - top) * (fmin(fmax(log10(fmax((e), 1e-300)), lo), hi) - lo) / (hi - lo))
        cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
        cairo_set_line_width(cr, 1.0);
        cairo_rectangle(cr, x0, top, x1 - x0, bottom - top);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.85, 0.1, 0.1);
        cairo_move_to(cr, x0, V(th));
        cairo_line_to(cr, x1, V(th));
        cairo_stroke(cr);
        // the series, broken where the check does not apply or the phase changes
        cairo_set_source_rgb(cr, 0.1, 0.25, 0.65);
        cairo_set_line_width(cr, 1.5);
        int pen = 0;
        for (int k = 0; k < v->nsample; k++) {
            const double e = v->violation[SALTO_CHECK_COUNT * k + kind];
            if (isnan(e) || (k > 0 && v->phase[k] != v->phase[k - 1])) {
                if (pen) cairo_stroke(cr);
                pen = 0;
                if (isnan(e)) continue;
            }
            if (pen) {
                cairo_line_to(cr, U(v->t[k]), V(e));
            } else {
                cairo_move_to(cr, U(v->t[k]), V(e));
                pen = 1;
            }
        }
        if (pen) cairo_stroke(cr);
#undef V
        char label[64];
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        snprintf(label, sizeof label, "%s", salto_check_name((salto_check_kind)kind));
        salto_draw_text(cr, label, 10.0, 0.5 * left_w, top + 20);
        snprintf(label, sizeof label, "(%s)", salto_check_unit((salto_check_kind)kind));
        salto_draw_text(cr, label, 9.0, 0.5 * left_w, top + 36);
        snprintf(label, sizeof label, "max %.2g", worst[kind]);
        salto_draw_text(cr, label, 9.0, 0.5 * left_w, top + 56);
        cairo_set_source_rgb(cr, 0.85, 0.1, 0.1);
        snprintf(label, sizeof label, "limit %.2g", thr[kind]);
        salto_draw_text(cr, label, 9.0, 0.5 * left_w, top + 74);
    }
#undef U

    return salto_write_png(cr, path, err);
}


// ---- torques.png ----
//
// One panel per joint past the root: its torque against time (linear, symmetric about zero,
// scaled to its peak), the phases as bands named at the top, the peak written on the left.

enum { tpanel_h = 60 };

// a series against time in a panel from top to bottom scaled to +-peak (clamped to the panel),
// broken at the phase boundaries: sample k's value is y[stride k + stretch j]
static void torque_series(cairo_t* cr, const salto_problem_desc* p, const salto_validation* v,
                          const double* y, int stride, int j, int stretch, double top,
                          double bottom, double peak) {
    const double mid = 0.5 * (top + bottom);
    for (int k = 0; k < v->nsample; k++) {
        const double val = y[(size_t)stride * k + (size_t)stretch * j];
        const double py = fmin(bottom, fmax(top, mid - 0.5 * (bottom - top) * val / peak));
        if (k == 0 || v->phase[k] != v->phase[k - 1]) {
            if (k > 0) cairo_stroke(cr);
            cairo_move_to(cr, time_x(p, v->t[k]), py);
        } else {
            cairo_line_to(cr, time_x(p, v->t[k]), py);
        }
    }
    cairo_stroke(cr);
}

salto_status salto_validation_write_torques_png(const salto_problem_desc* p, const salto_validation* v,
                                                const char* path, salto_error* err) {
    const salto_model* m = p->model;
    const int nj = v->nv - m->nroot;
    cairo_t* cr = time_canvas(p, tpanel_h * (nj > 0 ? nj : 1), path, err);
    if (!cr) return SALTO_ERR_NOMEM;
    const double x0 = left_w, x1 = png_width - right_w;
#define U(t) time_x(p, (t))
    for (int q = 0; q < nj; q++) {
        const int j = m->nroot + q;
        const double top = top_h + q * tpanel_h + 4, bottom = top_h + (q + 1) * tpanel_h - 4;
        const int lim = v->tau_lim && m->link_has_torque[j];
        double peak = v->tau_peak[j] > 0 ? v->tau_peak[j] : 1.0;
        // with limits, room past the larger of them and the peak, so that the limits show
        if (lim) peak = 1.15 * fmax(peak, fmax(-m->link_torque[2 * j], m->link_torque[2 * j + 1]));
        const double mid = 0.5 * (top + bottom);
        cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
        cairo_set_line_width(cr, 1.0);
        cairo_rectangle(cr, x0, top, x1 - x0, bottom - top);
        cairo_stroke(cr);
        cairo_move_to(cr, x0, mid);
        cairo_line_to(cr, x1, mid);
        cairo_stroke(cr);
        // the torque limits (with a torque-velocity slope, where the joint's speed puts them),
        // dashed red
        for (int side = 0; lim && side < 2; side++) {
            const double dash[2] = {4.0, 3.0};
            cairo_set_source_rgb(cr, 0.8, 0.15, 0.1);
            cairo_set_line_width(cr, 1.0);
            cairo_set_dash(cr, dash, 2, 0.0);
            torque_series(cr, p, v, v->tau_lim + side, 2 * v->nv, j, 2, top, bottom, peak);
            cairo_set_dash(cr, NULL, 0, 0.0);
        }
        cairo_set_source_rgb(cr, 0.1, 0.25, 0.65);
        cairo_set_line_width(cr, 1.5);
        torque_series(cr, p, v, v->tau, v->nv, j, 1, top, bottom, peak);
        char label[96];
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        salto_draw_text(cr, m->link_name[j], 10.0, 0.5 * left_w, top + 20);
        snprintf(label, sizeof label, "peak %.3g %s", v->tau_peak[j],
                 m->link_type[j] == SALTO_AXIS_PRISMATIC ? "N" : "N m");
        salto_draw_text(cr, label, 9.0, 0.5 * left_w, top + 38);
        if (lim) {
            snprintf(label, sizeof label, "limit [%.3g, %.3g]", m->link_torque[2 * j],
                     m->link_torque[2 * j + 1]);
            salto_draw_text(cr, label, 9.0, 0.5 * left_w, top + 52);
        }
    }
#undef U
    return salto_write_png(cr, path, err);
}
