// nlp_guess.c: the initial guess (keyframes, rotations, parabolas, contact places) and the
// warm starts from a motion or from another NLP's solution
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
#include "salto/obstacle.h"
#include "salto/orient.h"
#include "salto/spatial.h"


// ---- initial guess ----

// piecewise-linear interpolation of DOF j's pose keyframes at t (0 without keyframes)
static double keyframe_value(const salto_problem_desc* p, int j, double t) {
    const salto_constraint_desc *c0 = NULL, *c1 = NULL;
    double v0 = 0.0, v1 = 0.0;
    const int have = salto_problem_pose_bracket(p, j, t, t, &c0, &v0, &c1, &v1);
    if (have == 3) return c1->time > c0->time ? v0 + (v1 - v0) * (t - c0->time) / (c1->time - c0->time) : v0;
    if (have == 1) return v0;
    if (have == 2) return v1;
    return 0.0;
}


// The rotated DOF's guess (initial_guess.rotation): the whole-body turn made within the
// phase, in proportion to the time in it, and ending where the poses say. With poses of the DOF
// before the phase and after it, it holds the earlier one's value up to the phase and the
// later one's after it, and turns from one to the other within (the loader checks that the
// angle is their difference); with a pose after the phase only, the turn ends at it (the DOF
// starts the angle short of it); else the turn is added to the poses' interpolation (a DOF no
// pose gives turns from zero by the angle).
static double rotated_value(const salto_problem_desc* p, int j, double t) {
    const salto_guess_desc* gd = &p->guess;
    const salto_phase_desc* ph = &p->phases[gd->rot_phase];
    const double ts = ph->start, te = ts + ph->duration;
    double s = (t - ts) / ph->duration;
    s = s < 0 ? 0 : s > 1 ? 1 : s;
    const salto_constraint_desc *c0 = NULL, *c1 = NULL;
    double v0 = 0.0, v1 = 0.0;
    const int have = salto_problem_pose_bracket(p, j, ts + 1e-12, te - 1e-12, &c0, &v0, &c1, &v1);
    if (have == 3) return t <= c0->time || t >= c1->time ? keyframe_value(p, j, t) : v0 + (v1 - v0) * s;
    if (have == 2) return keyframe_value(p, j, t) - gd->rot_angle * (1.0 - s);
    return keyframe_value(p, j, t) + gd->rot_angle * s;
}


// a ballistic flight's c0 and v0: the least-squares parabola through the splines' centre of
// mass at the phase's knots (its ends included), along each translation axis a:
// a . c(t_k) - (a . g) tau_k^2 / 2 = c0 + v0 tau_k
static void init_parabola(const salto_nlp* nlp, double* x, int ph) {
    const salto_problem_desc* p = nlp->p;
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    const int nt = nlp->root.bal_nt;
    const double t0 = p->phases[ph].start, t1 = t0 + p->phases[ph].duration;
    double s1 = 0, st = 0, stt = 0, sy[3] = {0, 0, 0}, sty[3] = {0, 0, 0}, prev = -1.0;
    for (int j = 3; j <= nlp->ncp; j++) {
        const double t = salto_bspline_knot(&nlp->spline, j);
        if (t == prev || t < t0 - 1e-12 || t > t1 + 1e-12) continue;
        prev = t;
        nlp_state_raw(nlp, x, t, d->q, d->qd, NULL);
        salto_fk(m, d, SALTO_FK_VEL);
        salto_link_inertias(m, d);
        double c[3];
        salto_com(m, d, c, NULL);
        const double tau = t - t0;
        s1 += 1.0, st += tau, stt += tau * tau;
        for (int k = 0; k < nt; k++) {
            const double y = salto_v3_dot(nlp->root.bal_a[k], c) -
                             0.5 * salto_v3_dot(nlp->root.bal_a[k], m->gravity) * tau * tau;
            sy[k] += y, sty[k] += tau * y;
        }
    }
    const double det = s1 * stt - st * st;
    double* pl = x + nlp->bal[ph];
    for (int k = 0; k < nt; k++) {
        pl[nt + k] = det > 0 ? (s1 * sty[k] - st * sy[k]) / det : 0.0;
        pl[k] = s1 > 0 ? (sy[k] - pl[nt + k] * st) / s1 : 0.0;
    }
}


