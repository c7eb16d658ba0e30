#define _GNU_SOURCE
#include "CFuse.h"
#include <string.h>

struct fuse_session *cfuse_session_new(int argc, char **argv,
                                       const struct fuse_lowlevel_ops *ops,
                                       void *userdata) {
    struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
    struct fuse_session *se = fuse_session_new(&args, ops, sizeof(*ops), userdata);
    // fuse_session_new copies what it keeps; args may own allocations.
    fuse_opt_free_args(&args);
    return se;
}

int cfuse_session_loop_mt(struct fuse_session *se, unsigned max_idle) {
    struct fuse_loop_config *config = fuse_loop_cfg_create();
    if (config == NULL) return -1;
    fuse_loop_cfg_set_clone_fd(config, 0);
    fuse_loop_cfg_set_idle_threads(config, max_idle);
    int rc = fuse_session_loop_mt(se, config);
    fuse_loop_cfg_destroy(config);
    return rc;
}

void cfuse_fi_set_direct_io(struct fuse_file_info *fi, int on) { fi->direct_io = on ? 1 : 0; }
void cfuse_fi_set_keep_cache(struct fuse_file_info *fi, int on) { fi->keep_cache = on ? 1 : 0; }
void cfuse_fi_set_nonseekable(struct fuse_file_info *fi, int on) { fi->nonseekable = on ? 1 : 0; }
int cfuse_fi_flags(const struct fuse_file_info *fi) { return fi->flags; }
uint64_t cfuse_fi_fh(const struct fuse_file_info *fi) { return fi->fh; }
void cfuse_fi_set_fh(struct fuse_file_info *fi, uint64_t fh) { fi->fh = fh; }

int cfuse_reply_fd(fuse_req_t req, int fd, off_t offset, size_t size) {
    struct fuse_bufvec buf = FUSE_BUFVEC_INIT(size);
    buf.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
    buf.buf[0].fd = fd;
    buf.buf[0].pos = offset;
    return fuse_reply_data(req, &buf, FUSE_BUF_SPLICE_MOVE);
}

void cfuse_conn_want(struct fuse_conn_info *conn, unsigned flags) {
    conn->want |= (flags & conn->capable);
}
unsigned cfuse_cap_splice_write(void) { return FUSE_CAP_SPLICE_WRITE; }
unsigned cfuse_cap_splice_move(void) { return FUSE_CAP_SPLICE_MOVE; }
unsigned cfuse_cap_async_read(void) { return FUSE_CAP_ASYNC_READ; }
unsigned cfuse_cap_atomic_o_trunc(void) { return FUSE_CAP_ATOMIC_O_TRUNC; }
unsigned cfuse_cap_parallel_dirops(void) { return FUSE_CAP_PARALLEL_DIROPS; }

int cfuse_set_attr_size(void) { return FUSE_SET_ATTR_SIZE; }
int cfuse_set_attr_mode(void) { return FUSE_SET_ATTR_MODE; }
int cfuse_set_attr_uid(void) { return FUSE_SET_ATTR_UID; }
int cfuse_set_attr_gid(void) { return FUSE_SET_ATTR_GID; }
int cfuse_set_attr_atime(void) { return FUSE_SET_ATTR_ATIME; }
int cfuse_set_attr_mtime(void) { return FUSE_SET_ATTR_MTIME; }
int cfuse_set_attr_atime_now(void) { return FUSE_SET_ATTR_ATIME_NOW; }
int cfuse_set_attr_mtime_now(void) { return FUSE_SET_ATTR_MTIME_NOW; }
int cfuse_set_attr_ctime(void) { return FUSE_SET_ATTR_CTIME; }

/* libfuse's messages while a mount is set up (R1, R2). libfuse reports a
   refused option or a failed handshake only by logging it; holding those
   lines back lets the daemon fail with one sentence that quotes them
   instead of a second, unexplained line. */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t cfuse_log_lock = PTHREAD_MUTEX_INITIALIZER;
static int cfuse_log_holding = 0;
static char cfuse_log_held[4096];
static size_t cfuse_log_held_len = 0;

