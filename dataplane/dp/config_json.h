/*
 * The configuration document (the shape of the YAML files in configs/, valid against
 * configs/schema/adwiser-config.schema.json) read from JSON into the core's
 * struct adw_config.  Every field is type- and range-checked as the schema
 * says, unknown fields are refused, names ("ap1/sta1", a STA's "ap") are
 * resolved to indices, and adw_config_check then checks the cross-field
 * rules (uniqueness, conflicts, capacity).  A document is accepted whole or
 * refused whole with one message naming the field, e.g.
 * "topology.stas[1].mac: 'zz' is not a MAC address".
 */
#ifndef ADW_DP_CONFIG_JSON_H
#define ADW_DP_CONFIG_JSON_H

#include <stddef.h>

#include "adwiser/config.h"

/* Parses text (NUL-terminated JSON) into *out (overwritten). 0, or -1 with err. */
int config_json_parse(const char *text, struct adw_config *out, char *err, size_t errlen);

/* Reads and parses a file; errors name the file position for JSON syntax errors. */
int config_json_load_file(const char *path, struct adw_config *out, char *err, size_t errlen);

/* calloc'd config (the struct is ~3 MB: never on the stack). */
struct adw_config *config_json_alloc(void);

#endif
