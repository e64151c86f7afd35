/* test_sweep_slurm.c: the states of a sweep's array tasks from squeue and sacct lines as Slurm
 * prints them */
#include <string.h>

#include "sweep/sweep.h"
#include "tap.h"

static void test_states(void)
{
	char *ids[] = {"7", "12"};
	struct dl_sweep_jobs jobs = {ids, 2};
	struct dl_sweep_task t[6];
	/* array 7 (rows 0-5) ended: 0 and 1 done, 2 timed out, 3 cancelled while pending
	 * (sacct's combined row), 4 failed; array 12 resubmitted rows 2 and 4: 2 runs, 4
	 * waits. A bare "JOB|..." row and other jobs' rows are not tasks of the plan. */
	const char *sacct = "7|COMPLETED\n"
			    "7_0|COMPLETED\n"
			    "7_1|COMPLETED\n"
			    "7_2|TIMEOUT\n"
			    "7_[3]|CANCELLED by 0\n"
			    "7_4|FAILED\n"
			    "7_5|CANCELLED by 0\n"
			    "8_1|FAILED\n"
			    "12_[4]|PENDING\n";
	const char *squeue = "12_4|PENDING\n12_2|RUNNING\n7_9|RUNNING\n";
	dl_sweep_slurm_states(&jobs, squeue, sacct, t, 6);
	is_int(t[0].state, DL_TASK_NONE,
	       "a completed task: nothing from Slurm (its done marker says)");
	is_str(t[0].slurm_state, "COMPLETED", "its word is kept");
	is_int(t[2].state, DL_TASK_RUNNING, "row 2 runs in the later array (squeue wins)");
	is_int(t[2].job, 1, "row 2: the later array");
	is_int(t[4].state, DL_TASK_QUEUED, "row 4 waits in the later array");
	is_int(t[3].state, DL_TASK_NONE, "a combined pending row names no single task");
	is_str(t[5].slurm_state, "CANCELLED by 0", "row 5 was cancelled");
	is_int(t[5].state, DL_TASK_NONE, "cancelled: not a failure (it stays missing)");
	/* without squeue (the later array over) the accounting says why the task ended */
	dl_sweep_slurm_states(&jobs, NULL, sacct, t, 6);
	is_int(t[2].state, DL_TASK_FAILED, "TIMEOUT is a failure");
	is_str(t[2].slurm_state, "TIMEOUT", "and says which");
	is_int(t[4].state, DL_TASK_FAILED, "FAILED too");
	is_int(t[1].state, DL_TASK_NONE, "row 1: nothing");
	/* an older array's row never overrides a later one's */
	dl_sweep_slurm_states(&jobs, NULL, "12_2|COMPLETED\n7_2|TIMEOUT\n", t, 6);
	is_int(t[2].state, DL_TASK_NONE, "the later array's COMPLETED stands");
	is_int(t[2].job, 1, "from array 12");
	/* a task index past the plan is ignored, not a write past tasks[] */
	dl_sweep_slurm_states(&jobs, "7_6|RUNNING\n7_-1|RUNNING\n", NULL, t, 6);
	for (size_t i = 0; i < 6; i++)
		is_int(t[i].state, DL_TASK_NONE, "row %zu untouched by foreign indices", i);
}

int main(void)
{
	test_states();
	return done_testing();
}
