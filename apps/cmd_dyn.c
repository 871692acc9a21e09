// cmd_dyn.c: salto dyn CHARACTER --op OP: machine-readable evaluation of the dynamics
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "salto/aggregate.h"
#include "salto/dynamics.h"
#include "salto/model.h"

static void help(void) {
    printf("usage: salto dyn CHARACTER.yaml --op OP [--method METHOD]\n\n"
           "Reads states from standard input, one per line, whitespace-separated numbers in the\n"
           "DOF order that 'salto check' prints (D = number of DOFs), and writes one result line\n"
           "per input line, numbers printed with %%.17g. Empty lines and lines starting with '#'\n"
           "are skipped and produce no output.\n\n"
           "  --op f0     input q qd qdd (3D numbers); output f0, the aggregate force in world\n"
           "              coordinates: torque about the world origin (3), then force (3)\n"
           "  --op jac    input q qd qdd; output the 6 x 3D Jacobian of f0 with respect to\n"
           "              (q, qd, qdd), row-major, on one line\n"
           "  --op rnea   input q qd qdd; output the D generalised forces (root DOFs included)\n"
           "  --op aba    input q qd tau (3D numbers); output the D accelerations\n"
           "  --method M  Jacobian method for --op jac: linear (default), direct, fd-forward,\n"
           "              fd-central, richardson\n\n"
           "Gravity comes from the character file (default 0 0 -9.81 m/s^2). A bad line is\n"
           "reported as <stdin>:LINE: error: ... with exit status 2; a result that is not\n"
           "finite (or a singular forward dynamics) stops with exit status 1.\n");
}


typedef enum { OP_F0, OP_JAC, OP_RNEA, OP_ABA } dyn_op;


// parses exactly n finite numbers from line; returns the count found (n + 1 if more), or -1
// with *bad pointing at a token that is not a number
static int parse_numbers(char* line, double* out, int n, char** bad) {
    int k = 0;
    char* s = line;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' || *s == ',') s++;
        if (!*s) break;
        char* end;
        errno = 0;
        const double v = strtod(s, &end);
        if (end == s || !(*end == '\0' || *end == ' ' || *end == '\t' || *end == '\r' ||
                          *end == '\n' || *end == ',') ||
            !isfinite(v)) {
            *bad = s;
            return -1;
        }
        if (k < n) out[k] = v;
        k++;
        s = end;
        if (k > n) return k;
    }
    return k;
}


// prints the row; returns 0 (and prints nothing) if an entry is not finite
static int print_row(const double* x, int n) {
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i])) return 0;
    }
    for (int i = 0; i < n; i++) printf(i ? " %.17g" : "%.17g", x[i]);
    putchar('\n');
    return 1;
}


int cmd_dyn(int argc, char** argv) {
    const char* path = NULL;
    const char* opname = NULL;
    const char* method_name = "linear";
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            help();
            return 0;
        } else if (strcmp(argv[i], "--op") == 0 && i + 1 < argc) {
            opname = argv[++i];
        } else if (strcmp(argv[i], "--method") == 0 && i + 1 < argc) {
            method_name = argv[++i];
        } else if (app_positional("dyn", argv[i], &path) != 0) {
            return 2;
        }
    }
    if (!path || !opname) {
        fprintf(stderr, "usage: salto dyn CHARACTER.yaml --op f0|jac|rnea|aba [--method M]\n");
        return 2;
    }
    dyn_op op;
    if (strcmp(opname, "f0") == 0) {
        op = OP_F0;
    } else if (strcmp(opname, "jac") == 0) {
        op = OP_JAC;
    } else if (strcmp(opname, "rnea") == 0) {
        op = OP_RNEA;
    } else if (strcmp(opname, "aba") == 0) {
        op = OP_ABA;
    } else {
        fprintf(stderr, "salto dyn: unknown --op '%s' (expected f0, jac, rnea or aba)\n", opname);
        return 2;
    }
    const int method = salto_jac_method_parse(method_name);
    if (method < 0) {
        fprintf(stderr, "salto dyn: unknown --method '%s' (expected linear, direct, fd-forward, "
                        "fd-central or richardson)\n", method_name);
        return 2;
    }

    salto_error err = {0};
    salto_model* m = salto_model_load(path, &err);
    if (!m) {
        app_print_error(&err);
        return 2;
    }
    const int nv = m->nv;
    salto_data* d = salto_data_create(m);
    double* in = malloc(sizeof(double) * (size_t)(3 * nv + 1));
    double* out = malloc(sizeof(double) * (size_t)(18 * nv + 6));
    char* line = NULL;
    size_t cap = 0;
    int status = 0;
    if (!d || !in || !out) {
        fprintf(stderr, "salto dyn: out of memory\n");
        status = 1;
        goto done;
    }

    long lineno = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) >= 0) {
        lineno++;
        char* s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '\0' || *s == '\n' || *s == '\r' || *s == '#') continue;
        char* bad = NULL;
        const int k = parse_numbers(line, in, 3 * nv, &bad);
        if (k < 0) {
            char tok[32];
            size_t t = 0;
            while (bad[t] && bad[t] != ' ' && bad[t] != '\t' && bad[t] != '\n' && t < sizeof tok - 1) {
                tok[t] = bad[t];
                t++;
            }
            tok[t] = '\0';
            fprintf(stderr, "<stdin>:%ld:%ld: error: expected a finite number, found '%s'\n",
                    lineno, (long)(bad - line) + 1, tok);
            status = 2;
            break;
        }
        if (k != 3 * nv) {
            fprintf(stderr, "<stdin>:%ld: error: expected %d numbers (%s for %d DOFs), found %s%d\n",
                    lineno, 3 * nv, op == OP_ABA ? "q qd tau" : "q qd qdd", nv,
                    k > 3 * nv ? "more than " : "", k > 3 * nv ? 3 * nv : k);
            status = 2;
            break;
        }
        memcpy(d->q, in, sizeof(double) * (size_t)nv);
        memcpy(d->qd, in + nv, sizeof(double) * (size_t)nv);
        int ok;
        if (op == OP_ABA) {
            memcpy(d->tau, in + 2 * nv, sizeof(double) * (size_t)nv);
            if (salto_aba(m, d, NULL) != SALTO_OK) {
                fprintf(stderr, "<stdin>:%ld: error: forward dynamics failed (singular "
                                "articulated inertia or non-finite result)\n", lineno);
                status = 1;
                break;
            }
            ok = print_row(d->qdd, nv);
        } else {
            memcpy(d->qdd, in + 2 * nv, sizeof(double) * (size_t)nv);
            if (op == OP_F0) {
                salto_rnea(m, d, NULL);
                ok = print_row(d->f0, 6);
            } else if (op == OP_RNEA) {
                salto_rnea(m, d, out);
                ok = print_row(out, nv);
            } else {
                salto_f0_jac(m, d, (salto_jac_method)method, NULL, out, NULL);
                ok = print_row(out, 18 * nv);
            }
        }
        if (!ok) {
            fprintf(stderr, "<stdin>:%ld: error: the result is not finite (are the inputs "
                            "too large?)\n", lineno);
            status = 1;
            break;
        }
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "salto dyn: error writing the output\n");
        if (!status) status = 1;
    }

done:
    free(line);
    free(in);
    free(out);
    salto_data_destroy(d);
    salto_model_destroy(m);
    return status;
}
