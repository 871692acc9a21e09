// filmstrip.c: a motion as a row of poses in a PNG image (filmstrip.png, cairo), seen from
// the side, the front or above
//
// Drawn with draw.h's canvas, labels and PNG writer (draw.c). Each pose is the character at one of nframes evenly
// spaced times (the first at 0, the last at the motion's duration). The camera looks along a
// world axis (salto_filmstrip_view): from the side (on the -y side looking towards +y: world x
// to the right, z up), from the front (on the +x side looking towards -x: world y to the
// right, z up) or from above (world x to the right, y up); each view is right-handed, a
// photograph and not a mirror image. Every pose gets a panel of the same width, and all poses
// share one scale and one vertical placement, so that heights (from above: places along y)
// compare across the strip. When the whole motion fits a panel at nearly the scale its widest
// pose alone would get (shared_frame), the panels share one world frame: a pose's place in
// its panel is its place in the world. Otherwise (a jump that travels) the middle of each
// pose's horizontal extent sits in the middle of its panel. Either way ticks mark the world's
// coordinate along the image's horizontal axis in metres in every panel (along the floor from
// the side and the front, under the poses from above, where ticks along each panel's left
// edge mark y too), so that travel shows.
//
// The world is drawn far to near, a painter's algorithm along the view direction: the ground
// first (the floor z = 0, each ground contact's plane and above_ground's, where they cut the
// root's depth; from above the ground has no line, only the ticks), then the geometry
// primitives, the problem's boxes and the bars sorted by depth: a primitive by its centre, a
// bar by its point, a box by its far side, so that a box is drawn over a primitive only when
// it lies wholly nearer than the primitive's centre (a character standing on a box or jumping
// over one stays in front of it). A bar seen along its axis (a dark disc) comes last; across
// the view it is a dark line along its axis. Primitives nearer than the primitives' median
// depth are dark, those tone_depth beyond it light, with shades in between (from the side, a
// character's far limbs, whichever way it has turned). Capsules are thick
// lines with round caps of the capsule's diameter, spheres circles, boxes (primitives and
// obstacles) the hull of their projected corners. The contact sites of the phase active at a
// pose's time are red dots over all.
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
    axis_band = 22,     // px, band over the labels for the x ticks from above
    max_poses = 128     // keeps the image within cairo's 32767 px
};

// depth beyond the primitives' median at which a primitive is drawn in the light (far) shade,
// m: from the side, a humanoid's far limbs (8.5 cm and more) are light, its trunk and near
// limbs dark
static const double tone_depth = 0.08;

// the panels share one world frame when the whole motion's horizontal extent fits a panel at
// this share of the scale the widest pose alone would get, or more
static const double shared_frame = 0.8;

// ---- views ----

// A view's axes in the world: a point x is drawn h . x to the right, w . x up, at depth
// d . x away from the camera; h x w = -d (right-handed: h x w points at the camera)
typedef struct view_axes {
    double h[3]; // drawn to the right
    double w[3]; // drawn up
    double d[3]; // the view direction
} view_axes;

static const view_axes view_table[SALTO_FILMSTRIP_VIEW_COUNT] = {
    {{1, 0, 0}, {0, 0, 1}, {0, 1, 0}},  // side: camera on the -y side
    {{0, 1, 0}, {0, 0, 1}, {-1, 0, 0}}, // front: camera on the +x side
    {{1, 0, 0}, {0, 1, 0}, {0, 0, -1}}, // top: camera above
};


// 1 if the world's z is drawn up (the side and the front: the floor is a line)
static int z_up(const view_axes* ax) {
    return ax->w[2] > 0.5;
}


// 1 if the view looks along a bar's axis (unit): the bar is a disc
static int end_on(const view_axes* ax, const double axis[3]) {
    return fabs(salto_v3_dot(ax->d, axis)) > 0.99;
}


// the phase active at t (clamped to the problem's span), or -1
static int phase_at(const salto_problem_desc* p, double t) {
    return salto_problem_phase_at(p, t > p->duration ? p->duration : t);
}


