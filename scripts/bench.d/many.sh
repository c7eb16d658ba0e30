# shellcheck shell=bash
#   many    1,000 files of 64 KiB with 16 active (`mount --max-active 16`):
#           wall time from the write of the list to queue/new until all 1,000
#           are in files/, against `curl -Z --parallel-max 16`,
#           `wget2 --max-threads=16` and `aria2c -j16 -i` over the same list.
#           Target: <= 1.5x curl. None of the peers makes its files durable;
#           "curl+sync" shows what R51 adds to curl's work: the same curl
#           run, then each file fdatasync'd and renamed into another
#           directory, 16 at a time (timed together; nothing overlaps, so it
#           is a floor's estimate, not a bound).

# wall_of COMMAND...: the seconds a quiet COMMAND took (time's own line is the last).
wall_of() { { /usr/bin/time -f "%e" timeout 300 "$@"; } 2>&1 | tail -1; }
# curl_many DIR: the many part's list fetched by curl into DIR; prints the seconds.
curl_many() { wall_of curl -sf -Z --parallel-max 16 --output-dir "$1" --remote-name-all -K "$work/many.curl"; }

part_many() {
  echo; echo "== many: 1,000 files of 64 KiB, 16 at a time, $rounds rounds"
  local n=1000 out dir tools=(downloadfs curl curl+sync) r i tool t list="$work/many.list" got
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
      out="$work/keep/many-$tool-$r"; mkdir -p "$out"; sync
      dir=$out
      case $tool in
        downloadfs)
          mount_fs "$work/many-mnt" "$out/state" --max-active 16
          t=$(timeout 300 python3 "$helper" fill "$work/many-mnt" "$list" "$n" 240) || { echo "downloadfs: not all files arrived" >&2; exit 1; }
          unmount_fs "$work/many-mnt"
          dir=$out/state/files
          ;;
        curl) t=$(curl_many "$out") ;;
        curl+sync)
          mkdir -p "$out/got"
          t=$(curl_many "$out/got")
          t=$(calc "$t + $(timeout 300 python3 "$helper" syncmove "$out/got" "$out/files" 16)")
          dir=$out/files
          ;;
        wget2) t=$(wall_of wget2 -q --max-threads=16 -P "$out" -i "$list") ;;
        aria2c) t=$(wall_of aria2c -q -j16 -d "$out" -i "$list") ;;
      esac
      got=$(find "$dir" -type f -size 64k | wc -l)
      [ "$got" = "$n" ] || { echo "$tool: $got of $n files" >&2; exit 1; }
      walls[$tool]+=" $t"
    done
  done
  declare -A wall
  printf '%-11s %9s %9s   %s\n' tool "wall s" "files/s" "(medians; walls of each round)"
  for tool in "${tools[@]}"; do
    # shellcheck disable=SC2086
    wall[$tool]=$(median ${walls[$tool]})
    printf '%-11s %9.2f %9.0f   %s\n' "$tool" "${wall[$tool]}" "$(calc "$n / ${wall[$tool]}")" "${walls[$tool]# }"
  done
  verdict "many: wall downloadfs / curl" "$(calc "${wall[downloadfs]} / ${wall[curl]}")" "<=" 1.50
  printf '%-44s %10s\n' "(downloadfs / curl+sync)" "$(calc "${wall[downloadfs]} / ${wall[curl+sync]}")"
  [ -n "${wall[wget2]:-}" ] && printf '%-44s %10s\n' "(wget2 / curl)" "$(calc "${wall[wget2]} / ${wall[curl]}")"
  [ -n "${wall[aria2c]:-}" ] && printf '%-44s %10s\n' "(aria2c / curl)" "$(calc "${wall[aria2c]} / ${wall[curl]}")"
  return 0
}

