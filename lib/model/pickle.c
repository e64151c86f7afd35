/*
 * pickle.c: PyTorch checkpoints (zip data.pkl and the legacy pickle stream).
 *
 * A small pickle machine builds an inert object graph: nothing is executed.
 * Only the callables PyTorch uses to rebuild tensors (and OrderedDict) are
 * interpreted; every other call becomes an opaque object whose arguments and
 * state are still searched for tensors. Tensors are named by their dict-key
 * path ("state_dict.conv1.weight"). Memory is bounded by the number of
 * opcodes, and memo indices are checked before use.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/strmap.h"
#include "model/model_int.h"

enum pk_type {
	PK_NULL = 0,
	PK_NONE,
	PK_BOOL,
	PK_INT,
	PK_BIGINT,
	PK_FLOAT,
	PK_STR,
	PK_BYTES,
	PK_TUPLE,
	PK_LIST,
	PK_DICT,
	PK_SET,
	PK_GLOBAL,
	PK_OBJ,
	PK_PERSID,
	PK_TENSOR,
};

struct pk_node {
	uint8_t type;
	uint8_t visited;
	int64_t i;	    /* INT value; TENSOR: storage numel */
	const char *s, *s2; /* STR/BYTES text; GLOBAL module and name; TENSOR storage key */
	uint32_t slen, s2len;
	uint32_t *kids; /* TUPLE/LIST/SET items; DICT/OBJ key, value pairs */
	uint32_t nk, ak;
	uint32_t a, b, st; /* OBJ: callable, args, BUILD state; PERSID: pid; TENSOR: size */
	const char *dtype; /* TENSOR */
	int64_t elem;
};

struct pvm {
	struct mctx *c;
	const char *entry; /* zip entry name, or NULL for offsets in the file */
	uint64_t off0;	   /* offset of p0 in the file or the entry */
	const unsigned char *p0, *p, *end;
	struct pk_node *n;
	size_t nn, an;
	uint32_t *stack;
	size_t sn, sa;
	size_t *marks;
	size_t mn, ma;
	uint32_t *memo;
	size_t memon, memoa;
	size_t ops;
};

#define PK_MAX_DEPTH 200
/*
 * about 100 bytes each, so 4 Mi objects stay near 400 MB; a real checkpoint
 * needs about 40 per tensor, optimizer state included (see model.h)
 */
#define PK_MAX_OBJECTS (1u << 22)

static void pvm_free(struct pvm *vm)
{
	for (size_t i = 0; i < vm->nn; i++)
		free(vm->n[i].kids);
	free(vm->n);
	free(vm->stack);
	free(vm->marks);
	free(vm->memo);
}

static uint64_t pvm_off(const struct pvm *vm, const unsigned char *at)
{
	return vm->off0 + (uint64_t)(at - vm->p0);
}

static uint32_t node_new(struct pvm *vm, enum pk_type type)
{
	DL_GROW(vm->n, vm->nn + 1, vm->an);
	memset(&vm->n[vm->nn], 0, sizeof(vm->n[0]));
	vm->n[vm->nn].type = (uint8_t)type;
	return (uint32_t)vm->nn++;
}

static void kid_add(struct pvm *vm, uint32_t node, uint32_t kid)
{
	struct pk_node *n = &vm->n[node];
	if (n->nk == n->ak) {
		n->ak = n->ak ? n->ak * 2 : 4;
		n->kids = xreallocarray(n->kids, n->ak, sizeof(*n->kids));
	}
	n->kids[n->nk++] = kid;
}

static void push(struct pvm *vm, uint32_t id)
{
	DL_GROW(vm->stack, vm->sn + 1, vm->sa);
	vm->stack[vm->sn++] = id;
}

static int pop(struct pvm *vm, const unsigned char *op, uint32_t *id)
{
	size_t floor = vm->mn ? vm->marks[vm->mn - 1] : 0;
	*id = 0; /* set on failure too (gcc -O3 cannot see that callers stop then), as below */
	if (vm->sn <= floor)
		return merr(vm->c, vm->entry, pvm_off(vm, op), "pickle stack underflow");
	*id = vm->stack[--vm->sn];
	return 0;
}

static int pop_mark(struct pvm *vm, const unsigned char *op, size_t *k)
{
	if (!vm->mn)
		return merr(vm->c, vm->entry, pvm_off(vm, op), "pickle mark stack underflow");
	*k = vm->marks[--vm->mn];
	return 0;
}

static int need(struct pvm *vm, const unsigned char *op, uint64_t len)
{
	if ((uint64_t)(vm->end - vm->p) < len)
		return merr(vm->c, vm->entry, pvm_off(vm, op),
			    "truncated pickle: opcode needs %llu bytes, %zu left",
			    (unsigned long long)len, (size_t)(vm->end - vm->p));
	return 0;
}

