/*
 * zip.c: the central directory of a zip archive (PyTorch .pt, NumPy .npz),
 * zip64 included. Sizes are taken from the central directory because
 * PyTorch writes local headers with data descriptors (sizes 0 there).
 */
#include <stdlib.h>
#include <zlib.h>

#include "model/model_int.h"

#define EOCD_LEN  22
#define CDIR_LEN  46
#define LOCAL_LEN 30

static int find_eocd(struct mctx *c, uint64_t *pos)
{
	if (c->size < EOCD_LEN)
		return merr(c, NULL, c->size,
			    "truncated zip archive (no end of central directory)");
	uint64_t lo = c->size > 65557 ? c->size - 65557 : 0;
	for (uint64_t p = c->size - EOCD_LEN + 1; p-- > lo;) {
		const unsigned char *b = c->base + p;
		if (b[0] == 'P' && b[1] == 'K' && b[2] == 5 && b[3] == 6) {
			*pos = p;
			return 0;
		}
	}
	return merr(c, NULL, c->size,
		    "truncated or corrupt zip archive (no end of central directory record)");
}

/* values saturated in the 32-bit fields come from the zip64 extra field, in order */
static int zip64_extra(struct mctx *c, uint64_t off, const unsigned char *x, size_t xlen,
		       struct zip_entry *e, int need_u, int need_c, int need_o)
{
	size_t i = 0;
	while (i + 4 <= xlen) {
		uint16_t id = rd16(x + i), len = rd16(x + i + 2);
		if (i + 4 + len > xlen)
			break;
		if (id == 1) {
			const unsigned char *d = x + i + 4;
			size_t k = 0;
			uint64_t *want[3] = {need_u ? &e->usize : NULL, need_c ? &e->csize : NULL,
					     need_o ? &e->lho : NULL};
			for (int j = 0; j < 3; j++) {
				if (!want[j])
					continue;
				if (k + 8 > len)
					return merr(c, e->name, off, "short zip64 extra field");
				*want[j] = rd64(d + k);
				k += 8;
			}
			return 0;
		}
		i += 4 + (size_t)len;
	}
	if (need_u || need_c || need_o)
		return merr(c, e->name, off, "missing zip64 extra field");
	return 0;
}

int zip_open(struct mctx *c, struct zip *z)
{
	uint64_t eocd = 0;
	z->e = NULL;
	z->n = 0;
	if (find_eocd(c, &eocd) < 0)
		return -1;
	const unsigned char *b = c->base + eocd;
	uint64_t count = rd16(b + 10), cd_size = rd32(b + 12), cd_off = rd32(b + 16);
	if (count == 0xffff || cd_size == 0xffffffff || cd_off == 0xffffffff) {
		if (eocd < 20 || memcmp(c->base + eocd - 20, "PK\x06\x07", 4))
			return merr(c, NULL, eocd, "zip64 archive without a zip64 locator");
		uint64_t z64 = rd64(c->base + eocd - 20 + 8);
		if (z64 > c->size || c->size - z64 < 56 || memcmp(c->base + z64, "PK\x06\x06", 4))
			return merr(c, NULL, eocd - 20,
				    "bad zip64 end of central directory offset");
		count = rd64(c->base + z64 + 32);
		cd_size = rd64(c->base + z64 + 40);
		cd_off = rd64(c->base + z64 + 48);
	}
	if (cd_off > c->size || cd_size > c->size - cd_off)
		return merr(c, NULL, eocd,
			    "corrupt zip directory: central directory at %llu (%llu bytes) lies "
			    "beyond the end of the file (%zu bytes)",
			    (unsigned long long)cd_off, (unsigned long long)cd_size, c->size);
	if (count > cd_size / CDIR_LEN)
		return merr(c, NULL, eocd,
			    "corrupt zip directory: %llu entries cannot fit in %llu bytes",
			    (unsigned long long)count, (unsigned long long)cd_size);
	z->e = xcalloc(count ? count : 1, sizeof(*z->e));
	uint64_t p = cd_off, end = cd_off + cd_size;
	for (uint64_t i = 0; i < count; i++) {
		const unsigned char *h = c->base + p;
		if (end - p < CDIR_LEN || memcmp(h, "PK\x01\x02", 4))
			return merr(c, NULL, p, "corrupt zip directory: bad entry %llu signature",
				    (unsigned long long)i);
		uint16_t nlen = rd16(h + 28), xlen = rd16(h + 30), clen = rd16(h + 32);
		if (end - p - CDIR_LEN < (uint64_t)nlen + xlen + clen)
			return merr(c, NULL, p, "corrupt zip directory: entry %llu overruns it",
				    (unsigned long long)i);
		struct zip_entry *e = &z->e[z->n++];
		e->name = xstrndup((const char *)h + CDIR_LEN, nlen);
		e->method = rd16(h + 10);
		e->csize = rd32(h + 20);
		e->usize = rd32(h + 24);
		e->lho = rd32(h + 42);
		if (zip64_extra(c, p, h + CDIR_LEN + nlen, xlen, e, e->usize == 0xffffffff,
				e->csize == 0xffffffff, e->lho == 0xffffffff) < 0)
			return -1;
		p += CDIR_LEN + (uint64_t)nlen + xlen + clen;
	}
	return 0;
}

