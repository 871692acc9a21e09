// bvh_read.c: a BVH motion on a named character, read into frames of q (motion.h)
//
// The hierarchy must be the character's skeleton: one joint per body, named by the body
// (whitespace as '_', as motion.bvh writes it), hanging from the same parent, at the same
// OFFSET where it has no position channels (to 1 mm). Channels may come in any number and
// order (the usual Xposition Yposition Zposition, Zrotation Xrotation Yrotation, ...), composed
// left to right, angles in degrees, metres, in BVH axes (Y up; bvh.c: (X, Y, Z) = (y, z, x) of
// salto's). Each frame gives every body's rotation relative to its parent body, and a
// translation where it has position channels; the DOFs that make them are found by
// Gauss-Newton from the previous frame's (the first from zero), so that angles run on
// continuously past 180 degrees. A frame whose rotations its DOFs cannot make (a BVH of
// another skeleton, a knee bent sideways) is an error naming the frame and the body.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/config.h"
#include "salto/kinematics.h"
#include "salto/motion.h"
#include "salto/spatial.h"

#include "linalg.h"

static const double deg2rad = 0.017453292519943295769236907684886;

enum { max_joints = 256, max_channels = 6 };

typedef struct bvh_joint {
    char name[160];
    int parent;                   // joint index, -1 for a root
    double offset[3];             // BVH axes
    int nch;
    int ch[max_channels];         // 0..2: X/Y/Z position, 3..5: X/Y/Z rotation
    int first;                    // its first channel in a frame's row
    int line, col;                // where its name is
    int body;                     // the character's body
} bvh_joint;

typedef struct lexer {
    const char* path;
    const char* s;
    size_t pos, len;
    int line, col;
    char tok[160];
    int tline, tcol;
} lexer;


// the next whitespace-separated token (a '{' or '}' is one, even unspaced); 0 at the end
static int next(lexer* L) {
    while (L->pos < L->len) {
        const char c = L->s[L->pos];
        if (c == '\n') {
            L->line++, L->col = 1, L->pos++;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            L->col++, L->pos++;
        } else {
            break;
        }
    }
    if (L->pos >= L->len) {
        L->tok[0] = '\0';
        L->tline = L->line, L->tcol = L->col;
        return 0;
    }
    L->tline = L->line, L->tcol = L->col;
    size_t n = 0;
    const char c0 = L->s[L->pos];
    if (c0 == '{' || c0 == '}') {
        L->tok[n++] = c0;
        L->pos++, L->col++;
    } else {
        while (L->pos < L->len) {
            const char c = L->s[L->pos];
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '{' || c == '}') break;
            if (n + 1 < sizeof L->tok) L->tok[n++] = c;
            L->pos++, L->col++;
        }
    }
    L->tok[n] = '\0';
    return 1;
}


static salto_src_loc tok_loc(const lexer* L) {
    salto_src_loc l = {L->path, L->tline, L->tcol};
    return l;
}


static salto_status expect(lexer* L, const char* want, salto_error* err) {
    if (!next(L) || strcmp(L->tok, want) != 0) {
        return SALTO_FAIL(err, SALTO_ERR_SYNTAX, tok_loc(L), "expected '%s', found '%s'", want,
                          L->tok[0] ? L->tok : "the end of the file");
    }
    return SALTO_OK;
}


static salto_status number(lexer* L, double* out, const char* what, salto_error* err) {
    char* end = NULL;
    if (!next(L) || (*out = strtod(L->tok, &end), end == L->tok || *end) || !isfinite(*out)) {
        return SALTO_FAIL(err, SALTO_ERR_SYNTAX, tok_loc(L), "expected a number (%s), found '%s'",
                          what, L->tok[0] ? L->tok : "the end of the file");
    }
    return SALTO_OK;
}


typedef struct hierarchy {
    bvh_joint j[max_joints];
    int n;
    int nch;
} hierarchy;


// a joint's block after its name: { OFFSET x y z CHANNELS n ... (JOINT .. | End Site {..})* }
static salto_status joint_block(lexer* L, hierarchy* h, int self, salto_error* err) {
    salto_status s = expect(L, "{", err);
    if (s) return s;
    bvh_joint* J = &h->j[self];
    if ((s = expect(L, "OFFSET", err))) return s;
    for (int k = 0; k < 3; k++) {
        if ((s = number(L, &J->offset[k], "OFFSET", err))) return s;
    }
    if ((s = expect(L, "CHANNELS", err))) return s;
    double nc = 0;
    if ((s = number(L, &nc, "the channel count", err))) return s;
    if (nc != floor(nc) || nc < 0 || nc > max_channels) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, tok_loc(L), "a joint has 0 to 6 channels, not %s", L->tok);
    }
    J->nch = (int)nc;
    J->first = h->nch;
    h->nch += J->nch;
    static const char* const names[6] = {"Xposition", "Yposition", "Zposition",
                                         "Xrotation", "Yrotation", "Zrotation"};
    for (int c = 0; c < J->nch; c++) {
        next(L);
        int k = 0;
        while (k < 6 && strcmp(L->tok, names[k]) != 0) k++;
        if (k == 6) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, tok_loc(L), "unknown channel '%s' (expected "
                              "Xposition, Yposition, Zposition, Xrotation, Yrotation or Zrotation)", L->tok);
        }
        J->ch[c] = k;
    }
    for (;;) {
        if (!next(L)) return SALTO_FAIL(err, SALTO_ERR_SYNTAX, tok_loc(L), "the file ends inside joint '%s'", J->name);
        if (strcmp(L->tok, "}") == 0) return SALTO_OK;
        if (strcmp(L->tok, "End") == 0) {
            if ((s = expect(L, "Site", err)) || (s = expect(L, "{", err)) || (s = expect(L, "OFFSET", err))) return s;
            double e;
            for (int k = 0; k < 3; k++) {
                if ((s = number(L, &e, "OFFSET", err))) return s;
            }
            if ((s = expect(L, "}", err))) return s;
        } else if (strcmp(L->tok, "JOINT") == 0) {
            if (h->n == max_joints) return SALTO_FAIL(err, SALTO_ERR_INVALID, tok_loc(L), "more than %d joints", max_joints);
            const int c = h->n++;
            next(L);
            snprintf(h->j[c].name, sizeof h->j[c].name, "%s", L->tok);
            h->j[c].parent = self, h->j[c].line = L->tline, h->j[c].col = L->tcol;
            if ((s = joint_block(L, h, c, err))) return s;
        } else {
            return SALTO_FAIL(err, SALTO_ERR_SYNTAX, tok_loc(L), "expected JOINT, End Site or '}' in joint '%s', found '%s'", J->name, L->tok);
        }
    }
}


