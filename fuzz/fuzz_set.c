// fuzz_set.c: libFuzzer harness for the overrides (salto solve --set PATH=VALUE): any bytes, cut
// at newlines into overrides, applied to the monkey bars' problem: it loads or fails with an
// error, never a crash.
#include "fuzz_common.h"
#include "salto/problem.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    char* text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    const char* set[16];
    int n = 0;
    for (char* s = text; s && *s && n < 16;) {
        set[n++] = s;
        char* nl = strchr(s, '\n');
        if (nl) *nl = '\0';
        s = nl ? nl + 1 : NULL;
    }
    salto_error err = {0};
    salto_problem_desc* p = salto_problem_load_set(fuzz_root_path("problems/monkey_bars.yaml"), n, set, &err);
    if (!p) fuzz_check_error(&err);
    salto_problem_destroy(p);
    free(text);
    return 0;
}
