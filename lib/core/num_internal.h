/*
 * num_internal.h: for tests only. The reference implementation of
 * dl_fmt_double (snprintf "%.15g"/"%.16g"/"%.17g" plus strtod), which defines
 * its output; dl_fmt_double must match it byte for byte.
 */
#ifndef DL_NUM_INTERNAL_H
#define DL_NUM_INTERNAL_H

#include "core/num.h"

int dl_fmt_double_slow(char buf[DL_NUM_BUF], double v);

#endif
