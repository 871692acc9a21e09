// kkt_ma57.h: salto's KKT factorisation (kkt_sparse.h) handed to IPOPT as MA57 (kkt_ma57.c)
#ifndef SALTO_KKT_MA57_H
#define SALTO_KKT_MA57_H

// What the factorisations of one solve did (CPU time of the calling thread).
typedef struct kkt_ma57_stats {
    int factorisations; // MA57BD calls (IPOPT's main system's, and its restoration phase's)
    int n;              // the last system's order
    double factor_s, solve_s; // s
    // with compare: MUMPS (set up as IPOPT sets it up) factors every matrix too
    int compared;       // matrices MUMPS factored too
    int inertia_differs; // of which MUMPS counted other negative eigenvalues (not singular ones)
    double mumps_s;     // MUMPS's factorisations, s
} kkt_ma57_stats;

// Registers salto's MA57 entry points with IPOPT's loader (then linear_solver=ma57 uses them)
// and starts a solve: the solver instances IPOPT makes from now on are kept apart by handles
// in KEEP(1) and IFACT(1), and stats (may be NULL) receives their counts. With compare (and
// stats), MUMPS factors each matrix as well, timed apart.
void kkt_ma57_begin(kkt_ma57_stats* stats, int compare);

// Ends the solve begun by kkt_ma57_begin: frees every instance it made.
void kkt_ma57_end(void);

#endif
