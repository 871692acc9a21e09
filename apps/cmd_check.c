// cmd_check.c: salto check CHARACTER: load, validate and summarise a character file
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "salto/config.h"
#include "salto/kinematics.h"
#include "salto/model.h"
#include "salto/budget.h"
#include "salto/nlp.h"
#include "salto/solver.h"

// the cost of an iteration: the parts measured by salto_nlp_cost, and the estimate IPOPT's
// iterations make of them, measured on 2026-11-27: 2.3 factorisations an iteration over the
// zoo; 2.7-3.5 solves an iteration (the dismount, the monkey bars); IPOPT's own work about
// 10 ns a KKT entry an iteration (the leap 8, the dismount 24: salto solve's "IPOPT and the
// rest" less its factorisations and solves)
static void print_cost(const salto_cost* c) {
    const double fact = 2.3, solves = 3.0;
    const double ipopt = 1e-8 * c->kkt_entries;
    const double kkt = fact * c->t_factor + solves * c->t_solve;
    const double it = c->t_values + c->t_jacobian + c->t_hessian + kkt + ipopt;
    printf("an iteration's cost, measured at the initial guess (CPU time; the Hessian at unit "
           "multipliers):\n");
    printf("  constraints and objective %8.3f ms\n", 1e3 * c->t_values);
    printf("  their derivatives         %8.3f ms\n", 1e3 * c->t_jacobian);
    printf("  Hessian                   %8.3f ms (%.1f derivatives' worth)\n", 1e3 * c->t_hessian,
           c->t_jacobian > 0.0 ? c->t_hessian / c->t_jacobian : 0.0);
    if (c->predicted) {
        printf("  KKT factorisation    about %8.0f ms, predicted, not measured (%d rows, %d "
               "entries; L about %.3g entries, %.2g multiply-adds from its pattern)\n",
               1e3 * c->t_factor, c->kkt_order, c->kkt_entries, c->factor_entries, c->flops);
    } else {
        printf("  KKT factorisation         %8.3f ms (%d rows, %d entries; L %.0f entries, %.2g "
               "multiply-adds, largest front %d)\n",
               1e3 * c->t_factor, c->kkt_order, c->kkt_entries, c->factor_entries, c->flops,
               c->max_front);
    }
    printf("  KKT solve                 %8.3f ms\n", 1e3 * c->t_solve);
    printf("  an iteration, expected    %8.3f ms: Hessian %.0f%%, KKT %.0f%% (%.1f factorisations, "
           "%.0f solves), derivatives %.0f%%, IPOPT's own about %.0f%%\n",
           1e3 * it, 100.0 * c->t_hessian / it, 100.0 * kkt / it, fact, solves,
           100.0 * (c->t_jacobian + c->t_values) / it, 100.0 * ipopt / it);
    if (it > 10.0) {
        printf("warning: an iteration is expected to take about %.0f s (a solve takes tens to "
               "hundreds of them): fewer slices or control points make it faster\n", it);
    }
}


static void help(void) {
    printf("usage: salto check CHARACTER.yaml | PROBLEM.yaml [--set PATH=VALUE]... [--rank]\n\n"
           "A character file: loads and checks it and prints its summary: the DOF table in the\n"
           "order used everywhere else (index, name, type, axis, limits), body masses, the\n"
           "total mass, sites and gravity.\n"
           "A problem file (it names a 'character'): loads and checks it, builds its NLP and\n"
           "reports the NLP's size (variables, constraints, Jacobian and Hessian non-zeros),\n"
           "the memory it will take (estimated; 'salto --max-memory' sets the limit), what an\n"
           "iteration costs, and the rank of the equality constraints at the initial guess,\n"
           "without solving.\n"
           "  --rank    the rank even for a Jacobian over 1e6 non-zeros (skipped by default:\n"
           "            a sparse QR that large can take minutes)\n"
           "  --set PATH=VALUE  (problem files) change one value of the file before reading\n"
           "            it, as for 'salto solve': --set spline.knot_spacing=0.05\n"
           "Errors are reported as file:line:col: error: ... with exit status 2.\n");
}


