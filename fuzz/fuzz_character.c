// fuzz_character.c: libFuzzer harness for the character loader: any bytes, read as a character
// file, must load (and build its model) or fail with an error, never crash.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "salto/base.h"
#include "salto/character.h"
#include "salto/model.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static char path[64];
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/salto_fuzz_character_%d.yaml", (int)getpid());
    }
    FILE* f = fopen(path, "wb");
    if (!f) abort();
    fwrite(data, 1, size, f);
    fclose(f);
    salto_error err = {0};
    salto_character_desc* c = salto_character_load(path, &err);
    if (!c) {
        if (err.status == SALTO_OK || !err.msg[0]) abort();
        return 0;
    }
    salto_model* m = salto_model_build(c, NULL, &err);
    salto_model_destroy(m);
    salto_character_destroy(c);
    return 0;
}
