// cmd_gen.c: placeholder
extern int salto_placeholder_cmd_gen;
