/*
 * hdf5.c: the datasets of an HDF5 file (Keras .h5 weights), from the object
 * headers only: shape from the dataspace message, element type and size from
 * the datatype message. The layout and the data are never read.
 *
 * Covered: superblock versions 0 to 3; version 1 object headers with
 * symbol-table groups (v1 B-tree + local heap: what h5py writes by default)
 * and version 2 object headers ("OHDR") with compact link messages (what
 * libver='latest' writes for small groups). Groups kept in dense storage
 * (fractal heap + v2 B-tree) are refused with a message saying so.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/strmap.h"
#include "model/model_int.h"

#define H5_UNDEF      UINT64_MAX
#define H5_MAX_DEPTH  64
#define H5_MAX_BLOCKS 1024 /* header blocks of one object: continuations may loop */

struct h5 {
	struct mctx *c;
	uint64_t base;	    /* file offset of address 0 */
	int so, sl;	    /* size of offsets and of lengths */
	struct strmap seen; /* object headers and B-tree nodes already walked (loops, sharing) */
	struct strbuf path;
};

static int need(struct h5 *h, uint64_t off, uint64_t len, const char *what)
{
	if (off > h->c->size || len > h->c->size - off)
		return merr(h->c, NULL, off, "HDF5 %s (%llu bytes) lies beyond the end of the file",
			    what, (unsigned long long)len);
	return 0;
}

static uint64_t rdn(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	if (n < 8 && v == (1ull << (8 * n)) - 1)
		return H5_UNDEF; /* all ones: the undefined address */
	return v;
}

/* file offset of an HDF5 address, checked to leave len bytes */
static int addr(struct h5 *h, uint64_t a, uint64_t len, const char *what, uint64_t *off)
{
	*off = 0; /* set on failure too: gcc -O3 cannot see that callers stop then */
	if (a == H5_UNDEF || a > UINT64_MAX - h->base)
		return merr(h->c, NULL, 0, "HDF5 %s has an undefined address", what);
	if (need(h, h->base + a, len, what) < 0)
		return -1;
	*off = h->base + a;
	return 0;
}

static int seen(struct h5 *h, uint64_t a)
{
	char key[8];
	memcpy(key, &a, sizeof(key));
	return !strmap_putn(&h->seen, key, sizeof(key), 1);
}

/* what an object header says */
struct h5obj {
	int has_space, has_type;
	int ndim;
	int64_t dims[DL_MODEL_MAX_DIMS];
	const char *dtype;
	int64_t elem;
	int other;	      /* not a number */
	uint64_t btree, heap; /* symbol-table group */
	int symtab;
	int dense;
	/* compact links: (name offset, length, address) gathered from link messages */
	struct h5link {
		uint64_t name_off;
		size_t name_len;
		uint64_t addr;
	} * links;
	size_t nlinks, alinks;
};

static int dataspace(struct h5 *h, const unsigned char *d, size_t len, uint64_t at, struct h5obj *o)
{
	if (len < 2)
		return merr(h->c, NULL, at, "short HDF5 dataspace message");
	int version = d[0], rank = d[1];
	size_t p;
	if (version == 1)
		p = 8;
	else if (version == 2)
		p = 4;
	else
		return merr(h->c, NULL, at, "unsupported HDF5 dataspace version %d", version);
	if (rank > DL_MODEL_MAX_DIMS)
		return merr(h->c, NULL, at, "HDF5 dataspace of rank %d", rank);
	if (version == 2 && len >= 4 && d[3] == 2) {
		o->ndim = 1; /* the null dataspace: no elements */
		o->dims[0] = 0;
		o->has_space = 1;
		return 0;
	}
	if (len < p + (size_t)rank * (size_t)h->sl)
		return merr(h->c, NULL, at, "short HDF5 dataspace message");
	for (int i = 0; i < rank; i++) {
		uint64_t v = rdn(d + p + (size_t)i * (size_t)h->sl, h->sl);
		if (v > INT64_MAX)
			return merr(h->c, NULL, at, "bad HDF5 dimension");
		o->dims[i] = (int64_t)v;
	}
	o->ndim = rank;
	o->has_space = 1;
	return 0;
}