// a flight's momentum constants: the mean over the phase's slices of the splines' momentum
// (the linear part with gravity's line taken off), divided by the phase's duration as the
// rows read them, so that the rows start balanced
static void init_momentum(const salto_nlp* nlp, double* x, int ph) {
    const salto_problem_desc* p = nlp->p;
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    const int nr = flight_nrows(nlp, ph);
    double* h0 = x + nlp->mom[ph];
    for (int r = 0; r < nr; r++) h0[r] = 0.0;
    int n = 0;
    for (int k = 0; k < nlp->nslice; k++) {
        if (nlp->slice_ph[k] != ph) continue;
        const double t = nlp->slice_t[k];
        nlp_state_raw(nlp, x, t, d->q, d->qd, NULL);
        salto_p0_jac(m, d, NULL); // the momentum into d->p0, as eval_momentum has it
        double c[3];
        salto_com(m, d, c, NULL);
        for (int r = 0; r < nr; r++) {
            h0[r] += nlp_momentum_part(m, d->p0, c, nlp_momentum_comp(nlp, r), t - p->phases[ph].start);
        }
        n++;
    }
    for (int r = 0; r < nr && n > 0; r++) h0[r] /= n * p->phases[ph].duration;
}


// the contact places of the holds: where the sites are at the phase's start under x; the
// flights' momentum constants; impacts' shared impulses
static void init_places(const salto_nlp* nlp, double* x) {
    const salto_problem_desc* p = nlp->p;
    salto_data* d = nlp->ev.d;
    for (int i = 0; i < p->nphase; i++) {
        if (nlp->mom[i] >= 0) init_momentum(nlp, x, i);
        if (nlp->impv[i] >= 0) { // an impact's shared impulses: none yet (the first link all)
            int link[8];
            const int n = (nlp_impact_links(nlp, i, link) - 1) * nlp_impulse_width(nlp);
            for (int a = 0; a < n; a++) x[nlp->impv[i] + a] = 0.0;
        }
    }
    for (int c = 0; c < p->ncon; c++) {
        const salto_constraint_desc* cd = &p->cons[c];
        if (nlp->con_aux[c] < 0) continue;
        if (cd->type == SALTO_CON_COM_PARABOLA) {
            init_parabola(nlp, x, cd->phase);
            continue;
        }
        if (cd->type == SALTO_CON_BODY_HEADING) {
            double x0[3], x1[3], Tx[3], Ty[3];
            nlp_state_raw(nlp, x, p->phases[cd->hold_phase - 1].start, d->q, NULL, NULL);
            salto_fk(nlp->m, d, SALTO_FK_POS);
            salto_site_pos(nlp->m, d, cd->site0, x0);
            salto_site_pos(nlp->m, d, cd->site, x1);
            for (int k = 0; k < 3; k++) x1[k] -= x0[k];
            salto_contact_frame(cd->dir, 0, Tx, Ty);
            x[nlp->con_aux[c]] = atan2(salto_v3_dot(x1, Ty), salto_v3_dot(x1, Tx));
            continue;
        }
        double e[3][3], target[3], xs[3];
        int is_aux[3], naux = 0;
        const int nr = nlp_hold_rows(p, cd, nlp->planar, e, is_aux, target, &naux);
        nlp_state_raw(nlp, x, p->phases[cd->hold_phase - 1].start, d->q, NULL, NULL);
        salto_fk(nlp->m, d, SALTO_FK_POS);
        salto_site_pos(nlp->m, d, cd->site, xs);
        int a = 0;
        for (int r = 0; r < nr; r++) {
            if (is_aux[r]) x[nlp->con_aux[c] + a++] = salto_v3_dot(e[r], xs);
        }
    }
}


// The root's vertical DOF: the translation DOF along gravity, -1 if there is none; *sign is
// +1 when its positive direction is up.
static int vertical_root_dof(const salto_model* m, double* sign) {
    const double gn = salto_v3_norm(m->gravity);
    if (!(gn > 0.0)) return -1;
    int tdof[3];
    double axes[3][3];
    const int nt = salto_model_root_translation(m, tdof, axes);
    for (int k = 0; k < nt; k++) {
        const double c = salto_v3_dot(axes[k], m->gravity);
        if (fabs(c) >= 0.999 * gn) {
            *sign = c < 0 ? 1.0 : -1.0;
            return tdof[k];
        }
    }
    return -1;
}


