#include "core/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* process-wide by design (see xalloc.h): set once at start-up by cmd/ */
static dl_oom_handler oom_handler;

void dl_set_oom_handler(dl_oom_handler fn)
{
	oom_handler = fn;
}

void dl_out_of_memory(size_t size)
{
	if (oom_handler)
		oom_handler(size);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		dl_out_of_memory(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		dl_out_of_memory(SIZE_MAX);
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		dl_out_of_memory(nmemb * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		dl_out_of_memory(size);
	return p;
}

void *xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		dl_out_of_memory(SIZE_MAX);
	return xrealloc(ptr, nmemb * size);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}
