#!/bin/bash
# Runs INSIDE the CXL test guest (started by its strata-guest.service, see make-image.sh and boot.sh).
# Shows the real kernel's view of the memory (numactl -H, HMAT attributes, cxl list), turns the
# CXL type-3 device into a NUMA node (cxl-online.sh: region -> dax -> system RAM), and runs Strata
# on it: `strata tiers`, a built index served with --memory emulate / numa, the per-tier binding
# GET /collections/{c} reports (verified page by page with move_pages), and the wrong-node cases.
#
# Order: kernel view and CXL onlining first (native tools, seconds), then strata, whose every
# start costs 20-100 s under TCG: tiers, build, a bind diagnostic, then one server per case.
# Exit status: the number of failed "CHECK" lines (0: all held). Steps print
# "== step" headers and "CHECK ok|FAIL ..." lines so the console log reads as a report.
set -uo pipefail   # no -e: every step runs and reports, failures are counted
repo=/work/main
strata() { node "$repo/bin/strata.js" "$@"; }
fails=0
check() { # check <description> <command...>: run, report, count a failure
  local what="$1"; shift
  if "$@"; then echo "CHECK ok   $what"; else echo "CHECK FAIL $what"; fails=$((fails + 1)); fi
}
step() { echo; echo "== $* ($(($(date +%s) - t_start)) s)"; }
t_start=$(date +%s)
echo "guest: kernel $(uname -r), uptime $(cut -d' ' -f1 /proc/uptime) s at guest script start"

. "$repo/deploy/cxl-host/cxl-online.sh"
step "modules"
cxl_modules
lsmod | grep -E '^(cxl|dax|kmem|nd_|libnvdimm|device_dax)' || true

step "topology before the CXL region"
numactl -H
for n in /sys/devices/system/node/node*; do
  a="$n/access0/initiators"
  [[ -d "$a" ]] && echo "$(basename "$n") HMAT access0: read_latency=$(cat "$a/read_latency") ns write_latency=$(cat "$a/write_latency") ns read_bandwidth=$(cat "$a/read_bandwidth") MB/s write_bandwidth=$(cat "$a/write_bandwidth") MB/s"
done
ls /sys/bus/cxl/devices 2>&1
echo "-- cxl list -M -P -D -T (memdevs, ports, decoders, targets)"
cxl list -M -P -D -T -u 2>&1

step "CXL ($cxl_kind device): region -> dax -> system RAM"
check "CXL region onlined as a NUMA node" cxl_online
echo "-- cxl list (after)"; cxl list -M -R -D -u 2>&1
echo "-- ndctl list -N / daxctl list"; ndctl list -N -u 2>&1; daxctl list 2>&1
numactl -H

# Guest CPU time is the budget here (TCG: every node start costs a minute or more), so strata
# runs after the CXL node is up, once per case, and the HMAT node is exercised with
# --cxl-node 1 in the same boot.

step "sysfs as the real kernel lays it out (what strata's detection reads)"
for n in /sys/devices/system/node/node*; do
  a="$n/access0/initiators"
  [[ -d "$a" ]] && echo "$(basename "$n") HMAT access0: read_latency=$(cat "$a/read_latency") read_bandwidth=$(cat "$a/read_bandwidth")" \
    || echo "$(basename "$n"): no HMAT access0"
done
for t in /sys/devices/virtual/memory_tiering/memory_tier*; do echo "$(basename "$t"): nodes $(cat "$t/nodelist" 2>/dev/null)"; done
r=/sys/bus/cxl/devices/region0
echo "-- ls $r"; ls "$r" 2>&1
for f in mode size resource commit interleave_ways target0; do printf '%s/%s = ' "$r" "$f"; cat "$r/$f" 2>&1 || true; done
echo "-- where region0's dax device is: find -L-free walk of the device tree"
echo "readlink -f $r = $(readlink -f "$r")"
find "$(readlink -f "$r")" -maxdepth 4 \( -name 'dax*' -o -name 'region*' -o -name 'pmem_region*' -o -name 'ndbus*' -o -name 'namespace*' \) 2>/dev/null | head -30
echo "readlink -f /sys/bus/dax/devices/dax0.0 = $(readlink -f /sys/bus/dax/devices/dax0.0 2>&1)"
echo "dax0.0 target_node = $(cat /sys/bus/dax/devices/dax0.0/target_node 2>&1)"

