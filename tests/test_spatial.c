// test_spatial.c: placeholder
#include "test_suites.h"

Suite* spatial_suite(void) {
    return suite_create("spatial");
}
