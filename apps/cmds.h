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
int cmd_validate(int argc, char** argv);
int cmd_play(int argc, char** argv);
// salto play MOTION --react FILE|SPEC (play_react.c): the reactions blended into the motion,
// written into dir (NULL: react/ beside the motion); view -1: the problem's
int play_react(const char* motion_path, const char* problem_path, const char* dir,
               const char* react_arg, double dt, double max_steps, int view, int quiet);
// salto play's sizes before the work (cmd_play.c): steps (duration / dt) at most max_steps and
// the recorded frames' memory within the limit (budget.h); 0, or 2 with the error printed
#define PLAY_MAX_STEPS 1e8
int play_check_size(const char* who, double dt, double duration, double max_steps, int nv,
                    double rate);
int cmd_export(int argc, char** argv);
int cmd_import(int argc, char** argv);
int cmd_retarget(int argc, char** argv);
int cmd_batch(int argc, char** argv);
int cmd_view(int argc, char** argv);
int cmd_watch(int argc, char** argv);
// salto solve, with its closing validation (verdict 1, as the command runs) or without it
// (0: a batch job, whose sweep's `validate` key decides whether salto validate judges it)
int app_solve(int argc, char** argv, int verdict);
// salto bench batch (bench_batch.c)
int bench_batch(int argc, char** argv);

// prints "file:line:col: error: ..." (and its note) to stderr
void app_print_error(const salto_error* err);

// loads a problem and builds its NLP; NULL (both) with the error printed
struct salto_problem_desc;
struct salto_nlp;
struct salto_nlp* app_load_nlp(const char* path, struct salto_problem_desc** p);
// the same with PATH=VALUE overrides (salto_problem_load_set)
struct salto_nlp* app_load_nlp_set(const char* path, int nset, const char* const* set,
                                   struct salto_problem_desc** p);

// mkdir -p: 0, or -1 with errno set
int app_make_dirs(const char* path);
// The output folder dir made (with its parents) and written into (a file made and removed) before
// any work: 0, or 2 with the real cause printed after who (a file in its place, read-only, no
// room, not creatable)
int app_check_output_dir(const char* who, const char* dir);

// The last branch of a command's option loop: arg, which no option took, is an unknown or
// incomplete option when it starts with '-' (a lone "-" is a name), else the command's one
// positional argument (*slot, if still empty). 0 when taken; 2 with the message printed.
int app_positional(const char* cmd, const char* arg, const char** slot);

// true if argv[i] is -h or --help
int app_is_help(const char* arg);

// the folder of a file's path ("." for a bare name)
void app_folder_of(const char* path, char* out, size_t n);

// "out/<file's name without its extension>", the default output folder for a file's results
void app_default_dir(const char* file, char* out, size_t n);
// path with its extension (the last '.' of its file name, if any) replaced by ext (".yaml")
void app_with_ext(const char* path, const char* ext, char* out, size_t n);

// an integer option's value within [lo, hi]: 0 with *out set, else -1 with
// "salto CMD: OPT must be an integer from LO to HI" printed
int app_parse_int(const char* cmd, const char* opt, const char* s, int lo, int hi, int* out);

#endif