step "strata tiers (HMAT node 1, CXL node ${cxl_node:-none})"
strata tiers
strata tiers --json >/tmp/tiers.json
cat /tmp/tiers.json
echo
# Issue 36, point 1: the CXL region's node is identified as CXL and planned as the CXL tier.
check "strata tiers --json plans the CXL tier on the CXL node (${cxl_node:-none})" \
  test "$(jq -r '.plan.cxlNode' /tmp/tiers.json)" = "${cxl_node:-none}"
count="${STRATA_CXL_COUNT:-2000}"
step "build an index (embedding, $count x 100, cosine, 10% DRAM)"
strata generate --out-dir /tmp/emb --kind embedding --count "$count" --dim 100 --queries 100 >/tmp/generate.log 2>&1 || { cat /tmp/generate.log; }
tail -2 /tmp/generate.log
check "strata build" strata build /tmp/emb/base.fvecs --out /tmp/emb.idx --metric cosine --dram-budget 10%

# serve_case <label> <expect: ok|fail|any> <serve options...>; with $want_cxl_node set, "ok" also
# needs the CXL tier bound, every page, to that node (probe.mjs).
# Starts the server, waits for it, probes the collection (binding + 20 searches), stops it.
serve_case() {
  local label="$1" expect="$2"; shift 2
  step "serve $label: strata serve $*"
  local out="/tmp/serve-$label.log"
  # node itself in the background (not the strata() function: killing a function's subshell
  # would leave the server running and holding the port for the next case).
  node "$repo/bin/strata.js" serve /tmp/emb.idx --name emb --port 6333 --no-grpc --no-qdrant-grpc --log-level warn "$@" >"$out" 2>&1 &
  local pid=$! up=0
  if curl -sf localhost:6333/collections/emb >/dev/null 2>&1; then echo "port 6333 still served by a previous case"; fi
  for _ in $(seq 1 600); do   # TCG: a start takes minutes
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    if curl -sf localhost:6333/collections/emb >/dev/null 2>&1; then up=1; break; fi
    sleep 0.5
  done
  if [[ $up == 1 ]]; then
    node "$repo/deploy/cxl-host/probe.mjs" http://127.0.0.1:6333 emb /tmp/emb/query.fvecs 20 "/tmp/answers-$label.json" ${want_cxl_node:+"$want_cxl_node"}
    local probe=$?
    kill "$pid"; wait "$pid" 2>/dev/null
    echo "-- server log:"; tail -n 20 "$out"
    case $expect in
      ok) check "$label: served, every numa-bound page on its node" test "$probe" = 0 ;;
      fail) check "$label: expected a refusal, got a server (its status above says why)" false ;;
    esac
  else
    wait "$pid"; local st=$?
    echo "-- server exited $st without serving; its output:"; cat "$out"
    case $expect in
      ok) check "$label: server came up" false ;;
      fail) check "$label: refused with a non-zero exit ($st)" test "$st" != 0 ;;
    esac
  fi
}
same_answers() { cmp -s "/tmp/answers-$1.json" "/tmp/answers-$2.json"; }

step "bind diagnostic: a fresh tier region, bound to node 1 and node ${cxl_node:-2} with each mbind flag set"
node "$repo/deploy/cxl-host/bind-diag.mjs" 1
node "$repo/deploy/cxl-host/bind-diag.mjs" "${cxl_node:-2}"

