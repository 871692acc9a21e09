// sim_adaptive.c: adaptive dynamics in the simulator (Redon et al. 2005; dca.h): while no joint
// is tracked, the character steps as a hybrid body, the joints that matter active and the
// rest locked
//
// Every period steps the active region is chosen again on the whole character
// (salto_dca_adaptive_select: the acceleration metric with the user's forces and the last
// step's contact forces, the velocity metric a step ahead, impulses that stop the joints left
// out), and the locked character is built as a model of its own (salto_model_locked) with a
// simulator of its own, the same options, the holds and the bars' exceptions carried over. The
// steps between are that simulator's: contacts, limits and impacts on the hybrid body. Its
// state, contacts (in the character's geometry and links) and counts are copied back after
// every step, so that the caller sees the character's.
#include "sim_priv.h"

#include <math.h>
#include <string.h>

#include "salto/dca.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"

typedef struct sim_adaptive {
    salto_adaptive_opts o;
    salto_dca* dca;
    salto_data* d;       // the character's state for the choice
    salto_model* r;      // the locked character (NULL until the first choice)
    salto_sim* in;       // its simulator
    int *map, *part, *geom;
    unsigned char* act;
    double* f;           // the choice's external forces (nv x 6)
    double *rq, *rqd, *rtau;
    int since;           // steps since the last choice
    int joints;          // active joints (after the first choice)
    int chosen;          // a choice made: r (and in, when a joint is active) hold it
    int dirty;           // the state or the settings changed by other means (salto_sim_set_state,
                         //   full steps, salto_sim_set_adaptive): the locked joints may have
                         //   moved, the locked model is stale; choose at the next step
    unsigned char* nbg;  // in's geometries that do not meet the bars (each its own geometry's)
    long bars_seen;      // the caller's bars_version nbg follows
    int nhold;           // the holds given to in (its sites and points), to follow the caller's
    int hold_site[SALTO_SIM_MAX_HOLDS];
    double hold_point[SALTO_SIM_MAX_HOLDS][3];
    salto_sim_stats seen; // the inner simulator's counts already added
} sim_adaptive;


void sim_adaptive_free(sim_adaptive* ad) {
    if (!ad) return;
    salto_dca_destroy(ad->dca);
    salto_data_destroy(ad->d);
    salto_sim_destroy(ad->in);
    salto_model_destroy(ad->r);
    salto_free(ad->map), salto_free(ad->part), salto_free(ad->geom), salto_free(ad->act);
    salto_free(ad->f), salto_free(ad->rq), salto_free(ad->rqd), salto_free(ad->rtau);
    salto_free(ad->nbg);
    salto_free(ad);
}


int salto_sim_set_adaptive(salto_sim* s, const salto_adaptive_opts* o) {
    if (!o) {
        sim_adaptive_free(s->ad);
        s->ad = NULL;
        return 0;
    }
    if (o->budget < 1 || !(o->accel_eps >= 0.0) || !(o->vel_eps >= 0.0) || o->period < 0) return -1;
    if (s->ad) {
        s->ad->o = *o, s->ad->dirty = 1; // chosen again at the next step
        return 0;
    }
    const salto_model* m = s->m;
    const size_t nv = (size_t)m->nv + 1;
    int nbox = 0;
    for (int g = 0; g < m->ngeom; g++) nbox += m->geom_shape[g] == SALTO_GEOM_BOX;
    sim_adaptive* ad = salto_calloc(1, sizeof *ad);
    if (!ad) return -1;
    ad->o = *o;
    ad->dca = salto_dca_create(m);
    ad->d = salto_data_create(m);
    ad->map = salto_malloc(sizeof(int) * nv);
    ad->part = salto_malloc(sizeof(int) * nv);
    ad->geom = salto_malloc(sizeof(int) * ((size_t)m->ngeom + 7 * (size_t)nbox + 1));
    ad->act = salto_malloc(2 * nv); // the active links, and the newly chosen ones
    ad->f = salto_malloc(sizeof(double) * 6 * nv);
    ad->rq = salto_malloc(sizeof(double) * nv);
    ad->rqd = salto_malloc(sizeof(double) * nv);
    ad->rtau = salto_malloc(sizeof(double) * nv);
    ad->nbg = salto_malloc((size_t)m->ngeom + 7 * (size_t)nbox + 1);
    if (!ad->dca || !ad->d || !ad->map || !ad->part || !ad->geom || !ad->act || !ad->f || !ad->rq ||
        !ad->rqd || !ad->rtau || !ad->nbg) {
        sim_adaptive_free(ad);
        return -1;
    }
    ad->joints = salto_dca_active_joints(ad->dca);
    s->ad = ad;
    return 0;
}


