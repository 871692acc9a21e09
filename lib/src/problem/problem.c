// problem.c: problem files: reading, resolving names and times, semantic checks. Here: the
// description's allocation and queries, the character, and the whole file in order (the
// sections are read by problem_phases.c, problem_constraints.c, problem_settings.c, with
// problem_read.c's helpers; problem_priv.h lists them)
//
// The loader imitates the character loader: the file is read with config.c, every value is
// copied into the description with its source location re-pointed at desc->path (so the
// description outlives the config tree), and each check reports at the value that caused it.
// The character is loaded first, because sites, DOFs and joint limits are looked up by name
// while reading; phases come next, because times ("swing.end+0.1") and phase references are
// resolved to seconds and indices while reading the constraints and the initial guess.
//
// Maps whose keys depend on a 'type' (contacts, constraints, objectives) are checked in two
// steps: a key that belongs to no type is "unknown" (with a did-you-mean note over the keys
// of the given type), a key that belongs to another type is "not allowed" for this one.
#include "problem_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/config.h"
#include "salto/data.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"


// ---- allocation ----

static void free_constraint(salto_constraint_desc* c) {
    salto_free(c->dof);
    salto_free(c->value);
    c->dof = NULL;
    c->value = NULL;
}


void salto_problem_destroy(salto_problem_desc* p) {
    if (!p) return;
    salto_strs_free(p->set, p->nset);
    for (int i = 0; i < p->nphase && p->phases; i++) salto_free(p->phases[i].name);
    salto_free(p->phases);
    salto_free(p->boxes);
    for (int i = 0; i < p->ncon && p->cons; i++) free_constraint(&p->cons[i]);
    salto_free(p->cons);
    for (int i = 0; i < p->nobj && p->objs; i++) {
        salto_free(p->objs[i].motion);
        salto_free(p->objs[i].dof);
        salto_free(p->objs[i].dofw);
    }
    salto_free(p->objs);
    salto_free(p->guess.motion);
    for (int i = 0; i < p->solver.nipopt && p->solver.ipopt; i++) {
        salto_free(p->solver.ipopt[i].key);
        salto_free(p->solver.ipopt[i].value);
    }
    salto_free(p->solver.ipopt);
    salto_free(p->phase_knots);
    salto_free(p->extra_t);
    salto_free(p->extra_ph);
    salto_reactions_free(p->reactions, p->nreaction);
    salto_model_destroy(p->model);
    salto_free(p->character);
    salto_free(p->path);
    salto_free(p);
}

// ---- queries ----

static int phase_knot_count(const salto_problem_desc* p, int i);

const char* salto_constraint_name(salto_constraint_type t) {
    if (t == SALTO_CON_SITE_HOLD) return "site_hold"; // not for files: not in the list
    if (t == SALTO_CON_BODY_HEADING) return "body_heading";
    if (t == SALTO_CON_BODY_LEVEL) return "body_level";
    if (t == SALTO_CON_CLEAR_BOX) return "clear_box";
    if (t == SALTO_CON_COM_PARABOLA) return "com_parabola";
    if (t == SALTO_CON_COM_PARABOLA_VEL) return "com_parabola_velocity";
    return t < SALTO_CON_COUNT ? constraint_names[t] : "?";
}


const char* salto_contact_name(salto_contact_type t) {
    return t <= SALTO_CONTACT_GROUND ? contact_names[t] : "?";
}


const char* salto_flight_rows_name(int rows) {
    return rows >= SALTO_FLIGHT_FORCE && rows <= SALTO_FLIGHT_MOMENTUM_ENDS ? flight_row_names[rows] : "?";
}


const char* salto_filmstrip_view_name(int view) {
    return view >= 0 && view < SALTO_FILMSTRIP_VIEW_COUNT ? filmstrip_view_names[view] : "?";
}


int salto_filmstrip_view_parse(const char* name) {
    for (int k = 0; name && k < SALTO_FILMSTRIP_VIEW_COUNT; k++) {
        if (strcmp(name, filmstrip_view_names[k]) == 0) return k;
    }
    return -1;
}


