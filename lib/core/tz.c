/* tz.c: time zone names the C library knows (see tz.h) */
#include "core/tz.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/common.h"

/* a regular file that starts with the TZif magic */
static int is_tzif(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct stat st;
	char magic[4];
	int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		 read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
		 !memcmp(magic, "TZif", 4);
	close(fd);
	return ok;
}

static int is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* a POSIX zone name: three or more letters, or <...> of letters, digits, '+' and '-' */
static const char *posix_name(const char *p)
{
	const char *s = p;
	if (*p == '<') {
		for (s = ++p; *p && *p != '>'; p++)
			if (!is_alpha(*p) && !is_digit(*p) && *p != '+' && *p != '-')
				return NULL;
		return *p == '>' && p - s >= 3 ? p + 1 : NULL;
	}
	while (is_alpha(*p))
		p++;
	return p - s >= 3 ? p : NULL;
}

/* [+-]hh[:mm[:ss]] */
static const char *posix_offset(const char *p)
{
	if (*p == '+' || *p == '-')
		p++;
	for (int part = 0; part < 3; part++) {
		if (part && *p != ':')
			break;
		if (part)
			p++;
		if (!is_digit(*p))
			return NULL;
		p += is_digit(p[1]) ? 2 : 1;
	}
	return p;
}

/* std offset [dst [offset] [,rule[,rule]]] */
static int is_posix_tz(const char *p)
{
	if (!(p = posix_name(p)) || !(p = posix_offset(p)))
		return 0;
	if (!*p)
		return 1;
	if (!(p = posix_name(p)))
		return 0;
	if (*p && *p != ',' && !(p = posix_offset(p)))
		return 0;
	if (!*p)
		return 1;
	if (*p != ',')
		return 0;
	/* the rules: Jn, n or Mm.w.d, each with an optional /time */
	return strspn(p, "0123456789JM.,/:+-") == strlen(p);
}

/* a relative tz database name: no "..", no empty component, only these characters */
static int is_db_name(const char *s)
{
	if (!*s || strstr(s, "..") || strstr(s, "//") || s[strlen(s) - 1] == '/')
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+-/") ==
	       strlen(s);
}

int dl_tz_check(const char *tz, struct dl_err *err)
{
	const char *name = tz[0] == ':' ? tz + 1 : tz;
	if (!strcmp(name, "UTC") || !strcmp(name, "GMT") || is_posix_tz(name))
		return 0;
	if (name[0] == '/') {
		if (is_tzif(name))
			return 0;
		return dl_err_set(err, DL_EXIT_USAGE,
				  "unknown time zone '%s' (not a tz database file)", tz);
	}
	const char *dir = getenv("TZDIR");
	if (!dir || !*dir)
		dir = "/usr/share/zoneinfo";
	if (is_db_name(name)) {
		struct strbuf path = STRBUF_INIT;
		sb_addf(&path, "%s/%s", dir, name);
		int ok = is_tzif(path.buf);
		sb_release(&path);
		if (ok)
			return 0;
	}
	return dl_err_set(err, DL_EXIT_USAGE,
			  "unknown time zone '%s' (not in the tz database at %s, nor a POSIX TZ "
			  "string such as EST5EDT)",
			  tz, dir);
}
