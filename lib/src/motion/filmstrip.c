// filmstrip.c: a motion as a row of side-view poses in a PNG image (filmstrip.png, cairo)
//
// The only file that includes cairo.h. Each pose is the character at one of nframes evenly
// spaced times (the first at 0, the last at the motion's duration), seen from the side: the
// camera is on the -y side looking towards +y, so world x runs to the right and world z up
// (a right-handed view, not a mirror image). Every pose gets a panel of the same width; the
// middle of a pose's horizontal extent sits in the middle of its panel, and all poses share
// one scale and one vertical placement, so heights can be compared across the strip; ticks
// along the ground mark the world's x in metres in every panel, so that travel shows.
//
// Bodies on the near side (names ending in _r, and bodies without a side: the trunk, every
// body of a planar character) are drawn dark and last; bodies on the far side (_l) light and
// first. Capsules
// are thick lines with round caps of the capsule's diameter, spheres circles, boxes the
// outline of their projected corners. The contact sites of the phase active at a pose's
// time are red dots, the bar of a bar phase a small dark disc at the bar point.
#include "salto/motion.h"
#include "draw.h"

#include "salto/atomic.h"

#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/kinematics.h"
#include "salto/problem.h"
#include "salto/spatial.h"

static const double two_pi = 6.283185307179586476925286766559;

enum {
    panel_width = 240,  // px per pose
    image_height = 400, // px
    margin = 14,        // px, around the drawing area of a panel
    label_height = 44,  // px, band under the poses for the time and phase name
    max_poses = 128     // keeps the image within cairo's 32767 px
};

// ---- sampling and geometry in the world ----

// 1 if body k is on the far side: the character's left (name ending in _l); bodies without a
// side (the trunk, the head, every body of a planar character) stay near whatever their pose
static int far_side(const salto_model* m, int k) {
    const char* name = m->body_name[k];
    const size_t n = name ? strlen(name) : 0;
    return n >= 2 && name[n - 2] == '_' && (name[n - 1] == 'l' || name[n - 1] == 'L');
}


// the phase active at t (clamped to the problem's span), or -1
static int phase_at(const salto_problem_desc* p, double t) {
    return salto_problem_phase_at(p, t > p->duration ? p->duration : t);
}


// ---- extents and layout ----

static void grow(double box[4], double x, double z, double r) {
    if (x - r < box[0]) box[0] = x - r;
    if (x + r > box[1]) box[1] = x + r;
    if (z - r < box[2]) box[2] = z - r;
    if (z + r > box[3]) box[3] = z + r;
}


// extent of the pose in d (geometry, contact sites and bar): box = xmin, xmax, zmin, zmax
static void pose_extent(const salto_problem_desc* p, const salto_data* d, int ph,
                        double box[4]) {
    const salto_model* m = p->model;
    box[0] = box[2] = INFINITY;
    box[1] = box[3] = -INFINITY;
    for (int g = 0; g < m->ngeom; g++) {
        double pts[8][3], r;
        const int n = salto_geom_points(m, d, g, pts, &r);
        for (int j = 0; j < n; j++) grow(box, pts[j][0], pts[j][2], r);
    }
    for (int k = 0; k < m->nbody; k++) {
        const double* R;
        const double* o;
        salto_body_frame(m, d, k, &R, &o);
        grow(box, o[0], o[2], 0.0);
    }
    if (ph >= 0) {
        const salto_contact_desc* c = &p->phases[ph].contact;
        for (int i = 0; i < c->nsite; i++) {
            double x[3];
            salto_site_pos(m, d, c->site[i], x);
            grow(box, x[0], x[2], 0.0);
        }
        if (c->type == SALTO_CONTACT_BAR) grow(box, c->bar_point[0], c->bar_point[2], 0.03);
    }
    for (int k = 0; k < p->ncon; k++) {
        const salto_constraint_desc* cd = &p->cons[k];
        if (cd->type == SALTO_CON_CLEAR_BAR) grow(box, cd->point[0], cd->point[2], cd->height);
    }
    // a box's top in view (the ground is already)
    for (int b = 0; b < p->nbox; b++) grow(box, box[0], p->boxes[b].hi[2], 0.0);
}


