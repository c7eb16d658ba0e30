# shellcheck shell=bash
#   read    reading the completed big file through MNT/files/ against reading
#           STATE/files/ directly (`dd bs=1M` and `cat`), with a warm page
#           cache and after `sync; echo 3 > /proc/sys/vm/drop_caches`, twice:
#           as root (the kernel reads finished files itself: FUSE
#           passthrough, which needs CAP_SYS_ADMIN and Linux 6.9+) and as an
#           unprivileged user, whose mount's files/ is read through the
#           daemon: BENCH_READ_USER (default downloadfs-bench, created with
#           `useradd --system` if missing) mounts, downloads and reads
#           through `runuser`, in a mount and state dir it owns. Without
#           root, only the caller's own warm pass runs. Target: >= 0.8 of
#           direct, each. Without passthrough a warm read is served from the
#           FUSE file's own page cache, which Linux (6.18 here) keeps in 4 KiB
#           pages, while ext4 caches the direct file in folios of up to
#           2 MiB; so that pass also reads, warm, a copy of the file written
#           4 KiB at a time (cached in 4 KiB pages: the same kernel path with
#           the same page size) and notes files/ against it, the physical
#           limit of a warm read through any FUSE file system without
#           privilege.

# read_secs READER FILE: seconds to read FILE to the end.
read_secs() {
  local start
  start=$(now)
  case $1 in
    dd) dd if="$2" of=/dev/null bs=1M status=none ;;
    cat) cat "$2" > /dev/null ;;
  esac
  calc "$(now) - $start"
}

# read_timed READER FILE: read_secs, as $run_as's user if set (timed inside
# that user's shell, so that runuser's own start is not counted).
read_timed() {
  timeout 600 "${run_as[@]}" bash -c "$(declare -f now calc read_secs); read_secs \"\$@\"" _ "$@"
}

# read_user: the unprivileged user's name, created if missing (a system
# user without a home or a login shell); fails without root.
read_user() {
  local user=${BENCH_READ_USER:-downloadfs-bench}
  if ! id -u "$user" >/dev/null 2>&1; then
    timeout 60 useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user" >&2 || return 1
    echo "read: created the system user $user" >&2
  fi
  echo "$user"
}

# fuse_grant USER: lets USER open /dev/fuse if it cannot (a stock Debian's is
# 0666, a container's may be 0600, and downloadfs refuses to mount without
# it): an ACL entry for that user alone, after saving the device's ACL for
# fuse_restore (run at the pass's end and by cleanup).
fuse_acl_saved=""
fuse_grant() {
  timeout 10 "${run_as[@]}" test -r /dev/fuse -a -w /dev/fuse && return 0
  have setfacl || { echo "read: $1 cannot open /dev/fuse and setfacl is missing (apt-get install acl)" >&2; return 1; }
  timeout 10 getfacl -p /dev/fuse > "$work/dev-fuse.acl" 2>/dev/null || return 1
  fuse_acl_saved=$work/dev-fuse.acl
  cleanup_hooks+=(fuse_restore)
  echo "read: /dev/fuse gets an ACL entry for $1 (u:$1:rw) until the pass ends"
  timeout 10 setfacl -m "u:$1:rw" /dev/fuse
}
fuse_restore() {
  [ -n "$fuse_acl_saved" ] || return 0
  timeout 10 setfacl --set-file="$fuse_acl_saved" /dev/fuse || echo "read: could not put back /dev/fuse's ACL (saved in $fuse_acl_saved)" >&2
  fuse_acl_saved=""
}

# drop_caches: sync, then the page cache emptied (root only).
drop_caches() { timeout 120 sync; echo 3 > /proc/sys/vm/drop_caches; }

