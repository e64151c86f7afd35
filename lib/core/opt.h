/*
 * opt.h: typed option tables, the one description of every command-line
 * option (after git's parse-options, and the kernel's module_param for the
 * parameters a library part owns).
 *
 * A table is an array of struct dl_opt ending with {DL_OPT_END}. Each entry
 * says what the option takes (its type, range or allowed values), where the
 * value goes (an offset into a struct the table describes: a command's args,
 * a policy's parameters), its default and its one-line help. From the table:
 * cmd/options.c parses argv, stores and checks values and writes the one
 * error message for a bad value; --help, the man pages' OPTIONS sections and
 * the shell completions are generated from it, so none of them can drift.
 *
 * Declaring a table (the same in cmd/ and in lib/):
 *
 *   struct lease_params { double lease; int history; const char *mode; };
 *   #define AT(f) DL_OPT_AT(struct lease_params, f)
 *   static const char *const modes[] = {"ring", "ps", NULL};
 *   const struct dl_opt lease_opts[] = {
 *           {DL_OPT_SECONDS, 0, "lease", "SECONDS", "the timer unit", AT(lease),
 *            .flags = DL_OPTF_GT, .def = "20"},
 *           {DL_OPT_INT, 0, "history", "N", "waits remembered", AT(history),
 *            .imin = 1, .imax = 1000000, .def = "50"},
 *           {DL_OPT_CHOICE, 0, "comm", "MODE", "communication pattern", AT(mode),
 *            .values = modes, .def = "ring"},
 *           {DL_OPT_END},
 *   };
 *
 * Types and the C type of the field they store into:
 *   FLAG     int, set to 1                 COUNT   int, +1 each time (-vv)
 *   STRING   const char * (argv's, not copied)
 *   FILE     const char *, a path (completions offer file names)
 *   INT      int or int64_t (by the field's size), in [imin, imax];
 *            imin == imax == 0 means [0, the field's maximum]
 *   UINT64   uint64_t
 *   DOUBLE   double in [min, max]          SECONDS double, seconds, in [min, max]
 *            min == max == 0 means >= 0; use -INFINITY / INFINITY for no bound;
 *            DL_OPTF_GT makes the lower bound exclusive (> min)
 *   NUMLIST  const char *: numbers in [min, max] joined by ','; checked here,
 *            split by the user of the value
 *   CHOICE   int: the index of the value in the allowed values; with
 *            DL_OPTF_OPEN, const char * instead, and the values are the
 *            suggestions of --help and the completions while the owner checks
 *            (e.g. names that depend on another option)
 *   STRINGS  struct dl_strlist: every value given, in order (a repeatable
 *            option such as report --label); FILES the same for paths.
 *            The owner frees the list with dl_strlist_free()
 *   CALLBACK fn stores it
 *
 * Allowed values come from a NULL-terminated array (values) or a function
 * (value_at, NULL past the last) when a registry owns the names, so that
 * each name is written once. aliases are extra spellings, "alias=value".
 * def is the default as text, stored through the same parser before argv
 * is read (so --help cannot lie about it); def_doc only documents a default
 * the owner applies itself ("auto", "the trace").
 *
 * Nothing here prints; only STRINGS/FILES values allocate (their list).
 * Tables are read-only and can be shared.
 */
#ifndef DL_OPT_H
#define DL_OPT_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

enum dl_opt_type {
	DL_OPT_END = 0,
	DL_OPT_FLAG,
	DL_OPT_COUNT,
	DL_OPT_STRING,
	DL_OPT_FILE,
	DL_OPT_INT,
	DL_OPT_UINT64,
	DL_OPT_DOUBLE,
	DL_OPT_SECONDS,
	DL_OPT_NUMLIST,
	DL_OPT_CHOICE,
	DL_OPT_STRINGS,
	DL_OPT_FILES,
	DL_OPT_CALLBACK,
};

/* the values of a repeatable option (STRINGS, FILES); v[] borrows argv's strings */
struct dl_strlist {
	const char **v;
	size_t n, alloc;
};
void dl_strlist_free(struct dl_strlist *l);

