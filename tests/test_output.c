// test_output.c: the BVH and filmstrip writers (motion.bvh, filmstrip.png)
//
// The BVH check reads the file back with a small parser of its own, rebuilds every joint's
// world frame with the BVH's forward kinematics (offsets and channels, first channel
// outermost), maps it back to salto's axes and compares it with salto_fk at every frame.
// The filmstrip checks read the PNG header and decode the image with cairo; those of its
// views (side, front, top) read where the character, a box, the ground and the bars are.
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "draw.h"
#include "salto/kinematics.h"
#include "salto/motion.h"
#include "salto/problem.h"
#include "test_suites.h"
#include "test_util.h"

static const double pi = 3.14159265358979323846;

// ---- temporary files ----

static char tmpdir[256];


static void make_tmpdir(void) {
    const char* base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/salto_output_XXXXXX", base && base[0] ? base : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}


static void remove_tmpdir(void) {
    rmdir(tmpdir);
}


// "<tmpdir>/<name>" in one of four static buffers, used in turn (so that a test can hold a
// few paths at once)
static const char* tmp_path(const char* name) {
    static char buf[4][512];
    static int next = 0;
    char* b = buf[next];
    next = (next + 1) % 4;
    snprintf(b, sizeof buf[0], "%s/%s", tmpdir, name);
    return b;
}


static int file_exists(const char* path) {
    struct stat st;
    return stat(path, &st) == 0;
}


// ---- motions built by hand ----

// nframe zero frames of the model's DOFs at fps, filled by the caller; DOF names borrowed
static salto_motion* motion_alloc(const salto_model* m, int nframe, double fps) {
    salto_motion* mo = calloc(1, sizeof *mo);
    ck_assert_ptr_nonnull(mo);
    mo->nv = m->nv;
    mo->nframe = nframe;
    mo->frame_rate = fps;
    mo->duration = (nframe - 1) / fps;
    mo->dof_name = calloc((size_t)m->nv, sizeof(char*));
    mo->q = calloc((size_t)nframe * (size_t)m->nv, sizeof(double));
    ck_assert(mo->dof_name && mo->q);
    for (int i = 0; i < m->nv; i++) mo->dof_name[i] = m->link_name[i];
    mo->converged = -1;
    return mo;
}


static void motion_free(salto_motion* mo) {
    if (!mo) return;
    free(mo->dof_name);
    free(mo->q);
    free(mo);
}


// random frames: root translations in [-1, 1] m, every other DOF in [-1.5, 1.5] (rad or m)
static void motion_randomise(const salto_model* m, salto_motion* mo, uint64_t seed) {
    salto_test_rng r;
    salto_test_rng_seed(&r, seed);
    for (int k = 0; k < mo->nframe; k++) {
        for (int i = 0; i < m->nv; i++) {
            const double lim = m->link_type[i] == SALTO_AXIS_PRISMATIC ? 1.0 : 1.5;
            mo->q[(size_t)k * (size_t)m->nv + (size_t)i] = salto_test_uniform(&r, -lim, lim);
        }
    }
}


// ---- a small BVH reader ----

enum { bvh_max_joint = 128, bvh_max_value = 4096 };

typedef struct bvh_joint {
    char name[128];
    int parent;          // joint index, -1 for the root
    int end;             // 1 for an End Site
    double offset[3];
    int nchan;
    int chan[6];         // 0..2: X/Y/Z position, 3..5: X/Y/Z rotation
    int first;           // index of the first channel in a motion line
} bvh_joint;

typedef struct bvh_file {
    int njoint;          // joints and end sites
    bvh_joint joint[bvh_max_joint];
    int nroot, njoints;  // ROOT and JOINT keywords seen
    int nchannel;        // channels per motion line
    int nframe;          // "Frames: N"
    double frame_time;
    int nline;           // motion lines read
    int bad_line;        // first motion line with a wrong value count (-1: none)
    double* values;      // (nline x nchannel)
} bvh_file;


static int channel_code(const char* s) {
    static const char* names[6] = {"Xposition", "Yposition", "Zposition",
                                   "Xrotation", "Yrotation", "Zrotation"};
    for (int c = 0; c < 6; c++) {
        if (strcmp(s, names[c]) == 0) return c;
    }
    return -1;
}


// reads the hierarchy from the token after "{" of joint j up to its "}"
static void read_joint_body(FILE* f, bvh_file* b, int j) {
    char tok[256];
    while (fscanf(f, "%255s", tok) == 1) {
        if (strcmp(tok, "}") == 0) return;
        if (strcmp(tok, "OFFSET") == 0) {
            double* o = b->joint[j].offset;
            ck_assert_int_eq(fscanf(f, "%lf %lf %lf", o, o + 1, o + 2), 3);
        } else if (strcmp(tok, "CHANNELS") == 0) {
            bvh_joint* jt = &b->joint[j];
            ck_assert_int_eq(fscanf(f, "%d", &jt->nchan), 1);
            ck_assert(jt->nchan == 3 || jt->nchan == 6);
            jt->first = b->nchannel;
            b->nchannel += jt->nchan;
            for (int c = 0; c < jt->nchan; c++) {
                ck_assert_int_eq(fscanf(f, "%255s", tok), 1);
                jt->chan[c] = channel_code(tok);
                ck_assert_msg(jt->chan[c] >= 0, "unknown channel '%s'", tok);
            }
        } else if (strcmp(tok, "JOINT") == 0 || strcmp(tok, "End") == 0) {
            const int end = tok[0] == 'E';
            ck_assert_int_lt(b->njoint, bvh_max_joint);
            bvh_joint* c = &b->joint[b->njoint];
            memset(c, 0, sizeof *c);
            ck_assert_int_eq(fscanf(f, "%127s", c->name), 1); // a name, or "Site"
            c->parent = j;
            c->end = end;
            b->njoints += !end;
            const int cj = b->njoint++;
            ck_assert_int_eq(fscanf(f, "%255s", tok), 1);
            ck_assert_str_eq(tok, "{");
            read_joint_body(f, b, cj);
        } else {
            ck_abort_msg("unexpected token '%s' in the hierarchy", tok);
        }
    }
    ck_abort_msg("the hierarchy ends inside joint '%s'", b->joint[j].name);
}


static void bvh_read(const char* path, bvh_file* b) {
    memset(b, 0, sizeof *b);
    b->bad_line = -1;
    FILE* f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char tok[256];
    ck_assert_int_eq(fscanf(f, "%255s", tok), 1);
    ck_assert_str_eq(tok, "HIERARCHY");
    while (fscanf(f, "%255s", tok) == 1 && strcmp(tok, "MOTION") != 0) {
        ck_assert_str_eq(tok, "ROOT");
        bvh_joint* r = &b->joint[b->njoint];
        memset(r, 0, sizeof *r);
        r->parent = -1;
        ck_assert_int_eq(fscanf(f, "%127s", r->name), 1);
        b->nroot++;
        const int rj = b->njoint++;
        ck_assert_int_eq(fscanf(f, "%255s", tok), 1);
        ck_assert_str_eq(tok, "{");
        read_joint_body(f, b, rj);
    }
    ck_assert_str_eq(tok, "MOTION");
    ck_assert_int_eq(fscanf(f, " Frames: %d", &b->nframe), 1);
    ck_assert_int_eq(fscanf(f, " Frame Time: %lf", &b->frame_time), 1);

    // motion lines: count them and the values on each
    b->values = calloc((size_t)(b->nframe + 1) * (size_t)b->nchannel + 1, sizeof(double));
    ck_assert_ptr_nonnull(b->values);
    static char line[1 << 16];
    int c;
    while ((c = fgetc(f)) != EOF && c != '\n') {} // the end of the Frame Time line
    while (fgets(line, sizeof line, f)) {
        char* s = line;
        int nval = 0;
        for (;;) {
            char* e;
            const double v = strtod(s, &e);
            if (e == s) break;
            if (b->nline < b->nframe + 1 && nval < b->nchannel) {
                b->values[(size_t)b->nline * (size_t)b->nchannel + (size_t)nval] = v;
            }
            nval++;
            s = e;
        }
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
        ck_assert_msg(*s == '\0', "motion line %d: unexpected text '%s'", b->nline + 1, s);
        if (nval == 0) continue;
        if (nval != b->nchannel && b->bad_line < 0) b->bad_line = b->nline;
        b->nline++;
    }
    fclose(f);
}


// ---- forward kinematics of the BVH ----

// r = A B (3x3 row-major)
static void mat_mul(double* r, const double* A, const double* B) {
    double t[9];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            t[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
        }
    }
    memcpy(r, t, sizeof t);
}


