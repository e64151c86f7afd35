/*
 * priority_io.h: the jobs-with-state stream in, the priorities stream out.
 *
 * dl_prio_read() loads every row of a jobs table (columns in
 * dlsched-formats(5), "PRIORITIES"): id and submit always, and the state
 * columns the configured policy needs (dl_prio_needs): duration, executed,
 * attained (default executed x gpus), waiting, remaining (default
 * duration - executed), weight, gpus. A missing column is an error naming
 * the column and the option or policy that needs it; a bad or negative value
 * is an error at FILE:LINE. Every column, known or not, is kept as text so
 * dl_prio_write() can pass the rows through unchanged, with rank, queue and
 * priority appended (replacing columns of those names from an earlier run).
 *
 * Memory: the table owns all rows (one text arena plus offsets: about the
 * size of the input plus one struct dl_prio_job per row); release it with
 * dl_prio_table_release(). The jobs' id pointers point into the arena.
 */
#ifndef DL_POLICY_PRIORITY_IO_H
#define DL_POLICY_PRIORITY_IO_H

#include "policy/priority.h"
#include "table/table.h"

struct dl_prio_table {
	size_t n;		  /* rows */
	struct dl_prio_job *jobs; /* n jobs; jobs[i].pos is the row's input index */
	size_t ncols;		  /* input columns */
	char **cols;		  /* their names (owned) */
	char *text;		  /* all fields, NUL-separated (owned) */
	size_t *row_off;	  /* n offsets into text: a row's first field */
};

/*
 * Read all rows of r (the caller still closes r). Returns 0, or -1 with
 * *err filled and the table released.
 */
int dl_prio_read(struct dl_reader *r, const struct dl_prio_config *c, struct dl_prio_table *t,
		 struct dl_err *err);

/* Write the columns and the rows in `order` (indices into t->jobs; NULL = input order). */
void dl_prio_write(const struct dl_prio_table *t, const size_t *order, struct dl_writer *w);

void dl_prio_table_release(struct dl_prio_table *t);

#endif