void zip_free(struct zip *z)
{
	for (size_t i = 0; i < z->n; i++)
		free(z->e[i].name);
	free(z->e);
	z->e = NULL;
	z->n = 0;
}

int zip_data_offset(struct mctx *c, const struct zip_entry *e, uint64_t *off)
{
	if (e->lho > c->size || c->size - e->lho < LOCAL_LEN ||
	    memcmp(c->base + e->lho, "PK\x03\x04", 4))
		return merr(c, e->name, e->lho, "corrupt zip: bad local header");
	const unsigned char *h = c->base + e->lho;
	uint64_t d = e->lho + LOCAL_LEN + rd16(h + 26) + rd16(h + 28);
	if (d > c->size || e->csize > c->size - d)
		return merr(c, e->name, e->lho,
			    "declared size %llu is larger than the file (data at %llu, file %zu "
			    "bytes)",
			    (unsigned long long)e->csize, (unsigned long long)d, c->size);
	*off = d;
	return 0;
}

/* inflate until the output is full, the stream ends or fails, or the input runs out */
static int inflate_until_full(z_stream *s, const unsigned char **in, uint64_t *left)
{
	/* feed the compressed bytes in slices so that only what is needed is read */
	int zr = Z_OK;
	while (s->avail_out > 0 && zr == Z_OK) {
		if (s->avail_in == 0) {
			if (!*left)
				break;
			size_t chunk = *left > 4096 ? 4096 : (size_t)*left;
			s->next_in = (unsigned char *)*in;
			s->avail_in = (uInt)chunk;
			*in += chunk;
			*left -= chunk;
		}
		zr = inflate(s, Z_NO_FLUSH);
	}
	return zr;
}

int zip_read_prefix(struct mctx *c, const struct zip_entry *e, size_t want,
		    const unsigned char **data, size_t *len, unsigned char **owned)
{
	uint64_t off;
	*owned = NULL;
	if (zip_data_offset(c, e, &off) < 0)
		return -1;
	if (want > e->usize)
		want = (size_t)e->usize;
	if (e->method == 0) {
		if (e->csize < e->usize)
			return merr(c, e->name, e->lho, "stored entry shorter than its size");
		*data = c->base + off;
		*len = want;
		return 0;
	}
	if (e->method != 8)
		return merr(c, e->name, e->lho, "unsupported zip compression method %u", e->method);
	unsigned char *buf = xmalloc(want ? want : 1);
	z_stream s;
	memset(&s, 0, sizeof(s));
	int zi = inflateInit2(&s, -15);
	if (zi == Z_MEM_ERROR)
		dl_out_of_memory(0);
	if (zi != Z_OK) {
		free(buf);
		return merr(c, e->name, off, "zlib initialisation failed");
	}
	const unsigned char *in = c->base + off;
	uint64_t left = e->csize;
	s.next_out = buf;
	s.avail_out = (uInt)want;
	int zr = inflate_until_full(&s, &in, &left);
	unsigned char extra;
	if (zr == Z_OK && want == e->usize && s.avail_out == 0) {
		/* the whole member was wanted: it must not hold more than it declares */
		s.next_out = &extra;
		s.avail_out = 1;
		zr = inflate_until_full(&s, &in, &left);
		if (s.avail_out == 0) {
			inflateEnd(&s);
			free(buf);
			return merr(c, e->name, off,
				    "inflates to more than its declared size of %llu bytes",
				    (unsigned long long)e->usize);
		}
		s.avail_out = 0;
		if (zr == Z_BUF_ERROR) /* no more input: the member ended where it said */
			zr = Z_OK;
	}
	size_t got = want - s.avail_out;
	inflateEnd(&s);
	if (zr == Z_MEM_ERROR)
		dl_out_of_memory(0);
	if (zr != Z_OK && zr != Z_STREAM_END) {
		free(buf);
		return merr(c, e->name, off, "corrupt deflate data");
	}
	if (got < want) {
		free(buf);
		return merr(c, e->name, off, "deflate data ends after %zu of %zu bytes", got, want);
	}
	*owned = buf;
	*data = buf;
	*len = got;
	return 0;
}
