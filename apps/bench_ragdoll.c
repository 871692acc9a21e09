// bench_ragdoll.c: salto bench ragdoll: the particle ragdoll (Rosen) against the simulator's
// articulated one, on the same fall and in a crowd
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cmds.h"
#include "salto/kinematics.h"
#include "salto/model.h"
#include "salto/ragdoll.h"
#include "salto/sim.h"
#include "salto/spatial.h"

enum { ARTICULATED = 0, PARTICLES };

// the humanoid c of a crowd (c = 0 alone: the fall): a pose within its joints' limits and
// joint velocities up to 1 rad/s from a seed of c, its root 1.3 m up at a grid place
static void fall_start(const salto_model* m, salto_data* d, int c) {
    uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(c + 1);
    for (int j = 0; j < m->nv; j++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const double u = (double)(s >> 11) / 9007199254740992.0;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const double v = (double)(s >> 11) / 9007199254740992.0;
        double lo = -0.4, hi = 0.4;
        if (m->link_has_limits[j]) lo = m->link_limits[2 * j], hi = m->link_limits[2 * j + 1];
        d->q[j] = lo + (hi - lo) * u;
        d->qd[j] = 2.0 * v - 1.0;
    }
    int tdof[3];
    double axes[3][3];
    const int nt = salto_model_root_translation(m, tdof, axes);
    const double at[3] = {1.5 * (c % 10), 1.5 * (c / 10), 1.3};
    for (int k = 0; k < nt; k++) d->q[tdof[k]] = salto_v3_dot(axes[k], at);
}


typedef struct fall_stats {
    double cpu, overrun, low, drift, com[3];
} fall_stats;

// the lowest point of the character's geometry at d's pose (after salto_fk)
static double lowest(const salto_model* m, const salto_data* d) {
    double low = INFINITY;
    for (int g = 0; g < m->ngeom; g++) {
        double pts[8][3], r;
        const int n = salto_geom_points(m, d, g, pts, &r);
        for (int k = 0; k < n; k++) low = fmin(low, pts[k][2] - r);
    }
    return low;
}


// one humanoid's fall of steps steps by the method: its CPU time, worst joint-limit overrun,
// lowest surface point, the energy's largest change in flight (before the first touch, over
// the start's kinetic and potential energy above the ground), and its centre of mass at the
// end. 0, or 1 when a step failed.
static int fall(const salto_model* m, int method, int c, int steps, fall_stats* fs) {
    const double dt = 1e-3;
    salto_data* d = salto_data_create(m);
    salto_sim* sim = method == ARTICULATED ? salto_sim_create(m, NULL) : NULL;
    salto_ragdoll* r = method == PARTICLES ? salto_ragdoll_create(m, NULL, NULL) : NULL;
    int status = d && (sim || r) ? 0 : 1;
    memset(fs, 0, sizeof *fs);
    fs->low = INFINITY;
    if (status == 0) {
        fall_start(m, d, c);
        if (sim) {
            salto_sim_set_state(sim, d->q, d->qd);
        } else {
            status = salto_ragdoll_set_state(r, d, dt) != SALTO_OK;
        }
    }
    double e0 = NAN, scale = 1.0;
    int flying = 1;
    salto_error err = {0};
    for (int s = 0; s <= steps && status == 0; s++) {
        if (s > 0) {
            const double t0 = salto_cpu_now();
            status = sim ? salto_sim_step(sim, &err) != SALTO_OK : salto_ragdoll_step(r) != SALTO_OK;
            fs->cpu += salto_cpu_now() - t0;
            if (status) break;
            if (sim) {
                memcpy(d->q, salto_sim_q(sim), sizeof(double) * (size_t)m->nv);
                memcpy(d->qd, salto_sim_qd(sim), sizeof(double) * (size_t)m->nv);
            } else {
                salto_ragdoll_get_state(r, d);
            }
        }
        salto_fk(m, d, SALTO_FK_VEL);
        salto_link_inertias(m, d);
        double ke, pe;
        salto_energy(m, d, &ke, &pe);
        const double low = lowest(m, d);
        fs->low = fmin(fs->low, low);
        if (s == 0) {
            e0 = ke + pe, scale = ke + m->mass * 9.81 * (low > 0.0 ? low : 0.0) + 1e-9;
        } else if (flying && low > 0.01) {
            fs->drift = fmax(fs->drift, fabs(ke + pe - e0) / scale);
        } else {
            flying = 0;
        }
        for (int j = 0; j < m->nv; j++) {
            if (m->link_has_limits[j]) fs->overrun = fmax(fs->overrun, fmax(m->link_limits[2 * j] - d->q[j], d->q[j] - m->link_limits[2 * j + 1]));
        }
        if (s == steps) salto_com(m, d, fs->com, NULL);
    }
    salto_sim_destroy(sim);
    salto_ragdoll_destroy(r);
    salto_data_destroy(d);
    return status;
}