// elementary rotation about BVH axis k (0 X, 1 Y, 2 Z) by deg degrees
static void axis_rot(double* R, int k, double deg) {
    const double a = deg * pi / 180.0, c = cos(a), s = sin(a);
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    memset(R, 0, 9 * sizeof(double));
    R[3 * k + k] = 1.0;
    R[3 * i + i] = c, R[3 * i + j] = -s;
    R[3 * j + i] = s, R[3 * j + j] = c;
}


// world rotation Rw and origin pw of every joint at frame fr (BVH axes):
//     x_parent = offset + position channels + R_c1 R_c2 R_c3 x_joint
static void bvh_fk(const bvh_file* b, int fr, double (*Rw)[9], double (*pw)[3]) {
    const double* v = b->values + (size_t)fr * (size_t)b->nchannel;
    for (int j = 0; j < b->njoint; j++) {
        const bvh_joint* jt = &b->joint[j];
        double t[3] = {jt->offset[0], jt->offset[1], jt->offset[2]};
        double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        for (int c = 0; c < jt->nchan; c++) {
            const int code = jt->chan[c];
            const double x = v[jt->first + c];
            if (code < 3) {
                t[code] += x;
            } else {
                double E[9];
                axis_rot(E, code - 3, x);
                mat_mul(R, R, E);
            }
        }
        if (jt->parent < 0) {
            memcpy(Rw[j], R, sizeof R);
            memcpy(pw[j], t, sizeof t);
            continue;
        }
        const double* Rp = Rw[jt->parent];
        const double* pp = pw[jt->parent];
        mat_mul(Rw[j], Rp, R);
        for (int i = 0; i < 3; i++) {
            pw[j][i] = pp[i] + Rp[3 * i] * t[0] + Rp[3 * i + 1] * t[1] + Rp[3 * i + 2] * t[2];
        }
    }
}


// salto axes from BVH axes: (x, y, z) = (Z, X, Y); rotations R = M' R_bvh M
static void from_bvh_vec(double out[3], const double v[3]) {
    out[0] = v[2], out[1] = v[0], out[2] = v[1];
}


static void from_bvh_rot(double out[9], const double R[9]) {
    static const int s[3] = {2, 0, 1}; // salto axis i is BVH axis s[i]
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) out[3 * i + j] = R[3 * s[i] + s[j]];
    }
}


