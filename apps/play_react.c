// play_react.c: salto play MOTION --react FILE|SPEC: simulated reactions blended into the motion
// (react.h), written as a motion beside the motion's other results
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app_motion.h"
#include "cmds.h"
#include "json_out.h"
#include "salto/atomic.h"
#include "salto/react.h"

// react.json: the settings, what each reaction did, and every frame (t, the weights, q in the
// character's chart), read by salto view as a play result
static salto_status write_json(const salto_problem_desc* p, const salto_reaction_desc* r, int n,
                               const salto_react* a, const double* t, const double* w,
                               const double* q, int nf, double dt, const char* motion_path,
                               const char* path, salto_error* err) {
    const salto_model* m = p->model;
    salto_atomic at;
    salto_status s = salto_atomic_open(&at, path, 1, err);
    if (s) return s;
    FILE* f = at.f;
    fputs("{\n  \"motion\": ", f);
    salto_json_str(f, motion_path);
    fputs(",\n  \"problem\": ", f);
    salto_json_str(f, p->path);
    fputs(",\n  \"dt\": ", f);
    salto_json_num(f, dt);
    fputs(",\n  \"reactions\": [", f);
    for (int k = 0; k < n; k++) {
        const salto_react_stats* st = salto_react_info(a, k);
        fputs(k ? ",\n    {" : "\n    {", f);
        fputs("\"body\": ", f);
        salto_json_str(f, m->body_name[r[k].body]);
        fputs(", \"time\": ", f);
        salto_json_num(f, r[k].time);
        fprintf(f, ", \"%s\": ", r[k].impulse ? "impulse" : "force");
        salto_json_nums(f, r[k].force, 3, 0);
        fputs(", \"point\": ", f);
        salto_json_nums(f, r[k].point, 3, 0);
        if (!r[k].impulse) fputs(", \"push\": ", f), salto_json_num(f, r[k].push);
        fputs(",\n     \"simulate\": [", f);
        int first = 1;
        for (int b = 0; b < m->nbody; b++) {
            if (!r[k].simulated[b]) continue;
            if (!first) fputs(", ", f);
            salto_json_str(f, m->body_name[b]);
            first = 0;
        }
        fputs("], \"importance\": {", f);
        first = 1;
        for (int b = 0; b < m->nbody; b++) {
            if (!r[k].simulated[b]) continue;
            if (!first) fputs(", ", f);
            salto_json_str(f, m->body_name[b]);
            fputs(": ", f);
            salto_json_num(f, r[k].importance[b]);
            first = 0;
        }
        fputs("},\n     \"duration\": ", f);
        salto_json_num(f, r[k].duration);
        fputs(", \"blend_in\": ", f);
        salto_json_num(f, r[k].blend_in);
        fputs(", \"blend_out\": ", f);
        salto_json_num(f, r[k].blend_out);
        fputs(", \"stiffness\": ", f);
        salto_json_num(f, r[k].stiffness);
        fputs(", \"damping\": ", f);
        salto_json_num(f, r[k].damping);
        fputs(",\n     \"peak_deviation\": {\"value\": ", f);
        salto_json_num(f, st->peak);
        fputs(", \"time\": ", f);
        salto_json_num(f, st->peak_time);
        fputs(", \"dof\": ", f);
        if (st->peak_dof >= 0) salto_json_str(f, m->link_name[st->peak_dof]); else fputs("null", f);
        fprintf(f, "}, \"steps\": %ld, \"limit_stops\": %ld, \"end\": ", st->steps, st->limit_stops);
        salto_json_num(f, st->end);
        fputs("}", f);
    }
    fputs("\n  ],\n  \"dofs\": ", f);
    salto_json_strs(f, m->link_name, m->nv);
    fputs(",\n  \"frames\": {\n    \"t\": ", f);
    salto_json_nums(f, t, nf, 1);
    fputs(",\n    \"weight\": ", f);
    if (n > 0) salto_json_rows(f, w, nf, n, ", "); else fputs("[]", f);
    fputs(",\n    \"q\": ", f);
    salto_json_rows(f, q, nf, m->nv, ",\n      ");
    fputs("\n  }\n}\n", f);
    return salto_atomic_commit(&at, err);
}


// the reactions from arg: a file when one is there, else a spec
static int load_reactions(const salto_problem_desc* p, const char* arg, salto_reaction_desc** r,
                          int* n) {
    struct stat st;
    salto_error err = {0};
    const int file = stat(arg, &st) == 0 && S_ISREG(st.st_mode);
    const salto_status s = file ? salto_reactions_load(p, arg, r, n, &err)
                                : salto_reactions_parse(p, arg, r, n, &err);
    if (s != SALTO_OK) {
        app_print_error(&err);
        return s == SALTO_ERR_NOMEM ? 1 : 2;
    }
    if (*n == 0) {
        fprintf(stderr, "salto play: --react %s: its 'reactions' list is empty\n", arg);
        return 2;
    }
    return 0;
}


