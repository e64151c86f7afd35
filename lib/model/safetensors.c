/*
 * safetensors.c: u64 header length, a JSON header (parsed with jansson), then
 * the data. Tensors are listed in data order (JSON key order is not
 * meaningful), and every tensor's byte range is checked against the file.
 */
#include <jansson.h>
#include <stdlib.h>

#include "model/model_int.h"

#define ST_MAX_HEADER (100u << 20) /* the reference implementation's cap */

static const struct {
	const char *st, *dtype;
	int bits;
} st_types[] = {
	{"BOOL", "bool", 8},	   {"U8", "u8", 8},	      {"I8", "i8", 8},
	{"F8_E5M2", "f8_e5m2", 8}, {"F8_E4M3", "f8_e4m3", 8}, {"F8_E8M0", "f8_e8m0", 8},
	{"I16", "i16", 16},	   {"U16", "u16", 16},	      {"F16", "f16", 16},
	{"BF16", "bf16", 16},	   {"I32", "i32", 32},	      {"U32", "u32", 32},
	{"F32", "f32", 32},	   {"F64", "f64", 64},	      {"I64", "i64", 64},
	{"U64", "u64", 64},	   {"C64", "c64", 64},	      {"F4", "f4", 4},
	{"F6_E2M3", "f6_e2m3", 6}, {"F6_E3M2", "f6_e3m2", 6},
};

struct st_item {
	const char *key;
	json_t *v;
	uint64_t begin, end;
};

static int by_begin(const void *a, const void *b)
{
	const struct st_item *x = a, *y = b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int get_u64(json_t *v, uint64_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -1;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

int read_safetensors(struct mctx *c)
{
	if (c->size < 8)
		return merr(c, NULL, 0, "truncated safetensors header");
	uint64_t n = rd64(c->base);
	if (n > ST_MAX_HEADER)
		return merr(c, NULL, 0, "declared header size %llu exceeds the 100 MB limit",
			    (unsigned long long)n);
	if (n > c->size - 8)
		return merr(c, NULL, 0,
			    "declared header size %llu is larger than the file (%zu bytes)",
			    (unsigned long long)n, c->size);
	json_error_t je;
	json_t *root = json_loadb((const char *)c->base + 8, (size_t)n, 0, &je);
	if (!root)
		return merr(c, NULL, 8 + (uint64_t)(je.position > 0 ? je.position : 0),
			    "bad JSON header: %s", je.text);
	int rc = -1;
	struct st_item *items = NULL;
	size_t ni = 0;
	uint64_t data_len = c->size - 8 - n;
	if (!json_is_object(root)) {
		merr(c, NULL, 8, "JSON header is not an object");
		goto out;
	}
	items = xcalloc(json_object_size(root) + 1, sizeof(*items));
	const char *key;
	json_t *v;
	json_object_foreach (root, key, v) {
		if (!strcmp(key, "__metadata__"))
			continue;
		json_t *offs = json_object_get(v, "data_offsets");
		struct st_item *it = &items[ni];
		it->key = key;
		it->v = v;
		if (!json_is_object(v) || !json_is_array(offs) || json_array_size(offs) != 2 ||
		    get_u64(json_array_get(offs, 0), &it->begin) < 0 ||
		    get_u64(json_array_get(offs, 1), &it->end) < 0 || it->begin > it->end) {
			merr(c, NULL, 8, "tensor '%s': bad data_offsets", key);
			goto out;
		}
		if (it->end > data_len) {
			merr(c, NULL, 8,
			     "tensor '%s': declared data ends at %llu, beyond the end of the file "
			     "(data section is %llu bytes)",
			     key, (unsigned long long)it->end, (unsigned long long)data_len);
			goto out;
		}
		ni++;
	}
	qsort(items, ni, sizeof(*items), by_begin);
	for (size_t i = 0; i < ni; i++) {
		json_t *shape = json_object_get(items[i].v, "shape");
		json_t *dt = json_object_get(items[i].v, "dtype");
		if (!json_is_array(shape) || !json_is_string(dt)) {
			merr(c, NULL, 8, "tensor '%s': missing shape or dtype", items[i].key);
			goto out;
		}
		int64_t dims[DL_MODEL_MAX_DIMS];
		size_t nd = json_array_size(shape);
		if (nd > DL_MODEL_MAX_DIMS) {
			merr(c, NULL, 8, "tensor '%s': too many dimensions", items[i].key);
			goto out;
		}
		for (size_t k = 0; k < nd; k++) {
			uint64_t d;
			if (get_u64(json_array_get(shape, k), &d) < 0) {
				merr(c, NULL, 8, "tensor '%s': bad shape", items[i].key);
				goto out;
			}
			dims[k] = (int64_t)d;
		}
		struct dl_tensor *t = model_add(c->m, items[i].key, strlen(items[i].key));
		const char *why;
		if (tensor_set_shape(t, dims, (int)nd, &why) < 0) {
			merr(c, NULL, 8, "tensor '%s': %s", t->name, why);
			goto out;
		}
		const char *ds = json_string_value(dt);
		int bits = 0;
		for (size_t k = 0; k < DL_ARRAY_SIZE(st_types); k++)
			if (!strcmp(ds, st_types[k].st)) {
				t->dtype = st_types[k].dtype;
				bits = st_types[k].bits;
			}
		uint64_t have = items[i].end - items[i].begin;
		if (bits && t->numel <= INT64_MAX / bits) {
			t->bytes = (t->numel * bits + 7) / 8;
			if ((uint64_t)t->bytes != have) {
				merr(c, NULL, 8 + n + items[i].begin,
				     "tensor '%s': data is %llu bytes, its shape and dtype need %lld",
				     t->name, (unsigned long long)have, (long long)t->bytes);
				goto out;
			}
		} else {
			t->bytes = (int64_t)have;
		}
	}
	rc = 0;
out:
	free(items);
	json_decref(root);
	return rc;
}
