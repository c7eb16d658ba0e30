# shellcheck shell=bash
#   rpc     aria2's JSON-RPC door (R70, `downloadfs rpc`). (1) p99 of
#           `aria2.tellStatus` (HTTP POST, a new connection each, timed
#           in-process every 2 ms for 2 s) of one of three downloads of the big
#           file running flat out, against `aria2c --enable-rpc` running the
#           same three downloads: each server measured while only its own
#           three run (six at once would load two cores for both), in
#           alternating rounds (ours, aria2c's, ours, ...), N rounds each,
#           medians of the rounds' p99 compared. Target: p99 < 5 ms (ours;
#           aria2c's and the ratio shown beside it). With
#           BENCH_BASELINE_BIN=PATH another downloadfs build (its mount and
#           its door) runs in the same rotation as "baseline". (2)
#           `aria2.tellWaiting(0, 1000)` with BENCH_RPC_TASKS (default
#           100,000) tasks in the catalog (one downloading slowly, the rest
#           queued): the first call, and the median of 3. Target: < 0.5 s.
#           (3) 50 small files added one by one while a WebSocket client
#           listens: per task, the time from the `completed` line of
#           MNT/events to the client's `aria2.onDownloadComplete`. Target: p99
#           < 100 ms.

# start_rpc MNT: `downloadfs rpc MNT` in the background; sets $rpc_port and $rpc_pid.
start_rpc() {
  rpc_port=$(free_port)
  "$bin" rpc "$1" --rpc-listen-port "$rpc_port" >"$work/rpc-$rpc_port.log" 2>&1 &
  rpc_pid=$!
  peer_pids+=("$rpc_pid")
  wait_port "$rpc_port"
}

# rpc_round TOOL: one round of (1): TOOL (downloadfs or aria2c) serving its
# own three downloads of the big file and nothing else running; sets
# $rpc_line to helper.py's "PORT calls N p50 MS p99 MS". Everything it
# started is stopped and its files deleted (the disk settled) on return.
rpc_round() {
  local mnt="$work/rpc-mnt" state="$work/rpc-state" dir="$work/rpc-aria2c" port_ pid i ours=$bin
  [ "$1" = baseline ] && bin=$BENCH_BASELINE_BIN
  case $1 in
    downloadfs|baseline)
      rm -rf "$state"
      mount_fs "$mnt" "$state" --max-active 3
      start_rpc "$mnt"
      port_=$rpc_port; pid=$rpc_pid
      timeout 60 python3 "$helper" add "$mnt" "$work/rpc.list"
      ;;
    aria2c)
      port_=$(free_port)
      mkdir -p "$dir"
      aria2c --enable-rpc --rpc-listen-port="$port_" --dir="$dir" --quiet=true --no-conf=true \
        --max-concurrent-downloads=3 --allow-overwrite=true >/dev/null 2>&1 &
      pid=$!
      peer_pids+=("$pid")
      wait_port "$port_"
      for i in 1 2 3; do
        timeout 10 curl -s -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"aria2.addUri\",\"params\":[[\"$base/r$i.bin\"]]}" \
          "http://127.0.0.1:$port_/jsonrpc" >/dev/null
      done
      ;;
  esac
  rpc_line=$(timeout 120 python3 "$helper" rpc-latency "$port_" 2) || { echo "rpc: measurement of $1 failed" >&2; exit 1; }
  stop_peer "" "$pid"
  [ "$1" != aria2c ] && unmount_fs "$mnt"
  bin=$ours
  rm -rf "$state" "$dir"
  settle_disk
}