static int line(struct pvm *vm, const unsigned char *op, const char **s, size_t *len)
{
	const unsigned char *nl = memchr(vm->p, '\n', (size_t)(vm->end - vm->p));
	*s = NULL;
	*len = 0;
	if (!nl)
		return merr(vm->c, vm->entry, pvm_off(vm, op),
			    "truncated pickle: unterminated line");
	*s = (const char *)vm->p;
	*len = (size_t)(nl - vm->p);
	vm->p = nl + 1;
	return 0;
}

static uint32_t str_node(struct pvm *vm, enum pk_type t, const void *s, uint64_t len)
{
	uint32_t id = node_new(vm, t);
	vm->n[id].s = s;
	vm->n[id].slen = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
	return id;
}

static uint32_t int_node(struct pvm *vm, int64_t v)
{
	uint32_t id = node_new(vm, PK_INT);
	vm->n[id].i = v;
	return id;
}

static int memo_put(struct pvm *vm, const unsigned char *op, uint64_t key)
{
	if (!vm->sn)
		return merr(vm->c, vm->entry, pvm_off(vm, op), "pickle memo store on empty stack");
	/* a real pickle memoises at most one object per opcode so far */
	if (key > vm->ops)
		return merr(vm->c, vm->entry, pvm_off(vm, op),
			    "pickle memo index %llu out of range", (unsigned long long)key);
	if (key >= vm->memon) {
		DL_GROW(vm->memo, key + 1, vm->memoa);
		memset(vm->memo + vm->memon, 0, (key + 1 - vm->memon) * sizeof(*vm->memo));
		vm->memon = key + 1;
	}
	vm->memo[key] = vm->stack[vm->sn - 1];
	return 0;
}

static int memo_get(struct pvm *vm, const unsigned char *op, uint64_t key)
{
	if (key >= vm->memon || !vm->memo[key])
		return merr(vm->c, vm->entry, pvm_off(vm, op), "pickle memo index %llu not defined",
			    (unsigned long long)key);
	push(vm, vm->memo[key]);
	return 0;
}

static int parse_dec(const char *s, size_t len, int64_t *v)
{
	char buf[32];
	while (len && (s[len - 1] == 'L' || s[len - 1] == '\r'))
		len--;
	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	char *e;
	long long x = strtoll(buf, &e, 10);
	if (*e)
		return -1;
	*v = x;
	return 0;
}

static int str_is(const struct pk_node *n, const char *s)
{
	size_t k = strlen(s);
	return n->type == PK_STR && n->slen == k && !memcmp(n->s, s, k);
}

static int global_is(const struct pk_node *n, const char *mod, const char *name)
{
	return n->type == PK_GLOBAL && n->slen == strlen(mod) && !memcmp(n->s, mod, n->slen) &&
	       n->s2len == strlen(name) && !memcmp(n->s2, name, n->s2len);
}

static const struct {
	const char *cls, *dtype;
	int elem;
} storages[] = {
	{"FloatStorage", "f32", 4},
	{"DoubleStorage", "f64", 8},
	{"HalfStorage", "f16", 2},
	{"BFloat16Storage", "bf16", 2},
	{"LongStorage", "i64", 8},
	{"IntStorage", "i32", 4},
	{"ShortStorage", "i16", 2},
	{"CharStorage", "i8", 1},
	{"ByteStorage", "u8", 1},
	{"BoolStorage", "bool", 1},
	{"ComplexFloatStorage", "c64", 8},
	{"ComplexDoubleStorage", "c128", 16},
	{"QInt8Storage", "qint8", 1},
	{"QUInt8Storage", "quint8", 1},
	{"QInt32Storage", "qint32", 4},
	{"Float8_e4m3fnStorage", "f8_e4m3", 1},
	{"Float8_e5m2Storage", "f8_e5m2", 1},
	{"UntypedStorage", "u8", 1},
};

/* storage (a persistent id) and size tuple -> a tensor node, or 0 if they are not those */
static uint32_t make_tensor(struct pvm *vm, uint32_t storage, uint32_t size)
{
	const struct pk_node *ps = &vm->n[storage], *sz = &vm->n[size];
	if (ps->type != PK_PERSID || sz->type != PK_TUPLE)
		return 0;
	const struct pk_node *pid = &vm->n[ps->a];
	if (pid->type != PK_TUPLE || pid->nk < 5 || !str_is(&vm->n[pid->kids[0]], "storage"))
		return 0;
	const struct pk_node *cls = &vm->n[pid->kids[1]], *key = &vm->n[pid->kids[2]];
	const struct pk_node *numel = &vm->n[pid->kids[4]];
	for (uint32_t i = 0; i < sz->nk; i++)
		if (vm->n[sz->kids[i]].type != PK_INT)
			return 0;
	const char *dtype = "unknown";
	int64_t elem = 0;
	if (cls->type == PK_GLOBAL) {
		for (size_t i = 0; i < DL_ARRAY_SIZE(storages); i++) {
			if (cls->s2len == strlen(storages[i].cls) &&
			    !memcmp(cls->s2, storages[i].cls, cls->s2len)) {
				dtype = storages[i].dtype;
				elem = storages[i].elem;
			}
		}
	}
	const char *ks = key->type == PK_STR ? key->s : NULL;
	uint32_t kl = key->type == PK_STR ? key->slen : 0;
	int64_t sn = numel->type == PK_INT ? numel->i : -1;
	/* node_new may move vm->n: the pointers above are not used after it */
	uint32_t t = node_new(vm, PK_TENSOR);
	struct pk_node *tn = &vm->n[t];
	tn->b = size;
	tn->dtype = dtype;
	tn->elem = elem;
	tn->s = ks;
	tn->slen = kl;
	tn->i = sn;
	return t;
}