int play_react(const char* motion_path, const char* problem_path, const char* dir,
               const char* react_arg, double dt, double max_steps, int view, int quiet) {
    app_motion am;
    int status = app_motion_open(&am, "salto play", motion_path, problem_path);
    if (status != 0) {
        app_motion_close(&am);
        return status;
    }
    const salto_problem_desc* p = am.p;
    const salto_model* m = p->model;
    salto_reaction_desc* r = NULL;
    int n = 0;
    status = load_reactions(p, react_arg, &r, &n);
    if (status != 0) {
        app_motion_close(&am);
        return status;
    }
    if (play_check_size("salto play", dt, p->duration, max_steps, m->nv, p->output.frame_rate) != 0) {
        salto_reactions_free(r, n);
        app_motion_close(&am);
        return 2;
    }
    char folder[4096], dirbuf[4200];
    if (!dir) { // react/ beside the motion
        app_folder_of(motion_path, folder, sizeof folder);
        snprintf(dirbuf, sizeof dirbuf, "%s/react", folder);
        dir = dirbuf;
    }
    if (app_check_output_dir("salto play", dir) != 0) { // before the work, not after
        salto_reactions_free(r, n);
        app_motion_close(&am);
        return 2;
    }
    const double T = p->duration, rate = p->output.frame_rate;
    const int nf = (int)(floor(T * rate + 1e-9) + 1.0);
    const int nv = m->nv;
    salto_error err = {0};
    salto_react* a = salto_react_create(m, r, n, am.state, am.ctx, T, dt, &err);
    double* t = malloc((size_t)nf * sizeof(double));
    double* w = malloc((size_t)nf * (size_t)n * sizeof(double));
    double* q = malloc((size_t)nf * (size_t)nv * sizeof(double));
    if (!a || !t || !w || !q) {
        if (a) fprintf(stderr, "salto play: out of memory\n"); else app_print_error(&err);
        status = 1;
        goto done;
    }
    for (int k = 0; k < nf; k++) {
        t[k] = fmin((double)k / rate, T);
        if (salto_react_pose(a, t[k], q + (size_t)k * nv, w + (size_t)k * n, &err) != SALTO_OK) {
            app_print_error(&err);
            status = 1;
            goto done;
        }
    }
    for (int k = 0; k < n; k++) {
        if (salto_react_info(a, k)->end > T + 1e-9) {
            fprintf(stderr, "salto play: warning: the reaction on '%s' at %g s blends out until "
                            "%.3f s, after the motion ends (%.3f s): it is cut there\n",
                    m->body_name[r[k].body], r[k].time, salto_react_info(a, k)->end, T);
        }
    }
    {
        char jpath[4300], cpath[4300], fpath[4300];
        snprintf(jpath, sizeof jpath, "%s/react.json", dir);
        snprintf(cpath, sizeof cpath, "%s/motion.csv", dir);
        snprintf(fpath, sizeof fpath, "%s/filmstrip.png", dir);
        salto_motion mo = {0};
        mo.nv = nv, mo.nframe = nf, mo.frame_rate = rate, mo.duration = T;
        mo.dof_name = m->link_name, mo.q = q, mo.converged = -1;
        mo.root_turned = p->root_turned;
        memcpy(mo.root_ref, p->root_ref, sizeof mo.root_ref);
        memcpy(mo.root_anchor, p->root_anchor, sizeof mo.root_anchor);
        double* qc = salto_motion_character_q(&mo);
        if (!qc) {
            fprintf(stderr, "salto play: out of memory\n");
            status = 1;
        } else if (app_make_dirs(dir) != 0) {
            fprintf(stderr, "salto play: cannot create '%s': %s\n", dir, strerror(errno));
            status = 2;
        } else if (write_json(p, r, n, a, t, w, qc, nf, dt, motion_path, jpath, &err) != SALTO_OK ||
                   salto_motion_write_csv(&mo, cpath, &err) != SALTO_OK ||
                   salto_motion_write_filmstrip(p, &mo, p->output.filmstrip_frames,
                                                view >= 0 ? view : p->output.filmstrip_view,
                                                fpath, &err) != SALTO_OK) {
            app_print_error(&err);
            status = 2;
        } else if (!quiet) {
            printf("played %s with %d reaction%s (%d frames at %g per second, dt = %g s)\n",
                   motion_path, n, n == 1 ? "" : "s", nf, rate, dt);
            for (int k = 0; k < n; k++) {
                const salto_react_stats* st = salto_react_info(a, k);
                int nb = 0, nd = 0;
                for (int b = 0; b < m->nbody; b++) nb += r[k].simulated[b];
                for (int j = 0; j < nv; j++) nd += r[k].simulated[m->link_body[j]];
                const double mag = hypot(hypot(r[k].force[0], r[k].force[1]), r[k].force[2]);
                if (r[k].impulse) {
                    printf("reaction %d: an impulse of %.4g N s on '%s' at %.3f s", k + 1, mag,
                           m->body_name[r[k].body], r[k].time);
                } else {
                    printf("reaction %d: %.4g N on '%s' from %.3f s for %.3g s", k + 1, mag,
                           m->body_name[r[k].body], r[k].time, r[k].push);
                }
                printf("; %d bodies (%d DOFs) simulated, %ld steps; blended in until %.3f s, "
                       "out from %.3f s to %.3f s\n", nb, nd, st->steps, r[k].time + r[k].blend_in,
                       r[k].time + r[k].duration, st->end);
                if (st->peak_dof >= 0) {
                    printf("  deviation from the motion at most %.4f (rad or m) at '%s', t = %.3f s; "
                           "%ld steps stopped at a joint limit\n", st->peak,
                           m->link_name[st->peak_dof], st->peak_time, st->limit_stops);
                }
            }
            printf("wrote %s, %s and %s\n", jpath, cpath, fpath);
        }
        salto_free(qc);
    }
done:
    free(t), free(w), free(q);
    salto_react_destroy(a);
    salto_reactions_free(r, n);
    app_motion_close(&am);
    return status;
}
