/*
 * sweep_run.h: the processes of dlsched sweep (sweep_run.c). Nothing here owns
 * memory beyond a call.
 */
#ifndef DL_CMD_SWEEP_RUN_H
#define DL_CMD_SWEEP_RUN_H

#include "sweep/sweep.h"

/*
 * Run row i: every stage of its command is exec'ed from exe (the dlsched
 * binary; never a shell) with DIR as working directory, stages joined by "|"
 * share a pipe, "&&" waits for success. Stage stderr goes to runs/ID/stderr.
 * Returns 0 when the run is done, 1 when it failed (runs/ID/failed says why),
 * 2 when a stage was killed by SIGTERM, SIGINT, SIGHUP or SIGKILL (cancelled:
 * no marker, so the run stays missing and a rerun redoes it), -1 on an error
 * of the sweep itself (err).
 */
int dl_sweep_run_row(const struct dl_sweep_plan *plan, size_t i, const char *dir, const char *exe,
		     struct dl_err *err);

/*
 * Run the rows listed in todo[0..ntodo) with up to jobs worker processes
 * (each one dl_sweep_run_row in a fork). A failing run never stops the
 * others. progress (may be NULL) is called after each run ends with the
 * counts so far. *nfailed receives the number of runs that failed.
 */
typedef void (*dl_sweep_progress_fn)(void *arg, size_t finished, size_t total, size_t failed);
int dl_sweep_run_local(const struct dl_sweep_plan *plan, const size_t *todo, size_t ntodo,
		       const char *dir, const char *exe, long jobs, dl_sweep_progress_fn progress,
		       void *arg, size_t *nfailed, struct dl_err *err);

/*
 * Run argv[0] (found on PATH) with argv, its standard output into out and its
 * standard error into errout. Its exit status (128 + N for signal N, 127 when
 * it cannot be run), or -1 on an error of ours (err).
 */
int dl_sweep_capture(char *const argv[], struct strbuf *out, struct strbuf *errout,
		     struct dl_err *err);

#endif
