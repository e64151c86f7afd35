/*
 * cmd.h: what every command front end shares.
 *
 * Adding a command `foo`:
 *   1. write cmd/foo.c with `DL_COMMAND(foo, "one-line summary")` followed by
 *      the function body (the build collects these lines into the command
 *      table; keep the macro call on one line, at the start of the line);
 *   2. describe its options in a `struct dl_opt[]` table (below) and parse
 *      them with dl_opt_parse(), so --help, the man page's option list and
 *      the shell completions all come from that one table;
 *   3. put the work in lib/, keep cmd/foo.c to parsing, I/O and exit codes;
 *   4. write man/dlsched-foo.1.scd (with an "@options" line where the generated
 *      option list goes, and "@--NAME" prose blocks for options that need more
 *      than their help line), tests/cli/t_foo.sh, a README example.
 *
 * Nothing here owns memory beyond a call: struct dl_optstate is plain data
 * (it borrows argv and the tables).
 */
#ifndef DL_CMD_H
#define DL_CMD_H

#include <stdio.h>

#include "core/common.h"
#include "core/opt.h"
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
	/* set: diagnostics are lines "MESSAGE" here instead of stderr (a command run in-process) */
	struct strbuf *diag;
};

#define DL_COMMAND(name, summary) int cmd_##name(int argc, char **argv, struct dl_ctx *ctx)

/*
 * Options. Each command describes its options in one table of typed entries
 * (lib/core/opt.h) whose values go into the command's args struct; the parser
 * stores and checks every value and writes the error for a bad one itself
 * ("dlsched place: bad --lease value 'abc' (a number of seconds > 0)", exit
 * 2), so a command only sees good values. --help, --list-options (for the
 * completions) and --man-options (the man page's OPTIONS section, spliced in
 * by the Makefile) are generated from the same tables, so they cannot drift.
 *
 *   struct place_args { const char *cluster; struct dl_place_opts po; double now; };
 *   #define AT(f) DL_OPT_AT(struct place_args, f)
 *   static const struct dl_opt place_opts[] = {
 *           {DL_OPT_STRING, 'c', "cluster", "SPEC", "the cluster (required)", AT(cluster)},
 *           {DL_OPT_CHOICE, 'P', "policy", "NAME", "placement policy", AT(po.policy),
 *            .value_at = place_policy_at, .def = "consolidate"},
 *           {DL_OPT_SECONDS, 0, "now", "TIME", "the current time", AT(now)},
 *           {DL_OPT_END},
 *   };
 *   static const struct dl_cmd_spec place_spec = {.usage = ..., .opts = place_opts};
 *
 *   DL_COMMAND(place, "...")
 *   {
 *           struct place_args a = {0};
 *           struct dl_optstate st;
 *           if (dl_opt_parse(&st, ctx, argc, argv, &place_spec, &a))
 *                   return st.exit_code;   // --help (0) or a usage error (2)
 *           if (dl_opt_given(&st, "now")) ...
 *           positional arguments: argv[st.optind..argc), or dl_opt_inputs()
 *
 * Rules that span options (A needs B) stay in the command, after parsing; a
 * value the command must check itself (a CHOICE with DL_OPTF_OPEN, whose
 * valid values depend on another option) is reported with dl_opt_bad_value()
 * in the same words.
 *
 * Tables declared in lib/ (a simulation policy's parameters, like the
 * kernel's module_param) are added as more groups, each with its own base
 * struct and a heading: dl_opt_parse_groups(&st, ..., &a, groups, n). Every
 * option of every group is then parsed, documented and completed like the
 * command's own, its group's options listed under "TITLE options:". A group
 * used by several commands (MLFQ's --queues: prioritize and two simulate
 * policies) is one table declared once in lib/; a user may document its own
 * defaults for it (doc_defaults, "queues=3").
 *
 * Alternatives (DL_GROUP_DEFER: the policies of simulate). Only the chosen
 * one's options apply, and two alternatives may each own an option of the
 * same name with their own type, range and default (las --quantum 300,
 * gandiva --quantum 60). While parsing, their values are only recorded;
 * the command then names the chosen groups and their structs with
 * dl_opt_choose() and calls dl_opt_apply(), which stores the chosen groups'
 * defaults and the values given (a bad one: the usual message), and
 * refuses, in one generated message, an option that only groups not chosen
 * own ("--quantum applies to --policy las"). Deferred options have no short
 * names. cmd/simulate.c does this for the policies in the lib/sim registry,
 * so adding a policy changes nothing in cmd/.
 *
 * An option name exists once outside the alternatives (a second spelling
 * aborts as a table bug). tests/unit/test_options.c parses such tables.
 *
 * The common options (-f/-o unless DL_SPEC_NO_IO, --input-format unless
 * DL_SPEC_NO_INPUT, -q, -v, -h)
 * are added to every command and stored in struct dl_ctx.
 */

