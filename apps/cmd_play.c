// cmd_play.c: salto play MOTION: the motion played back under physics by the stepping
// simulator, its joints tracking the motion, optionally pushed or gone limp
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_motion.h"
#include "cmds.h"
#include "salto/budget.h"
#include "json_out.h"
#include "salto/atomic.h"
#include "salto/kinematics.h"
#include "salto/ragdoll.h"
#include "salto/sim.h"

static void help(void) {
    printf("usage: salto play MOTION [--problem P] [-o DIR] [--dt S] [--duration S]\n"
           "                  [--push BODY:FX,FY,FZ@T[:DURATION]]... [--ragdoll-after T]\n"
           "                  [--kp K] [--kd D] [--method delta|test-forces] [--no-grip]\n"
           "                  [--fall-height H] [--view side|front|top] [--quiet]\n"
           "                  [--adaptive N] [--adaptive-error EPS] [--adaptive-period P]\n"
           "                  [--ragdoll articulated|particles] [--limp T]\n"
           "       salto play MOTION --react FILE|SPEC [--problem P] [-o DIR] [--dt S] [--view V]\n\n"
           "Plays a motion (motion.json from 'salto solve', or CSV or BVH frames with --problem)\n"
           "under physics in the stepping simulator: the character starts in the motion's first\n"
           "state, its joints follow the motion through acceleration constraints (qdd = qdd_m +\n"
           "kp (q_m - q) + kd (qd_m - qd)), its geometry meets the ground with friction and\n"
           "impacts, its other parts meet the problem's bars and boxes, its joints stop at\n"
           "their limits, and in the bar phases its hands hold the bar: held at their place,\n"
           "and gripping it with a torque about the bar's axis of at most the phase's\n"
           "torque_max that turns the hand as the motion does. After the motion ends the last\n"
           "pose (and grip) is held.\n\n"
           "Writes DIR/sim.json (settings, statistics, every frame), DIR/sim.csv (t, the DOFs,\n"
           "the tracking error, the contact count, the total contact force and the grips'\n"
           "torque about the bar per frame) and DIR/filmstrip.png, each atomically, and prints\n"
           "the tracking error, how far the root and the centre of mass strayed from the\n"
           "motion's, whether and when the character fell (its centre of mass under the fall\n"
           "height, or a body touching that no phase of the problem puts in contact), and the\n"
           "number of contacts, impacts and limit events. A simulation that blows up (a state\n"
           "not finite, a joint spinning past 1000 rad/s, or kinetic energy past 100 times the\n"
           "motion's largest plus the weight falling 1 m) stops with a message naming the time\n"
           "and the cause, and what was computed before is written. Exit status: 0, 1 when the\n"
           "simulation blew up, 2 for bad input.\n\n"
           "  --problem P        the problem (default: the one the motion names, with the\n"
           "                     overrides it was solved with but the initial guess's)\n"
           "  -o DIR             where to write (default: play/ in the motion's folder, so that\n"
           "                     the solver's filmstrip.png stays)\n"
           "  --dt S             the simulator's step (default 0.001 s)\n"
           "  --duration S       how long to play (default: the motion's duration + 0.5 s)\n"
           "  --max-steps N      the simulator's steps at most (default 1e8, minutes of work):\n"
           "                     a --dt and --duration making more are refused before playing\n"
           "  --push BODY:FX,FY,FZ@T[:DURATION]   a force (N, world) on the body's origin from\n"
           "                     time T for DURATION s (default 0.1)\n"
           "  --ragdoll-after T  tracking off from time T: the character goes limp (--limp T\n"
           "                     says the same)\n"
           "  --kp K, --kd D     tracking gains (default 400 /s^2, 40 /s: critically damped at\n"
           "                     20 rad/s)\n"
           "  --method M         the constraint matrix by the delta method (default) or by a\n"
           "                     full pass per test force\n"
           "  --no-grip          the hands hold the bar at a point but cannot resist turning\n"
           "                     on it (a hinge)\n"
           "  --fall-height H    the centre of mass's height (m) under which the character has\n"
           "                     fallen (default: half the lowest the motion's goes)\n"
           "  --view V           filmstrip.png seen from the side, the front or above (default:\n"
           "                     the problem's output.filmstrip_view, side unless it says)\n"
           "  --quiet            no summary\n");
    printf("  --adaptive N       after --ragdoll-after, adaptive dynamics (Redon et al. 2005):\n"
           "                     at most N joints simulated (a joint: the 1 to 6 DOFs that\n"
           "                     move a body), the others locked, the active ones chosen again\n"
           "                     every P steps by how much their accelerations and velocities\n"
           "                     matter (the contact forces among the forces)\n"
           "  --adaptive-error EPS  the same, the joints chosen until the acceleration metric\n"
           "                     left out (sum of qdd^2, rad^2/s^4) is at most EPS, and the\n"
           "                     velocity metric at most EPS dt^2 (with --adaptive: both bounds)\n"
           "  --adaptive-period P  steps between the choices (default 10)\n"
           "  --ragdoll MODEL    after --ragdoll-after, the limp character as the simulator's\n"
           "                     articulated bodies (articulated, the default) or as Rosen's\n"
           "                     particle ragdoll (particles: points, Verlet steps and angular\n"
           "                     constraints, docs/simulation.md; three-dimensional characters\n"
           "                     with revolute joints; it meets the ground and the bars: no\n"
           "                     holds, pushes or boxes after the switch); without --ragdoll-after,\n"
           "                     limp when the motion ends\n");
    printf("\nWith --react, simulated reactions blended into the motion (de Heras 2002,\n"
           "docs/simulation.md) instead of the stepping simulator: from each reaction's time a\n"
           "force or an impulse on a body, the bodies it simulates moving under it by hybrid\n"
           "dynamics (their base and every other joint following the motion, pulled back toward\n"
           "it), blended into the motion per body with weights ramped in and out. FILE: a YAML\n"
           "file with a 'reactions' list (the problem file's own, or a file of its own); SPEC:\n"
           "one reaction as a YAML map, '{body: hand_r, force: [0, 300, 0], time: 0.5,\n"
           "simulate: upper_arm_r}', or BODY:FX,FY,FZ@T[:PUSH] with the other settings'\n"
           "defaults. Writes DIR/motion.csv (the blended motion, on the character's DOFs, for\n"
           "salto validate and salto view), DIR/react.json (the settings, what each reaction\n"
           "did, the frames and weights) and DIR/filmstrip.png; DIR defaults to react/ beside\n"
           "the motion.\n"
           "  --react FILE|SPEC  the reactions (the option may not be combined with the\n"
           "                     simulator's: --push, --ragdoll*, --limp, --adaptive*, --kp,\n"
           "                     --kd, --method, --no-grip, --duration, --fall-height)\n");
}