// body name as motion.bvh writes it (whitespace as '_')
static int same_name(const char* bvh, const char* body) {
    for (; *bvh && *body; bvh++, body++) {
        const char b = (unsigned char)*body <= ' ' ? '_' : *body;
        if (*bvh != b) return 0;
    }
    return *bvh == *body;
}


// R (3x3 row-major) = product over the joint's rotation channels in order, BVH axes
static void channel_rotation(const bvh_joint* J, const double* row, double R[9], double t[3]) {
    double A[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    t[0] = J->offset[0], t[1] = J->offset[1], t[2] = J->offset[2];
    for (int c = 0; c < J->nch; c++) {
        const double v = row[J->first + c];
        if (J->ch[c] < 3) {
            t[J->ch[c]] += v;
            continue;
        }
        const double axis[3] = {J->ch[c] == 3, J->ch[c] == 4, J->ch[c] == 5};
        double Rk[9], B[9];
        salto_m3_axis_angle(Rk, axis, v * deg2rad);
        salto_m3_mul(B, A, Rk);
        memcpy(A, B, sizeof B);
    }
    memcpy(R, A, sizeof A);
}


// salto axes from BVH's: v = M' v_bvh (v_bvh = (y, z, x)), R = M' R_bvh M
static void from_bvh(const double Rb[9], const double tb[3], double R[9], double t[3]) {
    static const int s[3] = {1, 2, 0}; // R_bvh(i, j) = R(s(i), s(j))
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) R[3 * s[i] + s[j]] = Rb[3 * i + j];
    }
    t[0] = tb[2], t[1] = tb[0], t[2] = tb[1];
}


// the rotation vector of R (angle times axis)
static void rot_log(const double R[9], double w[3]) {
    const double ax[3] = {0.5 * (R[7] - R[5]), 0.5 * (R[2] - R[6]), 0.5 * (R[3] - R[1])};
    const double s = salto_v3_norm(ax), c = 0.5 * (R[0] + R[4] + R[8] - 1.0);
    const double ang = atan2(s, c);
    if (c < -0.99) {
        // near half a turn the skew part vanishes (a half turn read as no turn at all): the
        // axis from the symmetric part instead, (R + R')/2 = c I + (1 - c) n n', its sign
        // from the skew part where it has one
        double B[9];
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) B[3 * i + j] = (0.5 * (R[3 * i + j] + R[3 * j + i]) - (i == j ? c : 0.0)) / (1.0 - c);
        }
        int i = 0;
        for (int k = 1; k < 3; k++) i = B[4 * k] > B[4 * i] ? k : i;
        double n[3] = {B[3 * i], B[3 * i + 1], B[3 * i + 2]};
        const double len = salto_v3_norm(n);
        if (len > 0.0) {
            const double sign = salto_v3_dot(n, ax) < 0.0 ? -1.0 : 1.0;
            for (int k = 0; k < 3; k++) w[k] = sign * ang * n[k] / len;
            return;
        }
    }
    const double f = s > 1e-12 ? ang / s : 1.0;
    for (int k = 0; k < 3; k++) w[k] = f * ax[k];
}


// the residual of q against the frame's targets (per body: rotation vector of R' R_target,
// and t - t_target where the body has position channels), after salto_fk at q
static void residual(const salto_model* m, const salto_data* d, const double* Rt, const double* tt,
                     const int* has_t, double* r) {
    int n = 0;
    for (int k = 0; k < m->nbody; k++) {
        double R[9], t[3], E[9];
        salto_body_relative(m, d, k, R, t);
        for (int i = 0; i < 3; i++) { // E = R' R_target
            for (int j = 0; j < 3; j++) E[3 * i + j] = R[i] * Rt[9 * k + j] + R[3 + i] * Rt[9 * k + 3 + j] + R[6 + i] * Rt[9 * k + 6 + j];
        }
        rot_log(E, r + n);
        n += 3;
        if (has_t[k]) {
            for (int i = 0; i < 3; i++) r[n++] = t[i] - tt[3 * k + i];
        }
    }
}


