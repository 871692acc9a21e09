// cmd_dyn.c: placeholder
extern int salto_placeholder_cmd_dyn;
