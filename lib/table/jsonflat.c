#include "table/jsonflat.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int read_hex4(const char *p, const char *end, unsigned *out)
{
	if (end - p < 4)
		return -1;
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(p[i]);
		if (h < 0)
			return -1;
		v = v << 4 | (unsigned)h;
	}
	*out = v;
	return 0;
}

static void add_utf8(struct strbuf *sb, unsigned cp)
{
	if (cp < 0x80) {
		sb_addc(sb, (int)cp);
	} else if (cp < 0x800) {
		sb_addc(sb, (int)(0xC0 | cp >> 6));
		sb_addc(sb, (int)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		sb_addc(sb, (int)(0xE0 | cp >> 12));
		sb_addc(sb, (int)(0x80 | ((cp >> 6) & 0x3F)));
		sb_addc(sb, (int)(0x80 | (cp & 0x3F)));
	} else {
		sb_addc(sb, (int)(0xF0 | cp >> 18));
		sb_addc(sb, (int)(0x80 | ((cp >> 12) & 0x3F)));
		sb_addc(sb, (int)(0x80 | ((cp >> 6) & 0x3F)));
		sb_addc(sb, (int)(0x80 | (cp & 0x3F)));
	}
}

/* p at the opening quote; decodes into sb; returns the position after the closing quote */
static const char *read_string(const char *p, const char *end, struct strbuf *sb)
{
	sb_reset(sb);
	p++;
	for (;;) {
		const char *q = p;
		while (q < end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20 &&
		       (unsigned char)*q < 0x80)
			q++;
		sb_add(sb, p, (size_t)(q - p));
		p = q;
		if (p >= end)
			return NULL;
		unsigned char c = (unsigned char)*p;
		if (c == '"')
			return p + 1;
		if (c < 0x20)
			return NULL;
		if (c >= 0x80)
			return NULL; /* non-ASCII: let jansson validate the UTF-8 */
		/* backslash escape */
		if (++p >= end)
			return NULL;
		switch (*p) {
		case '"':
		case '\\':
		case '/':
			sb_addc(sb, *p);
			break;
		case 'b':
			sb_addc(sb, '\b');
			break;
		case 'f':
			sb_addc(sb, '\f');
			break;
		case 'n':
			sb_addc(sb, '\n');
			break;
		case 'r':
			sb_addc(sb, '\r');
			break;
		case 't':
			sb_addc(sb, '\t');
			break;
		case 'u': {
			unsigned cp, lo;
			if (read_hex4(p + 1, end, &cp))
				return NULL;
			p += 4;
			if (cp == 0)
				return NULL; /* NUL inside a field: full parser decides */
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				if (end - p < 7 || p[1] != '\\' || p[2] != 'u' ||
				    read_hex4(p + 3, end, &lo) || lo < 0xDC00 || lo > 0xDFFF)
					return NULL;
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				p += 6;
			} else if (cp >= 0xDC00 && cp <= 0xDFFF) {
				return NULL;
			}
			add_utf8(sb, cp);
			break;
		}
		default:
			return NULL;
		}
		p++;
	}
}

/* a JSON number at p; the same text as the jansson path gives, into sb */
static const char *read_number(const char *p, const char *end, struct strbuf *sb)
{
	const char *s = p;
	int real = 0;
	if (p < end && *p == '-')
		p++;
	if (p >= end)
		return NULL;
	if (*p == '0') {
		p++;
	} else if (*p >= '1' && *p <= '9') {
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	} else {
		return NULL;
	}
	if (p < end && *p == '.') {
		real = 1;
		p++;
		if (p >= end || !(*p >= '0' && *p <= '9'))
			return NULL;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		real = 1;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || !(*p >= '0' && *p <= '9'))
			return NULL;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	size_t n = (size_t)(p - s);
	char tmp[64];
	if (n >= sizeof(tmp))
		return NULL;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	char out[DL_NUM_BUF];
	sb_reset(sb);
	if (!real) {
		errno = 0;
		long long v = strtoll(tmp, NULL, 10);
		if (errno)
			return NULL; /* jansson rejects it; let it say so */
		dl_fmt_int64(out, v);
	} else {
		errno = 0;
		double v = strtod(tmp, NULL);
		if (errno || !isfinite(v))
			return NULL;
		dl_fmt_double(out, v);
	}
	sb_addstr(sb, out);
	return p;
}

int dl_json_flat_parse(const char *s, size_t len, struct strbuf *key, struct strbuf *val,
		       dl_json_member_fn on_member, void *ud)
{
	const char *p = s, *end = s + len;
	p = skip_ws(p, end);
	if (p >= end || *p != '{')
		return 0;
	p = skip_ws(p + 1, end);
	if (p < end && *p == '}')
		return skip_ws(p + 1, end) == end;
	for (;;) {
		if (p >= end || *p != '"')
			return 0;
		p = read_string(p, end, key);
		if (!p)
			return 0;
		p = skip_ws(p, end);
		if (p >= end || *p != ':')
			return 0;
		p = skip_ws(p + 1, end);
		if (p >= end)
			return 0;
		switch (*p) {
		case '"':
			p = read_string(p, end, val);
			break;
		case 't':
			if (end - p < 4 || memcmp(p, "true", 4))
				return 0;
			sb_reset(val);
			sb_addstr(val, "true");
			p += 4;
			break;
		case 'f':
			if (end - p < 5 || memcmp(p, "false", 5))
				return 0;
			sb_reset(val);
			sb_addstr(val, "false");
			p += 5;
			break;
		case 'n':
			if (end - p < 4 || memcmp(p, "null", 4))
				return 0;
			sb_reset(val);
			p += 4;
			break;
		default:
			p = read_number(p, end, val);
		}
		if (!p)
			return 0;
		if (on_member(ud, key->buf, key->len, val->buf, val->len))
			return -1;
		p = skip_ws(p, end);
		if (p < end && *p == ',') {
			p = skip_ws(p + 1, end);
			continue;
		}
		if (p < end && *p == '}')
			return skip_ws(p + 1, end) == end;
		return 0;
	}
}

void dl_json_value_text(struct strbuf *sb, json_t *v)
{
	char num[DL_NUM_BUF];
	switch (json_typeof(v)) {
	case JSON_STRING:
		sb_add(sb, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		dl_fmt_int64(num, (int64_t)json_integer_value(v));
		sb_addstr(sb, num);
		break;
	case JSON_REAL:
		dl_fmt_double(num, json_real_value(v));
		sb_addstr(sb, num);
		break;
	case JSON_TRUE:
		sb_addstr(sb, "true");
		break;
	case JSON_FALSE:
		sb_addstr(sb, "false");
		break;
	case JSON_NULL:
		break;
	default: {
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
		if (s) {
			sb_addstr(sb, s);
			free(s);
		}
	}
	}
}