step "memory check: does memory bound to each node keep what is written to it"
check "node 1 keeps written data" node "$repo/deploy/cxl-host/mem-check.mjs" 1
check "node ${cxl_node:-2} (CXL) keeps written data" node "$repo/deploy/cxl-host/mem-check.mjs" "${cxl_node:-2}"

# --memory numa takes both nodes explicitly (without them strata refuses: "numa mode needs both
# a DRAM node and a CXL node").
want_cxl_node="${cxl_node:-2}" serve_case numa-node2 ok --memory numa --dram-node 0 --cxl-node "${cxl_node:-2}"  # the CXL region's node
want_cxl_node=1 serve_case numa-node1 ok --memory numa --dram-node 0 --cxl-node 1                 # the HMAT memory-only node
serve_case numa-node9 fail --memory numa --dram-node 0 --cxl-node 9               # no such node
serve_case numa-node0 any --memory numa --dram-node 0 --cxl-node 0                # the DRAM node itself
serve_case emulate ok --memory emulate
want_cxl_node="${cxl_node:-2}" serve_case auto ok --memory auto                   # detection picks the CXL node
check "answers on CXL node == emulated answers" same_answers numa-node2 emulate
check "answers on HMAT node 1 == emulated answers" same_answers numa-node1 emulate
check "answers with both tiers on node 0 == emulated answers" same_answers numa-node0 emulate
check "answers with --memory auto == emulated answers" same_answers auto emulate

# The unit as deploy/systemd/strata.service ships it, installed as its comments say: the project
# in /opt/strata, the index under /var/lib/strata/indexes, the key in /etc/strata/env, a strata
# user. Its --memory auto must bind the CXL tier to the CXL node.
systemd_unit() {
  local key=guest-key name probe=1 up=0
  useradd --system --no-create-home --shell /usr/sbin/nologin strata 2>/dev/null || true
  ln -sfn "$repo" /opt/strata
  mkdir -p /var/lib/strata/indexes /etc/strata
  rm -rf /var/lib/strata/indexes/main && cp -r /tmp/emb.idx /var/lib/strata/indexes/main
  printf 'STRATA_API_KEY=%s\n' "$key" >/etc/strata/env && chmod 0600 /etc/strata/env
  cp "$repo/deploy/systemd/strata.service" /etc/systemd/system/strata.service
  systemctl daemon-reload
  systemctl start strata || return 1
  for _ in $(seq 1 600); do
    systemctl -q is-active strata || break
    curl -sf -H "api-key: $key" localhost:6333/readyz >/dev/null 2>&1 && { up=1; break; }
    sleep 0.5
  done
  systemctl status --no-pager strata | head -12
  if [[ $up == 1 ]]; then
    echo "-- without the key: HTTP $(curl -s -o /dev/null -w '%{http_code}' localhost:6333/collections)"
    name=$(curl -s -H "api-key: $key" localhost:6333/collections | jq -r '.result.collections[0].name')
    STRATA_API_KEY=$key node "$repo/deploy/cxl-host/probe.mjs" http://127.0.0.1:6333 "$name" /tmp/emb/query.fvecs 20 /tmp/answers-systemd.json "${cxl_node:-2}"
    probe=$?
  fi
  systemctl stop strata
  echo "-- journal:"; journalctl -u strata --no-pager | tail -n 8
  echo "-- after systemctl stop: Result=$(systemctl show -p Result --value strata) ExecMainStatus=$(systemctl show -p ExecMainStatus --value strata)"
  [[ $up == 1 && $probe == 0 && $(systemctl show -p Result --value strata) == success ]]
}
step "the systemd unit: systemctl start strata (deploy/systemd/strata.service)"
check "systemd unit: served with every CXL-tier page on node ${cxl_node:-2}, stopped cleanly" systemd_unit
check "answers from the systemd unit == emulated answers" same_answers systemd emulate

step "done: $fails failed checks"
exit "$fails"
