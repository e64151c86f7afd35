/* profile.c: tensor-size skew of model files (the `profiles` stream) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "model/model.h"

struct profile_args {
	const char *name, *key;
	int ps;
	double threshold;
	int tensors, all;
};

#define AT(f) DL_OPT_AT(struct profile_args, f)
static const struct dl_opt profile_opts[] = {
	{DL_OPT_STRING, 'n', "name", "NAME", "model name for every row", AT(name),
	 .def_doc = "the file name without extension"},
	{DL_OPT_INT, 0, "ps", "P", "number of parameter servers the skew is computed for", AT(ps),
	 .imin = 1, .imax = 65536, .def = "4"},
	{DL_OPT_DOUBLE, 0, "threshold", "X", "consolidate when skew_rr is above X", AT(threshold),
	 .def = "2.5"},
	{DL_OPT_FLAG, 0, "tensors", NULL,
	 "one row per tensor (name, dtype, shape, numel, bytes, role, server)", AT(tensors)},
	{DL_OPT_STRING, 0, "key", "PATH",
	 "only the tensors under this key path of a checkpoint (e.g. state_dict, model.ema)",
	 AT(key)},
	{DL_OPT_FLAG, 0, "all-tensors", NULL,
	 "count every tensor, not only weights (BatchNorm statistics, optimizer state, constants)",
	 AT(all)},
	{DL_OPT_END},
};
#undef AT

static const struct dl_cmd_spec profile_spec = {
	.usage = "dlsched profile [options] FILE...",
	.description =
		"Read model files (safetensors, PyTorch .pt/.pth/.bin, ONNX, .npy, .npz, GGUF,\n"
		"TensorFlow .index, HDF5/Keras, sharded-checkpoint index JSON) from their\n"
		"metadata only, and write one `profiles` row per file: tensor count, parameters,\n"
		"bytes, largest tensor share, round-robin and greedy parameter-server skew,\n"
		"network sensitivity and whether to consolidate.\n"
		"The format is detected from the content. A bad file is reported (file and byte\n"
		"offset) and skipped; the exit status is then 1.",
	.opts = profile_opts,
};

static const char *const profile_cols[] = {
	"model",	 "file",    "format",	   "tensors", "params",	     "bytes",
	"largest_share", "skew_rr", "skew_greedy", "ps",      "sensitivity", "consolidate",
};

static const char *const tensor_cols[] = {
	"model", "name", "dtype", "shape", "numel", "bytes", "role", "server",
};

/*
 * The file's base name without its last extension; for a sharded checkpoint's
 * index (NAME.index.json) the directory's name, which names the model.
 */
static char *model_name(const char *path)
{
	const char *b = strrchr(path, '/');
	size_t plen = strlen(path);
	if (plen > 11 && !strcmp(path + plen - 11, ".index.json") && b) {
		const char *d = b;
		while (d > path && d[-1] != '/')
			d--;
		if (d < b && strncmp(d, ".", (size_t)(b - d)) && strncmp(d, "..", (size_t)(b - d)))
			return xstrndup(d, (size_t)(b - d));
	}
	b = b ? b + 1 : path;
	const char *dot = strrchr(b, '.');
	size_t len = dot && dot != b ? (size_t)(dot - b) : strlen(b);
	return xstrndup(b, len);
}

static void write_profile(struct dl_writer *w, const char *name, const char *file,
			  const struct dl_model *m, const struct dl_profile *p)
{
	dl_writer_str(w, 0, name);
	dl_writer_str(w, 1, file);
	dl_writer_str(w, 2, dl_model_format_name(m->format));
	dl_writer_int(w, 3, (int64_t)p->tensors);
	dl_writer_int(w, 4, p->params);
	dl_writer_int(w, 5, p->bytes);
	dl_writer_double_prec(w, 6, p->largest_share, 6);
	dl_writer_double_prec(w, 7, p->skew_rr, 6);
	dl_writer_double_prec(w, 8, p->skew_greedy, 6);
	dl_writer_int(w, 9, p->ps);
	dl_writer_double_prec(w, 10, p->sensitivity, 6);
	dl_writer_bool(w, 11, p->consolidate);
	dl_writer_end_row(w);
}

static void write_tensors(struct dl_writer *w, const char *name, const struct dl_model *m, int ps,
			  int all)
{
	struct strbuf shape = STRBUF_INIT;
	size_t k = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct dl_tensor *t = &m->t[i];
		sb_reset(&shape);
		for (int d = 0; d < t->ndim; d++)
			sb_addf(&shape, "%s%lld", d ? "x" : "", (long long)t->shape[d]);
		dl_writer_str(w, 0, name);
		dl_writer_str(w, 1, t->name);
		dl_writer_str(w, 2, t->dtype);
		dl_writer_str(w, 3, shape.buf);
		dl_writer_int(w, 4, t->numel);
		if (t->bytes >= 0)
			dl_writer_int(w, 5, t->bytes);
		else
			dl_writer_null(w, 5);
		dl_writer_str(w, 6, dl_tensor_role_name(t->role));
		/* the round-robin server of the tensors that are counted */
		if (dl_tensor_counted(t, all))
			dl_writer_int(w, 7, (int64_t)(k++ % (size_t)ps));
		else
			dl_writer_null(w, 7);
		dl_writer_end_row(w);
	}
	sb_release(&shape);
}

DL_COMMAND(profile, "tensor-size skew of model files (Tiresias consolidation profile)")
{
	struct dl_optstate st;
	struct profile_args a = {0};
	if (dl_opt_parse(&st, ctx, argc, argv, &profile_spec, &a))
		return st.exit_code;
	const char *name = a.name, *key = a.key;
	int ps = a.ps, tensors = a.tensors, all = a.all;
	double threshold = a.threshold;
	if (st.optind >= argc)
		return dl_usage_error(ctx, "no model file given");

	struct dl_output *out = dl_out_open(ctx, ctx->output);
	if (!out)
		return DL_EXIT_DATA;
	struct dl_writer *w = dl_out_writer(ctx, out);
	if (tensors)
		dl_writer_set_columns(w, tensor_cols, DL_ARRAY_SIZE(tensor_cols));
	else
		dl_writer_set_columns(w, profile_cols, DL_ARRAY_SIZE(profile_cols));
	int rc = 0;
	for (int i = st.optind; i < argc; i++) {
		struct dl_model m = DL_MODEL_INIT;
		struct dl_err err = DL_ERR_INIT;
		/* a bad file is reported and the others are still profiled */
		if (!strcmp(argv[i], "-")) {
			rc = dl_error(ctx, "-: model files are read by name (standard input "
					   "cannot be mapped)");
			continue;
		}
		if (dl_model_read(argv[i], &m, &err) < 0) {
			rc = dl_fail(ctx, &err);
			continue;
		}
		if (key && !dl_model_select(&m, key)) {
			rc = dl_error(ctx, "%s: no tensor under the key '%s'", argv[i], key);
			dl_model_release(&m);
			continue;
		}
		char *mname = name ? xstrdup(name) : model_name(argv[i]);
		if (tensors) {
			write_tensors(w, mname, &m, (int)ps, all);
		} else {
			struct dl_profile p;
			dl_profile_model(&m, (int)ps, threshold, all, &p);
			write_profile(w, mname, argv[i], &m, &p);
		}
		dl_info(ctx, "%s: %s, %zu tensors", argv[i], dl_model_format_name(m.format), m.n);
		free(mname);
		dl_model_release(&m);
	}
	dl_writer_finish(w);
	dl_writer_free(w);
	return dl_out_close(ctx, out, rc);
}
