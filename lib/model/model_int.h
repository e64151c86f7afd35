/*
 * model_int.h: what the model readers share (lib/model only).
 *
 * A struct mctx is one parse of one file held in memory (mapped): bounds,
 * the model being filled and where errors go. Every length read from the file
 * is checked against the bytes that exist before it is followed, so a
 * declared size never turns into an allocation.
 */
#ifndef DL_MODEL_INT_H
#define DL_MODEL_INT_H

#include <string.h>

#include "model/model.h"

struct mctx {
	const char *file; /* name for messages */
	const unsigned char *base;
	size_t size;
	struct dl_model *m;
	struct dl_err *err;
	const char *entry; /* archive member being read in place, or NULL */
};

/* "FILE: [entry 'E': ]offset N: msg"; returns -1 */
int merr(struct mctx *c, const char *entry, uint64_t off, const char *fmt, ...) DL_PRINTF(4, 5);

static inline uint16_t rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t rd64(const unsigned char *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* Append a tensor (name copied, len bytes); returns it with ndim 0, numel 1. */
struct dl_tensor *model_add(struct dl_model *m, const char *name, size_t len);
/* Set shape; numel = product. -1 on overflow or too many dims (message in *why). */
int tensor_set_shape(struct dl_tensor *t, const int64_t *dims, int ndim, const char **why);
/* bytes = numel * elem (elem 0: unknown) */
void tensor_set_bytes(struct dl_tensor *t, int64_t elem);
/* Role from the name: BN statistics, counters, optimizer state */
enum dl_tensor_role role_from_name(const char *name);

/* ---- zip (zip.c) ---- */
struct zip_entry {
	char *name;
	uint16_t method;
	uint64_t csize, usize, lho;
};
struct zip {
	struct zip_entry *e;
	size_t n;
};
int zip_open(struct mctx *c, struct zip *z);
void zip_free(struct zip *z);
/* offset of the entry's data in the file (checked: data lies in the file) */
int zip_data_offset(struct mctx *c, const struct zip_entry *e, uint64_t *off);
/*
 * The first min(want, usize) bytes of the entry's uncompressed data: a pointer
 * into the file for stored entries (*owned NULL), else inflated into *owned.
 */
int zip_read_prefix(struct mctx *c, const struct zip_entry *e, size_t want,
		    const unsigned char **data, size_t *len, unsigned char **owned);

/* ---- readers ---- */
int read_safetensors(struct mctx *c);
int read_torch_zip(struct mctx *c, struct zip *z, const struct zip_entry *pkl);
int read_torch_legacy(struct mctx *c);
int read_pickle_only(struct mctx *c);
int read_onnx(struct mctx *c);
int read_npy(struct mctx *c);
int read_npz(struct mctx *c, struct zip *z);
/* parse an .npy header held in p (n bytes) for tensor name; total = member/file size */
int npy_header(struct mctx *c, const char *entry, const unsigned char *p, size_t n, uint64_t total,
	       const char *name, size_t namelen);
int read_gguf(struct mctx *c);
int read_tf_index(struct mctx *c);
int read_hdf5(struct mctx *c);

/* ---- protobuf wire format (proto.c) ---- */
struct pb {
	const unsigned char *p, *end;
	const unsigned char *base; /* for offsets in messages */
};
struct pb_field {
	uint32_t num;
	int wt;
	uint64_t v;		   /* varint / fixed value */
	const unsigned char *data; /* length-delimited payload */
	size_t len;
	uint64_t off; /* offset of the tag from base */
};
/* 1 = a field, 0 = end, -1 = error (message in *why, offset in f->off) */
int pb_next(struct pb *b, struct pb_field *f, const char **why);
int pb_varint(const unsigned char **p, const unsigned char *end, uint64_t *v);

#endif
