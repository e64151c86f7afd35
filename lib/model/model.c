/* model.c: format detection, file mapping and the tensor list shared by every reader */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/model_int.h"

static const char *const format_names[] = {
	[DL_MODEL_AUTO] = "unknown",
	[DL_MODEL_SAFETENSORS] = "safetensors",
	[DL_MODEL_TORCH_ZIP] = "pytorch",
	[DL_MODEL_TORCH_LEGACY] = "pytorch-legacy",
	[DL_MODEL_ONNX] = "onnx",
	[DL_MODEL_NPY] = "npy",
	[DL_MODEL_NPZ] = "npz",
	[DL_MODEL_GGUF] = "gguf",
	[DL_MODEL_TF_INDEX] = "tf-checkpoint",
	[DL_MODEL_ZIP] = "zip",
	[DL_MODEL_PICKLE] = "pickle",
	[DL_MODEL_HDF5] = "hdf5",
};

const char *dl_model_format_name(enum dl_model_format f)
{
	if ((size_t)f < DL_ARRAY_SIZE(format_names))
		return format_names[f];
	return "unknown";
}

const char *dl_tensor_role_name(enum dl_tensor_role r)
{
	switch (r) {
	case DL_ROLE_WEIGHT:
		return "weight";
	case DL_ROLE_BUFFER:
		return "buffer";
	case DL_ROLE_OPTIMIZER:
		return "optimizer";
	case DL_ROLE_CONSTANT:
		return "constant";
	case DL_ROLE_OTHER:
		break;
	}
	return "other";
}

int merr(struct mctx *c, const char *entry, uint64_t off, const char *fmt, ...)
{
	char body[DL_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	if (!entry)
		entry = c->entry;
	if (entry)
		return dl_err_set(c->err, DL_EXIT_DATA, "%s: entry '%s': offset %llu: %s", c->file,
				  entry, (unsigned long long)off, body);
	return dl_err_set(c->err, DL_EXIT_DATA, "%s: offset %llu: %s", c->file,
			  (unsigned long long)off, body);
}

struct dl_tensor *model_add(struct dl_model *m, const char *name, size_t len)
{
	DL_GROW(m->t, m->n + 1, m->alloc);
	struct dl_tensor *t = &m->t[m->n++];
	memset(t, 0, sizeof(*t));
	t->name = xstrndup(name, len);
	t->dtype = "unknown";
	t->numel = 1;
	t->bytes = -1;
	t->role = role_from_name(t->name);
	return t;
}

int tensor_set_shape(struct dl_tensor *t, const int64_t *dims, int ndim, const char **why)
{
	if (ndim < 0 || ndim > DL_MODEL_MAX_DIMS) {
		*why = "too many dimensions";
		return -1;
	}
	int64_t n = 1;
	for (int i = 0; i < ndim; i++) {
		if (dims[i] < 0) {
			*why = "negative dimension";
			return -1;
		}
		if (__builtin_mul_overflow(n, dims[i], &n)) {
			*why = "shape overflows 64 bits";
			return -1;
		}
		t->shape[i] = dims[i];
	}
	t->ndim = ndim;
	t->numel = n;
	return 0;
}

void tensor_set_bytes(struct dl_tensor *t, int64_t elem)
{
	int64_t b;
	if (elem <= 0 || __builtin_mul_overflow(t->numel, elem, &b))
		t->bytes = -1;
	else
		t->bytes = b;
}

/* does name end with the component suf (after '.' or '/', before an optional ":N")? */
static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);
	const char *colon = strrchr(s, ':');
	if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1))
		n = (size_t)(colon - s); /* Keras/TF variable names end in ":0" */
	return n >= k && !memcmp(s + n - k, suf, k) &&
	       (n == k || s[n - k - 1] == '.' || s[n - k - 1] == '/');
}

/*
 * Weights only by default: the Tiresias profile is about what the parameter
 * servers exchange every step, which is the trainable weights.
 */
