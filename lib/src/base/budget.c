// budget.c: the memory limit (budget.h), sizes read and written, the check against an estimate
#include "salto/budget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static double g_limit = 0.0; // 0: the default


void salto_set_memory_limit(double bytes) {
    g_limit = bytes > 0.0 ? bytes : 0.0;
}


double salto_memory_limit(void) {
    if (g_limit > 0.0) return g_limit;
    double v;
    const char* env = getenv("SALTO_MAX_MEMORY");
    if (env && salto_parse_size(env, &v) == 0) return v;
    double lim = SALTO_MEMORY_LIMIT_DEFAULT;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) {
        const double half = 0.5 * (double)pages * (double)page;
        if (half < lim) lim = half;
    }
    return lim;
}


int salto_parse_size(const char* s, double* bytes) {
    if (!s) return -1;
    if (strcasecmp(s, "none") == 0 || strcasecmp(s, "unlimited") == 0) {
        *bytes = INFINITY;
        return 0;
    }
    char* end;
    const double v = strtod(s, &end);
    if (end == s || !(v > 0.0) || !isfinite(v)) return -1;
    while (*end == ' ') end++;
    static const char* const units = "kmgt";
    double scale = 1.0;
    if (*end) {
        const char* u = strchr(units, (char)(*end | 0x20));
        if (!u) return -1;
        scale = pow(1024.0, (double)(u - units + 1));
        end++;
        // "G", "GB", "GiB" alike: binary multiples
        if (*end == 'i' || *end == 'I') end++;
        if (*end == 'b' || *end == 'B') end++;
    }
    if (*end) return -1;
    const double b = v * scale;
    if (!isfinite(b) || b < 1.0) return -1;
    *bytes = b;
    return 0;
}


int salto_format_bytes(double bytes, char* buf, size_t n) {
    if (!isfinite(bytes)) return snprintf(buf, n, "no limit");
    static const char* const names[] = {"B", "kiB", "MiB", "GiB", "TiB", "PiB"};
    int k = 0;
    while (k < 5 && bytes >= 1024.0) bytes /= 1024.0, k++;
    return snprintf(buf, n, k == 0 || bytes >= 100.0 ? "%.0f %s" : "%.2g %s", bytes, names[k]);
}


salto_status salto_budget_check(double bytes, salto_src_loc where, const char* what,
                                salto_error* err) {
    const double lim = salto_memory_limit();
    if (!(bytes > lim)) return SALTO_OK;
    char e[32], l[32];
    salto_format_bytes(bytes, e, sizeof e);
    salto_format_bytes(lim, l, sizeof l);
    SALTO_FAIL(err, SALTO_ERR_INVALID, where,
               "%s needs about %s of memory (estimated before allocating it), more than the "
               "limit of %s", what, e, l);
    if (g_limit > 0.0 || getenv("SALTO_MAX_MEMORY")) {
        salto_error_note(err, "the limit was set (salto --max-memory SIZE, SALTO_MAX_MEMORY or "
                              "the caller): a larger SIZE, or none, allows more");
    } else {
        salto_error_note(err, "the limit is the smaller of 4 GiB and half this machine's memory "
                              "unless set: 'salto --max-memory SIZE ...' (or SALTO_MAX_MEMORY=SIZE) "
                              "allows more, e.g. 16G, or none");
    }
    return err ? err->status : SALTO_ERR_INVALID;
}
