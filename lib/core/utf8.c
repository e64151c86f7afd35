#include "core/utf8.h"

size_t dl_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned c = s[0];
	size_t len;
	uint32_t min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
		min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	uint32_t v = c & (0x3F >> (len - 1));
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	*cp = v;
	return len;
}
