// bench_adaptive.c: salto bench adaptive: Redon et al.'s 300-link pendulum, stepped by ABA, by
// the divide-and-conquer algorithm and by adaptive dynamics with 300 to 1 active joints, beside
// MuJoCo stepping the same chain
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#include "bench.h"
#include "draw.h"
#include "cmds.h"
#include "salto/character.h"
#include "salto/dca.h"
#include "salto/dynamics.h"
#include "salto/export.h"
#include "salto/kinematics.h"
#include "salto/model.h"
#include "salto/sim.h"
#include "salto/spatial.h"

enum { ABA = 0, DCA, ADAPTIVE, MUJOCO };

// |x - y| of two points
static double dist3(const double* x, const double* y) {
    const double v[3] = {x[0] - y[0], x[1] - y[1], x[2] - y[2]};
    return salto_v3_norm(v);
}

typedef struct pend_ctx {
    const salto_model* m;
    salto_data* d;
    salto_dca* a;
    int method, budget, steps, period;
    mjModel* mm;
    mjData* md;
    double h;
    salto_status status;
    // the adaptive rows' batches start from the state one step after the release (the first
    // region update, which stops most joints at once, is not a step's typical cost): q, qd and
    // the active bodies then (NULL: from the release)
    double* q1;
    double* qd1;
    unsigned char* act1;
} pend_ctx;


// the pendulum released straight, its first joint at 1.5 rad, every joint active
static void pend_start(pend_ctx* c) {
    memset(c->d->q, 0, sizeof(double) * (size_t)c->m->nv);
    memset(c->d->qd, 0, sizeof(double) * (size_t)c->m->nv);
    memset(c->d->tau, 0, sizeof(double) * (size_t)c->m->nv);
    c->d->q[0] = 1.5;
    if (c->a) salto_dca_set_active(c->a, NULL);
    if (c->md) {
        mj_resetData(c->mm, c->md);
        c->md->qpos[0] = 1.5;
    }
}


static void pend_step(pend_ctx* c) {
    const int nv = c->m->nv;
    salto_data* d = c->d;
    if (c->method == MUJOCO) {
        mj_step(c->mm, c->md);
        return;
    }
    if (c->method == ADAPTIVE) {
        const salto_adaptive_opts o = {c->budget, 0.0, 0.0, c->period};
        c->status = salto_dca_adaptive_step(c->a, d, NULL, c->h, &o, NULL);
        return;
    }
    c->status = c->method == ABA ? salto_aba(c->m, d, NULL) : salto_dca_forward(c->a, d, NULL);
    for (int j = 0; j < nv; j++) d->qd[j] += c->h * d->qdd[j], d->q[j] += c->h * d->qd[j];
}


// a timed call: from the release (or the adaptive rows' first step), steps steps
static void pend_run(void* ctx) {
    pend_ctx* c = ctx;
    if (c->q1) {
        memcpy(c->d->q, c->q1, sizeof(double) * (size_t)c->m->nv);
        memcpy(c->d->qd, c->qd1, sizeof(double) * (size_t)c->m->nv);
        // the active set again, so that the region is updated at the batch's first step (with
        // no updates, the hybrid body built once, from the warm-up on, serves on)
        if (c->period < INT_MAX) salto_dca_set_active(c->a, c->act1);
    } else {
        pend_start(c);
    }
    for (int k = 0; k < c->steps; k++) pend_step(c);
}


// the tip's place after n steps from the release
static void pend_tip(pend_ctx* c, int n, double tip[3]) {
    pend_start(c);
    for (int k = 0; k < n; k++) pend_step(c);
    if (c->method == MUJOCO) {
        for (int j = 0; j < c->m->nv; j++) c->d->q[j] = c->md->qpos[j];
    }
    salto_fk(c->m, c->d, SALTO_FK_POS);
    memcpy(tip, c->d->p + 3 * (c->m->nv - 1), 3 * sizeof(double));
}


// a planar pendulum of n links (0.3 m, 1 kg), its DCA and data; NULL members when out of memory
typedef struct pendulum {
    salto_model* m;
    salto_data* d;
    salto_dca* a;
} pendulum;


static int pendulum_make(pendulum* p, int n) {
    salto_error err = {0};
    salto_character_desc* cd = salto_character_chain_axes(n, 0.3, 1.0, "y");
    p->m = cd ? salto_model_build(cd, NULL, &err) : NULL;
    salto_character_destroy(cd);
    p->d = p->m ? salto_data_create(p->m) : NULL;
    p->a = p->m ? salto_dca_create(p->m) : NULL;
    if (p->m && p->d && p->a) return 0;
    fprintf(stderr, "salto bench adaptive: out of memory\n");
    return 1;
}


