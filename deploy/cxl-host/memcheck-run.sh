#!/bin/bash
# Short guest script (boot.sh deploy/cxl-host/memcheck-run.sh): CXL node up, then mem-check.mjs
# on node 0, the HMAT node 1 and the CXL node.
set -uo pipefail
. /work/main/deploy/cxl-host/cxl-online.sh
cxl_modules >/dev/null
cxl_online || exit 1
numactl -H
for n in 0 1 "$cxl_node"; do node /work/main/deploy/cxl-host/mem-check.mjs "$n"; done
