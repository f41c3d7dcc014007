/* A JSON string literal (RFC 8259 §7) for names written into JSON lines by
 * hand: wan-emu's stats (interface names are the kernel's bytes, and a name
 * may hold a quote, a backslash or a control character: the kernel refuses
 * only '/', ':', whitespace and "."/"..") and wlan-emu's ground-truth log
 * (node names of the air config, a JSON document that can carry them). */
#ifndef JSON_STRING_H
#define JSON_STRING_H

#include <stdio.h>

/* Writes s to f in double quotes, with '"', '\\' and U+0000..U+001F escaped;
 * other bytes as they are. */
void json_put_string(FILE *f, const char *s);

#endif
