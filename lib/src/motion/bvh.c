// bvh.c: motions as Biovision hierarchy files (motion.bvh) for Blender and other BVH readers
//
// A BVH file has one joint per body: ROOT for the root body, JOINT for the others, named by
// body name, in the model's depth-first body order. Units are metres (Blender's importer has
// a scale option for files in centimetres).
//
// Axes. BVH readers expect Y up, and most files (the CMU captures Blender is tested with)
// have the character facing +Z. salto has z up and the character facing +x, so every vector
// is written as
//     (X, Y, Z)_bvh = (y, z, x)_salto,    v_bvh = M v,   M = [0 1 0; 0 0 1; 1 0 0],
// a cyclic permutation and hence a proper rotation (right-handed frames stay right-handed).
// A rotation R (salto frames) is written as M R M'.
//
// Channels. The root has Xposition Yposition Zposition Zrotation Xrotation Yrotation (six
// channels for every root type: a planar root writes its missing ones as zero, a fixed root
// writes constants), every other joint Zrotation Xrotation Yrotation. A joint whose DOFs
// include a translation (a prismatic axis) also gets the three position channels first.
// Angles are in degrees; the channels compose left to right, the first listed outermost:
//     x_parent = OFFSET + (Xposition, Yposition, Zposition) + Rz(z) Rx(x) Ry(y) x_joint,
// where x_joint is a point in the joint's (body's) frame and x_parent the same point in the
// parent joint's frame. Joints with position channels have OFFSET 0 and the whole
// translation in the channels: readers differ on whether position channels add to the
// offset or replace it, and with a zero offset both readings agree.
//
// Each channel set reproduces the body's orientation relative to its parent body at that
// frame, R_rel = R_parent' R_body (world rotations from salto_fk; the root's parent is the
// world), converted to Z-X-Y Euler angles: of the equivalent angle sets, the one nearest the
// previous frame's, so that channels run continuously (a double somersault's rotation
// reaches 720 deg) and readers that interpolate between frames see no flips. At gimbal lock
// (the middle angle at +-90 deg) the first angle keeps its previous value.
//
// The OFFSET of a joint is its body's origin (the joint centre) relative to the parent
// body's origin, in the parent's frame. Leaf bodies get an End Site at the site farthest
// from the body origin, else at the farthest geometry point, else 0.1 m below the origin.
#include "salto/motion.h"

#include "salto/atomic.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "salto/kinematics.h"
#include "salto/spatial.h"

static const double pi = 3.14159265358979323846264338327950288;
static const double two_pi = 6.28318530717958647692528676655900577;
static const double rad2deg = 57.295779513082320876798154814105;

// ---- axes and angles ----

// v_bvh = M v: (X, Y, Z) = (y, z, x)
static void to_bvh_vec(double out[3], const double v[3]) {
    out[0] = v[1], out[1] = v[2], out[2] = v[0];
}


// R_bvh = M R M': entry (i, j) of R_bvh is entry (s(i), s(j)) of R with s = (1, 2, 0)
static void to_bvh_rot(double out[9], const double R[9]) {
    static const int s[3] = {1, 2, 0};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) out[3 * i + j] = R[3 * s[i] + s[j]];
    }
}


// x + 2 pi k nearest to ref
static double unwrap(double x, double ref) {
    return x - two_pi * floor((x - ref) / two_pi + 0.5);
}


// Z-X-Y Euler angles (radians) of R = Rz(a) Rx(b) Ry(c), the set nearest to prev (the same
// body's angles at the previous frame), so that a motion's channels run continuously: a
// somersault's rotation keeps growing past 180 deg instead of wrapping, and a limb swinging
// through the middle axis's +-90 deg does not flip.
//     R = [ ca cc - sa sb sc   -sa cb   ca sc + sa sb cc ]
//         [ sa cc + ca sb sc    ca cb   sa sc - ca sb cc ]
//         [ -cb sc              sb      cb cc            ]
// so sb = R21, and for cb != 0 either (a, b, c) with a = atan2(-R01, R11), b = asin(R21),
// c = atan2(-R20, R22), or (a + pi, pi - b, c + pi); each angle may also move by 2 pi.
// At gimbal lock (cb = 0, sb = +-1) only c + sb a is defined (R00 = cos(c + sb a),
// R02 = sin(c + sb a)): keep a from the previous frame and solve for c.
static void euler_zxy(const double R[9], const double prev[3], double ang[3]) {
    const double cb = sqrt(R[1] * R[1] + R[4] * R[4]);
    const double b = atan2(R[7], cb);
    if (cb < 1e-10) {
        const double sb = R[7] > 0.0 ? 1.0 : -1.0;
        ang[0] = prev[0];
        ang[1] = unwrap(b, prev[1]);
        ang[2] = unwrap(atan2(R[2], R[0]) - sb * prev[0], prev[2]);
        return;
    }
    const double a = atan2(-R[1], R[4]);
    const double c = atan2(-R[6], R[8]);
    const double cand[2][3] = {{a, b, c}, {a + pi, pi - b, c + pi}};
    double best = INFINITY;
    for (int s = 0; s < 2; s++) {
        double e[3], dist = 0.0;
        for (int j = 0; j < 3; j++) {
            e[j] = unwrap(cand[s][j], prev[j]);
            dist += (e[j] - prev[j]) * (e[j] - prev[j]);
        }
        if (dist < best) {
            best = dist;
            memcpy(ang, e, sizeof e);
        }
    }
}


