// A preloaded library for scripts/startup-timeline.py: in every process it is loaded into (through
// LD_PRELOAD), it appends "<program>-ctor <ns>" when the process starts running code and
// "<program>-dtor <ns>" when it exits normally, on CLOCK_MONOTONIC, to the file MARKS names. Nothing
// without MARKS. Build: gcc -O2 -shared -fPIC -o mark-preload.so scripts/mark-preload.c
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void mark(const char *what) {
  const char *file = getenv("MARKS");
  if (!file) return;
  char exe[256];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n < 0 ? 0 : n] = 0;
  const char *name = strrchr(exe, '/');
  name = name ? name + 1 : exe;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  char line[400];
  int length = snprintf(line, sizeof line, "%s-%s %lld\n", name, what,
                        (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
  int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) {
    if (write(fd, line, length) < 0) {
    }
    close(fd);
  }
}

__attribute__((constructor)) static void started(void) { mark("ctor"); }
__attribute__((destructor)) static void ended(void) { mark("dtor"); }
