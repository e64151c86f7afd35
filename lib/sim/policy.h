/*
 * policy.h: the page a scheduling policy's author reads.
 *
 * The engine (lib/sim/engine.c) is the mechanism: it owns time, every job,
 * the GPUs and what each change costs. A policy only chooses: which queued
 * job starts, on which GPUs or GPU type, which running job stops, moves or
 * shares its GPUs. It keeps its own queues and per-job state, and it never
 * writes a field of struct dl_sim_job, charges time or counts a preemption:
 * a verb below does, the same way for every policy, so that two policies'
 * results differ only by their choices. Where a policy's model prices a
 * resume or move its own way (Dally's restart cost, Gandiva's suspend) it
 * names the price (how.pause, dl_sim_suspend's cost) and the engine charges
 * it. (Linux's struct sched_class draws the same line: the core switches
 * tasks and accounts for them, a class picks the next one.)
 *
 * A new policy is one file in lib/sim that defines a struct
 * dl_sim_policy_ops (below: name, summary, option table and params, create,
 * destroy and the callbacks), one line in registry.c and in policies.h, and
 * one section in man/dlsched-simulate.1.scd; `dlsched simulate`'s options,
 * --help and completions follow the registry. tests/unit/test_sim_policy.c
 * holds a whole one (round-robin) in about 120 lines.
 *
 * What the engine tells a policy (struct dl_sim_policy_ops):
 *   create/destroy  its state, from its parsed params (check() ran before)
 *   arrive          a job was submitted and is QUEUED
 *   saved           a preempted job's checkpoint is written: QUEUED again
 *   finish          a job completed; its GPUs are free (the job goes away)
 *   timer           a dl_sim_timer it set fired (or was superseded: stale)
 *   schedule        decide: once per instant, after that instant's events
 *
 * What a policy may do (the verbs; each counts, logs and costs itself):
 *   dl_sim_start(s, j, how)      start or resume a QUEUED job: with the run's
 *                                placer (--place, lib/policy/place.h), on a
 *                                GPU type, or on explicit GPUs, shared with
 *                                other jobs (packing) or not. A resume pauses
 *                                without progress (how.pause, or the engine's
 *                                rule: --restore-cost, or a suspension's
 *                                cost); how.moved makes it a migration.
 *   dl_sim_preempt(s, j)         stop a running job: it saves a checkpoint
 *                                for --checkpoint-cost seconds holding its
 *                                GPUs (SAVING), then is QUEUED (saved())
 *   dl_sim_suspend(s, j, cost)   stop it at once, no checkpoint (Gandiva's
 *                                suspend): QUEUED now, its GPUs free now, its
 *                                next resume pauses cost ticks
 *   dl_sim_migrate(s, j, g, n, pause)
 *                                move a running job to other GPUs; it pauses
 *                                pause seconds, or DL_SIM_PAUSE_RULE:
 *                                --checkpoint-cost + --restore-cost
 *   dl_sim_set_share(s, j, f)    run at fraction f of full speed (time slices
 *                                in one GPU set, interference when packed)
 *   dl_sim_timer(s, t, job, kind, stamp)
 *                                be called back at time t (exact: no time
 *                                steps) with those three values
 *   dl_sim_note(s, j, what, d)   add a policy event to --events
 *   dl_sim_policy_warning, dl_sim_policy_summary
 *                                a line for the user (stderr, simulate -v)
 * and ask: the clock, the cluster (with its indexes: each GPU's node, the
 * types fastest first; cluster.h), free GPUs, a job's speed on a type or
 * rate on given GPUs (dl_sim_rate_on), its counters brought up to now
 * (dl_sim_executed, dl_sim_waited, dl_sim_work_left), the run's placer for
 * trial placements (dl_sim_placer), and dl_sim_period_check for a policy
 * whose rounds or leases could be shorter than a swap costs.
 *
 * Time and events. The engine keeps exact next-event times in a binary heap
 * (O(log n) per event): arrivals (from the submit-sorted trace), completions
 * (recomputed whenever a job's rate changes), checkpoint ends and policy
 * timers. All events at one instant are delivered first (completions, then
 * checkpoint ends, then arrivals, then timers, each in a fixed order), then
 * ops->schedule runs once (only if one of them was real: superseded
 * completions and timers the policy calls stale do not count, so passes
 * happen at meaningful instants only); if that created more events at the
 * same instant (a zero-cost preemption frees GPUs at once), they are
 * delivered and schedule runs again. Accounting is lazy and exact: a job's
 * counters are brought up to date (dl_sim_sync) only when something asks.
 *
 * Exact time. Every time is an integer number of ticks (microseconds,
 * dl_tick) counted from the run's first submit, so differences are exact and
 * nothing depends on how far from the epoch a trace lies: shifting every
 * submit by any amount shifts every output time by that amount and changes
 * nothing else. A timer or completion is always at least now, and a timer a
 * tick ahead is a tick ahead at any magnitude, so the loop never spins on an
 * instant that does not advance. Work is counted in reference-GPU ticks; a
 * completion at a rate other than 1 is rounded to the nearest tick.
 *
 * Progress. A running job does work at rate speed / slowdown x share
 * reference-GPU ticks per tick: speed is the job's speed on the GPU type it
 * holds (the slowest, if several), slowdown the network cost model's factor
 * for its placement's tier (cluster/netcost.h; 1 when placed as consolidated
 * as possible), share what the policy set (1 by default). `duration` in the
 * trace is the work. A job's speed on type t (dl_sim_job_speed) is the
 * type's speed (cluster.h), or with a throughputs table (sim.h) its model's
 * throughput on t for its gang size over that on the reference type (Gavel's
 * per-model heterogeneity); the type's speed where the table has no entry,
 * and 0 where the throughput is 0 (the job cannot run there: the placer is
 * asked for its other types, fastest first). A job spread over nodes runs at
 * the table's TYPE_unconsolidated throughput when there is one (Gavel's
 * measured cost of spreading, reported as its slowdown) instead of the
 * network model's.
 *
 * Ownership: the engine owns every struct dl_sim_job (a pointer stays valid
 * while its job is active: see below) and the GPU arrays inside; policies
 * read its fields and change them only through the verbs above. A policy's
 * own state is created by ops->create and freed by ops->destroy; what it
 * keeps per job lives there too, indexed by j->slot (sim/slab.h sizes it).
 * Nothing here is global.
 */
