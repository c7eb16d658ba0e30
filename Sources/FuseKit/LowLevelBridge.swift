import CFuse
import Glibc

/// Turns kernel requests into calls on a `FileSystemOperations` and their
/// results into exactly one reply each.
///
/// The `fuse_lowlevel_ops` table holds C function pointers that cannot capture
/// anything; each recovers the bridge from the request's userdata. Request
/// pointers (names, buffers) are valid only during the call, so they are
/// copied into Swift values before the filesystem sees them.
final class LowLevelBridge: @unchecked Sendable {
    let operations: FileSystemOperations
    let directories = DirectoryBuffer()
    let passthrough = PassthroughFiles()
    /// The mount's `-o max_read=N`: libfuse 3 wants `init` to repeat it
    /// (or it refuses the handshake); 0 when none was given.
    let maxRead: UInt32

    init(operations: FileSystemOperations, maxRead: UInt32 = 0) {
        self.operations = operations
        self.maxRead = maxRead
    }

    /// The bridge a request belongs to. Every handler starts here, so this
    /// is also where a libfuse worker thread, the first time it serves a
    /// request, asks for a short scheduler slice (`cfuse_worker_enter`):
    /// answers then wait less for a core when transfers keep them busy.
    static func from(_ req: fuse_req_t?) -> LowLevelBridge {
        cfuse_worker_enter()
        return Unmanaged<LowLevelBridge>.fromOpaque(fuse_req_userdata(req)!).takeUnretainedValue()
    }

    static func entryParam(_ attributes: FileAttributes) -> fuse_entry_param {
        var entry = fuse_entry_param()
        entry.ino = fuse_ino_t(attributes.inode)
        entry.generation = 1
        entry.attr = attributes.stat
        entry.attr_timeout = attributes.attributeTimeout
        entry.entry_timeout = attributes.entryTimeout
        return entry
    }

    static func replyAttributes(_ req: fuse_req_t?, _ attributes: FileAttributes) {
        var st = attributes.stat
        fuse_reply_attr(req, &st, attributes.attributeTimeout)
    }

    static func apply(_ opened: OpenedFile, to fi: UnsafeMutablePointer<fuse_file_info>?) {
        guard let fi else { return }
        cfuse_fi_set_fh(fi, opened.handle)
        cfuse_fi_set_direct_io(fi, opened.directIO ? 1 : 0)
        cfuse_fi_set_keep_cache(fi, opened.keepCache ? 1 : 0)
        cfuse_fi_set_noflush(fi, opened.noFlush ? 1 : 0)
        cfuse_fi_set_nonseekable(fi, opened.stream ? 1 : 0)
    }

    /// The open reply `opened` asks for: through its backing file, as a
    /// stream, or plain.
    static func replyOpen(_ req: fuse_req_t?, _ fi: UnsafeMutablePointer<fuse_file_info>?, _ opened: OpenedFile,
                          backing: Int32?) -> Int32 {
        if let backing { return cfuse_reply_open_backing(req, fi, backing) }
        return opened.stream ? cfuse_reply_open_stream(req, fi) : fuse_reply_open(req, fi)
    }

    /// Ends a file's open: its passthrough share (if any), then the filesystem's handle.
    func release(_ inode: UInt64, handle: UInt64) {
        passthrough.release(inode)
        operations.release(inode, handle: handle)
    }

    /// An open whose reply found no one waiting (`-ENOENT`: the call was
    /// interrupted meanwhile) gets no release from the kernel, so it is
    /// undone here — as libfuse's own high-level layer does — or its handle,
    /// descriptor and backing id would stay until unmount.
    static func undoIfInterrupted(_ sent: Int32, undo: () -> Void) {
        if sent == -ENOENT { undo() }
    }

    static func handle(_ fi: UnsafeMutablePointer<fuse_file_info>?) -> UInt64 {
        fi.map { cfuse_fi_fh($0) } ?? 0
    }

