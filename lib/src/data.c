// data.c: placeholder until the module lands
extern int salto_placeholder_data;