static uint32_t arg(const struct pvm *vm, uint32_t args, uint32_t i)
{
	const struct pk_node *a = &vm->n[args];
	if (a->type != PK_TUPLE || i >= a->nk)
		return 0;
	return a->kids[i];
}

/* REDUCE: interpret the few callables that build dicts and tensors */
static uint32_t call(struct pvm *vm, uint32_t fn, uint32_t args, int depth)
{
	const struct pk_node *f = &vm->n[fn];
	if (depth < 4 && f->type == PK_GLOBAL) {
		if (global_is(f, "collections", "OrderedDict") ||
		    global_is(f, "builtins", "dict") || global_is(f, "__builtin__", "dict"))
			return node_new(vm, PK_DICT);
		if (global_is(f, "torch._utils", "_rebuild_tensor_v2") ||
		    global_is(f, "torch._utils", "_rebuild_tensor") ||
		    global_is(f, "torch._utils", "_rebuild_qtensor")) {
			uint32_t t = make_tensor(vm, arg(vm, args, 0), arg(vm, args, 2));
			if (t)
				return t;
		}
		if (global_is(f, "torch._utils", "_rebuild_parameter") ||
		    global_is(f, "torch._utils", "_rebuild_parameter_with_state")) {
			uint32_t t = arg(vm, args, 0);
			if (t && vm->n[t].type == PK_TENSOR)
				return t;
		}
		if (global_is(f, "torch._tensor", "_rebuild_from_type_v2") ||
		    global_is(f, "torch._tensor", "_rebuild_from_type")) {
			uint32_t inner = arg(vm, args, 0), iargs = arg(vm, args, 2);
			if (inner && iargs) {
				uint32_t t = call(vm, inner, iargs, depth + 1);
				if (vm->n[t].type == PK_TENSOR)
					return t;
			}
		}
	}
	uint32_t o = node_new(vm, PK_OBJ);
	vm->n[o].a = fn;
	vm->n[o].b = args;
	return o;
}

/* items stack[k..sn) into node id (a tuple/list/set); the stack shrinks to k */
static void collect(struct pvm *vm, uint32_t id, size_t k)
{
	for (size_t i = k; i < vm->sn; i++)
		kid_add(vm, id, vm->stack[i]);
	vm->sn = k;
}

static int add_pairs(struct pvm *vm, const unsigned char *op, uint32_t target, size_t k)
{
	if ((vm->sn - k) % 2)
		return merr(vm->c, vm->entry, pvm_off(vm, op), "odd number of items for SETITEMS");
	uint8_t t = vm->n[target].type;
	if (t != PK_DICT && t != PK_OBJ)
		return merr(vm->c, vm->entry, pvm_off(vm, op), "SETITEM on a non-dict object");
	collect(vm, target, k);
	return 0;
}

static int add_items(struct pvm *vm, const unsigned char *op, uint32_t target, size_t k)
{
	uint8_t t = vm->n[target].type;
	if (t == PK_LIST || t == PK_SET) {
		collect(vm, target, k);
		return 0;
	}
	if (t == PK_OBJ) { /* a list subclass: its items are not searched */
		vm->sn = k;
		return 0;
	}
	return merr(vm->c, vm->entry, pvm_off(vm, op), "APPEND to a non-list object");
}

