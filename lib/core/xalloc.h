/*
 * xalloc.h: allocation that never returns NULL.
 *
 * Running out of memory is the one condition dlsched does not recover from
 * where it happens: instead of returning NULL, these call the out-of-memory
 * handler that the program installed with dl_set_oom_handler(). cmd/
 * installs one (like git's die routine) that removes any pending -o
 * temporary file, prints "dlsched CMD: out of memory (...)" and exits 1.
 * lib/ itself never prints or exits: without a handler (unit tests, fuzz
 * targets) a failed allocation calls abort(), and so does a handler that
 * returns. Size arithmetic is checked: an overflowing request counts as out
 * of memory.
 *
 * The handler is the one piece of process-wide state in lib/: set it once at
 * start-up, before any work. Everything the functions return is freed with
 * free() by the caller.
 */
#ifndef DL_XALLOC_H
#define DL_XALLOC_H

#include <stddef.h>

/*
 * Called with the size that could not be allocated (SIZE_MAX when the
 * requested size overflows, 0 when a library's allocation failed: zlib);
 * must not return.
 */
typedef void (*dl_oom_handler)(size_t size);
void dl_set_oom_handler(dl_oom_handler fn);
/* Call the handler for a failed allocation of size bytes (for other allocators' failures). */
void dl_out_of_memory(size_t size) __attribute__((noreturn));

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/* realloc to nmemb*size bytes; an overflowing product is out of memory */
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
