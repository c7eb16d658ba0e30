# shellcheck shell=bash
#   many    1,000 files of 64 KiB with 16 active (`mount --max-active 16`):
#           wall time from the write of the list to queue/new until all 1,000
#           are in files/, against "curl+sync" (SPEC §9: what R51 asks of
#           any downloader done the naive way): `curl -Z --parallel-max 16`
#           into a temp dir, then each file fdatasync'd and renamed into
#           place, 16 threads at a time, timed as one wall by helper.py (from
#           curl's start, after Python's); against plain `curl -Z
#           --parallel-max 16`, which makes nothing durable; and, shown
#           only, `wget2 --max-threads=16` and `aria2c -j16 -i` over the same
#           list. Targets: <= 0.75x curl+sync and <= 1.5x curl. Shown
#           beside them, "curl+sync+meta": curl+sync that also gives each
#           file what downloadfs gives a finished one (R40-R42: mtime, origin
#           attributes, mode 0444), the naive way; and "floor", the least
#           a durable downloader must do (floor.c, built here with cc over
#           libcurl: one curl multi thread, a second thread that flushes
#           every file waiting with one syncfs, checks each file's own
#           writeback, gives it that metadata and moves it into place; no
#           catalog, no log, no state machine): the physical limit.
#           Run it at least six minutes after anything deleted many files on
#           the work dir's filesystem: ext4 without a journal skips inodes
#           freed less than 60 s (360 s while their table block is dirty)
#           ago, probing each, which slows every tool's file creation.
#           Every tool's round starts from the same page cache (as root):
#           what earlier rounds wrote is dropped, the sources and every
#           tool's program and libraries (downloadfs's too) are read back
#           in (`settle_cache`). Without it each round found
#           some 450 MB more of earlier rounds' files cached and this VM's
#           new pages costlier, and the rounds slowed as a run went on, every
#           tool alike (curl 0.12 s in a first round, 0.25-0.41 s later).
#           BENCH_KEEP_CACHE=1 keeps the old way.