// Gauss-Newton on the DOFs (d->q, in place, from where they are) for the target relative
// rotations and translations of every body: the largest residual left (r0 holds them all)
static double fit_frame(const salto_model* m, salto_data* d, const double* Rt, const double* tt,
                        const int* has_t, int nres, double* r0, double* r1, double* J, double* A,
                        double* g) {
    const int nv = m->nv;
    double worst = 0.0;
    for (int it = 0; it < 30; it++) {
        salto_fk(m, d, SALTO_FK_POS);
        residual(m, d, Rt, tt, has_t, r0);
        double rn = 0.0;
        for (int i = 0; i < nres; i++) rn = fmax(rn, fabs(r0[i]));
        worst = rn;
        if (rn < 1e-12) break;
        for (int j = 0; j < nv; j++) { // the Jacobian by central differences
            const double qj = d->q[j], hstep = 1e-6;
            d->q[j] = qj + hstep;
            salto_fk(m, d, SALTO_FK_POS);
            residual(m, d, Rt, tt, has_t, r1);
            d->q[j] = qj - hstep;
            salto_fk(m, d, SALTO_FK_POS);
            residual(m, d, Rt, tt, has_t, J + (size_t)j * nres);
            d->q[j] = qj;
            for (int i = 0; i < nres; i++) J[(size_t)j * nres + i] = (r1[i] - J[(size_t)j * nres + i]) / (2 * hstep);
        }
        double tr = 0.0; // J'J + mu I, J' r
        for (int a = 0; a < nv; a++) {
            for (int b = 0; b < nv; b++) {
                double v = 0.0;
                for (int i = 0; i < nres; i++) v += J[(size_t)a * nres + i] * J[(size_t)b * nres + i];
                A[a * nv + b] = v;
            }
            double v = 0.0;
            for (int i = 0; i < nres; i++) v -= J[(size_t)a * nres + i] * r0[i];
            g[a] = v;
            tr += A[a * nv + a];
        }
        for (int a = 0; a < nv; a++) A[a * nv + a] += 1e-12 * (tr / nv) + 1e-300;
        if (!salto_chol(A, nv)) break;
        salto_chol_solve(A, nv, g);
        double step = 0.0;
        for (int j = 0; j < nv; j++) d->q[j] += g[j], step = fmax(step, fabs(g[j]));
        if (step < 1e-13) {
            salto_fk(m, d, SALTO_FK_POS);
            residual(m, d, Rt, tt, has_t, r0);
            worst = 0.0;
            for (int i = 0; i < nres; i++) worst = fmax(worst, fabs(r0[i]));
            break;
        }
    }
    return worst;
}


// the body whose residual (in r0) is largest, and that residual
static int worst_body(const salto_model* m, const int* has_t, const double* r0, double* e) {
    int at_body = 0, n = 0;
    *e = -1.0;
    for (int k = 0; k < m->nbody; k++) {
        const int w = 3 + 3 * has_t[k];
        for (int i = 0; i < w; i++) {
            if (fabs(r0[n + i]) > *e) *e = fabs(r0[n + i]), at_body = k;
        }
        n += w;
    }
    return at_body;
}


// fit_frame, then (a body left far off sits on another branch of its joints' angles: a frame
// far from the last one, the first from zero) its DOFs restarted at quarter turns from where
// they are, the rest kept, the best fit kept (salto's own leap_pegs wrote an arm the fit from
// zero could not reach); then a revolute DOF past its limits by a whole turn taken inside them
static double fit_restarts(const salto_model* m, salto_data* d, const double* Rt, const double* tt,
                           const int* has_t, int nres, double* r0, double* r1, double* J, double* A,
                           double* g) {
    const int nv = m->nv;
    double worst = fit_frame(m, d, Rt, tt, has_t, nres, r0, r1, J, A, g);
    // a body left far off sits on another branch of its joints' angles (a frame far from
    // the last one, the first from zero): its DOFs restarted at quarter turns from where
    // they are, the rest kept, the best fit kept (salto's own leap_pegs wrote an arm the
    // fit from zero could not reach)
    for (int tries = 0; !(worst <= 1e-3) && tries < m->nbody && nv <= 64; tries++) {
        double e;
        const int k = worst_body(m, has_t, r0, &e);
        int dof[3], nd = 0;
        for (int j = 0; j < nv && nd < 3; j++) {
            if (m->link_body[j] == k) dof[nd++] = j;
        }
        if (nd == 0) break;
        double best = worst, qbest[3] = {0, 0, 0}, keep[64];
        memcpy(keep, d->q, (size_t)nv * sizeof(double));
        int combos = 1;
        for (int a = 0; a < nd; a++) combos *= 4;
        for (int c = 1; c < combos; c++) {
            memcpy(d->q, keep, (size_t)nv * sizeof(double));
            for (int a = 0, cc = c; a < nd; a++, cc /= 4) d->q[dof[a]] = keep[dof[a]] + 1.5707963267948966 * (cc % 4);
            const double w = fit_frame(m, d, Rt, tt, has_t, nres, r0, r1, J, A, g);
            if (w < best) {
                best = w;
                for (int a = 0; a < nd; a++) qbest[a] = d->q[dof[a]];
                if (best <= 1e-3) break;
            }
        }
        memcpy(d->q, keep, (size_t)nv * sizeof(double));
        if (!(best < worst)) { // (r0 the kept fit's again, for worst_body)
            salto_fk(m, d, SALTO_FK_POS);
            residual(m, d, Rt, tt, has_t, r0);
            break;
        }
        for (int a = 0; a < nd; a++) d->q[dof[a]] = qbest[a];
        worst = fit_frame(m, d, Rt, tt, has_t, nres, r0, r1, J, A, g);
    }
    // a revolute DOF past its limits by a whole turn: the same rotation, taken inside them
    // (a shoulder at its -pi limit reads back as +pi as readily; the leap's did, and the
    // frames then left the motion's spline)
    for (int j = 0; j < nv; j++) {
        if (m->link_type[j] != SALTO_AXIS_REVOLUTE || !m->link_has_limits[j]) continue;
        const double lo = m->link_limits[2 * j] - 1e-9, hi = m->link_limits[2 * j + 1] + 1e-9;
        for (int w = -1; w <= 1 && (d->q[j] < lo || d->q[j] > hi); w += 2) {
            const double qs = d->q[j] + w * 6.283185307179586;
            if (qs >= lo && qs <= hi) d->q[j] = qs;
        }
    }
    return worst;
}


