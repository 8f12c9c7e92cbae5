#!/usr/bin/env bash
# Build (or reuse) the guest of the CXL test host (issue 36): a minimal Debian bookworm root
# filesystem with Debian's kernel (bookworm-backports' by default) and its initramfs, systemd,
# numactl, ndctl/daxctl/cxl, and this host's own node binary. The project itself is NOT copied:
# boot.sh mounts it read-only over virtio-9p at the same path, so the guest runs exactly the
# checked-out tree (and its native NUMA addon, built for this node binary).
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
#    (modprobe), iproute2 (bring lo up for the server), curl + jq (query the REST API), systemd
#    (PID 1, so that deploy/systemd/strata.service starts the server as documented).
#    A half-finished tree from an interrupted run is thrown away, not trusted.
if [[ ! -f "$rootfs/.debootstrap-done" ]]; then
  rm -rf "$rootfs"
  debootstrap --variant=minbase \
    --include=numactl,ndctl,daxctl,kmod,iproute2,curl,jq,procps,ca-certificates,systemd \
    "$suite" "$rootfs" "$mirror"
  touch "$rootfs/.debootstrap-done"
fi

# A tree made before systemd was in the list gets it now.
if [[ ! -x "$rootfs/lib/systemd/systemd" ]]; then
  chroot "$rootfs" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends systemd
  chroot "$rootfs" apt-get clean
fi

# 2. Kernel with its modules (the CXL drivers cxl_acpi/cxl_pci/cxl_mem/cxl_port, the dax drivers
#    and kmem are modules of Debian's kernel) and an initramfs that can mount the virtio disk.
#    Installed inside the rootfs so the modules match the kernel that boots. The kernel comes from
#    bookworm-backports (6.12): volatile CXL regions, what a memory expander is, need Linux >= 6.3;
#    STRATA_CXL_KERNEL_SUITE=bookworm takes bookworm's 6.1 (persistent-memory regions only).
kernel_suite="${STRATA_CXL_KERNEL_SUITE:-bookworm-backports}"
if [[ ! -f "$rootfs/.kernel-$kernel_suite" ]]; then
  mount -t proc proc "$rootfs/proc"
  trap 'umount "$rootfs/proc" 2>/dev/null || true' EXIT
  if [[ $kernel_suite != "$suite" ]]; then
    echo "deb $mirror $kernel_suite main" >"$rootfs/etc/apt/sources.list.d/$kernel_suite.list"
    chroot "$rootfs" apt-get update
  fi
  chroot "$rootfs" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    -t "$kernel_suite" linux-image-amd64 initramfs-tools
  chroot "$rootfs" apt-get clean
  umount "$rootfs/proc"
  trap - EXIT
  rm -f "$rootfs"/.kernel-*
  touch "$rootfs/.kernel-$kernel_suite"
fi
kernel_version=$(chroot "$rootfs" dpkg-query -W -f '${Depends}' linux-image-amd64 | sed -n 's/^linux-image-\([^ ,]*\).*/\1/p')
[[ -f "$rootfs/boot/vmlinuz-$kernel_version" ]] || { echo "make-image: no kernel $kernel_version in the rootfs" >&2; exit 1; }

# 3. Node: this host's binary (dynamically linked against glibc; bookworm's matches), so the
#    project's native addon, built for it, loads in the guest. /usr/bin/node is where the
#    systemd unit runs it from.
install -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
ln -sf /usr/local/bin/node "$rootfs/usr/bin/node"

# 4. The guest's boot: strata-init (PID 1 first) mounts the project over 9p, then becomes systemd,
#    which runs strata-guest.service: the guest script from the 9p-mounted project (so editing it
#    needs no image rebuild), its exit status printed as a marker boot.sh parses, then power off.
cat >"$rootfs/sbin/strata-init" <<'EOF'
#!/bin/bash
# PID 1 of the CXL test guest until it execs systemd (written by deploy/cxl-host/make-image.sh).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null || true
mount -o remount,rw / 2>/dev/null || true
modprobe 9pnet_virtio; modprobe 9p
mkdir -p /work/main
# cache=loose: the guest keeps the project's files in its page cache; with the default
# (cache=none) every node start re-reads dist/ and node_modules over 9p.
if ! mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 strata /work/main; then
  echo "strata-init: could not mount the project over 9p"
  echo "STRATA-GUEST-EXIT 1"
  echo o >/proc/sysrq-trigger
  sleep 30
fi
exec /lib/systemd/systemd
EOF
chmod 0755 "$rootfs/sbin/strata-init"
cat >"$rootfs/usr/local/bin/strata-guest" <<'EOF'
#!/bin/bash
# Runs the guest script named on the kernel command line (strata.guest=) and prints its status.
script=$(sed -n 's/.*strata.guest=\([^ ]*\).*/\1/p' /proc/cmdline)
bash "${script:-/work/main/deploy/cxl-host/guest-run.sh}"
echo "STRATA-GUEST-EXIT $?"
EOF
chmod 0755 "$rootfs/usr/local/bin/strata-guest"
cat >"$rootfs/etc/systemd/system/strata-guest.service" <<'EOF'
[Unit]
Description=The CXL test guest script (deploy/cxl-host)
After=multi-user.target
[Service]
Type=oneshot
StandardOutput=tty
StandardError=inherit
TTYPath=/dev/ttyS0
TimeoutStartSec=infinity
ExecStart=/usr/local/bin/strata-guest
ExecStopPost=/bin/systemctl poweroff --no-block
[Install]
WantedBy=multi-user.target
EOF
mkdir -p "$rootfs/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/strata-guest.service "$rootfs/etc/systemd/system/multi-user.target.wants/strata-guest.service"
# The console belongs to the guest script: no login prompt on it.
ln -sf /dev/null "$rootfs/etc/systemd/system/serial-getty@ttyS0.service"
ln -sf /dev/null "$rootfs/etc/systemd/system/getty@tty1.service"
echo strata-cxl >"$rootfs/etc/hostname"

# 5. Disk image: ext4 filled straight from the tree (mke2fs -d: no loop mount needed).
cp -L "$rootfs/boot/vmlinuz-$kernel_version" "$cache/vmlinuz"
cp -L "$rootfs/boot/initrd.img-$kernel_version" "$cache/initrd.img"
rm -f "$cache/rootfs.ext4"
mke2fs -q -t ext4 -L strata-root -d "$rootfs" "$cache/rootfs.ext4" 3G

t1=$(date +%s)
echo "$(date -u +%FT%TZ) in $((t1 - t0)) s" >"$stamp"
echo "make-image: built $cache/rootfs.ext4 (+ vmlinuz, initrd.img) in $((t1 - t0)) s"
