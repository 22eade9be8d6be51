# Sourced by the GPU machine's app checks (gpu_gui_check.sh, gpu_tune_gui_check.sh): unpacks the
# runtime packages of DEBS (shared/scripts/gl-debs.sh's output plus DEBS/extra, see
# gpu_gui_check.sh) and sets the environment the app needs there. GL/EGL loaders go onto /, the
# app's other libraries and fonts into a private root (never onto /).
# Usage: gui_runtime_setup DEBS
gui_runtime_setup() {
  local debs=$1 f
  for f in "$debs"/gl/*.deb; do dpkg -x "$f" /; done; ldconfig
  mkdir -p /tmp/tlroot; for f in "$debs"/extra/*.deb; do dpkg -x "$f" /tmp/tlroot; done
  export LD_LIBRARY_PATH=/tmp/tlroot/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  # One folder for the fonts: DejaVu and, where DEBS/extra has fonts-wqy-microhei, the CJK font
  # the Chinese screenshots need (the app looks in TILELAB_FONT_DIR by file name, one folder).
  mkdir -p /tmp/tlfonts
  for f in /tmp/tlroot/usr/share/fonts/truetype/dejavu/*.ttf /tmp/tlroot/usr/share/fonts/truetype/wqy/*.ttc; do
    [ -e "$f" ] && ln -sf "$f" /tmp/tlfonts/
  done
  export TILELAB_FONT_DIR=/tmp/tlfonts
}