// ---- the ground and the bars ----

// a plane the problem stands on: n . x = height
typedef struct ground_plane {
    double n[3];   // unit normal
    double height; // m
} ground_plane;


static void add_ground(ground_plane* g, int* ng, const double n[3], double height) {
    for (int k = 0; k < *ng; k++) {
        if (fabs(g[k].height - height) < 1e-9 && fabs(g[k].n[0] - n[0]) < 1e-9 &&
            fabs(g[k].n[1] - n[1]) < 1e-9 && fabs(g[k].n[2] - n[2]) < 1e-9) {
            return;
        }
    }
    g[*ng] = (ground_plane){{n[0], n[1], n[2]}, height};
    (*ng)++;
}


// The problem's ground levels, each once, into g (room for 1 + nphase + ncon): the floor
// z = 0, the plane of every ground contact with a site on it (a box's top is drawn as the
// box), and above_ground's plane z = height. Returns their count.
static int collect_grounds(const salto_problem_desc* p, ground_plane* g) {
    static const double up[3] = {0, 0, 1};
    int ng = 0;
    add_ground(g, &ng, up, 0.0);
    for (int i = 0; i < p->nphase; i++) {
        const salto_contact_desc* c = &p->phases[i].contact;
        if (salto_contact_uses_plane(c)) add_ground(g, &ng, c->normal, c->height);
    }
    for (int k = 0; k < p->ncon; k++) {
        if (p->cons[k].type == SALTO_CON_ABOVE_GROUND) add_ground(g, &ng, up, p->cons[k].height);
    }
    return ng;
}


// a bar of the problem: a bar phase's (each distinct one once) or one the body must clear
typedef struct strip_bar {
    double point[3]; // a point on its axis, world, m
    double axis[3];  // its unit axis, world
    double r;        // radius, m (a bar phase's: a high bar's, 14 mm)
    int clear;       // 1: a clear_bar constraint's, in view in every pose
} strip_bar;


// 1 if contact c holds bar b
static int holds_bar(const salto_contact_desc* c, const strip_bar* b) {
    return c && c->type == SALTO_CONTACT_BAR && !b->clear &&
           memcmp(c->bar_point, b->point, sizeof b->point) == 0 &&
           memcmp(c->bar_axis, b->axis, sizeof b->axis) == 0;
}


// The problem's bars into b (room for nphase + ncon): every bar phase's, each once, and the
// clear_bar constraints'; drawn in every pose. Returns their count.
static int collect_bars(const salto_problem_desc* p, strip_bar* b) {
    int nb = 0;
    for (int i = 0; i < p->nphase; i++) {
        const salto_contact_desc* c = &p->phases[i].contact;
        if (c->type != SALTO_CONTACT_BAR) continue;
        int seen = 0;
        for (int k = 0; k < nb; k++) seen |= holds_bar(c, &b[k]);
        if (seen) continue;
        b[nb] = (strip_bar){{c->bar_point[0], c->bar_point[1], c->bar_point[2]},
                            {c->bar_axis[0], c->bar_axis[1], c->bar_axis[2]}, 0.014, 0};
        nb++;
    }
    for (int k = 0; k < p->ncon; k++) {
        const salto_constraint_desc* cd = &p->cons[k];
        if (cd->type != SALTO_CON_CLEAR_BAR) continue;
        b[nb] = (strip_bar){{cd->point[0], cd->point[1], cd->point[2]},
                            {cd->dir[0], cd->dir[1], cd->dir[2]}, cd->height, 1};
        nb++;
    }
    return nb;
}


// ---- extents and layout ----

// a pose's extent along the view's axes, m: min and max of h . x and w . x
typedef struct extent {
    double h[2], w[2];
} extent;


static void grow1(double r[2], double x, double pad) {
    if (x - pad < r[0]) r[0] = x - pad;
    if (x + pad > r[1]) r[1] = x + pad;
}


static void grow(extent* e, const view_axes* ax, const double x[3], double r) {
    grow1(e->h, salto_v3_dot(ax->h, x), r);
    grow1(e->w, salto_v3_dot(ax->w, x), r);
}


