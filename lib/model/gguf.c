/*
 * gguf.c: GGUF v2/v3 (llama.cpp). The key/value metadata is skipped value by
 * value (token arrays hold ~10^5 strings: no allocation), then the tensor
 * infos are read. Dimensions are stored innermost first and are reversed.
 */
#include <stdlib.h>

#include "model/model_int.h"

#define GGUF_MAX_DEPTH 8

static const struct {
	const char *name;
	int block, bytes;
} ggml_types[] = {
	[0] = {"f32", 1, 4},	     [1] = {"f16", 1, 2},	  [2] = {"q4_0", 32, 18},
	[3] = {"q4_1", 32, 20},	     [6] = {"q5_0", 32, 22},	  [7] = {"q5_1", 32, 24},
	[8] = {"q8_0", 32, 34},	     [9] = {"q8_1", 32, 36},	  [10] = {"q2_k", 256, 84},
	[11] = {"q3_k", 256, 110},   [12] = {"q4_k", 256, 144},	  [13] = {"q5_k", 256, 176},
	[14] = {"q6_k", 256, 210},   [15] = {"q8_k", 256, 292},	  [16] = {"iq2_xxs", 256, 66},
	[17] = {"iq2_xs", 256, 74},  [18] = {"iq3_xxs", 256, 98}, [19] = {"iq1_s", 256, 50},
	[20] = {"iq4_nl", 32, 18},   [21] = {"iq3_s", 256, 110},  [22] = {"iq2_s", 256, 82},
	[23] = {"iq4_xs", 256, 136}, [24] = {"i8", 1, 1},	  [25] = {"i16", 1, 2},
	[26] = {"i32", 1, 4},	     [27] = {"i64", 1, 8},	  [28] = {"f64", 1, 8},
	[29] = {"iq1_m", 256, 56},   [30] = {"bf16", 1, 2},	  [34] = {"tq1_0", 256, 54},
	[35] = {"tq2_0", 256, 66},   [39] = {"mxfp4", 32, 17},
};

struct gr {
	struct mctx *c;
	uint64_t off;
};

static int gneed(struct gr *g, uint64_t n, const char *what)
{
	if (g->off > g->c->size || n > g->c->size - g->off)
		return merr(g->c, NULL, g->off, "truncated GGUF file: %s needs %llu bytes", what,
			    (unsigned long long)n);
	return 0;
}

static int g32(struct gr *g, uint32_t *v, const char *what)
{
	if (gneed(g, 4, what) < 0)
		return -1;
	*v = rd32(g->c->base + g->off);
	g->off += 4;
	return 0;
}

static int g64(struct gr *g, uint64_t *v, const char *what)
{
	if (gneed(g, 8, what) < 0)
		return -1;
	*v = rd64(g->c->base + g->off);
	g->off += 8;
	return 0;
}

static int gstr(struct gr *g, const unsigned char **s, uint64_t *len, const char *what)
{
	if (g64(g, len, what) < 0 || gneed(g, *len, what) < 0)
		return -1;
	*s = g->c->base + g->off;
	g->off += *len;
	return 0;
}

static const int gguf_scalar[] = {1, 1, 2, 2, 4, 4, 4, 1, -1, -1, 8, 8, 8};

static int skip_value(struct gr *g, uint32_t type, int depth)
{
	if (type >= DL_ARRAY_SIZE(gguf_scalar))
		return merr(g->c, NULL, g->off, "unknown GGUF value type %u", type);
	if (type == 8) {
		const unsigned char *s;
		uint64_t len;
		return gstr(g, &s, &len, "string");
	}
	if (type == 9) {
		uint32_t et;
		uint64_t n;
		if (depth > GGUF_MAX_DEPTH)
			return merr(g->c, NULL, g->off, "GGUF arrays nested too deeply");
		if (g32(g, &et, "array type") < 0 || g64(g, &n, "array length") < 0)
			return -1;
		if (et < DL_ARRAY_SIZE(gguf_scalar) && gguf_scalar[et] > 0) {
			uint64_t w = (uint64_t)gguf_scalar[et];
			if (n > UINT64_MAX / w || gneed(g, n * w, "array") < 0)
				return merr(g->c, NULL, g->off,
					    "declared array of %llu values is larger than the file",
					    (unsigned long long)n);
			g->off += n * w;
			return 0;
		}
		/* strings or nested arrays: each at least 8 bytes, so n is bounded by the file */
		if (n > (g->c->size - g->off) / 8)
			return merr(g->c, NULL, g->off,
				    "declared array of %llu values is larger than the file",
				    (unsigned long long)n);
		for (uint64_t i = 0; i < n; i++)
			if (skip_value(g, et, depth + 1) < 0)
				return -1;
		return 0;
	}
	if (gneed(g, (uint64_t)gguf_scalar[type], "value") < 0)
		return -1;
	g->off += (uint64_t)gguf_scalar[type];
	return 0;
}

