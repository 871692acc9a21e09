// base.h: status codes, structured errors pointing at the user's input, allocation hooks
#ifndef SALTO_BASE_H
#define SALTO_BASE_H

#include <stddef.h>

#if defined(__GNUC__)
#define SALTO_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define SALTO_PRINTF(fmt, args)
#endif

typedef enum salto_status {
    SALTO_OK = 0,
    SALTO_ERR_IO,      // file missing or unreadable
    SALTO_ERR_SYNTAX,  // input text does not parse
    SALTO_ERR_INVALID, // parses, but a value is out of range or inconsistent
    SALTO_ERR_NOMEM,   // allocation failed
    SALTO_ERR_NUMERIC, // factorisation failed, NaN or Inf produced
    SALTO_ERR_SOLVER   // the NLP solver stopped without a solution
} salto_status;

// Where a value came from in the user's input. file is borrowed.
typedef struct salto_src_loc {
    const char* file; // NULL when unknown
    int line;         // 1-based; 0 when unknown
    int col;          // 1-based; 0 when unknown
} salto_src_loc;

typedef struct salto_error {
    salto_status status;  // SALTO_OK while no error is recorded
    salto_src_loc where;  // location in the input, when the error is about input
    const char* func;     // library function that detected it
    int src_line;         // line in the library source, for developers
    char msg[400];        // lowercase, no final period
    char note[400];       // optional follow-up ("did you mean ..."), "" when none
    char file_buf[256];   // copy of where.file, so the error outlives the input tree
} salto_error;

// Record an error unless one is already recorded (the first cause wins).
// Returns the recorded status, so callers can write `return SALTO_FAIL(...)`.
salto_status salto_fail(salto_error* err, salto_status s, salto_src_loc where, const char* func,
                        int src_line, const char* fmt, ...) SALTO_PRINTF(6, 7);

// Attach a note to the recorded error (ignored when no error is recorded or a note exists).
void salto_error_note(salto_error* err, const char* fmt, ...) SALTO_PRINTF(2, 3);

#define SALTO_FAIL(err, s, where, ...) salto_fail((err), (s), (where), __func__, __LINE__, __VA_ARGS__)

// Writes "file:line:col: error: msg" (or "error: msg" without a location), followed by
// "\nfile:line:col: note: ..." when a note is attached.
void salto_error_format(const salto_error* err, char* buf, size_t n);

// A location with no file, line or column.
salto_src_loc salto_loc_none(void);

// ---- allocation through replaceable hooks (tests make the n-th allocation fail) ----
void* salto_malloc(size_t n);        // NULL on failure or n == 0
void* salto_calloc(size_t n, size_t size);
void salto_free(void* p);            // accepts NULL
char* salto_strdup(const char* s);   // NULL if s is NULL or allocation fails
// copies of the n strings src (an array of n, NULL when n is 0) into *out; -1 when memory runs
// out (*out then NULL, nothing kept)
int salto_strs_dup(int n, const char* const* src, char*** out);
void salto_strs_free(char** v, int n); // the n strings and the array; accepts NULL
// A growing array: *p (of *cap elements of elem bytes) given room for at least need, its
// first *cap elements kept (the room doubled, from 16 at least). 0, or -1 when memory runs
// out (*p and *cap then unchanged).
int salto_grow(void** p, size_t* cap, size_t need, size_t elem);

// The whole of a file (*len bytes and a terminating NUL not counted in them; release with
// salto_free), or NULL with
// err filled: SALTO_ERR_IO naming the file (cannot open, cannot read), SALTO_ERR_NOMEM.
char* salto_read_file(const char* path, size_t* len, salto_error* err);

typedef struct salto_alloc_hooks {
    void* (*malloc_fn)(size_t n, void* user);
    void (*free_fn)(void* p, void* user);
    void* user;
} salto_alloc_hooks;

// Install hooks (NULL restores the C library). Not thread-safe; for tests.
void salto_set_alloc_hooks(const salto_alloc_hooks* hooks);

// Seconds on the monotonic clock (for timing: differences only).
double salto_now(void);

// Seconds of CPU time the calling thread has used (for timing work apart from what other
// threads and processes do: differences only).
double salto_cpu_now(void);

#ifdef NDEBUG
#define SALTO_ASSERT(cond) ((void)0)
#else
void salto_assert_fail(const char* cond, const char* file, int line);
#define SALTO_ASSERT(cond) ((cond) ? (void)0 : salto_assert_fail(#cond, __FILE__, __LINE__))
#endif

// Library version, "MAJOR.MINOR".
const char* salto_version(void);

#endif