// The lift of the ballistic guess at t: in a flight phase [t0, t1], the parabola
// (|g| / 2) (t - t0) (t1 - t) along -g, whose second derivative is gravity's; 0 elsewhere.
static double ballistic_lift(const salto_problem_desc* p, double t, double sign) {
    const double gn = salto_v3_norm(p->model->gravity);
    for (int i = 0; i < p->nphase; i++) {
        const salto_phase_desc* ph = &p->phases[i];
        if (ph->contact.type != SALTO_CONTACT_NONE) continue;
        const double t0 = ph->start, t1 = ph->start + ph->duration;
        if (t > t0 && t < t1) return sign * 0.5 * gn * (t - t0) * (t1 - t);
    }
    return 0.0;
}


// a guess's control points kept inside the variable bounds, and the contact places where the
// sites are at each phase's start
static void finish_guess(const salto_nlp* nlp, double* x) {
    for (int i = 0; i < nlp->ncpv; i++) x[i] = fmin(fmax(x[i], nlp->x_lo[i]), nlp->x_hi[i]);
    init_places(nlp, x);
    // free durations at their initial values (the layout's nominal ones)
    for (int i = 0; i < nlp->p->nphase; i++) {
        if (nlp->tvar[i] >= 0) x[nlp->tvar[i]] = nlp->tnom[i];
    }
}


int salto_nlp_has_motion_spline(const salto_nlp* nlp, const salto_motion* mo) {
    if (mo->ncp != nlp->ncp || !mo->control || !mo->knot) return 0;
    for (int a = 0; a < nlp->ncp + 4; a++) {
        if (fabs(mo->knot[a] - salto_bspline_knot(&nlp->spline, a)) > 1e-12) return 0;
    }
    return 1;
}


void salto_nlp_guess_from_motion(const salto_nlp* nlp, const salto_motion* mo, double* x) {
    const salto_problem_desc* p = nlp->p;
    // its control points when the spline is the same (the same knots: phase durations move
    // them) or has as many knots in every phase (durations changed, the layout kept; up to 64
    // phases), else its frames sampled at the Greville abscissae (played over this duration)
    int same = mo->ncp == nlp->ncp && mo->control && mo->knot;
    if (same && !salto_nlp_has_motion_spline(nlp, mo)) {
        int c0[64], c1[64];
        same = p->nphase > 1 && p->nphase <= 64 && !p->junction_c2 &&
               salto_motion_knot_counts(mo, p->nphase, c0);
        if (same) nlp_knots_per_phase(nlp, c1);
        for (int i = 0; same && i < p->nphase; i++) same = c0[i] == c1[i];
    }
    // the motion's phases as long as this problem's (to rounding), or its time mapped phase
    // by phase: each phase's fraction to the same fraction of the motion's (a motion whose
    // durations differ: another duration, or a free one's choice)
    int by_phase = mo->nphase == p->nphase && mo->phase_duration, differ = 0;
    for (int i = 0; by_phase && i < p->nphase; i++) {
        differ |= fabs(mo->phase_duration[i] - p->phases[i].duration) > 1e-12 * p->duration;
    }
    // the root's angles in another chart than the motion's (salto_problem_turn_root): sampled
    // and converted, each the set nearest the last's
    int o[3];
    const int rechart = (mo->root_turned || p->root_turned) && salto_root_order(nlp->m, o) &&
                        (mo->root_turned != p->root_turned ||
                         memcmp(mo->root_ref, p->root_ref, sizeof mo->root_ref) != 0);
    if (same) memcpy(x, mo->control, (size_t)nlp->ncpv * sizeof(double));
    if (!same || rechart) {
        double* q = nlp->ev.J3; // scratch of 3 nv doubles
        double prev[3];
        for (int a = 0; a < nlp->ncp; a++) {
            const double t = salto_bspline_greville(&nlp->spline, a);
            double tm = t * mo->duration / p->duration;
            if (by_phase && differ) {
                int i = salto_problem_phase_at(p, t);
                if (i < 0) i = t <= 0 ? 0 : p->nphase - 1;
                double s0 = 0.0;
                for (int k = 0; k < i; k++) s0 += mo->phase_duration[k];
                tm = s0 + (t - p->phases[i].start) / p->phases[i].duration * mo->phase_duration[i];
            }
            salto_motion_sample(mo, tm, q);
            if (rechart) {
                double c[3];
                salto_euler_rechart(o, mo->root_turned ? mo->root_ref : NULL, p->root_turned ? p->root_ref : NULL,
                                    q + 3, NULL, NULL, a ? prev : (mo->root_turned && !p->root_turned ? mo->root_anchor : NULL), c, NULL, NULL);
                memcpy(q + 3, c, sizeof c);
                memcpy(prev, c, sizeof prev);
            }
            for (int j = same ? 3 : 0; j < (same ? 6 : nlp->nv); j++) x[j * nlp->ncp + a] = q[j];
        }
    }
    finish_guess(nlp, x);
    // a free duration starts where the motion's phase ended up (its control points, or its
    // frames mapped by phase, are then the motion at its own pace)
    for (int i = 0; by_phase && i < p->nphase; i++) {
        if (nlp->tvar[i] >= 0) {
            const int v = nlp->tvar[i];
            x[v] = fmin(fmax(mo->phase_duration[i], nlp->x_lo[v]), nlp->x_hi[v]);
        }
    }
}