/* Run one pickle from vm->p to its STOP; *root receives the result. */
static int pvm_run(struct pvm *vm, uint32_t *root)
{
	if (!vm->nn)
		node_new(vm, PK_NULL); /* id 0 means "none" */
	for (;;) {
		const unsigned char *op = vm->p;
		if (op >= vm->end)
			return merr(vm->c, vm->entry, pvm_off(vm, op),
				    "truncated pickle: no STOP opcode");
		if ((size_t)(op - vm->p0) >= DL_MODEL_META_MAX)
			return merr(vm->c, vm->entry, pvm_off(vm, op),
				    "pickle larger than the limit of %d MiB for metadata",
				    DL_MODEL_META_MAX >> 20);
		if (vm->nn >= PK_MAX_OBJECTS)
			return merr(vm->c, vm->entry, pvm_off(vm, op),
				    "pickle with more than %u objects", PK_MAX_OBJECTS);
		vm->p++;
		vm->ops++;
		uint32_t a, b, id;
		size_t k = 0;
		const char *s, *s2;
		size_t len, len2;
		int64_t v;
		uint64_t n;
		switch (*op) {
		case 0x80: /* PROTO */
			if (need(vm, op, 1) < 0)
				return -1;
			vm->p++;
			break;
		case 0x95: /* FRAME */
			if (need(vm, op, 8) < 0)
				return -1;
			vm->p += 8;
			break;
		case '.': /* STOP */
			if (pop(vm, op, root) < 0)
				return -1;
			return 0;
		case '(': /* MARK */
			DL_GROW(vm->marks, vm->mn + 1, vm->ma);
			vm->marks[vm->mn++] = vm->sn;
			break;
		case 'N':
			push(vm, node_new(vm, PK_NONE));
			break;
		case 0x88: /* NEWTRUE */
		case 0x89: /* NEWFALSE */
			id = node_new(vm, PK_BOOL);
			vm->n[id].i = *op == 0x88;
			push(vm, id);
			break;
		case 'J': /* BININT */
			if (need(vm, op, 4) < 0)
				return -1;
			push(vm, int_node(vm, (int32_t)rd32(vm->p)));
			vm->p += 4;
			break;
		case 'K': /* BININT1 */
			if (need(vm, op, 1) < 0)
				return -1;
			push(vm, int_node(vm, vm->p[0]));
			vm->p += 1;
			break;
		case 'M': /* BININT2 */
			if (need(vm, op, 2) < 0)
				return -1;
			push(vm, int_node(vm, rd16(vm->p)));
			vm->p += 2;
			break;
		case 0x8a: /* LONG1 */
		case 0x8b: /* LONG4 */
			if (*op == 0x8a) {
				if (need(vm, op, 1) < 0)
					return -1;
				n = *vm->p++;
			} else {
				if (need(vm, op, 4) < 0)
					return -1;
				n = rd32(vm->p);
				vm->p += 4;
			}
			if (need(vm, op, n) < 0)
				return -1;
			if (n <= 8) {
				uint64_t u = 0;
				for (uint64_t i = 0; i < n; i++)
					u |= (uint64_t)vm->p[i] << (8 * i);
				if (n && n < 8 && (vm->p[n - 1] & 0x80))
					u |= ~0ull << (8 * n); /* sign-extend */
				push(vm, int_node(vm, (int64_t)u));
			} else {
				push(vm, str_node(vm, PK_BIGINT, vm->p, n));
			}
			vm->p += n;
			break;
		case 'I': /* INT (text) */
		case 'L': /* LONG (text) */
			if (line(vm, op, &s, &len) < 0)
				return -1;
			if (*op == 'I' && len == 2 && s[0] == '0' && (s[1] == '0' || s[1] == '1')) {
				id = node_new(vm, PK_BOOL);
				vm->n[id].i = s[1] == '1';
				push(vm, id);
			} else if (parse_dec(s, len, &v) == 0) {
				push(vm, int_node(vm, v));
			} else {
				push(vm, str_node(vm, PK_BIGINT, s, len));
			}
			break;
		case 'G': /* BINFLOAT */
			if (need(vm, op, 8) < 0)
				return -1;
			push(vm, node_new(vm, PK_FLOAT));
			vm->p += 8;
			break;
		case 'F': /* FLOAT (text) */
			if (line(vm, op, &s, &len) < 0)
				return -1;
			push(vm, node_new(vm, PK_FLOAT));
			break;
		case 'X': /* BINUNICODE */
		case 'T': /* BINSTRING */
		case 'B': /* BINBYTES */
			if (need(vm, op, 4) < 0)
				return -1;
			n = rd32(vm->p);
			vm->p += 4;
			if (need(vm, op, n) < 0)
				return -1;
			push(vm, str_node(vm, *op == 'B' ? PK_BYTES : PK_STR, vm->p, n));
			vm->p += n;
			break;
		case 0x8c: /* SHORT_BINUNICODE */
		case 'U':  /* SHORT_BINSTRING */
		case 'C':  /* SHORT_BINBYTES */
			if (need(vm, op, 1) < 0)
				return -1;
			n = *vm->p++;
			if (need(vm, op, n) < 0)
				return -1;
			push(vm, str_node(vm, *op == 'C' ? PK_BYTES : PK_STR, vm->p, n));
			vm->p += n;
			break;
		case 0x8d: /* BINUNICODE8 */
		case 0x8e: /* BINBYTES8 */
		case 0x96: /* BYTEARRAY8 */
			if (need(vm, op, 8) < 0)
				return -1;
			n = rd64(vm->p);
			vm->p += 8;
			if (need(vm, op, n) < 0)
				return -1;
			push(vm, str_node(vm, *op == 0x8d ? PK_STR : PK_BYTES, vm->p, n));
			vm->p += n;
			break;
		case 'V': /* UNICODE (raw, to end of line) */
		case 'S': /* STRING (quoted repr) */
			if (line(vm, op, &s, &len) < 0)
				return -1;
			if (*op == 'S' && len >= 2 && (s[0] == '\'' || s[0] == '"')) {
				s++;
				len -= 2;
			}
			push(vm, str_node(vm, PK_STR, s, len));
			break;
		case ')': /* EMPTY_TUPLE */
			push(vm, node_new(vm, PK_TUPLE));
			break;
		case ']': /* EMPTY_LIST */
			push(vm, node_new(vm, PK_LIST));
			break;
		case '}': /* EMPTY_DICT */
			push(vm, node_new(vm, PK_DICT));
			break;
		case 0x8f: /* EMPTY_SET */
			push(vm, node_new(vm, PK_SET));
			break;
		case 't':  /* TUPLE */
		case 'l':  /* LIST */
		case 0x91: /* FROZENSET */
			if (pop_mark(vm, op, &k) < 0)
				return -1;
			id = node_new(vm, *op == 't' ? PK_TUPLE : *op == 'l' ? PK_LIST : PK_SET);
			collect(vm, id, k);
			push(vm, id);
			break;
		case 'd': /* DICT */
			if (pop_mark(vm, op, &k) < 0)
				return -1;
			id = node_new(vm, PK_DICT);
			if (add_pairs(vm, op, id, k) < 0)
				return -1;
			push(vm, id);
			break;
		case 0x85: /* TUPLE1 */
		case 0x86: /* TUPLE2 */
		case 0x87: /* TUPLE3 */
			k = (size_t)(*op - 0x84);
			if (vm->sn < k + (vm->mn ? vm->marks[vm->mn - 1] : 0))
				return merr(vm->c, vm->entry, pvm_off(vm, op),
					    "pickle stack underflow");
			id = node_new(vm, PK_TUPLE);
			collect(vm, id, vm->sn - k);
			push(vm, id);
			break;
		case 'a': /* APPEND */
			if (pop(vm, op, &a) < 0 || !vm->sn)
				return vm->sn ? -1
					      : merr(vm->c, vm->entry, pvm_off(vm, op),
						     "pickle stack underflow");
			push(vm, a);
			if (add_items(vm, op, vm->stack[vm->sn - 2], vm->sn - 1) < 0)
				return -1;
			break;
		case 'e':  /* APPENDS */
		case 0x90: /* ADDITEMS */
			if (pop_mark(vm, op, &k) < 0)
				return -1;
			if (k == 0)
				return merr(vm->c, vm->entry, pvm_off(vm, op),
					    "pickle stack underflow");
			if (add_items(vm, op, vm->stack[k - 1], k) < 0)
				return -1;
			break;
		case 's': /* SETITEM */
			if (vm->sn < 3 + (vm->mn ? vm->marks[vm->mn - 1] : 0))
				return merr(vm->c, vm->entry, pvm_off(vm, op),
					    "pickle stack underflow");
			if (add_pairs(vm, op, vm->stack[vm->sn - 3], vm->sn - 2) < 0)
				return -1;
			break;
		case 'u': /* SETITEMS */
			if (pop_mark(vm, op, &k) < 0)
				return -1;
			if (k == 0)
				return merr(vm->c, vm->entry, pvm_off(vm, op),
					    "pickle stack underflow");
			if (add_pairs(vm, op, vm->stack[k - 1], k) < 0)
				return -1;
			break;
		case '0': /* POP */
			if (vm->mn && vm->marks[vm->mn - 1] == vm->sn)
				vm->mn--; /* POP of a mark */
			else if (pop(vm, op, &a) < 0)
				return -1;
			break;
		case '1': /* POP_MARK */
			if (pop_mark(vm, op, &k) < 0)
				return -1;
			vm->sn = k;
			break;
		case '2': /* DUP */
			if (!vm->sn)
				return merr(vm->c, vm->entry, pvm_off(vm, op),
					    "pickle stack underflow");
			push(vm, vm->stack[vm->sn - 1]);
			break;
		case 'p': /* PUT (text) */
			if (line(vm, op, &s, &len) < 0)
				return -1;
			if (parse_dec(s, len, &v) < 0 || v < 0)
				return merr(vm->c, vm->entry, pvm_off(vm, op), "bad PUT index");
			if (memo_put(vm, op, (uint64_t)v) < 0)
				return -1;
			break;
		case 'q': /* BINPUT */
			if (need(vm, op, 1) < 0 || memo_put(vm, op, *vm->p) < 0)
				return -1;
			vm->p += 1;
			break;
		case 'r': /* LONG_BINPUT */
			if (need(vm, op, 4) < 0 || memo_put(vm, op, rd32(vm->p)) < 0)
				return -1;
			vm->p += 4;
			break;
		case 0x94: /* MEMOIZE */
			if (memo_put(vm, op, vm->memon) < 0)
				return -1;
			break;
		case 'g': /* GET (text) */
			if (line(vm, op, &s, &len) < 0)
				return -1;
			if (parse_dec(s, len, &v) < 0 || v < 0)
				return merr(vm->c, vm->entry, pvm_off(vm, op), "bad GET index");
			if (memo_get(vm, op, (uint64_t)v) < 0)
				return -1;
			break;
		case 'h': /* BINGET */
			if (need(vm, op, 1) < 0 || memo_get(vm, op, *vm->p) < 0)
				return -1;
			vm->p += 1;
			break;
		case 'j': /* LONG_BINGET */
			if (need(vm, op, 4) < 0 || memo_get(vm, op, rd32(vm->p)) < 0)
				return -1;
			vm->p += 4;
			break;
		case 'c': /* GLOBAL */
		case 'i': /* INST */
			if (line(vm, op, &s, &len) < 0 || line(vm, op, &s2, &len2) < 0)
				return -1;
			id = node_new(vm, PK_GLOBAL);
			vm->n[id].s = s;
			vm->n[id].slen = (uint32_t)len;
			vm->n[id].s2 = s2;
			vm->n[id].s2len = (uint32_t)len2;
			if (*op == 'i') {
				if (pop_mark(vm, op, &k) < 0)
					return -1;
				b = node_new(vm, PK_TUPLE);
				collect(vm, b, k);
				a = id;
				id = node_new(vm, PK_OBJ);
				vm->n[id].a = a;
				vm->n[id].b = b;
			}
			push(vm, id);
			break;
		case 0x93: /* STACK_GLOBAL */
			if (pop(vm, op, &b) < 0 || pop(vm, op, &a) < 0)
				return -1;
			if (vm->n[a].type != PK_STR || vm->n[b].type != PK_STR)
				return merr(vm->c, vm->entry, pvm_off(vm, op),
					    "STACK_GLOBAL needs two strings");
			id = node_new(vm, PK_GLOBAL);
			vm->n[id].s = vm->n[a].s;
			vm->n[id].slen = vm->n[a].slen;
			vm->n[id].s2 = vm->n[b].s;
			vm->n[id].s2len = vm->n[b].slen;
			push(vm, id);
			break;
		case 'R': /* REDUCE */
			if (pop(vm, op, &b) < 0 || pop(vm, op, &a) < 0)
				return -1;
			push(vm, call(vm, a, b, 0));
			break;
		case 0x81: /* NEWOBJ */
			if (pop(vm, op, &b) < 0 || pop(vm, op, &a) < 0)
				return -1;
			id = node_new(vm, PK_OBJ);
			vm->n[id].a = a;
			vm->n[id].b = b;
			push(vm, id);
			break;
		case 0x92: /* NEWOBJ_EX */
			if (pop(vm, op, &id) < 0 || pop(vm, op, &b) < 0 || pop(vm, op, &a) < 0)
				return -1;
			id = node_new(vm, PK_OBJ);
			vm->n[id].a = a;
			vm->n[id].b = b;
			push(vm, id);
			break;
		case 'o': /* OBJ */
			if (pop_mark(vm, op, &k) < 0)
				return -1;
			if (k >= vm->sn)
				return merr(vm->c, vm->entry, pvm_off(vm, op),
					    "pickle stack underflow");
			a = vm->stack[k];
			b = node_new(vm, PK_TUPLE);
			collect(vm, b, k + 1);
			vm->sn = k;
			id = node_new(vm, PK_OBJ);
			vm->n[id].a = a;
			vm->n[id].b = b;
			push(vm, id);
			break;
		case 'b': /* BUILD */
			if (pop(vm, op, &b) < 0 || !vm->sn)
				return vm->sn ? -1
					      : merr(vm->c, vm->entry, pvm_off(vm, op),
						     "pickle stack underflow");
			a = vm->stack[vm->sn - 1];
			if (vm->n[a].type == PK_OBJ)
				vm->n[a].st = b;
			break;
		case 'Q': /* BINPERSID */
			if (pop(vm, op, &a) < 0)
				return -1;
			id = node_new(vm, PK_PERSID);
			vm->n[id].a = a;
			push(vm, id);
			break;
		case 'P': /* PERSID (text) */
			if (line(vm, op, &s, &len) < 0)
				return -1;
			a = str_node(vm, PK_STR, s, len);
			id = node_new(vm, PK_PERSID);
			vm->n[id].a = a;
			push(vm, id);
			break;
		case 0x82: /* EXT1 */
		case 0x83: /* EXT2 */
		case 0x84: /* EXT4 */
			n = *op == 0x82 ? 1 : *op == 0x83 ? 2 : 4;
			if (need(vm, op, n) < 0)
				return -1;
			vm->p += n;
			push(vm, node_new(vm, PK_OBJ));
			break;
		default:
			return merr(vm->c, vm->entry, pvm_off(vm, op),
				    "unknown pickle opcode 0x%02x", *op);
		}
	}
}

