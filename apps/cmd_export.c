// cmd_export.c: salto export CHARACTER --format mjcf|urdf [-o FILE]: the character for
// MuJoCo or robotics tools
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "salto/export.h"
#include "salto/model.h"

static void help(void) {
    printf("usage: salto export CHARACTER.yaml --format mjcf|urdf [-o FILE]\n\n"
           "Writes the character for other tools, with the same bodies, joints (salto's DOFs one\n"
           "for one, in order), inertias, limits, geometry and sites:\n"
           "  mjcf   MuJoCo's XML: a body per body, its DOFs as slide and hinge joints (the root\n"
           "         too, so q and qd are salto's), a floor plane at z = 0, 1 ms Euler steps\n"
           "  urdf   a joint per DOF, massless links between the DOFs of a multi-DOF joint, the\n"
           "         root's chain from a link 'world'; capsules as a cylinder and two spheres\n"
           "Default FILE: the character's name with .xml (mjcf) or .urdf next to it in the\n"
           "current folder. Written atomically. Exit status 0, or 2 for bad input.\n");
}

int cmd_export(int argc, char** argv) {
    const char* path = NULL;
    const char* format = NULL;
    const char* out = NULL;
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            help();
            return 0;
        } else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
            format = argv[++i];
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (app_positional("export", argv[i], &path) != 0) {
            return 2;
        }
    }
    if (!path || !format) {
        fprintf(stderr, "usage: salto export CHARACTER.yaml --format mjcf|urdf [-o FILE] (see 'salto export --help')\n");
        return 2;
    }
    const int mjcf = strcmp(format, "mjcf") == 0;
    if (!mjcf && strcmp(format, "urdf") != 0) {
        fprintf(stderr, "salto export: --format needs mjcf or urdf, not '%s'\n", format);
        return 2;
    }
    salto_error err = {0};
    salto_model* m = salto_model_load(path, &err);
    if (!m) {
        app_print_error(&err);
        return 2;
    }
    char buf[4096];
    if (!out) {
        snprintf(buf, sizeof buf, "%s.%s", m->name, mjcf ? "xml" : "urdf");
        out = buf;
    }
    const salto_status s = mjcf ? salto_export_mjcf(m, out, &err) : salto_export_urdf(m, out, &err);
    if (s != SALTO_OK) {
        app_print_error(&err);
        salto_model_destroy(m);
        return 2;
    }
    printf("wrote %s (%s: %d bodies, %d DOFs, %d geometries, %d sites)\n", out, mjcf ? "MJCF" : "URDF",
           m->nbody, m->nv, m->ngeom, m->nsite);
    salto_model_destroy(m);
    return 0;
}