static int datatype(struct h5 *h, const unsigned char *d, size_t len, uint64_t at, struct h5obj *o)
{
	static const char *const ints[] = {"i8", "i16", "i32", "i64"};
	static const char *const uints[] = {"u8", "u16", "u32", "u64"};
	if (len < 8)
		return merr(h->c, NULL, at, "short HDF5 datatype message");
	int cls = d[0] & 0x0f;
	uint32_t size = rd32(d + 4);
	o->has_type = 1;
	o->elem = size;
	o->dtype = "record";
	o->other = 1;
	int lg = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
	if (cls == 0 && lg >= 0) { /* fixed point; bit 3 of the class bits: signed */
		o->dtype = (d[1] & 0x08) ? ints[lg] : uints[lg];
		o->other = 0;
	} else if (cls == 1 && lg >= 1) {
		o->dtype = lg == 1 ? "f16" : lg == 2 ? "f32" : "f64";
		o->other = 0;
	} else if (cls == 3) {
		o->dtype = "string";
	} else if (cls == 9) {
		o->dtype = "vlen";
		o->elem = 0;
	}
	return 0;
}

static int link_msg(struct h5 *h, const unsigned char *d, size_t len, uint64_t at, struct h5obj *o)
{
	size_t p = 2;
	if (len < 2 || d[0] != 1)
		return merr(h->c, NULL, at, "unsupported HDF5 link message");
	int flags = d[1], type = 0;
	if (flags & 0x08) {
		if (p >= len)
			goto short_msg;
		type = d[p++];
	}
	if (flags & 0x04)
		p += 8;
	if (flags & 0x10)
		p += 1;
	size_t w = (size_t)1 << (flags & 3);
	if (p + w > len)
		goto short_msg;
	uint64_t nlen = rdn(d + p, (int)w);
	p += w;
	if (nlen == H5_UNDEF || nlen > len - p)
		goto short_msg;
	if (type != 0)
		return 0; /* soft and external links point outside this walk */
	if (p + nlen + (size_t)h->so > len)
		goto short_msg;
	DL_GROW(o->links, o->nlinks + 1, o->alinks);
	o->links[o->nlinks].name_off = (uint64_t)(d + p - h->c->base);
	o->links[o->nlinks].name_len = (size_t)nlen;
	o->links[o->nlinks].addr = rdn(d + p + nlen, h->so);
	o->nlinks++;
	return 0;
short_msg:
	return merr(h->c, NULL, at, "short HDF5 link message");
}

static int message(struct h5 *h, int type, const unsigned char *d, size_t len, uint64_t at,
		   struct h5obj *o, uint64_t *cont_addr, uint64_t *cont_len)
{
	switch (type) {
	case 0x01:
		return dataspace(h, d, len, at, o);
	case 0x03:
		return datatype(h, d, len, at, o);
	case 0x02: /* link info: dense storage when the fractal heap address is defined */
		if (len >= 2 + (size_t)h->so) {
			size_t p = 2 + ((d[1] & 1) ? 8 : 0);
			if (p + (size_t)h->so <= len && rdn(d + p, h->so) != H5_UNDEF)
				o->dense = 1;
		}
		return 0;
	case 0x06:
		return link_msg(h, d, len, at, o);
	case 0x10:
		if (len < (size_t)(h->so + h->sl))
			return merr(h->c, NULL, at, "short HDF5 continuation message");
		*cont_addr = rdn(d, h->so);
		*cont_len = rdn(d + h->so, h->sl);
		return 0;
	case 0x11:
		if (len < 2 * (size_t)h->so)
			return merr(h->c, NULL, at, "short HDF5 symbol table message");
		o->symtab = 1;
		o->btree = rdn(d, h->so);
		o->heap = rdn(d + h->so, h->so);
		return 0;
	default:
		return 0;
	}
}

struct block {
	uint64_t off, len;
};

