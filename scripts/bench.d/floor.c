// floor: the least a durable downloader of many small files must do, for
// scripts/bench's `many` part ("durable floor"). Not a product: no retries,
// no resume, no names from the server; it stops at the first error.
//
//   floor LIST DIR PARALLEL
//
// One thread runs a libcurl multi handle with PARALLEL transfers, each into
// DIR/partial/NAME (NAME: the URL's last segment), opened by that thread.
// When a transfer ends its writeback is started (sync_file_range WRITE) and
// the file goes to a second thread, which takes every file waiting as one
// group: one syncfs, then per file a wait on its own writeback (its own
// error, as R51 asks), mtime, the origin URL and MIME type as user
// attributes (R41, R42), mode 0444, and a rename into DIR/files/ (R43).
// That is what downloadfs does for each finished file, with the flush paid
// per group, and nothing else: no catalog, no task log, no state machine.
#define _GNU_SOURCE
#include <curl/curl.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

typedef struct File { int fd; off_t size; char name[256]; char url[2048]; struct File *next; } File;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static File *waiting, *waitingTail;
static int allAdded;
static const char *dir;
static int dirFD;

static void die(const char *what, const char *name) {
  fprintf(stderr, "floor: %s %s: %m\n", what, name);
  exit(1);
}

static size_t received(char *data, size_t size, size_t count, void *context) {
  File *file = context;
  size_t length = size * count, done = 0;
  while (done < length) {
    ssize_t wrote = pwrite(file->fd, data + done, length - done, file->size);
    if (wrote <= 0) return 0;
    done += wrote;
    file->size += wrote;
  }
  return length;
}

// The second thread: each group's flush, metadata and move.
static void *finisher(void *unused) {
  (void)unused;
  for (;;) {
    pthread_mutex_lock(&lock);
    while (!waiting && !allAdded) pthread_cond_wait(&ready, &lock);
    File *group = waiting;
    waiting = waitingTail = NULL;
    pthread_mutex_unlock(&lock);
    if (!group) return NULL;
    if (syncfs(dirFD) != 0) die("syncfs", dir);
    for (File *file = group, *next; file; file = next) {
      next = file->next;
      char from[4096], to[4096];
      snprintf(from, sizeof from, "%s/partial/%s", dir, file->name);
      snprintf(to, sizeof to, "%s/files/%s", dir, file->name);
      if (sync_file_range(file->fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                                              SYNC_FILE_RANGE_WAIT_AFTER) != 0)
        die("flush", from);
      struct timespec times[2] = {{1700000000, 0}, {1700000000, 0}};
      if (futimens(file->fd, times) != 0) die("set the mtime of", from);
      if (fsetxattr(file->fd, "user.xdg.origin.url", file->url, strlen(file->url), 0) != 0 ||
          fsetxattr(file->fd, "user.mime_type", "application/octet-stream", 24, 0) != 0)
        die("set the attributes of", from);
      if (fchmod(file->fd, 0444) != 0) die("chmod", from);
      if (rename(from, to) != 0) die("rename", from);
      close(file->fd);
      free(file);
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: floor LIST DIR PARALLEL\n");
    return 2;
  }
  dir = argv[2];
  long parallel = atol(argv[3]);
  char path[4096];
  snprintf(path, sizeof path, "%s/partial", dir);
  if (mkdir(path, 0755) != 0) die("mkdir", path);
  snprintf(path, sizeof path, "%s/files", dir);
  if (mkdir(path, 0755) != 0) die("mkdir", path);
  if ((dirFD = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) die("open", dir);
  FILE *list = fopen(argv[1], "r");
  if (!list) die("open", argv[1]);

  pthread_t thread;
  if (pthread_create(&thread, NULL, finisher, NULL) != 0) die("start a thread for", dir);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  CURLM *multi = curl_multi_init();
  long active = 0;
  int listed = 1, running;
  char line[2048];
  while (listed || active > 0) {
    while (listed && active < parallel) {
      if (!fgets(line, sizeof line, list)) { listed = 0; break; }
      line[strcspn(line, "\n")] = 0;
      if (!*line) continue;
      File *file = calloc(1, sizeof *file);
      snprintf(file->url, sizeof file->url, "%s", line);
      snprintf(file->name, sizeof file->name, "%s", strrchr(line, '/') + 1);
      snprintf(path, sizeof path, "%s/partial/%s", dir, file->name);
      if ((file->fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644)) < 0) die("create", path);
      CURL *easy = curl_easy_init();
      curl_easy_setopt(easy, CURLOPT_URL, file->url);
      curl_easy_setopt(easy, CURLOPT_FAILONERROR, 1L);
      curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, received);
      curl_easy_setopt(easy, CURLOPT_WRITEDATA, file);
      curl_easy_setopt(easy, CURLOPT_PRIVATE, file);
      curl_multi_add_handle(multi, easy);
      active++;
    }
    curl_multi_perform(multi, &running);
    CURLMsg *message;
    int left;
    while ((message = curl_multi_info_read(multi, &left))) {
      if (message->msg != CURLMSG_DONE) continue;
      File *file;
      curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&file);
      if (message->data.result != CURLE_OK) {
        fprintf(stderr, "floor: %s: %s\n", file->url, curl_easy_strerror(message->data.result));
        return 1;
      }
      curl_multi_remove_handle(multi, message->easy_handle);
      curl_easy_cleanup(message->easy_handle);
      active--;
      sync_file_range(file->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
      pthread_mutex_lock(&lock);
      if (waitingTail) waitingTail->next = file; else waiting = file;
      waitingTail = file;
      pthread_cond_signal(&ready);
      pthread_mutex_unlock(&lock);
    }
    if (active > 0) curl_multi_poll(multi, NULL, 0, 100, NULL);
  }
  pthread_mutex_lock(&lock);
  allAdded = 1;
  pthread_cond_signal(&ready);
  pthread_mutex_unlock(&lock);
  pthread_join(thread, NULL);
  return 0;
}