/* Keeps the newest bytes when the buffer is full: the last line matters. */
static void cfuse_log_append(const char *text) {
    size_t n = strlen(text), cap = sizeof(cfuse_log_held);
    if (n >= cap) { text += n - (cap - 1); n = cap - 1; }
    if (cfuse_log_held_len + n > cap - 1) {
        size_t drop = cfuse_log_held_len + n - (cap - 1);
        memmove(cfuse_log_held, cfuse_log_held + drop, cfuse_log_held_len - drop);
        cfuse_log_held_len -= drop;
    }
    memcpy(cfuse_log_held + cfuse_log_held_len, text, n);
    cfuse_log_held_len += n;
}

static void cfuse_log_func(enum fuse_log_level level, const char *fmt, va_list ap) {
    (void)level;
    char text[1024];
    vsnprintf(text, sizeof(text), fmt, ap);
    pthread_mutex_lock(&cfuse_log_lock);
    int hold = cfuse_log_holding;
    if (hold) cfuse_log_append(text);
    pthread_mutex_unlock(&cfuse_log_lock);
    if (!hold) fputs(text, stderr);
}

void cfuse_log_hold(void) {
    fuse_set_log_func(cfuse_log_func);
    pthread_mutex_lock(&cfuse_log_lock);
    cfuse_log_holding = 1;
    cfuse_log_held_len = 0;
    pthread_mutex_unlock(&cfuse_log_lock);
}

size_t cfuse_log_release(char *buf, size_t size) {
    pthread_mutex_lock(&cfuse_log_lock);
    cfuse_log_holding = 0;
    size_t n = cfuse_log_held_len < size - 1 ? cfuse_log_held_len : size - 1;
    memcpy(buf, cfuse_log_held + cfuse_log_held_len - n, n);
    buf[n] = 0;
    cfuse_log_held_len = 0;
    pthread_mutex_unlock(&cfuse_log_lock);
    return n;
}

int cfuse_session_mount_capturing(struct fuse_session *se, const char *mountpoint,
                                  char *err, size_t errsize) {
    err[0] = 0;
    fflush(stderr);
    FILE *capture = tmpfile();
    int saved = -1;
    if (capture != NULL) {
        fcntl(fileno(capture), F_SETFD, FD_CLOEXEC);
        saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
        if (saved < 0 || dup2(fileno(capture), 2) < 0) {
            if (saved >= 0) close(saved);
            saved = -1;
        }
    }
    int rc = fuse_session_mount(se, mountpoint);
    if (saved >= 0) {
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        off_t end = lseek(fileno(capture), 0, SEEK_END);
        off_t start = end > (off_t)(errsize - 1) ? end - (off_t)(errsize - 1) : 0;
        ssize_t n = pread(fileno(capture), err, errsize - 1, start);
        err[n > 0 ? n : 0] = 0;
    }
    if (capture != NULL) fclose(capture);
    return rc;
}

/* FOPEN_NOFLUSH (a bitfield, like direct_io): the kernel skips FLUSH at
   close(2) for files whose close has nothing to report. */
void cfuse_fi_set_noflush(struct fuse_file_info *fi, int on) { fi->noflush = on ? 1 : 0; }

/* FUSE worker threads as the scheduler's short-running, latency-bound
   kind. A request's handler runs tens of microseconds, then the reader
   waits for our answer; with the engine and the web server keeping every
   core busy, a woken worker used to wait out the running thread's whole
   time slice (EEVDF runs the current task to its deadline unless the woken
   one asks for a shorter slice). Linux 6.12+ takes a custom slice for
   SCHED_OTHER threads from sched_attr.sched_runtime (0.1 ms is its
   minimum), without privileges and without changing the thread's share of
   the CPU; older kernels ignore it. Done once per thread, the first time
   it serves a request; the nice value and policy are kept as they are. */
#include <sys/syscall.h>

/* struct sched_attr of <linux/sched/types.h>, which clashes with glibc's
   <sched.h> (both define sched_param). */
struct cfuse_sched_attr {
    uint32_t size, sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
    uint32_t sched_util_min, sched_util_max;
};
enum { CFUSE_SCHED_OTHER = 0, CFUSE_SCHED_BATCH = 3 };

static __thread int cfuse_worker_entered = 0;