int salto_problem_phase_formulation(const salto_problem_desc* p, int i, char* buf, size_t n) {
    const salto_phase_desc* ph = &p->phases[i];
    if (ph->contact.type == SALTO_CONTACT_NONE) {
        return snprintf(buf, n, "phases.%s.ballistic=%s", ph->name, ph->ballistic ? "true" : "false");
    }
    if (ph->contact.type == SALTO_CONTACT_GROUND) {
        return snprintf(buf, n, "phases.%s.contact.impact=%s", ph->name, ph->contact.impact ? "true" : "false");
    }
    if (n > 0) buf[0] = '\0';
    return 0;
}


int salto_problem_ground_hold(const salto_problem_desc* p, int i, int body, int* site) {
    const salto_contact_desc* ct = &p->phases[i].contact;
    int n = 0;
    *site = -1;
    for (int k = 0; ct->type == SALTO_CONTACT_GROUND && ct->hold && k < ct->nsite; k++) {
        if (p->model->site_body[ct->site[k]] != body) continue;
        if (n++ == 0) *site = ct->site[k];
    }
    return n;
}


int salto_problem_hold_point(const salto_model* m, int site, const double pt[3], double r) {
    const double* sp = m->site_pos + 3 * site;
    const double dx = sp[0] - pt[0], dy = salto_model_is_planar(m) ? 0.0 : sp[1] - pt[1];
    const double dz = sp[2] - pt[2], dist = sqrt(dx * dx + dy * dy + dz * dz);
    if (dist < 1e-9) return SALTO_HOLD_AT;
    return dist < r - 1e-9 ? SALTO_HOLD_BALL : 0;
}


int salto_contact_uses_plane(const salto_contact_desc* c) {
    if (c->type != SALTO_CONTACT_GROUND || c->box >= 0) return 0;
    int on_plane = c->nsite == 0;
    for (int k = 0; k < c->nsite; k++) on_plane |= c->site_box[k] < 0;
    return on_plane;
}


void salto_problem_box_geometry(const salto_problem_desc* p, int i, double c[3], double h[3],
                                int use[3], double* yaw) {
    const salto_box_desc* b = &p->boxes[i];
    *yaw = b->yaw;
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5 * (b->lo[k] + b->hi[k]);
        h[k] = 0.5 * (b->hi[k] - b->lo[k]);
        use[k] = k != 1 || !salto_model_is_planar(p->model);
    }
}


int salto_problem_box_holds(const salto_problem_desc* p, int phase, int i, int body,
                            const double* pt) {
    const salto_contact_desc* ct = &p->phases[phase].contact;
    if (ct->type != SALTO_CONTACT_GROUND || !ct->hold) return 0;
    int s = -1, held = 0;
    for (int k = 0; k < ct->nsite; k++) {
        if (ct->site_box[k] != i || p->model->site_body[ct->site[k]] != body) continue;
        if (held++ == 0) s = ct->site[k];
    }
    if (held >= 2) return 1;
    if (held == 0) return 0;
    if (!pt) return 1;
    return salto_problem_hold_point(p->model, s, pt, 0.0) == SALTO_HOLD_AT;
}


double salto_contact_site_height(const salto_problem_desc* p, const salto_contact_desc* ct, int k) {
    return ct->site_box[k] >= 0 ? p->boxes[ct->site_box[k]].hi[2] : ct->height;
}


int salto_problem_root_site(const salto_problem_desc* p, int i) {
    const salto_contact_desc* ct = &p->phases[i].contact;
    if (ct->type == SALTO_CONTACT_NONE || ct->nsite == 0) return -1;
    for (int k = 0; k < p->ncon; k++) {
        const salto_constraint_desc* cd = &p->cons[k];
        if (cd->type == SALTO_CON_SITE_HOLD && cd->hold_phase == i + 1 && cd->skip_start) return cd->site;
    }
    return ct->site[0];
}


