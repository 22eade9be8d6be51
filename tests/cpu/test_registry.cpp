// The registry: every lesson folder's variant is registered, in teaching order, by the lesson
// itself; tests add theirs to the same registry; and each variant's declared tiles (what the
// Tiles panel draws) agree with its launch for random valid configurations.
#include <gtest/gtest.h>
#include <algorithm>
#include <random>
#include <set>
#include "model/family_shape.h"
#include "tilelab/engine.h"
#include "tilelab/lesson.h"
#include "tilelab/variant.h"
#include "model_engine.h"

using namespace tilelab;

namespace {

using test::model_engine;

std::string describe(const ParamValues& params) {
    std::string s;
    for (const auto& [name, value] : params) s += " " + name + "=" + std::to_string(value);
    return s;
}

}  // namespace

// Nobody lists the variants: the build generates the list from the TILELAB_REGISTER_VARIANT
// lines of lessons/*/variant.cpp, so the lessons and the registry name the same variants, in
// the order of the lesson folders.
TEST(Registry, TheLessonsAndTheRegistryNameTheSameVariantsInTeachingOrder) {
    std::vector<std::string> from_lessons, registered;
    for (const Lesson& l : all_lessons()) from_lessons.push_back(l.variant);
    for (const Variant& v : all_variants()) registered.push_back(v.id);
    EXPECT_EQ(registered, from_lessons);
    EXPECT_EQ(std::set<std::string>(registered.begin(), registered.end()).size(), registered.size())
        << "two registrations share an id";
}

TEST(Registry, EveryVariantNamesAFamilyThatRegisteredItself) {
    for (const Variant& v : all_variants()) {
        const auto dims = family_dim_names(v.family);
        EXPECT_FALSE(dims[0].empty() || dims[1].empty() || dims[2].empty()) << v.id << ": family " << v.family;
    }
    EXPECT_EQ(family_dim_names("matmul"), (std::array<std::string, 3>{"M", "N", "K"}));
    EXPECT_EQ(family_dim_names("stencil"), (std::array<std::string, 3>{"Nx", "Ny", "Nz"}));
    EXPECT_EQ(family_dim_names("no such family"), (std::array<std::string, 3>{}));
}

TEST(Registry, AVariantAddedAtRunTimeIsFoundButNotListed) {
    const size_t listed = all_variants().size();
    Variant v;
    v.id = "test.registry_added";
    v.family = "matmul";
    v.title = "first";
    add_variant(v);
    const Variant* found = find_variant("test.registry_added");
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->title, "first");
    EXPECT_EQ(all_variants().size(), listed);
    // A second one with the same id replaces the first, at the same address.
    v.title = "second";
    add_variant(v);
    EXPECT_EQ(find_variant("test.registry_added"), found);
    EXPECT_EQ(found->title, "second");
    EXPECT_EQ(find_variant("test.no_such_variant"), nullptr);
}

