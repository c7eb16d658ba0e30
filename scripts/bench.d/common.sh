# shellcheck shell=bash
# The library every part of scripts/bench is sourced over: the work dir and
# its cleanup, nginx, mounts and daemons, peers' start and stop, the disk's
# settling, medians and verdicts. Sourcing it runs nothing; bench_start does
# (after the driver has set $here, $bin, $size_mib and $rounds).
#
# Every wait here has a deadline, every external command a timeout, and what
# the bench started is ended by pid (never by name): the machine is shared.

helper="$here/scripts/bench.d/helper.py"
have() { command -v "$1" >/dev/null; }

work=""
nginx_pid=""
mounts=()
daemons=()
peer_mounts=()   # rclone and httpdirfs mounts (stream)
peer_pids=()     # rclone, httpdirfs, aria2c and `downloadfs rpc` processes
summary=()
# Functions a part adds for cleanup to run once mounts are gone (e.g. to put
# back what it changed outside the work dir).
cleanup_hooks=()
# Set by a part that mounts and reads as another user (read): the command
# words that run a command as that user, e.g. (runuser -u downloadfs-bench --).
run_as=()

# --- mounts and daemons ------------------------------------------------------

is_mounted() { awk -v m="$1" '$2 == m { found = 1 } END { exit !found }' /proc/mounts; }