void cfuse_worker_enter(void) {
    if (cfuse_worker_entered) return;
    cfuse_worker_entered = 1;
    struct cfuse_sched_attr attr;
    memset(&attr, 0, sizeof(attr));
    if (syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0) != 0) return;
    if (attr.sched_policy != CFUSE_SCHED_OTHER && attr.sched_policy != CFUSE_SCHED_BATCH) return;
    attr.size = sizeof(attr);
    attr.sched_flags = 0;
    attr.sched_runtime = 100 * 1000; /* ns */
    (void)syscall(SYS_sched_setattr, 0, &attr, 0);
}

/* FUSE passthrough (Linux 6.9+): the kernel reads an open file straight
   from a backing file of ours, so reads of finished files cost no request
   and no copy through the daemon (SPEC §9, reads of files/). libfuse 3.14
   (Debian 12) predates it, so this asks for it on the wire instead: the
   session's I/O goes through the two hooks below (fuse_session_custom_io,
   which 3.14 has), which note whether the kernel's INIT offers passthrough,
   add it to libfuse's INIT reply, and mark the open replies sent by
   cfuse_reply_open_backing. The constants and layouts are the kernel's
   (include/uapi/linux/fuse.h, protocol 7.40), written out here: libfuse
   does not install its copy and Debian 12's is older. */
#include <errno.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#define CFUSE_OP_INIT 26
#define CFUSE_INIT_EXT (1u << 30)
#define CFUSE_PASSTHROUGH_FLAGS2 (1u << 5)   /* FUSE_PASSTHROUGH, 1ULL << 37 */
#define CFUSE_FOPEN_PASSTHROUGH (1u << 7)
/* A stream (Linux 5.2+): no position at all, reads of one open file may
   run at once (stream_open: no f_pos lock, no lseek, pread or pwrite). */
#define CFUSE_FOPEN_STREAM (1u << 4)
/* What the kernel accepts beside it (FOPEN_PASSTHROUGH_MASK): DIRECT_IO,
   NOFLUSH, PARALLEL_DIRECT_WRITES. KEEP_CACHE would make it refuse the
   open (EIO); the backing file's own page cache is what is kept. */
#define CFUSE_FOPEN_PASSTHROUGH_MASK ((1u << 0) | (1u << 5) | (1u << 6) | CFUSE_FOPEN_PASSTHROUGH)
struct cfuse_backing_map { int32_t fd; uint32_t flags; uint64_t padding; };
struct cfuse_in_header { uint32_t len, opcode; uint64_t unique, nodeid; uint32_t uid, gid, pid;
                         uint16_t total_extlen, padding; };
struct cfuse_init_in { uint32_t major, minor, max_readahead, flags, flags2, unused[11]; };
struct cfuse_out_header { uint32_t len; int32_t error; uint64_t unique; };
struct cfuse_init_out { uint32_t major, minor, max_readahead, flags; uint16_t max_background, congestion_threshold;
                        uint32_t max_write, time_gran; uint16_t max_pages, map_alignment;
                        uint32_t flags2, max_stack_depth; uint16_t request_timeout; uint16_t unused[11]; };
struct cfuse_open_out { uint64_t fh; uint32_t open_flags; int32_t backing_id; };
#define CFUSE_DEV_IOC_BACKING_OPEN _IOW(229, 1, struct cfuse_backing_map)
#define CFUSE_DEV_IOC_BACKING_CLOSE _IOW(229, 2, uint32_t)
_Static_assert(sizeof(struct cfuse_in_header) == 40, "fuse_in_header");
_Static_assert(sizeof(struct cfuse_init_in) == 64, "fuse_init_in");
_Static_assert(sizeof(struct cfuse_out_header) == 16, "fuse_out_header");
_Static_assert(sizeof(struct cfuse_init_out) == 64, "fuse_init_out");
_Static_assert(sizeof(struct cfuse_open_out) == 16, "fuse_open_out");

/* The INIT request's id while the kernel offered passthrough (0: none). */
static _Atomic uint64_t cfuse_init_unique = 0;
static _Atomic int cfuse_asked_passthrough = 0;
/* The backing id for the open reply this thread is sending (0: none). */
static __thread int32_t cfuse_reply_backing = 0;
/* Open flags libfuse 3.14 cannot set, for the open reply this thread is
   sending (0: none). */
static __thread uint32_t cfuse_reply_open_flags = 0;

