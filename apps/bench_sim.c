// bench_sim.c: salto bench sim: the stepping simulator's steps per second, and MuJoCo's
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

typedef struct sim_ctx {
    const salto_model* m;
    salto_sim* sim;            // salto (NULL: MuJoCo)
    mjModel* mm;
    mjData* md;
    const double* q0;          // the scenario's start (nv)
    const double* gain;        // MuJoCo's joint servos: kp = 400 M_jj, kd = 40 M_jj (nv)
    int steps;                 // steps per call
    int max_contacts;
} sim_ctx;


// a call: the scenario from its start, steps steps
static void run_sim(void* ctx) {
    sim_ctx* c = ctx;
    const int nv = c->m->nv;
    double zero[64] = {0};
    if (c->sim) {
        salto_sim_set_state(c->sim, c->q0, zero);
        salto_sim_track(c->sim, zero, zero, zero, 400.0, 40.0);
        salto_error err = {0};
        for (int k = 0; k < c->steps; k++) {
            if (salto_sim_step(c->sim, &err) != SALTO_OK) break;
            const int nc = salto_sim_contacts(c->sim, NULL);
            if (nc > c->max_contacts) c->max_contacts = nc;
        }
        return;
    }
    mj_resetData(c->mm, c->md);
    for (int j = 0; j < nv; j++) c->md->qpos[j] = c->q0[j];
    for (int k = 0; k < c->steps; k++) {
        for (int j = c->m->nroot; j < nv; j++) { // joint servos to the zero pose
            c->md->qfrc_applied[j] = c->gain[j] * (400.0 * -c->md->qpos[j] - 40.0 * c->md->qvel[j]);
        }
        mj_step(c->mm, c->md);
        if (c->md->ncon > c->max_contacts) c->max_contacts = c->md->ncon;
    }
}


int bench_sim(int argc, char** argv) {
    int quick = 0, reps = -1;
    const char* root = ".";
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            printf("usage: salto bench sim [--quick] [--reps N] [--root DIR]\n\n"
                   "Times the stepping simulator (docs/simulation.md) on the 22-DOF humanoid at 1 ms\n"
                   "steps, its joints holding the zero pose by tracking (kp 400, kd 40): standing on\n"
                   "both soles, and landing (dropped from 0.2 m, 0.4 s). salto as it runs by\n"
                   "default (with every joint tracked, the contact problem reduced to the root's\n"
                   "DOFs), and with the full constraint matrix by either method (the delta method,\n"
                   "a full pass per test force), beside MuJoCo (libmujoco, the character exported\n"
                   "by 'salto export --format mjcf', joint servos with gains scaled by the\n"
                   "joint-space inertia's diagonal, its own contacts). Prints microseconds per\n"
                   "step, steps per second, times faster than real time, and the ratio to MuJoCo;\n"
                   "median of N timed batches after a warm-up, one thread.\n\n"
                   "  --quick     short batches (a smoke test)\n"
                   "  --reps N    timed batches (default 7; --quick: 1)\n"
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
    if (reps < 0) reps = quick ? 1 : 7;
    const double batch_s = quick ? 0.02 : 0.3;
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
        if (salto_export_mjcf(m, xml, &err) == SALTO_OK) mm = mj_loadXML(xml, NULL, mjerr, sizeof mjerr);
        remove(xml);
    }
    if (!mm) {
        fprintf(stderr, "salto bench sim: MuJoCo could not load the exported humanoid: %s%s\n", mjerr, err.msg);
        salto_model_destroy(m);
        return 1;
    }
    mjData* md = mj_makeData(mm);
    salto_data* d = salto_data_create(m);
    double* M = malloc((size_t)nv * nv * sizeof(double));
    double gain[64] = {0}, stand[64] = {0}, drop[64] = {0};
    int status = 0;
    if (!md || !d || !M || nv > 64) {
        fprintf(stderr, "salto bench sim: out of memory\n");
        status = 1;
        goto done;
    }
    salto_crba(m, d, M); // at the zero pose
    for (int j = 0; j < nv; j++) gain[j] = M[(size_t)j * nv + j];
    drop[2] = 0.2; // root_z
    printf("salto bench sim: humanoid22 (%d DOFs), 1 ms steps, median of %d batch(es) of at least "
           "%.2f s, one thread\n", nv, reps, batch_s);
    printf("%-9s %-24s %8s %10s %12s %10s %10s\n", "scenario", "engine", "contacts", "us/step",
           "steps/s", "x realtime", "vs MuJoCo");
    const struct { const char* name; const double* q0; int steps; } scen[2] = {
        {"standing", stand, 200}, {"landing", drop, 400}};
    for (int sc = 0; sc < 2; sc++) {
        double mj_us = 0.0;
        for (int e = 3; e >= 0; e--) { // MuJoCo first, for the ratio
            salto_sim_opts o;
            salto_sim_opts_default(&o);
            o.method = e == 2 ? SALTO_CONSTRAINT_TEST_FORCES : SALTO_CONSTRAINT_ABA_DELTA;
            o.reduced = e == 0;
            sim_ctx c = {m, e < 3 ? salto_sim_create(m, &o) : NULL, mm, md, scen[sc].q0, gain,
                         quick ? scen[sc].steps / 4 : scen[sc].steps, 0};
            if (e < 3 && !c.sim) {
                fprintf(stderr, "salto bench sim: out of memory\n");
                status = 1;
                goto done;
            }
            const timing t = bench_measure(run_sim, &c, reps, batch_s);
            const double us = t.median_ns * 1e-3 / c.steps;
            if (e == 3) mj_us = us;
            static const char* const names[4] = {"salto (reduced)", "salto (full, delta 4.3)",
                                                 "salto (full, tests 4.2)", "MuJoCo 2.2.2"};
            printf("%-9s %-24s %8d %10.2f %12.0f %10.1f %10.2f\n", scen[sc].name, names[e],
                   c.max_contacts, us, 1e6 / us, 1e3 / us, us / mj_us);
            salto_sim_destroy(c.sim);
        }
    }
done:
    free(M);
    salto_data_destroy(d);
    if (md) mj_deleteData(md);
    mj_deleteModel(mm);
    salto_model_destroy(m);
    return status;
}
