// refine.c: slice refinement. The optimiser enforces physics only at its slices and a solved
// motion can cheat between them (docs/validation.md); salto_validate samples the motion
// densely and finds where. Refinement adds a slice at the worst sample of every run of
// samples where a slice-enforced check is violated beyond a fraction of its validation
// threshold, rebuilds the NLP (same spline, same variables) and resumes from the solution.
#include "salto/orient.h"
#include "salto/solver.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "salto/validate.h"

// the checks whose requirement the NLP enforces slice by slice (the others are integrals over
// a phase, or enforced at the knots)
static int refinable(salto_check_kind k) {
    switch (k) {
    case SALTO_CHECK_FLIGHT_FORCE:
    case SALTO_CHECK_FLIGHT_TORQUE:
    case SALTO_CHECK_BAR_TORQUE:
    case SALTO_CHECK_NORMAL_FORCE:
    case SALTO_CHECK_FRICTION:
    case SALTO_CHECK_COP:
    case SALTO_CHECK_TWIST:
    case SALTO_CHECK_PENETRATION:
    case SALTO_CHECK_JOINT_LIMITS:
    case SALTO_CHECK_BOUNDS:
    case SALTO_CHECK_TORQUE:
    case SALTO_CHECK_BAR_CLEARANCE:
    case SALTO_CHECK_BOX_CLEARANCE:
        return 1;
    default:
        return 0;
    }
}


// does the problem enforce check k in phase i at its slices?
static int enforced(const salto_problem_desc* p, salto_check_kind k, int i) {
    int con = -1;
    if (k == SALTO_CHECK_PENETRATION) con = SALTO_CON_ABOVE_GROUND;
    if (k == SALTO_CHECK_JOINT_LIMITS) con = SALTO_CON_JOINT_LIMITS;
    if (k == SALTO_CHECK_BOUNDS) con = SALTO_CON_SITE_ABOVE;
    if (k == SALTO_CHECK_BAR_CLEARANCE) con = SALTO_CON_CLEAR_BAR;
    if (k == SALTO_CHECK_BOX_CLEARANCE) con = SALTO_CON_CLEAR_BOX;
    if (k == SALTO_CHECK_TORQUE) return p->physics && p->model->ntorque > 0; // the torque rows
    if (con < 0) return p->physics; // the phase's contact physics
    for (int c = 0; c < p->ncon; c++) {
        const salto_constraint_desc* cd = &p->cons[c];
        const int bound = cd->type == SALTO_CON_COM_ABOVE || cd->type == SALTO_CON_SITE_IN_BOX ||
                          cd->type == SALTO_CON_COM_IN_BOX || cd->type == SALTO_CON_JOINT_RANGE;
        const int type = bound ? SALTO_CON_SITE_ABOVE : (int)cd->type;
        if (type == con && (cd->phase < 0 || cd->phase == i)) return 1;
    }
    return 0;
}


double salto_refine_scan(const salto_problem_desc* p, const salto_validation* v,
                         const salto_validate_opts* o, double fraction, int* n, double* t,
                         int* ph, double* ratio) {
    double worst = 0.0;
    int m = 0;
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) {
        if (!refinable((salto_check_kind)k)) continue;
        const double thr = o->threshold[k] >= 0.0 ? o->threshold[k]
                                                   : salto_check_default_threshold(p->model, k);
        if (!(thr > 0.0)) continue;
        // runs of consecutive samples of one phase above fraction x threshold: the worst of each
        int best = -1;
        for (int s = 0; s <= v->nsample; s++) {
            const double a = s < v->nsample ? v->violation[(size_t)s * SALTO_CHECK_COUNT + k] : 0.0;
            const int over = s < v->nsample && a > fraction * thr &&
                             enforced(p, (salto_check_kind)k, v->phase[s]);
            if (over && (best < 0 || v->phase[s] == v->phase[best])) {
                if (best < 0 || a > v->violation[(size_t)best * SALTO_CHECK_COUNT + k]) best = s;
                continue;
            }
            if (best >= 0) {
                const double r = v->violation[(size_t)best * SALTO_CHECK_COUNT + k] / thr;
                if (r > worst) worst = r;
                if (t) t[m] = v->t[best];
                if (ph) ph[m] = v->phase[best];
                if (ratio) ratio[m] = r;
                m++;
                best = -1;
                if (over) s--; // a run of another phase starts here
            }
        }
    }
    *n = m;
    return worst;
}


static void add_result(salto_solve_result* sum, const salto_solve_result* r) {
    sum->iterations += r->iterations;
    sum->elapsed += r->elapsed;
    sum->n_eval_f += r->n_eval_f, sum->n_eval_g += r->n_eval_g;
    sum->n_eval_jac += r->n_eval_jac, sum->n_eval_h += r->n_eval_h;
    sum->time_g += r->time_g, sum->time_jac += r->time_jac, sum->time_h += r->time_h;
    sum->factorisations += r->factorisations;
    sum->time_factor += r->time_factor, sum->time_kkt_solve += r->time_kkt_solve;
    if (r->kkt_order > sum->kkt_order) sum->kkt_order = r->kkt_order;
    sum->mumps_compared += r->mumps_compared, sum->mumps_inertia_differs += r->mumps_inertia_differs;
    sum->time_mumps += r->time_mumps;
}


// a kept solve's verdict (its status, objective, violation) as the totals' (their counts and
// times add up apart, add_result)
static void take_verdict(salto_solve_result* total, const salto_solve_result* r) {
    total->status = r->status;
    memcpy(total->status_name, r->status_name, sizeof total->status_name);
    total->objective = r->objective;
    total->max_violation = r->max_violation;
    total->worst_row = r->worst_row;
    total->converged = r->converged;
}


