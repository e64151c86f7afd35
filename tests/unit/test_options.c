/*
 * test_options.c: the option parser (cmd/options.c) with more than one table, the way
 * cmd/simulate.c will add the tables that lib/sim policies declare: a command table and
 * a policy's parameter table, each filling its own struct.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd.h"
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

static char out[8192], err[8192];

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
	struct dl_opt_group more[] = {{mlfq_opts, m, "tiresias-las"}};
	char op[] = "/tmp/dl-test-options-XXXXXX", ep[] = "/tmp/dl-test-options-XXXXXX";
	int ofd = mkstemp(op), efd = mkstemp(ep);
	fflush(stdout);
	fflush(stderr);
	int so = dup(1), se = dup(2);
	dup2(ofd, 1);
	dup2(efd, 2);
	int rc = dl_opt_parse_groups(st, ctx, argc, argv, &sim_spec, a, more, 1);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	ssize_t n = pread(ofd, out, sizeof(out) - 1, 0);
	out[n > 0 ? n : 0] = 0;
	n = pread(efd, err, sizeof(err) - 1, 0);
	err[n > 0 ? n : 0] = 0;
	close(ofd);
	close(efd);
	unlink(op);
	unlink(ep);
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
	ok(dl_opt_group_given(&st, 1) && !strcmp(dl_opt_group_given(&st, 1)->name, "queues"),
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
	ok(strstr(out, "--queues\tK\tnumber of queues\t\tint\t3\t\n") != NULL,
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
	return done_testing();
}
