/*
 * fuzz_util.h: what the fuzz targets share. The readers under test take a
 * path, so the input bytes go into an anonymous memory file (memfd) named by
 * /proc/self/fd/N. The caller closes the returned descriptor.
 */
#ifndef DL_FUZZ_UTIL_H
#define DL_FUZZ_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* data in a memory file; path receives its name; returns the fd or -1 */
static inline int to_fd_path(const uint8_t *data, size_t size, char path[64])
{
	int fd = memfd_create("fuzz", 0);
	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, 64, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
