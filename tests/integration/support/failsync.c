/* LD_PRELOAD shim for the durability tests (R51, R54): makes the flushes of
 * partial data fail, as a dying disk's would, or hang, as a slow one's would.
 * Everything else goes to libc untouched. Built by the test that uses it
 * (gcc -shared -fPIC).
 *
 * While the file named by $FAILSYNC_FLAG exists:
 * - fdatasync and fsync of a file under a "/partial/" directory fail with
 *   EIO; with $FAILSYNC_ONLY=ID only that of ".../partial/ID";
 * - a sync_file_range that waits (SYNC_FILE_RANGE_WAIT_AFTER: the check
 *   of one file's writeback after a group's syncfs) fails the same way;
 * - syncfs fails with EIO, as the kernel's reports a writeback error of
 *   any file of the filesystem, unless $FAILSYNC_SYNCFS_OK is set (then
 *   only the file's own check tells).
 * While the file named by $FAILSYNC_HOLD exists, syncfs and the fdatasync
 * and fsync of partial data wait for it to go (a flush that takes its time:
 * a kill -9 lands in the middle of a group). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int exists(const char *variable) {
    const char *path = getenv(variable);
    return path != NULL && access(path, F_OK) == 0;
}

static int is_partial(int fd, int only) {
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) return 0;
    target[n] = '\0';
    const char *dir = strstr(target, "/partial/");
    if (dir == NULL) return 0;
    const char *id = getenv("FAILSYNC_ONLY");
    return !only || id == NULL || strcmp(dir + strlen("/partial/"), id) == 0;
}

static void hold(void) {
    struct timespec pause = {0, 10 * 1000 * 1000};
    while (exists("FAILSYNC_HOLD")) nanosleep(&pause, NULL);
}

static int should_fail(int fd) {
    if (is_partial(fd, 0)) hold();
    return exists("FAILSYNC_FLAG") && is_partial(fd, 1);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    if (should_fail(fd)) { errno = EIO; return -1; }
    return real(fd);
}

int fsync(int fd) {
    static int (*real)(int);
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    if (should_fail(fd)) { errno = EIO; return -1; }
    return real(fd);
}

int sync_file_range(int fd, off_t offset, off_t nbytes, unsigned int flags) {
    static int (*real)(int, off_t, off_t, unsigned int);
    if (real == NULL) real = (int (*)(int, off_t, off_t, unsigned int))dlsym(RTLD_NEXT, "sync_file_range");
    if ((flags & SYNC_FILE_RANGE_WAIT_AFTER) && exists("FAILSYNC_FLAG") && is_partial(fd, 1)) {
        errno = EIO;
        return -1;
    }
    return real(fd, offset, nbytes, flags);
}

int syncfs(int fd) {
    static int (*real)(int);
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "syncfs");
    hold();
    if (exists("FAILSYNC_FLAG") && getenv("FAILSYNC_SYNCFS_OK") == NULL) { errno = EIO; return -1; }
    return real(fd);
}
