// The headless app's OpenGL context (gui/headless.cpp): an EGL display, a pbuffer surface and a GL
// 3.3 core context on the GPU's EGL device or a software renderer, chosen by --gl-device.
#pragma once
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <cstring>
#include <string>
#include <vector>
#include "headless.h"

namespace tilelab::gui::headless_egl {

inline bool has_extension(const char* list, const char* name) {
    if (!list) return false;
    const size_t n = std::strlen(name);
    for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
    return false;
}

// An EGL display, pbuffer surface and GL 3.3 core context, current on this thread while alive.
class EglContext {
public:
    EglContext(int width, int height, GlDevice device) {
        if (device != GlDevice::Auto) {
            open_device_of_kind(device == GlDevice::Software, width, height);
            return;
        }
        const char* wanted = std::getenv("TILELAB_EGL_PLATFORM");   // device | surfaceless | default
        const std::string only = wanted ? wanted : "";
        // NVIDIA drivers offer the device platform; Mesa offers surfaceless; try both.
        if ((only.empty() || only == "device") && try_device(width, height)) return;
        if ((only.empty() || only == "surfaceless") &&
            try_display(platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY), "surfaceless", width, height))
            return;
        if ((only.empty() || only == "default") && try_display(eglGetDisplay(EGL_DEFAULT_DISPLAY), "default", width, height))
            return;
        if (error_.empty()) error_ = "no EGL display could be opened";
    }
    ~EglContext() {
        if (display_ == EGL_NO_DISPLAY) return;
        eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (context_ != EGL_NO_CONTEXT) eglDestroyContext(display_, context_);
        if (surface_ != EGL_NO_SURFACE) eglDestroySurface(display_, surface_);
        eglTerminate(display_);
    }
    EglContext(const EglContext&) = delete;
    EglContext& operator=(const EglContext&) = delete;

    bool ok() const { return context_ != EGL_NO_CONTEXT; }
    const std::string& error() const { return error_; }
    const std::string& platform() const { return platform_; }

private:
    static EGLDisplay platform_display(EGLenum platform, void* native) {
        auto get = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
        return get ? get(platform, native, nullptr) : EGL_NO_DISPLAY;
    }

    // Every EGL device (EGL_EXT_device_enumeration); empty when the extension is missing.
    static std::vector<EGLDeviceEXT> devices() {
        auto query = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
        if (!query) return {};
        // Filled in place (not built from a pointer range): GCC 12 at -O3 reports a false
        // -Wfree-nonheap-object for the range constructor.
        std::vector<EGLDeviceEXT> found(16);
        EGLint count = 0;
        if (!query(16, found.data(), &count) || count < 0) return {};
        found.resize(size_t(count));
        return found;
    }

    static const char* device_string(EGLDeviceEXT device, EGLint name) {
        auto query = reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(eglGetProcAddress("eglQueryDeviceStringEXT"));
        return query ? query(device, name) : nullptr;
    }

    // Mesa's llvmpipe says so in the device's extensions; anything else is a GPU.
    static bool is_software(EGLDeviceEXT device) {
        return has_extension(device_string(device, EGL_EXTENSIONS), "EGL_MESA_device_software");
    }

    // "device 1 (GPU, /dev/dri/card0)": which device rendered, for the log and for errors.
    static std::string describe(EGLDeviceEXT device, size_t index) {
        std::string what = "device " + std::to_string(index) + (is_software(device) ? " (software" : " (GPU");
        if (has_extension(device_string(device, EGL_EXTENSIONS), "EGL_EXT_device_drm"))
            if (const char* file = device_string(device, EGL_DRM_DEVICE_FILE_EXT)) {
                what += ", ";
                what += file;
            }
        what += ')';
        return what;
    }

    bool try_device(int width, int height) {
        const std::vector<EGLDeviceEXT> all = devices();
        for (size_t i = 0; i < all.size(); ++i)
            if (try_display(platform_display(EGL_PLATFORM_DEVICE_EXT, all[i]), describe(all[i], i), width, height))
                return true;
        return false;
    }

    // --gl-device gpu|software: only a device of that kind will do (EGL_EXT_platform_device).
    void open_device_of_kind(bool software, int width, int height) {
        const char* kind = software ? "software" : "GPU";
        if (!has_extension(eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS), "EGL_EXT_platform_device")) {
            error_ = std::string("choosing a ") + kind + " device needs EGL_EXT_platform_device, which this EGL lacks";
            return;
        }
        const std::vector<EGLDeviceEXT> all = devices();
        std::string found;
        bool any = false;
        for (size_t i = 0; i < all.size(); ++i) {
            if (!found.empty()) found += ", ";
            found += describe(all[i], i);
            if (is_software(all[i]) != software) continue;
            any = true;
            if (try_display(platform_display(EGL_PLATFORM_DEVICE_EXT, all[i]), describe(all[i], i), width, height)) return;
        }
        if (!any)
            error_ = std::string("no EGL device is ") + (software ? "a software renderer" : "a GPU") + " (found: " +
                     (found.empty() ? "none" : found) + "); --gl-device auto takes whichever works";
    }

    bool try_display(EGLDisplay display, const std::string& name, int width, int height) {
        if (display == EGL_NO_DISPLAY) return false;
        EGLint major = 0, minor = 0;
        if (!eglInitialize(display, &major, &minor)) {
            error_ = name + ": eglInitialize failed (0x" + hex(eglGetError()) + ")";
            return false;
        }
        const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                         EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
                                         EGL_NONE};
        EGLConfig config;
        EGLint configs = 0;
        const EGLint pbuffer_attribs[] = {EGL_WIDTH, width, EGL_HEIGHT, height, EGL_NONE};
        const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                          EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
        EGLSurface surface = EGL_NO_SURFACE;
        EGLContext context = EGL_NO_CONTEXT;
        if (!eglChooseConfig(display, config_attribs, &config, 1, &configs) || configs == 0) {
            error_ = name + ": no RGBA8 pbuffer config for desktop OpenGL";
        } else if ((surface = eglCreatePbufferSurface(display, config, pbuffer_attribs)) == EGL_NO_SURFACE) {
            error_ = name + ": eglCreatePbufferSurface failed (0x" + hex(eglGetError()) + ")";
        } else if (!eglBindAPI(EGL_OPENGL_API)) {
            error_ = name + ": eglBindAPI(EGL_OPENGL_API) failed";
        } else if ((context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs)) == EGL_NO_CONTEXT) {
            error_ = name + ": no OpenGL 3.3 core context (0x" + hex(eglGetError()) + ")";
        } else if (!eglMakeCurrent(display, surface, surface, context)) {
            error_ = name + ": eglMakeCurrent failed (0x" + hex(eglGetError()) + ")";
        } else {
            display_ = display;
            surface_ = surface;
            context_ = context;
            platform_ = name;
            return true;
        }
        if (context != EGL_NO_CONTEXT) eglDestroyContext(display, context);
        if (surface != EGL_NO_SURFACE) eglDestroySurface(display, surface);
        eglTerminate(display);
        return false;
    }

    static std::string hex(EGLint v) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%04x", unsigned(v));
        return buf;
    }

    EGLDisplay display_ = EGL_NO_DISPLAY;
    EGLSurface surface_ = EGL_NO_SURFACE;
    EGLContext context_ = EGL_NO_CONTEXT;
    std::string error_, platform_;
};

}  // namespace tilelab::gui::headless_egl
