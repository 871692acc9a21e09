// fuzz_motion_open.h: what fuzz_validate and fuzz_play share: shipped problems loaded once, and
// a fuzzed motion opened on one of them as salto validate and salto play open a motion with
// --problem (apps/app_motion.c): a motion.json's spline on the problem's NLP (its DOFs, spline
// and ballistic flights the problem's; a turned root chart on a fresh copy of the problem), or
// CSV frames bound and fitted to the problem's phases. What app_motion.c would reload the
// problem for (another spline layout, other ballistic flights) is left out: each such input
// would cost a problem load, and the readers and loaders have their own harnesses. Since most
// mutations of a file stop in its reader, and the readers refuse what is not finite, a third
// way in: the bytes as raw doubles written into the problem's initial guess (its NLP's
// variables: any value, NaN, infinities and denormals included), the motion those variables
// make (salto_nlp_motion_state, as a motion.json's control points are read).
#ifndef SALTO_FUZZ_MOTION_OPEN_H
#define SALTO_FUZZ_MOTION_OPEN_H

#include <math.h>

#include "fuzz_common.h"
#include "salto/motion.h"
#include "salto/nlp.h"
#include "salto/problem.h"

typedef struct fuzz_problem {
    const char* rel;          // under SALTO_ROOT
    salto_problem_desc* p;
    salto_nlp* nlp;
    int nx;                   // the NLP's variables
    double* x0;               //   and its initial guess
} fuzz_problem;

// loads each problem once (abort when a shipped one does not load)
static inline void fuzz_problems_load(fuzz_problem* fp, int n) {
    for (int k = 0; k < n; k++) {
        salto_error e = {0};
        fp[k].p = salto_problem_load(fuzz_root_path(fp[k].rel), &e);
        fp[k].nlp = fp[k].p ? salto_nlp_build(fp[k].p, &e) : NULL;
        if (!fp[k].nlp) {
            fprintf(stderr, "fuzz: %s: %s\n", fp[k].rel, e.msg);
            abort();
        }
        fp[k].nx = salto_nlp_nx(fp[k].nlp);
        fp[k].x0 = malloc((size_t)fp[k].nx * sizeof(double));
        if (!fp[k].x0) abort();
        salto_nlp_initial_guess(fp[k].nlp, fp[k].x0);
    }
}

typedef struct fuzz_motion {
    const salto_problem_desc* p; // the problem the motion is on (the shared one, or own_p)
    salto_state_fn state;        // the motion's state, with ctx
    void* ctx;
    salto_problem_desc* own_p;   // a turned motion's own problem and NLP (owned)
    salto_nlp* own_nlp;
    salto_motion* mo;            // motion.json and its control points (owned)
    double* x;
    salto_nlp_motion nm;
    salto_frames* f;             // CSV frames (owned)
} fuzz_motion;

static void fuzz_frames_state(void* ctx, double t, double* q, double* qd, double* qdd) {
    const salto_frames* f = ctx;
    salto_frames_state(f, t, q, qd, qdd, f->nv);
}

static inline void fuzz_motion_close(fuzz_motion* fm) {
    free(fm->x);
    salto_nlp_destroy(fm->own_nlp);
    salto_problem_destroy(fm->own_p);
    salto_motion_destroy(fm->mo);
    salto_frames_destroy(fm->f);
    memset(fm, 0, sizeof *fm);
}

// the flight phase of p named name, -1 for none
static inline int fuzz_flight_named(const salto_problem_desc* p, const char* name) {
    for (int i = 0; i < p->nphase; i++) {
        if (p->phases[i].contact.type == SALTO_CONTACT_NONE && strcmp(p->phases[i].name, name) == 0) return i;
    }
    return -1;
}

