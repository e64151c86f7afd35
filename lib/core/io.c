#include "core/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/common.h"

#define IN_BUFSZ (1 << 16)

struct dl_input {
	gzFile gz;
	char *name;
	unsigned char *buf;
	size_t cap, pos, len;
	int eof;
	int regular; /* a regular file (reading it never waits for a writer) */
	long lines;  /* lines returned by dl_input_getline so far */
};

struct dl_input *dl_input_open(const char *path, struct dl_err *err)
{
	int fd;
	const char *name;
	if (!path || !strcmp(path, "-")) {
		fd = dup(STDIN_FILENO);
		name = "<stdin>";
		if (fd < 0) {
			dl_err_set(err, DL_EXIT_DATA, "<stdin>: %s", strerror(errno));
			return NULL;
		}
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		name = path;
		if (fd < 0) {
			dl_err_set(err, DL_EXIT_DATA, "cannot open '%s': %s", path,
				   strerror(errno));
			return NULL;
		}
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
			close(fd);
			dl_err_set(err, DL_EXIT_DATA, "cannot read '%s': Is a directory", path);
			return NULL;
		}
	}
	gzFile gz = gzdopen(fd, "rb");
	if (!gz) {
		close(fd);
		dl_err_set(err, DL_EXIT_DATA, "%s: cannot open input", name);
		return NULL;
	}
	struct stat st;
	int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	gzbuffer(gz, 1 << 17);
	struct dl_input *in = xcalloc(1, sizeof(*in));
	in->regular = regular;
	in->gz = gz;
	in->name = xstrdup(name);
	in->cap = IN_BUFSZ;
	in->buf = xmalloc(in->cap);
	return in;
}

const char *dl_input_name(const struct dl_input *in)
{
	return in->name;
}

int dl_input_regular(const struct dl_input *in)
{
	return in->regular;
}

static int gz_fail(struct dl_input *in, struct dl_err *err)
{
	int zerr;
	const char *msg = gzerror(in->gz, &zerr);
	if (zerr == Z_ERRNO)
		return dl_err_at(err, in->name, 0, "read error: %s", strerror(errno));
	if (zerr == Z_MEM_ERROR)
		dl_out_of_memory(0); /* zlib's buffers: the size is zlib's */
	/* zlib names the stream after the descriptor ("<fd:5>: ..."): we name the file */
	if (msg && !strncmp(msg, "<fd:", 4) && strstr(msg, ">: "))
		msg = strstr(msg, ">: ") + 3;
	return dl_err_at(err, in->name, 0, "corrupt gzip data (%s)",
			 msg && *msg ? msg : "unknown error");
}

/* Append more bytes to the buffer after in->len; returns bytes added, 0 at EOF, -1 */
static ssize_t fill(struct dl_input *in, struct dl_err *err)
{
	if (in->eof)
		return 0;
	if (in->pos > 0 && in->pos == in->len) {
		in->pos = in->len = 0;
	} else if (in->pos > 0 && in->len == in->cap) {
		memmove(in->buf, in->buf + in->pos, in->len - in->pos);
		in->len -= in->pos;
		in->pos = 0;
	}
	if (in->len == in->cap) {
		in->cap *= 2;
		in->buf = xrealloc(in->buf, in->cap);
	}
	size_t room = in->cap - in->len;
	if (room > (1u << 30))
		room = 1u << 30;
	int n = gzread(in->gz, in->buf + in->len, (unsigned)room);
	if (n < 0)
		return gz_fail(in, err);
	if (n == 0) {
		int zerr;
		gzerror(in->gz, &zerr);
		if (zerr != Z_OK && zerr != Z_BUF_ERROR)
			return gz_fail(in, err);
		if (zerr == Z_BUF_ERROR)
			return dl_err_at(err, in->name, 0, "truncated gzip input");
		in->eof = 1;
		return 0;
	}
	in->len += (size_t)n;
	return n;
}

ssize_t dl_input_read(struct dl_input *in, void *buf, size_t n, struct dl_err *err)
{
	if (in->pos == in->len) {
		ssize_t r = fill(in, err);
		if (r <= 0)
			return r;
	}
	size_t avail = in->len - in->pos;
	if (avail > n)
		avail = n;
	memcpy(buf, in->buf + in->pos, avail);
	in->pos += avail;
	return (ssize_t)avail;
}

