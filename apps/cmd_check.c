// cmd_check.c: salto check CHARACTER: load, validate and summarise a character file
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "salto/kinematics.h"
#include "salto/model.h"

static void help(void) {
    printf("usage: salto check CHARACTER.yaml\n\n"
           "Loads and checks a character file and prints its summary: the DOF table in the\n"
           "order used everywhere else (index, name, type, axis, limits), body masses, the\n"
           "total mass, sites and gravity. Errors are reported as file:line:col: error: ...\n"
           "with exit status 2.\n");
}


static const char* root_name(int t) {
    return t == SALTO_ROOT_FREE ? "free" : t == SALTO_ROOT_PLANAR ? "planar" : "fixed";
}


int cmd_check(int argc, char** argv) {
    if (argc >= 2 && app_is_help(argv[1])) {
        help();
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: salto check CHARACTER.yaml (see 'salto check --help')\n");
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
    printf("%5s  %-16s %-10s %-24s %-16s %s\n", "index", "dof", "type", "axis (parent frame)",
           "body", "limits");
    for (int i = 0; i < m->nv; i++) {
        const double* a = m->link_axis + 3 * i;
        char axis[64], lim[64];
        snprintf(axis, sizeof axis, "(%.3g, %.3g, %.3g)", a[0], a[1], a[2]);
        if (m->link_has_limits[i]) {
            const char* unit = m->link_type[i] == SALTO_AXIS_REVOLUTE ? "rad" : "m";
            snprintf(lim, sizeof lim, "[%.4g, %.4g] %s", m->link_limits[2 * i],
                     m->link_limits[2 * i + 1], unit);
        } else {
            snprintf(lim, sizeof lim, "none");
        }
        printf("%5d  %-16s %-10s %-24s %-16s %s\n", i, m->link_name[i],
               m->link_type[i] == SALTO_AXIS_REVOLUTE ? "revolute" : "prismatic", axis,
               m->body_name[m->link_body[i]], lim);
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
