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
