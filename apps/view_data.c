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

#include <sys/stat.h>

#include "json_out.h"
#include "salto/config.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/orient.h"
#include "view.h"

enum { DIGITS = 7 }; // significant digits: a micrometre on a 10 m scene

// ---- a play result's frames ----

int view_motion_load_play(view_motion* out, const salto_problem_desc* p, const char* path) {
    memset(out, 0, sizeof *out);
    char buf[4200];
    const size_t n = strlen(path);
    if (n < 5 || strcmp(path + n - 5, ".json") != 0) {
        // a folder: salto play's sim.json, else salto play --react's react.json
        struct stat st;
        snprintf(buf, sizeof buf, "%s/sim.json", path);
        if (stat(buf, &st) != 0) snprintf(buf, sizeof buf, "%s/react.json", path);
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
    salto_json_num_g(f, p->duration, DIGITS);
    fprintf(f, ",\"planar\":%s", salto_model_is_planar(m) ? "true" : "false");
    fputs(",\"mass\":", f);
    salto_json_num_g(f, m->mass, DIGITS);
    fputs(",\"gravity\":", f);
    salto_json_nums_g(f, m->gravity, 3, 1, DIGITS);
    fputs(",\"bodies\":", f);
    salto_json_strs(f, m->body_name, m->nbody);
    fputs(",\"geoms\":[", f);
    static const char* const shape[] = {"capsule", "box", "sphere"};
    for (int g = 0; g < m->ngeom; g++) {
        const double* gd = m->geom_data + 7 * g;
        fprintf(f, "%s{\"shape\":\"%s\",\"body\":%d,\"a\":", g ? "," : "",
                shape[m->geom_shape[g]], m->geom_body[g]);
        salto_json_nums_g(f, gd, 3, 1, DIGITS);
        fputs(",\"b\":", f);
        salto_json_nums_g(f, gd + 3, 3, 1, DIGITS);
        fputs(",\"r\":", f);
        salto_json_num_g(f, gd[6], DIGITS);
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
        salto_json_num_g(f, ph->start, DIGITS);
        fputs(",\"end\":", f);
        salto_json_num_g(f, ph->start + ph->duration, DIGITS);
        fprintf(f, ",\"kind\":\"%s\",\"sites\":", kind[c->type]);
        salto_json_ints(f, c->site, c->nsite);
        if (c->type == SALTO_CONTACT_BAR) {
            fputs(",\"barPoint\":", f);
            salto_json_nums_g(f, c->bar_point, 3, 1, DIGITS);
            fputs(",\"barAxis\":", f);
            salto_json_nums_g(f, c->bar_axis, 3, 1, DIGITS);
        } else if (c->type == SALTO_CONTACT_GROUND) {
            fputs(",\"normal\":", f);
            salto_json_nums_g(f, c->normal, 3, 1, DIGITS);
            fputs(",\"height\":", f);
            salto_json_num_g(f, c->height, DIGITS);
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
        salto_json_nums_g(f, bx->lo, 3, 1, DIGITS);
        fputs(",\"hi\":", f);
        salto_json_nums_g(f, bx->hi, 3, 1, DIGITS);
        fputs(",\"yaw\":", f);
        salto_json_num_g(f, bx->yaw, DIGITS);
        fputc('}', f);
    }
    fputs("],\"bars\":[", f);
    // bars to clear (clear_bar constraints) besides the held ones
    int nb = 0;
    for (int k = 0; k < p->ncon; k++) {
        const salto_constraint_desc* cd = &p->cons[k];
        if (cd->type != SALTO_CON_CLEAR_BAR) continue;
        fprintf(f, "%s{\"point\":", nb++ ? "," : "");
        salto_json_nums_g(f, cd->point, 3, 1, DIGITS);
        fputs(",\"axis\":", f);
        salto_json_nums_g(f, cd->dir, 3, 1, DIGITS);
        fputs(",\"radius\":", f);
        salto_json_num_g(f, cd->height, DIGITS);
        fputc('}', f);
    }
    fputc(']', f);
}


// ---- a motion's frames ----

// A motion sampled at its frames, everything the page draws of it computed in one pass over
// them (each frame's state evaluated and its kinematics run once)
typedef struct sampled {
    int nf, nbody, nv, ncs;
    double* t;      // frame times (nf)
    double* q;      // (nf x nv)
    double* bodies; // body frames: origin, rotation row-major (nf x 12 nbody)
    double* com;    // (nf x 3); the root's origin is the first body frame's
    double* sites;  // the contact sites (nf x 3 ncs)
    double* forces; // each contact link's force at its sites' centroid: point, force (nf x 48)
    int* nforce;    // (nf)
} sampled;


static void sampled_free(sampled* s) {
    free(s->t), free(s->q), free(s->bodies), free(s->com), free(s->sites), free(s->forces);
    free(s->nforce);
    memset(s, 0, sizeof *s);
}


// contact forces at frame state d (after salto_rnea): each contact link's force at its sites'
// centroid, 6 numbers (point, force) each, into out; returns their number (at most 8)
static int frame_forces(const salto_problem_desc* p, int phase, const salto_data* d, double* out) {
    const salto_model* m = p->model;
    int link[8];
    double w[8 * 6];
    const int nb = phase >= 0 ? salto_contact_wrenches(p, phase, d, link, w) : 0;
    const salto_contact_desc* c = phase >= 0 ? &p->phases[phase].contact : NULL;
    int n = 0;
    for (int b = 0; b < nb; b++) {
        double ctr[3] = {0, 0, 0};
        int ns = 0;
        for (int s = 0; s < c->nsite; s++) {
            if (m->site_link[c->site[s]] != link[b]) continue;
            double x[3];
            salto_site_pos(m, d, c->site[s], x);
            for (int a = 0; a < 3; a++) ctr[a] += x[a];
            ns++;
        }
        if (ns == 0) continue;
        double* o = out + 6 * n++;
        for (int a = 0; a < 3; a++) o[a] = ctr[a] / ns, o[3 + a] = w[6 * b + 3 + a];
    }
    return n;
}


// samples v on p (its own problem when it has one): the contact sites and forces when full;
// 0, or 1 when out of memory
static int sample(const view_motion* v, const salto_problem_desc* scene, int full, sampled* out) {
    const salto_problem_desc* p = v->am ? v->am->p : scene;
    const salto_model* m = p->model;
    sampled s = {frame_count(v, p), m->nbody, m->nv, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    const size_t nf = (size_t)s.nf, nv = (size_t)m->nv;
    int* cs = malloc(sizeof(int) * (size_t)(m->nsite + 1));
    salto_data* d = salto_data_create(m);
    double* tau = malloc(sizeof(double) * nv);
    s.ncs = cs ? contact_sites(p, cs) : 0;
    s.t = malloc(sizeof(double) * nf);
    s.q = malloc(sizeof(double) * nf * nv);
    s.bodies = malloc(sizeof(double) * nf * 12 * (size_t)m->nbody);
    s.com = malloc(sizeof(double) * nf * 3);
    s.sites = malloc(sizeof(double) * (nf * 3 * (size_t)s.ncs + 1));
    s.forces = malloc(sizeof(double) * nf * 48);
    s.nforce = calloc(nf, sizeof(int));
    int status = 0;
    if (!cs || !d || !tau || !s.t || !s.q || !s.bodies || !s.com || !s.sites || !s.forces || !s.nforce) {
        status = 1;
        sampled_free(&s);
    }
    for (int k = 0; status == 0 && k < s.nf; k++) {
        s.t[k] = frame_time(v, p, k);
        frame_state(v, p, k, d);
        memcpy(s.q + (size_t)k * nv, d->q, sizeof(double) * nv);
        if (full) {
            salto_rnea(m, d, tau); // the kinematics up to accelerations, and f0
        } else {
            salto_fk(m, d, SALTO_FK_POS);
        }
        salto_link_inertias(m, d);
        for (int b = 0; b < m->nbody; b++) {
            const double* R;
            const double* o;
            salto_body_frame(m, d, b, &R, &o);
            double* row = s.bodies + ((size_t)k * (size_t)m->nbody + (size_t)b) * 12;
            memcpy(row, o, 3 * sizeof(double));
            memcpy(row + 3, R, 9 * sizeof(double));
        }
        salto_com(m, d, s.com + 3 * k, NULL);
        for (int c = 0; c < s.ncs; c++) salto_site_pos(m, d, cs[c], s.sites + ((size_t)k * (size_t)s.ncs + (size_t)c) * 3);
        if (full) {
            const double t = s.t[k];
            s.nforce[k] = frame_forces(p, salto_problem_phase_at(p, t > p->duration ? p->duration : t), d,
                                       s.forces + 48 * (size_t)k);
        }
    }
    free(cs), free(tau);
    salto_data_destroy(d);
    *out = s;
    return status;
}


static void write_motion(FILE* f, const view_motion* v, const sampled* s, int full) {
    fputs("{\"label\":", f);
    salto_json_str(f, v->label);
    fputs(",\"t\":", f);
    salto_json_nums_g(f, s->t, s->nf, 1, DIGITS);
    // body frames, root and centre of mass (and for the main motion, the contact sites and
    // forces), frame by frame
    for (int key = 0; key < (full ? 5 : 3); key++) {
        static const char* const name[] = {"bodies", "root", "com", "sites", "forces"};
        fprintf(f, ",\"%s\":[", name[key]);
        for (int k = 0; k < s->nf; k++) {
            if (k) fputc(',', f);
            const double* body = s->bodies + (size_t)k * 12 * (size_t)s->nbody;
            if (key == 0) {
                salto_json_nums_g(f, body, 12 * s->nbody, 1, DIGITS);
            } else if (key == 1) {
                salto_json_nums_g(f, body, 3, 1, DIGITS); // body 0's origin
            } else if (key == 2) {
                salto_json_nums_g(f, s->com + 3 * k, 3, 1, DIGITS);
            } else {
                const int n = key == 3 ? s->ncs : s->nforce[k];
                const int w = key == 3 ? 3 : 6;
                const double* x = key == 3 ? s->sites + (size_t)k * 3 * (size_t)s->ncs : s->forces + 48 * (size_t)k;
                fputc('[', f);
                for (int i = 0; i < n; i++) {
                    if (i) fputc(',', f);
                    salto_json_nums_g(f, x + w * i, w, 1, DIGITS);
                }
                fputc(']', f);
            }
        }
        fputc(']', f);
    }
    fputc('}', f);
}


// ---- plots ----

// the joint angles at the frames, the validation's series at its samples
static void write_plots(FILE* f, const sampled* smp, const salto_problem_desc* p,
                       const salto_validation* val) {
    const salto_model* m = p->model;
    const int nv = m->nv, r = m->nroot, nf = smp->nf;
    fputs("{\"angles\":{\"unit\":\"rad\",\"t\":", f);
    salto_json_nums_g(f, smp->t, nf, 1, DIGITS);
    fputs(",\"names\":", f);
    salto_json_strs(f, m->link_name + r, nv - r);
    fputs(",\"series\":[", f);
    for (int j = r; j < nv; j++) {
        if (j > r) fputc(',', f);
        salto_json_nums_g(f, smp->q + j, nf, nv, DIGITS);
    }
    const int ns = val->nsample;
    fputs("]},\"torques\":{\"unit\":\"N m\",\"t\":", f);
    salto_json_nums_g(f, val->t, ns, 1, DIGITS);
    fputs(",\"names\":", f);
    salto_json_strs(f, m->link_name + r, nv - r);
    fputs(",\"series\":[", f);
    for (int j = r; j < nv; j++) {
        if (j > r) fputc(',', f);
        salto_json_nums_g(f, val->tau + j, ns, nv, DIGITS);
    }
    fputs("]},\"forces\":{\"unit\":\"N\",\"t\":", f);
    salto_json_nums_g(f, val->t, ns, 1, DIGITS);
    fputs(",\"names\":[\"x\",\"y\",\"z\"],\"series\":[", f);
    for (int a = 0; a < 3; a++) {
        if (a) fputc(',', f);
        salto_json_nums_g(f, val->f0 + 3 + a, ns, 6, DIGITS);
    }
    // each check that applies somewhere: its violation over the threshold of the sample's phase
    fputs("]},\"residuals\":{\"unit\":\"violation / threshold\",\"t\":", f);
    salto_json_nums_g(f, val->t, ns, 1, DIGITS);
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
            salto_json_num_g(f, thr > 0 ? x / thr : NAN, DIGITS);
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
        salto_json_num_g(f, ck->worst, DIGITS);
        fputs(",\"time\":", f);
        salto_json_num_g(f, ck->worst_time, DIGITS);
        fputs(",\"threshold\":", f);
        salto_json_num_g(f, ck->threshold, DIGITS);
        fprintf(f, ",\"pass\":%s,\"judged\":%s}", ck->pass ? "true" : "false",
                ck->judged ? "true" : "false");
    }
    fprintf(f, "],\"passed\":%d,\"judged\":%d,\"verdict\":", val->npassed, val->njudged);
    salto_json_str(f, salto_validation_verdict(p, val));
    fputc('}', f);
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
    sampled sm = {0}, sc = {0};
    int status = sample(main_motion, p, 1, &sm);
    if (status == 0 && compare) status = sample(compare, p, 0, &sc);
    if (status == 0) {
        fputs("{\"format\":\"salto view 1\",", f);
        write_scene(f, p);
        fputs(",\"motion\":", f);
        write_motion(f, main_motion, &sm, 1);
        if (compare) {
            fputs(",\"compare\":", f);
            write_motion(f, compare, &sc, 0);
        }
        fputs(",\"plots\":", f);
        write_plots(f, &sm, p, &val);
        fputs("}\n", f);
    }
    sampled_free(&sm), sampled_free(&sc);
    salto_validation_free(&val);
    if (status) fprintf(stderr, "%s: out of memory\n", who);
    return status;
}
