// nlp_rows.c: rows by time and name, the map between the rows of two NLPs of one problem
// (refinement), and how far held contact sites stray between the slices
#include "nlp_priv.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/aggregate.h"
#include "salto/bspline.h"
#include "salto/data.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"


// ---- names ----

static int row_block(const salto_nlp* nlp, int r) {
    int lo = 0, hi = nlp->nblock - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (nlp->blocks[mid].row0 <= r) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}


int salto_nlp_eval_times(const salto_nlp* nlp, double* times) {
    int n = 0;
    for (int i = 0; i < nlp->nblock; i++) {
        const double t = nlp->blocks[i].t;
        if (i > 0 && t == nlp->blocks[i - 1].t) continue;
        if (times) times[n] = t;
        n++;
    }
    return n;
}


double salto_nlp_row_time(const salto_nlp* nlp, int r) {
    return nlp->blocks[row_block(nlp, r)].t;
}


int nlp_same_kind(const block* a, const block* b) {
    return a->con == b->con && a->phase == b->phase && a->side == b->side && a->impact == b->impact &&
           a->junc == b->junc &&
           a->force == b->force && a->torque == b->torque && a->nrows == b->nrows && a->link == b->link &&
           a->point[0] == b->point[0] && a->point[1] == b->point[1] && a->point[2] == b->point[2];
}


// the same block in two NLPs built on one problem's constraints (slices may differ)
static int same_block(const block* a, const block* b) {
    return a->t == b->t && nlp_same_kind(a, b);
}


int salto_nlp_map_rows(const salto_nlp* from, const salto_nlp* to, int* map) {
    for (int r = 0; r < to->ng; r++) map[r] = -1;
    // both block lists are sorted by time, constraint and phase: walk them together
    int matched = 0, i = 0;
    for (int j = 0; j < to->nblock; j++) {
        const block* b = &to->blocks[j];
        while (i < from->nblock && (from->blocks[i].t < b->t ||
                                    (from->blocks[i].t == b->t && !same_block(&from->blocks[i], b) &&
                                     nlp_cmp_block(&from->blocks[i], b) < 0))) {
            i++;
        }
        if (i < from->nblock && same_block(&from->blocks[i], b)) {
            for (int r = 0; r < b->nrows; r++) map[b->row0 + r] = from->blocks[i].row0 + r;
            matched += b->nrows;
            i++;
        }
    }
    return matched;
}