#ifndef DL_SIM_POLICY_H
#define DL_SIM_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "cluster/cluster.h"
#include "cluster/netcost.h"
#include "core/err.h"
#include "core/opt.h"
#include "policy/place.h"
#include "sim/trace.h"

enum dl_sim_state {
	DL_SJ_FUTURE = 0, /* not submitted yet */
	DL_SJ_QUEUED,	  /* waiting for GPUs */
	DL_SJ_RUNNING,	  /* holding GPUs (making progress unless restoring) */
	DL_SJ_SAVING,	  /* preempted, writing its checkpoint, still holding GPUs */
	DL_SJ_DONE,
	DL_SJ_REJECTED, /* can never run on this cluster; left out of the results */
};

/*
 * An active job: one that has arrived and is not done or rejected yet. The
 * engine keeps these only while they are active (the rest of the trace is
 * 32 bytes a job: trace.h), in slots that are reused: j->slot is small (below
 * dl_sim_slots()), stays the job's from arrival to completion, and is what a
 * policy indexes its own per-job arrays with. Pointers stay valid while the
 * job is active; after the finish callback (or a rejection) the job is gone.
 */
struct dl_sim_job {
	/*
	 * Four cache lines (the engine's slots start each record on a line of
	 * its own), the fields grouped by who touches them: a job's counters
	 * brought up to now (at every start, preemption and completion) and
	 * what policies read most come first, a preemption touches the first
	 * three lines, a checkpoint end and a start the same three, and only
	 * results and events read the fourth.
	 */

	/* engine state; read-only to policies (the counters: dl_sim_executed, ...) */
	dl_tick since;	  /* the counters below are exact as of this time */
	dl_tick executed; /* ticks running (restores included) */
	dl_tick waited;	  /* ticks queued */
	double work_left; /* reference-GPU ticks still to do */
	double rate;	  /* work per tick while running and not restoring */
	double slowdown;  /* network cost of the GPUs held (1: none) */
	uint32_t idx;	  /* position in submit order (ties: input order): the job's name */
	uint32_t slot;	  /* see above */
	int gpus;	  /* gang size (more than the cluster has: total + 1) */
	int16_t type;	  /* required GPU type index, or DL_ANY_TYPE */
	uint8_t state;	  /* enum dl_sim_state */
	uint8_t tier;	  /* enum dl_tier of the GPUs held */

