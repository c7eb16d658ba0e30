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

/// malloc_trim(0): gives freed heap memory back to the kernel.
void clinux_malloc_trim(void);

/// Tunes glibc's allocator for a long-lived daemon with many threads: two
/// arenas (each FUSE thread would otherwise grow its own and keep it), and a
/// fixed 4 MiB mmap threshold, so big transient buffers (a 100,000-row
/// table) go back to the kernel when freed, while curl's 2 MiB receive
/// buffers are reused from the heap rather than mapped per transfer.
void clinux_tune_malloc(void);

/// fallocate(2) with mode 0: reserves the blocks of [offset, offset+length)
/// and extends the file if needed, never touching bytes already written.
/// Returns 0, or -1 with errno set (EOPNOTSUPP on filesystems without it).
int clinux_fallocate(int fd, long long offset, long long length);

/// Names the calling thread as `top -H`, `ps -L` and perf show it
/// (pthread_setname_np; the kernel keeps 15 bytes). Foundation's
/// `Thread.name` does not reach the kernel on Linux.
void clinux_name_thread(const char *name);

/// lgetxattr(2), lsetxattr(2) (flags 0: create or replace) and
/// lremovexattr(2): Swift's Glibc module does not include <sys/xattr.h>.
/// The `l` forms, so a symlink is never followed out of the state dir.
/// Each returns what the call returns, with errno set on -1.
long clinux_get_xattr(const char *path, const char *name, void *value, size_t size);
int clinux_set_xattr(const char *path, const char *name, const void *value, size_t size);
int clinux_remove_xattr(const char *path, const char *name);

#endif
