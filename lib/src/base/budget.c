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
    static int warned = 0;
    if (env && !warned) {
        warned = 1;
        fprintf(stderr, "salto: warning: SALTO_MAX_MEMORY='%s' is not a size (such as 8G, 512M "
                        "or none): the default limit applies\n", env);
    }
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
    while (*s == ' ') s++;
    if (strcasecmp(s, "none") == 0 || strcasecmp(s, "unlimited") == 0) {
        *bytes = INFINITY;
        return 0;
    }
    // decimal digits, a point, an exponent: no hexadecimal, no "inf" or "nan"
    if (!(*s >= '0' && *s <= '9') && *s != '.') return -1;
    for (const char* c = s; *c && *c != ' '; c++) {
        if ((*c | 0x20) == 'x') return -1;
    }
    char* end;
    const double v = strtod(s, &end);
    if (end == s || !(v > 0.0) || !isfinite(v)) return -1;
    while (*end == ' ') end++;
    static const char* const units = "kmgtp";
    double scale = 1.0;
    if (*end && (*end | 0x20) != 'b') {
        const char* u = strchr(units, (char)(*end | 0x20));
        if (!u) return -1;
        scale = pow(1024.0, (double)(u - units + 1));
        end++;
        // "G", "GB", "GiB" alike: binary multiples
        if (*end == 'i' || *end == 'I') end++;
    }
    if (*end == 'b' || *end == 'B') end++;
    while (*end == ' ') end++;
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
    // the unit of the value as printed: 1023.96 kiB is 1.0 MiB
    while (k < 5 && bytes >= 1023.5) bytes /= 1024.0, k++;
    if (k == 0 || bytes >= 9.95) return snprintf(buf, n, "%.0f %s", bytes, names[k]);
    return snprintf(buf, n, "%.1f %s", bytes, names[k]);
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
    double v;
    const char* env = getenv("SALTO_MAX_MEMORY");
    if (g_limit > 0.0 || (env && salto_parse_size(env, &v) == 0)) {
        salto_error_note(err, "the limit was set (salto --max-memory SIZE, SALTO_MAX_MEMORY or "
                              "the caller): a larger SIZE, or none, allows more");
    } else {
        salto_error_note(err, "the limit is the smaller of 4 GiB and half this machine's memory "
                              "unless set: 'salto --max-memory SIZE ...' (or SALTO_MAX_MEMORY=SIZE) "
                              "allows more, e.g. 16G, or none");
    }
    return err ? err->status : SALTO_ERR_INVALID;
}