// ---- drawing ----

typedef struct strip_pen {
    cairo_t* cr;
    double scale;     // px per metre
    double x0, z0;    // world point drawn at (u0, v0)
    double u0, v0;    // px
} strip_pen;


// world (x, z) -> image (u, v): u to the right with x, v down against z
static void project(const strip_pen* pen, const double x[3], double* u, double* v) {
    *u = pen->u0 + (x[0] - pen->x0) * pen->scale;
    *v = pen->v0 - (x[2] - pen->z0) * pen->scale;
}


static void set_rgb(cairo_t* cr, const double c[3]) {
    cairo_set_source_rgb(cr, c[0], c[1], c[2]);
}


// convex hull of n points (u, v) by Andrew's monotone chain, in place order; returns its size
static int hull(double pt[][2], int n, double out[][2]) {
    // insertion sort by u, then v (n <= 8)
    for (int i = 1; i < n; i++) {
        double a[2] = {pt[i][0], pt[i][1]};
        int j = i - 1;
        while (j >= 0 && (pt[j][0] > a[0] || (pt[j][0] == a[0] && pt[j][1] > a[1]))) {
            pt[j + 1][0] = pt[j][0], pt[j + 1][1] = pt[j][1];
            j--;
        }
        pt[j + 1][0] = a[0], pt[j + 1][1] = a[1];
    }
    // lower then upper chain, dropping points that do not turn left: cross(o, a, b) > 0
    int h = 0;
    for (int pass = 0; pass < 2; pass++) {
        const int start = h;
        for (int t = 0; t < n; t++) {
            const int i = pass == 0 ? t : n - 1 - t;
            while (h >= start + 2) {
                const double* o = out[h - 2];
                const double* a = out[h - 1];
                const double cr = (a[0] - o[0]) * (pt[i][1] - o[1]) -
                                  (a[1] - o[1]) * (pt[i][0] - o[0]);
                if (cr > 0.0) break;
                h--;
            }
            out[h][0] = pt[i][0], out[h][1] = pt[i][1];
            h++;
        }
        h--; // the last point of each chain starts the other one
    }
    return h;
}


// one geometry primitive: an outline a little wider than the shape, then the shape
static void draw_geom(const strip_pen* pen, const salto_model* m, const salto_data* d, int g,
                      const double fill[3], const double line[3]) {
    cairo_t* cr = pen->cr;
    double pts[8][3], r;
    const int n = salto_geom_points(m, d, g, pts, &r);
    const double rpx = r * pen->scale;
    const double edge = 1.5; // px
    if (m->geom_shape[g] == SALTO_GEOM_CAPSULE) {
        double u0, v0, u1, v1;
        project(pen, pts[0], &u0, &v0);
        project(pen, pts[1], &u1, &v1);
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
        for (int pass = 0; pass < 2; pass++) {
            cairo_move_to(cr, u0, v0);
            cairo_line_to(cr, u1, v1);
            cairo_set_line_width(cr, 2.0 * rpx + (pass == 0 ? 2.0 * edge : 0.0));
            set_rgb(cr, pass == 0 ? line : fill);
            cairo_stroke(cr);
        }
    } else if (m->geom_shape[g] == SALTO_GEOM_SPHERE) {
        double u, v;
        project(pen, pts[0], &u, &v);
        cairo_arc(cr, u, v, rpx, 0.0, two_pi);
        set_rgb(cr, fill);
        cairo_fill_preserve(cr);
        cairo_set_line_width(cr, edge);
        set_rgb(cr, line);
        cairo_stroke(cr);
    } else {
        double uv[8][2], out[16][2];
        for (int j = 0; j < n; j++) project(pen, pts[j], &uv[j][0], &uv[j][1]);
        const int h = hull(uv, n, out);
        for (int j = 0; j < h; j++) {
            if (j == 0) {
                cairo_move_to(cr, out[j][0], out[j][1]);
            } else {
                cairo_line_to(cr, out[j][0], out[j][1]);
            }
        }
        cairo_close_path(cr);
        set_rgb(cr, fill);
        cairo_fill_preserve(cr);
        cairo_set_line_width(cr, edge);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        set_rgb(cr, line);
        cairo_stroke(cr);
    }
}


