// cmd_bench.c: placeholder
extern int salto_placeholder_cmd_bench;
