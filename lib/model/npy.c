/*
 * npy.c: NumPy .npy headers (a Python dict literal) and .npz archives (a zip
 * of .npy members, stored or deflated: only a member's header is inflated).
 */
#include <stdlib.h>

#include "model/model_int.h"

#define NPY_MAX_HEADER (1u << 20)

struct lit {
	const char *p, *end;
};

static void ws(struct lit *l)
{
	while (l->p < l->end && (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' || *l->p == '\r'))
		l->p++;
}

static int eat(struct lit *l, char ch)
{
	ws(l);
	if (l->p < l->end && *l->p == ch) {
		l->p++;
		return 1;
	}
	return 0;
}

/* a quoted string (no escapes are needed for npy keys and descrs) */
static int lit_str(struct lit *l, const char **s, size_t *len)
{
	ws(l);
	if (l->p >= l->end || (*l->p != '\'' && *l->p != '"'))
		return -1;
	char q = *l->p++;
	const char *b = l->p;
	while (l->p < l->end && *l->p != q)
		l->p++;
	if (l->p >= l->end)
		return -1;
	*s = b;
	*len = (size_t)(l->p - b);
	l->p++;
	return 0;
}

/* skip any value: a string, a word, or a bracketed group */
static int lit_skip(struct lit *l)
{
	ws(l);
	if (l->p >= l->end)
		return -1;
	if (*l->p == '\'' || *l->p == '"') {
		const char *s;
		size_t n;
		return lit_str(l, &s, &n);
	}
	if (*l->p == '(' || *l->p == '[' || *l->p == '{') {
		int depth = 0;
		while (l->p < l->end) {
			char ch = *l->p;
			if (ch == '\'' || ch == '"') {
				const char *s;
				size_t n;
				if (lit_str(l, &s, &n) < 0)
					return -1;
				continue;
			}
			l->p++;
			if (ch == '(' || ch == '[' || ch == '{')
				depth++;
			else if (ch == ')' || ch == ']' || ch == '}') {
				if (--depth == 0)
					return 0;
			}
		}
		return -1;
	}
	while (l->p < l->end && *l->p != ',' && *l->p != '}')
		l->p++;
	return 0;
}

static const struct {
	const char *descr, *dtype;
} npy_types[] = {
	{"f2", "f16"},	{"f4", "f32"}, {"f8", "f64"},	{"f16", "f128"},
	{"i1", "i8"},	{"i2", "i16"}, {"i4", "i32"},	{"i8", "i64"},
	{"u1", "u8"},	{"u2", "u16"}, {"u4", "u32"},	{"u8", "u64"},
	{"b1", "bool"}, {"c8", "c64"}, {"c16", "c128"}, {"c32", "c256"},
};

/*
 * The kinds that are not numbers (role "other"): strings, bytes, void,
 * objects (pickled: size unknown), datetimes. -1 for anything else: an
 * unknown dtype is an error, not a tensor of unknown size.
 */
static int npy_other(const char *d, size_t dl, const char **dtype, int64_t *elem)
{
	size_t digits = 1;
	int64_t n = 0;
	while (digits < dl && d[digits] >= '0' && d[digits] <= '9' && n < (1 << 30))
		n = n * 10 + (d[digits++] - '0');
	const char *rest = d + digits;
	size_t restlen = dl - digits;
	if (!dl)
		return -1;
	switch (d[0]) {
	case 'S':
	case 'a':
		*dtype = "bytes";
		*elem = n;
		return restlen ? -1 : 0;
	case 'U':
		*dtype = "str";
		*elem = 4 * n; /* UCS-4 */
		return restlen ? -1 : 0;
	case 'V':
		*dtype = "void";
		*elem = n;
		return restlen ? -1 : 0;
	case 'O':
		*dtype = "object";
		*elem = 0;
		return restlen || (digits > 1 && n != 8) ? -1 : 0;
	case 'M':
	case 'm':
		/* M8 or M8[unit] */
		*dtype = d[0] == 'M' ? "datetime64" : "timedelta64";
		*elem = 8;
		if (n != 8)
			return -1;
		return !restlen || (rest[0] == '[' && rest[restlen - 1] == ']') ? 0 : -1;
	}
	return -1;
}

int npy_header(struct mctx *c, const char *entry, const unsigned char *p, size_t n, uint64_t total,
	       const char *name, size_t namelen)
{
	if (n < 10 || memcmp(p, "\x93NUMPY", 6))
		return merr(c, entry, 0, "not an .npy array (bad magic)");
	unsigned major = p[6];
	uint64_t hlen, pre;
	if (major == 1) {
		hlen = rd16(p + 8);
		pre = 10;
	} else if (major == 2 || major == 3) {
		if (n < 12)
			return merr(c, entry, 8, "truncated .npy header");
		hlen = rd32(p + 8);
		pre = 12;
	} else {
		return merr(c, entry, 6, "unsupported .npy version %u", major);
	}
	if (hlen > NPY_MAX_HEADER || pre + hlen > total)
		return merr(c, entry, 8, "declared header size %llu is larger than the file",
			    (unsigned long long)hlen);
	if (pre + hlen > n)
		return merr(c, entry, pre, "truncated .npy header");
	struct lit l = {(const char *)p + pre, (const char *)p + pre + hlen};
	const char *descr = NULL;
	size_t dlen = 0;
	int record = 0, have_shape = 0, nd = 0;
	int64_t dims[DL_MODEL_MAX_DIMS];
	if (!eat(&l, '{'))
		return merr(c, entry, pre, "bad .npy header: expected a dict");
	while (!eat(&l, '}')) {
		const char *k;
		size_t klen;
		uint64_t at = (uint64_t)(l.p - (const char *)p);
		if (lit_str(&l, &k, &klen) < 0 || !eat(&l, ':'))
			return merr(c, entry, at, "bad .npy header: expected 'key':");
		ws(&l);
		if (klen == 5 && !memcmp(k, "descr", 5)) {
			if (l.p < l.end && *l.p == '[') {
				record = 1;
				if (lit_skip(&l) < 0)
					return merr(c, entry, at, "bad .npy descr");
			} else if (lit_str(&l, &descr, &dlen) < 0) {
				return merr(c, entry, at, "bad .npy descr");
			}
		} else if (klen == 5 && !memcmp(k, "shape", 5)) {
			if (!eat(&l, '('))
				return merr(c, entry, at, "bad .npy shape: expected a tuple");
			have_shape = 1;
			while (!eat(&l, ')')) {
				ws(&l);
				int64_t v = 0;
				int digits = 0;
				while (l.p < l.end && *l.p >= '0' && *l.p <= '9') {
					if (v > (INT64_MAX - 9) / 10)
						return merr(c, entry, at, "bad .npy shape");
					v = v * 10 + (*l.p++ - '0');
					digits++;
				}
				if (l.p < l.end && *l.p == 'L')
					l.p++;
				if (!digits || nd >= DL_MODEL_MAX_DIMS)
					return merr(c, entry, at, "bad .npy shape");
				dims[nd++] = v;
				if (!eat(&l, ',')) {
					if (!eat(&l, ')'))
						return merr(c, entry, at, "bad .npy shape");
					break;
				}
			}
		} else if (lit_skip(&l) < 0) {
			return merr(c, entry, at, "bad .npy header value");
		}
		if (!eat(&l, ',')) {
			if (!eat(&l, '}'))
				return merr(c, entry, (uint64_t)(l.p - (const char *)p),
					    "bad .npy header: expected ',' or '}'");
			break;
		}
	}
	if ((!descr && !record) || !have_shape)
		return merr(c, entry, pre, "bad .npy header: no descr or shape");
	struct dl_tensor *t = model_add(c->m, name, namelen);
	const char *why;
	if (tensor_set_shape(t, dims, nd, &why) < 0)
		return merr(c, entry, pre, "%s", why);
	int64_t elem = 0;
	if (record) {
		t->dtype = "record";
		t->role = DL_ROLE_OTHER;
	} else {
		const char *d = descr;
		size_t dl = dlen;
		if (dl && (*d == '<' || *d == '>' || *d == '|' || *d == '='))
			d++, dl--;
		t->role = DL_ROLE_OTHER;
		for (size_t i = 0; i < DL_ARRAY_SIZE(npy_types); i++)
			if (strlen(npy_types[i].descr) == dl &&
			    !memcmp(d, npy_types[i].descr, dl)) {
				t->dtype = npy_types[i].dtype;
				elem = 0; /* the byte count after the kind letter */
				for (size_t k = 1; k < dl; k++)
					elem = elem * 10 + (d[k] - '0');
				if (t->role == DL_ROLE_OTHER)
					t->role = role_from_name(t->name);
			}
		if (!elem && npy_other(d, dl, &t->dtype, &elem) < 0)
			return merr(c, entry, pre, "unknown .npy dtype '%.*s'", (int)dlen, descr);
	}
	tensor_set_bytes(t, elem);
	if (t->bytes >= 0 && (uint64_t)t->bytes > total - pre - hlen)
		return merr(
			c, entry, pre + hlen,
			"declared size %lld bytes is larger than the %llu bytes of data present",
			(long long)t->bytes, (unsigned long long)(total - pre - hlen));
	return 0;
}

int read_npy(struct mctx *c)
{
	/* the array is named after the file */
	const char *b = strrchr(c->file, '/');
	b = b ? b + 1 : c->file;
	size_t len = strlen(b);
	if (len > 4 && !strcmp(b + len - 4, ".npy"))
		len -= 4;
	return npy_header(c, NULL, c->base, c->size, c->size, len ? b : "array", len ? len : 5);
}

int read_npz(struct mctx *c, struct zip *z)
{
	for (size_t i = 0; i < z->n; i++) {
		const struct zip_entry *e = &z->e[i];
		size_t nl = strlen(e->name);
		if (nl < 4 || strcmp(e->name + nl - 4, ".npy"))
			continue;
		const unsigned char *d;
		size_t len;
		unsigned char *owned;
		/* the fixed part first, then exactly the header: never the array data */
		if (zip_read_prefix(c, e, 12, &d, &len, &owned) < 0)
			return -1;
		size_t want = 12;
		if (len >= 10 && !memcmp(d, "\x93NUMPY", 6))
			want = d[6] == 1 ? 10 + (size_t)rd16(d + 8)
			       : len >= 12
				       ? 12 + (size_t)(rd32(d + 8) > NPY_MAX_HEADER ? NPY_MAX_HEADER
										    : rd32(d + 8))
				       : 12;
		if (want > len) {
			free(owned);
			if (zip_read_prefix(c, e, want, &d, &len, &owned) < 0)
				return -1;
		}
		int rc = npy_header(c, e->name, d, len, e->usize, e->name, nl - 4);
		free(owned);
		if (rc < 0)
			return -1;
	}
	return 0;
}