int read_gguf(struct mctx *c)
{
	struct gr g = {c, 4};
	uint32_t version, alignment = 32;
	uint64_t nt, nkv;
	if (g32(&g, &version, "version") < 0)
		return -1;
	if (version != 2 && version != 3)
		return merr(c, NULL, 4, "unsupported GGUF version %u (2 and 3 are read)", version);
	if (g64(&g, &nt, "tensor count") < 0 || g64(&g, &nkv, "metadata count") < 0)
		return -1;
	/* a key/value pair takes at least 12 bytes and a tensor info at least 24 */
	if (nkv > c->size / 12)
		return merr(c, NULL, 16, "declared %llu metadata entries cannot fit in the file",
			    (unsigned long long)nkv);
	if (nt > c->size / 24)
		return merr(c, NULL, 8, "declared %llu tensors cannot fit in the file",
			    (unsigned long long)nt);
	for (uint64_t i = 0; i < nkv; i++) {
		const unsigned char *k;
		uint64_t klen;
		uint32_t type;
		if (gstr(&g, &k, &klen, "key") < 0 || g32(&g, &type, "value type") < 0)
			return -1;
		if (klen == 17 && !memcmp(k, "general.alignment", 17) && type == 4) {
			if (g32(&g, &alignment, "alignment") < 0)
				return -1;
			if (alignment == 0 || (alignment & (alignment - 1)))
				return merr(c, NULL, g.off - 4, "bad general.alignment %u",
					    alignment);
			continue;
		}
		if (skip_value(&g, type, 0) < 0)
			return -1;
	}
	uint64_t *offs = xcalloc(nt ? nt : 1, sizeof(*offs));
	size_t first = c->m->n;
	int rc = -1;
	for (uint64_t i = 0; i < nt; i++) {
		const unsigned char *name;
		uint64_t nlen, type;
		uint32_t nd, t32;
		uint64_t at = g.off;
		if (gstr(&g, &name, &nlen, "tensor name") < 0 || g32(&g, &nd, "n_dims") < 0)
			goto out;
		if (nd > DL_MODEL_MAX_DIMS) {
			merr(c, NULL, at, "tensor has %u dimensions", nd);
			goto out;
		}
		int64_t dims[DL_MODEL_MAX_DIMS];
		for (uint32_t k = 0; k < nd; k++) {
			uint64_t d;
			if (g64(&g, &d, "dimension") < 0)
				goto out;
			if (d > INT64_MAX) {
				merr(c, NULL, at, "bad dimension");
				goto out;
			}
			dims[nd - 1 - k] = (int64_t)d;
		}
		if (g32(&g, &t32, "tensor type") < 0 || g64(&g, &offs[i], "tensor offset") < 0)
			goto out;
		type = t32;
		struct dl_tensor *t = model_add(c->m, (const char *)name, (size_t)nlen);
		const char *why;
		if (tensor_set_shape(t, dims, (int)nd, &why) < 0) {
			merr(c, NULL, at, "tensor '%s': %s", t->name, why);
			goto out;
		}
		if (type < DL_ARRAY_SIZE(ggml_types) && ggml_types[type].name) {
			t->dtype = ggml_types[type].name;
			int64_t blocks = t->numel / ggml_types[type].block;
			int64_t b;
			if (t->numel % ggml_types[type].block == 0 &&
			    !__builtin_mul_overflow(blocks, (int64_t)ggml_types[type].bytes, &b))
				t->bytes = b;
		}
	}
	/* the data section starts at the next multiple of the alignment */
	uint64_t data = (g.off + alignment - 1) / alignment * alignment;
	for (uint64_t i = 0; i < nt; i++) {
		const struct dl_tensor *t = &c->m->t[first + i];
		if (t->bytes < 0)
			continue;
		if (data > c->size || offs[i] > c->size - data ||
		    (uint64_t)t->bytes > c->size - data - offs[i]) {
			merr(c, NULL, data,
			     "tensor '%s': declared data at %llu (%lld bytes) lies beyond the end of "
			     "the file",
			     t->name, (unsigned long long)offs[i], (long long)t->bytes);
			goto out;
		}
	}
	rc = 0;
out:
	free(offs);
	return rc;
}
