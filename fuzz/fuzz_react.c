// fuzz_react.c: libFuzzer harness for the reactions' readers (salto play --react): any bytes, as
// a spec on the command line (a YAML map or BODY:FX,FY,FZ@T[:PUSH]) and as a file, on the monkey
// bars' problem: read or refused with an error, never a crash.
#include "fuzz_common.h"
#include "salto/problem.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static salto_problem_desc* p = NULL;
    if (!p) {
        salto_error e = {0};
        p = salto_problem_load(fuzz_root_path("problems/monkey_bars.yaml"), &e);
        if (!p) abort();
    }
    char* spec = malloc(size + 1);
    if (!spec) return 0;
    memcpy(spec, data, size);
    spec[size] = '\0';
    salto_reaction_desc* r = NULL;
    int n = 0;
    salto_error err = {0};
    if (salto_reactions_parse(p, spec, &r, &n, &err) != SALTO_OK) fuzz_check_error(&err);
    salto_reactions_free(r, n);
    free(spec);
    const char* path = fuzz_input_path(".yaml");
    fuzz_write(path, data, size);
    salto_error e2 = {0};
    r = NULL, n = 0;
    if (salto_reactions_load(p, path, &r, &n, &e2) != SALTO_OK) fuzz_check_error(&e2);
    salto_reactions_free(r, n);
    return 0;
}
