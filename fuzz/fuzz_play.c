// fuzz_play.c: libFuzzer harness for salto play on fuzzed motions: any bytes, read as a
// motion.json or as CSV frames on the high-bar dismount or the monkey bars (the first byte
// chooses: bit 0 the format, bit 1 the problem, bits 2-3 the step, bits 4-5 limp or not, and on
// the monkey bars as the particle ragdoll, bit 7 raw values instead of a file:
// fuzz_motion_open.h), then what opens played by the stepping simulator as apps/cmd_play.c
// plays it (the problem's ground, bars and boxes; the bar phases' holds and grips; the joints
// tracking the motion), for at most max_steps steps so that an input takes milliseconds. The
// simulator either stops with an error that says why or keeps its state and contact forces
// finite (sim.h: SALTO_ERR_NUMERIC when the state stops being finite); never a crash or a leak.
#include "fuzz_motion_open.h"
#include "salto/kinematics.h"
#include "salto/ragdoll.h"
#include "salto/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerInitialize(int* argc, char*** argv);

enum { max_steps = 60 };

static fuzz_problem problems[2] = {{.rel = "problems/highbar_dismount.yaml"},
                                   {.rel = "problems/monkey_bars.yaml"}};

int LLVMFuzzerInitialize(int* argc, char*** argv) {
    (void)argc, (void)argv;
    fuzz_problems_load(problems, 2);
    return 0;
}

// the problem's floor, bars and boxes, as cmd_play.c's ground_from, bars_from and boxes_from
static void world_from(const salto_problem_desc* p, salto_sim_opts* o) {
    int friction = 0, plane = 0;
    for (int i = 0; i < p->nphase && !plane; i++) {
        const salto_contact_desc* c = &p->phases[i].contact;
        if (c->type != SALTO_CONTACT_GROUND) continue;
        if (!friction) o->friction = c->friction, friction = 1;
        if (c->box >= 0) continue; // a box's top: not the floor
        memcpy(o->ground_normal, c->normal, 3 * sizeof(double));
        o->ground_height = c->height;
        plane = 1;
    }
    int have = 0; // else the highest above_ground plane
    for (int k = 0; k < p->ncon && !plane; k++) {
        if (p->cons[k].type != SALTO_CON_ABOVE_GROUND) continue;
        o->ground_height = have ? fmax(o->ground_height, p->cons[k].height) : p->cons[k].height;
        have = 1;
    }
    for (int i = 0; i < p->nphase; i++) {
        const salto_contact_desc* c = &p->phases[i].contact;
        if (c->type != SALTO_CONTACT_BAR || o->nbar == SALTO_SIM_MAX_BARS) continue;
        int seen = 0;
        for (int b = 0; b < o->nbar; b++) {
            seen |= memcmp(o->bar_point[b], c->bar_point, sizeof c->bar_point) == 0 &&
                    memcmp(o->bar_axis[b], c->bar_axis, sizeof c->bar_axis) == 0;
        }
        if (seen) continue;
        memcpy(o->bar_point[o->nbar], c->bar_point, sizeof c->bar_point);
        memcpy(o->bar_axis[o->nbar], c->bar_axis, sizeof c->bar_axis);
        o->nbar++;
    }
    o->nbox = p->nbox < SALTO_SIM_MAX_BOXES ? p->nbox : SALTO_SIM_MAX_BOXES;
    for (int b = 0; b < o->nbox; b++) {
        memcpy(o->box_lo[b], p->boxes[b].lo, sizeof o->box_lo[b]);
        memcpy(o->box_hi[b], p->boxes[b].hi, sizeof o->box_hi[b]);
        o->box_yaw[b] = p->boxes[b].yaw;
    }
}

// after a step that returned, the state is finite (sim.h), and so are the contacts' forces
static void check_finite(const salto_model* m, salto_sim* sim, const char* what, double t) {
    const salto_sim_contact* cs = NULL;
    const int nc = salto_sim_contacts(sim, &cs);
    int ok = fuzz_finite(salto_sim_q(sim), (size_t)m->nv) && fuzz_finite(salto_sim_qd(sim), (size_t)m->nv);
    for (int c = 0; c < nc; c++) ok = ok && fuzz_finite(cs[c].force, 3);
    if (!ok) {
        fprintf(stderr, "fuzz_play: %s at t = %g returned with the state or a contact force not finite\n", what, t);
        __builtin_trap();
    }
}