int dl_input_peek(struct dl_input *in, size_t want, const unsigned char **data, size_t *len,
		  struct dl_err *err)
{
	while (in->len - in->pos < want && !in->eof) {
		if (in->pos > 0) {
			memmove(in->buf, in->buf + in->pos, in->len - in->pos);
			in->len -= in->pos;
			in->pos = 0;
		}
		if (fill(in, err) < 0)
			return -1;
	}
	*data = in->buf + in->pos;
	*len = in->len - in->pos;
	return 0;
}

int dl_input_getline(struct dl_input *in, struct strbuf *line, struct dl_err *err)
{
	sb_reset(line);
	for (;;) {
		if (line->len > DL_LINE_MAX)
			return dl_err_at(err, in->name, in->lines + 1,
					 "line longer than the limit of %d MiB", DL_LINE_MAX >> 20);
		if (in->pos == in->len) {
			ssize_t r = fill(in, err);
			if (r < 0)
				return -1;
			if (r == 0) {
				if (line->len == 0)
					return 0;
				break;
			}
		}
		unsigned char *start = in->buf + in->pos;
		unsigned char *nl = memchr(start, '\n', in->len - in->pos);
		if (nl) {
			sb_add(line, start, (size_t)(nl - start));
			in->pos += (size_t)(nl - start) + 1;
			break;
		}
		sb_add(line, start, in->len - in->pos);
		in->pos = in->len;
	}
	if (line->len > DL_LINE_MAX)
		return dl_err_at(err, in->name, in->lines + 1,
				 "line longer than the limit of %d MiB", DL_LINE_MAX >> 20);
	if (line->len && line->buf[line->len - 1] == '\r')
		sb_setlen(line, line->len - 1);
	in->lines++;
	return 1;
}

void dl_input_close(struct dl_input *in)
{
	if (!in)
		return;
	gzclose(in->gz);
	free(in->name);
	free(in->buf);
	free(in);
}

int dl_read_file(const char *path, struct strbuf *sb, struct dl_err *err)
{
	return dl_read_file_max(path, sb, SIZE_MAX, NULL, err);
}

int dl_read_file_max(const char *path, struct strbuf *sb, size_t max, const char *what,
		     struct dl_err *err)
{
	struct dl_input *in = dl_input_open(path, err);
	if (!in)
		return -1;
	char buf[1 << 15];
	ssize_t n;
	size_t start = sb->len;
	while ((n = dl_input_read(in, buf, sizeof(buf), err)) > 0) {
		if ((size_t)n > max - (sb->len - start)) {
			n = dl_err_at(err, in->name, 0, "larger than the limit of %zu MiB for %s",
				      max >> 20, what ? what : "this file");
			break;
		}
		sb_add(sb, buf, (size_t)n);
	}
	dl_input_close(in);
	return n < 0 ? -1 : 0;
}

struct dl_output {
	FILE *fp;
	char *path;   /* NULL for stdout */
	char *tmp;    /* the named temporary (fallback); NULL for stdout, direct and unnamed */
	char *target; /* what the output becomes: path, or the file a symlink names */
	int direct;   /* path is not a regular file: written in place */
	int unnamed;  /* an O_TMPFILE file: it gets a name only at commit */
	char *buf;    /* fp's buffer (OUT_BUFSZ), freed after fp is closed */
};

/*
 * A file's stdio buffer: stdio's own is a block (4 KiB), so writing a million
 * results (120 MB) took 30,000 write calls (now 500), a few % of a run.
 */
#define OUT_BUFSZ (1 << 18)

/* a regular file's stream, with a buffer of OUT_BUFSZ (NULL: fdopen failed, errno set) */
static FILE *open_stream(struct dl_output *out, int fd)
{
	out->fp = fdopen(fd, "w");
	if (out->fp) {
		out->buf = xmalloc(OUT_BUFSZ);
		if (setvbuf(out->fp, out->buf, _IOFBF, OUT_BUFSZ) != 0) {
			/* stdio's own buffer then: slower, still right */
		}
	}
	return out->fp;
}

/*
 * An unnamed file in dir (Linux's O_TMPFILE), or -1 where the file system (or
 * the kernel) refuses one, or /proc, through which it is linked without
 * privileges, is missing: then the caller falls back to a named temporary.
 */
