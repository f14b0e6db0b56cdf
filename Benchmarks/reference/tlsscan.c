/*
 * tlsscan: the benchmark's C reference for pinwatch's job, as a careful C
 * programmer would write it with OpenSSL and epoll.
 *
 * For hostI.test on 127.0.0.1:PORT_BASE+I (1 <= I <= N): a TLS handshake
 * with SNI and host-name verification against ROOT, then, for every level of
 * the verified chain, the SHA-256 of the DER SubjectPublicKeyInfo (a
 * sha256/ pin) and notAfter. Non-blocking sockets, up to INFLIGHT
 * handshakes at once spread over THREADS threads, each with its own epoll.
 * Output, in host order: host <TAB> leaf|int|root <TAB> pin <TAB> notAfter
 * (openssl's text form), the format of the farm's expected-pins.tsv.
 *
 * Usage: tlsscan -n N -r ROOT.pem [-c INFLIGHT] [-t THREADS] [-p PORT_BASE] [-o OUT]
 *                [-P PORT] [-d DOMAIN] [-R ROUNDS]
 * -P: every host dials this one port (one server for the whole fleet);
 * -d: host names are hostI.DOMAIN (default: test); -R: the scan repeated
 * ROUNDS times, each round started on the next whole second, as `watch`
 * polls at `interval: 1s` (Benchmarks/dashboard-idle.sh's handshake
 * floor); the output is the last round's.
 * Exit 0 when every host was scanned, 1 otherwise (failures on stderr).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct connection {
    int fd;
    SSL *ssl;
    int host;
};

static int host_count, inflight = 32, thread_count = 1, port_base = 20000, one_port = 0, rounds = 1;
static const char *domain = "test";
static SSL_CTX *context;
static char **results;            /* one malloc'd text per host, NULL on failure */
static atomic_int next_host = 1;  /* hosts are numbered from 1 */
static atomic_int failures;

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void fail(int host, const char *what) {
    unsigned long code = ERR_get_error();
    char reason[256] = "";
    if (code) ERR_error_string_n(code, reason, sizeof reason);
    fprintf(stderr, "host%d.%s: %s %s\n", host, domain, what, reason);
    ERR_clear_error();
    atomic_fetch_add(&failures, 1);
}

/* The verified chain's pins and expiry dates, as text. */
static char *describe_chain(SSL *ssl, int host) {
    STACK_OF(X509) *chain = SSL_get0_verified_chain(ssl);
    int levels = chain ? sk_X509_num(chain) : 0;
    if (levels == 0) return NULL;
    BIO *out = BIO_new(BIO_s_mem());
    for (int level = 0; level < levels; level++) {
        X509 *certificate = sk_X509_value(chain, level);
        unsigned char *der = NULL;
        int length = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(certificate), &der);
        if (length <= 0) {
            BIO_free(out);
            return NULL;
        }
        unsigned char digest[32];
        unsigned char pin[48];
        EVP_Digest(der, (size_t)length, digest, NULL, EVP_sha256(), NULL);
        OPENSSL_free(der);
        EVP_EncodeBlock(pin, digest, sizeof digest);
        const char *name = level == 0 ? "leaf" : level == levels - 1 ? "root" : "int";
        BIO_printf(out, "host%d.%s\t%s\t%s\t", host, domain, name, pin);
        ASN1_TIME_print(out, X509_get0_notAfter(certificate));
        BIO_printf(out, "\n");
    }
    char *text;
    long size = BIO_get_mem_data(out, &text);
    char *copy = strndup(text, (size_t)size);
    BIO_free(out);
    return copy;
}

static void finish(int epoll, struct connection *connection) {
    epoll_ctl(epoll, EPOLL_CTL_DEL, connection->fd, NULL);
    SSL_free(connection->ssl);
    close(connection->fd);
    free(connection);
}

/* Starts the next host's connection; 0 when none is left. */
static int start_next(int epoll) {
    int host = atomic_fetch_add(&next_host, 1);
    if (host > host_count) return 0;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)(one_port ? one_port : port_base + host))};
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    if (fd < 0 || (connect(fd, (struct sockaddr *)&address, sizeof address) < 0 && errno != EINPROGRESS)) {
        fail(host, strerror(errno));
        if (fd >= 0) close(fd);
        return 1;
    }
    char name[64];
    snprintf(name, sizeof name, "host%d.%s", host, domain);
    struct connection *connection = calloc(1, sizeof *connection);
    connection->fd = fd;
    connection->host = host;
    connection->ssl = SSL_new(context);
    SSL_set_fd(connection->ssl, fd);
    SSL_set_tlsext_host_name(connection->ssl, name);
    SSL_set1_host(connection->ssl, name);
    SSL_set_connect_state(connection->ssl);
    struct epoll_event event = {.events = EPOLLOUT, .data.ptr = connection};
    epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
    return 1;
}

