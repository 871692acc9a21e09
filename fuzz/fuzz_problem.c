// fuzz_problem.c: libFuzzer harness for the problem loader and the NLP's layout: any bytes,
// read as a problem file (its character found through a `data` link beside it), must load or
// fail with an error naming the file, never crash; a problem that loads builds its NLP (when
// small enough to build quickly), evaluates it once at its initial guess, and is freed.
// Build and run: docs/features.md, "Fuzzing".
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "salto/base.h"
#include "salto/nlp.h"
#include "salto/problem.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// a folder with `data` linking to the repository's, and the input written to folder/p/in.yaml
// (so that "../data/characters/NAME.yaml" finds the shipped characters)
static const char* input_path(void) {
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
    snprintf(path, sizeof path, "%s/p/in.yaml", dir);
    return path;
}


int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* path = input_path();
    FILE* f = fopen(path, "wb");
    if (!f) abort();
    fwrite(data, 1, size, f);
    fclose(f);
    salto_error err = {0};
    salto_problem_desc* p = salto_problem_load(path, &err);
    if (!p) {
        if (err.status == SALTO_OK || !err.msg[0]) abort(); // a failure always says why
        return 0;
    }
    // the NLP of a problem small enough to build in a moment
    if ((long)p->ncp * p->model->nv <= 4000 && p->nslice <= 400) {
        salto_nlp* nlp = salto_nlp_build(p, &err);
        if (nlp) {
            double* x = malloc(sizeof(double) * (size_t)salto_nlp_nx(nlp));
            double* g = malloc(sizeof(double) * (size_t)(salto_nlp_ng(nlp) + 1));
            if (x && g) {
                double fv;
                salto_nlp_initial_guess(nlp, x);
                salto_nlp_eval_g(nlp, x, g);
                salto_nlp_eval_f(nlp, x, &fv);
            }
            free(x), free(g);
            salto_nlp_destroy(nlp);
        }
    }
    salto_problem_destroy(p);
    return 0;
}
