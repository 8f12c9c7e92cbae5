#!/usr/bin/env bash
# Build (or reuse) the guest of the CXL test host (issue 36): a minimal Debian bookworm root
# filesystem with Debian's 6.1 kernel and its initramfs, numactl, ndctl/daxctl/cxl, and this
# host's own node binary. The project itself is NOT copied: boot.sh mounts it read-only over
# virtio-9p at the same path, so the guest runs exactly the checked-out tree (and its native
# NUMA addon, built for this node binary).
#
# Output, under $STRATA_CXL_CACHE (default <repo>/.strata/cxl-host, git-ignored):
#   rootfs/          the debootstrap tree (kept so the image can be regenerated quickly)
#   rootfs.ext4      the disk boot.sh boots (opened with snapshot=on: never modified by a run)
#   vmlinuz, initrd.img  the guest kernel and its initramfs (taken from the rootfs)
#   image.stamp      written last; present = the cache is complete and is reused as is
#
# Idempotent: with image.stamp present it does nothing (STRATA_CXL_REBUILD=1 forces a rebuild).
# Needs root, debootstrap and e2fsprogs (apt-get install debootstrap e2fsprogs).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${STRATA_CXL_CACHE:-$repo/.strata/cxl-host}"
mirror="${STRATA_CXL_MIRROR:-http://deb.debian.org/debian}"
suite=bookworm
rootfs="$cache/rootfs"
stamp="$cache/image.stamp"

if [[ -f "$stamp" && "${STRATA_CXL_REBUILD:-0}" != 1 ]]; then
  echo "make-image: cached image in $cache (built $(cat "$stamp")); STRATA_CXL_REBUILD=1 rebuilds it"
  exit 0
fi
[[ $(id -u) == 0 ]] || { echo "make-image: needs root (debootstrap, chroot)" >&2; exit 1; }
for tool in debootstrap mke2fs chroot; do
  command -v "$tool" >/dev/null || { echo "make-image: $tool missing (apt-get install debootstrap e2fsprogs)" >&2; exit 1; }
done
node_bin="$(command -v node)" || { echo "make-image: no node on this host to copy into the guest" >&2; exit 1; }

t0=$(date +%s)
mkdir -p "$cache"
rm -f "$stamp"

# 1. Root filesystem. minbase keeps it small; the packages are what the guest script uses:
#    numactl (numactl -H), ndctl (ships ndctl AND the cxl CLI in bookworm), daxctl, kmod
#    (modprobe), iproute2 (bring lo up for the server), curl + jq (query the REST API).
#    A half-finished tree from an interrupted run is thrown away, not trusted.
if [[ ! -f "$rootfs/.debootstrap-done" ]]; then
  rm -rf "$rootfs"
  debootstrap --variant=minbase \
    --include=numactl,ndctl,daxctl,kmod,iproute2,curl,jq,procps,ca-certificates \
    "$suite" "$rootfs" "$mirror"
  touch "$rootfs/.debootstrap-done"
fi

# 2. Kernel with its modules (the CXL drivers cxl_acpi/cxl_pci/cxl_mem/cxl_pmem/cxl_port, the
#    dax drivers and kmem are modules of Debian's kernel) and an initramfs that can mount the
#    virtio disk. Installed inside the rootfs so the modules match the kernel that boots.
if ! ls "$rootfs"/boot/vmlinuz-* >/dev/null 2>&1; then
  mount -t proc proc "$rootfs/proc"
  trap 'umount "$rootfs/proc" 2>/dev/null || true' EXIT
  chroot "$rootfs" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    linux-image-amd64 initramfs-tools
  chroot "$rootfs" apt-get clean
  umount "$rootfs/proc"
  trap - EXIT
fi

# 3. Node: this host's binary (dynamically linked against glibc; bookworm's matches), so the
#    project's native addon, built for it, loads in the guest.
install -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"

# 4. The guest's init: no systemd, just mount what the test needs, run the guest script from
#    the 9p-mounted project (so editing guest-run.sh needs no image rebuild), print its exit
#    status as a marker boot.sh parses, and power off.
cat >"$rootfs/sbin/strata-init" <<'EOF'
#!/bin/bash
# PID 1 of the CXL test guest (written by deploy/cxl-host/make-image.sh).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null || true
mount -t tmpfs tmp /tmp
mount -o remount,rw / 2>/dev/null || true
ip link set lo up
modprobe 9pnet_virtio; modprobe 9p
mkdir -p /work/main
status=1
# cache=loose: the guest keeps the project's files in its page cache; with the default
# (cache=none) every node start re-reads dist/ and node_modules over 9p.
if mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 strata /work/main; then
  script=$(sed -n 's/.*strata.guest=\([^ ]*\).*/\1/p' /proc/cmdline)
  bash "${script:-/work/main/deploy/cxl-host/guest-run.sh}"
  status=$?
else
  echo "strata-init: could not mount the project over 9p"
fi
echo "STRATA-GUEST-EXIT $status"
sync
echo o >/proc/sysrq-trigger   # power off (no init system to ask)
sleep 30
EOF
chmod 0755 "$rootfs/sbin/strata-init"
echo strata-cxl >"$rootfs/etc/hostname"

# 5. Disk image: ext4 filled straight from the tree (mke2fs -d: no loop mount needed).
cp -L "$rootfs"/boot/vmlinuz-* "$cache/vmlinuz"
cp -L "$rootfs"/boot/initrd.img-* "$cache/initrd.img"
rm -f "$cache/rootfs.ext4"
mke2fs -q -t ext4 -L strata-root -d "$rootfs" "$cache/rootfs.ext4" 3G

t1=$(date +%s)
echo "$(date -u +%FT%TZ) in $((t1 - t0)) s" >"$stamp"
echo "make-image: built $cache/rootfs.ext4 (+ vmlinuz, initrd.img) in $((t1 - t0)) s"