// the number of interior knots strictly inside each phase of an NLP's spline, into n (nphase)
void nlp_knots_per_phase(const salto_nlp* nlp, int* n) {
    const salto_problem_desc* p = nlp->p;
    for (int i = 0; i < p->nphase; i++) n[i] = 0;
    for (int a = 4; a < nlp->ncp; a++) {
        const double u = salto_bspline_knot(&nlp->spline, a);
        for (int i = 0; i < p->nphase; i++) {
            const double t0 = p->phases[i].start, t1 = t0 + p->phases[i].duration;
            if (u > t0 + 1e-12 && u < t1 - 1e-12) n[i]++;
        }
    }
}


void salto_nlp_guess_from_solution(const salto_nlp* nlp, const salto_nlp* prev,
                                   const double* xprev, double* x) {
    const salto_problem_desc* p = nlp->p;
    const salto_problem_desc* pp = prev->p;
    const int by_phase = pp->nphase == p->nphase;
    // the same number of knots in every phase: the splines differ only by each phase's
    // stretch, and the control points carry over as they are
    int same = by_phase && prev->ncp == nlp->ncp && prev->nv == nlp->nv && p->nphase <= 64;
    if (same) {
        int n0[64], n1[64];
        nlp_knots_per_phase(nlp, n1);
        nlp_knots_per_phase(prev, n0);
        for (int i = 0; i < p->nphase; i++) same &= n0[i] == n1[i];
    }
    if (same) {
        memcpy(x, xprev, (size_t)nlp->ncpv * sizeof(double));
    } else {
        // else its values at this spline's Greville abscissae, as control points (the
        // variation-diminishing approximation: smoother than interpolating there, and
        // measured to start the dismount's re-solve 15 iterations closer)
        double* q = nlp->ev.J3; // scratch of 3 nv doubles
        for (int a = 0; a < nlp->ncp; a++) {
            const double t = salto_bspline_greville(&nlp->spline, a);
            double tp = t * pp->duration / p->duration;
            if (by_phase) {
                // the same fraction of the same phase
                int i = salto_problem_phase_at(p, t);
                if (i < 0) i = t <= 0 ? 0 : p->nphase - 1;
                const double s = (t - p->phases[i].start) / p->phases[i].duration;
                tp = pp->phases[i].start + s * pp->phases[i].duration;
            }
            tp = fmin(fmax(tp, 0.0), pp->duration);
            nlp_state_raw(prev, xprev, tp, q, NULL, NULL);
            for (int j = 0; j < nlp->nv; j++) x[j * nlp->ncp + a] = q[j];
        }
    }
    finish_guess(nlp, x);
}


// ---- among boxes ----

enum { MAX_KEYS = 64 };

