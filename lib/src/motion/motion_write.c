// motion_write.c: motion.csv, a motion's frames as CSV, atomically (motion.h)
#include "salto/motion.h"

#include "salto/atomic.h"
#include "json_out.h"

#include <math.h>
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
    // a turned motion's root angles in the character's chart (motion.h)
    double* cq = mo->root_turned ? salto_motion_character_q(mo) : NULL;
    if (mo->root_turned && !cq) {
        salto_atomic_abort(&a);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory writing '%s'", path);
    }
    const double* q = cq ? cq : mo->q;
    for (int k = 0; k < mo->nframe; k++) {
        fprintf(f, "%.9g", salto_motion_frame_time(mo, k));
        for (int j = 0; j < mo->nv; j++) {
            const double v = q[(size_t)k * (size_t)mo->nv + (size_t)j];
            fprintf(f, ",%.17g", cq && fabs(v) < SALTO_MOTION_ZERO ? 0.0 : v);
        }
        fputc('\n', f);
    }
    salto_free(cq);
    return salto_atomic_commit(&a, err);
}