int salto_problem_grips_bar(const salto_problem_desc* p, int link) {
    for (int i = 0; i < p->nphase; i++) {
        const salto_contact_desc* ct = &p->phases[i].contact;
        if (ct->type != SALTO_CONTACT_BAR) continue;
        for (int k = 0; k < ct->nsite; k++) {
            if (p->model->site_link[ct->site[k]] == link) return 1;
        }
    }
    return 0;
}


int salto_contact_links(const salto_model* m, const salto_contact_desc* c, int* link, int* count) {
    int found[8], num[8], n = 0;
    for (int k = 0; k < c->nsite; k++) {
        const int l = m->site_link[c->site[k]];
        if (l < 0) continue;
        int j = 0;
        while (j < n && found[j] != l) j++;
        if (j < n) {
            num[j]++;
        } else if (n < 8) {
            found[n] = l, num[n] = 1;
            n++;
        }
    }
    if (link) memcpy(link, found, (size_t)n * sizeof(int));
    if (count) memcpy(count, num, (size_t)n * sizeof(int));
    return n;
}


int salto_impact_max_links(const salto_model* m) { return salto_model_is_planar(m) ? 3 : 2; }


int salto_problem_phase_at(const salto_problem_desc* p, double t) {
    if (!p || p->nphase < 1 || !(t >= 0.0) || !(t <= p->duration)) return -1;

    // phase i covers [start_i, start_i + duration_i); the last one also its end
    for (int i = p->nphase - 1; i > 0; i--) {
        if (t >= p->phases[i].start) return i;
    }
    return 0;
}


// intervals of phase i's slices
int salto_problem_phase_intervals(const salto_problem_desc* p, int i) {
    if (p->slices_per_segment > 0) return p->slices_per_segment * (phase_knot_count(p, i) + 1);
    const double share = (p->nslice - 1) * p->phases[i].duration / p->duration;
    const int m = (int)lround(share);
    return m < 1 ? 1 : m;
}


int salto_problem_slices(const salto_problem_desc* p, double* times, int* phases) {
    SALTO_ASSERT(p && p->nslice >= 2 && p->nphase >= 1);
    int n = 0, e = 0; // e: the next extra slice
    for (int i = 0; i < p->nphase; i++) {
        const salto_phase_desc* ph = &p->phases[i];
        const int m = salto_problem_phase_intervals(p, i);
        const double end = i == p->nphase - 1 ? p->duration : p->phases[i + 1].start;
        for (int k = 0; k <= m; k++) {
            // the ends exact: the boundary is the same double in both phases
            const double t = k == 0 ? ph->start : k == m ? end : ph->start + ph->duration * k / m;
            for (; e < p->nextra && p->extra_ph[e] == i && p->extra_t[e] < t; e++, n++) {
                if (times) times[n] = p->extra_t[e];
                if (phases) phases[n] = i;
            }
            if (times) times[n] = t;
            if (phases) phases[n] = i;
            n++;
        }
    }
    return n;
}


int salto_problem_add_slices(salto_problem_desc* p, int n, const double* t, const int* ph) {
    const int n0 = salto_problem_slices(p, NULL, NULL);
    double* st = salto_malloc(sizeof(double) * (size_t)(n0 + 1));
    int* sp = salto_malloc(sizeof(int) * (size_t)(n0 + 1));
    double* et = salto_malloc(sizeof(double) * (size_t)(p->nextra + n + 1));
    int* ep = salto_malloc(sizeof(int) * (size_t)(p->nextra + n + 1));
    if (!st || !sp || !et || !ep) {
        salto_free(st), salto_free(sp), salto_free(et), salto_free(ep);
        return -1;
    }
    salto_problem_slices(p, st, sp);
    // merge the old extras with the new ones that qualify, in (phase, time) order
    int ne = 0, added = 0;
    for (int i = 0; i < p->nextra; i++) et[ne] = p->extra_t[i], ep[ne++] = p->extra_ph[i];
    for (int k = 0; k < n; k++) {
        if (ph[k] < 0 || ph[k] >= p->nphase || !isfinite(t[k])) continue;
        const salto_phase_desc* P = &p->phases[ph[k]];
        if (!(t[k] > P->start + 1e-9 && t[k] < P->start + P->duration - 1e-9)) continue;
        int near = 0;
        for (int j = 0; j < n0 && !near; j++) near = fabs(st[j] - t[k]) <= 1e-9;
        for (int j = 0; j < ne && !near; j++) near = fabs(et[j] - t[k]) <= 1e-9;
        if (near) continue;
        int j = ne++;
        for (; j > 0 && (ep[j - 1] > ph[k] || (ep[j - 1] == ph[k] && et[j - 1] > t[k])); j--) {
            et[j] = et[j - 1], ep[j] = ep[j - 1];
        }
        et[j] = t[k], ep[j] = ph[k];
        added++;
    }
    salto_free(st), salto_free(sp);
    salto_free(p->extra_t), salto_free(p->extra_ph);
    p->extra_t = et, p->extra_ph = ep, p->nextra = ne;
    return added;
}


