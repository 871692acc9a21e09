// main.c: placeholder
extern int salto_placeholder_main;
int main(void) { return 0; }
