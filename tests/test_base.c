// test_base.c: placeholder
#include "test_suites.h"

Suite* base_suite(void) {
    return suite_create("base");
}
