// strata_numa: a tiny N-API addon for NUMA placement of tier memory (hot DRAM / cold CXL).
//
// Raw Linux syscalls only (mbind, move_pages, set_mempolicy, get_mempolicy): no libnuma.
// Memory is passed as a TypedArray view (Node 20's N-API cannot take a bare SharedArrayBuffer);
// napi_get_typedarray_info returns the data pointer already adjusted by the view's byte offset, for
// views over ArrayBuffer, SharedArrayBuffer and WebAssembly.Memory buffers alike.
//
// Only whole pages can carry a memory policy, so every range operation works on the page-aligned
// *interior* of the view: start rounded up, end rounded down to the page size. The partial pages at
// either edge may be shared with other allocations and are left alone.
//
// Exports:
//   bind(view, node, {move?, strict?}) -> {address, firstPage, pages}
//   pageNodes(view) -> Int32Array     (node per interior page; negative = -errno, e.g. -ENOENT)
//   setThreadPolicy(node | -1)        (MPOL_BIND to node for the calling thread; -1 = MPOL_DEFAULT)
//   threadPolicy() -> {mode, nodes}   (the calling thread's policy)
//   rangePolicy(view) -> {mode, nodes} | null   (policy of the first interior page)
//   checkRangePolicy(view, mode, node) -> {pages, mismatched, firstMismatch}
//                                     (get_mempolicy(MPOL_F_ADDR) on every interior page: how many do
//                                      not carry exactly `mode` with the node mask {node}; -1 if none)
//   allowedNodes() -> number[]        (nodes this thread may allocate on, from get_mempolicy)
//   maxNode() -> number               (highest allowed node)
//   pageSize() -> number
//   exchangePaths(a, b)               (renameat2(RENAME_EXCHANGE): swaps two paths atomically; used
//                                      by the index writer, here because this is the one native addon)
// Errors from the kernel are thrown as JS Errors with code = errno name ('EINVAL', 'EPERM', ...),
// errno = number, syscall = name and, where relevant, node.

#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/syscall.h>
#endif

#define MPOL_DEFAULT_ 0
#define MPOL_BIND_ 2
#define MPOL_MF_STRICT_ (1 << 0)
#define MPOL_MF_MOVE_ (1 << 1)
#define MPOL_F_NODE_ (1 << 0)
#define MPOL_F_ADDR_ (1 << 1)
#define MPOL_F_MEMS_ALLOWED_ (1 << 2)
// Mode flags the kernel may OR into the mode returned by get_mempolicy.
#define MPOL_MODE_FLAGS_ ((1 << 15) | (1 << 14) | (1 << 13))

// Linux supports at most 1024 nodes (NODES_SHIFT <= 10). Masks we read are this wide.
#define NODE_LIMIT 1024
#define MASK_WORDS (NODE_LIMIT / (8 * sizeof(unsigned long)))
#define BITS_PER_WORD (8 * sizeof(unsigned long))

// Pages per move_pages call when reading placement; the output is written in place.
#define PAGE_CHUNK 4096

#define CHECK(call)                                                          \
  do {                                                                       \
    if ((call) != napi_ok) {                                                 \
      napi_throw_error(env, "ERR_NAPI", "N-API call failed: " #call);        \
      return NULL;                                                           \
    }                                                                        \
  } while (0)

static const char *errno_name(int err) {
  switch (err) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case ESRCH: return "ESRCH";
    case EINTR: return "EINTR";
    case EIO: return "EIO";
    case E2BIG: return "E2BIG";
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EACCES: return "EACCES";
    case EFAULT: return "EFAULT";
    case EBUSY: return "EBUSY";
    case EEXIST: return "EEXIST";
    case EXDEV: return "EXDEV";
    case ENODEV: return "ENODEV";
    case EINVAL: return "EINVAL";
    case ENOSPC: return "ENOSPC";
    case ERANGE: return "ERANGE";
    case ENOSYS: return "ENOSYS";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case ENOTDIR: return "ENOTDIR";
    case EISDIR: return "EISDIR";
    case EROFS: return "EROFS";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ENOTEMPTY: return "ENOTEMPTY";
    default: return "EUNKNOWN";
  }
}