// writes the motion, reads it back and checks the structure and every body's world frame
static void check_bvh(const salto_model* m, const salto_motion* mo, const char* what) {
    const char* path = tmp_path("motion.bvh");
    salto_error err = {0};
    char msg[1024];
    const salto_status s = salto_motion_write_bvh(m, mo, path, &err);
    salto_error_format(&err, msg, sizeof msg);
    ck_assert_msg(s == SALTO_OK, "%s: %s", what, msg);
    ck_assert_msg(!file_exists(tmp_path("motion.bvh.tmp")), "%s: temporary file left", what);

    static bvh_file b;
    bvh_read(path, &b);

    // structure: a ROOT and a JOINT per other body, an End Site per leaf body
    int nleaf = 0, nchan = 6;
    for (int k = 0; k < m->nbody; k++) {
        int leaf = 1, trans = m->body_parent[k] < 0;
        for (int c = 0; c < m->nbody; c++) leaf &= m->body_parent[c] != k;
        for (int l = 0; l < m->nv; l++) {
            trans |= m->link_body[l] == k && m->link_type[l] == SALTO_AXIS_PRISMATIC;
        }
        nleaf += leaf;
        if (m->body_parent[k] >= 0) nchan += trans ? 6 : 3;
    }
    ck_assert_int_eq(b.nroot, 1);
    ck_assert_int_eq(b.njoints, m->nbody - 1);
    ck_assert_int_eq(b.njoint, m->nbody + nleaf);
    ck_assert_int_eq(b.nchannel, nchan);
    ck_assert_int_eq(b.joint[0].nchan, 6);
    ck_assert_int_eq(b.nframe, mo->nframe);
    ck_assert_int_eq(b.nline, mo->nframe);
    ck_assert_msg(b.bad_line < 0, "%s: motion line %d has the wrong number of values", what,
                  b.bad_line + 1);
    ck_assert_double_eq_tol(b.frame_time, 1.0 / mo->frame_rate, 1e-9);

    // every body's frame, rebuilt from the BVH, matches salto_fk's at every frame
    salto_data* d = salto_data_create(m);
    ck_assert_ptr_nonnull(d);
    static double Rw[bvh_max_joint][9], pw[bvh_max_joint][3];
    for (int fr = 0; fr < mo->nframe; fr++) {
        memcpy(d->q, mo->q + (size_t)fr * (size_t)m->nv, (size_t)m->nv * sizeof(double));
        salto_fk(m, d, SALTO_FK_POS);
        bvh_fk(&b, fr, Rw, pw);
        for (int j = 0; j < b.njoint; j++) {
            if (b.joint[j].end) continue;
            const int k = salto_model_body(m, b.joint[j].name);
            ck_assert_msg(k >= 0, "%s: unknown body '%s'", what, b.joint[j].name);
            const int l = m->body_link[k];
            const double* R = l >= 0 ? d->R + 9 * l : m->body_world + 12 * k;
            const double* p = l >= 0 ? d->p + 3 * l : m->body_world + 12 * k + 9;
            double x[3], E[9];
            from_bvh_vec(x, pw[j]);
            from_bvh_rot(E, Rw[j]);
            snprintf(msg, sizeof msg, "%s, frame %d, body %s: origin", what, fr,
                     m->body_name[k]);
            ck_assert_vec_close(x, p, 3, 1e-6, 0.0, msg);
            snprintf(msg, sizeof msg, "%s, frame %d, body %s: rotation", what, fr,
                     m->body_name[k]);
            ck_assert_vec_close(E, R, 9, 1e-6, 0.0, msg);
        }
    }
    salto_data_destroy(d);
    free(b.values);
    remove(path);
}


// ---- BVH ----

static void setup(void) {
    make_tmpdir();
}


static void teardown(void) {
    remove_tmpdir();
}


// the 3-D humanoid: random frames, and a frame at gimbal lock (rotations of 90 deg about y,
// the middle axis of the Z-X-Y channels in salto's axes)
START_TEST(bvh_humanoid) {
    salto_model* m = salto_test_model_file("data/characters/humanoid22.yaml");
    salto_motion* mo = motion_alloc(m, 7, 30.0);
    motion_randomise(m, mo, 2024);
    double* q = mo->q + (size_t)6 * (size_t)m->nv;
    memset(q, 0, (size_t)m->nv * sizeof(double));
    q[salto_model_dof(m, "root_z")] = 0.1;
    q[salto_model_dof(m, "root_ry")] = pi / 2;
    q[salto_model_dof(m, "root_rz")] = 0.7;
    q[salto_model_dof(m, "hip_l_flex")] = pi / 2;
    q[salto_model_dof(m, "hip_r_flex")] = -pi / 2;
    q[salto_model_dof(m, "hip_r_rot")] = 0.4;
    q[salto_model_dof(m, "knee_l")] = 1.0;
    check_bvh(m, mo, "humanoid22");
    motion_free(mo);
    salto_model_destroy(m);
}
END_TEST


// the planar gymnast: 6 root channels (the missing ones zero), one rotation per joint
START_TEST(bvh_gymnast) {
    salto_model* m = salto_test_model_file("data/characters/gymnast7.yaml");
    salto_motion* mo = motion_alloc(m, 5, 60.0);
    motion_randomise(m, mo, 7);
    mo->q[salto_model_dof(m, "shoulder")] = pi / 2; // gimbal lock at frame 0
    check_bvh(m, mo, "gymnast7");
    motion_free(mo);
    salto_model_destroy(m);
}
END_TEST


// random trees of every root type, with prismatic axes and arbitrary axis directions
START_TEST(bvh_random_trees) {
    const int root = _i % 3;
    salto_model* m = salto_test_model_random(6 + _i % 5, root, (unsigned)(100 + _i));
    salto_motion* mo = motion_alloc(m, 4, 24.0);
    motion_randomise(m, mo, (uint64_t)_i);
    char what[64];
    snprintf(what, sizeof what, "random tree %d (root type %d)", _i, root);
    check_bvh(m, mo, what);
    motion_free(mo);
    salto_model_destroy(m);
}
END_TEST


// a double somersault with the arms circling and the hips swinging through 90 deg (and
// twisting: hip rotation, the last Euler axis): every rotation channel moves by less than
// 30 deg a frame (about 18 deg of true rotation), so the channels are continuous (no wrap at
// 180 deg, no flip at or through gimbal lock). Near gimbal lock with rotations about the
// first and last axes as well, Euler angles must move fast; that case is not tested here.
START_TEST(bvh_continuous) {
    const char* files[2] = {"data/characters/gymnast7.yaml", "data/characters/humanoid22.yaml"};
    salto_model* m = salto_test_model_file(files[_i]);
    const int n = 41;
    salto_motion* mo = motion_alloc(m, n, 40.0);
    for (int k = 0; k < n; k++) {
        const double u = (double)k / (n - 1);
        double* q = mo->q + (size_t)k * (size_t)m->nv;
        q[salto_model_dof(m, "root_x")] = 0.5 * u;
        q[salto_model_dof(m, "root_z")] = 1.0 + 2.0 * u * (1.0 - u);
        q[salto_model_dof(m, "root_ry")] = -4.0 * pi * u;
        for (int i = 0; i < m->nv; i++) {
            const char* name = m->link_name[i];
            if (strstr(name, "shoulder") && !strstr(name, "abd")) q[i] = 4.0 * pi * u;
            if (strstr(name, "hip") && !strstr(name, "abd")) q[i] = -2.0 * sin(2.0 * pi * u);
            if (strstr(name, "hip_") && strstr(name, "_rot")) q[i] = 0.3 * u;
        }
    }
    check_bvh(m, mo, files[_i]);

    static bvh_file b;
    salto_error err = {0};
    ck_assert_int_eq(salto_motion_write_bvh(m, mo, tmp_path("motion.bvh"), &err), SALTO_OK);
    bvh_read(tmp_path("motion.bvh"), &b);
    for (int j = 0; j < b.njoint; j++) {
        const bvh_joint* jt = &b.joint[j];
        for (int c = 0; c < jt->nchan; c++) {
            if (jt->chan[c] < 3) continue;
            for (int fr = 1; fr < n; fr++) {
                const double* v = b.values + (size_t)jt->first + (size_t)c;
                const double step = v[(size_t)fr * (size_t)b.nchannel] -
                                    v[(size_t)(fr - 1) * (size_t)b.nchannel];
                ck_assert_msg(fabs(step) < 30.0, "%s: joint %s channel %d jumps by %g deg at "
                              "frame %d", files[_i], jt->name, c, step, fr);
            }
        }
    }
    free(b.values);
    remove(tmp_path("motion.bvh"));
    motion_free(mo);
    salto_model_destroy(m);
}
END_TEST


