/* place_io.c: the GPUs in use in, jobs in, placements out (see place_io.h) */
#include <stdlib.h>
#include <string.h>

#include "core/strmap.h"
#include "policy/place_io.h"
#include "trace/jobs.h"

/* mark the GPUs of one row; overlaps are errors naming both lines */
static int used_row(struct dl_cluster_state *st, const struct strmap *names, const char *file,
		    long line, const char *text, long *owner, int **g, size_t *alloc,
		    struct dl_err *err)
{
	size_t n = 0;
	if (dl_placement_parse(st->c, names, text, g, &n, alloc, err) < 0) {
		char msg[DL_ERR_MSG_MAX];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		return dl_err_at(err, file, line, "%s", msg);
	}
	for (size_t i = 0; i < n; i++) {
		int gpu = (*g)[i];
		if (dl_state_take_gpu(st, gpu) < 0) {
			const struct dl_node *nd = &st->c->nodes[dl_cluster_gpu_node(st->c, gpu)];
			if (owner[gpu] == line)
				return dl_err_at(err, file, line, "GPU %s:%d is listed twice",
						 nd->name, gpu - nd->first_gpu);
			return dl_err_at(
				err, file, line,
				"GPU %s:%d is already used (line %ld): overlapping entries",
				nd->name, gpu - nd->first_gpu, owner[gpu]);
		}
		owner[gpu] = line;
	}
	return 0;
}

int dl_place_read_used(struct dl_reader *r, struct dl_cluster_state *st, struct dl_err *err)
{
	int cp = dl_reader_col(r, "placement"), cn = dl_reader_col(r, "node");
	int cg = dl_reader_col(r, "gpus"), cd = dl_reader_col(r, "decision");
	if (cp < 0 && cn < 0 && dl_reader_ncols(r)) /* (0 bytes: nothing used) */
		return dl_err_set(err, DL_EXIT_DATA, "%s: needs a 'placement' or a 'node' column",
				  dl_reader_name(r));
	const struct dl_cluster *c = st->c;
	struct strmap names = STRMAP_INIT;
	for (size_t i = 0; i < c->nnodes; i++)
		strmap_put(&names, c->nodes[i].name, (int64_t)i);
	long *owner = xcalloc((size_t)c->total_gpus + 1, sizeof(long));
	int *g = NULL;
	size_t alloc = 0;
	struct strbuf text = STRBUF_INIT;
	struct dl_row row;
	int got;
	while ((got = dl_reader_next(r, &row, err)) > 0) {
		sb_reset(&text);
		if (cp >= 0) {
			const char *d = dl_field_str(&row, cd);
			if (*d && strcmp(d, "placed"))
				continue; /* a placements stream: only placed jobs hold GPUs */
			sb_addstr(&text, dl_field_str(&row, cp));
		} else {
			const char *gp = dl_field_str(&row, cg);
			sb_addstr(&text, dl_field_str(&row, cn));
			if (*gp)
				sb_addf(&text, ":%s", gp);
			if (!*dl_field_str(&row, cn)) {
				dl_err_at(err, dl_reader_name(r), row.line, "empty node");
				got = -1;
				break;
			}
		}
		if (used_row(st, &names, dl_reader_name(r), row.line, text.buf, owner, &g, &alloc,
			     err) < 0) {
			got = -1;
			break;
		}
	}
	sb_release(&text);
	free(g);
	free(owner);
	strmap_free(&names);
	return got < 0 ? -1 : 0;
}

enum { C_ID, C_GPUS, C_TYPE, C_NODES, C_RACKS, C_TIER, C_SLOW, C_PLACE, C_DEC, C_REASON, C_N };
static const char *const out_cols[C_N] = {"id",	  "gpus",     "gpu_type",  "nodes",    "racks",
					  "tier", "slowdown", "placement", "decision", "reason"};

/* the job's network model: its profile, else the default (warned once per model name) */
static const struct dl_net_model *model_of(const struct dl_place_stream *ps, struct strmap *warned,
					   const struct dl_reader *r, long line, const char *model)
{
	const struct dl_net_model *m = NULL;
	if (*model) {
		m = dl_net_models_find(ps->models, model);
		if (!m && strmap_put(warned, model, 1) && ps->warn) {
			struct strbuf msg = STRBUF_INIT;
			sb_addf(&msg, "%s:%ld: no profile for model '%s'; costed as '%s'",
				dl_reader_name(r), line, model,
				dl_net_models_default(ps->models)->name);
			ps->warn(ps->warn_arg, msg.buf);
			sb_release(&msg);
		}
	}
	return m ? m : dl_net_models_default(ps->models);
}

