// test_character.c: placeholder
#include "test_suites.h"

Suite* character_suite(void) {
    return suite_create("character");
}