START_TEST(bvh_bad_path) {
    salto_model* m = salto_test_model_file("data/characters/gymnast7.yaml");
    salto_motion* mo = motion_alloc(m, 2, 60.0);
    const char* path = tmp_path("no_such_dir/motion.bvh");
    salto_error err = {0};
    ck_assert_int_eq(salto_motion_write_bvh(m, mo, path, &err), SALTO_ERR_IO);
    ck_assert_int_eq(err.status, SALTO_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.msg, "no_such_dir/motion.bvh"));
    ck_assert(!file_exists(path));
    ck_assert(!file_exists(tmp_path("no_such_dir")));

    // a motion for another character
    salto_error err2 = {0};
    mo->nv = m->nv + 1;
    ck_assert_int_eq(salto_motion_write_bvh(m, mo, tmp_path("x.bvh"), &err2), SALTO_ERR_INVALID);
    ck_assert(!file_exists(tmp_path("x.bvh")));
    mo->nv = m->nv;
    motion_free(mo);
    salto_model_destroy(m);
}
END_TEST


// ---- filmstrip ----

static salto_problem_desc* load_reach(void) {
    salto_error err = {0};
    salto_problem_desc* p = salto_problem_load(salto_test_path("problems/reach.yaml"), &err);
    if (!p) {
        char msg[1024];
        salto_error_format(&err, msg, sizeof msg);
        ck_abort_msg("could not load problems/reach.yaml: %s", msg);
    }
    return p;
}


// the reach, synthesised: from standing, the arms swing forward and down to 45 deg while the
// hips bend a little and the knees and ankles follow
static salto_motion* reach_motion(const salto_problem_desc* p) {
    const salto_model* m = p->model;
    const int n = (int)lround(p->duration * p->output.frame_rate) + 1;
    salto_motion* mo = motion_alloc(m, n, p->output.frame_rate);
    for (int k = 0; k < n; k++) {
        const double u = (double)k / (n - 1);
        const double s = u * u * (3.0 - 2.0 * u); // smooth step
        double* q = mo->q + (size_t)k * (size_t)m->nv;
        q[salto_model_dof(m, "shoulder")] = s * pi / 4;
        q[salto_model_dof(m, "hip")] = -0.5 * s;
        q[salto_model_dof(m, "knee")] = 0.6 * s;
        q[salto_model_dof(m, "ankle")] = -0.1 * s;
        q[salto_model_dof(m, "root_ry")] = 0.3 * s;
        q[salto_model_dof(m, "root_x")] = 0.15 * s;
        q[salto_model_dof(m, "root_z")] = -0.08 * s;
    }
    return mo;
}


static uint32_t be32(const unsigned char* b) {
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
}


// checks the PNG at path: signature, IHDR size, and the share of non-white pixels
static void check_png(const char* path, int width, int height) {
    FILE* f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "no file %s", path);
    unsigned char head[24];
    ck_assert_int_eq(fread(head, 1, sizeof head, f), sizeof head);
    fclose(f);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    ck_assert_int_eq(memcmp(head, sig, 8), 0);
    ck_assert_int_eq(memcmp(head + 12, "IHDR", 4), 0);
    ck_assert_uint_eq(be32(head + 16), (uint32_t)width);
    ck_assert_uint_eq(be32(head + 20), (uint32_t)height);

    cairo_surface_t* img = cairo_image_surface_create_from_png(path);
    ck_assert_int_eq(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
    ck_assert_int_eq(cairo_image_surface_get_width(img), width);
    ck_assert_int_eq(cairo_image_surface_get_height(img), height);
    cairo_surface_flush(img);
    const unsigned char* data = cairo_image_surface_get_data(img);
    const int stride = cairo_image_surface_get_stride(img);
    long ink = 0;
    for (int y = 0; y < height; y++) {
        const uint32_t* row = (const uint32_t*)(const void*)(data + (size_t)y * (size_t)stride);
        for (int x = 0; x < width; x++) ink += (row[x] & 0xffffffu) != 0xffffffu;
    }
    cairo_surface_destroy(img);
    const double share = (double)ink / ((double)width * height);
    ck_assert_msg(share > 0.01 && share < 0.6, "%s: %.4f of the pixels are not white", path,
                  share);
}


// the reach in each view (the loop index)
START_TEST(filmstrip_reach) {
    salto_problem_desc* p = load_reach();
    salto_motion* mo = reach_motion(p);
    const int n = p->output.filmstrip_frames;
    const char* path = tmp_path("filmstrip.png");
    salto_error err = {0};
    char msg[1024];
    const salto_status s = salto_motion_write_filmstrip(p, mo, n, (salto_filmstrip_view)_i, path,
                                                        &err);
    salto_error_format(&err, msg, sizeof msg);
    ck_assert_msg(s == SALTO_OK, "%s: %s", salto_filmstrip_view_name(_i), msg);
    ck_assert(!file_exists(tmp_path("filmstrip.png.tmp")));
    check_png(path, 240 * n, 400);
    remove(path);
    motion_free(mo);
    salto_problem_destroy(p);
}
END_TEST