// ---- labels in a built-in stroke font ----
//
// Labels are drawn as strokes rather than with cairo's font API: the image then does not
// depend on the fonts installed (a build machine may have none), and fontconfig, whose
// caches live until exit and are reported by LeakSanitizer, is never loaded. Glyphs are
// polylines on a grid 4 units wide, baseline y = 0, x-height 4, digit and ascender height
// 6, descender -2, capitals 6 high; ';' separates strokes, a repeated point is a dot. Other
// characters are drawn as a space.

static const char* glyph(int ch) {
    static const char* digit[10] = {
        "1,0 3,0 4,1 4,5 3,6 1,6 0,5 0,1 1,0",
        "1,5 2,6 2,0;1,0 3,0",
        "0,5 1,6 3,6 4,5 4,4 0,0 4,0",
        "0,5 1,6 3,6 4,5 4,4 3,3 1,3;3,3 4,2 4,1 3,0 1,0 0,1",
        "3,0 3,6 0,2 4,2",
        "4,6 0,6 0,3 3,3 4,2 4,1 3,0 0,0",
        "4,5 3,6 1,6 0,5 0,1 1,0 3,0 4,1 4,2 3,3 0,3",
        "0,6 4,6 1,0",
        "1,3 0,4 0,5 1,6 3,6 4,5 4,4 3,3 1,3 0,2 0,1 1,0 3,0 4,1 4,2 3,3",
        "4,3 1,3 0,4 0,5 1,6 3,6 4,5 4,1 3,0 1,0 0,1",
    };
    static const char* lower[26] = {
        "4,4 4,0;4,3 3,4 1,4 0,3 0,1 1,0 3,0 4,1",             // a
        "0,6 0,0;0,3 1,4 3,4 4,3 4,1 3,0 1,0 0,1",             // b
        "4,3 3,4 1,4 0,3 0,1 1,0 3,0 4,1",                     // c
        "4,6 4,0;4,3 3,4 1,4 0,3 0,1 1,0 3,0 4,1",             // d
        "0,2 4,2 4,3 3,4 1,4 0,3 0,1 1,0 4,0",                 // e
        "4,5 3,6 2,6 1,5 1,0;0,4 3,4",                         // f
        "4,4 4,-1 3,-2 1,-2 0,-1;4,3 3,4 1,4 0,3 0,1 1,0 3,0 4,1", // g
        "0,6 0,0;0,3 1,4 3,4 4,3 4,0",                         // h
        "2,4 2,0;2,6 2,6",                                     // i
        "3,4 3,-1 2,-2 1,-2;3,6 3,6",                          // j
        "0,6 0,0;4,4 0,1;1,2 4,0",                             // k
        "1,6 2,6 2,1 3,0",                                     // l
        "0,4 0,0;0,3 1,4 2,3 2,0;2,3 3,4 4,3 4,0",             // m
        "0,4 0,0;0,3 1,4 3,4 4,3 4,0",                         // n
        "1,0 3,0 4,1 4,3 3,4 1,4 0,3 0,1 1,0",                 // o
        "0,4 0,-2;0,3 1,4 3,4 4,3 4,1 3,0 1,0 0,1",            // p
        "4,4 4,-2;4,3 3,4 1,4 0,3 0,1 1,0 3,0 4,1",            // q
        "0,4 0,0;0,2 2,4 4,4",                                 // r
        "4,3 3,4 1,4 0,3 1,2 3,2 4,1 3,0 1,0 0,1",             // s
        "2,6 2,1 3,0 4,0;0,4 4,4",                             // t
        "0,4 0,1 1,0 3,0 4,1;4,4 4,0",                         // u
        "0,4 2,0 4,4",                                         // v
        "0,4 1,0 2,3 3,0 4,4",                                 // w
        "0,4 4,0;0,0 4,4",                                     // x
        "0,4 2,0;4,4 1,-2",                                    // y
        "0,4 4,4 0,0 4,0",                                     // z
    };
    static const char* upper[26] = {
        "0,0 2,6 4,0;1,3 3,3",                                 // A
        "0,0 0,6 3,6 4,5 4,4 3,3 0,3;3,3 4,2 4,1 3,0 0,0",     // B
        "4,5 3,6 1,6 0,5 0,1 1,0 3,0 4,1",                     // C
        "0,0 0,6 2,6 4,4 4,2 2,0 0,0",                         // D
        "4,6 0,6 0,0 4,0;0,3 3,3",                             // E
        "4,6 0,6 0,0;0,3 3,3",                                 // F
        "4,5 3,6 1,6 0,5 0,1 1,0 3,0 4,1 4,3 2,3",             // G
        "0,6 0,0;4,6 4,0;0,3 4,3",                             // H
        "1,6 3,6;2,6 2,0;1,0 3,0",                             // I
        "4,6 4,1 3,0 1,0 0,1",                                 // J
        "0,6 0,0;4,6 0,2;1,3 4,0",                             // K
        "0,6 0,0 4,0",                                         // L
        "0,0 0,6 2,3 4,6 4,0",                                 // M
        "0,0 0,6 4,0 4,6",                                     // N
        "1,0 3,0 4,1 4,5 3,6 1,6 0,5 0,1 1,0",                 // O
        "0,0 0,6 3,6 4,5 4,4 3,3 0,3",                         // P
        "1,0 3,0 4,1 4,5 3,6 1,6 0,5 0,1 1,0;2,2 4,0",         // Q
        "0,0 0,6 3,6 4,5 4,4 3,3 0,3;2,3 4,0",                 // R
        "4,5 3,6 1,6 0,5 0,4 1,3 3,3 4,2 4,1 3,0 1,0 0,1",     // S
        "0,6 4,6;2,6 2,0",                                     // T
        "0,6 0,1 1,0 3,0 4,1 4,6",                             // U
        "0,6 2,0 4,6",                                         // V
        "0,6 1,0 2,4 3,0 4,6",                                 // W
        "0,6 4,0;0,0 4,6",                                     // X
        "0,6 2,3 4,6;2,3 2,0",                                 // Y
        "0,6 4,6 0,0 4,0",                                     // Z
    };
    if (ch >= '0' && ch <= '9') return digit[ch - '0'];
    if (ch >= 'a' && ch <= 'z') return lower[ch - 'a'];
    if (ch >= 'A' && ch <= 'Z') return upper[ch - 'A'];
    switch (ch) {
    case '.': return "2,0 2,0";
    case ',': return "2,0 1,-1";
    case ':': return "2,1 2,1;2,4 2,4";
    case '=': return "0,2 4,2;0,4 4,4";
    case '-': return "0,3 4,3";
    case '+': return "0,3 4,3;2,1 2,5";
    case '_': return "0,0 4,0";
    case '/': return "0,0 4,6";
    case '(': return "3,6 1,4 1,2 3,0";
    case ')': return "1,6 3,4 3,2 1,0";
    default: return "";
    }
}


