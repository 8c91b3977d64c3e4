/* The `amber ordo` command. */
#ifndef AMBER_TOOL_ORDO_H
#define AMBER_TOOL_ORDO_H
int amber_cmd_ordo(int argc, char **argv);
#endif