/* One step of the handshake; returns 1 while the connection lives on. */
static int advance(int epoll, struct connection *connection) {
    int status = SSL_do_handshake(connection->ssl);
    if (status == 1) {
        char *text = describe_chain(connection->ssl, connection->host);
        if (text)
            results[connection->host] = text;
        else
            fail(connection->host, "no verified chain");
        return 0;
    }
    int error = SSL_get_error(connection->ssl, status);
    if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) {
        long verify = SSL_get_verify_result(connection->ssl);
        fail(connection->host, verify == X509_V_OK ? "handshake failed" : X509_verify_cert_error_string(verify));
        return 0;
    }
    struct epoll_event event = {.events = error == SSL_ERROR_WANT_READ ? EPOLLIN : EPOLLOUT, .data.ptr = connection};
    epoll_ctl(epoll, EPOLL_CTL_MOD, connection->fd, &event);
    return 1;
}

static void *scan(void *share) {
    int own = *(int *)share, open = 0;
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    while (open < own && start_next(epoll)) open++;
    struct epoll_event events[64];
    double quiet_since = now_seconds();
    while (open > 0) {
        int ready = epoll_wait(epoll, events, 64, 1000);
        if (ready <= 0) {
            if (now_seconds() - quiet_since > 10) {
                fprintf(stderr, "tlsscan: %d handshakes stalled for 10 s\n", open);
                atomic_fetch_add(&failures, open);
                break;
            }
            continue;
        }
        quiet_since = now_seconds();
        for (int i = 0; i < ready; i++) {
            struct connection *connection = events[i].data.ptr;
            if (!advance(epoll, connection)) {
                finish(epoll, connection);
                open--;
                if (start_next(epoll)) open++;
            }
        }
    }
    close(epoll);
    return NULL;
}

int main(int argc, char **argv) {
    const char *root = NULL, *output = NULL;
    int option;
    while ((option = getopt(argc, argv, "n:r:c:t:p:o:P:d:R:")) != -1) {
        switch (option) {
        case 'n': host_count = atoi(optarg); break;
        case 'r': root = optarg; break;
        case 'c': inflight = atoi(optarg); break;
        case 't': thread_count = atoi(optarg); break;
        case 'p': port_base = atoi(optarg); break;
        case 'o': output = optarg; break;
        case 'P': one_port = atoi(optarg); break;
        case 'd': domain = optarg; break;
        case 'R': rounds = atoi(optarg); break;
        default: goto usage;
        }
    }
    if (host_count < 1 || !root || inflight < 1 || thread_count < 1 || rounds < 1) goto usage;

    context = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
    SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER, NULL);
    if (SSL_CTX_load_verify_locations(context, root, NULL) != 1) {
        fprintf(stderr, "tlsscan: cannot load %s\n", root);
        return 2;
    }
    results = calloc((size_t)host_count + 1, sizeof *results);
    pthread_t *threads = calloc((size_t)thread_count, sizeof *threads);
    int *shares = calloc((size_t)thread_count, sizeof *shares);
    for (int round = 0; round < rounds; round++) {
        if (round > 0) {
            struct timespec t;
            clock_gettime(CLOCK_REALTIME, &t);
            t.tv_sec += 1;
            t.tv_nsec = 0;
            clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &t, NULL);
            for (int host = 1; host <= host_count; host++) {
                free(results[host]);
                results[host] = NULL;
            }
            atomic_store(&next_host, 1);
        }
        for (int t = 0; t < thread_count; t++) {
            shares[t] = inflight / thread_count + (t < inflight % thread_count);
            pthread_create(&threads[t], NULL, scan, &shares[t]);
        }
        for (int t = 0; t < thread_count; t++) pthread_join(threads[t], NULL);
    }
    free(threads);
    free(shares);

    FILE *out = output ? fopen(output, "w") : stdout;
    if (!out) {
        perror(output);
        return 2;
    }
    for (int host = 1; host <= host_count; host++) {
        if (results[host]) fputs(results[host], out);
        free(results[host]);
    }
    if (out != stdout) fclose(out);
    free(results);
    SSL_CTX_free(context);
    return atomic_load(&failures) ? 1 : 0;

usage:
    fprintf(stderr, "usage: tlsscan -n N -r ROOT.pem [-c INFLIGHT] [-t THREADS] [-p PORT_BASE] [-o OUT]"
                    " [-P PORT] [-d DOMAIN] [-R ROUNDS]\n");
    return 2;
}
