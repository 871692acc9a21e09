// import.h: characters from MJCF and URDF models (salto import; import_mjcf.c, through MuJoCo)
#ifndef SALTO_APPS_IMPORT_H
#define SALTO_APPS_IMPORT_H

#include "salto/character.h"

enum { SALTO_IMPORT_MAX_NOTES = 64 };

// What the import changed or left out, one line each (a ball joint as three hinges, a mesh left
// out, a welded base given a mass); more: the lines past the last kept.
typedef struct salto_import_report {
    int nnote, more;
    char note[SALTO_IMPORT_MAX_NOTES][300];
} salto_import_report;

// The character of an MJCF or URDF model (MuJoCo's parser and compiler read it: mj_loadXML):
// each body with joints a salto body, its hinges and slides its axes in order (a ball three
// hinges about its body's axes; a free joint the free root), bodies without joints joined to
// their parent's; the root free (one free joint, or three slides along x, y, z then three
// hinges, as salto exports one), planar (slides x, z and a hinge y) or fixed (a welded base);
// masses, inertias, spheres, capsules, boxes along the body's axes, sites; gravity. salto's q =
// 0 is MuJoCo's qpos0. NULL with err filled: the model unreadable (MuJoCo's message), a tendon,
// an equality constraint, a mocap body, a free joint below the root, joints of one body about
// different centres, a moving body without mass, or what salto_character_validate refuses.
salto_character_desc* salto_import_model(const char* path, salto_import_report* rep,
                                         salto_error* err);

#endif