// The whole file after its text: the hierarchy into h, the frame count and time, and the rows
// (nframe x h->nch, owned by the caller); data_line: the first row's line; motion_loc: where
// MOTION stands
static salto_status parse(lexer* L, hierarchy* h, double** rows_out, int* nframe_out, double* dt_out,
                          int* data_line, salto_src_loc* motion_loc, salto_error* err) {
    salto_status s = SALTO_OK;
    *rows_out = NULL;
    // ---- HIERARCHY ----
    if ((s = expect(L, "HIERARCHY", err))) return s;
    while (next(L) && strcmp(L->tok, "ROOT") == 0) {
        if (h->n == max_joints) return SALTO_FAIL(err, SALTO_ERR_INVALID, tok_loc(L), "more than %d joints", max_joints);
        const int c = h->n++;
        next(L);
        snprintf(h->j[c].name, sizeof h->j[c].name, "%s", L->tok);
        h->j[c].parent = -1, h->j[c].line = L->tline, h->j[c].col = L->tcol;
        if ((s = joint_block(L, h, c, err))) return s;
    }
    if (strcmp(L->tok, "MOTION") != 0) {
        return SALTO_FAIL(err, SALTO_ERR_SYNTAX, tok_loc(L), "expected ROOT or MOTION, found '%s'",
                          L->tok[0] ? L->tok : "the end of the file");
    }
    *motion_loc = tok_loc(L);
    double frames = 0, dt = 0;
    if ((s = expect(L, "Frames:", err)) || (s = number(L, &frames, "the frame count", err))) return s;
    if (frames != floor(frames) || frames < 4 || frames > 1e7) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, tok_loc(L), "%s frames; at least 4 are needed for accelerations", L->tok);
    }
    if ((s = expect(L, "Frame", err)) || (s = expect(L, "Time:", err)) || (s = number(L, &dt, "the frame time", err))) return s;
    if (!(dt > 0.0)) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, tok_loc(L), "the frame time must be positive, found %s", L->tok);
    }
    const int nframe = (int)frames;
    *nframe_out = nframe, *dt_out = dt;
    // ---- MOTION rows ----
    double* rows = salto_malloc((size_t)nframe * (size_t)(h->nch > 0 ? h->nch : 1) * sizeof(double));
    if (!rows) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    *rows_out = rows;
    for (int fr = 0; fr < nframe; fr++) {
        if (fr == 0) *data_line = L->line + 1;
        for (int c = 0; c < h->nch; c++) {
            char* end = NULL;
            double* v = &rows[(size_t)fr * h->nch + c];
            if (!next(L)) {
                return SALTO_FAIL(err, SALTO_ERR_INVALID, tok_loc(L), "the file ends in frame %d of the %d that 'Frames:' announces", fr + 1, nframe);
            }
            *v = strtod(L->tok, &end);
            if (end == L->tok || *end || !isfinite(*v)) {
                return SALTO_FAIL(err, SALTO_ERR_INVALID, tok_loc(L), "'%s' in frame %d is not a finite number", L->tok, fr + 1);
            }
        }
    }
    if (next(L)) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, tok_loc(L), "more values than the %d frames of %d channels that 'Frames:' announces",
                          nframe, h->nch);
    }
    return SALTO_OK;
}


// f's columns (t, then m's DOFs) and room for nframe rows; 0 when memory runs out
static int frames_alloc(salto_frames* f, const salto_model* m, int nframe) {
    f->t = salto_malloc((size_t)nframe * sizeof(double));
    f->q = salto_malloc((size_t)nframe * (size_t)m->nv * sizeof(double));
    f->name = salto_calloc((size_t)m->nv + 1, sizeof(char*));
    f->col_pos = salto_calloc((size_t)m->nv + 1, sizeof(int));
    if (!f->t || !f->q || !f->name || !f->col_pos) return 0;
    f->ncol = m->nv + 1;
    f->tcol = 0;
    f->name[0] = salto_strdup("t");
    for (int j = 0; j < m->nv; j++) f->name[j + 1] = salto_strdup(m->link_name[j]);
    for (int j = 0; j <= m->nv; j++) {
        if (!f->name[j]) return 0;
    }
    f->header_line = 1;
    f->nv = m->nv;
    f->nframe = nframe;
    return 1;
}