double salto_draw_step(double least) {
    static const double steps[] = {0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100};
    for (int k = 0; k < 12; k++) {
        if (steps[k] >= least) return steps[k];
    }
    return steps[11];
}


// text of height size px (digits), centred at u, baseline v
void salto_draw_text(cairo_t* cr, const char* s, double size, double u, double v) {
    const double unit = size / 6.0, advance = 6.0; // px per grid unit; units per character
    const double width = (advance * (double)strlen(s) - 2.0) * unit;
    cairo_set_line_width(cr, fmax(1.0, 0.14 * size));
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    double x0 = u - 0.5 * width;
    for (; *s; s++, x0 += advance * unit) {
        const char* g = glyph((unsigned char)*s);
        int pen_down = 0;
        while (*g) {
            char* e;
            const long gx = strtol(g, &e, 10);
            const long gy = strtol(e + 1, &e, 10); // skips the comma
            const double px = x0 + (double)gx * unit, py = v - (double)gy * unit;
            if (pen_down) {
                cairo_line_to(cr, px, py);
            } else {
                cairo_move_to(cr, px, py);
                pen_down = 1;
            }
            if (*e == ';') pen_down = 0;
            g = *e ? e + 1 : e;
        }
    }
    cairo_stroke(cr);
}


// a bar through point x (across the view), radius r (m; at least 4 px): a dark disc
static void draw_bar(const strip_pen* pen, const double x[3], double r) {
    cairo_t* cr = pen->cr;
    double u, v;
    project(pen, x, &u, &v);
    cairo_arc(cr, u, v, fmax(4.0, r * pen->scale), 0.0, two_pi);
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 1.0, 1.0, 1.0);
    cairo_set_line_width(cr, 1.0);
    cairo_stroke(cr);
}


