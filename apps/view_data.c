// view_data.c: the data salto view's page draws: the scene (geometry in the bodies' frames,
// phases, bar, boxes), each motion's body frames, root, centre of mass, contact sites and
// contact forces frame by frame, and the plots (joint angles, the validation's joint torques,
// aggregate force and residuals against their thresholds)
//
// Numbers are written with 7 significant digits (a micrometre on a 10 m scene), non-finite
// ones as null. Body frames are 12 numbers each: the origin (3) and the rotation (9,
// row-major, body to world), so that world = R local + p for the geometry's local points.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "salto/config.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/orient.h"
#include "view.h"

static void num(FILE* f, double v) {
    if (isfinite(v)) {
        fprintf(f, "%.7g", fabs(v) < 1e-12 ? 0.0 : v);
    } else {
        fputs("null", f);
    }
}


static void nums(FILE* f, const double* v, int n) {
    fputc('[', f);
    for (int k = 0; k < n; k++) {
        if (k) fputc(',', f);
        num(f, v[k]);
    }
    fputc(']', f);
}


// ---- a play result's frames ----

int view_motion_load_play(view_motion* out, const salto_problem_desc* p, const char* path) {
    memset(out, 0, sizeof *out);
    char buf[4200];
    const size_t n = strlen(path);
    if (n < 5 || strcmp(path + n - 5, ".json") != 0) {
        snprintf(buf, sizeof buf, "%s/sim.json", path); // a folder
        path = buf;
    }
    salto_error err = {0};
    salto_cfg* cfg = salto_cfg_load(path, &err);
    if (!cfg) {
        app_print_error(&err);
        return err.status == SALTO_ERR_NOMEM ? 1 : 2;
    }
    const salto_model* m = p->model;
    const int nv = m->nv;
    int status = 2;
    const salto_cfg_node* root = salto_cfg_root(cfg);
    const salto_cfg_node* dofs = salto_cfg_require(root, "dofs", &err);
    const salto_cfg_node* frames = dofs ? salto_cfg_require(root, "frames", &err) : NULL;
    const salto_cfg_node* t = frames ? salto_cfg_require(frames, "t", &err) : NULL;
    const salto_cfg_node* q = t ? salto_cfg_require(frames, "q", &err) : NULL;
    if (!q || salto_cfg_expect(dofs, SALTO_CFG_LIST, &err) != SALTO_OK ||
        salto_cfg_expect(t, SALTO_CFG_LIST, &err) != SALTO_OK ||
        salto_cfg_expect(q, SALTO_CFG_LIST, &err) != SALTO_OK) {
        goto done;
    }
    // the DOFs must be the character's, in its order
    if (dofs->n != nv) {
        SALTO_FAIL(&err, SALTO_ERR_INVALID, dofs->loc,
                       "'dofs' lists %d DOFs; the character '%s' has %d", dofs->n,
                       m->name, nv);
        goto done;
    }
    for (int j = 0; j < nv; j++) {
        const char* name;
        const salto_cfg_node* d = dofs->child[j];
        if (salto_cfg_string(d, &name, &err) != SALTO_OK) goto done;
        if (strcmp(name, m->link_name[j]) != 0) {
            SALTO_FAIL(&err, SALTO_ERR_INVALID, d->loc,
                           "DOF %d is '%s'; the character '%s' has '%s' there", j, name, m->name,
                           m->link_name[j]);
            goto done;
        }
    }
    const int nf = t->n;
    if (nf < 1) {
        SALTO_FAIL(&err, SALTO_ERR_INVALID, t->loc, "'t' has no frames");
        goto done;
    }
    if (q->n != nf) {
        SALTO_FAIL(&err, SALTO_ERR_INVALID, q->loc, "'q' has %d rows, 't' %d times", q->n, nf);
        goto done;
    }
    out->t = malloc(sizeof(double) * (size_t)nf);
    out->q = malloc(sizeof(double) * (size_t)nf * (size_t)nv);
    if (!out->t || !out->q) {
        fprintf(stderr, "salto view: out of memory\n");
        status = 1;
        goto done;
    }
    for (int k = 0; k < nf; k++) {
        const salto_cfg_node* tk = t->child[k];
        if (salto_cfg_number(tk, &out->t[k], &err) != SALTO_OK) goto done;
        // (the reader takes finite numbers only)
        if (k > 0 && !(out->t[k] >= out->t[k - 1])) {
            SALTO_FAIL(&err, SALTO_ERR_INVALID, tk->loc, "frame times must not decrease");
            goto done;
        }
        if (salto_cfg_vec(q->child[k], out->q + (size_t)k * (size_t)nv, nv, &err) != SALTO_OK) goto done;
    }
    out->nframe = nf;
    // frames in the character's chart; a turned problem's model works in its own
    int o[3];
    if (p->root_turned && salto_root_order(m, o)) {
        salto_euler_frames_rechart(o, NULL, p->root_ref, NULL, out->q, nf, nv);
    }
    status = 0;
done:
    if (status == 2) app_print_error(&err);
    if (status != 0) view_motion_free(out);
    salto_cfg_destroy(cfg);
    return status;
}