static void pendulum_free(pendulum* p) {
    salto_dca_destroy(p->a);
    salto_data_destroy(p->d);
    salto_model_destroy(p->m);
}


enum { FULL = 0, TOP, ADAPT };

// Redon et al.'s Figure 6: a 50-link pendulum hanging straight, pulled at link 30 by a spring
// (200 N/m) towards a point 1 m to the side, to its
// equilibrium: its joints damped implicitly (20 N m s: the damping's h c on each DOF's inertia,
// salto_dca_set_armature) and each link by the air (2 N s/m at its centre, explicitly), so that
// the full pendulum settles (joint dampers alone barely damp its slowest mode, the whole chain
// swinging about the top joint). By DCA with every joint active (the full simulation), with the
// first B joints of the assembly tree active (breadth-first, fixed), and by adaptive dynamics
// with a budget of B joints, for B = 5, 8 and 10: where link 30 comes to rest, and how much the
// run still moves at the end.
enum { SPRING_LINKS = 50 };

static salto_status spring_run(int method, int budget, double T, double aside, double at[3],
                               double* moving) {
    const int n = SPRING_LINKS, k = 29;
    const double h = 1e-3, stiff = 200.0, damp = 20.0, drag = 2.0;
    pendulum p;
    if (pendulum_make(&p, n) != 0) {
        pendulum_free(&p);
        return SALTO_ERR_NOMEM;
    }
    const salto_model* m = p.m;
    salto_data* d = p.d;
    double anchor[3], fext[6 * SPRING_LINKS], arm[SPRING_LINKS];
    for (int j = 0; j < n; j++) arm[j] = damp * h;
    salto_dca_set_armature(p.a, arm);
    salto_fk(m, d, SALTO_FK_POS);
    memcpy(anchor, d->p + 3 * k, sizeof anchor);
    anchor[0] += 1.0 + aside;
    if (method == TOP) salto_dca_activate_top(p.a, budget);
    const salto_adaptive_opts o = {budget, 0.0, 0.0, 1};
    salto_status st = SALTO_OK;
    const int steps = (int)lround(T / h);
    for (int s = 0; s < steps && st == SALTO_OK; s++) {
        salto_fk(m, d, SALTO_FK_VEL);
        for (int l = 0; l < n; l++) { // the air on each link's centre c: -drag (v + w x c)
            double c[3], v[3], f[3];
            salto_m3_mul_v3(c, d->R + 9 * l, m->link_inertia + 10 * l + 1);
            for (int t = 0; t < 3; t++) c[t] += d->p[3 * l + t];
            salto_v3_cross(v, d->V + 6 * l, c);
            for (int t = 0; t < 3; t++) f[t] = -drag * (v[t] + d->V[6 * l + 3 + t]);
            salto_point_force(fext + 6 * l, c, f);
        }
        const double* x = d->p + 3 * k;
        const double f[3] = {stiff * (anchor[0] - x[0]), stiff * (anchor[1] - x[1]),
                             stiff * (anchor[2] - x[2])};
        double w[6];
        salto_point_force(w, x, f);
        for (int t = 0; t < 6; t++) fext[6 * k + t] += w[t];
        for (int j = 0; j < m->nv; j++) d->tau[j] = -damp * d->qd[j];
        if (method == ADAPT) {
            st = salto_dca_adaptive_step(p.a, d, fext, h, &o, NULL);
        } else {
            st = salto_dca_forward(p.a, d, fext);
            for (int j = 0; j < m->nv; j++) d->qd[j] += h * d->qdd[j], d->q[j] += h * d->qd[j];
        }
    }
    salto_fk(m, d, SALTO_FK_POS);
    memcpy(at, d->p + 3 * k, 3 * sizeof(double));
    *moving = 0.0;
    for (int j = 0; j < m->nv; j++) *moving += d->qd[j] * d->qd[j];
    pendulum_free(&p);
    return st;
}


// Each run is repeated with the anchor moved aside by 0, 1, 2, 3 and 4 mm (TRIALS; --quick:
// 1), each against the full pendulum with the same anchor, so that a choice of joints that
// only a particular pull gets right shows as a spread: the least, median and most distances.
enum { TRIALS = 5 };