// Throws a JS Error shaped like Node's system errors. Always returns NULL for `return throw_...`.
static napi_value throw_errno(napi_env env, int err, const char *syscall_name, int node) {
  char msg[320];
  const char *name = errno_name(err);
  if (node >= 0) {
    snprintf(msg, sizeof msg, "%s failed for NUMA node %d: %s (%s)", syscall_name, node, name,
             strerror(err));
  } else {
    snprintf(msg, sizeof msg, "%s failed: %s (%s)", syscall_name, name, strerror(err));
  }
  napi_value code, message, error, value;
  if (napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code) != napi_ok ||
      napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &message) != napi_ok ||
      napi_create_error(env, code, message, &error) != napi_ok) {
    napi_throw_error(env, name, msg);
    return NULL;
  }
  if (napi_create_int32(env, err, &value) == napi_ok) napi_set_named_property(env, error, "errno", value);
  if (napi_create_string_utf8(env, syscall_name, NAPI_AUTO_LENGTH, &value) == napi_ok)
    napi_set_named_property(env, error, "syscall", value);
  if (node >= 0 && napi_create_int32(env, node, &value) == napi_ok)
    napi_set_named_property(env, error, "node", value);
  napi_throw(env, error);
  return NULL;
}

#ifdef __linux__
static long sys_mbind(void *addr, unsigned long len, int mode, const unsigned long *mask,
                      unsigned long maxnode, unsigned flags) {
  return syscall(SYS_mbind, addr, len, mode, mask, maxnode, flags);
}
static long sys_move_pages(int pid, unsigned long count, void **pages, const int *nodes, int *status,
                           int flags) {
  return syscall(SYS_move_pages, pid, count, pages, nodes, status, flags);
}
static long sys_set_mempolicy(int mode, const unsigned long *mask, unsigned long maxnode) {
  return syscall(SYS_set_mempolicy, mode, mask, maxnode);
}
static long sys_get_mempolicy(int *mode, unsigned long *mask, unsigned long maxnode, void *addr,
                              unsigned long flags) {
  return syscall(SYS_get_mempolicy, mode, mask, maxnode, addr, flags);
}
static long sys_renameat2(const char *from, const char *to, unsigned flags) {
#ifdef SYS_renameat2
  return syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, flags);
#else
  (void)from; (void)to; (void)flags;
  errno = ENOSYS;
  return -1;
#endif
}
// tid 0 = the calling thread: affinity is per thread, like the memory policy.
static long sys_sched_setaffinity(size_t len, const unsigned long *mask) {
  return syscall(SYS_sched_setaffinity, 0, len, mask);
}
static long sys_sched_getaffinity(size_t len, unsigned long *mask) {
  return syscall(SYS_sched_getaffinity, 0, len, mask);
}
#else
static long sys_mbind(void *a, unsigned long l, int m, const unsigned long *k, unsigned long n, unsigned f) {
  (void)a; (void)l; (void)m; (void)k; (void)n; (void)f;
  errno = ENOSYS;
  return -1;
}
static long sys_move_pages(int p, unsigned long c, void **g, const int *n, int *s, int f) {
  (void)p; (void)c; (void)g; (void)n; (void)s; (void)f;
  errno = ENOSYS;
  return -1;
}
static long sys_set_mempolicy(int m, const unsigned long *k, unsigned long n) {
  (void)m; (void)k; (void)n;
  errno = ENOSYS;
  return -1;
}
static long sys_get_mempolicy(int *m, unsigned long *k, unsigned long n, void *a, unsigned long f) {
  (void)m; (void)k; (void)n; (void)a; (void)f;
  errno = ENOSYS;
  return -1;
}
static long sys_sched_setaffinity(size_t len, const unsigned long *mask) {
  (void)len; (void)mask;
  errno = ENOSYS;
  return -1;
}
static long sys_renameat2(const char *from, const char *to, unsigned flags) {
  (void)from; (void)to; (void)flags;
  errno = ENOSYS;
  return -1;
}
static long sys_sched_getaffinity(size_t len, unsigned long *mask) {
  (void)len; (void)mask;
  errno = ENOSYS;
  return -1;
}
#endif