// the next adaptive step chooses again (the state changed by other means)
void sim_adaptive_reset(sim_adaptive* ad) {
    if (ad) ad->dirty = 1;
}


int salto_sim_active_joints(const salto_sim* s) {
    if (s->ad && s->ad->chosen && !s->tracking) return s->ad->joints;
    int n = 0;
    for (int k = 0; k < s->m->nbody; k++) n += s->m->body_link[k] >= 0;
    return n;
}


// the character's state (active DOFs) and time to the locked character's simulator
static void hand_over(salto_sim* s) {
    sim_adaptive* ad = s->ad;
    for (int k = 0; k < ad->r->nv; k++) ad->rq[k] = s->q[ad->map[k]], ad->rqd[k] = s->qd[ad->map[k]];
    salto_sim_set_state(ad->in, ad->rq, ad->rqd);
    ad->in->t = s->t;
}


// the active region chosen again, and the locked character's simulator built for it
static salto_status choose(salto_sim* s, salto_error* err) {
    sim_adaptive* ad = s->ad;
    const salto_model* m = s->m;
    const int nv = m->nv;
    salto_data* d = ad->d;
    memcpy(d->q, s->q, sizeof(double) * (size_t)nv);
    memcpy(d->qd, s->qd, sizeof(double) * (size_t)nv);
    memcpy(d->tau, s->tau, sizeof(double) * (size_t)nv);
    // the external forces: the user's, and the last step's contacts' and holds' (a hold's
    // multipliers, of the locked character's simulator, are the force along each world axis
    // at the held site)
    memcpy(ad->f, s->fuser, sizeof(double) * 6 * (size_t)nv);
    for (int c = 0; c < s->ncontact; c++) {
        const salto_sim_contact* ct = &s->contacts[c];
        double w[6];
        salto_point_force(w, ct->point, ct->force);
        salto_sv_add_to(ad->f + 6 * ct->link, w);
    }
    if (ad->in && !ad->dirty && ad->nhold > 0) salto_fk(m, d, SALTO_FK_POS);
    for (int k = 0; ad->in && !ad->dirty && k < ad->nhold; k++) {
        double x[3], f[3] = {0, 0, 0}, w[6];
        salto_site_pos(m, d, ad->hold_site[k], x);
        for (int a = 0; a < 3; a++) f[a] = sim_last_multiplier(ad->in, hold_key(ad->r, k, a));
        salto_point_force(w, x, f);
        salto_sv_add_to(ad->f + 6 * m->site_link[ad->hold_site[k]], w);
    }
    // after the state changed by other means every joint may move: the choice starts from the
    // fully active character, so that the joints left out are stopped by impulses
    if (ad->dirty) salto_dca_set_active(ad->dca, NULL);
    salto_adaptive_stats st;
    salto_status status = salto_dca_adaptive_select(ad->dca, d, ad->f, s->o.dt, &ad->o, &st);
    if (status != SALTO_OK) {
        return SALTO_FAIL(err, status, salto_loc_none(),
                          "adaptive dynamics: choosing the active joints failed at t = %.6f s", s->t);
    }
    memcpy(s->qd, d->qd, sizeof(double) * (size_t)nv); // the left-out joints stopped
    ad->joints = st.active_joints;
    // the same joints active: the locked character is the same model (its rigid joints have
    // not moved), and its simulator goes on from the state (its warm start kept)
    unsigned char* now = ad->act + nv;
    salto_dca_active_links(ad->dca, now);
    if (ad->chosen && !ad->dirty && memcmp(now, ad->act, (size_t)nv) == 0) {
        if (ad->in) hand_over(s);
        ad->since = 0;
        return SALTO_OK;
    }
    salto_fk(m, d, SALTO_FK_POS);
    salto_model* r = salto_model_locked(m, d, now, ad->map, ad->part, ad->geom);
    // (no joint active: the character held still where it is, nothing to simulate)
    salto_sim* in = r && r->nv > 0 ? salto_sim_create(r, &s->o) : NULL;
    if (!r || (r->nv > 0 && !in)) {
        salto_model_destroy(r);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "adaptive dynamics: out of memory");
    }
    salto_sim_destroy(ad->in);
    salto_model_destroy(ad->r);
    memcpy(ad->act, now, (size_t)nv);
    ad->r = r, ad->in = in, ad->chosen = 1, ad->dirty = 0;
    memset(&ad->seen, 0, sizeof ad->seen);
    ad->nhold = -1;           // the holds given at the first step
    ad->bars_seen = -1;       // and the bars' exceptions
    ad->since = 0;
    if (!in) return SALTO_OK;
    in->planar = s->planar;   // (its folded tree turns about y, which salto_model_is_planar refuses)
    in->no_bars_geom = ad->nbg;
    hand_over(s);
    return SALTO_OK;
}