/* Read the messages of the object header at address a. */
static int object_header(struct h5 *h, uint64_t a, struct h5obj *o)
{
	uint64_t off;
	if (addr(h, a, 16, "object header", &off) < 0)
		return -1;
	const unsigned char *b = h->c->base;
	struct block *todo = NULL;
	size_t nt = 0, at = 0, it = 0;
	int v2 = 0, rc = 0, crt = 0;
	if (!memcmp(b + off, "OHDR", 4)) {
		v2 = 1;
		if (b[off + 4] != 2)
			return merr(h->c, NULL, off, "unsupported HDF5 object header version %d",
				    b[off + 4]);
		int flags = b[off + 5];
		uint64_t p = off + 6 + ((flags & 0x20) ? 16 : 0) + ((flags & 0x10) ? 4 : 0);
		int w = 1 << (flags & 3);
		if (need(h, p, (uint64_t)w, "object header") < 0)
			return -1;
		uint64_t size = rdn(b + p, w);
		crt = (flags & 0x04) != 0;
		p += (uint64_t)w;
		if (size == H5_UNDEF)
			return merr(h->c, NULL, p, "bad HDF5 object header size");
		if (need(h, p, size + 4, "object header") < 0)
			return -1;
		DL_GROW(todo, nt + 1, at);
		todo[nt++] = (struct block){p, size};
	} else {
		if (b[off] != 1)
			return merr(h->c, NULL, off, "unsupported HDF5 object header version %d",
				    b[off]);
		uint64_t size = rd32(b + off + 8);
		if (need(h, off + 16, size, "object header") < 0)
			return -1;
		DL_GROW(todo, nt + 1, at);
		todo[nt++] = (struct block){off + 16, size};
	}
	while (it < nt && rc == 0) {
		struct block blk = todo[it++];
		if (it > H5_MAX_BLOCKS) {
			rc = merr(h->c, NULL, blk.off, "too many HDF5 object header blocks");
			break;
		}
		uint64_t p = blk.off, end = blk.off + blk.len;
		int hl = v2 ? 4 + (crt ? 2 : 0) : 8;
		while (rc == 0 && p + (uint64_t)hl <= end) {
			const unsigned char *m = b + p;
			int type = v2 ? m[0] : rd16(m);
			uint64_t len = v2 ? rd16(m + 1) : rd16(m + 2);
			if (len > end - p - (uint64_t)hl) {
				rc = merr(h->c, NULL, p, "HDF5 message runs past its header block");
				break;
			}
			uint64_t ca = H5_UNDEF, cl = 0;
			rc = message(h, type, m + hl, (size_t)len, p, o, &ca, &cl);
			if (rc == 0 && ca != H5_UNDEF) {
				uint64_t coff;
				rc = addr(h, ca, cl, "continuation block", &coff);
				if (rc == 0 && v2) {
					if (cl < 8 || memcmp(b + coff, "OCHK", 4)) {
						rc = merr(h->c, NULL, coff,
							  "bad HDF5 continuation block");
						break;
					}
					coff += 4;
					cl -= 8; /* signature and checksum */
				}
				if (rc == 0) {
					DL_GROW(todo, nt + 1, at);
					todo[nt++] = (struct block){coff, cl};
				}
			}
			p += (uint64_t)hl + len;
		}
	}
	free(todo);
	return rc;
}

static int walk_object(struct h5 *h, uint64_t a, int depth);

static int walk_child(struct h5 *h, const char *name, size_t len, uint64_t a, int depth)
{
	size_t keep = h->path.len;
	if (h->path.len)
		sb_addc(&h->path, '/');
	sb_add(&h->path, name, len);
	int rc = walk_object(h, a, depth + 1);
	sb_setlen(&h->path, keep);
	return rc;
}

/* a v1 B-tree of group nodes: its leaves are symbol table nodes */
static int walk_btree(struct h5 *h, uint64_t a, uint64_t heap_data, uint64_t heap_len, int depth,
		      int level_guard)
{
	uint64_t off;
	int so = h->so, sl = h->sl;
	if (level_guard > 32)
		return merr(h->c, NULL, 0, "HDF5 B-tree too deep");
	if (seen(h, a))
		return 0; /* every node once: a node listed twice cannot multiply the work */
	if (addr(h, a, 8 + 2 * (uint64_t)so, "B-tree node", &off) < 0)
		return -1;
	const unsigned char *b = h->c->base + off;
	if (memcmp(b, "TREE", 4) || b[4] != 0)
		return merr(h->c, NULL, off, "bad HDF5 group B-tree node");
	int level = b[5];
	uint64_t n = rd16(b + 6);
	uint64_t p = off + 8 + 2 * (uint64_t)so;
	if (need(h, p, n * (uint64_t)(sl + so) + (uint64_t)sl, "B-tree node") < 0)
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t child = rdn(h->c->base + p + (uint64_t)sl + i * (uint64_t)(sl + so), so);
		if (level > 0) {
			if (walk_btree(h, child, heap_data, heap_len, depth, level_guard + 1) < 0)
				return -1;
			continue;
		}
		uint64_t s;
		if (seen(h, child))
			continue;
		if (addr(h, child, 8, "symbol table node", &s) < 0)
			return -1;
		const unsigned char *sn = h->c->base + s;
		if (memcmp(sn, "SNOD", 4))
			return merr(h->c, NULL, s, "bad HDF5 symbol table node");
		uint64_t ns = rd16(sn + 6), esz = 2 * (uint64_t)so + 24;
		if (need(h, s + 8, ns * esz, "symbol table node") < 0)
			return -1;
		for (uint64_t k = 0; k < ns; k++) {
			const unsigned char *e = sn + 8 + k * esz;
			uint64_t name = rdn(e, so), obj = rdn(e + so, so);
			if (name == H5_UNDEF || name >= heap_len)
				return merr(h->c, NULL, s + 8 + k * esz,
					    "bad HDF5 link name offset");
			const char *nm = (const char *)h->c->base + heap_data + name;
			const char *z = memchr(nm, 0, (size_t)(heap_len - name));
			if (!z)
				return merr(h->c, NULL, heap_data + name, "unterminated HDF5 name");
			if (walk_child(h, nm, (size_t)(z - nm), obj, depth) < 0)
				return -1;
		}
	}
	return 0;
}

