// cmd_validate.c: salto validate MOTION [--problem PROBLEM] [-o DIR]: how physical a motion is
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_motion.h"
#include "cmds.h"
#include "salto/motion.h"
#include "salto/nlp.h"
#include "salto/validate.h"

static void help(void) {
    printf("usage: salto validate MOTION.json [--problem PROBLEM.yaml] [-o DIR] [--density N]\n"
           "                      [--integrator rk4|euler|none] [--step S] [--max-steps N]\n"
           "                      [--threshold CHECK=VALUE]... [--set PATH=VALUE]... [--quiet]\n\n"
           "Checks how physical a motion written by 'salto solve' is, densely between the\n"
           "optimiser's slices: every phase is sampled at N samples per slice interval (default\n"
           "10), f0 is computed there by inverse dynamics (RNEA's root wrench), and each check\n"
           "reports its worst violation, where (phase and time) and its RMS:\n"
           "  flight_force, flight_torque   f0 in flight (force; torque about the centre of mass)\n"
           "  ballistic, spin               in flight, the centre of mass off its take-off parabola,\n"
           "                                the angular momentum about it changed since take-off\n"
           "  bar_torque                    torque about the bar axis beyond torque_max\n"
           "  normal_force, friction, cop, twist   the ground contact's bounds (Fang & Pollard)\n"
           "  slip                          held contact sites moving from their place\n"
           "  penetration                   geometry below an above_ground plane\n"
           "  joint_limits                  DOFs beyond their limits\n"
           "  impact                        a phase start's velocity jump no impulse explains\n"
           "  bounds                        a site or the centre of mass outside a site_above,\n"
           "                                com_above, site_in_box, com_in_box or joint_range\n"
           "  torque                        a joint torque outside the character's torque_limits\n"
           "                                (minus the margin when inside)\n"
           "  bar_clearance                 a body's capsule inside a clear_bar bar (minus the\n"
           "                                margin when clear)\n"
           "  box_clearance                 a body's capsule inside one of the problem's boxes\n"
           "                                (minus the margin when clear), a body the phase\n"
           "                                holds on that box excepted\n"
           "  drift_root, drift_rotation,   re-simulation: the articulated-body algorithm run\n"
           "  drift_joints, drift_com       from each phase's start with the motion's joint\n"
           "                                torques and contact wrenches (held sites kept on the\n"
           "                                motion's by constraints), its distance from the motion\n"
           "Joint torques come from inverse dynamics, the contact wrench shared among the\n"
           "contact links at minimum norm; the table lists each joint's peak.\n"
           "Defaults (docs/validation.md): forces 2%% of the character's weight W, torques 2%%\n"
           "of W x 1 m, the parabola 1 cm, angular momentum 0.2%% of W x 1 m s, slip 1 mm,\n"
           "penetration, bounds and bar clearance 5 mm, joint limits 1e-6, joint torques\n"
           "0.5%% of W x 1 m, drift 2 cm and 0.035 rad. The problem file's\n"
           "'validation' key may set the density, integrator, step and thresholds; the\n"
           "options here override it. A problem with 'physics: false' (a kinematic one) is\n"
           "judged on slip, penetration, joint limits, bounds and bar clearance only: its\n"
           "physics checks are shown as info (--set physics=true judges them).\n\n"
           "Prints a table with pass or fail per check; writes DIR/validation.json (every check\n"
           "and series, the torques), DIR/residuals.png (violations against time, phases\n"
           "marked) and DIR/torques.png (each joint's torque against time), each atomically.\n"
           "Exit status: 0 when every judged check passes, 1 when one fails, 2 for bad input.\n\n"
           "  --problem P   the problem file (default: the one the motion names)\n"
           "  -o DIR        where to write (default: the motion's folder)\n"
           "  --density N   samples per slice interval (default 10)\n"
           "  --integrator I  the re-simulation's: rk4 (default), euler (semi-implicit) or none\n"
           "  --step S      its largest step in seconds (default: the sample spacing)\n");
    printf("  --max-steps N its steps over the motion at most (default 1e8, minutes of work): a\n"
           "                --step needing more is refused before any work\n"
           "  --threshold CHECK=VALUE   change one check's threshold (in its unit)\n"
           "  --set PATH=VALUE   change a value of the problem as 'salto solve --set' does\n"
           "                (at most 64); a motion.json's own overrides (those it was solved\n"
           "                with, but the initial guess's) apply first, unless --problem is given\n"
           "  --quiet       no table: the summary line only\n");
}


