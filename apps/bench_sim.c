// bench_sim.c: salto bench sim: the stepping simulator beside MuJoCo, like with like
//
// What makes the ratio usable on a shared machine (issue 29): each engine's batch is timed
// on the thread's CPU clock (salto_cpu_now), not the wall clock, so time the thread spends
// descheduled does not count; the two engines are timed in rounds, a batch of salto and a
// batch of MuJoCo on the same scenario back to back (which goes first alternates), so a slow
// spell of the machine lands on both; each round gives a ratio, and the table shows the
// median and the range of the rounds' ratios besides the median time per step.
//
// What makes it like with like: both engines start from the same state with the same
// geometry against the same plane (MuJoCo's self-collisions turned off, as salto has none, and
// its friction set to salto's 0.8), and each row says which control law each engine runs and
// how many contacts each met a step. "PD" rows apply the same joint torques in both,
// tau_j = M_jj (kp (q*_j - q_j) + kd (qd*_j - qd_j)), M_jj the joint-space inertia's diagonal
// at the zero pose; "tracking" rows run salto as 'salto play' does (every joint following
// the target by an acceleration constraint, qdd = qdd* + kp (q* - q) + kd (qd* - qd),
// solved with the contacts on the root's six DOFs) against MuJoCo's PD servos. Landings run
// with salto's restitution 0 (MuJoCo's contacts do not bounce) and once more with salto's
// default 0.3, which makes the humanoid bounce and so meets fewer contacts.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#include "bench.h"
#include "cmds.h"
#include "salto/dynamics.h"
#include "salto/export.h"
#include "salto/model.h"
#include "salto/sim.h"

enum { MAXV = 64, MAXROUNDS = 64 };

static const double KP = 400.0, KD = 40.0; // 1/s^2, 1/s: both engines, both control laws
static const double SQUAT_A = 0.3;         // rad: hip -A s, knee 2A s, ankle -A s (feet flat)
static const double SQUAT_T = 1.0;         // s: s = (1 - cos(2 pi t / T)) / 2, down and up

typedef enum { CTRL_PD, CTRL_TRACK } control;

typedef struct scenario {
    double drop;         // root_z at the start (0: both soles on the ground), m
    double duration;     // s
    int squat;           // 1: the target squats (SQUAT_*), 0: it holds the zero pose
    double restitution;  // salto's (MuJoCo has none)
    control ctrl;        // salto's control law (MuJoCo's is always PD)
    const char* label;   // the row's name
    const char* control; // the control column
} scenario;

// what an untimed run of one engine met, per step
typedef struct counts {
    double contacts;     // contact points, mean
    double rows;         // constraint rows, mean (salto: 3 a contact; MuJoCo: nefc)
    double iters;        // salto: PGS sweeps; MuJoCo: solver iterations; mean
    double capped;       // salto: the share of steps with a solve stopped at the sweep cap
    double residual;     // salto: the largest final residual of any solve, m/s
    double substeps;     // salto: integration steps (halvings included); MuJoCo: 1
    long impacts;        // salto: collisions faster than bounce_speed; MuJoCo: -
    double depth;        // deepest penetration at the end of a step, m
    double end_z;        // root_z at the end, m
} counts;

typedef struct sim_ctx {
    const salto_model* m;
    salto_sim_opts o;    // salto's options: the defaults with the scenario's restitution
    mjModel* mm;
    mjData* md;
    const scenario* sc;
    const double* gain;  // M_jj at the zero pose (nv)
    int squat_dof[6];    // hip_l_flex, knee_l, ankle_l, hip_r_flex, knee_r, ankle_r
    int steps;           // a run: the scenario from its start
    int failed;          // salto's step failed, or its simulator could not be made
} sim_ctx;


// the target at time t: the zero pose, or the squat's q*, qd*, qdd* (nv each, zeroed here)
static void target(const sim_ctx* c, double t, double* q, double* qd, double* qdd) {
    const int nv = c->m->nv;
    memset(q, 0, (size_t)nv * sizeof(double));
    memset(qd, 0, (size_t)nv * sizeof(double));
    memset(qdd, 0, (size_t)nv * sizeof(double));
    if (!c->sc->squat) return;

    // s = (1 - cos w t) / 2: s' = w sin(w t) / 2, s'' = w^2 cos(w t) / 2
    const double w = 2.0 * 3.14159265358979323846 / SQUAT_T;
    const double s = 0.5 * (1.0 - cos(w * t)), ds = 0.5 * w * sin(w * t),
                 dds = 0.5 * w * w * cos(w * t);
    static const double k[3] = {-1.0, 2.0, -1.0}; // hip, knee, ankle
    for (int i = 0; i < 6; i++) {
        const int j = c->squat_dof[i];
        q[j] = SQUAT_A * k[i % 3] * s;
        qd[j] = SQUAT_A * k[i % 3] * ds;
        qdd[j] = SQUAT_A * k[i % 3] * dds;
    }
}