struct walk {
	struct pvm *vm;
	struct strbuf path;
	const struct strmap *members; /* zip: storage entries by key, value = index+1 */
	const struct zip *z;
};

static int walk(struct walk *w, uint32_t id, int depth);

static int walk_child(struct walk *w, uint32_t kid, const char *comp, size_t clen, int depth)
{
	size_t keep = w->path.len;
	/* module internals are not part of a parameter's name */
	int skip = (clen == 11 && !memcmp(comp, "_parameters", 11)) ||
		   (clen == 8 && !memcmp(comp, "_buffers", 8)) ||
		   (clen == 8 && !memcmp(comp, "_modules", 8));
	if (!skip && comp) {
		if (w->path.len)
			sb_addc(&w->path, '.');
		sb_add(&w->path, comp, clen);
	}
	int rc = walk(w, kid, depth + 1);
	sb_setlen(&w->path, keep);
	return rc;
}

static int add_tensor(struct walk *w, const struct pk_node *t)
{
	struct pvm *vm = w->vm;
	const struct pk_node *sz = &vm->n[t->b];
	int64_t dims[DL_MODEL_MAX_DIMS];
	if (sz->nk > DL_MODEL_MAX_DIMS)
		return merr(vm->c, vm->entry, vm->off0, "tensor '%s' has %u dimensions",
			    w->path.buf, sz->nk);
	for (uint32_t i = 0; i < sz->nk; i++)
		dims[i] = vm->n[sz->kids[i]].i;
	const char *name = w->path.len ? w->path.buf : "tensor";
	struct dl_tensor *tt = model_add(vm->c->m, name, strlen(name));
	const char *why;
	if (tensor_set_shape(tt, dims, (int)sz->nk, &why) < 0)
		return merr(vm->c, vm->entry, vm->off0, "tensor '%s': %s", name, why);
	tt->dtype = t->dtype;
	tensor_set_bytes(tt, t->elem);
	if (w->members && t->s) {
		/* the storage must exist and hold what the pickle declares */
		int64_t *ix = strmap_getn(w->members, t->s, t->slen);
		if (!ix)
			return merr(vm->c, vm->entry, vm->off0,
				    "tensor '%s': storage '%.*s' is missing from the archive", name,
				    (int)t->slen, t->s);
		const struct zip_entry *e = &w->z->e[*ix - 1];
		uint64_t off;
		if (zip_data_offset(vm->c, e, &off) < 0)
			return -1;
		int64_t need_bytes;
		if (t->i >= 0 && t->elem > 0 &&
		    (__builtin_mul_overflow(t->i, t->elem, &need_bytes) ||
		     (uint64_t)need_bytes > e->usize))
			return merr(vm->c, e->name, e->lho,
				    "storage declares %lld elements of %lld bytes, entry has %llu "
				    "bytes",
				    (long long)t->i, (long long)t->elem,
				    (unsigned long long)e->usize);
	}
	return 0;
}