# settle_cache: drops the page cache (root only; sync first) and reads back
# what every round needs: the sources nginx serves, and every tool's program
# and libraries, downloadfs's too (code a run reaches first would otherwise
# be read from disk inside its timed wall).
settle_cache() {
  [ -z "${BENCH_KEEP_CACHE:-}" ] && [ -w /proc/sys/vm/drop_caches ] || return 0
  echo 1 > /proc/sys/vm/drop_caches
  cat "$work"/www/many/* > /dev/null
  local program
  for program in "$bin" "$work/floor" "$(command -v curl)" "$(command -v wget2)" "$(command -v aria2c)" "$(command -v python3)"; do
    [ -x "$program" ] || continue
    # shellcheck disable=SC2046 # ldd's library paths, one word each
    cat "$program" $(ldd "$program" 2> /dev/null | awk '$3 ~ /^\// { print $3 }') > /dev/null
  done
}

# wall_of COMMAND...: the seconds a quiet COMMAND took (time's own line is the last).
wall_of() { { /usr/bin/time -f "%e" timeout 300 "$@"; } 2>&1 | tail -1; }
# many_curl DIR: the words of curl fetching the many part's list into DIR.
many_curl() { many_words=(curl -sf -Z --parallel-max 16 --output-dir "$1" --remote-name-all -K "$work/many.curl"); }

part_many() {
  echo; echo "== many: 1,000 files of 64 KiB, 16 at a time, $rounds rounds"
  local n=1000 out dir tools=(downloadfs curl curl+sync curl+sync+meta) r i tool t list="$work/many.list" got many_words meta
  # shellcheck disable=SC2046 # pkg-config prints words
  if cc -O2 -o "$work/floor" "$parts_dir/floor.c" $(pkg-config --cflags --libs libcurl) -lpthread; then
    tools+=(floor)
  else
    echo "note: could not build floor.c; the durable floor is not shown" >&2
  fi
  have wget2 && tools+=(wget2)
  have aria2c && tools+=(aria2c)
  if [ ! -e "$work/www/many/f0000.bin" ]; then
    head -c $((n * 64 * 1024)) /dev/urandom | split -b 64K -d -a 4 --additional-suffix=.bin - "$work/www/many/f"
    chmod 644 "$work/www/many/"*
  fi
  for ((i = 0; i < n; i++)); do printf '%s/many/f%04d.bin\n' "$base" "$i"; done > "$list"
  sed 's/^/url = /' "$list" > "$work/many.curl"
  declare -A walls
  # Nothing is deleted until the script ends: on ext4 without a journal (this
  # VM's) every inode freed in the last minutes is skipped, one by one, by
  # each new file's inode allocation, which would tax whoever runs next.
  for ((r = 0; r < rounds; r++)); do
    for ((i = 0; i < ${#tools[@]}; i++)); do
      tool=${tools[$(((i + r) % ${#tools[@]}))]}
      out="$work/keep/many-$tool-$r"; mkdir -p "$out"; timeout 120 sync; settle_cache
      dir=$out
      case $tool in
        downloadfs)
          mount_fs "$work/many-mnt" "$out/state" --max-active 16
          t=$(timeout 300 python3 "$helper" fill "$work/many-mnt" "$list" "$n" 240) || { echo "downloadfs: not all files arrived" >&2; exit 1; }
          unmount_fs "$work/many-mnt"
          dir=$out/state/files
          ;;
        curl) many_curl "$out"; t=$(wall_of "${many_words[@]}") ;;
        curl+sync | curl+sync+meta)
          mkdir -p "$out/got"
          many_curl "$out/got"
          meta=()
          [ "$tool" = curl+sync+meta ] && meta=(--meta)
          t=$(timeout 300 python3 "$helper" syncmove "${meta[@]}" "$out/got" "$out/files" 16 -- "${many_words[@]}")
          dir=$out/files
          ;;
        floor) t=$(wall_of "$work/floor" "$list" "$out" 16); dir=$out/files ;;
        wget2) t=$(wall_of wget2 -q --max-threads=16 -P "$out" -i "$list") ;;
        aria2c) t=$(wall_of aria2c -q -j16 -d "$out" -i "$list") ;;
      esac
      got=$(find "$dir" -type f -size 64k | wc -l)
      [ "$got" = "$n" ] || { echo "$tool: $got of $n files" >&2; exit 1; }
      walls[$tool]+=" $t"
    done
  done
  declare -A wall
  printf '%-15s %9s %9s   %s\n' tool "wall s" "files/s" "(medians; walls of each round)"
  for tool in "${tools[@]}"; do
    # shellcheck disable=SC2086
    wall[$tool]=$(median ${walls[$tool]})
    printf '%-15s %9.2f %9.0f   %s\n' "$tool" "${wall[$tool]}" "$(calc "$n / ${wall[$tool]}")" "${walls[$tool]# }"
  done
  verdict "many: wall downloadfs / curl+sync" "$(calc "${wall[downloadfs]} / ${wall[curl+sync]}")" "<=" 0.75
  verdict "many: wall downloadfs / curl" "$(calc "${wall[downloadfs]} / ${wall[curl]}")" "<=" 1.50
  note "curl+sync / curl" "$(calc "${wall[curl+sync]} / ${wall[curl]}")"
  note "wall downloadfs / curl+sync+meta" "$(calc "${wall[downloadfs]} / ${wall[curl+sync+meta]}")"
  note "curl+sync+meta / curl+sync" "$(calc "${wall[curl+sync+meta]} / ${wall[curl+sync]}")"
  if [ -n "${wall[floor]:-}" ]; then
    note "floor / curl+sync" "$(calc "${wall[floor]} / ${wall[curl+sync]}")"
    note "floor / curl" "$(calc "${wall[floor]} / ${wall[curl]}")"
    note "wall downloadfs / floor" "$(calc "${wall[downloadfs]} / ${wall[floor]}")"
  fi
  [ -n "${wall[wget2]:-}" ] && note "wget2 / curl" "$(calc "${wall[wget2]} / ${wall[curl]}")"
  [ -n "${wall[aria2c]:-}" ] && note "aria2c / curl" "$(calc "${wall[aria2c]} / ${wall[curl]}")"
  return 0
}

