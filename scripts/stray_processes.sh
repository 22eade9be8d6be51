# Sourced by the GPU machine's scripts (gpu_check.sh, gpu_gui_check.sh), not run.
# `timeout` stops the process it started, not the GPU workers and CLIs that process started; left
# running, they keep the GPU busy under the next step's measurements.
# stop_tilelab_processes: stops every TileLab process on this machine (by process name, never a
# shell; the GPU machine is a scratch one) and prints how many there were (0: none).
# TILELAB_LEAVE_PROCESSES=1 stops nothing: two checks sharing one machine, one GPU each
# (CUDA_VISIBLE_DEVICES), would stop each other's workers.
stop_tilelab_processes() {
  if [ "${TILELAB_LEAVE_PROCESSES:-0}" = 1 ]; then echo 0; return; fi
  local pids
  pids=$(pgrep -x 'tilelab-gpu-wor.*|tilelab_tests|tilelab-cli|fake_gpu_worker|tilelab' 2>/dev/null | tr '\n' ' ')
  if [ -n "${pids// }" ]; then
    kill -TERM $pids 2>/dev/null; sleep 2; kill -KILL $pids 2>/dev/null
  fi
  wc -w <<<"$pids"
}