// pose k of the strip: bodies far side first, then contacts, bar and labels
static void draw_pose(const strip_pen* pen, const salto_problem_desc* p, const salto_data* d,
                      int ph, double t) {
    static const double far_fill[3] = {0.80, 0.84, 0.91}, far_line[3] = {0.58, 0.64, 0.74};
    static const double near_fill[3] = {0.33, 0.42, 0.60}, near_line[3] = {0.13, 0.17, 0.27};
    const salto_model* m = p->model;
    cairo_t* cr = pen->cr;

    // the boxes behind everything, seen from the side, clipped to the pose's panel
    if (p->nbox > 0) {
        cairo_save(cr);
        cairo_rectangle(cr, pen->u0 - 0.5 * panel_width, 0.0, panel_width, image_height - label_height);
        cairo_clip(cr);
        for (int b = 0; b < p->nbox; b++) {
            // seen from the side: the x extent of its footprint (turned by its yaw)
            const salto_box_desc* bx = &p->boxes[b];
            const double cx = 0.5 * (bx->lo[0] + bx->hi[0]), hx = 0.5 * (bx->hi[0] - bx->lo[0]);
            const double hy = 0.5 * (bx->hi[1] - bx->lo[1]);
            const double ex = fabs(cos(bx->yaw)) * hx + fabs(sin(bx->yaw)) * hy;
            const double lo[3] = {cx - ex, 0.0, bx->lo[2]};
            const double hi[3] = {cx + ex, 0.0, bx->hi[2]};
            double u0, v0, u1, v1;
            project(pen, lo, &u0, &v0);
            project(pen, hi, &u1, &v1);
            cairo_rectangle(cr, u0, v1, u1 - u0, v0 - v1);
            cairo_set_source_rgb(cr, 0.86, 0.80, 0.70);
            cairo_fill_preserve(cr);
            cairo_set_source_rgb(cr, 0.55, 0.50, 0.42);
            cairo_set_line_width(cr, 1.5);
            cairo_stroke(cr);
        }
        cairo_restore(cr);
    }

    for (int side = 1; side >= 0; side--) {
        for (int g = 0; g < m->ngeom; g++) {
            if (far_side(m, m->geom_body[g]) != side) continue;
            draw_geom(pen, m, d, g, side ? far_fill : near_fill, side ? far_line : near_line);
        }
    }

    // the bars the body must clear (clear_bar), in every pose
    for (int k = 0; k < p->ncon; k++) {
        if (p->cons[k].type == SALTO_CON_CLEAR_BAR) draw_bar(pen, p->cons[k].point, p->cons[k].height);
    }
    if (ph >= 0) {
        const salto_contact_desc* c = &p->phases[ph].contact;
        if (c->type == SALTO_CONTACT_BAR) draw_bar(pen, c->bar_point, 0.014);
        for (int i = 0; i < c->nsite; i++) {
            double x[3], u, v;
            salto_site_pos(m, d, c->site[i], x);
            project(pen, x, &u, &v);
            cairo_arc(cr, u, v, 3.5, 0.0, two_pi);
            cairo_set_source_rgb(cr, 0.85, 0.10, 0.10);
            cairo_fill(cr);
        }
    }

    // the time, and the phase under it
    char label[160];
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    snprintf(label, sizeof label, "t = %.2f s", t);
    salto_draw_text(cr, label, 11.0, pen->u0, image_height - label_height + 18.0);
    if (ph >= 0 && p->phases[ph].name) {
        snprintf(label, sizeof label, "%.30s", p->phases[ph].name);
        cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
        salto_draw_text(cr, label, 8.0, pen->u0, image_height - label_height + 34.0);
    }
}