enum { max_push = 32 };

typedef struct push {
    int body;
    double f[3];
    double t0, dur;
} push;


// BODY:FX,FY,FZ@T[:DURATION]; the body resolved later (its name kept in name)
static int parse_push(const char* arg, push* p, char* name, size_t nname) {
    const char* colon = strchr(arg, ':');
    const char* at = colon ? strchr(colon, '@') : NULL;
    if (!colon || !at || colon == arg) return 0;
    snprintf(name, nname, "%.*s", (int)(colon - arg), arg);
    char* end = NULL;
    const char* s = colon + 1;
    for (int k = 0; k < 3; k++) {
        p->f[k] = strtod(s, &end);
        if (end == s || !isfinite(p->f[k])) return 0;
        if (k < 2) {
            if (*end != ',') return 0;
            s = end + 1;
        }
    }
    if (end != at) return 0;
    p->t0 = strtod(at + 1, &end);
    if (end == at + 1 || !(p->t0 >= 0.0) || !isfinite(p->t0)) return 0;
    p->dur = 0.1;
    if (*end == ':') {
        const char* d = end + 1;
        p->dur = strtod(d, &end);
        if (end == d || !(p->dur > 0.0) || !isfinite(p->dur)) return 0;
    }
    return *end == '\0';
}


static int parse_pos(const char* opt, const char* arg, double* out) {
    char* end = NULL;
    const double v = strtod(arg, &end);
    if (end == arg || *end || !(v > 0.0) || !isfinite(v)) {
        fprintf(stderr, "salto play: %s needs a number > 0, not '%s'\n", opt, arg);
        return 0;
    }
    *out = v;
    return 1;
}


// the problem's bars (each distinct point and axis of its bar contacts, at most 4)
static void bars_from(const salto_problem_desc* p, salto_sim_opts* o) {
    for (int i = 0; i < p->nphase; i++) {
        const salto_contact_desc* c = &p->phases[i].contact;
        if (c->type != SALTO_CONTACT_BAR) continue;
        int seen = 0;
        for (int b = 0; b < o->nbar; b++) {
            seen |= memcmp(o->bar_point[b], c->bar_point, sizeof c->bar_point) == 0 &&
                    memcmp(o->bar_axis[b], c->bar_axis, sizeof c->bar_axis) == 0;
        }
        if (seen || o->nbar == SALTO_SIM_MAX_BARS) continue;
        memcpy(o->bar_point[o->nbar], c->bar_point, sizeof c->bar_point);
        memcpy(o->bar_axis[o->nbar], c->bar_axis, sizeof c->bar_axis);
        o->nbar++;
    }
}


// the problem's boxes (the first SALTO_SIM_MAX_BOXES)
static void boxes_from(const salto_problem_desc* p, salto_sim_opts* o) {
    o->nbox = p->nbox < SALTO_SIM_MAX_BOXES ? p->nbox : SALTO_SIM_MAX_BOXES;
    for (int b = 0; b < o->nbox; b++) {
        memcpy(o->box_lo[b], p->boxes[b].lo, sizeof o->box_lo[b]);
        memcpy(o->box_hi[b], p->boxes[b].hi, sizeof o->box_hi[b]);
        o->box_yaw[b] = p->boxes[b].yaw;
    }
}


// the ground the problem stands on: its first ground contact's friction, and the plane of the
// first not on a box; else the highest above_ground plane, else z = 0
static void ground_from(const salto_problem_desc* p, salto_sim_opts* o) {
    int friction = 0;
    for (int i = 0; i < p->nphase; i++) {
        const salto_contact_desc* c = &p->phases[i].contact;
        if (c->type != SALTO_CONTACT_GROUND) continue;
        if (!friction) o->friction = c->friction, friction = 1;
        if (c->box >= 0) continue; // a box's top: not the floor
        memcpy(o->ground_normal, c->normal, 3 * sizeof(double));
        o->ground_height = c->height;
        return;
    }
    int have = 0;
    for (int k = 0; k < p->ncon; k++) {
        if (p->cons[k].type != SALTO_CON_ABOVE_GROUND) continue;
        o->ground_height = have ? fmax(o->ground_height, p->cons[k].height) : p->cons[k].height;
        have = 1;
    }
}


typedef struct record {
    int n, cap, nv;
    double *t, *q, *err, *force, *grip;
    int* contacts;
} record;

static int record_frame(record* r, double t, const double* q, double err, int nc,
                        const double f[3], double grip) {
    if (r->n == r->cap) {
        const int cap = r->cap ? 2 * r->cap : 256;
        double* t2 = realloc(r->t, (size_t)cap * sizeof(double));
        if (t2) r->t = t2;
        double* q2 = realloc(r->q, (size_t)cap * (size_t)r->nv * sizeof(double));
        if (q2) r->q = q2;
        double* e2 = realloc(r->err, (size_t)cap * sizeof(double));
        if (e2) r->err = e2;
        double* f2 = realloc(r->force, (size_t)cap * 3 * sizeof(double));
        if (f2) r->force = f2;
        int* c2 = realloc(r->contacts, (size_t)cap * sizeof(int));
        if (c2) r->contacts = c2;
        double* g2 = realloc(r->grip, (size_t)cap * sizeof(double));
        if (g2) r->grip = g2;
        if (!t2 || !q2 || !e2 || !f2 || !c2 || !g2) return 0;
        r->cap = cap;
    }
    r->t[r->n] = t;
    memcpy(r->q + (size_t)r->n * r->nv, q, (size_t)r->nv * sizeof(double));
    r->err[r->n] = err;
    r->contacts[r->n] = nc;
    memcpy(r->force + 3 * (size_t)r->n, f, 3 * sizeof(double));
    r->grip[r->n] = grip;
    r->n++;
    return 1;
}


// the recorded frames as a motion on p's model, in its chart (a turned problem's root angles
// in the turned chart, salto_problem_turn_root); the frames borrowed
static salto_motion record_motion(const salto_problem_desc* p, const record* r, double rate) {
    salto_motion mo = {0};
    mo.nv = p->model->nv, mo.nframe = r->n, mo.frame_rate = rate;
    mo.duration = r->n > 0 ? r->t[r->n - 1] : 0.0;
    mo.dof_name = p->model->link_name;
    mo.q = r->q;
    mo.converged = -1;
    mo.root_turned = p->root_turned;
    memcpy(mo.root_ref, p->root_ref, sizeof mo.root_ref);
    memcpy(mo.root_anchor, p->root_anchor, sizeof mo.root_anchor);
    return mo;
}