// With boxes, the interpolated guess stood still where no pose moved the root and flew
// through them: a jump over a hurdle pushed its legs out of the hurdle's near face and stopped
// there, infeasible. So, with boxes, the root's translation DOFs that no pose gives follow the
// sites the problem places (site_at, site_on_plane along the DOF's axis, and the held sites on
// their ground, a box's top included, at each held phase's ends): each a keyframe of the
// offset that puts the site there, interpolated linearly in time; and in each flight the root
// is lifted by the least arch A 4 s (1 - s) (s the phase's fraction) that takes the body's
// geometry over the boxes at every sample of the flight's middle.
static void sort_keys(double* kt, double* kv, int nk) {
    for (int a = 1; a < nk; a++) {
        for (int b = a; b > 0 && kt[b] < kt[b - 1]; b--) {
            double tt = kt[b];
            kt[b] = kt[b - 1], kt[b - 1] = tt;
            tt = kv[b];
            kv[b] = kv[b - 1], kv[b - 1] = tt;
        }
    }
}


// the keys' piecewise-linear interpolation at t (sorted; constant beyond the first and last;
// at a time with two keys, the later's)
static double key_value(const double* kt, const double* kv, int nk, double t) {
    if (t <= kt[0]) return kv[0];
    if (t >= kt[nk - 1]) return kv[nk - 1];
    for (int b = 0; b + 1 < nk; b++) {
        if (t >= kt[b] && t < kt[b + 1]) return kv[b] + (kv[b + 1] - kv[b]) * (t - kt[b]) / (kt[b + 1] - kt[b]);
    }
    return kv[nk - 1];
}


static void guess_translation_keys(const salto_nlp* nlp, double* x, salto_data* d) {
    const salto_problem_desc* p = nlp->p;
    const salto_model* m = nlp->m;
    int tdof[3];
    double axes[3][3];
    const int nt = salto_model_root_translation(m, tdof, axes);
    for (int k = 0; k < nt; k++) {
        const int j = tdof[k];
        if (salto_problem_pose_bracket(p, j, p->duration, 0.0, NULL, NULL, NULL, NULL)) continue; // posed
        // the keys: (time, offset along the axis), from the guess as it stands
        double kt[MAX_KEYS], kv[MAX_KEYS];
        int nk = 0;
        for (int c = 0; c < p->ncon && nk < MAX_KEYS; c++) {
            const salto_constraint_desc* cd = &p->cons[c];
            const int at = cd->type == SALTO_CON_SITE_AT, plane = cd->type == SALTO_CON_SITE_ON_PLANE;
            if (!(at || plane) || !cd->has_time || cd->hold_phase) continue;
            const double along = plane ? salto_v3_dot(cd->dir, axes[k]) : 1.0;
            if (plane && fabs(along) < 0.9) continue;
            double xs[3], w[3];
            nlp_state_raw(nlp, x, cd->time, d->q, NULL, NULL);
            salto_fk(m, d, SALTO_FK_POS);
            salto_site_pos(m, d, cd->site, xs);
            for (int a = 0; a < 3; a++) w[a] = cd->point[a] - xs[a];
            kt[nk] = cd->time;
            kv[nk++] = plane ? salto_v3_dot(cd->dir, w) / along : salto_v3_dot(axes[k], w);
        }
        for (int i = 0; i < p->nphase && nk + 16 <= MAX_KEYS; i++) {
            const salto_contact_desc* ct = &p->phases[i].contact;
            const double along = salto_v3_dot(ct->normal, axes[k]);
            if (ct->type != SALTO_CONTACT_GROUND || !ct->hold || fabs(along) < 0.9) continue;
            for (int e = 0; e < 2; e++) {
                const double t = p->phases[i].start + (e ? p->phases[i].duration : 0.0);
                nlp_state_raw(nlp, x, t, d->q, NULL, NULL);
                salto_fk(m, d, SALTO_FK_POS);
                double sum = 0.0;
                for (int s = 0; s < ct->nsite; s++) {
                    double xs[3];
                    salto_site_pos(m, d, ct->site[s], xs);
                    sum += salto_contact_site_height(p, ct, s) - salto_v3_dot(ct->normal, xs);
                }
                kt[nk] = t;
                kv[nk++] = sum / ct->nsite / along;
            }
        }
        if (nk == 0) continue;
        sort_keys(kt, kv, nk);
        // across the ground, a held phase's sites stay put: the offset is constant through it,
        // the first key within it (or its value at the phase's start)
        for (int i = 0; i < p->nphase; i++) {
            const salto_contact_desc* ct = &p->phases[i].contact;
            if (ct->type != SALTO_CONTACT_GROUND || !ct->hold || fabs(salto_v3_dot(ct->normal, axes[k])) >= 0.9) continue;
            const double a = p->phases[i].start, e = a + p->phases[i].duration;
            double c = key_value(kt, kv, nk, a);
            int n = 0, found = 0;
            for (int b = 0; b < nk; b++) {
                if (kt[b] >= a - 1e-12 && kt[b] <= e + 1e-12) {
                    if (!found) c = kv[b], found = 1;
                    continue;
                }
                kt[n] = kt[b], kv[n++] = kv[b];
            }
            nk = n;
            if (nk + 2 > MAX_KEYS) break;
            kt[nk] = a, kv[nk++] = c;
            kt[nk] = e, kv[nk++] = c;
            sort_keys(kt, kv, nk);
        }
        for (int a = 0; a < nlp->ncp; a++) {
            x[j * nlp->ncp + a] += key_value(kt, kv, nk, salto_bspline_greville(&nlp->spline, a));
        }
    }
}