// ---- the model's frames ----

// End Site offset of a leaf body, body frame: the farthest site, else the farthest geometry
// point (capsule ends, sphere and box centres), else 0.1 m down
static void end_site(const salto_model* m, int k, double e[3]) {
    double best = 0.0;
    e[0] = 0.0, e[1] = 0.0, e[2] = -0.1;
    for (int s = 0; s < m->nsite; s++) {
        if (m->site_body[s] != k) continue;
        const double* x = m->site_pos + 3 * s;
        const double r = salto_v3_norm(x);
        if (r > best) {
            best = r;
            memcpy(e, x, 3 * sizeof(double));
        }
    }
    if (best > 0.0) return;
    for (int g = 0; g < m->ngeom; g++) {
        if (m->geom_body[g] != k) continue;
        const double* gd = m->geom_data + 7 * g;
        const int npt = m->geom_shape[g] == SALTO_GEOM_CAPSULE ? 2 : 1;
        for (int j = 0; j < npt; j++) {
            const double r = salto_v3_norm(gd + 3 * j);
            if (r > best) {
                best = r;
                memcpy(e, gd + 3 * j, 3 * sizeof(double));
            }
        }
    }
}


// ---- writing ----

typedef struct bvh_writer {
    const salto_model* m;
    FILE* f;
    const int* has_child;   // body has child bodies                      (nbody)
    const int* has_trans;   // body gets position channels               (nbody)
    const double* offset;   // OFFSET in salto axes, parent body frame   (nbody x 3)
} bvh_writer;


static void indent(FILE* f, int depth) {
    for (int i = 0; i < depth; i++) fputs("  ", f);
}


// a body name as one BVH token (whitespace would split it)
static void put_name(FILE* f, const char* s) {
    if (!s || !*s) {
        fputs("unnamed", f);
        return;
    }
    for (; *s; s++) fputc((unsigned char)*s <= ' ' ? '_' : *s, f);
}


// a number with 8 decimals; round-off below the last digit is written as 0, not -0
static void put_num(FILE* f, double x) {
    fprintf(f, "%.8f", fabs(x) < 5e-9 ? 0.0 : x);
}


static void put_vec(FILE* f, const double v[3]) {
    double b[3];
    to_bvh_vec(b, v);
    for (int i = 0; i < 3; i++) {
        if (i) fputc(' ', f);
        put_num(f, b[i]);
    }
}


// the joint of body k and, recursively, its subtree (bodies are in depth-first order, so the
// children of k are the later bodies whose parent is k)
static void write_joint(const bvh_writer* w, int k, int depth) {
    const salto_model* m = w->m;
    FILE* f = w->f;
    indent(f, depth);
    fputs(m->body_parent[k] < 0 ? "ROOT " : "JOINT ", f);
    put_name(f, m->body_name[k]);
    fputc('\n', f);
    indent(f, depth);
    fputs("{\n", f);
    indent(f, depth + 1);
    fputs("OFFSET ", f);
    put_vec(f, w->offset + 3 * k);
    fputc('\n', f);
    indent(f, depth + 1);
    if (w->has_trans[k]) {
        fputs("CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n", f);
    } else {
        fputs("CHANNELS 3 Zrotation Xrotation Yrotation\n", f);
    }
    if (w->has_child[k]) {
        for (int c = k + 1; c < m->nbody; c++) {
            if (m->body_parent[c] == k) write_joint(w, c, depth + 1);
        }
    } else {
        double e[3];
        end_site(m, k, e);
        indent(f, depth + 1);
        fputs("End Site\n", f);
        indent(f, depth + 1);
        fputs("{\n", f);
        indent(f, depth + 2);
        fputs("OFFSET ", f);
        put_vec(f, e);
        fputc('\n', f);
        indent(f, depth + 1);
        fputs("}\n", f);
    }
    indent(f, depth);
    fputs("}\n", f);
}