static int spring_experiment(int quick) {
    static const int budgets[3] = {5, 8, 10};
    const double T = quick ? 0.5 : 16.0;
    const int trials = quick ? 1 : TRIALS;
    printf("\nRedon et al.'s Figure 6: a %d-link pendulum held by a spring at link 30 (200 N/m, 1 m "
           "aside), joints damped (20 N m s), links by the air (2 N s/m), %.1f s at 1 ms, %d "
           "trial(s)\n", SPRING_LINKS, T, trials);
    double full[TRIALS][3], start[3], moved, most = 0.0;
    salto_status st = spring_run(FULL, 0, 0.0, 0.0, start, &moved);
    for (int t = 0; t < trials && st == SALTO_OK; t++) {
        st = spring_run(FULL, 0, T, 1e-3 * t, full[t], &moved);
        if (moved > most) most = moved;
    }
    if (st == SALTO_OK) {
        printf("full (DCA, every joint): link 30 ends %.4f m from where it hung, the joints' qd^2 "
               "summed at most %.3g rad^2/s^2\n", dist3(full[0], start), most);
        printf("link 30 from the full pendulum's (m): least, median and most over the trials; the "
               "largest qd^2 summed at the end\n");
        printf("%-14s %26s %12s %26s %12s\n", "active joints", "breadth-first", "qd^2", "adaptive",
               "qd^2");
    }
    for (int b = 0; b < 3 && st == SALTO_OK; b++) {
        double off[2][TRIALS], mv[2] = {0.0, 0.0};
        for (int method = 0; method < 2 && st == SALTO_OK; method++) {
            for (int t = 0; t < trials && st == SALTO_OK; t++) {
                double at[3];
                st = spring_run(method ? ADAPT : TOP, budgets[b], T, 1e-3 * t, at, &moved);
                off[method][t] = dist3(at, full[t]);
                if (moved > mv[method]) mv[method] = moved;
            }
            qsort(off[method], (size_t)trials, sizeof(double), bench_cmp_double);
        }
        if (st != SALTO_OK) break;
        printf("%-14d", budgets[b]);
        for (int method = 0; method < 2; method++) {
            printf(" %8.4f %8.4f %8.4f %12.2g", off[method][0], off[method][trials / 2],
                   off[method][trials - 1], mv[method]);
        }
        printf("\n");
    }
    if (st != SALTO_OK) {
        fprintf(stderr, "salto bench adaptive: the spring experiment failed (status %d)\n", (int)st);
        return 1;
    }
    return 0;
}


// Redon et al.'s Table 1: how many joints adaptive dynamics keeps active as more forces act, at
// a fixed acceleration error: the 300-link pendulum at rest, N_F constant horizontal forces of
// 20 N on links spread along it, an error threshold and no budget; the mean of the active
// joints over 0.1 s
static int forces_experiment(int quick) {
    const int n = quick ? 60 : 300, steps = quick ? 20 : 100;
    const double h = 1e-3, eps = 1e-2;
    printf("\nRedon et al.'s Table 1: active joints against applied forces, %d links, acceleration and "
           "velocity metric thresholds %g and %g, %.2f s\n", n, eps, eps * 1e-3, steps * h);
    printf("%6s %14s %14s\n", "forces", "active (mean)", "active (last)");
    static const int nforces[] = {1, 2, 4, 8, 16};
    for (int c = 0; c < 5; c++) {
        pendulum p;
        if (pendulum_make(&p, n) != 0) {
            pendulum_free(&p);
            return 1;
        }
        double* fext = calloc(6 * (size_t)n, sizeof(double));
        if (!fext) {
            pendulum_free(&p);
            return 1;
        }
        const salto_adaptive_opts o = {n, eps, eps * 1e-3, 1};
        double sum = 0.0;
        salto_adaptive_stats st;
        memset(&st, 0, sizeof st);
        salto_status s = SALTO_OK;
        for (int step = 0; step < steps && s == SALTO_OK; step++) {
            salto_fk(p.m, p.d, SALTO_FK_POS);
            memset(fext, 0, 6 * (size_t)n * sizeof(double));
            for (int f = 0; f < nforces[c]; f++) {
                const int l = (int)(((double)f + 0.5) / nforces[c] * n); // spread along the chain
                const double force[3] = {20.0, 0.0, 0.0};
                salto_point_force(fext + 6 * l, p.d->p + 3 * l, force);
            }
            s = salto_dca_adaptive_step(p.a, p.d, fext, h, &o, &st);
            sum += st.active_joints;
        }
        free(fext);
        pendulum_free(&p);
        if (s != SALTO_OK) {
            fprintf(stderr, "salto bench adaptive: the forces experiment failed (status %d)\n", (int)s);
            return 1;
        }
        printf("%6d %14.1f %14d\n", nforces[c], sum / steps, st.active_joints);
    }
    return 0;
}