// What the Tiles panel draws is what runs: along each output axis the grid walks
// ⌈extent / block tile⌉ blocks, a thread's tile fits its block's, and a reduction covers K.
TEST(Registry, EveryVariantsTilesMatchItsLaunchForRandomValidConfigurations) {
    std::mt19937 rng(20240611);
    for (const Variant& v : all_variants()) {
        SCOPED_TRACE(v.id);
        ASSERT_TRUE(v.declares_tiles) << "declares no tiles";
        int checked = 0;
        // Many draws: some variants take few sizes (lesson 16: d a power of two from 32).
        for (int attempt = 0; attempt < 40000 && checked < 60; ++attempt) {
            RunRequest req;
            req.variant = v.id;
            for (const ParamSpec& p : v.params) {
                const auto values = p.values();
                req.params[p.name] = values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng)];
            }
            const auto sizes = make_family_shape(v.family)->test_sizes(FamilyShape::TestSizes::small);
            for (size_t i = 0; i < 3; ++i)
                req.problem.dim[i] = std::uniform_int_distribution<int64_t>(std::max<int64_t>(3, sizes[i].lo), sizes[i].hi)(rng);
            if (!model_engine().invalid_reason(req).empty()) continue;
            ++checked;
            const ParamValues params = with_defaults(v.params, req.params);
            const LaunchShape launch = v.launch(params, req.problem);
            const TileGeometry t = v.tiles(params, req.problem);
            SCOPED_TRACE(format_problem(req.problem) + describe(params));
            std::set<int> axes;
            for (int a = 0; a < 3; ++a) {
                const size_t axis = size_t(t.grid_axis[size_t(a)]);
                ASSERT_LT(axis, 3u);
                axes.insert(int(axis));
                ASSERT_GT(t.block_tile[size_t(a)], 0) << "axis " << a;
                if (!t.tiles_walked) {
                    EXPECT_EQ(int64_t(launch.grid[axis]), t.blocks(a)) << "output axis " << a << ", grid axis " << axis;
                }
                EXPECT_GE(t.block_tile[size_t(a)], t.thread_tile[size_t(a)]) << "axis " << a;
                EXPECT_GT(t.extent[size_t(a)], 0) << "axis " << a;
                if (v.family != "latency" && v.family != "bandwidth") {   // extents in threads, not sizes (below)
                    EXPECT_LE(t.extent[size_t(a)], std::max(req.problem.dim[0], std::max(req.problem.dim[1], req.problem.dim[2])));
                }
            }
            EXPECT_EQ(axes.size(), 3u) << "grid axes must be a permutation";
            if (t.tiles_walked) {   // one axis of blocks, never more than the tiles they walk (in whole clusters, along M)
                const int64_t c = launch.cluster, rows = (t.blocks(1) + c - 1) / c * c;
                if (!t.shared_by_k) {   // stream-K: every resident block takes a share of K slices
                    EXPECT_LE(int64_t(launch.grid[0]), t.blocks(0) * rows * t.blocks(2));
                }
                EXPECT_EQ(launch.grid[0] % launch.cluster, 0u);
                EXPECT_EQ(launch.grid[1] * launch.grid[2], 1u);
            }
            const int64_t output_threads = launch.threads_per_block() - t.loading_threads;
            if (v.family == "attention" && t.extent[0] != req.problem.dim[1]) {
                // The plain path's softmax (lesson 14): P, N wide and N high per head, whole rows a
                // block; every element has a thread (a lane takes every 32nd of its row).
                EXPECT_EQ(t.extent[0], req.problem.dim[0]);
                EXPECT_EQ(t.extent[1], req.problem.dim[0]);
                EXPECT_EQ(t.extent[2], req.problem.dim[2]);
                EXPECT_EQ(t.block_tile[0], req.problem.dim[0]);
                EXPECT_GE(launch.threads_per_block() * t.thread_tile[0] * t.thread_tile[1], t.block_outputs());
            } else if (v.family == "attention") {
                // O is d wide and N high per head, one plane per head; every output has a thread.
                EXPECT_EQ(t.extent[0], req.problem.dim[1]);
                EXPECT_EQ(t.extent[1], req.problem.dim[0]);
                EXPECT_EQ(t.extent[2], req.problem.dim[2]);
                EXPECT_EQ(t.block_outputs(), launch.threads_per_block() * t.thread_tile[0] * t.thread_tile[1]);
            } else if (t.reduction > 0) {
                EXPECT_EQ(t.reduction, req.problem.dim[2]);
                EXPECT_GE(t.k_step, 1);
                // C is N wide and M high; every output of a block tile has a thread (of those that
                // hold outputs).
                EXPECT_EQ(t.extent[0], req.problem.dim[1]);
                EXPECT_EQ(t.extent[1], req.problem.dim[0]);
                EXPECT_EQ(t.block_outputs() * t.tiles_in_turns, output_threads * t.thread_tile[0] * t.thread_tile[1]);
            } else if (v.family == "transpose" || v.family == "convolution") {
                // The output tiles cover the W×H matrix or image (the third size is not used); every
                // element of a block's tile has a thread.
                EXPECT_EQ(t.extent[0], req.problem.dim[0]);
                EXPECT_EQ(t.extent[1], req.problem.dim[1]);
                EXPECT_EQ(t.extent[2], 1);
                EXPECT_EQ(t.block_outputs(), launch.threads_per_block() * t.thread_tile[0] * t.thread_tile[1]);
            } else if (v.family == "bandwidth") {
                // A thread a block's slot: the blocks' threads walk the input in passes.
                EXPECT_EQ(t.extent[0], req.problem.dim[0] * launch.threads_per_block());
                EXPECT_EQ(t.block_outputs(), launch.threads_per_block());
            } else if (v.family == "latency") {
                // Thread t's eight chains: a block covers its threads × 8; every chain has its thread.
                EXPECT_EQ(t.extent[0], req.problem.dim[0] * launch.threads_per_block());
                EXPECT_EQ(t.extent[1], 8);
                EXPECT_EQ(t.block_outputs(), launch.threads_per_block() * t.thread_tile[0] * t.thread_tile[1]);
            } else {
                // An order-R stencil reaches R cells (7-point: 1); fusing T time steps, T·R.
                EXPECT_EQ(t.halo, param_or(req.params, "RADIUS", 1) * std::max(1, t.time_steps));
                // The blocks cover the interior (n − 2R) or the whole grid.
                for (size_t a = 0; a < 3; ++a) {
                    EXPECT_TRUE(t.extent[a] == req.problem.dim[a] || t.extent[a] == req.problem.dim[a] - 2 * t.halo) << a;
                }
                if (t.shared_planes > 0) {
                    EXPECT_EQ(4 * t.shared_planes * t.shared_plane[0] * t.shared_plane[1], int64_t(v.smem_bytes(params)));
                }
            }
        }
        EXPECT_GE(checked, 20) << "too few valid random configurations";
    }
}
