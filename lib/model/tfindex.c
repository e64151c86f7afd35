/*
 * tfindex.c: TensorFlow checkpoint .index files (tensor bundles). The index
 * is a LevelDB-format table: footer -> index block -> data blocks of
 * prefix-compressed keys; each value is a BundleEntryProto with dtype and
 * shape. The .data shards are never opened.
 */
#include <stdlib.h>

#include "model/model_int.h"

#define FOOTER_LEN  48
#define TRAILER_LEN 5
#define TF_MAX_KEY  (1u << 16)

static const struct {
	const char *name;
	int bytes;
} tf_types[] = {
	[1] = {"f32", 4},    [2] = {"f64", 8},	 [3] = {"i32", 4},	 [4] = {"u8", 1},
	[5] = {"i16", 2},    [6] = {"i8", 1},	 [7] = {"string", 0},	 [8] = {"c64", 8},
	[9] = {"i64", 8},    [10] = {"bool", 1}, [14] = {"bf16", 2},	 [17] = {"u16", 2},
	[18] = {"c128", 16}, [19] = {"f16", 2},	 [20] = {"resource", 0}, [21] = {"variant", 0},
	[22] = {"u32", 4},   [23] = {"u64", 8},
};

struct handle {
	uint64_t off, size;
};

static int get_handle(struct mctx *c, const unsigned char **p, const unsigned char *end,
		      uint64_t at, struct handle *h)
{
	if (pb_varint(p, end, &h->off) < 0 || pb_varint(p, end, &h->size) < 0)
		return merr(c, NULL, at, "bad table block handle");
	if (h->off > c->size || h->size > c->size - h->off ||
	    c->size - h->off - h->size < TRAILER_LEN)
		return merr(c, NULL, at,
			    "table block at %llu (%llu bytes) lies beyond the end of the file",
			    (unsigned long long)h->off, (unsigned long long)h->size);
	unsigned char type = c->base[h->off + h->size];
	if (type == 1)
		return merr(c, NULL, h->off + h->size,
			    "snappy-compressed table blocks are not supported");
	if (type != 0)
		return merr(c, NULL, h->off + h->size, "unknown table block compression %u", type);
	return 0;
}

typedef int (*entry_fn)(struct mctx *c, const struct strbuf *key, const unsigned char *v,
			size_t vlen, uint64_t at);

static int each_entry(struct mctx *c, const struct handle *h, entry_fn fn)
{
	const unsigned char *b = c->base + h->off;
	if (h->size < 4)
		return merr(c, NULL, h->off, "table block too small");
	uint32_t nr = rd32(b + h->size - 4);
	if (nr > (h->size - 4) / 4)
		return merr(c, NULL, h->off + h->size - 4, "bad restart count %u", nr);
	const unsigned char *p = b, *end = b + h->size - 4 - 4 * (uint64_t)nr;
	struct strbuf key = STRBUF_INIT;
	int rc = 0;
	while (p < end) {
		uint64_t at = (uint64_t)(p - c->base), shared, unshared, vlen;
		if (pb_varint(&p, end, &shared) < 0 || pb_varint(&p, end, &unshared) < 0 ||
		    pb_varint(&p, end, &vlen) < 0) {
			rc = merr(c, NULL, at, "bad table entry header");
			break;
		}
		if (shared > key.len || unshared > (uint64_t)(end - p) ||
		    vlen > (uint64_t)(end - p) - unshared || shared + unshared > TF_MAX_KEY) {
			rc = merr(c, NULL, at, "bad table entry lengths");
			break;
		}
		sb_setlen(&key, (size_t)shared);
		sb_add(&key, p, (size_t)unshared);
		p += unshared;
		if (fn(c, &key, p, (size_t)vlen, at) < 0) {
			rc = -1;
			break;
		}
		p += vlen;
	}
	sb_release(&key);
	return rc;
}

static int bundle_entry(struct mctx *c, const struct strbuf *key, const unsigned char *v,
			size_t vlen, uint64_t at)
{
	if (key->len == 0)
		return 0; /* the BundleHeaderProto */
	struct pb b = {v, v + vlen, c->base};
	struct pb_field f;
	const char *why;
	int r, nd = 0;
	uint64_t dtype = 0;
	int64_t dims[DL_MODEL_MAX_DIMS];
	while ((r = pb_next(&b, &f, &why)) > 0) {
		if (f.num == 1 && f.wt == 0) {
			dtype = f.v;
		} else if (f.num == 2) {
			if (f.wt != 2)
				return merr(c, NULL, f.off, "wrong protobuf wire type %d for shape",
					    f.wt);
			struct pb sb = {f.data, f.data + f.len, c->base};
			struct pb_field d;
			while ((r = pb_next(&sb, &d, &why)) > 0) {
				if (d.num != 2)
					continue;
				if (d.wt != 2)
					return merr(c, NULL, d.off,
						    "wrong protobuf wire type %d for shape dim",
						    d.wt);
				struct pb db = {d.data, d.data + d.len, c->base};
				struct pb_field s;
				int64_t size = 0;
				while ((r = pb_next(&db, &s, &why)) > 0)
					if (s.num == 1 && s.wt == 0)
						size = (int64_t)s.v;
				if (r < 0)
					return merr(c, NULL, (uint64_t)(db.p - c->base), "%s", why);
				if (nd >= DL_MODEL_MAX_DIMS)
					return merr(c, NULL, d.off, "too many dimensions");
				dims[nd++] = size;
			}
			if (r < 0)
				return merr(c, NULL, (uint64_t)(sb.p - c->base), "%s", why);
		}
	}
	if (r < 0)
		return merr(c, NULL, (uint64_t)(b.p - c->base), "%s", why);
	/* TF2 object checkpoints: "layer/kernel/.ATTRIBUTES/VARIABLE_VALUE" */
	size_t len = key->len;
	static const char suffix[] = "/.ATTRIBUTES/VARIABLE_VALUE";
	if (len > sizeof(suffix) - 1 &&
	    !memcmp(key->buf + len - (sizeof(suffix) - 1), suffix, sizeof(suffix) - 1))
		len -= sizeof(suffix) - 1;
	struct dl_tensor *t = model_add(c->m, key->buf, len);
	if (tensor_set_shape(t, dims, nd, &why) < 0)
		return merr(c, NULL, at, "tensor '%s': %s", t->name, why);
	int elem = 0;
	if (dtype < DL_ARRAY_SIZE(tf_types) && tf_types[dtype].name) {
		t->dtype = tf_types[dtype].name;
		elem = tf_types[dtype].bytes;
	}
	if (!elem)
		t->role = DL_ROLE_OTHER;
	tensor_set_bytes(t, elem);
	return 0;
}

static int index_entry(struct mctx *c, const struct strbuf *key, const unsigned char *v,
		       size_t vlen, uint64_t at)
{
	(void)key;
	struct handle h;
	const unsigned char *p = v;
	if (get_handle(c, &p, v + vlen, at, &h) < 0)
		return -1;
	return each_entry(c, &h, bundle_entry);
}

int read_tf_index(struct mctx *c)
{
	if (c->size < FOOTER_LEN)
		return merr(c, NULL, 0, "truncated table (no footer)");
	uint64_t foot = c->size - FOOTER_LEN;
	const unsigned char *p = c->base + foot, *end = c->base + c->size - 8;
	struct handle meta, index;
	if (get_handle(c, &p, end, foot, &meta) < 0 || get_handle(c, &p, end, foot, &index) < 0)
		return -1;
	return each_entry(c, &index, index_entry);
}