    /// A name from the kernel, or nil when it is not valid UTF-8.
    ///
    /// `String(cString:)` would repair such a name with U+FFFD, so the
    /// filesystem would act on another name than the one asked for — `mv`
    /// to `$'\xff\xfe.bin'` stored "\u{FFFD}\u{FFFD}.bin" (R40). Every name
    /// the tree holds is valid UTF-8, so callers answer nil with what fits:
    /// ENOENT where the name must already exist (lookup, unlink, rmdir, the
    /// old name of rename), EINVAL where it would be made (create, the new
    /// name of rename), ENODATA for an extended attribute's name.
    static func name(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        return String(validatingCString: pointer)
    }

    /// The `to_set` bits of a setattr as the filesystem sees them.
    static func changes(_ toSet: Int32, _ attr: UnsafeMutablePointer<stat>?) -> AttributeChanges {
        func has(_ bit: Int32) -> Bool { toSet & bit != 0 }
        let size: Int64? = has(cfuse_set_attr_size()) ? attr.map { Int64($0.pointee.st_size) } : nil
        return AttributeChanges(
            size: size,
            mode: has(cfuse_set_attr_mode()),
            owner: has(cfuse_set_attr_uid()) || has(cfuse_set_attr_gid()),
            times: has(cfuse_set_attr_atime()) || has(cfuse_set_attr_mtime()) || has(cfuse_set_attr_atime_now())
                || has(cfuse_set_attr_mtime_now()) || has(cfuse_set_attr_ctime()))
    }

    /// Answers a request that hands the kernel a reference to an inode
    /// (`lookup`, `mkdir`). When no one took the reply (the request was
    /// interrupted), the reference is given back, as libfuse's high-level layer does.
    private static func replyEntry(_ req: fuse_req_t?, _ attributes: FileAttributes,
                                   _ operations: any FileSystemOperations) {
        var entry = entryParam(attributes)
        undoIfInterrupted(fuse_reply_entry(req, &entry)) { operations.forget(attributes.inode, lookups: 1) }
    }