// the world's x along the ground in a pose's panel (so that travel shows though each pose is
// centred in its own): a tick every step metres (salto_draw_step: the roundest at least 40 px
// apart) on the ground line at v_ground, labelled in metres below it where the
// label band leaves room
static void draw_ground_ticks(const strip_pen* pen, double v_ground) {
    const double step = salto_draw_step(40.0 / pen->scale);
    cairo_t* cr = pen->cr;
    const double half = 0.5 * panel_width - 4.0;
    const double xa = pen->x0 - half / pen->scale, xb = pen->x0 + half / pen->scale;
    const int labels = v_ground + 16.0 < image_height - label_height + 2.0;
    cairo_set_source_rgb(cr, 0.55, 0.50, 0.42);
    cairo_set_line_width(cr, 1.5);
    for (long i = (long)ceil(xa / step); i * step <= xb; i++) {
        const double x = i * step, u = pen->u0 + (x - pen->x0) * pen->scale;
        cairo_move_to(cr, u, v_ground);
        cairo_line_to(cr, u, v_ground + 6.0);
        cairo_stroke(cr);
        if (labels) {
            char label[32];
            snprintf(label, sizeof label, "%g", fabs(x) < 1e-12 ? 0.0 : x);
            salto_draw_text(cr, label, 8.0, u, v_ground + 16.0);
        }
    }
}


// ---- writing ----

// time of pose k of n over [0, T]: evenly spaced, both ends included (exactly)
static double pose_time(int k, int n, double T) {
    if (n < 2 || k == 0) return 0.0;
    return k == n - 1 ? T : T * k / (n - 1);
}


