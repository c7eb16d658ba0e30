# shellcheck shell=bash
#   crash   kill -9 of the daemon mid-download (once 40 % of the big file is
#           written, `split=1`), remount, let it finish and check the sha-256. Bytes
#           fetched again = what the daemon had read from its socket before
#           the kill (it is stopped first and `ss` gives bytes received minus
#           those still queued) minus where the remount resumed (the Range in
#           nginx's access log). Also shown: bytes on disk at the kill minus
#           the resume point (the catalog's lag alone), and nginx's total
#           $body_bytes_sent minus the size, an upper bound that also counts
#           what sat unread in the kernel's socket buffers (several MiB on
#           loopback). aria2c, killed the same way and run again, is the
#           peer. Target: <= 8 MiB. Then the same with `split=8`: nginx's
#           bytes sent for it minus those for one run without a crash (which
#           counts what cut-short segments cost by themselves), divided by 8.
#           Target: <= 8 MiB per connection (R18).

# logged_bytes NAME: total body bytes nginx sent for /logged/NAME, and the
# first byte the last request asked for (0 without a Range).
logged_bytes() {
  awk -v u="/logged/$1" '$1 == u { sum += $NF; r = $3; gsub(/"|bytes=|-.*/, "", r); last = (r == "") ? 0 : r } END { printf "%.0f %.0f\n", sum, last }' "$work/nginx/logs/logged.log"
}

# downloaded_of MNT ID: the task's `downloaded` status value (0 if unreadable).
downloaded_of() {
  awk '$1 == "downloaded:" { print $2; found = 1 } END { if (!found) print 0 }' "$1/queue/$2/status" 2>/dev/null || echo 0
}

# crash_until_40 MNT STATE NAME SPLIT LABEL: a fresh mount downloading
# /logged/NAME with split=SPLIT, until 40 % is in; sets $daemon_pid.
crash_until_40() {
  local mnt=$1 state=$2 name=$3 split=$4 label=$5 deadline
  rm -rf "$state"
  mount_fs "$mnt" "$state"
  printf '%s\n  split=%s\n' "$base/logged/$name" "$split" > "$mnt/queue/new"
  deadline=$(($(date +%s) + 120))
  # The data file is preallocated: progress is read from the status.
  until [ "$(downloaded_of "$mnt" 1)" -ge $((big_bytes * 2 / 5)) ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "$label: the download did not get to 40 %" >&2; exit 1; }
    sleep 0.005
  done
}

# crash_resume MNT STATE NAME LABEL PID: once the daemon PID (killed) and its
# mount are gone, remounts, lets the download finish and checks its sha-256.
crash_resume() {
  local mnt=$1 state=$2 name=$3 label=$4 pid=$5 result
  for _ in $(seq 200); do our_daemon "$pid" || break; sleep 0.05; done
  # The killed daemon's auto_unmount helper takes the mount down; mount copes with a dead one.
  for _ in $(seq 100); do is_mounted "$mnt" || break; sleep 0.05; done
  mount_fs "$mnt" "$state"
  result=$(timeout 600 cat "$mnt/queue/1/wait") || true
  [ "$result" = completed ] || { echo "$label: after the remount: ${result:-no answer}" >&2; exit 1; }
  [ "$(timeout 300 sha256sum < "$mnt/files/$name" | cut -d' ' -f1)" = "$big_sha" ] || { echo "$label: sha-256 mismatch" >&2; exit 1; }
  unmount_fs "$mnt"
  sleep 0.2  # nginx writes its log line when the connection ends
}