void view_motion_free(view_motion* v) {
    free(v->t);
    free(v->q);
    v->t = v->q = NULL;
    v->nframe = 0;
}


// ---- sampling ----

// the frame times of a motion: its own frames, or the problem's frame rate over its span
static int frame_count(const view_motion* v, const salto_problem_desc* p) {
    if (!v->am) return v->nframe;
    const double rate = p->output.frame_rate > 0 ? p->output.frame_rate : 60.0;
    return (int)ceil(p->duration * rate - 1e-9) + 1;
}


static double frame_time(const view_motion* v, const salto_problem_desc* p, int k) {
    if (!v->am) return v->t[k];
    const double rate = p->output.frame_rate > 0 ? p->output.frame_rate : 60.0;
    return fmin((double)k / rate, p->duration);
}


// the state at frame k into d (q, and qd, qdd for a state function; zero for frames)
static void frame_state(const view_motion* v, const salto_problem_desc* p, int k, salto_data* d) {
    const int nv = p->model->nv;
    if (v->am) {
        v->am->state(v->am->ctx, frame_time(v, p, k), d->q, d->qd, d->qdd);
    } else {
        memcpy(d->q, v->q + (size_t)k * (size_t)nv, sizeof(double) * (size_t)nv);
        memset(d->qd, 0, sizeof(double) * (size_t)nv);
        memset(d->qdd, 0, sizeof(double) * (size_t)nv);
    }
}


// the sites any phase puts in contact, in first-use order; returns their number
static int contact_sites(const salto_problem_desc* p, int* site) {
    int n = 0;
    for (int i = 0; i < p->nphase; i++) {
        const salto_contact_desc* c = &p->phases[i].contact;
        for (int s = 0; s < c->nsite; s++) {
            int seen = 0;
            for (int k = 0; k < n; k++) seen |= site[k] == c->site[s];
            if (!seen) site[n++] = c->site[s];
        }
    }
    return n;
}


// ---- the scene ----

