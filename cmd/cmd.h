/*
 * cmd.h: what every command front end shares.
 *
 * Adding a command `foo`:
 *   1. write cmd/foo.c with `DL_COMMAND(foo, "one-line summary")` followed by
 *      the function body (the build collects these lines into the command
 *      table; keep the macro call on one line, at the start of the line);
 *   2. describe its options in a `struct dl_opt[]` and parse them with
 *      dl_opt_begin()/dl_opt_next(), so --help, --list-options and the shell
 *      completions all come from that one table;
 *   3. put the work in lib/, keep cmd/foo.c to parsing, I/O and exit codes;
 *   4. write man/dlsched-foo.1.scd, tests/cli/t_foo.sh, a README example.
 *
 * Nothing here owns memory beyond a call, except struct dl_optstate, which
 * dl_opt_end() frees.
 */
#ifndef DL_CMD_H
#define DL_CMD_H

#include <getopt.h>
#include <stdio.h>

#include "core/common.h"
#include "core/io.h"
#include "table/table.h"

struct dl_ctx {
	const char *cmdname; /* "simulate"; used in every diagnostic */
	enum dl_out_format format;
	int format_set; /* -f given */
	enum dl_in_format in_format;
	const char *output; /* -o PATH, NULL = stdout */
	int verbose;	    /* count of -v */
	int quiet;
	int stderr_is_tty;
	int dry_run; /* check the options, then return 0 before reading or writing data (sweep) */
};

#define DL_COMMAND(name, summary) int cmd_##name(int argc, char **argv, struct dl_ctx *ctx)

/* One option of a command. */
struct dl_opt {
	int id;		  /* the short letter, or a value >= 256 for long-only options */
	const char *name; /* long name without "--" */
	const char *arg;  /* NULL for a flag, else the argument's name in --help ("SPEC") */
	const char *help; /* one line for --help */
};

/* ids of the common options that commands may want to see */
enum {
	DL_OPT_INPUT_FORMAT = 200,
	DL_OPT_LIST_OPTIONS,
	DL_OPT_FIRST_FREE = 256,
};

/* Flags of struct dl_cmd_spec */
enum {
	DL_SPEC_NO_IO = 1 << 0, /* no -f/-o/--input-format (the command writes no stream) */
};

struct dl_cmd_spec {
	const char *usage;	   /* one or more "dlsched foo ..." lines, '\n'-separated */
	const char *description;   /* shown under the usage in --help */
	const struct dl_opt *opts; /* terminated by an entry with id 0 */
	unsigned flags;
};

struct dl_optstate {
	struct dl_ctx *ctx;
	const struct dl_cmd_spec *spec;
	int argc;
	char **argv;
	struct option *longopts;
	char *shortopts;
	int optind; /* after the loop: index of the first positional argument */
	int exit_code;
};

/* dl_opt_next results besides an option id */
#define DL_OPT_DONE 0  /* no more options; positional arguments start at st->optind */
#define DL_OPT_EXIT -1 /* --help or a usage error was handled: return st->exit_code */

void dl_opt_begin(struct dl_optstate *st, struct dl_ctx *ctx, int argc, char **argv,
		  const struct dl_cmd_spec *spec);
int dl_opt_next(struct dl_optstate *st, const char **arg);
void dl_opt_end(struct dl_optstate *st);
/* the positional input files after the options, or just "-" (standard input) when none */
char **dl_opt_inputs(const struct dl_optstate *st, int *n);
/* print the command's help (for "dlsched help CMD") */
void dl_print_help(const struct dl_ctx *ctx, const struct dl_cmd_spec *spec, FILE *fp);

/* Diagnostics, on stderr, prefixed "dlsched CMD: ". Each returns the exit code. */
int dl_error(const struct dl_ctx *ctx, const char *fmt, ...) DL_PRINTF(2, 3);
int dl_usage_error(const struct dl_ctx *ctx, const char *fmt, ...) DL_PRINTF(2, 3);
int dl_fail(const struct dl_ctx *ctx, const struct dl_err *err);
void dl_warn(const struct dl_ctx *ctx, const char *fmt, ...) DL_PRINTF(2, 3);
void dl_info(const struct dl_ctx *ctx, const char *fmt, ...) DL_PRINTF(2, 3);

/* Strict option values; on failure print a usage error and return -1. */
int dl_opt_double(const struct dl_ctx *ctx, const char *opt, const char *arg, double *out);
int dl_opt_nonneg(const struct dl_ctx *ctx, const char *opt, const char *arg, double *out);
int dl_opt_int(const struct dl_ctx *ctx, const char *opt, const char *arg, long long min,
	       long long max, long long *out);
int dl_opt_uint64(const struct dl_ctx *ctx, const char *opt, const char *arg, uint64_t *out);

/*
 * Output: dl_out_open() honours -o (atomic) and registers the temporary file
 * for removal on SIGINT/SIGTERM/SIGHUP or out of memory; dl_out_close()
 * commits when rc == 0 and aborts otherwise, returning the final exit code.
 */
struct dl_output *dl_out_open(const struct dl_ctx *ctx, const char *path);
int dl_out_close(const struct dl_ctx *ctx, struct dl_output *out, int rc);
/* remove every open -o temporary file (async-signal-safe; for fatal exits) */
void dl_out_discard_pending(void);
/* a table writer on out in the -f format (default CSV) */
struct dl_writer *dl_out_writer(const struct dl_ctx *ctx, struct dl_output *out);

/* Open an input table honouring --input-format; prints the error itself. */
struct dl_reader *dl_in_open(const struct dl_ctx *ctx, const char *path);

#endif
