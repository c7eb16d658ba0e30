# shellcheck shell=bash
#   split   segmented downloads (R18): one file of BENCH_SPLIT_MIB (default
#           256; SPEC §9 uses 1024) from an nginx location that limits each
#           connection to 16 MiB/s (`limit_rate 16m`), N rounds in rotating
#           order: downloadfs with `split=8` on the input line, with its
#           default split, and with `split=1` (each from the write to
#           queue/new until queue/1/wait answers, fresh mount each time),
#           against `aria2c -x8 -s8 -k1M`, `curl -o` and `axel -n 8` (a peer
#           that is not installed is skipped, and the script says so). Shown
#           per tool: median wall time, MiB/s, and nginx's request count and
#           body bytes sent (over the size) in the last round. Targets: split=8
#           at least as fast as aria2c and at least 6x curl.

# split_log_mark: the number of lines in nginx's split.log now.
split_log_mark() { if [ -e "$work/nginx/logs/split.log" ]; then wc -l < "$work/nginx/logs/split.log"; else echo 0; fi; }
# split_log_since MARK: "REQUESTS BYTES" nginx logged for /split/ after line MARK.
split_log_since() {
  tail -n +"$(($1 + 1))" "$work/nginx/logs/split.log" 2>/dev/null | awk '{ n++; sum += $NF } END { printf "%d %.0f\n", n, sum }'
}

part_split() {
  local split_mib=${BENCH_SPLIT_MIB:-256}
  [[ $split_mib =~ ^[1-9][0-9]*$ ]] || { echo "BENCH_SPLIT_MIB wants a positive number" >&2; exit 2; }
  echo; echo "== split: one $split_mib MiB file, nginx limit_rate 16m per connection, $rounds rounds"
  local url="$base/split/split.bin" out="$work/out" file="$work/www/split/split.bin"
  local tools=(dfs-split8 dfs-default dfs-split1 curl) r i tool t mark sha bytes option
  if have aria2c; then tools+=(aria2c); else echo "aria2c: not installed, skipped"; fi
  if have axel; then tools+=(axel); else echo "axel: not installed, skipped"; fi
  echo "creating a $split_mib MiB file..."
  head -c "$((split_mib * 1024 * 1024))" /dev/urandom > "$file"
  chmod 644 "$file"
  sha=$(sha256sum "$file" | cut -d' ' -f1)
  bytes=$((split_mib * 1024 * 1024))
  declare -A walls reqs sent
  mkdir -p "$out"
  for ((r = 0; r < rounds; r++)); do
    for ((i = 0; i < ${#tools[@]}; i++)); do
      tool=${tools[$(((i + r) % ${#tools[@]}))]}
      rm -rf "$out"/* "$work/split-state"; settle_disk
      mark=$(split_log_mark)
      case $tool in
        dfs-*)
          case $tool in dfs-split8) option=split=8 ;; dfs-split1) option=split=1 ;; *) option="" ;; esac
          fetch_big "$work/split-mnt" "$work/split-state" "$url" "$option"
          if [ "$r" = 0 ]; then
            [ "$(timeout 300 sha256sum < "$work/split-mnt/files/split.bin" | cut -d' ' -f1)" = "$sha" ] || { echo "$tool: sha-256 mismatch" >&2; exit 1; }
          fi
          unmount_fs "$work/split-mnt"
          t=$fetch_wall
          ;;
        *)
          case $tool in
            curl) set -- curl -sf -o "$out/f" "$url" ;;
            aria2c) set -- aria2c -q -x8 -s8 -k1M -d "$out" -o f --allow-overwrite=true "$url" ;;
            axel) set -- axel -q -n 8 -o "$out/f" "$url" ;;
          esac
          /usr/bin/time -o "$work/time" -f "%e" timeout 600 "$@" >/dev/null 2>&1 || { echo "$tool failed" >&2; continue; }
          t=$(tail -1 "$work/time")
          if [ "$r" = 0 ]; then
            [ "$(timeout 300 sha256sum < "$out/f" | cut -d' ' -f1)" = "$sha" ] || echo "$tool: sha-256 mismatch" >&2
          fi
          ;;
      esac
      walls[$tool]+=" $t"
      sleep 0.2   # nginx writes a log line when its request ends
      read -r "reqs[$tool]" "sent[$tool]" < <(split_log_since "$mark")
    done
  done
  rm -rf "$out" "$work/split-state"
  declare -A wall
  printf '%-12s %9s %9s %6s %9s   %s\n' tool "wall s" "MiB/s" "reqs" "sent/size" "(medians; reqs and sent: last round; walls of each round)"
  for tool in "${tools[@]}"; do
    [ -n "${walls[$tool]:-}" ] || continue
    # shellcheck disable=SC2086
    wall[$tool]=$(median ${walls[$tool]})
    printf '%-12s %9.2f %9.1f %6s %9.3f   %s\n' "$tool" "${wall[$tool]}" "$(calc "$split_mib / ${wall[$tool]}")" "${reqs[$tool]}" "$(calc "${sent[$tool]} / $bytes")" "${walls[$tool]# }"
  done
  if [ -n "${wall[aria2c]:-}" ]; then
    verdict "split: throughput dfs split=8 / aria2c -x8" "$(calc "${wall[aria2c]} / ${wall[dfs-split8]}")" ">=" 1.00
  else
    echo "split: aria2c not installed, no comparison with it"
  fi
  verdict "split: throughput dfs split=8 / curl" "$(calc "${wall[curl]} / ${wall[dfs-split8]}")" ">=" 6.00
  note "dfs default split / curl" "$(calc "${wall[curl]} / ${wall[dfs-default]}")"
  note "dfs split=1 / curl" "$(calc "${wall[curl]} / ${wall[dfs-split1]}")"
  [ -n "${wall[axel]:-}" ] && note "dfs split=8 / axel -n 8" "$(calc "${wall[axel]} / ${wall[dfs-split8]}")"
  rm -f "$file"
  return 0
}

