#!/bin/bash
# Short guest script (boot.sh deploy/cxl-host/memcheck-run.sh): CXL node up, then mem-check.mjs
# on node 0, the HMAT node 1 and the CXL node 2.
set -uo pipefail
for m in cxl_acpi cxl_pci cxl_port cxl_mem cxl_pmem libnvdimm nd_pmem dax_pmem device_dax kmem; do modprobe "$m"; done
sleep 2
cxl create-region -m -d decoder0.0 -t pmem -w 1 mem0 >/dev/null && ndctl create-namespace -m devdax -r region0 >/dev/null \
  && daxctl reconfigure-device --mode=system-ram dax0.0 >/dev/null
for n in 0 1 2; do node /work/main/deploy/cxl-host/mem-check.mjs "$n"; done
