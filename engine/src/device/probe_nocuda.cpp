// The client-only build (TILELAB_CUDA=OFF) has no CUDA runtime: it never finds a GPU on this
// machine. Runs, and compiles, go to a GPU worker elsewhere (--gpu-host, --gpu-command).
#include "device/probe.h"
#include "tilelab/i18n.h"

namespace tilelab {

DeviceProbe probe_device(bool force_model_mode, int /*device*/) {
    DeviceProbe probe;
    probe.status.reason = force_model_mode
                              ? say("model mode requested", "按要求进入模型模式")
                              : say("this is a client-only build (no CUDA here): kernels compile and run on a GPU host "
                                    "(--gpu-host or --gpu-command)",
                                    "这是仅客户端的构建（本机没有 CUDA）：内核在 GPU 主机上编译和运行（--gpu-host 或 --gpu-command）");
    return probe;
}

}  // namespace tilelab
