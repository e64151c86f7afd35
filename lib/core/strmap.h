/*
 * strmap.h: a string -> integer hash map (open addressing, FNV-1a).
 *
 * Keys are copied into the map and freed by strmap_free(). Values are any
 * int64. Iteration order is unspecified; nothing in dlsched's output may
 * depend on it.
 */
#ifndef DL_STRMAP_H
#define DL_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
	char *key; /* NULL = empty */
	size_t keylen;
	uint64_t hash;
	int64_t value;
};

struct strmap {
	struct strmap_slot *slots;
	size_t cap; /* power of two */
	size_t count;
};

#define STRMAP_INIT        \
	{                  \
		NULL, 0, 0 \
	}

uint64_t dl_hash_bytes(const void *data, size_t len);
/* value for key, or NULL */
int64_t *strmap_getn(const struct strmap *m, const char *key, size_t len);
int64_t *strmap_get(const struct strmap *m, const char *key);
/* insert or overwrite; returns 1 if the key was new, 0 if replaced */
int strmap_putn(struct strmap *m, const char *key, size_t len, int64_t value);
int strmap_put(struct strmap *m, const char *key, int64_t value);
void strmap_free(struct strmap *m);

#endif
