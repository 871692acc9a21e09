// data.h: state, results and scratch for evaluating a model (one per thread)
#ifndef SALTO_DATA_H
#define SALTO_DATA_H

#include "salto/model.h"

// All spatial quantities are in world coordinates about the world origin, [angular; linear].
// The model must outlive the data; one model may serve many data objects.
// The per-link arrays sized (nv+1) have one more entry at index -1, the world's (a root
// link's parent is -1): R = 1, p = 0, S = 0, V = 0, A = -g (set by salto_fk), so that the
// recursions read a parent's values without a branch. The other arrays' world entries
// (F[-1], Ic[-1], ...) are scratch.
typedef struct salto_data {
    // inputs
    double* q;        // positions, rad or m                                  (nv)
    double* qd;       // velocities                                           (nv)
    double* qdd;      // accelerations                                        (nv)
    double* tau;      // generalised forces                                   (nv)

    // kinematics, salto_fk()
    double* R;        // link frame -> world rotation                      ((nv+1) x 9)
    double* p;        // link origin in the world, m                       ((nv+1) x 3)
    double* S;        // joint motion axis                                 ((nv+1) x 6)
    double* V;        // link spatial velocity                             ((nv+1) x 6)
    double* A;        // link spatial acceleration, gravity as a base
                      //   acceleration -g (RBDA 5.3)                       ((nv+1) x 6)
    double* c;        // velocity-product term (V x S) qd                  ((nv+1) x 6)

    // dynamics: body and subtree quantities
    double* I;        // link inertia (m, h, Ibar), salto_spatial.h form    ((nv+1) x 10)
    double* Ic;       // composite inertia of the subtree                  ((nv+1) x 10)
    double* Icd;      // time derivative of Ic                             ((nv+1) x 10)
    double* F;        // net force of the subtree = joint force (RNEA)     ((nv+1) x 6)

    // results
    double f0[6];     // aggregate force: all external forces but gravity, about the origin
    double p0[6];     // aggregate momentum about the origin

    // articulated-body algorithm
    double* IA;       // articulated inertia, packed symmetric             ((nv+1) x 21)
    double* pA;       // bias force                                        ((nv+1) x 6)
    double* U;        // IA S                                                 (nv x 6)
    double* Dinv;     // 1 / (S' U)                                           (nv)
    double* u;        // tau - S' pA                                          (nv)

    // scratch for the baselines and finite differences
    double* work;     //                                                      (nwork)
    int nwork;
    void* buffer;     // single allocation owning the arrays above
} salto_data;

// Returns new data sized for m, owned by the caller (release with salto_data_destroy), with
// every input zero. NULL if allocation fails.
salto_data* salto_data_create(const salto_model* m);
void salto_data_destroy(salto_data* d); // accepts NULL

// Copies the inputs (q, qd, qdd, tau) of src into dst (same model).
void salto_data_copy_inputs(const salto_model* m, salto_data* dst, const salto_data* src);

#endif
