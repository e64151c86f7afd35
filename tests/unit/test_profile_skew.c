/*
 * test_profile_skew.c: the skew figures against the Tiresias simulator's own
 * model data (simulator/models.py tensor sizes in MB, x10 to make them exact
 * integers) and its round-robin formula (jobs.py: ps_idx = i % num_ps,
 * ps_max_ave = max / mean); expected values computed independently in Python.
 */
#include "model/model.h"
#include "tap.h"

static const int64_t vgg16[] = {11, 23, 23, 45, 90, 90, 90, 90, 90, 3920, 640, 156};
static const int64_t alexnet[] = {12, 25, 51, 34, 1440, 640, 156};
static const int64_t resnet50[] = {20, 23, 23, 23, 23, 23, 23, 80, 20,
				   90, 40, 40, 90, 40, 40, 90, 40, 78};

int main(void)
{
	is_double(dl_skew_rr(vgg16, 12, 4), 3.0622627182991646, 1e-12, "vgg16 rr P=4");
	is_double(dl_skew_greedy(vgg16, 12, 4), 2.9764616552771455, 1e-12, "vgg16 greedy P=4");
	is_double(dl_skew_rr(vgg16, 12, 2), 1.6416097190584662, 1e-12, "vgg16 rr P=2");
	is_double(dl_skew_rr(alexnet, 7, 4), 2.4631043256997454, 1e-12, "alexnet rr P=4");
	is_double(dl_skew_greedy(alexnet, 7, 4), 2.4427480916030535, 1e-12, "alexnet greedy");
	is_double(dl_skew_rr(resnet50, 18, 4), 1.260545905707196, 1e-12, "resnet50 rr P=4");
	is_double(dl_skew_greedy(resnet50, 18, 4), 1.057071960297767, 1e-12, "resnet50 greedy");

	/* bounds: 1 when balanced, P when one server has everything, 0 when empty */
	static const int64_t even[] = {5, 5, 5, 5};
	static const int64_t one[] = {7};
	is_double(dl_skew_rr(even, 4, 4), 1.0, 0, "balanced");
	is_double(dl_skew_rr(one, 1, 8), 8.0, 0, "single tensor on 8 servers");
	is_double(dl_skew_greedy(one, 1, 8), 8.0, 0, "single tensor greedy");
	is_double(dl_skew_rr(NULL, 0, 4), 0.0, 0, "no tensors");
	is_double(dl_skew_rr(vgg16, 12, 1), 1.0, 0, "one server");
	/* greedy is never worse than round-robin on these lists */
	ok(dl_skew_greedy(resnet50, 18, 8) <= dl_skew_rr(resnet50, 18, 8), "greedy <= rr");

	is_double(dl_sensitivity(1.0, 4), 0.0, 0, "balanced: not sensitive");
	is_double(dl_sensitivity(4.0, 4), 1.0, 0, "all on one server: fully sensitive");
	is_double(dl_sensitivity(2.5, 4), 0.5, 1e-15, "midway");
	is_double(dl_sensitivity(3.0, 1), 0.0, 0, "one server: 0");

	/* dl_profile_model counts weights only unless asked */
	struct dl_tensor t[3] = {
		{.name = "fc.weight", .dtype = "f32", .numel = 300, .bytes = 1200},
		{.name = "bn.running_mean",
		 .dtype = "f32",
		 .numel = 100,
		 .bytes = 400,
		 .role = DL_ROLE_BUFFER},
		{.name = "fc.bias", .dtype = "f32", .numel = 100, .bytes = 400},
	};
	struct dl_model m = {DL_MODEL_SAFETENSORS, t, 3, 3};
	struct dl_profile p;
	dl_profile_model(&m, 2, 1.4, 0, &p);
	is_int(p.tensors, 2, "weights only");
	is_int(p.params, 400, "params");
	is_int(p.bytes, 1600, "bytes");
	is_double(p.largest_share, 0.75, 0, "largest share");
	is_double(p.skew_rr, 1.5, 0, "skew_rr P=2");
	is_int(p.consolidate, 1, "1.5 > 1.4: consolidate");
	dl_profile_model(&m, 2, 1.4, 1, &p);
	is_int(p.tensors, 3, "all tensors");
	is_double(p.skew_rr, 1.6, 1e-15, "skew_rr of all tensors");
	return done_testing();
}