salto_frames* salto_frames_load_bvh(const char* path, const salto_model* m, salto_error* err) {
    size_t len = 0;
    char* text = salto_read_file(path, &len, err);
    if (!text) return NULL;
    hierarchy* h = salto_calloc(1, sizeof *h);
    salto_frames* f = salto_calloc(1, sizeof *f);
    salto_data* d = salto_data_create(m);
    lexer L = {path, text, 0, len, 1, 1, "", 0, 0};
    salto_status s = SALTO_OK;
    double *rows = NULL, *Rt = NULL, *tt = NULL, *r0 = NULL, *r1 = NULL, *J = NULL, *A = NULL, *g = NULL;
    int* has_t = NULL;
    int nframe = 0, data_line = 0;
    if (!h || !f || !d || !(f->path = salto_strdup(path))) {
        s = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        goto done;
    }
    salto_src_loc motion_loc = salto_loc_none();
    double dt = 0.0;
    if ((s = parse(&L, h, &rows, &nframe, &dt, &data_line, &motion_loc, err))) goto done;

    // ---- the skeleton against the character's ----
    for (int c = 0; c < h->n; c++) {
        bvh_joint* Jc = &h->j[c];
        salto_src_loc at = {path, Jc->line, Jc->col};
        Jc->body = -1;
        for (int k = 0; k < m->nbody && Jc->body < 0; k++) {
            if (same_name(Jc->name, m->body_name[k])) Jc->body = k;
        }
        if (Jc->body < 0) {
            s = SALTO_FAIL(err, SALTO_ERR_INVALID, at, "joint '%s' is not a body of the character '%s'", Jc->name, m->name);
            const char* near = salto_cfg_suggest(Jc->name, (const char* const*)m->body_name, m->nbody);
            if (near) snprintf(err->note, sizeof err->note, "did you mean '%s'?", near);
            goto done;
        }
        const int want = m->body_parent[Jc->body];
        const int got = Jc->parent < 0 ? -1 : h->j[Jc->parent].body;
        if (want != got) {
            s = SALTO_FAIL(err, SALTO_ERR_INVALID, at, "joint '%s' hangs from %s%s%s in the BVH but "
                           "from %s%s%s in the character '%s'", Jc->name,
                           got < 0 ? "nothing" : "'", got < 0 ? "" : m->body_name[got], got < 0 ? "" : "'",
                           want < 0 ? "nothing" : "'", want < 0 ? "" : m->body_name[want], want < 0 ? "" : "'", m->name);
            goto done;
        }
    }
    for (int k = 0; k < m->nbody; k++) {
        int found = 0;
        for (int c = 0; c < h->n; c++) found |= h->j[c].body == k;
        if (!found) {
            s = SALTO_FAIL(err, SALTO_ERR_INVALID, motion_loc, "the hierarchy has no joint for body '%s' of the character '%s'",
                           m->body_name[k], m->name);
            goto done;
        }
    }
    // joints without position channels: their OFFSET is the character's joint centre
    has_t = salto_calloc((size_t)m->nbody, sizeof(int));
    Rt = salto_malloc((size_t)m->nbody * 9 * sizeof(double));
    tt = salto_malloc((size_t)m->nbody * 3 * sizeof(double));
    if (!has_t || !Rt || !tt) {
        s = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        goto done;
    }
    memset(d->q, 0, (size_t)m->nv * sizeof(double));
    salto_fk(m, d, SALTO_FK_POS);
    int nres = 0;
    for (int c = 0; c < h->n; c++) {
        const bvh_joint* Jc = &h->j[c];
        const int k = Jc->body;
        for (int q = 0; q < Jc->nch; q++) has_t[k] |= Jc->ch[q] < 3;
        double R0[9], t0[3], Ri[9], tk[3];
        salto_body_relative(m, d, k, R0, t0);
        if (!has_t[k]) {
            const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
            from_bvh(I, Jc->offset, Ri, tk);
            const double e[3] = {tk[0] - t0[0], tk[1] - t0[1], tk[2] - t0[2]};
            if (salto_v3_norm(e) > 1e-3) {
                salto_src_loc at = {path, Jc->line, Jc->col};
                s = SALTO_FAIL(err, SALTO_ERR_INVALID, at, "joint '%s' sits %.4g m from where the "
                               "character '%s' has it (its OFFSET is not this skeleton's)",
                               Jc->name, salto_v3_norm(e), m->name);
                goto done;
            }
        }
    }
    for (int k = 0; k < m->nbody; k++) nres += 3 + 3 * has_t[k];

    r0 = salto_malloc((size_t)nres * sizeof(double));
    r1 = salto_malloc((size_t)nres * sizeof(double));
    J = salto_malloc((size_t)nres * (size_t)m->nv * sizeof(double));
    A = salto_malloc((size_t)m->nv * (size_t)m->nv * sizeof(double));
    g = salto_malloc((size_t)m->nv * sizeof(double));
    if (!frames_alloc(f, m, nframe) || !r0 || !r1 || !J || !A || !g) {
        s = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        goto done;
    }
    // ---- the DOFs of every frame: Gauss-Newton from the previous frame's ----
    const int nv = m->nv;
    memset(d->q, 0, (size_t)nv * sizeof(double));
    for (int fr = 0; fr < nframe; fr++) {
        const double* row = rows + (size_t)fr * h->nch;
        for (int c = 0; c < h->n; c++) {
            double Rb[9], tb[3];
            channel_rotation(&h->j[c], row, Rb, tb);
            from_bvh(Rb, tb, Rt + 9 * h->j[c].body, tt + 3 * h->j[c].body);
        }
        double worst = fit_restarts(m, d, Rt, tt, has_t, nres, r0, r1, J, A, g);
        if (!(worst <= 1e-3)) { // name the body furthest off
            double e;
            const int at_body = worst_body(m, has_t, r0, &e);
            salto_src_loc at = {path, data_line + fr, 1};
            s = SALTO_FAIL(err, SALTO_ERR_INVALID, at, "frame %d: body '%s' is %.3g (rad or m) from "
                           "any pose the character '%s' can take (its DOFs cannot make this rotation: is "
                           "the BVH on this character?)", fr + 1, m->body_name[at_body], e, m->name);
            goto done;
        }
        f->t[fr] = fr * dt;
        memcpy(f->q + (size_t)fr * nv, d->q, (size_t)nv * sizeof(double));
    }

done:
    salto_free(text);
    salto_free(h);
    salto_free(rows), salto_free(Rt), salto_free(tt), salto_free(has_t);
    salto_free(r0), salto_free(r1), salto_free(J), salto_free(A), salto_free(g);
    salto_data_destroy(d);
    if (s != SALTO_OK) {
        salto_frames_destroy(f);
        return NULL;
    }
    return f;
}


