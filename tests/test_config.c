// test_config.c: placeholder
#include "test_suites.h"

Suite* config_suite(void) {
    return suite_create("config");
}
