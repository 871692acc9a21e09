// budget.h: how much memory one piece of work may take, and the check made against an
// estimate before the memory is allocated
//
// Sizes a user sets (control points, slices, a simulation's steps, a character's bodies) imply
// memory that grows with them; salto estimates it from the sizes alone, before allocating, and
// refuses work whose estimate is over the limit with a message that gives both, rather than
// running until the machine swaps or the kernel kills it. The limit: salto_set_memory_limit's,
// else the environment's SALTO_MAX_MEMORY (`salto --max-memory SIZE` sets it for a command and
// every process it starts), else the smaller of SALTO_MEMORY_LIMIT_DEFAULT and half the
// machine's physical memory.
#ifndef SALTO_BUDGET_H
#define SALTO_BUDGET_H

#include <stddef.h>

#include "salto/base.h"

#define SALTO_MEMORY_LIMIT_DEFAULT (4.0 * 1024.0 * 1024.0 * 1024.0) // 4 GiB

// The limit in bytes (INFINITY: none). An unreadable SALTO_MAX_MEMORY counts as unset.
double salto_memory_limit(void);

// Sets the limit for this process (bytes > 0; INFINITY: none); 0 returns to the default.
void salto_set_memory_limit(double bytes);

// "4G", "512M", "100k", "2.5GiB", "8 GB", "1e9" or "1e9B" (bytes; k, M, G, T, P binary
// multiples) or "none"/"unlimited" (INFINITY) into *bytes; 0, or -1 when s is none of these
// (hexadecimal, or not a positive size of at least a byte).
int salto_parse_size(const char* s, double* bytes);

// "1.9 GiB", "512 MiB", "800 kiB", "12 B" (the unit the rounded value needs); returns what
// snprintf returns.
int salto_format_bytes(double bytes, char* buf, size_t n);

// SALTO_OK when an estimate of bytes is within the limit; else SALTO_ERR_INVALID at where:
// "<what> needs about <estimate> of memory (estimated before allocating it), more than the
// limit of <limit>", with a note on how to raise the limit.
salto_status salto_budget_check(double bytes, salto_src_loc where, const char* what,
                                salto_error* err);

#endif
