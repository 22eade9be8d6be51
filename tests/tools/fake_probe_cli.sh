#!/bin/bash
# Stands in for tilelab-cli in the probe scripts' test (scripts/probe_dram_*.py): one validated,
# measured run as JSON, and the counter pass's values as TILELAB_HW_TRACE prints them.
echo '{"ok":true,"measured":true,"validation":{"passed":true},"kernel":"stream_read_bandwidth<4, 8>","median_ms":0.12,"spill_loads":0}'
echo "hw-value: dram__bytes_write.sum 3120000" >&2
echo "hw-value: dram__bytes_read.sum 134000000" >&2
echo "hw-value: lts__t_sectors_op_write.sum 77" >&2
