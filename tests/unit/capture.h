/*
 * capture.h: standard output and error of a call sent to temporary files,
 * for the unit tests that check what a library call printed (it must print
 * nothing) or what a parser wrote to stderr.
 *
 *   struct capture c;  capture_begin(&c);  rc = call(...);  capture_end(&c);
 *   capture_text(&c, 2, buf, sizeof(buf));  capture_free(&c);
 *
 * Header-only, like tap.h. Stream 1 is standard output, 2 standard error.
 */
#ifndef DL_TEST_CAPTURE_H
#define DL_TEST_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct capture {
	char path[2][32];
	int fd[2], saved[2];
};

static inline void capture_begin(struct capture *c)
{
	fflush(stdout);
	fflush(stderr);
	for (int k = 0; k < 2; k++) {
		snprintf(c->path[k], sizeof(c->path[k]), "/tmp/dl-test-captureXXXXXX");
		c->fd[k] = mkstemp(c->path[k]);
		c->saved[k] = dup(k + 1);
		dup2(c->fd[k], k + 1);
	}
}

static inline void capture_end(struct capture *c)
{
	fflush(stdout);
	fflush(stderr);
	for (int k = 0; k < 2; k++) {
		dup2(c->saved[k], k + 1);
		close(c->saved[k]);
	}
}

/* the bytes stream `fd` (1 or 2) received; up to len - 1 of them, NUL-ended, in buf */
static inline long capture_text(const struct capture *c, int fd, char *buf, size_t len)
{
	ssize_t n = pread(c->fd[fd - 1], buf, len - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	return lseek(c->fd[fd - 1], 0, SEEK_END);
}

static inline void capture_free(struct capture *c)
{
	for (int k = 0; k < 2; k++) {
		close(c->fd[k]);
		unlink(c->path[k]);
	}
}

#endif
