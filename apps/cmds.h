// cmds.h: the subcommands of the salto program
#ifndef SALTO_APPS_CMDS_H
#define SALTO_APPS_CMDS_H

#include "salto/base.h"

// each returns the process exit status: 0 success, 1 computation failed, 2 usage or input error
int cmd_check(int argc, char** argv);
int cmd_dyn(int argc, char** argv);
int cmd_bench(int argc, char** argv);
int cmd_gen(int argc, char** argv);
int cmd_solve(int argc, char** argv);

// prints "file:line:col: error: ..." (and its note) to stderr
void app_print_error(const salto_error* err);

// true if argv[i] is -h or --help
int app_is_help(const char* arg);

#endif