# read_pass WHO: the big file downloaded through a fresh mount of WHO's
# (root, or the name of the user $run_as runs as), then read both ways.
read_pass() {
  local who=$1 mnt="$work/read-mnt-$1" state="$work/read-state-$1" r reader cache direct fuse ratio label=user pages=""
  [ "$who" = root ] && label=root
  rm -rf "$state"
  if [ ${#run_as[@]} != 0 ]; then
    mkdir -p "$mnt" "$state"
    chown "$who:" "$mnt" "$state"
  fi
  fetch_big "$mnt" "$state" "$base/big.bin"
  # Passthrough or not decides these figures: say which.
  echo "$who: daemon: $(grep -ho 'files/ is read.*' "$state/daemon.log" | tail -1)"
  local files=("$state/files/big.bin" "$mnt/files/big.bin")
  if grep -q 'files/ is read through the daemon' "$state/daemon.log"; then
    pages=$state/pages-4k.bin
    timeout 600 "${run_as[@]}" dd if="${files[0]}" of="$pages" bs=4k status=none
  fi
  printf '%-6s %-5s %9s %9s %9s\n' reader cache "direct" "files/" "MiB/s f/"
  for cache in warm cold; do
    if [ "$cache" = cold ] && [ -z "$can_drop" ]; then echo "cold: skipped (cannot write /proc/sys/vm/drop_caches; run as root)"; continue; fi
    for reader in dd cat; do
      local d=() f=() p=() with_pages=""
      [ -n "$pages" ] && [ "$cache" = warm ] && with_pages=1
      # files/ first: without passthrough its first read lets the backing
      # file's pages go behind it (cached once), so direct reads after it.
      if [ "$cache" = warm ]; then
        read_timed "$reader" "${files[1]}" >/dev/null
        read_timed "$reader" "${files[0]}" >/dev/null
        [ -z "$with_pages" ] || read_timed "$reader" "$pages" >/dev/null
      fi
      for ((r = 0; r < rounds; r++)); do
        [ "$cache" = cold ] && drop_caches
        d+=("$(read_timed "$reader" "${files[0]}")")
        [ "$cache" = cold ] && drop_caches
        f+=("$(read_timed "$reader" "${files[1]}")")
        [ -z "$with_pages" ] || p+=("$(read_timed "$reader" "$pages")")
      done
      direct=$(median "${d[@]}"); fuse=$(median "${f[@]}")
      printf '%-6s %-5s %9.3f %9.3f %9.0f   (s, medians; files/: %s)\n' "$reader" "$cache" "$direct" "$fuse" "$(calc "$size_mib / $fuse")" "${f[*]}"
      ratio=$(calc "$direct / $fuse")
      verdict "read, $label ($cache, $reader): files/ / direct" "$ratio" ">=" 0.80
      if [ -n "$with_pages" ]; then
        printf '%-6s %-5s %9.3f %9s %9s   (s, medians; the copy in 4 KiB pages: %s)\n' "$reader" "$cache" "$(median "${p[@]}")" "" "" "${p[*]}"
        note "read, $label ($cache, $reader): files/ / 4 KiB pages" "$(calc "$(median "${p[@]}") / $fuse")"
      fi
    done
  done
  unmount_fs "$mnt"
  rm -rf "$state"
}

part_read() {
  make_big
  echo; echo "== read: the completed $size_mib MiB file through MNT/files/ vs STATE/files/, $rounds rounds"
  local can_drop="" user
  [ -w /proc/sys/vm/drop_caches ] && can_drop=1
  if [ "$(id -u)" != 0 ]; then
    read_pass "$(id -un)"
    echo "read: not root, so no pass as another user"
    return 0
  fi
  echo "-- as root"
  read_pass root
  user=$(read_user) || { failure "read, user: files/ / direct" "could not create a user"; return 0; }
  echo "-- as $user (unprivileged)"
  run_as=(runuser -u "$user" --)
  if fuse_grant "$user"; then
    read_pass "$user"
  else
    failure "read, user: files/ / direct" "$user cannot open /dev/fuse"
  fi
  fuse_restore
  run_as=()
}