// The motion in path (csv: CSV frames, else a motion.json) on fp's problem: 1 when it opened,
// 0 when it did not (a reader's refusal checked to say why; the app's own refusals, such as
// another character's DOFs, and what it would reload the problem for, skipped). Release with
// fuzz_motion_close either way.
static inline int fuzz_motion_open(fuzz_motion* fm, const char* path, int csv, const fuzz_problem* fp) {
    memset(fm, 0, sizeof *fm);
    const salto_problem_desc* p = fp->p;
    fm->p = p;
    salto_error err = {0};
    if (csv) {
        fm->f = salto_frames_load_csv(path, &err);
        if (!fm->f) {
            fuzz_check_error(&err);
            return 0;
        }
        if (salto_frames_bind(fm->f, p->model, &err) != SALTO_OK ||
            salto_frames_fit_problem(fm->f, p, &err) != SALTO_OK) {
            fuzz_check_error(&err);
            return 0;
        }
        fm->state = fuzz_frames_state, fm->ctx = fm->f;
        return 1;
    }
    salto_motion* mo = fm->mo = salto_motion_load_json(path, &err);
    if (!mo) {
        fuzz_check_error(&err);
        return 0;
    }
    // the problem's character DOF by DOF, a spline, the problem's ballistic flights and layout
    if (mo->nv != p->model->nv || mo->ncp == 0 || !mo->control) return 0;
    for (int j = 0; j < mo->nv; j++) {
        if (strcmp(mo->dof_name[j], p->model->link_name[j]) != 0) return 0;
    }
    for (int k = 0; k < mo->nballistic; k++) {
        if (fuzz_flight_named(p, mo->ballistic[k]) < 0) return 0;
    }
    for (int i = 0; i < p->nphase; i++) {
        if (p->phases[i].contact.type != SALTO_CONTACT_NONE) continue;
        int want = 0;
        for (int k = 0; k < mo->nballistic; k++) want |= fuzz_flight_named(p, mo->ballistic[k]) == i;
        if (want != salto_nlp_phase_ballistic(fp->nlp, i)) return 0;
    }
    if (!salto_nlp_has_motion_spline(fp->nlp, mo)) return 0;
    const salto_nlp* nlp = fp->nlp;
    if (mo->root_turned) {
        // the problem in the motion's turned root chart, the NLP built again on it
        fm->own_p = salto_problem_load(fuzz_root_path(fp->rel), &err);
        if (!fm->own_p) abort();
        if (salto_motion_turn_problem(mo, fm->own_p, &err) != SALTO_OK) {
            fuzz_check_error(&err);
            return 0;
        }
        fm->own_nlp = salto_nlp_build(fm->own_p, &err);
        if (!fm->own_nlp) {
            fuzz_check_error(&err);
            return 0;
        }
        nlp = fm->own_nlp, fm->p = fm->own_p;
    }
    fm->x = malloc((size_t)salto_nlp_nx(nlp) * sizeof(double));
    if (!fm->x) return 0;
    salto_nlp_guess_from_motion(nlp, mo, fm->x);
    fm->nm.nlp = nlp, fm->nm.x = fm->x;
    fm->state = salto_nlp_motion_state, fm->ctx = &fm->nm;
    return 1;
}

// The problem's initial guess with the bytes as records of 10: a variable's index (2 bytes, modulo
// the variables) and its value (8 bytes, a double as it is in memory); always opens.
static inline int fuzz_motion_values(fuzz_motion* fm, const uint8_t* data, size_t size, const fuzz_problem* fp) {
    memset(fm, 0, sizeof *fm);
    fm->p = fp->p;
    fm->x = malloc((size_t)fp->nx * sizeof(double));
    if (!fm->x) abort();
    memcpy(fm->x, fp->x0, (size_t)fp->nx * sizeof(double));
    for (size_t at = 0; at + 10 <= size; at += 10) {
        const int i = (int)((data[at] | (unsigned)data[at + 1] << 8) % (unsigned)fp->nx);
        memcpy(&fm->x[i], data + at + 2, sizeof(double));
    }
    fm->nm.nlp = fp->nlp, fm->nm.x = fm->x;
    fm->state = salto_nlp_motion_state, fm->ctx = &fm->nm;
    return 1;
}

// n values all finite
static inline int fuzz_finite(const double* v, size_t n) {
    for (size_t k = 0; k < n; k++) {
        if (!isfinite(v[k])) return 0;
    }
    return 1;
}

#endif
