// json_out.c: JSON values and CSV fields for salto's writers (json_out.h)
#include "json_out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// a JSON string literal (names and paths: escape quotes, backslashes and control characters)
void salto_json_str(FILE* f, const char* s) {
    fputc('"', f);
    for (; s && *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}


void salto_csv_field(FILE* f, const char* s) {
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}


// a JSON number (non-finite values become null)
void salto_json_num(FILE* f, double v) {
    if (isfinite(v)) {
        fprintf(f, "%.17g", v);
    } else {
        fputs("null", f);
    }
}


void salto_json_nums(FILE* f, const double* v, int n, int stride) {
    fputc('[', f);
    for (int k = 0; k < n; k++) {
        if (k) fputs(", ", f);
        salto_json_num(f, v[(size_t)k * (size_t)stride]);
    }
    fputc(']', f);
}


void salto_json_num_g(FILE* f, double v, int digits) {
    if (isfinite(v)) {
        fprintf(f, "%.*g", digits, fabs(v) < 1e-12 ? 0.0 : v);
    } else {
        fputs("null", f);
    }
}


void salto_json_nums_g(FILE* f, const double* v, int n, int stride, int digits) {
    fputc('[', f);
    for (int k = 0; k < n; k++) {
        if (k) fputc(',', f);
        salto_json_num_g(f, v[(size_t)k * (size_t)stride], digits);
    }
    fputc(']', f);
}


void salto_json_rows(FILE* f, const double* v, int n, int width, const char* sep) {
    fputc('[', f);
    for (int k = 0; k < n; k++) {
        if (k) fputs(sep, f);
        salto_json_nums(f, v + (size_t)k * (size_t)width, width, 1);
    }
    fputc(']', f);
}


void salto_json_strs(FILE* f, char* const* v, int n) {
    fputc('[', f);
    for (int k = 0; k < n; k++) {
        if (k) fputs(", ", f);
        salto_json_str(f, v[k]);
    }
    fputc(']', f);
}


void salto_json_ints(FILE* f, const int* v, int n) {
    fputc('[', f);
    for (int k = 0; k < n; k++) fprintf(f, "%s%d", k ? ", " : "", v[k]);
    fputc(']', f);
}
