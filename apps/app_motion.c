// app_motion.c: a motion to validate or play, from motion.json (its spline, on its problem
// as it was solved), CSV or BVH (frames on a problem's character, interpolated phase by phase)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_motion.h"

// the flight phase (no contact) named name, -1 for none
static int flight_named(const salto_problem_desc* p, const char* name) {
    for (int i = 0; i < p->nphase; i++) {
        if (p->phases[i].contact.type == SALTO_CONTACT_NONE && strcmp(p->phases[i].name, name) == 0) return i;
    }
    return -1;
}


static void frames_state(void* ctx, double t, double* q, double* qd, double* qdd) {
    const salto_frames* f = ctx;
    salto_frames_state(f, t, q, qd, qdd, f->nv);
}


// a motion in CSV or BVH on the problem's character: its frames' splines cover the phases
static int open_frames(app_motion* am, const char* motion_path, int bvh,
                       const char* problem_path, int nset, const char* const* set) {
    if (!problem_path) {
        fprintf(stderr, "%s: error: a %s motion names no problem; give the problem with its "
                        "character and contact phases with --problem\n",
                motion_path, bvh ? "BVH" : "CSV");
        return 2;
    }
    salto_error err = {0};
    salto_problem_desc* p = NULL;
    salto_nlp* nlp = app_load_nlp_set(problem_path, nset, set, &p);
    if (!nlp) return 2;
    am->p = p, am->nlp = nlp; // released by app_motion_close, whatever happens
    salto_frames* f = bvh ? salto_frames_load_bvh(motion_path, p->model, &err)
                          : salto_frames_load_csv(motion_path, &err);
    if (!f) {
        app_print_error(&err);
        return 2;
    }
    am->f = f;
    if (salto_frames_bind(f, p->model, &err) != SALTO_OK || salto_frames_fit_problem(f, p, &err) != SALTO_OK) {
        app_print_error(&err);
        return err.status == SALTO_ERR_NOMEM ? 1 : 2;
    }
    am->state = frames_state, am->ctx = f;
    return 0;
}


// whether path ends in ext (".csv", ".bvh"), either case
static int has_ext(const char* path, const char* ext) {
    const size_t n = strlen(path), e = strlen(ext);
    if (n < e) return 0;
    for (size_t k = 0; k < e; k++) {
        char c = path[n - e + k];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != ext[k]) return 0;
    }
    return 1;
}


// the first of the motion's n recorded overrides under which the problem no longer loads, -1
// when they all load (the failure was the caller's --set or the file's); quiet: the error has
// been printed
static int failing_recorded(const char* problem_path, int n, const char* const* set) {
    for (int k = 1; k <= n; k++) {
        salto_error err = {0};
        salto_problem_desc* p = salto_problem_load_set(problem_path, k, set, &err);
        salto_nlp* nlp = p ? salto_nlp_build(p, &err) : NULL;
        salto_nlp_destroy(nlp);
        salto_problem_destroy(p);
        if (!nlp) return err.status == SALTO_ERR_NOMEM ? -1 : k - 1;
    }
    return -1;
}


