// The floor for tracer's start-up (scripts/bench.sh, part 1): the least a client can do to run a
// Node program under tracer's own bootloader and console binding, written in C so that nothing of
// tracer's own start, threads and files is in it.
//
//   min-client BOOT_JS node PROGRAM [ARGS...]
//
// Makes the bootloader's channel as tracer does (a pair of datagram sockets, the command's end at
// descriptor 100), runs the command with TRACER_BOOT and NODE_OPTIONS as tracer sets them (the
// bootloader at BOOT_JS: src/inspector/bootloader/boot.js and console.js, one after the other, as
// scripts/bench.sh writes them), reads the bootloader's report, connects
// to the URL in it (127.0.0.1 only), sends in one write what tracer sends before the release
// (NodeRuntime.notifyWhenWaitingForDisconnect, Runtime.enable, the console binding, and
// NodeRuntime.enable when the report says Node announces its wait) and the release once Node
// says it waits (or, for a Node that cannot, once the setup is answered); then waits for Node's
// disconnect request, disconnects and waits for the command.
// The command's stdout and stderr go to a pipe, as under tracer, read at the end: for programs
// that print less than a pipe holds (64 KiB), such as examples/hello/hello.js. Exits with the
// command's exit code. Build: gcc -O2 -o min-client scripts/min-client.c
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int sock;
static char buffer[1 << 16];
static size_t used;

static void fail(const char *what) {
  perror(what);
  exit(125);
}

// Reads into the buffer, re-arming TCP_QUICKACK as tracer does (Node never sets TCP_NODELAY).
static ssize_t read_some(void) {
  if (used > sizeof buffer / 2) {
    memmove(buffer, buffer + used - 1024, 1024);
    used = 1024;
  }
  ssize_t n = read(sock, buffer + used, sizeof buffer - used - 1);
  int one = 1;
  setsockopt(sock, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
  if (n > 0) {
    used += (size_t)n;
    buffer[used] = 0;
  }
  return n;
}

// Appends one masked (with a zero key) WebSocket text frame of `text` to `out`.
static size_t frame(char *out, const char *text) {
  size_t n = strlen(text), h = 0;
  out[h++] = (char)0x81;
  if (n < 126) {
    out[h++] = (char)(0x80 | n);
  } else {
    out[h++] = (char)(0x80 | 126);
    out[h++] = (char)(n >> 8);
    out[h++] = (char)(n & 255);
  }
  memset(out + h, 0, 4);
  h += 4;
  memcpy(out + h, text, n);
  return h + n;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: min-client BOOT_JS COMMAND [ARGS...]\n");
    return 2;
  }
  // In memory where it can be, as tracer makes its own (src/inspector/boot.rs, `parent`).
  char dir[] = "/dev/shm/min-client-XXXXXX";
  if (!mkdtemp(dir)) {
    strcpy(dir, "/tmp/min-client-XXXXXX");
    if (!mkdtemp(dir)) fail("mkdtemp");
  }
  char name[PATH_MAX + 64], options[4200];
  int pair[2];
  struct stat sent;
  if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pair) || fstat(pair[1], &sent))
    fail("channel");
  snprintf(name, sizeof name, "100:%llu:%s", (unsigned long long)sent.st_ino, dir);
  char boot[PATH_MAX];
  if (!realpath(argv[1], boot)) fail(argv[1]);
  snprintf(options, sizeof options, "\"--\\inspect-publish-uid=stderr\" --require %s", boot);
  setenv("TRACER_BOOT", name, 1);
  setenv("NODE_OPTIONS", options, 1);
  int channel = pair[0];
  int out[2];
  if (pipe(out)) fail("pipe");
  pid_t pid = fork();
  if (pid < 0) fail("fork");
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(out[1], 2);
    close(out[0]);
    close(out[1]);
    // The command's end at 100, kept across exec (dup2 clears close-on-exec).
    dup2(pair[1], 100);
    execvp(argv[2], argv + 2);
    _exit(127);
  }
  close(out[1]);
  close(pair[1]);
  char report[4096];
  size_t length = 0;
  int status;
  for (;;) {
    // A command that ends without reporting is an error, not a wait for ever.
    struct pollfd ready = {.fd = channel, .events = POLLIN};
    if (poll(&ready, 1, 100) > 0) break;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      fprintf(stderr, "min-client: the command ended without a report from the bootloader\n");
      return 125;
    }
  }
  ssize_t got = recv(channel, report, sizeof report - 1, 0);
  length = got > 0 ? (size_t)got : 0;
  if (length > 0 && report[length - 1] == '\n') length--;
  report[length] = 0;
  close(channel);
  rmdir(dir);
  char *url = strstr(report, "\"url\":\"ws://127.0.0.1:");
  int port;
  char path[256];
  if (!url || sscanf(url + 22, "%d%255[^\"]", &port, path) != 2) {
    fprintf(stderr, "min-client: no 127.0.0.1 URL in the report: %s\n", report);
    return 125;
  }
  sock = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(sock, (struct sockaddr *)&address, sizeof address)) fail("connect");
  char request[512];
  snprintf(request, sizeof request,
           "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
           path, port);
  if (write(sock, request, strlen(request)) < 0) fail("write");
  // The handshake's answer first: Node drops frames that arrive with the request.
  while (!strstr(buffer, "\r\n\r\n"))
    if (read_some() <= 0) fail("handshake");
  used = 0;
  buffer[0] = 0;
  char setup[2048];
  size_t n = 0;
  n += frame(setup + n, "{\"id\":1,\"method\":\"NodeRuntime.notifyWhenWaitingForDisconnect\",\"params\":{\"enabled\":true}}");
  n += frame(setup + n, "{\"id\":2,\"method\":\"Runtime.enable\",\"params\":{}}");
  n += frame(setup + n, "{\"id\":3,\"method\":\"Runtime.addBinding\",\"params\":{\"name\":\"__tracerConsole\",\"executionContextId\":1}}");
  // The bootloader makes its console capture ready until Node announces its wait.
  int announces = strstr(report, "\"announces\":true") != NULL;
  if (announces) n += frame(setup + n, "{\"id\":5,\"method\":\"NodeRuntime.enable\",\"params\":{}}");
  if (write(sock, setup, n) < 0) fail("write");
  // The release as tracer sends it: once Node says it waits (it applies the setup first), or,
  // for a Node that cannot say so, once the setup is answered (sent with the setup, Node misses
  // it now and then: its main thread stays waiting, and so it is repeated while nothing arrives).
  while (announces ? !memmem(buffer, used, "NodeRuntime.waitingForDebugger", 30)
                   : !memmem(buffer, used, "\"id\":3,", 7))
    if (read_some() <= 0) fail("setup");
  const char *release = "{\"id\":4,\"method\":\"Runtime.runIfWaitingForDebugger\",\"params\":{}}";
  n = frame(setup, release);
  if (write(sock, setup, n) < 0) fail("write");
  while (!memmem(buffer, used, "waitingForDisconnect", 20)) {
    struct pollfd ready = {.fd = sock, .events = POLLIN};
    if (poll(&ready, 1, 50) == 0) {
      if (write(sock, setup, n) < 0) fail("write");
      continue;
    }
    if (read_some() <= 0) break;
  }
  close(sock);
  while (read(out[0], buffer, sizeof buffer) > 0) {
  }
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
