// app_motion.h: a motion for salto validate and salto play, whatever file it comes in
#ifndef SALTO_APPS_APP_MOTION_H
#define SALTO_APPS_APP_MOTION_H

#include "cmds.h"
#include "salto/motion.h"
#include "salto/nlp.h"
#include "salto/validate.h"

typedef struct app_motion {
    salto_problem_desc* p;    // the problem (its character, phases)
    salto_nlp* nlp;           // its NLP (the validator's files name the problem through it)
    salto_state_fn state;     // the motion's state at any time, with ctx
    void* ctx;
    // what state reads (owned)
    salto_motion* mo;         // motion.json
    double* x;                //   its control points
    salto_nlp_motion nm;
    salto_frames* f;          // CSV or BVH frames
} app_motion;

// Opens MOTION (.json from salto solve; .csv or .bvh frames, which need problem_path) on its
// problem (problem_path, else the one the motion names). Returns 0, or the exit status with
// the error printed (2 bad input, 1 out of memory); who names the command in messages.
// Release with app_motion_close either way.
int app_motion_open(app_motion* am, const char* who, const char* motion_path,
                    const char* problem_path);
// The same with the problem's values changed as 'salto solve --set' changes them (each
// "PATH=VALUE", salto_problem_load_set), for a motion solved with overrides.
int app_motion_open_set(app_motion* am, const char* who, const char* motion_path,
                        const char* problem_path, int nset, const char* const* set);
void app_motion_close(app_motion* am);

#endif