enum dl_tensor_role role_from_name(const char *name)
{
	static const char *const buffers[] = {
		"running_mean", "running_var", "num_batches_tracked", "save_counter",
		"global_step",	"moving_mean", "moving_variance"};
	for (size_t i = 0; i < DL_ARRAY_SIZE(buffers); i++)
		if (ends_with(name, buffers[i]))
			return DL_ROLE_BUFFER;
	if (strstr(name, "_CHECKPOINTABLE_OBJECT_GRAPH"))
		return DL_ROLE_OTHER;
	if (strstr(name, ".OPTIMIZER_SLOT"))
		return DL_ROLE_OPTIMIZER;
	/* a checkpoint's optimizer state: a path component named optimizer* or optim* */
	for (const char *p = name; *p;) {
		if (!strncmp(p, "optim", 5))
			return DL_ROLE_OPTIMIZER;
		p += strcspn(p, "./");
		if (*p)
			p++;
	}
	return DL_ROLE_WEIGHT;
}

size_t dl_model_select(struct dl_model *m, const char *prefix)
{
	size_t k = strlen(prefix), kept = 0;
	for (size_t i = 0; i < m->n; i++) {
		struct dl_tensor *t = &m->t[i];
		const char *nm = t->name;
		if (strncmp(nm, prefix, k) || (nm[k] && nm[k] != '.' && nm[k] != '/')) {
			free(t->name);
			continue;
		}
		if (nm[k]) { /* drop "prefix." but keep a tensor named exactly prefix */
			memmove(t->name, nm + k + 1, strlen(nm + k + 1) + 1);
			t->role = role_from_name(t->name);
		}
		m->t[kept++] = *t;
	}
	m->n = kept;
	return kept;
}

int dl_tensor_counted(const struct dl_tensor *t, int all)
{
	return all || t->role == DL_ROLE_WEIGHT;
}

void dl_model_release(struct dl_model *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->t[i].name);
	free(m->t);
	m->t = NULL;
	m->n = m->alloc = 0;
}

static const unsigned char TF_MAGIC[8] = {0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb};
static const unsigned char HDF5_MAGIC[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

static int is_hdf5(const unsigned char *b, size_t n)
{
	/* the superblock may follow a user block of 512, 1024, 2048... bytes */
	for (size_t off = 0; off + 8 <= n && off <= (1u << 20); off = off ? off * 2 : 512)
		if (!memcmp(b + off, HDF5_MAGIC, 8))
			return 1;
	return 0;
}

/* A protobuf whose first field is ONNX's ir_version (field 1, varint) or graph. */
static int looks_onnx(const unsigned char *b, size_t n)
{
	if (n < 2)
		return 0;
	if (b[0] == 0x08 && b[1] < 0x80 && b[1] <= 64)
		return 1;
	/* fields in another order: every top-level field must parse and graph (7) be there */
	struct pb pb = {b, b + n, b};
	struct pb_field f;
	const char *why;
	int r, graph = 0, nf = 0;
	while ((r = pb_next(&pb, &f, &why)) > 0) {
		nf++;
		if (f.num == 7 && f.wt == 2)
			graph = 1;
		if (f.num == 0 || f.num > 32)
			return 0;
	}
	return r == 0 && graph && nf >= 1;
}

static enum dl_model_format detect(struct mctx *c, const char **refuse)
{
	const unsigned char *b = c->base;
	size_t n = c->size;
	*refuse = NULL;
	if (n >= 4 && b[0] == 'P' && b[1] == 'K' &&
	    ((b[2] == 3 && b[3] == 4) || (b[2] == 5 && b[3] == 6)))
		return DL_MODEL_ZIP;
	if (n >= 6 && !memcmp(b, "\x93NUMPY", 6))
		return DL_MODEL_NPY;
	if (n >= 4 && !memcmp(b, "GGUF", 4))
		return DL_MODEL_GGUF;
	if (n >= 4 && b[0] == 0x80 && b[1] == 2 && b[2] == 0x8a && b[3] == 0x0a)
		return DL_MODEL_TORCH_LEGACY;
	if (is_hdf5(b, n))
		return DL_MODEL_HDF5;
	if (n >= 262 && !memcmp(b + 257, "ustar", 5)) {
		*refuse = "tar archive (PyTorch's pre-0.4 tar format?) is not supported";
		return DL_MODEL_AUTO;
	}
	if (n >= 48 && !memcmp(b + n - 8, TF_MAGIC, 8))
		return DL_MODEL_TF_INDEX;
	if (n >= 10 && b[8] == '{' && rd64(b) >= 2)
		return DL_MODEL_SAFETENSORS;
	if (n >= 2 && b[0] == 0x80 && b[1] >= 2 && b[1] <= 5) {
		*refuse = "a pickle without PyTorch's magic number: only torch.save files are read";
		return DL_MODEL_AUTO;
	}
	if (looks_onnx(b, n))
		return DL_MODEL_ONNX;
	*refuse = "unrecognised model format (expected safetensors, PyTorch, ONNX, .npy, "
		  ".npz, GGUF, HDF5 or a TensorFlow .index)";
	return DL_MODEL_AUTO;
}

static int ends_with_str(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);
	return n >= k && !memcmp(s + n - k, suf, k);
}