long salto_problem_align_slices(salto_problem_desc* p, int sps) {
    long total = 0;
    for (int i = 0; i < p->nphase; i++) total += (long)sps * (phase_knot_count(p, i) + 1) + 1;
    if (total <= SALTO_MAX_SLICES) p->slices_per_segment = sps, p->nslice = (int)total;
    return total;
}


int salto_problem_spline_summary(const salto_problem_desc* p, char* buf, size_t n) {
    char knots[64] = "", slices[96] = "";
    if (p->knot_spacing > 0.0) snprintf(knots, sizeof knots, " (a knot every %g s at most)", p->knot_spacing);
    if (p->slices_per_segment > 0) {
        snprintf(slices, sizeof slices, " (%d per segment, aligned with the knots)",
                 p->slices_per_segment);
    } else {
        snprintf(slices, sizeof slices, " (shared out by duration)");
    }
    char first[96] = "";
    if (p->warmup) {
        snprintf(first, sizeof first, ", solved from a first solve on %d control points and %d slices",
                 SALTO_WARMUP_CONTROL_POINTS, SALTO_WARMUP_CONTROL_POINTS);
    }
    return snprintf(buf, n, "%d control points per DOF%s, %d slices%s%s", p->ncp, knots, p->nslice,
                    slices, first);
}


void salto_contact_frame(const double N[3], int planar, double Tx[3], double Ty[3]) {
    if (planar) {
        // in the x-z plane: T_x = y x N (x for N = z), T_y = y
        const double y[3] = {0, 1, 0};
        salto_v3_cross(Tx, y, N);
        memcpy(Ty, y, sizeof y);
        return;
    }
    const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0};
    const double* e = fabs(N[0]) < 0.9 ? ex : ey;
    const double en = salto_v3_dot(e, N);
    for (int k = 0; k < 3; k++) Tx[k] = e[k] - en * N[k];
    const double tn = salto_v3_norm(Tx);
    for (int k = 0; k < 3; k++) Tx[k] /= tn;
    salto_v3_cross(Ty, N, Tx);
}


int salto_problem_junction_mult(const salto_problem_desc* p, int i) {
    // a free duration's boundaries: C0 knots, the velocity joined by the NLP's junction rows
    if (p->phases[i].contact.impact || p->phases[i].dur_free || p->phases[i - 1].dur_free) return 3;
    return p->junction_c2 ? 1 : 2;
}


// the number of interior knots the phase boundaries take
int problem_junction_knots(const salto_problem_desc* p) {
    int n = 0;
    for (int i = 1; i < p->nphase; i++) n += salto_problem_junction_mult(p, i);
    return n;
}


// the interior knots strictly inside phase i: given (phase_knots), or by largest remainders:
// phase i gets floor(F d_i / T) of the F free knots, and the F - sum floor(...) phases with the
// largest fractions one more each (ties to the earlier phase): phase i's rank among the
// fractions decides, so nothing needs storing for any number of phases
static int knot_count(const salto_problem_desc* p, const int* given, int i) {
    if (given) return given[i];
    const int F = p->ncp - 4 - problem_junction_knots(p);
    SALTO_ASSERT(F >= 0);
    int floors = 0;
    for (int j = 0; j < p->nphase; j++) floors += (int)floor(F * p->phases[j].duration / p->duration);
    const double share = F * p->phases[i].duration / p->duration;
    const double frac = share - floor(share);
    int rank = 0;
    for (int j = 0; j < p->nphase; j++) {
        const double sj = F * p->phases[j].duration / p->duration;
        const double fj = sj - floor(sj);
        rank += fj > frac || (fj == frac && j < i);
    }
    return (int)floor(share) + (rank < F - floors);
}


