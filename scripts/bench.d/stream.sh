# shellcheck shell=bash
#   stream  range-first reads (R23, issue 11): one file of BENCH_STREAM_MIB
#           (default 2048, as SPEC §9) from the same 16 MiB/s-per-connection
#           location as split. downloadfs (fresh mount, default split): once
#           the task is `downloading` and its data file has its full size,
#           BENCH_STREAM_READS (default 20, at most 200) reads of 64 KiB at
#           offsets in the last 60 % of the file (4 KiB aligned, spaced apart,
#           fixed seed BENCH_STREAM_SEED + round, read from the last to the
#           first so that no read lands where an earlier one made the
#           download go on), each open+pread+close timed in-process and
#           checked against the served file; then, on a
#           second fresh mount, the whole data file read in 128 KiB reads (as
#           `cat` does, checked too) from the moment it has its full size, and
#           the download (both from the write to queue/new; the download until
#           queue/1/wait answers). The same reads and the same whole read
#           through `rclone mount --vfs-cache-mode full --read-only` and
#           `httpdirfs --cache --no-range-check` over the same location (a
#           fresh mount and cache dir for each measurement; a peer that is not
#           installed is skipped; httpdirfs 1.2.5 gets one more handle held
#           open during the reads, as it crashes otherwise), N rounds in
#           rotating order. Shown per tool: read p50 and p99 (all rounds'
#           reads pooled; with 20 reads p99 is the slowest), the median whole
#           read, and for downloadfs the median download and cat/download. A
#           short read or wrong bytes is a wrong read: counted, shown, left
#           out of the percentiles. Targets: p50 <= 100 ms, p99 <= 300 ms,
#           cat ends no later than 1.10x the download's end, no wrong read.

# peer_mount TOOL MNT CACHE URL FILE: mounts rclone or httpdirfs on MNT over
# the directory URL with a fresh cache dir CACHE, in the background; sets
# $peer_pid. Returns 1 (the log says why) unless FILE shows under MNT within
# 30 s.
peer_mount() {
  local tool=$1 mnt=$2 cache=$3 url=$4 name=$5 deadline
  rm -rf "$cache"; mkdir -p "$mnt" "$cache"
  peer_mounts+=("$mnt")
  case $tool in
    rclone)
      rclone mount :http: "$mnt" --config "$work/rclone.conf" --http-url "$url" --read-only \
        --vfs-cache-mode full --cache-dir "$cache" >"$work/$tool.log" 2>&1 &
      ;;
    httpdirfs)
      # --no-range-check: httpdirfs 1.2.5 checks Accept-Ranges on the
      # directory listing, which nginx does not send (the file's answer does).
      httpdirfs --cache --no-range-check --cache-location "$cache" -f "$url" "$mnt" >"$work/$tool.log" 2>&1 &
      ;;
  esac
  peer_pid=$!
  peer_pids+=("$peer_pid")
  deadline=$(($(date +%s) + 30))
  until is_mounted "$mnt" && [ "$(timeout 10 stat -c %s "$mnt/$name" 2>/dev/null)" = "$stream_bytes" ]; do
    if [ "$(date +%s)" -ge "$deadline" ] || ! running "$peer_pid"; then
      echo "$tool: $mnt/$name did not show within 30 s ($(tail -3 "$work/$tool.log" | tr '\n' ' '))" >&2
      return 1
    fi
    sleep 0.1
  done
}

