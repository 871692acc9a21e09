// cmd_gen.c: salto gen chain N -o FILE: write generated characters as character files
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "salto/character.h"

static void help(void) {
    printf("usage: salto gen chain N -o FILE.yaml [--length L] [--mass M] [--axes AXES]\n\n"
           "Writes a serial chain of N links (1 <= N <= 1000) hanging from a fixed base: each\n"
           "link a uniform capsule of length L metres (default 0.3) and mass M kg (default 1),\n"
           "joined by revolute joints whose axes cycle through AXES, letters x, y and z\n"
           "(default yxz: the chains of Fang & Pollard's Figure 5, used by 'salto bench\n"
           "dynamics'; y: a planar pendulum swinging in the x-z plane, as Redon et al.'s).\n"
           "The file is written atomically.\n");
}


static int parse_double(const char* s, double* out) {
    char* end;
    *out = strtod(s, &end);
    return end != s && *end == '\0';
}


int cmd_gen(int argc, char** argv) {
    if (argc >= 2 && app_is_help(argv[1])) {
        help();
        return 0;
    }
    if (argc < 3 || strcmp(argv[1], "chain") != 0) {
        fprintf(stderr, "usage: salto gen chain N -o FILE.yaml [--length L] [--mass M] [--axes AXES]\n");
        return 2;
    }
    int n;
    if (app_parse_int("gen", "N", argv[2], 1, 1000, &n)) return 2;
    const char* out = NULL;
    double len = 0.3, mass = 1.0;
    const char* axes = "yxz";
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--length") == 0 && i + 1 < argc) {
            if (!parse_double(argv[++i], &len) || !(len > 0)) {
                fprintf(stderr, "salto gen: --length must be a positive number, found '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--mass") == 0 && i + 1 < argc) {
            if (!parse_double(argv[++i], &mass) || !(mass > 0)) {
                fprintf(stderr, "salto gen: --mass must be a positive number, found '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--axes") == 0 && i + 1 < argc) {
            axes = argv[++i];
            if (!axes[0] || strspn(axes, "xyz") != strlen(axes)) {
                fprintf(stderr, "salto gen: --axes must be letters x, y and z (such as yxz or y), found '%s'\n", axes);
                return 2;
            }
        } else {
            fprintf(stderr, "salto gen: unknown or incomplete option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!out) {
        fprintf(stderr, "salto gen: say where to write the chain with -o FILE.yaml\n");
        return 2;
    }
    salto_character_desc* c = salto_character_chain_axes(n, len, mass, axes);
    if (!c) {
        fprintf(stderr, "salto gen: out of memory\n");
        return 1;
    }
    salto_error err = {0};
    const salto_status st = salto_character_save(c, out, &err);
    salto_character_destroy(c);
    if (st != SALTO_OK) {
        app_print_error(&err);
        return 2;
    }
    return 0;
}
