#ifndef SALTO_TEST_UTIL_H
#define SALTO_TEST_UTIL_H
#endif
