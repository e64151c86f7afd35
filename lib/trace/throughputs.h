/*
 * throughputs.h: the throughputs stream, a lookup table
 *   (model, gpu_type, gpus[, partner]) -> throughput [, partner_throughput]
 * in steps per second of the whole job (all `gpus` GPUs together).
 *
 * Columns (dlsched-formats(5), "throughputs"): model, gpu_type, gpus,
 * throughput required; partner and partner_throughput optional. A row with a
 * partner is the job's throughput when packed (space-shared) with a job of
 * model `partner` of the same gpus; partner_throughput is the partner's
 * throughput in that pair. An empty partner means "running alone".
 * A repeated key is an error naming both lines.
 *
 * dl_tputs_import_gavel() reads Gavel's throughputs JSON
 *   { gpu_type: { "('MODEL', S)": { "null": T, "('OTHER', S)": [T, T_other] } }
 * } into the same table (gpu_type as in the file, e.g. "v100_unconsolidated").
 * The document is parsed whole, at many times its size in memory, so it is
 * at most DL_TPUTS_JSON_MAX bytes (Gavel's own is 1.2 MB); one without any
 * entry ({}) is an error, as it could only make every lookup miss.
 *
 * Ownership: struct dl_tputs owns its entries and all their strings;
 * dl_tputs_free() releases everything. Entry pointers returned by the lookups
 * stay valid until the next dl_tputs_add()/load/import or dl_tputs_free().
 */
#ifndef DL_TRACE_THROUGHPUTS_H
#define DL_TRACE_THROUGHPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/common.h"
#include "core/strmap.h"
#include "table/table.h"

/* the largest throughputs JSON (Gavel's, or JSON Lines) read: 16 MiB */
#define DL_TPUTS_JSON_MAX (16 << 20)

struct dl_tput {
	char *model;
	char *gpu_type;
	int64_t gpus;
	char *partner;		   /* "" when alone */
	double throughput;	   /* >= 0 */
	double partner_throughput; /* -1 when alone or unknown */
	long line;		   /* input line, 0 when imported from JSON */
};

struct dl_tputs {
	struct dl_tput *v;
	size_t n, alloc;
	struct strmap index; /* key -> position in v */
	int has_partner;     /* some entry has a partner (then write those columns) */
};

#define DL_TPUTS_INIT                      \
	{                                  \
		NULL, 0, 0, STRMAP_INIT, 0 \
	}

void dl_tputs_free(struct dl_tputs *t);
/*
 * Add one entry (strings copied). Returns 0, or -1 with
 * "FILE:LINE: duplicate throughput for ..." when the key exists (file/line
 * name the new entry's origin; file may be NULL).
 */
int dl_tputs_add(struct dl_tputs *t, const struct dl_tput *e, const char *file, struct dl_err *err);
/* Read a throughputs stream from an open reader (caller closes it). */
int dl_tputs_add_reader(struct dl_tputs *t, struct dl_reader *r, struct dl_err *err);
/* Open, read, close a throughputs stream file ("-" = stdin). */
int dl_tputs_load(struct dl_tputs *t, const char *path, enum dl_in_format fmt, struct dl_err *err);
/* Import Gavel's throughputs JSON (gzip ok). */
int dl_tputs_import_gavel(struct dl_tputs *t, const char *path, struct dl_err *err);
/* Same, from a buffer (name is used in messages); for tests and fuzzing. */
int dl_tputs_import_gavel_buf(struct dl_tputs *t, const char *name, const char *data, size_t len,
			      struct dl_err *err);
/*
 * Gavel's JSON when data is of its shape, one JSON object whose values are all
 * objects (which no throughputs stream is: its records' values are scalars):
 * then 0 or -1 as above. 1, with nothing added and err untouched, when it is
 * not of that shape (a JSON Lines stream, or not JSON).
 */
int dl_tputs_try_gavel_buf(struct dl_tputs *t, const char *name, const char *data, size_t len,
			   struct dl_err *err);

/* the entry for the key (partner NULL or "" = alone), or NULL */
const struct dl_tput *dl_tputs_find(const struct dl_tputs *t, const char *model,
				    const char *gpu_type, int64_t gpus, const char *partner);
/* its throughput, or -1 when the key is absent */
double dl_tputs_get(const struct dl_tputs *t, const char *model, const char *gpu_type,
		    int64_t gpus);

/* does some entry have this gpu_type? */
int dl_tputs_has_type(const struct dl_tputs *t, const char *gpu_type);
/* the distinct GPU types of the entries, sorted, as "k80, v100" appended to sb */
void dl_tputs_types(const struct dl_tputs *t, struct strbuf *sb);

/* Sort entries by (model, gpu_type, gpus, partner) for deterministic output. */
void dl_tputs_sort(struct dl_tputs *t);
/*
 * Distinct models that have a solo entry with `gpus` GPUs (gpus <= 0: any),
 * in entry order; *out is a malloc'd array of pointers into t (free it, not
 * the strings). Returns the count.
 */
size_t dl_tputs_models(const struct dl_tputs *t, int64_t gpus, const char ***out);
/* Write the table as a throughputs stream (columns, rows, finish). */
void dl_tputs_write(const struct dl_tputs *t, struct dl_writer *w);

#endif