int dl_place_stream(const struct dl_place_stream *ps, struct dl_reader *r, struct dl_writer *w,
		    struct dl_err *err)
{
	struct dl_jobs_cols jc;
	if (dl_jobs_cols_init(&jc, r, err) < 0)
		return -1;
	dl_writer_set_columns(w, out_cols, C_N);
	int cwait = dl_reader_col(r, "wait");
	int *gpus = NULL;
	size_t galloc = 0;
	struct strbuf sb = STRBUF_INIT;
	struct dl_idset ids = DL_IDSET_INIT;
	struct strmap warned = STRMAP_INIT; /* unknown model names already reported */
	struct dl_row row;
	int got;
	const struct dl_cluster *c = ps->c;
	while ((got = dl_reader_next(r, &row, err)) > 0) {
		struct dl_job job;
		if (dl_jobs_parse_row(&jc, r, &row, &job, err) < 0 ||
		    dl_idset_add(&ids, job.id, dl_reader_name(r), row.line, NULL, err) < 0) {
			got = -1;
			break;
		}
		struct dl_place_req req = {0, DL_ANY_TYPE, 0, 0};
		req.gpus = job.gpus > c->total_gpus ? c->total_gpus + 1 : (int)job.gpus;
		const char *reject = NULL;
		if (*job.gpu_type) {
			req.type = dl_cluster_type_index(c, job.gpu_type);
			if (req.type < 0 && !dl_gpu_builtin(job.gpu_type)) {
				dl_err_at(err, dl_reader_name(r), row.line, "unknown GPU type '%s'",
					  job.gpu_type);
				got = -1;
				break;
			}
			if (req.type < 0)
				reject = "no GPUs of its type in the cluster";
		}
		const struct dl_net_model *m = model_of(ps, &warned, r, row.line, job.model);
		req.consolidate = m->consolidate;
		if (cwait >= 0 && *dl_field_str(&row, cwait)) {
			if (dl_field_nonneg(r, &row, cwait, &req.wait, err) < 0) {
				got = -1;
				break;
			}
		} else if (ps->have_now) {
			req.wait = ps->now > job.submit ? ps->now - job.submit : 0;
		}
		DL_GROW(gpus, (size_t)req.gpus + 1, galloc);
		struct dl_placement pl = {0};
		pl.gpus = gpus;
		if (reject) {
			pl.decision = DL_REJECT;
			pl.reason = reject;
		} else {
			dl_place(ps->placer, &req, &pl);
		}
		dl_writer_str(w, C_ID, job.id);
		dl_writer_int(w, C_GPUS, job.gpus);
		if (pl.decision == DL_PLACED) {
			int t = c->nodes[dl_cluster_gpu_node(c, pl.gpus[0])].type;
			double speed = c->types[t].speed;
			dl_writer_str(w, C_TYPE, c->types[t].name);
			dl_writer_int(w, C_NODES, pl.nnodes);
			dl_writer_int(w, C_RACKS, pl.nracks);
			dl_writer_str(w, C_TIER, dl_tier_name(pl.tier));
			dl_writer_double_prec(
				w, C_SLOW, dl_netcost_slowdown(ps->nc, m, pl.ngpus, pl.tier, speed),
				6);
			sb_reset(&sb);
			dl_placement_format(c, pl.gpus, pl.ngpus, &sb);
			dl_writer_str(w, C_PLACE, sb.buf);
			dl_writer_str(w, C_DEC, "placed");
		} else {
			if (*job.gpu_type)
				dl_writer_str(w, C_TYPE, job.gpu_type);
			dl_writer_str(w, C_DEC, pl.decision == DL_WAIT ? "wait" : "reject");
			dl_writer_str(w, C_REASON, pl.reason);
		}
		dl_writer_end_row(w);
	}
	free(gpus);
	sb_release(&sb);
	dl_idset_free(&ids);
	strmap_free(&warned);
	return got < 0 ? -1 : 0;
}
