// fuzz_problem.c: libFuzzer harness for the problem loader and the NLP's layout: any bytes,
// read as a problem file (its character found through a `data` link beside it), must load or
// fail with an error naming the file, never crash; a problem that loads builds its NLP (when
// small enough to build quickly), evaluates it once at its initial guess, and is freed.
// Build and run: docs/features.md, "Fuzzing".
#include "fuzz_common.h"
#include "salto/nlp.h"
#include "salto/problem.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* path = fuzz_input_path(".yaml"); // (so "../data/characters/" resolves)
    fuzz_write(path, data, size);
    salto_error err = {0};
    salto_problem_desc* p = salto_problem_load(path, &err);
    if (!p) {
        fuzz_check_error(&err); // a failure always says why
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