salto_status salto_motion_write_filmstrip(const salto_problem_desc* p, const salto_motion* mo,
                                          int nframes, const char* path, salto_error* err) {
    if (!p || !p->model || !mo || !path || !path[0]) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(),
                          "drawing a filmstrip needs a problem, a motion and a path");
    }
    const salto_model* m = p->model;
    if (mo->nv != m->nv || mo->nframe < 1 || !(mo->frame_rate > 0.0) || !mo->q) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(),
                          "motion (%d DOFs, %d frames, %g fps) does not fit character '%s' "
                          "(%d DOFs) in '%s'",
                          mo->nv, mo->nframe, mo->frame_rate, m->name, m->nv, path);
    }
    if (nframes < 1 || nframes > max_poses) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(),
                          "a filmstrip has 1 to %d poses, not %d ('%s')", max_poses, nframes,
                          path);
    }

    salto_data* d = salto_data_create(m);
    double* xmid = salto_malloc((size_t)nframes * sizeof(double));
    if (!d || !xmid) {
        salto_data_destroy(d);
        salto_free(xmid);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory drawing '%s'",
                          path);
    }

    // pose k at t_k = k T / (n - 1); a single pose at t = 0
    const double T = mo->duration; // 0 for a single frame

    // one scale for all poses: the widest pose fits its panel, the tallest the image height;
    // the ground (z = 0) is always in view
    double width = 0.0, zmin = 0.0, zmax = 0.0;
    for (int k = 0; k < nframes; k++) {
        double box[4];
        const double t = pose_time(k, nframes, T);
        salto_motion_sample(mo, t, d->q);
        salto_fk(m, d, SALTO_FK_POS);
        pose_extent(p, d, phase_at(p, t), box);
        xmid[k] = 0.5 * (box[0] + box[1]);
        width = fmax(width, box[1] - box[0]);
        zmin = fmin(zmin, box[2]);
        zmax = fmax(zmax, box[3]);
    }
    const double area_w = panel_width - 2 * margin;
    const double area_h = image_height - label_height - 2 * margin;
    double scale = fmin(area_w / fmax(width, 1e-3), area_h / fmax(zmax - zmin, 1e-3));
    if (!isfinite(scale)) scale = 100.0;
    const double v_top = margin + 0.5 * (area_h - (zmax - zmin) * scale); // centred vertically

    const int W = panel_width * nframes, H = image_height;
    cairo_t* cr = salto_draw_canvas(W, H, path, err); // white
    if (!cr) {
        salto_data_destroy(d);
        salto_free(xmid);
        return SALTO_ERR_NOMEM; // (err, if given, says why)
    }
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_BEST);

    // the ground line across the strip
    const double v_ground = v_top + zmax * scale;
    cairo_set_source_rgb(cr, 0.55, 0.50, 0.42);
    cairo_set_line_width(cr, 2.0);
    cairo_move_to(cr, 0.0, v_ground);
    cairo_line_to(cr, W, v_ground);
    cairo_stroke(cr);

    for (int k = 0; k < nframes; k++) {
        const double t = pose_time(k, nframes, T);
        salto_motion_sample(mo, t, d->q);
        salto_fk(m, d, SALTO_FK_POS);
        const strip_pen pen = {cr, scale, xmid[k], zmax, panel_width * (k + 0.5), v_top};
        draw_ground_ticks(&pen, v_ground);
        draw_pose(&pen, p, d, phase_at(p, t), t);
    }
    salto_data_destroy(d);
    salto_free(xmid);

    return salto_write_png(cr, path, err);
}


cairo_t* salto_draw_canvas(int w, int h, const char* path, salto_error* err) {
    cairo_surface_t* surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t* cr = cairo_create(surf); // both released by salto_write_png
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        cairo_destroy(cr);
        cairo_surface_destroy(surf);
        SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "cannot create a %d x %d image for '%s'",
                   w, h, path);
        return NULL;
    }
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    return cr;
}


salto_status salto_write_png(cairo_t* cr, const char* path, salto_error* err) {
    // PATH.tmp written by cairo, then renamed; the surface's own reference is salto_draw_canvas's
    cairo_surface_t* surf = cairo_get_target(cr);
    salto_atomic a;
    salto_status s = salto_atomic_open(&a, path, 0, err);
    cairo_surface_flush(surf);
    cairo_status_t cs = cairo_status(cr);
    if (!s && cs == CAIRO_STATUS_SUCCESS) cs = cairo_surface_write_to_png(surf, a.tmp);
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    if (s) return s;
    if (cs != CAIRO_STATUS_SUCCESS) {
        s = SALTO_FAIL(err, SALTO_ERR_IO, salto_loc_none(), "cannot write '%s': %s", a.tmp,
                       cairo_status_to_string(cs));
        salto_atomic_abort(&a);
        return s;
    }
    return salto_atomic_commit(&a, err);
}