// a bar through point along axis (unit), radius r: seen along its axis a disc, both
// coordinates; else a line across the panel: its place across the image only
static void grow_bar(extent* e, const view_axes* ax, const double point[3],
                     const double axis[3], double r) {
    const double h = salto_v3_dot(ax->h, point), w = salto_v3_dot(ax->w, point);
    if (end_on(ax, axis)) {
        grow1(e->h, h, r);
        grow1(e->w, w, r);
    } else if (fabs(salto_v3_dot(ax->w, axis)) >= fabs(salto_v3_dot(ax->h, axis))) {
        grow1(e->h, h, r); // runs up the image
    } else {
        grow1(e->w, w, r); // runs across it
    }
}


// extent of the pose in d (geometry, body origins, contact sites, the bar it holds and those
// it must clear) in view ax; where z is up, the heights of the boxes' tops and of the other
// bars too, so that they show in every pose
static void pose_extent(const salto_problem_desc* p, const salto_data* d, int ph,
                        const strip_bar* bars, int nbar, const view_axes* ax, extent* e) {
    const salto_model* m = p->model;
    for (int k = 0; k < 2; k++) {
        e->h[k] = e->w[k] = k == 0 ? INFINITY : -INFINITY;
    }
    for (int g = 0; g < m->ngeom; g++) {
        double pts[8][3], r;
        const int n = salto_geom_points(m, d, g, pts, &r);
        for (int j = 0; j < n; j++) grow(e, ax, pts[j], r);
    }
    for (int k = 0; k < m->nbody; k++) {
        const double* R;
        const double* o;
        salto_body_frame(m, d, k, &R, &o);
        grow(e, ax, o, 0.0);
    }
    const salto_contact_desc* c = ph >= 0 ? &p->phases[ph].contact : NULL;
    for (int i = 0; c && i < c->nsite; i++) {
        double x[3];
        salto_site_pos(m, d, c->site[i], x);
        grow(e, ax, x, 0.0);
    }
    for (int k = 0; k < nbar; k++) {
        const strip_bar* b = &bars[k];
        if (b->clear || holds_bar(c, b)) {
            grow_bar(e, ax, b->point, b->axis, b->clear ? b->r : 0.03);
        } else if (z_up(ax)) {
            grow1(e->w, b->point[2], b->r);
        }
    }
    if (z_up(ax)) { // (the floor is in view already)
        for (int b = 0; b < p->nbox; b++) grow1(e->w, p->boxes[b].hi[2], 0.0);
    }
}


// ---- drawing ----

typedef struct strip_pen {
    cairo_t* cr;
    const view_axes* ax;
    double scale;  // px per metre
    double h0, w0; // the world's coordinates along ax->h and ax->w drawn at (u0, v0), m
    double u0, v0; // px; u0 is the middle of the panel
    double bottom; // the lower edge of the panel's drawing, px
} strip_pen;


// view coordinates (a along h, b along w) -> image (u, v): u to the right, v down
static void to_image(const strip_pen* pen, double a, double b, double* u, double* v) {
    *u = pen->u0 + (a - pen->h0) * pen->scale;
    *v = pen->v0 - (b - pen->w0) * pen->scale;
}


// world x -> image (u, v)
static void project(const strip_pen* pen, const double x[3], double* u, double* v) {
    to_image(pen, salto_v3_dot(pen->ax->h, x), salto_v3_dot(pen->ax->w, x), u, v);
}