	dl_tick restore_until; /* no progress before this time */
	uint64_t version;      /* bumped on every change of state or rate */
	dl_tick finish_at;     /* when running: its completion as planned now */
	int *gpu;	       /* the GPUs held (global indices), ngpu of them */
	int gpu_near[8]; /* engine: gpu's room for a gang of up to 8, beside the fields above */

	int preemptions;
	int ngpu;
	double occupied; /* engine: GPU-ticks held, shared with the jobs packed alongside */
	double share;	 /* policy-set speed fraction, 1 by default */
	const struct dl_net_model *model; /* (from the trace) */
	dl_tick start;			  /* first start (-1 before) */
	dl_tick resume_cost; /* engine: after dl_sim_suspend, the next resume's pause (else -1) */
	int32_t tput_row;    /* engine: its throughputs entry (-1: none) */
	int gpu_cap;
	int16_t gpu_type; /* type index of the slowest GPU held (its speed sets the pace) */
	int migrations;

	double comm; /* ticks lost to placements (dl_sim_sync; comm_overhead_s) */
	/* from the trace; read-only */
	dl_tick submit;	  /* ticks after the run's first submit */
	dl_tick duration; /* the work: reference-GPU ticks */
	const char *id;	  /* the trace's id (a copy inside the job when short) */
	uint32_t id_len;
	char id_copy[16]; /* engine: short ids, so that a completion need not fetch the trace's */
} __attribute__((aligned(64)));

struct dl_sim;

/*
 * A policy. Its parameters are its own struct, params_size bytes, which its
 * option table (lib/core/opt.h) fills: `dlsched simulate` lists the table
 * under the policy's heading in --help and the man page, parses only the
 * chosen policy's options (two policies may each have a --quantum of their
 * own) and refuses the others'. An option group that several policies or
 * commands share (the MLFQ options: lib/policy/mlfq.h; Dally's timers) is
 * declared once and named in shared[], stored at its offset inside the
 * params (anywhere: its check hook gets its own struct). Library callers get
 * the defaults from dl_sim_params_new(); dl_sim_params_check() applies the
 * groups' and the policy's rules, as the command line does, and the engine
 * applies it again before create(). Setup that depends on the parameters or
 * the trace (MLFQ limits, a Gittins table) is create()'s.
 */
/* an option group the policy shares with others (struct dl_sim_policy_ops.shared) */
struct dl_sim_shared {
	const struct dl_opt *opts; /* the group's table, or NULL */
	size_t at;		   /* where in the policy's params it stores */
	const char *const
		*doc_defaults; /* "name=text" its users document, NULL-terminated, or NULL */
	/* the group's rules on its own struct (params + at): 0, or -1 with *err (optional) */
	int (*check)(const void *group, struct dl_err *err);
};
#define DL_SIM_MAX_SHARED 2

/*
 * simulate --compat NAME: the policy behaves like its reference simulator.
 * The command sets the policy's own (hidden) option `param` to 1, and the
 * engine settings the reference implies.
 */
struct dl_sim_compat {
	const char *name;  /* --compat's value: the reference ("gavel") */
	const char *param; /* the policy's flag that turns the reference's choices on */
	int no_swap_costs; /* preemption is free there: no --checkpoint-cost, --restore-cost */
};