/* Flags of struct dl_cmd_spec */
enum {
	DL_SPEC_NO_IO = 1 << 0, /* no common -f/-o (the command has its own, or writes no stream) */
	DL_SPEC_NO_INPUT = 1 << 1, /* no --input-format (the command reads no stream) */
};

/* a subcommand ("trace gen"): run is NULL when the command dispatches it itself */
struct dl_subcmd {
	const char *name;
	int (*run)(int argc, char **argv, struct dl_ctx *ctx);
};

struct dl_cmd_spec {
	const char *usage;	   /* one or more "dlsched foo ..." lines, '\n'-separated */
	const char *description;   /* shown under the usage in --help */
	const struct dl_opt *opts; /* the command's own options, into its args struct */
	unsigned flags;
	/* the default of -f when it is not csv ("text"), for --help and the man page */
	const char *format_default;
	/* subcommands, ended by {NULL}: for dispatch, completions and --list-subcommands */
	const struct dl_subcmd *subcommands;
};

/* a table and the struct its offsets point into */
struct dl_opt_group {
	const struct dl_opt *opts;
	void *base;	   /* DL_GROUP_DEFER: NULL until dl_opt_choose() */
	const char *title; /* heading in --help and the man page ("tiresias-las options") */
	unsigned flags;	   /* DL_GROUP_* */
	/* "name=text": defaults this user documents instead of the table's def_doc */
	const char *const *doc_defaults;
};

enum {
	DL_GROUP_DEFER = 1 << 0, /* one of several alternatives: see dl_opt_apply() */
};

#define DL_OPT_MAX_GROUPS 16
#define DL_OPT_MAX	  256

struct dl_optstate {
	struct dl_ctx *ctx;
	const struct dl_cmd_spec *spec;
	int argc;
	char **argv;
	int optind; /* after parsing: index of the first positional argument */
	int exit_code;
	struct dl_opt_group groups[DL_OPT_MAX_GROUPS];
	size_t ngroups;
	struct dl_opt io[3];	/* the common -f and -o, with this command's -f default */
	struct dl_opt docs[32]; /* copies of tables with doc_defaults applied */
	size_t ndocs;
	const struct dl_opt *orig[DL_OPT_MAX_GROUPS]; /* the tables copied into docs */
	const char *deferred[DL_OPT_MAX]; /* DL_GROUP_DEFER: the last value given, by option */
	unsigned char given[DL_OPT_MAX];  /* times each option was given (saturates) */
	int scratch;			  /* where --help and the listing helpers "store" */
};

/*
 * Parse the options into args (the command's table) and ctx (the common
 * ones). 0: run the command, positional arguments start at st->optind.
 * Nonzero: return st->exit_code (0 after --help and the hidden listing
 * options, 2 after a usage error, which is already printed).
 */
int dl_opt_parse(struct dl_optstate *st, struct dl_ctx *ctx, int argc, char **argv,
		 const struct dl_cmd_spec *spec, void *args);
/* the same with more tables (policies' parameters), in this order after the command's */
int dl_opt_parse_groups(struct dl_optstate *st, struct dl_ctx *ctx, int argc, char **argv,
			const struct dl_cmd_spec *spec, void *args, const struct dl_opt_group *more,
			size_t nmore);
