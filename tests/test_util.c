// test_util.c: placeholder
#include "test_util.h"
extern int salto_placeholder_tu;
