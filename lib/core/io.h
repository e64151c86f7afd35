/*
 * io.h: reading inputs (files, stdin, gzip) and writing outputs atomically.
 *
 * struct dl_input reads a file or "-" (stdin), decompressing gzip
 * transparently (zlib passes plain data through unchanged). It owns its
 * buffer and name; dl_input_close() frees everything.
 *
 * struct dl_output writes either to stdout (path NULL or "-") or to a
 * temporary file beside PATH that dl_output_commit() puts in PATH's place, so
 * a failed run never leaves a partial file. On Linux the temporary is unnamed
 * (O_TMPFILE) and gets a name only at commit: linked as PATH when there is no
 * such file, else linked as .PATH.tmpXXXXXX and renamed over PATH at once, so
 * even SIGKILL leaves no name behind. Where the file system refuses O_TMPFILE
 * (or /proc is missing) the temporary is that named file from the start, and
 * dl_output_abort() (or the signal handlers, through dl_output_tmpname())
 * removes it. A PATH that exists and is not a regular file (/dev/null, a
 * FIFO), or names a descriptor (/dev/stdout, /proc/self/fd/N), is written in
 * place, since rename() would replace the device or the system's symlink. A
 * PATH that is a symlink to a file stays a symlink: the file it names is
 * replaced. Exactly one of commit/abort must be called; both free.
 */
#ifndef DL_IO_H
#define DL_IO_H

#include <stdio.h>
#include <sys/types.h>

#include "core/err.h"
#include "core/strbuf.h"

/* the longest line (or CSV record) any reader accepts: 64 MiB */
#define DL_LINE_MAX (64 << 20)

struct dl_input;

/* path NULL or "-" means standard input, shown as "<stdin>" in messages */
struct dl_input *dl_input_open(const char *path, struct dl_err *err);
const char *dl_input_name(const struct dl_input *in);
/* is it a regular file (whose reads never wait for a writer, unlike a pipe or terminal)? */
int dl_input_regular(const struct dl_input *in);
/* up to n bytes; returns bytes read, 0 at end of input, -1 on error */
ssize_t dl_input_read(struct dl_input *in, void *buf, size_t n, struct dl_err *err);
/*
 * Make at least `want` bytes visible without consuming them (fewer at end of
 * input). *data points into the input's buffer until the next read.
 */
int dl_input_peek(struct dl_input *in, size_t want, const unsigned char **data, size_t *len,
		  struct dl_err *err);
/*
 * One line without its "\n" (and without a "\r" before it); 1 = line, 0 = EOF,
 * -1 = error. A line longer than DL_LINE_MAX is an error "FILE:LINE: line
 * longer than the limit of 64 MiB" (LINE counts the lines this function read),
 * so memory stays bounded whatever the input.
 */
int dl_input_getline(struct dl_input *in, struct strbuf *line, struct dl_err *err);
void dl_input_close(struct dl_input *in);

/* Read a whole file (gzip transparently) into sb. Returns 0 or -1. */
int dl_read_file(const char *path, struct strbuf *sb, struct dl_err *err);
/*
 * The same for a document parsed whole (JSON), whose parse costs many times
 * its size: over max bytes (decompressed) is "FILE: larger than the limit of
 * N MiB for WHAT", read no further.
 */
int dl_read_file_max(const char *path, struct strbuf *sb, size_t max, const char *what,
		     struct dl_err *err);

struct dl_output;

struct dl_output *dl_output_open(const char *path, struct dl_err *err);
FILE *dl_output_fp(const struct dl_output *out);
const char *dl_output_name(const struct dl_output *out);
/* named temp file path while open (NULL for stdout, direct and unnamed); for signal-time cleanup */
const char *dl_output_tmpname(const struct dl_output *out);
int dl_output_commit(struct dl_output *out, struct dl_err *err);
void dl_output_abort(struct dl_output *out);

#endif