static void guess_over_boxes(const salto_nlp* nlp, double* x, salto_data* d) {
    const salto_problem_desc* p = nlp->p;
    const salto_model* m = nlp->m;
    double zsign = 0.0;
    const int jz = vertical_root_dof(m, &zsign);
    if (jz < 0) return;
    for (int i = 0; i < p->nphase; i++) {
        const salto_phase_desc* ph = &p->phases[i];
        if (ph->contact.type != SALTO_CONTACT_NONE) continue;
        // the lift each sample needs: every capsule (sphere, box corner) reaching into a box,
        // within its clearance, raised until its lower end is over the box's top by that much
        double arch = 0.0;
        for (int n = 1; n < 16; n++) {
            const double s = 0.15 + 0.7 * n / 16.0, t = ph->start + s * ph->duration;
            nlp_state_raw(nlp, x, t, d->q, NULL, NULL);
            salto_fk(m, d, SALTO_FK_POS);
            double need = 0.0;
            for (int b = 0; b < p->nbox; b++) {
                double c[3], h[3], yaw;
                int use[3];
                salto_problem_box_geometry(p, b, c, h, use, &yaw);
                const double reach = p->boxes[b].clearance;
                for (int g = 0; g < m->ngeom; g++) {
                    if (m->geom_link[g] < 0) continue;
                    double pts[8][3], r = 0.0;
                    const int npt = salto_geom_points(m, d, g, pts, &r);
                    const int cap = m->geom_shape[g] == SALTO_GEOM_CAPSULE;
                    for (int k = 0; k < (cap ? 1 : npt); k++) {
                        const double* e = pts[cap ? 1 : k];
                        if (salto_box_segment_distance_turned(c, h, use, yaw, pts[k], e, NULL, NULL, NULL, NULL) >= r + reach) continue;
                        need = fmax(need, p->boxes[b].hi[2] + r + reach - fmin(pts[k][2], e[2]));
                    }
                }
            }
            arch = fmax(arch, need / (4.0 * s * (1.0 - s)));
        }
        arch = fmin(arch, 3.0);
        if (!(arch > 0.0)) continue;
        for (int a = 0; a < nlp->ncp; a++) {
            const double t = salto_bspline_greville(&nlp->spline, a);
            const double s = (t - ph->start) / ph->duration;
            if (s > 0.0 && s < 1.0) x[jz * nlp->ncp + a] += zsign * arch * 4.0 * s * (1.0 - s);
        }
    }
}


void salto_nlp_initial_guess(const salto_nlp* nlp, double* x) {
    const salto_problem_desc* p = nlp->p;
    const salto_guess_desc* gd = &p->guess;
    if (nlp->warm) {
        salto_nlp_guess_from_motion(nlp, nlp->warm, x);
        return;
    }
    double zsign = 0.0;
    const int jz = gd->ballistic && p->physics ? vertical_root_dof(nlp->m, &zsign) : -1;
    for (int a = 0; a < nlp->ncp; a++) {
        const double t = salto_bspline_greville(&nlp->spline, a);
        for (int j = 0; j < nlp->nv; j++) {
            double v = keyframe_value(p, j, t);
            if (j == jz) v += ballistic_lift(p, t, zsign);
            if (gd->rot_phase >= 0 && j == gd->rot_dof) v = rotated_value(p, j, t);
            // inside the variable bounds
            const int i = j * nlp->ncp + a;
            if (v < nlp->x_lo[i]) v = nlp->x_lo[i];
            if (v > nlp->x_hi[i]) v = nlp->x_hi[i];
            x[i] = v;
        }
    }
    if (p->nbox > 0) {
        salto_data* d = salto_data_create(nlp->m);
        if (d) {
            guess_translation_keys(nlp, x, d);
            guess_over_boxes(nlp, x, d);
            salto_data_destroy(d);
        }
        for (int i = 0; i < nlp->ncpv; i++) x[i] = fmin(fmax(x[i], nlp->x_lo[i]), nlp->x_hi[i]);
    }
    finish_guess(nlp, x);
}


