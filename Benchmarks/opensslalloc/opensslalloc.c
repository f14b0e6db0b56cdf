// Benchmarks/opensslalloc: an LD_PRELOAD library that counts OpenSSL's own
// live allocations, by the source line OpenSSL names for each
// (CRYPTO_set_mem_functions, set before OpenSSL's first allocation), and
// appends to OA_OUT (/tmp/oa.out) every OA_EVERY seconds (30) and at exit:
// "== live BLOCKS blocks BYTES bytes sqlite SQLITE heap HEAP", then the 40
// lines holding the most blocks. SQLITE is sqlite3_memory_used() when the
// process has loaded SQLite (-1 otherwise), HEAP glibc's in-use heap less
// this library's own table. Heaptrack places frames of a library without
// symbols by the nearest exported name; this counts at the allocator.
// Build: gcc -O2 -shared -fPIC -o opensslalloc.so opensslalloc.c -lcrypto -lpthread -ldl
#define _GNU_SOURCE
#include <openssl/crypto.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dlfcn.h>
#include <malloc.h>

typedef struct { void *p; const char *file; int line; size_t size; } slot;
#define CAP (1u << 22)
static slot *table;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static size_t hash(void *p) { return ((size_t)p >> 4) * 11400714819323198485ull >> 42; }
static void put(void *p, const char *f, int l, size_t s) {
  if (!p) return; pthread_mutex_lock(&mu);
  size_t i = hash(p) & (CAP - 1);
  while (table[i].p && table[i].p != (void *)1) i = (i + 1) & (CAP - 1);
  table[i] = (slot){p, f, l, s}; pthread_mutex_unlock(&mu);
}
static void del(void *p) {
  if (!p) return; pthread_mutex_lock(&mu);
  size_t i = hash(p) & (CAP - 1);
  for (size_t k = 0; table[i].p && k < CAP; k++) { if (table[i].p == p) { table[i].p = (void *)1; break; } i = (i + 1) & (CAP - 1); }
  pthread_mutex_unlock(&mu);
}
static void *m(size_t n, const char *f, int l) { void *p = malloc(n); put(p, f, l, n); return p; }
static void *r(void *o, size_t n, const char *f, int l) { del(o); void *p = realloc(o, n); put(p ? p : NULL, f, l, n); return p; }
static void fr(void *p, const char *f, int l) { (void)f; (void)l; del(p); free(p); }

typedef struct { const char *file; int line; long count; long bytes; } agg;
static int cmp(const void *a, const void *b) { long x = ((agg *)a)->count, y = ((agg *)b)->count; return x < y ? 1 : x > y ? -1 : 0; }
static void dump(FILE *out) {
  static agg a[65536]; int n = 0; long total = 0, bytes = 0;
  pthread_mutex_lock(&mu);
  for (size_t i = 0; i < CAP; i++) {
    slot *s = &table[i]; if (!s->p || s->p == (void *)1) continue;
    total++; bytes += s->size;
    int j; for (j = 0; j < n; j++) if (a[j].line == s->line && a[j].file == s->file) break;
    if (j == n) { if (n == 65536) continue; a[n++] = (agg){s->file, s->line, 0, 0}; }
    a[j].count++; a[j].bytes += s->size;
  }
  pthread_mutex_unlock(&mu);
  qsort(a, n, sizeof a[0], cmp);
  long long (*used)(void) = (long long (*)(void))dlsym(RTLD_DEFAULT, "sqlite3_memory_used");
  struct mallinfo2 mi = mallinfo2();
  fprintf(out, "== live %ld blocks %ld bytes sqlite %lld heap %zu\n", total, bytes, used ? used() : -1LL, mi.uordblks + mi.hblkhd - (size_t)CAP * sizeof(slot));
  for (int j = 0; j < n && j < 40; j++) fprintf(out, "%8ld %10ld %s:%d\n", a[j].count, a[j].bytes, a[j].file ? a[j].file : "?", a[j].line);
  fflush(out);
}
static void *ticker(void *arg) {
  const char *path = getenv("OA_OUT"); int every = getenv("OA_EVERY") ? atoi(getenv("OA_EVERY")) : 30;
  FILE *out = fopen(path ? path : "/tmp/oa.out", "a");
  for (;;) { sleep(every); dump(out); }
  return arg;
}
__attribute__((destructor)) static void stop(void) { const char *path = getenv("OA_OUT"); FILE *o = fopen(path ? path : "/tmp/oa.out", "a"); if (o) { fprintf(o, "exit\n"); dump(o); fclose(o); } }
__attribute__((constructor)) static void start(void) {
  table = calloc(CAP, sizeof(slot));
  if (!CRYPTO_set_mem_functions(m, r, fr)) { fprintf(stderr, "oa: CRYPTO_set_mem_functions refused\n"); return; }
  pthread_t t; pthread_create(&t, NULL, ticker, NULL); pthread_detach(t);
}