// the same with the phase turned into a bar phase (hands on a bar at their start position)
// and a single pose: the bar and the contact site are drawn too
START_TEST(filmstrip_bar) {
    salto_problem_desc* p = load_reach();
    salto_motion* mo = reach_motion(p);
    salto_contact_desc* c = &p->phases[0].contact;
    c->type = SALTO_CONTACT_BAR;
    c->nsite = 1;
    c->site[0] = salto_model_site(p->model, "hands");
    ck_assert_int_ge(c->site[0], 0);
    salto_data* d = salto_data_create(p->model);
    salto_fk(p->model, d, SALTO_FK_POS);
    salto_site_pos(p->model, d, c->site[0], c->bar_point);
    salto_data_destroy(d);
    c->bar_axis[0] = 0, c->bar_axis[1] = 1, c->bar_axis[2] = 0;

    for (int n = 1; n <= 4; n += 3) {
        const char* path = tmp_path("bar.png");
        salto_error err = {0};
        char msg[1024];
        const salto_status s =
            salto_motion_write_filmstrip(p, mo, n, SALTO_FILMSTRIP_SIDE, path, &err);
        salto_error_format(&err, msg, sizeof msg);
        ck_assert_msg(s == SALTO_OK, "%d poses: %s", n, msg);
        check_png(path, 240 * n, 400);
        remove(path);
    }
    motion_free(mo);
    salto_problem_destroy(p);
}
END_TEST


START_TEST(filmstrip_bad_path) {
    salto_problem_desc* p = load_reach();
    salto_motion* mo = reach_motion(p);
    const char* path = tmp_path("no_such_dir/filmstrip.png");
    salto_error err = {0};
    ck_assert_int_eq(salto_motion_write_filmstrip(p, mo, 3, SALTO_FILMSTRIP_SIDE, path, &err),
                     SALTO_ERR_IO);
    ck_assert_int_eq(err.status, SALTO_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.msg, "no_such_dir/filmstrip.png"));
    ck_assert(!file_exists(path));
    ck_assert(!file_exists(tmp_path("no_such_dir")));

    // no poses
    salto_error err2 = {0};
    ck_assert_int_eq(salto_motion_write_filmstrip(p, mo, 0, SALTO_FILMSTRIP_SIDE,
                                                  tmp_path("x.png"), &err2),
                     SALTO_ERR_INVALID);
    // no such view
    salto_error err3 = {0};
    ck_assert_int_eq(salto_motion_write_filmstrip(p, mo, 3, SALTO_FILMSTRIP_VIEW_COUNT,
                                                  tmp_path("x.png"), &err3),
                     SALTO_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(err3.msg, "side, front or top"));
    ck_assert(!file_exists(tmp_path("x.png")));
    motion_free(mo);
    salto_problem_destroy(p);
}
END_TEST


// ---- the filmstrip's views ----
//
// The humanoid of problems/reach3d.yaml in poses built by hand, drawn from the side, the front
// and above, and the PNG read back: where its pixels are (bluish: the primitives' fills and
// outlines), where a reference box's fill is (sandy), where the contact sites' red dots are,
// and which shade a pixel has where a near and a far primitive overlap. The image's scale is
// measured on the picture (the standing humanoid is 1.741 m tall, soles to the top of its
// head), never taken from the writer.

typedef struct strip_image {
    cairo_surface_t* surf;
    const unsigned char* data;
    int w, h, stride;
} strip_image;


static strip_image image_read(const char* path) {
    strip_image im = {0};
    im.surf = cairo_image_surface_create_from_png(path);
    ck_assert_int_eq(cairo_surface_status(im.surf), CAIRO_STATUS_SUCCESS);
    cairo_surface_flush(im.surf);
    im.data = cairo_image_surface_get_data(im.surf);
    im.w = cairo_image_surface_get_width(im.surf);
    im.h = cairo_image_surface_get_height(im.surf);
    im.stride = cairo_image_surface_get_stride(im.surf);
    return im;
}


// the colour at (u, v), 0..255 each (cairo's RGB24: 0x00RRGGBB in native order)
static void image_rgb(const strip_image* im, int u, int v, int rgb[3]) {
    ck_assert(u >= 0 && u < im->w && v >= 0 && v < im->h);
    const unsigned char* row = im->data + (size_t)v * (size_t)im->stride;
    const uint32_t px = ((const uint32_t*)(const void*)row)[u];
    rgb[0] = (int)(px >> 16 & 0xff), rgb[1] = (int)(px >> 8 & 0xff), rgb[2] = (int)(px & 0xff);
}


enum { px_body, px_box, px_red, px_ground, px_bar };

// what a pixel shows: a primitive (bluish), a box's fill (sandy, light), a contact site's dot
// (red), the ground's line and ticks and the boxes' outlines (sandy, dark), a bar (dark grey)
static int image_is(const strip_image* im, int u, int v, int kind) {
    int c[3];
    image_rgb(im, u, v, c);
    switch (kind) {
    case px_body: return c[2] - c[0] > 12 && !(c[0] > 150 && c[1] < 100);
    case px_box: return c[0] > 195 && c[0] < 235 && c[0] - c[2] > 25 && c[1] > c[2];
    case px_red: return c[0] > 160 && c[1] < 90 && c[2] < 90;
    case px_ground: return abs(c[0] - 140) < 16 && abs(c[1] - 128) < 16 && abs(c[2] - 107) < 16;
    default: return c[0] < 70 && abs(c[0] - c[2]) < 8 && abs(c[0] - c[1]) < 8;
    }
}


typedef struct strip_ink {
    long n;              // pixels of the kind
    double u, v;         // their centroid, px from the panel's left edge and the top
    int lo[2], hi[2];    // their bounding box (u, v)
} strip_ink;


// the pixels of one kind in panel k (240 px wide) above the label band
static strip_ink image_ink(const strip_image* im, int k, int kind) {
    strip_ink r = {0, 0.0, 0.0, {1 << 20, 1 << 20}, {-1, -1}};
    for (int v = 0; v < 400 - 44; v++) {
        for (int u = 240 * k; u < 240 * (k + 1); u++) {
            if (!image_is(im, u, v, kind)) continue;
            const int x = u - 240 * k;
            r.n++, r.u += x, r.v += v;
            if (x < r.lo[0]) r.lo[0] = x;
            if (x > r.hi[0]) r.hi[0] = x;
            if (v < r.lo[1]) r.lo[1] = v;
            if (v > r.hi[1]) r.hi[1] = v;
        }
    }
    if (r.n > 0) r.u /= (double)r.n, r.v /= (double)r.n;
    return r;
}


