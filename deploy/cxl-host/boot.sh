#!/usr/bin/env bash
# Boot the CXL test host (issue 36) and run the guest script in it; exit with its status.
#
# The machine (QEMU q35, cxl=on, hmat=on):
#   node 0   2 CPUs + 2 GiB DRAM
#   node 1   1 GiB, no CPUs, HMAT says slower than node 0 (latency 90 -> 280 ns, bandwidth
#            200 -> 32 GB/s): a plain memory-only node, as firmware would describe a CXL
#            expander it set up itself
#   CXL      a type-3 memory device on a cxl-rp root port behind a pxb-cxl host bridge, with a
#            4 GiB fixed memory window (CFMWS) on that bridge. QEMU >= 8 (bookworm-backports):
#            the volatile variant, a memory expander (volatile-memdev=); the guest script turns
#            it into a NUMA node (cxl create-region -t ram -> dax -> system-ram). QEMU 7.2
#            (bookworm): only the persistent-memory variant (memdev= + lsa=: region -> ndctl
#            devdax namespace -> system-ram), which loses what is written once onlined as RAM.
# The project is mounted read-only over virtio-9p at its own path, so the guest runs the
# checked-out tree. The root disk is opened with snapshot=on: runs never change the image.
#
# Usage: deploy/cxl-host/boot.sh [guest-script]   (default: deploy/cxl-host/guest-run.sh)
# Env:   STRATA_CXL_CACHE   image cache (default <repo>/.strata/cxl-host; make-image.sh fills it)
#        STRATA_CXL_ACCEL   tcg | kvm (default tcg; see below)
#        STRATA_CXL_TIMEOUT seconds before the guest is killed (default 1500)
#        STRATA_CXL_LOG     console log (default <cache>/run/console.log)
# The guest's serial console goes to stdout and to the log; the guest ends with a line
# "STRATA-GUEST-EXIT <status>" which is this script's exit status (2 if it never came).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${STRATA_CXL_CACHE:-$repo/.strata/cxl-host}"
run="$cache/run"
log="${STRATA_CXL_LOG:-$run/console.log}"
guest_script="${1:-$repo/deploy/cxl-host/guest-run.sh}"
case "$guest_script" in /*) ;; *) guest_script="$PWD/$guest_script" ;; esac
case "$guest_script" in "$repo"/*) ;; *) echo "boot: the guest script must be inside $repo (the guest sees only the project)" >&2; exit 1 ;; esac
# The guest mounts the project at /work/main whatever its path here.
guest_path="/work/main/${guest_script#"$repo"/}"

for f in rootfs.ext4 vmlinuz initrd.img image.stamp; do
  [[ -f "$cache/$f" ]] || { echo "boot: $cache/$f missing: run deploy/cxl-host/make-image.sh first" >&2; exit 1; }
done

# TCG by default: on the machine this was written on (itself a VM, nested KVM) a KVM guest
# hung in the kernel's first steps ("Probing EDD"), and under KVM QEMU 7.2 runs the CXL window
# as emulated MMIO, where instructions KVM cannot emulate (SIMD loads) stop the VM. TCG
# emulates every access, so it is slow but complete. STRATA_CXL_ACCEL=kvm to try KVM.
accel="${STRATA_CXL_ACCEL:-tcg}"
cpu=max
[[ "$accel" == kvm ]] && cpu=host

mkdir -p "$run"
# Backing files of the CXL device: its memory (512 MiB, one 256 MiB-granular region) and, for the
# persistent variant, its label storage area (ndctl writes the namespace labels there). Sparse;
# recreated every run so each boot starts from a blank device, as a new expander would.
rm -f "$run/cxl-mem0.raw" "$run/cxl-lsa0.raw"
truncate -s 512M "$run/cxl-mem0.raw"
qemu_major=$(qemu-system-x86_64 --version | sed -n 's/^QEMU emulator version \([0-9]*\)\..*/\1/p')
if (( ${qemu_major:-0} >= 8 )); then
  cxl_kind=ram
  # Committing a region makes Linux write back and invalidate CPU caches (WBINVD), which it
  # refuses to do under a hypervisor ("Failed to synchronize CPU cache state"). Without the
  # CPUID hypervisor bit the guest runs it; TCG emulates the instruction.
  [[ "$accel" == tcg ]] && cpu=max,hypervisor=off
  cxl_device=(-device cxl-type3,bus=cxl_rp0,volatile-memdev=cxl-mem0,id=cxl-vmem0)
