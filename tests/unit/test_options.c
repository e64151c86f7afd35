/*
 * test_options.c: the option parser (cmd/options.c) with more than one table, the way
 * cmd/simulate.c will add the tables that lib/sim policies declare: a command table and
 * a policy's parameter table, each filling its own struct.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd.h"
#include "capture.h"
#include "tap.h"

/* ---- as a command declares its options ---- */
struct sim_args {
	const char *cluster, *policy;
	uint64_t seed;
};
static const char *policy_at(size_t i)
{
	static const char *const names[] = {"fifo", "tiresias-las"};
	return i < DL_ARRAY_SIZE(names) ? names[i] : NULL;
}
#define A(f) DL_OPT_AT(struct sim_args, f)
static const struct dl_opt sim_opts[] = {
	{DL_OPT_FILE, 'c', "cluster", "SPEC", "the cluster", A(cluster)},
	{DL_OPT_CHOICE, 0, "policy", "P", "scheduling policy", A(policy), .value_at = policy_at,
	 .def = "fifo", .flags = DL_OPTF_OPEN},
	{DL_OPT_UINT64, 0, "seed", "N", "seed", A(seed), .def = "1"},
	{DL_OPT_END},
};
static const struct dl_cmd_spec sim_spec = {
	.usage = "dlsched simulate [options] TRACE",
	.opts = sim_opts,
};

/* ---- as a lib/sim policy declares its parameters (module_param style) ---- */
struct mlfq_params {
	int queues;
	double delta;
	const char *thresholds;
};
#define M(f) DL_OPT_AT(struct mlfq_params, f)
static const struct dl_opt mlfq_opts[] = {
	{DL_OPT_INT, 0, "queues", "K", "number of queues", M(queues), .imin = 1, .imax = 64,
	 .def = "3"},
	{DL_OPT_DOUBLE, 0, "delta", "S", "Gittins quantum", M(delta), .flags = DL_OPTF_GT,
	 .def = "3250"},
	{DL_OPT_NUMLIST, 0, "thresholds", "LIST", "queue limits", M(thresholds),
	 .flags = DL_OPTF_GT},
	{DL_OPT_END},
};

/* ---- alternatives: two policies with a --quantum each (simulate's deferred groups) ---- */
struct q_params {
	double quantum;
	int depth;
};
static const struct dl_opt las_opts[] = {
	{DL_OPT_SECONDS, 0, "quantum", "S", "las quantum", DL_OPT_AT(struct q_params, quantum),
	 .def = "300"},
	{DL_OPT_END},
};
static const struct dl_opt gandiva_opts[] = {
	{DL_OPT_SECONDS, 0, "quantum", "S", "time slice", DL_OPT_AT(struct q_params, quantum),
	 .def = "60", .min = -1, .max = 600},
	{DL_OPT_INT, 0, "depth", "N", "packing depth", DL_OPT_AT(struct q_params, depth), .imin = 1,
	 .imax = 4, .def = "2"},
	{DL_OPT_END},
};

static char out[8192], err[8192];
static const struct dl_opt_group *alt_groups; /* NULL: the mlfq group */
static size_t alt_n;

/* parse argv with both tables, capturing standard output and error */
static int parse(struct dl_optstate *st, struct dl_ctx *ctx, struct sim_args *a,
		 struct mlfq_params *m, char **argv)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	memset(ctx, 0, sizeof(*ctx));
	ctx->cmdname = "simulate";
	memset(a, 0, sizeof(*a));
	memset(m, 0, sizeof(*m));
	struct dl_opt_group more[] = {{mlfq_opts, m, "tiresias-las", 0, NULL}};
	struct capture c;
	capture_begin(&c);
	int rc = alt_groups
			 ? dl_opt_parse_groups(st, ctx, argc, argv, &sim_spec, a, alt_groups, alt_n)
			 : dl_opt_parse_groups(st, ctx, argc, argv, &sim_spec, a, more, 1);
	capture_end(&c);
	capture_text(&c, 1, out, sizeof(out));
	capture_text(&c, 2, err, sizeof(err));
	capture_free(&c);
	return rc;
}