// ---- retargeting (salto retarget) ----

// the minimal rotation taking unit a to unit b (about a x b; a half turn about an axis normal
// to a when they are opposite)
static void rotation_between(const double* a, const double* b, double* R) {
    double v[3];
    salto_v3_cross(v, a, b);
    const double s = salto_v3_norm(v), c = salto_v3_dot(a, b);
    if (s < 1e-12 && c > 0.0) {
        const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(R, I, sizeof I);
        return;
    }
    double u[3];
    if (s < 1e-12) { // opposite: any normal
        const double e[3] = {fabs(a[0]) < 0.9 ? 1.0 : 0.0, fabs(a[0]) < 0.9 ? 0.0 : 1.0, 0.0};
        salto_v3_cross(u, a, e);
    } else {
        memcpy(u, v, sizeof u);
    }
    const double n = salto_v3_norm(u);
    for (int k = 0; k < 3; k++) u[k] /= n;
    salto_m3_axis_angle(R, u, atan2(s, c));
}


// every BVH joint's global rotation and position (salto's axes) for a row (NULL: the rest
// pose, every channel zero)
static void bvh_globals(const hierarchy* h, const double* row, double* G, double* P) {
    for (int c = 0; c < h->n; c++) {
        const bvh_joint* Jc = &h->j[c];
        double Rb[9], tb[3], Rl[9], tl[3];
        if (row) {
            channel_rotation(Jc, row, Rb, tb);
        } else {
            const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
            memcpy(Rb, I, sizeof I), memcpy(tb, Jc->offset, sizeof tb);
        }
        from_bvh(Rb, tb, Rl, tl);
        if (Jc->parent < 0) {
            memcpy(G + 9 * c, Rl, sizeof Rl), memcpy(P + 3 * c, tl, sizeof tl);
            continue;
        }
        const double* Gp = G + 9 * Jc->parent;
        salto_m3_mul(G + 9 * c, Gp, Rl);
        salto_m3_mul_v3(P + 3 * c, Gp, tl);
        for (int k = 0; k < 3; k++) P[3 * c + k] += P[3 * Jc->parent + k];
    }
}