# crash_segmented: kill -9 during a download with `split=8` (R18): every
# connection continues from its own checkpoint after the remount, so what
# nginx sends beyond the file's size stays within 8 MiB per connection.
crash_segmented() {
  local mnt="$work/crash-mnt" state="$work/crash-state" name=crash8.bin size=$big_bytes sent pid clean
  ln -f "$work/www/big.bin" "$work/www/logged/$name"
  ln -f "$work/www/big.bin" "$work/www/logged/clean-$name"
  # The same download without a crash: what cut-short segments cost by
  # themselves (bytes in flight past a segment's new end when it is split).
  rm -rf "$state"
  fetch_big "$mnt" "$state" "$base/logged/clean-$name" split=8
  unmount_fs "$mnt"
  sleep 0.2
  read -r clean _ < <(logged_bytes "clean-$name")
  crash_until_40 "$mnt" "$state" "$name" 8 "crash (split 8)"
  pid=$daemon_pid
  local connections
  connections=$(awk '$1 == "connections:" { print $2 }' "$mnt/queue/1/status")
  kill -9 "$pid"
  crash_resume "$mnt" "$state" "$name" "crash (split 8)" "$pid"
  read -r sent _ < <(logged_bytes "$name")
  printf 'downloadfs split=8: killed with %s connections open; nginx sent %s body bytes in all for the %s-byte file\n' \
    "${connections:-?}" "$sent" "$size"
  printf '  (%s without a crash; the rest is the crash: unsynced bytes and socket buffers at the kill)\n' "$clean"
  note "sent - size, per connection" "$(calc "($sent - $size) / 8 / 1048576")" " MiB"
  verdict "crash (split 8): fetched again per connection" "$(calc "($sent - $clean) / 8 / 1048576")" "<=" 8 " MiB"
  rm -rf "$state"
}

part_crash() {
  make_big
  echo; echo "== crash: kill -9 mid-download of the $size_mib MiB file, remount, finish"
  local mnt="$work/crash-mnt" state="$work/crash-state" name=crash.bin size on_disk sent resume deadline pid
  ln -f "$work/www/big.bin" "$work/www/logged/$name"
  ln -f "$work/www/big.bin" "$work/www/logged/aria2-$name"
  size=$big_bytes
  crash_until_40 "$mnt" "$state" "$name" 1 crash
  pid=$daemon_pid
  on_disk=$(downloaded_of "$mnt" 1)
  # Frozen first, to read what it had taken from its socket: bytes the
  # kernel received minus those still queued, unread.
  kill -STOP "$pid"
  local read_bytes
  read_bytes=$(timeout 10 ss -tinpH state established "( dport = :$port )" | awk -v p="pid=$pid," '
    index($0, p) { q = $1; getline; if (match($0, /bytes_received:[0-9]+/)) print substr($0, RSTART + 15, RLENGTH - 15) - q }')
  kill -9 "$pid"
  crash_resume "$mnt" "$state" "$name" crash "$pid"
  read -r sent resume < <(logged_bytes "$name")
  printf 'downloadfs: killed having read %s bytes from its socket (%s written just before); the remount resumed at byte %s;\n' \
    "${read_bytes:-?}" "$on_disk" "$resume"
  printf '  nginx sent %s body bytes in all for the %s-byte file\n' "$sent" "$size"
  note "written before the kill - resumed at" "$(calc "($on_disk - $resume) / 1048576")" " MiB"
  note "nginx: sent - size, socket buffers too" "$(calc "($sent - $size) / 1048576")" " MiB"
  if have aria2c; then
    local out="$work/out" apid
    rm -rf "$out"; mkdir -p "$out"
    aria2c -q -x1 -d "$out" -o f "$base/logged/aria2-$name" >/dev/null 2>&1 &
    apid=$!
    peer_pids+=("$apid")
    deadline=$(($(date +%s) + 120))
    until [ "$(awk '/^wchar/ { print $2 }' "/proc/$apid/io" 2>/dev/null || echo 0)" -ge $((size * 2 / 5)) ]; do
      [ "$(date +%s)" -lt "$deadline" ] && kill -0 "$apid" 2>/dev/null || break
      sleep 0.005
    done
    kill -9 "$apid" 2>/dev/null; wait "$apid" 2>/dev/null || true
    timeout 600 aria2c -q -x1 -d "$out" -o f "$base/logged/aria2-$name" >/dev/null 2>&1 || echo "aria2c: the second run failed" >&2
    sleep 0.2
    local asent
    read -r asent _ < <(logged_bytes "aria2-$name")
    note "aria2c, killed and run again: sent - size" "$(calc "($asent - $size) / 1048576")" " MiB"
    rm -rf "$out"
  fi
  [ -n "$read_bytes" ] || { echo "crash: could not read the daemon's socket counters (ss)" >&2; exit 1; }
  verdict "crash: bytes fetched again (read - resumed)" "$(calc "($read_bytes - $resume) / 1048576")" "<=" 8 " MiB"
  rm -rf "$state"
  crash_segmented
}