// A crowd: n humanoids (data/characters/humanoid22.yaml) standing 1.5 m apart in rows of 20,
// each tracking its standing pose until pushed (300 N along x on its trunk for 0.1 s, the
// times spread over the first 0.5 s) and limp from then on (pushed forward: the root's Euler
// angles, about y, x and z, meet their singularity at a roll of 90 degrees, where a body
// lying on its side can come to rest; the simulation then fails, full or adaptive); the whole crowd stepped at 1 ms,
// each character by a simulator of its own, by the full simulation and with adaptive dynamics
// (a budget of joints a character, chosen every 10 steps; salto_sim_set_adaptive). One
// thread; the CPU time of the run, the active joints (mean over the limp characters' steps),
// and how far the centres of mass end from the full simulation's (mean over the crowd).
static int crowd_experiment(int quick, const char* root, int crowd) {
    const int n = crowd > 0 ? crowd : quick ? 6 : 200, steps = quick ? 400 : 2000;
    const double dt = 1e-3;
    char path[4096];
    snprintf(path, sizeof path, "%s/data/characters/humanoid22.yaml", root);
    salto_error err = {0};
    salto_model* m = salto_model_load(path, &err);
    if (!m) {
        fprintf(stderr, "salto bench adaptive: %s\n", err.msg);
        return 2;
    }
    const int nv = m->nv, trunk = salto_model_body(m, "trunk");
    int tdof[3];
    double axes[3][3];
    const int nt = salto_model_root_translation(m, tdof, axes);
    int joints = 0;
    for (int b = 0; b < m->nbody; b++) joints += m->body_link[b] >= 0;
    printf("\nA crowd: %d humanoid(s) (%d joints, %d DOFs each) standing 1.5 m apart, each pushed "
           "forward (300 N, 0.1 s, in the first 0.5 s) and limp from then, %.1f s at 1 ms, one thread\n",
           n, joints, nv, steps * dt);
    printf("%-30s %14s %10s %11s %15s\n", "method", "active joints", "CPU (s)", "x realtime",
           "COM off (m)");
    salto_sim** sims = calloc((size_t)n, sizeof *sims);
    double* q0 = calloc((size_t)n * nv, sizeof(double));
    double* zero = calloc((size_t)nv, sizeof(double));
    double* com_full = calloc(3 * (size_t)n, sizeof(double));
    salto_data* d = salto_data_create(m);
    int status = sims && q0 && zero && com_full && d && trunk >= 0 && nt >= 2 ? 0 : 1;
    if (status) fprintf(stderr, "salto bench adaptive: the crowd could not be set up\n");
    static const int budgets[3] = {0, 6, 3}; // 0: the full simulation
    for (int row = 0; row < 3 && status == 0; row++) {
        for (int c = 0; c < n && status == 0; c++) {
            double* q = q0 + (size_t)c * nv;
            // the grid, x along the rows, y across, through the root's translation axes
            const double at[3] = {1.5 * (c % 20), 1.5 * (c / 20), 0.0};
            for (int k = 0; k < nt; k++) q[tdof[k]] = salto_v3_dot(axes[k], at);
            sims[c] = salto_sim_create(m, NULL);
            if (!sims[c]) {
                fprintf(stderr, "salto bench adaptive: crowd member %d: out of memory\n", c);
                status = 1;
                break;
            }
            salto_sim_set_state(sims[c], q, zero);
            salto_sim_track(sims[c], q, zero, zero, 400.0, 40.0);
            const salto_adaptive_opts o = {budgets[row], 0.0, 0.0, 10};
            if (budgets[row] > 0 && salto_sim_set_adaptive(sims[c], &o) != 0) {
                fprintf(stderr, "salto bench adaptive: crowd member %d: out of memory\n", c);
                status = 1;
            }
        }
        double active = 0.0;
        long limp_steps = 0;
        const double t0 = salto_cpu_now();
        for (int k = 0; k < steps && status == 0; k++) {
            const double t = k * dt;
            for (int c = 0; c < n; c++) {
                const double push_at = 0.5 * (double)c / n;
                salto_sim_clear_forces(sims[c]);
                if (t >= push_at && t < push_at + 0.1) {
                    const double *R, *x;
                    salto_body_frame(m, salto_sim_data(sims[c]), trunk, &R, &x);
                    const double f[3] = {300.0, 0.0, 0.0};
                    salto_sim_apply_force(sims[c], m->body_link[trunk], f, x);
                }
                if (t >= push_at) salto_sim_track(sims[c], NULL, NULL, NULL, 0.0, 0.0);
                if (salto_sim_step(sims[c], &err) != SALTO_OK) {
                    fprintf(stderr, "salto bench adaptive: crowd member %d: %s\n", c, err.msg);
                    status = 1;
                    break;
                }
                if (t >= push_at) active += salto_sim_active_joints(sims[c]), limp_steps++;
            }
        }
        const double cpu = salto_cpu_now() - t0;
        double off = 0.0;
        for (int c = 0; c < n && status == 0; c++) {
            memcpy(d->q, salto_sim_q(sims[c]), sizeof(double) * (size_t)nv);
            salto_fk(m, d, SALTO_FK_POS);
            salto_link_inertias(m, d);
            double com[3];
            salto_com(m, d, com, NULL);
            if (row == 0) memcpy(com_full + 3 * c, com, sizeof com);
            off += dist3(com, com_full + 3 * c);
        }
        for (int c = 0; c < n; c++) salto_sim_destroy(sims[c]), sims[c] = NULL;
        memset(q0, 0, sizeof(double) * (size_t)n * nv);
        if (status) break;
        char name[64];
        if (budgets[row] == 0) {
            snprintf(name, sizeof name, "full");
        } else {
            snprintf(name, sizeof name, "adaptive, %d joints each", budgets[row]);
        }
        printf("%-30s %14.2f %10.2f %11.2f %15.3f\n", name, limp_steps ? active / limp_steps : 0.0, cpu,
               steps * dt / cpu, off / n);
    }
    free(sims), free(q0), free(zero), free(com_full);
    salto_data_destroy(d);
    salto_model_destroy(m);
    return status;
}


