// test_model.c: placeholder
#include "test_suites.h"

Suite* model_suite(void) {
    return suite_create("model");
}
