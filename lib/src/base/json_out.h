// json_out.h: JSON values and CSV fields for salto's writers (json_out.c)
#ifndef SALTO_JSON_OUT_H
#define SALTO_JSON_OUT_H

#include <stdio.h>

// a JSON string literal: quotes, backslashes and control characters escaped
void salto_json_str(FILE* f, const char* s);
// a JSON number, shortest round-trip form (%.17g); non-finite values become null
void salto_json_num(FILE* f, double v);
// a JSON array of n numbers v[0], v[stride], ... as salto_json_num writes them
void salto_json_nums(FILE* f, const double* v, int n, int stride);
// the same shortened for pictures and pages: digits significant digits, magnitudes under 1e-12
// as 0, no spaces (salto view's data: 7 digits, a micrometre on a 10 m scene)
void salto_json_num_g(FILE* f, double v, int digits);
void salto_json_nums_g(FILE* f, const double* v, int n, int stride, int digits);
// a JSON array of n rows of width numbers each (row-major v), rows separated by sep
void salto_json_rows(FILE* f, const double* v, int n, int width, const char* sep);
// a JSON array of n strings
void salto_json_strs(FILE* f, char* const* v, int n);
// a JSON array of n integers
void salto_json_ints(FILE* f, const int* v, int n);

// a CSV field (RFC 4180): quoted, with quotes doubled, when it holds a comma, a quote or a
// line break (motion.csv's and sim.csv's DOF names, which salto's CSV reader reads back)
void salto_csv_field(FILE* f, const char* s);

#endif