void salto_nlp_row_name(const salto_nlp* nlp, int r, char* buf, size_t n) {
    const block* b = &nlp->blocks[row_block(nlp, r)];
    if (b->con < 0) {
        // physics: the phase's contact and the row's meaning
        static const char* const flight3[6] = {"n_x", "n_y", "n_z", "f_x", "f_y", "f_z"};
        static const char* const flight2[3] = {"n_y", "f_x", "f_z"};
        static const char* const ground3[8] = {"normal force", "friction cone",
                                               "centre of pressure -T_x", "centre of pressure +T_x",
                                               "centre of pressure -T_y", "centre of pressure +T_y",
                                               "twist -", "twist +"};
        static const char* const ground2[4] = {"normal force", "friction cone",
                                               "centre of pressure -x", "centre of pressure +x"};
        const salto_phase_desc* ph = &nlp->p->phases[b->phase];
        int k = r - b->row0;
        const int planar = nlp->planar;
        if (b->torque) {
            const int j = b->tdof[k];
            snprintf(buf, n, "joint torque at '%s' (limit [%g, %g]%s) in phase '%s' at t = %.3f s "
                             "(%s:%d:%d)",
                     nlp->m->link_name[j], nlp->m->link_torque[2 * j], nlp->m->link_torque[2 * j + 1],
                     nlp->m->link_torque_slope[j] > 0.0 ? " less slope x speed" : "", ph->name, b->t,
                     ph->loc.file ? ph->loc.file : "?", ph->loc.line, ph->loc.col);
            return;
        }
        if (b->junc) {
            snprintf(buf, n, "velocity junction '%s' at the start of phase '%s' (a free duration "
                             "beside it), t = %.3f s (%s:%d:%d)",
                     nlp->m->link_name[k], ph->name, b->t, ph->loc.file ? ph->loc.file : "?",
                     ph->loc.line, ph->loc.col);
            return;
        }
        if (b->impact) {
            const int nj = nlp->nv - nlp->m->nroot;
            char what[160];
            if (k < nj) {
                snprintf(what, sizeof what, "impulsive torque at '%s'",
                         nlp->m->link_name[nlp->m->nroot + k]);
            } else {
                k -= nj;
                snprintf(what, sizeof what, "%s of the impulse",
                         (planar ? ground2 : ground3)[k]);
            }
            snprintf(buf, n, "impact %s at the start of phase '%s', t = %.3f s (%s:%d:%d)", what,
                     ph->name, b->t, ph->contact.loc.file ? ph->contact.loc.file : "?",
                     ph->contact.loc.line, ph->contact.loc.col);
            return;
        }
        static const char* const com3[3] = {"torque about the centre of mass x",
                                            "torque about the centre of mass y",
                                            "torque about the centre of mass z"};
        static const char* const mom[6] = {
            "angular momentum x", "angular momentum y", "angular momentum z",
            "linear momentum x",  "linear momentum y",  "linear momentum z"};
        const int momentum = nlp->mom[b->phase] >= 0 && !b->force;
        const char* what = ph->contact.type == SALTO_CONTACT_BAR      ? "torque about the bar"
                           : ph->contact.type == SALTO_CONTACT_GROUND ? (planar ? ground2 : ground3)[k]
                           : momentum                                 ? mom[nlp_momentum_comp(nlp, k)]
                           : nlp->bal[b->phase] >= 0                  ? com3[planar ? 1 : k]
                                                                      : (planar ? flight2 : flight3)[k];
        const char* kind = ph->contact.type == SALTO_CONTACT_BAR      ? "bar"
                           : ph->contact.type == SALTO_CONTACT_GROUND ? "ground"
                           : momentum                                 ? "flight"
                                                                      : "flight f0";
        snprintf(buf, n, "%s %s in phase '%s' at t = %.3f s (%s:%d:%d)", kind, what, ph->name, b->t,
                 ph->loc.file ? ph->loc.file : "?", ph->loc.line, ph->loc.col);
        return;
    }
    const salto_constraint_desc* cd = &nlp->p->cons[b->con];
    const salto_model* m = nlp->m;
    const int k = r - b->row0;
    static const char* const axis[3] = {"x", "y", "z"};
    char what[160];
    switch (cd->type) {
    case SALTO_CON_SITE_AT:
    case SALTO_CON_SITE_IN_BOX:
    case SALTO_CON_SITE_STILL:
        snprintf(what, sizeof what, "'%s' %s", m->site_name[cd->site], axis[b->comp[k]]);
        break;
    case SALTO_CON_BODY_STILL:
        snprintf(what, sizeof what, "'%s' turning about %s", m->site_name[cd->site],
                 axis[b->comp[k]]);
        break;
    case SALTO_CON_BODY_HEADING:
        snprintf(what, sizeof what, "'%s' heading from '%s' about the normal",
                 m->site_name[cd->site], m->site_name[cd->site0]);
        break;
    case SALTO_CON_BODY_LEVEL:
        snprintf(what, sizeof what, "'%s' level across the line from '%s'",
                 m->site_name[cd->site], m->site_name[cd->site0]);
        break;
    case SALTO_CON_SITE_HOLD: {
        const int bar = nlp->p->phases[cd->hold_phase - 1].contact.type == SALTO_CONTACT_BAR;
        const int planar = nlp->planar;
        static const char* const bar3[3] = {"across the bar", "across the bar", "along the bar"};
        static const char* const ground3[3] = {"along T_x", "along T_y", "off the ground"};
        static const char* const ground2[2] = {"along x", "off the ground"};
        const char* w = bar ? (planar ? axis[b->comp[k] == 0 ? 0 : 2] : bar3[k])
                            : (planar ? ground2[k] : ground3[k]);
        snprintf(what, sizeof what, "'%s' %s", m->site_name[cd->site], w);
        break;
    }
    case SALTO_CON_SITE_ON_LINE:
    case SALTO_CON_SITE_ON_PLANE:
    case SALTO_CON_SITE_ABOVE:
        snprintf(what, sizeof what, "'%s'", m->site_name[cd->site]);
        break;
    case SALTO_CON_POSE:
    case SALTO_CON_VELOCITY:
    case SALTO_CON_JOINT_RANGE:
        snprintf(what, sizeof what, "'%s'", m->link_name[cd->dof[k]]);
        break;
    case SALTO_CON_COM_POSITION:
    case SALTO_CON_COM_VELOCITY:
    case SALTO_CON_COM_IN_BOX:
        snprintf(what, sizeof what, "%s", axis[b->comp[k]]);
        break;
    case SALTO_CON_COM_ABOVE:
        snprintf(what, sizeof what, "along the normal");
        break;
    case SALTO_CON_COM_PARABOLA:
    case SALTO_CON_COM_PARABOLA_VEL:
        snprintf(what, sizeof what, "along '%s'", m->link_name[nlp->root.bal_tdof[k]]);
        break;
    case SALTO_CON_ABOVE_GROUND:
    case SALTO_CON_CLEAR_BAR:
        snprintf(what, sizeof what, "body '%s'", m->body_name[m->link_body[b->link]]);
        break;
    case SALTO_CON_CLEAR_BOX: {
        const char* bn = nlp->p->boxes[cd->box].name;
        snprintf(what, sizeof what, "body '%s' from box %s%s%s", m->body_name[m->link_body[b->link]],
                 bn[0] ? "'" : "", bn[0] ? bn : "", bn[0] ? "'" : "");
        if (!bn[0]) snprintf(what + strlen(what), sizeof what - strlen(what), "%d", cd->box + 1);
        break;
    }
    default:
        what[0] = '\0';
        break;
    }
    char hold[120] = "";
    if (cd->hold_phase > 0) {
        snprintf(hold, sizeof hold, "%s of phase '%s': ", nlp_is_parabola(cd->type) ? "flight" : "hold",
                 nlp->p->phases[cd->hold_phase - 1].name);
    }
    char named[64] = "";
    if (cd->name[0]) snprintf(named, sizeof named, " '%s'", cd->name);
    snprintf(buf, n, "%s%s%s %s at t = %.3f s (%s:%d:%d)", hold, salto_constraint_name(cd->type), named,
             what, b->t, cd->loc.file ? cd->loc.file : "?", cd->loc.line, cd->loc.col);
}


