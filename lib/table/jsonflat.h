/*
 * jsonflat.h: a fast path for the common JSON Lines record, a flat object
 * whose values are strings, numbers, booleans or null.
 *
 * dl_json_flat_parse() calls on_member for each member with the decoded key
 * and the value as dlsched field text (the same text the jansson path gives:
 * strings decoded, integers in decimal, reals in shortest round-trip form,
 * true/false, null as ""). The pointers are valid during the call only.
 * It returns 1 when it parsed the whole line, 0 when the line is anything
 * else (nested values, duplicate-looking input, bad syntax, huge integers):
 * the caller then uses the full parser, which also reports errors. A
 * callback returning non-zero stops parsing and is returned as -1.
 * Internal to lib/table.
 */
#ifndef DL_JSONFLAT_H
#define DL_JSONFLAT_H

#include <jansson.h>
#include <stddef.h>

#include "core/strbuf.h"

typedef int (*dl_json_member_fn)(void *ud, const char *key, size_t klen, const char *val,
				 size_t vlen);

int dl_json_flat_parse(const char *s, size_t len, struct strbuf *key, struct strbuf *val,
		       dl_json_member_fn on_member, void *ud);

/*
 * Append a JSON value as dlsched field text (the rules above; arrays and
 * objects as compact JSON). Both JSON paths use it, so they cannot disagree.
 */
void dl_json_value_text(struct strbuf *sb, json_t *v);

#endif
