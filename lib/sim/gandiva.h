/*
 * gandiva.h: the Gandiva driver's parameters and option table (OSDI'18,
 * Xiao et al.; the mechanism is described in gandiva.c and
 * dlsched-simulate(1), GANDIVA).
 *
 * The table is declared beside the driver (like the kernel's module_param):
 * `dlsched simulate` parses it into a struct dl_gandiva_params when gandiva
 * is the chosen policy and hands that struct to create().
 */
#ifndef DL_SIM_GANDIVA_H
#define DL_SIM_GANDIVA_H

#include "core/opt.h"

enum dl_gandiva_slice { DL_GANDIVA_ROUND_ROBIN = 0, DL_GANDIVA_FLUID = 1 };

struct dl_gandiva_params {
	double quantum;	     /* seconds of one time slice (and of introspection) */
	double suspend_cost; /* seconds without progress on every resume */
	int slice;	     /* enum dl_gandiva_slice */
	double interference; /* packed jobs run at this times the table's rates */
	int no_pack, no_migrate, no_introspection;
	/*
	 * Tests only (no option sets it): run the reference code, with none of
	 * the shortcuts that must not change a result (gandiva.c says which),
	 * so that a test can compare the two on the same trace.
	 */
	int slice_oracle;
};

extern const struct dl_opt dl_gandiva_opts[];

#endif