// ---- contact drift ----

double salto_nlp_contact_drift(const salto_nlp* nlp, const double* x, int density, int* site,
                               int* phase, double* time) {
    const salto_problem_desc* p = nlp->p;
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    const int n = (density > 0 ? density : 10) * (nlp->nslice > 1 ? nlp->nslice : 2);
    double worst = 0.0;
    if (site) *site = -1;
    if (phase) *phase = -1;
    if (time) *time = 0.0;
    for (int ph = 0; ph < p->nphase; ph++) {
        const salto_contact_desc* ct = &p->phases[ph].contact;
        if (ct->type == SALTO_CONTACT_NONE || !ct->hold) continue;
        const double t0 = p->phases[ph].start, T = p->phases[ph].duration;
        double ref[8][3];
        for (int k = 0; k <= n; k++) {
            const double t = k == n ? t0 + T : t0 + T * k / n;
            // the limit from inside the phase at its ends (the spline is continuous in q)
            salto_nlp_state(nlp, x, t, d->q, NULL, NULL);
            salto_fk(m, d, SALTO_FK_POS);
            for (int s = 0; s < ct->nsite && s < 8; s++) {
                double pos[3];
                salto_site_pos(m, d, ct->site[s], pos);
                if (k == 0) memcpy(ref[s], pos, sizeof pos);
                const double dx = pos[0] - ref[s][0], dy = pos[1] - ref[s][1], dz = pos[2] - ref[s][2];
                const double dist = sqrt(dx * dx + dy * dy + dz * dz);
                if (dist > worst) {
                    worst = dist;
                    if (site) *site = ct->site[s];
                    if (phase) *phase = ph;
                    if (time) *time = t;
                }
            }
        }
    }
    return worst; // the evaluations reset their kinematics cache on entry: d is free scratch
}