// PD torques toward the target: tau_j = M_jj (kp (q*_j - q_j) + kd (qd*_j - qd_j)), root zero
static void pd_torques(const sim_ctx* c, const double* q, const double* qd, const double* tq,
                       const double* tqd, double* tau) {
    for (int j = 0; j < c->m->nv; j++) {
        tau[j] = j < c->m->nroot ? 0.0 : c->gain[j] * (KP * (tq[j] - q[j]) + KD * (tqd[j] - qd[j]));
    }
}


// One run of salto, in a new simulator: salto_sim_set_state keeps the contact multipliers the
// solver starts from, so a simulator reused would start each run warm from the last run's
// end (and its projected Gauss-Seidel would converge in a sweep or two where a fresh start
// takes its 100; MuJoCo's mj_resetData clears its warm start). Returns the steps' thread CPU
// seconds; cn: count what the run met (untimed runs only).
static double run_salto(sim_ctx* c, counts* cn) {
    const double dt = 1e-3;
    double q0[MAXV] = {0}, zero[MAXV] = {0}, tq[MAXV], tqd[MAXV], tqdd[MAXV], tau[MAXV];
    salto_sim* sim = salto_sim_create(c->m, &c->o);
    if (!sim) {
        c->failed = 1;
        return 0.0;
    }
    q0[2] = c->sc->drop;
    salto_sim_set_state(sim, q0, zero);
    salto_sim_set_torques(sim, zero);
    target(c, 0.0, tq, tqd, tqdd);
    salto_sim_track(sim, c->sc->ctrl == CTRL_TRACK ? tq : NULL, tqd, tqdd, KP, KD);
    double depth = 0.0;
    salto_error err = {0};
    const double t0 = salto_cpu_now();
    for (int k = 0; k < c->steps; k++) {
        if (c->sc->squat || c->sc->ctrl == CTRL_PD) target(c, k * dt, tq, tqd, tqdd);
        if (c->sc->ctrl == CTRL_TRACK) {
            if (c->sc->squat) salto_sim_track(sim, tq, tqd, tqdd, KP, KD);
        } else {
            pd_torques(c, salto_sim_q(sim), salto_sim_qd(sim), tq, tqd, tau);
            salto_sim_set_torques(sim, tau);
        }
        if (salto_sim_step(sim, &err) != SALTO_OK) {
            c->failed = 1;
            break;
        }
        if (cn) {
            if (salto_sim_get_stats(sim)->step_residual > c->o.tolerance) cn->capped += 1.0;
            const salto_sim_contact* con;
            const int nc = salto_sim_contacts(sim, &con);
            cn->contacts += nc;
            cn->rows += 3.0 * nc;
            for (int i = 0; i < nc; i++) depth = fmax(depth, con[i].depth);
        }
    }
    const double t = salto_cpu_now() - t0;
    if (cn) {
        const salto_sim_stats* st = salto_sim_get_stats(sim);
        cn->contacts /= c->steps;
        cn->rows /= c->steps;
        cn->iters = (double)st->pgs_sweeps / c->steps;
        cn->capped /= c->steps;
        cn->residual = st->max_residual;
        cn->substeps = (double)st->substeps / c->steps;
        cn->impacts = st->impacts;
        cn->depth = depth;
        cn->end_z = salto_sim_q(sim)[2];
    }
    salto_sim_destroy(sim);
    return t;
}