part_stream() {
  local stream_mib=${BENCH_STREAM_MIB:-2048} k=${BENCH_STREAM_READS:-20} seed0=${BENCH_STREAM_SEED:-11}
  [[ $stream_mib =~ ^[1-9][0-9]*$ ]] && [ "$stream_mib" -ge 8 ] || { echo "BENCH_STREAM_MIB wants a number >= 8" >&2; exit 2; }
  [[ $k =~ ^[1-9][0-9]*$ ]] && [ "$k" -le 200 ] || { echo "BENCH_STREAM_READS wants a number from 1 to 200" >&2; exit 2; }
  [[ $seed0 =~ ^[0-9]+$ ]] || { echo "BENCH_STREAM_SEED wants a number" >&2; exit 2; }
  echo; echo "== stream: reads of a $stream_mib MiB file while it downloads (nginx limit_rate 16m per connection), $k reads of 64 KiB, $rounds rounds"
  local name=stream.bin file="$work/www/split/stream.bin" dir="$base/split/" url="$base/split/stream.bin"
  local tools=(downloadfs) r i tool line seed t_read t_cat mnt cache hold
  if have rclone; then tools+=(rclone); else echo "rclone: not installed, skipped"; fi
  if have httpdirfs; then tools+=(httpdirfs); else echo "httpdirfs: not installed, skipped"; fi
  : > "$work/rclone.conf"
  echo "creating a $stream_mib MiB file..."
  head -c "$((stream_mib * 1024 * 1024))" /dev/urandom > "$file"
  chmod 644 "$file"
  stream_bytes=$((stream_mib * 1024 * 1024))
  # Deadlines: one connection at 16 MiB/s reads the whole file in
  # stream_mib / 16 s; the slowest tool gets three times that (helper.py's
  # own waits end before these).
  t_read=$((k * 12 + 90))
  t_cat=$((stream_mib * 3 / 16 + 180))
  declare -A lat bad cats dls ratios wrongcat notes behind
  for ((r = 0; r < rounds; r++)); do
    seed=$((seed0 + r))
    for ((i = 0; i < ${#tools[@]}; i++)); do
      tool=${tools[$(((i + r) % ${#tools[@]}))]}
      mnt="$work/stream-mnt-$tool"; cache="$work/stream-cache-$tool"
      settle_disk
      # Reads at offsets not yet downloaded.
      line=""
      case $tool in
        downloadfs)
          rm -rf "$work/stream-state"
          mount_fs "$mnt" "$work/stream-state"
          line=$(timeout -k 5 "$t_read" python3 "$helper" reads "$url" "$file" "$k" "$seed" "$mnt" 1) || line+=$'\n'"the reads did not end within $t_read s"
          unmount_fs "$mnt"
          ;;
        *)
          if peer_mount "$tool" "$mnt" "$cache" "$dir" "$name"; then
            # httpdirfs: --hold, or the first read's close crashes it (helper.py).
            hold=""; [ "$tool" = httpdirfs ] && hold=--hold
            # shellcheck disable=SC2086
            line=$(timeout -k 5 "$t_read" python3 "$helper" reads $hold "$mnt/$name" "$file" "$k" "$seed") || line+=$'\n'"the reads did not end within $t_read s"
          else
            line="reads $k good 0 p50 - p99 - max -"$'\n'"could not mount"
          fi
          stop_peer "$mnt" "$peer_pid"
          ;;
      esac
      stream_reads_record "$tool" "$line"
      # The whole file, from the start.
      settle_disk
      case $tool in
        downloadfs)
          rm -rf "$work/stream-state"
          mount_fs "$mnt" "$work/stream-state"
          line=$(timeout -k 5 "$t_cat" python3 "$helper" cat "$url" "$file" "$mnt") || line+=$'\n'"the whole read did not end within $t_cat s"
          unmount_fs "$mnt"
          rm -rf "$work/stream-state"
          ;;
        *)
          if peer_mount "$tool" "$mnt" "$cache" "$dir" "$name"; then
            line=$(timeout -k 5 "$t_cat" python3 "$helper" cat "$mnt/$name" "$file") || line+=$'\n'"the whole read did not end within $t_cat s"
          else
            line="could not mount"
          fi
          stop_peer "$mnt" "$peer_pid"
          rm -rf "$cache"
          ;;
      esac
      stream_cat_record "$tool" "$line"
    done
  done
  declare -A p50 p99 cat dl
  printf '%-11s %9s %9s %6s %9s %9s %9s   %s\n' tool "p50 ms" "p99 ms" "wrong" "cat s" "dl s" "cat/dl" "(reads of all rounds; cat, dl, cat/dl: medians; cat of each round)"
  for tool in "${tools[@]}"; do
    line=${lat[$tool]:-}
    if [ -n "${line// /}" ]; then
      # shellcheck disable=SC2086
      read -r p50[$tool] p99[$tool] < <(printf '%s\n' ${lat[$tool]} | sort -g | awk '{ v[NR] = $1 } END { i = int(0.5 * NR) + 1; j = int(0.99 * NR) + 1; if (j > NR) j = NR; printf "%.2f %.2f\n", v[i], v[j] }')
    else
      p50[$tool]=-; p99[$tool]=-
    fi
    # shellcheck disable=SC2086
    if [ -n "${cats[$tool]:-}" ]; then cat[$tool]=$(median ${cats[$tool]}); else cat[$tool]=-; fi
    # shellcheck disable=SC2086
    if [ -n "${dls[$tool]:-}" ]; then dl[$tool]=$(median ${dls[$tool]}); else dl[$tool]=-; fi
    local ratio=-
    # shellcheck disable=SC2086
    [ -n "${ratios[$tool]:-}" ] && ratio=$(median ${ratios[$tool]})
    printf '%-11s %9s %9s %6s %9s %9s %9s   %s\n' "$tool" "${p50[$tool]}" "${p99[$tool]}" "$((${bad[$tool]:-0} + ${wrongcat[$tool]:-0}))" \
      "${cat[$tool]}" "${dl[$tool]}" "$ratio" "${cats[$tool]:-}"
  done
  for tool in "${tools[@]}"; do
    [ -n "${notes[$tool]:-}" ] && printf '%s\n' "${notes[$tool]}" | sed '/^$/d' | sort | uniq -c | sed "s/^ *\([0-9]*\) /  $tool (x\1): /"
  done
  if [ -n "${behind[downloadfs]:-}" ]; then
    failure "stream: 64 KiB read ahead of the download, p50" "${behind[downloadfs]} of $rounds rounds not ahead: a bigger file?"
    failure "stream: 64 KiB read ahead of the download, p99" "${behind[downloadfs]} of $rounds rounds not ahead: a bigger file?"
  elif [ "${p50[downloadfs]}" != - ]; then
    verdict "stream: 64 KiB read ahead of the download, p50" "${p50[downloadfs]}" "<=" 100 " ms"
    verdict "stream: 64 KiB read ahead of the download, p99" "${p99[downloadfs]}" "<=" 300 " ms"
  else
    failure "stream: 64 KiB read ahead of the download, p50" "no read returned the right bytes"
    failure "stream: 64 KiB read ahead of the download, p99" "no read returned the right bytes"
  fi
  verdict "stream: wrong reads (short or bad bytes)" "${bad[downloadfs]:-0}" "<=" 0
  if [ -n "${ratios[downloadfs]:-}" ]; then
    # shellcheck disable=SC2086
    verdict "stream: cat end / download end" "$(median ${ratios[downloadfs]})" "<=" 1.10
  else
    failure "stream: cat end / download end" "no complete cat or download"
  fi
  verdict "stream: cats with wrong bytes or length" "${wrongcat[downloadfs]:-0}" "<=" 0
  for tool in rclone httpdirfs; do
    [ "${p50[$tool]:-}" != - ] && [ -n "${p50[$tool]:-}" ] && [ "${p50[downloadfs]}" != - ] && [ -z "${behind[downloadfs]:-}" ] &&
      note "$tool read p50 / downloadfs read p50" "$(calc "${p50[$tool]} / (${p50[downloadfs]} + 0.001)")"
    [ "${cat[$tool]:-}" != - ] && [ -n "${cat[$tool]:-}" ] && [ "${cat[downloadfs]}" != - ] &&
      note "$tool whole read / downloadfs cat" "$(calc "${cat[$tool]} / ${cat[downloadfs]}")"
  done
  rm -f "$file"
  return 0
}

# stream_reads_record TOOL OUTPUT: adds a `helper.py reads` answer to the
# part's tables (lat, bad, behind, notes: the caller's locals, by dynamic
# scope).
stream_reads_record() {
  local tool=$1 out=$2 first
  first=$(printf '%s\n' "$out" | head -1)
  printf '%s: %s\n' "$tool" "$first"
  case $first in
    "reads "*) ;;
    *) bad[$tool]=$((${bad[$tool]:-0} + k)); notes[$tool]+=$'\n'"no answer from the reads: $(printf '%s\n' "$out" | sed '/^$/d' | tr '\n' ' ')"; return ;;
  esac
  local good
  good=$(echo "$first" | awk '{ print $4 }')
  bad[$tool]=$((${bad[$tool]:-0} + k - good))
  # downloadfs: reads made while the task was not downloading (a small file
  # can be done before the first read) say nothing about R23.
  case $first in *" ahead no"*) behind[$tool]=$((${behind[$tool]:-0} + 1)) ;; esac
  # The times of the good reads (`ms T` lines).
  lat[$tool]+=" $(printf '%s\n' "$out" | awk '$1 == "ms" { print $2 }' | tr '\n' ' ')"
  notes[$tool]+=$'\n'"$(printf '%s\n' "$out" | tail -n +2 | grep -v '^ms ' | sed 's/ at [0-9]*:/:/; s/([0-9.]* ms)//; s/read at [0-9]* took/read took/' || true)"
}

# stream_cat_record TOOL OUTPUT: adds a `helper.py cat` answer.
stream_cat_record() {
  local tool=$1 out=$2 first
  first=$(printf '%s\n' "$out" | head -1)
  printf '%s: %s\n' "$tool" "$first"
  notes[$tool]+=$'\n'"$(printf '%s\n' "$out" | tail -n +2)"
  case $first in
    "cat "*) ;;
    *) wrongcat[$tool]=$((${wrongcat[$tool]:-0} + 1)); notes[$tool]+=$'\n'"no answer from the whole read"; return ;;
  esac
  local secs dl verdict_word
  read -r _ secs _ dl _ _ verdict_word _ <<<"$first"
  if [ "$verdict_word" = ok ]; then
    cats[$tool]+=" $secs"
    if [ "$dl" != - ]; then ratios[$tool]+=" $(calc "$secs / $dl")"; fi
  else
    wrongcat[$tool]=$((${wrongcat[$tool]:-0} + 1))
  fi
  if [ "$dl" != - ]; then dls[$tool]+=" $dl"; fi
}