// what the panel shows in view coordinates: hr along h, wr along w, m
static void visible(const strip_pen* pen, double hr[2], double wr[2]) {
    const double half = 0.5 * panel_width / pen->scale;
    hr[0] = pen->h0 - half, hr[1] = pen->h0 + half;
    wr[0] = pen->w0 - (pen->bottom - pen->v0) / pen->scale;
    wr[1] = pen->w0 + pen->v0 / pen->scale;
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


// the outline of n world points (at most 8) as seen: their projections' convex hull, a closed
// path on the pen's cairo context, to fill or stroke
static void hull_path(const strip_pen* pen, double pts[][3], int n) {
    double uv[8][2], out[16][2];
    for (int j = 0; j < n; j++) project(pen, pts[j], &uv[j][0], &uv[j][1]);
    const int h = hull(uv, n, out);
    for (int j = 0; j < h; j++) {
        if (j == 0) {
            cairo_move_to(pen->cr, out[j][0], out[j][1]);
        } else {
            cairo_line_to(pen->cr, out[j][0], out[j][1]);
        }
    }
    cairo_close_path(pen->cr);
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
        hull_path(pen, pts, n);
        set_rgb(cr, fill);
        cairo_fill_preserve(cr);
        cairo_set_line_width(cr, edge);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        set_rgb(cr, line);
        cairo_stroke(cr);
    }
}


// ---- the world in a panel ----

// The 8 corners of box bx turned by its yaw about its centre. A planar character's box spans
// every y: yr, when given, is the y range to draw it over.
static void box_corners(const salto_box_desc* bx, const double* yr, double c[8][3]) {
    const double lo1 = yr ? yr[0] : bx->lo[1], hi1 = yr ? yr[1] : bx->hi[1];
    const double cx = 0.5 * (bx->lo[0] + bx->hi[0]), cy = 0.5 * (lo1 + hi1);
    const double hx = 0.5 * (bx->hi[0] - bx->lo[0]), hy = 0.5 * (hi1 - lo1);
    const double cs = cos(bx->yaw), sn = sin(bx->yaw);
    for (int j = 0; j < 8; j++) {
        const double sx = (j & 1) ? hx : -hx, sy = (j & 2) ? hy : -hy;
        c[j][0] = cx + cs * sx - sn * sy;
        c[j][1] = cy + sn * sx + cs * sy;
        c[j][2] = (j & 4) ? bx->hi[2] : bx->lo[2];
    }
}


// the y range a planar character's box is drawn over in this panel: what the panel shows
// along y and a metre more, or (y along the view) far both ways
static void planar_box_y(const strip_pen* pen, double yr[2]) {
    double hr[2], wr[2];
    visible(pen, hr, wr);
    const view_axes* ax = pen->ax;
    const double* r = ax->h[1] != 0.0 ? hr : ax->w[1] != 0.0 ? wr : NULL;
    yr[0] = r ? r[0] - 1.0 : -1e3;
    yr[1] = r ? r[1] + 1.0 : 1e3;
}


// an obstacle or raised ground: the hull of its corners, filled
static void draw_box(const strip_pen* pen, double c[8][3]) {
    static const double fill[3] = {0.86, 0.80, 0.70}, line[3] = {0.55, 0.50, 0.42};
    cairo_t* cr = pen->cr;
    hull_path(pen, c, 8);
    set_rgb(cr, fill);
    cairo_fill_preserve(cr);
    set_rgb(cr, line);
    cairo_set_line_width(cr, 1.5);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
    cairo_stroke(cr);
}


// a bar through point along axis (unit), radius r (m): seen along its axis a dark disc (of
// radius 4 px at least), else a dark line along its axis across the panel (3 px wide at
// least), each with a white edge
static void draw_bar(const strip_pen* pen, const double point[3], const double axis[3],
                     double r) {
    cairo_t* cr = pen->cr;
    double u, v;
    project(pen, point, &u, &v);
    if (end_on(pen->ax, axis)) {
        cairo_arc(cr, u, v, fmax(4.0, r * pen->scale), 0.0, two_pi);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 1.0, 1.0, 1.0);
        cairo_set_line_width(cr, 1.0);
        cairo_stroke(cr);
        return;
    }
    // the axis in the image (v down), and far enough both ways to cross the panel
    double du = salto_v3_dot(pen->ax->h, axis), dv = -salto_v3_dot(pen->ax->w, axis);
    const double len = hypot(du, dv);
    du /= len, dv /= len;
    const double reach = hypot(u - pen->u0, v - 0.5 * pen->bottom) + panel_width + image_height;
    const double width = fmax(3.0, 2.0 * r * pen->scale);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
    for (int pass = 0; pass < 2; pass++) {
        cairo_move_to(cr, u - reach * du, v - reach * dv);
        cairo_line_to(cr, u + reach * du, v + reach * dv);
        cairo_set_line_width(cr, width + (pass == 0 ? 2.0 : 0.0));
        if (pass == 0) {
            cairo_set_source_rgb(cr, 1.0, 1.0, 1.0);
        } else {
            cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        }
        cairo_stroke(cr);
    }
}


