/* cat.c: concatenate streams, converting between CSV and JSON Lines */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

struct cat_args {
	int number, filename;
};

static const struct dl_opt cat_opts[] = {
	{DL_OPT_FLAG, 'n', "number", NULL, "prepend a column 'n' numbering the rows from 1",
	 DL_OPT_AT(struct cat_args, number)},
	{DL_OPT_FLAG, 'N', "filename", NULL, "prepend a column 'filename' naming each row's input",
	 DL_OPT_AT(struct cat_args, filename)},
	{DL_OPT_END},
};

static const struct dl_cmd_spec cat_spec = {
	.usage = "dlsched cat [options] [FILE...]",
	.description =
		"Read CSV or JSON Lines streams (gzip allowed; '-' or nothing is standard input)\n"
		"and write them as one stream in the --format. Inputs must have the same\n"
		"columns in the same order as the first.",
	.opts = cat_opts,
};

static int same_columns(struct dl_reader *r, const char *const *cols, size_t n)
{
	if (dl_reader_ncols(r) != n)
		return 0;
	const char *const *rc = dl_reader_columns(r);
	for (size_t i = 0; i < n; i++)
		if (strcmp(rc[i], cols[i]))
			return 0;
	return 1;
}

DL_COMMAND(cat, "concatenate streams, converting between CSV and JSON Lines")
{
	struct dl_optstate st;
	struct cat_args a = {0};
	if (dl_opt_parse(&st, ctx, argc, argv, &cat_spec, &a))
		return st.exit_code;
	int number = a.number, filename = a.filename;

	int nfiles;
	char **files = dl_opt_inputs(&st, &nfiles);

	struct dl_output *out = dl_out_open(ctx, ctx->output);
	if (!out)
		return DL_EXIT_DATA;
	struct dl_writer *w = dl_out_writer(ctx, out);
	struct dl_err err = DL_ERR_INIT;
	char **cols = NULL;
	size_t ncols = 0;
	int have_cols = 0, rc = 0;
	int64_t n = 0;
	size_t off = (size_t)number + (size_t)filename;

	for (int i = 0; i < nfiles && !rc; i++) {
		struct dl_reader *r = dl_in_open(ctx, files[i]);
		if (!r) {
			rc = DL_EXIT_DATA;
			break;
		}
		size_t rn = dl_reader_ncols(r);
		const char *const *rcols = dl_reader_columns(r);
		if (!have_cols && rn) {
			have_cols = 1;
			ncols = rn;
			cols = xcalloc(ncols, sizeof(*cols));
			if (number)
				dl_writer_add_column(w, "n");
			if (filename)
				dl_writer_add_column(w, "filename");
			for (size_t k = 0; k < ncols; k++) {
				cols[k] = xstrdup(rcols[k]);
				dl_writer_add_column(w, cols[k]);
			}
		} else if (have_cols && rn && !same_columns(r, (const char *const *)cols, ncols)) {
			rc = dl_error(ctx, "%s: columns differ from those of the first input",
				      dl_reader_name(r));
			dl_reader_close(r);
			break;
		}
		struct dl_row row;
		int got;
		while ((got = dl_reader_next(r, &row, &err)) > 0) {
			if (number)
				dl_writer_int(w, 0, ++n);
			if (filename)
				dl_writer_str(w, (size_t)number, dl_reader_name(r));
			for (size_t k = 0; k < row.n; k++)
				dl_writer_auto(w, off + k, row.f[k]);
			dl_writer_end_row(w);
		}
		if (got < 0)
			rc = dl_fail(ctx, &err);
		dl_reader_close(r);
	}
	for (size_t k = 0; k < ncols; k++)
		free(cols[k]);
	free(cols);
	if (!rc)
		dl_writer_finish(w);
	dl_writer_free(w);
	return dl_out_close(ctx, out, rc);
}