static salto_problem_desc* load_reach3d(void) {
    salto_error err = {0};
    salto_problem_desc* p = salto_problem_load(salto_test_path("problems/reach3d.yaml"), &err);
    if (!p) {
        char msg[1024];
        salto_error_format(&err, msg, sizeof msg);
        ck_abort_msg("could not load problems/reach3d.yaml: %s", msg);
    }
    return p;
}


// nframe frames at 1 per second of the humanoid standing (every DOF 0), filled by the caller
static salto_motion* standing(const salto_problem_desc* p, int nframe) {
    return motion_alloc(p->model, nframe, 1.0);
}


static void set_dof(const salto_model* m, salto_motion* mo, int frame, const char* dof,
                    double value) {
    const int i = salto_model_dof(m, dof);
    ck_assert_msg(i >= 0, "no DOF '%s'", dof);
    mo->q[(size_t)frame * (size_t)m->nv + (size_t)i] = value;
}


// the problem's one box: a 10 cm cube floating with its centre at c (a reference in the world)
static void add_box(salto_problem_desc* p, double cx, double cy, double cz) {
    ck_assert_int_eq(p->nbox, 0);
    p->boxes = salto_calloc(1, sizeof *p->boxes);
    ck_assert_ptr_nonnull(p->boxes);
    p->nbox = 1;
    const double c[3] = {cx, cy, cz};
    for (int k = 0; k < 3; k++) p->boxes[0].lo[k] = c[k] - 0.05, p->boxes[0].hi[k] = c[k] + 0.05;
}


// the phase's contact: a ground contact at height on its plane (normal +z), with one site
static void set_site(salto_problem_desc* p, const char* site, double height) {
    salto_contact_desc* c = &p->phases[0].contact;
    c->type = SALTO_CONTACT_GROUND;
    c->normal[0] = c->normal[1] = 0.0, c->normal[2] = 1.0;
    c->height = height;
    c->box = -1;
    c->nsite = 1;
    c->site[0] = salto_model_site(p->model, site);
    c->site_box[0] = -1;
    ck_assert_msg(c->site[0] >= 0, "no site '%s'", site);
}


// draws n poses of mo in the view and reads the picture back
static strip_image draw_view(const salto_problem_desc* p, const salto_motion* mo, int n,
                             salto_filmstrip_view view) {
    const char* path = tmp_path("view.png");
    salto_error err = {0};
    char msg[1024];
    const salto_status s = salto_motion_write_filmstrip(p, mo, n, view, path, &err);
    salto_error_format(&err, msg, sizeof msg);
    ck_assert_msg(s == SALTO_OK, "%s: %s", salto_filmstrip_view_name(view), msg);
    check_png(path, 240 * n, 400);
    strip_image im = image_read(path);
    remove(path);
    return im;
}


// The humanoid standing at the origin, then the same 1 m further along +y, beside a box at
// (0.5, 0.5, 1.95). From the side the two poses are one picture (y is depth): the body and
// the box at the same places in both panels. From the front (world y to the right) the body
// is left of the box in the first panel and right of it in the second, moved by 1 m at the
// image's scale (measured from the body's height).
START_TEST(filmstrip_front_shows_y) {
    salto_problem_desc* p = load_reach3d();
    add_box(p, 0.5, 0.5, 1.95);
    salto_motion* mo = standing(p, 2);
    set_dof(p->model, mo, 1, "root_y", 1.0);

    strip_image im = draw_view(p, mo, 2, SALTO_FILMSTRIP_SIDE);
    strip_ink body[2], box[2];
    for (int k = 0; k < 2; k++) {
        body[k] = image_ink(&im, k, px_body);
        box[k] = image_ink(&im, k, px_box);
        ck_assert_int_gt(body[k].n, 500);
        ck_assert_int_gt(box[k].n, 20);
    }
    ck_assert_msg(fabs(body[1].u - body[0].u) < 0.5 && fabs(body[1].v - body[0].v) < 0.5,
                  "side: the body moved from (%.1f, %.1f) to (%.1f, %.1f) px", body[0].u,
                  body[0].v, body[1].u, body[1].v);
    ck_assert_msg(fabs(box[1].u - box[0].u) < 0.5, "side: the box moved from %.1f to %.1f px",
                  box[0].u, box[1].u);
    ck_assert_msg(box[0].u > body[0].u + 20.0, "side: the box (x = 0.5) at %.1f px, the body "
                  "(x = 0) at %.1f px", box[0].u, body[0].u);
    cairo_surface_destroy(im.surf);

    im = draw_view(p, mo, 2, SALTO_FILMSTRIP_FRONT);
    for (int k = 0; k < 2; k++) {
        body[k] = image_ink(&im, k, px_body);
        box[k] = image_ink(&im, k, px_box);
        ck_assert_int_gt(body[k].n, 500);
        ck_assert_int_gt(box[k].n, 20);
    }
    const double scale = (body[0].hi[1] - body[0].lo[1] - 2.0) / 1.741; // px per metre
    const double off0 = body[0].u - box[0].u, off1 = body[1].u - box[1].u;
    ck_assert_msg(off0 < -20.0 && off1 > 20.0, "front: the body (y = 0, then 1) is %.1f px, then "
                  "%.1f px right of the box (y = 0.5)", off0, off1);
    ck_assert_msg(fabs(off1 - off0 - scale) < 0.05 * scale, "front: 1 m along y moved the body "
                  "%.1f px against the box at %.1f px/m", off1 - off0, scale);
    ck_assert_msg(fabs(body[1].v - body[0].v) < 0.5, "front: the body's height changed");
    cairo_surface_destroy(im.surf);
    motion_free(mo);
    salto_problem_destroy(p);
}
END_TEST