// Redon et al.'s Figure 5: the 300-link pendulum (60 with --quick) released at 1.5 rad and
// simulated with every joint, 50 and 5 active (adaptive dynamics, a region update every 20
// steps), drawn at six times side by side, one row each; the active joints as red dots. PNG,
// written atomically.
static int figure5(const char* path, int quick) {
    const int n = quick ? 60 : 300, nshot = 6, rows = 3;
    const int budgets[3] = {n, quick ? 10 : 50, 5};
    const int every = quick ? 60 : 1500; // steps between pictures (1 ms steps)
    const int pw = 260, ph = 300, left = 70, top = 40;
    salto_error err = {0};
    cairo_t* cr = salto_draw_canvas(left + nshot * pw, top + rows * ph, path, &err);
    if (!cr) {
        fprintf(stderr, "salto bench adaptive: %s\n", err.msg);
        return 1;
    }
    // the base at the top of each panel: the chain reaches 0.3 n to either side and below
    const double reach = 0.3 * n, sx = 0.9 * pw / (2.0 * reach), sz = 0.9 * (ph - 30) / reach;
    const double scale = sx < sz ? sx : sz;
    unsigned char* act = malloc((size_t)n);
    int status = act ? 0 : 1;
    for (int row = 0; row < rows && status == 0; row++) {
        pendulum p;
        if (pendulum_make(&p, n) != 0) {
            pendulum_free(&p);
            status = 1;
            break;
        }
        pend_ctx c = {p.m, p.d, p.a, budgets[row] >= n ? ABA : ADAPTIVE, budgets[row], 1, 20,
                      NULL, NULL, 1e-3, SALTO_OK, NULL, NULL, NULL};
        pend_start(&c);
        char label[64];
        snprintf(label, sizeof label, "%d", budgets[row]);
        cairo_set_source_rgb(cr, 0, 0, 0);
        salto_draw_text(cr, label, 16, left / 2.0, top + row * ph + ph / 2.0);
        salto_draw_text(cr, "active", 11, left / 2.0, top + row * ph + ph / 2.0 + 18);
        pend_step(&c); // (the first step chooses the active joints)
        for (int shot = 0; shot < nshot && c.status == SALTO_OK; shot++) {
            if (shot > 0) {
                for (int k = 0; k < every && c.status == SALTO_OK; k++) pend_step(&c);
            }
            salto_fk(p.m, p.d, SALTO_FK_POS);
            if (c.method == ADAPTIVE) {
                salto_dca_active_links(p.a, act);
            } else {
                memset(act, 1, (size_t)n);
            }
            const double u0 = left + shot * pw + pw / 2.0, v0 = top + row * ph + 10;
            cairo_set_source_rgb(cr, 0, 0, 0);
            if (row == 0) {
                snprintf(label, sizeof label, "t = %.3f s", (1 + shot * every) * 1e-3);
                salto_draw_text(cr, label, 13, u0, top - 14);
            }
            // the chain: from the base (the first joint's centre) through every link's origin
            // to the tip (world x across, z down the page)
            cairo_set_source_rgb(cr, 0.32, 0.42, 0.62);
            cairo_set_line_width(cr, 1.5);
            cairo_move_to(cr, u0, v0);
            for (int l = 0; l < n; l++) cairo_line_to(cr, u0 + scale * p.d->p[3 * l], v0 - scale * p.d->p[3 * l + 2]);
            double tip[3];
            const double* R = p.d->R + 9 * (n - 1);
            for (int t = 0; t < 3; t++) tip[t] = p.d->p[3 * (n - 1) + t] - 0.3 * R[3 * t + 2];
            cairo_line_to(cr, u0 + scale * tip[0], v0 - scale * tip[2]);
            cairo_stroke(cr);
            cairo_set_source_rgb(cr, 0.85, 0.1, 0.1);
            for (int l = 0; l < n && budgets[row] < n; l++) {
                if (!act[l]) continue;
                cairo_arc(cr, u0 + scale * p.d->p[3 * l], v0 - scale * p.d->p[3 * l + 2], 2.5, 0, 6.2832);
                cairo_fill(cr);
            }
        }
        if (c.status != SALTO_OK) status = 1;
        pendulum_free(&p);
    }
    free(act);
    if (status == 0 && salto_write_png(cr, path, &err) != SALTO_OK) {
        fprintf(stderr, "salto bench adaptive: %s\n", err.msg);
        return 1;
    }
    if (status) {
        cairo_surface_t* sf = cairo_get_target(cr);
        cairo_destroy(cr);
        cairo_surface_destroy(sf);
        fprintf(stderr, "salto bench adaptive: Figure 5 failed\n");
        return 1;
    }
    printf("\nRedon et al.'s Figure 5: wrote %s\n", path);
    return 0;
}