static int walk_object(struct h5 *h, uint64_t a, int depth)
{
	if (depth > H5_MAX_DEPTH)
		return merr(h->c, NULL, 0, "HDF5 groups nested too deeply");
	if (seen(h, a))
		return 0; /* a hard link to an object already listed */
	struct h5obj o;
	memset(&o, 0, sizeof(o));
	int rc = object_header(h, a, &o);
	if (rc == 0 && o.has_space && o.has_type) {
		const char *name = h->path.len ? h->path.buf : "dataset";
		struct dl_tensor *t = model_add(h->c->m, name, strlen(name));
		const char *why;
		if (tensor_set_shape(t, o.dims, o.ndim, &why) < 0)
			rc = merr(h->c, NULL, h->base + a, "dataset '%s': %s", t->name, why);
		t->dtype = o.dtype;
		if (o.other)
			t->role = DL_ROLE_OTHER;
		tensor_set_bytes(t, o.elem);
	} else if (rc == 0 && o.dense) {
		rc = merr(h->c, NULL, h->base + a,
			  "HDF5 group '%s' uses dense link storage, which is not supported",
			  h->path.len ? h->path.buf : "/");
	} else if (rc == 0 && o.symtab) {
		uint64_t hoff;
		rc = addr(h, o.heap, 8 + 2 * (uint64_t)h->sl + (uint64_t)h->so, "local heap",
			  &hoff);
		if (rc == 0 && memcmp(h->c->base + hoff, "HEAP", 4))
			rc = merr(h->c, NULL, hoff, "bad HDF5 local heap");
		if (rc == 0) {
			const unsigned char *hp = h->c->base + hoff;
			uint64_t dlen = rdn(hp + 8, h->sl);
			uint64_t daddr = rdn(hp + 8 + 2 * h->sl, h->so), doff;
			rc = addr(h, daddr, dlen, "local heap data", &doff);
			if (rc == 0)
				rc = walk_btree(h, o.btree, doff, dlen, depth, 0);
		}
	}
	for (size_t i = 0; rc == 0 && i < o.nlinks; i++)
		rc = walk_child(h, (const char *)h->c->base + o.links[i].name_off,
				o.links[i].name_len, o.links[i].addr, depth);
	free(o.links);
	return rc;
}

int read_hdf5(struct mctx *c)
{
	static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
	uint64_t sb = UINT64_MAX;
	for (uint64_t off = 0; off + 8 <= c->size && off <= (1u << 20); off = off ? off * 2 : 512)
		if (!memcmp(c->base + off, sig, 8)) {
			sb = off;
			break;
		}
	if (sb == UINT64_MAX)
		return merr(c, NULL, 0, "no HDF5 superblock");
	struct h5 h = {c, 0, 8, 8, STRMAP_INIT, STRBUF_INIT};
	const unsigned char *b = c->base + sb;
	uint64_t root;
	if (need(&h, sb, 16, "superblock") < 0)
		return -1;
	int version = b[8];
	if (version <= 1) {
		h.so = b[13];
		h.sl = b[14];
	} else if (version <= 3) {
		h.so = b[9];
		h.sl = b[10];
	} else {
		return merr(c, NULL, sb + 8, "unsupported HDF5 superblock version %d", version);
	}
	if ((h.so != 4 && h.so != 8) || (h.sl != 4 && h.sl != 8))
		return merr(c, NULL, sb + 13, "unsupported HDF5 offset/length sizes %d/%d", h.so,
			    h.sl);
	uint64_t p = sb + (version <= 1 ? 24 + (version == 1 ? 4 : 0) : 12);
	if (need(&h, p, 4 * (uint64_t)h.so + 2 * (uint64_t)h.so + 24, "superblock") < 0)
		return -1;
	h.base = rdn(c->base + p, h.so);
	if (h.base == H5_UNDEF)
		h.base = sb;
	if (version <= 1) /* the root group's symbol table entry: its object header address */
		root = rdn(c->base + p + 4 * (uint64_t)h.so + (uint64_t)h.so, h.so);
	else /* base, extension, end of file, root object header */
		root = rdn(c->base + p + 3 * (uint64_t)h.so, h.so);
	int rc = walk_object(&h, root, 0);
	strmap_free(&h.seen);
	sb_release(&h.path);
	return rc;
}
