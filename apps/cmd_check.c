// cmd_check.c: placeholder
extern int salto_placeholder_cmd_check;