static void print_table(const salto_problem_desc* p, const salto_validation* v) {
    const salto_model* m = p->model;
    printf("%-14s %-14s %12s %-6s %9s %12s %12s  %s\n", "phase", "check", "worst", "unit",
           "at t (s)", "rms", "threshold", "result");
    for (int c = 0; c < v->ncheck; c++) {
        const salto_check* k = &v->check[c];
        char where[160] = "";
        const char* at = salto_check_at(m, k);
        if (at) snprintf(where, sizeof where, " (%s)", at);
        printf("%-14s %-14s %12.3e %-6s %9.4f %12.3e %12.3e  %s%s\n", p->phases[k->phase].name,
               salto_check_name(k->kind), k->worst, salto_check_unit(k->kind), k->worst_time,
               k->rms, k->threshold, !k->judged ? "info" : k->pass ? "pass" : "FAIL", where);
    }
    // the joints' peak torques (the root's entries are forces no contact supplies: in flight,
    // f0; reported by the flight checks)
    if (m->nv > m->nroot) {
        printf("peak joint torque (inverse dynamics, contact wrenches of minimum norm):\n");
        for (int j = m->nroot; j < m->nv; j++) {
            // with a torque limit, the largest share of it used: (tau + slope qd) / hi, or / lo
            char use[32] = "";
            if (v->tau_lim && m->link_has_torque[j]) {
                const double lo = m->link_torque[2 * j], hi = m->link_torque[2 * j + 1];
                double share = 0.0;
                for (int k = 0; k < v->nsample; k++) {
                    const double r = v->tau[(size_t)v->nv * k + j] - v->tau_lim[2 * ((size_t)v->nv * k + j) + 1] + hi;
                    if (hi > 0.0) share = fmax(share, r / hi);
                    if (lo < 0.0) share = fmax(share, r / lo);
                }
                snprintf(use, sizeof use, " %4.0f%% of limit", 100.0 * share);
            }
            printf("  %-18s %10.2f %-3s at t = %.4f s%-15s%s", m->link_name[j], v->tau_peak[j],
                   m->link_type[j] == SALTO_AXIS_PRISMATIC ? "N" : "N m", v->tau_peak_time[j], use,
                   (j - m->nroot) % 2 == 1 || j + 1 == m->nv ? "\n" : "   ");
        }
    }
    if (v->integrator != SALTO_INTEGRATOR_NONE) {
        printf("re-simulation: %s, steps up to %.4g s, from each phase's start\n",
               salto_integrator_name(v->integrator), v->step);
    }
    for (int i = 0; i < p->nphase; i++) {
        if (isnan(v->resim_stop[i])) continue;
        printf("the re-simulation of '%s' broke down at t = %.4f s (the state no longer finite or "
               "the articulated inertia singular)\n",
               p->phases[i].name, v->resim_stop[i]);
    }
    if (!p->physics) {
        printf("the problem asks for no physics (physics: false): its %d physics checks are shown "
               "(info), not judged; --set physics=true judges them\n", v->ncheck - v->njudged);
    }
}


// the verdict: how many checks pass, and whether that makes the motion physical
static void print_summary(const salto_problem_desc* p, const salto_validation* v) {
    printf("%d of %d checks pass at %d samples: %s\n", v->npassed, v->njudged, v->nsample,
           salto_validation_verdict(p, v));
}






// validates the motion (its state by fn) with the problem's settings under the command
// line's, prints the table, writes validation.json and residuals.png; the exit status
static int run_and_report(const salto_problem_desc* p, salto_state_fn fn,
                          void* ctx, const salto_validate_opts* cli, const char* motion_path,
                          const char* dir, int quiet) {
    salto_validate_opts opts;
    salto_validate_opts_from_problem(&opts, p);
    if (cli->density > 0) opts.density = cli->density;
    if ((int)cli->integrator >= 0) opts.integrator = cli->integrator;
    if (cli->step > 0.0) opts.step = cli->step;
    if (cli->max_steps > 0.0) opts.max_steps = cli->max_steps;
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) {
        if (cli->threshold[k] >= 0.0) opts.threshold[k] = cli->threshold[k];
    }
    char dirbuf[4096], json[4200], png[4200], tpng[4200];
    if (!dir) {
        app_folder_of(motion_path, dirbuf, sizeof dirbuf);
        dir = dirbuf;
    }
    salto_validation v;
    salto_error err = {0};
    if (salto_validate_check_opts(p, &opts, &err) != SALTO_OK) { // bad settings, then the folder
        app_print_error(&err);
        return 2;
    }
    if (app_check_output_dir("salto validate", dir) != 0) return 2;
    if (salto_validate_motion(p, fn, ctx, &opts, &v, &err) != SALTO_OK) {
        app_print_error(&err);
        return err.status == SALTO_ERR_NOMEM ? 1 : 2; // a motion that is not finite: bad input
    }
    int status = 0;
    if (!quiet) print_table(p, &v);
    print_summary(p, &v);
    snprintf(json, sizeof json, "%s/validation.json", dir);
    snprintf(png, sizeof png, "%s/residuals.png", dir);
    snprintf(tpng, sizeof tpng, "%s/torques.png", dir);
    if (app_make_dirs(dir) != 0) {
        fprintf(stderr, "salto validate: cannot create '%s': %s\n", dir, strerror(errno));
        status = 2;
    } else if (salto_validation_write_json(p, &v, motion_path, json, &err) != SALTO_OK ||
               salto_validation_write_png(p, &v, png, &err) != SALTO_OK ||
               salto_validation_write_torques_png(p, &v, tpng, &err) != SALTO_OK) {
        app_print_error(&err);
        status = 2;
    } else {
        if (!quiet) printf("wrote %s, %s and %s\n", json, png, tpng);
        status = v.pass ? 0 : 1;
    }
    salto_validation_free(&v);
    return status;
}


