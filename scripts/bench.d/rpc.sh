# shellcheck shell=bash
#   rpc     aria2's JSON-RPC door (R70, `downloadfs rpc`). (1) p99 of
#           `aria2.tellStatus` (HTTP POST, a new connection each, timed
#           in-process every 2 ms for 2 s) of one of three downloads of the big
#           file running flat out, against `aria2c --enable-rpc` running the
#           same three downloads at the same time, the two asked in turn.
#           Target: p99 < 5 ms. (2) `aria2.tellWaiting(0, 1000)` with
#           BENCH_RPC_TASKS (default 100,000) tasks in the catalog (one
#           downloading slowly, the rest queued): the first call, and the
#           median of 3. Target: < 0.5 s.
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

part_rpc() {
  make_big
  echo; echo "== rpc: aria2's JSON-RPC door (downloadfs rpc) beside aria2c --enable-rpc"
  local mnt="$work/rpc-mnt" state="$work/rpc-state" theirs aria2_pid line i n=${BENCH_RPC_TASKS:-100000} t
  for i in 1 2 3; do ln -f "$work/www/big.bin" "$work/www/r$i.bin"; done
  rm -rf "$state"
  mount_fs "$mnt" "$state" --max-active 3
  start_rpc "$mnt"
  printf '%s/r1.bin\n%s/r2.bin\n%s/r3.bin\n' "$base" "$base" "$base" > "$work/rpc.list"
  theirs=$(free_port)
  mkdir -p "$work/rpc-aria2c"
  aria2c --enable-rpc --rpc-listen-port="$theirs" --dir="$work/rpc-aria2c" --quiet=true --no-conf=true \
    --max-concurrent-downloads=3 --allow-overwrite=true >/dev/null 2>&1 &
  aria2_pid=$!
  peer_pids+=("$aria2_pid")
  wait_port "$theirs"
  for i in 1 2 3; do
    curl -s -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"aria2.addUri\",\"params\":[[\"$base/r$i.bin\"]]}" \
      "http://127.0.0.1:$theirs/jsonrpc" >/dev/null
  done
  python3 "$helper" add "$mnt" "$work/rpc.list"
  line=$(timeout 120 python3 "$helper" rpc-latency "$rpc_port,$theirs" 2) || { echo "rpc: measurement failed" >&2; exit 1; }
  echo "downloadfs rpc: $(echo "$line" | head -1 | cut -d' ' -f2-) ms"
  echo "aria2c:         $(echo "$line" | tail -1 | cut -d' ' -f2-) ms"
  stop_peer "" "$aria2_pid"; stop_peer "" "$rpc_pid"
  unmount_fs "$mnt"; rm -rf "$state" "$work/rpc-aria2c"
  verdict "rpc: tellStatus p99, three downloads running" "$(echo "$line" | head -1 | awk '{ print $7 }')" "<" 5 " ms"
  printf '%-44s %10s ms\n' "(aria2c's own tellStatus p99)" "$(echo "$line" | tail -1 | awk '{ print $7 }')"

  echo "-- tellWaiting(0, 1000) over $n tasks"
  truncate -s 1G "$work/www/slow.bin"; chmod 644 "$work/www/slow.bin"
  { echo "$base/slow/slow.bin"; awk -v n="$n" -v base="$base" 'BEGIN { for (i = 1; i < n; i++) printf "%s/t/%d/image%03d.jpg\n", base, int(i / 1000), i % 1000 }'; } > "$work/rpc-tasks.list"
  mount_fs "$mnt" "$state" --max-active 1
  python3 "$helper" add "$mnt" "$work/rpc-tasks.list" > /dev/null
  start_rpc "$mnt"
  t=$(timeout 300 python3 "$helper" rpc-call "$rpc_port" aria2.tellWaiting '[0, 1000]' 3) || { echo "rpc: tellWaiting failed" >&2; exit 1; }
  stop_peer "" "$rpc_pid"; unmount_fs "$mnt"; rm -rf "$state"
  verdict "rpc: tellWaiting(0, 1000) over $n tasks, first" "${t% *}" "<" 0.5 " s"
  verdict "rpc: tellWaiting(0, 1000), median of 3" "${t#* }" "<" 0.5 " s"

  echo "-- onDownloadComplete after the completed line of events, 50 small files"
  mkdir -p "$work/www/notify"; chmod 755 "$work/www/notify"
  for i in $(seq 50); do head -c 65536 /dev/urandom > "$work/www/notify/n$i.bin"; echo "$base/notify/n$i.bin"; done > "$work/rpc-notify.list"
  chmod 644 "$work/www/notify/"*
  mount_fs "$mnt" "$state" --max-active 4
  start_rpc "$mnt"
  line=$(timeout 180 python3 "$helper" rpc-notify "$mnt" "$rpc_port" "$work/rpc-notify.list") || { echo "rpc: notifications failed" >&2; exit 1; }
  echo "$line (ms)"
  stop_peer "" "$rpc_pid"; unmount_fs "$mnt"; rm -rf "$state"
  verdict "rpc: onDownloadComplete after events, p99" "$(echo "$line" | awk '{ print $6 }')" "<" 100 " ms"
}