// CPU masks as wide as the kernel's largest NR_CPUS.
#define CPU_LIMIT 8192
#define CPU_WORDS (CPU_LIMIT / (8 * sizeof(unsigned long)))

static size_t page_size(void) {
  static size_t cached = 0;
  if (cached == 0) {
    long ps = sysconf(_SC_PAGESIZE);
    cached = ps > 0 ? (size_t)ps : 4096;
  }
  return cached;
}

static size_t element_size(napi_typedarray_type type) {
  switch (type) {
    case napi_int8_array:
    case napi_uint8_array:
    case napi_uint8_clamped_array: return 1;
    case napi_int16_array:
    case napi_uint16_array: return 2;
    case napi_int32_array:
    case napi_uint32_array:
    case napi_float32_array: return 4;
    case napi_float64_array:
    case napi_bigint64_array:
    case napi_biguint64_array: return 8;
    default: return 1;
  }
}

// The page-aligned interior of a view.
typedef struct {
  uintptr_t address;    // first byte of the view
  uintptr_t first_page; // first whole page inside the view
  size_t pages;         // whole pages inside the view
} range_t;

// Returns 0 (with a pending JS exception) when the value is not a TypedArray.
static int get_range(napi_env env, napi_value value, range_t *out) {
  bool is_typedarray = false;
  if (napi_is_typedarray(env, value, &is_typedarray) != napi_ok || !is_typedarray) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE",
                          "expected a Uint8Array view (over an ArrayBuffer, SharedArrayBuffer or WebAssembly.Memory buffer)");
    return 0;
  }
  napi_typedarray_type type;
  size_t length = 0;
  void *data = NULL;
  if (napi_get_typedarray_info(env, value, &type, &length, &data, NULL, NULL) != napi_ok) {
    napi_throw_error(env, "ERR_NAPI", "napi_get_typedarray_info failed");
    return 0;
  }
  const size_t ps = page_size();
  const uintptr_t start = (uintptr_t)data;
  const size_t bytes = length * element_size(type);
  out->address = start;
  out->first_page = start;
  out->pages = 0;
  if (data == NULL || bytes == 0) return 1;
  const uintptr_t first = (start + ps - 1) & ~(uintptr_t)(ps - 1);
  const uintptr_t end = (start + bytes) & ~(uintptr_t)(ps - 1);
  out->first_page = first;
  out->pages = end > first ? (size_t)((end - first) / ps) : 0;
  return 1;
}

// The one view argument of fn(view): its interior range. 0 (with a pending JS exception) when the
// argument is missing or not a view.
static int view_argument(napi_env env, napi_callback_info info, const char *usage, range_t *r) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) {
    napi_throw_error(env, "ERR_NAPI", "napi_get_cb_info failed");
    return 0;
  }
  if (argc < 1) {
    napi_throw_type_error(env, "ERR_MISSING_ARGS", usage);
    return 0;
  }
  return get_range(env, argv[0], r);
}

// Reads argument `value` as an integer node id in [min, NODE_LIMIT). 0 with a pending exception if not.
static int get_node(napi_env env, napi_value value, int min, int *node) {
  napi_valuetype t;
  double d;
  if (napi_typeof(env, value, &t) != napi_ok || t != napi_number ||
      napi_get_value_double(env, value, &d) != napi_ok || d != d || d != (double)(long long)d) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "node must be an integer");
    return 0;
  }
  if (d < min || d >= NODE_LIMIT) {
    char msg[128];
    snprintf(msg, sizeof msg, "node %.0f is out of range (Linux supports node ids 0..%d)", d, NODE_LIMIT - 1);
    napi_throw_range_error(env, "EINVAL", msg);
    return 0;
  }
  *node = (int)d;
  return 1;
}

