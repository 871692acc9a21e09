// dynamics.c: placeholder until the module lands
extern int salto_placeholder_dynamics;
