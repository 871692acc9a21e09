// config_priv.h: what config.c (reading) and config_set.c (overrides, writing) share
#ifndef SALTO_CONFIG_PRIV_H
#define SALTO_CONFIG_PRIV_H

#include "salto/config.h"

struct salto_cfg {
    char* file;           // file name; every loc.file in the tree points here
    salto_cfg_node* root; // the document's top node
};

// frees a node's subtree (config.c)
void cfg_node_free(salto_cfg_node* n);

#endif
