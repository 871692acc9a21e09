// atomic.h: files written whole or not at all (PATH.tmp, then rename over PATH)
#ifndef SALTO_ATOMIC_H
#define SALTO_ATOMIC_H

#include <stdio.h>

#include "salto/base.h"

typedef struct salto_atomic {
    FILE* f;          // the open temporary file (NULL when the caller writes tmp itself)
    char* tmp;        // PATH.tmp, owned until commit or abort
    const char* path; // borrowed
} salto_atomic;

// Makes the temporary name PATH.tmp and, with open_file, opens it for writing into a->f (a
// writer that opens files itself, such as cairo, writes a->tmp). SALTO_ERR_IO or
// SALTO_ERR_NOMEM with err filled (a is then empty and needs no abort).
salto_status salto_atomic_open(salto_atomic* a, const char* path, int open_file,
                               salto_error* err);

// Closes the file, checks that everything was written and renames it over PATH; on any
// failure removes the temporary file and fills err ("cannot write 'PATH': reason"). Frees
// a->tmp either way.
salto_status salto_atomic_commit(salto_atomic* a, salto_error* err);

// Gives up: closes and removes the temporary file, frees a->tmp. PATH is untouched.
void salto_atomic_abort(salto_atomic* a);

#endif