// Ground plane g where it cuts the plane of depth c (the root's: from the side its y, from the
// front its x): a line across the panel. Its points x = a h + b w + c d have
// a (n . h) + b (n . w) = height - c (n . d); nothing for a plane the view looks straight at.
static void draw_ground(const strip_pen* pen, const ground_plane* g, double c) {
    const view_axes* ax = pen->ax;
    const double na = salto_v3_dot(g->n, ax->h), nb = salto_v3_dot(g->n, ax->w);
    const double rhs = g->height - c * salto_v3_dot(g->n, ax->d);
    if (hypot(na, nb) < 1e-6) return;
    double hr[2], wr[2], a[2], b[2];
    visible(pen, hr, wr);
    if (fabs(nb) >= fabs(na)) { // across the panel: b from a
        for (int k = 0; k < 2; k++) a[k] = hr[k], b[k] = (rhs - na * hr[k]) / nb;
    } else { // up the panel: a from b
        for (int k = 0; k < 2; k++) b[k] = wr[k], a[k] = (rhs - nb * wr[k]) / na;
    }
    double u0, v0, u1, v1;
    to_image(pen, a[0], b[0], &u0, &v0);
    to_image(pen, a[1], b[1], &u1, &v1);
    cairo_t* cr = pen->cr;
    cairo_set_source_rgb(cr, 0.55, 0.50, 0.42);
    cairo_set_line_width(cr, 2.0);
    cairo_move_to(cr, u0, v0);
    cairo_line_to(cr, u1, v1);
    cairo_stroke(cr);
}


// what the painter's algorithm draws, far to near
enum { item_geom, item_box, item_bar };

typedef struct strip_item {
    double key; // depth along the view direction, m: the larger is drawn first
    int kind;   // item_geom, item_box or item_bar
    int index;  // the geometry primitive, the box, or the bar
} strip_item;


static int cmp_item(const void* pa, const void* pb) {
    const strip_item* a = pa;
    const strip_item* b = pb;
    if (a->key != b->key) return a->key > b->key ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}


// the centre of geometry primitive g in the world: the mean of its outline's points
static void geom_centre(const salto_model* m, const salto_data* d, int g, double c[3]) {
    double pts[8][3], r;
    const int n = salto_geom_points(m, d, g, pts, &r);
    c[0] = c[1] = c[2] = 0.0;
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < 3; i++) c[i] += pts[j][i] / n;
    }
}