static int get_flag(napi_env env, napi_value obj, const char *name, bool *out) {
  *out = false;
  napi_valuetype t;
  if (napi_typeof(env, obj, &t) != napi_ok) return 0;
  if (t == napi_undefined || t == napi_null) return 1;
  if (t != napi_object) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "flags must be an object");
    return 0;
  }
  bool has = false;
  if (napi_has_named_property(env, obj, name, &has) != napi_ok) return 0;
  if (!has) return 1;
  napi_value v;
  if (napi_get_named_property(env, obj, name, &v) != napi_ok) return 0;
  if (napi_typeof(env, v, &t) != napi_ok) return 0;
  if (t == napi_undefined) return 1;
  if (t != napi_boolean) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "flags.move and flags.strict must be booleans");
    return 0;
  }
  return napi_get_value_bool(env, v, out) == napi_ok;
}

static napi_value make_number(napi_env env, double d) {
  napi_value v = NULL;
  napi_create_double(env, d, &v);
  return v;
}

static napi_value policy_object(napi_env env, int mode, const unsigned long *mask) {
  napi_value obj, nodes;
  CHECK(napi_create_object(env, &obj));
  CHECK(napi_create_array(env, &nodes));
  uint32_t n = 0;
  for (int i = 0; i < NODE_LIMIT; i++) {
    if (mask[i / BITS_PER_WORD] & (1UL << (i % BITS_PER_WORD))) {
      CHECK(napi_set_element(env, nodes, n++, make_number(env, i)));
    }
  }
  CHECK(napi_set_named_property(env, obj, "mode", make_number(env, mode & ~MPOL_MODE_FLAGS_)));
  CHECK(napi_set_named_property(env, obj, "nodes", nodes));
  return obj;
}

// bind(view, node, flags) -> {address, firstPage, pages}
static napi_value Bind(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2) {
    napi_throw_type_error(env, "ERR_MISSING_ARGS", "bind(view, node, flags?) needs a view and a node");
    return NULL;
  }
  range_t r;
  int node;
  bool move = false, strict = false;
  if (!get_range(env, argv[0], &r) || !get_node(env, argv[1], 0, &node)) return NULL;
  if (argc >= 3 && (!get_flag(env, argv[2], "move", &move) || !get_flag(env, argv[2], "strict", &strict)))
    return NULL;

  if (r.pages > 0) {
    const size_t words = (size_t)node / BITS_PER_WORD + 1;
    unsigned long mask[MASK_WORDS];
    memset(mask, 0, sizeof mask);
    mask[node / BITS_PER_WORD] = 1UL << (node % BITS_PER_WORD);
    unsigned flags = (strict ? MPOL_MF_STRICT_ : 0) | (move ? MPOL_MF_MOVE_ : 0);
    // The kernel drops one from maxnode (long-standing quirk), hence the + 1.
    if (sys_mbind((void *)r.first_page, (unsigned long)(r.pages * page_size()), MPOL_BIND_, mask,
                  (unsigned long)(words * BITS_PER_WORD + 1), flags) != 0) {
      return throw_errno(env, errno, "mbind", node);
    }
  }
  napi_value obj;
  CHECK(napi_create_object(env, &obj));
  CHECK(napi_set_named_property(env, obj, "address", make_number(env, (double)r.address)));
  CHECK(napi_set_named_property(env, obj, "firstPage", make_number(env, (double)r.first_page)));
  CHECK(napi_set_named_property(env, obj, "pages", make_number(env, (double)r.pages)));
  return obj;
}

