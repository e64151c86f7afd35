/*
 * replay.c: run a libFuzzer target over a corpus without libFuzzer, so every
 * `make check` (gcc, ASan) replays the seed corpus and past crash reproducers.
 *   replay_NAME DIR_OR_FILE...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		perror(path);
		return 1;
	}
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len, fp)) > 0) {
		len += n;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(fp);
	if (!buf)
		return 1;
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int failed = 0, count = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			failed |= run_file(argv[i]);
			count++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		if (!d) {
			perror(argv[i]);
			return 1;
		}
		char **names = NULL;
		size_t nn = 0;
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			names = realloc(names, (nn + 1) * sizeof(*names));
			size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
			names[nn] = malloc(len);
			snprintf(names[nn], len, "%s/%s", argv[i], e->d_name);
			nn++;
		}
		closedir(d);
		if (nn)
			qsort(names, nn, sizeof(*names), cmp);
		for (size_t k = 0; k < nn; k++) {
			failed |= run_file(names[k]);
			count++;
			free(names[k]);
		}
		free(names);
	}
	printf("replayed %d inputs\n", count);
	return failed;
}