int cmd_validate(int argc, char** argv) {
    const char* motion_path = NULL;
    const char* problem_path = NULL;
    const char* dir = NULL;
    int quiet = 0, nset = 0;
    const char* set[64];
    // the command line's settings (unset: 0, -1 or < 0), over the problem file's, over the
    // defaults
    salto_validate_opts cli = {.density = 0, .integrator = (salto_integrator)-1, .step = 0.0, .max_steps = 0.0};
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) cli.threshold[k] = -1.0;
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            help();
            return 0;
        } else if (strcmp(argv[i], "--problem") == 0 && i + 1 < argc) {
            problem_path = argv[++i];
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(argv[i], "--density") == 0 && i + 1 < argc) {
            if (app_parse_int("validate", "--density", argv[++i], 1, 10000, &cli.density)) return 2;
        } else if (strcmp(argv[i], "--integrator") == 0 && i + 1 < argc) {
            const int k = salto_integrator_parse(argv[++i]);
            if (k < 0) {
                fprintf(stderr, "salto validate: --integrator needs rk4, euler or none, not '%s'\n", argv[i]);
                return 2;
            }
            cli.integrator = (salto_integrator)k;
        } else if (strcmp(argv[i], "--step") == 0 && i + 1 < argc) {
            char* end = NULL;
            const double h = strtod(argv[++i], &end);
            if (!end || *end || end == argv[i] || !(h > 0.0) || !isfinite(h)) {
                fprintf(stderr, "salto validate: --step needs a time step in seconds > 0, not '%s'\n", argv[i]);
                return 2;
            }
            cli.step = h;
        } else if (strcmp(argv[i], "--max-steps") == 0 && i + 1 < argc) {
            char* end = NULL;
            const double n = strtod(argv[++i], &end);
            if (!end || *end || end == argv[i] || !(n >= 1.0) || !isfinite(n)) {
                fprintf(stderr, "salto validate: --max-steps needs a number >= 1, not '%s'\n", argv[i]);
                return 2;
            }
            cli.max_steps = n;
        } else if (strcmp(argv[i], "--threshold") == 0 && i + 1 < argc) {
            const char* arg = argv[++i];
            const char* eq = strchr(arg, '=');
            char name[64];
            snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - arg) : 0, arg);
            const int kind = eq ? salto_check_parse(name) : -1;
            char* end = NULL;
            const double val = eq ? strtod(eq + 1, &end) : NAN;
            if (kind < 0 || !end || *end || end == eq + 1 || !(val >= 0.0) || !isfinite(val)) {
                fprintf(stderr, "salto validate: --threshold needs CHECK=VALUE with a known check and a "
                                "value >= 0, not '%s' (checks:",
                        arg);
                for (int c = 0; c < SALTO_CHECK_COUNT; c++) {
                    fprintf(stderr, "%s %s", c ? "," : "", salto_check_name((salto_check_kind)c));
                }
                fprintf(stderr, ")\n");
                return 2;
            }
            cli.threshold[kind] = val;
        } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
            if (nset == (int)(sizeof set / sizeof set[0])) {
                fprintf(stderr, "salto validate: more than %d --set options\n", nset);
                return 2;
            }
            set[nset++] = argv[++i];
        } else if (app_positional("validate", argv[i], &motion_path) != 0) {
            return 2;
        }
    }
    if (!motion_path) {
        fprintf(stderr, "usage: salto validate MOTION.json [--problem P] [-o DIR] (see 'salto "
                        "validate --help')\n");
        return 2;
    }

    app_motion am;
    int status = app_motion_open_set(&am, "salto validate", motion_path, problem_path, nset, set);
    if (status == 0) status = run_and_report(am.p, am.state, am.ctx, &cli, motion_path, dir, quiet);
    app_motion_close(&am);
    return status;
}