int main(void)
{
	struct dl_optstate st;
	struct dl_ctx ctx;
	struct sim_args a;
	struct mlfq_params m;

	char *ok_argv[] = {"simulate",	"--queues", "5",    "-c", "1x1x8",
			   "trace.csv", "-f",	    "json", NULL};
	ok(parse(&st, &ctx, &a, &m, ok_argv) == 0, "both tables parse");
	is_int(m.queues, 5, "the policy's option lands in the policy's struct");
	is_double(m.delta, 3250, 0, "the policy's default is stored");
	ok(m.thresholds == NULL, "an option without default stays unset");
	is_str(a.cluster, "1x1x8", "the command's option lands in the command's struct");
	is_str(a.policy, "fifo", "open choice default");
	is_int(a.seed, 1, "command default");
	is_int(ctx.format, DL_OUT_JSON, "common options land in the context");
	ok(ctx.format_set, "-f given");
	is_int(dl_opt_given(&st, "queues"), 1, "given counts");
	is_int(dl_opt_given(&st, "delta"), 0, "not given");
	ok(dl_opt_group_given(&st, mlfq_opts) &&
		   !strcmp(dl_opt_group_given(&st, mlfq_opts)->name, "queues"),
	   "the policy group reports its option that was given");
	ok(st.optind < 8 && !strcmp(ok_argv[st.optind], "trace.csv"),
	   "positional arguments after the options");
	is_str(err, "", "nothing on stderr");

	char *bad_argv[] = {"simulate", "--delta", "0", NULL};
	ok(parse(&st, &ctx, &a, &m, bad_argv) != 0 && st.exit_code == DL_EXIT_USAGE,
	   "a bad value in the policy's table is a usage error");
	is_str(err, "dlsched simulate: bad --delta value '0' (a number > 0)\n",
	       "one message, from the policy's table");

	char *typo_argv[] = {"simulate", "--queuse", "2", NULL};
	ok(parse(&st, &ctx, &a, &m, typo_argv) != 0, "unknown option");
	is_str(err,
	       "dlsched simulate: unknown option '--queuse' (did you mean --queues?); see "
	       "'dlsched simulate --help'\n",
	       "suggestions come from every table");

	char *help_argv[] = {"simulate", "--help", NULL};
	ok(parse(&st, &ctx, &a, &m, help_argv) != 0 && st.exit_code == 0, "--help exits 0");
	ok(strstr(out, "\ntiresias-las options:\n      --queues K") != NULL,
	   "--help shows the policy's options under its heading");
	ok(strstr(out, "number of queues (default 3)") != NULL, "with the default");

	char *man_argv[] = {"simulate", "--man-options", NULL};
	parse(&st, &ctx, &a, &m, man_argv);
	ok(strstr(out, "@group own tiresias-las\n*--queues* _K_\n") != NULL,
	   "the man page list has the policy's group");
	ok(strstr(out, "An integer in 1..64. Default: 3.") != NULL, "with its range and default");

	char *list_argv[] = {"simulate", "--list-options", NULL};
	parse(&st, &ctx, &a, &m, list_argv);
	ok(strstr(out, "--queues\tK\tnumber of queues\t\tint\t3\t\ttiresias-las\n") != NULL,
	   "the completions see the policy's options");

	char *open_argv[] = {"simulate", "--policy", "lottery", NULL};
	ok(parse(&st, &ctx, &a, &m, open_argv) == 0, "an open choice is the owner's to check");
	fflush(stderr);
	int se = dup(2), null = open("/dev/null", 1);
	dup2(null, 2);
	int rc = dl_opt_bad_value(&st, "policy", a.policy);
	dup2(se, 2);
	close(se);
	close(null);
	is_int(rc, DL_EXIT_USAGE, "dl_opt_bad_value is a usage error");

	/* alternatives: only the chosen one's options apply, each with its own default */
	const struct dl_opt_group alts[] = {
		{las_opts, NULL, "las", DL_GROUP_DEFER, NULL},
		{gandiva_opts, NULL, "gandiva", DL_GROUP_DEFER, NULL},
	};
	alt_groups = alts;
	alt_n = 2;
	struct q_params qp;
	char *alt_argv[] = {"simulate", "--quantum", "30", "--depth", "3", NULL};
	ok(parse(&st, &ctx, &a, &m, alt_argv) == 0, "one name in two alternatives parses");
	memset(&qp, 0, sizeof(qp));
	dl_opt_choose(&st, gandiva_opts, &qp);
	ok(dl_opt_apply(&st, "--policy") == 0, "applied to the chosen one");
	ok(qp.quantum == 30 && qp.depth == 3, "its values stored");
	char *none_argv[] = {"simulate", NULL};
	parse(&st, &ctx, &a, &m, none_argv);
	memset(&qp, 0, sizeof(qp));
	dl_opt_choose(&st, las_opts, &qp);
	ok(dl_opt_apply(&st, "--policy") == 0 && qp.quantum == 300, "las' own default");
	parse(&st, &ctx, &a, &m, none_argv);
	memset(&qp, 0, sizeof(qp));
	dl_opt_choose(&st, gandiva_opts, &qp);
	ok(dl_opt_apply(&st, "--policy") == 0 && qp.quantum == 60 && qp.depth == 2,
	   "gandiva's own defaults");
	/* the chosen table's range decides: 900 is a good las quantum, not a gandiva one */
	char *range_argv[] = {"simulate", "--quantum", "900", NULL};
	ok(parse(&st, &ctx, &a, &m, range_argv) == 0, "900 parses (las takes it)");
	memset(&qp, 0, sizeof(qp));
	dl_opt_choose(&st, gandiva_opts, &qp);
	fflush(stderr);
	se = dup(2);
	int ef = open("/tmp", O_TMPFILE | O_RDWR, 0600);
	dup2(ef, 2);
	rc = dl_opt_apply(&st, "--policy");
	char *depth_argv[] = {"simulate", "--depth", "3", NULL};
	fflush(stderr);
	dup2(se, 2);
	is_int(rc, DL_EXIT_USAGE, "gandiva refuses it");
	ssize_t n = pread(ef, err, sizeof(err) - 1, 0);
	err[n > 0 ? n : 0] = 0;
	close(ef);
	is_str(err,
	       "dlsched simulate: bad --quantum value '900' (a number of seconds in -1..600)\n",
	       "with its own range");
	ok(parse(&st, &ctx, &a, &m, depth_argv) == 0, "--depth parses");
	memset(&qp, 0, sizeof(qp));
	dl_opt_choose(&st, las_opts, &qp);
	ef = open("/tmp", O_TMPFILE | O_RDWR, 0600);
	fflush(stderr);
	dup2(ef, 2);
	rc = dl_opt_apply(&st, "--policy");
	fflush(stderr);
	dup2(se, 2);
	close(se);
	n = pread(ef, err, sizeof(err) - 1, 0);
	err[n > 0 ? n : 0] = 0;
	close(ef);
	is_int(rc, DL_EXIT_USAGE, "an option of a policy not chosen is a usage error");
	is_str(err,
	       "dlsched simulate: --depth applies to --policy gandiva; see 'dlsched simulate "
	       "--help'\n",
	       "naming the policies that own it");
	char *badq_argv[] = {"simulate", "--quantum", "x", NULL};
	ok(parse(&st, &ctx, &a, &m, badq_argv) != 0 && st.exit_code == DL_EXIT_USAGE,
	   "a value no table takes fails at once");
	is_str(err, "dlsched simulate: bad --quantum value 'x' (a number of seconds >= 0)\n",
	       "whatever the choice");
	char *halp_argv[] = {"simulate", "--help", NULL};
	parse(&st, &ctx, &a, &m, halp_argv);
	ok(strstr(out,
		  "\nlas options:\n      --quantum S            las quantum (default 300)\n") &&
		   strstr(out,
			  "\ngandiva options:\n      --quantum S            time slice (default 60)\n"),
	   "--help lists each alternative's --quantum under its heading");
	/* a value only the second table takes is no parse error: the choice decides */
	char *wide_argv[] = {"simulate", "--quantum", "-1", NULL};
	ok(parse(&st, &ctx, &a, &m, wide_argv) == 0, "-1 parses (gandiva takes it)");
	memset(&qp, 0, sizeof(qp));
	dl_opt_choose(&st, gandiva_opts, &qp);
	ok(dl_opt_apply(&st, "--policy") == 0 && qp.quantum == -1, "and gandiva stores it");
	char *abbr_argv[] = {"simulate", "--quan", "5", NULL};
	ok(parse(&st, &ctx, &a, &m, abbr_argv) == 0,
	   "an abbreviation of a shared name is not ambiguous");
	alt_groups = NULL;
	return done_testing();
}