// pageNodes(view) -> Int32Array, one entry per interior page.
static napi_value PageNodes(napi_env env, napi_callback_info info) {
  range_t r;
  if (!view_argument(env, info, "pageNodes(view) needs a view", &r)) return NULL;

  void *out_data = NULL;
  napi_value buffer, result;
  CHECK(napi_create_arraybuffer(env, r.pages * sizeof(int32_t), &out_data, &buffer));
  CHECK(napi_create_typedarray(env, napi_int32_array, r.pages, buffer, 0, &result));
  if (r.pages == 0) return result;

  int32_t *status = (int32_t *)out_data;
  const size_t ps = page_size();
  const size_t chunk = r.pages < PAGE_CHUNK ? r.pages : PAGE_CHUNK;
  void **pages = (void **)malloc(chunk * sizeof(void *));
  if (pages == NULL) return throw_errno(env, ENOMEM, "malloc", -1);
  for (size_t done = 0; done < r.pages; done += chunk) {
    const size_t n = r.pages - done < chunk ? r.pages - done : chunk;
    for (size_t i = 0; i < n; i++) pages[i] = (void *)(r.first_page + (done + i) * ps);
    // nodes == NULL: move nothing, only report where each page lives.
    if (sys_move_pages(0, (unsigned long)n, pages, NULL, (int *)(status + done), 0) < 0) {
      const int err = errno;
      free(pages);
      return throw_errno(env, err, "move_pages", -1);
    }
  }
  free(pages);
  return result;
}

// setThreadPolicy(node | -1)
static napi_value SetThreadPolicy(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1) {
    napi_throw_type_error(env, "ERR_MISSING_ARGS", "setThreadPolicy(node) needs a node (or -1)");
    return NULL;
  }
  int node;
  if (!get_node(env, argv[0], -1, &node)) return NULL;
  long rc;
  if (node < 0) {
    rc = sys_set_mempolicy(MPOL_DEFAULT_, NULL, 0);
  } else {
    unsigned long mask[MASK_WORDS];
    memset(mask, 0, sizeof mask);
    mask[node / BITS_PER_WORD] = 1UL << (node % BITS_PER_WORD);
    const size_t words = (size_t)node / BITS_PER_WORD + 1;
    rc = sys_set_mempolicy(MPOL_BIND_, mask, (unsigned long)(words * BITS_PER_WORD + 1));
  }
  if (rc != 0) return throw_errno(env, errno, "set_mempolicy", node);
  napi_value undef;
  CHECK(napi_get_undefined(env, &undef));
  return undef;
}

// threadPolicy() -> {mode, nodes}
static napi_value ThreadPolicy(napi_env env, napi_callback_info info) {
  (void)info;
  int mode = 0;
  unsigned long mask[MASK_WORDS];
  memset(mask, 0, sizeof mask);
  if (sys_get_mempolicy(&mode, mask, NODE_LIMIT + 1, NULL, 0) != 0)
    return throw_errno(env, errno, "get_mempolicy", -1);
  return policy_object(env, mode, mask);
}

// rangePolicy(view) -> {mode, nodes} of the first interior page, or null when there is none.
static napi_value RangePolicy(napi_env env, napi_callback_info info) {
  range_t r;
  if (!view_argument(env, info, "rangePolicy(view) needs a view", &r)) return NULL;
  if (r.pages == 0) {
    napi_value nul;
    CHECK(napi_get_null(env, &nul));
    return nul;
  }
  int mode = 0;
  unsigned long mask[MASK_WORDS];
  memset(mask, 0, sizeof mask);
  if (sys_get_mempolicy(&mode, mask, NODE_LIMIT + 1, (void *)r.first_page, MPOL_F_ADDR_) != 0)
    return throw_errno(env, errno, "get_mempolicy", -1);
  return policy_object(env, mode, mask);
}