enum {
	DL_OPTF_GT = 1 << 0,	   /* numbers: strictly greater than min */
	DL_OPTF_OPEN = 1 << 1,	   /* CHOICE: store the string; the owner checks it */
	DL_OPTF_HIDDEN = 1 << 2,   /* not in --help, the man page or the completions */
	DL_OPTF_NONEMPTY = 1 << 3, /* STRING, FILE: the empty string is a bad value */
};

struct dl_opt;
/* a CALLBACK option's store: 0, or -1 when arg is bad (then o->expect is shown) */
typedef int (*dl_opt_fn)(const struct dl_opt *o, void *base, const char *arg);

struct dl_opt {
	enum dl_opt_type type;
	int short_name;	  /* 'c', or 0 for a long-only option */
	const char *name; /* long name without "--" */
	const char *arg;  /* the value's name in --help ("SPEC"); NULL for FLAG, COUNT */
	const char *help; /* one line, lower case, no values or default (they are added) */
	size_t offset;	  /* where the value goes: DL_OPT_AT(struct, field) */
	size_t size;
	int64_t imin, imax;		   /* INT */
	double min, max;		   /* DOUBLE, SECONDS, NUMLIST */
	const char *const *values;	   /* CHOICE: allowed values, NULL-terminated */
	const char *(*value_at)(size_t i); /* CHOICE: or the i-th value, NULL after the last */
	const char *const *aliases;	   /* CHOICE: "alias=value" strings, NULL-terminated */
	const char *def;		   /* default, stored before parsing */
	const char *def_doc;		   /* default the owner applies (documentation only) */
	dl_opt_fn fn;			   /* CALLBACK */
	const char *expect;		   /* CALLBACK, STRING: what a good value looks like */
	unsigned flags;
};

#define DL_OPT_AT(type, field) .offset = offsetof(type, field), .size = sizeof(((type *)0)->field)

/*
 * Store arg into the field of o in base, checking type and range.
 * 0, or -1 with nothing stored when arg is a bad value.
 */
int dl_opt_store(const struct dl_opt *o, void *base, const char *arg);
/*
 * Store the defaults (def) of a table. -1 with *bad = the entry whose
 * default does not parse (a mistake in the table).
 */
int dl_opt_set_defaults(const struct dl_opt *opts, void *base, const struct dl_opt **bad);
/* what a good value of o looks like: "an integer in 1..64", "one of a, b" ("" if anything) */
void dl_opt_expect(const struct dl_opt *o, struct strbuf *sb);
/* the one message for a bad value: "bad --NAME value 'ARG' (EXPECT)" */
void dl_opt_bad_value_text(const struct dl_opt *o, const char *arg, struct strbuf *sb);
/* the i-th allowed value of a CHOICE, NULL after the last */
const char *dl_opt_value(const struct dl_opt *o, size_t i);
/* the allowed values joined by sep */
void dl_opt_values(const struct dl_opt *o, const char *sep, struct strbuf *sb);
/* index of a CHOICE value (aliases resolved), or -1 */
int dl_opt_choice_index(const struct dl_opt *o, const char *arg);
/* the default as shown to users (def, else def_doc), or NULL */
const char *dl_opt_default(const struct dl_opt *o);
/* "int", "seconds", ...: the type's name in --list-options */
const char *dl_opt_type_name(enum dl_opt_type t);
/* does the option take a value */
int dl_opt_takes_value(const struct dl_opt *o);

/*
 * Suggestions for a mistyped name (git's "did you mean"): feed candidates,
 * then best is the closest one within a small edit distance, or NULL.
 */
struct dl_suggest {
	const char *word;
	const char *best;
	size_t dist;
};
void dl_suggest_init(struct dl_suggest *s, const char *word);
void dl_suggest_add(struct dl_suggest *s, const char *candidate);
/* optimal string alignment distance (insert, delete, substitute, swap neighbours) */
size_t dl_edit_distance(const char *a, const char *b);

#endif
