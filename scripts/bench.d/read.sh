# shellcheck shell=bash
#   read    reading the completed big file through MNT/files/ against reading
#           STATE/files/ directly (`dd bs=1M` and `cat`), with a warm page
#           cache and after `sync; echo 3 > /proc/sys/vm/drop_caches` (cold
#           needs root; skipped otherwise). Target: >= 0.8 of direct, both.

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

part_read() {
  make_big
  echo; echo "== read: the completed $size_mib MiB file through MNT/files/ vs STATE/files/, $rounds rounds"
  local mnt="$work/read-mnt" state="$work/read-state" r reader cache direct fuse ratio
  rm -rf "$state"
  fetch_big "$mnt" "$state" "$base/big.bin"
  # Passthrough (root, Linux 6.9+) or not decides these figures: say which.
  echo "daemon: $(grep -ho 'files/ is read.*' "$state/daemon.log" | tail -1)"
  local files=("$state/files/big.bin" "$mnt/files/big.bin")
  local can_drop=""
  [ -w /proc/sys/vm/drop_caches ] && can_drop=1
  printf '%-6s %-5s %9s %9s %9s\n' reader cache "direct" "files/" "MiB/s f/"
  for cache in warm cold; do
    if [ "$cache" = cold ] && [ -z "$can_drop" ]; then echo "cold: skipped (cannot write /proc/sys/vm/drop_caches; run as root)"; continue; fi
    for reader in dd cat; do
      local d=() f=()
      if [ "$cache" = warm ]; then read_secs "$reader" "${files[0]}" >/dev/null; read_secs "$reader" "${files[1]}" >/dev/null; fi
      for ((r = 0; r < rounds; r++)); do
        [ "$cache" = cold ] && { sync; echo 3 > /proc/sys/vm/drop_caches; }
        d+=("$(read_secs "$reader" "${files[0]}")")
        [ "$cache" = cold ] && { sync; echo 3 > /proc/sys/vm/drop_caches; }
        f+=("$(read_secs "$reader" "${files[1]}")")
      done
      direct=$(median "${d[@]}"); fuse=$(median "${f[@]}")
      printf '%-6s %-5s %9.3f %9.3f %9.0f   (s, medians; files/: %s)\n' "$reader" "$cache" "$direct" "$fuse" "$(calc "$size_mib / $fuse")" "${f[*]}"
      ratio=$(calc "$direct / $fuse")
      verdict "read ($cache, $reader): files/ / direct" "$ratio" ">=" 0.80
    done
  done
  unmount_fs "$mnt"
  rm -rf "$state"
}