static const char* root_name(int t) {
    return t == SALTO_ROOT_FREE ? "free" : t == SALTO_ROOT_PLANAR ? "planar" : "fixed";
}


// the rank analysis's size by default: above it, only with --rank (the shipped problems' are
// below 3e5; a leap with 1500 slices, 3.2e6, took over ten minutes)
#define CHECK_RANK_MAX_NNZ 1000000

static int check_problem(const char* path, int nset, const char* const* set, int force_rank) {
    salto_problem_desc* p = NULL;
    salto_nlp* nlp = app_load_nlp_set(path, nset, set, &p);
    if (!nlp) return 2;
    salto_error err = {0};
    printf("problem %s\n", path);
    printf("character: %s (%d DOFs)\n", p->character, p->model->nv);
    printf("duration: %g s in %d phases\n", p->duration, p->nphase);
    // what the phases are, the defaults the file left decided (ballistic flights, impact
    // landings and the flights' rows follow the spline: docs/problem-format.md)
    static const char* const rows[] = {"f0 = 0 at the slices", "momentum at the slices",
                                       "momentum at the slices, f0 = 0 at the ends"};
    for (int i = 0; i < p->nphase; i++) {
        const salto_phase_desc* ph = &p->phases[i];
        const int flight = ph->contact.type == SALTO_CONTACT_NONE && p->physics;
        // the boxes it stands on: one for every site, or each site's
        char on[400] = "";
        const salto_contact_desc* ct = &ph->contact;
        int some = 0;
        for (int k = 0; ct->type == SALTO_CONTACT_GROUND && k < ct->nsite; k++) some |= ct->site_box[k] >= 0;
        for (int k = 0; some && k < ct->nsite; k++) {
            if (ct->box >= 0 && k > 0) break;
            char who[64];
            const int b = ct->site_box[k];
            if (b < 0) {
                snprintf(who, sizeof who, "the floor");
            } else if (p->boxes[b].name[0]) {
                snprintf(who, sizeof who, "box '%s'", p->boxes[b].name);
            } else {
                snprintf(who, sizeof who, "box %d", b + 1);
            }
            const size_t len = strlen(on);
            if (ct->box >= 0) {
                snprintf(on + len, sizeof on - len, " on %s", who);
            } else {
                snprintf(on + len, sizeof on - len, "%s %s on %s", k ? "," : ":", p->model->site_name[ct->site[k]], who);
            }
        }
        char dur[96] = "";
        if (ph->dur_free) {
            // laid out at its initial duration, chosen by the solve
            snprintf(dur, sizeof dur, "; duration free in [%g, %g] s, from %g", ph->dur_min, ph->dur_max,
                     ph->duration);
        }
        printf("  %-16s %8.3f .. %8.3f s  contact %s%s%s%s%s%s%s\n", ph->name, ph->start,
               ph->start + ph->duration, salto_contact_name(ph->contact.type), on,
               ph->contact.impact ? ", landing with an impact" : "",
               flight && salto_nlp_phase_ballistic(nlp, i) ? ", ballistic" : "", flight ? ", " : "",
               flight ? rows[p->solver.flight_rows] : "", dur);
    }
    char spl[256];
    salto_problem_spline_summary(p, spl, sizeof spl);
    printf("spline: %s\n", spl);
    for (int b = 0; b < p->nbox; b++) {
        const salto_box_desc* bx = &p->boxes[b];
        char who[64];
        if (bx->name[0]) {
            snprintf(who, sizeof who, "'%s'", bx->name);
        } else {
            snprintf(who, sizeof who, "%d", b + 1);
        }
        char turned[64] = "";
        if (bx->yaw != 0.0) snprintf(turned, sizeof turned, ", turned %g deg about z", bx->yaw * 180.0 / 3.14159265358979323846);
        printf("box %s: x %g .. %g, y %g .. %g, z %g .. %g m%s, clearance %g m\n", who, bx->lo[0],
               bx->hi[0], bx->lo[1], bx->hi[1], bx->lo[2], bx->hi[2], turned, bx->clearance);
    }
    printf("constraints: %d, objective terms: %d\n", p->ncon, p->nobj);
    for (int k = 0; k < p->nreaction; k++) { // (for salto play --react, not the solve)
        const salto_reaction_desc* r = &p->reactions[k];
        int nb = 0;
        for (int b = 0; b < p->model->nbody; b++) nb += r->simulated[b];
        printf("reaction %d (salto play --react): %s on '%s' at %g s, %d bodies simulated, "
               "blended until %g s\n", k + 1, r->impulse ? "an impulse" : "a force",
               p->model->body_name[r->body], r->time, nb, r->time + r->duration + r->blend_out);
    }
    printf("NLP: %d variables, %d constraints, %d Jacobian non-zeros, %d Hessian non-zeros\n",
           salto_nlp_nx(nlp), salto_nlp_ng(nlp), salto_nlp_nnz_jac(nlp), salto_nlp_nnz_hess(nlp));
    {
        char b[32], sv[32], lim[32];
        salto_format_bytes(salto_nlp_memory(nlp, 0), b, sizeof b);
        salto_format_bytes(salto_nlp_memory(nlp, 1), sv, sizeof sv);
        salto_format_bytes(salto_memory_limit(), lim, sizeof lim);
        printf("memory (estimated): %s to build, %s to solve; the limit is %s\n", b, sv, lim);
        salto_error me = {0};
        if (salto_nlp_check_memory(nlp, &me) != SALTO_OK) {
            printf("warning: salto solve will refuse it: ");
            fflush(stdout);
            app_print_error(&me);
        }
    }

    // what an iteration will cost (measured at the initial guess), and so which part to watch
    {
        double* x0 = malloc(sizeof(double) * (size_t)salto_nlp_nx(nlp));
        salto_cost c;
        if (x0) {
            salto_nlp_initial_guess(nlp, x0);
            if (salto_nlp_cost(nlp, x0, &c) == SALTO_OK) print_cost(&c);
        }
        free(x0);
    }

    // likely set-up errors, before solving: more equalities than variables, and constraint
    // rows that depend on others at the initial guess (stated twice, a site held in two
    // places, a velocity fixed both directly and through a held site)
    const int nx = salto_nlp_nx(nlp), ng = salto_nlp_ng(nlp);
    double* x = malloc(sizeof(double) * (size_t)nx);
    double* lo = malloc(sizeof(double) * (size_t)(ng + 1));
    double* hi = malloc(sizeof(double) * (size_t)(ng + 1));
    int* dep = malloc(sizeof(int) * (size_t)(ng + 1));
    int status = 0;
    if (!x || !lo || !hi || !dep) {
        fprintf(stderr, "salto check: out of memory\n");
        status = 1;
    } else {
        salto_nlp_initial_guess(nlp, x);
        salto_nlp_bounds(nlp, NULL, NULL, lo, hi);
        int neq = 0;
        for (int r = 0; r < ng; r++) neq += lo[r] == hi[r];
        if (neq > nx) {
            printf("warning: %d equality constraints for %d variables: the problem is "
                   "over-determined\n", neq, nx);
        }
        int rank = 0, ndep = 0;
        if (salto_nlp_nnz_jac(nlp) > CHECK_RANK_MAX_NNZ && !force_rank) {
            printf("equality constraints' rank: not computed for a Jacobian of %d non-zeros (a "
                   "sparse QR of this size can take minutes; 'salto check --rank' computes it)\n",
                   salto_nlp_nnz_jac(nlp));
        } else if (salto_nlp_jac_rank(nlp, x, &rank, dep, &ndep, &err) != SALTO_OK) {
            app_print_error(&err);
            status = 1;
        } else if (ndep > 0) {
            printf("warning: the equality constraints' Jacobian at the initial guess has rank %d "
                   "for %d rows; these depend on the others:\n", rank, neq);
            for (int k = 0; k < ndep && k < 12; k++) {
                char name[600];
                salto_nlp_row_name(nlp, dep[k], name, sizeof name);
                printf("  %s\n", name);
            }
            if (ndep > 12) printf("  ... and %d more\n", ndep - 12);
            // the same at a nearby point: a dependency that only the guess has (a singular pose
            // such as straight legs, a symmetric start) goes away there; one the constraints
            // themselves make (a site held twice, a pose fixing what holds already fix) stays
            double* xp = malloc(sizeof(double) * (size_t)nx);
            int rank2 = 0, ndep2 = 0;
            if (xp) salto_nlp_nearby_point(nlp, x, xp);
            if (!xp) {
                fprintf(stderr, "salto check: out of memory\n");
                status = 1;
            } else if (salto_nlp_jac_rank(nlp, xp, &rank2, dep, &ndep2, &err) != SALTO_OK) {
                app_print_error(&err);
                status = 1;
            } else if (ndep2 == 0) {
                printf("note: at a nearby point (every variable moved by up to 5%%) they are "
                       "independent: the dependency is the initial guess's (a singular pose, such "
                       "as straight legs, or a symmetric start), not the constraints'; the solver "
                       "usually leaves it behind, and nothing needs to change\n");
            } else {
                printf("warning: at a nearby point (every variable moved by up to 5%%) %d rows "
                       "still depend on the others: the constraints restate each other (a site "
                       "held or placed twice, a pose fixing what a hold already fixes), which can "
                       "stall the solver (salto solve does not enforce those that restate one "
                       "other row exactly, and says so):\n", ndep2);
                for (int k = 0; k < ndep2 && k < 12; k++) {
                    char name[600];
                    salto_nlp_row_name(nlp, dep[k], name, sizeof name);
                    printf("  %s\n", name);
                }
                if (ndep2 > 12) printf("  ... and %d more\n", ndep2 - 12);
            }
            free(xp);
        } else {
            printf("equality constraints' Jacobian at the initial guess: full rank (%d)\n", rank);
        }
    }
    free(x), free(lo), free(hi), free(dep);
    salto_nlp_destroy(nlp);
    salto_problem_destroy(p);
    return status;
}


