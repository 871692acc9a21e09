// fuzz_motion.c: libFuzzer harness for the motion readers: any bytes, read as a motion.json, as
// CSV frames or as a BVH (the first byte chooses), on the humanoid: read (and bound to it, the
// BVH also retargeted by its own names) or refused with an error, never a crash.
#include "fuzz_common.h"
#include "salto/model.h"
#include "salto/motion.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static salto_model* m = NULL;
    static const char* names[64];
    if (!m) {
        salto_error e = {0};
        m = salto_model_load(fuzz_root_path("data/characters/humanoid22.yaml"), &e);
        if (!m) abort();
        for (int b = 0; b < m->nbody && b < 64; b++) names[b] = m->body_name[b];
    }
    if (size < 1) return 0;
    const int kind = data[0] % 3;
    static char paths[3][600];
    static const char* const ext[3] = {".json", ".csv", ".bvh"};
    if (!paths[kind][0]) snprintf(paths[kind], sizeof paths[kind], "%s%s", fuzz_input_path(""), ext[kind]);
    fuzz_write(paths[kind], data + 1, size - 1);
    salto_error err = {0};
    if (kind == 0) {
        salto_motion* mo = salto_motion_load_json(paths[kind], &err);
        if (!mo) fuzz_check_error(&err);
        salto_motion_destroy(mo);
    } else if (kind == 1) {
        salto_frames* f = salto_frames_load_csv(paths[kind], &err);
        if (!f) {
            fuzz_check_error(&err);
        } else if (salto_frames_bind(f, m, &err) != SALTO_OK) {
            fuzz_check_error(&err);
        }
        salto_frames_destroy(f);
    } else {
        salto_frames* f = salto_frames_load_bvh(paths[kind], m, &err);
        if (!f) fuzz_check_error(&err);
        salto_frames_destroy(f);
        salto_error e2 = {0};
        salto_frames* g = salto_frames_retarget_bvh(paths[kind], m, names, NULL, 0.0, NULL, &e2);
        if (!g) fuzz_check_error(&e2);
        salto_frames_destroy(g);
    }
    return 0;
}