// sim.csv; q: the frames in the character's chart (salto_motion_character_q)
static salto_status write_csv(const salto_problem_desc* p, const record* r, const double* q,
                              const char* path, salto_error* err) {
    const salto_model* m = p->model;
    salto_atomic a;
    salto_status s = salto_atomic_open(&a, path, 1, err);
    if (s) return s;
    fputs("t", a.f);
    for (int j = 0; j < m->nv; j++) {
        fputc(',', a.f);
        salto_csv_field(a.f, m->link_name[j]);
    }
    fputs(",tracking_error,contacts,force_x,force_y,force_z,grip_torque\n", a.f);
    for (int k = 0; k < r->n; k++) {
        fprintf(a.f, "%.10g", r->t[k]);
        for (int j = 0; j < m->nv; j++) fprintf(a.f, ",%.17g", q[(size_t)k * r->nv + j]);
        fprintf(a.f, ",%.6g,%d,%.6g,%.6g,%.6g,%.6g\n", r->err[k], r->contacts[k], r->force[3 * k],
                r->force[3 * k + 1], r->force[3 * k + 2], r->grip[k]);
    }
    return salto_atomic_commit(&a, err);
}


typedef struct summary {
    double dt, duration, kp, kd, rms, worst, worst_time;
    int max_contacts;
    const salto_sim_stats* stats;
    double ragdoll;                       // the limp time (infinite: none)
    double ragdoll_start;                 // when the particle ragdoll took over (NAN: never)
    long ragdoll_steps;                   //   and its steps
    int particles, points;                // the particle ragdoll: on, its points
    int adaptive, budget, period, joints; // adaptive dynamics: on, its settings, the joints
    double eps, active_sum;               //   the character has; the active joints summed
    long active_steps;                    //   over the steps after the ragdoll time
    double stop_time;      // NAN when it ran through
    char stop_cause[480];
    double root_dev, root_dev_time; // the root's and the centre of mass's largest distance
    double com_dev, com_dev_time;   //   from the motion's, m, and when
    double fall_height;    // m
    double fall_time;      // NAN when it did not fall
    char fall_cause[240];
} summary;

// an event as JSON: null when it did not happen (time NaN), else {"time": T, "cause": "..."}
static void json_event(FILE* f, double time, const char* cause) {
    if (isnan(time)) {
        fputs("null", f);
        return;
    }
    fputs("{\"time\": ", f);
    salto_json_num(f, time);
    fputs(", \"cause\": ", f);
    salto_json_str(f, cause);
    fputs("}", f);
}

// {"worst": w, "time": t}
static void json_worst(FILE* f, double w, double t) {
    fputs("{\"worst\": ", f);
    salto_json_num(f, w);
    fputs(", \"time\": ", f);
    salto_json_num(f, t);
    fputc('}', f);
}


// sim.json; q: the frames in the character's chart, as sim.csv's
static salto_status write_json(const salto_model* m, const record* r, const double* q,
                               const summary* sm, const char* motion_path,
                               const char* problem_path, const char* path, salto_error* err) {
    salto_atomic a;
    salto_status s = salto_atomic_open(&a, path, 1, err);
    if (s) return s;
    FILE* f = a.f;
    fputs("{\n  \"motion\": ", f);
    salto_json_str(f, motion_path);
    fputs(",\n  \"problem\": ", f);
    salto_json_str(f, problem_path);
    fputs(",\n  \"dt\": ", f);
    salto_json_num(f, sm->dt);
    fputs(", \"duration\": ", f);
    salto_json_num(f, sm->duration);
    fputs(", \"kp\": ", f);
    salto_json_num(f, sm->kp);
    fputs(", \"kd\": ", f);
    salto_json_num(f, sm->kd);
    fputs(",\n  \"tracking_error\": {\"rms\": ", f);
    salto_json_num(f, sm->rms);
    fputs(", \"worst\": ", f);
    salto_json_num(f, sm->worst);
    fputs(", \"time\": ", f);
    salto_json_num(f, sm->worst_time);
    fprintf(f, "},\n  \"stats\": {\"steps\": %ld, \"substeps\": %ld, \"halvings\": %ld, "
               "\"impacts\": %ld, \"limit_events\": %ld, \"pgs_sweeps\": %ld, \"pgs_solves\": %ld, "
               "\"pgs_capped\": %ld, \"pgs_subspace\": %ld, \"max_contacts\": %d, \"max_depth\": ",
            sm->stats->steps, sm->stats->substeps, sm->stats->halvings, sm->stats->impacts,
            sm->stats->limit_events, sm->stats->pgs_sweeps, sm->stats->pgs_solves,
            sm->stats->pgs_capped, sm->stats->pgs_subspace, sm->max_contacts);
    salto_json_num(f, sm->stats->max_depth);
    fputs(", \"max_residual\": ", f);
    salto_json_num(f, sm->stats->max_residual);
    fputs("},\n  \"adaptive\": ", f);
    if (!sm->adaptive) {
        fputs("null", f);
    } else {
        fputs("{\"budget\": ", f);
        if (sm->budget > 0) fprintf(f, "%d", sm->budget); else fputs("null", f);
        fputs(", \"error\": ", f);
        if (sm->eps > 0.0) salto_json_num(f, sm->eps); else fputs("null", f);
        fprintf(f, ", \"period\": %d, \"joints\": %d, \"active_joints_mean\": ", sm->period, sm->joints);
        salto_json_num(f, sm->active_steps > 0 ? sm->active_sum / (double)sm->active_steps : NAN);
        fputs("}", f);
    }
    fputs(",\n  \"ragdoll\": ", f);
    if (!isfinite(sm->ragdoll)) {
        fputs("null", f);
    } else {
        fprintf(f, "{\"model\": \"%s\", \"time\": ", sm->particles ? "particles" : "articulated");
        salto_json_num(f, sm->ragdoll);
        if (sm->particles) {
            fprintf(f, ", \"points\": %d, \"start\": ", sm->points);
            salto_json_num(f, sm->ragdoll_start); // (null when the time never came)
            fprintf(f, ", \"steps\": %ld", sm->ragdoll_steps);
        }
        fputs("}", f);
    }
    fputs(",\n  \"deviation\": {\"root\": ", f);
    json_worst(f, sm->root_dev, sm->root_dev_time);
    fputs(", \"com\": ", f);
    json_worst(f, sm->com_dev, sm->com_dev_time);
    fputs("},\n  \"fall_height\": ", f);
    salto_json_num(f, sm->fall_height);
    fputs(", \"fell\": ", f);
    json_event(f, sm->fall_time, sm->fall_cause);
    fputs(",\n  \"stopped\": ", f);
    json_event(f, sm->stop_time, sm->stop_cause);
    fputs(",\n  \"dofs\": ", f);
    salto_json_strs(f, m->link_name, m->nv);
    fputs(",\n  \"frames\": {\n    \"t\": ", f);
    salto_json_nums(f, r->t, r->n, 1);
    fputs(",\n    \"tracking_error\": ", f);
    salto_json_nums(f, r->err, r->n, 1);
    fputs(",\n    \"contacts\": ", f);
    salto_json_ints(f, r->contacts, r->n);
    fputs(",\n    \"contact_force\": ", f);
    salto_json_rows(f, r->force, r->n, 3, ", ");
    fputs(",\n    \"grip_torque\": ", f);
    salto_json_nums(f, r->grip, r->n, 1);
    fputs(",\n    \"q\": ", f);
    salto_json_rows(f, q, r->n, r->nv, ",\n      ");
    fputs("\n  }\n}\n", f);
    return salto_atomic_commit(&a, err);
}


