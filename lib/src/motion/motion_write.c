// motion_write.c: motion.csv, a motion's frames as CSV, atomically (motion.h)
#include "salto/motion.h"

#include "salto/atomic.h"
#include "json_out.h"

#include <stdio.h>


salto_status salto_motion_write_csv(const salto_motion* mo, const char* path, salto_error* err) {
    salto_atomic a;
    salto_status s = salto_atomic_open(&a, path, 1, err);
    if (s) return s;
    FILE* f = a.f;
    fputs("t", f);
    for (int j = 0; j < mo->nv; j++) {
        fputc(',', f);
        salto_csv_field(f, mo->dof_name[j]);
    }
    fputc('\n', f);
    for (int k = 0; k < mo->nframe; k++) {
        fprintf(f, "%.9g", salto_motion_frame_time(mo, k));
        for (int j = 0; j < mo->nv; j++) fprintf(f, ",%.17g", mo->q[(size_t)k * (size_t)mo->nv + (size_t)j]);
        fputc('\n', f);
    }
    return salto_atomic_commit(&a, err);
}
