/*
 * onnx.c: ONNX ModelProto. Initializers (also sparse ones and those of
 * subgraphs) are weights; Constant node values are kept with the role
 * "constant". raw_data and the typed *_data fields are skipped by length, and
 * external data files are never opened: shapes and types are in the model.
 */
#include <stdlib.h>

#include "model/model_int.h"

#define ONNX_MAX_DEPTH 16

static const struct {
	const char *name;
	int bits;
} onnx_types[] = {
	[0] = {"unknown", 0},	   [1] = {"f32", 32},	  [2] = {"u8", 8},
	[3] = {"i8", 8},	   [4] = {"u16", 16},	  [5] = {"i16", 16},
	[6] = {"i32", 32},	   [7] = {"i64", 64},	  [8] = {"string", 0},
	[9] = {"bool", 8},	   [10] = {"f16", 16},	  [11] = {"f64", 64},
	[12] = {"u32", 32},	   [13] = {"u64", 64},	  [14] = {"c64", 64},
	[15] = {"c128", 128},	   [16] = {"bf16", 16},	  [17] = {"f8_e4m3fn", 8},
	[18] = {"f8_e4m3fnuz", 8}, [19] = {"f8_e5m2", 8}, [20] = {"f8_e5m2fnuz", 8},
	[21] = {"u4", 4},	   [22] = {"i4", 4},	  [23] = {"f4_e2m1", 4},
	[24] = {"f8_e8m0", 8},
};

static int wrong_type(struct mctx *c, const struct pb_field *f, const char *what, int want)
{
	return merr(c, NULL, f->off, "wrong protobuf wire type %d for %s (field %u), expected %d",
		    f->wt, what, f->num, want);
}

static int pb_fail(struct mctx *c, const struct pb *b, const char *why)
{
	return merr(c, NULL, (uint64_t)(b->p - b->base), "%s", why);
}

/* a repeated int64 field of dimensions, packed (wire type 2) or not (0) */
static int repeated_dims(struct mctx *c, const struct pb_field *f, int64_t *dims, int *nd,
			 const char *what)
{
	if (f->wt == 0) {
		if (*nd >= DL_MODEL_MAX_DIMS)
			return merr(c, NULL, f->off, "tensor has too many dimensions");
		dims[(*nd)++] = (int64_t)f->v;
		return 0;
	}
	if (f->wt != 2)
		return wrong_type(c, f, what, 0);
	const unsigned char *p = f->data, *e = f->data + f->len;
	while (p < e) {
		uint64_t v;
		if (pb_varint(&p, e, &v) < 0)
			return merr(c, NULL, f->off, "bad packed %s", what);
		if (*nd >= DL_MODEL_MAX_DIMS)
			return merr(c, NULL, f->off, "tensor has too many dimensions");
		dims[(*nd)++] = (int64_t)v;
	}
	return 0;
}

/* A TensorProto; name_hint names it when it has no name of its own. */
static int onnx_tensor(struct mctx *c, const unsigned char *d, size_t len, enum dl_tensor_role role,
		       const char *hint, size_t hintlen, const int64_t *force_dims, int force_nd)
{
	struct pb b = {d, d + len, c->base};
	struct pb_field f;
	const char *why;
	int r, nd = 0;
	int64_t dims[DL_MODEL_MAX_DIMS];
	uint64_t dtype = 0, raw = 0;
	int have_raw = 0;
	const unsigned char *name = NULL;
	size_t namelen = 0;
	while ((r = pb_next(&b, &f, &why)) > 0) {
		switch (f.num) {
		case 1:
			if (repeated_dims(c, &f, dims, &nd, "TensorProto.dims") < 0)
				return -1;
			break;
		case 2:
			if (f.wt != 0)
				return wrong_type(c, &f, "TensorProto.data_type", 0);
			dtype = f.v;
			break;
		case 8:
			if (f.wt != 2)
				return wrong_type(c, &f, "TensorProto.name", 2);
			name = f.data;
			namelen = f.len;
			break;
		case 9:
			if (f.wt != 2)
				return wrong_type(c, &f, "TensorProto.raw_data", 2);
			have_raw = 1;
			raw = f.len;
			break;
		default:
			break;
		}
	}
	if (r < 0)
		return pb_fail(c, &b, why);
	if (force_dims) {
		nd = force_nd;
		memcpy(dims, force_dims, sizeof(dims[0]) * (size_t)nd);
	}
	if (!namelen) {
		name = (const unsigned char *)hint;
		namelen = hintlen;
	}
	struct dl_tensor *t = model_add(c->m, (const char *)name, namelen);
	if (role != DL_ROLE_WEIGHT)
		t->role = role;
	if (tensor_set_shape(t, dims, nd, &why) < 0)
		return merr(c, NULL, (uint64_t)(d - c->base), "tensor '%s': %s", t->name, why);
	int bits = 0;
	if (dtype < DL_ARRAY_SIZE(onnx_types) && onnx_types[dtype].name) {
		t->dtype = onnx_types[dtype].name;
		bits = onnx_types[dtype].bits;
	}
	if (dtype == 8)
		t->role = DL_ROLE_OTHER;
	if (bits % 8 == 0) {
		tensor_set_bytes(t, bits / 8);
	} else if (t->numel <= INT64_MAX / bits) {
		t->bytes = (t->numel * bits + 7) / 8;
	}
	if (have_raw && !force_dims && t->bytes >= 0 && (uint64_t)t->bytes != raw)
		return merr(c, NULL, (uint64_t)(d - c->base),
			    "tensor '%s': raw_data is %llu bytes, its shape and type need %lld",
			    t->name, (unsigned long long)raw, (long long)t->bytes);
	return 0;
}

