/*
 * fuzz_model.h: the body shared by the fuzz_model_*.c targets, one per model
 * reader. Any input must give either a tensor list or a one-line error that
 * names the file; the profile of a parsed list must be within its bounds.
 */
#ifndef FUZZ_MODEL_H
#define FUZZ_MODEL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

static int fuzz_model(const uint8_t *data, size_t size, enum dl_model_format fmt)
{
	struct dl_model m = DL_MODEL_INIT;
	struct dl_err err = DL_ERR_INIT;
	if (dl_model_parse("fuzz.bin", data, size, fmt, &m, &err) < 0) {
		if (strncmp(err.msg, "fuzz.bin: ", 10) || strchr(err.msg, '\n') || m.n)
			abort();
		return 0;
	}
	for (int all = 0; all < 2; all++) {
		struct dl_profile p;
		dl_profile_model(&m, 3, 2.0, all, &p);
		if (p.largest_share < 0 || p.largest_share > 1 || p.skew_rr < 0 ||
		    p.skew_rr > 3 + 1e-9 || p.skew_greedy < 0 || p.skew_greedy > 3 + 1e-9 ||
		    p.sensitivity < 0 || p.sensitivity > 1)
			abort();
	}
	for (size_t i = 0; i < m.n; i++)
		if (!m.t[i].name || m.t[i].numel < 0 || m.t[i].ndim < 0 ||
		    m.t[i].ndim > DL_MODEL_MAX_DIMS)
			abort();
	dl_model_release(&m);
	return 0;
}

#endif