/* Keras 3 .keras: the weights are an HDF5 member, read in place when stored */
static int read_keras(struct mctx *c, struct zip *z)
{
	for (size_t i = 0; i < z->n; i++) {
		const struct zip_entry *e = &z->e[i];
		if (!ends_with_str(e->name, ".h5") && !ends_with_str(e->name, ".hdf5"))
			continue;
		uint64_t off;
		if (zip_data_offset(c, e, &off) < 0)
			return -1;
		if (e->method != 0 || e->csize != e->usize)
			return merr(c, e->name, e->lho,
				    "compressed HDF5 member: only stored .keras archives are read "
				    "without inflating the weights");
		struct mctx sub = {c->file, c->base + off, (size_t)e->usize, c->m, c->err, e->name};
		int rc = read_hdf5(&sub);
		c->m->format = DL_MODEL_HDF5;
		return rc;
	}
	return 0;
}

static int read_zip(struct mctx *c)
{
	struct zip z = {NULL, 0};
	if (zip_open(c, &z) < 0) {
		zip_free(&z);
		return -1;
	}
	int rc = -1;
	const struct zip_entry *pkl = NULL;
	size_t npy = 0, best = (size_t)-1;
	int keras = 0;
	for (size_t i = 0; i < z.n; i++) {
		const char *nm = z.e[i].name;
		if (!strcmp(nm, "data.pkl") || ends_with_str(nm, "/data.pkl")) {
			/* the top-level data.pkl is the one with the fewest '/' */
			size_t slashes = 0;
			for (const char *p = nm; *p; p++)
				slashes += *p == '/';
			if (slashes < best) {
				best = slashes;
				pkl = &z.e[i];
			}
		}
		if (ends_with_str(nm, ".npy"))
			npy++;
		if (ends_with_str(nm, ".h5") || ends_with_str(nm, ".hdf5"))
			keras++;
	}
	if (pkl) {
		c->m->format = DL_MODEL_TORCH_ZIP;
		rc = read_torch_zip(c, &z, pkl);
	} else if (npy) {
		c->m->format = DL_MODEL_NPZ;
		rc = read_npz(c, &z);
	} else if (keras) {
		rc = read_keras(c, &z);
	} else {
		rc = dl_err_set(c->err, DL_EXIT_DATA,
				"%s: zip archive with neither a PyTorch data.pkl nor .npy members",
				c->file);
	}
	zip_free(&z);
	return rc;
}

int dl_model_parse(const char *name, const unsigned char *buf, size_t len, enum dl_model_format fmt,
		   struct dl_model *m, struct dl_err *err)
{
	struct mctx c = {name, buf, len, m, err, NULL};
	m->t = NULL;
	m->n = m->alloc = 0;
	m->format = fmt;
	if (len == 0) {
		dl_err_set(err, DL_EXIT_DATA, "%s: empty file", name);
		return -1;
	}
	if (fmt == DL_MODEL_AUTO) {
		const char *refuse;
		fmt = detect(&c, &refuse);
		if (refuse) {
			dl_err_set(err, DL_EXIT_DATA, "%s: %s", name, refuse);
			return -1;
		}
	}
	m->format = fmt;
	int rc;
	switch (fmt) {
	case DL_MODEL_SAFETENSORS:
		rc = read_safetensors(&c);
		break;
	case DL_MODEL_TORCH_ZIP:
	case DL_MODEL_NPZ:
	case DL_MODEL_ZIP:
		rc = read_zip(&c);
		break;
	case DL_MODEL_TORCH_LEGACY:
		rc = read_torch_legacy(&c);
		break;
	case DL_MODEL_PICKLE:
		rc = read_pickle_only(&c);
		break;
	case DL_MODEL_ONNX:
		rc = read_onnx(&c);
		break;
	case DL_MODEL_NPY:
		rc = read_npy(&c);
		break;
	case DL_MODEL_GGUF:
		rc = read_gguf(&c);
		break;
	case DL_MODEL_TF_INDEX:
		rc = read_tf_index(&c);
		break;
	case DL_MODEL_HDF5:
		rc = read_hdf5(&c);
		break;
	default:
		rc = dl_err_set(err, DL_EXIT_DATA, "%s: unknown format", name);
		break;
	}
	if (rc < 0) {
		dl_model_release(m);
		/* names come from the file: keep the message on one line */
		for (char *p = err->msg; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
	}
	return rc;
}

static int read_file(const char *path, struct dl_model *m, struct dl_err *err, int shard);

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * A sharded checkpoint's index (model.safetensors.index.json,
 * pytorch_model.bin.index.json): {"weight_map": {tensor: shard file}}. The
 * shards are read in name order (model-00001-of-00003...) as one model.
 */
