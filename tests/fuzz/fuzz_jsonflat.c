/*
 * fuzz_jsonflat.c: differential test of the JSON Lines fast path. Whenever
 * dl_json_flat_parse accepts a line, jansson must accept it too, as an object
 * with the same members giving the same field text.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "table/jsonflat.h"

struct seen {
	json_t *obj;
	json_t *keys; /* seen so far: a repeated key stops the fast path, as in the reader */
	int bad;
	size_t n;
};

static int member(void *ud, const char *key, size_t klen, const char *val, size_t vlen)
{
	struct seen *s = ud;
	if (memchr(key, '\0', klen))
		return 1;
	char *k = strndup(key, klen);
	if (json_object_get(s->keys, k)) {
		free(k);
		return 1;
	}
	json_object_set_new(s->keys, k, json_true());
	json_t *v = s->obj ? json_object_get(s->obj, k) : NULL;
	free(k);
	struct strbuf sb = STRBUF_INIT;
	if (v)
		dl_json_value_text(&sb, v);
	if (!v || sb.len != vlen || memcmp(sb.buf, val, vlen))
		s->bad = 1;
	sb_release(&sb);
	s->n++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;
	json_error_t jerr;
	json_t *obj = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
	struct seen s = {obj, json_object(), 0, 0};
	if (obj && !json_is_object(obj))
		s.obj = NULL;
	int rc = dl_json_flat_parse((const char *)data, size, &key, &val, member, &s);
	if (rc == 1) {
		if (!s.obj || s.bad || s.n != json_object_size(s.obj)) {
			fprintf(stderr, "fast path disagrees with jansson\n");
			abort();
		}
	}
	json_decref(obj);
	json_decref(s.keys);
	sb_release(&key);
	sb_release(&val);
	return 0;
}
