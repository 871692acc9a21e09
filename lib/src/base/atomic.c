// atomic.c: files written whole or not at all
#include "salto/atomic.h"

#include <errno.h>
#include <string.h>

salto_status salto_atomic_open(salto_atomic* a, const char* path, int open_file,
                               salto_error* err) {
    memset(a, 0, sizeof *a);
    if (!path || !path[0]) {
        return SALTO_FAIL(err, SALTO_ERR_IO, salto_loc_none(), "no file name given");
    }
    const size_t n = strlen(path);
    a->tmp = salto_malloc(n + 5);
    if (!a->tmp) {
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory writing '%s'",
                          path);
    }
    memcpy(a->tmp, path, n);
    memcpy(a->tmp + n, ".tmp", 5);
    a->path = path;
    if (open_file) {
        a->f = fopen(a->tmp, "w");
        if (!a->f) {
            const salto_status s = SALTO_FAIL(err, SALTO_ERR_IO, salto_loc_none(),
                                              "cannot write '%s': %s", a->tmp, strerror(errno));
            salto_free(a->tmp);
            a->tmp = NULL;
            return s;
        }
    }
    return SALTO_OK;
}


salto_status salto_atomic_commit(salto_atomic* a, salto_error* err) {
    int bad = 0, saved = 0;
    if (a->f) {
        bad = ferror(a->f) != 0;
        saved = errno;
        if (fclose(a->f) != 0 && !bad) bad = 1, saved = errno;
        a->f = NULL;
    }
    if (!bad && rename(a->tmp, a->path) != 0) bad = 1, saved = errno;
    salto_status s = SALTO_OK;
    if (bad) {
        remove(a->tmp);
        s = SALTO_FAIL(err, SALTO_ERR_IO, salto_loc_none(), "cannot write '%s': %s", a->path,
                       strerror(saved ? saved : EIO));
    }
    salto_free(a->tmp);
    a->tmp = NULL;
    return s;
}


void salto_atomic_abort(salto_atomic* a) {
    if (a->f) fclose(a->f);
    a->f = NULL;
    if (a->tmp) remove(a->tmp);
    salto_free(a->tmp);
    a->tmp = NULL;
}