salto_status sim_adaptive_step(salto_sim* s, salto_error* err) {
    sim_adaptive* ad = s->ad;
    const salto_model* m = s->m;
    const int nv = m->nv;
    const int period = ad->o.period > 1 ? ad->o.period : 1;
    if (!ad->chosen || ad->dirty || ad->since >= period) {
        const salto_status st = choose(s, err);
        if (st != SALTO_OK) return st;
    }
    salto_sim* in = ad->in;
    const salto_model* r = ad->r;
    // no tracking here: no grip torques, no tracking torques (the last full step's would stay)
    s->nprev = 0;
    memset(s->ttau, 0, sizeof(double) * (size_t)nv);
    s->ttau_stale = 0;
    if (!in) { // no joint active: held still (its last contacts kept for the next choice)
        s->t += s->o.dt;
        s->stats.steps++, s->stats.substeps++;
        s->stats.step_sweeps = 0, s->stats.step_residual = 0.0;
        ad->since++;
        return SALTO_OK;
    }
    // the caller's exceptions from the bars, each geometry's own (not its whole part's)
    if (ad->bars_seen != s->bars_version) {
        for (int g = 0; g < ad->r->ngeom; g++) ad->nbg[g] = (unsigned char)(s->no_bars[m->geom_link[ad->geom[g]]] != 0);
        ad->bars_seen = s->bars_version;
    }
    // the caller's holds (a phase's hands on a bar), when they changed
    int same = ad->nhold == s->nhold;
    for (int k = 0; same && k < s->nhold; k++) {
        same = ad->hold_site[k] == s->hold_site[k] && memcmp(ad->hold_point[k], s->hold_point[k], sizeof s->hold_point[k]) == 0;
    }
    if (!same) {
        salto_sim_release_all(in);
        for (int k = 0; k < s->nhold; k++) salto_sim_hold(in, s->hold_site[k], s->hold_point[k]);
        ad->nhold = s->nhold;
        memcpy(ad->hold_site, s->hold_site, sizeof ad->hold_site);
        memcpy(ad->hold_point, s->hold_point, sizeof ad->hold_point);
    }
    // the inputs: torques on the active DOFs, each link's force on its part's link
    for (int k = 0; k < r->nv; k++) ad->rtau[k] = s->tau[ad->map[k]];
    salto_sim_set_torques(in, ad->rtau);
    memset(in->fuser, 0, sizeof(double) * 6 * (size_t)r->nv);
    for (int l = 0; l < nv; l++) {
        if (ad->part[l] >= 0) salto_sv_add_to(in->fuser + 6 * ad->part[l], s->fuser + 6 * l);
    }
    const salto_status st = salto_sim_step(in, err);
    // the state, time, contacts and counts back in the character's terms
    const double* q = salto_sim_q(in);
    const double* qd = salto_sim_qd(in);
    for (int k = 0; k < r->nv; k++) s->q[ad->map[k]] = q[k], s->qd[ad->map[k]] = qd[k];
    s->t = in->t;
    s->ncontact = 0;
    for (int c = 0; c < in->ncontact && s->ncontact < s->ccap; c++) {
        salto_sim_contact* ct = &s->contacts[s->ncontact++];
        *ct = in->contacts[c];
        ct->geom = ad->geom[ct->geom];
        ct->link = m->geom_link[ct->geom]; // the geometry's own link (the part moves as one)
    }
    const salto_sim_stats* is = &in->stats;
    s->stats.steps++;
    s->stats.substeps += is->substeps - ad->seen.substeps;
    s->stats.halvings += is->halvings - ad->seen.halvings;
    s->stats.impacts += is->impacts - ad->seen.impacts;
    s->stats.pgs_sweeps += is->pgs_sweeps - ad->seen.pgs_sweeps;
    s->stats.pgs_solves += is->pgs_solves - ad->seen.pgs_solves;
    s->stats.pgs_capped += is->pgs_capped - ad->seen.pgs_capped;
    s->stats.pgs_subspace += is->pgs_subspace - ad->seen.pgs_subspace;
    s->stats.step_sweeps = is->step_sweeps, s->stats.step_residual = is->step_residual;
    s->stats.max_residual = fmax(s->stats.max_residual, is->max_residual);
    s->stats.max_depth = fmax(s->stats.max_depth, is->max_depth);
    ad->seen = *is;
    memcpy(s->d->q, s->q, sizeof(double) * (size_t)nv);
    memcpy(s->d->qd, s->qd, sizeof(double) * (size_t)nv);
    salto_fk(m, s->d, SALTO_FK_VEL);
    s->depth = in->depth;
    s->synced = 1;
    sim_count_limit_events(s); // (each new inner simulator would count a joint at rest there again)
    ad->since++;
    return st;
}
