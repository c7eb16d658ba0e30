# shellcheck shell=bash
#   big     one SIZE_MIB file, durable at the end: downloadfs (from the write
#           to queue/new until queue/1/wait answers, which is after its
#           fdatasync) against the disk itself, `dd if=/dev/zero bs=4M
#           conv=fdatasync` of the same size, and against `curl -o`,
#           `wget2 -O` and `aria2c -x1`, each followed by `sync FILE` in its
#           timed wall (they make nothing durable by themselves; an fsync of
#           that file, not the whole machine's dirty data on a shared
#           machine), N rounds (default 3) in rotating order. Before every
#           run the previous output is deleted and the disk settled (sync,
#           then no new discard for 0.5 s: the filesystem is mounted with
#           `discard`), so every tool writes a new file into freed blocks
#           and none pays for another's delete. Targets (SPEC §9):
#           throughput >= 0.95 of dd's best round (the physical limit) and
#           >= the faster of curl+sync and wget2+sync (medians), CPU time no
#           more than curl's, daemon peak RSS < 50 MiB. Shown beside the
#           process's CPU: the machine's (every CPU's busy time during the
#           run: kernel writeback threads and nginx included, which a peer
#           leaves to the kernel's flusher and downloadfs does in its own
#           threads when it starts writeback early). "split1" is
#           downloadfs with `split=1`: the default split must be no slower
#           (>= 0.95, R18). Also shown: dd over its last round's file in
#           place (`conv=notrunc`: blocks the disk has already backed, which
#           no new file gets). With BENCH_BASELINE_BIN=PATH another
#           downloadfs build runs in the same rotation as "baseline".

