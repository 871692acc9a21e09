// kkt_mumps.h: MUMPS on a KKT matrix, set up as IPOPT 3.11 sets it up (a yardstick for salto's
// own factorisation: salto bench compares the two on the same matrices in the same run)
#ifndef SALTO_KKT_MUMPS_H
#define SALTO_KKT_MUMPS_H

typedef struct kkt_mumps kkt_mumps;

// The pattern: ne triplets, 1-based (IPOPT's), copied; MUMPS's analysis runs on the first
// factorisation's values (its permutation and scaling read them, as in IPOPT's interface).
// NULL on failure.
kkt_mumps* kkt_mumps_analyse(int n, int ne, const int* irn, const int* jcn);

// Factors the values a (ne), analysed first at the first call; *neg receives the negative
// eigenvalues (INFOG(12)). Returns MUMPS's INFO(1) (0: success; -10: singular; an analysis's
// error as it is), -100 if out of memory.
int kkt_mumps_factor(kkt_mumps* m, const double* a, int* neg);

void kkt_mumps_free(kkt_mumps* m);

#endif