else
  cxl_kind=pmem
  echo "boot: QEMU ${qemu_major:-?} has only the persistent-memory CXL device, which loses what is written once onlined" \
    "as RAM: the checks that store an index on the CXL node will fail. QEMU >= 8: apt-get install -t bookworm-backports qemu-system-x86" >&2
  truncate -s 256M "$run/cxl-lsa0.raw"
  cxl_device=(
    -object "memory-backend-file,id=cxl-lsa0,share=on,mem-path=$run/cxl-lsa0.raw,size=256M"
    -device cxl-type3,bus=cxl_rp0,memdev=cxl-mem0,lsa=cxl-lsa0,id=cxl-pmem0
  )
fi

qemu=(
  qemu-system-x86_64
  -machine q35,cxl=on,hmat=on -accel "$accel" -cpu "$cpu"
  -smp 2,sockets=1,cores=2 -m 3G,slots=4,maxmem=8G
  # NUMA: node 0 has the CPUs; node 1 is memory only, its HMAT initiator is node 0.
  -object memory-backend-ram,id=m0,size=2G
  -object memory-backend-ram,id=m1,size=1G
  -numa node,nodeid=0,cpus=0-1,memdev=m0
  -numa node,nodeid=1,memdev=m1,initiator=0
  -numa dist,src=0,dst=1,val=20
  # HMAT: node 1 slower than node 0 (numbers of docs/cxl-emulation.md's cost model).
  -numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-latency,latency=90
  -numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-bandwidth,bandwidth=200G
  -numa hmat-lb,initiator=0,target=1,hierarchy=memory,data-type=access-latency,latency=280
  -numa hmat-lb,initiator=0,target=1,hierarchy=memory,data-type=access-bandwidth,bandwidth=32G
  # CXL: host bridge -> root port -> type-3 device, and a fixed memory window on the bridge.
  -object "memory-backend-file,id=cxl-mem0,share=on,mem-path=$run/cxl-mem0.raw,size=512M"
  -device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1
  -device cxl-rp,port=0,bus=cxl.1,id=cxl_rp0,chassis=0,slot=2
  "${cxl_device[@]}"
  -M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G
  # Disk (never written: snapshot=on), the project over 9p, serial console on stdio. Their
  # bus is named: left to QEMU, a device lands on the pxb-cxl bus, which takes only bridges.
  -drive "file=$cache/rootfs.ext4,if=none,id=root,format=raw,snapshot=on"
  -device virtio-blk-pci,drive=root,bus=pcie.0
  -fsdev "local,id=strata,path=$repo,security_model=none,readonly=on"
  -device virtio-9p-pci,fsdev=strata,mount_tag=strata,bus=pcie.0
  -nic none
  -kernel "$cache/vmlinuz" -initrd "$cache/initrd.img"
  -append "console=ttyS0 edd=off root=/dev/vda rw init=/sbin/strata-init panic=-1 loglevel=4 systemd.show_status=error strata.guest=$guest_path strata.cxl=$cxl_kind"
  -display none -serial stdio -monitor none -no-reboot
)

echo "boot: QEMU $qemu_major, CXL device: $cxl_kind, accel=$accel, console log $log"
t0=$(date +%s)
set +e
timeout "${STRATA_CXL_TIMEOUT:-1500}" "${qemu[@]}" </dev/null 2>&1 | tee "$log"
qemu_status=${PIPESTATUS[0]}
set -e
t1=$(date +%s)

status=$(sed -n 's/.*STRATA-GUEST-EXIT \([0-9]\+\).*/\1/p' "$log" | tail -1 | tr -d '\r')
echo "boot: qemu exited $qemu_status after $((t1 - t0)) s (boot + guest script, accel=$accel)"
if [[ -z "$status" ]]; then
  echo "boot: the guest never printed STRATA-GUEST-EXIT (timeout or crash): see $log" >&2
  exit 2
fi
echo "boot: guest script exited $status"
exit "$status"