// one run of MuJoCo (always the PD servos), from mj_resetData (no warm start); returns and
// counts as run_salto
static double run_mujoco(sim_ctx* c, counts* cn) {
    const double dt = 1e-3;
    double tq[MAXV], tqd[MAXV], tqdd[MAXV];
    mj_resetData(c->mm, c->md);
    c->md->qpos[2] = c->sc->drop;
    double depth = 0.0;
    const double t0 = salto_cpu_now();
    for (int k = 0; k < c->steps; k++) {
        target(c, k * dt, tq, tqd, tqdd);
        pd_torques(c, c->md->qpos, c->md->qvel, tq, tqd, c->md->qfrc_applied);
        mj_step(c->mm, c->md);
        if (cn) {
            cn->contacts += c->md->ncon;
            cn->rows += c->md->nefc;
            cn->iters += c->md->solver_iter;
            for (int i = 0; i < c->md->ncon; i++) depth = fmax(depth, -c->md->contact[i].dist);
        }
    }
    const double t = salto_cpu_now() - t0;
    if (cn) {
        cn->contacts /= c->steps;
        cn->rows /= c->steps;
        cn->iters /= c->steps;
        cn->substeps = 1.0;
        cn->impacts = -1;
        cn->depth = depth;
        cn->end_z = c->md->qpos[2];
    }
    return t;
}


// runs of one engine back to back: their steps' thread CPU seconds
static double time_batch(sim_ctx* c, int mujoco, int runs) {
    double t = 0.0;
    for (int r = 0; r < runs && !c->failed; r++) {
        t += mujoco ? run_mujoco(c, NULL) : run_salto(c, NULL);
    }
    return t;
}


// runs a batch needs to last batch_s (after the untimed runs that warm up and count)
static int batch_runs(sim_ctx* c, int mujoco, double batch_s) {
    const double one = time_batch(c, mujoco, 1);
    return one > 0.0 ? (int)fmax(1.0, ceil(batch_s / one)) : 1000;
}


static void report_failure(const scenario* sc) {
    fprintf(stderr, "salto bench sim: salto's step failed, or out of memory, in '%s' (%s)\n",
            sc->label, sc->control);
}