// the filmstrip of the recorded frames (a motion at the recording's rate)
static salto_status write_filmstrip(const salto_problem_desc* p, const record* r, double rate,
                                    salto_filmstrip_view view, const char* path,
                                    salto_error* err) {
    const salto_motion mo = record_motion(p, r, rate);
    return salto_motion_write_filmstrip(p, &mo, p->output.filmstrip_frames, view, path, err);
}


int play_check_size(const char* who, double dt, double duration, double max_steps, int nv,
                    double rate) {
    const double steps = duration / dt;
    if (!(steps <= max_steps)) {
        fprintf(stderr, "%s: a step of %g s over %g s makes %.2g steps: at most %.3g (--max-steps "
                        "allows more)\n", who, dt, duration, steps, max_steps);
        return 2;
    }
    // the frames recorded at the problem's rate: the state, the tracking error, the contact
    // forces, and the copies written out (sim.json, sim.csv, the filmstrip's motion)
    const double frames = duration * rate + 2.0;
    const double bytes = frames * (3.0 * 8.0 * nv + 80.0) + 8.0 * 1024.0 * 1024.0;
    char what[160];
    snprintf(what, sizeof what, "playing %g s (%.0f frames at %g per second)", duration, frames, rate);
    salto_error err = {0};
    if (salto_budget_check(bytes, salto_loc_none(), what, &err) != SALTO_OK) {
        fprintf(stderr, "%s: ", who);
        app_print_error(&err);
        return 2;
    }
    return 0;
}


