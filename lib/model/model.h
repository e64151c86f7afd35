/*
 * model.h: tensor lists read from model files, and the skew figures computed
 * from them (Tiresias, NSDI'19: skewed models should be consolidated).
 *
 * Readers look at metadata only: the file is mapped read-only and only the
 * headers, pickles, protobuf field headers and index blocks are touched, never
 * the weight bytes (the one exception is the first bytes of a deflated .npz
 * member, which must be inflated to see its .npy header). The format is
 * detected from the content, never from the file name.
 *
 * Formats: safetensors; PyTorch zip (any root folder, nested checkpoints,
 * zip64) and the legacy non-zip pickle stream; ONNX (initializers, Constant
 * nodes, subgraphs, external data); NumPy .npy and .npz (stored or deflated);
 * GGUF v2/v3; TensorFlow checkpoint .index (tensor bundle); HDF5 (Keras .h5
 * weights, also inside a .keras archive when stored uncompressed).
 *
 * Limits: a metadata member read into memory (a pickle, a shard index's
 * JSON) is at most DL_MODEL_META_MAX bytes, and a pickle holds at most 4 Mi
 * objects; safetensors JSON headers keep the reference implementation's
 * 100 MB and .npy headers 1 MiB; a deflated member must not inflate to more
 * than its declared size. ONNX and TensorFlow protobufs are parsed in place,
 * never copied. Larger members are refused with a message naming them.
 *
 * Ownership: struct dl_model owns its tensor array and every tensor's name;
 * dl_model_release() frees them. dtype strings are static. Errors name the
 * file and the byte offset (and the archive entry, where there is one):
 * "m.pt: entry 'm/data.pkl': offset 120: unknown pickle opcode 0xff".
 */
#ifndef DL_MODEL_H
#define DL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/common.h"

enum dl_model_format {
	DL_MODEL_AUTO = 0,
	DL_MODEL_SAFETENSORS,
	DL_MODEL_TORCH_ZIP,
	DL_MODEL_TORCH_LEGACY,
	DL_MODEL_ONNX,
	DL_MODEL_NPY,
	DL_MODEL_NPZ,
	DL_MODEL_GGUF,
	DL_MODEL_TF_INDEX,
	DL_MODEL_HDF5,
	/* only for dl_model_parse(): a zip (torch or npz, by its members), one bare pickle */
	DL_MODEL_ZIP,
	DL_MODEL_PICKLE,
};

/* Why a tensor is (not) counted as a model weight by default. */
enum dl_tensor_role {
	DL_ROLE_WEIGHT = 0, /* trainable weight: counted */
	DL_ROLE_BUFFER,	    /* BatchNorm running statistics, step counters */
	DL_ROLE_OPTIMIZER,  /* optimizer state (exp_avg, momentum, TF slots) */
	DL_ROLE_CONSTANT,   /* ONNX Constant node values (mostly shape constants) */
	DL_ROLE_OTHER,	    /* non-numeric (strings, object graphs) */
};

#define DL_MODEL_MAX_DIMS 32
/* the largest metadata member read into memory (pickle, index JSON): 64 MiB */
#define DL_MODEL_META_MAX (64 << 20)

struct dl_tensor {
	char *name;
	const char *dtype; /* "f32", "bf16", "q4_k", ... ; "unknown" when not known */
	int ndim;
	int64_t shape[DL_MODEL_MAX_DIMS]; /* outermost first (GGUF dims are reversed) */
	int64_t numel;
	int64_t bytes; /* size of the data; -1 when unknown */
	enum dl_tensor_role role;
};

struct dl_model {
	enum dl_model_format format;
	struct dl_tensor *t;
	size_t n, alloc;
};

#define DL_MODEL_INIT                     \
	{                                 \
		DL_MODEL_AUTO, NULL, 0, 0 \
	}

/* "safetensors", "pytorch", "pytorch-legacy", "onnx", "npy", "npz", "gguf", "tf-checkpoint",
 * "hdf5" */
const char *dl_model_format_name(enum dl_model_format f);
const char *dl_tensor_role_name(enum dl_tensor_role r);

/*
 * Read the model file at path (a regular file); on failure *m holds nothing.
 * A sharded checkpoint's index JSON ({"weight_map": ...}) reads its shards,
 * found beside it, as one model.
 */
int dl_model_read(const char *path, struct dl_model *m, struct dl_err *err);
/* Parse a model held in memory; name is used in messages; fmt DL_MODEL_AUTO detects. */
int dl_model_parse(const char *name, const unsigned char *buf, size_t len, enum dl_model_format fmt,
		   struct dl_model *m, struct dl_err *err);
void dl_model_release(struct dl_model *m);

/*
 * Keep only the tensors under key path prefix ("state_dict", "model/ema"):
 * named prefix itself or prefix followed by '.' or '/'. The prefix and its
 * separator are removed from the names. Returns the number kept.
 */
size_t dl_model_select(struct dl_model *m, const char *prefix);

/* Is tensor t part of the profile (all: every tensor, not only weights)? */
int dl_tensor_counted(const struct dl_tensor *t, int all);

/* ---- skew (lib/model/skew.c) ---- */

/*
 * Loads of P parameter servers under round-robin assignment (tensor i to
 * server i mod P, the Tiresias simulator's model): max load / mean load.
 * 0 when the sizes sum to 0.
 */
double dl_skew_rr(const int64_t *sizes, size_t n, int ps);
/* the same ratio when each tensor, largest first, goes to the least loaded server */
double dl_skew_greedy(const int64_t *sizes, size_t n, int ps);
/* (skew_rr - 1) / (ps - 1) clamped to [0, 1]; 0 when ps == 1 */
double dl_sensitivity(double skew_rr, int ps);

struct dl_profile {
	size_t tensors;
	int64_t params;
	int64_t bytes; /* sum of the counted tensors' known sizes */
	double largest_share;
	double skew_rr, skew_greedy, sensitivity;
	int ps;
	int consolidate; /* skew_rr > threshold */
};

/* Profile the counted tensors of m in file order. */
void dl_profile_model(const struct dl_model *m, int ps, double threshold, int all,
		      struct dl_profile *out);

#endif