// the pose in d in its panel (clipped to it): the ground, then geometry, boxes and bars far
// to near in the items (room for ngeom + nbox + nbar), then the contact sites
static void draw_world(const strip_pen* pen, const salto_problem_desc* p, const salto_data* d,
                       int ph, const ground_plane* grounds, int nground, const strip_bar* bars,
                       int nbar, strip_item* items) {
    static const double far_fill[3] = {0.80, 0.84, 0.91}, far_line[3] = {0.58, 0.64, 0.74};
    static const double near_fill[3] = {0.33, 0.42, 0.60}, near_line[3] = {0.13, 0.17, 0.27};
    const salto_model* m = p->model;
    const view_axes* ax = pen->ax;
    cairo_t* cr = pen->cr;
    cairo_save(cr);
    cairo_rectangle(cr, pen->u0 - 0.5 * panel_width, 0.0, panel_width, pen->bottom);
    cairo_clip(cr);

    const double* R;
    const double* root;
    salto_body_frame(m, d, 0, &R, &root);
    const double droot = salto_v3_dot(ax->d, root);
    if (z_up(ax)) {
        for (int k = 0; k < nground; k++) draw_ground(pen, &grounds[k], droot);
    }

    // depths: a primitive's centre, a box's far side, a bar's point (seen along its axis: last)
    const salto_contact_desc* c = ph >= 0 ? &p->phases[ph].contact : NULL;
    double yr[2];
    planar_box_y(pen, yr);
    const int planar = salto_model_is_planar(m);
    int n = 0;
    for (int g = 0; g < m->ngeom; g++) {
        double x[3];
        geom_centre(m, d, g, x);
        items[n++] = (strip_item){salto_v3_dot(ax->d, x), item_geom, g};
    }
    for (int b = 0; b < p->nbox; b++) {
        double cn[8][3], key = -INFINITY;
        box_corners(&p->boxes[b], planar ? yr : NULL, cn);
        for (int j = 0; j < 8; j++) key = fmax(key, salto_v3_dot(ax->d, cn[j]));
        items[n++] = (strip_item){key, item_box, b};
    }
    for (int k = 0; k < nbar; k++) {
        const strip_bar* b = &bars[k];
        const double key = end_on(ax, b->axis) ? -INFINITY : salto_v3_dot(ax->d, b->point);
        items[n++] = (strip_item){key, item_bar, k};
    }
    qsort(items, (size_t)n, sizeof *items, cmp_item);

    // a primitive's shade: dark to the median depth of the primitives (the trunk's, mostly,
    // however the character leans), light tone_depth beyond it
    double dmed = 0.0;
    for (int i = 0, j = 0; i < n; i++) {
        if (items[i].kind != item_geom) continue;
        if (j == (m->ngeom - 1) / 2) dmed = items[i].key;
        if (j == m->ngeom / 2) dmed = 0.5 * (dmed + items[i].key);
        j++;
    }
    for (int i = 0; i < n; i++) {
        const strip_item* it = &items[i];
        if (it->kind == item_geom) {
            const double t = fmin(1.0, fmax(0.0, (it->key - dmed) / tone_depth));
            double fill[3], line[3];
            for (int j = 0; j < 3; j++) {
                fill[j] = near_fill[j] + t * (far_fill[j] - near_fill[j]);
                line[j] = near_line[j] + t * (far_line[j] - near_line[j]);
            }
            draw_geom(pen, m, d, it->index, fill, line);
        } else if (it->kind == item_box) {
            double cn[8][3];
            box_corners(&p->boxes[it->index], planar ? yr : NULL, cn);
            draw_box(pen, cn);
        } else {
            const strip_bar* b = &bars[it->index];
            draw_bar(pen, b->point, b->axis, b->r);
        }
    }

    // the contact sites of the phase, over all
    for (int i = 0; c && i < c->nsite; i++) {
        double x[3], u, v;
        salto_site_pos(m, d, c->site[i], x);
        project(pen, x, &u, &v);
        cairo_arc(cr, u, v, 3.5, 0.0, two_pi);
        cairo_set_source_rgb(cr, 0.85, 0.10, 0.10);
        cairo_fill(cr);
    }
    cairo_restore(cr);
}


