// CLinux: Linux calls Swift's Glibc module does not export.
//
// Glibc declares renameat2 only under _GNU_SOURCE, which Swift's module map
// does not set; this shim sets it and exports a plain, prefixed function.
#ifndef CLINUX_H
#define CLINUX_H

#include <stddef.h>

/// rename(2) that fails with EEXIST instead of replacing `to`
/// (renameat2 with RENAME_NOREPLACE). Returns 0, or -1 with errno set.
int clinux_rename_noreplace(const char *from, const char *to);

/// posix_spawn_file_actions_addclosefrom_np: the spawned program starts with
/// every descriptor from `from` up closed. `actions` is a
/// `posix_spawn_file_actions_t *`. Returns 0 or an errno.
int clinux_spawn_close_from(void *actions, int from);

/// malloc_trim(0): gives freed heap memory back to the kernel.
void clinux_malloc_trim(void);

/// Tunes glibc's allocator for a long-lived daemon with many threads: two
/// arenas (each FUSE thread would otherwise grow its own and keep it), and a
/// fixed 4 MiB mmap threshold, so big transient buffers (a 100,000-row
/// table) go back to the kernel when freed, while curl's 2 MiB receive
/// buffers are reused from the heap rather than mapped per transfer. The
/// heap's free top is given back only beyond 64 MiB: at 4 MiB, two receive
/// buffers freed at the top (16 connections ending and starting) were
/// handed back with madvise and faulted in again by the next transfers,
/// about 8,000 page faults per 1,000 small files on the engine thread.
/// Big listings are still given back at once (`clinux_malloc_trim`).
void clinux_tune_malloc(void);

/// fallocate(2) with mode 0: reserves the blocks of [offset, offset+length)
/// and extends the file if needed, never touching bytes already written.
/// Returns 0, or -1 with errno set (EOPNOTSUPP on filesystems without it).
int clinux_fallocate(int fd, long long offset, long long length);

/// fallocate(2) with FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE: frees the
/// blocks of [offset, offset+length), which read as zeros afterwards; the
/// size stays. Returns 0, or -1 with errno set (EOPNOTSUPP where the
/// filesystem cannot).
int clinux_punch_hole(int fd, long long offset, long long length);

/// Names the calling thread as `top -H`, `ps -L` and perf show it
/// (pthread_setname_np; the kernel keeps 15 bytes). Foundation's
/// `Thread.name` does not reach the kernel on Linux.
void clinux_name_thread(const char *name);

/// gettid(2): the calling thread's id, the one the kernel sends a FUSE
/// daemon with each request (Swift's Glibc module does not declare it).
int clinux_thread_id(void);

/// lgetxattr(2), lsetxattr(2) (flags 0: create or replace) and
/// lremovexattr(2): Swift's Glibc module does not include <sys/xattr.h>.
/// The `l` forms, so a symlink is never followed out of the state dir.
/// Each returns what the call returns, with errno set on -1.
long clinux_get_xattr(const char *path, const char *name, void *value, size_t size);
int clinux_set_xattr(const char *path, const char *name, const void *value, size_t size);
int clinux_remove_xattr(const char *path, const char *name);

/// posix_fadvise(POSIX_FADV_DONTNEED): the page cache lets go of the clean
/// folios lying wholly inside [offset, offset + length) of `fd`'s file
/// (`BackingCacheRelease`, `WrittenCacheRelease`). Returns 0 or an errno.
int clinux_drop_cached(int fd, long long offset, long long length);

/// sync_file_range(2) over the whole file with SYNC_FILE_RANGE_WRITE: starts
/// writing the file's dirty pages back and returns without waiting, so a
/// later flush of a group of files finds them written (R51). Returns 0, or
/// -1 with errno set.
int clinux_start_writeback(int fd);

/// sync_file_range(2) over the whole file with WAIT_BEFORE | WRITE |
/// WAIT_AFTER: waits for the file's writeback and returns the writeback
/// error this open file has not seen yet (its own errseq, as fdatasync's),
/// without flushing the device's cache. After a syncfs this tells which
/// file of a group failed. Returns 0, or -1 with errno set.
int clinux_wait_writeback(int fd);

/// syncfs(2): writes back every dirty file of the filesystem holding `fd`
/// and flushes the device's cache once. Returns 0, or -1 with errno set.
int clinux_syncfs(int fd);

#endif