# The pid if it is still one of our daemons (not reused by another program).
our_daemon() { [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' < "/proc/$1/cmdline" | grep -q downloadfs; }

# lazy_unmount MNT: fusermount3 -u, then -uz if it is busy (any user's mount:
# the bench runs as root).
lazy_unmount() {
  is_mounted "$1" || return 0
  timeout 20 fusermount3 -u "$1" 2>/dev/null || timeout 10 fusermount3 -uz "$1" 2>/dev/null || true
}

# unmount_fs MNT: `downloadfs unmount` (as the mount's user), else fusermount3.
unmount_fs() {
  local mnt=$1
  if is_mounted "$mnt"; then
    timeout 60 "${run_as[@]}" "$bin" unmount "$mnt" >/dev/null 2>&1 || lazy_unmount "$mnt"
  fi
}

# mount_fs MNT STATE [OPTION...]: mounts (as $run_as's user if set) and sets $daemon_pid.
mount_fs() {
  local mnt=$1 state=$2; shift 2
  mkdir -p "$mnt"
  mounts+=("$mnt")
  timeout 60 "${run_as[@]}" "$bin" mount "$mnt" --state-dir "$state" "$@" || { echo "mount at $mnt failed" >&2; exit 1; }
  daemon_pid=$(cat "$state/daemon.pid")
  daemons+=("$daemon_pid")
}

# running PID: the process exists and has not exited (is no zombie).
running() { [ -r "/proc/$1/stat" ] && ! awk '{ sub(/^.*\) /, ""); exit $1 != "Z" }' "/proc/$1/stat"; }
# our_peer PID: PID is still a peer this run started (its command line says
# so; the door by $bin as it was run, whatever the binary is named).
our_peer() {
  local line
  line=$( { tr '\0' ' ' < "/proc/$1/cmdline"; } 2>/dev/null ) || return 1
  [[ $line =~ ^[^\ ]*(rclone|httpdirfs|aria2c)\  || $line == "$bin rpc "* ]]
}

# stop_peer MNT PID: unmounts a peer's mount (if MNT is not empty) and ends
# its process by pid (TERM, then KILL after 10 s).
stop_peer() {
  local mnt=$1 pid=$2
  [ -z "$mnt" ] || lazy_unmount "$mnt"
  [ -n "$pid" ] || return 0
  for _ in $(seq 100); do our_peer "$pid" || break; sleep 0.1; done
  if our_peer "$pid"; then
    kill "$pid" 2>/dev/null
    for _ in $(seq 100); do our_peer "$pid" || break; sleep 0.1; done
  fi
  if our_peer "$pid"; then
    kill -9 "$pid" 2>/dev/null
    for _ in $(seq 50); do our_peer "$pid" || break; sleep 0.1; done
  fi
  # Reaped only once gone (a zombie has no command line), so this never blocks.
  our_peer "$pid" || wait "$pid" 2>/dev/null || true
}

free_port() { timeout 10 python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# wait_port PORT: until something listens on it (at most 15 s).
wait_port() {
  local i
  for i in $(seq 150); do
    timeout 5 python3 -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1',$1)))" && return 0
    sleep 0.1
  done
  echo "nothing listens on port $1" >&2; exit 1
}

cleanup() {
  local mnt pid hook
  set +e
  for mnt in "${peer_mounts[@]}"; do lazy_unmount "$mnt"; done
  for pid in "${peer_pids[@]}"; do our_peer "$pid" && kill "$pid" 2>/dev/null; done
  sleep 0.5
  for pid in "${peer_pids[@]}"; do our_peer "$pid" && kill -9 "$pid" 2>/dev/null; done
  for mnt in "${mounts[@]}"; do unmount_fs "$mnt"; done
  for pid in "${daemons[@]}"; do our_daemon "$pid" && kill -9 "$pid" 2>/dev/null; done
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
  for mnt in "${mounts[@]}"; do is_mounted "$mnt" && timeout 10 fusermount3 -uz "$mnt" 2>/dev/null; done
  for hook in "${cleanup_hooks[@]}"; do "$hook"; done
  [ -n "$work" ] && rm -rf "$work"
}

# --- the disk --------------------------------------------------------------------

# The disk under the work dir, as /proc/diskstats names it (vda, nvme0n1p2).
disk_name() { basename "$(readlink -f "$(df --output=source "$work" | tail -1)")"; }

# settle_disk: flushes (sync) and waits until the discard count of the disk
# under the work dir has not moved for half a second (at most 30 s). A
# filesystem mounted with `discard` trims what a delete freed: on this VM's
# ext4 (no journal) inside the `rm` itself (2 GiB: 3 s), on a journalled one
# at the next commit, behind the next writer's back. Called after every
# delete that precedes a timed write, so that no tool pays for the one
# before. Other requests in flight are not waited for: on a shared machine
# someone always writes.
settle_disk() {
  local dev last="" now_ deadline
  dev=$(disk_name)
  timeout 120 sync || true
  deadline=$(($(date +%s) + 30))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    # Field 12 after the name: discards completed.
    now_=$(awk -v d="$dev" '$3 == d { print $15 }' /proc/diskstats)
    [ "$now_" = "$last" ] && return 0
    last=$now_
    sleep 0.5
  done
  echo "note: the disk $dev was still discarding after 30 s" >&2
}

# --- numbers -----------------------------------------------------------------------

now() { date +%s.%N; }
# calc EXPR: floating point with awk, 3 decimals.
calc() { awk "BEGIN { printf \"%.3f\", $* }"; }
# median of the arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# smallest of the arguments (a best round).
least() { printf '%s\n' "$@" | sort -g | head -1; }
ticks=$(getconf CLK_TCK)
cpu_of() { awk -v t="$ticks" '{ sub(/^.*\) /, ""); printf "%.2f", ($12 + $13) / t }' "/proc/$1/stat"; }
# machine_cpu: seconds every CPU of the machine has been busy (user, nice,
# system, irq, softirq, steal; not idle or iowait): around a run, what the
# whole machine spent on it — kernel writeback threads and the server
# included, which a process's own CPU time leaves out.
machine_cpu() { awk -v t="$ticks" '/^cpu / { printf "%.2f", ($2 + $3 + $4 + $7 + $8 + $9) / t }' /proc/stat; }
rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
hwm_kib() { awk '/^VmHWM/ { print $2 }' "/proc/$1/status"; }
mib_of_kib() { calc "$1 / 1024"; }

# verdict NAME VALUE OP TARGET UNIT: records and prints one target line.
verdict() {
  local name=$1 value=$2 op=$3 target=$4 unit=${5:-} ok
  ok=$(awk -v v="$value" -v t="$target" -v op="$op" 'BEGIN { print ((op == "<=" && v <= t) || (op == "<" && v < t) || (op == ">=" && v >= t)) ? "met" : "NOT met" }')
  local line
  line=$(printf '%-44s %10s%s  (target %s %s%s)  %s' "$name" "$value" "$unit" "$op" "$target" "$unit" "$ok")
  echo "$line"
  summary+=("$line")
}

# failure NAME WHY: records and prints a target that could not be measured.
failure() {
  local line
  line=$(printf '%-44s %10s   (%s)  NOT met' "$1" "-" "$2")
  echo "$line"
  summary+=("$line")
}

# note NAME VALUE [UNIT]: a figure shown beside the verdicts, not judged.
note() { printf '%-44s %10s%s\n' "($1)" "$2" "${3:-}"; }

# --- nginx -------------------------------------------------------------------------

# start_nginx: a private nginx on 127.0.0.1 serving $work/www; sets $port,
# $base and $nginx_pid. /logged/ and /split/ keep access logs (bytes sent per
# request), /t/ answers at once, /slow/ gives 64 KiB/s and /split/ 16 MiB/s
# per connection.
start_nginx() {
  mkdir -p "$work/www/many" "$work/www/logged" "$work/www/split" "$work/nginx/logs" "$work/nginx/tmp"
  chmod 755 "$work/www" "$work/www/many" "$work/www/logged" "$work/www/split"
  port=$(free_port)
  cat > "$work/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  keepalive_requests 100000;
  client_body_temp_path $work/nginx/tmp;
  proxy_temp_path $work/nginx/tmp;
  fastcgi_temp_path $work/nginx/tmp;
  uwsgi_temp_path $work/nginx/tmp;
  scgi_temp_path $work/nginx/tmp;
  log_format sent '\$uri \$status "\$http_range" \$body_bytes_sent';
  server {
    listen 127.0.0.1:$port;
    root $work/www;
    location /logged/ { access_log $work/nginx/logs/logged.log sent; }
    location /t/ { default_type text/plain; return 200 "ok\n"; }
    location /slow/ { alias $work/www/; limit_rate 64k; }
    location /split/ { access_log $work/nginx/logs/split.log sent; limit_rate 16m; autoindex on; }
  }
}
CONF
  nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" &
  nginx_pid=$!
  base="http://127.0.0.1:$port"
  for _ in $(seq 50); do timeout 5 curl -sf -o /dev/null "$base/t/ping" && break; sleep 0.1; done
  timeout 5 curl -sf -o /dev/null "$base/t/ping" || { echo "nginx did not start" >&2; exit 1; }
}

# bench_start: the work dir under /tmp, the cleanup trap and nginx.
bench_start() {
  work=$(mktemp -d /tmp/downloadfs-bench.XXXXXX)
  chmod 755 "$work"   # nginx workers (and the read part's user) are not root
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  start_nginx
}

# --- the big file ------------------------------------------------------------------

big_made=""
# make_big: SIZE_MIB of random bytes at $base/big.bin (once); sets $big_sha
# and $big_bytes.
make_big() {
  [ -n "$big_made" ] && return
  echo "creating a $size_mib MiB file..."
  head -c "$((size_mib * 1024 * 1024))" /dev/urandom > "$work/www/big.bin"
  chmod 644 "$work/www/big.bin"
  big_sha=$(sha256sum "$work/www/big.bin" | cut -d' ' -f1)
  big_bytes=$((size_mib * 1024 * 1024))
  big_made=1
}

# fetch_big MNT STATE URL [OPTION]: one download through a fresh mount (with
# OPTION, e.g. split=8, on an option line after the URL); sets
# $fetch_wall $fetch_cpu $fetch_machine_cpu $fetch_hwm_kib (and leaves it
# mounted).
fetch_big() {
  local mnt=$1 state=$2 url=$3 option=${4:-} before machine_before start result line=$3
  [ -z "$option" ] || line=$(printf '%s\n  %s' "$url" "$option")
  mount_fs "$mnt" "$state"
  before=$(cpu_of "$daemon_pid")
  machine_before=$(machine_cpu)
  start=$(now)
  if [ ${#run_as[@]} = 0 ]; then
    echo "$line" > "$mnt/queue/new"
  else
    # Another user's FUSE mount is closed to root (no allow_other).
    echo "$line" | timeout 60 "${run_as[@]}" tee "$mnt/queue/new" > /dev/null
  fi
  result=$(timeout 600 "${run_as[@]}" cat "$mnt/queue/1/wait") || true
  fetch_wall=$(calc "$(now) - $start")
  fetch_cpu=$(calc "$(cpu_of "$daemon_pid") - $before")
  fetch_machine_cpu=$(calc "$(machine_cpu) - $machine_before")
  fetch_hwm_kib=$(hwm_kib "$daemon_pid")
  [ "$result" = "completed" ] || { echo "downloadfs: ${result:-no answer}" >&2; exit 1; }
}