int cmd_play(int argc, char** argv) {
    const char* motion_path = NULL;
    const char* problem_path = NULL;
    const char* dir = NULL;
    int quiet = 0, npush = 0, no_grip = 0, view = -1; // view: -1 the problem's
    double dt = 1e-3, duration = -1.0, ragdoll = INFINITY, kp = 400.0, kd = 40.0, fall_height = NAN;
    int adaptive = 0, budget = 0, period = 10; // adaptive dynamics (budget 0: every joint)
    int particles = 0;                         // --ragdoll particles
    double adaptive_eps = 0.0;
    double max_steps = PLAY_MAX_STEPS; // --max-steps
    salto_constraint_method method = SALTO_CONSTRAINT_ABA_DELTA;
    push pushes[max_push];
    char push_name[max_push][128];
    const char* react_arg = NULL; // --react
    const char* sim_only = NULL;  // the first simulator-only option given (not with --react)
    int ragdoll_set = 0;          // --ragdoll given
    for (int i = 1; i < argc; i++) {
        static const char* const sim_opts[] = {"--push", "--ragdoll-after", "--limp", "--ragdoll",
                                               "--adaptive", "--adaptive-error", "--adaptive-period",
                                               "--kp", "--kd", "--method", "--no-grip", "--duration",
                                               "--fall-height", NULL};
        for (int k = 0; sim_opts[k] && !sim_only; k++) {
            if (strcmp(argv[i], sim_opts[k]) == 0) sim_only = sim_opts[k];
        }
        if (app_is_help(argv[i])) {
            help();
            return 0;
        } else if (strcmp(argv[i], "--problem") == 0 && i + 1 < argc) {
            problem_path = argv[++i];
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(argv[i], "--no-grip") == 0) {
            no_grip = 1;
        } else if (strcmp(argv[i], "--view") == 0 && i + 1 < argc) {
            view = salto_filmstrip_view_parse(argv[++i]);
            if (view < 0) {
                fprintf(stderr, "salto play: --view needs side, front or top, not '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--dt") == 0 && i + 1 < argc) {
            if (!parse_pos("--dt", argv[++i], &dt)) return 2;
        } else if (strcmp(argv[i], "--duration") == 0 && i + 1 < argc) {
            if (!parse_pos("--duration", argv[++i], &duration)) return 2;
        } else if (strcmp(argv[i], "--max-steps") == 0 && i + 1 < argc) {
            char* end = NULL;
            max_steps = strtod(argv[++i], &end);
            if (end == argv[i] || *end || !(max_steps >= 1.0) || !isfinite(max_steps)) {
                fprintf(stderr, "salto play: --max-steps needs a number >= 1, not '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--react") == 0 && i + 1 < argc) {
            react_arg = argv[++i];
        } else if ((strcmp(argv[i], "--ragdoll-after") == 0 || strcmp(argv[i], "--limp") == 0) && i + 1 < argc) {
            const char* opt = argv[i];
            char* end = NULL;
            ragdoll = strtod(argv[++i], &end);
            if (end == argv[i] || *end || !(ragdoll >= 0.0) || !isfinite(ragdoll)) {
                fprintf(stderr, "salto play: %s needs a time >= 0 in seconds, not '%s'\n", opt, argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--fall-height") == 0 && i + 1 < argc) {
            char* end = NULL;
            fall_height = strtod(argv[++i], &end);
            if (end == argv[i] || *end || !isfinite(fall_height)) {
                fprintf(stderr, "salto play: --fall-height needs a height in metres, not '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--adaptive") == 0 && i + 1 < argc) {
            if (app_parse_int("play", "--adaptive", argv[++i], 1, 1000000, &budget) != 0) return 2;
            adaptive = 1;
        } else if (strcmp(argv[i], "--adaptive-error") == 0 && i + 1 < argc) {
            if (!parse_pos("--adaptive-error", argv[++i], &adaptive_eps)) return 2;
            adaptive = 1;
        } else if (strcmp(argv[i], "--adaptive-period") == 0 && i + 1 < argc) {
            if (app_parse_int("play", "--adaptive-period", argv[++i], 1, 1000000, &period) != 0) return 2;
        } else if (strcmp(argv[i], "--ragdoll") == 0 && i + 1 < argc) {
            const char* model = argv[++i];
            if (strcmp(model, "particles") == 0 || strcmp(model, "articulated") == 0) {
                particles = model[0] == 'p', ragdoll_set = 1;
            } else {
                fprintf(stderr, "salto play: --ragdoll needs articulated or particles, not '%s'\n", model);
                return 2;
            }
        } else if (strcmp(argv[i], "--kp") == 0 && i + 1 < argc) {
            if (!parse_pos("--kp", argv[++i], &kp)) return 2;
        } else if (strcmp(argv[i], "--kd") == 0 && i + 1 < argc) {
            if (!parse_pos("--kd", argv[++i], &kd)) return 2;
        } else if (strcmp(argv[i], "--method") == 0 && i + 1 < argc) {
            const char* mname = argv[++i];
            if (strcmp(mname, "delta") == 0) {
                method = SALTO_CONSTRAINT_ABA_DELTA;
            } else if (strcmp(mname, "test-forces") == 0) {
                method = SALTO_CONSTRAINT_TEST_FORCES;
            } else {
                fprintf(stderr, "salto play: --method needs delta or test-forces, not '%s'\n", mname);
                return 2;
            }
        } else if (strcmp(argv[i], "--push") == 0 && i + 1 < argc) {
            if (npush == max_push) {
                fprintf(stderr, "salto play: at most %d pushes\n", max_push);
                return 2;
            }
            if (!parse_push(argv[++i], &pushes[npush], push_name[npush], sizeof push_name[npush])) {
                fprintf(stderr, "salto play: --push needs BODY:FX,FY,FZ@T[:DURATION] (newtons, "
                                "seconds; DURATION > 0), not '%s'\n", argv[i]);
                return 2;
            }
            npush++;
        } else if (app_positional("play", argv[i], &motion_path) != 0) {
            return 2;
        }
    }
    if (!motion_path) {
        fprintf(stderr, "usage: salto play MOTION [options] (see 'salto play --help')\n");
        return 2;
    }
    if (react_arg) {
        if (sim_only) {
            fprintf(stderr, "salto play: %s is the stepping simulator's: not with --react (the "
                            "reactions are blended into the motion itself)\n", sim_only);
            return 2;
        }
        return play_react(motion_path, problem_path, dir, react_arg, dt, max_steps, view, quiet);
    }
    if (adaptive && ragdoll == INFINITY && !ragdoll_set) {
        fprintf(stderr, "salto play: --adaptive and --adaptive-error simulate passive motion: they "
                        "need --ragdoll-after T (the character limp from time T) or --ragdoll\n");
        return 2;
    }
    if (particles && adaptive) {
        fprintf(stderr, "salto play: --adaptive is the articulated ragdoll's: not with --ragdoll particles\n");
        return 2;
    }
    app_motion am;
    int status = app_motion_open(&am, "salto play", motion_path, problem_path);
    if (status != 0) {
        app_motion_close(&am);
        return status;
    }
    const salto_problem_desc* p = am.p;
    const salto_model* m = p->model;
    char folder[4096], dirbuf[4200];
    if (!dir) { // play/ beside the motion
        app_folder_of(motion_path, folder, sizeof folder);
        snprintf(dirbuf, sizeof dirbuf, "%s/play", folder);
        dir = dirbuf;
    }
    for (int k = 0; k < npush; k++) { // the pushed bodies by name
        pushes[k].body = -1;
        for (int b = 0; b < m->nbody; b++) {
            if (strcmp(m->body_name[b], push_name[k]) == 0) pushes[k].body = b;
        }
        if (pushes[k].body < 0 || m->body_link[pushes[k].body] < 0) {
            fprintf(stderr, "salto play: --push: '%s' is not a moving body of the character '%s' (bodies:",
                    push_name[k], m->name);
            for (int b = 0; b < m->nbody; b++) fprintf(stderr, "%s %s", b ? "," : "", m->body_name[b]);
            fprintf(stderr, ")\n");
            app_motion_close(&am);
            return 2;
        }
    }
    const double T = p->duration;
    if (duration < 0.0) duration = T + 0.5;
    if (play_check_size("salto play", dt, duration, max_steps, m->nv, p->output.frame_rate) != 0) {
        app_motion_close(&am);
        return 2;
    }
    // limp when the motion ends unless told when; from the step nearest that time (the
    // simulator's time is a sum of steps, a rounding either side of it)
    if (ragdoll_set && ragdoll == INFINITY) ragdoll = T;
    const double limp_from = ragdoll - 0.5 * dt;

    salto_sim_opts o;
    salto_sim_opts_default(&o);
    o.dt = dt;
    o.method = method;
    ground_from(p, &o);
    bars_from(p, &o);
    boxes_from(p, &o);
    salto_sim* sim = salto_sim_create(m, &o);
    for (int i = 0; sim && i < p->nphase; i++) { // the gripping hands wrap round the bars
        const salto_contact_desc* c = &p->phases[i].contact;
        for (int k = 0; c->type == SALTO_CONTACT_BAR && k < c->nsite; k++) {
            salto_sim_ignore_bars(sim, m->site_link[c->site[k]]);
        }
    }
    // the particle ragdoll, from the ragdoll time on (on the problem's floor, level)
    salto_ragdoll* rd = NULL;
    if (particles && sim) {
        salto_ragdoll_opts ro;
        salto_ragdoll_default_opts(&ro);
        ro.ground_height = o.ground_height;
        ro.nbar = o.nbar, ro.bar_radius = o.bar_radius; // the problem's bars
        memcpy(ro.bar_point, o.bar_point, sizeof ro.bar_point);
        memcpy(ro.bar_axis, o.bar_axis, sizeof ro.bar_axis);
        salto_error rerr = {0};
        rd = salto_ragdoll_create(m, &ro, &rerr);
        if (!rd) {
            fprintf(stderr, "salto play: --ragdoll particles: %s\n", rerr.msg);
            salto_sim_destroy(sim);
            app_motion_close(&am);
            return rerr.status == SALTO_ERR_NOMEM ? 1 : 2;
        }
        if (fabs(o.ground_normal[2]) < 1.0 - 1e-12) {
            fprintf(stderr, "salto play: warning: the problem's ground is tilted; the particle "
                            "ragdoll's is level at the same height\n");
        }
    }
    if (sim && app_check_output_dir("salto play", dir) != 0) { // before the simulation, not after
        salto_sim_destroy(sim), salto_ragdoll_destroy(rd);
        app_motion_close(&am);
        return 2;
    }
    const int nv = m->nv;
    double* q = calloc((size_t)nv * 3, sizeof(double));
    salto_data* d = salto_data_create(m);
    record rec = {0, 0, nv, NULL, NULL, NULL, NULL, NULL, NULL};
    if (!sim || !q || !d) {
        fprintf(stderr, "salto play: out of memory\n");
        salto_sim_destroy(sim), salto_ragdoll_destroy(rd), free(q), salto_data_destroy(d), app_motion_close(&am);
        return 1;
    }
    double* qd = q + nv;
    double* qdd = qd + nv;
    const double eps = 1e-9 * (1.0 + T);
    am.state(am.ctx, eps, q, qd, qdd);
    salto_sim_set_state(sim, q, qd);

    // at 200 times along the motion: its largest kinetic energy (a simulation whose kinetic
    // energy passes 100 times it plus the weight falling 1 m is blowing up) and the lowest its
    // centre of mass goes (the default fall height is half that)
    double ke_ref = 0.0, lowest = INFINITY;
    for (int k = 0; k <= 200; k++) {
        am.state(am.ctx, fmin(fmax(T * k / 200.0, eps), T - eps), d->q, d->qd, d->qdd);
        salto_fk(m, d, SALTO_FK_VEL);
        salto_link_inertias(m, d);
        double ke = 0.0, c[3];
        salto_energy(m, d, &ke, NULL);
        salto_com(m, d, c, NULL);
        ke_ref = fmax(ke_ref, ke);
        lowest = fmin(lowest, c[2]);
    }
    const double g = sqrt(m->gravity[0] * m->gravity[0] + m->gravity[1] * m->gravity[1] + m->gravity[2] * m->gravity[2]);
    const double ke_limit = 100.0 * (ke_ref + m->mass * g * 1.0);
    // the fall height: half the lowest the motion's centre of mass goes, unless given (the
    // root's own height would not do: the lamp's root is its base, on the floor); the bodies
    // the problem puts in contact (any phase's sites): a touch by another is a fall
    salto_data* dm = salto_data_create(m);
    unsigned char* contact_body = calloc((size_t)m->nbody + 1, 1);
    if (!dm || !contact_body) {
        fprintf(stderr, "salto play: out of memory\n");
        salto_data_destroy(dm), free(contact_body), free(q), salto_data_destroy(d), salto_sim_destroy(sim), salto_ragdoll_destroy(rd);
        app_motion_close(&am);
        return 1;
    }
    for (int i = 0; i < p->nphase; i++) {
        for (int c = 0; c < p->phases[i].contact.nsite; c++) contact_body[m->site_body[p->phases[i].contact.site[c]]] = 1;
    }
    if (isnan(fall_height)) fall_height = 0.5 * lowest;
    summary sm;
    memset(&sm, 0, sizeof sm);
    sm.dt = dt, sm.duration = duration, sm.kp = kp, sm.kd = kd;
    sm.stats = salto_sim_get_stats(sim);
    sm.stop_time = NAN, sm.fall_height = fall_height, sm.fall_time = NAN;
    sm.root_dev_time = sm.com_dev_time = 0.0;
    sm.ragdoll = ragdoll, sm.particles = rd != NULL, sm.points = rd ? salto_ragdoll_npoints(rd) : 0;
    sm.ragdoll_start = NAN;
    if (adaptive) {
        // the budget (every joint when only the error bounds it) and the thresholds
        for (int b = 0; b < m->nbody; b++) sm.joints += m->body_link[b] >= 0;
        const salto_adaptive_opts ao = {budget > 0 ? budget : sm.joints, adaptive_eps,
                                        adaptive_eps * dt * dt, period};
        if (salto_sim_set_adaptive(sim, &ao) != 0) {
            fprintf(stderr, "salto play: out of memory\n");
            salto_data_destroy(dm), free(contact_body), free(q), salto_data_destroy(d), salto_sim_destroy(sim), salto_ragdoll_destroy(rd);
            app_motion_close(&am);
            return 1;
        }
        sm.adaptive = 1, sm.budget = budget, sm.eps = adaptive_eps, sm.period = period;
    }
    // d: the simulation's state's kinematics and inertias (kept so after every step)
    memcpy(d->q, salto_sim_q(sim), (size_t)nv * sizeof(double));
    memcpy(d->qd, salto_sim_qd(sim), (size_t)nv * sizeof(double));
    salto_fk(m, d, SALTO_FK_VEL);
    salto_link_inertias(m, d);
    const double rate = p->output.frame_rate;
    const long nstep = lround(duration / dt);
    int phase = -1;
    double sum2 = 0.0;
    long nerr = 0;
    double next_frame = 0.0;
    salto_error err = {0};
    int limp = 0;     // the particle ragdoll steps (from the ragdoll time)
    double tp = 0.0;  //   and its time
    for (long k = 0; k <= nstep; k++) {
        const double t = limp ? tp : salto_sim_time(sim);
        // the phase at t: its bar holds (hands where the motion has them at its start)
        int ph = p->nphase - 1; // (after the motion, its last phase's holds stay)
        while (ph > 0 && t < p->phases[ph].start) ph--;
        if (ph != phase && !limp) {
            salto_sim_release_all(sim);
            if (ph >= 0 && p->phases[ph].contact.type == SALTO_CONTACT_BAR && p->phases[ph].contact.hold) {
                am.state(am.ctx, p->phases[ph].start + eps, dm->q, dm->qd, dm->qdd);
                salto_fk(m, dm, SALTO_FK_POS);
                for (int c = 0; c < p->phases[ph].contact.nsite; c++) {
                    double x[3];
                    salto_site_pos(m, dm, p->phases[ph].contact.site[c], x);
                    if (!salto_sim_hold(sim, p->phases[ph].contact.site[c], x)) {
                        fprintf(stderr, "salto play: warning: phase '%s': site '%s' cannot be "
                                        "held on the bar (fixed to the world, not at a finite "
                                        "point, or %d holds already); it is left free\n",
                                p->phases[ph].name, m->site_name[p->phases[ph].contact.site[c]],
                                SALTO_SIM_MAX_HOLDS);
                    }
                }
                // the grip: the bar's torque (within torque_max, as the solve allowed it) on
                // the first hand's link, about the bar's axis
                const salto_contact_desc* ct = &p->phases[ph].contact;
                if (ct->nsite > 0 && !no_grip &&
                    !salto_sim_grip(sim, m->site_link[ct->site[0]], ct->bar_axis, ct->torque_max)) {
                    fprintf(stderr, "salto play: warning: phase '%s': the hand cannot grip the bar "
                                    "(a bad axis or torque_max, or %d grips already); it hangs "
                                    "by a hinge\n",
                            p->phases[ph].name, SALTO_SIM_MAX_HOLDS);
                }
            }
            phase = ph;
        }
        // the target: the motion at t, its last pose held after it ends
        if (t <= T) {
            am.state(am.ctx, fmin(fmax(t, eps), T - eps), q, qd, qdd);
        } else {
            am.state(am.ctx, T - eps, q, qd, qdd);
            memset(qd, 0, (size_t)nv * sizeof(double));
            memset(qdd, 0, (size_t)nv * sizeof(double));
        }
        if (t < limp_from) {
            salto_sim_track(sim, q, qd, qdd, kp, kd);
        } else {
            salto_sim_track(sim, NULL, NULL, NULL, 0.0, 0.0);
        }
        // the tracking error: RMS over the joints of the difference from the target
        const double* qs = salto_sim_q(sim);
        double e2 = 0.0;
        for (int j = m->nroot; j < nv; j++) e2 += (qs[j] - q[j]) * (qs[j] - q[j]);
        const double e = nv > m->nroot ? sqrt(e2 / (nv - m->nroot)) : 0.0;
        if (t < limp_from) {
            sum2 += e * e, nerr++;
            if (e > sm.worst) sm.worst = e, sm.worst_time = t;
        }
        const salto_sim_contact* cs = NULL;
        const int nc = limp ? 0 : salto_sim_contacts(sim, &cs);
        if (nc > sm.max_contacts) sm.max_contacts = nc;
        // how far the root and the centre of mass are from the motion's (its last pose after
        // it ends), and whether the character fell
        {
            memcpy(dm->q, q, (size_t)nv * sizeof(double));
            salto_fk(m, dm, SALTO_FK_POS);
            salto_link_inertias(m, dm);
            // (d holds the simulation's state already: set before the loop, then after each
            // step for its kinetic energy)
            const double *Ra, *xa, *Rb, *xb;
            salto_body_frame(m, d, 0, &Ra, &xa);
            salto_body_frame(m, dm, 0, &Rb, &xb);
            double ca[3], cb[3];
            salto_com(m, d, ca, NULL);
            salto_com(m, dm, cb, NULL);
            const double dr = sqrt((xa[0] - xb[0]) * (xa[0] - xb[0]) + (xa[1] - xb[1]) * (xa[1] - xb[1]) + (xa[2] - xb[2]) * (xa[2] - xb[2]));
            const double dc = sqrt((ca[0] - cb[0]) * (ca[0] - cb[0]) + (ca[1] - cb[1]) * (ca[1] - cb[1]) + (ca[2] - cb[2]) * (ca[2] - cb[2]));
            if (dr > sm.root_dev) sm.root_dev = dr, sm.root_dev_time = t;
            if (dc > sm.com_dev) sm.com_dev = dc, sm.com_dev_time = t;
            if (isnan(sm.fall_time) && m->root_type != SALTO_ROOT_FIXED && ca[2] < sm.fall_height) {
                sm.fall_time = t;
                snprintf(sm.fall_cause, sizeof sm.fall_cause, "the centre of mass at %.3f m, under the fall height %.3f m", ca[2], sm.fall_height);
            }
            for (int c = 0; c < nc && isnan(sm.fall_time); c++) {
                const int b = cs[c].geom >= 0 ? m->geom_body[cs[c].geom] : -1;
                if (b >= 0 && !contact_body[b] && cs[c].depth > 0.0) {
                    sm.fall_time = t;
                    snprintf(sm.fall_cause, sizeof sm.fall_cause, "'%s' touched, a body no phase puts in contact", m->body_name[b]);
                }
            }
        }
        if (t >= next_frame - 1e-9 || k == nstep) {
            double f[3] = {0, 0, 0};
            for (int c = 0; c < nc; c++) {
                for (int a = 0; a < 3; a++) f[a] += cs[c].force[a];
            }
            double grip = 0.0; // the bar's torque on the hands in the last step (none limp)
            for (int k2 = 0; k2 < SALTO_SIM_MAX_HOLDS && !limp; k2++) grip += salto_sim_grip_torque(sim, k2);
            if (!record_frame(&rec, t, qs, e, nc, f, grip)) {
                fprintf(stderr, "salto play: out of memory\n");
                status = 1;
                break;
            }
            next_frame += 1.0 / rate;
        }
        if (k == nstep) break;
        // pushes acting now, on the body's origin
        salto_sim_clear_forces(sim);
        for (int a = 0; a < npush; a++) {
            if (t < pushes[a].t0 || t >= pushes[a].t0 + pushes[a].dur) continue;
            const double *R, *x;
            salto_body_frame(m, salto_sim_data(sim), pushes[a].body, &R, &x);
            salto_sim_apply_force(sim, m->body_link[pushes[a].body], pushes[a].f, x);
        }
        salto_status stepped;
        if (rd && t >= limp_from) {
            // the particle ragdoll from the simulation's state at the ragdoll time; its state
            // handed back to the simulator each step, for what follows and the frames
            stepped = SALTO_OK;
            if (!limp) {
                memcpy(dm->q, salto_sim_q(sim), (size_t)nv * sizeof(double));
                memcpy(dm->qd, salto_sim_qd(sim), (size_t)nv * sizeof(double));
                stepped = salto_ragdoll_set_state(rd, dm, dt);
                limp = 1, tp = t, sm.ragdoll_start = t;
                salto_sim_release_all(sim); // no holds or grips limp
                for (int a = 0; a < npush; a++) {
                    if (pushes[a].t0 + pushes[a].dur > t) {
                        fprintf(stderr, "salto play: warning: --push %s@%g: the particle ragdoll takes "
                                        "no pushes; from t = %.3f s it is left out\n",
                                m->body_name[pushes[a].body], pushes[a].t0, t);
                    }
                }
            }
            if (stepped == SALTO_OK) stepped = salto_ragdoll_step(rd);
            if (stepped == SALTO_OK) stepped = salto_ragdoll_get_state(rd, dm);
            if (stepped == SALTO_OK) {
                salto_sim_set_state(sim, dm->q, dm->qd);
                tp += dt, sm.ragdoll_steps++;
            } else {
                snprintf(err.msg, sizeof err.msg, "the particle ragdoll's state is not finite");
            }
        } else {
            stepped = salto_sim_step(sim, &err);
        }
        if (sm.adaptive && t >= limp_from) sm.active_sum += salto_sim_active_joints(sim), sm.active_steps++;
        if (stepped != SALTO_OK) {
            sm.stop_time = t;
            snprintf(sm.stop_cause, sizeof sm.stop_cause, "%s", err.msg);
        } else {
            const double* v = salto_sim_qd(sim);
            for (int j = 0; j < nv && isnan(sm.stop_time); j++) {
                if (fabs(v[j]) > 1e3) {
                    sm.stop_time = limp ? tp : salto_sim_time(sim);
                    snprintf(sm.stop_cause, sizeof sm.stop_cause, "DOF '%s' spins at %.3g (rad or m)/s: "
                             "the simulation is blowing up", m->link_name[j], v[j]);
                }
            }
            memcpy(d->q, salto_sim_q(sim), (size_t)nv * sizeof(double));
            memcpy(d->qd, v, (size_t)nv * sizeof(double));
            salto_fk(m, d, SALTO_FK_VEL);
            salto_link_inertias(m, d);
            double ke = 0.0;
            salto_energy(m, d, &ke, NULL);
            if (isnan(sm.stop_time) && !(ke <= ke_limit)) {
                sm.stop_time = limp ? tp : salto_sim_time(sim);
                snprintf(sm.stop_cause, sizeof sm.stop_cause, "the kinetic energy, %.3g J, passes 100 "
                         "times the motion's largest plus the weight falling 1 m (%.3g J): the "
                         "simulation is blowing up", ke, ke_limit);
            }
        }
        if (!isnan(sm.stop_time)) {
            fprintf(stderr, "salto play: stopped at t = %.4f s: %s; the frames before are written\n",
                    sm.stop_time, sm.stop_cause);
            status = 1;
            break;
        }
    }
    sm.rms = nerr > 0 ? sqrt(sum2 / (double)nerr) : 0.0;

    char jpath[4300], cpath[4300], fpath[4300];
    snprintf(jpath, sizeof jpath, "%s/sim.json", dir);
    snprintf(cpath, sizeof cpath, "%s/sim.csv", dir);
    snprintf(fpath, sizeof fpath, "%s/filmstrip.png", dir);
    // the frames in the character's chart, as sim.json and sim.csv give them
    const salto_motion rm = record_motion(p, &rec, rate);
    double* qc = rec.n > 0 ? salto_motion_character_q(&rm) : NULL;
    if (rec.n == 0) {
        // nothing to write
    } else if (!qc) {
        fprintf(stderr, "salto play: out of memory\n");
        status = 1;
    } else if (app_make_dirs(dir) != 0) {
        fprintf(stderr, "salto play: cannot create '%s': %s\n", dir, strerror(errno));
        status = 2;
    } else if (write_json(m, &rec, qc, &sm, motion_path, p->path, jpath, &err) != SALTO_OK ||
               write_csv(p, &rec, qc, cpath, &err) != SALTO_OK ||
               write_filmstrip(p, &rec, rate, view >= 0 ? view : p->output.filmstrip_view,
                               fpath, &err) != SALTO_OK) {
        app_print_error(&err);
        status = 2;
    } else if (!quiet) {
        const salto_sim_stats* st = salto_sim_get_stats(sim);
        printf("played %s for %.3f s at dt = %g s (%ld steps, %ld halved)\n", motion_path,
               limp ? tp : salto_sim_time(sim), dt, st->steps + sm.ragdoll_steps, st->halvings);
        printf("tracking error (joints' RMS): %.4f rad on average, %.4f rad at worst (t = %.3f s)\n",
               sm.rms, sm.worst, sm.worst_time);
        printf("strayed from the motion: the root %.3f m at worst (t = %.3f s), the centre of mass "
               "%.3f m (t = %.3f s)\n", sm.root_dev, sm.root_dev_time, sm.com_dev, sm.com_dev_time);
        if (isnan(sm.fall_time)) {
            printf("fell: no (the centre of mass stayed above %.3f m; only the problem's contact "
                   "bodies touched)\n", sm.fall_height);
        } else {
            printf("fell: at t = %.3f s: %s\n", sm.fall_time, sm.fall_cause);
        }
        printf("contacts: up to %d at once; impacts: %ld; joint limit events: %ld; deepest "
               "penetration %.2f mm\n", sm.max_contacts, st->impacts, st->limit_events,
               1e3 * fmax(st->max_depth, 0.0));
        printf("contact solver: %.1f sweeps a step, %ld subspace solves, %ld of %ld solves stopped "
               "at the sweep cap, residual at most %.2g m/s (rad/s on joint rows)\n",
               st->steps ? (double)st->pgs_sweeps / st->steps : 0.0, st->pgs_subspace,
               st->pgs_capped, st->pgs_solves, st->max_residual);
        if (limp) {
            printf("particle ragdoll (Rosen) from t = %.3f s: %d points, %ld steps\n",
                   sm.ragdoll_start, sm.points, sm.ragdoll_steps);
        }
        if (sm.adaptive && sm.active_steps > 0) {
            printf("adaptive dynamics from t = %.3f s: %.1f of the %d joints active on average "
                   "(chosen every %d steps)\n", ragdoll, sm.active_sum / (double)sm.active_steps,
                   sm.joints, sm.period);
        }
        printf("wrote %s, %s and %s\n", jpath, cpath, fpath);
    }
    salto_free(qc);
    free(rec.t), free(rec.q), free(rec.err), free(rec.force), free(rec.contacts), free(rec.grip);
    salto_data_destroy(dm);
    free(contact_body);
    salto_data_destroy(d);
    free(q);
    salto_sim_destroy(sim), salto_ragdoll_destroy(rd);
    app_motion_close(&am);
    return status;
}
