// kkt_ma57.h: salto's KKT factorisation handed to IPOPT as MA57 (kkt_ma57.c; work in progress)
#ifndef SALTO_KKT_MA57_H
#define SALTO_KKT_MA57_H

// Registers salto's MA57 entry points with IPOPT's loader; then linear_solver=ma57 uses them.
void kkt_ma57_register(void);

#endif