static void write_scene(FILE* f, const salto_problem_desc* p) {
    const salto_model* m = p->model;
    fputs("\"character\":", f);
    salto_json_str(f, m->name);
    fputs(",\"problem\":", f);
    salto_json_str(f, p->path);
    fputs(",\"duration\":", f);
    num(f, p->duration);
    fprintf(f, ",\"planar\":%s", salto_model_is_planar(m) ? "true" : "false");
    fputs(",\"mass\":", f);
    num(f, m->mass);
    fputs(",\"gravity\":", f);
    nums(f, m->gravity, 3);
    fputs(",\"bodies\":", f);
    salto_json_strs(f, m->body_name, m->nbody);
    fputs(",\"geoms\":[", f);
    static const char* const shape[] = {"capsule", "box", "sphere"};
    for (int g = 0; g < m->ngeom; g++) {
        const double* gd = m->geom_data + 7 * g;
        fprintf(f, "%s{\"shape\":\"%s\",\"body\":%d,\"a\":", g ? "," : "",
                shape[m->geom_shape[g]], m->geom_body[g]);
        nums(f, gd, 3);
        fputs(",\"b\":", f);
        nums(f, gd + 3, 3);
        fputs(",\"r\":", f);
        num(f, gd[6]);
        fputc('}', f);
    }
    fputs("],\"sites\":", f);
    salto_json_strs(f, m->site_name, m->nsite);
    int* cs = malloc(sizeof(int) * (size_t)(m->nsite + 1));
    const int ncs = cs ? contact_sites(p, cs) : 0;
    fputs(",\"contactSites\":", f);
    salto_json_ints(f, cs, ncs);
    free(cs);
    fputs(",\"phases\":[", f);
    for (int i = 0; i < p->nphase; i++) {
        const salto_phase_desc* ph = &p->phases[i];
        const salto_contact_desc* c = &ph->contact;
        static const char* const kind[] = {"flight", "bar", "ground"};
        fprintf(f, "%s{\"name\":", i ? "," : "");
        salto_json_str(f, ph->name);
        fputs(",\"start\":", f);
        num(f, ph->start);
        fputs(",\"end\":", f);
        num(f, ph->start + ph->duration);
        fprintf(f, ",\"kind\":\"%s\",\"sites\":", kind[c->type]);
        salto_json_ints(f, c->site, c->nsite);
        if (c->type == SALTO_CONTACT_BAR) {
            fputs(",\"barPoint\":", f);
            nums(f, c->bar_point, 3);
            fputs(",\"barAxis\":", f);
            nums(f, c->bar_axis, 3);
        } else if (c->type == SALTO_CONTACT_GROUND) {
            fputs(",\"normal\":", f);
            nums(f, c->normal, 3);
            fputs(",\"height\":", f);
            num(f, c->height);
            // whether the contact's plane is ground under a site (a box's top is the box)
            fprintf(f, ",\"plane\":%s", salto_contact_uses_plane(c) ? "true" : "false");
        }
        fputc('}', f);
    }
    fputs("],\"boxes\":[", f);
    for (int b = 0; b < p->nbox; b++) {
        const salto_box_desc* bx = &p->boxes[b];
        fprintf(f, "%s{\"name\":", b ? "," : "");
        salto_json_str(f, bx->name);
        fputs(",\"lo\":", f);
        nums(f, bx->lo, 3);
        fputs(",\"hi\":", f);
        nums(f, bx->hi, 3);
        fputs(",\"yaw\":", f);
        num(f, bx->yaw);
        fputc('}', f);
    }
    fputs("],\"bars\":[", f);
    // bars to clear (clear_bar constraints) besides the held ones
    int nb = 0;
    for (int k = 0; k < p->ncon; k++) {
        const salto_constraint_desc* cd = &p->cons[k];
        if (cd->type != SALTO_CON_CLEAR_BAR) continue;
        fprintf(f, "%s{\"point\":", nb++ ? "," : "");
        nums(f, cd->point, 3);
        fputs(",\"axis\":", f);
        nums(f, cd->dir, 3);
        fputs(",\"radius\":", f);
        num(f, cd->height);
        fputc('}', f);
    }
    fputc(']', f);
}


// ---- a motion's frames ----

// contact forces at frame state d (after salto_rnea): each contact link's force at its sites'
// centroid, 6 numbers (point, force) each
static void write_forces(FILE* f, const salto_problem_desc* p, int phase, const salto_data* d) {
    const salto_model* m = p->model;
    int link[8];
    double w[8 * 6];
    const int nb = phase >= 0 ? salto_contact_wrenches(p, phase, d, link, w) : 0;
    const salto_contact_desc* c = phase >= 0 ? &p->phases[phase].contact : NULL;
    fputc('[', f);
    for (int b = 0, out = 0; b < nb; b++) {
        double ctr[3] = {0, 0, 0};
        int n = 0;
        for (int s = 0; s < c->nsite; s++) {
            if (m->site_link[c->site[s]] != link[b]) continue;
            double x[3];
            salto_site_pos(m, d, c->site[s], x);
            for (int a = 0; a < 3; a++) ctr[a] += x[a];
            n++;
        }
        if (n == 0) continue;
        for (int a = 0; a < 3; a++) ctr[a] /= n;
        fputs(out++ ? "," : "", f);
        const double pf[6] = {ctr[0], ctr[1], ctr[2], w[6 * b + 3], w[6 * b + 4], w[6 * b + 5]};
        nums(f, pf, 6);
    }
    fputc(']', f);
}