# big_dd FILE: the disk's durable write of SIZE_MIB into FILE (extra dd
# words after FILE, e.g. conv=notrunc); 4 MiB blocks as SPEC §9 says, 1 MiB
# if the size is no multiple of 4.
big_dd() {
  local file=$1 bs=4M count=$((size_mib / 4)) conv=fdatasync; shift
  [ $((size_mib % 4)) = 0 ] || { bs=1M; count=$size_mib; }
  [ $# = 0 ] || conv+=",$1"
  dd if=/dev/zero of="$file" bs="$bs" count="$count" conv="$conv" status=none
}

# big_timed FILE COMMAND...: runs COMMAND, then `sync FILE` (dd syncs by
# itself), under /usr/bin/time; prints "WALL CPU MACHINE-CPU" or fails.
big_timed() {
  local file=$1 before; shift
  before=$(machine_cpu)
  /usr/bin/time -o "$work/time" -f "%e %U %S" timeout 600 bash -c \
    '"${@:2}" >/dev/null 2>&1 && { [ "$2" = big_dd ] || timeout 120 sync "$1"; }' _ "$file" "$@" || return 1
  tail -1 "$work/time" | awk -v m="$(calc "$(machine_cpu) - $before")" '{ printf "%s %.2f %s\n", $1, $2 + $3, m }'
}

# big_ours TOOL: one downloadfs download (our build, split1 or baseline);
# adds to walls and cpus (the caller's, by dynamic scope).
big_ours() {
  local tool=$1 ours=$bin option=""
  [ "$tool" = baseline ] && bin=$BENCH_BASELINE_BIN
  [ "$tool" = split1 ] && option=split=1
  fetch_big "$work/big-mnt" "$work/big-state" "$base/big.bin" ${option:+"$option"}
  if [ "$tool" = downloadfs ] && [ "$r" = 0 ]; then
    [ "$(timeout 300 sha256sum < "$work/big-mnt/files/big.bin" | cut -d' ' -f1)" = "$big_sha" ] || { echo "downloadfs: sha-256 mismatch" >&2; exit 1; }
  fi
  unmount_fs "$work/big-mnt"
  bin=$ours
  walls[$tool]+=" $fetch_wall"; cpus[$tool]+=" $fetch_cpu"; machines[$tool]+=" $fetch_machine_cpu"
  [ "$tool" = downloadfs ] && (( fetch_hwm_kib > peak )) && peak=$fetch_hwm_kib
  return 0
}

part_big() {
  make_big
  echo; echo "== big: one $size_mib MiB file, durable at the end, $rounds rounds"
  local url="$base/big.bin" out="$work/out" tools=(downloadfs split1 dd curl) r i tool t t_wall t_cpu t_machine
  have wget2 && tools+=(wget2)
  have aria2c && tools+=(aria2c)
  [ -n "${BENCH_BASELINE_BIN:-}" ] && tools+=(baseline)
  declare -A walls cpus machines
  local peak=0 inplace=-
  mkdir -p "$out"
  export -f big_dd; export size_mib
  for ((r = 0; r < rounds; r++)); do
    for ((i = 0; i < ${#tools[@]}; i++)); do
      tool=${tools[$(((i + r) % ${#tools[@]}))]}
      # The last run's output goes first, outside any timed wall.
      rm -rf "$out"/* "$work/big-state"
      settle_disk
      case $tool in
        downloadfs|split1|baseline) big_ours "$tool"; continue ;;
        dd) set -- big_dd "$out/f" ;;
        curl) set -- curl -sf -o "$out/f" "$url" ;;
        wget2) set -- wget2 -q -O "$out/f" "$url" ;;
        aria2c) set -- aria2c -q -x1 -d "$out" -o f --allow-overwrite=true "$url" ;;
      esac
      t=$(big_timed "$out/f" "$@") || { echo "$tool failed" >&2; continue; }
      read -r t_wall t_cpu t_machine <<< "$t"
      walls[$tool]+=" $t_wall"; cpus[$tool]+=" $t_cpu"; machines[$tool]+=" $t_machine"
      # The disk where the host has backed the blocks already: dd's last
      # file overwritten in place (shown only; a download always writes a
      # new file).
      if [ "$tool" = dd ] && [ "$r" = $((rounds - 1)) ] && t=$(big_timed "$out/f" big_dd "$out/f" notrunc); then
        inplace=${t%% *}
      fi
    done
  done
  rm -rf "$out" "$work/big-state"
  settle_disk
  declare -A wall cpu machine
  printf '%-11s %9s %9s %9s %9s   %s\n' tool "wall s" "MiB/s" "CPU s" "machine s" "(medians, peers + sync FILE; walls of each round)"
  for tool in "${tools[@]}"; do
    [ -n "${walls[$tool]:-}" ] || continue
    # shellcheck disable=SC2086
    wall[$tool]=$(median ${walls[$tool]}); cpu[$tool]=$(median ${cpus[$tool]}); machine[$tool]=$(median ${machines[$tool]})
    printf '%-11s %9.2f %9.1f %9.2f %9.2f   %s\n' "$tool" "${wall[$tool]}" "$(calc "$size_mib / ${wall[$tool]}")" "${cpu[$tool]}" "${machine[$tool]}" "${walls[$tool]# }"
  done
  local dd_best=-
  # shellcheck disable=SC2086
  [ -n "${walls[dd]:-}" ] && dd_best=$(least ${walls[dd]})
  [ "$dd_best" = - ] || printf '%-11s %9.2f %9.1f   (best round: the physical limit)\n' "dd best" "$dd_best" "$(calc "$size_mib / $dd_best")"
  [ "$inplace" = - ] || printf '%-11s %9.2f %9.1f   (conv=notrunc over the last file, once)\n' "dd in place" "$inplace" "$(calc "$size_mib / $inplace")"
  local best=curl
  if [ -n "${wall[wget2]:-}" ] && awk "BEGIN { exit !(${wall[wget2]} < ${wall[curl]}) }"; then best=wget2; fi
  if [ "$dd_best" != - ]; then
    verdict "big: throughput downloadfs / dd best" "$(calc "$dd_best / ${wall[downloadfs]}")" ">=" 0.95
  else
    failure "big: throughput downloadfs / dd best" "dd failed"
  fi
  verdict "big: throughput downloadfs / $best+sync" "$(calc "${wall[$best]} / ${wall[downloadfs]}")" ">=" 1.00
  verdict "big: CPU downloadfs / curl" "$(calc "${cpu[downloadfs]} / (${cpu[curl]} + 0.001)")" "<=" 1.00
  note "machine CPU downloadfs / curl+sync" "$(calc "${machine[downloadfs]} / (${machine[curl]} + 0.001)")"
  verdict "big: daemon peak RSS" "$(mib_of_kib "$peak")" "<" 50 " MiB"
  verdict "big: throughput default split / split=1" "$(calc "${wall[split1]} / ${wall[downloadfs]}")" ">=" 0.95
  [ -n "${wall[aria2c]:-}" ] && note "downloadfs / aria2c+sync" "$(calc "${wall[aria2c]} / ${wall[downloadfs]}")"
  [ "$dd_best" != - ] && note "curl+sync / dd best" "$(calc "$dd_best / ${wall[curl]}")"
  return 0
}