// one MOTION line: the channels of every body, in the hierarchy's (depth-first) order;
// ang holds each body's angles at the previous frame (radians) and is updated
static void write_frame(const bvh_writer* w, const salto_data* d, double* ang) {
    const salto_model* m = w->m;
    FILE* f = w->f;
    for (int k = 0; k < m->nbody; k++) {
        double Rrel[9], t[3], Rb[9], prev[3];
        salto_body_relative(m, d, k, Rrel, t);
        if (w->has_trans[k]) {
            put_vec(f, t);
            fputc(' ', f);
        }
        to_bvh_rot(Rb, Rrel);
        memcpy(prev, ang + 3 * k, sizeof prev);
        euler_zxy(Rb, prev, ang + 3 * k);
        for (int j = 0; j < 3; j++) {
            put_num(f, ang[3 * k + j] * rad2deg);
            fputc(j < 2 || k + 1 < m->nbody ? ' ' : '\n', f);
        }
    }
}


salto_status salto_motion_write_bvh(const salto_model* m, const salto_motion* mo,
                                    const char* path, salto_error* err) {
    if (!m || !mo || !path || !path[0]) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(),
                          "writing a BVH file needs a model, a motion and a path");
    }
    if (mo->nv != m->nv || mo->nframe < 1 || !(mo->frame_rate > 0.0) || !mo->q) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(),
                          "motion (%d DOFs, %d frames, %g fps) does not fit character '%s' "
                          "(%d DOFs) in '%s'",
                          mo->nv, mo->nframe, mo->frame_rate, m->name, m->nv, path);
    }

    // per-body tables, one allocation
    const int nb = m->nbody;
    void* buf = salto_malloc((size_t)nb * (2 * sizeof(int) + 6 * sizeof(double)));
    salto_data* d = salto_data_create(m);
    if (!buf || !d) {
        salto_free(buf);
        salto_data_destroy(d);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory writing '%s'",
                          path);
    }
    double* offset = buf;
    double* ang = offset + 3 * nb; // Euler angles at the previous frame (nbody x 3)
    int* has_child = (int*)(ang + 3 * nb);
    int* has_trans = has_child + nb;
    for (int k = 0; k < nb; k++) {
        has_child[k] = 0;
        ang[3 * k] = ang[3 * k + 1] = ang[3 * k + 2] = 0.0;
        has_trans[k] = m->body_parent[k] < 0; // the root always has position channels
    }
    for (int k = 0; k < nb; k++) {
        if (m->body_parent[k] >= 0) has_child[m->body_parent[k]] = 1;
    }
    for (int l = 0; l < m->nv; l++) {
        if (m->link_type[l] == SALTO_AXIS_PRISMATIC) has_trans[m->link_body[l]] = 1;
    }

    // offsets: the joint centre relative to the parent body's origin at q = 0, parent frame
    // (rotations do not move the joint centre, so this holds at every q); bodies with
    // position channels carry their whole translation in them
    salto_fk(m, d, SALTO_FK_POS);
    for (int k = 0; k < nb; k++) {
        double Rrel[9];
        salto_body_relative(m, d, k, Rrel, offset + 3 * k);
        if (has_trans[k]) offset[3 * k] = offset[3 * k + 1] = offset[3 * k + 2] = 0.0;
    }

    salto_atomic a;
    const salto_status s = salto_atomic_open(&a, path, 1, err);
    if (s) {
        salto_free(buf);
        salto_data_destroy(d);
        return s;
    }
    FILE* f = a.f;
    const bvh_writer w = {m, f, has_child, has_trans, offset};

    fputs("HIERARCHY\n", f);
    for (int k = 0; k < nb; k++) {
        if (m->body_parent[k] < 0) write_joint(&w, k, 0);
    }
    fprintf(f, "MOTION\nFrames: %d\nFrame Time: %.9f\n", mo->nframe, 1.0 / mo->frame_rate);
    for (int fr = 0; fr < mo->nframe; fr++) {
        memcpy(d->q, mo->q + (size_t)fr * (size_t)m->nv, (size_t)m->nv * sizeof(double));
        salto_fk(m, d, SALTO_FK_POS);
        write_frame(&w, d, ang);
    }
    salto_free(buf);
    salto_data_destroy(d);

    return salto_atomic_commit(&a, err);
}
