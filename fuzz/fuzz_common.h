// fuzz_common.h: what the harnesses share: the input written to a file in a folder where
// "../data/characters/NAME.yaml" finds the shipped characters (SALTO_ROOT, else "."), and the
// rule that a reader either succeeds or fails with an error that says why
#ifndef SALTO_FUZZ_COMMON_H
#define SALTO_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "salto/base.h"

// a folder with `data` linking to the repository's; the input file folder/p/in<ext>
static inline const char* fuzz_input_path(const char* ext) {
    static char path[512];
    if (path[0]) return path;
    char dir[] = "/tmp/salto_fuzz_XXXXXX";
    if (!mkdtemp(dir)) abort();
    const char* root = getenv("SALTO_ROOT");
    char link[600], target[600];
    snprintf(target, sizeof target, "%s/data", root ? root : ".");
    snprintf(link, sizeof link, "%s/data", dir);
    if (symlink(target, link) != 0) abort();
    snprintf(link, sizeof link, "%s/p", dir);
    if (mkdir(link, 0700) != 0) abort();
    snprintf(path, sizeof path, "%s/p/in%s", dir, ext);
    return path;
}

static inline void fuzz_write(const char* path, const uint8_t* data, size_t size) {
    FILE* f = fopen(path, "wb");
    if (!f) abort();
    fwrite(data, 1, size, f);
    fclose(f);
}

// a shipped file's path under SALTO_ROOT
static inline const char* fuzz_root_path(const char* rel) {
    static char buf[1024];
    const char* root = getenv("SALTO_ROOT");
    snprintf(buf, sizeof buf, "%s/%s", root ? root : ".", rel);
    return buf;
}

// a failure must say what failed
static inline void fuzz_check_error(const salto_error* err) {
    if (err->status == SALTO_OK || !err->msg[0]) abort();
}

#endif
