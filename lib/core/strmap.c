#include "core/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"

uint64_t dl_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static struct strmap_slot *find(const struct strmap *m, const char *key, size_t len, uint64_t h)
{
	size_t mask = m->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct strmap_slot *s = &m->slots[i];
		if (!s->key)
			return s;
		if (s->hash == h && s->keylen == len && !memcmp(s->key, key, len))
			return s;
	}
}

int64_t *strmap_getn(const struct strmap *m, const char *key, size_t len)
{
	if (!m->cap)
		return NULL;
	struct strmap_slot *s = find(m, key, len, dl_hash_bytes(key, len));
	return s->key ? &s->value : NULL;
}

int64_t *strmap_get(const struct strmap *m, const char *key)
{
	return strmap_getn(m, key, strlen(key));
}

static void grow(struct strmap *m)
{
	struct strmap old = *m;
	m->cap = old.cap ? old.cap * 2 : 16;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	for (size_t i = 0; i < old.cap; i++) {
		struct strmap_slot *o = &old.slots[i];
		if (o->key)
			*find(m, o->key, o->keylen, o->hash) = *o;
	}
	free(old.slots);
}

int strmap_putn(struct strmap *m, const char *key, size_t len, int64_t value)
{
	if ((m->count + 1) * 4 >= m->cap * 3)
		grow(m);
	uint64_t h = dl_hash_bytes(key, len);
	struct strmap_slot *s = find(m, key, len, h);
	if (s->key) {
		s->value = value;
		return 0;
	}
	s->key = xstrndup(key, len);
	/* xstrndup stops at NUL; keys with embedded NULs keep their full length */
	if (memchr(key, '\0', len)) {
		free(s->key);
		s->key = xmalloc(len + 1);
		memcpy(s->key, key, len);
		s->key[len] = '\0';
	}
	s->keylen = len;
	s->hash = h;
	s->value = value;
	m->count++;
	return 1;
}

int strmap_put(struct strmap *m, const char *key, int64_t value)
{
	return strmap_putn(m, key, strlen(key), value);
}

void strmap_free(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
}