int bench_ragdoll(int argc, char** argv) {
    int quick = 0, reps = -1, crowd = 0;
    const char* root = ".";
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            printf("usage: salto bench ragdoll [--quick] [--crowd N] [--root DIR]\n\n"
                   "The particle ragdoll (Rosen 2007, salto/ragdoll.h) against the simulator's\n"
                   "articulated ragdoll (salto/sim.h, tracking off), the shipped humanoid limp\n"
                   "from the same start: dropped 1.3 m with a pose within its limits and joint\n"
                   "velocities up to 1 rad/s, 3 s at 1 ms, one thread. Prints for each: CPU time\n"
                   "a step, the real-time factor, the joints' worst overrun of their limits, the\n"
                   "lowest surface point, the energy's largest change in flight (as a share of the\n"
                   "start's energy above the ground), and how far apart the two falls' centres of\n"
                   "mass end; then a crowd of 100 such humanoids (each its own start), 2 s, each\n"
                   "way, with the real-time factor.\n\n"
                   "  --quick     1 s falls and a crowd of 4 (a smoke test)\n"
                   "  --crowd N   the crowd's humanoids (1 to 1000; default 100)\n");
            return 0;
        }
        if (strcmp(argv[i], "--crowd") == 0 && i + 1 < argc) {
            if (app_parse_int("bench ragdoll", "--crowd", argv[++i], 1, 1000, &crowd) != 0) return 2;
            continue;
        }
        const int taken = bench_shared_opt(argc, argv, &i, &quick, &reps, &root);
        if (taken < 0) return 2;
        if (!taken) {
            fprintf(stderr, "salto bench ragdoll: unknown or incomplete option '%s'\n", argv[i]);
            return 2;
        }
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/data/characters/humanoid22.yaml", root);
    salto_error err = {0};
    salto_model* m = salto_model_load(path, &err);
    if (!m) {
        fprintf(stderr, "salto bench ragdoll: %s\n", err.msg);
        return 2;
    }
    const int steps = quick ? 1000 : 3000;
    printf("salto bench ragdoll: the humanoid (%d DOFs) limp, dropped 1.3 m, %.1f s at 1 ms, one thread\n",
           m->nv, steps * 1e-3);
    printf("%-22s %9s %11s %13s %14s %15s\n", "ragdoll", "us/step", "x realtime", "overrun (rad)",
           "lowest (m)", "drift in flight");
    fall_stats fs[2];
    static const char* const names[2] = {"articulated (sim)", "particles (Rosen)"};
    int status = 0;
    for (int method = 0; method < 2 && status == 0; method++) {
        status = fall(m, method, 0, steps, &fs[method]);
        if (status) {
            fprintf(stderr, "salto bench ragdoll: the %s fall failed\n", names[method]);
            break;
        }
        const double us = 1e6 * fs[method].cpu / steps;
        printf("%-22s %9.1f %11.1f %13.4f %14.4f %15.2e\n", names[method], us, 1e3 / us,
               fs[method].overrun, fs[method].low, fs[method].drift);
    }
    if (status == 0) {
        double dc = 0.0;
        for (int a = 0; a < 3; a++) dc += (fs[0].com[a] - fs[1].com[a]) * (fs[0].com[a] - fs[1].com[a]);
        printf("the two falls' centres of mass end %.3f m apart\n", sqrt(dc));
    }
    const int n = crowd > 0 ? crowd : quick ? 4 : 100, csteps = quick ? 500 : 2000;
    if (status == 0) {
        printf("\nA crowd: %d humanoids, each its own start, %.1f s at 1 ms, one thread (a member\n"
               "whose step fails, a simulation blowing up, is counted and its time up to then kept)\n",
               n, csteps * 1e-3);
        printf("%-22s %10s %11s %8s\n", "ragdoll", "CPU (s)", "x realtime", "failed");
    }
    for (int method = 0; method < 2 && status == 0; method++) {
        double cpu = 0.0;
        int failed = 0;
        for (int c = 0; c < n; c++) {
            fall_stats one;
            failed += fall(m, method, c, csteps, &one);
            cpu += one.cpu;
        }
        printf("%-22s %10.2f %11.2f %8d\n", names[method], cpu, csteps * 1e-3 / cpu, failed);
    }
    salto_model_destroy(m);
    return status;
}