    /// The operations table handed to fuse_session_new.
    static func makeOperations() -> fuse_lowlevel_ops {
        var ops = fuse_lowlevel_ops()
        ops.`init` = { userdata, conn in
            guard let conn else { return }
            if let userdata {
                conn.pointee.max_read = Unmanaged<LowLevelBridge>.fromOpaque(userdata).takeUnretainedValue().maxRead
            }
            cfuse_conn_want(conn, cfuse_cap_splice_write() | cfuse_cap_splice_move()
                | cfuse_cap_async_read() | cfuse_cap_parallel_dirops())
        }
        ops.lookup = { req, parent, name in
            guard let name = LowLevelBridge.name(name) else { fuse_reply_err(req, ENOENT); return }
            do throws(Errno) {
                let operations = LowLevelBridge.from(req).operations
                LowLevelBridge.replyEntry(req, try operations.lookup(parent: parent, name: name), operations)
            } catch { fuse_reply_err(req, error.code) }
        }
        ops.forget = { req, ino, lookups in
            LowLevelBridge.from(req).operations.forget(ino, lookups: lookups)
            fuse_reply_none(req)
        }
        ops.forget_multi = { req, count, forgets in
            let operations = LowLevelBridge.from(req).operations
            for one in UnsafeBufferPointer(start: forgets, count: count) {
                operations.forget(one.ino, lookups: one.nlookup)
            }
            fuse_reply_none(req)
        }
        ops.getattr = { req, ino, _ in
            do throws(Errno) { LowLevelBridge.replyAttributes(req, try LowLevelBridge.from(req).operations.attributes(ino)) }
            catch { fuse_reply_err(req, error.code) }
        }
        ops.setattr = { req, ino, attr, toSet, fi in
            let changes = LowLevelBridge.changes(toSet, attr)
            do throws(Errno) {
                let handle: UInt64? = fi.map { cfuse_fi_fh($0) }
                LowLevelBridge.replyAttributes(req, try LowLevelBridge.from(req).operations.setAttributes(ino, changes: changes, handle: handle))
            } catch { fuse_reply_err(req, error.code) }
        }
        ops.opendir = { req, ino, fi in
            let bridge = LowLevelBridge.from(req)
            do throws(Errno) {
                let entries = try bridge.operations.list(ino)
                let handle = bridge.directories.open(entries)
                cfuse_fi_set_fh(fi!, handle)
                LowLevelBridge.undoIfInterrupted(fuse_reply_open(req, fi)) { bridge.directories.release(handle) }
            } catch { fuse_reply_err(req, error.code) }
        }
        ops.readdir = { req, _, size, offset, fi in
            let bridge = LowLevelBridge.from(req)
            guard let buffer = bridge.directories.fill(LowLevelBridge.handle(fi), request: req!, size: size, offset: Int64(offset)) else {
                fuse_reply_err(req, EBADF)
                return
            }
            _ = buffer.withUnsafeBytes { fuse_reply_buf(req, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) }
        }
        ops.releasedir = { req, _, fi in
            LowLevelBridge.from(req).directories.release(LowLevelBridge.handle(fi))
            fuse_reply_err(req, 0)
        }
        ops.open = { req, ino, fi in
            let bridge = LowLevelBridge.from(req)
            do throws(Errno) {
                let opened = try bridge.operations.open(ino, flags: cfuse_fi_flags(fi!), caller: RequestCaller(req))
                LowLevelBridge.apply(opened, to: fi)
                let backing = opened.backing.flatMap { bridge.passthrough.open(ino, descriptor: $0) }
                let sent = LowLevelBridge.replyOpen(req, fi, opened, backing: backing)
                LowLevelBridge.undoIfInterrupted(sent) { bridge.release(ino, handle: opened.handle) }
            } catch { fuse_reply_err(req, error.code) }
        }
        ops.read = { req, ino, size, offset, fi in
            let nonBlocking = fi.map { cfuse_fi_flags($0) & O_NONBLOCK != 0 } ?? false
            LowLevelBridge.from(req).operations.read(ino, handle: LowLevelBridge.handle(fi), size: size, offset: Int64(offset),
                                                     reply: ReadReply(req!, nonBlocking: nonBlocking))
        }
        // Installed for every file, so the kernel never takes ENOSYS (no
        // op: libfuse's answer) as "this mount does not poll" — which it
        // decides once for all files, so no stream could be polled after.
        // Files with nothing to wait for answer `.always`, the kernel's own
        // answer for them.
        ops.poll = { req, ino, fi, ph in
            let waiter = ph.map { PollWaiter($0) }
            do throws(Errno) {
                let ready = try LowLevelBridge.from(req).operations.poll(ino, handle: LowLevelBridge.handle(fi), waiter: waiter)
                fuse_reply_poll(req, ready.rawValue)
            } catch let error where error.code == ENOSYS {
                fuse_reply_poll(req, FileReadiness.always.rawValue)
            } catch { fuse_reply_err(req, error.code) }
        }
        ops.write = { req, ino, buf, size, offset, fi in
            do throws(Errno) {
                let written = try LowLevelBridge.from(req).operations.write(ino, handle: LowLevelBridge.handle(fi),
                    data: UnsafeRawBufferPointer(start: buf, count: size), offset: Int64(offset),
                    caller: RequestCaller(req))
                fuse_reply_write(req, written)
            } catch { fuse_reply_err(req, error.code) }
        }
        ops.flush = { req, ino, fi in
            do throws(Errno) {
                try LowLevelBridge.from(req).operations.flush(ino, handle: LowLevelBridge.handle(fi),
                                                              caller: RequestCaller(req))
                fuse_reply_err(req, 0)
            } catch { fuse_reply_err(req, error.code) }
        }
        ops.release = { req, ino, fi in
            LowLevelBridge.from(req).release(ino, handle: LowLevelBridge.handle(fi))
            fuse_reply_err(req, 0)
        }
        ops.create = { req, parent, name, _, fi in
            guard let name = LowLevelBridge.name(name) else { fuse_reply_err(req, EINVAL); return }
            do throws(Errno) {
                let bridge = LowLevelBridge.from(req)
                let (attributes, opened) = try bridge.operations.create(parent: parent, name: name, flags: cfuse_fi_flags(fi!),
                                                                           caller: RequestCaller(req))
                LowLevelBridge.apply(opened, to: fi)
                var entry = LowLevelBridge.entryParam(attributes)
                LowLevelBridge.undoIfInterrupted(fuse_reply_create(req, &entry, fi)) {
                    bridge.release(attributes.inode, handle: opened.handle)
                }
            } catch { fuse_reply_err(req, error.code) }
        }
        ops.mkdir = { req, parent, name, _ in
            guard let name = LowLevelBridge.name(name) else { fuse_reply_err(req, EINVAL); return }
            do throws(Errno) {
                let operations = LowLevelBridge.from(req).operations
                LowLevelBridge.replyEntry(req, try operations.makeDirectory(parent: parent, name: name), operations)
            } catch { fuse_reply_err(req, error.code) }
        }
        // No node of the tree is a device, a link or a second name (R6).
        ops.mknod = { req, _, _, _, _ in fuse_reply_err(req, EPERM) }
        ops.symlink = { req, _, _, _ in fuse_reply_err(req, EPERM) }
        ops.link = { req, _, _, _ in fuse_reply_err(req, EPERM) }
        ops.unlink = { req, parent, name in
            guard let name = LowLevelBridge.name(name) else { fuse_reply_err(req, ENOENT); return }
            do throws(Errno) {
                try LowLevelBridge.from(req).operations.unlink(parent: parent, name: name)
                fuse_reply_err(req, 0)
            } catch { fuse_reply_err(req, error.code) }
        }
        ops.rmdir = { req, parent, name in
            guard let name = LowLevelBridge.name(name) else { fuse_reply_err(req, ENOENT); return }
            do throws(Errno) {
                try LowLevelBridge.from(req).operations.removeDirectory(parent: parent, name: name)
                fuse_reply_err(req, 0)
            } catch { fuse_reply_err(req, error.code) }
        }
        ops.rename = { req, parent, name, newParent, newName, flags in
            guard let name = LowLevelBridge.name(name) else { fuse_reply_err(req, ENOENT); return }
            guard let newName = LowLevelBridge.name(newName) else { fuse_reply_err(req, EINVAL); return }
            do throws(Errno) {
                try LowLevelBridge.from(req).operations.rename(parent: parent, name: name, newParent: newParent, newName: newName, flags: flags)
                fuse_reply_err(req, 0)
            } catch { fuse_reply_err(req, error.code) }
        }
        ops.getxattr = { req, ino, name, size in
            guard let name = LowLevelBridge.name(name) else { fuse_reply_err(req, ENODATA); return }
            do throws(Errno) {
                let value = try LowLevelBridge.from(req).operations.extendedAttribute(ino, name: name)
                LowLevelBridge.replyXattr(req, value, size)
            } catch { fuse_reply_err(req, error.code) }
        }
        ops.listxattr = { req, ino, size in
            do throws(Errno) {
                var value: [UInt8] = []
                for name in try LowLevelBridge.from(req).operations.extendedAttributeNames(ino) {
                    value += Array(name.utf8) + [0]
                }
                LowLevelBridge.replyXattr(req, value, size)
            } catch { fuse_reply_err(req, error.code) }
        }
        ops.statfs = { req, _ in
            do throws(Errno) {
                var figures = try LowLevelBridge.from(req).operations.statistics()
                fuse_reply_statfs(req, &figures)
            } catch { fuse_reply_err(req, error.code) }
        }
        // No extended attribute is set through the mount (R6), and ACLs are
        // not supported at all: ENOTSUP for them, as a filesystem without
        // ACLs answers, so `cp -p` into `queue/` falls back to its chmod.
        ops.setxattr = { req, _, name, _, _, _ in
            let acl = LowLevelBridge.name(name)?.hasPrefix("system.posix_acl_") ?? false
            fuse_reply_err(req, acl ? ENOTSUP : EACCES)
        }
        ops.removexattr = { req, _, _ in fuse_reply_err(req, EACCES) }
        return ops
    }

    /// getxattr/listxattr protocol: size 0 asks for the length only.
    static func replyXattr(_ req: fuse_req_t?, _ value: [UInt8], _ size: Int) {
        if size == 0 {
            fuse_reply_xattr(req, value.count)
        } else if size < value.count {
            fuse_reply_err(req, ERANGE)
        } else {
            _ = value.withUnsafeBytes { fuse_reply_buf(req, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) }
        }
    }
}
