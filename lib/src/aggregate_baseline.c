// aggregate_baseline.c: placeholder until the module lands
extern int salto_placeholder_aggregate_baseline;