static int walk(struct walk *w, uint32_t id, int depth)
{
	struct pvm *vm = w->vm;
	struct pk_node *n = &vm->n[id];
	if (depth > PK_MAX_DEPTH)
		return merr(vm->c, vm->entry, vm->off0, "object graph nested too deeply");
	if (n->type == PK_TENSOR)
		return add_tensor(w, n);
	if (n->visited)
		return 0;
	switch (n->type) {
	case PK_DICT:
	case PK_OBJ:
		n->visited = 1;
		if (n->type == PK_OBJ) {
			if (n->b && walk_child(w, n->b, NULL, 0, depth) < 0)
				return -1;
			if (n->st && walk_child(w, n->st, NULL, 0, depth) < 0)
				return -1;
		}
		for (uint32_t i = 0; i + 1 < vm->n[id].nk; i += 2) {
			const struct pk_node *key = &vm->n[vm->n[id].kids[i]];
			char num[32];
			const char *comp = "?";
			size_t clen = 1;
			if (key->type == PK_STR) {
				comp = key->s;
				clen = key->slen;
			} else if (key->type == PK_INT) {
				clen = (size_t)snprintf(num, sizeof(num), "%lld",
							(long long)key->i);
				comp = num;
			}
			if (walk_child(w, vm->n[id].kids[i + 1], comp, clen, depth) < 0)
				return -1;
		}
		break;
	case PK_TUPLE:
	case PK_LIST:
	case PK_SET:
		n->visited = 1;
		for (uint32_t i = 0; i < vm->n[id].nk; i++) {
			char num[32];
			size_t clen = (size_t)snprintf(num, sizeof(num), "%u", i);
			if (walk_child(w, vm->n[id].kids[i], num, clen, depth) < 0)
				return -1;
		}
		break;
	default:
		break;
	}
	return 0;
}

