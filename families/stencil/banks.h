// The stencil kernels' shared-memory access sites for the bank model (tilelab/banks.h): which
// blocks behave alike, and where a plane-walking block's threads keep their cells in shared memory.
// Edge blocks of a grid the tiles do not divide leave some lanes idle, so a site sums over classes
// of blocks (first, middle, last along each axis), one instance per class, weighted by how many
// blocks it stands for. tests/cpu/test_stencil_banks.cpp checks every site against a walk of the
// kernels, block by block and warp by warp.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>
#include "model.h"
#include "tilelab/banks.h"

namespace tilelab::stencil {

// The host's copy of tile_computes / tile_owns (kernels/stencil/stencil_common.cuh).
inline bool tile_computes(int t, int tile, int64_t c, int64_t n, int r = 1) { return t >= r && t <= tile - 1 - r && c < n - r; }
inline bool tile_owns(int t, int tile, int64_t c, int64_t n, int r = 1) {
    return tile_computes(t, tile, c, n, r) || (c < r && t == c) || (c >= n - r && c - t + tile >= n);
}

// One thread's part of one plane of a plane-walking block (PlaneTile in stencil_common.cuh): its
// RY tile pieces (VX cells each, one cell but in the register-tiled kernel) and its halo piece,
// as shared-memory words of a plane (TX + 2·PAD floats a row).
class PlaneTileCells {
public:
    PlaneTileCells(const PlaneWalkShape& s, const Problem& p, int bx, int by) : s_(s), nx_(p.dim[0]), ny_(p.dim[1]) {
        x0_ = s.around ? int64_t(bx) * s.tx : int64_t(bx) * (s.tx - 2);   // TX cells a tile at any VX
        y0_ = s.around ? int64_t(by) * s.rows() : int64_t(by) * (s.rows() - 2);
    }
    int pitch() const { return s_.tx + 2 * s_.pad(); }                  // floats per shared row
    int plane_words() const { return (s_.rows() + 2 * a()) * pitch(); }  // one shared plane
    struct Cell {
        bool in_grid = false, owns = false, computes = false;   // of the piece's first cell; computes: any
        int64_t word = -1;   // tile[row + A][PAD + VX·tx] of the plane: the piece's first cell
    };
    Cell cell(int thread, int r) const {
        const int tx = thread % s_.threads_x(), row = thread / s_.threads_x() + r * s_.ty;
        const int64_t x = x0_ + int64_t(s_.vx) * tx, y = y0_ + row;
        Cell c;
        c.in_grid = x < nx_ && y < ny_;
        if (s_.around) {
            c.owns = c.in_grid;
            c.computes = c.in_grid && x + s_.vx - 1 > 0 && x < nx_ - 1 && y > 0 && y < ny_ - 1;
        } else {
            c.owns = c.in_grid && tile_owns(tx, s_.tx, x, nx_) && tile_owns(row, s_.rows(), y, ny_);
            c.computes = tile_computes(tx, s_.tx, x, nx_) && tile_computes(row, s_.rows(), y, ny_);
        }
        c.word = int64_t(row + a()) * pitch() + s_.pad() + int64_t(s_.vx) * tx;
        return c;
    }
    // The first word of the halo piece thread t loads (halo around the tile): the row above in
    // pieces of VX cells for t < TX/VX, then the row below, the column left, the column right one
    // cell a thread; -1 where it has none, the piece is off the grid or not of the kind asked for.
    enum class HaloKind { Any, Rows, Columns };
    int64_t halo_word(int t, HaloKind kind = HaloKind::Any) const {
        if (!s_.around) return -1;
        const int TXT = s_.threads_x(), TX = s_.tx, R = s_.rows(), VX = s_.vx, PAD = s_.pad();
        int64_t hx = -1, hy = -1;
        int sx = 0, sy = 0;
        const bool row = t < 2 * TXT;
        if (t < TXT) {
            hx = x0_ + VX * t, hy = y0_ - 1, sx = PAD + VX * t, sy = 0;
        } else if (t < 2 * TXT) {
            hx = x0_ + VX * (t - TXT), hy = y0_ + R, sx = PAD + VX * (t - TXT), sy = R + 1;
        } else if (t < 2 * TXT + R) {
            hx = x0_ - 1, hy = y0_ + t - 2 * TXT, sx = PAD - 1, sy = t - 2 * TXT + 1;
        } else if (t < 2 * TXT + 2 * R) {
            hx = x0_ + TX, hy = y0_ + t - 2 * TXT - R, sx = PAD + TX, sy = t - 2 * TXT - R + 1;
        }
        if (hx < 0 || hy < 0 || hx >= nx_ || hy >= ny_) return -1;
        if ((kind == HaloKind::Rows && !row) || (kind == HaloKind::Columns && row)) return -1;
        return int64_t(sy) * pitch() + sx;
    }

private:
    int a() const { return s_.around ? 1 : 0; }
    PlaneWalkShape s_;
    int64_t nx_, ny_, x0_ = 0, y0_ = 0;
};

// The x-y block classes of a plane walk, with their tiles: first, middle and last along x and y.
struct PlaneBlockClass {
    PlaneTileCells cells;
    double count;   // blocks of one plane of blocks (x-y) it stands for
};
inline std::vector<PlaneBlockClass> plane_block_classes(const PlaneWalkShape& s, const Problem& p) {
    const auto blocks = s.blocks(p);
    std::vector<PlaneBlockClass> out;
    for (const AxisClass& cy : axis_classes(blocks[1], true))
        for (const AxisClass& cx : axis_classes(blocks[0], true))
            out.push_back({PlaneTileCells(s, p, cx.block, cy.block), cx.count * cy.count});
    return out;
}

// Steps of the walk along z, summed over the blocks along z: block bz walks
// n = min(Z, Nz − 1 − z₀) steps (z₀ = 1 + bz·Z); counts the steps i < n that satisfy `pred(i, n)`.
template <typename Pred>
double z_steps(const PlaneWalkShape& s, const Problem& p, Pred pred) {
    const int64_t nz = p.dim[2], gz = ceil_div(nz - 2, s.z);
    const int last = int(nz - 2 - (gz - 1) * s.z);
    double total = 0;
    for (int i = 0; i < s.z; ++i) total += double(gz - 1) * (pred(i, s.z) ? 1 : 0);
    for (int i = 0; i < last; ++i) total += pred(i, last) ? 1 : 0;
    return total;
}

// A site of `floats` consecutive floats a thread (single floats but for the register-tiled
// kernel's float2 and float4 pieces) with one instance per entry of `weights`; `word(instance,
// thread)` is the index of the first float in the shared array, -1 if idle.
// Instances whose every thread touches the same word (or none), such as a middle and a first block
// that differ only where this access does not look, are merged and their weights added: the
// counts stay exact and the model does the work once.
inline SharedAccessSite float_site(std::string name, std::string formula, bool store, int threads,
                                   const std::vector<double>& weights, const std::function<int64_t(int, int)>& word,
                                   int floats = 1) {
    std::vector<std::vector<int64_t>> bytes;   // per merged instance, per thread
    std::vector<double> merged;
    std::map<std::vector<int64_t>, size_t> seen;
    for (size_t i = 0; i < weights.size(); ++i) {
        if (weights[i] == 0) continue;
        std::vector<int64_t> row(static_cast<size_t>(threads));
        for (int t = 0; t < threads; ++t) {
            const int64_t w = word(int(i), t);
            row[size_t(t)] = w < 0 ? int64_t(-1) : 4 * w;
        }
        const auto [it, fresh] = seen.emplace(row, bytes.size());
        if (fresh) {
            bytes.push_back(std::move(row));
            merged.push_back(weights[i]);
        } else {
            merged[it->second] += weights[i];
        }
    }
    if (merged.empty()) {   // never issued in this launch (a step no block reaches): one idle instance
        bytes.assign(1, std::vector<int64_t>(size_t(threads), -1));
        merged.assign(1, 0.0);
    }
    SharedAccessSite a;
    a.name = std::move(name);
    a.formula = std::move(formula);
    a.store = store;
    a.width_bytes = 4 * floats;
    a.threads = threads;
    a.instances = int(merged.size());
    a.repeats = 1;
    a.instance_weights = std::move(merged);
    a.byte_address = [bytes = std::move(bytes)](int i, int t) { return bytes[size_t(i)][size_t(t)]; };
    return a;
}

// The words a formula calls the tile cell of a thread, for the plane walks' formula strings.
inline std::string plane_cell_formula(const PlaneWalkShape& s, const std::string& dy = "", const std::string& dx = "") {
    const std::string row = s.ry > 1 ? "ty + r·TY" : "ty";
    if (s.around && s.vx > 1) return "(" + row + " + 1" + dy + ")·(TX+2·VX) + VX + VX·tx" + dx;
    if (s.around) return "(" + row + " + 1" + dy + ")·(TX+2) + tx + 1" + dx;
    return "(" + row + dy + ")·TX + tx" + dx;
}

}  // namespace tilelab::stencil