static int open_unnamed(const char *dir)
{
#ifdef O_TMPFILE
	int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666); /* umask applies */
	if (fd < 0)
		return -1;
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (access(proc, F_OK) != 0) {
		close(fd);
		return -1;
	}
	return fd;
#else
	(void)dir;
	return -1;
#endif
}

/* give the unnamed file fd the name `name`: 0, or -1 with errno (EEXIST when it exists) */
static int link_unnamed(int fd, const char *name)
{
#ifdef AT_EMPTY_PATH
	if (linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno == EEXIST)
		return -1;
#endif
	/* without CAP_DAC_READ_SEARCH: through the descriptor's name in /proc */
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
}

/* "DIR/.NAME.tmp" + 6 random characters for target "DIR/NAME" (not created) */
static void temp_name(struct strbuf *sb, const char *target, int random)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	const char *slash = strrchr(target, '/');
	sb_reset(sb);
	if (slash) {
		sb_add(sb, target, (size_t)(slash - target) + 1);
		sb_addf(sb, ".%s.tmp", slash + 1);
	} else {
		sb_addf(sb, ".%s.tmp", target);
	}
	if (!random) {
		sb_addstr(sb, "XXXXXX");
		return;
	}
	unsigned char r[6];
	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		/* no entropy yet: any spread will do, EEXIST makes the caller retry */
		unsigned long x = (unsigned long)getpid() * 2654435761u ^ (unsigned long)sb->len;
		for (size_t i = 0; i < sizeof(r); i++, x = x * 6364136223846793005u + 1)
			r[i] = (unsigned char)(x >> 33);
	}
	for (size_t i = 0; i < sizeof(r); i++)
		sb_addc(sb, chars[r[i] % (sizeof(chars) - 1)]);
}

/*
 * Name the unnamed file `target`. Where no file is there, it is linked there
 * directly; otherwise linked under a temporary name and renamed over the
 * target, so the name exists only between those two calls.
 */
static int commit_unnamed(int fd, const char *target)
{
	if (link_unnamed(fd, target) == 0)
		return 0;
	if (errno != EEXIST)
		return -1;
	struct strbuf tmp = STRBUF_INIT;
	int rc = -1;
	for (int attempt = 0; attempt < 100; attempt++) {
		temp_name(&tmp, target, 1);
		if (link_unnamed(fd, tmp.buf) == 0) {
			rc = rename(tmp.buf, target);
			if (rc != 0) {
				int saved = errno;
				unlink(tmp.buf);
				errno = saved;
			}
			break;
		}
		if (errno != EEXIST)
			break;
	}
	sb_release(&tmp);
	return rc;
}

struct dl_output *dl_output_open(const char *path, struct dl_err *err)
{
	struct dl_output *out = xcalloc(1, sizeof(*out));
	if (!path || !strcmp(path, "-")) {
		out->fp = stdout;
		return out;
	}
	struct stat st;
	int is_link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
	char *target = NULL;
	if (is_link && strncmp(path, "/dev/", 5) && strncmp(path, "/proc/", 6))
		target = realpath(path, NULL); /* NULL when dangling: written in place */
	if ((stat(path, &st) == 0 && !S_ISREG(st.st_mode)) || (is_link && !target)) {
		/*
		 * A device, FIFO or socket (/dev/null, a named pipe) cannot be
		 * replaced by rename(), nor can a descriptor's name (/dev/stdout,
		 * /proc/self/fd/1, which may name a regular file): renaming over it
		 * would replace the system's symlink. Write to it directly.
		 */
		free(target);
		if (S_ISDIR(st.st_mode)) {
			dl_err_set(err, DL_EXIT_DATA, "cannot write '%s': Is a directory", path);
			free(out);
			return NULL;
		}
		out->fp = fopen(path, "w");
		if (!out->fp) {
			dl_err_set(err, DL_EXIT_DATA, "cannot open '%s': %s", path,
				   strerror(errno));
			free(out);
			return NULL;
		}
		out->path = xstrdup(path);
		out->direct = 1;
		return out;
	}
	/* a symlink stays one: the file it names is replaced, beside which the temporary goes */
	const char *dest = target ? target : path;
	const char *slash = strrchr(dest, '/');
	struct strbuf tmp = STRBUF_INIT;
	if (slash)
		sb_add(&tmp, dest, slash > dest ? (size_t)(slash - dest) : 1);
	else
		sb_addc(&tmp, '.');
	int fd = open_unnamed(tmp.buf);
	if (fd >= 0) {
		sb_release(&tmp);
		if (!open_stream(out, fd)) {
			close(fd);
			dl_err_set(err, DL_EXIT_DATA, "cannot create '%s': %s", path,
				   strerror(errno));
			free(target);
			free(out);
			return NULL;
		}
		out->path = xstrdup(path);
		out->target = target ? target : xstrdup(path);
		out->unnamed = 1;
		return out;
	}
	temp_name(&tmp, dest, 0);
	fd = mkstemp(tmp.buf);
	if (fd < 0) {
		dl_err_set(err, DL_EXIT_DATA, "cannot create '%s': %s", path, strerror(errno));
		sb_release(&tmp);
		free(target);
		free(out);
		return NULL;
	}
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0) {
		/* keep going: mkstemp's 0600 is safe, merely stricter */
	}
	if (!open_stream(out, fd)) {
		close(fd);
		unlink(tmp.buf);
		dl_err_set(err, DL_EXIT_DATA, "cannot create '%s': %s", path, strerror(errno));
		sb_release(&tmp);
		free(target);
		free(out);
		return NULL;
	}
	out->path = xstrdup(path);
	out->tmp = sb_detach(&tmp);
	out->target = target ? target : xstrdup(path);
	return out;
}