// a problem file names its character; a character file lists bodies
static int is_problem(const char* path) {
    salto_error err = {0};
    salto_cfg* cfg = salto_cfg_load(path, &err);
    if (!cfg) return 0; // let the character loader report the error
    const salto_cfg_node* root = salto_cfg_root(cfg);
    const int yes = root && root->kind == SALTO_CFG_MAP && salto_cfg_child(root, "character") &&
                    !salto_cfg_child(root, "bodies");
    salto_cfg_destroy(cfg);
    return yes;
}


int cmd_check(int argc, char** argv) {
    if (argc >= 2 && app_is_help(argv[1])) {
        help();
        return 0;
    }
    // the file, then any --set PATH=VALUE (problem files only) and --rank
    int nset = 0, force_rank = 0;
    const char** set = malloc(sizeof(char*) * (size_t)argc);
    if (!set) {
        fprintf(stderr, "salto check: out of memory\n");
        return 1;
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--rank") == 0) {
            force_rank = 1;
            continue;
        }
        if (strcmp(argv[i], "--set") != 0 || i + 1 >= argc) {
            free(set);
            fprintf(stderr, "salto check: unexpected or incomplete argument '%s'\n", argv[i]);
            return 2;
        }
        set[nset++] = argv[++i];
    }
    if (argc < 2 || argv[1][0] == '-') {
        free(set);
        fprintf(stderr, "usage: salto check CHARACTER.yaml | PROBLEM.yaml [--set PATH=VALUE]... (see "
                        "'salto check --help')\n");
        return 2;
    }
    if (is_problem(argv[1])) {
        const int st = check_problem(argv[1], nset, set, force_rank);
        free(set);
        return st;
    }
    free(set);
    if (nset > 0 || force_rank) {
        fprintf(stderr, "salto check: %s is for problem files; %s is a character\n",
                nset > 0 ? "--set" : "--rank", argv[1]);
        return 2;
    }
    salto_error err = {0};
    salto_model* m = salto_model_load(argv[1], &err);
    if (!m) {
        app_print_error(&err);
        return 2;
    }

    printf("character %s (%s)\n", m->name, argv[1]);
    printf("root: %s%s\n", root_name(m->root_type),
           salto_model_is_planar(m) ? " (moves in the x-z plane, rotates about y)" : "");
    printf("gravity: %g %g %g m/s^2\n", m->gravity[0], m->gravity[1], m->gravity[2]);
    printf("degrees of freedom: %d\n\n", m->nv);
    printf("%5s  %-16s %-10s %-24s %-16s %-26s %s\n", "index", "dof", "type", "axis (parent frame)",
           "body", "limits", "torque limit");
    for (int i = 0; i < m->nv; i++) {
        const double* a = m->link_axis + 3 * i;
        char axis[64], lim[64], tl[96] = "none";
        if (m->link_has_torque[i]) {
            const char* unit = m->link_type[i] == SALTO_AXIS_REVOLUTE ? "N m" : "N";
            int k = snprintf(tl, sizeof tl, "[%.4g, %.4g] %s", m->link_torque[2 * i],
                             m->link_torque[2 * i + 1], unit);
            if (m->link_torque_slope[i] > 0.0 && k > 0 && (size_t)k < sizeof tl) {
                snprintf(tl + k, sizeof tl - (size_t)k, " - %.4g qd", m->link_torque_slope[i]);
            }
        }
        snprintf(axis, sizeof axis, "(%.3g, %.3g, %.3g)", a[0], a[1], a[2]);
        if (m->link_has_limits[i]) {
            const char* unit = m->link_type[i] == SALTO_AXIS_REVOLUTE ? "rad" : "m";
            snprintf(lim, sizeof lim, "[%.4g, %.4g] %s", m->link_limits[2 * i],
                     m->link_limits[2 * i + 1], unit);
        } else {
            snprintf(lim, sizeof lim, "none");
        }
        printf("%5d  %-16s %-10s %-24s %-16s %-26s %s\n", i, m->link_name[i],
               m->link_type[i] == SALTO_AXIS_REVOLUTE ? "revolute" : "prismatic", axis,
               m->body_name[m->link_body[i]], lim, tl);
    }

    printf("\n%-16s %-16s %10s\n", "body", "parent", "mass (kg)");
    double total = 0;
    for (int b = 0; b < m->nbody; b++) {
        const int p = m->body_parent[b];
        printf("%-16s %-16s %10.4f%s\n", m->body_name[b], p >= 0 ? m->body_name[p] : "(world)",
               m->body_mass[b], m->body_link[b] < 0 ? "  (welded to the world)" : "");
        total += m->body_mass[b];
    }
    printf("%-16s %-16s %10.4f\n", "total", "", total);
    if (fabs(total - m->mass) > 1e-12) printf("moving mass: %.4f kg\n", m->mass);

    if (m->nsite > 0) {
        // positions at q = 0
        salto_data* d = salto_data_create(m);
        if (!d) {
            fprintf(stderr, "error: out of memory\n");
            salto_model_destroy(m);
            return 1;
        }
        salto_fk(m, d, SALTO_FK_POS);
        printf("\n%-16s %-16s %s\n", "site", "body", "world position at q = 0 (m)");
        for (int s = 0; s < m->nsite; s++) {
            double x[3];
            salto_site_pos(m, d, s, x);
            printf("%-16s %-16s %8.4f %8.4f %8.4f\n", m->site_name[s],
                   m->body_name[m->site_body[s]], x[0], x[1], x[2]);
        }
        salto_data_destroy(d);
    }
    printf("\ngeometry primitives: %d\n", m->ngeom);
    salto_model_destroy(m);
    return 0;
}
