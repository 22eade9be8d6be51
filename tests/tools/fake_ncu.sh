#!/bin/bash
# Stands in for Nsight Compute in the probe scripts' test: its --csv lines for one launch.
echo '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"'
echo '"0","k","dram__bytes_write.sum","byte","2380000"'
echo '"0","k","dram__bytes_read.sum","byte","134200000"'
echo '"0","k","lts__t_sectors_op_write.sum","sector","54"'
echo '"0","k","gpu__time_duration.sum","ns","120000"'
