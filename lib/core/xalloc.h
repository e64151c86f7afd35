/*
 * xalloc.h: allocation that never returns NULL.
 *
 * Running out of memory is the one condition dlsched does not recover from:
 * these print "dlsched: out of memory" on stderr and abort(). Everything they
 * return is freed with free() by the caller. Size arithmetic is checked.
 */
#ifndef DL_XALLOC_H
#define DL_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/* realloc to nmemb*size bytes, aborting on overflow */
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Grow an array: ensures (*alloc) >= need, doubling; returns the new pointer. */
#define DL_GROW(ptr, need, alloc)                                                 \
	do {                                                                      \
		if ((need) > (alloc)) {                                           \
			size_t dl_grow_n_ = (alloc) ? (alloc)*2 : 16;             \
			while (dl_grow_n_ < (need))                               \
				dl_grow_n_ *= 2;                                  \
			(ptr) = xreallocarray((ptr), dl_grow_n_, sizeof(*(ptr))); \
			(alloc) = dl_grow_n_;                                     \
		}                                                                 \
	} while (0)

#endif