// checkRangePolicy(view, mode, node): the policy of every interior page, compared with (mode, {node}).
// A policy belongs to the VMA holding the address, and mbind splits VMAs at page granularity, so only
// a per-page walk proves that the whole range is bound (the first page says nothing about the rest).
static napi_value CheckRangePolicy(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3) {
    napi_throw_type_error(env, "ERR_MISSING_ARGS", "checkRangePolicy(view, mode, node) needs a view, a mode and a node");
    return NULL;
  }
  range_t r;
  int node;
  int32_t want_mode;
  if (!get_range(env, argv[0], &r)) return NULL;
  if (napi_get_value_int32(env, argv[1], &want_mode) != napi_ok) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "mode must be an integer");
    return NULL;
  }
  if (!get_node(env, argv[2], 0, &node)) return NULL;
  const size_t ps = page_size();
  double mismatched = 0, first = -1;
  unsigned long mask[MASK_WORDS];
  for (size_t i = 0; i < r.pages; i++) {
    int mode = 0;
    memset(mask, 0, sizeof mask);
    if (sys_get_mempolicy(&mode, mask, NODE_LIMIT + 1, (void *)(r.first_page + i * ps), MPOL_F_ADDR_) != 0)
      return throw_errno(env, errno, "get_mempolicy", -1);
    int ok = (mode & ~MPOL_MODE_FLAGS_) == want_mode;
    for (size_t w = 0; ok && w < MASK_WORDS; w++) {
      const unsigned long expect = w == (size_t)node / BITS_PER_WORD ? 1UL << (node % BITS_PER_WORD) : 0;
      ok = mask[w] == expect;
    }
    if (!ok) {
      if (first < 0) first = (double)i;
      mismatched++;
    }
  }
  napi_value obj;
  CHECK(napi_create_object(env, &obj));
  CHECK(napi_set_named_property(env, obj, "pages", make_number(env, (double)r.pages)));
  CHECK(napi_set_named_property(env, obj, "mismatched", make_number(env, mismatched)));
  CHECK(napi_set_named_property(env, obj, "firstMismatch", make_number(env, first)));
  return obj;
}

static int read_allowed(unsigned long *mask) {
  memset(mask, 0, MASK_WORDS * sizeof(unsigned long));
  return (int)sys_get_mempolicy(NULL, mask, NODE_LIMIT + 1, NULL, MPOL_F_MEMS_ALLOWED_);
}

// allowedNodes() -> number[]
static napi_value AllowedNodes(napi_env env, napi_callback_info info) {
  (void)info;
  unsigned long mask[MASK_WORDS];
  if (read_allowed(mask) != 0) return throw_errno(env, errno, "get_mempolicy", -1);
  napi_value nodes;
  CHECK(napi_create_array(env, &nodes));
  uint32_t n = 0;
  for (int i = 0; i < NODE_LIMIT; i++) {
    if (mask[i / BITS_PER_WORD] & (1UL << (i % BITS_PER_WORD))) {
      CHECK(napi_set_element(env, nodes, n++, make_number(env, i)));
    }
  }
  return nodes;
}

// maxNode() -> highest node this thread may allocate on.
static napi_value MaxNode(napi_env env, napi_callback_info info) {
  (void)info;
  unsigned long mask[MASK_WORDS];
  if (read_allowed(mask) != 0) return throw_errno(env, errno, "get_mempolicy", -1);
  int max = 0;
  for (int i = 0; i < NODE_LIMIT; i++) {
    if (mask[i / BITS_PER_WORD] & (1UL << (i % BITS_PER_WORD))) max = i;
  }
  return make_number(env, max);
}

// setThreadAffinity(cpus: number[]): run the calling thread only on these CPUs.
static napi_value SetThreadAffinity(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  bool is_array = false;
  if (argc < 1 || napi_is_array(env, argv[0], &is_array) != napi_ok || !is_array) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "setThreadAffinity(cpus) needs an array of CPU numbers");
    return NULL;
  }
  uint32_t n = 0;
  CHECK(napi_get_array_length(env, argv[0], &n));
  unsigned long mask[CPU_WORDS];
  memset(mask, 0, sizeof mask);
  for (uint32_t i = 0; i < n; i++) {
    napi_value v;
    int32_t cpu;
    CHECK(napi_get_element(env, argv[0], i, &v));
    if (napi_get_value_int32(env, v, &cpu) != napi_ok || cpu < 0 || cpu >= CPU_LIMIT) {
      napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "CPU numbers must be integers in 0..8191");
      return NULL;
    }
    mask[cpu / BITS_PER_WORD] |= 1UL << (cpu % BITS_PER_WORD);
  }
  if (sys_sched_setaffinity(sizeof mask, mask) != 0) return throw_errno(env, errno, "sched_setaffinity", -1);
  napi_value undef;
  CHECK(napi_get_undefined(env, &undef));
  return undef;
}

