// CFuse: the C side of FuseKit.
//
// libfuse's public API hides versioned symbols behind macros selected by
// FUSE_USE_VERSION (fuse_session_loop_mt → fuse_session_loop_mt_312, …) and
// exposes file-info flags as C bitfields. Swift can call neither reliably, so
// this shim fixes the API version once and exports plain, prefixed functions.
#ifndef CFUSE_H
#define CFUSE_H

// 3.12 is the newest API level whose loop-config calls exist in the libfuse
// we link (Debian 12 ships 3.14); pinning it keeps symbol versions stable.
#define FUSE_USE_VERSION 312
#include <fuse3/fuse_lowlevel.h>
#include <sys/stat.h>
#include <sys/types.h>

/// fuse_session_new over an argv of mount options ("-o", "fsname=…", …).
struct fuse_session *cfuse_session_new(int argc, char **argv,
                                       const struct fuse_lowlevel_ops *ops,
                                       void *userdata);

/// Multi-threaded loop with libfuse's defaults, at most `max_idle` idle workers.
int cfuse_session_loop_mt(struct fuse_session *se, unsigned max_idle);

/// Bitfield setters and getters of struct fuse_file_info.
void cfuse_fi_set_direct_io(struct fuse_file_info *fi, int on);
void cfuse_fi_set_keep_cache(struct fuse_file_info *fi, int on);
void cfuse_fi_set_nonseekable(struct fuse_file_info *fi, int on);
int cfuse_fi_flags(const struct fuse_file_info *fi);
uint64_t cfuse_fi_fh(const struct fuse_file_info *fi);
void cfuse_fi_set_fh(struct fuse_file_info *fi, uint64_t fh);

/// Replies to a read with `size` bytes of `fd` at `offset`; libfuse splices
/// straight from the file into /dev/fuse when it can (no copy through us).
int cfuse_reply_fd(fuse_req_t req, int fd, off_t offset, size_t size);

/// Asks for the capabilities we want, where the kernel offers them.
void cfuse_conn_want(struct fuse_conn_info *conn, unsigned flags);
unsigned cfuse_cap_splice_write(void);
unsigned cfuse_cap_splice_move(void);
unsigned cfuse_cap_async_read(void);
unsigned cfuse_cap_atomic_o_trunc(void);
unsigned cfuse_cap_parallel_dirops(void);

/// Bits of `to_set` in setattr (FUSE_SET_ATTR_* are macros).
int cfuse_set_attr_size(void);
int cfuse_set_attr_mode(void);
int cfuse_set_attr_uid(void);
int cfuse_set_attr_gid(void);
int cfuse_set_attr_atime(void);
int cfuse_set_attr_mtime(void);
int cfuse_set_attr_atime_now(void);
int cfuse_set_attr_mtime_now(void);
int cfuse_set_attr_ctime(void);

/// Holds libfuse's log messages back (instead of printing them) until
/// cfuse_log_release, which returns them (the newest 4 KiB) in `buf` and
/// lets later messages through to stderr again.
void cfuse_log_hold(void);
size_t cfuse_log_release(char *buf, size_t size);

/// fuse_session_mount with stderr (where fusermount3 says why it failed)
/// sent to a temp file meanwhile; what was written is returned in `err`.
int cfuse_session_mount_capturing(struct fuse_session *se, const char *mountpoint,
                                  char *err, size_t errsize);

/// fi->noflush: the kernel need not send FLUSH when the file is closed.
void cfuse_fi_set_noflush(struct fuse_file_info *fi, int on);

/// Once per thread: asks the scheduler for a short time slice (0.1 ms, Linux
/// 6.12+), so a worker woken by a request runs at once on busy cores.
void cfuse_worker_enter(void);

/// FUSE passthrough (Linux 6.9+) on libfuse 3.14, which predates it: routes
/// the session's I/O through hooks that ask for it in the INIT reply when the
/// kernel offers it. Call after mounting, before the loop. 0 on success.
int cfuse_passthrough_install(struct fuse_session *se);
/// 1 once the INIT reply asked for passthrough (the kernel offered it).
int cfuse_passthrough_asked(void);
/// Registers `fd` as a backing file (root only): its id (> 0), or -errno.
int cfuse_backing_open(struct fuse_session *se, int fd);
/// Drops a backing id; files opened with it keep their backing file.
void cfuse_backing_close(struct fuse_session *se, int id);
/// fuse_reply_open with FOPEN_PASSTHROUGH and `backing_id`: the kernel
/// reads this open file from the backing file, not through the daemon.
int cfuse_reply_open_backing(fuse_req_t req, const struct fuse_file_info *fi, int backing_id);

/// fuse_reply_open with FOPEN_STREAM as well (libfuse 3.14 has no bit for
/// it; the session's writev hook adds it, and without the hook the open is
/// merely nonseekable): the file has no position, like a pipe, so several
/// reads of one open file never wait for each other's f_pos lock.
int cfuse_reply_open_stream(fuse_req_t req, const struct fuse_file_info *fi);

/// The bits fuse_reply_poll answers a file ready to read, or to write.
unsigned cfuse_poll_readable(void);
unsigned cfuse_poll_writable(void);

#endif
