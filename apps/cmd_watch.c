// cmd_watch.c: salto watch PROBLEM: (to come)
#include <stdio.h>
#include "cmds.h"
int cmd_watch(int argc, char** argv) {
    (void)argc, (void)argv;
    fprintf(stderr, "salto watch: not built yet\n");
    return 2;
}
