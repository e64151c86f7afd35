/*
 * fuzz_num.c: dl_fmt_double must equal the reference snprintf+strtod
 * implementation byte for byte. Each 8 bytes of input are a double (raw bits,
 * then with the exponent folded into the normal range and as a neighbour);
 * the input as text, if it parses with strtod, is one more value.
 * Any difference aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"
#include "core/num_internal.h"

static void check(double v)
{
	char fast[DL_NUM_BUF], slow[DL_NUM_BUF];
	int nf = dl_fmt_double(fast, v);
	int ns = dl_fmt_double_slow(slow, v);
	if (nf != ns || strcmp(fast, slow)) {
		fprintf(stderr, "fuzz_num: %a: fast '%s' (%d) != slow '%s' (%d)\n", v, fast, nf,
			slow, ns);
		abort();
	}
}

static void check_bits(uint64_t b)
{
	double v;
	memcpy(&v, &b, sizeof(v));
	check(v);
	/* the same digits with an exponent around 2^-30..2^60, where most output lies */
	uint64_t folded = (b & 0x800fffffffffffffu) | ((uint64_t)(0x3e1 + (b >> 52) % 90) << 52);
	memcpy(&v, &folded, sizeof(v));
	check(v);
	folded++;
	memcpy(&v, &folded, sizeof(v));
	check(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i + 8 <= size; i += 8) {
		uint64_t b;
		memcpy(&b, data + i, sizeof(b));
		check_bits(b);
	}
	if (size > 0 && size < 64) {
		char s[64];
		memcpy(s, data, size);
		s[size] = 0;
		char *end;
		double v = strtod(s, &end);
		if (end != s)
			check(v);
	}
	return 0;
}
