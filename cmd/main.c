/*
 * main.c: the command table and dispatch.
 *
 * `dlsched CMD ARGS`, `dlsched help CMD` (the man page on a terminal, else
 * the command's --help), `dlsched-CMD ARGS` (a symlink or a
 * copy named after the command), `dlsched --help`, `dlsched --version`, and
 * the hidden `dlsched --list-commands` used by the shell completions.
 */
#include <csv.h>
#include <errno.h>
#include <fcntl.h>
#include <glpk.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "cmd.h"

#ifndef DLSCHED_VERSION
#define DLSCHED_VERSION "unknown"
#endif

#define DL_CMD(name, summary) DL_COMMAND(name, summary);
#include "commands.h"
#undef DL_CMD

struct dl_cmd {
	const char *name;
	int (*fn)(int argc, char **argv, struct dl_ctx *ctx);
	const char *summary;
};

/* generated from the DL_COMMAND lines of the cmd/ sources, sorted by name */
static const struct dl_cmd commands[] = {
#define DL_CMD(name, summary) {#name, cmd_##name, summary},
#include "commands.h"
#undef DL_CMD
};

static const struct dl_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < DL_ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* "dlsched: 'simulat' is not a dlsched command (did you mean 'simulate'?)" */
static int unknown_command(const char *name)
{
	struct dl_suggest sug;
	dl_suggest_init(&sug, name);
	for (size_t i = 0; i < DL_ARRAY_SIZE(commands); i++)
		dl_suggest_add(&sug, commands[i].name);
	if (sug.best)
		fprintf(stderr,
			"dlsched: '%s' is not a dlsched command (did you mean '%s'?); see 'dlsched "
			"--help'\n",
			name, sug.best);
	else
		fprintf(stderr, "dlsched: '%s' is not a dlsched command; see 'dlsched --help'\n",
			name);
	return DL_EXIT_USAGE;
}

/* does `man -w PAGE` find the page (quietly) */
static int man_has_page(const char *page)
{
	pid_t pid = fork();
	if (pid < 0)
		return 0;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execlp("man", "man", "-w", page, (char *)NULL);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * `dlsched help CMD`, as git does: the man page when a person reads it on a
 * terminal and man has the page, else the command's --help.
 */
static void show_man_page(const char *cmdname)
{
	char page[64];
	snprintf(page, sizeof(page), "dlsched-%s", cmdname);
	if (!isatty(STDOUT_FILENO) || !man_has_page(page))
		return;
	fflush(NULL);
	execlp("man", "man", page, (char *)NULL);
	/* exec failed: fall back to --help */
}

static void print_usage(FILE *fp)
{
	fputs("usage: dlsched [--version] [--help] COMMAND [ARGS]\n"
	      "   or: dlsched help COMMAND\n\n"
	      "GPU-cluster scheduling for deep learning: profile models, import and generate\n"
	      "traces, order queues, place and allocate jobs, simulate clusters, report.\n\n"
	      "commands:\n",
	      fp);
	for (size_t i = 0; i < DL_ARRAY_SIZE(commands); i++)
		fprintf(fp, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fputs("\nCommon options: -f/--format csv|json, -o/--output PATH, --input-format,\n"
	      "-q/--quiet, -v/--verbose, -h/--help. See dlsched(1) and 'dlsched help COMMAND'.\n",
	      fp);
}

static void print_version(void)
{
	printf("dlsched %s\n", DLSCHED_VERSION);
	printf("libcsv %d.%d.%d, zlib %s, GLPK %s, jansson %s\n", CSV_MAJOR, CSV_MINOR, CSV_RELEASE,
	       zlibVersion(), glp_version(), JANSSON_VERSION);
}

/* git's run_builtin check: data that never reached stdout is an error */
static int finish_stdout(const char *cmdname, int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno == EPIPE)
			return rc;
		fprintf(stderr, "dlsched %s: write error on standard output: %s\n", cmdname,
			strerror(errno));
		return rc ? rc : DL_EXIT_DATA;
	}
	return rc;
}

/* the command running, for the out-of-memory message */
static const char *running = "dlsched";

/*
 * lib/'s out-of-memory handler (core/xalloc.h): a one-line error, exit 1, no
 * -o file left behind. It must not allocate, and it skips exit() so that no
 * atexit work (stdio flushes, the leak checker) runs on a half-done state.
 */
static void out_of_memory(size_t size)
{
	char msg[200];
	int n;
	dl_out_discard_pending();
	if (size == SIZE_MAX)
		n = snprintf(msg, sizeof(msg), "%s: out of memory (allocation size overflows)\n",
			     running);
	else if (size == 0)
		n = snprintf(msg, sizeof(msg), "%s: out of memory (in zlib)\n", running);
	else
		n = snprintf(msg, sizeof(msg), "%s: out of memory (allocating %zu bytes)\n",
			     running, size);
	if (n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0) {
		/* nothing more to do: we are exiting */
	}
	_exit(DL_EXIT_DATA);
}

static int run_command(const struct dl_cmd *cmd, int argc, char **argv)
{
	struct dl_ctx ctx = {0};
	static char name[64];
	snprintf(name, sizeof(name), "dlsched %s", cmd->name);
	running = name;
	ctx.cmdname = cmd->name;
	ctx.stderr_is_tty = isatty(STDERR_FILENO);
	static char outbuf[1 << 16];
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	int rc = cmd->fn(argc, argv, &ctx);
	rc = finish_stdout(cmd->name, rc);
	glp_free_env();
	return rc;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

int main(int argc, char **argv)
{
	glp_term_out(GLP_OFF); /* GLPK must never write to our stdout */
	dl_set_oom_handler(out_of_memory);
	json_set_alloc_funcs(xmalloc, free); /* jansson runs out of memory like we do */
	const char *self = argc > 0 ? base_name(argv[0]) : "dlsched";
	if (!strncmp(self, "dlsched-", 8)) {
		const struct dl_cmd *cmd = find_command(self + 8);
		if (!cmd)
			return unknown_command(self + 8);
		return run_command(cmd, argc, argv);
	}
	if (argc < 2) {
		print_usage(stderr);
		return DL_EXIT_USAGE;
	}
	const char *a = argv[1];
	if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
		print_usage(stdout);
		return finish_stdout("help", 0);
	}
	if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
		print_version();
		return finish_stdout("version", 0);
	}
	if (!strcmp(a, "--man-options")) {
		/* the common options' entries, for dlsched(1) (man/splice.sh) */
		dl_print_common_man(stdout);
		return finish_stdout("help", 0);
	}
	if (!strcmp(a, "--list-commands")) {
		for (size_t i = 0; i < DL_ARRAY_SIZE(commands); i++)
			printf("%s\n", commands[i].name);
		printf("help\n");
		return finish_stdout("help", 0);
	}
	if (!strcmp(a, "help")) {
		if (argc < 3) {
			print_usage(stdout);
			return finish_stdout("help", 0);
		}
		const struct dl_cmd *cmd = find_command(argv[2]);
		if (!cmd)
			return unknown_command(argv[2]);
		show_man_page(cmd->name);
		char *hargv[] = {argv[2], "--help", NULL};
		return run_command(cmd, 2, hargv);
	}
	if (a[0] == '-') {
		fprintf(stderr, "dlsched: unknown option '%s'; see 'dlsched --help'\n", a);
		return DL_EXIT_USAGE;
	}
	const struct dl_cmd *cmd = find_command(a);
	if (!cmd)
		return unknown_command(a);
	return run_command(cmd, argc - 1, argv + 1);
}