# rpc_status: (1), tellStatus while three downloads run.
rpc_status() {
  local r tool line i
  declare -A p99s
  echo "-- tellStatus while each server's own three downloads run, $rounds rounds each, alternating"
  for i in 1 2 3; do ln -f "$work/www/big.bin" "$work/www/r$i.bin"; done
  printf '%s/r1.bin\n%s/r2.bin\n%s/r3.bin\n' "$base" "$base" "$base" > "$work/rpc.list"
  local tools=(downloadfs)
  if have aria2c; then tools+=(aria2c); else echo "aria2c: not installed, skipped"; fi
  [ -n "${BENCH_BASELINE_BIN:-}" ] && tools+=(baseline)
  for ((r = 0; r < rounds; r++)); do
    for tool in "${tools[@]}"; do
      rpc_round "$tool"
      line=$(printf '%s\n' "$rpc_line" | head -1 | cut -d' ' -f2-)
      printf '%-14s %s ms\n' "$tool:" "$line"
      p99s[$tool]+=" $(echo "$line" | awk '{ print $6 }')"
    done
  done
  local ours theirs=-
  # shellcheck disable=SC2086
  ours=$(median ${p99s[downloadfs]})
  # shellcheck disable=SC2086
  [ -n "${p99s[aria2c]:-}" ] && theirs=$(median ${p99s[aria2c]})
  verdict "rpc: tellStatus p99, three downloads running" "$ours" "<" 5 " ms"
  if [ "$theirs" != - ]; then
    note "aria2c's own tellStatus p99, its three" "$theirs" " ms"
    note "p99 downloadfs / aria2c" "$(calc "$ours / $theirs")"
  fi
  if [ -n "${p99s[baseline]:-}" ]; then
    # shellcheck disable=SC2086
    note "p99 downloadfs / baseline" "$(calc "$ours / $(median ${p99s[baseline]})")"
  fi
}

# rpc_waiting: (2), tellWaiting(0, 1000) over BENCH_RPC_TASKS tasks.
rpc_waiting() {
  local mnt="$work/rpc-mnt" state="$work/rpc-state" n=${BENCH_RPC_TASKS:-100000} t
  echo "-- tellWaiting(0, 1000) over $n tasks"
  truncate -s 1G "$work/www/slow.bin"; chmod 644 "$work/www/slow.bin"
  { echo "$base/slow/slow.bin"; awk -v n="$n" -v base="$base" 'BEGIN { for (i = 1; i < n; i++) printf "%s/t/%d/image%03d.jpg\n", base, int(i / 1000), i % 1000 }'; } > "$work/rpc-tasks.list"
  rm -rf "$state"
  mount_fs "$mnt" "$state" --max-active 1
  timeout 300 python3 "$helper" add "$mnt" "$work/rpc-tasks.list" > /dev/null
  start_rpc "$mnt"
  t=$(timeout 300 python3 "$helper" rpc-call "$rpc_port" aria2.tellWaiting '[0, 1000]' 3) || { echo "rpc: tellWaiting failed" >&2; exit 1; }
  stop_peer "" "$rpc_pid"; unmount_fs "$mnt"; rm -rf "$state"
  verdict "rpc: tellWaiting(0, 1000) over $n tasks, first" "${t% *}" "<" 0.5 " s"
  verdict "rpc: tellWaiting(0, 1000), median of 3" "${t#* }" "<" 0.5 " s"
}

# rpc_notify: (3), onDownloadComplete after the `completed` line of events.
rpc_notify() {
  local mnt="$work/rpc-mnt" state="$work/rpc-state" line i
  echo "-- onDownloadComplete after the completed line of events, 50 small files"
  mkdir -p "$work/www/notify"; chmod 755 "$work/www/notify"
  for i in $(seq 50); do head -c 65536 /dev/urandom > "$work/www/notify/n$i.bin"; echo "$base/notify/n$i.bin"; done > "$work/rpc-notify.list"
  chmod 644 "$work/www/notify/"*
  rm -rf "$state"
  mount_fs "$mnt" "$state" --max-active 4
  start_rpc "$mnt"
  line=$(timeout 180 python3 "$helper" rpc-notify "$mnt" "$rpc_port" "$work/rpc-notify.list") || { echo "rpc: notifications failed" >&2; exit 1; }
  echo "$line (ms)"
  stop_peer "" "$rpc_pid"; unmount_fs "$mnt"; rm -rf "$state"
  verdict "rpc: onDownloadComplete after events, p99" "$(echo "$line" | awk '{ print $6 }')" "<" 100 " ms"
}

part_rpc() {
  make_big
  echo; echo "== rpc: aria2's JSON-RPC door (downloadfs rpc) beside aria2c --enable-rpc"
  rpc_status
  rpc_waiting
  rpc_notify
}