// a motion.json written by salto solve: its spline on its problem, reloaded as it was solved
static int open_json(app_motion* am, const char* who, const char* motion_path,
                     const char* problem_path, int nuser, const char* const* user) {
    salto_error err = {0};
    salto_motion* mo = salto_motion_load_json(motion_path, &err);
    if (!mo) {
        app_print_error(&err);
        return 2;
    }
    am->mo = mo;
    // on the problem the motion names, the overrides it was solved with (`salto solve --set`,
    // motion.json's "set") apply again, before the caller's (salto_motion_problem_overrides)
    const int own = !problem_path;
    if (!problem_path) problem_path = mo->problem;
    if (!problem_path || !*problem_path) {
        fprintf(stderr, "%s: error: the motion names no problem file; give one with --problem\n",
                motion_path);
        return 2;
    }
    // the overrides: the motion's and the caller's (borrowed), then from nbase on the ones this
    // function makes (owned)
    char** set = calloc((size_t)(mo->nset + nuser) + 1, sizeof *set);
    if (!set) {
        fprintf(stderr, "%s: out of memory\n", who);
        return 1;
    }
    const int nown = own ? salto_motion_problem_overrides(mo, (const char**)set) : 0;
    int nbase = nown;
    for (int k = 0; k < nuser; k++) set[nbase++] = (char*)user[k];
    int nset = nbase;
    salto_problem_desc* p = NULL;
    salto_nlp* nlp = app_load_nlp_set(problem_path, nbase, (const char* const*)set, &p);
    if (!nlp) {
        const int bad = nown > 0 ? failing_recorded(problem_path, nown, (const char* const*)set) : -1;
        if (bad >= 0) {
            fprintf(stderr, "%s: note: '%s' comes from the motion's \"set\" list (the overrides it "
                            "was solved with), applied to '%s' first; --problem takes the file as "
                            "it is\n",
                    motion_path, set[bad], problem_path);
        }
        free(set);
        return 2;
    }
    // the motion must be on the problem's character, DOF by DOF
    int same = mo->nv == p->model->nv;
    for (int j = 0; same && j < mo->nv; j++) same = strcmp(mo->dof_name[j], p->model->link_name[j]) == 0;
    if (!same) {
        fprintf(stderr, "%s: error: the motion's %d DOFs are not the %d DOFs of the character of "
                        "'%s' (%s)\n",
                motion_path, mo->nv, p->model->nv, problem_path, p->model->name);
        goto bad;
    }
    if (mo->ncp == 0 || !mo->control) {
        fprintf(stderr, "%s: error: the motion has no spline (control points and knots); salto "
                        "%s reads motions written by salto solve\n",
                motion_path, who);
        goto bad;
    }
    // the problem as the motion was solved: each flight with its centre of mass on its parabola
    // or not (motion.json's "ballistic" list), and its spline laid out as the motion's (a
    // re-solve may have kept other knots per phase); reloaded once with those settings where
    // they differ from the file's
    for (int k = 0; k < mo->nballistic; k++) {
        if (flight_named(p, mo->ballistic[k]) < 0) {
            fprintf(stderr, "%s: error: the motion lists '%s' as a ballistic flight, but '%s' has "
                            "no flight phase of that name\n",
                    motion_path, mo->ballistic[k], problem_path);
            goto bad;
        }
    }
    {
        // the overrides above first, then these: where the motion's spline is not the file's,
        // each phase's formulation as this load has it (control points given would change what
        // the file leaves to the defaults: the default spline's ballistic flights and impact
        // landings); a ballistic flag per flight where the motion's differs; the spline's layout
        const int spline_fits = salto_nlp_has_motion_spline(nlp, mo);
        char** grown = realloc(set, sizeof(char*) * (size_t)(nbase + 2 * p->nphase + 2));
        int ok = grown != NULL;
        if (ok) {
            set = grown;
            for (int k = nbase; k < nbase + 2 * p->nphase + 2; k++) set[k] = NULL;
        }
        for (int i = 0; ok && !spline_fits && i < p->nphase; i++) {
            const int len = salto_problem_phase_formulation(p, i, NULL, 0);
            if (len <= 0) continue;
            ok = (set[nset] = malloc((size_t)len + 1)) != NULL;
            if (ok) salto_problem_phase_formulation(p, i, set[nset++], (size_t)len + 1);
        }
        for (int i = 0; ok && i < p->nphase; i++) {
            if (p->phases[i].contact.type != SALTO_CONTACT_NONE) continue;
            int want = 0;
            for (int k = 0; k < mo->nballistic; k++) want |= flight_named(p, mo->ballistic[k]) == i;
            if (want == salto_nlp_phase_ballistic(nlp, i)) continue;
            const size_t len = strlen(p->phases[i].name) + 32;
            ok = (set[nset] = malloc(len)) != NULL;
            if (ok) snprintf(set[nset++], len, "phases.%s.ballistic=%s", p->phases[i].name, want ? "true" : "false");
        }
        int fits = 1;
        if (ok && !spline_fits) {
            int* counts = calloc((size_t)p->nphase, sizeof(int));
            const size_t len = 64 + 16 * (size_t)p->nphase;
            ok = counts && (set[nset] = malloc(64)) && (set[nset + 1] = malloc(len));
            fits = ok && salto_motion_knot_counts(mo, p->nphase, counts);
            if (fits) {
                snprintf(set[nset], 64, "spline.control_points=%d", mo->ncp);
                int at = snprintf(set[nset + 1], len, "spline.phase_knots=[");
                for (int i = 0; i < p->nphase; i++) {
                    at += snprintf(set[nset + 1] + at, len - (size_t)at, "%s%d", i ? ", " : "", counts[i]);
                }
                snprintf(set[nset + 1] + at, len - (size_t)at, "]");
            }
            nset += 2; // freed below, used or not
            free(counts);
        }
        if (ok && fits && nset > nbase) {
            salto_nlp_destroy(nlp);
            salto_problem_destroy(p);
            nlp = app_load_nlp_set(problem_path, nset, (const char* const*)set, &p);
            // the file took its own spline: a failure now is the motion's spline on its phases
            // (the loader has said what does not add up)
            fits = nlp && salto_nlp_has_motion_spline(nlp, mo);
        }
        if (ok && !fits) {
            fprintf(stderr, "%s: error: the motion's spline (%d control points) does not fit "
                            "the phases of '%s'\n",
                    motion_path, mo->ncp, problem_path);
        }
        if (!ok && nlp) fprintf(stderr, "%s: out of memory\n", who);
        if (!ok || !fits) goto bad;
    }
    for (int k = nbase; k < nset; k++) free(set[k]);
    free(set);

    {
        const int nx = salto_nlp_nx(nlp);
        double* x = malloc((size_t)nx * sizeof(double));
        if (!x) {
            fprintf(stderr, "%s: out of memory\n", who);
            salto_nlp_destroy(nlp), salto_problem_destroy(p);
            return 1;
        }
        if (mo->root_turned) {
            // the problem in the motion's turned root chart, the NLP built again on it
            salto_error terr = {0};
            salto_nlp_destroy(nlp);
            nlp = NULL;
            if (salto_motion_turn_problem(mo, p, &terr) == SALTO_OK) nlp = salto_nlp_build(p, &terr);
            if (!nlp) {
                fprintf(stderr, "%s: error: the motion's turned root chart does not fit '%s': ", motion_path, problem_path);
                app_print_error(&terr);
                free(x);
                salto_problem_destroy(p);
                return 2;
            }
        }
        salto_nlp_guess_from_motion(nlp, mo, x); // the control points as they are
        am->p = p, am->nlp = nlp, am->x = x;
        am->nm.nlp = nlp, am->nm.x = x;
        am->state = salto_nlp_motion_state, am->ctx = &am->nm;
        return 0;
    }

bad:
    for (int k = nbase; k < nset; k++) free(set[k]);
    free(set);
    salto_nlp_destroy(nlp);
    salto_problem_destroy(p);
    return 2;
}


int app_motion_open(app_motion* am, const char* who, const char* motion_path,
                    const char* problem_path) {
    return app_motion_open_set(am, who, motion_path, problem_path, 0, NULL);
}


int app_motion_open_set(app_motion* am, const char* who, const char* motion_path,
                        const char* problem_path, int nset, const char* const* set) {
    memset(am, 0, sizeof *am);
    if (has_ext(motion_path, ".csv") || has_ext(motion_path, ".bvh")) {
        return open_frames(am, motion_path, has_ext(motion_path, ".bvh"), problem_path, nset, set);
    }
    return open_json(am, who, motion_path, problem_path, nset, set);
}


void app_motion_close(app_motion* am) {
    free(am->x);
    salto_nlp_destroy(am->nlp);
    salto_problem_destroy(am->p);
    salto_motion_destroy(am->mo);
    salto_frames_destroy(am->f);
    memset(am, 0, sizeof *am);
}