struct dl_sim_policy_ops {
	const char *name;
	const char *summary;	   /* one line for --help and the man page */
	const struct dl_opt *opts; /* the policy's option table, or NULL */
	size_t params_size;	   /* size of the struct the tables store into */
	/* rules spanning options, after parsing: 0, or -1 with a usage message (optional) */
	int (*check)(const void *params, struct dl_err *err);
	/* create the policy's state (NULL with *err filled on failure); params as above */
	void *(*create)(struct dl_sim *s, const void *params, struct dl_err *err);
	void (*destroy)(void *st);
	/* j was submitted and is QUEUED */
	void (*arrive)(void *st, struct dl_sim *s, struct dl_sim_job *j);
	/* j finished its checkpoint after dl_sim_preempt and is QUEUED (optional) */
	void (*saved)(void *st, struct dl_sim *s, struct dl_sim_job *j);
	/* j completed; its GPUs are free again (j goes away after this call) */
	void (*finish)(void *st, struct dl_sim *s, struct dl_sim_job *j);
	/*
	 * A dl_sim_timer fired; job is DL_SIM_NOJOB for a job-less timer
	 * (optional). Return 1 if it changed something (then schedule runs at
	 * this instant), 0 if it was stale.
	 */
	int (*timer)(void *st, struct dl_sim *s, size_t job, int kind, uint64_t stamp);
	/* decide: called once per instant after that instant's events */
	void (*schedule)(void *st, struct dl_sim *s);
	/* shared option groups (see above), the unused ones zero */
	struct dl_sim_shared shared[DL_SIM_MAX_SHARED];
	/* the placement policy it implies unless --place is given ("gandiva"), or NULL */
	const char *place;
	/* its reference simulator's behaviour (simulate --compat), or NULL */
	const struct dl_sim_compat *compat;
};

#define DL_SIM_NOJOB SIZE_MAX

/* the built-in policies (lib/sim/registry.c), by name, or NULL */
const struct dl_sim_policy_ops *dl_sim_policy_find(const char *name);
/* all built-in policies, *n of them */
const struct dl_sim_policy_ops *const *dl_sim_policies(size_t *n);
/*
 * The policy a run without --policy gets: Tiresias' discretised LAS, which
 * needs no job durations and is the usual baseline of the later papers.
 */
#define DL_SIM_POLICY_DEFAULT "tiresias-las"
/*
 * A new params struct for ops, zeroed, with its tables' defaults stored (as
 * if no option were given), or NULL when it has none; free() it.
 */
void *dl_sim_params_new(const struct dl_sim_policy_ops *ops);
/*
 * Set option --name of ops to value in params, as the command line would:
 * 0, 1 when ops has no such option, -1 when the value is bad (nothing stored).
 */
int dl_sim_params_set(const struct dl_sim_policy_ops *ops, void *params, const char *name,
		      const char *value);
/* the shared groups' rules, then the policy's: 0, or -1 with a usage error in *err */
int dl_sim_params_check(const struct dl_sim_policy_ops *ops, const void *params,
			struct dl_err *err);

/* ---- calls for policies ---- */

/* the current time: ticks (microseconds) after the run's first submit */
dl_tick dl_sim_now(const struct dl_sim *s);
size_t dl_sim_njobs(const struct dl_sim *s);
/* the whole trace, every job in submit order (for policies that learn from it) */
const struct dl_sim_trace *dl_sim_trace_of(const struct dl_sim *s);
/* job idx's gang size (as in struct dl_sim_job), active or not */
int dl_sim_job_gpus(const struct dl_sim *s, size_t idx);
/* active job idx, or NULL when it has not arrived yet or is gone */
struct dl_sim_job *dl_sim_job(struct dl_sim *s, size_t idx);
/* slots used so far: every active job's slot is below this */
size_t dl_sim_slots(const struct dl_sim *s);
/* the active job in a slot (slot < dl_sim_slots() and in use) */
struct dl_sim_job *dl_sim_slot_job(struct dl_sim *s, size_t slot);
/*
 * Ask for the lines of a slot's record that dl_sim_sync, dl_sim_start and
 * dl_sim_preempt read (below dl_sim_slots(); any other slot: nothing), so
 * that they are at hand when a loop over jobs in no order of memory reaches
 * it: call it a few jobs ahead. A hint only: it changes nothing.
 */
void dl_sim_prefetch(struct dl_sim *s, size_t slot);
const struct dl_cluster *dl_sim_cluster(const struct dl_sim *s);
int dl_sim_total_gpus(const struct dl_sim *s);
int dl_sim_free_gpus(const struct dl_sim *s);
/* free GPUs on node `node` (an index of the cluster's nodes) */
int dl_sim_node_free(const struct dl_sim *s, int node);
/* free GPUs of type `type` (DL_ANY_TYPE: of every type): the sum of its nodes' in O(1) */
int dl_sim_type_free(const struct dl_sim *s, int type);
/* what a move costs by the engine's rule: --checkpoint-cost + --restore-cost, in ticks */
dl_tick dl_sim_migrate_cost(const struct dl_sim *s);
/*
 * A policy's period after which a running job may lose its GPUs to another
 * (a lease, a round): 0 if it is longer than a swap costs, --checkpoint-cost
 * plus the resume's cost (resume seconds, its option named resume_opt;
 * --restore-cost when resume_opt is NULL), else
 * -1 with a usage error naming --opt and that bound (the policy would thrash:
 * a job swapped in for one period would spend it saving and restoring).
 */