// the interior knots strictly inside phase i of the problem's spline (a single phase: all)
static int phase_knot_count(const salto_problem_desc* p, int i) {
    return p->nphase == 1 ? p->ncp - 4 : knot_count(p, p->phase_knots, i);
}


void salto_problem_knot_counts(const salto_problem_desc* p, int* counts) {
    SALTO_ASSERT(p && p->nphase >= 1);
    for (int i = 0; i < p->nphase; i++) counts[i] = phase_knot_count(p, i);
}


int salto_problem_knots(const salto_problem_desc* p, double* knots) {
    return salto_problem_knots_from(p, p->phase_knots, knots);
}


int salto_problem_knots_from(const salto_problem_desc* p, const int* counts, double* knots) {
    SALTO_ASSERT(p && p->nphase >= 1);
    if (p->nphase == 1) return 0;
    const int K = p->ncp - 4;
    int n = 0;
    for (int i = 0; i < p->nphase; i++) {
        const salto_phase_desc* ph = &p->phases[i];
        if (i > 0) {
            const int mult = salto_problem_junction_mult(p, i);
            for (int r = 0; r < mult; r++) knots[n++] = ph->start;
        }
        const int got = knot_count(p, counts, i);
        for (int k = 1; k <= got; k++) knots[n++] = ph->start + ph->duration * k / (got + 1);
    }
    SALTO_ASSERT(n == K);
    return K;
}

// ---- the character ----

static salto_status read_model(reader* R, const salto_cfg_node* top) {
    salto_problem_desc* p = R->p;
    const salto_cfg_node* cn = salto_cfg_require(top, "character", R->err);
    if (!cn) return R->err->status;
    salto_status s = problem_read_path(R, cn, &p->character);
    if (s) return s;

    // the character's own errors point into the character file and pass through unchanged;
    // a file that cannot be read is reported at 'character:' in the problem file
    salto_error cerr = {0};
    p->model = salto_model_load(p->character, &cerr);
    if (!p->model) {
        if (cerr.status == SALTO_ERR_IO && !cerr.where.file) {
            return SALTO_FAIL(R->err, SALTO_ERR_IO, at(R, cn), "cannot load the character: %s",
                              cerr.msg);
        }
        if (R->err && R->err->status == SALTO_OK) {
            *R->err = cerr;
            if (R->err->where.file) R->err->where.file = R->err->file_buf;
        }
        return cerr.status;
    }
    R->m = p->model;

    const salto_cfg_node* gn = salto_cfg_child(top, "gravity");
    if (!gn) return SALTO_OK;
    s = salto_cfg_vec(gn, p->model->gravity, 3, R->err);
    if (s) return s;
    const double* g = p->model->gravity;
    const double mag = hypot(hypot(g[0], g[1]), g[2]);
    if (!(mag <= SALTO_GRAVITY_MAX)) {
        return SALTO_FAIL(R->err, SALTO_ERR_INVALID, at(R, gn), "gravity of %g m/s^2: at most %g "
                          "(a hundred g)", mag, SALTO_GRAVITY_MAX);
    }
    return SALTO_OK;
}