static double median(double* x, int n) {
    qsort(x, (size_t)n, sizeof(double), bench_cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}


int bench_sim(int argc, char** argv) {
    int quick = 0, reps = -1;
    const char* root = ".";
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            printf("usage: salto bench sim [--quick] [--reps N] [--root DIR]\n\n"
                   "Times the stepping simulator (docs/simulation.md) beside MuJoCo (libmujoco,\n"
                   "the character exported by 'salto export --format mjcf', its self-collisions\n"
                   "off and its friction salto's 0.8) on the 22-DOF humanoid at 1 ms steps:\n"
                   "standing on both soles (1 s), squatting (knees to 34 degrees and back, 1 s),\n"
                   "and landing from 0.2 m (0.4 s) with salto's restitution 0 and its default\n"
                   "0.3. 'PD both' rows apply the same joint torques in both engines, M_jj (kp\n"
                   "(q* - q) + kd (qd* - qd)), kp 400, kd 40, M_jj the joint-space inertia's\n"
                   "diagonal at the zero pose; 'salto tracks' rows run salto as 'salto play'\n"
                   "does (acceleration constraints with the same kp and kd, the contact problem\n"
                   "on the root's DOFs) against MuJoCo's PD servos.\n\n"
                   "Each row: N rounds, each timing a batch of salto runs and a batch of MuJoCo\n"
                   "runs of the scenario on the thread's CPU clock (which goes first alternates;\n"
                   "each run starts cold in both), after an untimed run of each that warms up\n"
                   "and counts. Prints the median microseconds per step of each engine, and the\n"
                   "median and range of the rounds' ratios (salto's time over MuJoCo's: below 1,\n"
                   "salto is faster); then what each engine met a step (contacts, constraint\n"
                   "rows, solver sweeps or iterations).\n\n"
                   "  --quick     runs of 0.4 s at most, short batches (a smoke test)\n"
                   "  --reps N    rounds (default 15; --quick: 3)\n"
                   "  --root DIR  repository root holding data/characters (default: .)\n");
            return 0;
        }
        const int taken = bench_shared_opt(argc, argv, &i, &quick, &reps, &root);
        if (taken < 0) return 2;
        if (!taken) {
            fprintf(stderr, "salto bench sim: unknown or incomplete option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (reps < 0) reps = quick ? 3 : 15;
    if (reps > MAXROUNDS) reps = MAXROUNDS;
    const double batch_s = quick ? 0.01 : 0.2;
    char path[4096], xml[64];
    snprintf(path, sizeof path, "%s/data/characters/humanoid22.yaml", root);
    salto_error err = {0};
    salto_model* m = salto_model_load(path, &err);
    if (!m) {
        app_print_error(&err);
        return 2;
    }
    const int nv = m->nv;
    snprintf(xml, sizeof xml, "/tmp/salto_bench_sim_XXXXXX");
    const int fd = mkstemp(xml);
    char mjerr[1000] = "";
    mjModel* mm = NULL;
    if (fd >= 0) {
        close(fd);
        if (salto_export_mjcf(m, xml, &err) == SALTO_OK) {
            mm = mj_loadXML(xml, NULL, mjerr, sizeof mjerr);
        }
        remove(xml);
    }
    if (!mm) {
        fprintf(stderr, "salto bench sim: MuJoCo could not load the exported humanoid: %s%s\n",
                mjerr, err.msg);
        salto_model_destroy(m);
        return 1;
    }

    // like salto: the character's geometry meets the plane only (contype & conaffinity), with
    // salto's Coulomb coefficient (MuJoCo takes the larger of the two geometries')
    salto_sim_opts dflt;
    salto_sim_opts_default(&dflt);
    for (int g = 0; g < mm->ngeom; g++) {
        const int world = mm->geom_bodyid[g] == 0;
        mm->geom_contype[g] = world ? 0 : 1;
        mm->geom_conaffinity[g] = world ? 1 : 0;
        mm->geom_friction[3 * g] = dflt.friction;
    }
    mjData* md = mj_makeData(mm);
    salto_data* d = salto_data_create(m);
    double* M = malloc((size_t)nv * nv * sizeof(double));
    double gain[MAXV] = {0};
    int status = 0;
    if (!md || !d || !M || nv > MAXV || mm->nq != nv) {
        fprintf(stderr, "salto bench sim: out of memory, or a character too large\n");
        status = 1;
        goto done;
    }
    salto_crba(m, d, M); // at the zero pose
    for (int j = 0; j < nv; j++) gain[j] = M[(size_t)j * nv + j];

    static const char* const squat_names[6] = {"hip_l_flex", "knee_l", "ankle_l",
                                               "hip_r_flex", "knee_r", "ankle_r"};
    int squat_dof[6];
    for (int i = 0; i < 6; i++) {
        squat_dof[i] = salto_model_dof(m, squat_names[i]);
        if (squat_dof[i] < 0) {
            fprintf(stderr, "salto bench sim: the humanoid has no DOF '%s'\n", squat_names[i]);
            status = 2;
            goto done;
        }
    }

    // clang-format off
    static const scenario scen[] = {
        {0.0, 1.0, 0, 0.0, CTRL_PD,    "standing",         "PD both"},
        {0.0, 1.0, 0, 0.0, CTRL_TRACK, "standing",         "salto tracks"},
        {0.0, 1.0, 1, 0.0, CTRL_PD,    "squat",            "PD both"},
        {0.0, 1.0, 1, 0.0, CTRL_TRACK, "squat",            "salto tracks"},
        {0.2, 0.4, 0, 0.0, CTRL_PD,    "landing e=0",      "PD both"},
        {0.2, 0.4, 0, 0.0, CTRL_TRACK, "landing e=0",      "salto tracks"},
        {0.2, 0.4, 0, 0.3, CTRL_TRACK, "landing e=0.3",    "salto tracks"},
    };
    // clang-format on
    enum { NSCEN = sizeof scen / sizeof scen[0] };
    counts cs[NSCEN], cm[NSCEN];

    printf("salto bench sim: humanoid22 (%d DOFs), 1 ms steps, thread CPU time; %d round(s) a "
           "row, each a batch of at least %.2f s of salto and of MuJoCo 2.2.2 (which goes first "
           "alternates), after an untimed run of each\n",
           nv, reps, batch_s);
    printf("%-14s %-13s %9s %9s %7s %15s %14s\n", "scenario", "control", "salto us", "MuJoCo us",
           "ratio", "ratio min..max", "contacts s/M");
    for (int sc = 0; sc < NSCEN && !status; sc++) {
        sim_ctx c = {.m = m, .mm = mm, .md = md, .sc = &scen[sc], .gain = gain};
        salto_sim_opts_default(&c.o);
        c.o.restitution = scen[sc].restitution;
        memcpy(c.squat_dof, squat_dof, sizeof squat_dof);
        c.steps = (int)lround(fmin(scen[sc].duration, quick ? 0.4 : INFINITY) * 1e3); // lands

        // untimed: warm up, count, and size the batches
        memset(&cs[sc], 0, sizeof cs[sc]);
        memset(&cm[sc], 0, sizeof cm[sc]);
        run_salto(&c, &cs[sc]);
        run_mujoco(&c, &cm[sc]);
        const int runs_s = batch_runs(&c, 0, batch_s), runs_m = batch_runs(&c, 1, batch_s);
        if (c.failed) {
            report_failure(&scen[sc]);
            status = 1;
            break;
        }

        // rounds: salto's and MuJoCo's batch back to back, the order alternating
        double us_s[MAXROUNDS], us_m[MAXROUNDS], ratio[MAXROUNDS];
        for (int r = 0; r < reps; r++) {
            double ts, tm;
            if (r % 2 == 0) {
                ts = time_batch(&c, 0, runs_s);
                tm = time_batch(&c, 1, runs_m);
            } else {
                tm = time_batch(&c, 1, runs_m);
                ts = time_batch(&c, 0, runs_s);
            }
            us_s[r] = ts * 1e6 / ((double)runs_s * c.steps);
            us_m[r] = tm * 1e6 / ((double)runs_m * c.steps);
            ratio[r] = us_s[r] / us_m[r];
        }
        if (c.failed) {
            report_failure(&scen[sc]);
            status = 1;
            break;
        }
        const double ms = median(us_s, reps), mm_us = median(us_m, reps), mr = median(ratio, reps);
        char range[32];
        snprintf(range, sizeof range, "%.2f..%.2f", ratio[0], ratio[reps - 1]); // sorted
        char con[24];
        snprintf(con, sizeof con, "%.1f/%.1f", cs[sc].contacts, cm[sc].contacts);
        printf("%-14s %-13s %9.2f %9.2f %7.2f %15s %14s\n", scen[sc].label, scen[sc].control, ms,
               mm_us, mr, range, con);
        fflush(stdout);
    }
    if (status) goto done;

    // what each engine met, from the untimed runs
    printf("\nwhat each engine met a step (salto/MuJoCo, means over each row's untimed run):\n"
           "  contacts  contact points (salto: within its 1 mm margin; MuJoCo: penetrating)\n"
           "  rows      constraint rows (salto: 3 a contact, its friction box; MuJoCo: nefc, its\n"
           "            pyramidal cone's 4 a contact, and joint limits)\n"
           "  solver    salto: projected Gauss-Seidel sweeps; MuJoCo: Newton iterations\n"
           "  capped    salto: the share of steps with a solve stopped at the sweep cap (%d,\n"
           "            opts max_iterations), its residual above the tolerance (%.0e m/s)\n"
           "  resid     salto: the largest residual a solve ended with, m/s\n"
           "  subst     salto: integration steps, halvings on penetration included\n"
           "  impacts   salto: collisions faster than bounce_speed in the run\n"
           "  depth     the deepest penetration, mm; end z: root_z at the end, m\n",
           dflt.max_iterations, dflt.tolerance);
    printf("%-14s %-13s %9s %11s %11s %6s %7s %5s %7s %11s %13s\n", "scenario", "control",
           "contacts", "rows", "solver", "capped", "resid", "subst", "impacts", "depth", "end z");
    for (int sc = 0; sc < NSCEN; sc++) {
        char a[24], b[24], e[24], f[24], g[24];
        snprintf(a, sizeof a, "%.1f/%.1f", cs[sc].contacts, cm[sc].contacts);
        snprintf(b, sizeof b, "%.1f/%.1f", cs[sc].rows, cm[sc].rows);
        snprintf(e, sizeof e, "%.1f/%.1f", cs[sc].iters, cm[sc].iters);
        snprintf(f, sizeof f, "%.2f/%.2f", 1e3 * cs[sc].depth, 1e3 * cm[sc].depth);
        snprintf(g, sizeof g, "%.3f/%.3f", cs[sc].end_z, cm[sc].end_z);
        printf("%-14s %-13s %9s %11s %11s %5.0f%% %7.0e %5.2f %7ld %11s %13s\n", scen[sc].label,
               scen[sc].control, a, b, e, 100.0 * cs[sc].capped, cs[sc].residual, cs[sc].substeps,
               cs[sc].impacts, f, g);
    }
done:
    free(M);
    salto_data_destroy(d);
    if (md) mj_deleteData(md);
    mj_deleteModel(mm);
    salto_model_destroy(m);
    return status;
}