int dl_sim_period_check(const struct dl_sim *s, const char *opt, double period,
			const char *resume_opt, double resume, struct dl_err *err);
/* bring j's executed/waited/work_left up to now */
void dl_sim_sync(struct dl_sim *s, struct dl_sim_job *j);
/* j's counters as of now (each brings them up to date first) */
dl_tick dl_sim_executed(struct dl_sim *s, struct dl_sim_job *j); /* ticks running */
dl_tick dl_sim_waited(struct dl_sim *s, struct dl_sim_job *j);	 /* ticks queued */
double dl_sim_work_left(struct dl_sim *s, struct dl_sim_job *j); /* reference-GPU ticks */
/* seconds to ticks, rounded to the nearest (saturates far beyond any run) */
dl_tick dl_sim_ticks(double seconds);
/* the run's seed (--seed; also the random placement's) */
uint64_t dl_sim_seed(const struct dl_sim *s);
/* the run's throughputs table (sim.h), or NULL */
const struct dl_tputs *dl_sim_tputs(const struct dl_sim *s);
/* j's model name, or NULL */
const char *dl_sim_job_model(const struct dl_sim *s, const struct dl_sim_job *j);
/* j's user (the trace's user column), or NULL */
const char *dl_sim_job_user(const struct dl_sim *s, const struct dl_sim_job *j);
/* j's priority weight (the trace's weight column, 1 when absent) */
double dl_sim_job_weight(const struct dl_sim *s, const struct dl_sim_job *j);
/* j's speed on GPU type t relative to the reference type ("Progress" above); 0: cannot run */
double dl_sim_job_speed(const struct dl_sim *s, const struct dl_sim_job *j, int type);
/*
 * Steps per second of j on the reference type (its table entry), or 1 when
 * j runs at type speeds: j's throughput on t in steps per second is
 * dl_sim_job_speed(t) times this, and its steps are work times this.
 */
double dl_sim_job_ref_tput(const struct dl_sim *s, const struct dl_sim_job *j);

/* dl_sim_how.pause and dl_sim_migrate's pause: the engine's rule, not a number of seconds */
#define DL_SIM_PAUSE_RULE (-1.0)

/*
 * How dl_sim_start places a job. Build one with DL_SIM_HOW(...), whose
 * defaults are any type and the engine's pause, naming only what differs:
 * DL_SIM_HOW(.gpus = g, .shared = 1). A literal that sets .type or .pause
 * itself spells out both (zero would be GPU type 0, or no pause at all).
 */
struct dl_sim_how {
	int type;	 /* restrict to a GPU type index, or DL_ANY_TYPE */
	const int *gpus; /* explicit GPUs (global indices), or NULL for the placer */
	int shared;	 /* with explicit GPUs: they may be held by other jobs (packing) */
	double share;	 /* speed fraction (0 means 1) */
	int within; /* with the placer: its req.within (place.h: Dally's tiers), 0 = its policy */
	/*
	 * resuming: seconds without progress, or DL_SIM_PAUSE_RULE: a move pays
	 * --checkpoint-cost + --restore-cost, a resume after dl_sim_suspend the
	 * suspension's cost, any other resume --restore-cost
	 */
	double pause;
	/*
	 * resuming: the job's state comes here from other GPUs (a suspended job
	 * leaving an over-subscribed GPU set): counted as a migration and logged
	 * as "migrate"
	 */
	int moved;
};
#define DL_SIM_HOW(...) \
	((struct dl_sim_how){.type = DL_ANY_TYPE, .pause = DL_SIM_PAUSE_RULE, __VA_ARGS__})

/*
 * Start (or resume) queued job j now. Returns DL_PLACED, DL_WAIT (no room
 * now: try later) or DL_REJECT (it can never run here: the engine marks it
 * REJECTED, reports it, and j is gone). how may be NULL: DL_SIM_HOW().
 */
