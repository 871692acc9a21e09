// character_priv.h: what the character loader's files share: the enumerations' names, the
// reader, and the functions one file defines for the others
//
// The files (each begins with what it holds):
//   character.c        allocation, salto_character_load (the file read, then checked), writing
//   character_read.c   a character file read into a description
//   character_check.c  the checks of a description (salto_character_validate)
#ifndef SALTO_CHARACTER_PRIV_H
#define SALTO_CHARACTER_PRIV_H

#include "salto/character.h"

#include "salto/config.h"

static const char* const root_type_names[] = {"free", "planar", "fixed", NULL};
static const char* const axis_type_names[] = {"revolute", "prismatic", NULL};
static const char* const shape_names[] = {"capsule", "box", "sphere", NULL};

// the loader's state while it reads one character file
typedef struct reader {
    salto_character_desc* c; // being filled; its path owns the locations' file name
    salto_error* err;
    const char* path;        // the locations' file name when not c->path (a file that extends
                             //   another: c is the base's)
    int depth;               // files extending this one (a chain of extends stops at 8)
} reader;


// ---- defined in one file for the others (each documented at its definition) ----

// character_check.c: the length of a 3-vector
double character_norm3(const double* v);

// character_read.c: the file's top level and bodies into R->c (which it allocates, its
// locations pointing at path); the description is checked after
salto_status character_read_character(reader* R, const salto_cfg* cfg, const char* path);

#endif