// salto_solve_mult with the equality rows that restate another row freed
// (salto_nlp_restated_rows: a constraint given twice, a site placed twice), which leave IPOPT a
// singular Jacobian (the lamp's hop with its end pose stated twice: 244 iterations, its denser
// solve infeasible, a check failed; freed, it passes every check). Rows whose gradients are
// parallel at two points need not restate each other everywhere, though (freeing rows
// dependent on several others did break them: reach3d's start pose on the root's roll and yaw,
// the zoo's squat jump's second foot), so the motion is checked against the freed rows, and if
// it breaks one they are enforced again and the solve starts again from x (and a warm start's
// multipliers) as it was, to the motion it would have found without the freeing. The rows that
// stayed freed are recorded in rr (may be NULL: the first three by name). Only running out of
// memory is an error: a failed rank check frees nothing.
static salto_status solve_freeing(salto_nlp* nlp, double* x, salto_multipliers* mu, int warm,
                                  int max_iterations, salto_progress_fn progress, void* user,
                                  salto_solve_result* r, salto_refine_result* rr, salto_error* err) {
    const int ng = salto_nlp_ng(nlp), nx = salto_nlp_nx(nlp);
    int* dep = salto_malloc(sizeof(int) * (size_t)(ng > 0 ? ng : 1));
    double* lo = salto_malloc(sizeof(double) * (size_t)(ng > 0 ? ng : 1));
    double* hi = salto_malloc(sizeof(double) * (size_t)(ng > 0 ? ng : 1));
    double* g = salto_malloc(sizeof(double) * (size_t)(ng > 0 ? ng : 1));
    double* x0 = salto_malloc(sizeof(double) * (size_t)nx);
    if (!dep || !lo || !hi || !g || !x0) {
        salto_free(dep), salto_free(lo), salto_free(hi), salto_free(g), salto_free(x0);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    memcpy(x0, x, sizeof(double) * (size_t)nx);
    // a warm start's multipliers, to start again from them too
    double* m0 = warm && mu ? salto_malloc(sizeof(double) * (size_t)(ng + 2 * nx + 1)) : NULL;
    if (warm && mu && !m0) {
        salto_free(dep), salto_free(lo), salto_free(hi), salto_free(g), salto_free(x0);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    if (m0) {
        memcpy(m0, mu->g, sizeof(double) * (size_t)ng);
        memcpy(m0 + ng, mu->x_lo, sizeof(double) * (size_t)nx);
        memcpy(m0 + ng + nx, mu->x_hi, sizeof(double) * (size_t)nx);
    }
    int n = 0;
    salto_error e = {0};
    salto_status st = salto_nlp_restated_rows(nlp, x, dep, &n, &e);
    if (st == SALTO_ERR_NOMEM) {
        st = SALTO_FAIL(err, st, salto_loc_none(), "out of memory");
    } else {
        if (st != SALTO_OK) n = 0;
        st = SALTO_OK;
        salto_nlp_bounds(nlp, NULL, NULL, lo, hi);
        if (n > 0) salto_nlp_set_row_bounds(nlp, n, dep, NULL, NULL);
        st = salto_solve_mult(nlp, x, mu, warm, max_iterations, progress, user, r, err);
    }
    if (st == SALTO_OK && n > 0) {
        // does the motion keep the freed rows (to the solver's own accuracy)?
        int broken = salto_nlp_eval_g(nlp, x, g) != SALTO_OK;
        for (int k = 0; k < n && !broken; k++) {
            const int q = dep[k];
            const double tol = 1e-6 * (1.0 + fabs(lo[q]));
            broken = !(g[q] >= lo[q] - tol && g[q] <= hi[q] + tol);
        }
        if (broken) {
            // enforced again, and the solve started again from where it started
            double* blo = salto_malloc(sizeof(double) * (size_t)n);
            double* bhi = salto_malloc(sizeof(double) * (size_t)n);
            if (!blo || !bhi) {
                st = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
            } else {
                for (int k = 0; k < n; k++) blo[k] = lo[dep[k]], bhi[k] = hi[dep[k]];
                salto_nlp_set_row_bounds(nlp, n, dep, blo, bhi);
                memcpy(x, x0, sizeof(double) * (size_t)nx);
                if (m0) {
                    memcpy(mu->g, m0, sizeof(double) * (size_t)ng);
                    memcpy(mu->x_lo, m0 + ng, sizeof(double) * (size_t)nx);
                    memcpy(mu->x_hi, m0 + ng + nx, sizeof(double) * (size_t)nx);
                }
                salto_solve_result r2;
                st = salto_solve_mult(nlp, x, mu, warm, max_iterations, progress, user, &r2, err);
                if (st == SALTO_OK) {
                    add_result(&r2, r);
                    *r = r2;
                }
                if (rr) rr->restored += n;
                n = 0;
            }
            salto_free(blo), salto_free(bhi);
        }
    }
    if (rr && n > 0) {
        rr->freed = n;
        for (int k = 0; k < n && k < 3; k++) {
            salto_nlp_row_name(nlp, dep[k], rr->freed_row[k], sizeof rr->freed_row[k]);
        }
    }
    salto_free(dep), salto_free(lo), salto_free(hi), salto_free(g), salto_free(x0), salto_free(m0);
    return st;
}


// where to refine: times, phases and violation ratios, worst first
typedef struct places {
    int n;
    double* t;
    int* ph;
    double* ratio;
} places;


static void places_free(places* q) {
    salto_free(q->t), salto_free(q->ph), salto_free(q->ratio);
    memset(q, 0, sizeof *q);
}


// validates x on nlp (no re-simulation) and lists where to add slices, worst first; the worst
// violation over its threshold through *worst
static salto_status scan(salto_problem_desc* p, salto_nlp* nlp, const double* x,
                         const salto_validate_opts* o, places* q, double* worst,
                         salto_error* err) {
    salto_validation v;
    salto_status st = salto_validate(nlp, x, o, &v, err);
    if (st != SALTO_OK) return st;
    int n = 0;
    salto_refine_scan(p, &v, o, p->solver.refine_fraction, &n, NULL, NULL, NULL);
    q->t = salto_malloc(sizeof(double) * (size_t)(n + 1));
    q->ph = salto_malloc(sizeof(int) * (size_t)(n + 1));
    q->ratio = salto_malloc(sizeof(double) * (size_t)(n + 1));
    if (!q->t || !q->ph || !q->ratio) {
        places_free(q);
        salto_validation_free(&v);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    *worst = salto_refine_scan(p, &v, o, p->solver.refine_fraction, &q->n, q->t, q->ph, q->ratio);
    salto_validation_free(&v);
    // worst first (insertion sort: a few dozen places)
    for (int i = 1; i < q->n; i++) {
        const double t = q->t[i], r = q->ratio[i];
        const int ph = q->ph[i];
        int j = i;
        for (; j > 0 && q->ratio[j - 1] < r; j--) {
            q->t[j] = q->t[j - 1], q->ph[j] = q->ph[j - 1], q->ratio[j] = q->ratio[j - 1];
        }
        q->t[j] = t, q->ph[j] = ph, q->ratio[j] = r;
    }
    return SALTO_OK;
}


// one re-solve with the first k places added to p's slices: on success *nlp, x and mu are the
// new NLP's, p keeps the slices and *added says how many were new; otherwise everything is as
// it was (*added 0, *ok 0 when the solve ran and did not converge)
static salto_status try_places(salto_problem_desc* p, salto_nlp** nlp, double* x,
                               salto_multipliers* mu, const places* q, int k,
                               salto_progress_fn progress, void* user, salto_solve_result* r,
                               int* added, int* ok, salto_error* err) {
    *added = 0, *ok = 0;
    const int nx = salto_nlp_nx(*nlp);
    // the problem's slices as they are, to go back to
    double* et0 = p->extra_t;
    int* ep0 = p->extra_ph;
    const int ne0 = p->nextra;
    p->extra_t = NULL, p->extra_ph = NULL, p->nextra = 0;
    int n = salto_problem_add_slices(p, ne0, et0, ep0) == ne0 ? salto_problem_add_slices(p, k, q->t, q->ph) : -1;
    salto_status st = n < 0 ? SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory") : SALTO_OK;
    salto_error be = {0};
    salto_nlp* next = n > 0 ? salto_nlp_build(p, &be) : NULL;
    if (n > 0 && !next) {
        // over the memory limit (budget.h) the places are not added: refinement stops there
        // and the motion stays; anything else is the solve's error
        if (be.status != SALTO_ERR_INVALID) {
            *err = be;
            st = be.status ? be.status : SALTO_ERR_NOMEM;
        }
    }
    const int ng1 = next ? salto_nlp_ng(next) : 0;
    int* map = next ? salto_malloc(sizeof(int) * (size_t)(ng1 + 1)) : NULL;
    double* xs = next ? salto_malloc(sizeof(double) * (size_t)nx) : NULL;
    salto_multipliers mu1 = {NULL, NULL, NULL};
    if (next) {
        mu1.g = salto_malloc(sizeof(double) * (size_t)(ng1 + 1));
        mu1.x_lo = salto_malloc(sizeof(double) * (size_t)nx);
        mu1.x_hi = salto_malloc(sizeof(double) * (size_t)nx);
        if (!map || !xs || !mu1.g || !mu1.x_lo || !mu1.x_hi) {
            st = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        }
    }
    if (st == SALTO_OK && next) {
        // the rows the new NLP shares with the last keep their multipliers; new rows start at 0
        salto_nlp_map_rows(*nlp, next, map);
        for (int i = 0; i < ng1; i++) mu1.g[i] = map[i] >= 0 ? mu->g[map[i]] : 0.0;
        memcpy(mu1.x_lo, mu->x_lo, sizeof(double) * (size_t)nx);
        memcpy(mu1.x_hi, mu->x_hi, sizeof(double) * (size_t)nx);
        memcpy(xs, x, sizeof(double) * (size_t)nx);
        st = solve_freeing(next, x, &mu1, 1, p->solver.refine_max_iterations, progress, user, r, NULL, err);
        if (st == SALTO_OK && r->converged) {
            salto_nlp_destroy(*nlp);
            *nlp = next;
            next = NULL;
            salto_multipliers old = *mu;
            *mu = mu1;
            mu1 = old;
            salto_free(et0), salto_free(ep0);
            et0 = NULL, ep0 = NULL;
            *added = n, *ok = 1;
        } else {
            memcpy(x, xs, sizeof(double) * (size_t)nx);
        }
    }
    if (!*ok) {
        // the slices as they were (the NLP *nlp was built on them)
        salto_free(p->extra_t), salto_free(p->extra_ph);
        p->extra_t = et0, p->extra_ph = ep0, p->nextra = ne0;
    }
    salto_nlp_destroy(next);
    salto_free(map), salto_free(xs), salto_free(mu1.g), salto_free(mu1.x_lo), salto_free(mu1.x_hi);
    return st;
}


// The first solve on a coarse spline (p->warmup): the problem loaded again with its overrides
// and a spline of SALTO_WARMUP_CONTROL_POINTS control points (as many slices, shared out by
// duration), solved from its own initial guess, and its motion sampled onto nlp's spline as
// x's guess (salto_nlp_guess_from_motion). A fine spline solved from the interpolated guess wanders:
// the humanoid's two-foot jumps took 1 s an iteration for hundreds of iterations, and from
// the coarse solve 0.1 s for 30-130 (docs/performance.md, "The problem zoo"). Skipped, x
// kept, where it cannot be done: a guess from a motion, a file that no longer loads, phases
// too many for 20 control points. The first solve's statistics into r (zero when skipped).
static salto_status warmup(const salto_problem_desc* p, const salto_nlp* nlp, double* x,
                           salto_progress_fn progress, void* user, salto_solve_result* r,
                           salto_error* err) {
    memset(r, 0, sizeof *r);
    if (!p->warmup || p->skip_warmup || p->guess.type != SALTO_GUESS_INTERPOLATE || !p->path) return SALTO_OK;
    // the whole spline section replaced (knot_spacing or phase_knots would conflict), its
    // junctions kept; and the fine problem's formulation, whose defaults follow the spline
    // (the flights' rows, ballistic flights, impact landings)
    char cp[96], rows[64];
    // a free duration's boundary takes a triple knot where a fixed one's takes a double (or a
    // single, C2): as many control points more, so that the coarse spline's pieces are those
    // of the same problem at fixed durations
    int extra = 0;
    for (int i = 1; i < p->nphase; i++) {
        if (!p->phases[i].contact.impact && (p->phases[i].dur_free || p->phases[i - 1].dur_free)) {
            extra += p->junction_c2 ? 2 : 1;
        }
    }
    snprintf(cp, sizeof cp, "spline={control_points: %d, junctions: %s}", SALTO_WARMUP_CONTROL_POINTS + extra,
             p->junction_c2 ? "C2" : "C1");
    snprintf(rows, sizeof rows, "solver.flight_rows=%s", salto_flight_rows_name(p->solver.flight_rows));
    size_t bytes = 0;
    for (int i = 0; i < p->nphase; i++) bytes += (size_t)salto_problem_phase_formulation(p, i, NULL, 0) + 1;
    const char** set = salto_malloc(sizeof(char*) * (size_t)(p->nset + 2 + p->nphase));
    char* phases = salto_malloc(bytes);
    if (!set || !phases) {
        salto_free(set), salto_free(phases);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    for (int k = 0; k < p->nset; k++) set[k] = p->set[k];
    set[p->nset] = cp;
    set[p->nset + 1] = rows;
    int nset = p->nset + 2;
    for (int i = 0, at = 0; i < p->nphase; i++) {
        const int w = salto_problem_phase_formulation(p, i, phases + at, bytes - (size_t)at);
        if (w > 0) set[nset++] = phases + at, at += w + 1;
    }
    salto_error ignored = {0};
    salto_problem_desc* pc = salto_problem_load_set(p->path, nset, set, &ignored);
    salto_free(set);
    salto_free(phases);
    if (pc && salto_problem_inherit_turn(pc, p) != 0) { // a turned solve's chart
        salto_problem_destroy(pc); // out of memory: as if it could not be loaded
        pc = NULL;
    }
    // free durations pinned at their initial values in the coarse solve: its motion is the
    // fixed-duration one, from which the fine solve frees them (a coarse solve with them free
    // took the lamp's hop to an objective of 9816 at a 0.479 s flight, against 3879 at 0.4 s
    // and 4748 at 0.479 s fixed)
    for (int i = 0; pc && i < pc->nphase; i++) {
        if (pc->phases[i].dur_free) pc->phases[i].dur_min = pc->phases[i].dur_max = pc->phases[i].duration;
    }
    salto_nlp* nc = pc ? salto_nlp_build(pc, &ignored) : NULL;
    double* xc = nc ? salto_malloc(sizeof(double) * (size_t)salto_nlp_nx(nc)) : NULL;
    salto_status st = SALTO_OK;
    if (xc) {
        salto_nlp_initial_guess(nc, xc);
        st = solve_freeing(nc, xc, NULL, 0, 0, progress, user, r, NULL, err);
        // its motion as written (the derived translations: the effective roots, the ballistic
        // parabolas) sampled at the fine spline's Greville abscissae; the raw splines instead
        // left the lamp's hop up at 30 of 32 checks, against 32 of 32
        salto_motion* mo = st == SALTO_OK ? salto_motion_from_nlp(nc, xc) : NULL;
        if (mo) {
            salto_nlp_guess_from_motion(nlp, mo, x);
            salto_motion_destroy(mo);
            // free durations: where the coarse solve took them (its motion is in the nominal
            // time both share)
            for (int i = 0; i < p->nphase; i++) {
                salto_nlp_set_phase_duration(nlp, x, i, salto_nlp_phase_duration(nc, xc, i));
            }
        } else if (st == SALTO_OK) {
            st = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        }
    } else if (pc && ignored.status == SALTO_ERR_NOMEM) {
        st = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    salto_free(xc);
    salto_nlp_destroy(nc);
    salto_problem_destroy(pc);
    return st;
}


// the validation's verdict on x (the re-simulation included) as one score: the failing checks
// first, then the worst ratio (lower is better); -1 when it cannot be run
static int judge(salto_nlp* nlp, const double* x, const salto_problem_desc* p, int* failing,
                 double* worst) {
    salto_validate_opts o;
    salto_validate_opts_from_problem(&o, p);
    salto_validation v;
    salto_error e = {0};
    if (salto_validate(nlp, x, &o, &v, &e) != SALTO_OK) return -1;
    *failing = v.njudged - v.npassed;
    *worst = 0.0;
    salto_validation_worst(&v, worst);
    salto_validation_free(&v);
    return 0;
}


// The denser solve (after a first coarse solve, p->warmup, without refinement): when the solve
// on the slices by segment converged to a motion that fails its validation, or stopped at its
// iteration limit, the same spline
// and variables with one slice more in every segment, solved from x; the motion that
// validates better (fewer failing checks, then the lower worst ratio) is kept, with its
// slices. On the zoo two slices a segment passed the lamp's hops and failed the humanoid's
// broad and vertical jumps by a centre of pressure or a friction right after the start or
// before the take-off; three passed those two (from the two-slice motion: 95 and 49 more
// iterations) and made the lamp's infeasible (docs/performance.md, "The problem zoo").
#define DENSER_MAX_ITERATIONS 300
#define AUTO_REFINE_ROUNDS 4

static salto_status denser(salto_problem_desc* p, salto_nlp** nlp, double* x, const double* start,
                           int judged, int f0, double w0, salto_progress_fn progress, void* user,
                           salto_solve_result* total, salto_refine_result* rr, salto_error* err) {
    const int stopped = !total->converged; // at its iteration limit: any converged one is better
    rr->denser_after_limit = stopped;
    if (!judged && judge(*nlp, x, p, &f0, &w0) != 0) return SALTO_OK;
    if (f0 == 0 && !stopped) {
        rr->final_pass = 1;
        return SALTO_OK;
    }
    const int nx = salto_nlp_nx(*nlp);
    const int sps0 = p->slices_per_segment, ns0 = p->nslice;
    if (salto_problem_align_slices(p, sps0 + 1) > SALTO_MAX_SLICES) return SALTO_OK;
    rr->denser_slices_per_segment = sps0 + 1;
    salto_error ignored = {0};
    salto_nlp* next = salto_nlp_build(p, &ignored);
    double* x1 = next && salto_nlp_nx(next) == nx ? salto_malloc(sizeof(double) * (size_t)nx) : NULL;
    salto_status st = SALTO_OK;
    int keep = 0;
    if (x1) {
        // the same spline and variables. From the motion when it converged; when it stopped at
        // its iteration limit, its path had wandered (the back tuck: from the coarse solution
        // to an objective 20 times higher, then 1,000 iterations creeping back down), so from
        // where that solve started, the coarse solution (start), with the full iterations
        memcpy(x1, stopped && start ? start : x, sizeof(double) * (size_t)nx);
        salto_solve_result r;
        memset(&r, 0, sizeof r);
        // at most DENSER_MAX_ITERATIONS from a converged motion: from a motion that nearly
        // holds, the zoo's kept ones took 49-189; those that were not kept ran to 300-1000 (up
        // to a minute)
        st = solve_freeing(next, x1, NULL, 0, stopped && start ? 0 : DENSER_MAX_ITERATIONS, progress,
                           user, &r, NULL, err);
        if (st == SALTO_OK) {
            add_result(total, &r);
            rr->denser_iterations = r.iterations;
            rr->denser_elapsed = r.elapsed;
            memcpy(rr->denser_status, r.status_name, sizeof rr->denser_status);
            int f1 = 0;
            double w1 = 0.0;
            keep = r.converged && judge(next, x1, p, &f1, &w1) == 0 &&
                   (stopped || f1 < f0 || (f1 == f0 && w1 < w0));
            rr->denser_kept = keep;
            if (keep) rr->final_pass = f1 == 0;
            if (keep) take_verdict(total, &r);
        }
    } else if (ignored.status == SALTO_ERR_NOMEM) {
        st = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    if (keep) {
        // the problem's overrides say so, for motion.json's "set": salto validate and play load
        // the problem again with them (the knots by spacing stated too, or the slices alone
        // would leave the default spline; not where the knots per phase were set apart, as a
        // free duration's second stage sets them: no spacing gives those, and salto validate
        // and play fit the motion's own, app_motion.c)
        char a[64], b[64];
        const int with_ks = !p->knots_pinned;
        snprintf(a, sizeof a, "spline.knot_spacing=%.12g", p->knot_spacing);
        snprintf(b, sizeof b, "spline.slices_per_segment=%d", p->slices_per_segment);
        char** grown = salto_malloc(sizeof(char*) * (size_t)(p->nset + 2));
        char* sa = with_ks ? salto_strdup(a) : NULL;
        char* sb = salto_strdup(b);
        if (!grown || (with_ks && !sa) || !sb) {
            salto_free(grown), salto_free(sa), salto_free(sb);
            st = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        } else {
            for (int k = 0; k < p->nset; k++) grown[k] = p->set[k];
            if (with_ks) grown[p->nset++] = sa;
            grown[p->nset++] = sb;
            salto_free(p->set);
            p->set = grown;
        }
        memcpy(x, x1, sizeof(double) * (size_t)nx);
        salto_nlp_destroy(*nlp);
        *nlp = next;
        next = NULL;
    } else {
        p->slices_per_segment = sps0, p->nslice = ns0;
    }
    salto_free(x1);
    salto_nlp_destroy(next);
    return st;
}


// Back to earlier slices (et, ep: ne of them, owned from here on) and a motion on them (x0):
// the problem's slices replaced, its NLP rebuilt on them, x0 into x
static salto_status back_to(salto_problem_desc* p, double* et, int* ep, int ne, salto_nlp** nlp,
                            double* x, const double* x0, salto_error* err) {
    salto_free(p->extra_t), salto_free(p->extra_ph);
    p->extra_t = et, p->extra_ph = ep, p->nextra = ne;
    salto_nlp* back = salto_nlp_build(p, err);
    if (!back) return err->status ? err->status : SALTO_ERR_NOMEM;
    salto_nlp_destroy(*nlp);
    *nlp = back;
    memcpy(x, x0, sizeof(double) * (size_t)salto_nlp_nx(back));
    return SALTO_OK;
}


salto_status salto_solve_first(const salto_problem_desc* p, salto_nlp* nlp, double* x,
                               salto_progress_fn progress, void* user, salto_solve_result* result,
                               salto_solve_result* coarse, salto_error* err) {
    return salto_solve_first_mult(p, nlp, x, NULL, progress, user, result, coarse, err);
}


salto_status salto_solve_first_mult(const salto_problem_desc* p, salto_nlp* nlp, double* x,
                                    salto_multipliers* mult, salto_progress_fn progress, void* user,
                                    salto_solve_result* result, salto_solve_result* coarse,
                                    salto_error* err) {
    salto_solve_result wr;
    salto_status st = warmup(p, nlp, x, progress, user, &wr, err);
    if (coarse) *coarse = wr;
    if (st != SALTO_OK) return st;
    st = solve_freeing(nlp, x, mult, 0, 0, progress, user, result, NULL, err);
    add_result(result, &wr);
    return st;
}


salto_status salto_solve_refined(salto_problem_desc* p, salto_nlp** nlp, double* x,
                                 salto_progress_fn progress, void* user, salto_solve_result* result,
                                 salto_refine_result* rr, salto_error* err) {
    memset(rr, 0, sizeof *rr);
    const int nx = salto_nlp_nx(*nlp);
    salto_solve_result wr;
    salto_status wst = warmup(p, *nlp, x, progress, user, &wr, err);
    if (wst != SALTO_OK) return wst;
    // where the solve on the final spline starts (the coarse solution, after a warm-up)
    double* start = p->warmup ? salto_malloc(sizeof(double) * (size_t)nx) : NULL;
    if (start) memcpy(start, x, sizeof(double) * (size_t)nx);
    rr->warmup_iterations = wr.iterations;
    rr->warmup_elapsed = wr.elapsed;
    memcpy(rr->warmup_status, wr.status_name, sizeof rr->warmup_status);
    const int refine_asked = p->solver.refine > 0 && p->physics;
    // The default pipeline (a coarse first solve, slices by segment, no refinement asked for):
    // a converged motion that fails its validation is first refined, up to AUTO_REFINE_ROUNDS
    // rounds (warm-started at the places it fails); if that does not make it pass, it goes
    // back to that motion and on to the denser solve (below)
    // (free durations: the motion is in nominal time, which validation does not read:
    // salto_solve_timed pins them first)
    int nfree = 0;
    for (int i = 0; i < p->nphase; i++) nfree += p->phases[i].dur_free && p->phases[i].dur_min < p->phases[i].dur_max;
    const int auto_ok = !refine_asked && p->physics && p->warmup && p->slices_per_segment > 0 &&
                        p->nextra == 0 && nfree == 0;
    int refine = refine_asked && nfree == 0, rounds_cap = p->solver.refine;
    const int ne_start = p->nextra;
    // the multipliers, for the re-solves' warm starts
    salto_multipliers mu = {NULL, NULL, NULL};
    if (refine || auto_ok) {
        mu.g = salto_malloc(sizeof(double) * (size_t)(salto_nlp_ng(*nlp) + 1));
        mu.x_lo = salto_malloc(sizeof(double) * (size_t)nx);
        mu.x_hi = salto_malloc(sizeof(double) * (size_t)nx);
        if (!mu.g || !mu.x_lo || !mu.x_hi) {
            salto_free(mu.g), salto_free(mu.x_lo), salto_free(mu.x_hi), salto_free(start);
            return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
        }
    }
    salto_status st = solve_freeing(*nlp, x, refine || auto_ok ? &mu : NULL, 0, 0, progress, user,
                                    result, rr, err);
    rr->first_iterations = result->iterations;
    rr->first_elapsed = result->elapsed;
    add_result(result, &wr); // the totals count the first solve on the coarse spline
    // the first motion's verdict (the denser solve's too), and the motion kept for it
    int judged = 0, f_first = 0, auto_cap = 0;
    double w_first = 0.0;
    double* first_x = NULL;
    if (st == SALTO_OK && auto_ok && result->converged) {
        const double t0 = salto_now();
        judged = judge(*nlp, x, p, &f_first, &w_first) == 0;
        result->elapsed += salto_now() - t0;
        rr->final_pass = judged && f_first == 0;
        if (judged && f_first > 0) {
            first_x = salto_malloc(sizeof(double) * (size_t)nx);
            if (first_x) {
                memcpy(first_x, x, sizeof(double) * (size_t)nx);
                refine = 1;
                rounds_cap = AUTO_REFINE_ROUNDS;
                rr->auto_refined = 1;
                // each re-solve from its warm start at most as long as the denser solve: a
                // refinement that helps converges well within it (the leap's 1 re-solve, the
                // lamp's and the back tuck's), one that does not can run for minutes (the zoo's
                // back layout: 7,300 iterations, 31 s, uncapped)
                if (p->solver.refine_max_iterations == 0) {
                    p->solver.refine_max_iterations = DENSER_MAX_ITERATIONS;
                    auto_cap = 1;
                }
            }
        }
    }
    salto_validate_opts o;
    salto_validate_opts_from_problem(&o, p);
    o.integrator = SALTO_INTEGRATOR_NONE;
    salto_solve_result total = *result;
    // the best motion seen (the lowest worst ratio), kept with its slices and statistics: a
    // round's new slices can move the optimum somewhere worse (the back tuck, refined at a
    // quarter of the thresholds, ended at 18 of 30 checks from 27)
    double* best_x = NULL;
    double* best_et = NULL;
    int* best_ep = NULL;
    int best_ne = -1, best_pending = 0;
    double best_ratio = INFINITY;
    salto_solve_result best_res = total;
    for (int round = 0; st == SALTO_OK && result->converged && refine; round++) {
        const double t0 = salto_now();
        places q = {0, NULL, NULL, NULL};
        double worst = 0.0;
        st = scan(p, *nlp, x, &o, &q, &worst, err);
        total.elapsed += salto_now() - t0;
        if (st != SALTO_OK) break;
        rr->worst_ratio = worst;
        rr->pending = q.n;
        if (rr->nscan < (int)(sizeof rr->scan_worst / sizeof rr->scan_worst[0])) {
            rr->scan_worst[rr->nscan++] = worst;
        }
        const double before = best_ratio;
        if (worst < best_ratio) {
            if (!best_x) best_x = salto_malloc(sizeof(double) * (size_t)nx);
            double* et = salto_malloc(sizeof(double) * (size_t)(p->nextra + 1));
            int* ep = salto_malloc(sizeof(int) * (size_t)(p->nextra + 1));
            if (!best_x || !et || !ep) {
                salto_free(et), salto_free(ep), places_free(&q);
                st = SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
                break;
            }
            memcpy(best_x, x, sizeof(double) * (size_t)nx);
            if (p->nextra > 0) {
                memcpy(et, p->extra_t, sizeof(double) * (size_t)p->nextra);
                memcpy(ep, p->extra_ph, sizeof(int) * (size_t)p->nextra);
            }
            salto_free(best_et), salto_free(best_ep);
            best_et = et, best_ep = ep, best_ne = p->nextra;
            best_ratio = worst, best_pending = q.n, best_res = total;
        }
        if (q.n == 0 || round == rounds_cap || rr->failed) {
            places_free(&q);
            break;
        }
        // on a spline by knot spacing (the default), a round that did not lower the worst
        // violation ends the refinement: its slices moved the optimum no closer (the best
        // motion is restored below). Not with control points given: the back tuck's former
        // file (30 control points, six rounds) got worse before it got better (22 of 32 checks
        // stopped there, 29 of 32 through all six, with OpenBLAS's Haswell kernels)
        if (p->knot_spacing > 0.0 && round > 0 && !(worst < before)) {
            rr->stalled = 1;
            places_free(&q);
            break;
        }
        // the time budget (solver.refine_time): no round starts past it
        if (p->solver.refine_time > 0.0 && total.elapsed >= p->solver.refine_time) {
            rr->out_of_time = 1;
            places_free(&q);
            break;
        }
        // all the places; if that re-solve fails, the worst alone (halving step by step instead
        // cost the dismount 17 re-solves, 14 of them failing, for no better a motion)
        int added = 0, ok = 0, tried = 0;
        for (int k = q.n; k >= 1 && st == SALTO_OK && !ok; k = k > 1 ? 1 : 0) {
            salto_solve_result r;
            memset(&r, 0, sizeof r);
            st = try_places(p, nlp, x, &mu, &q, k, progress, user, &r, &added, &ok, err);
            if (r.status_name[0]) {
                add_result(&total, &r);
                rr->rounds++;
                rr->refine_iterations += r.iterations;
                tried = 1;
            }
            if (ok) {
                rr->added += added;
                total.status = r.status;
                memcpy(total.status_name, r.status_name, sizeof total.status_name);
                total.objective = r.objective;
                total.max_violation = r.max_violation;
                total.worst_row = r.worst_row;
            } else if (st == SALTO_OK && r.status_name[0]) {
                rr->undone++;
                memcpy(rr->failed_status, r.status_name, sizeof rr->failed_status);
            }
            if (!r.status_name[0]) break; // nothing new to add
        }
        places_free(&q);
        if (!ok && (!tried || st != SALTO_OK)) break;
        if (!ok) rr->failed = 1; // even the worst place alone: stop after one more scan
    }
    if (st == SALTO_OK && best_ne >= 0 && best_ratio < rr->worst_ratio) {
        // back to the best motion: its slices, its NLP, its statistics (the work done since
        // counted in the totals)
        st = back_to(p, best_et, best_ep, best_ne, nlp, x, best_x, err);
        best_et = NULL, best_ep = NULL;
        if (st == SALTO_OK) {
            rr->added = best_ne - ne_start;
            rr->worst_ratio = best_ratio;
            rr->pending = best_pending;
            rr->kept_earlier = 1;
            total.status = best_res.status;
            memcpy(total.status_name, best_res.status_name, sizeof total.status_name);
            total.objective = best_res.objective;
            total.max_violation = best_res.max_violation;
            total.worst_row = best_res.worst_row;
        }
    }
    salto_free(best_x), salto_free(best_et), salto_free(best_ep);
    salto_free(mu.g), salto_free(mu.x_lo), salto_free(mu.x_hi);
    if (auto_cap) p->solver.refine_max_iterations = 0;
    // the automatic refinement: kept when its motion passes; else back to the first motion,
    // its slices and NLP, for the denser solve
    int denser_ok = !refine;
    if (st == SALTO_OK && first_x) {
        int f1 = 0;
        double w1 = 0.0;
        const double t0 = salto_now();
        const int ok = judge(*nlp, x, p, &f1, &w1) == 0 && f1 == 0;
        total.elapsed += salto_now() - t0;
        rr->final_pass = ok;
        if (!ok) {
            st = back_to(p, NULL, NULL, ne_start, nlp, x, first_x, err);
            rr->auto_undone = denser_ok = st == SALTO_OK;
        }
    }
    salto_free(first_x);
    // (after a converged solve, or one that did not converge: stopped at its iteration limit
    // (the Prescott kernels left the zoo's squat jump there, 33 of 34 checks) or by a failed
    // restoration (the test drop's ballistic fall, its point feasible to 1e-6); the denser
    // solve then starts from the coarse solution)
    if (st == SALTO_OK && p->warmup && denser_ok && p->slices_per_segment > 0 && p->nextra == 0) {
        st = denser(p, nlp, x, start, judged, f_first, w_first, progress, user, &total, rr, err);
    }
    salto_free(start);
    *result = total;
    return st;
}


// q (p's file loaded again, as many phases) on p's spline: the same knots per phase (the
// default spline shares them by duration) and control points, pinned apart from the spacing
// (knots_pinned), so that p's control points carry over as they are. -1 when memory runs out
// (q unchanged).
static int pin_knots(salto_problem_desc* q, const salto_problem_desc* p) {
    if (!q->phase_knots) {
        q->phase_knots = salto_malloc(sizeof(int) * (size_t)p->nphase);
        if (!q->phase_knots) return -1;
    }
    salto_problem_knot_counts(p, q->phase_knots);
    q->ncp = p->ncp;
    q->knots_pinned = 1;
    return 0;
}


// A retry's outcome (the finer and the turned solves): judged when it converged (its failing
// checks into *failed, -1 when not judged), kept when it validates better than the motion
// before it (fewer failing checks, then the lower worst ratio; any converged one when that one
// did not converge), its result added to result; kept, its problem, NLP and x replace *pp, *pn
// and *px (and its verdict result's), else they are released. Returns 1 when kept.
static int adopt_retry(salto_problem_desc** pp, salto_nlp** pn, double** px, salto_problem_desc* q,
                       salto_nlp* nq, double* xq, salto_status st, const salto_solve_result* r,
                       int failing, double worst, salto_solve_result* result, int* failed) {
    int keep = 0;
    *failed = -1;
    if (st == SALTO_OK && r->converged) {
        int f2 = 0;
        double w2 = 0.0;
        if (judge(nq, xq, q, &f2, &w2) == 0) {
            *failed = f2;
            keep = !result->converged || f2 < failing || (f2 == failing && w2 < worst);
        }
    }
    add_result(result, r);
    if (keep) {
        take_verdict(result, r);
        salto_nlp_destroy(*pn);
        salto_problem_destroy(*pp);
        salto_free(*px);
        *pp = q, *pn = nq, *px = xq;
    } else {
        salto_free(xq), salto_nlp_destroy(nq), salto_problem_destroy(q);
    }
    return keep;
}


// The finer solve: a converged motion on the default spline that fails its validation, after
// refinement and the denser solve, solved again on knots half as far apart, the whole pipeline
// from its motion (no coarse solve); kept if it validates better (fewer failing checks, then a
// lower worst ratio). The zoo's front tuck failed 3 of 32 checks at the take-off's centre of
// pressure on knots 0.05 s apart (the ground's force swinging by kilonewtons within a segment,
// its cubic pieces too stiff to follow, more slices only making it infeasible) and passes
// 32 of 32 on knots 0.025 s apart. Nothing changes for a motion that passes.
static salto_status finer(salto_problem_desc** pp, salto_nlp** pn, double** px,
                          salto_progress_fn progress, void* user, salto_solve_result* result,
                          salto_refine_result* rr, salto_error* err) {
    salto_problem_desc* p = *pp;
    if (!p->warmup || !(p->knot_spacing > 0.0) || !p->physics || !p->path || p->solver.refine > 0 ||
        !result->converged || rr->final_pass) {
        return SALTO_OK;
    }
    int failing = 0;
    double worst = 0.0;
    if (judge(*pn, *px, p, &failing, &worst) != 0 || failing == 0) return SALTO_OK;
    const double h = 0.5 * p->knot_spacing;
    char ks[64];
    snprintf(ks, sizeof ks, "spline.knot_spacing=%.12g", h);
    const char** set = salto_malloc(sizeof(char*) * (size_t)(p->nset + 1));
    if (!set) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    int ns = 0;
    for (int k = 0; k < p->nset; k++) {
        // the knots' and slices' own overrides (a denser solve's) give way to these
        if (strncmp(p->set[k], "spline.knot_spacing=", 20) == 0) continue;
        if (strncmp(p->set[k], "spline.slices_per_segment=", 26) == 0) continue;
        set[ns++] = p->set[k];
    }
    set[ns++] = ks;
    salto_error ignored = {0};
    salto_problem_desc* q = salto_problem_load_set(p->path, ns, set, &ignored);
    salto_free(set);
    if (!q) return ignored.status == SALTO_ERR_NOMEM ? SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory") : SALTO_OK;
    if (salto_problem_inherit_turn(q, p) != 0) { // a turned solve's chart, kept
        salto_problem_destroy(q);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    for (int i = 0; i < p->nphase; i++) q->phases[i].dur_lo = p->phases[i].dur_lo, q->phases[i].dur_hi = p->phases[i].dur_hi;
    q->skip_warmup = 1;
    salto_nlp* nq = salto_nlp_build(q, &ignored);
    double* xq = nq ? salto_malloc(sizeof(double) * (size_t)salto_nlp_nx(nq)) : NULL;
    salto_motion* mo = xq ? salto_motion_from_nlp(*pn, *px) : NULL;
    if (!mo) {
        salto_free(xq), salto_nlp_destroy(nq), salto_problem_destroy(q);
        // the finer spline over the memory limit (budget.h): not tried, the motion stays
        if (!nq && ignored.status && ignored.status != SALTO_ERR_NOMEM) return SALTO_OK;
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    salto_nlp_guess_from_motion(nq, mo, xq);
    salto_motion_destroy(mo);
    salto_solve_result r;
    salto_refine_result rq;
    salto_status st = salto_solve_refined(q, &nq, xq, progress, user, &r, &rq, err);
    rr->finer_iterations = r.iterations;
    rr->finer_elapsed = r.elapsed;
    rr->finer_spacing = h;
    snprintf(rr->finer_status, sizeof rr->finer_status, "%s", r.status_name);
    rr->finer_failing[0] = failing;
    rr->finer_kept = adopt_retry(pp, pn, px, q, nq, xq, st, &r, failing, worst, result, &rr->finer_failing[1]);
    if (rr->finer_kept) rr->final_pass = rq.final_pass;
    return st == SALTO_ERR_NOMEM ? st : SALTO_OK;
}


// The turned solve: a motion that fails its validation, or did not converge, while its root
// comes within 30 deg of the Euler chart's singular set (the middle angle past 60 deg, where
// the angles cannot follow a turn about the lost direction: a turn about the vertical lying
// flat, in the default [y, x, z] chart), solved again with the root's angles in a turned chart
// (salto_problem_turn_root, the reference keeping the motion farthest from that chart's
// singular set: salto_euler_reference), from its motion, with its knots and no coarse solve;
// kept if it validates better. Nothing changes for a motion that passes or keeps away.
#define TURNED_SAMPLES 400

typedef struct turn_path {
    int n;
    double dt;
    const double* q;  // n x 3: the angles in the turned chart at k dt
    const double* qd; // n x 3: their rates
} turn_path;


static void turn_path_at(void* ctx, double t, double q[3], double qd[3]) {
    const turn_path* tp = ctx;
    double u = t / tp->dt;
    u = u < 0 ? 0 : u > tp->n - 1 ? tp->n - 1 : u;
    const int k = (int)u < tp->n - 1 ? (int)u : tp->n - 2;
    const double f = u - k;
    for (int a = 0; a < 3; a++) {
        q[a] = (1 - f) * tp->q[3 * k + a] + f * tp->q[3 * (k + 1) + a];
        qd[a] = (1 - f) * tp->qd[3 * k + a] + f * tp->qd[3 * (k + 1) + a];
    }
}


static salto_status turned(salto_problem_desc** pp, salto_nlp** pn, double** px,
                           salto_progress_fn progress, void* user, salto_solve_result* result,
                           salto_refine_result* rr, salto_error* err) {
    salto_problem_desc* p = *pp;
    int o[3];
    if (!p->physics || !p->path || p->root_turned || !salto_root_order(p->model, o)) return SALTO_OK;
    int failing = INT_MAX;
    double worst = INFINITY;
    if (result->converged && rr->final_pass) return SALTO_OK;
    if (result->converged && (judge(*pn, *px, p, &failing, &worst) != 0 || failing == 0)) return SALTO_OK;
    // the root's orientations along the motion, in the character's chart and a turned one
    const int n = TURNED_SAMPLES;
    const int nv = p->model->nv;
    double* R = salto_malloc(sizeof(double) * (size_t)(9 * n + 9 * n + 2 * nv));
    if (!R) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    double* qt = R + 9 * n;   // the turned chart's angles (n x 3)
    double* qdt = qt + 3 * n; //   and their rates (n x 3)
    double* cq = qdt + 3 * n; // the character chart's rates (n x 3)
    double* q = cq + 3 * n;
    double* qd = q + nv;
    const double dt = p->duration / (n - 1);
    double tilt0 = 0.0, B[9];
    for (int k = 0; k < n; k++) {
        salto_nlp_state(*pn, *px, fmin(k * dt, p->duration), q, qd, NULL);
        salto_euler_matrix(o, q + 3, R + 9 * k);
        memcpy(qt + 3 * k, q + 3, 3 * sizeof(double)); // the character's angles, for now
        memcpy(cq + 3 * k, qd + 3, 3 * sizeof(double));
        tilt0 = fmax(tilt0, salto_euler_tilt(o, NULL, R + 9 * k));
    }
    const double tilt1 = tilt0 > 0.866 ? salto_euler_reference(o, R, n, B) : 1.0;
    if (!(tilt0 > 0.866) || !(tilt1 < 0.866)) {
        salto_free(R);
        return SALTO_OK;
    }
    // the turned chart's angles along the motion (from the principal ones at the start, each
    // the set nearest the last's): the turns its poses keep
    double anchor[3];
    memcpy(anchor, qt, sizeof anchor);
    for (int k = 0; k < n; k++) {
        double a[3], ad[3];
        salto_euler_rechart(o, NULL, B, qt + 3 * k, cq + 3 * k, NULL, k ? qt + 3 * (k - 1) : NULL, a, ad, NULL);
        memcpy(qt + 3 * k, a, sizeof a);
        memcpy(qdt + 3 * k, ad, sizeof ad);
    }
    turn_path tp = {n, dt, qt, qdt};
    // the problem again, as solved, with the same knots, turned
    salto_error ignored = {0};
    salto_problem_desc* q2 = salto_problem_load_set(p->path, p->nset, (const char* const*)p->set, &ignored);
    const int pinned = q2 && q2->nphase == p->nphase && pin_knots(q2, p) == 0;
    if (!pinned || salto_problem_turn_root(q2, B, anchor, turn_path_at, &tp, &ignored) != SALTO_OK) {
        const int nomem = ignored.status == SALTO_ERR_NOMEM || (q2 && q2->nphase == p->nphase && !pinned);
        salto_free(R), salto_problem_destroy(q2);
        return nomem ? SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory") : SALTO_OK;
    }
    salto_free(R);
    for (int i = 0; i < p->nphase; i++) q2->phases[i].dur_lo = p->phases[i].dur_lo, q2->phases[i].dur_hi = p->phases[i].dur_hi;
    // from the motion when it converged; else from the initial guess in the turned chart (its
    // poses' interpolation there), through the coarse first solve as the file's own
    q2->skip_warmup = result->converged;
    salto_nlp* nq = salto_nlp_build(q2, &ignored);
    double* xq = nq ? salto_malloc(sizeof(double) * (size_t)salto_nlp_nx(nq)) : NULL;
    salto_motion* mo = xq && result->converged ? salto_motion_from_nlp(*pn, *px) : NULL;
    if (!xq || (result->converged && !mo)) {
        salto_free(xq), salto_nlp_destroy(nq), salto_problem_destroy(q2);
        return ignored.status && ignored.status != SALTO_ERR_NOMEM ? SALTO_OK : SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    if (mo) {
        salto_nlp_guess_from_motion(nq, mo, xq);
    } else {
        salto_nlp_initial_guess(nq, xq);
    }
    salto_motion_destroy(mo);
    salto_solve_result r;
    salto_refine_result rq;
    salto_status st = salto_solve_refined(q2, &nq, xq, progress, user, &r, &rq, err);
    rr->turned_iterations = r.iterations;
    rr->turned_elapsed = r.elapsed;
    rr->turned_tilt[0] = tilt0;
    rr->turned_tilt[1] = tilt1;
    snprintf(rr->turned_status, sizeof rr->turned_status, "%s", r.status_name);
    rr->turned_failing[0] = failing == INT_MAX ? -1 : failing;
    rr->turned_kept = adopt_retry(pp, pn, px, q2, nq, xq, st, &r, failing, worst, result, &rr->turned_failing[1]);
    if (rr->turned_kept) rr->final_pass = rq.final_pass;
    return st == SALTO_ERR_NOMEM ? st : SALTO_OK;
}


// the finer solve, then the turned one (from the finer motion when that was kept: on the
// aerial cartwheel turned 20 and 45 deg off the x axis, this order passed both, the other
// only the 45 deg one)
static salto_status finer_turned(salto_problem_desc** pp, salto_nlp** pn, double** px,
                                 salto_progress_fn progress, void* user, salto_solve_result* result,
                                 salto_refine_result* rr, salto_error* err) {
    const salto_status st = finer(pp, pn, px, progress, user, result, rr, err);
    return st == SALTO_OK ? turned(pp, pn, px, progress, user, result, rr, err) : st;
}


salto_status salto_solve_timed(salto_problem_desc** pp, salto_nlp** pn, double** px,
                               salto_progress_fn progress, void* user, salto_solve_result* result,
                               salto_refine_result* rr, salto_error* err) {
    salto_problem_desc* p = *pp;
    int nfree = 0;
    for (int i = 0; i < p->nphase; i++) nfree += p->phases[i].dur_free && p->phases[i].dur_min < p->phases[i].dur_max;
    if (nfree == 0 || !p->path) {
        const salto_status st = salto_solve_refined(p, pn, *px, progress, user, result, rr, err);
        return st == SALTO_OK ? finer_turned(pp, pn, px, progress, user, result, rr, err) : st;
    }
    // the first stage: the durations free
    salto_solve_result ra;
    salto_status st = salto_solve_first(p, *pn, *px, progress, user, &ra, NULL, err);
    if (st != SALTO_OK) {
        memset(rr, 0, sizeof *rr);
        *result = ra;
        return st;
    }
    // the problem again, each free duration pinned where the first stage took it
    const int n = p->nset + 3 * p->nphase;
    const char** set = salto_malloc(sizeof(char*) * (size_t)(n + 1));
    // each override "phases.NAME.duration.initial=%.17g": the name plus at most 64 characters
    size_t bytes = 1;
    for (int i = 0; i < p->nphase; i++) bytes += 3 * (strlen(p->phases[i].name) + 64);
    char* buf = salto_malloc(bytes);
    if (!set || !buf) {
        salto_free(set), salto_free(buf);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    int ns = 0;
    for (int k = 0; k < p->nset; k++) set[ns++] = p->set[k];
    for (int i = 0, at = 0; i < p->nphase; i++) {
        if (!p->phases[i].dur_free) continue;
        const double d = salto_nlp_phase_duration(*pn, *px, i);
        static const char* const key[3] = {"min", "max", "initial"};
        for (int k = 0; k < 3; k++) {
            const int w = snprintf(buf + at, bytes - (size_t)at, "phases.%s.duration.%s=%.17g",
                                   p->phases[i].name, key[k], d);
            set[ns++] = buf + at;
            at += w + 1;
        }
    }
    salto_problem_desc* q = salto_problem_load_set(p->path, ns, set, err);
    salto_free(set), salto_free(buf);
    if (!q) return err->status ? err->status : SALTO_ERR_INVALID;
    // the same knots per phase as the first stage's spline, so that its control points carry
    // over as they are
    if (pin_knots(q, p)) {
        salto_problem_destroy(q);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    for (int i = 0; i < p->nphase; i++) {
        q->phases[i].dur_lo = p->phases[i].dur_min;
        q->phases[i].dur_hi = p->phases[i].dur_max;
    }
    q->skip_warmup = 1;
    salto_nlp* nq = salto_nlp_build(q, err);
    double* xq = nq ? salto_malloc(sizeof(double) * (size_t)salto_nlp_nx(nq)) : NULL;
    if (!xq) {
        salto_nlp_destroy(nq);
        salto_problem_destroy(q);
        return nq ? SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory") : err->status;
    }
    if (salto_nlp_nx(nq) == salto_nlp_nx(*pn)) {
        memcpy(xq, *px, sizeof(double) * (size_t)salto_nlp_nx(nq));
    } else {
        salto_nlp_guess_from_solution(nq, *pn, *px, xq);
    }
    // the second stage: pinned, refined and validated in real time
    st = salto_solve_refined(q, &nq, xq, progress, user, result, rr, err);
    rr->timed = 1;
    rr->timed_iterations = ra.iterations;
    rr->timed_elapsed = ra.elapsed;
    snprintf(rr->timed_status, sizeof rr->timed_status, "%s", ra.status_name);
    if (st == SALTO_OK) add_result(result, &ra);
    salto_nlp_destroy(*pn);
    salto_problem_destroy(*pp);
    salto_free(*px);
    *pp = q, *pn = nq, *px = xq;
    return st == SALTO_OK ? finer_turned(pp, pn, px, progress, user, result, rr, err) : st;
}