static salto_status read_problem(reader* R, const salto_cfg* cfg) {
    const salto_cfg_node* top = salto_cfg_root(cfg);
    static const char* const keys[] = {"character", "gravity",       "physics", "phases", "boxes",
                                       "spline",    "constraints",   "objective",
                                       "initial_guess", "solver",    "output",  "validation",
                                       "reactions", NULL};
    salto_status s = salto_cfg_check_keys(top, keys, R->err);
    if (s) return s;
    R->p->physics = 1;
    const salto_cfg_node* phys = salto_cfg_child(top, "physics");
    if (phys && (s = salto_cfg_bool(phys, &R->p->physics, R->err))) return s;
    s = read_model(R, top);
    if (s) return s;
    s = problem_read_boxes(R, top);
    if (s) return s;
    s = problem_read_phases(R, top);
    if (s) return s;
    s = problem_read_spline(R, top);
    if (s) return s;
    s = problem_read_constraints(R, top);
    if (s) return s;
    s = problem_add_holds(R);
    if (s) return s;
    s = problem_read_objectives(R, top);
    if (s) return s;
    s = problem_read_guess(R, top);
    if (s) return s;
    s = problem_read_solver(R, top);
    if (s) return s;
    s = problem_read_validation(R, top);
    if (s) return s;
    s = problem_read_reactions(R, top);
    if (s) return s;
    s = problem_read_output(R, top);
    if (s) return s;
    s = problem_check_values(R);
    if (s) return s;
    return problem_note_size_loc(R, top);
}


salto_problem_desc* salto_problem_load(const char* path, salto_error* err) {
    return salto_problem_load_set(path, 0, NULL, err);
}


salto_problem_desc* salto_problem_load_set(const char* path, int nset, const char* const* set,
                                           salto_error* err) {
    salto_error local = {0};
    if (!err) err = &local;
    salto_cfg* cfg = salto_cfg_load(path, err);
    if (!cfg) return NULL;
    for (int i = 0; i < nset; i++) {
        const char* eq = strchr(set[i], '=');
        char key[512];
        const size_t len = eq ? (size_t)(eq - set[i]) : 0;
        if (!eq || len == 0 || len >= sizeof key) {
            SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(),
                       "'%s': an override is PATH=VALUE, such as phases.flight.duration=0.7",
                       set[i]);
            salto_cfg_destroy(cfg);
            return NULL;
        }
        memcpy(key, set[i], len);
        key[len] = '\0';
        if (salto_cfg_set(cfg, key, eq + 1, err) != SALTO_OK) {
            salto_cfg_destroy(cfg);
            return NULL;
        }
    }
    reader R = {NULL, err, NULL, 0, NULL};
    R.p = salto_calloc(1, sizeof *R.p);
    salto_status s = SALTO_OK;
    int copied = R.p != NULL;
    if (R.p) R.p->path = salto_strdup(path);
    if (R.p) {
        // the overrides, kept so that what was solved can be said (motion.json's "set")
        copied = salto_strs_dup(nset, set, &R.p->set) == 0;
        if (copied) R.p->nset = nset > 0 ? nset : 0;
    }
    if (!R.p || !R.p->path || !copied) {
        s = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory reading '%s'",
                       path);
    } else {
        s = read_problem(&R, cfg);
    }
    salto_cfg_destroy(cfg);
    salto_free(R.phase_names);
    if (s) {
        salto_problem_destroy(R.p);
        return NULL;
    }
    return R.p;
}


int salto_problem_pose_bracket(const salto_problem_desc* p, int dof, double ta, double tb,
                               const salto_constraint_desc** c0, double* v0,
                               const salto_constraint_desc** c1, double* v1) {
    const salto_constraint_desc *b0 = NULL, *b1 = NULL;
    double w0 = 0.0, w1 = 0.0;
    for (int c = 0; c < p->ncon; c++) {
        const salto_constraint_desc* cd = &p->cons[c];
        if (cd->type != SALTO_CON_POSE) continue;
        for (int k = 0; k < cd->ndof; k++) {
            if (cd->dof[k] != dof) continue;
            if (cd->time <= ta && (!b0 || cd->time >= b0->time)) b0 = cd, w0 = cd->value[k];
            if (cd->time >= tb && (!b1 || cd->time <= b1->time)) b1 = cd, w1 = cd->value[k];
        }
    }
    if (c0) *c0 = b0;
    if (v0) *v0 = w0;
    if (c1) *c1 = b1;
    if (v1) *v1 = w1;
    return (b0 ? 1 : 0) + (b1 ? 2 : 0);
}