// m as MuJoCo's model (exported to MJCF and read back; contacts off: the chain hangs below the
// exported floor); NULL with MuJoCo's message in err when it cannot read it
static mjModel* mujoco_model(const salto_model* m, char* err, int len) {
    char xml[64];
    salto_error e = {0};
    snprintf(xml, sizeof xml, "/tmp/salto_bench_adaptive_XXXXXX");
    const int fd = mkstemp(xml);
    mjModel* mm = NULL;
    snprintf(err, (size_t)len, "cannot write a temporary file");
    if (fd >= 0) {
        close(fd);
        if (salto_export_mjcf(m, xml, &e) == SALTO_OK) mm = mj_loadXML(xml, NULL, err, len);
        remove(xml);
    }
    if (mm) mm->opt.disableflags |= mjDSBL_CONTACT;
    return mm;
}


// When MuJoCo cannot read the chain (its XML reader's nesting limit): the longest chain it
// reads (by bisection), timed by ABA and by MuJoCo in the same run
static void mujoco_longest(int n, int reps, double batch_s, int steps) {
    int lo = 1, hi = n; // MuJoCo reads lo links (or none), not hi
    salto_model* best = NULL;
    mjModel* bm = NULL;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        salto_error err = {0};
        salto_character_desc* cd = salto_character_chain_axes(mid, 0.3, 1.0, "y");
        salto_model* m = cd ? salto_model_build(cd, NULL, &err) : NULL;
        salto_character_destroy(cd);
        char mjerr[1000];
        mjModel* mm = m ? mujoco_model(m, mjerr, sizeof mjerr) : NULL;
        if (mm) {
            salto_model_destroy(best);
            if (bm) mj_deleteModel(bm);
            best = m, bm = mm, lo = mid;
        } else {
            salto_model_destroy(m);
            hi = mid;
        }
    }
    salto_data* d = best ? salto_data_create(best) : NULL;
    mjData* md = bm ? mj_makeData(bm) : NULL;
    if (!d || !md) {
        printf("%-34s (nor a shorter chain)\n", "MuJoCo");
    } else {
        printf("the longest chain MuJoCo reads, %d links, in the same run:\n", lo);
        double aba_us = 0.0;
        for (int row = 0; row < 2; row++) {
            pend_ctx c = {best, d, NULL, row ? MUJOCO : ABA, 0, steps, 1, row ? bm : NULL, row ? md : NULL, 1e-3,
                          SALTO_OK, NULL, NULL, NULL};
            const timing t = bench_measure(pend_run, &c, reps, batch_s);
            const double us = t.median_ns * 1e-3 / steps;
            if (row == 0) aba_us = us;
            char label[64];
            if (row) {
                snprintf(label, sizeof label, "MuJoCo %s, %d links", mj_versionString(), lo);
            } else {
                snprintf(label, sizeof label, "ABA (full), %d links", lo);
            }
            printf("%-34s %8d %10.2f %10.1f %10.3f\n", label, lo, us, 1e3 / us, us / aba_us);
        }
    }
    if (md) mj_deleteData(md);
    if (bm) mj_deleteModel(bm);
    salto_data_destroy(d);
    salto_model_destroy(best);
}