// threadAffinity() -> number[]: the CPUs the calling thread may run on.
static napi_value ThreadAffinity(napi_env env, napi_callback_info info) {
  (void)info;
  unsigned long mask[CPU_WORDS];
  memset(mask, 0, sizeof mask);
  if (sys_sched_getaffinity(sizeof mask, mask) < 0) return throw_errno(env, errno, "sched_getaffinity", -1);
  napi_value arr;
  CHECK(napi_create_array(env, &arr));
  uint32_t k = 0;
  for (int cpu = 0; cpu < CPU_LIMIT; cpu++) {
    if (mask[cpu / BITS_PER_WORD] & (1UL << (cpu % BITS_PER_WORD))) {
      napi_value v;
      CHECK(napi_create_int32(env, cpu, &v));
      CHECK(napi_set_element(env, arr, k++, v));
    }
  }
  return arr;
}

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#define PATH_BYTES 4096

// Reads a string argument into buf (PATH_BYTES). 0 with a pending exception if it is not one or too long.
static int get_path(napi_env env, napi_value value, char *buf) {
  size_t len = 0;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &len) != napi_ok) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "paths must be strings");
    return 0;
  }
  if (len == 0 || len >= PATH_BYTES) {
    napi_throw_range_error(env, "ENAMETOOLONG", "path is empty or longer than 4095 bytes");
    return 0;
  }
  return napi_get_value_string_utf8(env, value, buf, PATH_BYTES, &len) == napi_ok;
}

// exchangePaths(a, b): both must exist; afterwards each name refers to what the other did, with no
// moment at which either name is missing. Throws with code ENOSYS (old kernel) or EINVAL (a
// filesystem without RENAME_EXCHANGE) when the caller must fall back.
static napi_value ExchangePaths(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2) {
    napi_throw_type_error(env, "ERR_MISSING_ARGS", "exchangePaths(a, b) needs two paths");
    return NULL;
  }
  char a[PATH_BYTES], b[PATH_BYTES];
  if (!get_path(env, argv[0], a) || !get_path(env, argv[1], b)) return NULL;
  if (sys_renameat2(a, b, RENAME_EXCHANGE) != 0) return throw_errno(env, errno, "renameat2", -1);
  napi_value undef;
  CHECK(napi_get_undefined(env, &undef));
  return undef;
}

// address(view) -> the virtual address of the view's first byte. Huge pages are aligned in the
// address space, not in a buffer, so a layout that keeps tiers out of each other's huge pages needs it.
static napi_value Address(napi_env env, napi_callback_info info) {
  range_t r;
  if (!view_argument(env, info, "address(view) needs a view", &r)) return NULL;
  return make_number(env, (double)r.address);
}

static napi_value PageSize(napi_env env, napi_callback_info info) {
  (void)info;
  return make_number(env, (double)page_size());
}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  napi_property_descriptor props[] = {
      {"bind", NULL, Bind, NULL, NULL, NULL, napi_enumerable, NULL},
      {"pageNodes", NULL, PageNodes, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setThreadPolicy", NULL, SetThreadPolicy, NULL, NULL, NULL, napi_enumerable, NULL},
      {"threadPolicy", NULL, ThreadPolicy, NULL, NULL, NULL, napi_enumerable, NULL},
      {"rangePolicy", NULL, RangePolicy, NULL, NULL, NULL, napi_enumerable, NULL},
      {"checkRangePolicy", NULL, CheckRangePolicy, NULL, NULL, NULL, napi_enumerable, NULL},
      {"allowedNodes", NULL, AllowedNodes, NULL, NULL, NULL, napi_enumerable, NULL},
      {"maxNode", NULL, MaxNode, NULL, NULL, NULL, napi_enumerable, NULL},
      {"address", NULL, Address, NULL, NULL, NULL, napi_enumerable, NULL},
      {"pageSize", NULL, PageSize, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setThreadAffinity", NULL, SetThreadAffinity, NULL, NULL, NULL, napi_enumerable, NULL},
      {"threadAffinity", NULL, ThreadAffinity, NULL, NULL, NULL, napi_enumerable, NULL},
      {"exchangePaths", NULL, ExchangePaths, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return NULL;
  return exports;
}