static void pvm_init(struct pvm *vm, struct mctx *c, const char *entry, uint64_t off0,
		     const unsigned char *p, size_t len)
{
	memset(vm, 0, sizeof(*vm));
	vm->c = c;
	vm->entry = entry;
	vm->off0 = off0;
	vm->p0 = vm->p = p;
	vm->end = p + len;
}

static int run_and_walk(struct mctx *c, const char *entry, uint64_t off0, const unsigned char *p,
			size_t len, const struct strmap *members, const struct zip *z,
			size_t *consumed)
{
	struct pvm vm;
	uint32_t root;
	pvm_init(&vm, c, entry, off0, p, len);
	int rc = pvm_run(&vm, &root);
	if (rc == 0) {
		struct walk w = {&vm, STRBUF_INIT, members, z};
		rc = walk(&w, root, 0);
		sb_release(&w.path);
	}
	if (consumed)
		*consumed = (size_t)(vm.p - p);
	pvm_free(&vm);
	return rc;
}

int read_torch_zip(struct mctx *c, struct zip *z, const struct zip_entry *pkl)
{
	/* storages live beside data.pkl: "<root>/data/<key>" */
	size_t rootlen = strlen(pkl->name) - strlen("data.pkl");
	struct strmap members = STRMAP_INIT;
	for (size_t i = 0; i < z->n; i++) {
		const char *nm = z->e[i].name;
		if (!strncmp(nm, pkl->name, rootlen) && !strncmp(nm + rootlen, "data/", 5))
			strmap_put(&members, nm + rootlen + 5, (int64_t)i + 1);
	}
	const unsigned char *data;
	size_t len;
	unsigned char *owned;
	int rc = -1;
	if (pkl->usize > DL_MODEL_META_MAX)
		merr(c, pkl->name, pkl->lho,
		     "pickle of %llu bytes is larger than the limit of %d MiB for metadata",
		     (unsigned long long)pkl->usize, DL_MODEL_META_MAX >> 20);
	else if (zip_read_prefix(c, pkl, (size_t)pkl->usize, &data, &len, &owned) == 0) {
		rc = run_and_walk(c, pkl->name, 0, data, len, &members, z, NULL);
		free(owned);
	}
	strmap_free(&members);
	return rc;
}

