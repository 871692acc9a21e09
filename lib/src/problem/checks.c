// checks.c: the check kinds' names, units and default thresholds, the validation options
// (checks.h)
#include "salto/checks.h"

#include <string.h>

#include "salto/spatial.h"

static const char* const check_names[SALTO_CHECK_COUNT] = {
    "flight_force", "flight_torque", "ballistic", "spin",        "bar_torque", "normal_force",
    "friction",     "cop",           "twist",     "slip",        "penetration", "joint_limits",
    "impact",       "drift_root",    "drift_rotation", "drift_joints", "drift_com",
    "bounds",       "torque",        "bar_clearance", "box_clearance",
};

static const char* const integrator_names[SALTO_INTEGRATOR_COUNT] = {"none", "euler", "rk4"};


const char* salto_integrator_name(salto_integrator i) {
    return (int)i >= 0 && i < SALTO_INTEGRATOR_COUNT ? integrator_names[i] : "?";
}


int salto_integrator_parse(const char* name) {
    for (int k = 0; k < SALTO_INTEGRATOR_COUNT; k++) {
        if (strcmp(name, integrator_names[k]) == 0) return k;
    }
    return -1;
}


const char* salto_check_name(salto_check_kind k) {
    return (int)k >= 0 && k < SALTO_CHECK_COUNT ? check_names[k] : "?";
}


int salto_check_is_physics(salto_check_kind k) {
    return k != SALTO_CHECK_SLIP && k != SALTO_CHECK_PENETRATION && k != SALTO_CHECK_JOINT_LIMITS &&
           k != SALTO_CHECK_BOUNDS && k != SALTO_CHECK_BAR_CLEARANCE &&
           k != SALTO_CHECK_BOX_CLEARANCE;
}


int salto_check_parse(const char* name) {
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) {
        if (strcmp(name, check_names[k]) == 0) return k;
    }
    return -1;
}


const char* salto_check_unit(salto_check_kind k) {
    switch (k) {
    case SALTO_CHECK_FLIGHT_FORCE:
    case SALTO_CHECK_NORMAL_FORCE:
    case SALTO_CHECK_FRICTION: return "N";
    case SALTO_CHECK_FLIGHT_TORQUE:
    case SALTO_CHECK_BAR_TORQUE:
    case SALTO_CHECK_COP:
    case SALTO_CHECK_TWIST:
    case SALTO_CHECK_TORQUE: return "N m";
    case SALTO_CHECK_SPIN:
    case SALTO_CHECK_IMPACT: return "N m s";
    case SALTO_CHECK_BALLISTIC:
    case SALTO_CHECK_SLIP:
    case SALTO_CHECK_PENETRATION:
    case SALTO_CHECK_BAR_CLEARANCE:
    case SALTO_CHECK_BOX_CLEARANCE:
    case SALTO_CHECK_DRIFT_ROOT:
    case SALTO_CHECK_DRIFT_COM: return "m";
    case SALTO_CHECK_DRIFT_ROTATION: return "rad";
    case SALTO_CHECK_JOINT_LIMITS:
    case SALTO_CHECK_DRIFT_JOINTS: return "rad/m";
    case SALTO_CHECK_BOUNDS: return "m/rad";
    default: return "";
    }
}


void salto_validate_opts_default(salto_validate_opts* o) {
    o->density = 10;
    for (int k = 0; k < SALTO_CHECK_COUNT; k++) o->threshold[k] = -1.0;
    o->integrator = SALTO_INTEGRATOR_RK4;
    o->step = 0.0;
    o->max_steps = SALTO_VALIDATE_MAX_STEPS;
}


double salto_check_default_threshold(const salto_model* m, salto_check_kind k) {
    switch (k) {
    case SALTO_CHECK_FLIGHT_FORCE:
    case SALTO_CHECK_NORMAL_FORCE:
    case SALTO_CHECK_FRICTION: return 0.02 * salto_model_weight(m);
    case SALTO_CHECK_FLIGHT_TORQUE:
    case SALTO_CHECK_BAR_TORQUE:
    case SALTO_CHECK_COP:
    case SALTO_CHECK_TWIST: return 0.02 * salto_model_weight(m); // times 1 m
    case SALTO_CHECK_TORQUE: return 0.005 * salto_model_weight(m); // times 1 m
    case SALTO_CHECK_BALLISTIC: return 1e-2;
    case SALTO_CHECK_SPIN:
    case SALTO_CHECK_IMPACT: return 0.002 * salto_model_weight(m); // times 1 m s
    case SALTO_CHECK_SLIP: return 1e-3;
    case SALTO_CHECK_PENETRATION:
    case SALTO_CHECK_BAR_CLEARANCE:
    case SALTO_CHECK_BOX_CLEARANCE:
    case SALTO_CHECK_BOUNDS: return 5e-3;
    case SALTO_CHECK_JOINT_LIMITS: return 1e-6;
    case SALTO_CHECK_DRIFT_ROOT:
    case SALTO_CHECK_DRIFT_COM: return 0.02;
    case SALTO_CHECK_DRIFT_ROTATION:
    case SALTO_CHECK_DRIFT_JOINTS: return 0.035;
    default: return 0.0;
    }
}


