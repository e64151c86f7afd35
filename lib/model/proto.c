/* proto.c: the protobuf wire format, enough to walk ONNX and TensorFlow messages */
#include <stdlib.h>

#include "model/model_int.h"

int pb_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;
	for (int i = 0; i < 10; i++) {
		if (*p >= end)
			return -1;
		unsigned char b = *(*p)++;
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

int pb_next(struct pb *b, struct pb_field *f, const char **why)
{
	if (b->p >= b->end)
		return 0;
	f->off = (uint64_t)(b->p - b->base);
	uint64_t tag;
	if (pb_varint(&b->p, b->end, &tag) < 0) {
		*why = "truncated or bad protobuf tag";
		return -1;
	}
	f->num = (uint32_t)(tag >> 3);
	f->wt = (int)(tag & 7);
	f->data = NULL;
	f->len = 0;
	f->v = 0;
	if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff) {
		*why = "bad protobuf field number";
		return -1;
	}
	switch (f->wt) {
	case 0:
		if (pb_varint(&b->p, b->end, &f->v) < 0) {
			*why = "truncated protobuf varint";
			return -1;
		}
		return 1;
	case 1:
		if (b->end - b->p < 8) {
			*why = "truncated protobuf fixed64";
			return -1;
		}
		f->v = rd64(b->p);
		b->p += 8;
		return 1;
	case 5:
		if (b->end - b->p < 4) {
			*why = "truncated protobuf fixed32";
			return -1;
		}
		f->v = rd32(b->p);
		b->p += 4;
		return 1;
	case 2: {
		uint64_t len;
		if (pb_varint(&b->p, b->end, &len) < 0) {
			*why = "truncated protobuf length";
			return -1;
		}
		if (len > (uint64_t)(b->end - b->p)) {
			*why = "protobuf field length runs past the end of its message (truncated?)";
			return -1;
		}
		f->data = b->p;
		f->len = (size_t)len;
		b->p += len;
		return 1;
	}
	default:
		*why = "bad protobuf wire type (groups 3 and 4 are not used)";
		return -1;
	}
}