// t of nlp's problem mapped onto prev's: the same fraction of the same phase when both have as
// many phases, else the whole duration stretched
static double map_time(const salto_nlp* nlp, const salto_nlp* prev, double t) {
    const salto_problem_desc* p = nlp->p;
    const salto_problem_desc* pp = prev->p;
    double tp = t * pp->duration / p->duration;
    if (pp->nphase == p->nphase) {
        int i = salto_problem_phase_at(p, t);
        if (i < 0) i = t <= 0 ? 0 : p->nphase - 1;
        const double s = (t - p->phases[i].start) / p->phases[i].duration;
        tp = pp->phases[i].start + s * pp->phases[i].duration;
    }
    return fmin(fmax(tp, 0.0), pp->duration);
}


int salto_nlp_mult_from_solution(const salto_nlp* nlp, const salto_nlp* prev, const double* gprev,
                                 const double* zlo_prev, const double* zhi_prev, double* g,
                                 double* x_lo, double* x_hi) {
    int matched = 0;
    for (int r = 0; r < nlp->ng; r++) g[r] = 0.0;
    for (int i = 0; i < nlp->nblock; i++) {
        const block* b = &nlp->blocks[i];
        const double tp = map_time(nlp, prev, b->t);
        // prev's blocks are sorted by time: the first at or after tp, then outwards to the
        // nearest of the same kind
        int lo = 0, hi = prev->nblock;
        while (lo < hi) {
            const int mid = (lo + hi) / 2;
            if (prev->blocks[mid].t < tp) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        int best = -1;
        double dbest = INFINITY;
        for (int k = lo; k < prev->nblock; k++) {
            const double dt = prev->blocks[k].t - tp;
            if (dt > dbest) break;
            if (nlp_same_kind(&prev->blocks[k], b)) dbest = dt, best = k;
        }
        for (int k = lo - 1; k >= 0; k--) {
            const double dt = tp - prev->blocks[k].t;
            if (dt > dbest) break;
            if (nlp_same_kind(&prev->blocks[k], b)) dbest = dt, best = k;
        }
        if (best < 0) continue;
        for (int r = 0; r < b->nrows; r++) g[b->row0 + r] = gprev[prev->blocks[best].row0 + r];
        matched += b->nrows;
    }
    // the bound multipliers: control points by the nearest Greville abscissa of prev's
    for (int v = 0; v < nlp->nx; v++) x_lo[v] = x_hi[v] = 0.0;
    if (zlo_prev && zhi_prev && nlp->nv == prev->nv) {
        for (int a = 0; a < nlp->ncp; a++) {
            const double tp = map_time(nlp, prev, salto_bspline_greville(&nlp->spline, a));
            int ap = 0;
            double dbest = INFINITY;
            for (int c = 0; c < prev->ncp; c++) {
                const double dt = fabs(salto_bspline_greville(&prev->spline, c) - tp);
                if (dt < dbest) dbest = dt, ap = c;
            }
            for (int j = 0; j < nlp->nv; j++) {
                x_lo[j * nlp->ncp + a] = zlo_prev[j * prev->ncp + ap];
                x_hi[j * nlp->ncp + a] = zhi_prev[j * prev->ncp + ap];
            }
        }
        if (nlp->nx - nlp->ncpv == prev->nx - prev->ncpv) {
            for (int v = 0; v < nlp->nx - nlp->ncpv; v++) {
                x_lo[nlp->ncpv + v] = zlo_prev[prev->ncpv + v];
                x_hi[nlp->ncpv + v] = zhi_prev[prev->ncpv + v];
            }
        }
    }
    return matched;
}