static int write_motion(FILE* f, const view_motion* v, const salto_problem_desc* scene, int full) {
    // a motion with a problem of its own (a compared motion.json) is sampled and posed on it
    const salto_problem_desc* p = v->am ? v->am->p : scene;
    const salto_model* m = p->model;
    const int nv = m->nv;
    const int nf = frame_count(v, p);
    salto_data* d = salto_data_create(m);
    double* tau = malloc(sizeof(double) * (size_t)nv);
    double* rows = malloc(sizeof(double) * 12 * (size_t)m->nbody);
    int* cs = malloc(sizeof(int) * (size_t)(m->nsite + 1));
    if (!d || !tau || !rows || !cs) {
        salto_data_destroy(d);
        free(tau), free(rows), free(cs);
        return 1;
    }
    const int ncs = contact_sites(p, cs);
    fputs("{\"label\":", f);
    salto_json_str(f, v->label);
    fputs(",\"t\":[", f);
    for (int k = 0; k < nf; k++) {
        if (k) fputc(',', f);
        num(f, frame_time(v, p, k));
    }
    // body frames, root and centre of mass (and for the main motion, the contact sites and
    // forces and the joint angles), frame by frame
    for (int pass = 0; pass < (full ? 5 : 3); pass++) {
        static const char* const key[] = {"bodies", "root", "com", "sites", "forces"};
        fprintf(f, "],\"%s\":[", key[pass]);
        for (int k = 0; k < nf; k++) {
            frame_state(v, p, k, d);
            salto_fk(m, d, pass == 4 ? SALTO_FK_ACC : SALTO_FK_VEL);
            if (pass == 2) salto_link_inertias(m, d); // for the centre of mass
            if (k) fputc(',', f);
            if (pass == 0) {
                for (int b = 0; b < m->nbody; b++) {
                    const double* R;
                    const double* o;
                    salto_body_frame(m, d, b, &R, &o);
                    memcpy(rows + 12 * b, o, 3 * sizeof(double));
                    memcpy(rows + 12 * b + 3, R, 9 * sizeof(double));
                }
                nums(f, rows, 12 * m->nbody);
            } else if (pass == 1) {
                const double* R;
                const double* o;
                salto_body_frame(m, d, 0, &R, &o);
                nums(f, o, 3);
            } else if (pass == 2) {
                double com[3], comv[3];
                salto_com(m, d, com, comv);
                nums(f, com, 3);
            } else if (pass == 3) {
                fputc('[', f);
                for (int s = 0; s < ncs; s++) {
                    double x[3];
                    salto_site_pos(m, d, cs[s], x);
                    if (s) fputc(',', f);
                    nums(f, x, 3);
                }
                fputc(']', f);
            } else {
                salto_rnea(m, d, tau);
                const double t = frame_time(v, p, k);
                write_forces(f, p, salto_problem_phase_at(p, t > p->duration ? p->duration : t), d);
            }
        }
    }
    fputs("]}", f);
    salto_data_destroy(d);
    free(tau), free(rows), free(cs);
    return 0;
}


// ---- plots ----

static void write_series(FILE* f, const double* v, int n, int stride) {
    fputc('[', f);
    for (int k = 0; k < n; k++) {
        if (k) fputc(',', f);
        num(f, v[(size_t)k * (size_t)stride]);
    }
    fputc(']', f);
}


