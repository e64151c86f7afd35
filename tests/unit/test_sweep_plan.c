/* test_sweep_plan.c: a sweep's axes checked against option tables read as data */
#include <string.h>

#include "sweep/sweep.h"
#include "tap.h"

struct args {
	int n, flag, choice;
	double rate;
	const char *secret;
};

#define AT(f) DL_OPT_AT(struct args, f)
static const char *const colours[] = {"red", "blue", NULL};
static const struct dl_opt gen_table[] = {
	{DL_OPT_INT, 0, "n", "N", "a count", AT(n), .imin = 1, .imax = 5},
	{DL_OPT_DOUBLE, 0, "rate", "R", "a rate", AT(rate), .flags = DL_OPTF_GT},
	{DL_OPT_STRING, 0, "secret", "S", "hidden", AT(secret), .flags = DL_OPTF_HIDDEN},
	{DL_OPT_END},
};
static const struct dl_opt sim_table[] = {
	{DL_OPT_FLAG, 0, "flag", NULL, "a flag", AT(flag)},
	{DL_OPT_CHOICE, 0, "colour", "C", "a colour", AT(choice), .values = colours},
	{DL_OPT_FILE, 'c', "cluster", "SPEC", "the cluster", AT(secret)},
	{DL_OPT_END},
};
/* an alternative (a second policy) owning "rate" with its own range */
static const struct dl_opt sim_alt[] = {
	{DL_OPT_DOUBLE, 0, "rate", "R", "another rate", AT(rate), .min = -10, .max = -1},
	{DL_OPT_END},
};
#undef AT

static void test_tables(void)
{
	struct dl_sweep_cmdinfo gen = {"trace gen", NULL, 0}, sim = {"simulate", NULL, 0};
	dl_sweep_cmdinfo_add(&gen, gen_table);
	dl_sweep_cmdinfo_add(&sim, sim_table);
	dl_sweep_cmdinfo_add(&sim, sim_alt);
	is_int(gen.nopts, 2, "gen: two options (the hidden one left out)");
	is_int(sim.nopts, 4, "sim: four names (rate once, with two entries)");
	is_int(sim.opts[3].ndefs, 1, "rate in sim: its entry");
	is_int(sim.opts[2].is_file, 2, "a SPEC file: a file when one exists");

	struct dl_sweep_spec spec;
	struct dl_err err = DL_ERR_INIT;
	dl_sweep_spec_init(&spec);
	ok(!dl_sweep_spec_add(&spec, "n=1..3", 0, &gen, &sim, &err), "n=1..3: %s", err.msg);
	ok(dl_sweep_spec_add(&spec, "gen.n=2,9", 0, &gen, &sim, &err) < 0 &&
		   !strcmp(err.msg, "axis 'gen.n' value '9': trace gen: bad --n value '9' (an "
				    "integer in 1..5)"),
	   "a value out of the table's range, in the command's words: %s", err.msg);
	ok(dl_sweep_spec_add(&spec, "colour=red,green", 0, &gen, &sim, &err) < 0 &&
		   strstr(err.msg, "simulate: bad --colour value 'green' (one of red, blue)"),
	   "a choice not in the table: %s", err.msg);
	ok(!dl_sweep_spec_add(&spec, "colour=blue", 1, &gen, &sim, &err), "a good choice");
	ok(dl_sweep_spec_add(&spec, "secret=x", 1, &gen, &sim, &err) < 0 &&
		   strstr(err.msg, "unknown option 'secret'"),
	   "a hidden option is not offered: %s", err.msg);
	ok(dl_sweep_spec_add(&spec, "flag=on,maybe", 0, &gen, &sim, &err) < 0 &&
		   strstr(err.msg, "its values are on and off"),
	   "a flag: on and off: %s", err.msg);
	/* rate: gen wants > 0, sim's alternative [-10, -1]: each command checks its own */
	ok(dl_sweep_spec_add(&spec, "rate=-2", 1, &gen, &sim, &err) < 0 &&
		   strstr(err.msg, "trace gen: bad --rate value '-2' (a number > 0)"),
	   "both commands check a shared name: gen refuses -2: %s", err.msg);
	ok(dl_sweep_spec_add(&spec, "sim.rate=0.5", 1, &gen, &sim, &err) < 0 &&
		   strstr(err.msg, "simulate: bad --rate value '0.5'"),
	   "sim.rate: only simulate's entry: %s", err.msg);
	ok(!dl_sweep_spec_add(&spec, "sim.rate=-2", 1, &gen, &sim, &err), "sim.rate=-2: %s",
	   err.msg);
	dl_sweep_spec_release(&spec);
	dl_sweep_cmdinfo_release(&gen);
	dl_sweep_cmdinfo_release(&sim);
}

int main(void)
{
	test_tables();
	return done_testing();
}
