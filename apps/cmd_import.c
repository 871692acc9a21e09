// cmd_import.c: salto import MODEL.xml|MODEL.urdf [-o CHARACTER.yaml]: a character from MuJoCo's
// and robotics tools' models (import.h)
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "import.h"
#include "salto/model.h"

static void help(void) {
    printf("usage: salto import MODEL.xml|MODEL.urdf [-o CHARACTER.yaml] [--quiet]\n\n"
           "Reads an MJCF or URDF model with MuJoCo's own parser and compiler and writes it as a\n"
           "salto character (docs/import.md): each body with joints a body, its hinge and slide\n"
           "joints its DOFs in order (a ball joint three hinges about its body's axes), bodies\n"
           "without joints joined to their parent's, the root free (a free joint, or three\n"
           "slides and three hinges as salto exports one), planar or fixed; masses, inertias,\n"
           "spheres, capsules, boxes along the body's axes, sites and gravity. salto's q = 0 is\n"
           "MuJoCo's reference pose (qpos0). What cannot be represented is an error naming it (a\n"
           "tendon, an equality constraint, a closed loop, joints of one body about different\n"
           "centres); what is left out or changed is said (meshes, cylinders, planes, armature\n"
           "and damping, a ball joint's cone limit). Default CHARACTER.yaml: MODEL's name with\n"
           ".yaml. Written atomically. Exit status 0, or 2 for bad input.\n");
}

int cmd_import(int argc, char** argv) {
    const char* path = NULL;
    const char* out = NULL;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            help();
            return 0;
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (app_positional("import", argv[i], &path) != 0) {
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "usage: salto import MODEL.xml|MODEL.urdf [-o CHARACTER.yaml] (see 'salto import --help')\n");
        return 2;
    }
    char buf[4200];
    if (!out) { // MODEL's name, .yaml for its extension
        app_with_ext(path, ".yaml", buf, sizeof buf);
        out = buf;
    }
    salto_error err = {0};
    salto_import_report rep;
    salto_character_desc* c = salto_import_model(path, &rep, &err);
    if (!c) {
        app_print_error(&err);
        return err.status == SALTO_ERR_NOMEM ? 1 : 2;
    }
    // the file must read back as a character salto builds
    salto_model* m = salto_model_build(c, NULL, &err);
    if (!m || salto_character_save(c, out, &err) != SALTO_OK) {
        app_print_error(&err);
        salto_model_destroy(m);
        salto_character_destroy(c);
        return 2;
    }
    if (!quiet) {
        static const char* const roots[] = {"free", "planar", "fixed"};
        for (int k = 0; k < rep.nnote; k++) printf("note: %s\n", rep.note[k]);
        if (rep.more > 0) printf("note: and %d more\n", rep.more);
        printf("wrote %s (character '%s': %d bodies, %d DOFs, a %s root, %d geometries, %d "
               "sites, %.4g kg moving)\n", out, c->name, m->nbody, m->nv, roots[c->root_type],
               m->ngeom, m->nsite, m->mass);
    }
    salto_model_destroy(m);
    salto_character_destroy(c);
    return 0;
}
