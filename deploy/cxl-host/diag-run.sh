#!/bin/bash
# Short guest script (boot.sh deploy/cxl-host/diag-run.sh): CXL node up, small index, then
# load-diag.mjs: where each tier segment's pages are before strata binds them.
set -uo pipefail
repo=/work/main
for m in cxl_acpi cxl_pci cxl_port cxl_mem cxl_pmem libnvdimm nd_pmem dax_pmem device_dax kmem; do modprobe "$m"; done
sleep 2
cxl create-region -m -d decoder0.0 -t pmem -w 1 mem0 >/dev/null && ndctl create-namespace -m devdax -r region0 >/dev/null \
  && daxctl reconfigure-device --mode=system-ram dax0.0 >/dev/null && numactl -H
cat /sys/kernel/mm/transparent_hugepage/enabled
node "$repo/bin/strata.js" generate --out-dir /tmp/emb --kind embedding --count 2000 --dim 100 --queries 100 >/dev/null 2>&1
node "$repo/bin/strata.js" build /tmp/emb/base.fvecs --out /tmp/emb.idx --metric cosine --dram-budget 10% >/dev/null 2>&1
node "$repo/deploy/cxl-host/load-diag.mjs" /tmp/emb.idx 2
