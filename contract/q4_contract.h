/* q4_contract.h: the op contract of ../shared/SPEC.md as code, shared by every layer.
 *
 * One error type (q4_status + a one-sentence message) carried up as a value, and
 * the argument checks that the reference (q4ref_) and the GPU launchers (q4vk_)
 * both run, so that both reject the same inputs with the same sentence.
 * Nothing here allocates, aborts or prints. */
#ifndef Q4_CONTRACT_H
#define Q4_CONTRACT_H

#include <stddef.h>
#include <stdint.h>

#define Q4_MSG_MAX 512

typedef enum q4_status {
    Q4_OK = 0,
    Q4_ERR_ARG,          /* an argument outside the contract (shape, value, pointer) */
    Q4_ERR_NOMEM,        /* a host allocation failed */
    Q4_ERR_RESOURCE,     /* device memory or a device limit (e.g. maxStorageBufferRange) */
    Q4_ERR_UNSUPPORTED,  /* the device lacks a feature the work needs */
    Q4_ERR_DEVICE,       /* a Vulkan call failed (the message names the call) */
    Q4_ERR_DEVICE_LOST,  /* VK_ERROR_DEVICE_LOST: the context must be recreated */
    Q4_ERR_TIMEOUT,      /* the GPU did not finish within the watchdog */
    Q4_ERR_VALIDATION,   /* the Khronos validation layer reported an error */
    Q4_ERR_IO,           /* a file could not be read or written */
} q4_status;

typedef struct q4_error {
    q4_status status;
    char msg[Q4_MSG_MAX];
} q4_error;

/* Records status and a printf-style message in *err (err may be NULL); returns st. */
q4_status q4_fail(q4_error *err, q4_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *q4_status_name(q4_status st);

/* User text (a path, a pattern, a line of a file) to quote in a message, so that the
 * message still has room for its reason and never writes raw bytes to a terminal:
 * control bytes and invalid UTF-8 as \xNN, invisible characters (byte-order mark,
 * zero-width and direction marks) as \uNNNN, and text longer than size - 1 cut to
 * its head and tail around "...". Returns buf (size > 0). */
#define Q4_ECHO_MAX 160
const char *q4_echo(const char *s, char *buf, size_t size);
/* A buffer in which q4_echo escapes a text of up to 1024 bytes whole, never shortened:
 * for untrusted text printed to the console (a device name read from case.json, a
 * worker's message), so that no escape sequence reaches a terminal raw. */
#define Q4_CLEAN_MAX (4 * 1024 + 1)

/* Smallest positive normal fp32, 2^-126: scales must be 0 or at least this (SPEC §1). */
#define Q4_FLT_MIN_NORMAL 1.17549435082228750797e-38

/* ---- shape checks (SPEC §1 "Shape contract") ----
 * Each returns Q4_OK or Q4_ERR_ARG with a message naming the argument, its value
 * and what was expected, e.g. "N = 10 must be a multiple of 4". Products that
 * overflow size_t / int64 are rejected too. */
q4_status q4_check_linear(int64_t M, int64_t N, int64_t K, int64_t gs, q4_error *err);
q4_status q4_check_weight(int64_t N, int64_t K, int64_t gs, q4_error *err);
q4_status q4_check_dw(int64_t M, int64_t N, int64_t K, q4_error *err);
q4_status q4_check_ce_shape(int64_t R, int64_t V, double n_valid, q4_error *err);
q4_status q4_check_adamw(int64_t numel, double lr, double beta1, double beta2,
                         double eps, double wd, double bc1, double bc2, q4_error *err);

/* Values: every scale finite and zero or normal; every label < V (negative = masked). */
q4_status q4_check_scales(const float *scales, int64_t count, q4_error *err);
q4_status q4_check_labels(const int32_t *labels, int64_t R, int64_t V, q4_error *err);

/* Pointers: non-NULL, and two buffers that must not overlap do not. */
q4_status q4_check_ptr(const void *p, const char *name, q4_error *err);
q4_status q4_check_disjoint(const void *a, size_t abytes, const char *aname,
                            const void *b, size_t bbytes, const char *bname, q4_error *err);

/* a*b*c elements of elem bytes, into *bytes; Q4_ERR_ARG naming `what` on overflow. */
q4_status q4_size_bytes(int64_t a, int64_t b, int64_t c, size_t elem, const char *what,
                        size_t *bytes, q4_error *err);

/* ---- layout sizes (SPEC §1a, §1b) ---- */
static inline int64_t q4_n8(int64_t N) { return (N / 4 + 1) / 2; }
/* uint32 words in a W_4X8 buffer: (K/4) * N8 blocks of 4 words. */
static inline int64_t q4_w4x8_words(int64_t N, int64_t K) { return (K / 4) * q4_n8(N) * 4; }
/* bytes in the flat layout: N rows of ceil(K/2) bytes. */
static inline int64_t q4_flat_bytes(int64_t N, int64_t K) { return N * ((K + 1) / 2); }
static inline int64_t q4_scales_count(int64_t N, int64_t K, int64_t gs) { return (K / gs) * N; }
/* The padding word of an odd-N4 block's missing upper half: every code 8 (value 0). */
#define Q4_W4X8_PAD 0x88888888u

/* W_4X8 closed form (SPEC §1b): word index and bit shift of element (n, k). */
static inline int64_t q4_w4x8_word(int64_t N, int64_t n, int64_t k)
{
    int64_t n4 = n >> 2, ni = n & 3;
    int64_t comp = (n4 & 1) * 2 + (ni >> 1);
    return 4 * ((k >> 2) * q4_n8(N) + (n4 >> 1)) + comp;
}
static inline unsigned q4_w4x8_shift(int64_t n, int64_t k)
{
    return (unsigned)(8 * (k & 3) + 4 * (n & 1));
}
/* Packs codes [N][K] (one 0..15 per byte) into all q4_w4x8_words(N, K) words, the
 * padding words of an odd-N4 block exactly Q4_W4X8_PAD (q4_w4x8.c). No checks: the
 * caller has checked the shape and the codes. */
void q4_w4x8_pack(const uint8_t *codes, int64_t N, int64_t K, uint32_t *w);

#endif
