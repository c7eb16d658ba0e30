#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "CLinux.h"

int clinux_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

int clinux_spawn_close_from(void *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, from);
}

void clinux_malloc_trim(void) { malloc_trim(0); }

void clinux_tune_malloc(void) {
    mallopt(M_ARENA_MAX, 2);
    mallopt(M_MMAP_THRESHOLD, 4 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
}

int clinux_fallocate(int fd, long long offset, long long length) {
    return fallocate(fd, 0, (off_t)offset, (off_t)length);
}

int clinux_drop_cached(int fd, long long offset, long long length) {
    return posix_fadvise(fd, (off_t)offset, (off_t)length, POSIX_FADV_DONTNEED);
}

void clinux_name_thread(const char *name) {
    char shortened[16];
    snprintf(shortened, sizeof shortened, "%s", name);
    pthread_setname_np(pthread_self(), shortened);
}

int clinux_thread_id(void) { return (int)gettid(); }

long clinux_get_xattr(const char *path, const char *name, void *value, size_t size) {
    return (long)lgetxattr(path, name, value, size);
}

int clinux_set_xattr(const char *path, const char *name, const void *value, size_t size) {
    return lsetxattr(path, name, value, size, 0);
}

int clinux_remove_xattr(const char *path, const char *name) {
    return lremovexattr(path, name);
}

int clinux_start_writeback(int fd) {
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

int clinux_wait_writeback(int fd) {
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
}

int clinux_syncfs(int fd) { return syncfs(fd); }

int clinux_punch_hole(int fd, long long offset, long long length) {
    return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)offset, (off_t)length);
}