static ssize_t cfuse_io_read(int fd, void *buf, size_t len, void *userdata) {
    (void)userdata;
    ssize_t n = read(fd, buf, len);
    if (n >= (ssize_t)(sizeof(struct cfuse_in_header) + sizeof(struct cfuse_init_in))) {
        const struct cfuse_in_header *in = buf;
        const struct cfuse_init_in *init = (const void *)(in + 1);
        if (in->opcode == CFUSE_OP_INIT && (init->flags & CFUSE_INIT_EXT)
            && (init->flags2 & CFUSE_PASSTHROUGH_FLAGS2))
            atomic_store(&cfuse_init_unique, in->unique);
    }
    return n;
}

static ssize_t cfuse_io_writev(int fd, struct iovec *iov, int count, void *userdata) {
    (void)userdata;
    if (count >= 2 && iov[0].iov_len == sizeof(struct cfuse_out_header)) {
        const struct cfuse_out_header *out = iov[0].iov_base;
        uint64_t init = atomic_load(&cfuse_init_unique);
        if (out->error == 0 && cfuse_reply_backing > 0 && iov[1].iov_len == sizeof(struct cfuse_open_out)) {
            struct cfuse_open_out *open = iov[1].iov_base;
            open->open_flags = (open->open_flags | CFUSE_FOPEN_PASSTHROUGH) & CFUSE_FOPEN_PASSTHROUGH_MASK;
            open->backing_id = cfuse_reply_backing;
        } else if (out->error == 0 && cfuse_reply_open_flags != 0
                   && iov[1].iov_len == sizeof(struct cfuse_open_out)) {
            struct cfuse_open_out *open = iov[1].iov_base;
            open->open_flags |= cfuse_reply_open_flags;
        } else if (init != 0 && out->unique == init && out->error == 0
                   && iov[1].iov_len == sizeof(struct cfuse_init_out)) {
            struct cfuse_init_out *reply = iov[1].iov_base;
            reply->flags |= CFUSE_INIT_EXT;
            reply->flags2 |= CFUSE_PASSTHROUGH_FLAGS2;
            reply->max_stack_depth = 1;  /* backing files on a filesystem that stacks on none */
            atomic_store(&cfuse_asked_passthrough, 1);
        }
    }
    return writev(fd, iov, count);
}

static ssize_t cfuse_io_splice_send(int fdin, off_t *offin, int fdout, off_t *offout, size_t len,
                                    unsigned int flags, void *userdata) {
    (void)userdata;
    return splice(fdin, offin, fdout, offout, len, flags);
}

int cfuse_passthrough_install(struct fuse_session *se) {
    static const struct fuse_custom_io io = {
        .writev = cfuse_io_writev, .read = cfuse_io_read, .splice_send = cfuse_io_splice_send,
    };
    return fuse_session_custom_io(se, &io, fuse_session_fd(se));
}

int cfuse_passthrough_asked(void) { return atomic_load(&cfuse_asked_passthrough); }

int cfuse_backing_open(struct fuse_session *se, int fd) {
    struct cfuse_backing_map map = { .fd = fd, .flags = 0, .padding = 0 };
    int id = ioctl(fuse_session_fd(se), CFUSE_DEV_IOC_BACKING_OPEN, &map);
    return id > 0 ? id : -(id == 0 ? EIO : errno);
}

void cfuse_backing_close(struct fuse_session *se, int id) {
    uint32_t backing = (uint32_t)id;
    (void)ioctl(fuse_session_fd(se), CFUSE_DEV_IOC_BACKING_CLOSE, &backing);
}

int cfuse_reply_open_backing(fuse_req_t req, const struct fuse_file_info *fi, int backing_id) {
    cfuse_reply_backing = backing_id;
    int rc = fuse_reply_open(req, fi);
    cfuse_reply_backing = 0;
    return rc;
}

int cfuse_reply_open_stream(fuse_req_t req, const struct fuse_file_info *fi) {
    cfuse_reply_open_flags = CFUSE_FOPEN_STREAM;
    int rc = fuse_reply_open(req, fi);
    cfuse_reply_open_flags = 0;
    return rc;
}

/* poll(2), select(2) and epoll on a file of ours (FUSE_POLL). The poll
   bits on the wire are the generic ones (the kernel mangles and demangles
   them), which glibc's POLL* values are on Linux. */
#include <poll.h>
unsigned cfuse_poll_readable(void) { return POLLIN | POLLRDNORM; }
unsigned cfuse_poll_writable(void) { return POLLOUT | POLLWRNORM; }
