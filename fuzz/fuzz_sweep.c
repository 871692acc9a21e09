// fuzz_sweep.c: libFuzzer harness for the sweep reader (salto batch): any bytes, read as a sweep
// file (its problem found through the `data` link beside it), load or fail with an error.
#include "fuzz_common.h"
#include "salto/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* path = fuzz_input_path(".yaml");
    fuzz_write(path, data, size);
    salto_error err = {0};
    salto_sweep* s = salto_sweep_load(path, &err);
    if (!s) fuzz_check_error(&err);
    salto_sweep_destroy(s);
    return 0;
}
