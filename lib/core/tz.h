/*
 * tz.h: is a TZ value a time zone the C library will really use?
 *
 * glibc reads an unknown zone name ("Mars/Olympus") as UTC without a word,
 * so dates would be shifted silently. A value is accepted when it names a
 * TZif file of the tz database ($TZDIR, else /usr/share/zoneinfo; an
 * absolute path names the file itself; a leading ':' is ignored), is "UTC"
 * or "GMT", or is a POSIX TZ string (std offset [dst [offset] [,rule]], e.g.
 * "EST5EDT", "<+0530>-5:30"). Nothing here allocates or keeps state.
 */
#ifndef DL_TZ_H
#define DL_TZ_H

#include "core/err.h"

/* 0 if tz is usable, else -1 with "unknown time zone 'TZ' (...)" (exit code 2: usage) */
int dl_tz_check(const char *tz, struct dl_err *err);

#endif