int bench_adaptive(int argc, char** argv) {
    int quick = 0, reps = -1, n = 300;
    const char* root = ".";
    const char* fig5 = NULL;
    int crowd = 0; // the crowd's size (0: 200, or 6 with --quick)
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            printf("usage: salto bench adaptive [--quick] [--reps N] [--links N] [--figure5 FILE.png]\n\n"
                   "Redon et al.'s pendulum (2005, section 7.2): a planar chain of N links (default\n"
                   "300; 'salto gen chain N --axes y', 0.3 m and 1 kg each) hanging from a fixed base,\n"
                   "released straight with its first joint at 1.5 rad, stepped passively at 1 ms by\n"
                   "semi-implicit Euler: by the articulated-body algorithm (ABA), by the divide-and-\n"
                   "conquer algorithm (DCA), by adaptive dynamics with 300, 100, 50, 20 and 1 active\n"
                   "joints (salto_dca_adaptive_step, a budget of joints and no thresholds) with the\n"
                   "active region updated every step (f=1/1), every 20 and every 100 steps, and\n"
                   "between updates alone (the hybrid body's step: batches from the state after the\n"
                   "first update), and by MuJoCo (the chain exported by 'salto export --format mjcf',\n"
                   "contacts off, its Euler integrator). Prints microseconds per step (median of N\n"
                   "timed batches after a warm-up, one thread, each batch 100 steps), the ratio to\n"
                   "ABA, and how far the tip is after 0.3 s from where ABA's full simulation has it.\n"
                   "Then the paper's Figure 6 (a pendulum held by a spring) and Table 1 (active\n"
                   "joints against applied forces), and a crowd of 200 humanoids pushed and limp,\n"
                   "fully simulated and with 6 and 3 joints a character (salto_sim_set_adaptive).\n\n"
                   "  --quick     short batches, a 60-link chain and a crowd of 6 (a smoke test)\n"
                   "  --reps N    timed batches (default 7; --quick: 1)\n"
                   "  --links N   the chain's links (2 to 1000)\n"
                   "  --crowd N   the crowd's humanoids (1 to 1000; default 200, --quick 6)\n"
                   "  --figure5 FILE.png  also draws the paper's Figure 5: the pendulum at six\n"
                   "              times with every joint, 50 and 5 active (the active ones red)\n");
            return 0;
        }
        if (strcmp(argv[i], "--crowd") == 0 && i + 1 < argc) {
            if (app_parse_int("bench adaptive", "--crowd", argv[++i], 1, 1000, &crowd) != 0) return 2;
            continue;
        }
        if (strcmp(argv[i], "--figure5") == 0 && i + 1 < argc) {
            fig5 = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--links") == 0 && i + 1 < argc) {
            if (app_parse_int("bench adaptive", "--links", argv[++i], 2, 1000, &n) != 0) return 2;
            continue;
        }
        const int taken = bench_shared_opt(argc, argv, &i, &quick, &reps, &root);
        if (taken < 0) return 2;
        if (!taken) {
            fprintf(stderr, "salto bench adaptive: unknown or incomplete option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (fig5) { // its folder checked now, not after minutes of benchmarks
        char dir[4096];
        app_folder_of(fig5, dir, sizeof dir);
        if (access(dir, W_OK) != 0) {
            fprintf(stderr, "salto bench adaptive: --figure5: cannot write in '%s': %s\n", dir, strerror(errno));
            return 2;
        }
    }
    if (quick && n == 300) n = 60;
    if (reps < 0) reps = quick ? 1 : 7;
    const double batch_s = quick ? 0.02 : 0.3;
    salto_error err = {0};
    salto_character_desc* cd = salto_character_chain_axes(n, 0.3, 1.0, "y");
    salto_model* m = cd ? salto_model_build(cd, NULL, &err) : NULL;
    salto_character_destroy(cd);
    salto_data* d = m ? salto_data_create(m) : NULL;
    salto_dca* a = m ? salto_dca_create(m) : NULL;
    if (!m || !d || !a) {
        fprintf(stderr, "salto bench adaptive: out of memory\n");
        salto_dca_destroy(a);
        salto_data_destroy(d);
        salto_model_destroy(m);
        return 1;
    }
    char mjerr[1000] = "";
    mjModel* mm = mujoco_model(m, mjerr, sizeof mjerr);
    mjData* md = mm ? mj_makeData(mm) : NULL;
    printf("salto bench adaptive: a planar pendulum of %d links, 1 ms steps, median of %d batch(es) "
           "of at least %.2f s, one thread\n", n, reps, batch_s);
    printf("%-34s %8s %10s %10s %10s %14s\n", "method (f: region updates a step)", "active",
           "us/step", "x realtime", "vs ABA", "tip off (m)");
    const int steps = quick ? 20 : 100, settle = 300;
    pend_ctx ref = {m, d, NULL, ABA, 0, steps, 1, NULL, NULL, 1e-3, SALTO_OK, NULL, NULL, NULL};
    double tip_ref[3];
    pend_tip(&ref, settle, tip_ref);
    int budgets[] = {300, 100, 50, 20, 1};
    if (n != 300) budgets[0] = n, budgets[1] = n / 3, budgets[2] = n / 6, budgets[3] = n / 15;
    double aba_us = 0.0;
    int status = 0;
    // one row: microseconds per step, and the tip's distance from ABA's after the settle
    enum { PERIODS = 4 };
    static const int periods[PERIODS] = {1, 20, 100, INT_MAX};
    double* q1 = malloc(sizeof(double) * (size_t)n);
    double* qd1 = malloc(sizeof(double) * (size_t)n);
    unsigned char* act1 = malloc((size_t)n + 1);
    unsigned char* links = malloc((size_t)n);
    if (!q1 || !qd1 || !act1 || !links) {
        fprintf(stderr, "salto bench adaptive: out of memory\n");
        status = 1;
    }
    for (int row = 0; row < 8 && status == 0; row++) {
        pend_ctx c = {m, d, NULL, ABA, 0, steps, 1, NULL, NULL, 1e-3, SALTO_OK, NULL, NULL, NULL};
        char name[64];
        int active = n;
        if (row == 0) {
            snprintf(name, sizeof name, "ABA (full)");
        } else if (row == 1) {
            c.method = DCA, c.a = a;
            snprintf(name, sizeof name, "DCA (full)");
        } else if (row < 7) {
            c.method = ADAPTIVE, c.a = a, c.budget = budgets[row - 2];
            if (c.budget < 1) continue;
            active = c.budget;
            snprintf(name, sizeof name, "adaptive, %d joints", c.budget);
        } else {
            if (!md) {
                printf("%-34s (MuJoCo could not load the chain: %s)\n", "MuJoCo", mjerr);
                mujoco_longest(n, reps, batch_s, steps);
                continue;
            }
            c.method = MUJOCO, c.mm = mm, c.md = md;
            snprintf(name, sizeof name, "MuJoCo %s", mj_versionString());
        }
        const int np = c.method == ADAPTIVE ? PERIODS : 1;
        for (int k = 0; k < np; k++) {
            c.period = periods[k];
            char label[96];
            if (c.method != ADAPTIVE) {
                snprintf(label, sizeof label, "%s", name);
            } else if (periods[k] == INT_MAX) {
                snprintf(label, sizeof label, "%s, between updates", name);
            } else {
                snprintf(label, sizeof label, "%s, f=1/%d", name, periods[k]);
            }
            if (c.method == ADAPTIVE) { // the state one step after the release
                c.q1 = NULL;
                pend_start(&c);
                pend_step(&c);
                memcpy(q1, d->q, sizeof(double) * (size_t)n);
                memcpy(qd1, d->qd, sizeof(double) * (size_t)n);
                salto_dca_active_links(a, links);
                for (int b = 0; b < m->nbody; b++) act1[b] = m->body_link[b] >= 0 && links[m->body_link[b]];
                c.q1 = q1, c.qd1 = qd1, c.act1 = act1;
                salto_dca_set_active(a, act1);
            }
            const timing t = bench_measure(pend_run, &c, reps, batch_s);
            if (c.status != SALTO_OK) {
                printf("%-26s failed (status %d)\n", label, (int)c.status);
                status = 1;
                continue;
            }
            const double us = t.median_ns * 1e-3 / steps;
            if (row == 0) aba_us = us;
            double tip[3];
            c.q1 = NULL;
            pend_tip(&c, settle, tip);
            const double off = dist3(tip, tip_ref);
            printf("%-34s %8d %10.2f %10.1f %10.3f %14.3g\n", label, active, us, 1e3 / us, us / aba_us, off);
        }
    }
    free(q1), free(qd1), free(act1), free(links);
    if (md) mj_deleteData(md);
    if (mm) mj_deleteModel(mm);
    salto_dca_destroy(a);
    salto_data_destroy(d);
    salto_model_destroy(m);
    if (status == 0) status = spring_experiment(quick);
    if (status == 0) status = forces_experiment(quick);
    if (status == 0) status = crowd_experiment(quick, root, crowd);
    if (status == 0 && fig5) status = figure5(fig5, quick);
    return status;
}