int read_pickle_only(struct mctx *c)
{
	return run_and_walk(c, NULL, 0, c->base, c->size, NULL, NULL, NULL);
}

/*
 * Legacy torch.save: magic number, protocol version, sys_info and then the
 * object pickle, followed by the raw storages. Only the first four pickles
 * are read.
 */
int read_torch_legacy(struct mctx *c)
{
	static const unsigned char magic[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c,
					      0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
	if (c->size < sizeof(magic) || memcmp(c->base, magic, sizeof(magic)))
		return merr(c, NULL, 0, "not a PyTorch legacy file (bad magic number)");
	size_t off = 0;
	struct pvm vm;
	uint32_t root = 0;
	int rc = 0;
	for (int i = 0; i < 3 && rc == 0; i++) {
		pvm_init(&vm, c, NULL, off, c->base + off, c->size - off);
		rc = pvm_run(&vm, &root);
		off += (size_t)(vm.p - vm.p0);
		pvm_free(&vm);
	}
	if (rc < 0)
		return -1;
	/* the object pickle: the tensors */
	pvm_init(&vm, c, NULL, off, c->base + off, c->size - off);
	rc = pvm_run(&vm, &root);
	if (rc == 0) {
		struct walk w = {&vm, STRBUF_INIT, NULL, NULL};
		rc = walk(&w, root, 0);
		sb_release(&w.path);
	}
	off += (size_t)(vm.p - vm.p0);
	/* storage key -> element size and declared count, to check the records that follow */
	struct strmap elem = STRMAP_INIT, count = STRMAP_INIT;
	for (size_t i = 0; rc == 0 && i < vm.nn; i++) {
		const struct pk_node *t = &vm.n[i];
		if (t->type == PK_TENSOR && t->s && t->elem > 0) {
			strmap_putn(&elem, t->s, t->slen, t->elem);
			strmap_putn(&count, t->s, t->slen, t->i);
		}
	}
	/* the list of storage keys, then per key: i64 count + the raw data */
	struct pvm keys;
	pvm_init(&keys, c, NULL, off, c->base + off, c->size - off);
	if (rc == 0)
		rc = pvm_run(&keys, &root);
	if (rc == 0) {
		off += (size_t)(keys.p - keys.p0);
		const struct pk_node *list = &keys.n[root];
		if (list->type != PK_LIST && list->type != PK_TUPLE)
			rc = merr(c, NULL, off, "storage key list is not a list");
		for (uint32_t i = 0; rc == 0 && i < list->nk; i++) {
			const struct pk_node *k = &keys.n[list->kids[i]];
			int64_t *es = k->type == PK_STR ? strmap_getn(&elem, k->s, k->slen) : NULL;
			int64_t *cnt = es ? strmap_getn(&count, k->s, k->slen) : NULL;
			if (!es)
				break; /* a storage no tensor uses: its size is unknown, stop here
					*/
			if (c->size - off < 8) {
				rc = merr(c, NULL, off, "truncated file: storage '%.*s' is missing",
					  (int)k->slen, k->s);
				break;
			}
			int64_t n = (int64_t)rd64(c->base + off), bytes;
			if (n < 0 || __builtin_mul_overflow(n, *es, &bytes) ||
			    (uint64_t)bytes > c->size - off - 8 || (cnt && *cnt > n))
				rc = merr(
					c, NULL, off,
					"storage '%.*s' declares %lld elements: larger than the file "
					"or than its tensors need",
					(int)k->slen, k->s, (long long)n);
			else
				off += 8 + (uint64_t)bytes;
		}
	}
	pvm_free(&keys);
	strmap_free(&elem);
	strmap_free(&count);
	pvm_free(&vm);
	return rc;
}
