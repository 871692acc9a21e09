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
    // ---- HIERARCHY ----
    if ((s = expect(&L, "HIERARCHY", err))) goto done;
    while (next(&L) && strcmp(L.tok, "ROOT") == 0) {
        if (h->n == max_joints) {
            s = SALTO_FAIL(err, SALTO_ERR_INVALID, tok_loc(&L), "more than %d joints", max_joints);
            goto done;
        }
        const int c = h->n++;
        next(&L);
        snprintf(h->j[c].name, sizeof h->j[c].name, "%s", L.tok);
        h->j[c].parent = -1, h->j[c].line = L.tline, h->j[c].col = L.tcol;
        if ((s = joint_block(&L, h, c, err))) goto done;
    }
    if (strcmp(L.tok, "MOTION") != 0) {
        s = SALTO_FAIL(err, SALTO_ERR_SYNTAX, tok_loc(&L), "expected ROOT or MOTION, found '%s'",
                       L.tok[0] ? L.tok : "the end of the file");
        goto done;
    }
    const salto_src_loc motion_loc = tok_loc(&L);
    double frames = 0, dt = 0;
    if ((s = expect(&L, "Frames:", err)) || (s = number(&L, &frames, "the frame count", err))) goto done;
    if (frames != floor(frames) || frames < 4 || frames > 1e7) {
        s = SALTO_FAIL(err, SALTO_ERR_INVALID, tok_loc(&L), "%s frames; at least 4 are needed for accelerations", L.tok);
        goto done;
    }
    if ((s = expect(&L, "Frame", err)) || (s = expect(&L, "Time:", err)) || (s = number(&L, &dt, "the frame time", err))) goto done;
    if (!(dt > 0.0)) {
        s = SALTO_FAIL(err, SALTO_ERR_INVALID, tok_loc(&L), "the frame time must be positive, found %s", L.tok);
        goto done;
    }
    nframe = (int)frames;

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

    // ---- MOTION rows ----
    rows = salto_malloc((size_t)nframe * (size_t)(h->nch > 0 ? h->nch : 1) * sizeof(double));
    f->t = salto_malloc((size_t)nframe * sizeof(double));
    f->q = salto_malloc((size_t)nframe * (size_t)m->nv * sizeof(double));
    f->name = salto_calloc((size_t)m->nv + 1, sizeof(char*));
    f->col_pos = salto_calloc((size_t)m->nv + 1, sizeof(int));
    r0 = salto_malloc((size_t)nres * sizeof(double));
    r1 = salto_malloc((size_t)nres * sizeof(double));
    J = salto_malloc((size_t)nres * (size_t)m->nv * sizeof(double));
    A = salto_malloc((size_t)m->nv * (size_t)m->nv * sizeof(double));
    g = salto_malloc((size_t)m->nv * sizeof(double));
    if (!rows || !f->t || !f->q || !f->name || !f->col_pos || !r0 || !r1 || !J || !A || !g) {
        s = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        goto done;
    }
    f->ncol = m->nv + 1;
    f->tcol = 0;
    f->name[0] = salto_strdup("t");
    for (int j = 0; j < m->nv; j++) f->name[j + 1] = salto_strdup(m->link_name[j]);
    for (int j = 0; j <= m->nv; j++) {
        if (!f->name[j]) {
            s = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
            goto done;
        }
    }
    f->header_line = 1;
    f->nv = m->nv;
    f->nframe = nframe;
    for (int fr = 0; fr < nframe; fr++) {
        if (fr == 0) data_line = L.line + 1;
        for (int c = 0; c < h->nch; c++) {
            char* end = NULL;
            double* v = &rows[(size_t)fr * h->nch + c];
            if (!next(&L)) {
                s = SALTO_FAIL(err, SALTO_ERR_INVALID, tok_loc(&L), "the file ends in frame %d of the %d that 'Frames:' announces", fr + 1, nframe);
                goto done;
            }
            *v = strtod(L.tok, &end);
            if (end == L.tok || *end || !isfinite(*v)) {
                s = SALTO_FAIL(err, SALTO_ERR_INVALID, tok_loc(&L), "'%s' in frame %d is not a finite number", L.tok, fr + 1);
                goto done;
            }
        }
    }
    if (next(&L)) {
        s = SALTO_FAIL(err, SALTO_ERR_INVALID, tok_loc(&L), "more values than the %d frames of %d channels that 'Frames:' announces",
                       nframe, h->nch);
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
            if (!(best < worst)) break;
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
