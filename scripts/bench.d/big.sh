# shellcheck shell=bash
#   big     one SIZE_MIB file: downloadfs (from the write to queue/new until
#           queue/1/wait answers) against `curl -o`, `wget2 -O` and
#           `aria2c -x1`, N rounds (default 3) in rotating order, medians
#           compared. Targets: wall time no more than the faster of curl and
#           wget2, CPU time no more than curl's, daemon peak RSS < 50 MiB.
#           "split1" is downloadfs with `split=1`: the default split must be
#           no slower (>= 0.95, R18). With BENCH_BASELINE_BIN=PATH another
#           downloadfs build runs in the same rotation as "baseline".

part_big() {
  make_big
  echo; echo "== big: one $size_mib MiB file, $rounds rounds"
  local url="$base/big.bin" out="$work/out" tools=(downloadfs split1 curl) r i tool t
  have wget2 && tools+=(wget2)
  have aria2c && tools+=(aria2c)
  [ -n "${BENCH_BASELINE_BIN:-}" ] && tools+=(baseline)
  declare -A walls cpus
  local peak=0
  mkdir -p "$out"
  for ((r = 0; r < rounds; r++)); do
    for ((i = 0; i < ${#tools[@]}; i++)); do
      tool=${tools[$(((i + r) % ${#tools[@]}))]}
      rm -rf "$out"/* "$work/big-state" ; sync
      if [ "$tool" = baseline ]; then
        local ours=$bin
        bin=$BENCH_BASELINE_BIN
        fetch_big "$work/big-mnt" "$work/big-state" "$url"
        unmount_fs "$work/big-mnt"
        bin=$ours
        walls[$tool]+=" $fetch_wall"; cpus[$tool]+=" $fetch_cpu"
        continue
      fi
      if [ "$tool" = split1 ]; then
        # The default split (R18) against one connection.
        fetch_big "$work/big-mnt" "$work/big-state" "$url" split=1
        unmount_fs "$work/big-mnt"
        walls[$tool]+=" $fetch_wall"; cpus[$tool]+=" $fetch_cpu"
        continue
      fi
      if [ "$tool" = downloadfs ]; then
        fetch_big "$work/big-mnt" "$work/big-state" "$url"
        if [ "$r" = 0 ]; then
          [ "$(sha256sum < "$work/big-mnt/files/big.bin" | cut -d' ' -f1)" = "$big_sha" ] || { echo "downloadfs: sha-256 mismatch" >&2; exit 1; }
        fi
        unmount_fs "$work/big-mnt"
        walls[$tool]+=" $fetch_wall"; cpus[$tool]+=" $fetch_cpu"
        (( fetch_hwm_kib > peak )) && peak=$fetch_hwm_kib
        continue
      fi
      case $tool in
        curl) set -- curl -sf -o "$out/f" "$url" ;;
        wget2) set -- wget2 -q -O "$out/f" "$url" ;;
        aria2c) set -- aria2c -q -x1 -d "$out" -o f --allow-overwrite=true "$url" ;;
      esac
      /usr/bin/time -o "$work/time" -f "%e %U %S" timeout 600 "$@" >/dev/null 2>&1 || { echo "$tool failed" >&2; continue; }
      t=$(tail -1 "$work/time")
      walls[$tool]+=" $(echo "$t" | awk '{ print $1 }')"
      cpus[$tool]+=" $(echo "$t" | awk '{ printf "%.2f", $2 + $3 }')"
    done
  done
  rm -rf "$out" "$work/big-state"
  declare -A wall cpu
  printf '%-11s %9s %9s %9s   %s\n' tool "wall s" "MiB/s" "CPU s" "(medians; walls of each round)"
  for tool in "${tools[@]}"; do
    [ -n "${walls[$tool]:-}" ] || continue
    # shellcheck disable=SC2086
    wall[$tool]=$(median ${walls[$tool]}); cpu[$tool]=$(median ${cpus[$tool]})
    printf '%-11s %9.2f %9.1f %9.2f   %s\n' "$tool" "${wall[$tool]}" "$(calc "$size_mib / ${wall[$tool]}")" "${cpu[$tool]}" "${walls[$tool]# }"
  done
  local best=curl
  if [ -n "${wall[wget2]:-}" ] && awk "BEGIN { exit !(${wall[wget2]} < ${wall[curl]}) }"; then best=wget2; fi
  verdict "big: throughput downloadfs / $best" "$(calc "${wall[$best]} / ${wall[downloadfs]}")" ">=" 1.00
  verdict "big: CPU downloadfs / curl" "$(calc "${cpu[downloadfs]} / (${cpu[curl]} + 0.001)")" "<=" 1.00
  verdict "big: daemon peak RSS" "$(mib_of_kib "$peak")" "<" 50 " MiB"
  verdict "big: throughput default split / split=1" "$(calc "${wall[split1]} / ${wall[downloadfs]}")" ">=" 0.95
}