static void play(const salto_problem_desc* p, salto_state_fn state, void* ctx, int mode) {
    const salto_model* m = p->model;
    const int nv = m->nv;
    static const double steps[4] = {1e-3, 4e-3, 1e-2, 2.5e-2};
    const double dt = steps[(mode >> 2) & 3];
    const int limp = (mode >> 4) & 3; // 0, 1: tracking throughout; 2: limp half way; 3: particles
    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.dt = dt;
    world_from(p, &o);
    salto_sim* sim = salto_sim_create(m, &o);
    salto_ragdoll* rd = NULL;
    if (sim && limp == 3) {
        salto_ragdoll_opts ro;
        salto_ragdoll_default_opts(&ro);
        ro.ground_height = o.ground_height;
        ro.nbar = o.nbar, ro.bar_radius = o.bar_radius;
        memcpy(ro.bar_point, o.bar_point, sizeof ro.bar_point);
        memcpy(ro.bar_axis, o.bar_axis, sizeof ro.bar_axis);
        salto_error rerr = {0};
        rd = salto_ragdoll_create(m, &ro, &rerr);
        if (!rd) fuzz_check_error(&rerr); // (the planar gymnast: refused)
    }
    double* q = calloc((size_t)nv * 3, sizeof(double));
    salto_data* d = salto_data_create(m);
    salto_data* dm = salto_data_create(m);
    if (!sim || !q || !d || !dm) abort();
    for (int i = 0; i < p->nphase; i++) {
        const salto_contact_desc* c = &p->phases[i].contact;
        for (int k = 0; c->type == SALTO_CONTACT_BAR && k < c->nsite; k++) {
            salto_sim_ignore_bars(sim, m->site_link[c->site[k]]);
        }
    }
    double *qd = q + nv, *qdd = qd + nv;
    const double T = p->duration, eps = 1e-9 * (1.0 + T);
    state(ctx, eps, q, qd, qdd);
    salto_sim_set_state(sim, q, qd);
    // the motion's energy and lowest centre of mass at a few times (cmd_play.c's blow-up and
    // fall references), its kinematics on whatever the motion holds
    for (int k = 0; k <= 8; k++) {
        state(ctx, fmin(fmax(T * k / 8.0, eps), T - eps), d->q, d->qd, d->qdd);
        salto_fk(m, d, SALTO_FK_VEL);
        salto_link_inertias(m, d);
        double ke = 0.0, c[3];
        salto_energy(m, d, &ke, NULL);
        salto_com(m, d, c, NULL);
    }
    const long nstep = lround(fmin((T + 0.5) / dt, (double)max_steps));
    // limp half way, or as the particle ragdoll for the last few steps (each costs about as
    // much as ten of the simulator's under the sanitizers)
    const double limp_from = limp == 2 ? 0.5 * nstep * dt : limp == 3 ? (nstep - 4) * dt - 0.5 * dt : INFINITY;
    int phase = -1, limp_now = 0;
    double tp = 0.0;
    salto_error err = {0};
    double* frames = malloc((size_t)(nstep + 1) * (size_t)nv * sizeof(double));
    int nframe = 0;
    if (!frames) abort();
    for (long k = 0; k <= nstep; k++) {
        const double t = limp_now ? tp : salto_sim_time(sim);
        int ph = p->nphase - 1;
        while (ph > 0 && t < p->phases[ph].start) ph--;
        if (ph != phase && !limp_now) {
            // the bar phase's holds where the motion has the hands at its start, and the grip
            salto_sim_release_all(sim);
            const salto_contact_desc* ct = &p->phases[ph].contact;
            if (ct->type == SALTO_CONTACT_BAR && ct->hold) {
                state(ctx, p->phases[ph].start + eps, dm->q, dm->qd, dm->qdd);
                salto_fk(m, dm, SALTO_FK_POS);
                for (int c = 0; c < ct->nsite; c++) {
                    double x[3];
                    salto_site_pos(m, dm, ct->site[c], x);
                    (void)salto_sim_hold(sim, ct->site[c], x);
                }
                if (ct->nsite > 0) (void)salto_sim_grip(sim, m->site_link[ct->site[0]], ct->bar_axis, ct->torque_max);
            }
            phase = ph;
        }
        if (t <= T) {
            state(ctx, fmin(fmax(t, eps), T - eps), q, qd, qdd);
        } else {
            state(ctx, T - eps, q, qd, qdd);
            memset(qd, 0, 2 * (size_t)nv * sizeof(double));
        }
        if (t < limp_from) {
            salto_sim_track(sim, q, qd, qdd, 400.0, 40.0);
        } else {
            salto_sim_track(sim, NULL, NULL, NULL, 0.0, 0.0);
        }
        memcpy(frames + (size_t)nframe++ * nv, salto_sim_q(sim), (size_t)nv * sizeof(double));
        if (k == nstep) break;
        salto_status stepped;
        if (rd && t >= limp_from) {
            stepped = SALTO_OK;
            if (!limp_now) {
                memcpy(dm->q, salto_sim_q(sim), (size_t)nv * sizeof(double));
                memcpy(dm->qd, salto_sim_qd(sim), (size_t)nv * sizeof(double));
                stepped = salto_ragdoll_set_state(rd, dm, dt);
                limp_now = 1, tp = t;
                salto_sim_release_all(sim);
            }
            if (stepped == SALTO_OK) stepped = salto_ragdoll_step(rd);
            if (stepped == SALTO_OK) stepped = salto_ragdoll_get_state(rd, dm);
            if (stepped == SALTO_OK) {
                // ragdoll.h: the state it returns is finite
                if (!fuzz_finite(dm->q, (size_t)nv) || !fuzz_finite(dm->qd, (size_t)nv)) {
                    fprintf(stderr, "fuzz_play: the particle ragdoll returned a state not finite at t = %g\n", tp);
                    __builtin_trap();
                }
                salto_sim_set_state(sim, dm->q, dm->qd);
                tp += dt;
            }
        } else {
            stepped = salto_sim_step(sim, &err);
            if (stepped != SALTO_OK) {
                fuzz_check_error(&err);
            } else {
                check_finite(m, sim, "salto_sim_step", t);
                (void)salto_sim_tracking_torques(sim);
                for (int g = 0; g < SALTO_SIM_MAX_HOLDS; g++) (void)salto_sim_grip_torque(sim, g);
            }
        }
        if (stepped != SALTO_OK) break;
    }
    // the frames in the character's chart, as sim.json and sim.csv write them
    salto_motion rm = {0};
    rm.nv = nv, rm.nframe = nframe, rm.frame_rate = 1.0 / dt, rm.duration = (nframe - 1) * dt;
    rm.dof_name = m->link_name, rm.q = frames, rm.converged = -1;
    rm.root_turned = p->root_turned;
    memcpy(rm.root_ref, p->root_ref, sizeof rm.root_ref);
    memcpy(rm.root_anchor, p->root_anchor, sizeof rm.root_anchor);
    salto_free(salto_motion_character_q(&rm));
    free(frames);
    salto_data_destroy(dm);
    salto_data_destroy(d);
    free(q);
    salto_sim_destroy(sim), salto_ragdoll_destroy(rd);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const int csv = data[0] & 1;
    const fuzz_problem* fp = &problems[(data[0] >> 1) & 1];
    static char paths[2][600];
    if (!paths[csv][0]) snprintf(paths[csv], sizeof paths[csv], "%s%s", fuzz_input_path(""), csv ? ".csv" : ".json");
    fuzz_motion fm;
    int opened;
    if (data[0] & 0x80) {
        opened = fuzz_motion_values(&fm, data + 1, size - 1, fp);
    } else {
        fuzz_write(paths[csv], data + 1, size - 1);
        opened = fuzz_motion_open(&fm, paths[csv], csv, fp);
    }
    if (opened) play(fm.p, fm.state, fm.ctx, data[0]);
    fuzz_motion_close(&fm);
    return 0;
}