// the time, and the phase under it, in the label band
static void draw_labels(const strip_pen* pen, const salto_problem_desc* p, int ph, double t) {
    cairo_t* cr = pen->cr;
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


// a tick label: the coordinate in metres, 0 without a sign
static void tick_label(char* s, size_t n, double x) {
    snprintf(s, n, "%g", fabs(x) < 1e-12 ? 0.0 : x);
}


// the width of a label of height size px (salto_draw_text's advance)
// The world's coordinate along the image's horizontal axis in a pose's panel (so that travel
// shows though each pose may be centred in its own): a tick every step metres down from
// v_line, step the roundest (salto_draw_step) at least 40 px and the widest label and a gap
// apart, labelled in metres below it where the label band leaves room and the label lies
// within the panel. From the side and the front v_line is the floor's; from above, the top
// of the band under the drawing.
static void draw_h_ticks(const strip_pen* pen, double v_line) {
    const double size = 8.0, half = 0.5 * panel_width - 4.0;
    const double xa = pen->h0 - half / pen->scale, xb = pen->h0 + half / pen->scale;
    double step = salto_draw_step(40.0 / pen->scale);
    for (int round = 0; round < 12; round++) {
        double widest = 0.0;
        for (long i = (long)ceil(xa / step); i * step <= xb; i++) {
            char label[32];
            tick_label(label, sizeof label, i * step);
            widest = fmax(widest, salto_draw_text_width(label, size));
        }
        if (widest + 8.0 <= step * pen->scale) break;
        step = salto_draw_step(1.001 * step);
    }
    cairo_t* cr = pen->cr;
    const int labels = v_line + 16.0 < image_height - label_height + 2.0;
    cairo_set_source_rgb(cr, 0.55, 0.50, 0.42);
    cairo_set_line_width(cr, 1.5);
    for (long i = (long)ceil(xa / step); i * step <= xb; i++) {
        const double x = i * step, u = pen->u0 + (x - pen->h0) * pen->scale;
        cairo_move_to(cr, u, v_line);
        cairo_line_to(cr, u, v_line + 6.0);
        cairo_stroke(cr);
        char label[32];
        tick_label(label, sizeof label, x);
        const double reach = fabs(u - pen->u0) + 0.5 * salto_draw_text_width(label, size);
        if (labels && reach < 0.5 * panel_width - 1.0) {
            salto_draw_text(cr, label, size, u, v_line + 16.0);
        }
    }
}


// From above: the world's y along the panel's left edge, a tick every step metres with its
// label on it (a label beside a tick would read as a minus sign)
static void draw_w_ticks(const strip_pen* pen) {
    const double step = salto_draw_step(40.0 / pen->scale), size = 8.0;
    cairo_t* cr = pen->cr;
    const double left = pen->u0 - 0.5 * panel_width;
    double hr[2], wr[2];
    visible(pen, hr, wr);
    cairo_set_source_rgb(cr, 0.55, 0.50, 0.42);
    cairo_set_line_width(cr, 1.5);
    for (long i = (long)ceil(wr[0] / step); i * step <= wr[1]; i++) {
        const double y = i * step;
        double u, v;
        to_image(pen, pen->h0, y, &u, &v);
        if (v < size + 4.0 || v > pen->bottom - 2.0) continue;
        char label[32];
        tick_label(label, sizeof label, y);
        const double width = salto_draw_text_width(label, size);
        cairo_move_to(cr, left + 1.0, v);
        cairo_line_to(cr, left + 4.0 + width, v);
        cairo_stroke(cr);
        salto_draw_text(cr, label, size, left + 3.0 + 0.5 * width, v - 3.0);
    }
}


// ---- writing ----

// time of pose k of n over [0, T]: evenly spaced, both ends included (exactly)
static double pose_time(int k, int n, double T) {
    if (n < 2 || k == 0) return 0.0;
    return k == n - 1 ? T : T * k / (n - 1);
}


// the writer's scratch, released (each may be NULL)
static void free_strip(salto_data* d, double* hmid, strip_item* items, ground_plane* grounds,
                       strip_bar* bars) {
    salto_data_destroy(d);
    salto_free(hmid);
    salto_free(bars);
    salto_free(items);
    salto_free(grounds);
}


salto_status salto_motion_write_filmstrip(const salto_problem_desc* p, const salto_motion* mo,
                                          int nframes, salto_filmstrip_view view,
                                          const char* path, salto_error* err) {
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
    if ((int)view < 0 || view >= SALTO_FILMSTRIP_VIEW_COUNT) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(),
                          "no filmstrip view %d: side, front or top ('%s')", (int)view, path);
    }
    const view_axes* ax = &view_table[view];

    salto_data* d = salto_data_create(m);
    double* hmid = salto_malloc((size_t)nframes * sizeof(double));
    strip_item* items = salto_malloc((size_t)(m->ngeom + p->nbox + p->nphase + p->ncon + 1) *
                                     sizeof *items);
    ground_plane* grounds = salto_malloc((size_t)(1 + p->nphase + p->ncon) * sizeof *grounds);
    strip_bar* bars = salto_malloc((size_t)(p->nphase + p->ncon + 1) * sizeof *bars);
    if (!d || !hmid || !items || !grounds || !bars) {
        free_strip(d, hmid, items, grounds, bars);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory drawing '%s'",
                          path);
    }
    const int nground = collect_grounds(p, grounds);
    const int nbar = collect_bars(p, bars);

    // pose k at t_k = k T / (n - 1); a single pose at t = 0
    const double T = mo->duration; // 0 for a single frame

    // one scale for all poses: the widest pose fits its panel, the tallest the drawing's
    // height; where z is up, the floor (z = 0) and the level grounds are always in view
    double width = 0.0, hlo = INFINITY, hhi = -INFINITY, wlo = INFINITY, whi = -INFINITY;
    if (z_up(ax)) {
        wlo = whi = 0.0;
        for (int k = 0; k < nground; k++) {
            if (fabs(grounds[k].n[2]) > 0.999) {
                const double z = grounds[k].height / grounds[k].n[2];
                wlo = fmin(wlo, z), whi = fmax(whi, z);
            }
        }
    }
    for (int k = 0; k < nframes; k++) {
        extent e;
        const double t = pose_time(k, nframes, T);
        salto_motion_sample(mo, t, d->q);
        salto_fk(m, d, SALTO_FK_POS);
        pose_extent(p, d, phase_at(p, t), bars, nbar, ax, &e);
        hmid[k] = 0.5 * (e.h[0] + e.h[1]);
        width = fmax(width, e.h[1] - e.h[0]);
        hlo = fmin(hlo, e.h[0]), hhi = fmax(hhi, e.h[1]);
        wlo = fmin(wlo, e.w[0]), whi = fmax(whi, e.w[1]);
    }
    const double area_w = panel_width - 2 * margin;
    const double bottom = image_height - label_height - (z_up(ax) ? 0 : axis_band);
    const double area_h = bottom - 2 * margin;
    const double scale_w = area_h / fmax(whi - wlo, 1e-3);
    const double scale_pose = fmin(area_w / fmax(width, 1e-3), scale_w);
    const double scale_all = fmin(area_w / fmax(hhi - hlo, 1e-3), scale_w);
    const int shared = scale_all >= shared_frame * scale_pose; // one world frame
    double scale = shared ? scale_all : scale_pose;
    if (!isfinite(scale)) scale = 100.0;
    if (shared) {
        for (int k = 0; k < nframes; k++) hmid[k] = 0.5 * (hlo + hhi);
    }
    const double v_top = margin + 0.5 * (area_h - (whi - wlo) * scale); // centred vertically

    const int W = panel_width * nframes, H = image_height;
    cairo_t* cr = salto_draw_canvas(W, H, path, err); // white
    if (!cr) {
        free_strip(d, hmid, items, grounds, bars);
        return SALTO_ERR_NOMEM; // (err, if given, says why)
    }
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_BEST);

    for (int k = 0; k < nframes; k++) {
        const double t = pose_time(k, nframes, T);
        const int ph = phase_at(p, t);
        salto_motion_sample(mo, t, d->q);
        salto_fk(m, d, SALTO_FK_POS);
        const strip_pen pen = {cr, ax, scale, hmid[k], whi, panel_width * (k + 0.5), v_top,
                               bottom};
        draw_world(&pen, p, d, ph, grounds, nground, bars, nbar, items);
        if (z_up(ax)) {
            double u, v_floor;
            to_image(&pen, 0.0, 0.0, &u, &v_floor);
            draw_h_ticks(&pen, v_floor);
        } else {
            draw_h_ticks(&pen, bottom + 2.0);
            draw_w_ticks(&pen);
        }
        draw_labels(&pen, p, ph, t);
    }

    free_strip(d, hmid, items, grounds, bars);
    return salto_write_png(cr, path, err);
}