/* how often --name was given (0: not given; the default applies) */
int dl_opt_given(const struct dl_optstate *st, const char *name);
/* the first option of the group of table opts that was given, or NULL */
const struct dl_opt *dl_opt_group_given(const struct dl_optstate *st, const struct dl_opt *opts);
/* choose the deferred group of table opts: its values go into base (see above) */
void dl_opt_choose(struct dl_optstate *st, const struct dl_opt *opts, void *base);
/*
 * Store the chosen deferred groups' defaults and values. 0, or the exit code
 * (2) after printing a bad value or "--NAME applies to SELECTOR TITLES" for
 * an option that only groups not chosen own (selector: "--policy").
 */
int dl_opt_apply(struct dl_optstate *st, const char *selector);
/* print "bad --NAME value 'ARG' (one of ...)" from the table; returns DL_EXIT_USAGE */
int dl_opt_bad_value(const struct dl_optstate *st, const char *name, const char *arg);
/*
 * Run the subcommand named by argv[1] (argv[1..] become its argv), or parse
 * the command's own options (--help) and complain about a missing or unknown
 * subcommand. For commands whose subcommands all have a run function.
 */
int dl_subcmd_run(struct dl_ctx *ctx, int argc, char **argv, const struct dl_cmd_spec *spec);
/* the subcommand called name, or NULL after printing the usage error */
const struct dl_subcmd *dl_subcmd_find(const struct dl_ctx *ctx, const struct dl_cmd_spec *spec,
				       const char *name);
/* the positional input files after the options, or just "-" (standard input) when none */
char **dl_opt_inputs(const struct dl_optstate *st, int *n);
/* the common options' man page entries (for dlsched(1)) */
void dl_print_common_man(FILE *fp);

/*
 * The option tables of the commands a sweep runs, as data (not their help
 * text): trace gen's; simulate's own, then each policy's and --compat's (a
 * table several policies share once). At most max into out; returns how many.
 */
size_t dl_trace_gen_opt_tables(const struct dl_opt **out, size_t max);
size_t dl_simulate_opt_tables(const struct dl_opt **out, size_t max);

/* Diagnostics, on stderr, prefixed "dlsched CMD: ". Each returns the exit code. */
int dl_error(const struct dl_ctx *ctx, const char *fmt, ...) DL_PRINTF(2, 3);
int dl_usage_error(const struct dl_ctx *ctx, const char *fmt, ...) DL_PRINTF(2, 3);
int dl_fail(const struct dl_ctx *ctx, const struct dl_err *err);
void dl_warn(const struct dl_ctx *ctx, const char *fmt, ...) DL_PRINTF(2, 3);
void dl_info(const struct dl_ctx *ctx, const char *fmt, ...) DL_PRINTF(2, 3);

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

/*
 * A table a command writes: dl_out_open(path) and a writer on it in fmt.
 * dl_table_out_open() returns 0, or DL_EXIT_DATA (the error said) with
 * nothing to close. dl_table_out_close() ends n tables: when rc is 0 it
 * finishes their writers in order (a table without rows still gets its
 * header); it frees them, then commits (rc 0) or removes the files, the
 * last first, and returns the final exit code. A zeroed struct (never
 * opened) is skipped.
 */
struct dl_table_out {
	struct dl_output *out;
	struct dl_writer *w;
};
int dl_table_out_open(const struct dl_ctx *ctx, const char *path, enum dl_out_format fmt,
		      struct dl_table_out *t);
int dl_table_out_close(const struct dl_ctx *ctx, struct dl_table_out *t, size_t n, int rc);

/*
 * --provenance (dlsched-formats(5), PROVENANCE). dl_command_line() is the
 * command line that made a stream, "dlsched CMD ARG...", each argument
 * shell-quoted where it needs it; argv is the command's own (argv[0] its
 * name, or a subcommand's, which is then written after CMD); free() it.
 * dl_stamp_provenance() puts it and the seed ("" for none) on the first row.
 */
char *dl_command_line(const struct dl_ctx *ctx, int argc, char **argv);
void dl_stamp_provenance(struct dl_writer *w, const char *command, const char *seed);

/* Open an input table honouring --input-format; prints the error itself. */
struct dl_reader *dl_in_open(const struct dl_ctx *ctx, const char *path);

#endif