salto_frames* salto_frames_retarget_bvh(const char* path, const salto_model* m,
                                        const char* const* joint, const salto_src_loc* joint_loc,
                                        double scale, salto_retarget_info* info, salto_error* err) {
    size_t len = 0;
    char* text = salto_read_file(path, &len, err);
    if (!text) return NULL;
    const int nb = m->nbody, nv = m->nv;
    hierarchy* h = salto_calloc(1, sizeof *h);
    salto_frames* f = salto_calloc(1, sizeof *f);
    salto_data* d = salto_data_create(m);
    lexer L = {path, text, 0, len, 1, 1, "", 0, 0};
    salto_status s = SALTO_OK;
    double *rows = NULL, *r0 = NULL, *r1 = NULL, *J = NULL, *A = NULL, *g = NULL, *buf = NULL;
    int *has_t = NULL, *jb = NULL;
    int nframe = 0, data_line = 0;
    salto_src_loc motion_loc = salto_loc_none();
    double dt = 0.0;
    if (!h || !f || !d || !(f->path = salto_strdup(path))) {
        s = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        goto done;
    }
    if ((s = parse(&L, h, &rows, &nframe, &dt, &data_line, &motion_loc, err))) goto done;
    // the map: each body's BVH joint (-1: none); the root's required
    jb = salto_malloc(sizeof(int) * (size_t)nb);
    has_t = salto_calloc((size_t)nb, sizeof(int));
    // Rt, tt (nb x 9, 3), rest and frame globals (h->n x 12 each), the bodies' alignments C,
    // their q = 0 frames (nb x 12) and their frames in the frame (nb x 9)
    buf = salto_calloc((size_t)nb * 12 + (size_t)h->n * 24 + (size_t)nb * 30 + (size_t)nv, sizeof(double));
    if (!jb || !has_t || !buf) {
        s = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        goto done;
    }
    double* Rt = buf;
    double* tt = Rt + 9 * nb;
    double* Gr = tt + 3 * nb;
    double* Pr = Gr + 9 * h->n;
    double* G = Pr + 3 * h->n;
    double* P = G + 9 * h->n;
    double* C = P + 3 * h->n;
    double* R0 = C + 9 * nb;
    double* p0 = R0 + 9 * nb;
    double* Gb = p0 + 3 * nb;
    const char* names[max_joints];
    for (int c = 0; c < h->n; c++) names[c] = h->j[c].name;
    for (int b = 0; b < nb; b++) {
        jb[b] = -1;
        if (!joint || !joint[b]) continue;
        for (int c = 0; c < h->n && jb[b] < 0; c++) {
            if (strcmp(h->j[c].name, joint[b]) == 0) jb[b] = c;
        }
        const salto_src_loc at = joint_loc ? joint_loc[b] : motion_loc;
        if (jb[b] < 0) {
            s = SALTO_FAIL(err, SALTO_ERR_INVALID, at, "body '%s': the BVH '%s' has no joint '%s'",
                           m->body_name[b], path, joint[b]);
            const char* near = salto_cfg_suggest(joint[b], names, h->n);
            if (near) snprintf(err->note, sizeof err->note, "did you mean '%s'?", near);
            goto done;
        }
        for (int a = 0; a < b; a++) {
            if (jb[a] == jb[b]) {
                s = SALTO_FAIL(err, SALTO_ERR_INVALID, at, "bodies '%s' and '%s' both follow the BVH "
                               "joint '%s'", m->body_name[a], m->body_name[b], joint[b]);
                goto done;
            }
        }
    }
    int root = 0;
    while (root < nb && m->body_parent[root] >= 0) root++;
    if (root == nb || jb[root] < 0) {
        s = SALTO_FAIL(err, SALTO_ERR_INVALID, joint_loc && root < nb ? joint_loc[root] : motion_loc,
                       "the root body '%s' needs a BVH joint to follow", root < nb ? m->body_name[root] : "?");
        goto done;
    }
    // the rest poses: the capture's (channels zero) and the character's (q = 0)
    bvh_globals(h, NULL, Gr, Pr);
    memset(d->q, 0, (size_t)nv * sizeof(double));
    salto_fk(m, d, SALTO_FK_POS);
    for (int b = 0; b < nb; b++) {
        const double *Rb, *pb;
        salto_body_frame(m, d, b, &Rb, &pb);
        memcpy(R0 + 9 * b, Rb, 9 * sizeof(double)), memcpy(p0 + 3 * b, pb, 3 * sizeof(double));
    }
    // each mapped body's nearest mapped ancestor (-1: none), the bones between them
    int* anc = has_t; // (borrowed until has_t is set below)
    for (int b = 0; b < nb; b++) {
        anc[b] = -1;
        for (int a = m->body_parent[b]; jb[b] >= 0 && a >= 0 && anc[b] < 0; a = m->body_parent[a]) {
            if (jb[a] >= 0) anc[b] = a;
        }
    }
    // the scale: the character's bones over the capture's, summed over those pairs
    double ls = 0.0, lb = 0.0;
    int npair = 0;
    for (int b = 0; b < nb; b++) {
        const int a = anc[b];
        if (a < 0) continue;
        double ds[3], db[3];
        for (int k = 0; k < 3; k++) ds[k] = p0[3 * b + k] - p0[3 * a + k], db[k] = Pr[3 * jb[b] + k] - Pr[3 * jb[a] + k];
        ls += salto_v3_norm(ds), lb += salto_v3_norm(db), npair++;
    }
    const double auto_scale = lb > 0.0 && ls > 0.0 ? ls / lb : 1.0;
    if (!(scale > 0.0)) scale = auto_scale;
    if (!(scale >= 1e-6 && scale <= 1e6)) {
        s = SALTO_FAIL(err, SALTO_ERR_INVALID, motion_loc, "a scale of %g metres per BVH unit%s: it "
                       "must be from 1e-6 to 1e6", scale, scale == auto_scale ? " (the bones' ratio)" : "");
        goto done;
    }
    // each body's alignment C: the turn taking its bone (to its farthest mapped body whose
    // nearest mapped ancestor it is) at q = 0 onto the capture's bone between the same joints
    // at rest; without one, its parent's (the root: none)
    for (int b = 0; b < nb; b++) {
        double* Cb = C + 9 * b;
        const int pa = m->body_parent[b];
        if (pa >= 0) {
            memcpy(Cb, C + 9 * pa, 9 * sizeof(double));
        } else {
            const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
            memcpy(Cb, I, sizeof I);
            continue;
        }
        if (jb[b] < 0) continue;
        int far = -1;
        double dfar = 0.0;
        for (int c = b + 1; c < nb; c++) {
            if (anc[c] != b) continue;
            double e[3];
            for (int k = 0; k < 3; k++) e[k] = p0[3 * c + k] - p0[3 * b + k];
            if (salto_v3_norm(e) > dfar) dfar = salto_v3_norm(e), far = c;
        }
        if (far < 0) continue;
        double ds[3], db[3];
        for (int k = 0; k < 3; k++) ds[k] = p0[3 * far + k] - p0[3 * b + k], db[k] = Pr[3 * jb[far] + k] - Pr[3 * jb[b] + k];
        const double ns = salto_v3_norm(ds), nbv = salto_v3_norm(db);
        if (!(ns > 0.0) || !(nbv > 0.0)) continue;
        for (int k = 0; k < 3; k++) ds[k] /= ns, db[k] /= nbv;
        rotation_between(ds, db, Cb);
    }
    for (int b = 0; b < nb; b++) has_t[b] = b == root && m->root_type != SALTO_ROOT_FIXED;
    int nres = 0;
    for (int b = 0; b < nb; b++) nres += 3 + 3 * has_t[b];
    r0 = salto_malloc((size_t)nres * sizeof(double));
    r1 = salto_malloc((size_t)nres * sizeof(double));
    J = salto_malloc((size_t)nres * (size_t)nv * sizeof(double));
    A = salto_malloc((size_t)nv * (size_t)nv * sizeof(double));
    g = salto_malloc((size_t)nv * sizeof(double));
    if (!frames_alloc(f, m, nframe) || !r0 || !r1 || !J || !A || !g) {
        s = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        goto done;
    }
    double prev_worst = 0.0;
    double* qkeep = Gb + 9 * nb;
    if (info) {
        memset(info, 0, sizeof *info);
        info->scale = scale, info->auto_scale = auto_scale, info->worst_body = -1, info->npair = npair;
    }
    for (int fr = 0; fr < nframe; fr++) {
        bvh_globals(h, rows + (size_t)fr * h->nch, G, P);
        // each body's frame: a mapped body turned from its alignment as its joint turned from
        // rest (G_J Gr_J' C R0), an unmapped one carried by its parent as at q = 0
        for (int b = 0; b < nb; b++) {
            double* Gbb = Gb + 9 * b;
            const int pa = m->body_parent[b];
            if (jb[b] >= 0) {
                double D[9], T[9];
                salto_m3_mul_t(D, G + 9 * jb[b], Gr + 9 * jb[b]);
                salto_m3_mul(T, D, C + 9 * b);
                salto_m3_mul(Gbb, T, R0 + 9 * b);
            } else {
                double Rrel[9];
                salto_m3t_mul(Rrel, R0 + 9 * pa, R0 + 9 * b);
                salto_m3_mul(Gbb, Gb + 9 * pa, Rrel);
            }
            if (pa < 0) {
                memcpy(Rt + 9 * b, Gbb, 9 * sizeof(double));
            } else {
                salto_m3t_mul(Rt + 9 * b, Gb + 9 * pa, Gbb);
            }
        }
        // the root's place: the capture's root joint scaled (a fixed root stays)
        for (int k = 0; k < 3; k++) tt[3 * root + k] = scale * P[3 * jb[root] + k];
        // from the last frame's DOFs (restarts on the first frame, or when the fit jumps and a
        // restart halves it at least: a capture the character cannot follow exactly must not
        // hop between branches of its angles for a rounding's gain)
        double worst;
        if (fr == 0) {
            worst = fit_restarts(m, d, Rt, tt, has_t, nres, r0, r1, J, A, g);
        } else {
            worst = fit_frame(m, d, Rt, tt, has_t, nres, r0, r1, J, A, g);
            if (worst > 1e-3 && worst > 10.0 * prev_worst) {
                memcpy(qkeep, d->q, (size_t)nv * sizeof(double));
                const double w2 = fit_restarts(m, d, Rt, tt, has_t, nres, r0, r1, J, A, g);
                if (w2 < 0.5 * worst) {
                    worst = w2;
                } else {
                    memcpy(d->q, qkeep, (size_t)nv * sizeof(double));
                    worst = fit_frame(m, d, Rt, tt, has_t, nres, r0, r1, J, A, g);
                }
            }
            // each angle within half a turn of the last frame's, then inside its limits by
            // whole turns where it can be
            const double* qp = f->q + (size_t)(fr - 1) * nv;
            for (int j = 0; j < nv; j++) {
                if (m->link_type[j] != SALTO_AXIS_REVOLUTE) continue;
                d->q[j] = qp[j] + remainder(d->q[j] - qp[j], 6.283185307179586);
            }
        }
        if (fr == 0) {
            // the first frame's angles by whole turns nearest their limits (inside when they can
            // be; the unlimited ones in (-pi, pi]); later frames follow on from them
            for (int j = 0; j < nv; j++) {
                if (m->link_type[j] != SALTO_AXIS_REVOLUTE) continue;
                const double tau = 6.283185307179586;
                if (!m->link_has_limits[j]) {
                    d->q[j] = remainder(d->q[j], tau);
                    continue;
                }
                const double lo = m->link_limits[2 * j], hi = m->link_limits[2 * j + 1];
                const double base = remainder(d->q[j], tau);
                double best = d->q[j], bd = INFINITY;
                for (int k = -3; k <= 3; k++) {
                    const double v = base + k * tau;
                    const double dist = v < lo ? lo - v : v > hi ? v - hi : 0.0;
                    const double mid = fabs(v - 0.5 * (lo + hi));
                    if (dist < bd - 1e-12 || (fabs(dist - bd) <= 1e-12 && mid < fabs(best - 0.5 * (lo + hi)))) {
                        bd = dist, best = v;
                    }
                }
                d->q[j] = best;
            }
        }
        prev_worst = worst;
        if (info && worst > info->worst) {
            double e;
            info->worst = worst, info->worst_frame = fr;
            info->worst_body = worst_body(m, has_t, r0, &e);
        }
        f->t[fr] = fr * dt;
        memcpy(f->q + (size_t)fr * nv, d->q, (size_t)nv * sizeof(double));
    }
    if (info) info->dt = dt;

done:
    salto_free(text);
    salto_free(h);
    salto_free(rows), salto_free(buf), salto_free(has_t), salto_free(jb);
    salto_free(r0), salto_free(r1), salto_free(J), salto_free(A), salto_free(g);
    salto_data_destroy(d);
    if (s != SALTO_OK) {
        salto_frames_destroy(f);
        return NULL;
    }
    return f;
}
