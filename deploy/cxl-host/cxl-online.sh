#!/bin/bash
# Sourced by the guest scripts: loads the CXL, dax and kmem drivers and turns the CXL type-3 device
# into a NUMA node, the way a CXL host does, then sets cxl_node. The device's kind comes from
# boot.sh on the kernel command line (strata.cxl=ram|pmem):
#   ram   a volatile expander (QEMU >= 8, Linux >= 6.3): cxl create-region -t ram, whose dax
#         device is then onlined as system RAM;
#   pmem  the persistent variant (QEMU 7.2): region -> ndctl devdax namespace -> system RAM.
# cxl_online prints each step and returns non-zero if the node did not come up.
cxl_kind=$(sed -n 's/.*strata\.cxl=\([a-z]*\).*/\1/p' /proc/cmdline)
cxl_kind=${cxl_kind:-pmem}
cxl_node=""

cxl_modules() {
  # No udev in the booted root: load the drivers by hand (some are built in on newer kernels).
  local m
  for m in cxl_acpi cxl_pci cxl_port cxl_mem cxl_pmem libnvdimm nd_pmem dax_pmem device_dax dax_cxl kmem; do
    modprobe "$m" 2>/dev/null || echo "modprobe $m: not available (built in, or not in this kernel)"
  done
  sleep 2 # let the CXL ports and memdevs probe
}

# A volatile region through the kernel's sysfs ABI (Documentation/ABI/testing/sysfs-bus-cxl):
# bookworm's cxl tool (ndctl 76) refuses "region type 'ram' not supported yet". The steps are what
# `cxl create-region -t ram` does: name a region under the root decoder, give it ways, granularity
# and size, give the device's endpoint decoder that much ram capacity, make it the region's
# target, commit the decoders and bind the region driver, which creates its dax region.
cxl_ram_region() {
  local mem="$1" root="$2" size="$3" bus=/sys/bus/cxl/devices region endpoint ep
  [[ -n "$size" && "$size" != 0 ]] || { echo "$mem has no ram capacity"; return 1; }
  region=$(cat "$bus/$root/create_ram_region") || return 1
  # The device's endpoint port is the one whose upstream port (uport) is the memdev.
  for endpoint in "$bus"/endpoint*; do
    [[ $(readlink -f "$endpoint/uport") == $(readlink -f "$bus/$mem") ]] && break
  done
  [[ -e "$endpoint/uport" ]] || { echo "no endpoint port for $mem"; ls "$bus"; return 1; }
  ep=$(basename "$(ls -d "$endpoint"/decoder*.0 | head -1)")
  echo "-- sysfs: $root/create_ram_region <- $region; $region: 1 way, size $size; $ep: ram, dpa_size $size; target0 <- $ep; commit"
  echo "$region" >"$bus/$root/create_ram_region" &&
    echo 1 >"$bus/$region/interleave_ways" &&
    cat "$bus/$root/interleave_granularity" >"$bus/$region/interleave_granularity" &&
    echo "$size" >"$bus/$region/size" &&
    echo ram >"$bus/$ep/mode" &&
    echo "$size" >"$bus/$ep/dpa_size" &&
    echo "$ep" >"$bus/$region/target0" &&
    echo 1 >"$bus/$region/commit" &&
    echo "$region" >/sys/bus/cxl/drivers/cxl_region/bind ||
    { echo "creating the ram region failed; the kernel says:"; dmesg | grep -i cxl | tail -15; return 1; }
}

cxl_online() {
  local mem decoder dax
  mem=$(cxl list -M | jq -r '.[0].memdev // empty')
  decoder=$(cxl list -D -d root | jq -r '.[0].decoder // empty')
  echo "CXL device kind: $cxl_kind; memdev=$mem root decoder=$decoder"
  [[ -n "$mem" && -n "$decoder" ]] || { echo "no CXL memdev or root decoder"; return 1; }
  local size
  size=$(cxl list -M -m "$mem" | jq -r ".[0].${cxl_kind}_size // empty")
  if [[ $cxl_kind == ram ]]; then
    cxl_ram_region "$mem" "$decoder" "$size" || return 1
  else
    echo "-- cxl create-region -m -d $decoder -t pmem -w 1 $mem"
    cxl create-region -m -d "$decoder" -t pmem -w 1 "$mem" || return 1
  fi
  cxl list -R -u
  if [[ $cxl_kind == pmem ]]; then
    local ndregion
    ndregion=$(ndctl list -R | jq -r '.[0].dev // empty')
    echo "nvdimm region: ${ndregion:-none}"
    [[ -n "$ndregion" ]] || return 1
    echo "-- ndctl create-namespace -m devdax -r $ndregion"
    ndctl create-namespace -m devdax -r "$ndregion" || return 1
  fi
  sleep 1
  dax=$(daxctl list | jq -r '.[0].chardev // empty')
  [[ -n "$dax" ]] || { echo "no dax device for the region"; daxctl list -R -D; return 1; }
  if [[ $(daxctl list -d "$dax" | jq -r '.[0].mode') != system-ram ]]; then
    echo "-- daxctl reconfigure-device --mode=system-ram $dax"
    daxctl reconfigure-device --mode=system-ram "$dax" || return 1
  else
    echo "$dax: already onlined as system RAM by the kernel"
  fi
  cxl_node=$(daxctl list -d "$dax" | jq -r '.[0].target_node // .[0].numa_node // empty')
  echo "dax device $dax onlined as system RAM on node ${cxl_node:-?}"
  [[ -n "$cxl_node" ]]
}