// From above (world x to the right, y up): the humanoid moved 0.4 m along +y is drawn higher,
// by 0.4 m at the image's scale (measured from the humanoid's width across its arms at
// rest, 0.46 m); moved along x it is not drawn higher
START_TEST(filmstrip_top_shows_y_up) {
    salto_problem_desc* p = load_reach3d();
    salto_motion* mo = standing(p, 3);
    set_dof(p->model, mo, 1, "root_y", 0.4);
    set_dof(p->model, mo, 2, "root_x", 0.4);
    strip_image im = draw_view(p, mo, 3, SALTO_FILMSTRIP_TOP);
    strip_ink body[3];
    for (int k = 0; k < 3; k++) {
        body[k] = image_ink(&im, k, px_body);
        ck_assert_int_gt(body[k].n, 500);
    }
    const double scale = (body[0].hi[1] - body[0].lo[1]) / 0.46; // px per metre, roughly
    ck_assert_msg(body[1].v < body[0].v - 0.3 * scale, "top: 0.4 m along +y moved the body "
                  "from v = %.1f to %.1f px (%.0f px/m)", body[0].v, body[1].v, scale);
    ck_assert_msg(fabs(body[2].v - body[0].v) < 0.5, "top: 0.4 m along x moved the body from "
                  "v = %.1f to %.1f px", body[0].v, body[2].v);
    cairo_surface_destroy(im.surf);
    motion_free(mo);
    salto_problem_destroy(p);
}
END_TEST


// Each view is right-handed, not a mirror image: the left hand (site hand_l), the left arm
// raised forward (+x) at shoulder height, is right of and above the body's middle from the
// side (x to the right, z up) and from the front (its y, +0.185 m, to the right), right of and
// above it from above (x to the right, y up)
START_TEST(filmstrip_views_not_mirrored) {
    const salto_filmstrip_view view = (salto_filmstrip_view)_i;
    salto_problem_desc* p = load_reach3d();
    set_site(p, "hand_l", 0.0);
    salto_motion* mo = standing(p, 1);
    set_dof(p->model, mo, 0, "shoulder_l_flex", -pi / 2);
    strip_image im = draw_view(p, mo, 1, view);
    const strip_ink body = image_ink(&im, 0, px_body), dot = image_ink(&im, 0, px_red);
    ck_assert_int_gt(dot.n, 10);
    const double mu = 0.5 * (body.lo[0] + body.hi[0]), mv = 0.5 * (body.lo[1] + body.hi[1]);
    const double w = body.hi[0] - body.lo[0], h = body.hi[1] - body.lo[1];
    ck_assert_msg(dot.u > mu + 0.25 * w, "%s: the left hand at u = %.1f px, the body from %d to "
                  "%d px", salto_filmstrip_view_name(view), dot.u, body.lo[0], body.hi[0]);
    ck_assert_msg(dot.v < mv - 0.15 * h, "%s: the left hand at v = %.1f px, the body from %d to "
                  "%d px", salto_filmstrip_view_name(view), dot.v, body.lo[1], body.hi[1]);
    cairo_surface_destroy(im.surf);
    motion_free(mo);
    salto_problem_destroy(p);
}
END_TEST


// 1 if the pixel near (u, v) (its 3 x 3 block) is a near primitive's fill: dark, bluish
static int dark_at(const strip_image* im, double u, double v) {
    int all = 1;
    for (int du = -1; du <= 1; du++) {
        for (int dv = -1; dv <= 1; dv++) {
            int c[3];
            image_rgb(im, (int)lround(u) + du, (int)lround(v) + dv, c);
            all &= c[0] < 130 && c[2] - c[0] > 30;
        }
    }
    return all;
}


// The nearer is drawn over the farther in every view. The left arm raised forward: from the
// side it passes behind the trunk (the character's left is the far side), and the trunk hides
// it at (x, z) = (0.06, 1.42) m; from the front, the character turned to face +y, the same
// arm is behind the trunk at (y, z) = (0.06, 1.42) m; from above, the head and trunk hide the
// thighs beside the pelvis. The pixel there is the near primitive's dark fill, not the far
// one's light fill. Places are measured from the pelvis's dot (site pelvis) at the image's
// scale from the body's height.
START_TEST(filmstrip_near_over_far) {
    const salto_filmstrip_view view = (salto_filmstrip_view)_i;
    const char* name = salto_filmstrip_view_name(view);
    salto_problem_desc* p = load_reach3d();
    set_site(p, "pelvis", 0.0);
    salto_motion* mo = standing(p, 1);
    set_dof(p->model, mo, 0, "shoulder_l_flex", -pi / 2);
    if (view == SALTO_FILMSTRIP_FRONT) set_dof(p->model, mo, 0, "root_rz", pi / 2);
    strip_image im = draw_view(p, mo, 1, view);
    const strip_ink body = image_ink(&im, 0, px_body), dot = image_ink(&im, 0, px_red);
    ck_assert_int_gt(dot.n, 10);
    if (view == SALTO_FILMSTRIP_TOP) {
        // the thighs at y = +-0.085 m (radius 0.075) under the trunk (radius 0.13) and head
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            ck_assert_msg(dark_at(&im, dot.u, dot.v + 10.0 * sgn), "top: a thigh is drawn over "
                          "the trunk %d px from the pelvis", 10 * sgn);
        }
    } else {
        const double scale = (body.hi[1] - body.lo[1] - 2.0) / 1.741; // px per metre
        const double u = dot.u + 0.06 * scale, v = dot.v - (1.42 - 0.9242) * scale;
        ck_assert_msg(dark_at(&im, u, v), "%s: the arm behind is drawn over the trunk at "
                      "(%.1f, %.1f) px (the pelvis at (%.1f, %.1f), %.1f px/m)", name, u, v,
                      dot.u, dot.v, scale);
    }
    cairo_surface_destroy(im.surf);
    motion_free(mo);
    salto_problem_destroy(p);
}
END_TEST


// rows of panel k where the ground's colour runs across most of the panel: the count of
// separate runs of such rows (a ground line each)
static int ground_lines(const strip_image* im, int k) {
    int lines = 0, in = 0;
    for (int v = 0; v < 400 - 44; v++) {
        int n = 0;
        for (int u = 240 * k; u < 240 * (k + 1); u++) n += image_is(im, u, v, px_ground);
        const int full = n > 240 / 2;
        lines += full && !in;
        in = full;
    }
    return lines;
}


