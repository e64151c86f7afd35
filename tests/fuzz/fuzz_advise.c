/*
 * fuzz_advise.c: arbitrary bytes through the queue reader of dlsched advise
 * (squeue -o text, or squeue --json when they start with '{'). A queue that
 * parses must plan under fifo and 2d-las with both mechanisms: every job id
 * is one scontrol may see, the new priorities fall strictly in the policy's
 * order, and a kept job keeps its priority.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "advise/advise.h"

static void plan(const struct dl_adv_queue *q, enum dl_policy policy, enum dl_adv_mech mech)
{
	struct dl_prio_config cfg = {.policy = policy};
	struct dl_adv_filter any = {0};
	struct dl_adv_plan p;
	struct dl_err err = DL_ERR_INIT;
	if (dl_adv_plan_build(q, &cfg, &any, mech, 1e9, &p, &err))
		return; /* (no room in Slurm's range: an error, not a crash) */
	for (size_t r = 0; r < p.n; r++) {
		const struct dl_adv_item *it = &p.items[r];
		if (strspn(it->job->id, "0123456789_[],-%") != strlen(it->job->id))
			abort();
		if (r && p.items[r - 1].new_priority <= it->new_priority)
			abort();
		if (!it->change && it->new_priority != it->job->priority)
			abort();
	}
	struct strbuf sb = STRBUF_INIT;
	dl_adv_plan_text(&p, dl_policy_name(policy), &sb);
	sb_release(&sb);
	dl_adv_plan_release(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dl_adv_queue q;
	struct dl_err err = DL_ERR_INIT;
	if (dl_adv_queue_parse(&q, "fuzz", (const char *)data, size, &err))
		return 0;
	dl_adv_attained(&q, NULL, 1e9, &err);
	plan(&q, DL_POLICY_FIFO, DL_ADV_NICE);
	plan(&q, DL_POLICY_LAS2D, DL_ADV_PRIORITY);
	dl_adv_queue_release(&q);
	return 0;
}
