#!/bin/bash
# Short guest script (boot.sh deploy/cxl-host/thp-run.sh): the 2000 x 100 index served with its
# CXL tier on the HMAT node 1, with transparent huge pages always, then never: both must bind.
set -uo pipefail
repo=/work/main
node "$repo/bin/strata.js" generate --out-dir /tmp/emb --kind embedding --count 2000 --dim 100 --queries 20 >/dev/null 2>&1
node "$repo/bin/strata.js" build /tmp/emb/base.fvecs --out /tmp/emb.idx --metric cosine --dram-budget 10% >/dev/null 2>&1
echo "built: $?"
for thp in always never; do
  echo $thp > /sys/kernel/mm/transparent_hugepage/enabled; cat /sys/kernel/mm/transparent_hugepage/enabled
  echo "== serve --cxl-node 1, THP $thp"
  timeout 300 node "$repo/bin/strata.js" serve /tmp/emb.idx --name emb --port 6333 --no-grpc --no-qdrant-grpc --log-level warn \
    --memory numa --dram-node 0 --cxl-node 1 > /tmp/s.log 2>&1 &
  pid=$!
  for _ in $(seq 1 400); do kill -0 $pid 2>/dev/null || break; curl -sf localhost:6333/collections/emb >/dev/null 2>&1 && break; sleep 0.5; done
  curl -s localhost:6333/collections/emb | grep -o '"tiers":.*"placement"' | head -c 1200; echo
  kill $pid 2>/dev/null; wait $pid; echo "exit $?"; tail -3 /tmp/s.log
done