// Every ground level: the humanoid standing on a ground contact 0.3 m up is drawn with the
// floor and that level, two lines from the side and the front, none from above; above_ground
// at the same level adds none, at another one more
START_TEST(filmstrip_every_ground) {
    salto_problem_desc* p = load_reach3d();
    set_site(p, "heel_l", 0.3);
    salto_motion* mo = standing(p, 1);
    set_dof(p->model, mo, 0, "root_z", 0.3);
    for (int v = 0; v < SALTO_FILMSTRIP_VIEW_COUNT; v++) {
        strip_image im = draw_view(p, mo, 1, (salto_filmstrip_view)v);
        ck_assert_int_eq(ground_lines(&im, 0), v == SALTO_FILMSTRIP_TOP ? 0 : 2);
        cairo_surface_destroy(im.surf);
    }
    // above_ground (the joint_limits constraint turned into one): the level again at 0.3 m,
    // then at -0.2 m
    int lim = -1;
    for (int k = 0; k < p->ncon && lim < 0; k++) {
        if (p->cons[k].type == SALTO_CON_JOINT_LIMITS) lim = k;
    }
    ck_assert_int_ge(lim, 0);
    p->cons[lim].type = SALTO_CON_ABOVE_GROUND;
    for (int round = 0; round < 2; round++) {
        p->cons[lim].height = round == 0 ? 0.3 : -0.2;
        strip_image im = draw_view(p, mo, 1, SALTO_FILMSTRIP_SIDE);
        ck_assert_int_eq(ground_lines(&im, 0), 2 + round);
        cairo_surface_destroy(im.surf);
    }
    motion_free(mo);
    salto_problem_destroy(p);
}
END_TEST


// The bar of the dismount's swing in every view and every pose, the flight's and the
// landing's too: a disc from the side (the bar runs along y), a line across the panel from the
// front and from above. The gymnast hangs still under it (every DOF 0 but the root's height).
START_TEST(filmstrip_bar_every_pose) {
    salto_error err = {0};
    const char* path = salto_test_path("problems/highbar_dismount.yaml");
    salto_problem_desc* p = salto_problem_load(path, &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p->phases[0].contact.type, SALTO_CONTACT_BAR);
    salto_motion* mo = motion_alloc(p->model, 19, 10.0); // 1.8 s, the problem's duration
    for (int k = 0; k < mo->nframe; k++) set_dof(p->model, mo, k, "root_z", 1.0);
    for (int v = 0; v < SALTO_FILMSTRIP_VIEW_COUNT; v++) {
        strip_image im = draw_view(p, mo, 4, (salto_filmstrip_view)v);
        for (int k = 0; k < 4; k++) {
            const strip_ink bar = image_ink(&im, k, px_bar);
            ck_assert_msg(bar.n > (v == SALTO_FILMSTRIP_SIDE ? 20 : 300), "%s, pose %d (t = "
                          "%.2f s): %ld pixels of the bar", salto_filmstrip_view_name(v), k,
                          0.6 * k, bar.n);
        }
        cairo_surface_destroy(im.surf);
    }
    motion_free(mo);
    salto_problem_destroy(p);
}
END_TEST


// the labels' stroke font draws every capital (units as SI writes them: "N m", not "n m"):
// each has ink and differs from its lower case
static long glyph_ink(const char* text, unsigned char* pix, int w, int h) {
    cairo_surface_t* img = cairo_image_surface_create(CAIRO_FORMAT_A8, w, h);
    cairo_t* cr = cairo_create(img);
    salto_draw_text(cr, text, 24.0, 0.5 * w, 0.75 * h);
    cairo_destroy(cr);
    cairo_surface_flush(img);
    const unsigned char* data = cairo_image_surface_get_data(img);
    const int stride = cairo_image_surface_get_stride(img);
    long ink = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            pix[y * w + x] = data[(size_t)y * (size_t)stride + (size_t)x];
            ink += pix[y * w + x] > 0;
        }
    }
    cairo_surface_destroy(img);
    return ink;
}

// the axes' round steps: the smallest of the list at least the least asked for
START_TEST(draw_step_rounds_up) {
    ck_assert_double_eq(salto_draw_step(0.0), 0.05);
    ck_assert_double_eq(salto_draw_step(0.05), 0.05);
    ck_assert_double_eq(salto_draw_step(0.07), 0.1);
    ck_assert_double_eq(salto_draw_step(0.21), 0.25);
    ck_assert_double_eq(salto_draw_step(0.26), 0.5);
    ck_assert_double_eq(salto_draw_step(3.0), 5.0);
    ck_assert_double_eq(salto_draw_step(1e6), 100.0);
}
END_TEST


START_TEST(stroke_font_capitals) {
    enum { W = 40, H = 40 };
    static unsigned char up[W * H], low[W * H];
    for (char c = 'A'; c <= 'Z'; c++) {
        const char su[2] = {c, 0}, sl[2] = {(char)(c - 'A' + 'a'), 0};
        ck_assert_msg(glyph_ink(su, up, W, H) > 20, "'%c' has no ink", c);
        ck_assert_msg(glyph_ink(sl, low, W, H) > 20, "'%c' has no ink", sl[0]);
        long differ = 0;
        for (int k = 0; k < W * H; k++) differ += (up[k] > 0) != (low[k] > 0);
        ck_assert_msg(differ > 10, "'%c' is drawn as '%c' (%ld pixels differ)", c, sl[0], differ);
    }
}
END_TEST


Suite* output_suite(void) {
    Suite* s = suite_create("output");
    TCase* tc = tcase_create("bvh");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, bvh_humanoid);
    tcase_add_test(tc, bvh_gymnast);
    tcase_add_loop_test(tc, bvh_random_trees, 0, 12);
    tcase_add_loop_test(tc, bvh_continuous, 0, 2);
    tcase_add_test(tc, bvh_bad_path);
    suite_add_tcase(s, tc);

    tc = tcase_create("filmstrip");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, filmstrip_reach, 0, SALTO_FILMSTRIP_VIEW_COUNT);
    tcase_add_test(tc, stroke_font_capitals);
    tcase_add_test(tc, draw_step_rounds_up);
    tcase_add_test(tc, filmstrip_bar);
    tcase_add_test(tc, filmstrip_bad_path);
    tcase_add_test(tc, filmstrip_front_shows_y);
    tcase_add_test(tc, filmstrip_top_shows_y_up);
    tcase_add_loop_test(tc, filmstrip_views_not_mirrored, 0, SALTO_FILMSTRIP_VIEW_COUNT);
    tcase_add_loop_test(tc, filmstrip_near_over_far, 0, SALTO_FILMSTRIP_VIEW_COUNT);
    tcase_add_test(tc, filmstrip_every_ground);
    tcase_add_test(tc, filmstrip_bar_every_pose);
    suite_add_tcase(s, tc);
    return s;
}