enum dl_decision dl_sim_start(struct dl_sim *s, struct dl_sim_job *j, const struct dl_sim_how *how);
void dl_sim_preempt(struct dl_sim *s, struct dl_sim_job *j);
/*
 * Move running j to n explicit GPUs, each free or held by j alone, pausing
 * pause seconds without progress (DL_SIM_PAUSE_RULE: --checkpoint-cost +
 * --restore-cost); counted as a migration. -1 (nothing done) if a GPU is
 * not free.
 */
int dl_sim_migrate(struct dl_sim *s, struct dl_sim_job *j, const int *gpus, int n, double pause);
/*
 * The run's placer (its policy is --place's): for policies that place with
 * req.within and hand the GPUs to dl_sim_migrate (after dl_place_release:
 * the engine takes them itself).
 */
struct dl_placer *dl_sim_placer(struct dl_sim *s);
/*
 * Suspend running j at once (Gandiva's suspend: its small state goes to host
 * memory at a mini-batch boundary, no checkpoint): it counts as a preemption,
 * gives its GPUs back now and is QUEUED; its next start pays resume_cost
 * ticks without progress instead of --restore-cost. Logged as "suspend".
 * A policy that hands the GPUs on (time slices) starts the next job on them
 * (shared) before suspending this one, so they never return to the placer.
 */
void dl_sim_suspend(struct dl_sim *s, struct dl_sim_job *j, dl_tick resume_cost);
void dl_sim_set_share(struct dl_sim *s, struct dl_sim_job *j, double share);
/* work per tick j would do on these n GPUs (speed / slowdown, share 1), not starting it */
double dl_sim_rate_on(struct dl_sim *s, const struct dl_sim_job *j, const int *gpus, int n);
/* wake the policy at time at (>= now) with (job, kind, stamp) */
void dl_sim_timer(struct dl_sim *s, dl_tick at, size_t job, int kind, uint64_t stamp);
/*
 * Skipping periodic work in closed form (gandiva's round-robin slices: a
 * set of jobs taking turns on the same GPUs advances by many slices at once).
 * The policy holds the job that runs while it skips, and afterwards restates
 * every job's counters to exactly what the skipped steps (suspends, resumes,
 * the engine's dl_sim_sync arithmetic) would have left. It owns that
 * exactness: results must be byte-identical to doing every step. Not with
 * --events (dl_sim_logs_events: each step writes rows there).
 */
int dl_sim_logs_events(const struct dl_sim *s);
/*
 * An order key for a completion: it sorts after every event made so far and
 * before every later one (at equal times the engine orders events by when
 * they were made); for dl_sim_counters.order.
 */
uint64_t dl_sim_order_mark(const struct dl_sim *s);
/* running j does not complete until dl_sim_restate (its completion event goes) */
void dl_sim_hold(struct dl_sim *s, struct dl_sim_job *j);
struct dl_sim_counters {
	dl_tick since; /* the counters below are as of this time (<= now) */
	dl_tick executed, waited;
	double work_left, comm;
	int preemptions;
	dl_tick restore_until;
	double occupied_add; /* GPU-ticks added to its occupied time (exact integers) */
	/*
	 * a running j's completion is planned as at its resume at `since`, and
	 * ordered among completions at the same time by this key
	 * (dl_sim_order_mark when the resume happened), or 0: as made now
	 */
	uint64_t order;
};
/* set j's counters (as of c->since); a running j's completion is planned again */
void dl_sim_restate(struct dl_sim *s, struct dl_sim_job *j, const struct dl_sim_counters *c);
/* remove the pending timer (at, kind, stamp): 0, or -1 when there is none */
int dl_sim_timer_cancel(struct dl_sim *s, dl_tick at, int kind, uint64_t stamp);
/* a problem the user should hear of, once (the first is kept; cut at 199 bytes) */
void dl_sim_policy_warning(struct dl_sim *s, const char *text);
/* a line about the run so far for simulate -v (replaces the last; cut at 199 bytes) */
void dl_sim_policy_summary(struct dl_sim *s, const char *text);
/* record a policy event ("demote", "promote", ...) with an optional detail */
void dl_sim_note(struct dl_sim *s, const struct dl_sim_job *j, const char *what,
		 const char *detail);

#endif
