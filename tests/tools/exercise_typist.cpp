// A stand-in for the app's editor in tests/cpu/test_exercise_store.cpp: loads a lesson's exercise
// from the store, then "types" one character at a time, saving after each (as the editor does on
// every change) and writing the saved length to stdout once the save has returned. The test kills
// it at random points and checks that no confirmed edit was lost.
//   exercise_typist DIR LESSON KEYSTROKES
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tilelab/exercise_store.h"

// The text typed after the starting file: position p holds this character.
static char typed_at(size_t p) { return p % 40 == 39 ? '\n' : char('a' + p % 26); }

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: exercise_typist DIR LESSON KEYSTROKES\n");
        return 2;
    }
    const tilelab::Exercise* ex = tilelab::find_exercise(argv[2]);
    if (!ex) return 2;
    const tilelab::ExerciseStore store(argv[1]);
    std::string note, error;
    std::string text = store.load(*ex, note);
    if (!note.empty() || text.compare(0, ex->skeleton.size(), ex->skeleton) != 0) {
        std::fprintf(stderr, "the saved file is not the starting file plus typing: %s\n", note.c_str());
        return 3;
    }
    const long keystrokes = std::atol(argv[3]);
    for (long i = 0; i < keystrokes; ++i) {
        text += typed_at(text.size() - ex->skeleton.size());
        if (!store.save(*ex, text, error)) {
            std::fprintf(stderr, "%s\n", error.c_str());
            return 1;
        }
        const std::string line = std::to_string(text.size() - ex->skeleton.size()) + "\n";
        if (::write(1, line.data(), line.size()) != ssize_t(line.size())) return 1;
    }
    return 0;
}