static int read_sharded(const char *path, json_t *wm, struct dl_model *m, struct dl_err *err)
{
	const char **shards = xcalloc(json_object_size(wm) + 1, sizeof(*shards));
	size_t n = 0;
	const char *key;
	json_t *v;
	json_object_foreach (wm, key, v) {
		if (!json_is_string(v)) {
			free(shards);
			return dl_err_set(err, DL_EXIT_DATA,
					  "%s: weight_map value of '%s' is not a "
					  "file name",
					  path, key);
		}
		shards[n++] = json_string_value(v);
	}
	qsort(shards, n, sizeof(*shards), by_name);
	const char *slash = strrchr(path, '/');
	struct strbuf sb = STRBUF_INIT;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (i && !strcmp(shards[i], shards[i - 1]))
			continue;
		sb_reset(&sb);
		if (slash && shards[i][0] != '/')
			sb_add(&sb, path, (size_t)(slash - path) + 1);
		sb_addstr(&sb, shards[i]);
		struct dl_model part = DL_MODEL_INIT;
		rc = read_file(sb.buf, &part, err, 1);
		if (rc < 0)
			dl_err_prefix(err, "%s", path);
		if (rc == 0) {
			for (size_t k = 0; k < part.n; k++) {
				DL_GROW(m->t, m->n + 1, m->alloc);
				m->t[m->n++] = part.t[k];
			}
			m->format = part.format;
			free(part.t);
		}
	}
	sb_release(&sb);
	free(shards);
	if (rc < 0)
		dl_model_release(m);
	return rc;
}

/* 1 = the mapped file is a shard index (read it), 0 = not JSON with a weight_map */
static int try_index(const char *path, const unsigned char *b, size_t size, struct dl_model *m,
		     struct dl_err *err, int *rc)
{
	size_t i = 0;
	while (i < size && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r'))
		i++;
	if (i >= size || b[i] != '{')
		return 0;
	if (size > DL_MODEL_META_MAX) {
		*rc = dl_err_set(err, DL_EXIT_DATA,
				 "%s: JSON of %zu bytes is larger than the limit of %d MiB for "
				 "metadata",
				 path, size, DL_MODEL_META_MAX >> 20);
		return 1;
	}
	json_t *root = json_loadb((const char *)b, size, 0, NULL);
	json_t *wm = json_object_get(root, "weight_map");
	if (!json_is_object(wm)) {
		json_decref(root);
		return 0;
	}
	*rc = read_sharded(path, wm, m, err);
	json_decref(root);
	return 1;
}

int dl_model_read(const char *path, struct dl_model *m, struct dl_err *err)
{
	return read_file(path, m, err, 0);
}

static int read_file(const char *path, struct dl_model *m, struct dl_err *err, int shard)
{
	m->t = NULL;
	m->n = m->alloc = 0;
	m->format = DL_MODEL_AUTO;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return dl_err_set(err, DL_EXIT_DATA, "%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return dl_err_set(err, DL_EXIT_DATA, "%s: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return dl_err_set(err, DL_EXIT_DATA, "%s: %s", path,
				  S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
	}
	size_t size = (size_t)st.st_size;
	if (size == 0) {
		close(fd);
		return dl_err_set(err, DL_EXIT_DATA, "%s: empty file", path);
	}
	/* mapping touches only the pages the readers look at: the weights stay on disk */
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return dl_err_set(err, DL_EXIT_DATA, "%s: cannot map: %s", path, strerror(errno));
	madvise(map, size, MADV_RANDOM);
	int rc;
	if (!shard && try_index(path, map, size, m, err, &rc)) {
		munmap(map, size);
		return rc;
	}
	rc = dl_model_parse(path, map, size, DL_MODEL_AUTO, m, err);
	munmap(map, size);
	return rc;
}
