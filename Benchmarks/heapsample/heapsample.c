// Benchmarks/heapsample: an LD_PRELOAD library that appends glibc's own
// figures (mallinfo2) to HEAPSAMPLE_FILE every HEAPSAMPLE_SECONDS (10):
// "seconds in-use free arena mmapped", in bytes. In-use plus mmapped is the
// live heap; arena less in-use is what the allocator keeps. HEAPSAMPLE_EXE,
// when set, names the one executable that samples. Build:
// gcc -O2 -shared -fPIC -o heapsample.so heapsample.c -lpthread
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static char file[4096];
static int seconds = 10;
static void *run(void *unused) {
  struct timespec start; clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    sleep(seconds);
    struct mallinfo2 m = mallinfo2();
    struct timespec now; clock_gettime(CLOCK_MONOTONIC, &now);
    FILE *out = fopen(file, "ae");
    if (!out) continue;
    fprintf(out, "%ld %zu %zu %zu %zu\n", (long)(now.tv_sec - start.tv_sec), m.uordblks, m.fordblks, m.arena, m.hblkhd);
    fclose(out);
  }
  return NULL;
}
__attribute__((constructor)) static void start(void) {
  const char *path = getenv("HEAPSAMPLE_FILE");
  if (!path) return;
  // With HEAPSAMPLE_EXE, only that executable samples: a launcher that
  // execs it (pinwatch serve runs pinwatch-serve) passes the variables on.
  const char *wanted = getenv("HEAPSAMPLE_EXE");
  if (wanted) {
    char exe[4096]; ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (length <= 0) return;
    exe[length] = 0;
    const char *base = strrchr(exe, '/');
    if (strcmp(base ? base + 1 : exe, wanted) != 0) return;
  }
  snprintf(file, sizeof file, "%s", path);
  const char *every = getenv("HEAPSAMPLE_SECONDS");
  if (every && atoi(every) > 0) seconds = atoi(every);
  // Children (hooks) do not sample.
  unsetenv("HEAPSAMPLE_FILE"); unsetenv("HEAPSAMPLE_EXE"); unsetenv("LD_PRELOAD");
  pthread_t thread; pthread_attr_t attr; pthread_attr_init(&attr); pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_create(&thread, &attr, run, NULL);
}
