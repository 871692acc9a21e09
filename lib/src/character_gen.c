// character_gen.c: placeholder until the module lands
extern int salto_placeholder_character_gen;
