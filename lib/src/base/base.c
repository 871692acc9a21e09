// base.c: structured errors and allocation hooks
#include "salto/base.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

salto_src_loc salto_loc_none(void) {
    salto_src_loc l = {NULL, 0, 0};
    return l;
}


salto_status salto_fail(salto_error* err, salto_status s, salto_src_loc where, const char* func,
                        int src_line, const char* fmt, ...) {
    if (!err) return s;
    if (err->status != SALTO_OK) return err->status;
    err->status = s;
    err->func = func;
    err->src_line = src_line;
    err->note[0] = '\0';
    err->where = where;
    if (where.file) {
        snprintf(err->file_buf, sizeof err->file_buf, "%s", where.file);
        err->where.file = err->file_buf;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return s;
}


void salto_error_note(salto_error* err, const char* fmt, ...) {
    if (!err || err->status == SALTO_OK || err->note[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->note, sizeof err->note, fmt, ap);
    va_end(ap);
}


static int format_loc(const salto_src_loc* l, char* buf, size_t n) {
    if (!l->file) return 0;
    if (l->line > 0 && l->col > 0) return snprintf(buf, n, "%s:%d:%d: ", l->file, l->line, l->col);
    if (l->line > 0) return snprintf(buf, n, "%s:%d: ", l->file, l->line);
    return snprintf(buf, n, "%s: ", l->file);
}


void salto_error_format(const salto_error* err, char* buf, size_t n) {
    if (n == 0) return;
    buf[0] = '\0';
    char loc[300] = "";
    format_loc(&err->where, loc, sizeof loc);
    int k = snprintf(buf, n, "%serror: %s", loc, err->msg);
    if (err->note[0] && k > 0 && (size_t)k < n) {
        snprintf(buf + k, n - (size_t)k, "\n%snote: %s", loc, err->note);
    }
}

// ---- allocation ----

static salto_alloc_hooks g_hooks = {NULL, NULL, NULL};


void salto_set_alloc_hooks(const salto_alloc_hooks* hooks) {
    if (hooks) {
        g_hooks = *hooks;
    } else {
        g_hooks.malloc_fn = NULL;
        g_hooks.free_fn = NULL;
        g_hooks.user = NULL;
    }
}


void* salto_malloc(size_t n) {
    if (n == 0) return NULL;
    if (g_hooks.malloc_fn) return g_hooks.malloc_fn(n, g_hooks.user);
    return malloc(n);
}


void* salto_calloc(size_t n, size_t size) {
    if (n == 0 || size == 0) return NULL;
    if (size > (size_t)-1 / n) return NULL;
    void* p = salto_malloc(n * size);
    if (p) memset(p, 0, n * size);
    return p;
}


void salto_free(void* p) {
    if (!p) return;
    if (g_hooks.free_fn) {
        g_hooks.free_fn(p, g_hooks.user);
    } else {
        free(p);
    }
}


char* salto_strdup(const char* s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char* p = salto_malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}


int salto_strs_dup(int n, const char* const* src, char*** out) {
    *out = NULL;
    if (n <= 0) return 0;
    char** v = salto_calloc((size_t)n, sizeof(char*));
    if (!v) return -1;
    for (int i = 0; i < n; i++) {
        if (!(v[i] = salto_strdup(src[i]))) {
            salto_strs_free(v, i);
            return -1;
        }
    }
    *out = v;
    return 0;
}


int salto_grow(void** p, size_t* cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t c = *cap > 8 ? 2 * *cap : 16;
    while (c < need) c *= 2;
    void* q = salto_malloc(c * elem);
    if (!q) return -1;
    if (*p && *cap) memcpy(q, *p, *cap * elem);
    salto_free(*p);
    *p = q, *cap = c;
    return 0;
}


void salto_strs_free(char** v, int n) {
    for (int i = 0; v && i < n; i++) salto_free(v[i]);
    salto_free(v);
}


#ifndef NDEBUG
void salto_assert_fail(const char* cond, const char* file, int line) {
    fprintf(stderr, "%s:%d: assertion failed: %s\n", file, line, cond);
    abort();
}
#endif


const char* salto_version(void) {
    return "0.1";
}


char* salto_read_file(const char* path, size_t* len, salto_error* err) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        SALTO_FAIL(err, SALTO_ERR_IO, salto_loc_none(), "cannot open '%s': %s", path,
                   strerror(errno));
        return NULL;
    }
    // the whole file, in a buffer that grows by doubling
    size_t cap = 4096, n = 0;
    char* buf = salto_malloc(cap);
    if (!buf) goto fail_nomem;
    for (;;) {
        if (n == cap) {
            if (cap > ((size_t)-1) / 2) goto fail_nomem;
            char* nb = salto_malloc(2 * cap);
            if (!nb) goto fail_nomem;
            memcpy(nb, buf, n);
            salto_free(buf);
            buf = nb;
            cap *= 2;
        }
        const size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        SALTO_FAIL(err, SALTO_ERR_IO, salto_loc_none(), "cannot read '%s': %s", path,
                   strerror(errno ? errno : EIO));
        salto_free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = '\0'; // the last read found room and nothing to put in it: n < cap
    *len = n;
    return buf;

fail_nomem:
    SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory reading '%s'", path);
    salto_free(buf);
    fclose(f);
    return NULL;
}


double salto_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


double salto_cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
