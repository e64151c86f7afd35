/*
 * common.h: what every dlsched source file includes first.
 *
 * Owns the exit codes shared by the whole program and the attribute macros.
 * Nothing here allocates.
 */
#ifndef DL_COMMON_H
#define DL_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes, documented in dlsched(1) EXIT STATUS. */
enum dl_exit {
	DL_EXIT_OK = 0,	   /* success */
	DL_EXIT_DATA = 1,  /* bad input data, I/O or write error */
	DL_EXIT_USAGE = 2, /* bad command line */
	DL_EXIT_NOSOL = 3, /* the solver found no solution (infeasible, unbounded, limit) */
};

#define DL_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#define DL_UNUSED			__attribute__((unused))
#define DL_ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#include "core/xalloc.h"
#include "core/strbuf.h"
#include "core/err.h"

#endif
