// fuzz_character.c: libFuzzer harness for the character loader: any bytes, read as a character
// file, must load (and build its model) or fail with an error, never crash.
#include "fuzz_common.h"
#include "salto/character.h"
#include "salto/model.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* path = fuzz_input_path(".yaml");
    fuzz_write(path, data, size);
    salto_error err = {0};
    salto_character_desc* c = salto_character_load(path, &err);
    if (!c) {
        fuzz_check_error(&err);
        return 0;
    }
    salto_model* m = salto_model_build(c, NULL, &err);
    salto_model_destroy(m);
    salto_character_destroy(c);
    return 0;
}