// the joint angles at the frames, the validation's series at its samples
static int write_plots(FILE* f, const view_motion* v, const salto_problem_desc* p,
                       const salto_validation* val) {
    const salto_model* m = p->model;
    const int nv = m->nv, r = m->nroot;
    const int nf = frame_count(v, p);
    double* q = malloc(sizeof(double) * (size_t)nf * (size_t)nv);
    if (!q) return 1;
    for (int k = 0; k < nf; k++) v->am->state(v->am->ctx, frame_time(v, p, k), q + (size_t)k * nv, NULL, NULL);
    fputs("{\"angles\":{\"unit\":\"rad\",\"t\":[", f);
    for (int k = 0; k < nf; k++) {
        if (k) fputc(',', f);
        num(f, frame_time(v, p, k));
    }
    fputs("],\"names\":", f);
    salto_json_strs(f, m->link_name + r, nv - r);
    fputs(",\"series\":[", f);
    for (int j = r; j < nv; j++) {
        if (j > r) fputc(',', f);
        write_series(f, q + j, nf, nv);
    }
    free(q);
    const int ns = val->nsample;
    fputs("]},\"torques\":{\"unit\":\"N m\",\"t\":", f);
    nums(f, val->t, ns);
    fputs(",\"names\":", f);
    salto_json_strs(f, m->link_name + r, nv - r);
    fputs(",\"series\":[", f);
    for (int j = r; j < nv; j++) {
        if (j > r) fputc(',', f);
        write_series(f, val->tau + j, ns, nv);
    }
    fputs("]},\"forces\":{\"unit\":\"N\",\"t\":", f);
    nums(f, val->t, ns);
    fputs(",\"names\":[\"x\",\"y\",\"z\"],\"series\":[", f);
    for (int a = 0; a < 3; a++) {
        if (a) fputc(',', f);
        write_series(f, val->f0 + 3 + a, ns, 6);
    }
    // each check that applies somewhere: its violation over the threshold of the sample's phase
    fputs("]},\"residuals\":{\"unit\":\"violation / threshold\",\"t\":", f);
    nums(f, val->t, ns);
    fputs(",\"names\":[", f);
    int kinds[SALTO_CHECK_COUNT], nk = 0;
    for (int c = 0; c < SALTO_CHECK_COUNT; c++) {
        int applies = 0;
        for (int s = 0; s < ns && !applies; s++) applies = !isnan(val->violation[(size_t)s * SALTO_CHECK_COUNT + c]);
        if (!applies) continue;
        fputs(nk ? "," : "", f);
        salto_json_str(f, salto_check_name((salto_check_kind)c));
        kinds[nk++] = c;
    }
    fputs("],\"series\":[", f);
    for (int k = 0; k < nk; k++) {
        fputs(k ? ",[" : "[", f);
        for (int s = 0; s < ns; s++) {
            double thr = NAN;
            for (int c = 0; c < val->ncheck; c++) {
                const salto_check* ck = &val->check[c];
                if ((int)ck->kind == kinds[k] && ck->phase == val->phase[s]) thr = ck->threshold;
            }
            const double x = val->violation[(size_t)s * SALTO_CHECK_COUNT + kinds[k]];
            if (s) fputc(',', f);
            num(f, thr > 0 ? x / thr : NAN);
        }
        fputc(']', f);
    }
    fputs("]},\"checks\":[", f);
    for (int c = 0; c < val->ncheck; c++) {
        const salto_check* ck = &val->check[c];
        fprintf(f, "%s{\"name\":", c ? "," : "");
        salto_json_str(f, salto_check_name(ck->kind));
        fputs(",\"phase\":", f);
        salto_json_str(f, p->phases[ck->phase].name);
        fputs(",\"unit\":", f);
        salto_json_str(f, salto_check_unit(ck->kind));
        fputs(",\"worst\":", f);
        num(f, ck->worst);
        fputs(",\"time\":", f);
        num(f, ck->worst_time);
        fputs(",\"threshold\":", f);
        num(f, ck->threshold);
        fprintf(f, ",\"pass\":%s,\"judged\":%s}", ck->pass ? "true" : "false",
                ck->judged ? "true" : "false");
    }
    fprintf(f, "],\"passed\":%d,\"judged\":%d,\"verdict\":", val->npassed, val->njudged);
    salto_json_str(f, salto_validation_verdict(p, val));
    fputc('}', f);
    return 0;
}


int view_write_data(FILE* f, const char* who, const view_motion* main_motion,
                    const view_motion* compare) {
    const app_motion* am = main_motion->am;
    const salto_problem_desc* p = am->p;
    salto_validate_opts opts;
    salto_validate_opts_from_problem(&opts, p);
    salto_validation val;
    salto_error err = {0};
    if (salto_validate_motion(p, am->state, am->ctx, &opts, &val, &err) != SALTO_OK) {
        app_print_error(&err);
        return err.status == SALTO_ERR_NOMEM ? 1 : 2;
    }
    fputs("{\"format\":\"salto view 1\",", f);
    write_scene(f, p);
    fputs(",\"motion\":", f);
    int status = write_motion(f, main_motion, p, 1);
    if (status == 0 && compare) {
        fputs(",\"compare\":", f);
        status = write_motion(f, compare, p, 0);
    }
    if (status == 0) {
        fputs(",\"plots\":", f);
        status = write_plots(f, main_motion, p, &val);
    }
    fputs("}\n", f);
    salto_validation_free(&val);
    if (status) fprintf(stderr, "%s: out of memory\n", who);
    return status;
}
