/*
 * delayline NS_A TUN_A NS_B TUN_B ONE_WAY_MS: a fixed network delay between
 * two network namespaces, in user space, for kernels built without netem
 * (CONFIG_NET_SCH_NETEM unset: `tc qdisc ... netem` answers "Specified qdisc
 * kind is unknown").
 *
 * It opens a TUN device in each namespace (setns into /var/run/netns/NAME),
 * and every IP packet read from one side is written to the other side
 * ONE_WAY_MS later. The delay is the same for every packet, so each
 * direction is a FIFO: no reordering, no jitter, no loss unless a queue is
 * full (then the packet is dropped and counted, as netem's `limit` does).
 * The devices exist while this process holds them open, so ending it
 * removes them; the caller gives them addresses and routes.
 *
 * Prints "ready" on stdout once both devices exist; on SIGTERM or SIGINT,
 * prints its counters on stderr and exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* One MTU-sized packet per slot: without IFF_VNET_HDR a TUN device does no
 * segmentation offload, so nothing larger than the MTU (1,500) arrives. */
#define SLOT_BYTES 2048
/* 16,384 packets in flight per direction: at 25 ms one way that is 650,000
 * packets/s, far above what two cores of handshakes produce. */
#define QUEUE_SLOTS 16384

struct packet {
  uint64_t due_ns;
  uint32_t length;
  unsigned char bytes[SLOT_BYTES];
};

struct direction {
  const char *name;
  int from, to;
  struct packet *slots;
  size_t head, count, max_count;
  uint64_t forwarded, dropped, write_errors;
};

static volatile sig_atomic_t stopping;

static void on_signal(int signal_number) {
  (void)signal_number;
  stopping = 1;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, const char *detail) {
  fprintf(stderr, "delayline: %s%s%s: %s\n", what, detail ? " " : "", detail ? detail : "", strerror(errno));
  exit(1);
}

/* The device is created in the namespace of the thread that opens it. */
static int open_tun_in(const char *namespace_name, const char *device) {
  char path[256];
  snprintf(path, sizeof path, "/var/run/netns/%s", namespace_name);
  int namespace_fd = open(path, O_RDONLY | O_CLOEXEC);
  if (namespace_fd < 0) die("cannot open namespace", path);
  if (setns(namespace_fd, CLONE_NEWNET) != 0) die("cannot enter namespace", path);
  close(namespace_fd);

  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) die("cannot open", "/dev/net/tun");
  struct ifreq request;
  memset(&request, 0, sizeof request);
  request.ifr_flags = IFF_TUN | IFF_NO_PI;
  if (strlen(device) >= IFNAMSIZ) {
    errno = ENAMETOOLONG;
    die("device name too long:", device);
  }
  strncpy(request.ifr_name, device, IFNAMSIZ - 1);
  if (ioctl(fd, TUNSETIFF, &request) != 0) die("TUNSETIFF", device);
  return fd;
}

/* Reads every packet waiting on the source device into the queue. */
static void take_in(struct direction *d, uint64_t delay_ns) {
  for (;;) {
    if (d->count == QUEUE_SLOTS) {
      unsigned char discard[SLOT_BYTES];
      if (read(d->from, discard, sizeof discard) < 0) return;
      d->dropped++;
      continue;
    }
    struct packet *slot = &d->slots[(d->head + d->count) % QUEUE_SLOTS];
    ssize_t got = read(d->from, slot->bytes, sizeof slot->bytes);
    if (got <= 0) return;
    slot->length = (uint32_t)got;
    slot->due_ns = now_ns() + delay_ns;
    d->count++;
    if (d->count > d->max_count) d->max_count = d->count;
  }
}

/* Writes every packet whose time has come; returns ns until the next one. */
static uint64_t give_out(struct direction *d, uint64_t now) {
  while (d->count > 0) {
    struct packet *slot = &d->slots[d->head];
    if (slot->due_ns > now) return slot->due_ns - now;
    if (write(d->to, slot->bytes, slot->length) < 0) {
      /* A full device queue on the far side: the packet is lost, as on a wire. */
      d->write_errors++;
    } else {
      d->forwarded++;
    }
    d->head = (d->head + 1) % QUEUE_SLOTS;
    d->count--;
  }
  return UINT64_MAX;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: delayline NS_A TUN_A NS_B TUN_B ONE_WAY_MS\n");
    return 2;
  }
  char *end = NULL;
  long delay_ms = strtol(argv[5], &end, 10);
  if (*argv[5] == '\0' || *end != '\0' || delay_ms < 0 || delay_ms > 10000) {
    fprintf(stderr, "delayline: ONE_WAY_MS must be 0 to 10000, not '%s'\n", argv[5]);
    return 2;
  }
  uint64_t delay_ns = (uint64_t)delay_ms * 1000000u;

  int tun_a = open_tun_in(argv[1], argv[2]);
  int tun_b = open_tun_in(argv[3], argv[4]);
  struct direction directions[2] = {
      {.name = "a->b", .from = tun_a, .to = tun_b},
      {.name = "b->a", .from = tun_b, .to = tun_a},
  };
  for (int i = 0; i < 2; i++) {
    directions[i].slots = calloc(QUEUE_SLOTS, sizeof(struct packet));
    if (!directions[i].slots) die("out of memory for the queues", NULL);
  }

  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigaction(SIGTERM, &action, NULL);
  sigaction(SIGINT, &action, NULL);
  printf("ready\n");
  fflush(stdout);

  struct pollfd watched[2] = {{.fd = tun_a, .events = POLLIN}, {.fd = tun_b, .events = POLLIN}};
  uint64_t wait_ns = UINT64_MAX;
  while (!stopping) {
    /* ppoll, not poll: a millisecond-granular timeout would add up to 1 ms
     * of delay per hop. Idle, it wakes at least once a second. */
    uint64_t bounded = wait_ns > 1000000000u ? 1000000000u : wait_ns;
    struct timespec timeout = {.tv_sec = (time_t)(bounded / 1000000000u), .tv_nsec = (long)(bounded % 1000000000u)};
    int ready = ppoll(watched, 2, &timeout, NULL);
    if (ready < 0 && errno != EINTR) die("ppoll", NULL);
    for (int i = 0; i < 2; i++) {
      if (ready > 0 && (watched[i].revents & POLLIN)) take_in(&directions[i], delay_ns);
    }
    uint64_t now = now_ns();
    wait_ns = UINT64_MAX;
    for (int i = 0; i < 2; i++) {
      uint64_t next = give_out(&directions[i], now);
      if (next < wait_ns) wait_ns = next;
    }
  }
  for (int i = 0; i < 2; i++) {
    struct direction *d = &directions[i];
    fprintf(stderr, "delayline %s: %llu packets forwarded, %llu dropped (queue full), %llu lost on write, %zu most queued\n",
            d->name, (unsigned long long)d->forwarded, (unsigned long long)d->dropped,
            (unsigned long long)d->write_errors, d->max_count);
  }
  return 0;
}