FILE *dl_output_fp(const struct dl_output *out)
{
	return out->fp;
}

const char *dl_output_name(const struct dl_output *out)
{
	return out->path ? out->path : "<stdout>";
}

const char *dl_output_tmpname(const struct dl_output *out)
{
	return out->tmp;
}

static void output_free(struct dl_output *out)
{
	free(out->path);
	free(out->tmp);
	free(out->target);
	free(out->buf);
	free(out);
}

int dl_output_commit(struct dl_output *out, struct dl_err *err)
{
	int rc = 0;
	if (!out->path) {
		/* a reader that went away (EPIPE) is not an error: `dlsched ... | head` */
		if ((fflush(stdout) != 0 || ferror(stdout)) && errno != EPIPE) {
			rc = dl_err_set(err, DL_EXIT_DATA, "write error on standard output: %s",
					strerror(errno));
			/*
			 * Said once, here: what could not be written is dropped, so
			 * that the program's last flush of stdout has nothing to report.
			 */
			__fpurge(stdout);
			clearerr(stdout);
		}
		output_free(out);
		return rc;
	}
	int failed = fflush(out->fp) != 0 || ferror(out->fp);
	int saved = errno;
	/* an unnamed file lives while a descriptor does: one outlasts the close that reports */
	int keep = !failed && out->unnamed ? dup(fileno(out->fp)) : -1;
	if (!failed && out->unnamed && keep < 0) {
		failed = 1;
		saved = errno;
	}
	if (fclose(out->fp) != 0 && !failed) {
		failed = 1;
		saved = errno;
	}
	int linked = 0;
	if (!failed && keep >= 0) {
		linked = commit_unnamed(keep, out->target) == 0;
		if (!linked)
			saved = errno;
	}
	if (keep >= 0)
		close(keep);
	if (failed) {
		if (out->tmp)
			unlink(out->tmp);
		rc = dl_err_set(err, DL_EXIT_DATA, "write error on '%s': %s", out->path,
				strerror(saved));
	} else if (out->direct) {
		/* nothing to rename */
	} else if (out->unnamed) {
		if (!linked)
			rc = dl_err_set(err, DL_EXIT_DATA, "cannot write '%s': %s", out->path,
					strerror(saved));
	} else if (rename(out->tmp, out->target) != 0) {
		saved = errno;
		unlink(out->tmp);
		rc = dl_err_set(err, DL_EXIT_DATA, "cannot write '%s': %s", out->path,
				strerror(saved));
	}
	output_free(out);
	return rc;
}

void dl_output_abort(struct dl_output *out)
{
	if (!out)
		return;
	if (out->path) {
		fclose(out->fp);
		if (out->tmp)
			unlink(out->tmp);
	} else {
		fflush(stdout);
	}
	output_free(out);
}