/* SparseTensorProto: values=1 (TensorProto), dims=3 (the dense shape) */
static int onnx_sparse(struct mctx *c, const unsigned char *d, size_t len)
{
	struct pb b = {d, d + len, c->base};
	struct pb_field f, values = {0};
	const char *why;
	int r, nd = 0;
	int64_t dims[DL_MODEL_MAX_DIMS];
	while ((r = pb_next(&b, &f, &why)) > 0) {
		if (f.num == 1) {
			if (f.wt != 2)
				return wrong_type(c, &f, "SparseTensorProto.values", 2);
			values = f;
		} else if (f.num == 3) {
			if (repeated_dims(c, &f, dims, &nd, "SparseTensorProto.dims") < 0)
				return -1;
		}
	}
	if (r < 0)
		return pb_fail(c, &b, why);
	if (!values.data)
		return merr(c, NULL, (uint64_t)(d - c->base), "sparse initializer without values");
	return onnx_tensor(c, values.data, values.len, DL_ROLE_WEIGHT, "sparse", 6, dims, nd);
}

static int onnx_graph(struct mctx *c, const unsigned char *d, size_t len, int depth);

/* tensor-valued attributes (Constant's value, ConstantOfShape's) are constants */
static int onnx_attribute(struct mctx *c, const unsigned char *d, size_t len,
			  const unsigned char *out, size_t outlen, int depth)
{
	struct pb b = {d, d + len, c->base};
	struct pb_field f;
	const char *why;
	int r;
	while ((r = pb_next(&b, &f, &why)) > 0) {
		switch (f.num) {
		case 5:	 /* t */
		case 10: /* tensors */
			if (f.wt != 2)
				return wrong_type(c, &f, "AttributeProto.t", 2);
			if (onnx_tensor(c, f.data, f.len, DL_ROLE_CONSTANT, (const char *)out,
					outlen, NULL, 0) < 0)
				return -1;
			break;
		case 6:	 /* g */
		case 11: /* graphs */
			if (f.wt != 2)
				return wrong_type(c, &f, "AttributeProto.g", 2);
			if (onnx_graph(c, f.data, f.len, depth + 1) < 0)
				return -1;
			break;
		default:
			break;
		}
	}
	if (r < 0)
		return pb_fail(c, &b, why);
	return 0;
}

static int onnx_node(struct mctx *c, const unsigned char *d, size_t len, int depth)
{
	struct pb b = {d, d + len, c->base};
	struct pb_field f;
	const char *why;
	int r;
	const unsigned char *out = (const unsigned char *)"constant";
	size_t outlen = 8;
	int have_out = 0;
	/* first pass: the first output name names the constants (fields come in any order) */
	while ((r = pb_next(&b, &f, &why)) > 0) {
		if (f.num == 4) {
			if (f.wt != 2)
				return wrong_type(c, &f, "NodeProto.op_type", 2);
		} else if (f.num == 2 && !have_out) {
			if (f.wt != 2)
				return wrong_type(c, &f, "NodeProto.output", 2);
			out = f.data;
			outlen = f.len;
			have_out = 1;
		}
	}
	if (r < 0)
		return pb_fail(c, &b, why);
	b.p = d;
	while ((r = pb_next(&b, &f, &why)) > 0) {
		if (f.num != 5)
			continue;
		if (f.wt != 2)
			return wrong_type(c, &f, "NodeProto.attribute", 2);
		if (onnx_attribute(c, f.data, f.len, out, outlen, depth) < 0)
			return -1;
	}
	return r < 0 ? pb_fail(c, &b, why) : 0;
}

/* initializers first (the weights, in their order), then the nodes' constants and subgraphs */
static int onnx_graph(struct mctx *c, const unsigned char *d, size_t len, int depth)
{
	if (depth > ONNX_MAX_DEPTH)
		return merr(c, NULL, (uint64_t)(d - c->base), "subgraphs nested too deeply");
	struct pb_field f;
	const char *why;
	int r;
	for (int pass = 0; pass < 2; pass++) {
		struct pb b = {d, d + len, c->base};
		while ((r = pb_next(&b, &f, &why)) > 0) {
			if (f.num == 1 && pass == 1) {
				if (f.wt != 2)
					return wrong_type(c, &f, "GraphProto.node", 2);
				if (onnx_node(c, f.data, f.len, depth) < 0)
					return -1;
			} else if (f.num == 5 && pass == 0) {
				if (f.wt != 2)
					return wrong_type(c, &f, "GraphProto.initializer", 2);
				if (onnx_tensor(c, f.data, f.len, DL_ROLE_WEIGHT, "initializer", 11,
						NULL, 0) < 0)
					return -1;
			} else if (f.num == 15 && pass == 0) {
				if (f.wt != 2)
					return wrong_type(c, &f, "GraphProto.sparse_initializer",
							  2);
				if (onnx_sparse(c, f.data, f.len) < 0)
					return -1;
			}
		}
		if (r < 0)
			return pb_fail(c, &b, why);
	}
	return 0;
}

int read_onnx(struct mctx *c)
{
	struct pb b = {c->base, c->base + c->size, c->base};
	struct pb_field f;
	const char *why;
	int r, graphs = 0;
	while ((r = pb_next(&b, &f, &why)) > 0) {
		if (f.num != 7)
			continue;
		if (f.wt != 2)
			return wrong_type(c, &f, "ModelProto.graph", 2);
		graphs++;
		if (onnx_graph(c, f.data, f.len, 0) < 0)
			return -1;
	}
	if (r < 0)
		return pb_fail(c, &b, why);
	if (!graphs)
		return merr(c, NULL, 0, "ONNX model without a graph");
	return 0;
}
