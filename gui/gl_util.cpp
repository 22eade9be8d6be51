#include "gl_util.h"
#include <glad/gl.h>
#include <algorithm>

namespace tilelab::gui {

bool LoadGl(GlProcLoader loader) {
    const int version = gladLoadGL(reinterpret_cast<GLADloadfunc>(loader));
    return version != 0 && GLAD_VERSION_MAJOR(version) * 10 + GLAD_VERSION_MINOR(version) >= 33;
}

std::string GlVersionString() {
    auto str = [](GLenum name) {
        const GLubyte* s = glGetString(name);
        return s ? std::string(reinterpret_cast<const char*>(s)) : std::string("?");
    };
    return str(GL_VERSION) + " / " + str(GL_RENDERER);
}

void ClearFramebuffer(int width, int height, float r, float g, float b) {
    glViewport(0, 0, width, height);
    glClearColor(r, g, b, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
}

void FinishGl() { glFinish(); }

std::string TakeGlErrors() {
    std::string out;
    for (int i = 0; i < 32; ++i) {   // a lost context can report errors forever
        const GLenum e = glGetError();
        if (e == GL_NO_ERROR) break;
        const char* name = e == GL_INVALID_ENUM ? "GL_INVALID_ENUM"
                         : e == GL_INVALID_VALUE ? "GL_INVALID_VALUE"
                         : e == GL_INVALID_OPERATION ? "GL_INVALID_OPERATION"
                         : e == GL_INVALID_FRAMEBUFFER_OPERATION ? "GL_INVALID_FRAMEBUFFER_OPERATION"
                         : e == GL_OUT_OF_MEMORY ? "GL_OUT_OF_MEMORY" : "GL error";
        if (!out.empty()) out += ", ";
        out += name;
    }
    return out;
}

std::vector<uint8_t> ReadPixelsRgba(int width, int height) {
    std::vector<uint8_t> bottom_up(size_t(width) * height * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data());
    // GL's origin is the bottom-left corner; images start at the top.
    std::vector<uint8_t> top_down(bottom_up.size());
    const size_t row = size_t(width) * 4;
    for (int y = 0; y < height; ++y)
        std::copy_n(bottom_up.data() + size_t(height - 1 - y) * row, row, top_down.data() + size_t(y) * row);
    return top_down;
}

}  // namespace tilelab::gui
